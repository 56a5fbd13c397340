//! Dead-code elimination.
//!
//! Removes nodes whose outputs are unused (except region results, which
//! are the interface, and scatters, whose state always reaches the root);
//! removes gamma outputs nobody uses and gamma entries neither branch reads;
//! forwards gamma outputs that both branches pass through unchanged from
//! the same entry, and theta outputs whose loop variable never changes;
//! merges duplicate gamma entries; and removes theta loop variables that
//! are dead (their output unused and their value needed by no live
//! computation of the body, found as a fixpoint). Works bottom-up, so a
//! region's simplification can free its parent's values.
//!
//! Assumes a valid module; keeps it valid.

use crate::edit;
use crate::fasthash::FastSet;
use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::Op;

/// Runs dead-code elimination over the whole module. Returns `true` if
/// anything changed.
pub fn run(m: &mut Module) -> bool {
    region(m, m.root)
}

fn region(m: &mut Module, r: RegionId) -> bool {
    let mut changed = false;
    for n in m.nodes(r) {
        if !m.contains(n) {
            continue;
        }
        changed |= match m.node(n).op {
            Op::Gamma(_) => gamma(m, n),
            Op::Theta(_) => theta(m, n),
            _ => false,
        };
    }
    changed | sweep(m, r)
}

/// Removes nodes with unused outputs, repeatedly.
fn sweep(m: &mut Module, r: RegionId) -> bool {
    let mut changed = false;
    let mut work: Vec<NodeId> = m.nodes(r);
    while let Some(n) = work.pop() {
        if !m.contains(n) || m.has_users(n) {
            continue;
        }
        if matches!(
            m.node(n).op,
            Op::Argument(_) | Op::Result(_) | Op::Scatter(_)
        ) {
            continue;
        }
        let inputs = m.inputs(n);
        m.remove_node(n);
        changed = true;
        work.extend(inputs.iter().map(|v| v.node));
    }
    changed
}

fn gamma(m: &mut Module, g: NodeId) -> bool {
    let Op::Gamma(gm) = m.node(g).op else {
        return false;
    };
    let mut changed = false;
    // Outputs passed through unchanged from the same entry in both branches.
    let inputs = m.inputs(g);
    for k in 0..m.node(g).outputs.len() {
        let out = m.output(g, k);
        if m.users(out).is_empty() {
            continue;
        }
        let from = |b: RegionId| match m.node(m.result(b, k).node).op {
            Op::Argument(j) => Some(j as usize),
            _ => None,
        };
        if let (Some(a), Some(b)) = (from(gm.branches[0]), from(gm.branches[1]))
            && a == b
        {
            m.replace_uses(out, inputs[a + 1]);
            changed = true;
        }
    }
    // Unused outputs.
    for k in (0..m.node(g).outputs.len()).rev() {
        if m.users(m.output(g, k)).is_empty() {
            edit::remove_gamma_output(m, g, k);
            changed = true;
        }
    }
    for b in gm.branches {
        changed |= region(m, b);
    }
    // Duplicate entries: use the first argument for both.
    let inputs = m.inputs(g);
    for k in 1..inputs.len() {
        if let Some(j) = (1..k).find(|&j| inputs[j] == inputs[k]) {
            for b in gm.branches {
                let (aj, ak) = (m.argument(b, j - 1), m.argument(b, k - 1));
                if !m.users(ak).is_empty() {
                    m.replace_uses(ak, aj);
                    changed = true;
                }
            }
        }
    }
    // Entries neither branch reads.
    for k in (0..inputs.len() - 1).rev() {
        let unused = gm
            .branches
            .iter()
            .all(|&b| m.users(m.argument(b, k)).is_empty());
        if unused {
            edit::remove_gamma_entry(m, g, k);
            changed = true;
        }
    }
    changed
}

fn theta(m: &mut Module, t: NodeId) -> bool {
    let Op::Theta(th) = m.node(t).op else {
        return false;
    };
    let body = th.body;
    let mut changed = false;
    let n = m.node(t).outputs.len();
    let inputs = m.inputs(t);
    // Loop variables that never change: the output is the input.
    for k in 0..n {
        let out = m.output(t, k);
        if m.result(body, k + 1) == m.argument(body, k) && !m.users(out).is_empty() {
            m.replace_uses(out, inputs[k]);
            changed = true;
        }
    }
    // Liveness of loop variables, as a fixpoint.
    let mut live: Vec<bool> = (0..n)
        .map(|k| !m.users(m.output(t, k)).is_empty())
        .collect();
    loop {
        let mut roots = vec![m.result(body, 0)];
        roots.extend((0..n).filter(|&k| live[k]).map(|k| m.result(body, k + 1)));
        let used_args = reached_arguments(m, &roots);
        let mut grew = false;
        for k in used_args {
            if !live[k] {
                live[k] = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let dead: Vec<usize> = (0..n).filter(|&k| !live[k]).collect();
    // Make dead results pass their argument through, so what fed them dies.
    for &k in &dead {
        let res = NodeId {
            region: body,
            index: m.region(body).results[k + 1],
        };
        let arg = m.argument(body, k);
        if m.inputs(res)[0] != arg {
            m.set_input(res, 0, arg);
            changed = true;
        }
    }
    changed |= region(m, body);
    for &k in dead.iter().rev() {
        let arg = m.argument(body, k);
        if m.users(arg).len() <= 1 {
            edit::remove_theta_var(m, t, k);
            changed = true;
        }
    }
    changed
}

/// Indices of the arguments the values `roots` depend on (within their
/// region, looking through nested regions' inputs).
fn reached_arguments(m: &Module, roots: &[Value]) -> Vec<usize> {
    let mut seen: FastSet<NodeId> = FastSet::default();
    let mut work: Vec<NodeId> = roots.iter().map(|v| v.node).collect();
    let mut args = Vec::new();
    while let Some(n) = work.pop() {
        if !seen.insert(n) {
            continue;
        }
        if let Op::Argument(i) = m.node(n).op {
            args.push(i as usize);
        }
        work.extend(m.inputs(n).iter().map(|v| v.node));
    }
    args
}
