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
//! - Predicated (`predicate.rs`, manual §4.9.4): both branches, a group
//!   for the `PRED_SET` (it delays both branches), a `MOV` per lane passed
//!   through from outside; the IR keeps a gamma that costs less so than
//!   with selects (two vector results computed in both branches: one
//!   `PRED_SET` instead of eight `CNDE_INT`s).

use ctm_ir::cost::CostModel;
use ctm_ir::graph::{Module, NodeId, RegionId};
use ctm_ir::op::{BinOp, Op, UnOp};

use super::predicate;

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

    /// Predication inside the clause (`predicate.rs`): both branches run,
    /// plus the `PRED_SET` (a group: it delays both branches), plus a `MOV` per lane a branch passes through
    /// from outside (a lane computed in the branch is written into the
    /// merge register directly); no selects, no CF instruction, no clause
    /// switch. `None` — the code generator would branch — where a branch
    /// holds what cannot be predicated (fetches, effects, flow control,
    /// `DOT4`, relative constant reads), where the branches do not fit one
    /// clause with their literals (more than [`predicate::MAX_OPS`]
    /// slots), and for a gamma inside another gamma's branch (keeping it
    /// would keep the outer one from if-conversion).
    fn predicated_cost(&self, m: &Module, g: NodeId, branches: [RegionId; 2]) -> Option<u32> {
        let owner = m.region(g.region).owner;
        if owner.is_some_and(|o| matches!(m.node(o).op, Op::Gamma(_))) {
            return None;
        }
        // The PRED_SET: a group on the path between the condition and both
        // branches (a select's CNDE comes after work that overlapped the
        // condition): tonemap's vec3 `if` costs 31 groups predicated, 29
        // with selects.
        let mut cost = 5;
        for &b in &branches {
            for n in m.nodes(b) {
                match m.node(n).op {
                    Op::Gather(_)
                    | Op::Input(_)
                    | Op::Scatter(_)
                    | Op::Gamma(_)
                    | Op::Theta(_)
                    | Op::Dot
                    | Op::UniformElement(_) => return None,
                    _ => cost += self.node_cost(m, n),
                }
            }
        }
        if cost > predicate::MAX_OPS as u32 {
            return None;
        }
        let node = m.node(g);
        for (k, ty) in node.outputs.iter().enumerate() {
            if m.users(m.output(g, k)).is_empty() {
                continue;
            }
            let lanes = ty.width().unwrap_or(1) as u32;
            let outside = |b: RegionId| {
                matches!(
                    m.node(m.result(b, k).node).op,
                    Op::Argument(_) | Op::Const(_)
                )
            };
            let same = m.result(branches[0], k) == m.result(branches[1], k)
                || matches!(
                    (
                        &m.node(m.result(branches[0], k).node).op,
                        &m.node(m.result(branches[1], k).node).op
                    ),
                    (Op::Argument(a), Op::Argument(b)) if a == b
                );
            if !same {
                cost += lanes * branches.iter().filter(|&&b| outside(b)).count() as u32;
            }
        }
        Some(cost)
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
