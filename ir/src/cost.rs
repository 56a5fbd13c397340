//! The cost model that decides if-conversion, implemented by each target.

use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;

/// A target's costs, in issue slots (or cycles) of its ALU.
pub trait CostModel {
    /// The cost of executing node `n` (its own instructions, not its
    /// regions').
    fn node_cost(&self, m: &Module, n: NodeId) -> u32;

    /// The cost of a branch: the flow-control instructions of an
    /// `if`/`else`, and divergence.
    fn branch_cost(&self) -> u32;

    /// The cost of one select of a value of the given lanes.
    fn select_cost(&self, lanes: u8) -> u32;

    /// The cost of gamma `g` run *predicated* — both branches in
    /// straight-line code, each operation enabled per element by a
    /// predicate, no flow control — where the target's code generator
    /// predicates it; `None` (the default) where it would not.
    /// If-conversion keeps a gamma that is cheaper predicated than
    /// converted to selects, for the target to predicate.
    fn predicated_cost(&self, _m: &Module, _g: NodeId, _branches: [RegionId; 2]) -> Option<u32> {
        None
    }

    /// The cost of running region `r` once: its nodes' costs, with nested
    /// gammas counted at their dearer branch and thetas at one iteration.
    fn region_cost(&self, m: &Module, r: RegionId) -> u32 {
        m.nodes(r)
            .into_iter()
            .map(|n| match m.node(n).op {
                Op::Gamma(g) => {
                    self.branch_cost()
                        + self
                            .region_cost(m, g.branches[0])
                            .max(self.region_cost(m, g.branches[1]))
                }
                Op::Theta(t) => self.region_cost(m, t.body),
                _ => self.node_cost(m, n),
            })
            .sum()
    }
}

/// A target-neutral model: one slot per simple operation, selects one slot
/// per value, a branch costs 6.
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultCost;

impl CostModel for DefaultCost {
    fn node_cost(&self, m: &Module, n: NodeId) -> u32 {
        match m.node(n).op {
            Op::Argument(_)
            | Op::Result(_)
            | Op::Const(_)
            | Op::Uniform(_)
            | Op::Swizzle(_)
            | Op::Splat(_) => 0,
            Op::Gather(_) | Op::Input(_) => 4,
            _ => 1,
        }
    }

    fn branch_cost(&self) -> u32 {
        6
    }

    fn select_cost(&self, _lanes: u8) -> u32 {
        1
    }
}
