//! Local value numbering on the MIR, between selection and scheduling: an
//! ALU op that computes what an earlier op of the same block already
//! computed (the same operation on the same operand views) is removed, and
//! its readers read the earlier result.
//!
//! Selection makes some equal values visible that the IR does not: `abs`
//! and `neg` are input modifiers (CTM §3.3.3), so `abs(-x)` and `abs(x)`
//! select the same operand, and a product's operand signs can be pulled
//! out: `(−a)·b + 0` is `−(a·b + 0)`, a read of the earlier product with
//! the NEG modifier (rounding is symmetric in sign). Black-Scholes'
//! `cnd(d)` and `cnd(−d)` share their polynomial and exponential this way.
//!
//! Only plain ops take part (no fetch, output, predicate or ALU-result
//! write), each the only writer of its whole destination register; the
//! earlier op's operands must not be redefined in between. A negated
//! reuse is made only where every reader can take an input modifier (an
//! ALU operand; not a presubtract source or texture coordinate). Signed
//! zero may then differ from the op it replaces (`docs/backend-x1k.md`
//! §3: "the sign of zero may differ").

use super::mir::{AluKind, Lane, Mir, MirOp, Node, OpId, Operand, Special, Src, VReg};
use crate::isa::InputModifier;

/// Runs value numbering over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let mut defs = vec![0u32; mir.vregs.len()];
    for op in &mir.ops {
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
    }
    // repl[v] = (w, negated): reads of v read w (negated).
    let mut repl: Vec<Option<(VReg, bool)>> = vec![None; mir.vregs.len()];
    let mut body = std::mem::take(&mut mir.body);
    let mut changed = false;
    walk(mir, &mut body, &defs, &mut repl, &mut changed);
    mir.body = body;
    if changed {
        for op in &mut mir.ops {
            rename(op, &repl);
        }
    }
}

fn walk(
    mir: &mut Mir,
    nodes: &mut [Node],
    defs: &[u32],
    repl: &mut Vec<Option<(VReg, bool)>>,
    changed: &mut bool,
) {
    for n in nodes {
        match n {
            Node::Block(ops) => block(mir, ops, defs, repl, changed),
            Node::If { then, else_, .. } => {
                walk(mir, then, defs, repl, changed);
                walk(mir, else_, defs, repl, changed);
            }
            Node::Loop { body, .. } => walk(mir, body, defs, repl, changed),
            Node::Break { .. } => {}
        }
    }
}

/// The canonical form of an op for comparison: its operands with the
/// signs of a product's factors pulled out, and the sign pulled out.
fn canonical(op: &MirOp) -> (MirOp, bool) {
    let mut c = op.clone();
    let mut neg = false;
    if c.alu == Some(AluKind::Mad) && c.presub.is_none() && c.args.len() == 3 && zero(&c.args[2]) {
        for a in c.args.iter_mut().take(2) {
            let (m, flipped) = strip(a.modifier);
            a.modifier = m;
            neg ^= flipped;
        }
        c.args[2].modifier = InputModifier::None;
    }
    (c, neg)
}

/// Whether every lane of `o` the op could read is the constant 0.
fn zero(o: &Operand) -> bool {
    o.src == Src::None && o.lanes.iter().all(|l| *l == Lane::Zero)
}

/// A modifier without its negation, and whether it had one.
fn strip(m: InputModifier) -> (InputModifier, bool) {
    match m {
        InputModifier::None => (InputModifier::None, false),
        InputModifier::Neg => (InputModifier::None, true),
        InputModifier::Abs => (InputModifier::Abs, false),
        InputModifier::NegAbs => (InputModifier::Abs, true),
    }
}

/// `m` applied to a negated value.
fn flip(m: InputModifier) -> InputModifier {
    match m {
        InputModifier::None => InputModifier::Neg,
        InputModifier::Neg => InputModifier::None,
        // |−x| = |x|.
        a => a,
    }
}

/// Applies the replacements to the operands of `op`.
fn rename(op: &mut MirOp, repl: &[Option<(VReg, bool)>]) {
    let fix = |o: &mut Operand| {
        if let Src::Reg(v) = o.src
            && let Some((w, neg)) = repl[v.0 as usize]
        {
            o.src = Src::Reg(w);
            if neg {
                o.modifier = flip(o.modifier);
            }
        }
    };
    for a in op.args.iter_mut() {
        fix(a);
    }
    if let Some((_, a, b)) = &mut op.presub {
        fix(a);
        fix(b);
    }
}

/// Whether `op` may be numbered: a plain ALU op, the only writer of all
/// of its destination.
fn candidate(mir: &Mir, op: &MirOp, defs: &[u32]) -> Option<VReg> {
    let (v, lane) = op.dest?;
    let info = mir.vreg(v);
    let ok = op.alu.is_some()
        && op.tex.is_none()
        && op.special == Special::None
        && lane == 0
        && op.width == info.width
        && info.fixed.is_none()
        && defs[v.0 as usize] == 1;
    ok.then_some(v)
}

/// Whether every reader of `v` takes it as an ALU operand (which has an
/// input modifier).
fn negatable_reads(mir: &Mir, v: VReg) -> bool {
    mir.ops.iter().all(|op| {
        let in_presub = op
            .presub
            .as_ref()
            .is_some_and(|(_, a, b)| a.vreg() == Some(v) || b.vreg() == Some(v));
        let reads = op.args.iter().any(|a| a.vreg() == Some(v));
        !(in_presub || (reads && op.alu.is_none()))
    })
}

fn block(
    mir: &mut Mir,
    ops: &mut Vec<OpId>,
    defs: &[u32],
    repl: &mut [Option<(VReg, bool)>],
    changed: &mut bool,
) {
    // Earlier ops still valid: (canonical form, its sign, its register).
    let mut seen: Vec<(MirOp, bool, VReg)> = Vec::new();
    let mut keep = Vec::with_capacity(ops.len());
    for &id in ops.iter() {
        rename(mir.op_mut(id), repl);
        let op = mir.op(id);
        let cand = candidate(mir, op, defs);
        let mut removed = false;
        if let Some(v) = cand {
            let (c, neg) = canonical(op);
            let same = seen.iter().find(|(s, _, w)| {
                mir.vreg(*w).class == mir.vreg(v).class
                    && s.alu == c.alu
                    && s.unit == c.unit
                    && s.width == c.width
                    && s.args == c.args
                    && s.presub == c.presub
                    && s.omod_off == c.omod_off
                    && s.clamp == c.clamp
            });
            if let Some(&(_, sneg, w)) = same {
                let negated = sneg != neg;
                if !negated || negatable_reads(mir, v) {
                    repl[v.0 as usize] = Some((w, negated));
                    removed = true;
                    *changed = true;
                }
            }
        }
        if removed {
            continue;
        }
        // A redefined register invalidates the entries reading it.
        if let Some((d, _)) = mir.op(id).dest {
            seen.retain(|(s, _, w)| *w != d && !s.reads().any(|r| r == d));
        }
        if let Some(v) = cand {
            let (c, neg) = canonical(mir.op(id));
            seen.push((c, neg, v));
        }
        keep.push(id);
    }
    *ops = keep;
}
