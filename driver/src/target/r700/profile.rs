//! What R700 runs report: [`Stats`] from the simulator's statistics
//! (summed over the launches of a reduction), and Chrome trace events per
//! SIMD engine.
//!
//! The spec's keys (§9) come from the simulator's own fields of the same
//! names; everything else it measures — ALU groups and slots, the VLIW
//! occupancy histogram (groups of 1..5 slots), the ALU:fetch ratio, clauses
//! by type, CF instructions, wavefronts and wavefronts in flight, memory
//! traffic — goes under its own key (`docs/sim-r700.md`).

use crate::stats::Stats;
use crate::trace::{TraceEvent, TraceTrack};
use ctm_frontend::Target;
use serde_json::{Map, Value, json};

/// Keys of the simulator's statistics that [`Stats`] has as fields.
const OWN_KEYS: [&str; 10] = [
    "target",
    "elements",
    "cycles",
    "cycles_per_element",
    "instructions",
    "instructions_by_kind",
    "alu_slot_utilization",
    "registers",
    "stalls",
    "discarded",
];

/// Keys merged by maximum rather than by sum over launches.
const MAX_KEYS: [&str; 4] = [
    "wavefronts_in_flight",
    "simd_engines",
    "stack_entries",
    "registers",
];

/// `a + b` for counters (numbers, arrays and objects of them), `b` where
/// the two cannot be added.
fn add(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_u64(), y.as_u64()) {
            (Some(x), Some(y)) => json!(x + y),
            _ => json!(x.as_f64().unwrap_or(0.0) + y.as_f64().unwrap_or(0.0)),
        },
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            Value::Array(x.iter().zip(y).map(|(p, q)| add(p, q)).collect())
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut m = x.clone();
            for (k, v) in y {
                let sum = m.get(k).map_or_else(|| v.clone(), |old| add(old, v));
                m.insert(k.clone(), sum);
            }
            Value::Object(m)
        }
        _ => b.clone(),
    }
}

/// The `--stats` of R700 launches of `entry` (`passes`: a reduction's).
pub fn stats(entry: &str, launches: &[ctm_sim::r700::Stats], passes: Option<u32>) -> Stats {
    let mut s = Stats::new(Target::R700, entry);
    s.passes = passes;
    let mut slots_weighted = 0.0;
    let mut groups = 0u64;
    let mut extra = Map::new();
    for l in launches {
        s.elements += l.elements;
        s.cycles += l.cycles;
        s.instructions += l.instructions;
        for (k, v) in &l.instructions_by_kind {
            *s.instructions_by_kind.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &l.stalls {
            *s.stalls.entry(k.clone()).or_default() += v;
        }
        s.registers = s.registers.max(l.registers);
        s.discarded += l.discarded;
        slots_weighted += l.alu_slot_utilization * l.alu_groups as f64;
        groups += l.alu_groups;
        if let Ok(Value::Object(all)) = serde_json::to_value(l) {
            for (k, v) in all {
                if OWN_KEYS.contains(&k.as_str()) {
                    continue;
                }
                let merged = match extra.get(&k) {
                    None => v,
                    Some(old) if MAX_KEYS.contains(&k.as_str()) => {
                        if old.as_f64() >= v.as_f64() {
                            old.clone()
                        } else {
                            v
                        }
                    }
                    Some(old) => add(old, &v),
                };
                extra.insert(k, merged);
            }
        }
    }
    s.alu_slot_utilization = if groups > 0 {
        (slots_weighted / groups as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // A ratio does not add: recompute it over every launch.
    if launches.len() > 1 {
        let fetches: u64 = launches
            .iter()
            .map(|l| l.instructions_by_kind.get("fetch").copied().unwrap_or(0))
            .sum();
        extra.insert(
            "alu_fetch_ratio".into(),
            if fetches > 0 {
                json!(groups as f64 / fetches as f64)
            } else {
                Value::Null
            },
        );
    }
    s.extra = extra;
    s
}

pub use crate::target::LAUNCH_TRACK;
use crate::target::{launch_event, launch_track};

/// Builds the trace of consecutive launches: one event per launch on
/// [`LAUNCH_TRACK`] and the simulator's clause and export events on one
/// track per SIMD engine, shifted by the cycles of earlier launches.
#[derive(Clone, Debug, Default)]
pub struct TraceBuilder {
    events: Vec<TraceEvent>,
    simds: u32,
    offset: u64,
}

impl TraceBuilder {
    /// Adds a launch named `name` of `cycles` with the simulator's Chrome
    /// trace `chrome` (if it recorded one).
    pub fn launch(&mut self, name: &str, cycles: u64, chrome: Option<&Value>) {
        self.events
            .push(launch_event(name, self.offset, cycles, Map::new()));
        let events = chrome
            .and_then(|c| c.get("traceEvents"))
            .and_then(Value::as_array);
        for e in events.into_iter().flatten() {
            if e.get("ph").and_then(Value::as_str) != Some("X") {
                continue;
            }
            let simd = e.get("tid").and_then(Value::as_u64).unwrap_or(0) as u32;
            self.simds = self.simds.max(simd + 1);
            self.events.push(TraceEvent {
                name: e
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
                category: "r700".into(),
                track: LAUNCH_TRACK + 1 + simd,
                start_us: (self.offset + e.get("ts").and_then(Value::as_u64).unwrap_or(0)) as f64,
                duration_us: e.get("dur").and_then(Value::as_u64).unwrap_or(0) as f64,
                args: e
                    .get("args")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            });
        }
        self.offset += cycles;
    }

    /// The named tracks and the events.
    pub fn finish(self) -> (Vec<TraceTrack>, Vec<TraceEvent>) {
        let mut tracks = vec![launch_track()];
        tracks.extend((0..self.simds).map(|s| TraceTrack {
            id: LAUNCH_TRACK + 1 + s,
            name: format!("SIMD {s}"),
        }));
        (tracks, self.events)
    }
}
