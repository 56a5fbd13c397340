//! What X1K runs report: [`Stats`] from the processor array's
//! [`DppStats`] (summed over the launches of a reduction), and Chrome
//! trace events from the batch timings.
//!
//! The spec's keys map as follows: `cycles` and `elements` are summed over
//! launches; `instructions` is the instructions *issued* (once per batch,
//! the hardware's view; by kind in `instructions_by_kind`: `alu`, `out`,
//! `tex`, `fc`); `alu_slot_utilization` is the used share of the RGB and
//! alpha slots of ALU and OUT instructions; `registers` the temporaries per
//! element (`US_PIXSIZE` + 1); `stalls` the dispatcher cycles by cause.
//! Everything else the simulator measures goes under its own key
//! (`coissue`, `simd_efficiency`, `batches_in_flight`, `texture`, `memory`,
//! `flow`, `fc_mode`, ...), and the device's performance counters under
//! `perf_counters`.

use crate::stats::Stats;
use crate::trace::{TraceEvent, TraceTrack};
use ctm_frontend::Target;
use ctm_sim::x1k::dpp::{BatchTiming, DppStats};
use serde_json::{Map, Value, json};

/// The statistics of one launch: the processor array's and the device's
/// performance counters (total clocks, active clocks).
#[derive(Clone, Debug, Default)]
pub struct LaunchStats {
    /// The processor array's statistics.
    pub dpp: DppStats,
    /// The performance counters, if read.
    pub perf: Option<(u32, u32)>,
}

/// A weighted mean that is 0 when the weights are.
fn mean(a: f64, wa: f64, b: f64, wb: f64) -> f64 {
    if wa + wb > 0.0 {
        (a * wa + b * wb) / (wa + wb)
    } else {
        0.0
    }
}

/// The statistics of two launches run one after the other.
pub fn merge(a: &DppStats, b: &DppStats) -> DppStats {
    let mut m = a.clone();
    let slots = |s: &DppStats| (s.instructions.alu + s.instructions.out) as f64;
    let issued = |s: &DppStats| s.instructions.total as f64;
    m.elements += b.elements;
    m.killed += b.killed;
    m.group_size = a.group_size.max(b.group_size);
    m.batches += b.batches;
    m.cycles += b.cycles;
    m.cycles_per_element = if m.elements > 0 {
        m.cycles as f64 / m.elements as f64
    } else {
        0.0
    };
    m.microseconds += b.microseconds;
    if b.cycles > a.cycles {
        m.bound = b.bound;
    }
    m.instructions.total += b.instructions.total;
    m.instructions.alu += b.instructions.alu;
    m.instructions.out += b.instructions.out;
    m.instructions.tex += b.instructions.tex;
    m.instructions.fc += b.instructions.fc;
    m.element_instructions += b.element_instructions;
    m.coissue.both += b.coissue.both;
    m.coissue.rgb_only += b.coissue.rgb_only;
    m.coissue.alpha_only += b.coissue.alpha_only;
    m.alu_slot_utilization = mean(
        a.alu_slot_utilization,
        slots(a),
        b.alu_slot_utilization,
        slots(b),
    );
    m.simd_efficiency = mean(a.simd_efficiency, issued(a), b.simd_efficiency, issued(b));
    m.stalls.semaphore += b.stalls.semaphore;
    m.stalls.alu_wait += b.stalls.alu_wait;
    m.stalls.nop += b.stalls.nop;
    m.stalls.flow_control += b.stalls.flow_control;
    m.stalls.drain += b.stalls.drain;
    m.registers = a.registers.max(b.registers);
    if b.fc_mode == "full" {
        m.fc_mode = b.fc_mode;
    }
    m.batches_in_flight.limit = a.batches_in_flight.limit.max(b.batches_in_flight.limit);
    m.batches_in_flight.max = a.batches_in_flight.max.max(b.batches_in_flight.max);
    m.batches_in_flight.mean = mean(
        a.batches_in_flight.mean,
        a.cycles as f64,
        b.batches_in_flight.mean,
        b.cycles as f64,
    );
    m.texture.texels += b.texture.texels;
    m.texture.unit_cycles += b.texture.unit_cycles;
    m.texture.semaphore_waits += b.texture.semaphore_waits;
    m.texture.kills += b.texture.kills;
    m.memory.texture_bytes += b.memory.texture_bytes;
    m.memory.output_bytes += b.memory.output_bytes;
    m.memory.umrt_bytes += b.memory.umrt_bytes;
    m.memory.bandwidth_cycles += b.memory.bandwidth_cycles;
    m.flow.jumps_taken += b.flow.jumps_taken;
    m.flow.alu_waits += b.flow.alu_waits;
    m.flow.max_loop_depth = a.flow.max_loop_depth.max(b.flow.max_loop_depth);
    m.flow.max_call_depth = a.flow.max_call_depth.max(b.flow.max_call_depth);
    m.flow.max_branch_counter = a.flow.max_branch_counter.max(b.flow.max_branch_counter);
    m.umrt_writes += b.umrt_writes;
    m.warnings += b.warnings;
    m
}

/// Keys of [`DppStats`] that [`Stats`] has as fields of its own.
const OWN_KEYS: [&str; 8] = [
    "elements",
    "killed",
    "cycles",
    "cycles_per_element",
    "instructions",
    "alu_slot_utilization",
    "registers",
    "stalls",
];

/// The `--stats` of X1K launches of `entry` (`passes`: a reduction's).
pub fn stats(entry: &str, launches: &[LaunchStats], passes: Option<u32>) -> Stats {
    let merged = launches
        .iter()
        .map(|l| l.dpp.clone())
        .reduce(|a, b| merge(&a, &b))
        .unwrap_or_default();
    let mut s = Stats::new(Target::X1k, entry);
    s.elements = merged.elements;
    s.cycles = merged.cycles;
    s.instructions = merged.instructions.total;
    for (kind, n) in [
        ("alu", merged.instructions.alu),
        ("out", merged.instructions.out),
        ("tex", merged.instructions.tex),
        ("fc", merged.instructions.fc),
    ] {
        s.instructions_by_kind.insert(kind.to_string(), n);
    }
    s.alu_slot_utilization = merged.alu_slot_utilization.clamp(0.0, 1.0);
    s.registers = merged.registers;
    if let Ok(Value::Object(stalls)) = serde_json::to_value(merged.stalls) {
        for (cause, n) in stalls {
            s.stalls.insert(cause, n.as_u64().unwrap_or(0));
        }
    }
    s.discarded = merged.killed;
    s.passes = passes;
    if let Ok(Value::Object(all)) = serde_json::to_value(&merged) {
        for (k, v) in all {
            if !OWN_KEYS.contains(&k.as_str()) {
                s.extra.insert(k, v);
            }
        }
    }
    let perf: Vec<(u32, u32)> = launches.iter().filter_map(|l| l.perf).collect();
    if !perf.is_empty() {
        let total: u64 = perf.iter().map(|p| u64::from(p.0)).sum();
        let active: u64 = perf.iter().map(|p| u64::from(p.1)).sum();
        s.extra.insert(
            "perf_counters".into(),
            json!({"total_clocks": total, "active_clocks": active}),
        );
    }
    s
}

pub use crate::target::LAUNCH_TRACK;
use crate::target::{launch_event, launch_track};

/// Builds the trace of consecutive launches: one event per launch on
/// [`LAUNCH_TRACK`], and one event per batch, from its first to its last
/// issue, on its dispatcher's track. Batches resident on one dispatcher at
/// the same time go to further tracks of that dispatcher (`dispatcher 0`,
/// `dispatcher 0 (2)`, ...), because complete events on one track must
/// nest.
#[derive(Clone, Debug, Default)]
pub struct TraceBuilder {
    events: Vec<TraceEvent>,
    /// Per (dispatcher, lane): the cycle its last event ended.
    lanes: Vec<Vec<u64>>,
    /// Cycles of the launches so far.
    offset: u64,
}

/// Tracks per dispatcher before the track numbers of two dispatchers
/// could collide.
const LANES_PER_DISPATCHER: u32 = 256;

impl TraceBuilder {
    /// An empty trace.
    pub fn new() -> TraceBuilder {
        TraceBuilder::default()
    }

    fn track(dispatcher: u32, lane: usize) -> u32 {
        2 + dispatcher.saturating_mul(LANES_PER_DISPATCHER) + lane as u32
    }

    /// Adds a launch named `name` of `cycles` cycles with its batches.
    pub fn launch(&mut self, name: &str, cycles: u64, elements: u64, batches: &[BatchTiming]) {
        self.launch_counted(name, cycles, elements, batches.len(), batches);
    }

    /// As [`TraceBuilder::launch`] for a launch of `batch_count` batches
    /// of which `batches` get events (none when the trace is not wanted).
    pub fn launch_counted(
        &mut self,
        name: &str,
        cycles: u64,
        elements: u64,
        batch_count: usize,
        batches: &[BatchTiming],
    ) {
        let offset = self.offset;
        let mut args = Map::new();
        args.insert("elements".into(), json!(elements));
        args.insert("batches".into(), json!(batch_count));
        args.insert("cycles".into(), json!(cycles));
        self.events.push(launch_event(name, offset, cycles, args));
        let mut order: Vec<&BatchTiming> = batches.iter().collect();
        order.sort_by_key(|b| (b.start_cycle, b.batch));
        for b in order {
            let start = offset + b.start_cycle;
            let end = offset + b.end_cycle.max(b.start_cycle) + 1;
            let d = b.dispatcher.min(LANES_PER_DISPATCHER * 64) as usize;
            if self.lanes.len() <= d {
                self.lanes.resize(d + 1, Vec::new());
            }
            let lanes = &mut self.lanes[d];
            let lane = match lanes.iter().position(|&free| free <= start) {
                Some(l) => l,
                None if lanes.len() < LANES_PER_DISPATCHER as usize => {
                    lanes.push(0);
                    lanes.len() - 1
                }
                // So many overlapping batches: share the last track.
                None => lanes.len() - 1,
            };
            lanes[lane] = end;
            let mut args = Map::new();
            args.insert("batch".into(), json!(b.batch));
            args.insert("first_element".into(), json!(b.first_element));
            args.insert("elements".into(), json!(b.elements));
            args.insert("admit_cycle".into(), json!(offset + b.admit_cycle));
            args.insert(
                "waited_cycles".into(),
                json!(b.start_cycle.saturating_sub(b.admit_cycle)),
            );
            self.events.push(TraceEvent {
                name: format!("batch {}", b.batch),
                category: "batch".into(),
                track: Self::track(b.dispatcher, lane),
                start_us: start as f64,
                duration_us: (end - start) as f64,
                args,
            });
        }
        self.offset += cycles;
    }

    /// The named tracks and the events.
    pub fn finish(self) -> (Vec<TraceTrack>, Vec<TraceEvent>) {
        let mut tracks = vec![launch_track()];
        for (d, lanes) in self.lanes.iter().enumerate() {
            for lane in 0..lanes.len() {
                let name = if lane == 0 {
                    format!("dispatcher {d}")
                } else {
                    format!("dispatcher {d} ({})", lane + 1)
                };
                tracks.push(TraceTrack {
                    id: Self::track(d as u32, lane),
                    name,
                });
            }
        }
        (tracks, self.events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dpp(elements: u64, cycles: u64, util: f64, alu: u64) -> DppStats {
        let mut s = DppStats {
            elements,
            cycles,
            alu_slot_utilization: util,
            registers: 3,
            fc_mode: "partial",
            ..DppStats::default()
        };
        s.instructions.alu = alu;
        s.instructions.total = alu;
        s.stalls.semaphore = 5;
        s
    }

    #[test]
    fn launches_add_up() {
        let launches = [
            LaunchStats {
                dpp: dpp(100, 400, 0.5, 30),
                perf: Some((410, 400)),
            },
            LaunchStats {
                dpp: dpp(25, 100, 1.0, 10),
                perf: Some((110, 100)),
            },
        ];
        let s = stats("sum", &launches, Some(2));
        assert_eq!(s.elements, 125);
        assert_eq!(s.cycles, 500);
        assert_eq!(s.instructions, 40);
        assert!((s.alu_slot_utilization - 0.625).abs() < 1e-12);
        assert_eq!(s.stalls["semaphore"], 10);
        let v = s.to_json();
        assert_eq!(v["cycles_per_element"], 4.0);
        assert_eq!(v["passes"], 2);
        assert_eq!(v["perf_counters"]["total_clocks"], 520);
        assert_eq!(v["fc_mode"], "partial");
        assert_eq!(v["instructions"], 40);
        assert_eq!(v["instructions_by_kind"]["alu"], 40);
    }

    #[test]
    fn overlapping_batches_get_their_own_tracks() {
        let b = |batch, dispatcher, start, end| BatchTiming {
            batch,
            dispatcher,
            first_element: batch * 48,
            elements: 48,
            admit_cycle: 0,
            start_cycle: start,
            end_cycle: end,
        };
        let mut t = TraceBuilder::new();
        t.launch(
            "k",
            100,
            192,
            &[b(0, 0, 0, 50), b(1, 0, 10, 60), b(2, 1, 0, 40)],
        );
        t.launch("k", 100, 48, &[b(0, 0, 0, 10)]);
        let (tracks, events) = t.finish();
        let names: Vec<&str> = tracks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "launches",
                "dispatcher 0",
                "dispatcher 0 (2)",
                "dispatcher 1"
            ]
        );
        assert_eq!(events.len(), 6);
        // The second launch starts after the first.
        assert_eq!(events[4].start_us, 100.0);
        assert_eq!(events[5].start_us, 100.0);
        assert_eq!(events[5].track, events[1].track);
    }
}
