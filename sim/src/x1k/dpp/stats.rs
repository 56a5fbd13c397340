//! The statistics of a run: a plain struct the driver prints or serialises
//! (`serde_json::to_value(&stats)`), deterministic for the same inputs.
//! Field meanings follow `language.md` §9 `--stats`.

use serde::Serialize;

use super::cycle::{CycleModel, Schedule, StallCycles};
use super::timing::Counters;

/// Which limit decided the cycle count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Instruction issue and latency (the batch schedule).
    #[default]
    Schedule,
    /// Memory bandwidth.
    Memory,
}

/// Instructions issued, counted once per batch (SIMD group).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct InstructionCounts {
    /// All.
    pub total: u64,
    /// ALU (TYPE 0).
    pub alu: u64,
    /// OUTPUT (TYPE 1).
    pub out: u64,
    /// TEX.
    pub tex: u64,
    /// FC.
    pub fc: u64,
}

/// RGB/alpha pairing of ALU and OUT instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Coissue {
    /// Both units produce a used result.
    pub both: u64,
    /// Only the RGB unit.
    pub rgb_only: u64,
    /// Only the alpha unit.
    pub alpha_only: u64,
}

/// Batches resident per dispatcher.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct InFlight {
    /// The limit from `US_PIXSIZE` and the flow-control mode.
    pub limit: u32,
    /// The most resident at once.
    pub max: u32,
    /// Mean over the run.
    pub mean: f64,
}

/// Texture-unit activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TextureStats {
    /// Texels fetched (lookup instructions × participating processors).
    pub texels: u64,
    /// Texture-unit busy cycles, summed over dispatchers.
    pub unit_cycles: u64,
    /// Effective semaphore waits (per batch).
    pub semaphore_waits: u64,
    /// Processors killed.
    pub kills: u64,
}

/// Memory traffic (estimates: each texel's bytes by its input's data format, no cache).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MemoryTraffic {
    /// Bytes read by lookups.
    pub texture_bytes: u64,
    /// Bytes written to render targets and the conditional value.
    pub output_bytes: u64,
    /// Bytes written by UMRT writes.
    pub umrt_bytes: u64,
    /// Cycles the traffic needs at the modelled bandwidth.
    pub bandwidth_cycles: u64,
}

/// Flow-control activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FlowStats {
    /// FC instructions that jumped.
    pub jumps_taken: u64,
    /// Effective `ALU_WAIT`s.
    pub alu_waits: u64,
    /// Deepest loop stack.
    pub max_loop_depth: u32,
    /// Deepest address stack.
    pub max_call_depth: u32,
    /// Largest branch counter.
    pub max_branch_counter: u32,
}

/// Statistics of one run of the processor array.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DppStats {
    /// Elements run.
    pub elements: u64,
    /// Elements killed (TEX KILL).
    pub killed: u64,
    /// SIMD group (batch) size.
    pub group_size: u32,
    /// Batches.
    pub batches: u64,
    /// Total cycles (core clock).
    pub cycles: u64,
    /// `cycles / elements`.
    pub cycles_per_element: f64,
    /// Microseconds at the model's clock.
    pub microseconds: f64,
    /// What decided `cycles`.
    pub bound: Bound,
    /// Instructions issued (per batch).
    pub instructions: InstructionCounts,
    /// Instructions executed per element (sum over processors of the
    /// instructions they were active for).
    pub element_instructions: u64,
    /// RGB/alpha pairing.
    pub coissue: Coissue,
    /// Used ALU unit slots / (2 × ALU and OUT instructions), 0..1.
    pub alu_slot_utilization: f64,
    /// Active processor-instructions / processor-instruction slots, 0..1.
    pub simd_efficiency: f64,
    /// Dispatcher cycles by cause.
    pub stalls: StallCycles,
    /// Temporaries per pixel (`US_PIXSIZE` + 1).
    pub registers: u32,
    /// `partial` or `full` flow control.
    pub fc_mode: &'static str,
    /// Batches in flight.
    pub batches_in_flight: InFlight,
    /// Texture unit.
    pub texture: TextureStats,
    /// Memory traffic.
    pub memory: MemoryTraffic,
    /// Flow control.
    pub flow: FlowStats,
    /// Uncached (UMRT) writes.
    pub umrt_writes: u64,
    /// Distinct hazards recorded under the warn policy.
    pub warnings: u64,
}

/// Everything `DppStats::build` needs.
pub(crate) struct StatsInput<'a> {
    pub model: &'a CycleModel,
    pub counters: &'a Counters,
    pub schedule: &'a Schedule,
    /// Elements run.
    pub elements: u64,
    /// Elements killed.
    pub killed: u64,
    /// Output channels written by the elements not killed (target
    /// channels and conditional values).
    pub output_channels: u64,
    pub group_size: u32,
    pub batches: u64,
    pub registers: u32,
    pub full_fc: bool,
    pub in_flight_limit: u32,
    pub warnings: u64,
}

impl DppStats {
    /// Assemble the statistics; returns them with the final cycle count
    /// (the schedule's, or the memory bound if larger).
    pub(crate) fn build(input: StatsInput<'_>) -> DppStats {
        let StatsInput {
            model,
            counters: c,
            schedule,
            ..
        } = input;
        let (elements, killed, output_channels) =
            (input.elements, input.killed, input.output_channels);
        let texture_bytes = c.texel_bytes;
        let output_bytes = output_channels * model.output_channel_bytes;
        let umrt_bytes = c.umrt_writes * 4;
        let total_bytes = texture_bytes + output_bytes + umrt_bytes;
        let bandwidth_cycles = if model.memory_bytes_per_cycle > 0.0 {
            (total_bytes as f64 / model.memory_bytes_per_cycle).ceil() as u64
        } else {
            0
        };
        let (cycles, bound) = if bandwidth_cycles > schedule.cycles {
            (bandwidth_cycles, Bound::Memory)
        } else {
            (schedule.cycles, Bound::Schedule)
        };
        let alu_out = c.alu + c.out;
        let ratio = |num: u64, den: u64| {
            if den == 0 {
                0.0
            } else {
                num as f64 / den as f64
            }
        };
        let mut stalls = schedule.stalls;
        stalls.nop = c.nop_cycles;
        stalls.flow_control = c.fc_cycles;
        DppStats {
            elements,
            killed,
            group_size: input.group_size,
            batches: input.batches,
            cycles,
            cycles_per_element: ratio(cycles, elements),
            microseconds: if model.clock_mhz > 0.0 {
                cycles as f64 / model.clock_mhz
            } else {
                0.0
            },
            bound,
            instructions: InstructionCounts {
                total: c.instructions(),
                alu: c.alu,
                out: c.out,
                tex: c.tex,
                fc: c.fc,
            },
            element_instructions: c.lane_active,
            coissue: Coissue {
                both: c.coissued,
                rgb_only: c.rgb_only,
                alpha_only: c.alpha_only,
            },
            alu_slot_utilization: ratio(2 * c.coissued + c.rgb_only + c.alpha_only, 2 * alu_out),
            simd_efficiency: ratio(c.lane_active, c.lane_slots),
            stalls,
            registers: input.registers,
            fc_mode: if input.full_fc { "full" } else { "partial" },
            batches_in_flight: InFlight {
                limit: input.in_flight_limit,
                max: schedule.max_in_flight,
                mean: schedule.mean_in_flight,
            },
            texture: TextureStats {
                texels: c.texels_fetched,
                unit_cycles: c.tex_unit_cycles,
                semaphore_waits: c.semaphore_waits,
                kills: c.killed,
            },
            memory: MemoryTraffic {
                texture_bytes,
                output_bytes,
                umrt_bytes,
                bandwidth_cycles,
            },
            flow: FlowStats {
                jumps_taken: c.jumps_taken,
                alu_waits: c.alu_waits,
                max_loop_depth: c.max_loop_depth,
                max_call_depth: c.max_call_depth,
                max_branch_counter: c.max_branch_counter,
            },
            umrt_writes: c.umrt_writes,
            warnings: input.warnings,
        }
    }
}
