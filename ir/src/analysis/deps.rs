//! Dependencies: the nodes of one region that a value is computed from,
//! following input edges inside that region only (a value from an outer
//! region enters as an argument, which is itself a node of the region).

use crate::fasthash::FastSet;
use crate::graph::{Module, NodeId, RegionId, Value};

/// The nodes of `region` that `v` depends on (`v`'s node included when it
/// lies in `region`), in the region's topological order (empty if the
/// region is not acyclic, which a verified module never is).
pub fn dependencies(m: &Module, region: RegionId, v: Value) -> Vec<NodeId> {
    let mut seen = FastSet::default();
    let mut work = vec![v.node];
    while let Some(n) = work.pop() {
        if n.region != region || !seen.insert(n) {
            continue;
        }
        work.extend(m.inputs(n).iter().map(|i| i.node));
    }
    m.topo_order(region)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| seen.contains(n))
        .collect()
}
