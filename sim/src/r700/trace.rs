//! Chrome trace events (`--trace FILE.json`, opens in Perfetto): one
//! complete ("X") event per clause or export, one track per SIMD engine,
//! timestamps in simulated cycles (shown as microseconds).

use serde_json::{Value, json};

/// Spans kept per SIMD (the trace of a huge launch is truncated).
pub const MAX_SPANS_PER_SIMD: usize = 20_000;

/// A clause or export on a SIMD engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The SIMD engine.
    pub simd: u32,
    /// The wavefront.
    pub wave: u64,
    /// "ALU", "TEX", "VTX" or "EXPORT".
    pub name: &'static str,
    /// Start cycle.
    pub start: u64,
    /// Duration in cycles.
    pub dur: u64,
}

/// The trace as a Chrome trace JSON object.
pub fn chrome(spans: &[Span], simds: usize) -> Value {
    let mut events: Vec<Value> = (0..simds)
        .map(|s| {
            json!({"name": "thread_name", "ph": "M", "pid": 0, "tid": s,
                   "args": {"name": format!("SIMD {s}")}})
        })
        .collect();
    events.push(json!({"name": "process_name", "ph": "M", "pid": 0,
                       "args": {"name": "R700 (cycles)"}}));
    for sp in spans {
        events.push(json!({
            "name": sp.name, "cat": "r700", "ph": "X", "pid": 0, "tid": sp.simd,
            "ts": sp.start, "dur": sp.dur, "args": {"wavefront": sp.wave}
        }));
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"})
}
