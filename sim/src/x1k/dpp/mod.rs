//! The X1K data-parallel processor array: exact instruction semantics of
//! the CTM guide chapter 3 for any valid program, and a cycle model.
//!
//! Entry point: [`run_program`] runs a decoded [`Program`] over a list of
//! index pairs, reading inputs and constants through a [`DppMemory`], and
//! returns one [`ElementResult`] per pair plus [`DppStats`] and per-batch
//! timings ([`BatchTiming`]); a broken rule is a [`DppFault`] naming the
//! slot and the CTM section, never a panic.
//!
//! How it runs: the program is prepared once (`prepare`); the elements
//! are cut, in order, into SIMD groups of [`DppOptions::group_size`]
//! processors (the hardware's batches); each group runs in lock step with
//! per-processor active bits, branch counters and loop masks (CTM §3.5),
//! registers held as structure-of-arrays so every instruction is a tight
//! loop over the group's lanes; groups run in parallel (rayon) and their
//! results are merged in order, so a run is deterministic. Afterwards the
//! batches' recorded segments are scheduled on the modelled dispatchers
//! ([`cycle`]). The model's decisions and constants are in
//! `docs/sim-x1k.md`.
//!
//! [`Dpp`] is the same behind the device's `ProcessorArray` trait.
//!
//! Module map: [`mod@array`] (the device adapter), [`fault`] (errors and
//! hazards), `prepare` (decode-once), `state` (group state), `fp` and
//! `transcendental` (floating-point rules), `alu`, `flow`, `tex` (the three
//! instruction kinds), `group` (the instruction loop), `timing` (per-batch
//! recording), [`cycle`] (the machine model), [`stats`]. ALU instructions
//! run on one of two engines ([`Engine`]) with the same results: the fast
//! one in `alu` with `operands` (operands bound once), `lanes` (vectorised
//! kernels) and `writes`; the reference one in `reference` with `sources`
//! (operands channel by channel, scalar rules per lane).

mod alu;
pub mod array;
pub mod cycle;
pub mod fault;
mod flow;
mod fp;
mod group;
mod lanes;
mod operands;
mod prepare;
mod reference;
mod sources;
mod state;
pub mod stats;
mod tex;
mod timing;
mod transcendental;
mod writes;

use rayon::prelude::*;
use std::sync::atomic::AtomicU64;

pub use array::{Dpp, RunRecord};
pub use cycle::{BatchTiming, CycleModel, StallCycles};
pub use fault::{DppFault, FaultKind, HazardPolicy, Warning};
pub use state::MAX_GROUP_SIZE;
pub use stats::DppStats;
pub use timing::Counters;

use crate::x1k::interface::{DppMemory, ElementResult, Elements, Program};
use flow::FcConstants;
use group::{GroupOutcome, RunContext};
use state::Spare;
use timing::Costs;

/// Options of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct DppOptions {
    /// Processors per SIMD group (batch), 1..=[`MAX_GROUP_SIZE`]; values
    /// outside are clamped. Default 48, the R580 batch. Results of a valid
    /// program do not depend on it; cycles do.
    pub group_size: usize,
    /// Backward jumps one element may take before its group faults with
    /// [`FaultKind::RunawayLoop`] (`group::run_group`): the reference
    /// interpreter's steps per element
    /// (`ctm_frontend::interp::MAX_STEPS_PER_ELEMENT`, which ctmc sets
    /// here), so whatever the reference runs, the array runs.
    pub step_limit: u64,
    /// Hazards: fault (default) or warn.
    pub hazards: HazardPolicy,
    /// The machine.
    pub cycle_model: CycleModel,
    /// How instructions are executed (results are the same bit for bit).
    pub engine: Engine,
    /// Counts finished elements for a progress display (none by default).
    pub progress: Progress,
    /// Whether the driver builds per-batch trace events (`ctmc --trace`).
    /// The array keeps its batch timings either way (a few bytes per
    /// batch); the driver's events cost about a kilobyte per batch, so
    /// they are made only when asked for (off by default).
    pub trace: bool,
}

/// How the array executes instructions. Both engines give the same
/// results, statistics, warnings and faults, bit for bit; the equivalence
/// tests check it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Vectorised lane kernels and pre-resolved operands (the default).
    #[default]
    Fast,
    /// The straightforward implementation: operands assembled channel by
    /// channel and every lane through the scalar rule functions. Slower;
    /// the yardstick of the fast engine.
    Reference,
}

impl Default for DppOptions {
    fn default() -> Self {
        DppOptions {
            group_size: 48,
            step_limit: 1 << 24,
            hazards: HazardPolicy::Fault,
            cycle_model: CycleModel::default(),
            engine: Engine::Fast,
            progress: Progress::default(),
            trace: false,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DppRun {
    /// One per index pair, in the order given.
    pub results: Vec<ElementResult>,
    /// Statistics.
    pub stats: DppStats,
    /// When each batch ran (for a Chrome trace).
    pub batches: Vec<BatchTiming>,
    /// Hazards seen under [`HazardPolicy::Warn`], in slot order.
    pub warnings: Vec<Warning>,
}

/// Run `program` once for each index pair of `elements`, collecting every
/// element's result (tests and bare runs; the device streams them instead,
/// [`run_program_streaming`]).
///
/// # Errors
///
/// A [`DppFault`] for the first broken rule, in element order (the group
/// holding the earliest elements wins): a program-level rule
/// (`US_CODE_ADDR`, the last instruction must be OUT), a single-instruction
/// rule met when the instruction executes, a stack, counter or step limit,
/// or — under [`HazardPolicy::Fault`] — a synchronisation hazard.
pub fn run_program(
    program: &Program,
    elements: &[(u32, u32)],
    memory: &dyn DppMemory,
    options: &DppOptions,
) -> Result<DppRun, DppFault> {
    let mut results: Vec<ElementResult> = Vec::new();
    let mut collect = |wave: &[ElementResult]| -> Result<(), std::convert::Infallible> {
        results.extend_from_slice(wave);
        Ok(())
    };
    match run_program_streaming(
        program,
        Elements::List(elements),
        memory,
        options,
        &mut collect,
    ) {
        Ok(summary) => Ok(DppRun {
            results,
            stats: summary.stats,
            batches: summary.batches,
            warnings: summary.warnings,
        }),
        Err(StreamError::Fault(f)) => Err(f),
        Err(StreamError::Sink(never)) => match never {},
    }
}

/// What a streamed run produced besides the element results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DppSummary {
    /// Statistics.
    pub stats: DppStats,
    /// When each batch ran (for a Chrome trace).
    pub batches: Vec<BatchTiming>,
    /// Hazards seen under [`HazardPolicy::Warn`], in slot order.
    pub warnings: Vec<Warning>,
}

/// Why a streamed run stopped.
#[derive(Debug)]
pub enum StreamError<E> {
    /// The program broke a rule (the first in element order).
    Fault(DppFault),
    /// The sink refused a wave of results.
    Sink(E),
}

/// A shared count of the elements a run has finished, for a progress
/// display: the array adds each group's elements when the group is done
/// (one relaxed atomic add per group). Clones share the count; two
/// counters are equal when they are the same count (or both absent).
#[derive(Clone, Debug, Default)]
pub struct Progress(Option<std::sync::Arc<std::sync::atomic::AtomicU64>>);

impl Progress {
    /// A new counter at 0.
    pub fn new() -> Self {
        Progress(Some(Default::default()))
    }

    /// Elements finished so far (0 for an absent counter).
    pub fn done(&self) -> u64 {
        self.0
            .as_ref()
            .map_or(0, |c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    fn add(&self, n: u64) {
        if let Some(c) = &self.0 {
            c.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

impl PartialEq for Progress {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// Groups per wave of a streamed run, per worker thread (at least
/// [`WAVE_MIN_GROUPS`] in all): enough parallel slack for rayon, while the
/// results held at once stay a few MB whatever the domain.
const WAVE_GROUPS_PER_THREAD: usize = 32;
/// The smallest wave, in groups.
const WAVE_MIN_GROUPS: usize = 128;

/// Run `program` once for each index pair of `elements`, handing the
/// results to `sink` wave by wave, in element order, while the next wave
/// runs (the sink runs on one worker thread, overlapped with the groups of
/// the next wave; it gets each element once, in the order given).
/// Memory: two waves of results, a few MB, whatever the number of
/// elements, plus one segment list and one timing per batch.
///
/// Results, statistics, batch timings, warnings and faults are those of
/// [`run_program`] bit for bit (it is this function with a collecting sink).
///
/// # Errors
///
/// [`StreamError::Fault`] as [`run_program`]'s faults (waves before the
/// faulting one have been handed to the sink);
/// [`StreamError::Sink`] with the sink's first error (the run stops).
pub fn run_program_streaming<E: Send>(
    program: &Program,
    elements: Elements<'_>,
    memory: &dyn DppMemory,
    options: &DppOptions,
    sink: &mut (dyn FnMut(&[ElementResult]) -> Result<(), E> + Send),
) -> Result<DppSummary, StreamError<E>> {
    let plan = prepare::prepare(program);
    let group_size = options.group_size.clamp(1, MAX_GROUP_SIZE);
    let model = &options.cycle_model;
    if elements.is_empty() {
        return Ok(DppSummary::default());
    }
    if let Some((slot, kind)) = plan.program_fault.clone() {
        return Err(StreamError::Fault(DppFault::new(slot, kind)));
    }
    let consts: Vec<[f32; 4]> = (0..=255u8).map(|i| memory.float_constant(i)).collect();
    let bound = match options.engine {
        Engine::Fast => plan
            .slots
            .iter()
            .map(|slot| match slot {
                prepare::Slot::Alu(p) => operands::BoundAlu::bind_static(p, &consts, plan.nregs),
                _ => None,
            })
            .collect(),
        Engine::Reference => Vec::new(),
    };
    let ctx = RunContext {
        plan: &plan,
        memory,
        consts,
        bound,
        fc_consts: FcConstants {
            ints: std::array::from_fn(|i| memory.int_constant(i as u8)),
            bools: (0..32u8).fold(0, |b, i| b | (u32::from(memory.bool_constant(i)) << i)),
        },
        costs: Costs {
            issue: model.issue_cycles(group_size),
            fc: model.fc_cycles,
            tmus: u64::from(model.tmus_per_dispatcher.max(1)),
            umrt_per_processor: model.umrt_per_processor_factor,
        },
        step_limit: options.step_limit,
        first_fault: AtomicU64::new(u64::MAX),
        policy: options.hazards,
        engine: options.engine,
    };
    let wave_groups = (WAVE_GROUPS_PER_THREAD * rayon::current_num_threads()).max(WAVE_MIN_GROUPS);
    let wave_len = wave_groups * group_size;
    let progress = &options.progress;
    // Run one wave's groups in parallel into `out` (reused from wave to
    // wave: each group overwrites its slots); each worker reuses one
    // group's allocations from group to group.
    // `start` is the wave's first element: groups are numbered from the
    // run's start, so that a fault stops the groups after it (`group.rs`).
    let compute = |start: usize, wave: &[(u32, u32)], out: &mut Vec<ElementResult>| {
        out.resize_with(wave.len(), ElementResult::default);
        let first_group = (start / group_size) as u64;
        wave.par_chunks(group_size)
            .zip(out.par_chunks_mut(group_size))
            .enumerate()
            .map_init(Spare::default, |spare, (k, (chunk, out))| {
                let ordinal = first_group + k as u64;
                let outcome = group::run_group(&ctx, ordinal, chunk, out, spare);
                progress.add(chunk.len() as u64);
                outcome
            })
            .collect::<Vec<Result<GroupOutcome, DppFault>>>()
    };

    let mut counters = Counters::default();
    let mut profiles = Vec::with_capacity(elements.len().div_ceil(group_size));
    let mut warnings: Vec<Warning> = Vec::new();
    let (mut killed, mut output_channels) = (0u64, 0u64);
    let mut merge = |outcomes: Vec<Result<GroupOutcome, DppFault>>| -> Result<(), DppFault> {
        for outcome in outcomes {
            let outcome = outcome?;
            counters.add(&outcome.profile.counters);
            killed += outcome.killed;
            output_channels += outcome.output_channels;
            for (slot, kind, count) in outcome.warnings {
                match warnings
                    .iter_mut()
                    .find(|w| w.slot == slot && w.kind == kind)
                {
                    Some(w) => w.count += count,
                    None => warnings.push(Warning {
                        slot,
                        rule: kind.rule(),
                        kind,
                        count,
                    }),
                }
            }
            profiles.push(outcome.profile.segments);
        }
        Ok(())
    };

    // Wave k's results go to the sink while wave k+1 runs.
    let (mut ready, mut spare_buf) = (Vec::new(), Vec::new());
    // The pairs of a wave (made per wave for a rectangle: no per-element
    // list of the whole run).
    let mut pairs = Vec::new();
    let first = elements.slice(0, wave_len, &mut pairs);
    let outcomes = compute(0, first, &mut ready);
    merge(outcomes).map_err(StreamError::Fault)?;
    let mut start = wave_len;
    while start < elements.len() {
        let wave = elements.slice(start, start + wave_len, &mut pairs);
        let (sunk, outcomes) =
            rayon::join(|| sink(&ready), || compute(start, wave, &mut spare_buf));
        sunk.map_err(StreamError::Sink)?;
        merge(outcomes).map_err(StreamError::Fault)?;
        std::mem::swap(&mut ready, &mut spare_buf);
        start += wave_len;
    }
    // The last wave's results go to the sink while the batches are
    // scheduled.
    warnings.sort_by_key(|w| w.slot);
    let registers = plan.nregs as u32;
    let in_flight = model.batches_in_flight(registers, plan.full_fc);
    let inputs: Vec<cycle::BatchInput<'_>> = profiles
        .iter()
        .enumerate()
        .map(|(b, segments)| {
            let first = b * group_size;
            cycle::BatchInput {
                segments,
                first_element: first as u32,
                elements: (elements.len() - first).min(group_size) as u32,
            }
        })
        .collect();
    let (sunk, mut schedule) = rayon::join(
        || sink(&ready),
        || cycle::schedule(model, &inputs, in_flight),
    );
    sunk.map_err(StreamError::Sink)?;
    drop((ready, spare_buf));
    let stats = DppStats::build(stats::StatsInput {
        model,
        counters: &counters,
        schedule: &schedule,
        elements: elements.len() as u64,
        killed,
        output_channels,
        group_size: group_size as u32,
        batches: profiles.len() as u64,
        registers,
        full_fc: plan.full_fc,
        in_flight_limit: in_flight,
        warnings: warnings.len() as u64,
    });
    // A memory-bound run stretches the schedule uniformly.
    if stats.cycles > schedule.cycles && schedule.cycles > 0 {
        let scale = |t: u64| (t as u128 * stats.cycles as u128 / schedule.cycles as u128) as u64;
        for b in &mut schedule.batches {
            b.admit_cycle = scale(b.admit_cycle);
            b.start_cycle = scale(b.start_cycle);
            b.end_cycle = scale(b.end_cycle);
        }
    }
    Ok(DppSummary {
        stats,
        batches: schedule.batches,
        warnings,
    })
}

/// One input of a [`TableMemory`]: width, height, texels row-major.
pub type TableInput = (u32, u32, Vec<[f32; 4]>);

/// A plain-table [`DppMemory`] for bare runs and tests: inputs as row-major
/// RGBA arrays, constants as arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableMemory {
    /// Inputs 0..16: (width, height, texels row-major).
    pub inputs: Vec<Option<TableInput>>,
    /// Float constants (missing ones read 0).
    pub float_constants: Vec<[f32; 4]>,
    /// Integer constants, `US_FC_INT_CONST` packing.
    pub int_constants: [u32; 32],
    /// Boolean constants, bit N = bN.
    pub bool_constants: u32,
}

impl TableMemory {
    /// Set input `index` to a `width` × `height` table (row-major).
    pub fn set_input(&mut self, index: u8, width: u32, height: u32, texels: Vec<[f32; 4]>) {
        let i = usize::from(index);
        if self.inputs.len() <= i {
            self.inputs.resize(i + 1, None);
        }
        self.inputs[i] = Some((width, height, texels));
    }

    /// Set float constant `index`.
    pub fn set_constant(&mut self, index: u8, value: [f32; 4]) {
        let i = usize::from(index);
        if self.float_constants.len() <= i {
            self.float_constants.resize(i + 1, [0.0; 4]);
        }
        self.float_constants[i] = value;
    }

    /// Set integer constant `index` from (count, initial aL, aL step).
    pub fn set_loop(&mut self, index: u8, count: u8, init: u8, step: i8) {
        if let Some(slot) = self.int_constants.get_mut(usize::from(index)) {
            *slot = u32::from(count) | (u32::from(init) << 8) | (u32::from(step as u8) << 16);
        }
    }
}

impl DppMemory for TableMemory {
    fn input_size(&self, input: u8) -> Option<(u32, u32)> {
        self.inputs
            .get(usize::from(input))
            .and_then(|i| i.as_ref())
            .map(|(w, h, _)| (*w, *h))
    }

    fn read_input(&self, input: u8, x: u32, y: u32) -> [f32; 4] {
        self.inputs
            .get(usize::from(input))
            .and_then(|i| i.as_ref())
            .and_then(|(w, _, t)| t.get(y as usize * *w as usize + x as usize))
            .copied()
            .unwrap_or([0.0; 4])
    }

    fn float_constant(&self, index: u8) -> [f32; 4] {
        self.float_constants
            .get(usize::from(index))
            .copied()
            .unwrap_or([0.0; 4])
    }

    fn int_constant(&self, index: u8) -> u32 {
        self.int_constants
            .get(usize::from(index))
            .copied()
            .unwrap_or(0)
    }

    fn bool_constant(&self, index: u8) -> bool {
        index < 32 && self.bool_constants & (1 << index) != 0
    }
}
