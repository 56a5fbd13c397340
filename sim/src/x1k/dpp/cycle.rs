//! The cycle model: batches (SIMD groups) scheduled over the dispatchers
//! of an X1900-class chip (R580). Every constant of [`CycleModel`] is
//! documented with its source in `docs/sim-x1k.md` §3.
//!
//! Each dispatcher owns `processors_per_dispatcher` pixel processors and
//! `tmus_per_dispatcher` texture units, and keeps up to
//! [`CycleModel::batches_in_flight`] batches resident. Batches are dealt to
//! dispatchers round-robin in element order. A dispatcher issues one
//! instruction to a whole batch in `ceil(batch / processors)` clocks; it
//! runs a resident batch's segment (the instructions up to the next
//! wait) and then picks the ready batch that became ready first (oldest on
//! ties), so texture latency is hidden as long as other batches have work.
//! A batch sleeps after a semaphore wait until its fetches return (texture
//! unit occupancy + latency) and after an `ALU_WAIT` for the ALU latency.
//! The run also cannot be faster than memory traffic allows.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::timing::{Segment, SegmentEnd};
use crate::repeat_log::{Cursor, RepeatLog};

/// Machine parameters of the cycle model (defaults: Radeon X1900 XTX).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CycleModel {
    /// Core clock (MHz), for reporting time.
    pub clock_mhz: f64,
    /// Dispatch processors ("quad pipes" groups), each with its own batches.
    pub dispatchers: u32,
    /// Pixel processors per dispatcher (48 / 4 on R580).
    pub processors_per_dispatcher: u32,
    /// Texture units per dispatcher (16 / 4 on R580).
    pub tmus_per_dispatcher: u32,
    /// Batches a dispatcher can hold in partial flow-control mode.
    pub max_batches_per_dispatcher: u32,
    /// Register file per dispatcher in batch-registers: with `r` temporaries
    /// per pixel at most `register_budget / r` batches are resident.
    pub register_budget: u32,
    /// Texture fetch latency (clocks from the texture unit to the register).
    pub texture_latency: u64,
    /// ALU pipeline latency seen by an `ALU_WAIT`.
    pub alu_latency: u64,
    /// Dispatcher cycles per FC instruction (per batch).
    pub fc_cycles: u64,
    /// Issue slowdown of per-processor-index UMRT writes (CTM §3.3.8).
    pub umrt_per_processor_factor: u64,
    /// Memory bandwidth (bytes per core clock).
    pub memory_bytes_per_cycle: f64,
    /// Bytes written per output channel.
    pub output_channel_bytes: u64,
}

impl Default for CycleModel {
    fn default() -> Self {
        CycleModel {
            clock_mhz: 650.0,
            dispatchers: 4,
            processors_per_dispatcher: 12,
            tmus_per_dispatcher: 4,
            max_batches_per_dispatcher: 128,
            register_budget: 512,
            texture_latency: 200,
            alu_latency: 8,
            fc_cycles: 4,
            umrt_per_processor_factor: 4,
            // 49.6 GB/s at 650 MHz.
            memory_bytes_per_cycle: 49.6e9 / 650e6,
            output_channel_bytes: 4,
        }
    }
}

impl CycleModel {
    /// Dispatcher clocks to issue one instruction to a batch of `group_size`.
    pub fn issue_cycles(&self, group_size: usize) -> u64 {
        (group_size as u64).div_ceil(u64::from(self.processors_per_dispatcher.max(1)))
    }

    /// Batches resident per dispatcher for a program with `registers`
    /// temporaries per pixel; halved in full flow-control mode (CTM §3.5:
    /// partial mode allows twice as many contexts).
    pub fn batches_in_flight(&self, registers: u32, full_fc: bool) -> u32 {
        let by_regs = self.register_budget / registers.max(1);
        let limit = by_regs.min(self.max_batches_per_dispatcher);
        let limit = if full_fc { limit / 2 } else { limit };
        limit.max(1)
    }
}

/// When one batch ran (for a Chrome trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BatchTiming {
    /// Batch number (element order).
    pub batch: u32,
    /// The dispatcher that ran it.
    pub dispatcher: u32,
    /// Index of its first element in the run's element list.
    pub first_element: u32,
    /// Its number of elements.
    pub elements: u32,
    /// Cycle it was admitted (became resident).
    pub admit_cycle: u64,
    /// Cycle of its first issue.
    pub start_cycle: u64,
    /// Cycle its last instruction was issued.
    pub end_cycle: u64,
}

/// Dispatcher cycles by cause, summed over dispatchers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StallCycles {
    /// Idle waiting for texture results (every resident batch asleep on the semaphore).
    pub semaphore: u64,
    /// Idle waiting for `ALU_WAIT` drains.
    pub alu_wait: u64,
    /// `NOP` bubbles (CTM §3.3.2).
    pub nop: u64,
    /// Cycles spent on FC instructions.
    pub flow_control: u64,
    /// Idle after the dispatcher's last batch while others still run.
    pub drain: u64,
}

/// The result of scheduling.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedule {
    /// Makespan of the schedule (before the memory bound).
    pub cycles: u64,
    /// Per batch.
    pub batches: Vec<BatchTiming>,
    /// Idle cycles (semaphore, ALU wait, drain; NOP/FC are filled by the caller).
    pub stalls: StallCycles,
    /// Most batches resident on one dispatcher.
    pub max_in_flight: u32,
    /// Mean batches resident per dispatcher over the run.
    pub mean_in_flight: f64,
}

/// One batch to schedule.
pub(crate) struct BatchInput<'a> {
    /// Its segments.
    pub segments: &'a RepeatLog<Segment>,
    /// Index of its first element.
    pub first_element: u32,
    /// Its element count.
    pub elements: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Admission,
    Semaphore,
    AluDrain,
}

/// What one dispatcher's schedule gave.
#[derive(Default)]
struct DispatcherRun {
    /// (admit, start, end) of its batches, in its order (`d`, `d + D`, ...).
    timings: Vec<(u64, u64, u64)>,
    stalls: StallCycles,
    max_in_flight: u32,
    residency: u64,
    finish: u64,
}

/// Schedule `batches` with `in_flight` resident batches per dispatcher.
///
/// Dispatchers share nothing but the memory-bandwidth bound (applied by
/// the caller), so each is simulated alone, in parallel; the sums and
/// maxima are merged in dispatcher order (integers: the result does not
/// depend on the order).
pub(crate) fn schedule(model: &CycleModel, batches: &[BatchInput<'_>], in_flight: u32) -> Schedule {
    use rayon::prelude::*;
    let d_count = model.dispatchers.max(1) as usize;
    let runs: Vec<DispatcherRun> = (0..d_count)
        .into_par_iter()
        .map(|d| schedule_dispatcher(model, batches, d, d_count, in_flight))
        .collect();
    let mut out = Schedule {
        batches: batches
            .iter()
            .enumerate()
            .map(|(b, input)| BatchTiming {
                batch: b as u32,
                dispatcher: (b % d_count) as u32,
                first_element: input.first_element,
                elements: input.elements,
                admit_cycle: 0,
                start_cycle: 0,
                end_cycle: 0,
            })
            .collect(),
        ..Schedule::default()
    };
    let mut residency = 0u64;
    for (d, run) in runs.iter().enumerate() {
        for (k, &(admit, start, end)) in run.timings.iter().enumerate() {
            if let Some(t) = out.batches.get_mut(d + k * d_count) {
                t.admit_cycle = admit;
                t.start_cycle = start;
                t.end_cycle = end;
            }
        }
        out.stalls.semaphore += run.stalls.semaphore;
        out.stalls.alu_wait += run.stalls.alu_wait;
        out.stalls.drain += run.stalls.drain;
        out.max_in_flight = out.max_in_flight.max(run.max_in_flight);
        residency += run.residency;
    }
    out.cycles = runs.iter().map(|r| r.finish).max().unwrap_or(0);
    out.stalls.drain += runs.iter().map(|r| out.cycles - r.finish).sum::<u64>();
    if out.cycles > 0 {
        out.mean_in_flight = residency as f64 / (out.cycles as f64 * d_count as f64);
    }
    out
}

/// The event-queue simulation of dispatcher `d` (its batches are `d`,
/// `d + d_count`, ...; local index k is batch `d + k·d_count`).
fn schedule_dispatcher(
    model: &CycleModel,
    batches: &[BatchInput<'_>],
    d: usize,
    d_count: usize,
    in_flight: u32,
) -> DispatcherRun {
    let mine: Vec<usize> = (d..batches.len()).step_by(d_count).collect();
    let n = mine.len();
    let mut run = DispatcherRun {
        timings: vec![(0, 0, 0); n],
        ..DispatcherRun::default()
    };
    let mut seg: Vec<Cursor> = mine.iter().map(|&b| batches[b].segments.cursor()).collect();
    let mut tex_done = vec![0u64; n];
    let mut cause = vec![Cause::Admission; n];
    let mut started = vec![false; n];
    let mut heap = BinaryHeap::new();
    let mut next = 0usize;
    let mut resident = 0u32;
    let (mut alu_free, mut tu_free) = (0u64, 0u64);
    while next < n && resident < in_flight {
        heap.push(Reverse((0u64, next)));
        next += 1;
        resident += 1;
    }
    run.max_in_flight = resident;
    // Local indices order as the global ones (both increase with the
    // batch), so the heap's tie-breaking (oldest first) is unchanged.
    while let Some(Reverse((ready, k))) = heap.pop() {
        if ready > alu_free {
            let idle = ready - alu_free;
            match cause[k] {
                Cause::Semaphore => run.stalls.semaphore += idle,
                Cause::AluDrain => run.stalls.alu_wait += idle,
                Cause::Admission => run.stalls.drain += idle,
            }
            alu_free = ready;
        }
        if !started[k] {
            started[k] = true;
            run.timings[k].1 = alu_free;
        }
        let Some(s) = seg[k].next(batches[mine[k]].segments) else {
            // A batch without segments (cannot happen: every run closes one).
            continue;
        };
        let start = alu_free;
        alu_free += s.issue_cycles;
        if s.tex_cycles > 0 {
            let ts = tu_free.max(start + s.tex_offset);
            tu_free = ts + s.tex_cycles;
            tex_done[k] = tu_free + model.texture_latency;
        }
        match s.end {
            SegmentEnd::Semaphore => {
                cause[k] = Cause::Semaphore;
                heap.push(Reverse((alu_free.max(tex_done[k]), k)));
            }
            SegmentEnd::AluDrain => {
                cause[k] = Cause::AluDrain;
                heap.push(Reverse((alu_free + model.alu_latency, k)));
            }
            SegmentEnd::Finish => {
                run.timings[k].2 = alu_free;
                run.residency += alu_free - run.timings[k].0;
                // The freed context admits the next batch.
                if next < n {
                    run.timings[next].0 = alu_free;
                    heap.push(Reverse((alu_free, next)));
                    next += 1;
                }
            }
        }
    }
    run.finish = alu_free;
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(issue: u64, tex: u64, end: SegmentEnd) -> Segment {
        Segment {
            issue_cycles: issue,
            tex_cycles: tex,
            tex_offset: issue,
            end,
        }
    }

    #[test]
    fn latency_is_hidden_by_other_batches() {
        let model = CycleModel {
            dispatchers: 1,
            texture_latency: 100,
            ..CycleModel::default()
        };
        let segs: RepeatLog<Segment> = [
            seg(10, 12, SegmentEnd::Semaphore),
            seg(10, 0, SegmentEnd::Finish),
        ]
        .into_iter()
        .collect();
        let one = [BatchInput {
            segments: &segs,
            first_element: 0,
            elements: 48,
        }];
        // Alone: 10 issue, fetch 12 + 100 latency, then 10.
        assert_eq!(schedule(&model, &one, 8).cycles, 10 + 12 + 100 + 10);
        let many: Vec<_> = (0..20)
            .map(|b| BatchInput {
                segments: &segs,
                first_element: b * 48,
                elements: 48,
            })
            .collect();
        // Twenty batches: the ALU is the bottleneck once latency is covered.
        let s = schedule(&model, &many, 128);
        assert!(s.cycles < 20 * 20 + 112 + 12 * 20, "{}", s.cycles);
        assert!(s.cycles >= 20 * 20);
    }
}
