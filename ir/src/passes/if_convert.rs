//! If-conversion: a gamma whose branches are cheap and free of effects
//! that cannot be predicated becomes straight-line code and selects.
//!
//! Both branches are copied into the gamma's region (run on its entries)
//! and each output becomes `select(predicate, then, else)` (or the shared
//! value when both branches give the same one). Eligible gammas have no
//! scatter, loop or unconverted gamma inside. The target's [`CostModel`]
//! decides: convert when `then + else + selects <= branch + max(then,
//! else)`, unless the target predicates the gamma for less than both
//! (`CostModel::predicated_cost`; the R700 runs small branches under a
//! per-instruction predicate), which keeps it. Each decision is recorded
//! as a note on the node, printed by `--emit ir`. Innermost gammas are
//! considered first.

use crate::cost::CostModel;
use crate::edit;
use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;

/// Converts every eligible gamma. Returns `true` if any was converted.
pub fn run(m: &mut Module, cost: &dyn CostModel) -> bool {
    region(m, m.root, cost)
}

fn region(m: &mut Module, r: RegionId, cost: &dyn CostModel) -> bool {
    let mut changed = false;
    for n in m.nodes(r) {
        if !m.contains(n) {
            continue;
        }
        for inner in m.node(n).op.regions() {
            changed |= region(m, inner, cost);
        }
        if let Op::Gamma(g) = m.node(n).op {
            changed |= consider(m, n, g.branches, cost);
        }
    }
    changed
}

fn convertible(m: &Module, r: RegionId) -> bool {
    m.nodes(r)
        .iter()
        .all(|&n| !matches!(m.node(n).op, Op::Scatter(_) | Op::Gamma(_) | Op::Theta(_)))
}

fn consider(m: &mut Module, g: NodeId, branches: [RegionId; 2], cost: &dyn CostModel) -> bool {
    if !branches.iter().all(|&b| convertible(m, b)) {
        m.notes
            .insert(g, "kept: a branch has effects or control flow".into());
        return false;
    }
    let (t, e) = (
        cost.region_cost(m, branches[0]),
        cost.region_cost(m, branches[1]),
    );
    // Outputs both branches pass through from the same entry need no select.
    let passthrough = |k: usize| {
        let arg = |b: RegionId| match m.node(m.result(b, k).node).op {
            Op::Argument(j) => Some(j),
            _ => None,
        };
        arg(branches[0]).is_some() && arg(branches[0]) == arg(branches[1])
    };
    let selects: u32 = m
        .node(g)
        .outputs
        .iter()
        .enumerate()
        .filter(|(k, _)| !passthrough(*k))
        .map(|(_, ty)| cost.select_cost(ty.width().unwrap_or(1)))
        .sum();
    let flat = t + e + selects;
    let branchy = cost.branch_cost() + t.max(e);
    if let Some(p) = cost.predicated_cost(m, g, branches)
        && p < flat.min(branchy)
    {
        m.notes.insert(
            g,
            format!("kept for predication: costs {p} < if-conversion {flat}, branch {branchy}"),
        );
        return false;
    }
    if flat > branchy {
        m.notes.insert(
            g,
            format!("kept: if-conversion costs {flat} > branch {branchy}"),
        );
        return false;
    }
    let inputs = m.inputs(g);
    let then = edit::copy_region_into(m, branches[0], g.region, &inputs[1..]);
    let other = edit::copy_region_into(m, branches[1], g.region, &inputs[1..]);
    for (k, (a, b)) in then.iter().zip(&other).enumerate() {
        let v = if a == b {
            *a
        } else {
            let s = m.op(g.region, Op::Select, &[inputs[0], *a, *b]);
            m.notes
                .insert(s.node, format!("if-converted: {flat} <= branch {branchy}"));
            s
        };
        m.replace_uses(m.output(g, k), v);
    }
    m.remove_node(g);
    true
}
