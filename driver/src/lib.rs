//! `ctm`: the driver of the ctm toolchain and the library behind `ctmc`.
//!
//! It owns the steps around the compiler proper:
//!
//! - [`compile`](mod@compile): front end for a target, entry-point choice,
//!   `--emit` artifacts ([`compile()`], [`check_source`], [`emit`]);
//! - [`args`]: binding `--domain`/`--input`/`--uniform` data to an entry
//!   point's parameters ([`bind_inputs`]);
//! - [`simulate`](mod@simulate): running on a target ([`simulate()`]) and
//!   comparing with the reference interpreter ([`check_against_reference`]);
//! - [`compare`]: the test tolerance of spec §7;
//! - [`io`]: `.npy` and raw files, generated streams, uniform values;
//! - [`pipeline`]: the compiler pipeline, built in one place from the
//!   target's cost model;
//! - [`target`]: the target layer — one interface ([`MachineTarget`],
//!   [`MachineProgram`], [`Session`]) through which the driver compiles,
//!   validates, writes and reads ELF files, lists, measures and launches on
//!   each machine (X1K, R700);
//! - [`stats`] and [`trace`]: `--stats` and `--trace` output.
//!
//! A typical run, as `ctmc FILE.ck --target ref --simulate` does it:
//!
//! ```no_run
//! use ctm_driver::{CompileOptions, RunInputs, SimulateOptions, Target};
//! let source = std::fs::read_to_string("examples/saxpy.ck")?;
//! let options = CompileOptions { target: Target::Ref, ..Default::default() };
//! let compilation = ctm_driver::compile(&source, &options)?;
//! let data = ctm_driver::bind_inputs(compilation.entry(), &RunInputs::default())?;
//! let run = ctm_driver::simulate(&compilation, &data, &SimulateOptions::default())?;
//! println!("{}", run.stats.to_json_line());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `--target x1k` (the default) compiles to X1K machine code and runs it
//! on the simulated CTM device; `--target r700` to R700 machine code run
//! on the simulated RV770. Both go through [`target::machine`].

pub mod args;
pub mod compare;
pub mod compile;
pub mod io;
pub mod pipeline;
pub mod simulate;
pub mod stats;
pub mod target;
pub mod trace;

pub use args::{ArgsError, Domain, RunData, RunInputs, bind_inputs, check_output_names};
pub use compile::{
    Checked, Compilation, CompileError, CompileOptions, EmitError, EmitKind, Emitted, OptLevel,
    check_source, compile, emit,
};
pub use ctm_frontend::Target;
pub use simulate::{
    CheckReport, MachineModels, RunOutput, SimulateError, SimulateOptions, Simulation,
    check_against_reference, simulate,
};
pub use stats::Stats;
pub use target::{CodegenFailure, InternalError, MachineProgram, MachineTarget, Session, machine};
