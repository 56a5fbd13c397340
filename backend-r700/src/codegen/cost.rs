//! The R700 cost model for if-conversion (`ctm_ir::cost::CostModel`), in
//! ALU slots of a five-wide group.
//!
//! - Simple float and integer ops: one slot per lane (a vec4 op fills
//!   four of the five units of one group).
//! - Transcendentals (RECIP, RECIPSQRT, SQRT, EXP, LOG, SIN, COS, the
//!   integer multiply and conversions) run only on the Trans unit, one
//!   per group (Table 4.6): they cost a group each — 5 slots per lane.
//!   sin/cos add the three-op range reduction.
//! - floor/ceil/trunc/fract: one op; round: five; division: RECIP + MUL;
//!   integer division: about 35 ops.
//! - Swizzles, splats, negation and `abs` are free (source selects and
//!   modifiers).
//! - A branch: `ALU_PUSH_BEFORE` + JUMP + ELSE + POP and the clause
//!   switches around them (each CF instruction and each new ALU clause
//!   costs the wavefront a CF-issue round trip, manual §3.1), plus
//!   divergence: 40 slots.
//! - A select: one `CNDE_INT` per lane.

use ctm_ir::cost::CostModel;
use ctm_ir::graph::{Module, NodeId};
use ctm_ir::op::{BinOp, Op, UnOp};

/// The R700's costs.
#[derive(Clone, Copy, Debug, Default)]
pub struct R700Cost;

impl CostModel for R700Cost {
    fn node_cost(&self, m: &Module, n: NodeId) -> u32 {
        let node = m.node(n);
        let lanes = node.outputs.first().and_then(|t| t.width()).unwrap_or(1) as u32;
        match &node.op {
            Op::Argument(_)
            | Op::Result(_)
            | Op::Const(_)
            | Op::Uniform(_)
            | Op::Swizzle(_)
            | Op::Splat(_)
            | Op::Index
            | Op::Domain
            | Op::Construct => 0,
            Op::UniformElement(_) => lanes,
            Op::Unary(UnOp::FNeg | UnOp::FAbs) => 0,
            Op::Unary(UnOp::FRound) => 5 * lanes,
            Op::Unary(UnOp::FSin | UnOp::FCos) => 8 * lanes,
            Op::Unary(
                UnOp::FSqrt | UnOp::FRsqrt | UnOp::FRcp | UnOp::FExp2 | UnOp::FLog2 | UnOp::I2F,
            ) => 5 * lanes,
            Op::Unary(UnOp::F2I) => 11,
            Op::Binary(BinOp::FDiv) => 6 * lanes,
            Op::Binary(BinOp::IMul) => 5,
            Op::Binary(BinOp::IDiv | BinOp::IRem) => 35,
            Op::Dot => 5,
            Op::Gather(_) | Op::Input(_) => 8,
            Op::Scatter(_) => 20,
            _ => lanes,
        }
    }

    fn branch_cost(&self) -> u32 {
        40
    }

    fn select_cost(&self, lanes: u8) -> u32 {
        u32::from(lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_costs_more_than_selecting_a_vec4_several_times() {
        assert!(R700Cost.branch_cost() > 8 * R700Cost.select_cost(4));
        assert_eq!(R700Cost.select_cost(3), 3);
    }
}
