//! The cycle model of an RV770-class chip (`docs/sim-r700.md` §3): the
//! functional run's per-wavefront clause events are scheduled onto SIMD
//! engines. Each SIMD has two ALU pipelines (even/odd wavefronts, L619),
//! each issuing one group of one wavefront every 8 cycles (a group takes
//! 4 cycles for 64 threads on 16 thread processors, and two wavefronts
//! interleave), a texture/vertex fetch unit of 4 texture units, and an
//! export path; clause switches and fetch latency delay the wavefront.
//! Wavefronts in flight per SIMD are limited by GPRs and stack.

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::prepare::Prepared;
use super::trace::{self, Span};
use super::wavefront::{Event, WaveOutcome};
use super::{Config, Launch};
use crate::repeat_log::Cursor;

/// Cycles one ALU group occupies an ALU pipeline of its SIMD for a
/// 64-thread wavefront on 16 thread processors (public RV770 material:
/// 4 cycles per group; two wavefronts interleaved → one wavefront issues
/// every 8 cycles).
pub const GROUP_INTERVAL: u64 = 8;
/// Cycles a CF instruction takes in the sequencer (estimate).
pub const CF_CYCLES: u64 = 1;
/// Cycles between a clause's CF instruction and its first instruction
/// (clause switch; estimate after public R600/R700 material, ~40).
pub const CLAUSE_SWITCH: u64 = 40;
/// Texture units per SIMD (RV770: 40 texture units / 10 SIMDs).
pub const TEX_UNITS: u64 = 4;
/// Cycles from a fetch's issue to its data in the GPRs (estimate:
/// texture-cache hit latency, a few hundred cycles on this class).
pub const FETCH_LATENCY: u64 = 200;
/// Cycles an export of one GPR for 64 threads occupies the export path
/// (estimate: 16 threads per cycle → 4 cycles).
pub const EXPORT_CYCLES: u64 = 4;

/// The cycle model's result.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Total cycles (the slowest SIMD).
    pub cycles: u64,
    /// Stall cycles by cause, summed over wavefronts.
    pub stalls: BTreeMap<String, u64>,
    /// Wavefronts allowed in flight per SIMD.
    pub in_flight_limit: usize,
    /// Most wavefronts actually in flight on one SIMD.
    pub in_flight_peak: usize,
    /// Cycles the ALU pipelines were busy, summed over SIMDs.
    pub alu_busy: u64,
    /// Chrome trace (when enabled).
    pub trace: Option<serde_json::Value>,
}

#[derive(Clone)]
struct Slot {
    wave: usize,
    events: Cursor,
    ready: u64,
    pipe: usize,
}

struct SimdResult {
    finish: u64,
    stalls: [u64; 5],
    peak: usize,
    alu_busy: u64,
    spans: Vec<Span>,
}

const STALL_NAMES: [&str; 5] = [
    "alu_busy",
    "fetch_unit_busy",
    "fetch_latency",
    "clause_switch",
    "export_busy",
];

/// Schedule every wavefront's events.
pub fn schedule(
    prepared: &Prepared,
    launch: &Launch,
    config: &Config,
    outcomes: &[WaveOutcome],
) -> Timing {
    let gprs = launch.num_gprs.unwrap_or(prepared.gprs_used).max(1);
    let stack = launch
        .stack_size
        .unwrap_or(config.default_stack_size)
        .max(1);
    let limit = config
        .max_wavefronts_per_simd
        .min((config.gprs_per_lane / gprs) as usize)
        .min((config.stack_entries_per_simd / stack) as usize)
        .max(1);
    let simds = config.simd_engines.max(1);
    let run = |s: usize| simd(s, simds, limit, outcomes, config.trace);
    let results: Vec<SimdResult> = if config.parallel {
        (0..simds).into_par_iter().map(run).collect()
    } else {
        (0..simds).map(run).collect()
    };
    let mut timing = Timing {
        in_flight_limit: limit,
        ..Timing::default()
    };
    let mut spans = Vec::new();
    let mut stalls = [0u64; 5];
    for r in results {
        timing.cycles = timing.cycles.max(r.finish);
        timing.in_flight_peak = timing.in_flight_peak.max(r.peak);
        timing.alu_busy += r.alu_busy;
        for (a, b) in stalls.iter_mut().zip(r.stalls) {
            *a += b;
        }
        spans.extend(r.spans);
    }
    timing.stalls = STALL_NAMES
        .iter()
        .zip(stalls)
        .map(|(n, v)| ((*n).to_string(), v))
        .collect();
    if config.trace {
        timing.trace = Some(trace::chrome(&spans, simds));
    }
    timing
}

fn simd(
    s: usize,
    simds: usize,
    limit: usize,
    outcomes: &[WaveOutcome],
    tracing: bool,
) -> SimdResult {
    let mut queue = (s..outcomes.len()).step_by(simds);
    let mut slots: Vec<Slot> = Vec::new();
    let mut alu_free = [0u64; 2];
    let mut fetch_free = 0u64;
    let mut export_free = 0u64;
    let mut r = SimdResult {
        finish: 0,
        stalls: [0; 5],
        peak: 0,
        alu_busy: 0,
        spans: Vec::new(),
    };
    let mut next_pipe = 0usize;
    let mut admit = |slots: &mut Vec<Slot>, at: u64, next_pipe: &mut usize| {
        if let Some(w) = queue.next() {
            slots.push(Slot {
                wave: w,
                events: outcomes[w].events.cursor(),
                ready: at,
                pipe: *next_pipe & 1,
            });
            *next_pipe += 1;
        }
    };
    for _ in 0..limit {
        admit(&mut slots, 0, &mut next_pipe);
    }
    r.peak = slots.len();
    while !slots.is_empty() {
        // The wavefront ready first (ties: lowest number) goes next.
        let Some((k, _)) = slots
            .iter()
            .enumerate()
            .min_by_key(|(_, sl)| (sl.ready, sl.wave))
        else {
            break;
        };
        let sl = &mut slots[k];
        let Some(ev) = sl.events.next(&outcomes[sl.wave].events) else {
            let ready = sl.ready;
            r.finish = r.finish.max(ready);
            slots.swap_remove(k);
            admit(&mut slots, ready, &mut next_pipe);
            continue;
        };
        let sl = &slots[k];
        let mut ready = sl.ready;
        let mut span = None;
        match ev {
            Event::Cf => ready += CF_CYCLES,
            Event::Alu { groups } => {
                let want = ready + CLAUSE_SWITCH;
                let start = want.max(alu_free[sl.pipe]);
                r.stalls[3] += CLAUSE_SWITCH;
                r.stalls[0] += start - want;
                let dur = u64::from(groups) * GROUP_INTERVAL;
                alu_free[sl.pipe] = start + dur;
                r.alu_busy += dur / 2;
                ready = start + dur;
                span = Some(("ALU", start, dur));
            }
            Event::Tex { n } | Event::Vtx { n } => {
                let want = ready + CLAUSE_SWITCH;
                let start = want.max(fetch_free);
                r.stalls[3] += CLAUSE_SWITCH;
                r.stalls[1] += start - want;
                let busy = u64::from(n) * (64 / TEX_UNITS);
                fetch_free = start + busy;
                r.stalls[2] += FETCH_LATENCY;
                ready = start + busy + FETCH_LATENCY;
                let name = if matches!(ev, Event::Tex { .. }) {
                    "TEX"
                } else {
                    "VTX"
                };
                span = Some((name, start, busy + FETCH_LATENCY));
            }
            Event::Export { n } => {
                let start = ready.max(export_free);
                r.stalls[4] += start - ready;
                let dur = u64::from(n) * EXPORT_CYCLES;
                export_free = start + dur;
                ready = start + dur;
                span = Some(("EXPORT", start, dur));
            }
        }
        if tracing
            && let Some((name, start, dur)) = span
            && r.spans.len() < trace::MAX_SPANS_PER_SIMD
        {
            r.spans.push(Span {
                simd: s as u32,
                wave: sl.wave as u64,
                name,
                start,
                dur,
            });
        }
        slots[k].ready = ready;
    }
    r
}
