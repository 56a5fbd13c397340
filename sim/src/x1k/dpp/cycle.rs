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
    pub segments: &'a [Segment],
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

/// Schedule `batches` with `in_flight` resident batches per dispatcher.
pub(crate) fn schedule(model: &CycleModel, batches: &[BatchInput<'_>], in_flight: u32) -> Schedule {
    let d_count = model.dispatchers.max(1) as usize;
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
    let mut finish = vec![0u64; d_count];
    let mut residency = 0u64;
    for (d, finish_d) in finish.iter_mut().enumerate() {
        let mine: Vec<usize> = (d..batches.len()).step_by(d_count).collect();
        let mut seg = vec![0usize; batches.len()];
        let mut tex_done = vec![0u64; batches.len()];
        let mut cause = vec![Cause::Admission; batches.len()];
        let mut started = vec![false; batches.len()];
        let mut heap = BinaryHeap::new();
        let mut next = 0usize;
        let mut resident = 0u32;
        let (mut alu_free, mut tu_free) = (0u64, 0u64);
        while next < mine.len() && resident < in_flight {
            heap.push(Reverse((0u64, mine[next])));
            next += 1;
            resident += 1;
        }
        out.max_in_flight = out.max_in_flight.max(resident);
        while let Some(Reverse((ready, b))) = heap.pop() {
            if ready > alu_free {
                let idle = ready - alu_free;
                match cause[b] {
                    Cause::Semaphore => out.stalls.semaphore += idle,
                    Cause::AluDrain => out.stalls.alu_wait += idle,
                    Cause::Admission => out.stalls.drain += idle,
                }
                alu_free = ready;
            }
            if !started[b] {
                started[b] = true;
                out.batches[b].start_cycle = alu_free;
            }
            let Some(s) = batches[b].segments.get(seg[b]).copied() else {
                // A batch without segments (cannot happen: every run closes one).
                continue;
            };
            seg[b] += 1;
            let start = alu_free;
            alu_free += s.issue_cycles;
            if s.tex_cycles > 0 {
                let ts = tu_free.max(start + s.tex_offset);
                tu_free = ts + s.tex_cycles;
                tex_done[b] = tu_free + model.texture_latency;
            }
            match s.end {
                SegmentEnd::Semaphore => {
                    cause[b] = Cause::Semaphore;
                    heap.push(Reverse((alu_free.max(tex_done[b]), b)));
                }
                SegmentEnd::AluDrain => {
                    cause[b] = Cause::AluDrain;
                    heap.push(Reverse((alu_free + model.alu_latency, b)));
                }
                SegmentEnd::Finish => {
                    out.batches[b].end_cycle = alu_free;
                    residency += alu_free - out.batches[b].admit_cycle;
                    // The freed context admits the next batch.
                    if next < mine.len() {
                        let nb = mine[next];
                        next += 1;
                        out.batches[nb].admit_cycle = alu_free;
                        heap.push(Reverse((alu_free, nb)));
                    }
                }
            }
        }
        *finish_d = alu_free;
    }
    out.cycles = finish.iter().copied().max().unwrap_or(0);
    out.stalls.drain += finish.iter().map(|f| out.cycles - f).sum::<u64>();
    if out.cycles > 0 {
        out.mean_in_flight = residency as f64 / (out.cycles as f64 * d_count as f64);
    }
    out
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
        let segs = [
            seg(10, 12, SegmentEnd::Semaphore),
            seg(10, 0, SegmentEnd::Finish),
        ];
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
