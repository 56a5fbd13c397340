//! Constant folding and structural folding.
//!
//! - A simple operation whose inputs are all constants becomes a constant,
//!   computed with the language's numerics ([`crate::interp::fold`]), so
//!   folding never changes a result.
//! - A gamma with a constant predicate becomes the branch it takes; a gamma
//!   output that is the same constant in both branches becomes it.
//! - A theta whose continue predicate is the constant `false` runs once and
//!   becomes its body.
//! - Constants entering a region (gamma entries, loop variables that never
//!   change) are rematerialised inside it, so folding continues there; so
//!   is `false` for loop flags that start `false` and end the loop when set
//!   (`break` flags), since every iteration that runs starts with them
//!   clear.

use crate::edit;
use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;
use ctm_frontend::value::Value as Constant;
use smallvec::SmallVec;

/// Runs folding over the whole module. Returns `true` if anything changed.
pub fn run(m: &mut Module) -> bool {
    region(m, m.root)
}

fn constant(m: &Module, v: crate::graph::Value) -> Option<Constant> {
    match &m.node(v.node).op {
        Op::Const(c) => Some(*c),
        _ => None,
    }
}

fn region(m: &mut Module, r: RegionId) -> bool {
    let mut changed = false;
    let Some(order) = m.topo_order(r) else {
        return false;
    };
    for n in order {
        if !m.contains(n) {
            continue;
        }
        let op = m.node(n).op.clone();
        match op {
            Op::Gamma(g) => {
                let inputs = m.inputs(n);
                if let Some(Constant::Bool(p)) = constant(m, inputs[0]) {
                    let branch = if p { g.branches[0] } else { g.branches[1] };
                    edit::inline_structured(m, n, branch, &inputs[1..], 0);
                    changed = true;
                    continue;
                }
                for (k, v) in inputs.iter().enumerate().skip(1) {
                    if let Some(c) = constant(m, *v) {
                        for b in g.branches {
                            changed |= rematerialise(m, b, k - 1, c);
                        }
                    }
                }
                for b in g.branches {
                    changed |= region(m, b);
                }
                changed |= constant_outputs(m, n, g.branches);
            }
            Op::Theta(t) => {
                let inputs = m.inputs(n);
                for (k, v) in inputs.iter().enumerate() {
                    if let Some(c) = constant(m, *v)
                        && m.result(t.body, k + 1) == m.argument(t.body, k)
                    {
                        changed |= rematerialise(m, t.body, k, c);
                    }
                }
                changed |= stopping_flags(m, n, t.body);
                changed |= region(m, t.body);
                if let Some(Constant::Bool(false)) = constant(m, m.result(t.body, 0)) {
                    edit::inline_structured(m, n, t.body, &inputs, 1);
                    changed = true;
                }
            }
            op => {
                let inputs = m.inputs(n);
                if inputs.is_empty() {
                    continue;
                }
                let consts: Option<SmallVec<[Constant; 4]>> =
                    inputs.iter().map(|v| constant(m, *v)).collect();
                if let Some(consts) = consts
                    && let Some(value) = crate::interp::fold(&op, &consts)
                    && value != Constant::Unit
                {
                    replace_with_constant(m, n, value);
                    changed = true;
                }
            }
        }
    }
    changed
}

/// `true` if `pred` is `!x` or `y && !x` (either order).
fn implies_not(m: &Module, pred: crate::graph::Value, x: crate::graph::Value) -> bool {
    let is_not_x = |v: crate::graph::Value| {
        m.node(v.node).op == Op::Unary(crate::op::UnOp::BNot) && m.inputs(v.node)[0] == x
    };
    if is_not_x(pred) {
        return true;
    }
    m.node(pred.node).op == Op::Binary(crate::op::BinOp::BAnd)
        && m.inputs(pred.node).iter().any(|v| is_not_x(*v))
}

/// A loop flag that starts `false` and whose next value being `true` ends
/// the loop (the continue predicate implies its negation) is `false` at the
/// start of every iteration that runs: its argument becomes the constant.
fn stopping_flags(m: &mut Module, theta: NodeId, body: RegionId) -> bool {
    let inputs = m.inputs(theta);
    let pred = m.result(body, 0);
    let mut changed = false;
    for (k, init) in inputs.iter().enumerate() {
        if constant(m, *init) != Some(Constant::Bool(false)) {
            continue;
        }
        let next = m.result(body, k + 1);
        if next != m.argument(body, k) && implies_not(m, pred, next) {
            changed |= rematerialise(m, body, k, Constant::Bool(false));
        }
    }
    changed
}

/// The constant that result `k` of branch `b` always gives, if any: a
/// constant node, or an argument whose entry is a constant.
fn branch_constant(m: &Module, g: NodeId, b: RegionId, k: usize) -> Option<Constant> {
    let v = m.result(b, k);
    match m.node(v.node).op {
        Op::Const(c) => Some(c),
        Op::Argument(j) => constant(m, m.inputs(g)[j as usize + 1]),
        _ => None,
    }
}

/// Gamma outputs that are the same constant in both branches become that
/// constant.
fn constant_outputs(m: &mut Module, g: NodeId, branches: [RegionId; 2]) -> bool {
    let mut changed = false;
    for k in 0..m.node(g).outputs.len() {
        let out = m.output(g, k);
        if m.users(out).is_empty() {
            continue;
        }
        let (a, b) = (
            branch_constant(m, g, branches[0], k),
            branch_constant(m, g, branches[1], k),
        );
        if let (Some(a), Some(b)) = (a, b)
            && a.bit_eq(&b)
        {
            let c = m.op(g.region, Op::Const(a), &[]);
            m.replace_uses(out, c);
            changed = true;
        }
    }
    changed
}

/// Replaces node `n` by a constant node with `value`.
fn replace_with_constant(m: &mut Module, n: NodeId, value: Constant) {
    let c = m.op(n.region, Op::Const(value), &[]);
    m.replace_uses(m.output(n, 0), c);
    m.remove_node(n);
}

/// Replaces uses of argument `k` of `r` by a constant inside `r`.
fn rematerialise(m: &mut Module, r: RegionId, k: usize, c: Constant) -> bool {
    let arg = m.argument(r, k);
    let users = m.users(arg);
    // Keep the argument where it only feeds a result (a pass-through).
    if users
        .iter()
        .all(|(u, _)| matches!(m.node(*u).op, Op::Result(_)))
    {
        return false;
    }
    let v = m.op(r, Op::Const(c), &[]);
    for (u, port) in users {
        if !matches!(m.node(u).op, Op::Result(_)) {
            m.set_input(u, port, v);
        }
    }
    true
}
