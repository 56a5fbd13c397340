//! Reads, uniforms, outputs, scatters and `discard`.
//!
//! - Own-position inputs: one `LD` each from `r0.rg` (`UNSCALED`,
//!   `docs/abi-x1k.md` §3), all at the start so their latency hides under
//!   the first computations (CTM §3.4.2).
//! - Gathers: `LD` from the computed coordinates; the sampler takes the
//!   nearest texel (it rounds down, `numerics::coordinate`) and clamps to
//!   the edge, so no `floor` is needed.
//! - Uniforms: float constants (scalars replicated); uniform-array
//!   elements with a constant index read their constant directly, an
//!   index computed from loop counters reads through aL or a select chain
//!   (`arrays`); any other index is CK0070.
//! - Outputs: `OUT` instructions (CTM §3.3.8); an output computed by the
//!   last block's op becomes that op (it writes the target instead of a
//!   register).
//! - Scatter: a UMRT write of (value, x, y) with A = 0 (CTM §3.3.8), the
//!   coordinates rounded down unless they are integers.
//! - `discard`: `KILL_LT_0` on a register that is negative exactly when
//!   the element is discarded (CTM §3.4.1).

use super::arith::{Modify, modify};
use super::arrays::ArrayRead;
use super::{BoolVal, Selector, Val};
use crate::codegen::CodegenError;
use crate::codegen::mir::{AluKind, Lane, MirOp, Operand, RegClass, Special, Src, TexKind, Unit};
use crate::isa::{InputModifier, TexId};
use ctm_frontend::Code;
use ctm_frontend::tast::{ParamId, ParamKind};
use ctm_frontend::types::{StreamType, Type};
use ctm_ir::op::{CmpOp, Op, ParamInfo};
use ctm_ir::types::Ty;
use smallvec::smallvec;

impl Selector<'_> {
    /// Loads every own-position input the program reads.
    pub(super) fn load_inputs(&mut self) -> Result<(), CodegenError> {
        let m = self.m;
        let mut used: Vec<u32> = Vec::new();
        for r in m.region_ids() {
            for n in m.nodes(r) {
                if let Op::Input(p) = m.node(n).op
                    && self.live.nodes.contains(&n)
                    && !used.contains(&p.0)
                {
                    used.push(p.0);
                }
            }
        }
        used.sort_unstable();
        for p in used {
            let pid = ParamId(p);
            let coords = Operand::reg(self.index_vreg());
            let v = self.fetch(pid, coords)?;
            self.inputs.insert(p, v);
        }
        Ok(())
    }

    /// The input index (`TEX_ID`) of input parameter `p` and its fetched
    /// channel count.
    fn input_of(&self, p: ParamId) -> Result<(TexId, u8), CodegenError> {
        let m = self.m;
        let k = m.params[..p.index()]
            .iter()
            .filter(|q| matches!(q.info, ParamInfo::Input(_)))
            .count();
        let fetched = match m.params[p.index()].kind {
            ParamKind::Input(StreamType::Vec2) => 2,
            ParamKind::Input(StreamType::Vec4 | StreamType::Unorm8x4) => 4,
            _ => 1,
        };
        TexId::new(k as u32)
            .map(|t| (t, fetched))
            .ok_or_else(|| CodegenError::internal("input-count", format!("input {k}")))
    }

    /// An `LD` of input `p` at `coords` (lanes 0, 1) into a new register.
    fn fetch(
        &mut self,
        p: ParamId,
        coords: Operand,
    ) -> Result<crate::codegen::mir::VReg, CodegenError> {
        let (tex, fetched) = self.input_of(p)?;
        let class = if fetched == 4 {
            RegClass::Rgba
        } else {
            RegClass::Rgb
        };
        let v = self.mir.new_vreg(fetched, class);
        self.emit(MirOp {
            alu: None,
            tex: Some(TexKind::Load { tex, fetched }),
            unit: Unit::Tex,
            dest: Some((v, 0)),
            width: fetched,
            args: smallvec![coords],
            presub: None,
            omod_off: false,
            scale: 0,
            clamp: false,
            special: Special::None,
        });
        Ok(v)
    }

    /// A gather of input `p` at `pos`.
    pub(super) fn gather(&mut self, p: ParamId, pos: Val, ty: Ty) -> Result<Val, CodegenError> {
        let coords = self.in_register(pos, 2)?;
        let v = self.fetch(p, coords)?;
        Ok(Val::reg(v, ty.width().unwrap_or(1)))
    }

    /// `v` as an unmodified register operand (TEX sources read only
    /// temporaries, CTM §3.4), moving it into one if needed.
    fn in_register(&mut self, v: Val, w: u8) -> Result<Operand, CodegenError> {
        if let Val::View {
            src: Src::Reg(_),
            lanes,
            modifier: InputModifier::None,
            ..
        } = &v
            && lanes[..w as usize].iter().all(|l| matches!(l, Lane::Of(_)))
        {
            return self.operand(&v);
        }
        let op = self.operand(&v)?;
        let dest = self.mir.new_vreg(w, RegClass::Rgb);
        self.emit(super::arith::mov(op, Unit::Rgb, (dest, 0), w));
        Ok(Operand::reg(dest))
    }

    /// A value uniform.
    pub(super) fn uniform(&mut self, p: ParamId, ty: Ty) -> Result<Val, CodegenError> {
        if ty == Ty::Bool {
            return Ok(Val::Bool(Box::new(BoolVal::Uniform(p))));
        }
        let base = self.consts.uniform_base[p.index()]
            .ok_or_else(|| CodegenError::internal("uniform-layout", format!("{p}")))?;
        Ok(const_view(base, ty.width().unwrap_or(1)))
    }

    /// Element `index` of a uniform array or `mat4` column (read `n`): a
    /// constant index reads its constant (clamped like the reference); a
    /// counter-derived index reads `c[N + aL]` or a select chain, as
    /// planned (`arrays`). Anything else is CK0070.
    pub(super) fn uniform_element(
        &mut self,
        n: ctm_ir::graph::NodeId,
        p: ParamId,
        index: ctm_ir::graph::Value,
        ty: Ty,
    ) -> Result<Val, CodegenError> {
        let m = self.m;
        let base = self.consts.uniform_base[p.index()]
            .ok_or_else(|| CodegenError::internal("uniform-layout", format!("{p}")))?;
        let len = match m.params[p.index()].kind {
            ParamKind::Uniform(t) => super::super::consts::uniform_size(t),
            _ => 1,
        };
        let is_mat = matches!(m.params[p.index()].kind, ParamKind::Uniform(Type::Mat4));
        let w = ty.width().unwrap_or(if is_mat { 4 } else { 1 });
        match self.arrays.reads.get(&n).copied() {
            Some(ArrayRead::Relative { n, .. }) => {
                return Ok(Val::View {
                    src: Src::Const {
                        index: n,
                        relative: true,
                    },
                    lanes: [Lane::Of(0), Lane::Of(1), Lane::Of(2), Lane::Of(3)],
                    width: w,
                    modifier: InputModifier::None,
                });
            }
            Some(ArrayRead::Chain { lo, hi }) => {
                let idx = self.get(index)?;
                let at = |k: u16| const_view(base.saturating_add(k.min(255) as u8), w);
                let mut v = at(lo);
                for k in lo + 1..=hi {
                    let ge = BoolVal::Cmp(CmpOp::Ge, idx.clone(), Val::scalar(f32::from(k)));
                    v = self.select(Val::Bool(Box::new(ge)), at(k), v, ty)?;
                }
                return Ok(v);
            }
            None => {}
        }
        match self.get_live(index)? {
            Val::Lit { values, .. } => {
                let k = (values[0] as i64).clamp(0, len as i64 - 1) as u8;
                Ok(const_view(base + k, w))
            }
            _ => Err(self.dynamic_index_of(p)),
        }
    }

    /// CK0070 for uniform array `p`.
    fn dynamic_index_of(&self, p: ParamId) -> CodegenError {
        let m = self.m;
        CodegenError::Limit {
            code: Code::X1kDynamicIndex,
            kernel: m.name.clone(),
            message: format!(
                "`{}`: the index of uniform array `{}` is neither a constant nor computed from loop counters and constants after optimisation",
                m.name,
                m.params[p.index()].name
            ),
        }
    }

    /// A scatter write.
    pub(super) fn scatter(
        &mut self,
        pos: Val,
        value: Val,
        integral: bool,
    ) -> Result<(), CodegenError> {
        let pos = if integral { pos } else { self.floor(pos, 2)? };
        let t = self.construct(&[value, pos])?;
        let op = self.operand(&t)?;
        self.emit(MirOp {
            alu: Some(AluKind::Max),
            tex: None,
            unit: Unit::Both,
            dest: None,
            width: 3,
            args: smallvec![op, op],
            presub: None,
            omod_off: true,
            scale: 0,
            clamp: false,
            special: Special::Umrt,
        });
        Ok(())
    }

    /// Kills the element where `d` holds.
    pub(super) fn discard(&mut self, d: Val) -> Result<(), CodegenError> {
        let b = match d {
            Val::Bool(b) => *b,
            other => BoolVal::Value(other),
        };
        let k = match b {
            BoolVal::Lit(false) => return Ok(()),
            BoolVal::Cmp(CmpOp::Lt, a, c) => self.add(a, modify(c, Modify::Neg), 1)?,
            BoolVal::Cmp(CmpOp::Gt, a, c) => self.add(c, modify(a, Modify::Neg), 1)?,
            other => {
                let v = self.bool_value(other, false)?;
                self.mul(v, Val::scalar(-1.0), 1)?
            }
        };
        let k = self.in_register(k, 1)?;
        self.emit(MirOp {
            alu: None,
            tex: Some(TexKind::Kill),
            unit: Unit::Tex,
            dest: None,
            width: 1,
            args: smallvec![k],
            presub: None,
            omod_off: false,
            scale: 0,
            clamp: false,
            special: Special::None,
        });
        Ok(())
    }

    /// Writes output `k` (render target A + k).
    pub(super) fn output(&mut self, k: u8, val: Val, others: &[Val]) -> Result<(), CodegenError> {
        let val = match val {
            Val::Bool(b) => self.bool_value(*b, false)?,
            v => v,
        };
        let w = val.width();
        // The whole value in its own register, lanes in place, read by no
        // other output: the ops computing it can write the output.
        let own = match &val {
            Val::View {
                src: Src::Reg(v),
                lanes,
                modifier: InputModifier::None,
                ..
            } if lanes[..w as usize]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == Lane::Of(i as u8))
                && !others
                    .iter()
                    .any(|o| matches!(o, Val::View { src: Src::Reg(x), .. } if x == v)) =>
            {
                Some(*v)
            }
            _ => None,
        };
        if let Some(v) = own {
            if let Some(def) = self.single_def_in_block(v, w) {
                let op = self.mir.op_mut(def);
                op.dest = None;
                op.special = Special::Output(k, 0);
                op.unit = match (op.unit, w) {
                    (Unit::Alpha, 1) => Unit::Both,
                    (Unit::Any, 1) => Unit::Rgb,
                    (u, _) => u,
                };
                return Ok(());
            }
            // A vector assembled lane by lane in this block: each op
            // computing a part writes its channels of the target (the last
            // value written to a channel is the one sent out, CTM §3.3.8).
            if let Some(defs) = self.part_defs_in_block(v, w) {
                for (def, unit) in defs {
                    let op = self.mir.op_mut(def);
                    let first = op.dest.map_or(0, |(_, l)| l);
                    op.dest = None;
                    op.special = Special::Output(k, first);
                    op.unit = unit;
                }
                return Ok(());
            }
        }
        let op = self.operand(&val)?;
        self.emit(MirOp {
            alu: Some(AluKind::Max),
            tex: None,
            unit: if w == 4 { Unit::Both } else { Unit::Rgb },
            dest: None,
            width: w,
            args: smallvec![op, op],
            presub: None,
            omod_off: true,
            scale: 0,
            clamp: false,
            special: Special::Output(k, 0),
        });
        Ok(())
    }

    /// The op of the current block that is the only writer of `v` (all
    /// `w` lanes) when nothing reads `v`.
    fn single_def_in_block(
        &self,
        v: crate::codegen::mir::VReg,
        w: u8,
    ) -> Option<crate::codegen::mir::OpId> {
        if self.mir.vreg(v).fixed.is_some() {
            return None;
        }
        let mut def = None;
        for (i, op) in self.mir.ops.iter().enumerate() {
            if op.reads().any(|r| r == v) {
                return None;
            }
            if op.dest.is_some_and(|(d, _)| d == v) {
                if def.is_some() {
                    return None;
                }
                def = Some(crate::codegen::mir::OpId(i as u32));
            }
        }
        let def = def?;
        let op = self.mir.op(def);
        let ok = self.current_block().contains(&def)
            && op.alu.is_some()
            && op.dest == Some((v, 0))
            && op.width == w
            && op.special == Special::None
            && !(w == 1 && op.unit == Unit::Both);
        ok.then_some(def)
    }
}

impl Selector<'_> {
    /// The ops of the current block that together write lanes 0..`w` of
    /// `v` (each lane once) when nothing reads `v`, with the unit each
    /// takes to write its lanes of an output (RGB channels by the RGB
    /// unit, A by the alpha unit).
    fn part_defs_in_block(
        &self,
        v: crate::codegen::mir::VReg,
        w: u8,
    ) -> Option<Vec<(crate::codegen::mir::OpId, Unit)>> {
        let info = self.mir.vreg(v);
        if info.fixed.is_some() || info.width != w || w < 2 {
            return None;
        }
        let mut defs = Vec::new();
        let mut covered = 0u8;
        for (i, op) in self.mir.ops.iter().enumerate() {
            if op.reads().any(|r| r == v) {
                return None;
            }
            let Some((d, first)) = op.dest else { continue };
            if d != v {
                continue;
            }
            let id = crate::codegen::mir::OpId(i as u32);
            let kind = op.alu?;
            if !self.current_block().contains(&id) || op.special != Special::None {
                return None;
            }
            let lanes = ((1u16 << op.width) - 1) << first;
            if lanes > 0xF || covered as u16 & lanes != 0 {
                return None;
            }
            covered |= lanes as u8;
            let trans = matches!(kind, AluKind::Trans(_));
            let unit = match (op.unit, first, op.width) {
                (Unit::Both, 0, 4) => Unit::Both,
                (_, _, 4) => return None,
                // A (the alpha unit).
                (Unit::Alpha | Unit::Any, 3, 1) => Unit::Alpha,
                (Unit::Both, 3, 1) if trans => Unit::Alpha,
                (Unit::Both, 3, 1) if kind == AluKind::Dp4 => Unit::Both,
                (_, 3, _) => return None,
                // R, G, B (the RGB unit; a transcendental through SOP).
                (_, f, n) if f + n > 3 => return None,
                (Unit::Rgb | Unit::Any, _, _) if !trans => Unit::Rgb,
                (Unit::Both, _, 1) if trans || kind == AluKind::Dp4 => Unit::Both,
                (Unit::Alpha, _, 1) if trans => Unit::Both,
                _ => return None,
            };
            defs.push((id, unit));
        }
        (covered == (1u8 << w) - 1).then_some(defs)
    }
}

/// Lanes 0..w of constant `index`.
fn const_view(index: u8, w: u8) -> Val {
    Val::View {
        src: Src::Const {
            index,
            relative: false,
        },
        lanes: [Lane::Of(0), Lane::Of(1), Lane::Of(2), Lane::Of(3)],
        width: w,
        modifier: InputModifier::None,
    }
}
