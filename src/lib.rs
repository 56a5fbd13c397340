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

// The code `ctm_kernel!` generates names `::ctm`; this lets it work
// inside this crate too.
extern crate self as ctm;

pub mod host;

pub use host::{
    Arg, Build, Device, Element, Error, KernelImage, Launched, Options, ParamInfo, Program, Role,
    Stream, Uniform, Unorm8x4, compile_kernel,
};

/// `ctm_kernel! { ... }`: `.ck` items compiled at Rust build time for every
/// machine target, one module per entry point with a typed `launch` (or
/// `reduce`). See `docs/host-api.md`.
///
/// ```
/// use ctm::prelude::*;
///
/// ctm_kernel! {
///     kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
///         r = a * x + y;
///     }
///     reduce sum(a: f32, b: f32) -> f32 { a + b }
/// }
///
/// let x = Stream::from_vec(4, 1, vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Stream::from_vec(4, 1, vec![0.5; 4])?;
/// let mut r = Stream::zeros(4, 1);
/// let mut dev = Device::x1k();
/// let stats = saxpy::launch(&mut dev, 2.0, &x, &y, &mut r)?;
/// assert_eq!(r.to_vec(), vec![2.5, 4.5, 6.5, 8.5]);
/// assert!(stats.cycles > 0);
/// assert_eq!(sum::reduce(&mut dev, &r)?, 22.0);
/// // The embedded ELF files, or why a target cannot run the kernel.
/// assert!(saxpy::ELF_X1K.is_some());
/// assert!(saxpy::ELF_R700.is_some() || saxpy::UNAVAILABLE_R700.is_some());
/// # Ok::<(), ctm::Error>(())
/// ```
pub use ctm_macros::ctm_kernel;

/// Everything a program using kernels needs: `use ctm::prelude::*;`.
pub mod prelude {
    pub use crate::host::{
        Arg, Device, Error, Options, Program, Stats, Stream, Uniform, Unorm8x4, compile_kernel,
    };
    pub use crate::{Target, ctm_kernel};
}
