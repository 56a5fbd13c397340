//! Comparisons, selects and booleans.
//!
//! The X1K compares only with zero: `CMP` (C >= 0 ? A : B), `CND`
//! (C > 0.5 ? A : B), predicate bits and the ALU result (CTM §3.3.4,
//! §3.3.9, §3.3.10). A comparison `a op b` stays lazy ([`BoolVal::Cmp`])
//! until its use decides its form:
//!
//! - a branch: one op computing `a − b` (or `b − a`) that sets the ALU
//!   result with `<0`, `>=0`, `==0` or `!=0` — exact for NaN (CTM §3.6.1
//!   table); no register is written;
//! - a select: one `CMP` whose C is the difference, fused by a
//!   presubtract (`src1 − src0`, CTM §3.3.2) when the second operand is
//!   the same in every channel (inline constants, scalar uniforms);
//! - a value: `CMP(1, 0, d)` (a 1.0/0.0 float).
//!
//! `>=`, `<=`, `==`, `!=` follow IEEE for NaN. `<` and `>` as values or
//! selects are the complement of `>=`/`<=` (CMP has no strict form), so a
//! NaN operand makes them true: a documented deviation
//! (`docs/backend-x1k.md` §7). Both compare `a − b` with zero, so
//! differences that overflow or flush to zero (|a − b| below 2^-126) and
//! `inf == inf` deviate too.

use super::arith::{Modify, modify};
use super::{Selector, Val};
use crate::codegen::CodegenError;
use crate::codegen::consts::ConstTable;
use crate::codegen::mir::{AluKind, Cond, Lane, MirOp, Operand, Special, Src, Unit};
use crate::isa::{CompareOp, InputModifier, PresubOp};
use ctm_frontend::tast::ParamId;
use ctm_ir::op::{CmpOp, LaneCond};
use ctm_ir::types::Ty;
use smallvec::{SmallVec, smallvec};

/// A boolean, kept symbolic until its use is known.
#[derive(Clone, Debug)]
pub enum BoolVal {
    /// A constant.
    Lit(bool),
    /// `a op b` on scalars.
    Cmp(CmpOp, Val, Val),
    /// A 1.0/0.0 float.
    Value(Val),
    /// A `bool` uniform.
    Uniform(ParamId),
    /// `!b`.
    Not(Box<BoolVal>),
    /// `a && b`.
    And(Box<BoolVal>, Box<BoolVal>),
    /// `a || b`.
    Or(Box<BoolVal>, Box<BoolVal>),
}

impl BoolVal {
    /// The value of `self` if it does not depend on the element (literals
    /// under `!`, `&&`, `||`).
    pub fn known(&self) -> Option<bool> {
        match self {
            BoolVal::Lit(b) => Some(*b),
            BoolVal::Not(x) => x.known().map(|b| !b),
            BoolVal::And(x, y) => match (x.known(), y.known()) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            BoolVal::Or(x, y) => match (x.known(), y.known()) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            _ => None,
        }
    }
}

/// How a comparison maps to "d >= 0" or "−|d| >= 0": the difference's
/// operand order and whether the test is the complement.
fn cmp_form(op: CmpOp) -> (bool, bool, bool) {
    // (swap operands so d = b − a, equality form, complement)
    match op {
        CmpOp::Ge => (false, false, false),
        CmpOp::Lt => (false, false, true),
        CmpOp::Le => (true, false, false),
        CmpOp::Gt => (true, false, true),
        CmpOp::Eq => (false, true, false),
        CmpOp::Ne => (false, true, true),
    }
}

impl Selector<'_> {
    /// `a op b` for values of type `ty`.
    pub(super) fn compare(
        &mut self,
        op: CmpOp,
        a: Val,
        b: Val,
        ty: Ty,
    ) -> Result<Val, CodegenError> {
        let (a, b) = if ty == Ty::Bool {
            let a = self.as_value(a)?;
            let b = self.as_value(b)?;
            (a, b)
        } else {
            (a, b)
        };
        Ok(Val::Bool(Box::new(BoolVal::Cmp(op, a, b))))
    }

    fn as_value(&mut self, v: Val) -> Result<Val, CodegenError> {
        match v {
            Val::Bool(b) => self.bool_value(*b, false),
            other => Ok(other),
        }
    }

    /// `C >= 0 ? x : y` with C = `hi − lo` (modified by `c_mod`), fused
    /// by a presubtract when possible. With [`CmpLanes::Broadcast`] the
    /// difference is a scalar tested for every lane of `x`/`y` (a select);
    /// with [`CmpLanes::PerLane`] it has `w` lanes, each choosing its own
    /// lane (`step`, lane selects).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cmp_diff(
        &mut self,
        x: Val,
        y: Val,
        lo: Val,
        hi: Val,
        w: u8,
        lanes: CmpLanes,
        c_mod: InputModifier,
    ) -> Result<Val, CodegenError> {
        let xo = self.operand(&x)?;
        let yo = self.operand(&y)?;
        let dw = match lanes {
            CmpLanes::Broadcast => 1,
            CmpLanes::PerLane => w,
        };
        let bcast = |mut c: Operand| {
            c.modifier = combine(c.modifier, c_mod);
            if lanes == CmpLanes::Broadcast {
                c.lanes = [c.lanes[0]; 4];
            }
            c
        };
        let (hi, lo) = match self.difference(hi, lo, dw)? {
            Diff::Direct(c) => {
                return Ok(self.alu_ops(AluKind::Cmp, w, smallvec![xo, yo, bcast(c)], None, true));
            }
            Diff::Presub(c, p, unit) => {
                let args: SmallVec<[Operand; 3]> = smallvec![xo, yo, bcast(c)];
                let unit_ok = matches!((w, unit), (1, Some(_)) | (2 | 3, Some(Unit::Rgb)));
                if fits(&args, &p) && unit_ok {
                    let v = self.alu_ops(AluKind::Cmp, w, args, Some(p), true);
                    if let (1, Some(u), Some(&last)) = (w, unit, self.current_block().last()) {
                        self.mir.op_mut(last).unit = u;
                        if let Some((d, _)) = self.mir.op(last).dest {
                            self.mir.vregs[d.0 as usize].class = match u {
                                Unit::Alpha => crate::codegen::mir::RegClass::Alpha,
                                _ => crate::codegen::mir::RegClass::Rgb,
                            };
                        }
                    }
                    return Ok(v);
                }
                (p.2, p.1)
            }
            Diff::Pair(lo, hi) => (hi, lo),
        };
        // No presubtract: compute the difference first.
        let d = self.alu_ops(
            AluKind::Mad,
            dw,
            smallvec![hi, Operand::splat_lane(Lane::One), lo.negated()],
            None,
            false,
        );
        let c = bcast(self.operand(&d)?);
        Ok(self.alu_ops(AluKind::Cmp, w, smallvec![xo, yo, c], None, true))
    }

    /// The operand `hi − lo`: `hi` itself when `lo` is zero, a presubtract
    /// (`src1 − src0`) when one side is the same in every channel (the
    /// presubtract works channel by channel on unswizzled registers).
    fn difference(&mut self, hi: Val, lo: Val, w: u8) -> Result<Diff, CodegenError> {
        if let Val::Lit { values, .. } = &lo
            && values[..w as usize].iter().all(|&v| v == 0.0)
        {
            return Ok(Diff::Direct(self.operand(&hi)?));
        }
        let ho = self.operand(&hi)?;
        let lo_ = self.operand(&lo)?;
        let plain = |o: &Operand| o.modifier == InputModifier::None;
        if let (Some(h), Some(l)) = (presub_source(ho, w), presub_source(lo_, w))
            && plain(&h)
            && plain(&l)
        {
            let (hu, lu) = (
                channel_uniform(&h, &self.consts),
                channel_uniform(&l, &self.consts),
            );
            let reg = if lu { h } else { l };
            let unit = self.presub_unit(&reg, w);
            if (hu || lu) && unit.is_some() {
                let lanes = reg.lanes;
                let srcp = Operand {
                    src: Src::Presub,
                    lanes,
                    modifier: InputModifier::None,
                };
                return Ok(Diff::Presub(srcp, (PresubOp::Sub, l, h), unit));
            }
        }
        Ok(Diff::Pair(lo_, ho))
    }

    /// The unit whose presubtract sees the lanes `o` reads: the RGB
    /// presubtract works on r, g, b and the alpha one on a (CTM §3.3.2),
    /// so the register's channels must be known now.
    fn presub_unit(&self, o: &Operand, w: u8) -> Option<Unit> {
        use crate::codegen::mir::RegClass;
        let mut alpha = false;
        let mut rgb = false;
        let Src::Reg(v) = o.src else {
            // A constant's channels: r, g, b through the RGB addresses, a
            // through the alpha address (CTM §3.3.3).
            for l in &o.lanes[..w as usize] {
                match *l {
                    Lane::Of(3) if o.src != Src::Presub && !matches!(o.src, Src::Inline(_)) => {
                        alpha = true
                    }
                    Lane::Of(_) => rgb = true,
                    _ => return None,
                }
            }
            return match (rgb, alpha) {
                (_, false) => Some(Unit::Rgb),
                (false, true) => Some(Unit::Alpha),
                (true, true) => None,
            };
        };
        let info = self.mir.vreg(v);
        for l in &o.lanes[..w as usize] {
            let Lane::Of(l) = *l else { return None };
            match info.class {
                _ if info.fixed.is_some() => rgb = true,
                RegClass::Rgb => rgb = true,
                RegClass::Alpha => alpha = true,
                RegClass::Rgba if l < 3 => rgb = true,
                RegClass::Rgba => alpha = true,
                RegClass::Undecided => return None,
            }
        }
        match (rgb, alpha) {
            (true, false) => Some(Unit::Rgb),
            (false, true) => Some(Unit::Alpha),
            _ => None,
        }
    }

    /// `select(c, a, b)` for values of type `ty`.
    pub(super) fn select(&mut self, c: Val, a: Val, b: Val, ty: Ty) -> Result<Val, CodegenError> {
        let c = match c {
            Val::Bool(b) => *b,
            other => BoolVal::Value(other),
        };
        if ty == Ty::Bool {
            let a = self.as_value(a)?;
            let b = self.as_value(b)?;
            let v = self.select_value(c, a, b, 1)?;
            return Ok(Val::Bool(Box::new(BoolVal::Value(v))));
        }
        let w = ty.width().unwrap_or(1);
        self.select_value(c, a, b, w)
    }

    fn select_value(&mut self, c: BoolVal, a: Val, b: Val, w: u8) -> Result<Val, CodegenError> {
        match c {
            BoolVal::Lit(t) => Ok(if t { a } else { b }),
            BoolVal::Not(inner) => self.select_value(*inner, b, a, w),
            // `x && y ? a : b` is `x ? (y ? a : b) : b`: two selects, each
            // one CMP on its comparison's difference, instead of both
            // comparisons as 1.0/0.0 values, their MIN and a CND; each
            // comparison keeps its own NaN rule.
            BoolVal::And(x, y) if x.known().is_none() && y.known().is_none() => {
                let inner = self.select_value(*x, a, b.clone(), w)?;
                self.select_value(*y, inner, b, w)
            }
            // `x || y ? a : b` is `x ? a : (y ? a : b)`.
            BoolVal::Or(x, y) if x.known().is_none() && y.known().is_none() => {
                let inner = self.select_value(*x, a.clone(), b, w)?;
                self.select_value(*y, a, inner, w)
            }
            BoolVal::Cmp(op, x, y) => {
                let (swap, eq, complement) = cmp_form(op);
                let (lo, hi) = if swap { (x, y) } else { (y, x) };
                let (p, q) = if complement { (b, a) } else { (a, b) };
                let m = if eq {
                    InputModifier::NegAbs
                } else {
                    InputModifier::None
                };
                let (p, q) = (self.fix_bool(p)?, self.fix_bool(q)?);
                self.cmp_diff(p, q, lo, hi, w, CmpLanes::Broadcast, m)
            }
            other => {
                // A 1.0/0.0 value: CND(a, b, c), c > 0.5 (CTM §3.3.4).
                let v = self.bool_value(other, false)?;
                let (a, b) = (self.fix_bool(a)?, self.fix_bool(b)?);
                let mut co = self.operand(&v)?;
                co.lanes = [co.lanes[0]; 4];
                let ops = smallvec![self.operand(&a)?, self.operand(&b)?, co];
                Ok(self.alu_ops(AluKind::Cnd, w, ops, None, true))
            }
        }
    }

    fn fix_bool(&mut self, v: Val) -> Result<Val, CodegenError> {
        self.as_value(v)
    }

    /// Per lane: `cond(c) ? a : b`.
    pub(super) fn lane_select(
        &mut self,
        cond: LaneCond,
        c: Val,
        a: Val,
        b: Val,
    ) -> Result<Val, CodegenError> {
        let w = a.width();
        let zero = Val::scalar_lanes(0.0, w);
        match cond {
            // c >= 0: CMP directly.
            LaneCond::Ge0 => {
                self.cmp_diff(a, b, zero, c, w, CmpLanes::PerLane, InputModifier::None)
            }
            // c > 0: c >= 0 ? (−c >= 0 ? b : a) : b. CMP has only `>= 0`,
            // false for NaN, so the outer test sends NaN to `b` (one CMP,
            // `−c >= 0 ? b : a`, would send it to `a`).
            LaneCond::Gt0 => {
                let inner = self.cmp_diff(
                    b.clone(),
                    a,
                    zero.clone(),
                    modify(c.clone(), Modify::Neg),
                    w,
                    CmpLanes::PerLane,
                    InputModifier::None,
                )?;
                self.cmp_diff(inner, b, zero, c, w, CmpLanes::PerLane, InputModifier::None)
            }
            // c == 0 ⟺ −|c| >= 0.
            LaneCond::Eq0 => {
                self.cmp_diff(a, b, zero, c, w, CmpLanes::PerLane, InputModifier::NegAbs)
            }
        }
    }

    /// `b` as a 1.0/0.0 float (`inverted`: of `!b`).
    pub(super) fn bool_value(&mut self, b: BoolVal, inverted: bool) -> Result<Val, CodegenError> {
        let one = Val::scalar(1.0);
        let zero = Val::scalar(0.0);
        match b {
            BoolVal::Lit(t) => Ok(Val::scalar(if t != inverted { 1.0 } else { 0.0 })),
            BoolVal::Not(inner) => self.bool_value(*inner, !inverted),
            BoolVal::Value(v) if !inverted => Ok(v),
            BoolVal::Value(v) => {
                // 1 − v
                self.add(one, modify(v, Modify::Neg), 1)
            }
            BoolVal::Uniform(p) => {
                let c = self.consts.bool_value(p)?;
                let v = Val::View {
                    src: Src::Const {
                        index: c,
                        relative: false,
                    },
                    lanes: [Lane::Of(0); 4],
                    width: 1,
                    modifier: InputModifier::None,
                };
                if inverted {
                    self.add(one, modify(v, Modify::Neg), 1)
                } else {
                    Ok(v)
                }
            }
            BoolVal::Cmp(..) => {
                let (t, f) = if inverted { (zero, one) } else { (one, zero) };
                self.select_value(b, t, f, 1)
            }
            BoolVal::And(x, y) if inverted => self.bool_value(
                BoolVal::Or(Box::new(BoolVal::Not(x)), Box::new(BoolVal::Not(y))),
                false,
            ),
            BoolVal::Or(x, y) if inverted => self.bool_value(
                BoolVal::And(Box::new(BoolVal::Not(x)), Box::new(BoolVal::Not(y))),
                false,
            ),
            BoolVal::And(x, y) => {
                let a = self.bool_value(*x, false)?;
                let c = self.bool_value(*y, false)?;
                self.alu(AluKind::Min, 1, &[a, c])
            }
            BoolVal::Or(x, y) => {
                let a = self.bool_value(*x, false)?;
                let c = self.bool_value(*y, false)?;
                self.alu(AluKind::Max, 1, &[a, c])
            }
        }
    }

    /// A branch condition for `b`: an op setting the ALU result (or a
    /// boolean constant); `true` in the second place means "jump on true"
    /// (the condition is inverted).
    pub(super) fn branch_cond(&mut self, b: BoolVal) -> Result<(Cond, bool), CodegenError> {
        match b {
            BoolVal::Lit(t) => Ok((Cond::Always, !t)),
            BoolVal::Not(inner) => {
                let (c, inv) = self.branch_cond(*inner)?;
                Ok((c, !inv))
            }
            BoolVal::Uniform(p) => match self.consts.bool_const.get(p.index()).copied().flatten() {
                Some(k) => Ok((Cond::Bool(k), false)),
                None => Err(CodegenError::internal("bool-uniform", format!("{p}"))),
            },
            b @ (BoolVal::And(..) | BoolVal::Or(..)) if Self::func_leaves(&b).is_some() => {
                self.func_cond(b)
            }
            BoolVal::Cmp(op, x, y) => {
                let (swap, eq, complement) = cmp_form(op);
                let (lo, hi) = if swap { (x, y) } else { (y, x) };
                let test = match (eq, complement) {
                    (false, false) => CompareOp::Ge,
                    (false, true) => CompareOp::Lt,
                    (true, false) => CompareOp::Eq,
                    (true, true) => CompareOp::Ne,
                };
                let d = self.operand(&hi)?;
                let l = self.operand(&lo)?;
                let op = self.emit(MirOp {
                    alu: Some(AluKind::Mad),
                    tex: None,
                    unit: Unit::Any,
                    dest: None,
                    width: 1,
                    args: smallvec![d, Operand::splat_lane(Lane::One), l.negated()],
                    presub: None,
                    omod_off: false,
                    scale: 0,
                    clamp: false,
                    special: Special::AluResult(test),
                });
                Ok((Cond::AluResult { op }, false))
            }
            other => {
                let v = self.bool_value(other, false)?;
                let o = self.operand(&v)?;
                let op = self.emit(MirOp {
                    alu: Some(AluKind::Max),
                    tex: None,
                    unit: Unit::Any,
                    dest: None,
                    width: 1,
                    args: smallvec![o, o],
                    presub: None,
                    omod_off: true,
                    scale: 0,
                    clamp: false,
                    special: Special::AluResult(CompareOp::Ne),
                });
                Ok((Cond::AluResult { op }, false))
            }
        }
    }
}

/// Whether a compare's difference is one scalar for all lanes or one per
/// lane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CmpLanes {
    /// One scalar condition selects every lane.
    Broadcast,
    /// Lane i of the difference selects lane i.
    PerLane,
}

/// The inputs of a combined branch condition: at most two comparisons
/// (the ALU result and a predicate bit) and one `bool` uniform.
struct Leaves {
    cmps: Vec<(CmpOp, Val, Val)>,
    uniform: Option<ParamId>,
}

impl Selector<'_> {
    /// The leaves of `b` if `JUMP_FUNC` can test it in one instruction.
    fn func_leaves(b: &BoolVal) -> Option<Leaves> {
        fn walk(b: &BoolVal, l: &mut Leaves) -> Option<()> {
            match b {
                BoolVal::Lit(_) => Some(()),
                BoolVal::Not(x) => walk(x, l),
                BoolVal::And(x, y) | BoolVal::Or(x, y) => {
                    walk(x, l)?;
                    walk(y, l)
                }
                BoolVal::Cmp(op, x, y) => {
                    l.cmps.push((*op, x.clone(), y.clone()));
                    (l.cmps.len() <= 2 && x.width() == 1).then_some(())
                }
                BoolVal::Uniform(p) => match l.uniform {
                    Some(q) if q != *p => None,
                    _ => {
                        l.uniform = Some(*p);
                        Some(())
                    }
                },
                BoolVal::Value(_) => None,
            }
        }
        let mut l = Leaves {
            cmps: Vec::new(),
            uniform: None,
        };
        walk(b, &mut l)?;
        (!l.cmps.is_empty()).then_some(l)
    }

    /// A combined condition (`&&`, `||`, `!` of at most two comparisons
    /// and a `bool` uniform) as one `JUMP_FUNC` (CTM §3.5.3): the first
    /// comparison sets the ALU result, the second a predicate bit (CTM
    /// §3.3.9), the uniform is a boolean constant; the truth table is
    /// evaluated here. Saves materialising each comparison as 1.0/0.0 and
    /// combining them with MIN/MAX.
    fn func_cond(&mut self, b: BoolVal) -> Result<(Cond, bool), CodegenError> {
        let leaves = Self::func_leaves(&b)
            .ok_or_else(|| CodegenError::internal("branch-condition", "not a JUMP_FUNC"))?;
        let boolean = match leaves.uniform {
            Some(p) => Some(
                self.consts.bool_const[p.index()]
                    .ok_or_else(|| CodegenError::internal("bool-uniform", format!("{p}")))?,
            ),
            None => None,
        };
        let mut ops = Vec::new();
        for (i, (op, x, y)) in leaves.cmps.iter().enumerate() {
            let (swap, eq, complement) = cmp_form(*op);
            let (lo, hi) = if swap { (x, y) } else { (y, x) };
            let test = match (eq, complement) {
                (false, false) => CompareOp::Ge,
                (false, true) => CompareOp::Lt,
                (true, false) => CompareOp::Eq,
                (true, true) => CompareOp::Ne,
            };
            let d = self.operand(hi)?;
            let l = self.operand(lo)?;
            ops.push(self.emit(MirOp {
                alu: Some(AluKind::Mad),
                tex: None,
                unit: Unit::Any,
                dest: None,
                width: 1,
                args: smallvec![d, Operand::splat_lane(Lane::One), l.negated()],
                presub: None,
                omod_off: false,
                scale: 0,
                clamp: false,
                special: if i == 0 {
                    Special::AluResult(test)
                } else {
                    Special::Predicate(test)
                },
            }));
        }
        // Evaluate the tree for every (alu, pred, bool).
        fn eval(b: &BoolVal, input: u8, seen: &mut usize) -> bool {
            match b {
                BoolVal::Lit(t) => *t,
                BoolVal::Not(x) => !eval(x, input, seen),
                BoolVal::And(x, y) => {
                    let a = eval(x, input, seen);
                    eval(y, input, seen) && a
                }
                BoolVal::Or(x, y) => {
                    let a = eval(x, input, seen);
                    eval(y, input, seen) || a
                }
                BoolVal::Cmp(..) => {
                    let k = *seen;
                    *seen += 1;
                    let bit = if k == 0 { 2 } else { 1 };
                    input & (1 << bit) != 0
                }
                BoolVal::Uniform(_) => input & 1 != 0,
                BoolVal::Value(_) => false,
            }
        }
        let mut table = 0u8;
        for input in 0..8u8 {
            let mut seen = 0;
            if eval(&b, input, &mut seen) {
                table |= 1 << input;
            }
        }
        Ok((
            Cond::Func {
                alu: ops.first().copied(),
                pred: ops.get(1).copied(),
                boolean,
                table,
            },
            false,
        ))
    }
}

/// A difference operand.
enum Diff {
    /// Read directly.
    Direct(Operand),
    /// The presubtract result, with the presubtract and the unit its
    /// register source allows.
    Presub(Operand, (PresubOp, Operand, Operand), Option<Unit>),
    /// Needs a subtraction: (lo, hi).
    Pair(Operand, Operand),
}

/// Modifier composition for C = srcp with an extra modifier.
fn combine(a: InputModifier, b: InputModifier) -> InputModifier {
    match (a, b) {
        (a, InputModifier::None) => a,
        (InputModifier::None, b) => b,
        (_, b) => b,
    }
}

/// A presubtract source: a register or constant read whole (no swizzle
/// constant, no modifier); swizzle constants 0.5 and 1 become inline
/// constants.
fn presub_source(o: Operand, w: u8) -> Option<Operand> {
    match o.src {
        // The presubtract reads channels, not lanes: a swizzle constant
        // among the lanes would be lost (CTM §3.3.2).
        Src::Reg(_) | Src::Const { .. } | Src::Inline(_) => o.lanes[..w as usize]
            .iter()
            .all(|l| matches!(l, Lane::Of(_)))
            .then_some(o),
        Src::None if o.lanes[..w as usize].iter().any(|l| *l != o.lanes[0]) => None,
        Src::None => {
            let code = match o.lanes[0] {
                Lane::Half => crate::isa::inline_constant_code(0.5)?,
                Lane::One => crate::isa::inline_constant_code(1.0)?,
                _ => return None,
            };
            Some(Operand {
                src: Src::Inline(code),
                lanes: [Lane::Of(0); 4],
                modifier: o.modifier,
            })
        }
        Src::Presub => None,
    }
}

/// `true` when every channel of the operand's source holds the same value
/// (inline constants; constants read through one channel of a replicated
/// scalar uniform are treated the same by the caller only for inline
/// sources, since literal registers pack different values).
fn channel_uniform(o: &Operand, consts: &ConstTable) -> bool {
    match o.src {
        Src::Inline(_) => true,
        Src::Const { index, .. } => consts.is_replicated(index),
        _ => false,
    }
}

/// Whether the op's operands and presubtract sources fit three source
/// slots: the presubtract pins its two sources to slots 0 and 1 (CTM
/// §3.3.2, even when they are the same register), so at most one other
/// distinct source remains for slot 2.
fn fits(args: &[Operand], p: &(PresubOp, Operand, Operand)) -> bool {
    let pinned = [p.1.src, p.2.src];
    let mut others: Vec<Src> = Vec::new();
    for a in args {
        if matches!(a.src, Src::None | Src::Presub)
            || pinned.contains(&a.src)
            || others.contains(&a.src)
        {
            continue;
        }
        others.push(a.src);
    }
    others.len() <= 1
}
