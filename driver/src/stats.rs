//! Run statistics (`--stats`, `--stats=json`, spec §9): one [`Stats`]
//! value for every target, rendered as a human-readable report or as one
//! JSON object.
//!
//! The JSON object always has the keys `target`, `entry`, `elements`,
//! `cycles`, `cycles_per_element`, `instructions`, `alu_slot_utilization`,
//! `registers` and `stalls`; the reference interpreter adds `operations`
//! (by kind), `discarded`, and `passes` for reductions; a simulator adds
//! its own keys through [`Stats::extra`] (threads in flight, clauses,
//! memory traffic, ...).

use ctm_frontend::Target;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a run counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// The target that ran.
    pub target: Target,
    /// The entry point.
    pub entry: String,
    /// Elements run (over all passes of a reduction).
    pub elements: u64,
    /// Simulated cycles in total (0 for the reference interpreter).
    pub cycles: u64,
    /// Instructions executed (for the reference interpreter: operations
    /// evaluated).
    pub instructions: u64,
    /// Instructions executed by kind (for the reference interpreter:
    /// operations by kind).
    pub instructions_by_kind: BTreeMap<String, u64>,
    /// Fraction of ALU issue slots used, 0 to 1 (0 for the reference).
    pub alu_slot_utilization: f64,
    /// Registers used (0 for the reference).
    pub registers: u32,
    /// Stall cycles by cause (empty for the reference).
    pub stalls: BTreeMap<String, u64>,
    /// Elements that ended in `discard`.
    pub discarded: u64,
    /// Passes of a reduction (`None` for kernels).
    pub passes: Option<u32>,
    /// Further target-specific keys, added to the JSON as they are.
    pub extra: Map<String, Value>,
}

impl Stats {
    /// Empty statistics for `entry` on `target`.
    pub fn new(target: Target, entry: &str) -> Stats {
        Stats {
            target,
            entry: entry.to_string(),
            elements: 0,
            cycles: 0,
            instructions: 0,
            instructions_by_kind: BTreeMap::new(),
            alu_slot_utilization: 0.0,
            registers: 0,
            stalls: BTreeMap::new(),
            discarded: 0,
            passes: None,
            extra: Map::new(),
        }
    }

    /// The statistics of a reference-interpreter run.
    pub fn from_reference(
        entry: &str,
        stats: &ctm_frontend::interp::RefStats,
        passes: Option<u32>,
    ) -> Stats {
        Stats {
            elements: stats.elements,
            instructions: stats.operations,
            instructions_by_kind: stats
                .by_kind
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            discarded: stats.discarded,
            passes,
            ..Stats::new(Target::Ref, entry)
        }
    }

    /// Cycles per element (0 when no element ran).
    pub fn cycles_per_element(&self) -> f64 {
        if self.elements == 0 {
            0.0
        } else {
            self.cycles as f64 / self.elements as f64
        }
    }

    /// The statistics as one JSON object (keys in the module doc).
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("target".into(), json!(self.target.name()));
        object.insert("entry".into(), json!(self.entry));
        object.insert("elements".into(), json!(self.elements));
        object.insert("cycles".into(), json!(self.cycles));
        object.insert(
            "cycles_per_element".into(),
            json!(self.cycles_per_element()),
        );
        object.insert("instructions".into(), json!(self.instructions));
        object.insert(
            "alu_slot_utilization".into(),
            json!(self.alu_slot_utilization),
        );
        object.insert("registers".into(), json!(self.registers));
        object.insert("stalls".into(), json!(self.stalls));
        let by_kind = if self.target == Target::Ref {
            "operations"
        } else {
            "instructions_by_kind"
        };
        object.insert(by_kind.into(), json!(self.instructions_by_kind));
        object.insert("discarded".into(), json!(self.discarded));
        if let Some(p) = self.passes {
            object.insert("passes".into(), json!(p));
        }
        for (k, v) in &self.extra {
            object.insert(k.clone(), v.clone());
        }
        Value::Object(object)
    }

    /// The statistics as one line of JSON.
    pub fn to_json_line(&self) -> String {
        self.to_json().to_string()
    }

    /// The human-readable report.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "statistics: `{}` on {}", self.entry, self.target);
        let _ = writeln!(out, "  elements            {}", self.elements);
        if let Some(p) = self.passes {
            let _ = writeln!(out, "  passes              {p}");
        }
        if self.discarded > 0 || self.target == Target::Ref {
            let _ = writeln!(out, "  discarded           {}", self.discarded);
        }
        let per = |n: u64| {
            if self.elements == 0 {
                0.0
            } else {
                n as f64 / self.elements as f64
            }
        };
        if self.target == Target::Ref {
            let _ = writeln!(
                out,
                "  operations          {} ({:.2} per element)",
                self.instructions,
                per(self.instructions)
            );
            self.render_kinds(&mut out, "  operations by kind");
            let _ = writeln!(
                out,
                "  (the reference interpreter counts operations, not cycles)"
            );
        } else {
            let _ = writeln!(
                out,
                "  cycles              {} ({:.2} per element)",
                self.cycles,
                self.cycles_per_element()
            );
            let _ = writeln!(out, "  instructions        {}", self.instructions);
            self.render_kinds(&mut out, "  instructions by kind");
            let _ = writeln!(
                out,
                "  ALU slot use        {:.1}%",
                self.alu_slot_utilization * 100.0
            );
            let _ = writeln!(out, "  registers           {}", self.registers);
            let stalled: u64 = self.stalls.values().sum();
            let _ = writeln!(out, "  stall cycles        {stalled}");
            for (cause, n) in &self.stalls {
                let _ = writeln!(out, "    {cause:<18}{n}");
            }
            for (k, v) in &self.extra {
                match v {
                    Value::Object(fields) => {
                        let _ = writeln!(out, "  {}", k.replace('_', " "));
                        for (k, v) in fields {
                            let _ = writeln!(out, "    {}{}", column(k, 18), scalar(v));
                        }
                    }
                    v => {
                        let _ = writeln!(out, "  {}{}", column(k, 20), scalar(v));
                    }
                }
            }
        }
        out
    }

    fn render_kinds(&self, out: &mut String, title: &str) {
        if self.instructions_by_kind.is_empty() {
            return;
        }
        let _ = writeln!(out, "{title}");
        let mut kinds: Vec<_> = self.instructions_by_kind.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (kind, n) in kinds {
            let _ = writeln!(out, "    {kind:<18}{n}");
        }
    }
}

/// A key in a column of `width` (with spaces between words), followed by
/// at least one space.
fn column(key: &str, width: usize) -> String {
    let key = key.replace('_', " ");
    if key.len() < width {
        format!("{key:<width$}")
    } else {
        format!("{key} ")
    }
}

/// A value of the text report: numbers with at most three decimals,
/// strings without quotes.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(0.0);
            let text = format!("{x:.3}");
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_json_has_the_required_keys() {
        let mut r = ctm_frontend::interp::RefStats {
            elements: 4,
            discarded: 1,
            operations: 12,
            ..Default::default()
        };
        r.by_kind.insert("add", 8);
        r.by_kind.insert("mul", 4);
        let s = Stats::from_reference("k", &r, None);
        let line = s.to_json_line();
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["target"], "ref");
        assert_eq!(v["elements"], 4);
        assert_eq!(v["cycles"], 0);
        assert_eq!(v["cycles_per_element"], 0.0);
        assert_eq!(v["instructions"], 12);
        assert_eq!(v["alu_slot_utilization"], 0.0);
        assert_eq!(v["registers"], 0);
        assert_eq!(v["stalls"], json!({}));
        assert_eq!(v["operations"], json!({"add": 8, "mul": 4}));
        assert_eq!(v["discarded"], 1);
        assert!(v.get("passes").is_none());
        let text = s.render_text();
        assert!(
            text.contains("operations          12 (3.00 per element)"),
            "{text}"
        );
        assert!(text.contains("add"), "{text}");
    }

    #[test]
    fn machine_json_and_text() {
        let mut s = Stats::new(Target::X1k, "saxpy");
        s.elements = 10;
        s.cycles = 25;
        s.stalls.insert("texture".into(), 3);
        s.extra.insert("threads".into(), json!(64));
        s.extra.insert("fc_mode".into(), json!("full"));
        s.extra
            .insert("in_flight".into(), json!({"limit": 8, "mean": 2.123456}));
        s.passes = Some(3);
        let v = s.to_json();
        assert_eq!(v["cycles_per_element"], 2.5);
        assert_eq!(v["stalls"]["texture"], 3);
        assert_eq!(v["threads"], 64);
        assert_eq!(v["passes"], 3);
        let text = s.render_text();
        assert!(text.contains("2.50 per element"), "{text}");
        assert!(text.contains("  fc mode             full\n"), "{text}");
        assert!(
            text.contains("  in flight\n    limit             8\n    mean              2.123\n"),
            "{text}"
        );
        assert_eq!(Stats::new(Target::R700, "k").cycles_per_element(), 0.0);
    }
}
