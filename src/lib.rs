//! `ctm`: compile `.ck` stream kernels for the ATI X1K and R700 GPUs and
//! run them on the bundled simulators — the library behind `ctmc`.
//!
//! This crate is the front door. Everything of the pipeline and the target
//! layer comes from `ctm-driver` and is re-exported here unchanged
//! ([`compile()`], [`emit`], [`simulate()`], [`target`], [`pipeline`],
//! [`io`], [`stats`], ...); the `ctmc` command line is this crate's binary,
//! behind the default `cli` feature, so a program that depends on `ctm`
//! with `default-features = false` gets the library without clap. See
//! `docs/architecture.md`.
//!
//! A typical run, as `ctmc FILE.ck --target ref --simulate` does it:
//!
//! ```no_run
//! use ctm::{CompileOptions, RunInputs, SimulateOptions, Target};
//! let source = std::fs::read_to_string("examples/saxpy.ck")?;
//! let options = CompileOptions { target: Target::Ref, ..Default::default() };
//! let compilation = ctm::compile(&source, &options)?;
//! let data = ctm::bind_inputs(compilation.entry(), &RunInputs::default())?;
//! let run = ctm::simulate(&compilation, &data, &SimulateOptions::default())?;
//! println!("{}", run.stats.to_json_line());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use ctm_driver::*;

pub mod host;

pub use host::{
    Arg, Build, Device, Element, Error, KernelImage, Launched, Options, ParamInfo, Program, Role,
    Stream, Uniform, Unorm8x4, compile_kernel,
};

/// `ctm_kernel! { ... }`: `.ck` items compiled at Rust build time for every
/// machine target, one module per entry point with a typed `launch` (or
/// `reduce`). See `docs/host-api.md`.
pub use ctm_macros::ctm_kernel;

/// Everything a program using kernels needs: `use ctm::prelude::*;`.
pub mod prelude {
    pub use crate::host::{
        Arg, Device, Error, Options, Program, Stats, Stream, Uniform, Unorm8x4, compile_kernel,
    };
    pub use crate::{Target, ctm_kernel};
}
