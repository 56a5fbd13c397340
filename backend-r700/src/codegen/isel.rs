//! Instruction selection: the verified graph IR to [`Mir`] (scalar R700
//! ALU operations on virtual registers, fetches, exports, structured
//! control flow).
//!
//! Choices, with the manual's sections:
//! - float arithmetic uses the IEEE opcodes (`MUL_IEEE`, `MULADD_IEEE`,
//!   `MIN_DX10`/`MAX_DX10`) because spec §7 forbids the legacy clamped
//!   variants; comparisons use the `SET*_DX10` forms, whose result is an
//!   integer (true = −1, false = 0), the representation of `bool` here;
//! - `sin`/`cos`: the argument is reduced to turns in [−0.5, 0.5) as
//!   `fract(x/2π + 0.5) − 0.5`, the convention LLVM 14 relies on for
//!   R700 and the simulator implements; the manual says radians in
//!   [−π, π] (L6900-6902, L3339-3341) — recorded as a disagreement in
//!   `docs/backend-r700.md`;
//! - division is `a · RECIP_IEEE(b)` with huge divisors scaled (`fdiv`;
//!   correctly rounded behind `Options::exact_division`), `pow` and friends were expanded by the IR's
//!   lowering; integer multiply is `MULLO_INT` (Trans only,
//!   Table 4.6); `f32 as i32` is `FLT_TO_INT` with explicit saturation and
//!   NaN → 0 (the hardware keeps low-order bits, digest §3 FLT_TO_INT);
//! - uniforms are read from the constant file (ABI §3.1), arrays indexed
//!   at run time through `MOVA_INT` and AR-relative constant reads
//!   (manual §4.6.1);
//! - shorter paths (`docs/backend-r700.md` §3 "Shorter paths"): CLAMP set
//!   on the op computing a saturated value nothing else reads, `sin`/`cos`
//!   reduced as `fract(x · c/2π)` with a product's constant folded in,
//!   range facts ([`Selector`]'s bounds) that spare bounded divisors the
//!   huge-divisor scaling, gather coordinates alternating between the xy
//!   and zw elements; [`super::fuse`] forms MULADDs on the lanes at the
//!   end, then [`super::share`] splits the constant-bound ones that share
//!   a product.

use std::collections::HashMap;

use ctm_frontend::Code;
use ctm_frontend::tast::ParamKind;
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::value::Value as Constant;
use ctm_ir::graph::{Module, RegionId, Value};
use ctm_ir::op::{BinOp, CmpOp, LaneCond, Op, UnOp};
use ctm_ir::types::Ty;
use smallvec::{SmallVec, smallvec};

use super::CodegenError;
use super::mir::{AluOp, Block, Fetch, Item, Lane, Mir, Opc, Operand, Role, Src, VReg};
use crate::isa::{InlineConst, Op2, Op3};

/// The lanes of a value (empty for the state).
pub type Lanes = SmallVec<[Operand; 4]>;

/// Where each parameter went (the bindings, ABI §3).
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// First cb0 element of each uniform parameter.
    pub uniform_base: Vec<Option<u32>>,
    /// cb0 elements of each uniform parameter.
    pub uniform_elems: Vec<u32>,
    /// The element holding (W, H, 0, 0), if read.
    pub domain: Option<u32>,
    /// cb0 elements in use.
    pub cb0_elements: u32,
    /// Texture resource of each input parameter.
    pub resource: Vec<Option<u32>>,
    /// Export base of each output parameter.
    pub export: Vec<Option<u32>>,
    /// Scatter slot of each scatter parameter.
    pub scatter: Vec<Option<u32>>,
}

/// The selector's state.
pub struct Selector<'m> {
    m: &'m Module,
    mir: Mir,
    layout: Layout,
    values: HashMap<Value, Lanes>,
    block: Block,
    pos: [VReg; 2],
    next_chan: u8,
    domain_used: bool,
    n_scatter: u32,
    /// Float comparisons with 0.0, by result: a select on one becomes a
    /// single `CND*` (the `SET*` is removed if nothing else reads it).
    zero_cmp: HashMap<Value, (CmpOp, Operand)>,
    /// Float division correctly rounded ([`super::Options::exact_division`]).
    exact_division: bool,
    /// Range facts: every finite value register `v` takes has magnitude
    /// at most `bounds[v]` (infinities and NaN are not bounded: a divisor
    /// that is infinite needs no scaling, see [`Self::scale_divisor`]).
    bounds: HashMap<VReg, f64>,
    /// Gathers selected so far (their coordinate elements alternate).
    gathers: u32,
}

/// Divisors above this magnitude are scaled before `RECIP_IEEE`, whose
/// result would be a flushed denormal (spec §7): 2^126.
pub const HUGE_DIVISOR: f32 = f32::from_bits(0x7E80_0000);

fn f(x: f32) -> Operand {
    Operand::f32(x)
}

fn int(x: i32) -> Operand {
    Operand::i32(x)
}

impl<'m> Selector<'m> {
    /// Lays out the parameters of `m`.
    pub fn new(m: &'m Module) -> Result<Self, CodegenError> {
        let mut layout = Layout::default();
        let mut elem = 0u32;
        let (mut res, mut exp, mut sc) = (0u32, 0u32, 0u32);
        for p in &m.params {
            let (mut u, mut ue, mut r, mut e, mut s) = (None, 0, None, None, None);
            match p.kind {
                ParamKind::Uniform(t) => {
                    u = Some(elem);
                    ue = t.constant_slots();
                    elem += ue;
                }
                ParamKind::Input(_) => {
                    r = Some(res);
                    res += 1;
                }
                ParamKind::Output(_) => {
                    e = Some(exp);
                    exp += 1;
                }
                ParamKind::Scatter => {
                    s = Some(sc);
                    sc += 1;
                }
            }
            layout.uniform_base.push(u);
            layout.uniform_elems.push(ue);
            layout.resource.push(r);
            layout.export.push(e);
            layout.scatter.push(s);
        }
        let limit = |code: Code, what: &str, n: u32, max: u32| -> Result<(), CodegenError> {
            if n > max {
                Err(CodegenError::limit(
                    code,
                    &m.name,
                    format!("`{}` uses {n} {what}; the r700 has {max}", m.name),
                ))
            } else {
                Ok(())
            }
        };
        limit(Code::TooManyInputs, "input streams", res, 16)?;
        limit(Code::TooManyOutputs, "output streams", exp, 8)?;
        // One element more for the domain, if needed (checked at the end).
        limit(Code::TooManyConstants, "constant elements", elem, 256)?;
        layout.domain = Some(elem);
        layout.cb0_elements = elem;
        let mut mir = Mir::default();
        let pos = mir.new_tuple(&[0, 1]);
        for v in &pos {
            mir.regs[v.0 as usize].gpr = Some(0);
        }
        Ok(Selector {
            m,
            mir,
            layout,
            values: HashMap::new(),
            block: Vec::new(),
            pos: [pos[0], pos[1]],
            next_chan: 0,
            domain_used: false,
            n_scatter: sc,
            zero_cmp: HashMap::new(),
            exact_division: false,
            bounds: HashMap::new(),
            gathers: 0,
        })
    }

    /// Selects float division correctly rounded (`fdiv_exact`) instead of
    /// `a · RECIP_IEEE(b)`.
    pub fn exact_division(mut self, on: bool) -> Self {
        self.exact_division = on;
        self
    }

    /// Selects the whole kernel.
    pub fn run(mut self) -> Result<(Mir, Layout), CodegenError> {
        let m = self.m;
        let results = self.region(m.root, &[SmallVec::new()])?;
        let outputs: Vec<usize> = m
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.kind, ParamKind::Output(_)))
            .map(|(i, _)| i)
            .collect();
        if results.len() < outputs.len() + 2 {
            return Err(CodegenError::internal(
                "root-results",
                "the root region has too few results",
            ));
        }
        // discard: KILLNE_INT flag, 0 (manual KILLNE_INT; last group of its
        // clause, §4.8 L1872).
        let discarded = results[outputs.len()].first().copied();
        match discarded.map(|d| d.src) {
            None | Some(Src::Inline(InlineConst::Zero)) => {}
            // A flag only ever copied from `false` (a loop-carried flag of
            // a kernel without `discard`, unoptimised): no kill, and the
            // program is not marked as killing (ABI EARLYEXIT).
            Some(Src::Reg(v)) if always_zero(&self.block, v) => {}
            Some(_) => {
                let d = discarded.unwrap_or(int(0));
                let d = self.plain(d);
                self.block.push(Item::Alu(AluOp {
                    opc: Opc::Op2(Op2::KillneInt),
                    dst: None,
                    srcs: smallvec![d, int(0)],
                    clamp: false,
                    role: Role::Kill,
                }));
                self.mir.kills = true;
            }
        }
        for (k, &p) in outputs.iter().enumerate() {
            let lanes = results[k].clone();
            let mut out = [Lane::Zero; 4];
            let mut chans = Vec::new();
            for (i, &l) in lanes.iter().enumerate() {
                match (l.src, l.modified()) {
                    (Src::Inline(InlineConst::Zero), false) => out[i] = Lane::Zero,
                    (Src::Inline(InlineConst::One), false) => out[i] = Lane::One,
                    _ => chans.push(i as u8),
                }
            }
            let tuple = self.mir.new_tuple(&chans);
            for (&c, &t) in chans.iter().zip(tuple.iter()) {
                self.emit(Opc::Op2(Op2::Mov), Some(t), &[lanes[c as usize]]);
                out[c as usize] = Lane::Reg(t);
            }
            let base = self.layout.export[p].unwrap_or(0);
            self.block.push(Item::Export { base, lanes: out });
        }
        if self.domain_used {
            self.layout.cb0_elements += 1;
            if self.layout.cb0_elements > 256 {
                return Err(CodegenError::limit(
                    Code::TooManyConstants,
                    &m.name,
                    format!(
                        "`{}` needs {} constant elements; the r700 has 256",
                        m.name, self.layout.cb0_elements
                    ),
                ));
            }
        } else {
            self.layout.domain = None;
        }
        self.mir.body = std::mem::take(&mut self.block);
        super::fuse::run(&mut self.mir);
        super::share::run(&mut self.mir);
        Ok((self.mir, self.layout))
    }

    fn chan(&mut self) -> u8 {
        let c = self.next_chan;
        self.next_chan = (c + 1) % 4;
        c
    }

    /// Emits `opc dst, srcs` (a fresh register when `dst` is `None`).
    fn emit(&mut self, opc: Opc, dst: Option<VReg>, srcs: &[Operand]) -> Operand {
        let d = dst.unwrap_or_else(|| self.mir.new_reg());
        let mut srcs: SmallVec<[Operand; 3]> = srcs.iter().copied().collect();
        if integer_sources(opc) {
            // NEG and ABS are float modifiers (digest R14): a negated
            // float selected by CNDE_INT is negated by a MOV first.
            for s in &mut srcs {
                if s.modified() {
                    *s = self.emit(Opc::Op2(Op2::Mov), None, &[*s]);
                }
            }
        }
        // A group reads at most two constant address/element pairs
        // (manual §4.7.5, digest R11): an op needing three copies one.
        loop {
            let mut pairs: SmallVec<[(u8, u8, bool); 3]> = SmallVec::new();
            let mut last = None;
            for (k, s) in srcs.iter().enumerate() {
                let key = match s.src {
                    Src::Const { elem, chan } => (elem, chan / 2, false),
                    Src::ConstRel { base, chan } => (base, chan / 2, true),
                    _ => continue,
                };
                if !pairs.contains(&key) {
                    pairs.push(key);
                    last = Some(k);
                }
            }
            match last {
                Some(k) if pairs.len() > 2 => {
                    let plain = Operand::of(srcs[k].src);
                    let r = self.emit(Opc::Op2(Op2::Mov), None, &[plain]);
                    srcs[k] = Operand {
                        src: r.src,
                        ..srcs[k]
                    };
                }
                _ => break,
            }
        }
        if matches!(opc, Opc::Op3(_)) {
            // OP3 has no ABS (digest §2.4): materialise it.
            for s in &mut srcs {
                if s.abs {
                    *s = self.emit(Opc::Op2(Op2::Mov), None, &[*s]);
                }
            }
        }
        // Merge registers are written more than once: no range fact.
        if dst.is_none()
            && let Some(b) = self.result_bound(opc, &srcs)
        {
            self.bounds.insert(d, b);
        }
        self.block.push(Item::Alu(AluOp {
            opc,
            dst: Some(d),
            srcs,
            clamp: false,
            role: Role::Plain,
        }));
        Operand::reg(d)
    }

    /// The magnitude bound of an operand's finite values, if known: a
    /// constant's own, the domain's lanes (at most 8192, ABI limit), a
    /// register's range fact. Modifiers do not change a magnitude.
    fn bound(&self, o: Operand) -> Option<f64> {
        if let Some(k) = const_f32(o) {
            return Some(f64::from(k.abs())).filter(|b| b.is_finite());
        }
        match o.src {
            Src::Const { elem, .. } if Some(u32::from(elem)) == self.layout.domain => Some(8192.0),
            Src::Reg(v) => self.bounds.get(&v).copied(),
            _ => None,
        }
    }

    /// The magnitude bound of the finite results of `opc` on `srcs`, from
    /// the sources' bounds or the opcode's range (manual §9: SIN/COS
    /// results are in [−1, 1]; FRACT in [0, 1); a finite SQRT_IEEE result
    /// is at most √f32::MAX < 2^64, a finite RECIPSQRT_IEEE or
    /// RECIP_IEEE result of a normal input at most 2^63 and 2^126 (denormal
    /// inputs are flushed to 0, whose results are infinite); a finite
    /// LOG_IEEE at most 128 in magnitude). Rounding is monotonic, so a
    /// rounded result never exceeds the bound of the exact one computed
    /// here in f64.
    fn result_bound(&self, opc: Opc, srcs: &[Operand]) -> Option<f64> {
        let b = |k: usize| srcs.get(k).and_then(|&o| self.bound(o));
        let r = match opc {
            Opc::Op2(op) => match op {
                Op2::Sin | Op2::Cos | Op2::Fract => 1.0,
                Op2::SqrtIeee => b(0).map_or(2f64.powi(64), |x| x.sqrt().min(2f64.powi(64))),
                Op2::RecipsqrtIeee => 2f64.powi(63),
                Op2::RecipIeee => 2f64.powi(126),
                Op2::LogIeee => 128.0,
                Op2::ExpIeee => 2f64.powf(b(0).filter(|&x| x < 126.0)?),
                Op2::Mov => b(0)?,
                Op2::Floor | Op2::Ceil | Op2::Trunc => b(0)?.ceil(),
                Op2::MulIeee => b(0)? * b(1)?,
                Op2::Add | Op2::MinDx10 | Op2::MaxDx10 => match op {
                    Op2::Add => b(0)? + b(1)?,
                    _ => b(0)?.max(b(1)?),
                },
                _ => return None,
            },
            Opc::Op3(op) => match op {
                Op3::MuladdIeee => b(0)? * b(1)? + b(2)?,
                Op3::Cnde | Op3::Cndgt | Op3::Cndge | Op3::CndeInt => b(1)?.max(b(2)?),
                _ => return None,
            },
        };
        Some(r).filter(|r| r.is_finite())
    }

    fn op2(&mut self, op: Op2, srcs: &[Operand]) -> Operand {
        self.emit(Opc::Op2(op), None, srcs)
    }

    fn op3(&mut self, op: Op3, srcs: &[Operand]) -> Operand {
        self.emit(Opc::Op3(op), None, srcs)
    }

    /// An operand without modifiers (integer instructions take none,
    /// digest R14).
    fn plain(&mut self, o: Operand) -> Operand {
        if o.modified() {
            self.op2(Op2::Mov, &[o])
        } else {
            o
        }
    }

    fn lanes(&self, v: Value) -> Result<Lanes, CodegenError> {
        self.values.get(&v).cloned().ok_or_else(|| {
            CodegenError::internal("isel-order", format!("value {v:?} used before selected"))
        })
    }

    fn scalar(&self, v: Value) -> Result<Operand, CodegenError> {
        self.lanes(v)?.first().copied().ok_or_else(|| {
            CodegenError::internal("isel-lanes", format!("value {v:?} has no lanes"))
        })
    }

    /// Selects region `r` with `args`; returns its results' lanes.
    fn region(&mut self, r: RegionId, args: &[Lanes]) -> Result<Vec<Lanes>, CodegenError> {
        let m = self.m;
        for (i, a) in args.iter().enumerate() {
            self.values.insert(m.argument(r, i), a.clone());
        }
        let order = m
            .topo_order(r)
            .ok_or_else(|| CodegenError::internal("isel-cycle", "region has a cycle"))?;
        for n in order {
            self.node(n)?;
        }
        m.results(r).into_iter().map(|v| self.lanes(v)).collect()
    }

    fn node(&mut self, n: ctm_ir::graph::NodeId) -> Result<(), CodegenError> {
        let m = self.m;
        let node = m.node(n);
        let ins = m.inputs(n);
        let out = |port: usize| m.output(n, port);
        let lanes: Lanes = match &node.op {
            Op::Argument(_) | Op::Result(_) => return Ok(()),
            Op::Const(c) => constant(c),
            Op::Uniform(p) => {
                let base = self.layout.uniform_base[p.index()].unwrap_or(0);
                let ty = m.params[p.index()].kind;
                match ty {
                    ParamKind::Uniform(Type::Bool) => {
                        let c = Operand::of(Src::Const {
                            elem: base as u8,
                            chan: 0,
                        });
                        smallvec![self.op2(Op2::SubInt, &[int(0), c])]
                    }
                    _ => {
                        let w = node.outputs[0].width().unwrap_or(1);
                        (0..w)
                            .map(|c| {
                                Operand::of(Src::Const {
                                    elem: base as u8,
                                    chan: c,
                                })
                            })
                            .collect()
                    }
                }
            }
            Op::UniformElement(p) => {
                let base = self.layout.uniform_base[p.index()].unwrap_or(0);
                let count = self.layout.uniform_elems[p.index()].max(1);
                let w = match node.outputs[0] {
                    Ty::Float(w) => w,
                    _ => 1,
                };
                let idx = self.scalar(ins[0])?;
                match const_int(idx) {
                    Some(k) => {
                        let k = (k.max(0) as u32).min(count - 1);
                        (0..w)
                            .map(|c| {
                                Operand::of(Src::Const {
                                    elem: (base + k) as u8,
                                    chan: c,
                                })
                            })
                            .collect()
                    }
                    None => {
                        let i = self.plain(idx);
                        let lo = self.op2(Op2::MaxInt, &[i, int(0)]);
                        let cl = self.op2(Op2::MinInt, &[lo, int(count as i32 - 1)]);
                        self.block.push(Item::Alu(AluOp {
                            opc: Opc::Op2(Op2::MovaInt),
                            dst: None,
                            srcs: smallvec![cl],
                            clamp: false,
                            role: Role::Mova,
                        }));
                        let mut l = Lanes::new();
                        for c in 0..w {
                            let s = Operand::of(Src::ConstRel {
                                base: base as u8,
                                chan: c,
                            });
                            l.push(self.op2(Op2::Mov, &[s]));
                        }
                        l
                    }
                }
            }
            Op::Input(p) => {
                let (x, y) = (self.pos[0], self.pos[1]);
                self.fetch(p.index(), [x, y])
            }
            Op::Gather(p) => {
                let pos = self.lanes(ins[0])?;
                // The coordinates alternate between the xy and the zw
                // elements (SAMPLE reads them through SRC_SEL_X/Y, manual
                // §2.x TEX_WORD2, as `clause.rs` emits from the tuple's
                // channels), so the X, Y, Z and W units can compute two
                // gathers' coordinates in one group.
                let chans: [u8; 2] = if self.gathers % 2 == 1 {
                    [2, 3]
                } else {
                    [0, 1]
                };
                self.gathers += 1;
                let t = self.mir.new_tuple(&chans);
                for k in 0..2 {
                    let l = pos.get(k).copied().unwrap_or(f(0.0));
                    self.emit(Opc::Op2(Op2::Mov), Some(t[k]), &[l]);
                }
                self.fetch(p.index(), [t[0], t[1]])
            }
            Op::Index => smallvec![Operand::reg(self.pos[0]), Operand::reg(self.pos[1])],
            Op::Domain => {
                self.domain_used = true;
                let e = self.layout.domain.unwrap_or(0) as u8;
                smallvec![
                    Operand::of(Src::Const { elem: e, chan: 0 }),
                    Operand::of(Src::Const { elem: e, chan: 1 })
                ]
            }
            Op::Unary(u @ (UnOp::FSin | UnOp::FCos)) => {
                // `sin(c · x)` with a constant `c` and a product used only
                // here: the product is folded into the reduction's
                // multiply by 1/2π (`Self::trig`; the product is then
                // dead and removed by `coalesce`).
                let a = self.lanes(ins[0])?;
                let folded = self.constant_factor(ins[0]);
                let mut l = Lanes::new();
                for (k, x) in a.into_iter().enumerate() {
                    let (x, c) = match folded.as_ref().and_then(|f| f.get(k)) {
                        Some(&(y, c)) => (y, c),
                        None => (x, 1.0),
                    };
                    l.push(self.trig(*u == UnOp::FSin, x, c));
                }
                l
            }
            Op::Binary(BinOp::FMin) if self.clamp01(ins[0], ins[1]).is_some() => {
                // `min(max(y, 0), 1)` (`clamp(y, 0.0, 1.0)`) is CLAMP: one
                // op instead of two on the path, folded into `y`'s op where
                // nothing else reads `y`. NaN gives 0 either way (the
                // DX10 MAX returns the number, CLAMP maps NaN to 0).
                let y = self.clamp01(ins[0], ins[1]).unwrap_or(ins[0]);
                let fold = self.only_use(y);
                let a = self.lanes(y)?;
                let mut l = Lanes::new();
                for x in a {
                    let folded = if fold { self.fold_clamp(x) } else { None };
                    l.push(folded.unwrap_or_else(|| self.unary(UnOp::FSaturate, x)));
                }
                l
            }
            Op::Unary(UnOp::FSaturate) if self.only_use(ins[0]) => {
                // CLAMP on the op computing the value (manual §4.x CLAMP,
                // digest §2 "CLAMP ... float only"): the value has no other
                // use, so nothing reads it unclamped (the clamp applies to
                // the GPR and PV alike).
                let a = self.lanes(ins[0])?;
                let mut l = Lanes::new();
                for x in a {
                    let folded = self.fold_clamp(x);
                    l.push(folded.unwrap_or_else(|| self.unary(UnOp::FSaturate, x)));
                }
                l
            }
            Op::Unary(u) => {
                let a = self.lanes(ins[0])?;
                let mut l = Lanes::new();
                for x in a {
                    l.push(self.unary(*u, x));
                }
                l
            }
            Op::Binary(b) => {
                let (a, c) = (self.lanes(ins[0])?, self.lanes(ins[1])?);
                let mut l = Lanes::new();
                for (x, y) in a.into_iter().zip(c) {
                    l.push(self.binary(*b, x, y)?);
                }
                l
            }
            Op::Mad => {
                let (a, b, c) = (
                    self.lanes(ins[0])?,
                    self.lanes(ins[1])?,
                    self.lanes(ins[2])?,
                );
                let mut l = Lanes::new();
                for i in 0..a.len() {
                    let folded = match (const_f32(a[i]), const_f32(b[i]), const_f32(c[i])) {
                        (Some(p), Some(q), Some(r)) => Some(ctm_frontend::numerics::mad(p, q, r)),
                        _ => None,
                    };
                    l.push(match folded {
                        Some(v) => f(v),
                        None => self.op3(Op3::MuladdIeee, &[a[i], b[i], c[i]]),
                    });
                }
                l
            }
            Op::Dot => {
                let (a, b) = (self.lanes(ins[0])?, self.lanes(ins[1])?);
                smallvec![self.dot(&a, &b)]
            }
            Op::Compare(c) => {
                let (a, b) = (self.scalar(ins[0])?, self.scalar(ins[1])?);
                let float = m.ty(ins[0]).is_float();
                let zero = |o: Operand| !o.modified() && o.src == Src::Inline(InlineConst::Zero);
                if float && zero(b) {
                    self.zero_cmp.insert(out(0), (*c, a));
                } else if float && zero(a) {
                    let swapped = match c {
                        CmpOp::Lt => CmpOp::Gt,
                        CmpOp::Le => CmpOp::Ge,
                        CmpOp::Gt => CmpOp::Lt,
                        CmpOp::Ge => CmpOp::Le,
                        other => *other,
                    };
                    self.zero_cmp.insert(out(0), (swapped, b));
                }
                smallvec![self.compare(*c, a, b, float)]
            }
            Op::Select => {
                let c = self.scalar(ins[0])?;
                let (a, b) = (self.lanes(ins[1])?, self.lanes(ins[2])?);
                let cmp = self.zero_cmp.get(&ins[0]).copied();
                match const_int(c) {
                    Some(0) => b,
                    Some(_) => a,
                    None if m.ty(ins[1]).is_float() && cmp.is_some() => {
                        // `x ? a : b` with x a float comparison with 0: one
                        // CND* per lane, exact for NaN (a NaN compares
                        // false both ways): x < 0 ⟺ −x > 0, x ≤ 0 ⟺ −x ≥ 0.
                        let (op, x) = cmp.unwrap_or((CmpOp::Eq, f(0.0)));
                        let (opc, x, swap) = match op {
                            CmpOp::Gt => (Op3::Cndgt, x, false),
                            CmpOp::Ge => (Op3::Cndge, x, false),
                            CmpOp::Lt => (Op3::Cndgt, x.negated(), false),
                            CmpOp::Le => (Op3::Cndge, x.negated(), false),
                            CmpOp::Eq => (Op3::Cnde, x, false),
                            CmpOp::Ne => (Op3::Cnde, x, true),
                        };
                        let mut l = Lanes::new();
                        if let Some(k) = self.reflected(ins[1], ins[2]) {
                            // `x ? k − w : w` (cnd's `if d < 0 { 1 − w } else
                            // { w }`): the selects move off `w`'s path as
                            // MULADD(s, w, t) with s = ±1 and t = k or −0
                            // chosen from x alone. Exact: s·w is exact, and
                            // round(−w + k) is `k − w`; w + (−0) is w for
                            // every w but a denormal, which `w`, a flushed
                            // arithmetic result (spec §7), never is.
                            let k = self.lanes(k)?;
                            for (kk, w) in k.into_iter().zip(b) {
                                let (minus, plus) = (f(1.0).negated(), f(1.0));
                                let (st, se) = if swap { (plus, minus) } else { (minus, plus) };
                                let nz = f(0.0).negated();
                                let (tt, te) = if swap { (nz, kk) } else { (kk, nz) };
                                let s = self.op3(opc, &[x, st, se]);
                                let t = self.op3(opc, &[x, tt, te]);
                                l.push(self.op3(Op3::MuladdIeee, &[s, w, t]));
                            }
                        } else {
                            for (p, q) in a.into_iter().zip(b) {
                                let (t, e) = if swap { (q, p) } else { (p, q) };
                                l.push(self.op3(opc, &[x, t, e]));
                            }
                        }
                        l
                    }
                    None => {
                        let c = self.plain(c);
                        let mut l = Lanes::new();
                        for (x, y) in a.into_iter().zip(b) {
                            l.push(self.op3(Op3::CndeInt, &[c, y, x]));
                        }
                        l
                    }
                }
            }
            Op::LaneSelect(cond) => {
                let (c, a, b) = (
                    self.lanes(ins[0])?,
                    self.lanes(ins[1])?,
                    self.lanes(ins[2])?,
                );
                let op = match cond {
                    LaneCond::Ge0 => Op3::Cndge,
                    LaneCond::Gt0 => Op3::Cndgt,
                    LaneCond::Eq0 => Op3::Cnde,
                };
                let mut l = Lanes::new();
                for i in 0..c.len() {
                    l.push(self.op3(op, &[c[i], a[i], b[i]]));
                }
                l
            }
            Op::Splat(k) => {
                let a = self.scalar(ins[0])?;
                (0..*k).map(|_| a).collect()
            }
            Op::Swizzle(s) => {
                let a = self.lanes(ins[0])?;
                s.lanes()
                    .iter()
                    .map(|&i| a.get(i as usize).copied().unwrap_or(f(0.0)))
                    .collect()
            }
            Op::Construct => {
                let mut l = Lanes::new();
                for v in ins.iter() {
                    l.extend(self.lanes(*v)?);
                }
                l
            }
            Op::Scatter(p) => {
                let pos = self.lanes(ins[1])?;
                let v = self.scalar(ins[2])?;
                let slot = self.layout.scatter[p.index()].unwrap_or(0);
                self.scatter(slot, &pos, v);
                SmallVec::new()
            }
            Op::Gamma(g) => {
                let g = *g;
                self.gamma(n, g.branches, &ins)?;
                return Ok(());
            }
            Op::Theta(t) => {
                let t = *t;
                self.theta(n, t.body, &ins)?;
                return Ok(());
            }
        };
        self.values.insert(out(0), lanes);
        Ok(())
    }

    fn fetch(&mut self, param: usize, coord: [VReg; 2]) -> Lanes {
        let width = match self.m.params[param].kind {
            ParamKind::Input(StreamType::F32 | StreamType::U16) => 1,
            ParamKind::Input(StreamType::Vec2) => 2,
            _ => 4,
        };
        // The texel's lanes may land in any elements (DST_SEL): narrow
        // results rotate through the banks so that values fetched together
        // can be read together (§4.7.4).
        let chans: Vec<u8> = match width {
            1 => vec![self.chan()],
            2 => {
                let c = self.chan() & 2;
                vec![c, c + 1]
            }
            _ => (0..width).collect(),
        };
        let t = self.mir.new_tuple(&chans);
        let mut dst = [None; 4];
        for (k, &v) in t.iter().enumerate() {
            dst[k] = Some(v);
        }
        self.block.push(Item::Fetch(Fetch {
            resource: self.layout.resource[param].unwrap_or(0) as u8,
            coord,
            dst,
        }));
        t.iter().map(|&v| Operand::reg(v)).collect()
    }

    fn unary(&mut self, u: UnOp, x: Operand) -> Operand {
        use UnOp::*;
        match u {
            FNeg => x.negated(),
            FAbs => x.absolute(),
            FFloor => self.op2(Op2::Floor, &[x]),
            FCeil => self.op2(Op2::Ceil, &[x]),
            FTrunc => self.op2(Op2::Trunc, &[x]),
            FFract => self.op2(Op2::Fract, &[x]),
            FRound => {
                // round half away from zero: t + (|x − t| ≥ 0.5 ? sign(x) : 0).
                let t = self.op2(Op2::Trunc, &[x]);
                let fr = self.op2(Op2::Add, &[x, t.negated()]);
                let c = self.op2(Op2::Setge, &[fr.absolute(), f(0.5)]);
                let s = self.op3(Op3::Cndge, &[x, f(1.0), f(-1.0)]);
                self.op3(Op3::MuladdIeee, &[c, s, t])
            }
            FSqrt => self.op2(Op2::SqrtIeee, &[x]),
            FRsqrt => self.op2(Op2::RecipsqrtIeee, &[x]),
            FRcp => self.op2(Op2::RecipIeee, &[x]),
            FExp2 => self.op2(Op2::ExpIeee, &[x]),
            FLog2 => self.op2(Op2::LogIeee, &[x]),
            FSin | FCos => self.trig(u == FSin, x, 1.0),
            FSaturate => {
                let d = self.mir.new_reg();
                self.block.push(Item::Alu(AluOp {
                    opc: Opc::Op2(Op2::Mov),
                    dst: Some(d),
                    srcs: smallvec![x],
                    clamp: true,
                    role: Role::Plain,
                }));
                self.bounds.insert(d, 1.0);
                Operand::reg(d)
            }
            INeg => {
                let x = self.plain(x);
                self.op2(Op2::SubInt, &[int(0), x])
            }
            IAbs => {
                let x = self.plain(x);
                let n = self.op2(Op2::SubInt, &[int(0), x]);
                self.op2(Op2::MaxInt, &[x, n])
            }
            INot | BNot => {
                let x = self.plain(x);
                self.op2(Op2::NotInt, &[x])
            }
            F2I => {
                let t = self.op2(Op2::FltToInt, &[x]);
                let hi = self.op2(Op2::SetgeDx10, &[x, f(2_147_483_648.0)]);
                let t = self.op3(Op3::CndeInt, &[hi, t, int(i32::MAX)]);
                let lo = self.op2(Op2::SetgtDx10, &[f(-2_147_483_648.0), x]);
                let t = self.op3(Op3::CndeInt, &[lo, t, int(i32::MIN)]);
                let nan = self.op2(Op2::SetneDx10, &[x, x]);
                self.op3(Op3::CndeInt, &[nan, t, int(0)])
            }
            I2F => {
                let x = self.plain(x);
                self.op2(Op2::IntToFlt, &[x])
            }
            B2I => {
                let x = self.plain(x);
                self.op2(Op2::AndInt, &[x, int(1)])
            }
        }
    }

    fn binary(&mut self, b: BinOp, x: Operand, y: Operand) -> Result<Operand, CodegenError> {
        use BinOp::*;
        let int_op = |op| Some(op);
        // Constant operands fold with the reference's numerics.
        if let (Some(a), Some(c)) = (const_f32(x), const_f32(y)) {
            use ctm_frontend::numerics as num;
            match b {
                FAdd => return Ok(f(num::add(a, c))),
                FSub => return Ok(f(num::add(a, -c))),
                FMul => return Ok(f(num::mul(a, c))),
                _ => {}
            }
        }
        let iop = match b {
            FAdd => return Ok(self.op2(Op2::Add, &[x, y])),
            FSub => return Ok(self.op2(Op2::Add, &[x, y.negated()])),
            FMul => return Ok(self.op2(Op2::MulIeee, &[x, y])),
            FDiv => return Ok(self.fdiv(x, y)),
            FMin => return Ok(self.op2(Op2::MinDx10, &[x, y])),
            FMax => return Ok(self.op2(Op2::MaxDx10, &[x, y])),
            FStep => return Ok(self.op2(Op2::Setge, &[y, x])),
            IAdd => int_op(Op2::AddInt),
            ISub => int_op(Op2::SubInt),
            IMul => int_op(Op2::MulloInt),
            IAnd | BAnd => int_op(Op2::AndInt),
            IOr | BOr => int_op(Op2::OrInt),
            IXor => int_op(Op2::XorInt),
            IMin => int_op(Op2::MinInt),
            IMax => int_op(Op2::MaxInt),
            IShl | IShr => None,
            IDiv | IRem => None,
        };
        let x = self.plain(x);
        let y = self.plain(y);
        if let Some(op) = iop {
            return Ok(self.op2(op, &[x, y]));
        }
        match b {
            IShl | IShr => {
                // The hardware gives 0 for amounts above 31 (digest §3
                // LSHR_INT); the language takes them modulo 32.
                let amount = match const_int(y) {
                    Some(k) => int(k & 31),
                    None => self.op2(Op2::AndInt, &[y, int(31)]),
                };
                let op = if b == IShl {
                    Op2::LshlInt
                } else {
                    Op2::AshrInt
                };
                Ok(self.op2(op, &[x, amount]))
            }
            _ => Ok(self.divide(b == IRem, x, y)),
        }
    }

    /// `sin(c · x)` or `cos(c · x)`: SIN/COS take the angle in turns on
    /// R700 (LLVM 14's R700 lowering, docs/sim-r700.md §2.5), in [−1, 1]
    /// ("On hw >= R700, COS/SIN input must be between -1. and 1.",
    /// LLVM's `R600ISelLowering`), so the angle is reduced to
    /// `fract(x · c/2π)` in [0, 1): one multiply (none when `c/2π` rounds
    /// to 1, as for `sin(TAU * x)`) and a FRACT, not LLVM's
    /// `fract(x/2π + 0.5) − 0.5` (one ADD more on the path; the same
    /// period, and the absolute error of the turn is at most half an ulp
    /// of 1 either way). `c/2π` is computed in f64 and rounded once.
    fn trig(&mut self, sin: bool, x: Operand, c: f32) -> Operand {
        let k = (f64::from(c) / std::f64::consts::TAU) as f32;
        let t = if k == 1.0 {
            x
        } else {
            self.op2(Op2::MulIeee, &[x, f(k)])
        };
        let y = self.op2(Op2::Fract, &[t]);
        let op = if sin { Op2::Sin } else { Op2::Cos };
        self.op2(op, &[y])
    }

    /// For a value computed by a float multiply with one constant operand
    /// per lane and used by exactly one node: per lane, the other operand
    /// and the constant.
    fn constant_factor(&self, v: Value) -> Option<SmallVec<[(Operand, f32); 4]>> {
        let m = self.m;
        if !matches!(m.node(v.node).op, Op::Binary(BinOp::FMul)) || m.users(v).len() != 1 {
            return None;
        }
        let ins = m.inputs(v.node);
        let (a, b) = (self.lanes(ins[0]).ok()?, self.lanes(ins[1]).ok()?);
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| {
                let pair = match (const_f32(x), const_f32(y)) {
                    (Some(c), None) => Some((y, c)),
                    (None, Some(c)) => Some((x, c)),
                    _ => None,
                };
                pair.filter(|&(_, c)| c.is_finite() && c != 0.0)
            })
            .collect()
    }

    /// For `min(a, b)` where one operand is 1.0 in every lane and the
    /// other `max(y, 0.0)` read only here: `y`.
    fn clamp01(&self, a: Value, b: Value) -> Option<Value> {
        let m = self.m;
        let all = |v: Value, k: f32| {
            self.values.get(&v).is_some_and(|l| {
                !l.is_empty()
                    && l.iter()
                        .all(|&o| const_f32(o).is_some_and(|c| c.to_bits() == k.to_bits()))
            })
        };
        let mx = if all(b, 1.0) {
            a
        } else if all(a, 1.0) {
            b
        } else {
            return None;
        };
        if m.node(mx.node).op != Op::Binary(BinOp::FMax) || m.users(mx).len() != 1 {
            return None;
        }
        let i = m.inputs(mx.node);
        if all(i[1], 0.0) {
            Some(i[0])
        } else if all(i[0], 0.0) {
            Some(i[1])
        } else {
            None
        }
    }

    /// `k` when `t` is `k − e`, read only by the select at hand, and `e` a
    /// float sum, difference, product or `mad` (never denormal: results
    /// flush, spec §7) whose lanes are registers.
    fn reflected(&self, t: Value, e: Value) -> Option<Value> {
        let m = self.m;
        if m.node(t.node).op != Op::Binary(BinOp::FSub) || m.users(t).len() != 1 {
            return None;
        }
        let i = m.inputs(t.node);
        let arith = matches!(
            m.node(e.node).op,
            Op::Binary(BinOp::FAdd | BinOp::FSub | BinOp::FMul) | Op::Mad
        );
        let regs = self
            .values
            .get(&e)
            .is_some_and(|l| l.iter().all(|o| o.vreg().is_some() && !o.modified()));
        (i[1] == e && arith && regs).then_some(i[0])
    }

    /// Whether `v` is computed by an arithmetic node (whose lanes are
    /// registers written by it alone, not shared through a swizzle or a
    /// select) and read by exactly one node.
    fn only_use(&self, v: Value) -> bool {
        let m = self.m;
        let own = matches!(
            m.node(v.node).op,
            Op::Binary(BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FMin | BinOp::FMax)
                | Op::Mad
                | Op::Unary(
                    UnOp::FFloor
                        | UnOp::FCeil
                        | UnOp::FTrunc
                        | UnOp::FFract
                        | UnOp::FSqrt
                        | UnOp::FRsqrt
                        | UnOp::FExp2
                        | UnOp::FLog2
                )
        );
        own && m.users(v).len() == 1
    }

    /// Sets CLAMP on the unclamped float op of the current block that
    /// writes `x` (an unmodified fresh register), returning `x`; `None`
    /// when there is no such op.
    fn fold_clamp(&mut self, x: Operand) -> Option<Operand> {
        let v = x.vreg().filter(|_| !x.modified())?;
        let info = self.mir.regs.get(v.0 as usize)?;
        if info.merge || info.tuple.is_some() || info.gpr.is_some() {
            return None;
        }
        let op = self.block.iter_mut().rev().find_map(|item| match item {
            Item::Alu(op) if op.dst == Some(v) => Some(op),
            _ => None,
        })?;
        let clampable = matches!(
            op.opc,
            Opc::Op2(
                Op2::Add
                    | Op2::MulIeee
                    | Op2::MinDx10
                    | Op2::MaxDx10
                    | Op2::Floor
                    | Op2::Ceil
                    | Op2::Trunc
                    | Op2::Fract
                    | Op2::SqrtIeee
                    | Op2::RecipsqrtIeee
                    | Op2::RecipIeee
                    | Op2::ExpIeee
                    | Op2::LogIeee
            ) | Opc::Op3(Op3::MuladdIeee)
        );
        if !clampable || op.clamp || op.role != Role::Plain {
            return None;
        }
        op.clamp = true;
        self.bounds.insert(v, 1.0);
        Some(x)
    }

    /// Float `a / b` (spec §7 lists `/` among the derived functions, within
    /// the error of its expansion): `a · RECIP_IEEE(b)`, two roundings
    /// (manual §9 RECIP_IEEE, MUL_IEEE), after [`Self::scale_divisor`];
    /// the model `--check` compares with is `Numerics::R700`
    /// (`docs/backend-r700.md` §"Division"). With
    /// [`super::Options::exact_division`] the quotient is refined to the
    /// correctly rounded one ([`Self::fdiv_exact`]).
    fn fdiv(&mut self, a: Operand, b: Operand) -> Operand {
        if self.exact_division {
            let (a, b) = self.scale_divisor(a, b, 2f32.powi(64));
            return self.fdiv_exact(a, b);
        }
        let (a, b) = self.scale_divisor(a, b, HUGE_DIVISOR);
        if let Some(k) = const_f32(b) {
            // A constant divisor's reciprocal is the simulator's and the
            // model's `rcp` (both `1/x` rounded once, flushed).
            return self.op2(Op2::MulIeee, &[a, f(ctm_frontend::numerics::rcp(k))]);
        }
        let r = self.op2(Op2::RecipIeee, &[b]);
        match const_f32(a) {
            // `1 · r` is `r` bit for bit (`r` is already flushed).
            Some(1.0) => r,
            Some(-1.0) => r.negated(),
            _ => self.op2(Op2::MulIeee, &[a, r]),
        }
    }

    /// Both operands scaled by 2^-64 (exact for a power of two) where
    /// `|b| > limit`: RECIP_IEEE of `|b| > 2^126` is a denormal, flushed to
    /// 0 (spec §7), which made `x / x` 0 for such x. The scaled divisor is
    /// computed beside the test and selected, so the path from `b` grows
    /// by two groups (`SETGT`/`MUL`, then `CNDE`), the path from `a` by
    /// one (`a · s`, the factor selected from `b`); a constant
    /// divisor is decided at compile time, and no scaling is needed for
    /// the domain's lanes or a constant numerator of magnitude at most 1.
    fn scale_divisor(&mut self, a: Operand, b: Operand, limit: f32) -> (Operand, Operand) {
        let scale = f(2f32.powi(-64));
        match const_f32(b) {
            Some(k) if k.abs() > limit => {
                let a = match const_f32(a) {
                    Some(c) => f(ctm_frontend::numerics::mul(c, 2f32.powi(-64))),
                    None => self.op2(Op2::MulIeee, &[a, scale]),
                };
                (a, f(ctm_frontend::numerics::mul(k, 2f32.powi(-64))))
            }
            Some(_) => (a, b),
            // A range fact: the divisor's finite values are at most the
            // limit (the domain's lanes, `sin`/`cos`, `sqrt`, ... :
            // `Self::bound`); an infinite divisor needs no scaling either
            // (`a · 0` is the scaled `(a · 2^-64) · 0`, bit for bit).
            None if self.bound(b).is_some_and(|k| k <= f64::from(limit) / 2.0) => (a, b),
            // `|a| ≤ 1` and `|b| > 2^126`: the quotient is below 2^-126,
            // flushed, and `a · 0` is that zero with the same sign, as the
            // scaled product would be (`codegen_division`).
            None if const_f32(a).is_some_and(|k| k.abs() <= 1.0) => (a, b),
            None => {
                let big = self.op2(Op2::Setgt, &[b.absolute(), f(limit)]);
                let bq = self.op2(Op2::MulIeee, &[b, scale]);
                let b = self.op3(Op3::Cnde, &[big, b, bq]);
                let a = match const_f32(a) {
                    Some(c) => {
                        let aq = f(ctm_frontend::numerics::mul(c, 2f32.powi(-64)));
                        self.op3(Op3::Cnde, &[big, a, aq])
                    }
                    None => {
                        // `a · s`, s ∈ {1, 2^-64} picked from `b` alone: one
                        // group between `a` and the quotient's multiply
                        // (`a · 1` only flushes a denormal `a`, as that
                        // multiply does anyway).
                        let s = self.op3(Op3::Cnde, &[big, f(1.0), scale]);
                        self.op2(Op2::MulIeee, &[a, s])
                    }
                };
                (a, b)
            }
        }
    }

    /// Float `a / b` correctly rounded like the reference's IEEE division
    /// (the backend option [`super::Options::exact_division`]; `a` and
    /// `b` already scaled for `|b| ≥ 2^64`). The estimate
    /// `q0 = a · RECIP_IEEE(b)` rounds twice (up to about 1.5 ulp). The
    /// R700 has no f32 FMA (MULADD rounds the product, manual §9
    /// MULADD_IEEE; digest §5.6), so the residual `a − q0·b` is made exact
    /// with Dekker's two-product (operands split in halves of 12 bits by
    /// [`Self::split`], whose products are exact in f32), then
    /// `q = q0 + (a − q0·b) · r`. Where the operands are special (0, ∞,
    /// NaN) the refinement is NaN and `q0` (already the IEEE answer for
    /// those) is kept; where partial products underflow (flushed
    /// denormals: `a`, `b` or `q0` below 2^-100) or the correction exceeds
    /// two ulps, `q0` is kept, so the result is never worse than the
    /// estimate.
    fn fdiv_exact(&mut self, a: Operand, b: Operand) -> Operand {
        let r = self.op2(Op2::RecipIeee, &[b]);
        let q0 = self.op2(Op2::MulIeee, &[a, r]);
        let (qh, ql) = self.split(q0);
        let (bh, bl) = self.split(b);
        let p = self.op2(Op2::MulIeee, &[q0, b]);
        // err = q0·b − p exactly: each partial product is exact and each
        // sum exact by Dekker's argument.
        let e = self.op3(Op3::MuladdIeee, &[qh, bh, p.negated()]);
        let e = self.op3(Op3::MuladdIeee, &[qh, bl, e]);
        let e = self.op3(Op3::MuladdIeee, &[ql, bh, e]);
        let e = self.op3(Op3::MuladdIeee, &[ql, bl, e]);
        // a − p is exact (Sterbenz: p is within a factor 2 of a).
        let d = self.op2(Op2::Add, &[a, p.negated()]);
        let res = self.op2(Op2::Add, &[d, e.negated()]);
        let q = self.op3(Op3::MuladdIeee, &[res, r, q0]);
        // An exact q0 (residual 0) is kept as it is, so the sign of a
        // zero quotient survives (q0 + 0 would be +0).
        let q = self.op3(Op3::Cnde, &[res, q0, q]);
        // A true correction is at most about one ulp of q0. A larger one
        // (partial products of tiny operands flushed to zero) or a NaN
        // (0, ∞, NaN operands) is dropped and q0 kept: |q − q0| must be
        // ≤ |q0| · 2^-22 (two ulps).
        let diff = self.op2(Op2::Add, &[q, q0.negated()]);
        let bound = self.op2(Op2::MulIeee, &[q0.absolute(), f(1.0 / 4_194_304.0)]);
        let ok = self.op2(Op2::SetgeDx10, &[bound, diff.absolute()]);
        // Below 2^-100 the halves, the difference and the bound flush to
        // zero and the test above says nothing: keep q0 there.
        let m = self.op2(Op2::MinDx10, &[a.absolute(), b.absolute()]);
        let m = self.op2(Op2::MinDx10, &[m, q0.absolute()]);
        let normal = self.op2(Op2::SetgeDx10, &[m, f(2f32.powi(-100))]);
        let ok = self.op2(Op2::AndInt, &[ok, normal]);
        self.op3(Op3::CndeInt, &[ok, q0, q])
    }

    /// Splits `v` into a high part of 12 significant bits (sign,
    /// exponent and the top 11 stored mantissa bits: `v & 0xFFFFF000`)
    /// and the exact remainder `lo = v − hi` (at most 12 bits), so the
    /// four partial products of two split values are exact in f32. A
    /// mask rather than Veltkamp's `4097·v` cannot overflow.
    fn split(&mut self, v: Operand) -> (Operand, Operand) {
        if let Some(k) = const_f32(v) {
            // A constant divisor splits at compile time, the same way.
            let hi = f32::from_bits(k.to_bits() & 0xFFFF_F000);
            return (f(hi), f(k - hi));
        }
        let v = self.plain(v);
        let hi = self.op2(Op2::AndInt, &[v, int(-4096)]);
        let lo = self.op2(Op2::Add, &[v, hi.negated()]);
        (hi, lo)
    }

    /// Signed `x / y` or `x % y` (by zero: 0; spec §6): an unsigned
    /// quotient estimate through the float reciprocal, refined twice and
    /// corrected by one, then the signs.
    fn divide(&mut self, rem: bool, x: Operand, y: Operand) -> Operand {
        let nx = self.op2(Op2::SubInt, &[int(0), x]);
        let ux = self.op2(Op2::MaxInt, &[x, nx]);
        let ny = self.op2(Op2::SubInt, &[int(0), y]);
        let uy = self.op2(Op2::MaxInt, &[y, ny]);
        let fy = self.op2(Op2::UintToFlt, &[uy]);
        let ry = self.op2(Op2::RecipIeee, &[fy]);
        let fx = self.op2(Op2::UintToFlt, &[ux]);
        let q0f = self.op2(Op2::MulIeee, &[fx, ry]);
        let q0 = self.op2(Op2::FltToUint, &[q0f]);
        let p0 = self.op2(Op2::MulloUint, &[q0, uy]);
        let r0 = self.op2(Op2::SubInt, &[ux, p0]);
        let r0f = self.op2(Op2::IntToFlt, &[r0]);
        let q1f = self.op2(Op2::MulIeee, &[r0f, ry]);
        let q1t = self.op2(Op2::Trunc, &[q1f]);
        let q1 = self.op2(Op2::FltToInt, &[q1t]);
        let q = self.op2(Op2::AddInt, &[q0, q1]);
        let p1 = self.op2(Op2::MulloInt, &[q1, uy]);
        let r = self.op2(Op2::SubInt, &[r0, p1]);
        // r in (−uy, 2·uy): fix by one either way.
        let neg = self.op2(Op2::SetgtInt, &[int(0), r]);
        let r_up = self.op2(Op2::AddInt, &[r, uy]);
        let q_dn = self.op2(Op2::AddInt, &[q, int(-1)]);
        let r = self.op3(Op3::CndeInt, &[neg, r, r_up]);
        let q = self.op3(Op3::CndeInt, &[neg, q, q_dn]);
        let big = self.op2(Op2::SetgeUint, &[r, uy]);
        let r_dn = self.op2(Op2::SubInt, &[r, uy]);
        let q_up = self.op2(Op2::AddInt, &[q, int(1)]);
        let r = self.op3(Op3::CndeInt, &[big, r, r_dn]);
        let q = self.op3(Op3::CndeInt, &[big, q, q_up]);
        let result = if rem {
            let nr = self.op2(Op2::SubInt, &[int(0), r]);
            let xneg = self.op2(Op2::SetgtInt, &[int(0), x]);
            self.op3(Op3::CndeInt, &[xneg, r, nr])
        } else {
            let s = self.op2(Op2::XorInt, &[x, y]);
            let sneg = self.op2(Op2::SetgtInt, &[int(0), s]);
            let nq = self.op2(Op2::SubInt, &[int(0), q]);
            self.op3(Op3::CndeInt, &[sneg, q, nq])
        };
        self.op3(Op3::CndeInt, &[y, int(0), result])
    }

    fn compare(&mut self, c: CmpOp, a: Operand, b: Operand, float: bool) -> Operand {
        let (op, x, y) = if float {
            match c {
                CmpOp::Eq => (Op2::SeteDx10, a, b),
                CmpOp::Ne => (Op2::SetneDx10, a, b),
                CmpOp::Gt => (Op2::SetgtDx10, a, b),
                CmpOp::Ge => (Op2::SetgeDx10, a, b),
                CmpOp::Lt => (Op2::SetgtDx10, b, a),
                CmpOp::Le => (Op2::SetgeDx10, b, a),
            }
        } else {
            let (a, b) = (self.plain(a), self.plain(b));
            match c {
                CmpOp::Eq => (Op2::SeteInt, a, b),
                CmpOp::Ne => (Op2::SetneInt, a, b),
                CmpOp::Gt => (Op2::SetgtInt, a, b),
                CmpOp::Ge => (Op2::SetgeInt, a, b),
                CmpOp::Lt => (Op2::SetgtInt, b, a),
                CmpOp::Le => (Op2::SetgeInt, b, a),
            }
        };
        self.op2(op, &[x, y])
    }

    fn dot(&mut self, a: &[Operand], b: &[Operand]) -> Operand {
        match a.len() {
            0 => f(0.0),
            1 => self.op2(Op2::MulIeee, &[a[0], b[0]]),
            2 => {
                let t = self.op2(Op2::MulIeee, &[a[0], b[0]]);
                self.op3(Op3::MuladdIeee, &[a[1], b[1], t])
            }
            _ => {
                // DOT4_IEEE: one group instead of a chain of three
                // (manual §4.8; a vec3 pads with 0 · 0).
                let mut srcs: SmallVec<[Operand; 3]> = SmallVec::new();
                for k in 0..4 {
                    let x = a.get(k).copied().unwrap_or(f(0.0));
                    let y = b.get(k).copied().unwrap_or(f(0.0));
                    srcs.push(x);
                    srcs.push(y);
                }
                let d = self.mir.new_reg();
                self.block.push(Item::Alu(AluOp {
                    opc: Opc::Op2(Op2::Dot4Ieee),
                    dst: Some(d),
                    srcs,
                    clamp: false,
                    role: Role::Dot4,
                }));
                Operand::reg(d)
            }
        }
    }

    /// `scat[p] = v` (ABI §3.4).
    fn scatter(&mut self, slot: u32, pos: &[Operand], v: Operand) {
        self.domain_used = true;
        let e = self.layout.domain.unwrap_or(0) as u8;
        let w = Operand::of(Src::Const { elem: e, chan: 0 });
        let h = Operand::of(Src::Const { elem: e, chan: 1 });
        let px = pos.first().copied().unwrap_or(f(0.0));
        let py = pos.get(1).copied().unwrap_or(f(0.0));
        let fx = self.op2(Op2::Floor, &[px]);
        let fy = self.op2(Op2::Floor, &[py]);
        // Inside: 0 <= x < W and 0 <= y < H (NaN compares false).
        let c0 = self.op2(Op2::SetgeDx10, &[fx, f(0.0)]);
        let c1 = self.op2(Op2::SetgtDx10, &[w, fx]);
        let c2 = self.op2(Op2::SetgeDx10, &[fy, f(0.0)]);
        let c3 = self.op2(Op2::SetgtDx10, &[h, fy]);
        let a = self.op2(Op2::AndInt, &[c0, c1]);
        let b = self.op2(Op2::AndInt, &[c2, c3]);
        let inside = self.op2(Op2::AndInt, &[a, b]);
        let wh = self.op2(Op2::MulIeee, &[w, h]);
        let base = self.op2(Op2::MulIeee, &[wh, f(slot as f32)]);
        let row = self.op3(Op3::MuladdIeee, &[fy, w, fx]);
        let addr = self.op2(Op2::Add, &[row, base]);
        let trash = self.op2(Op2::MulIeee, &[wh, f(self.n_scatter as f32)]);
        let sel = self.op3(Op3::CndeInt, &[inside, trash, addr]);
        let t = self.mir.new_tuple(&[0]);
        self.emit(Opc::Op2(Op2::FltToInt), Some(t[0]), &[sel]);
        let vt = self.mir.new_tuple(&[0]);
        self.emit(Opc::Op2(Op2::Mov), Some(vt[0]), &[v]);
        self.block.push(Item::MemExport {
            value: vt[0],
            index: t[0],
        });
    }

    fn predicate(&mut self, op: Op2, c: Operand) {
        let c = self.plain(c);
        self.block.push(Item::Alu(AluOp {
            opc: Opc::Op2(op),
            dst: None,
            srcs: smallvec![c, int(0)],
            clamp: false,
            role: Role::Predicate,
        }));
    }

    fn gamma(
        &mut self,
        n: ctm_ir::graph::NodeId,
        branches: [RegionId; 2],
        ins: &[Value],
    ) -> Result<(), CodegenError> {
        let m = self.m;
        let c = self.scalar(ins[0])?;
        let entries: Vec<Lanes> = ins[1..]
            .iter()
            .map(|v| self.lanes(*v))
            .collect::<Result<_, _>>()?;
        if let Some(k) = const_int(c) {
            let r = self.region(branches[usize::from(k == 0)], &entries)?;
            for (i, l) in r.into_iter().enumerate() {
                self.values.insert(m.output(n, i), l);
            }
            return Ok(());
        }
        // manual §3.6-3.7: ALU_PUSH_BEFORE with PRED_SETNE_INT c, 0 (the
        // mask of the taken part), JUMP, ELSE, POP (clause.rs).
        self.predicate(Op2::PredSetneInt, c);
        let outer = std::mem::take(&mut self.block);
        let r_then = self.region(branches[0], &entries)?;
        let then_block = std::mem::take(&mut self.block);
        let r_else = self.region(branches[1], &entries)?;
        let else_block = std::mem::take(&mut self.block);
        // Merge registers for lanes that differ between the branches.
        let mut outs = Vec::new();
        let mut then_block = then_block;
        let mut else_block = else_block;
        for (lt, le) in r_then.iter().zip(&r_else) {
            let mut l = Lanes::new();
            for (&a, &b) in lt.iter().zip(le.iter()) {
                if a == b {
                    l.push(a);
                    continue;
                }
                let ch = self.chan();
                let mreg = self.mir.new_merge(ch);
                self.block = std::mem::take(&mut then_block);
                self.emit(Opc::Op2(Op2::Mov), Some(mreg), &[a]);
                then_block = std::mem::take(&mut self.block);
                self.block = std::mem::take(&mut else_block);
                self.emit(Opc::Op2(Op2::Mov), Some(mreg), &[b]);
                else_block = std::mem::take(&mut self.block);
                l.push(Operand::reg(mreg));
            }
            outs.push(l);
        }
        self.block = outer;
        self.block.push(Item::If {
            then: then_block,
            els: else_block,
        });
        for (i, l) in outs.into_iter().enumerate() {
            self.values.insert(m.output(n, i), l);
        }
        Ok(())
    }

    fn theta(
        &mut self,
        n: ctm_ir::graph::NodeId,
        body: RegionId,
        ins: &[Value],
    ) -> Result<(), CodegenError> {
        let m = self.m;
        let inits: Vec<Lanes> = ins
            .iter()
            .map(|v| self.lanes(*v))
            .collect::<Result<_, _>>()?;
        let mut vars: Vec<Lanes> = Vec::new();
        for l in &inits {
            let mut lv = Lanes::new();
            for &x in l {
                let ch = self.chan();
                let mreg = self.mir.new_merge(ch);
                self.emit(Opc::Op2(Op2::Mov), Some(mreg), &[x]);
                lv.push(Operand::reg(mreg));
            }
            vars.push(lv);
        }
        let outer = std::mem::take(&mut self.block);
        let r = self.region(body, &vars)?;
        let cont = r.first().and_then(|l| l.first().copied()).unwrap_or(int(0));
        for (v, next) in vars.iter().zip(&r[1..]) {
            for (&mv, &nx) in v.iter().zip(next.iter()) {
                if mv != nx {
                    self.emit(Opc::Op2(Op2::Mov), mv.vreg(), &[nx]);
                }
            }
        }
        // The exit mask: elements whose continue flag is 0 (manual §3.7.3:
        // LOOP_BREAK under ALU_PUSH_BEFORE, as LLVM does).
        self.predicate(Op2::PredSeteInt, cont);
        let body_block = std::mem::replace(&mut self.block, outer);
        self.block.push(Item::Loop { body: body_block });
        for (i, l) in vars.into_iter().enumerate() {
            self.values.insert(m.output(n, i), l);
        }
        Ok(())
    }
}

/// Whether the opcode reads integer sources (no float modifiers).
fn integer_sources(opc: Opc) -> bool {
    let m = opc.mnemonic();
    (m.ends_with("_INT")
        || m.ends_with("_UINT")
        || m.starts_with("INT_TO")
        || m.starts_with("UINT_TO"))
        && !m.starts_with("FLT_TO")
}

/// The lanes of a constant (`bool` true = −1).
fn constant(c: &Constant) -> Lanes {
    match *c {
        Constant::Unit => SmallVec::new(),
        Constant::Bool(b) => smallvec![int(if b { -1 } else { 0 })],
        Constant::I32(x) => smallvec![int(x)],
        Constant::Float { lanes, width } => lanes[..width as usize].iter().map(|&x| f(x)).collect(),
    }
}

/// The float value of a constant operand, modifiers applied.
fn const_f32(o: Operand) -> Option<f32> {
    let v = match o.src {
        Src::Lit(x) => f32::from_bits(x),
        Src::Inline(InlineConst::Zero) => 0.0,
        Src::Inline(InlineConst::One) => 1.0,
        Src::Inline(InlineConst::Half) => 0.5,
        _ => return None,
    };
    let v = if o.abs { v.abs() } else { v };
    Some(if o.neg { -v } else { v })
}

/// Whether every write of `v` in `block` (nested blocks included) is an
/// unmodified `MOV` of zero bits or of a register that is itself always
/// zero, so `v` is 0 wherever it is read.
fn always_zero(block: &Block, v: VReg) -> bool {
    fn writes(block: &Block, out: &mut HashMap<VReg, Vec<Option<VReg>>>) {
        for item in block {
            match item {
                Item::Alu(op) => {
                    if let Some(d) = op.dst {
                        let copied = match (op.opc, op.srcs.first()) {
                            (Opc::Op2(Op2::Mov), Some(o)) if !op.clamp && !o.modified() => {
                                match o.src {
                                    Src::Reg(r) => Some(Some(r)),
                                    Src::Inline(InlineConst::Zero) | Src::Lit(0) => Some(None),
                                    _ => None,
                                }
                            }
                            _ => None,
                        };
                        // `None` in the list: a write that is not a copy.
                        let entry = out.entry(d).or_default();
                        match copied {
                            Some(Some(r)) => entry.push(Some(r)),
                            Some(None) => {}
                            None => entry.push(None),
                        }
                    }
                }
                Item::Fetch(f) => {
                    for d in f.dst.iter().flatten() {
                        out.entry(*d).or_default().push(None);
                    }
                }
                Item::If { then, els } => {
                    writes(then, out);
                    writes(els, out);
                }
                Item::Loop { body } => writes(body, out),
                Item::Export { .. } | Item::MemExport { .. } => {}
            }
        }
    }
    let mut all = HashMap::new();
    writes(block, &mut all);
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![v];
    while let Some(r) = stack.pop() {
        if !seen.insert(r) {
            continue;
        }
        // A register never written here (a parameter's) is not known.
        let Some(ws) = all.get(&r) else {
            return false;
        };
        for w in ws {
            match w {
                Some(src) => stack.push(*src),
                None => return false,
            }
        }
    }
    true
}

/// The integer value of a constant operand.
fn const_int(o: Operand) -> Option<i32> {
    if o.modified() {
        return None;
    }
    match o.src {
        Src::Lit(x) => Some(x as i32),
        Src::Inline(InlineConst::Zero) => Some(0),
        Src::Inline(InlineConst::OneInt) => Some(1),
        Src::Inline(InlineConst::MinusOneInt) => Some(-1),
        _ => None,
    }
}
