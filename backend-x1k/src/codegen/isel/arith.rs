//! Arithmetic: one arm per IR op. Binary operations are MADs with
//! swizzle-constant inputs (`a + b = a·1 + b`, `a·b = a·b + 0`, CTM
//! §3.3.3); negation and `abs` are input modifiers; floor, ceil, trunc and
//! round are built on `FRC` (CTM §3.3.4); division is a multiply by `RCP`,
//! `sqrt(x) = RCP(RSQ(x))` (so `sqrt(0) = 0` and `sqrt(inf) = inf`, CTM
//! §3.6.3 table); sine and cosine reduce their argument to one turn,
//! `frc(x/2π + 0.5) − 0.5`, for the hardware's `sin(2π·A)`.

use super::{Selector, Val, swizzle};
use crate::codegen::CodegenError;
use crate::codegen::mir::{
    AluKind, Lane, MirOp, Operand, RegClass, Special, Src, Transcendental, Unit,
};
use crate::isa::{InputModifier, PresubOp};
use ctm_ir::graph::Value;
use ctm_ir::op::{BinOp, UnOp};
use ctm_ir::types::Ty;
use smallvec::smallvec;

/// `1 / (2π)`.
const INV_TAU: f32 = 0.159_154_94;

impl Selector<'_> {
    /// A unary operation.
    pub(super) fn unary(
        &mut self,
        u: UnOp,
        a: Val,
        input: Value,
        ty: Ty,
    ) -> Result<Val, CodegenError> {
        use UnOp::*;
        let w = ty.width().unwrap_or(1);
        Ok(match u {
            FNeg | INeg => modify(a, Modify::Neg),
            FAbs | IAbs => modify(a, Modify::Abs),
            // An exact integer (a lane of `index()` or `domain()`) is its
            // own floor, ceiling, truncation and rounding.
            FFloor | FCeil | FTrunc | F2I | FRound if self.integral(input) => a,
            FFloor => self.floor(a, w)?,
            FCeil => {
                // ceil(x) = x + frc(-x), x itself where frc is NaN (±inf).
                let f = self.alu(AluKind::Frc, w, &[modify(a.clone(), Modify::Neg)])?;
                let r = self.add(a.clone(), f.clone(), w)?;
                self.alu(AluKind::Cmp, w, &[r, a, f])?
            }
            FTrunc | F2I => self.trunc(a, w)?,
            FRound => self.round(a, w)?,
            FFract => self.alu(AluKind::Frc, w, &[a])?,
            FSqrt => {
                let r = self.trans(Transcendental::Rsq, a, w)?;
                self.trans(Transcendental::Rcp, r, w)?
            }
            FRsqrt if self.sign_clear(input, 0) => self.trans(Transcendental::Rsq, a, w)?,
            FRsqrt => {
                // RSQ(±0) is +inf (CTM §3.6.3); IEEE's rsqrt(−0) is −inf
                // (the reference, the r700). RCP keeps the sign of a zero,
                // so `RCP(x) >= 0 ? RSQ(x) : −RSQ(x)`: −0 gives −inf, a
                // negative x NaN either way (found by the spec audit).
                let r = self.trans(Transcendental::Rsq, a.clone(), w)?;
                let q = self.trans(Transcendental::Rcp, a, w)?;
                self.alu(AluKind::Cmp, w, &[r.clone(), modify(r, Modify::Neg), q])?
            }
            FRcp => match self.domain_reciprocal(&a) {
                Some(r) => r,
                None => self.trans(Transcendental::Rcp, a, w)?,
            },
            FExp2 => self.trans(Transcendental::Ex2, a, w)?,
            FLog2 => self.trans(Transcendental::Ln2, a, w)?,
            FSin => self.sin_cos(Transcendental::Sin, a, w)?,
            FCos => self.sin_cos(Transcendental::Cos, a, w)?,
            FSaturate => self.saturate(a, input, w)?,
            I2F => a,
            B2I => match a {
                Val::Bool(b) => self.bool_value(*b, false)?,
                other => other,
            },
            BNot => match a {
                Val::Bool(b) => Val::Bool(Box::new(super::BoolVal::Not(b))),
                other => other,
            },
            INot => {
                return Err(CodegenError::internal(
                    "x1k-integer-ops",
                    "bitwise not reached the x1k backend (CK0060)",
                ));
            }
        })
    }

    /// A binary operation.
    pub(super) fn binary(&mut self, b: BinOp, x: Val, y: Val, ty: Ty) -> Result<Val, CodegenError> {
        use BinOp::*;
        let w = ty.width().unwrap_or(1);
        match b {
            FAdd | IAdd => self.add(x, y, w),
            FSub | ISub => self.add(x, modify(y, Modify::Neg), w),
            FMul | IMul => self.mul(x, y, w),
            FDiv => {
                let r = match y {
                    Val::Lit { values, width } => Val::Lit {
                        values: values.map(|v| 1.0 / v),
                        width,
                    },
                    y => match self.domain_reciprocal(&y) {
                        Some(r) => r,
                        None => match self.rcp_of_one_lane(&y, w)? {
                            Some(r) => r,
                            None => self.trans(Transcendental::Rcp, y, w)?,
                        },
                    },
                };
                self.mul(x, r, w)
            }
            FMin | IMin => self.min_max(AluKind::Min, x, y, w),
            FMax | IMax => self.min_max(AluKind::Max, x, y, w),
            FStep => {
                // step(edge, x) = x − edge >= 0 ? 1 : 0 (CMP, CTM §3.3.4):
                // the edge `x` is subtracted from the value `y` (`lo` =
                // edge, `hi` = value). A NaN operand gives 0 (the
                // reference 1): CMP has no strict `<`.
                let one = Val::Lit {
                    values: [1.0; 4],
                    width: w,
                };
                let zero = Val::Lit {
                    values: [0.0; 4],
                    width: w,
                };
                self.cmp_diff(
                    one,
                    zero,
                    x,
                    y,
                    w,
                    super::cond::CmpLanes::PerLane,
                    InputModifier::None,
                )
            }
            BAnd | BOr => Ok(Val::Bool(Box::new(match b {
                BAnd => super::BoolVal::And(Box::new(as_bool(x)), Box::new(as_bool(y))),
                _ => super::BoolVal::Or(Box::new(as_bool(x)), Box::new(as_bool(y))),
            }))),
            IDiv | IRem | IShl | IShr | IAnd | IOr | IXor => Err(CodegenError::internal(
                "x1k-integer-ops",
                format!("{b} reached the x1k backend (CK0060)"),
            )),
        }
    }

    /// `1 / y` for a divisor `y` of `w > 1` lanes that all read one lane
    /// of one source (`p.xy / p.w`): one `RCP` (alpha unit) read by every
    /// lane, instead of one `RCP` per lane moved to RGB by `SOP` (CTM
    /// §3.3.4). The same value in every lane; `None` for other divisors.
    fn rcp_of_one_lane(&mut self, y: &Val, w: u8) -> Result<Option<Val>, CodegenError> {
        let Val::View { src, lanes, .. } = y else {
            return Ok(None);
        };
        let one_lane =
            matches!(lanes[0], Lane::Of(_)) && lanes[..w as usize].iter().all(|l| *l == lanes[0]);
        if w < 2 || !one_lane || !matches!(src, Src::Reg(_) | Src::Const { .. }) {
            return Ok(None);
        }
        let r = self.trans(Transcendental::Rcp, swizzle(y.clone(), &[0]), 1)?;
        Ok(Some(super::splat(r, w)))
    }

    /// `a + b`.
    pub(super) fn add(&mut self, a: Val, b: Val, w: u8) -> Result<Val, CodegenError> {
        self.alu(AluKind::Mad, w, &[a, Val::scalar_lanes(1.0, w), b])
    }

    /// `a * b`.
    pub(super) fn mul(&mut self, a: Val, b: Val, w: u8) -> Result<Val, CodegenError> {
        self.alu(AluKind::Mad, w, &[a, b, Val::scalar_lanes(0.0, w)])
    }

    /// MIN/MAX with a literal or uniform second: the hardware returns the
    /// second operand when either is NaN (CTM §3.6.2), so a constant
    /// there gives IEEE minNum/maxNum when the computed value is NaN.
    fn min_max(&mut self, kind: AluKind, x: Val, y: Val, w: u8) -> Result<Val, CodegenError> {
        let constant = |v: &Val| {
            matches!(
                v,
                Val::Lit { .. }
                    | Val::View {
                        src: Src::Const { .. },
                        ..
                    }
            )
        };
        let (a, b) = if constant(&x) && !constant(&y) {
            (y, x)
        } else {
            (x, y)
        };
        self.alu(kind, w, &[a, b])
    }

    /// `floor(x) = frc(x) >= 0 ? x − frc(x) : x`: `frc(±inf)` is NaN (CTM
    /// §3.6.3), so without the `CMP` the floor of an infinity would be NaN
    /// (found by the spec audit); a NaN `x` stays NaN either way, and for
    /// every finite `x` `frc(x)` is in [0, 1], so the `CMP` changes nothing
    /// there.
    pub(super) fn floor(&mut self, a: Val, w: u8) -> Result<Val, CodegenError> {
        let f = self.alu(AluKind::Frc, w, std::slice::from_ref(&a))?;
        let r = self.add(a.clone(), modify(f.clone(), Modify::Neg), w)?;
        self.alu(AluKind::Cmp, w, &[r, a, f])
    }

    /// Whether IR value `v` never has its sign bit set (no −0, no negative
    /// number; NaN aside): `abs`, squares (`x·x`, `dot(x, x)`), `exp2`, and
    /// sums, products and multiply-adds of such values and of constants
    /// without a sign bit (a sum of non-negative values cannot flush to
    /// −0). Looks `depth` levels down at most.
    fn sign_clear(&self, v: Value, depth: u32) -> bool {
        use ctm_ir::op::{BinOp, Op};
        if depth > 8 {
            return false;
        }
        // Through region arguments to the value they stand for (a loop
        // invariant hoisted out of its loop, a branch's input).
        let v = ctm_ir::analysis::origin::origin(self.m, v);
        let ins = self.m.inputs(v.node);
        let clear = |i: usize| ins.get(i).is_some_and(|&x| self.sign_clear(x, depth + 1));
        let same = ins.len() >= 2 && ins[0] == ins[1];
        match &self.m.node(v.node).op {
            Op::Const(ctm_frontend::value::Value::Float { lanes, width }) => lanes
                [..usize::from(*width)]
                .iter()
                .all(|l| l.is_sign_positive()),
            Op::Const(_) => false,
            Op::Index | Op::Domain => true,
            // A launch constant: what its expression says (the rules below).
            Op::Uniform(p) => self
                .m
                .launch_constant(*p)
                .is_some_and(|c| c.expr.sign_clear()),
            Op::Unary(UnOp::FAbs | UnOp::FExp2) => true,
            Op::Swizzle(_) | Op::Splat(_) => clear(0),
            Op::Dot => same || (clear(0) && clear(1)),
            Op::Binary(BinOp::FMul) => same || (clear(0) && clear(1)),
            Op::Binary(BinOp::FAdd | BinOp::FMax) => clear(0) && clear(1),
            Op::Mad => (same || (clear(0) && clear(1))) && clear(2),
            _ => false,
        }
    }

    /// `1 / y` for a view of the `domain()` constant's width and height
    /// lanes: the same view of its reciprocal lanes b and a, which the
    /// loader fills with the correctly rounded `1/width`, `1/height`
    /// (`docs/abi-x1k.md` §3), so `index() / domain()` is one MAD. The
    /// value is the one `RCP` gives (CTM §3.6.3: the simulator's `RCP` is
    /// correctly rounded for these integers), two transcendentals fewer.
    /// Every input modifier commutes with the reciprocal of a positive
    /// number. `None` for anything else (a zero lane has no finite
    /// reciprocal).
    fn domain_reciprocal(&self, y: &Val) -> Option<Val> {
        let Val::View {
            src: Src::Const {
                index,
                relative: false,
            },
            lanes,
            width,
            modifier,
        } = y
        else {
            return None;
        };
        if self.consts.domain != Some(*index) {
            return None;
        }
        let mut recip = *lanes;
        for l in &mut recip[..usize::from(*width)] {
            *l = match l {
                Lane::Of(c @ (0 | 1)) => Lane::Of(*c + 2),
                _ => return None,
            };
        }
        Some(Val::View {
            src: Src::Const {
                index: *index,
                relative: false,
            },
            lanes: recip,
            width: *width,
            modifier: *modifier,
        })
    }

    /// Whether IR value `v` is an exact integer in every lane: a lane of
    /// `index()` or `domain()` (through swizzles and splats).
    fn integral(&self, mut v: Value) -> bool {
        use ctm_ir::op::Op;
        for _ in 0..8 {
            match &self.m.node(v.node).op {
                Op::Index | Op::Domain => return true,
                Op::Swizzle(_) | Op::Splat(_) => match self.m.inputs(v.node).first() {
                    Some(&i) => v = i,
                    None => return false,
                },
                _ => return false,
            }
        }
        false
    }

    /// `trunc(x) = x >= 0 ? floor(|x|) : −floor(|x|)`.
    fn trunc(&mut self, a: Val, w: u8) -> Result<Val, CodegenError> {
        let fl = self.floor(modify(a.clone(), Modify::Abs), w)?;
        let neg = modify(fl.clone(), Modify::Neg);
        self.alu(AluKind::Cmp, w, &[fl, neg, a])
    }

    /// `round(x)`, halves away from zero, exactly: with `f = frc(|x|)` and
    /// `n = |x| − f`, `|round(x)| = f − 0.5 >= 0 ? n + 1 : n` (no
    /// `floor(x + 0.5)`, which rounds 0.49999997 up).
    fn round(&mut self, a: Val, w: u8) -> Result<Val, CodegenError> {
        let abs = modify(a.clone(), Modify::Abs);
        let f = self.alu(AluKind::Frc, w, std::slice::from_ref(&abs))?;
        let n0 = self.add(abs.clone(), modify(f.clone(), Modify::Neg), w)?;
        // `n = floor(|x|)`, `|x|` itself where `frc` is NaN (±inf).
        let n = self.alu(AluKind::Cmp, w, &[n0, abs, f.clone()])?;
        let half = Val::scalar_lanes(-0.5, w);
        let g = self.add(f, half, w)?;
        let n1 = self.add(n.clone(), Val::scalar_lanes(1.0, w), w)?;
        let r = self.alu(AluKind::Cmp, w, &[n1, n, g])?;
        let neg = modify(r.clone(), Modify::Neg);
        self.alu(AluKind::Cmp, w, &[r, neg, a])
    }

    /// Whether `v` is the only use of the register holding it: `v` has one
    /// use, and so has every value it merely aliases through a free
    /// operation (`i2f`, `b2i`, a swizzle or splat, which may share their
    /// operand's register). Seed 2002300 (issue 13): `saturate(i2f(i))`
    /// set the clamp bit on `i`'s own `ADD`, clamping the loop counter.
    fn sole_use(&self, mut v: Value) -> bool {
        use ctm_ir::op::Op;
        for _ in 0..16 {
            if self.use_count(v) != 1 {
                return false;
            }
            match &self.m.node(v.node).op {
                Op::Unary(UnOp::I2F | UnOp::B2I) | Op::Swizzle(_) | Op::Splat(_) => {
                    match self.m.inputs(v.node).first() {
                        Some(&i) => v = i,
                        None => return false,
                    }
                }
                _ => return true,
            }
        }
        false
    }

    /// `saturate(x)`: the clamp bit of `x`'s producer when `x` (and any
    /// value it aliases) has no other use, else `MAX(x, x)` with clamp
    /// (CTM §3.3.5).
    fn saturate(&mut self, a: Val, input: Value, w: u8) -> Result<Val, CodegenError> {
        if self.sole_use(input)
            && let Val::View {
                src: Src::Reg(v),
                lanes,
                modifier: InputModifier::None,
                ..
            } = &a
            && lanes[..w as usize]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == Lane::Of(i as u8))
            // No other IR value names the register either: a gamma on a
            // constant condition binds its outputs to its inputs (random
            // seed 761710 at -O0: `saturate` of such an output set the
            // clamp on `max(-1.5, p.y)`, which other values read).
            && self.names.get(v) == Some(&1)
            && let Some(&last) = self.current_block().last()
        {
            let op = self.mir.op(last);
            if op.dest == Some((*v, 0))
                && op.width == w
                && op.alu.is_some_and(|k| !matches!(k, AluKind::Trans(_)))
                && op.special == Special::None
            {
                let op = self.mir.op_mut(last);
                op.clamp = true;
                op.omod_off = false;
                return Ok(a);
            }
        }
        let ops = smallvec![self.operand(&a)?, self.operand(&a)?];
        let v = self.alu_ops(AluKind::Max, w, ops, None, false);
        if let Some(&last) = self.current_block().last() {
            self.mir.op_mut(last).clamp = true;
        }
        Ok(v)
    }

    /// `dot(a, b)`: `D2A`/`DP3`/`DP4` on the RGB unit (CTM §3.3.4).
    pub(super) fn dot(&mut self, a: Val, b: Val) -> Result<Val, CodegenError> {
        let w = a.width();
        let kind = match w {
            1 => return self.mul(a, b, 1),
            2 => AluKind::Dp2,
            3 => AluKind::Dp3,
            _ => AluKind::Dp4,
        };
        let args = smallvec![self.operand(&a)?, self.operand(&b)?];
        let dest = self.mir.new_vreg(1, RegClass::Rgb);
        self.emit(MirOp {
            alu: Some(kind),
            tex: None,
            unit: if w == 4 { Unit::Both } else { Unit::Rgb },
            dest: Some((dest, 0)),
            width: 1,
            args,
            presub: None,
            omod_off: false,
            scale: 0,
            clamp: false,
            special: Special::None,
        });
        Ok(Val::reg(dest, 1))
    }

    /// A transcendental, one lane per instruction on the alpha unit; lanes
    /// of a vector are copied to RGB by `SOP` (CTM §3.3.4).
    pub(super) fn trans(&mut self, t: Transcendental, a: Val, w: u8) -> Result<Val, CodegenError> {
        let op = self.operand(&a)?;
        Ok(self.trans_op(t, op, None, w))
    }

    fn trans_op(
        &mut self,
        t: Transcendental,
        op: Operand,
        presub: Option<(PresubOp, Operand, Operand)>,
        w: u8,
    ) -> Val {
        if w == 1 {
            let dest = self.mir.new_vreg(1, RegClass::Alpha);
            self.emit(trans_mir(t, op, presub, Unit::Alpha, (dest, 0)));
            return Val::reg(dest, 1);
        }
        let class = if w == 4 {
            RegClass::Rgba
        } else {
            RegClass::Rgb
        };
        let dest = self.mir.new_vreg(w, class);
        for lane in 0..w {
            let mut o = op;
            o.lanes = [op.lanes[lane as usize]; 4];
            let unit = if lane == 3 { Unit::Alpha } else { Unit::Both };
            self.emit(trans_mir(t, o, presub, unit, (dest, lane)));
        }
        Val::reg(dest, w)
    }

    /// `sin`/`cos` with the argument reduced to [−0.5, 0.5) turns:
    /// `t = x·(1/2π) + 0.5; f = frc(t); SIN(f − 0.5)` (the last
    /// subtraction a presubtract, CTM §3.3.2).
    fn sin_cos(&mut self, t: Transcendental, a: Val, w: u8) -> Result<Val, CodegenError> {
        let turns = self.alu(
            AluKind::Mad,
            w,
            &[a, Val::scalar_lanes(INV_TAU, w), Val::scalar_lanes(0.5, w)],
        )?;
        let f = self.alu(AluKind::Frc, w, &[turns])?;
        if w > 1 {
            // Vector lanes live in r, g, b: the alpha presubtract cannot
            // see them, so subtract first.
            let g = self.add(f, Val::scalar_lanes(-0.5, w), w)?;
            return self.trans(t, g, w);
        }
        // The alpha unit's presubtract reads channel a: keep f there.
        if let Some(&last) = self.current_block().last() {
            self.mir.op_mut(last).unit = Unit::Alpha;
            if let Some((d, _)) = self.mir.op(last).dest {
                self.mir.vregs[d.0 as usize].class = RegClass::Alpha;
            }
        }
        let fop = self.operand(&f)?;
        let half = self.operand(&Val::scalar(0.5))?;
        let half = match half.src {
            Src::None => Operand {
                src: Src::Inline(crate::isa::inline_constant_code(0.5).unwrap_or(0x30)),
                lanes: [Lane::Of(0); 4],
                modifier: InputModifier::None,
            },
            _ => half,
        };
        let srcp = Operand {
            src: Src::Presub,
            lanes: fop.lanes,
            modifier: InputModifier::None,
        };
        Ok(self.trans_op(t, srcp, Some((PresubOp::Sub, half, fop)), w))
    }

    /// Concatenates `parts`: a view when they are lanes of one source, a
    /// literal when all are literals, else moves into a new register
    /// (`MAX(x, x)` with OMOD disabled, CTM §3.3.5).
    pub(super) fn construct(&mut self, parts: &[Val]) -> Result<Val, CodegenError> {
        self.construct_of(parts, None)
    }

    /// [`Self::construct`]; a part that is the only use of IR value
    /// `inputs[i]` is computed into its lanes directly (`coalesce`).
    pub(super) fn construct_of(
        &mut self,
        parts: &[Val],
        inputs: Option<&[Value]>,
    ) -> Result<Val, CodegenError> {
        let w: u8 = parts.iter().map(|p| p.width()).sum();
        if parts.iter().all(|p| matches!(p, Val::Lit { .. })) {
            let mut values = [0.0; 4];
            let mut k = 0;
            for p in parts {
                if let Val::Lit { values: v, width } = p {
                    for x in &v[..*width as usize] {
                        values[k.min(3)] = *x;
                        k += 1;
                    }
                }
            }
            return Ok(Val::Lit { values, width: w });
        }
        if let Some(v) = same_source(parts) {
            return Ok(v);
        }
        let class = if w == 4 {
            RegClass::Rgba
        } else {
            RegClass::Rgb
        };
        let dest = self.mir.new_vreg(w, class);
        // Neighbouring literal parts are moved by one op.
        let mut merged: Vec<(Val, Option<usize>)> = Vec::with_capacity(parts.len());
        for (i, p) in parts.iter().enumerate() {
            if let (
                Some((Val::Lit { values, width }, None)),
                Val::Lit {
                    values: v,
                    width: pw,
                },
            ) = (merged.last_mut(), p)
            {
                for x in &v[..*pw as usize] {
                    values[(*width as usize).min(3)] = *x;
                    *width += 1;
                }
                continue;
            }
            let literal = matches!(p, Val::Lit { .. });
            merged.push((p.clone(), (!literal).then_some(i)));
        }
        if let Some(v) = self.fold_literal_lanes(&merged, inputs, dest, w)? {
            return Ok(v);
        }
        let mut lane = 0u8;
        for (p, input) in &merged {
            let pw = p.width();
            let single_use =
                inputs.is_some_and(|ins| input.is_some_and(|i| self.use_count(ins[i]) == 1));
            if single_use
                && let Some(r) = Self::whole_register(p)
                && self.mir.vreg(r).width == pw
                && self.names.get(&r) == Some(&1)
                && !self.mir.ops.iter().any(|o| o.reads().any(|x| x == r))
                && self.retarget(r, dest, lane)
            {
                lane += pw;
                continue;
            }
            let op = self.operand(p)?;
            // Lanes 0..2 on the RGB unit, lane 3 on the alpha unit.
            let rgb_lanes = pw.min(3u8.saturating_sub(lane));
            if rgb_lanes > 0 {
                self.emit(mov(op, Unit::Rgb, (dest, lane), rgb_lanes));
            }
            if lane + pw == 4 && w == 4 {
                let mut o = op;
                o.lanes = [op.lanes[(pw - 1) as usize]; 4];
                self.emit(mov(o, Unit::Alpha, (dest, 3), 1));
            }
            lane += pw;
        }
        Ok(Val::reg(dest, w))
    }
}

impl Selector<'_> {
    /// A vector of literal lanes and one product (`vec3(2.0, 0.0, h * s)`)
    /// as one MAD: the product's op computes every lane, reading 0 for A
    /// and B in the literal lanes and the literals as its C (which was
    /// 0), so no lane needs a move. RGB lanes only; `None` when the
    /// parts do not have this form.
    fn fold_literal_lanes(
        &mut self,
        merged: &[(Val, Option<usize>)],
        inputs: Option<&[Value]>,
        dest: crate::codegen::mir::VReg,
        w: u8,
    ) -> Result<Option<Val>, CodegenError> {
        let Some(ins) = inputs else { return Ok(None) };
        if w > 3 || merged.len() < 2 {
            return Ok(None);
        }
        let mut values = [0.0f32; 4];
        let mut computed: Option<(u8, crate::codegen::mir::VReg, u8)> = None;
        let mut lane = 0u8;
        for (p, input) in merged {
            let pw = p.width();
            match (p, input) {
                (Val::Lit { values: v, .. }, None) => {
                    // -0.0 + 0·0 would be +0.0.
                    if v[..pw as usize]
                        .iter()
                        .any(|x| x.to_bits() == (-0.0f32).to_bits())
                    {
                        return Ok(None);
                    }
                    values[lane as usize..(lane + pw) as usize].copy_from_slice(&v[..pw as usize]);
                }
                (_, Some(i)) if computed.is_none() && self.use_count(ins[*i]) == 1 => {
                    let Some(r) = Self::whole_register(p) else {
                        return Ok(None);
                    };
                    computed = Some((lane, r, pw));
                }
                _ => return Ok(None),
            }
            lane += pw;
        }
        let Some((at, r, pw)) = computed else {
            return Ok(None);
        };
        if self.mir.vreg(r).width != pw
            || self.mir.vreg(r).fixed.is_some()
            || self.names.get(&r) != Some(&1)
            || self.mir.ops.iter().any(|o| o.reads().any(|x| x == r))
        {
            return Ok(None);
        }
        let defs: Vec<usize> = self
            .mir
            .ops
            .iter()
            .enumerate()
            .filter(|(_, o)| o.dest.is_some_and(|(d, _)| d == r))
            .map(|(k, _)| k)
            .collect();
        let [def] = defs[..] else { return Ok(None) };
        let id = crate::codegen::mir::OpId(def as u32);
        let op = self.mir.op(id);
        let zero_c = op.args.len() == 3
            && op.args[2].src == Src::None
            && op.args[2].lanes[..pw as usize]
                .iter()
                .all(|l| *l == Lane::Zero);
        if !self.current_block().contains(&id)
            || op.alu != Some(AluKind::Mad)
            || op.presub.is_some()
            || op.special != Special::None
            || op.clamp
            || op.dest != Some((r, 0))
            || op.width != pw
            || !matches!(op.unit, Unit::Rgb | Unit::Any)
            || !zero_c
        {
            return Ok(None);
        }
        let c = self.consts.literal(&values[..w as usize])?;
        let op = self.mir.op_mut(id);
        for a in op.args.iter_mut().take(2) {
            let old = a.lanes;
            for (i, l) in a.lanes.iter_mut().enumerate() {
                let i = i as u8;
                *l = if i >= at && i < at + pw {
                    old[(i - at) as usize]
                } else {
                    Lane::Zero
                };
            }
        }
        op.args[2] = c;
        op.width = w;
        op.unit = Unit::Rgb;
        op.dest = Some((dest, 0));
        Ok(Some(Val::reg(dest, w)))
    }
}

impl Val {
    /// A literal with `w` equal lanes.
    pub fn scalar_lanes(x: f32, w: u8) -> Val {
        Val::Lit {
            values: [x; 4],
            width: w,
        }
    }
}

/// A bit-exact move of lanes of `op` (CTM §3.3.5).
pub(super) fn mov(
    op: Operand,
    unit: Unit,
    dest: (crate::codegen::mir::VReg, u8),
    width: u8,
) -> MirOp {
    MirOp {
        alu: Some(AluKind::Max),
        tex: None,
        unit,
        dest: Some(dest),
        width,
        args: smallvec![op, op],
        presub: None,
        omod_off: true,
        scale: 0,
        clamp: false,
        special: Special::None,
    }
}

fn trans_mir(
    t: Transcendental,
    op: Operand,
    presub: Option<(PresubOp, Operand, Operand)>,
    unit: Unit,
    dest: (crate::codegen::mir::VReg, u8),
) -> MirOp {
    MirOp {
        alu: Some(AluKind::Trans(t)),
        tex: None,
        unit,
        dest: Some(dest),
        width: 1,
        args: smallvec![op],
        presub,
        omod_off: false,
        scale: 0,
        clamp: false,
        special: Special::None,
    }
}

/// An input-modifier change.
#[derive(Clone, Copy)]
pub(super) enum Modify {
    Neg,
    Abs,
}

/// `v` negated or made absolute (free: an input modifier or a folded
/// literal).
pub(super) fn modify(v: Val, how: Modify) -> Val {
    match v {
        Val::View {
            src,
            lanes,
            width,
            modifier,
        } => {
            let modifier = match (how, modifier) {
                (Modify::Abs, _) => InputModifier::Abs,
                (Modify::Neg, InputModifier::None) => InputModifier::Neg,
                (Modify::Neg, InputModifier::Neg) => InputModifier::None,
                (Modify::Neg, InputModifier::Abs) => InputModifier::NegAbs,
                (Modify::Neg, InputModifier::NegAbs) => InputModifier::Abs,
            };
            Val::View {
                src,
                lanes,
                width,
                modifier,
            }
        }
        Val::Lit { values, width } => Val::Lit {
            values: values.map(|x| match how {
                Modify::Neg => -x,
                Modify::Abs => x.abs(),
            }),
            width,
        },
        other => other,
    }
}

/// Parts that are all lanes of one register or constant with one
/// modifier, as one view.
fn same_source(parts: &[Val]) -> Option<Val> {
    let mut src0 = None;
    let mut modifier0 = None;
    let mut lanes = [Lane::Zero; 4];
    let mut k = 0;
    for p in parts {
        let Val::View {
            src,
            lanes: l,
            width,
            modifier,
        } = p
        else {
            return None;
        };
        if src0.is_some_and(|s| s != *src) || modifier0.is_some_and(|m| m != *modifier) {
            return None;
        }
        src0 = Some(*src);
        modifier0 = Some(*modifier);
        for x in &l[..*width as usize] {
            lanes[k.min(3)] = *x;
            k += 1;
        }
    }
    Some(Val::View {
        src: src0?,
        lanes,
        width: k as u8,
        modifier: modifier0?,
    })
}

fn as_bool(v: Val) -> super::BoolVal {
    match v {
        Val::Bool(b) => *b,
        other => super::BoolVal::Value(other),
    }
}

#[allow(dead_code)]
fn lanes_of(v: Val, sel: &[u8]) -> Val {
    swizzle(v, sel)
}
