//! The reference interpreter: the oracle every other implementation is
//! compared against. It walks the typed AST of [`crate::tast`] once per
//! element, exactly as spec §4, §7 and §8 say, with the numerics of
//! [`crate::numerics`].

use crate::data::{KernelArgs, StreamData};
use crate::tast::{Kernel, ParamId, Program, Reduction};
use crate::value::Value;
use std::collections::BTreeMap;

/// Limits of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Statements and loop iterations one element may execute before the
    /// run stops with [`RuntimeError::StepLimit`].
    pub max_steps_per_element: u64,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_steps_per_element: 1 << 24,
        }
    }
}

/// What a kernel run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelRun {
    /// One stream per `Out` and `Scatter` parameter, in parameter order,
    /// each of the domain's shape and `f32` storage.
    pub outputs: Vec<OutputData>,
    /// Counts.
    pub stats: RefStats,
}

/// One output stream of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputData {
    /// The parameter.
    pub param: ParamId,
    /// Its name.
    pub name: String,
    /// Its contents.
    pub data: StreamData,
}

/// Element and operation counts of a reference run (`--stats`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefStats {
    /// Elements run (over all passes of a reduction).
    pub elements: u64,
    /// Elements that ended in `discard`.
    pub discarded: u64,
    /// Operations evaluated, in total.
    pub operations: u64,
    /// Operations evaluated, by kind (`add`, `mul`, `sin`, `gather`, ...).
    pub by_kind: BTreeMap<&'static str, u64>,
}

/// What a reduction run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ReductionRun {
    /// The reduced value.
    pub value: Value,
    /// Number of passes.
    pub passes: u32,
    /// Counts over all passes.
    pub stats: RefStats,
}

/// A fault of the interpreted program.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// An element ran longer than [`RunOptions::max_steps_per_element`].
    #[error("element ({i}, {j}) exceeded the step limit of {limit} (runaway loop?)")]
    StepLimit {
        /// Column.
        i: usize,
        /// Row.
        j: usize,
        /// The limit.
        limit: u64,
    },
    /// The arguments do not match the kernel's parameters.
    #[error("bad arguments: {0}")]
    BadArguments(String),
}

/// Runs `kernel` over its domain.
///
/// # Errors
/// [`RuntimeError`] on a runaway element or arguments that do not match.
pub fn run_kernel(
    _program: &Program,
    _kernel: &Kernel,
    _args: &KernelArgs,
    _options: &RunOptions,
) -> Result<KernelRun, RuntimeError> {
    Err(RuntimeError::BadArguments("not implemented yet".into()))
}

/// Runs `reduction` over `input` in passes (see `docs/language-decisions.md`).
///
/// # Errors
/// [`RuntimeError`] on a runaway element or an empty input.
pub fn run_reduction(
    _program: &Program,
    _reduction: &Reduction,
    _input: &StreamData,
    _options: &RunOptions,
) -> Result<ReductionRun, RuntimeError> {
    Err(RuntimeError::BadArguments("not implemented yet".into()))
}
