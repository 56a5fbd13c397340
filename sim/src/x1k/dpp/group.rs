//! Running one SIMD group from `START_ADDR` to `END_ADDR`: the instruction
//! loop, the texture-semaphore wait and `ALU_WAIT` that every instruction
//! type shares (CTM §3.2.1, §3.4.2, §3.7), the hazard policy, the step
//! limit, and the per-element results.

use super::Engine;
use super::alu;
use super::fault::{DppFault, FaultKind, HazardPolicy};
use super::flow::{self, FcConstants};
use super::operands::BoundAlu;
use super::prepare::{Plan, Slot};
use super::state::{FcLimits, Group, Held, Spare};
use super::tex;
use super::timing::{Costs, Profile, SegmentEnd};
use crate::x1k::interface::{DppMemory, ElementResult, TargetWrite};
use std::sync::atomic::{AtomicU64, Ordering};

/// Everything a group reads that is the same for every group of a run.
pub(crate) struct RunContext<'a> {
    /// The prepared program.
    pub plan: &'a Plan,
    /// Inputs and constants.
    pub memory: &'a dyn DppMemory,
    /// The 256 float constants.
    pub consts: Vec<[f32; 4]>,
    /// Per slot, the ALU operands bound for the whole run (fast engine).
    pub bound: Vec<Option<BoundAlu>>,
    /// Integer and boolean constants.
    pub fc_consts: FcConstants,
    /// Cycle costs.
    pub costs: Costs,
    /// Backward jumps one element may take ([`run_group`]).
    pub step_limit: u64,
    /// The lowest group (by ordinal) that faulted so far, `u64::MAX` for
    /// none: the groups after it stop early.
    pub first_fault: AtomicU64,
    /// What to do on a hazard.
    pub policy: HazardPolicy,
    /// The execution engine.
    pub engine: Engine,
}

/// What one group produced besides its element results.
pub(crate) struct GroupOutcome {
    /// Elements killed.
    pub killed: u64,
    /// Output channels written (target channels and conditional values of
    /// the elements not killed), for the memory-traffic statistics.
    pub output_channels: u64,
    /// Timing and counters.
    pub profile: Profile,
    /// Hazards seen under [`HazardPolicy::Warn`]: (slot, hazard, count).
    pub warnings: Vec<(u16, FaultKind, u64)>,
}

/// `TEX_SEM_WAIT` (CTM §3.4.2): release the semaphore, making the covered
/// lookups (or uncached writes) visible. Free when nothing is held. The
/// errata of CTM §3.7: a wait right after an FC instruction that did not
/// wait itself may run early.
fn semaphore_wait(group: &mut Group) -> Result<(), FaultKind> {
    let Some(held) = group.sync.held.take() else {
        return Ok(());
    };
    match held {
        Held::Tex { seq, .. } => group.sync.tex_done = group.sync.tex_done.max(seq),
        Held::Umrt { seq, .. } => group.sync.umrt_done = group.sync.umrt_done.max(seq),
    }
    group.profile.counters.semaphore_waits += 1;
    group.profile.close(SegmentEnd::Semaphore);
    if group.sync.prev_fc_without_wait {
        return Err(FaultKind::WaitAfterFc);
    }
    Ok(())
}

/// `ALU_WAIT` (CTM §3.2.1): stall until pending ALU instructions complete.
fn alu_wait(group: &mut Group) {
    if group.sync.alu_pending {
        group.profile.counters.alu_waits += 1;
        group.profile.close(SegmentEnd::AluDrain);
    }
    group.sync.alu_sync();
}

/// Run the program for `elements` (at most [`super::MAX_GROUP_SIZE`]),
/// writing one result per element into `out` (same length; each slot is
/// overwritten whole), with the
/// allocations of `spare` (left there again for the next group).
///
/// The step limit counts, per element, the backward jumps (an FC
/// instruction whose next slot is not after its own: ENDLOOP/ENDREP
/// iterating, a JUMP or a subroutine call or return back) taken while the
/// element executes; one taken with no element executing counts for the
/// group. A finite program cannot run forever without them, and each is
/// a loop iteration (or call) of the element in the source, so the limit
/// is in the reference interpreter's units (steps per element,
/// `docs/sim-x1k.md` "Faults"). A group stops without a fault of its own
/// once a group before it (`ordinal`) has faulted: the run reports that
/// one, as the reference reports its lowest faulting element.
pub(crate) fn run_group(
    ctx: &RunContext<'_>,
    ordinal: u64,
    elements: &[(u32, u32)],
    out: &mut [ElementResult],
    spare: &mut Spare,
) -> Result<GroupOutcome, DppFault> {
    let plan = ctx.plan;
    let mut group = Group::with_spare(
        elements,
        plan.nregs,
        FcLimits::of(plan.full_fc),
        ctx.policy,
        std::mem::take(spare),
    );
    let mut pc = plan.start;
    let mut lane_jumps = [0u64; super::MAX_GROUP_SIZE];
    let mut idle_jumps = 0u64;
    loop {
        let fault = |kind: FaultKind| DppFault::new(pc, kind);
        group.slot = pc;
        let exec = group.exec();
        let counters = &mut group.profile.counters;
        counters.lane_slots += group.n as u64;
        counters.lane_active += u64::from(exec.count_ones());

        let slot = &plan.slots[usize::from(pc)];
        let next = match slot {
            Slot::Invalid(kind) => return Err(fault(kind.clone())),
            Slot::Alu(p) => {
                if p.inst.sem_wait {
                    let r = semaphore_wait(&mut group);
                    group.hazard(r).map_err(fault)?;
                }
                let r = alu::execute(
                    &mut group,
                    p,
                    ctx.bound.get(usize::from(pc)).and_then(Option::as_ref),
                    &ctx.consts,
                    plan.zero_times_anything,
                    ctx.engine,
                );
                group.hazard(r).map_err(fault)?;
                if let Some(kind) = p.umrt {
                    group.sync.umrt_seq += 1;
                    group.sync.umrt_slot = pc;
                    if kind.acquires_semaphore() {
                        group.sync.held = Some(Held::Umrt {
                            seq: group.sync.umrt_seq,
                            slot: pc,
                        });
                    }
                }
                let c = &mut group.profile.counters;
                if p.umrt.is_some()
                    || matches!(p.inst.writes, ctm_backend_x1k::isa::AluWrites::Output(_))
                {
                    c.out += 1;
                } else {
                    c.alu += 1;
                }
                match (p.rgb_used, p.alpha_used) {
                    (true, true) => c.coissued += 1,
                    (true, false) => c.rgb_only += 1,
                    (false, true) => c.alpha_only += 1,
                    (false, false) => {}
                }
                let per_processor = matches!(
                    p.umrt,
                    Some(
                        ctm_backend_x1k::isa::UmrtTarget::PerProcessorIdx
                            | ctm_backend_x1k::isa::UmrtTarget::PerProcessorIdxAcquire
                    )
                );
                let issue = ctx.costs.issue
                    * if per_processor {
                        ctx.costs.umrt_per_processor
                    } else {
                        1
                    };
                c.issue_cycles += issue;
                group.profile.issue += issue;
                if p.inst.nop {
                    group.profile.counters.nop_cycles += ctx.costs.issue;
                    group.profile.issue += ctx.costs.issue;
                }
                group.sync.alu_pending = true;
                group.sync.prev_fc_without_wait = false;
                u32::from(pc) + 1
            }
            Slot::Tex(t) => {
                if t.alu_wait {
                    alu_wait(&mut group);
                }
                if t.sem_wait {
                    let r = semaphore_wait(&mut group);
                    group.hazard(r).map_err(fault)?;
                }
                let r = tex::execute(&mut group, t, pc, ctx.memory, &ctx.costs, ctx.engine);
                group.hazard(r).map_err(fault)?;
                group.profile.counters.tex += 1;
                group.profile.counters.issue_cycles += 1;
                group.profile.issue += 1;
                group.sync.prev_alu_writes = [(0, 0); 2];
                group.sync.prev_fc_without_wait = false;
                u32::from(pc) + 1
            }
            Slot::Fc(f) => {
                if f.alu_wait {
                    alu_wait(&mut group);
                }
                if f.sem_wait {
                    let r = semaphore_wait(&mut group);
                    group.hazard(r).map_err(fault)?;
                }
                if let Some(h) = flow::check_inputs(&group, f).map_err(fault)? {
                    group.hazard(Err(h)).map_err(fault)?;
                }
                let next = flow::execute(&mut group, f, pc, &ctx.fc_consts).map_err(fault)?;
                group.profile.counters.fc += 1;
                group.profile.counters.fc_cycles += ctx.costs.fc;
                group.profile.issue += ctx.costs.fc;
                group.sync.prev_alu_writes = [(0, 0); 2];
                group.sync.prev_fc_without_wait = !f.sem_wait;
                next
            }
        };
        if pc == plan.end {
            break;
        }
        if next <= u32::from(pc) {
            if ctx.first_fault.load(Ordering::Relaxed) < ordinal {
                break;
            }
            let exec = group.exec();
            let over = if exec == 0 {
                idle_jumps += 1;
                idle_jumps > ctx.step_limit
            } else {
                let mut lanes = exec;
                let mut over = false;
                while lanes != 0 {
                    if let Some(jumps) = lane_jumps.get_mut(lanes.trailing_zeros() as usize) {
                        *jumps += 1;
                        over |= *jumps > ctx.step_limit;
                    }
                    lanes &= lanes - 1;
                }
                over
            };
            if over {
                ctx.first_fault.fetch_min(ordinal, Ordering::Relaxed);
                return Err(fault(FaultKind::RunawayLoop {
                    limit: ctx.step_limit,
                }));
            }
        }
        // Code after END_ADDR is reachable by jumps (subroutines may live
        // there); only leaving the program's slots is a fault.
        if next as usize >= plan.slots.len() {
            return Err(fault(FaultKind::JumpOutOfProgram {
                target: next,
                end: u32::from(plan.end),
            }));
        }
        pc = next as u16;
    }

    // CTM §3.4.2: it is invalid to terminate holding the semaphore.
    if let Some(held) = group.sync.held {
        return Err(DppFault::new(
            plan.end,
            FaultKind::SemaphoreHeldAtEnd {
                acquired_at: held.slot(),
            },
        ));
    }
    group.profile.close(SegmentEnd::Finish);

    let (mut killed_count, mut output_channels) = (0u64, 0u64);
    for ((lane, &(i, j)), slot) in elements.iter().enumerate().zip(out.iter_mut()) {
        let killed = group.covered & (1 << lane) == 0;
        let lane_out = &group.outputs[lane];
        let mut targets = [None; 4];
        if !killed {
            for (t, target) in targets.iter_mut().enumerate() {
                if lane_out.masks[t] != 0 {
                    *target = Some(TargetWrite {
                        value: lane_out.values[t],
                        mask: lane_out.masks[t],
                    });
                    output_channels += u64::from(lane_out.masks[t].count_ones());
                }
            }
        }
        let conditional_value = if killed { None } else { lane_out.conditional };
        output_channels += u64::from(conditional_value.is_some());
        killed_count += u64::from(killed);
        // Field by field: the slot may hold an earlier wave's result
        // (buffers are reused), so a stale UMRT list is cleared.
        slot.i = i;
        slot.j = j;
        slot.killed = killed;
        slot.targets = targets;
        slot.conditional_value = conditional_value;
        if !group.umrt[lane].is_empty() {
            slot.umrt = std::mem::take(&mut group.umrt[lane]);
        } else if !slot.umrt.is_empty() {
            slot.umrt.clear();
        }
    }
    let outcome = GroupOutcome {
        killed: killed_count,
        output_channels,
        profile: std::mem::take(&mut group.profile),
        warnings: std::mem::take(&mut group.warnings),
    };
    *spare = group.into_spare();
    Ok(outcome)
}
