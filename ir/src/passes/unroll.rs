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
use crate::fasthash::FastMap;
use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;

/// Unrolls every eligible loop, innermost first. Returns `true` if any loop
/// was unrolled.
pub fn run(m: &mut Module, budget: usize) -> bool {
    region(m, m.root, budget, &mut FastMap::default())
}

/// Nodes of region `r`, nested regions included. Sizes are remembered in
/// `sizes` (a region is measured once its loops are done, so its size no
/// longer changes), which keeps a nest of d loops linear instead of
/// measuring every inner region again for each enclosing one (issue 13).
fn size(m: &Module, r: RegionId, sizes: &mut FastMap<RegionId, usize>) -> usize {
    if let Some(&s) = sizes.get(&r) {
        return s;
    }
    let mut s = 0;
    for n in m.nodes(r) {
        s += 1;
        for inner in m.node(n).op.regions() {
            s += size(m, inner, sizes);
        }
    }
    sizes.insert(r, s);
    s
}

fn region(
    m: &mut Module,
    r: RegionId,
    budget: usize,
    sizes: &mut FastMap<RegionId, usize>,
) -> bool {
    let mut changed = false;
    for n in m.nodes(r) {
        if !m.contains(n) {
            continue;
        }
        for inner in m.node(n).op.regions() {
            changed |= region(m, inner, budget, sizes);
        }
        if let Op::Theta(t) = m.node(n).op
            && let Some(trips) = t.info.exact_trips
            && trips >= 1
            && (trips as usize).saturating_mul(size(m, t.body, sizes)) <= budget
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
