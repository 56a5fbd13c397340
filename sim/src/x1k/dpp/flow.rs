//! Flow-control instructions over a group (CTM §3.5).
//!
//! Each FC instruction is a conditional jump taken by the whole group. In
//! order:
//!
//! 1. `B_ELSE` (CTM §3.5.3): processors whose branch counter is 0 are
//!    activated; the executing processors are deactivated with counter 0,
//!    and count as wanting to jump.
//! 2. Each executing processor (active, not disabled by a loop frame;
//!    without the killed ones if `IGNORE_UNCOVERED`) evaluates `JUMP_FUNC`
//!    over (ALU result, predicate, boolean).
//! 3. The group decides: all voters want to (`JUMP_ANY` = 0; true when no
//!    one votes) or any voter wants to (`JUMP_ANY` = 1; false when no one
//!    votes). Loop special cases (CTM §3.5.3): LOOP/REP with a zero count
//!    jump; ENDLOOP/ENDREP whose count is used up do not; BREAK and
//!    CONTINUE are inhibited by processors deactivated by a branch (any
//!    branch-inactive processor), and BREAK also by processors of the
//!    current loop disabled by CONTINUE.
//! 4. On a jump: the address-stack op, `B_OP1` (processors that wanted to
//!    stay "disagree"), and the loop op's jump effect (ENDLOOP steps aL,
//!    BREAK pops the frame). On a stay: `B_OP0` (processors that wanted to
//!    jump disagree) and the loop op's stay effect (LOOP/REP push, ENDLOOP/
//!    ENDREP pop, BREAK/CONTINUE disable the processors that wanted to jump
//!    until the loop or the iteration ends).
//! 5. The ALU result is consumed (CTM §3.3.10).
//!
//! `INCR` increments the counters of inactive processors, then deactivates
//! the disagreeing executing ones with counter 0; `DECR` subtracts
//! `B_POP_CNT` from inactive processors' counters and activates those that
//! go negative (CTM §3.5.3). Stack sizes and the counter limit depend on
//! the flow-control mode (CTM §3.5.2); partial mode has no loop or address
//! stack.

use ctm_backend_x1k::isa::{AddrStackOp, BranchOp, FcInst, FcOp};

use super::fault::{AluDependency, FaultKind, LoopFrameKind, StackKind};
use super::state::{Group, LaneMask, LoopFrame};

/// Integer and boolean constants, read once per run.
pub(crate) struct FcConstants {
    /// `US_FC_INT_CONST` packing: count 7:0, init 15:8, step 23:16.
    pub ints: [u32; 32],
    /// Bit N = boolean N.
    pub bools: u32,
}

/// Processors wanting to jump for `JUMP_FUNC` (bit `alu<<2 | pred<<1 | bool`).
fn wanting(func: u8, alu: LaneMask, pred: LaneMask, boolean: bool) -> LaneMask {
    let mut want = 0;
    for a in 0..2u8 {
        for p in 0..2u8 {
            let bit = (a << 2) | (p << 1) | u8::from(boolean);
            if func & (1 << bit) != 0 {
                let ma = if a == 1 { alu } else { !alu };
                let mp = if p == 1 { pred } else { !pred };
                want |= ma & mp;
            }
        }
    }
    want
}

/// Apply a branch-counter op (CTM §3.5.3 `B_OP0`/`B_OP1`).
fn branch_op(
    group: &mut Group,
    op: BranchOp,
    pop: u32,
    disagree: LaneMask,
) -> Result<(), FaultKind> {
    let inactive = group.present & !group.active;
    match op {
        BranchOp::None => {}
        BranchOp::Incr => {
            let limit = group.limits.branch_counter;
            for lane in 0..group.n {
                if inactive & (1 << lane) != 0 {
                    if group.counters[lane] >= limit {
                        return Err(FaultKind::BranchCounterOverflow {
                            limit,
                            mode: group.limits.mode,
                        });
                    }
                    group.counters[lane] += 1;
                    let c = u32::from(group.counters[lane]);
                    let m = &mut group.profile.counters.max_branch_counter;
                    *m = (*m).max(c);
                }
            }
            for lane in 0..group.n {
                if disagree & (1 << lane) != 0 {
                    group.counters[lane] = 0;
                }
            }
            group.active &= !disagree;
        }
        BranchOp::Decr => {
            for lane in 0..group.n {
                if inactive & (1 << lane) != 0 {
                    let c = i64::from(group.counters[lane]) - i64::from(pop);
                    if c < 0 {
                        group.counters[lane] = 0;
                        group.active |= 1 << lane;
                    } else {
                        group.counters[lane] = c as u8;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The innermost loop frame, checked against the op's kind.
fn top_frame(group: &Group, op: FcOp, want: Option<LoopFrameKind>) -> Result<usize, FaultKind> {
    let idx = group
        .loops
        .len()
        .checked_sub(1)
        .ok_or(FaultKind::StackUnderflow {
            stack: StackKind::Loop,
        })?;
    let found = group.loops[idx].kind;
    match want {
        Some(kind) if kind != found => Err(FaultKind::LoopKindMismatch { op, found }),
        _ => Ok(idx),
    }
}

/// The checks on what `JUMP_FUNC` reads (CTM §3.3.10, §3.5.1, §3.2.1).
/// Returns the hazard, if any, separately so the caller can apply the policy.
pub(crate) fn check_inputs(group: &Group, fc: &FcInst) -> Result<Option<FaultKind>, FaultKind> {
    let func = fc.jump_func;
    let reads_alu = (func >> 4) != (func & 0x0F);
    let reads_pred = ((func >> 2) & 0x33) != (func & 0x33);
    let mut hazard = None;
    if reads_alu {
        if !group.alu_result_valid {
            return Err(FaultKind::AluResultNotWritten);
        }
        if !fc.alu_wait && group.sync.pred_dirty & 0x10 != 0 {
            hazard = Some(FaultKind::MissingAluWait {
                what: AluDependency::AluResult,
            });
        }
    }
    if reads_pred {
        let p = fc.predicate.ok_or(FaultKind::FcPredicateNotSelected)?;
        let channel = p.channel.code() as u8;
        if !fc.alu_wait && group.sync.pred_dirty & (1 << channel) != 0 {
            hazard = Some(FaultKind::MissingAluWait {
                what: AluDependency::Predicate { channel },
            });
        }
    }
    Ok(hazard)
}

/// Execute one FC instruction at `pc`; returns the next slot (unchecked).
pub(crate) fn execute(
    group: &mut Group,
    fc: &FcInst,
    pc: u16,
    consts: &FcConstants,
) -> Result<u32, FaultKind> {
    // 1. B_ELSE.
    let mut else_deactivated = 0;
    if fc.b_else {
        let exec = group.exec();
        let mut zero = 0;
        for lane in 0..group.n {
            if group.present & !group.active & (1 << lane) != 0 && group.counters[lane] == 0 {
                zero |= 1 << lane;
            }
        }
        for lane in 0..group.n {
            if exec & (1 << lane) != 0 {
                group.counters[lane] = 0;
            }
        }
        group.active = (group.active & !exec) | zero;
        else_deactivated = exec;
    }

    // ENDLOOP/ENDREP: processors disabled by CONTINUE rejoin first.
    let loop_kind = match fc.op {
        FcOp::EndLoop | FcOp::BreakLoop => Some(LoopFrameKind::Loop),
        FcOp::EndRep | FcOp::BreakRep => Some(LoopFrameKind::Rep),
        _ => None,
    };
    let frame = match fc.op {
        FcOp::EndLoop | FcOp::EndRep | FcOp::BreakLoop | FcOp::BreakRep | FcOp::Continue => {
            Some(top_frame(group, fc.op, loop_kind)?)
        }
        _ => None,
    };
    if let (Some(f), FcOp::EndLoop | FcOp::EndRep) = (frame, fc.op) {
        group.loops[f].continued = 0;
        group.refresh_loop_mask();
    }

    // 2. Votes.
    let exec = group.exec();
    let eligible = if fc.ignore_uncovered {
        group.covered
    } else {
        LaneMask::MAX
    };
    let voters = (exec | else_deactivated) & eligible;
    let pred = match fc.predicate {
        Some(p) => {
            let m = group.pred[p.channel.code() as usize];
            if p.invert { !m } else { m }
        }
        None => 0,
    };
    let boolean = consts.bools & (1 << fc.bool_addr.get()) != 0;
    let want =
        (wanting(fc.jump_func, group.alu_result, pred, boolean) & group.present) | else_deactivated;
    let normal = if fc.jump_any {
        want & voters != 0
    } else {
        want & voters == voters
    };

    // 3. Decision with the loop special cases.
    let int = consts.ints[fc.int_addr.get() as usize];
    let count = int & 0xFF;
    let branch_inactive = group.present & !group.active;
    let jump = match fc.op {
        FcOp::Jump => normal,
        FcOp::Loop | FcOp::Rep => count == 0 || normal,
        FcOp::EndLoop | FcOp::EndRep => {
            let f = frame.unwrap_or_default();
            group.loops[f].remaining = group.loops[f].remaining.saturating_sub(1);
            group.loops[f].remaining != 0 && normal
        }
        FcOp::BreakLoop | FcOp::BreakRep => {
            let f = frame.unwrap_or_default();
            normal && branch_inactive == 0 && group.loops[f].continued == 0
        }
        FcOp::Continue => normal && branch_inactive == 0,
    };

    // 4. Effects.
    let next;
    if jump {
        let mut target = fc.jump_addr.get();
        match fc.a_op {
            AddrStackOp::None => {}
            AddrStackOp::Push => {
                if group.addresses.len() >= usize::from(group.limits.address_stack) {
                    return Err(FaultKind::StackOverflow {
                        stack: StackKind::Address,
                        limit: group.limits.address_stack,
                        mode: group.limits.mode,
                    });
                }
                group.addresses.push(pc + 1);
                let m = &mut group.profile.counters.max_call_depth;
                *m = (*m).max(group.addresses.len() as u32);
            }
            AddrStackOp::Pop => {
                target = u32::from(group.addresses.pop().ok_or(FaultKind::StackUnderflow {
                    stack: StackKind::Address,
                })?);
            }
        }
        branch_op(group, fc.b_op1, fc.b_pop_cnt.get(), exec & !want)?;
        match fc.op {
            FcOp::EndLoop => {
                let f = frame.unwrap_or_default();
                group.loops[f].al += group.loops[f].step;
            }
            FcOp::BreakLoop | FcOp::BreakRep => {
                group.loops.pop();
                group.refresh_loop_mask();
            }
            _ => {}
        }
        group.profile.counters.jumps_taken += 1;
        next = target;
    } else {
        branch_op(group, fc.b_op0, fc.b_pop_cnt.get(), exec & want)?;
        match fc.op {
            FcOp::Loop | FcOp::Rep => {
                let kind = if fc.op == FcOp::Loop {
                    LoopFrameKind::Loop
                } else {
                    LoopFrameKind::Rep
                };
                group.push_loop(LoopFrame {
                    kind,
                    remaining: count,
                    al: ((int >> 8) & 0xFF) as i32,
                    step: i32::from(((int >> 16) & 0xFF) as u8 as i8),
                    broken: 0,
                    continued: 0,
                })?;
            }
            FcOp::EndLoop | FcOp::EndRep => {
                group.loops.pop();
                group.refresh_loop_mask();
            }
            FcOp::BreakLoop | FcOp::BreakRep => {
                let f = frame.unwrap_or_default();
                group.loops[f].broken |= want & exec;
                group.refresh_loop_mask();
            }
            FcOp::Continue => {
                let f = frame.unwrap_or_default();
                group.loops[f].continued |= want & exec;
                group.refresh_loop_mask();
            }
            FcOp::Jump => {}
        }
        next = u32::from(pc) + 1;
    }

    // 5. The ALU result does not survive an FC instruction.
    group.alu_result_valid = false;
    group.sync.pred_dirty &= !0x10;
    Ok(next)
}
