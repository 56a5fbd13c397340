//! The Rust host API (`docs/host-api.md`): simulated [`Device`]s, typed
//! [`Stream`]s, runtime-compiled or loaded [`Program`]s launched with
//! arguments by name, the compile-time kernels of `ctm_kernel!`
//! ([`KernelImage`]), and the one [`Error`] type. Every launch goes
//! through the driver's target layer, as `ctmc --simulate` does.

mod device;
mod error;
mod launch;
mod program;
mod stream;
mod uniform;

#[doc(hidden)]
pub mod __private {
    //! Support for the code `ctm_kernel!` generates; not a stable API.
    pub use super::launch::Bound;
    pub use super::private::*;
}
mod private;

pub use device::Device;
pub use error::Error;
pub use program::{Arg, Launched, Options, Program, compile_kernel};
pub use stream::{Element, Stream, Unorm8x4};
pub use uniform::Uniform;

/// What a launch measured: the fields of `ctmc --stats=json` (spec §9);
/// [`Stats::to_json`] gives that object.
pub use ctm_driver::Stats;

/// The kind of a kernel parameter (spec §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A uniform.
    Uniform,
    /// `In<T>`.
    Input,
    /// `Out<T>`.
    Output,
    /// `Scatter<f32>`.
    Scatter,
}

/// One parameter of a `ctm_kernel!` kernel, in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    /// Its name.
    pub name: &'static str,
    /// Its kind.
    pub role: Role,
    /// Its type as the language writes it (`f32`, `vec4`, `[vec4; 8]`,
    /// for streams the element type: `unorm8x4`, ...).
    pub ty: &'static str,
}

/// What `ctm_kernel!` compiled for one machine target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Build {
    /// The target's name (`x1k`, `r700`).
    pub target: &'static str,
    /// The ELF file (byte-identical to `ctmc`'s for the same source), or
    /// why the target cannot run the entry point.
    pub elf: Result<&'static [u8], &'static str>,
}

/// An entry point compiled by `ctm_kernel!`: its name, parameters and one
/// [`Build`] per machine target. Each generated module has one, `IMAGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelImage {
    /// The kernel's or reduction's name.
    pub name: &'static str,
    /// Its parameters (a reduction: none).
    pub params: &'static [ParamInfo],
    /// One per machine target.
    pub builds: &'static [Build],
    /// The front end's warnings for the whole invocation, one line each.
    pub warnings: &'static [&'static str],
}

impl KernelImage {
    /// The ELF for `target`, if it can run the entry point.
    pub fn elf(&self, target: ctm_driver::Target) -> Option<&'static [u8]> {
        self.builds
            .iter()
            .find(|b| b.target == target.name())
            .and_then(|b| b.elf.ok())
    }

    /// Why `target` cannot run the entry point (`None`: it can).
    pub fn unavailable(&self, target: ctm_driver::Target) -> Option<&'static str> {
        match self.builds.iter().find(|b| b.target == target.name()) {
            Some(b) => b.elf.err(),
            None => Some("not compiled for this target"),
        }
    }
}
