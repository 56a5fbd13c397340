//! Full unrolling of loops with a known trip count.
//!
//! A theta that runs exactly N times (no early exit; [`LoopInfo`]) and
//! whose body has B nodes is replaced by N copies of its body in sequence
//! when N × B fits the unroll budget: copy i's arguments are copy i-1's
//! next values, and the theta's outputs are the last copy's. Constant loop
//! counters then fold, so uniform-array indices such as `w[dy * 3 + dx]`
//! become constants.
//!
//! [`LoopInfo`]: crate::op::LoopInfo

use crate::edit;
use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;

/// Unrolls every eligible loop, innermost first. Returns `true` if any loop
/// was unrolled.
pub fn run(m: &mut Module, budget: usize) -> bool {
    region(m, m.root, budget)
}

/// Nodes of region `r`, nested regions included.
fn size(m: &Module, r: RegionId) -> usize {
    m.nodes(r)
        .iter()
        .map(|&n| {
            1 + m
                .node(n)
                .op
                .regions()
                .iter()
                .map(|&inner| size(m, inner))
                .sum::<usize>()
        })
        .sum()
}

fn region(m: &mut Module, r: RegionId, budget: usize) -> bool {
    let mut changed = false;
    for n in m.nodes(r) {
        if !m.contains(n) {
            continue;
        }
        for inner in m.node(n).op.regions() {
            changed |= region(m, inner, budget);
        }
        if let Op::Theta(t) = m.node(n).op
            && let Some(trips) = t.info.exact_trips
            && trips >= 1
            && (trips as usize).saturating_mul(size(m, t.body)) <= budget
        {
            unroll(m, n, t.body, trips);
            changed = true;
        }
    }
    changed
}

fn unroll(m: &mut Module, theta: NodeId, body: RegionId, trips: u32) {
    let mut values: Vec<_> = m.inputs(theta).to_vec();
    for _ in 0..trips {
        let results = edit::copy_region_into(m, body, theta.region, &values);
        values = results[1..].to_vec();
    }
    for (k, v) in values.iter().enumerate() {
        m.replace_uses(m.output(theta, k), *v);
    }
    m.remove_node(theta);
}
