//! Outputs written inside the branches of an `if`, on the MIR after
//! [`super::copies`].
//!
//! Selection writes a value computed by a branch into one register in
//! both branches (the gamma's result) and copies it to its render target
//! after the `if` (`MAX(v, v)` with OMOD off). The X1K writes a render
//! target from any ALU instruction, the last write of a channel counting
//! (CTM §3.3.8), so each branch's op writing `v` can write the target
//! instead, and the copy goes: cbrt's second output.
//!
//! Only where it saves an instruction: the program's last instruction
//! must be an `OUT` (CTM §3.1: "The last instruction must be an OUTPUT
//! instruction (even if the output mask is zero)"), so a copy that is the
//! only output op after the `if` is removed only to come back as an
//! empty `OUT` (`hazards::final_out`). The block after the `if` must keep
//! another output op.
//!
//! Conditions: the copy is a one-lane bit-exact copy of a one-lane
//! register `v` that nothing else reads, in the block right after the
//! `if`; `v` is written exactly twice, once in a top-level block of each
//! branch, by plain ops (no presubtract, no special write) that can run
//! on the unit writing the target's channel (r, g, b: RGB; a: alpha;
//! CTM §3.3.8); nothing else in the program writes that target.

use super::mir::{AluKind, Mir, MirOp, Node, OpId, Special, Src, Unit};

/// Runs the rewrite over every `if` of `mir`.
pub fn run(mir: &mut Mir) {
    let live = mir.live_ops();
    let mut body = std::mem::take(&mut mir.body);
    walk(mir, &live, &mut body);
    mir.body = body;
}

fn walk(mir: &mut Mir, live: &[OpId], nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        match &mut nodes[i] {
            Node::If { then, else_, .. } => {
                walk(mir, live, then);
                walk(mir, live, else_);
            }
            Node::Loop { body, .. } => walk(mir, live, body),
            Node::Block(_) | Node::Break { .. } => {}
        }
        if i + 1 < nodes.len() {
            let (head, tail) = nodes.split_at_mut(i + 1);
            if let (Node::If { then, else_, .. }, Node::Block(after)) = (&head[i], &mut tail[0]) {
                rewrite(mir, live, then, else_, after);
            }
        }
    }
}

/// The output copies of `after` whose value both branches can write.
fn rewrite(mir: &mut Mir, live: &[OpId], then: &[Node], else_: &[Node], after: &mut Vec<OpId>) {
    let mut k = 0;
    while k < after.len() {
        let x = after[k];
        let others = after
            .iter()
            .any(|&o| o != x && matches!(mir.op(o).special, Special::Output(..)));
        if others && let Some((writers, target, first)) = branch_writers(mir, live, x, then, else_)
        {
            for w in writers {
                let o = mir.op_mut(w);
                o.dest = None;
                o.special = Special::Output(target, first);
                o.unit = if first < 3 { Unit::Rgb } else { Unit::Alpha };
            }
            after.remove(k);
        } else {
            k += 1;
        }
    }
}

/// The two ops (one per branch) that may write `x`'s output in its place,
/// and that output's target and first channel.
fn branch_writers(
    mir: &Mir,
    live: &[OpId],
    x: OpId,
    then: &[Node],
    else_: &[Node],
) -> Option<([OpId; 2], u8, u8)> {
    let op = mir.op(x);
    let Special::Output(target, first) = op.special else {
        return None;
    };
    let src = op.copy_source()?;
    let Src::Reg(v) = src.src else { return None };
    if op.dest.is_some() || op.width != 1 || mir.vreg(v).width != 1 || mir.vreg(v).fixed.is_some() {
        return None;
    }
    let (writers, readers) = mir.writers_and_readers(live, v);
    let same_target = live
        .iter()
        .filter(|&&o| matches!(mir.op(o).special, Special::Output(t, _) if t == target));
    if readers != 1 || writers.len() != 2 || same_target.count() != 1 {
        return None;
    }
    let in_top_block = |nodes: &[Node], w: OpId| {
        nodes
            .iter()
            .any(|n| matches!(n, Node::Block(ops) if ops.contains(&w)))
    };
    let (a, b) = (writers[0], writers[1]);
    let (t, e) = if in_top_block(then, a) && in_top_block(else_, b) {
        (a, b)
    } else if in_top_block(then, b) && in_top_block(else_, a) {
        (b, a)
    } else {
        return None;
    };
    let rgb = first < 3;
    let fits = |w: &MirOp| {
        w.alu.is_some_and(AluKind::on_both_units)
            && w.dest == Some((v, 0))
            && w.width == 1
            && w.special == Special::None
            && w.presub.is_none()
            && match w.unit {
                Unit::Any => true,
                Unit::Rgb => rgb,
                Unit::Alpha => !rgb,
                _ => false,
            }
    };
    (fits(mir.op(t)) && fits(mir.op(e))).then_some(([t, e], target, first))
}
