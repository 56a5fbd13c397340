//! Run statistics: the keys of spec §9 (`target elements cycles
//! cycles_per_element instructions alu_slot_utilization registers
//! stalls`) plus the R700's own: ALU groups and slots with the VLIW
//! occupancy histogram, ALU:fetch ratio, clauses by type, CF
//! instructions, wavefronts and wavefronts in flight, stack, memory
//! traffic. Counts are per wavefront (one instruction issued for 64
//! threads counts once); `lane_operations` counts per thread.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::cycle::Timing;
use super::prepare::Prepared;
use super::wavefront::WaveOutcome;
use super::{Config, Launch};

/// What a run counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// "r700".
    pub target: String,
    /// Elements (threads) launched.
    pub elements: u64,
    /// Simulated cycles.
    pub cycles: u64,
    /// Cycles per element.
    pub cycles_per_element: f64,
    /// Instructions issued: CF + ALU slots + fetches (per wavefront).
    pub instructions: u64,
    /// Instructions by kind.
    pub instructions_by_kind: BTreeMap<String, u64>,
    /// ALU slots used / (5 · groups issued).
    pub alu_slot_utilization: f64,
    /// GPRs per thread.
    pub registers: u32,
    /// Stall cycles by cause.
    pub stalls: BTreeMap<String, u64>,
    /// ALU groups issued.
    pub alu_groups: u64,
    /// ALU instructions issued.
    pub alu_slots: u64,
    /// Groups with 1, 2, 3, 4, 5 instructions.
    pub vliw_occupancy: [u64; 5],
    /// ALU instructions per fetch instruction (`None`: no fetches).
    pub alu_fetch_ratio: Option<f64>,
    /// Clauses by type (alu, tex, vtx).
    pub clauses: BTreeMap<String, u64>,
    /// CF instructions executed.
    pub cf_instructions: u64,
    /// Wavefronts launched.
    pub wavefronts: u64,
    /// Wavefronts allowed in flight per SIMD (GPR and stack limits).
    pub wavefronts_in_flight: usize,
    /// SIMD engines.
    pub simd_engines: usize,
    /// Peak stack use of a wavefront, in entries.
    pub stack_entries: u32,
    /// Memory traffic in bytes (fetch, export, memory writes).
    pub memory: BTreeMap<String, u64>,
    /// ALU instructions × active threads.
    pub lane_operations: u64,
    /// Elements killed (KILL*): they write no pixel.
    pub discarded: u64,
    /// Wavefronts that faulted.
    pub faults: u64,
}

impl Stats {
    /// Collect from the run.
    pub fn collect(
        prepared: &Prepared,
        launch: &Launch,
        config: &Config,
        outcomes: &[WaveOutcome],
        timing: &Timing,
    ) -> Stats {
        let mut s = Stats {
            target: "r700".into(),
            elements: launch.elements(),
            cycles: timing.cycles,
            registers: launch.num_gprs.unwrap_or(prepared.gprs_used),
            stalls: timing.stalls.clone(),
            wavefronts: outcomes.len() as u64,
            wavefronts_in_flight: timing.in_flight_limit,
            simd_engines: config.simd_engines,
            ..Stats::default()
        };
        let (mut tex_clauses, mut vtx_clauses, mut alu_clauses) = (0, 0, 0);
        let (mut tex, mut vtx, mut exports, mut mem_exports) = (0, 0, 0, 0);
        let (mut fetch_b, mut export_b, mut mem_b) = (0, 0, 0);
        for o in outcomes {
            let c = &o.counters;
            s.cf_instructions += c.cf;
            s.alu_groups += c.alu_groups;
            s.alu_slots += c.alu_slots;
            for (a, b) in s.vliw_occupancy.iter_mut().zip(c.vliw) {
                *a += b;
            }
            alu_clauses += c.alu_clauses;
            tex_clauses += c.tex_clauses;
            vtx_clauses += c.vtx_clauses;
            tex += c.tex_insts;
            vtx += c.vtx_insts;
            exports += c.exports;
            mem_exports += c.mem_exports;
            fetch_b += c.fetch_bytes;
            export_b += c.export_bytes;
            mem_b += c.mem_write_bytes;
            s.lane_operations += c.lane_ops;
            s.stack_entries = s.stack_entries.max(c.stack_peak);
            s.discarded += u64::from(c.killed);
            s.faults += u64::from(o.fault.is_some());
        }
        s.cycles_per_element = if s.elements == 0 {
            0.0
        } else {
            s.cycles as f64 / s.elements as f64
        };
        s.instructions = s.cf_instructions + s.alu_slots + tex + vtx;
        s.instructions_by_kind = [
            ("cf", s.cf_instructions),
            ("alu", s.alu_slots),
            ("tex", tex),
            ("vtx", vtx),
            ("export", exports),
            ("mem_export", mem_exports),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        s.alu_slot_utilization = if s.alu_groups == 0 {
            0.0
        } else {
            s.alu_slots as f64 / (5 * s.alu_groups) as f64
        };
        s.alu_fetch_ratio = (tex + vtx > 0).then(|| s.alu_slots as f64 / (tex + vtx) as f64);
        s.clauses = [
            ("alu", alu_clauses),
            ("tex", tex_clauses),
            ("vtx", vtx_clauses),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        s.memory = [
            ("fetch_bytes", fetch_b),
            ("export_bytes", export_b),
            ("mem_write_bytes", mem_b),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        s
    }

    /// The statistics as one JSON object.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The R700-specific keys (everything but the spec §9 keys), for the
    /// driver's `Stats::extra`.
    pub fn extra(&self) -> Map<String, Value> {
        let mut m = match self.to_json() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for k in [
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
        ] {
            m.remove(k);
        }
        m
    }
}
