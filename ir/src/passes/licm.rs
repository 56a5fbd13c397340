//! Loop-invariant code motion: a node of a loop body whose inputs do not
//! change between iterations (constants, loop variables that never change,
//! other invariant nodes) is computed once before the loop and enters the
//! body as a new unchanging loop variable. Safe because a theta's body runs
//! at least once, and only simple, effect-free nodes move (reads included:
//! uniforms, inputs at the own position, gathers at invariant positions).
//! Nodes inside nested regions of the body stay where they are.

use crate::edit;
use crate::fasthash::FastMap;
use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::Op;

/// Hoists invariant code out of every loop. Returns `true` if anything
/// moved.
pub fn run(m: &mut Module) -> bool {
    region(m, m.root)
}

fn region(m: &mut Module, r: RegionId) -> bool {
    let mut changed = false;
    for n in m.nodes(r) {
        if !m.contains(n) {
            continue;
        }
        for inner in m.node(n).op.regions() {
            changed |= region(m, inner);
        }
        if matches!(m.node(n).op, Op::Theta(_)) {
            changed |= hoist(m, n);
        }
    }
    changed
}

fn hoist(m: &mut Module, theta: NodeId) -> bool {
    let Op::Theta(t) = m.node(theta).op else {
        return false;
    };
    let body = t.body;
    let inputs = m.inputs(theta);
    let Some(order) = m.topo_order(body) else {
        return false;
    };
    // Where each invariant body value is available outside the loop.
    let mut outside: FastMap<Value, Value> = FastMap::default();
    for k in 0..inputs.len() {
        if m.result(body, k + 1) == m.argument(body, k) {
            outside.insert(m.argument(body, k), inputs[k]);
        }
    }
    let mut moved = Vec::new();
    let mut copies = Vec::new();
    for n in order {
        let op = m.node(n).op.clone();
        if matches!(op, Op::Argument(_) | Op::Result(_)) || op.has_effect() || op.is_structured() {
            continue;
        }
        let ins = m.inputs(n);
        if !ins.iter().all(|v| outside.contains_key(v)) {
            continue;
        }
        let mapped: Vec<Value> = ins.iter().map(|v| outside[v]).collect();
        let outputs = m.node(n).outputs.clone();
        let copy = m.add_node(theta.region, op.clone(), &mapped, &outputs);
        copies.push(copy);
        outside.insert(m.output(n, 0), m.output(copy, 0));
        // Constants are cheaper rematerialised than carried; they stay too.
        if !matches!(op, Op::Const(_)) {
            moved.push(n);
        }
    }
    let changed = !moved.is_empty();
    for n in moved {
        let v = m.output(n, 0);
        if !m.has_users(n) {
            continue;
        }
        let arg = edit::add_invariant_theta_var(m, theta, outside[&v]);
        m.replace_uses(v, arg);
    }
    // Copies nobody needed (constants, or nodes whose users moved) go
    // again, latest first (a later copy may read an earlier one): left for DCE,
    // they made every round of the pipeline look like a change.
    for c in copies.into_iter().rev() {
        if !m.has_users(c) {
            m.remove_node(c);
        }
    }
    changed
}
