//! Constant folding and structural folding.
//!
//! - A simple operation whose inputs are all constants becomes a constant,
//!   computed with the language's numerics ([`crate::interp::fold`]), so
//!   folding never changes a result.
//! - A gamma with a constant predicate becomes the branch it takes.
//! - A theta whose continue predicate is the constant `false` runs once and
//!   becomes its body.
//! - Constants entering a region (gamma entries, loop variables that never
//!   change) are rematerialised inside it, so folding continues there.

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
