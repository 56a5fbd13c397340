//! Gather coordinates read in place, on the MIR right after selection.
//!
//! A texture fetch reads its coordinates from one temporary through a
//! source swizzle: `SRC_S_SWIZ` and `SRC_T_SWIZ` pick any channel (R, G,
//! B, A) of `SRC_ADDR` as S and T (CTM §3.4: "texture source addresses
//! allow arbitrary swizzles from RGBA to STRQ"; x1k-encoding §8.5).
//! Selection assembles a coordinate `vec2(x, y)` whose parts live in
//! different virtual registers by lane copies
//! (`MAX(v, v)` with OMOD off) into a new register. This pass removes
//! such copies when the fetch can read the lanes where they already are:
//!
//! - both lanes copied from one register: the fetch reads that register
//!   with the swizzle of the copied lanes;
//! - lanes copied from two registers `A` and `B` where `B` is a scalar
//!   and `A` has a free RGB lane: `B` is given that lane of `A` (every op
//!   writing `B` writes the lane instead, every reader reads it there), so
//!   the fetch reads `A` alone. matmul's `a[vec2(t, p.y)]` and
//!   `b[vec2(p.x, t)]` read the loop counter from the lane beside
//!   `index()` in `r0` (`ld(t0, r0.bggg)`, `ld(t1, r0.rbbb)`): four moves
//!   fewer per iteration.
//!
//! The copies must be the only writers of the coordinate register, in
//! the fetch's block before it, with the fetch their only reader, and
//! their sources must not be redefined in between. Merging `B` into `A`
//! needs every writer of `B` to be able to write an RGB lane (an RGB or
//! either-unit op, a transcendental through `SOP`, a `DP4`; not a fetch,
//! a presubtract source or an op writing an output or a flag).

use super::mir::{
    AluKind, Lane, Mir, MirOp, Node, OpId, Operand, RegClass, Special, Src, Unit, VReg,
};
use crate::isa::InputModifier;

/// Runs the rewrite over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let mut blocks: Vec<Vec<OpId>> = Vec::new();
    collect(&mir.body, &mut blocks);
    let mut removed: Vec<OpId> = Vec::new();
    for ops in &blocks {
        for j in 0..ops.len() {
            if let Some(copies) = rewrite(mir, ops, j, &removed) {
                removed.extend(copies);
            }
        }
    }
    if !removed.is_empty() {
        removed.sort_unstable();
        drop_ops(&mut mir.body, &removed);
    }
}

/// The op lists of every block, in depth-first order.
fn collect(nodes: &[Node], out: &mut Vec<Vec<OpId>>) {
    for n in nodes {
        match n {
            Node::Block(ops) => out.push(ops.clone()),
            Node::If { then, else_, .. } => {
                collect(then, out);
                collect(else_, out);
            }
            Node::Loop { body, .. } => collect(body, out),
            Node::Break { .. } => {}
        }
    }
}

/// Removes the ops in `removed` (sorted) from every block.
fn drop_ops(nodes: &mut [Node], removed: &[OpId]) {
    for n in nodes {
        match n {
            Node::Block(ops) => ops.retain(|id| removed.binary_search(id).is_err()),
            Node::If { then, else_, .. } => {
                drop_ops(then, removed);
                drop_ops(else_, removed);
            }
            Node::Loop { body, .. } => drop_ops(body, removed),
            Node::Break { .. } => {}
        }
    }
}

/// `op` is a plain lane copy `MAX(v, v)` (OMOD off, no modifier, no
/// clamp) of register lanes: its source.
fn copy_source(op: &MirOp) -> Option<Operand> {
    op.copy_source().filter(|_| op.special == Special::None)
}

/// Makes the fetch at `ops[j]` read its coordinates in place when they
/// were assembled by lane copies; the copies it made dead.
fn rewrite(mir: &mut Mir, ops: &[OpId], j: usize, removed: &[OpId]) -> Option<Vec<OpId>> {
    let t = mir.op(ops[j]);
    if !matches!(t.tex, Some(super::mir::TexKind::Load { .. })) {
        return None;
    }
    let coord = *t.args.first()?;
    let Src::Reg(c) = coord.src else { return None };
    if coord.modifier != InputModifier::None || mir.vreg(c).fixed.is_some() {
        return None;
    }
    // Every writer and reader of `c` in the program.
    let live: Vec<OpId> = mir
        .live_ops()
        .into_iter()
        .filter(|id| !removed.contains(id))
        .collect();
    let writers: Vec<OpId> = live
        .iter()
        .copied()
        .filter(|&id| mir.op(id).dest.is_some_and(|(d, _)| d == c))
        .collect();
    let readers = live
        .iter()
        .filter(|&&id| mir.op(id).reads().any(|r| r == c))
        .count();
    if readers != 1 || writers.is_empty() {
        return None;
    }
    let pos = |id: OpId| ops[..j].iter().position(|&o| o == id);
    let mut positions = Vec::with_capacity(writers.len());
    for &w in &writers {
        positions.push(pos(w)?);
        copy_source(mir.op(w))?;
    }
    // The source (register, lane) of coordinate lanes S and T.
    let mut src: [(VReg, u8); 2] = [(c, 0); 2];
    for (q, s) in src.iter_mut().enumerate() {
        let Lane::Of(k) = coord.lanes[q] else {
            return None;
        };
        // The last copy before the fetch writing lane k.
        let (at, w) = positions
            .iter()
            .zip(&writers)
            .filter(|&(_, &w)| {
                let o = mir.op(w);
                o.dest.is_some_and(|(_, l)| l <= k && k < l + o.width)
            })
            .max_by_key(|(p, _)| **p)?;
        let o = mir.op(*w);
        let (_, l) = o.dest?;
        let a = copy_source(o)?;
        let Lane::Of(m) = a.lanes[(k - l) as usize & 3] else {
            return None;
        };
        let Src::Reg(v) = a.src else { return None };
        // Not redefined between the copy and the fetch.
        if ops[at + 1..j]
            .iter()
            .any(|&id| mir.op(id).dest.is_some_and(|(d, _)| d == v))
        {
            return None;
        }
        *s = (v, m);
    }
    if src[0].0 != src[1].0 {
        let (a, b) = (src[0].0, src[1].0);
        let (into, k) = match merge(mir, &live, b, a) {
            Some(k) => (a, k),
            None => (b, merge(mir, &live, a, b)?),
        };
        for s in src.iter_mut() {
            if s.0 != into {
                *s = (into, k);
            }
        }
    }
    let v = src[0].0;
    let t = mir.op_mut(ops[j]);
    t.args[0] = Operand {
        src: Src::Reg(v),
        lanes: [
            Lane::Of(src[0].1),
            Lane::Of(src[1].1),
            Lane::Of(src[1].1),
            Lane::Of(src[1].1),
        ],
        modifier: InputModifier::None,
    };
    Some(writers)
}

/// Gives scalar `b` the next free RGB lane of `a`: every writer of `b`
/// writes that lane of `a`, every reader reads it there. The lane, or
/// `None` (nothing changed) if it cannot.
fn merge(mir: &mut Mir, live: &[OpId], b: VReg, a: VReg) -> Option<u8> {
    let (ai, bi) = (mir.vreg(a), mir.vreg(b));
    if a == b || bi.fixed.is_some() || bi.width != 1 || ai.width > 2 {
        return None;
    }
    let k = ai.width;
    match (ai.class, ai.fixed) {
        (_, Some((_, chans))) if chans[k as usize] < 3 => {}
        (RegClass::Rgb, None) => {}
        _ => return None,
    }
    // Writers of b: each must be able to write an RGB lane.
    let mut units: Vec<(OpId, Unit)> = Vec::new();
    for &id in live {
        let o = mir.op(id);
        if o.presub
            .is_some_and(|(_, x, y)| x.vreg() == Some(b) || y.vreg() == Some(b))
        {
            return None;
        }
        if o.dest.is_none_or(|(d, _)| d != b) {
            continue;
        }
        if o.dest != Some((b, 0)) || o.width != 1 || o.special != Special::None {
            return None;
        }
        let trans = matches!(o.alu, Some(AluKind::Trans(_)));
        let unit = match (o.alu, o.unit) {
            (None, _) => return None,
            (Some(AluKind::Dp4), Unit::Both) => Unit::Both,
            (Some(_), Unit::Any | Unit::Rgb) if !trans => Unit::Rgb,
            (Some(_), Unit::Alpha | Unit::Both) if trans => Unit::Both,
            _ => return None,
        };
        units.push((id, unit));
    }
    if units.is_empty() {
        return None;
    }
    for (id, unit) in units {
        let o = mir.op_mut(id);
        o.dest = Some((a, k));
        o.unit = unit;
    }
    for &id in live {
        let o = mir.op_mut(id);
        for arg in o.args.iter_mut() {
            if arg.src == Src::Reg(b) {
                arg.src = Src::Reg(a);
                // `b` has one lane: every register lane read is it.
                for l in arg.lanes.iter_mut() {
                    if let Lane::Of(_) = l {
                        *l = Lane::Of(k);
                    }
                }
            }
        }
    }
    mir.vregs[a.0 as usize].width = k + 1;
    Some(k)
}
