//! Effects: whether a region, or any region nested in it, holds a node
//! with a side effect. The IR's only effect is a scatter (crate docs,
//! "Semantics"); output streams are values, not effects.

use crate::graph::{Module, RegionId};
use crate::op::Op;

/// Whether `region` (or a region nested in it) has effects: scatters.
pub fn has_effects(m: &Module, region: RegionId) -> bool {
    let mut regions = vec![region];
    while let Some(r) = regions.pop() {
        for n in m.nodes(r) {
            match &m.node(n).op {
                Op::Scatter(_) => return true,
                Op::Gamma(g) => regions.extend(g.branches),
                Op::Theta(t) => regions.push(t.body),
                _ => {}
            }
        }
    }
    false
}
