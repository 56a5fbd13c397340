//! The reference interpreter: the oracle every other implementation is
//! compared against. It walks the typed AST of [`crate::tast`] once per
//! element, exactly as spec §4, §7 and §8 say, with the numerics of
//! [`crate::numerics`]. `docs/reference-interpreter.md` states every rule.
//!
//! - `verify` checks once that the program's ids and shapes are sound,
//!   so that the walker indexes without checks and never panics;
//! - `bind` checks the arguments against the kernel's parameters;
//! - `exec` is the tree walker for one element;
//! - `kernel` runs it over the domain in parallel, deterministically;
//! - `reduce` runs a reduction's passes;
//! - `stats` counts operations by kind.

mod bind;
mod exec;
mod kernel;
mod reduce;
mod stats;
mod verify;

use crate::data::{KernelArgs, StreamData};
use crate::tast::{Kernel, ParamId, Program, Reduction};
use crate::value::Value;
use kernel::Schedule;
use std::collections::BTreeMap;
use verify::VerifyError;

/// The step limit of every path (`docs/language-decisions.md`, "Step
/// limits"): statements, loop iterations and helper calls one element may
/// execute in the reference interpreter. The simulators take the same
/// number as their limit of backward jumps (loop iterations) per element,
/// which an element of a program the reference runs never exceeds; ctmc's
/// `--max-steps N` replaces it on every path at once.
pub const MAX_STEPS_PER_ELEMENT: u64 = 1 << 24;

/// Limits of a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Statements, loop iterations and helper calls one element may
    /// execute before the
    /// run stops with [`RuntimeError::StepLimit`].
    pub max_steps_per_element: u64,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_steps_per_element: MAX_STEPS_PER_ELEMENT,
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
    /// The typed program breaks an invariant that [`crate::check`]
    /// guarantees (a hand-built or corrupted program: a bug upstream), or
    /// nests deeper than the interpreter supports ([`MAX_NESTING`]).
    #[error("invalid program: {0}")]
    InvalidProgram(String),
}

/// Nesting depth (blocks, statements, expressions, calls) up to which a
/// program runs on the caller's thread and the rayon pool's default 2 MiB
/// stacks. Measured: the walker needs about 3 KiB a level unoptimised and
/// far less optimised, so 256 levels leave a margin of more than two.
const SHALLOW_NESTING: usize = 256;

/// The deepest nesting the interpreter runs at all; deeper programs are
/// [`RuntimeError::InvalidProgram`].
pub const MAX_NESTING: usize = 20_000;

/// Stack of the thread that runs programs nested deeper than
/// [`SHALLOW_NESTING`]: enough for [`MAX_NESTING`] levels of the walker's
/// frames in an unoptimised build (about 3 KiB each; reserved, not
/// committed).
const DEEP_STACK_BYTES: usize = 256 << 20;

/// Runs `kernel` over its domain: its body once per element `(i, j)` of
/// `args.domain`, with `args.params[k]` bound to parameter `k`.
///
/// Elements run in parallel on the current rayon pool, but the result is
/// the same every run (scatter writes land in row-major element order).
///
/// # Errors
/// - [`RuntimeError::InvalidProgram`] if the program breaks the typed
///   AST's invariants;
/// - [`RuntimeError::BadArguments`] if the arguments do not match the
///   parameters (arity, stream types and sizes, uniform types, array
///   lengths), naming the parameter;
/// - [`RuntimeError::StepLimit`] for the first element (row-major) that
///   runs past [`RunOptions::max_steps_per_element`].
pub fn run_kernel(
    program: &Program,
    kernel: &Kernel,
    args: &KernelArgs,
    options: &RunOptions,
) -> Result<KernelRun, RuntimeError> {
    match verify::kernel(program, kernel, SHALLOW_NESTING) {
        Ok(_) => kernel::run(program, kernel, args, options, Schedule::Parallel),
        Err(VerifyError::Invalid(message)) => Err(RuntimeError::InvalidProgram(message)),
        Err(VerifyError::TooDeep) => on_deep_stack(|| {
            verify::kernel(program, kernel, MAX_NESTING).map_err(deep_error)?;
            kernel::run(program, kernel, args, options, Schedule::Sequential)
        }),
    }
}

/// Runs `reduction` over `input` in passes until one element is left (spec
/// §8; the tree order is in `docs/reference-interpreter.md`).
///
/// # Errors
/// - [`RuntimeError::InvalidProgram`] if the program breaks the typed
///   AST's invariants;
/// - [`RuntimeError::BadArguments`] if `input` is empty, malformed, or
///   does not read as the reduction's element type;
/// - [`RuntimeError::StepLimit`] for the first output element of the
///   first pass that runs past [`RunOptions::max_steps_per_element`].
pub fn run_reduction(
    program: &Program,
    reduction: &Reduction,
    input: &StreamData,
    options: &RunOptions,
) -> Result<ReductionRun, RuntimeError> {
    match verify::reduction(program, reduction, SHALLOW_NESTING) {
        Ok(_) => reduce::run(program, reduction, input, options, Schedule::Parallel),
        Err(VerifyError::Invalid(message)) => Err(RuntimeError::InvalidProgram(message)),
        Err(VerifyError::TooDeep) => on_deep_stack(|| {
            verify::reduction(program, reduction, MAX_NESTING).map_err(deep_error)?;
            reduce::run(program, reduction, input, options, Schedule::Sequential)
        }),
    }
}

/// The error of a verification with the full depth budget.
fn deep_error(e: VerifyError) -> RuntimeError {
    match e {
        VerifyError::Invalid(message) => RuntimeError::InvalidProgram(message),
        VerifyError::TooDeep => RuntimeError::InvalidProgram(format!(
            "nesting deeper than {MAX_NESTING} levels (blocks, statements, expressions, calls)"
        )),
    }
}

/// Runs `f` on a new thread with a [`DEEP_STACK_BYTES`] stack and waits.
///
/// The thread does not use rayon, so a caller inside the rayon pool cannot
/// deadlock on it.
fn on_deep_stack<R: Send>(
    f: impl FnOnce() -> Result<R, RuntimeError> + Send,
) -> Result<R, RuntimeError> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("ctm-interp-deep".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, f)
            .map_err(|e| {
                RuntimeError::InvalidProgram(format!(
                    "nesting too deep for the default stack, and no thread with a larger one: {e}"
                ))
            })?;
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
