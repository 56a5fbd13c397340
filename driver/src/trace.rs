//! `--trace FILE.json`: runs as Chrome trace events (the JSON object form
//! of the Trace Event Format, which Perfetto and `chrome://tracing` open).
//!
//! Every event is a complete event (`"ph": "X"`) with a start and a
//! duration in microseconds. The reference interpreter gives one event for
//! the whole run, timed by the wall clock; a simulator gives its own events
//! in simulated time (one microsecond of trace per cycle, so that the
//! viewer's units read as cycles). Tracks can be named ([`TraceTrack`]):
//! the X1K simulator gives one per dispatcher (more when batches resident
//! on a dispatcher overlap, since complete events on one track must nest)
//! and one for the launches.

use serde_json::{Map, Value, json};

/// One complete event.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// What ran, e.g. the kernel's name or an instruction clause.
    pub name: String,
    /// A category, e.g. `ref`, `alu`, `tex`.
    pub category: String,
    /// The track (a thread, wavefront or unit); tracks are numbered from 1.
    pub track: u32,
    /// Start, in microseconds (or cycles) since the run began.
    pub start_us: f64,
    /// Duration, in microseconds (or cycles).
    pub duration_us: f64,
    /// Extra values shown with the event.
    pub args: Map<String, Value>,
}

/// A named track (a row in the viewer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceTrack {
    /// The track number events refer to.
    pub id: u32,
    /// Its name, e.g. `dispatcher 0`.
    pub name: String,
}

/// The trace file's contents: a JSON object with `traceEvents` (a
/// process-name metadata event naming `process`, a thread-name and a
/// sort-index metadata event per named track, then the events) and
/// `displayTimeUnit`.
pub fn chrome_trace(process: &str, tracks: &[TraceTrack], events: &[TraceEvent]) -> Value {
    let mut list = vec![json!({
        "name": "process_name",
        "ph": "M",
        "pid": 1,
        "tid": 0,
        "args": {"name": process},
    })];
    for t in tracks {
        list.push(json!({
            "name": "thread_name",
            "ph": "M",
            "pid": 1,
            "tid": t.id,
            "args": {"name": t.name},
        }));
        list.push(json!({
            "name": "thread_sort_index",
            "ph": "M",
            "pid": 1,
            "tid": t.id,
            "args": {"sort_index": t.id},
        }));
    }
    for e in events {
        list.push(json!({
            "name": e.name,
            "cat": e.category,
            "ph": "X",
            "pid": 1,
            "tid": e.track,
            "ts": finite(e.start_us),
            "dur": finite(e.duration_us),
            "args": e.args,
        }));
    }
    json!({
        "traceEvents": list,
        "displayTimeUnit": "ns",
    })
}

/// JSON has no NaN or infinity.
fn finite(x: f64) -> f64 {
    if x.is_finite() { x.max(0.0) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_complete_event() {
        let mut args = Map::new();
        args.insert("elements".into(), json!(65536));
        let t = chrome_trace(
            "ctmc ref",
            &[TraceTrack {
                id: 1,
                name: "reference interpreter".into(),
            }],
            &[TraceEvent {
                name: "saxpy".into(),
                category: "ref".into(),
                track: 1,
                start_us: 0.0,
                duration_us: f64::NAN,
                args,
            }],
        );
        let text = serde_json::to_string(&t).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        let events = back["traceEvents"].as_array().unwrap();
        assert_eq!(events.len(), 4);
        assert_eq!(events[1]["args"]["name"], "reference interpreter");
        assert_eq!(events[3]["ph"], "X");
        assert_eq!(events[3]["name"], "saxpy");
        assert_eq!(events[3]["dur"], 0.0);
        assert_eq!(events[3]["args"]["elements"], 65536);
    }
}
