//! Copy removal on the MIR, the last pass before scheduling: an op whose
//! only readers are bit-exact lane copies (`MAX(t, t)` with the output
//! modifier off, CTM §3.3.5) later in its block is computed by each copy
//! instead, straight into the copy's destination (a register's lanes or
//! a render target's channels), at the copy's place.
//!
//! One op goes for every such value: a loop-carried `k = k + 1` is
//! computed into `k` after `k`'s last reader instead of into a temporary
//! copied back (nbody's counter); a two-lane result whose lanes are
//! copied to output channels b and a (one on each unit, CTM §3.3.8) is
//! computed lane by lane by the two ops writing the output, which may
//! co-issue (bounds' `max(a.zw, b.zw)`). The copies may be on either unit:
//! the ops moved (MAD, MIN, MAX, CMP, CND, FRC) exist on both (CTM §3.3.4).
//!
//! Conditions: the op is a plain ALU op (no output, predicate, ALU result
//! or presubtract), the only writer of its destination, which is not a
//! fixed register, read only by copies of lanes it writes, in its block
//! after it; nothing between the op and its last copy writes a register
//! the op reads; a copy of more than one lane writes RGB lanes only.

use smallvec::SmallVec;

use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Special, Src, Unit, VReg};

/// Removes the copies of every block of `mir`.
pub fn run(mir: &mut Mir) {
    let n = mir.vregs.len();
    let mut defs = vec![0u32; n];
    let mut readers: Vec<SmallVec<[OpId; 4]>> = vec![SmallVec::new(); n];
    for id in mir.live_ops() {
        let op = mir.op(id);
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
        for v in op.reads() {
            let r = &mut readers[v.0 as usize];
            if !r.contains(&id) {
                r.push(id);
            }
        }
    }
    mir.each_block(|mir, ops| block(mir, ops, &defs, &mut readers));
}

/// The lanes of `t` a bit-exact copy reads (one per result lane), if
/// `op` is such a copy of `t`.
fn copied_lanes(op: &MirOp, t: VReg) -> Option<SmallVec<[u8; 4]>> {
    if op.copy_source().is_none_or(|a| a.src != Src::Reg(t))
        || matches!(
            op.special,
            Special::AluResult(_) | Special::Predicate(_) | Special::Umrt
        )
    {
        return None;
    }
    op.args[0].lanes[..op.width as usize]
        .iter()
        .map(|l| match l {
            Lane::Of(k) => Some(*k),
            _ => None,
        })
        .collect()
}

/// Whether `op` may be recomputed by its copies.
fn movable(op: &MirOp) -> bool {
    op.alu.is_some_and(AluKind::on_both_units)
        && matches!(op.unit, Unit::Rgb | Unit::Alpha | Unit::Any)
        && op.special == Special::None
        && op.presub.is_none()
        && op.width <= 3
}

fn block(mir: &mut Mir, ops: &mut Vec<OpId>, defs: &[u32], readers: &mut [SmallVec<[OpId; 4]>]) {
    let mut xi = 0;
    while xi < ops.len() {
        if try_move(mir, ops, xi, defs, readers) {
            ops.remove(xi);
        } else {
            xi += 1;
        }
    }
}

/// A copy to replace: its position in the block, its id, the result lanes
/// of the copied op it reads.
type CopyAt = (usize, OpId, SmallVec<[u8; 4]>);

/// Replaces the copies of the op at `ops[xi]` by clones of it; `true` if
/// done (the caller removes the op).
fn try_move(
    mir: &mut Mir,
    ops: &[OpId],
    xi: usize,
    defs: &[u32],
    readers: &mut [SmallVec<[OpId; 4]>],
) -> bool {
    let x = ops[xi];
    let xop = mir.op(x).clone();
    let Some((t, dl)) = xop.dest else {
        return false;
    };
    if !movable(&xop) || defs[t.0 as usize] != 1 || mir.vreg(t).fixed.is_some() {
        return false;
    }
    let copies = readers[t.0 as usize].clone();
    if copies.is_empty() {
        return false;
    }
    // Each copy: its position and the result lanes of `x` it reads.
    let mut plan: SmallVec<[CopyAt; 4]> = SmallVec::new();
    for &c in &copies {
        let Some(pos) = ops.iter().position(|&o| o == c) else {
            return false;
        };
        if pos <= xi {
            return false;
        }
        let cop = mir.op(c);
        let Some(lanes) = copied_lanes(cop, t) else {
            return false;
        };
        let mut result_lanes = SmallVec::new();
        for l in lanes {
            if l < dl || l >= dl + xop.width {
                return false;
            }
            result_lanes.push(l - dl);
        }
        let unit_ok = match cop.unit {
            Unit::Rgb => true,
            Unit::Alpha | Unit::Any => cop.width == 1,
            _ => false,
        };
        if !unit_ok {
            return false;
        }
        plan.push((pos, c, result_lanes));
    }
    // Nothing between `x` and a copy may write what `x` reads.
    let reads: SmallVec<[VReg; 6]> = xop.reads().collect();
    let last = plan.iter().map(|p| p.0).max().unwrap_or(xi);
    for (k, &o) in ops.iter().enumerate().take(last).skip(xi + 1) {
        if let Some((w, _)) = mir.op(o).dest
            && reads.contains(&w)
            && plan.iter().any(|p| p.0 > k)
        {
            return false;
        }
    }
    for (_, c, lanes) in plan {
        let cop = mir.op(c).clone();
        let mut clone = xop.clone();
        clone.dest = cop.dest;
        clone.special = cop.special;
        clone.unit = cop.unit;
        clone.width = cop.width;
        for a in clone.args.iter_mut() {
            let src = a.lanes;
            for (i, &l) in lanes.iter().enumerate() {
                a.lanes[i] = src[l as usize];
            }
        }
        *mir.op_mut(c) = clone;
        for v in &reads {
            let r = &mut readers[v.0 as usize];
            r.retain(|o| *o != x);
            if !r.contains(&c) {
                r.push(c);
            }
        }
    }
    readers[t.0 as usize].clear();
    true
}
