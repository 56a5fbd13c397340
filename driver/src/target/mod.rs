//! The target layer: the one interface through which the driver reaches a
//! machine target (docs/architecture.md, "The target layer").
//!
//! A [`MachineTarget`] gives the IR pipeline its cost model, compiles a
//! verified module to a [`MachineProgram`] (validated by the target's
//! hardware validator before it is returned), reads its ELF files back,
//! lists raw machine code, opens simulation [`Session`]s and runs bare
//! code. A [`MachineProgram`] writes its ELF, lists itself, measures
//! itself (static metrics) and describes its entry point. The driver
//! ([`crate::compile`], [`crate::simulate`], `ctmc`) never matches on the
//! target: it asks [`machine`] for the target object once and goes through
//! these traits, so that a new target is one implementation of them.
//!
//! Launch constants are evaluated and bound in one place for every target
//! ([`launch_const`], through [`Session::launch`]).
//!
//! - [`x1k`]: the X1K (R5xx) on the simulated CTM device.
//! - [`r700`]: the R700 (RV770) on its simulated SIMD engines.

pub mod embedded;
pub mod entry;
pub mod launch_const;
pub mod r700;
pub mod x1k;

use crate::simulate::SimulateOptions;
use crate::stats::Stats;
use crate::trace::{TraceEvent, TraceTrack};
use ctm_frontend::Target;
use ctm_frontend::data::{StreamData, UniformValue};
use ctm_frontend::diag::Diagnostic;
use ctm_ir::cost::CostModel;
use ctm_ir::verify::Verified;
use serde_json::{Map, Value};
use std::any::Any;
use std::collections::HashMap;

pub use embedded::EmbeddedSource;
pub use entry::ElfEntry;

/// A compiler bug: a broken rule of the code generator or of the hardware,
/// an IR that fails verification, or a driver and a run that disagree.
/// Reported with exit code 2 and "this is a bug in ctmc".
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InternalError {
    /// The IR failed verification after a stage of the pipeline.
    #[error("the IR failed verification after {stage}: {errors}")]
    IrVerify {
        /// The stage (`lowering`, a pass's name, ...).
        stage: String,
        /// The verifier's errors.
        errors: String,
    },
    /// The code generator broke one of its rules, or emitted a program the
    /// hardware validator rejects (the rule is then the validator's).
    #[error("{target} code generation broke rule `{rule}`: {detail}")]
    Codegen {
        /// The target.
        target: Target,
        /// The rule's name.
        rule: String,
        /// What happened.
        detail: String,
    },
    /// An ELF the target wrote does not read back.
    #[error("the {target} ELF written for `{kernel}` does not read back: {detail}")]
    ElfReadBack {
        /// The target.
        target: Target,
        /// The kernel.
        kernel: String,
        /// The reader's error.
        detail: String,
    },
    /// The simulated device or its memory layout failed.
    #[error("{target} device: {detail}")]
    Device {
        /// The target.
        target: Target,
        /// What failed.
        detail: String,
    },
    /// The driver and a program or run disagree (data bound for another
    /// kind of entry point, a pass program without its stream, ...).
    #[error("{0}")]
    Driver(String),
}

/// Why an entry point did not compile for a machine target.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CodegenFailure {
    /// The entry point exceeds a hardware limit: a user error with a CK
    /// code (exit code 1). Its span is the entry point's whole item; see
    /// [`crate::compile::name_span`] to narrow it to the name.
    #[error("{0}")]
    Limit(Box<Diagnostic>),
    /// A compiler bug (exit code 2).
    #[error("internal error: {0}")]
    Internal(#[from] InternalError),
    /// The target has no code generator for this yet (exit code 2).
    #[error("{0}")]
    Unavailable(String),
}

/// Why a launch failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LaunchError {
    /// The data does not fit the program or the hardware (a loop bound
    /// beyond the hardware's counter, a domain beyond the device's limit:
    /// exit code 2).
    #[error("{0}")]
    Unfit(String),
    /// The program faulted on the simulated machine: the address, the rule
    /// and the element (exit code 1).
    #[error("{0}")]
    Fault(String),
    /// A bug of ctm (exit code 2).
    #[error(transparent)]
    Internal(#[from] InternalError),
}

/// Why a bare run (`ctmc run --raw`) did not happen or did not finish.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RawError {
    /// The program faulted, or holds an instruction that does not decode
    /// (exit code 1).
    #[error("runtime fault: {0}")]
    Fault(String),
    /// The file or the options cannot make a run (exit code 2).
    #[error("{0}")]
    Unfit(String),
}

/// A value given to a launch, by parameter name.
#[derive(Clone, Copy, Debug)]
pub enum LaunchValue<'a> {
    /// An input stream.
    Stream(&'a StreamData),
    /// A uniform.
    Uniform(&'a UniformValue),
}

/// What a launch runs on.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// The domain: (width, height).
    pub domain: (usize, usize),
    /// Inputs and uniforms by parameter name.
    pub values: HashMap<String, LaunchValue<'a>>,
}

impl<'a> Launch<'a> {
    /// The value bound to uniform `name`.
    ///
    /// # Errors
    /// [`LaunchError::Unfit`] when `name` has no uniform value.
    pub fn uniform(&self, name: &str) -> Result<&'a UniformValue, LaunchError> {
        match self.values.get(name) {
            Some(LaunchValue::Uniform(u)) => Ok(u),
            _ => Err(LaunchError::Unfit(format!("no value for uniform `{name}`"))),
        }
    }

    /// The stream bound to input `name`.
    ///
    /// # Errors
    /// [`LaunchError::Unfit`] when `name` has no stream.
    pub fn stream(&self, name: &str) -> Result<&'a StreamData, LaunchError> {
        match self.values.get(name) {
            Some(LaunchValue::Stream(s)) => Ok(s),
            _ => Err(LaunchError::Unfit(format!("no stream for input `{name}`"))),
        }
    }
}

/// `program` as the concrete program type `P` of `target`'s session.
///
/// # Errors
/// [`InternalError::Driver`] when `program` is another target's (a bug).
pub(crate) fn program_of<P: 'static>(
    program: &dyn MachineProgram,
    target: Target,
) -> Result<&P, LaunchError> {
    program.as_any().downcast_ref::<P>().ok_or_else(|| {
        InternalError::Driver(format!(
            "a {} program launched on the {target}",
            program.target()
        ))
        .into()
    })
}

/// The trace label of a session's launch of `kernel` after `earlier`
/// launches: the kernel's name, then `NAME (launch N)`.
pub(crate) fn launch_label(kernel: &str, earlier: usize) -> String {
    if earlier == 0 {
        kernel.to_string()
    } else {
        format!("{kernel} (launch {})", earlier + 1)
    }
}

/// The trace track of a session's launches (kernels, reduction passes);
/// each target's other tracks follow it.
pub const LAUNCH_TRACK: u32 = 1;

/// The trace event of one launch named `name`: `cycles` long from the
/// `offset` cycles of the session's earlier launches, on [`LAUNCH_TRACK`].
pub(crate) fn launch_event(
    name: &str,
    offset: u64,
    cycles: u64,
    args: Map<String, Value>,
) -> TraceEvent {
    TraceEvent {
        name: name.to_string(),
        category: "launch".into(),
        track: LAUNCH_TRACK,
        start_us: offset as f64,
        duration_us: cycles as f64,
        args,
    }
}

/// The named [`LAUNCH_TRACK`].
pub(crate) fn launch_track() -> TraceTrack {
    TraceTrack {
        id: LAUNCH_TRACK,
        name: "launches".into(),
    }
}

/// The initial value of a register in a bare run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RegInit {
    /// `(k, 0, 0, 0)` for element k.
    Seq,
    /// The same value for every element.
    Value([f32; 4]),
}

/// The options of a bare run (spec §10), checked against
/// [`MachineTarget::constant_slots`] by the command line.
#[derive(Clone, Debug, Default)]
pub struct RawRun {
    /// Elements (`--elements`).
    pub elements: u32,
    /// Initial registers (`--reg`), each register at most once.
    pub regs: Vec<(u8, RegInit)>,
    /// Constants (`--const`): x1k float constant N, r700 element N of
    /// constant buffer 0.
    pub consts: Vec<(u32, [f32; 4])>,
    /// The machine models.
    pub options: SimulateOptions,
}

/// What a bare run produced.
#[derive(Clone, Debug)]
pub struct RawOutcome {
    /// The program's name (its kernel's, or the file's).
    pub name: String,
    /// What each element wrote, as spec §10 prints it
    /// (`{"outputs": [...]}`).
    pub outputs: Value,
    /// What the run measured.
    pub stats: Stats,
}

/// A machine target: everything the driver needs of one chip.
pub trait MachineTarget: Sync {
    /// The target's name and enum value.
    fn target(&self) -> Target;

    /// `e_machine` of its ELF files.
    fn elf_machine(&self) -> u16;

    /// Whether its multiply-add rounds once (a fused MAD), which `--check`
    /// takes into account when it explains differences.
    fn fused_mad(&self) -> bool;

    /// The cost model the IR pipeline's if-conversion uses for it.
    fn cost_model(&self) -> &'static dyn CostModel;

    /// Compiles a verified module (the pipeline's output for this target,
    /// [`crate::pipeline`]) to a program that passed the target's hardware
    /// validator.
    ///
    /// # Errors
    /// [`CodegenFailure::Limit`] for a kernel beyond a hardware limit,
    /// [`CodegenFailure::Internal`] for a bug (a validator failure names
    /// the rule).
    fn compile(&self, ir: &Verified) -> Result<Box<dyn MachineProgram>, CodegenFailure>;

    /// Reads one of its ELF files with ctm's bindings, validated
    /// completely (code against notes, bindings against both).
    ///
    /// # Errors
    /// What is wrong with the file, as a sentence.
    fn read_elf(&self, bytes: &[u8]) -> Result<Box<dyn MachineProgram>, String>;

    /// The listing of one of its ELF files (`ctmc disasm FILE.elf`).
    ///
    /// # Errors
    /// What is wrong with the file, as a sentence.
    fn listing_elf(&self, bytes: &[u8]) -> Result<String, String>;

    /// The listing of raw little-endian instruction words (`ctmc disasm
    /// FILE.bin --target T`).
    ///
    /// # Errors
    /// What is wrong with the words, as a sentence.
    fn listing_raw(&self, bytes: &[u8]) -> Result<String, String>;

    /// How many constants `--const N=...` may address in a bare run.
    fn constant_slots(&self) -> u32;

    /// Elements a bare run may have at most.
    fn max_raw_elements(&self) -> u32;

    /// Runs bare machine code (raw words, or an ELF if `bytes` is one) as
    /// spec §10 says.
    ///
    /// # Errors
    /// [`RawError`].
    fn run_raw(&self, name: &str, bytes: &[u8], run: &RawRun) -> Result<RawOutcome, RawError>;

    /// A simulated device of this target on which programs are launched
    /// one after another (a kernel, or the passes of a reduction).
    fn session(&self, options: &SimulateOptions) -> Box<dyn Session>;
}

/// A compiled program of some target, validated by its hardware validator.
pub trait MachineProgram: std::fmt::Debug + Send + Sync {
    /// Its target.
    fn target(&self) -> Target;

    /// The kernel it was compiled from (a reduction's pass: `NAME_pass`).
    fn kernel(&self) -> &str;

    /// Its ELF file (`--emit elf`).
    ///
    /// # Errors
    /// [`InternalError`] if the writer rejects the program (a bug).
    fn elf(&self) -> Result<Vec<u8>, InternalError>;

    /// Its ELF file with the `.ctm.source` section holding `source`
    /// ([`EmbeddedSource`]): what `ctmc` writes, so that `ctmc run
    /// FILE.elf --check` has the source. The other bytes are [`Self::elf`]'s
    /// but for the section table.
    ///
    /// # Errors
    /// As [`Self::elf`].
    fn elf_with_source(&self, source: &EmbeddedSource) -> Result<Vec<u8>, InternalError>;

    /// Its disassembly: exactly what `ctmc disasm` prints for its ELF.
    ///
    /// # Errors
    /// [`InternalError::ElfReadBack`] if the written ELF does not read
    /// back.
    fn listing(&self) -> Result<String, InternalError>;

    /// Its static metrics (`--emit stats`, spec §9), one JSON object.
    fn static_metrics(&self) -> Map<String, Value>;

    /// The entry point its bindings describe (for `ctmc run FILE.elf`).
    ///
    /// # Errors
    /// What is wrong with the bindings, as a sentence.
    fn entry(&self) -> Result<ElfEntry, String>;

    /// For a reduction's pass program without boundary guards, the value
    /// its bindings ask the loader to pad the input with, per channel, to
    /// whole blocks of the pass (`ctm_ir::lower::reduction_edges`);
    /// `None` for every other program.
    fn input_padding(&self) -> Option<[f32; 4]>;

    /// The launch constants its bindings list ([`launch_const`]), parsed.
    ///
    /// # Errors
    /// What is wrong with them, as a sentence.
    fn launch_constants(&self) -> Result<Vec<launch_const::HiddenUniform>, String>;

    /// The concrete program, for its own target's [`Session`].
    fn as_any(&self) -> &dyn Any;
}

/// Launches on one simulated device, in order, and what they measured.
pub trait Session {
    /// Runs `program` (of the session's target) on `launch`: its outputs
    /// by parameter name, with `f32` storage of the domain's shape. The
    /// program's launch constants are evaluated from the launch's uniforms
    /// and bound first ([`launch_const::bind`]), the same for every
    /// target.
    ///
    /// # Errors
    /// [`LaunchError`].
    fn launch(
        &mut self,
        program: &dyn MachineProgram,
        launch: &Launch<'_>,
    ) -> Result<Vec<(String, StreamData)>, LaunchError> {
        launch_const::bind(program, launch, |bound| self.launch_bound(program, bound))
    }

    /// [`Session::launch`] once every uniform the program's bindings name,
    /// launch constants included, has its value in `launch`: what each
    /// target implements.
    ///
    /// # Errors
    /// [`LaunchError`].
    fn launch_bound(
        &mut self,
        program: &dyn MachineProgram,
        launch: &Launch<'_>,
    ) -> Result<Vec<(String, StreamData)>, LaunchError>;

    /// The statistics and the trace of every launch so far, for `entry`
    /// (`passes`: a reduction's).
    fn finish(self: Box<Self>, entry: &str, passes: Option<u32>) -> Measured;
}

/// What a session measured.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The statistics over every launch.
    pub stats: Stats,
    /// Trace events.
    pub trace: Vec<TraceEvent>,
    /// The named tracks of the trace.
    pub trace_tracks: Vec<TraceTrack>,
}

/// The machine target `target` names (`None` for `ref`, which runs the
/// reference interpreter and has no machine code).
pub fn machine(target: Target) -> Option<&'static dyn MachineTarget> {
    match target {
        Target::X1k => Some(&x1k::X1K),
        Target::R700 => Some(&r700::R700),
        Target::Ref => None,
    }
}

/// Every machine target.
pub fn machines() -> [&'static dyn MachineTarget; 2] {
    [&x1k::X1K, &r700::R700]
}

/// The machine target whose ELF files have `e_machine` `machine`.
pub fn by_elf_machine(machine: u16) -> Option<&'static dyn MachineTarget> {
    machines().into_iter().find(|t| t.elf_machine() == machine)
}

/// The `e_machine` field of an ELF file (at byte 18, in the byte order
/// `e_ident[EI_DATA]` gives), if the file is long enough to have one.
pub fn elf_machine(bytes: &[u8]) -> Option<u16> {
    let field = [*bytes.get(18)?, *bytes.get(19)?];
    Some(if bytes.get(5) == Some(&2) {
        u16::from_be_bytes(field)
    } else {
        u16::from_le_bytes(field)
    })
}
