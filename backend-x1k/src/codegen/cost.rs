//! The X1K cost model for if-conversion (`ctm_ir::cost::CostModel`), in
//! ALU issue slots of one half-instruction.
//!
//! - Simple float ops: 1 (a vec4 op takes both units of a slot: 2).
//! - Transcendentals: one lane per slot on the alpha unit only (CTM
//!   §3.3.4): 2 per lane (the lane blocks the alpha unit and usually a
//!   `SOP` or idle RGB half).
//! - Floor/ceil/trunc: 2–3 ops on `FRC`; round: 5; sin/cos: 3 per lane
//!   (reduction + `SIN`); division: `RCP` + MUL.
//! - Swizzles, splats, negation, `abs`, conversions: free (views and
//!   input modifiers).
//! - A branch: IF, ELSE, ENDIF (three flow-control slots), the ALU op
//!   that sets the ALU result, `ALU_WAIT` draining the ALU pipeline, and
//!   divergence (both paths run when a batch disagrees): 10.
//! - A select: one `CMP`/`CND` per unit used (1, 2 for vec4).

use ctm_ir::cost::CostModel;
use ctm_ir::graph::{Module, NodeId};
use ctm_ir::op::{BinOp, Op, UnOp};

/// The X1K's costs.
#[derive(Clone, Copy, Debug, Default)]
pub struct X1kCost;

impl CostModel for X1kCost {
    fn node_cost(&self, m: &Module, n: NodeId) -> u32 {
        let node = m.node(n);
        let lanes = node.outputs.first().and_then(|t| t.width()).unwrap_or(1) as u32;
        let units = if lanes == 4 { 2 } else { 1 };
        match &node.op {
            Op::Argument(_)
            | Op::Result(_)
            | Op::Const(_)
            | Op::Uniform(_)
            | Op::UniformElement(_)
            | Op::Swizzle(_)
            | Op::Splat(_)
            | Op::Index
            | Op::Domain
            | Op::Compare(_) => 0,
            Op::Unary(
                UnOp::FNeg
                | UnOp::FAbs
                | UnOp::INeg
                | UnOp::IAbs
                | UnOp::I2F
                | UnOp::B2I
                | UnOp::BNot,
            ) => 0,
            Op::Unary(UnOp::FFloor | UnOp::FCeil) => 2 * units,
            Op::Unary(UnOp::FTrunc | UnOp::F2I) => 3 * units,
            Op::Unary(UnOp::FRound) => 5 * units,
            Op::Unary(UnOp::FSin | UnOp::FCos) => 3 * lanes,
            Op::Unary(UnOp::FSqrt) => 4 * lanes,
            Op::Unary(UnOp::FRsqrt | UnOp::FRcp | UnOp::FExp2 | UnOp::FLog2) => 2 * lanes,
            Op::Binary(BinOp::FDiv) => 2 * lanes + units,
            Op::Gather(_) | Op::Input(_) => 4,
            Op::Construct => units,
            _ => units,
        }
    }

    fn branch_cost(&self) -> u32 {
        10
    }

    fn select_cost(&self, lanes: u8) -> u32 {
        if lanes == 4 { 2 } else { 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_cost_more_than_a_few_selects() {
        assert!(X1kCost.branch_cost() > 4 * X1kCost.select_cost(4));
        assert_eq!(X1kCost.select_cost(1), 1);
    }
}
