//! The R700 (RV770-class) simulator: runs any valid R700 program — ctm's or
//! LLVM's — on wavefronts of 64 threads and counts cycles with a documented
//! model (`docs/sim-r700.md`).
//!
//! The program is decoded once by the backend's ISA module
//! ([`ctm_backend_r700::isa`]) and prepared ([`prepare`]) into a flat form;
//! each wavefront then runs the CF program ([`cf`]) over its own state
//! ([`wavefront`]), executing ALU groups across all 64 lanes in tight loops
//! ([`group`], [`alu`], [`double`]), fetch clauses ([`fetch`]) and exports
//! ([`export`]).
//! Illegal instruction groups fault with the rule the hardware validator
//! ([`ctm_backend_r700::validate`]) names. Wavefronts run in parallel with
//! rayon and are independent, so results are deterministic. The functional
//! run records per-wavefront clause events which the cycle model
//! ([`cycle`]) schedules onto SIMD engines; [`stats`] and [`trace`] report.
//!
//! Entry points: [`Machine::run`] with a [`Launch`] (program, constant
//! buffers, textures, memory, domain, initial registers) giving a
//! [`RunResult`]; [`load`] builds launches for pixel-shader and raw runs
//! and renders raw-run outputs as JSON (spec §10).

pub mod alu;
pub mod cf;
pub mod cycle;
pub mod double;
pub mod export;
pub mod fault;
pub mod fetch;
pub mod group;
pub mod load;
pub mod prepare;
pub mod stats;
pub mod trace;
pub mod wavefront;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;

use ctm_backend_r700::isa::{Gpr, Program};
use rayon::prelude::*;

pub use fault::{Fault, FaultKind, FaultLoc};
pub use load::{MAX_CONST_ELEMENTS, RegInit, raw_outputs_json};
pub use stats::Stats;

/// Threads per wavefront (digest §1.1, L9306).
pub const WAVE: usize = 64;

/// Host-side machine settings: the chip's shape and the simulator's limits.
/// Each constant's source is in `docs/sim-r700.md` §3.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// SIMD engines (RV770: 10).
    pub simd_engines: usize,
    /// 128-bit registers per thread processor lane across a SIMD's register
    /// file (RV770: 256 KB per SIMD / 16 B / 64 lanes = 256).
    pub gprs_per_lane: u32,
    /// Hardware cap on wavefronts resident per SIMD (estimate: 16).
    pub max_wavefronts_per_simd: usize,
    /// Stack entries per SIMD shared by resident wavefronts (estimate: 256).
    pub stack_entries_per_simd: u32,
    /// Default STACK_SIZE (entries per wavefront) when the launch gives none.
    pub default_stack_size: u32,
    /// Backward jumps one lane (element) may take before its wavefront
    /// faults as a runaway loop ([`cf::run`]): the reference interpreter's
    /// steps per element (`ctm_frontend::interp::MAX_STEPS_PER_ELEMENT`,
    /// which ctmc sets here), so whatever the reference runs, this runs.
    pub step_limit: u64,
    /// Run wavefronts in parallel (rayon).
    pub parallel: bool,
    /// Record Chrome trace events.
    pub trace: bool,
    /// Clause temporaries N (GPR 128−N..127), host register (0 by default).
    pub clause_temps: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            simd_engines: 10,
            gprs_per_lane: 256,
            max_wavefronts_per_simd: 16,
            stack_entries_per_simd: 256,
            default_stack_size: 16,
            step_limit: 1 << 24,
            parallel: true,
            trace: false,
            clause_temps: 0,
        }
    }
}

/// A texture resource's format (the stream formats of the ABI).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TexFormat {
    /// `32_FLOAT`: one f32 per texel, read as (x, 0, 0, 1).
    R32Float,
    /// `32_32_FLOAT`: (x, y, 0, 1).
    Rg32Float,
    /// `32_32_32_32_FLOAT`.
    Rgba32Float,
    /// `8_8_8_8` UNORM: four bytes, each / 255.
    Rgba8Unorm,
    /// `16` UINT, read as a float integer: (x, 0, 0, 1).
    R16Uint,
}

impl TexFormat {
    /// Bytes per texel.
    pub const fn bytes(self) -> usize {
        match self {
            TexFormat::R32Float | TexFormat::Rgba8Unorm => 4,
            TexFormat::Rg32Float => 8,
            TexFormat::Rgba32Float => 16,
            TexFormat::R16Uint => 2,
        }
    }
}

/// A 2-D texture resource: point sampling, clamp to edge (the ABI's only
/// sampler state).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Texel format.
    pub format: TexFormat,
    /// Texels, row-major, little endian, `width·height·format.bytes()` bytes.
    pub data: Vec<u8>,
}

/// A vertex-fetch buffer (`BUFFER_ID`'s fetch constant).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct VertexBuffer {
    /// Bytes between consecutive elements.
    pub stride: u32,
    /// The bytes.
    pub data: Vec<u8>,
}

/// One launch: a program and everything the host sets up for it.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// The decoded program.
    pub program: Program,
    /// Domain width (elements per row).
    pub width: u32,
    /// Domain height (rows); elements = width · height.
    pub height: u32,
    /// Put the element position (i, j, 0, 0) as floats in this GPR (the
    /// ABI uses R0).
    pub position: Option<Gpr>,
    /// Further initial registers (applied after the position).
    pub regs: Vec<(Gpr, RegInit)>,
    /// Constant buffers by bank (kcache `KCACHE_BANK`), 4 dwords per element.
    pub const_buffers: Vec<Vec<[u32; 4]>>,
    /// The DX9 constant file c0..c255 (missing entries read as 0).
    pub cfile: Vec<[u32; 4]>,
    /// Texture resources by `RESOURCE_ID`.
    pub textures: BTreeMap<u8, Texture>,
    /// Vertex buffers by `BUFFER_ID`.
    pub vertex_buffers: BTreeMap<u8, VertexBuffer>,
    /// Global (scatter) memory in dwords, written by MEM_EXPORT and read by
    /// MEM_RD scatter reads; its initial contents.
    pub memory: Vec<u32>,
    /// DX9 integer loop constants by CF_CONST: (trip count, initial aL, step).
    pub loop_consts: Vec<[u32; 3]>,
    /// Boolean constants, bit n = CF_CONST n.
    pub bool_consts: u32,
    /// SQ_PGM_RESOURCES.NUM_GPRS (None: every GPR is writable).
    pub num_gprs: Option<u32>,
    /// SQ_PGM_RESOURCES.STACK_SIZE in entries (None: the config default).
    pub stack_size: Option<u32>,
    /// SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS (None: the config's).
    pub clause_temps: Option<u32>,
}

impl Launch {
    /// A launch of `program` over `width × height` with nothing bound.
    pub fn new(program: Program, width: u32, height: u32) -> Launch {
        Launch {
            program,
            width,
            height,
            ..Launch::default()
        }
    }

    /// Number of elements.
    pub fn elements(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// What kind of export an output is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum ExportKind {
    /// Pixel (render target / MRT `ARRAY_BASE`).
    Pixel,
    /// Position.
    Position,
    /// Parameter.
    Parameter,
}

impl ExportKind {
    /// The JSON spelling.
    pub const fn name(self) -> &'static str {
        match self {
            ExportKind::Pixel => "pixel",
            ExportKind::Position => "position",
            ExportKind::Parameter => "parameter",
        }
    }
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Exports by (kind, target index): per element the last four dwords
    /// exported there (`None`: never exported, or the element was killed).
    pub exports: BTreeMap<(ExportKind, u32), Vec<Option<[u32; 4]>>>,
    /// Global memory after the run (the launch's, plus MEM_EXPORT writes).
    pub memory: Vec<u32>,
    /// Whether any memory export ran.
    pub memory_written: bool,
    /// Faults, one at most per wavefront, in wavefront order.
    pub faults: Vec<Fault>,
    /// Statistics.
    pub stats: Stats,
    /// Chrome trace events (when [`Config::trace`]).
    pub trace: Option<serde_json::Value>,
}

impl RunResult {
    /// The first fault, if any.
    pub fn first_fault(&self) -> Option<&Fault> {
        self.faults.first()
    }

    /// The values exported to `(kind, index)` as f32, zeros where nothing
    /// was exported.
    pub fn export_f32(&self, kind: ExportKind, index: u32) -> Vec<[f32; 4]> {
        self.exports
            .get(&(kind, index))
            .map(|v| {
                v.iter()
                    .map(|e| e.unwrap_or([0; 4]).map(f32::from_bits))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The simulated chip.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    /// Its configuration.
    pub config: Config,
}

impl Machine {
    /// A machine with `config`.
    pub fn new(config: Config) -> Machine {
        Machine { config }
    }

    /// Run `launch` to completion: every wavefront, then the cycle model.
    /// Never panics; a wavefront that faults stops and its fault is in the
    /// result. Lower-numbered wavefronts still run; higher ones stop where
    /// they are (their results are incomplete, the run has faulted), so
    /// the first fault is the same however the wavefronts are scheduled.
    pub fn run(&self, launch: &Launch) -> RunResult {
        let prepared = prepare::prepare(&launch.program, &self.config);
        let elements = launch.elements();
        let waves = elements.div_ceil(WAVE as u64);
        // The lowest wavefront that faulted: higher ones stop early, so a
        // runaway ends after one wavefront's step limit, not all of them.
        let first_fault = AtomicU64::new(u64::MAX);
        let run_one =
            |w: u64| wavefront::run_wave(&prepared, launch, &self.config, w, &first_fault);
        let outcomes: Vec<wavefront::WaveOutcome> = if self.config.parallel {
            (0..waves).into_par_iter().map(run_one).collect()
        } else {
            (0..waves).map(run_one).collect()
        };

        let mut exports: BTreeMap<(ExportKind, u32), Vec<Option<[u32; 4]>>> = BTreeMap::new();
        let mut memory = launch.memory.clone();
        let mut memory_written = false;
        let mut faults = Vec::new();
        for (w, out) in outcomes.iter().enumerate() {
            let base = w * WAVE;
            for ((kind, index), lanes) in &out.exports {
                let slot = exports
                    .entry((*kind, *index))
                    .or_insert_with(|| vec![None; elements as usize]);
                for (lane, value) in lanes.iter().enumerate() {
                    if let Some(v) = value
                        && let Some(s) = slot.get_mut(base + lane)
                    {
                        *s = Some(*v);
                    }
                }
            }
            for &(addr, value) in &out.mem_writes {
                memory_written = true;
                if let Some(m) = memory.get_mut(addr as usize) {
                    *m = value;
                }
            }
            if let Some(f) = &out.fault {
                faults.push(f.clone());
            }
        }
        let timing = cycle::schedule(&prepared, launch, &self.config, &outcomes);
        let stats = stats::Stats::collect(&prepared, launch, &self.config, &outcomes, &timing);
        let trace = timing.trace.clone();
        RunResult {
            exports,
            memory,
            memory_written,
            faults,
            stats,
            trace,
        }
    }
}
