//! Running a compiled entry point: [`simulate`] on its target, and
//! [`check_against_reference`] (`--check`).
//!
//! `--target ref` runs the reference interpreter of `ctm-frontend`; a
//! machine target compiles the entry point through the pipeline
//! ([`crate::pipeline`]) and launches it on a [`Session`] of its simulated
//! device ([`crate::target`]): a kernel once, a reduction pass after pass.
//! Every target returns the same [`Simulation`], so that output writing,
//! `--check`, `--stats` and `--trace` work unchanged for all of them.

use crate::args::RunData;
use crate::compare::{Mismatch, compare_streams, tolerance_for};
use crate::compile::Compilation;
use crate::io::{NpyArray, lanes_to_array, stream_to_array};
use crate::pipeline::{compile_entry, reduction_stream_type};
use crate::stats::Stats;
use crate::target::{
    CodegenFailure, InternalError, Launch, LaunchError, LaunchValue, MachineProgram, MachineTarget,
};
use crate::trace::{TraceEvent, TraceTrack};
use ctm_frontend::Entry;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::diag::Diagnostic;
use ctm_frontend::interp::{self, RunOptions, RuntimeError};
use ctm_frontend::tast::KernelParam;
use ctm_frontend::tast::Program;
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::value::Value;
use serde_json::{Map, json};
use std::collections::HashMap;

/// The count of finished elements an x1k run keeps for a progress display
/// (`SimulateOptions::models.x1k.progress`).
pub use ctm_sim::x1k::dpp::Progress;

/// Options of a run.
#[derive(Clone, Debug)]
pub struct SimulateOptions {
    /// Limits of the reference interpreter (also used by `--check`).
    pub reference: RunOptions,
    /// The simulated machines' configurable models.
    pub models: MachineModels,
}

impl Default for SimulateOptions {
    /// Every path with the reference's step limit
    /// ([`ctm_frontend::interp::MAX_STEPS_PER_ELEMENT`]).
    fn default() -> SimulateOptions {
        let mut options = SimulateOptions {
            reference: RunOptions::default(),
            models: MachineModels::default(),
        };
        options.set_max_steps(ctm_frontend::interp::MAX_STEPS_PER_ELEMENT);
        options
    }
}

impl SimulateOptions {
    /// Sets the step limit of every path at once (`ctmc --max-steps N`):
    /// the reference's statements, loop iterations and calls per element,
    /// and both simulators' backward jumps per element (`docs/cli.md`,
    /// "Runtime faults"). Whatever the reference runs within `steps`, the
    /// simulators run too.
    pub fn set_max_steps(&mut self, steps: u64) {
        self.reference.max_steps_per_element = steps;
        self.models.x1k.step_limit = steps;
        self.models.r700.step_limit = steps;
    }
}

/// The configurable model of each simulated machine; each target's
/// [`Session`] reads its own.
#[derive(Clone, Debug, Default)]
pub struct MachineModels {
    /// The X1K processor array: SIMD group size, step limit, hazard
    /// policy, cycle model.
    pub x1k: ctm_sim::x1k::dpp::DppOptions,
    /// The R700: SIMD engines, register file, stack, step limit,
    /// parallelism.
    pub r700: ctm_sim::r700::Config,
}

/// What an output holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OutputShape {
    /// A stream of the domain's shape.
    Stream,
    /// A reduction's result: one element (`data` is 1×1).
    Value,
}

/// One output of a run, by name.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// The `Out`/`Scatter` parameter's name, or the reduction's.
    pub name: String,
    /// Stream or single value.
    pub shape: OutputShape,
    /// The values (`f32` storage).
    pub data: StreamData,
}

impl RunOutput {
    /// The `.npy` form: `(H, W)` or `(H, W, C)` for streams, a 1-D array of
    /// C values for a reduction's result.
    pub fn to_array(&self) -> NpyArray {
        match self.shape {
            OutputShape::Stream => stream_to_array(&self.data),
            OutputShape::Value => lanes_to_array(&self.values()),
        }
    }

    /// All values, row-major, channel-minor.
    pub fn values(&self) -> Vec<f32> {
        match &self.data.buffer {
            StreamBuffer::F32(v) => v.clone(),
            _ => (0..self.data.height)
                .flat_map(|j| (0..self.data.width).map(move |i| (i, j)))
                .flat_map(|(i, j)| {
                    self.data.read(i as i64, j as i64)[..self.data.channels.min(4)].to_vec()
                })
                .collect(),
        }
    }

    /// The element type's name: `f32`, `vec2` or `vec4`.
    pub fn type_name(&self) -> &'static str {
        match self.data.channels {
            1 => "f32",
            2 => "vec2",
            3 => "vec3",
            _ => "vec4",
        }
    }
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// Every output, in parameter order (a reduction has one).
    pub outputs: Vec<RunOutput>,
    /// What the run counted.
    pub stats: Stats,
    /// Trace events (`--trace`).
    pub trace: Vec<TraceEvent>,
    /// The named tracks of the trace.
    pub trace_tracks: Vec<TraceTrack>,
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimulateError {
    /// The program faulted in the reference interpreter (exit code 1).
    #[error("runtime fault: {0}")]
    Fault(RuntimeError),
    /// The machine code faulted on the simulated machine: the address, the
    /// rule and the element (exit code 1).
    #[error("runtime fault: {0}")]
    MachineFault(String),
    /// The entry point exceeds a limit of the target's hardware, found by
    /// its code generator (exit code 1). The span is the entry point's
    /// item (see [`crate::compile::name_span`]).
    #[error("{0}")]
    Compile(Box<Diagnostic>),
    /// The data cannot be run on the target (a loop bound beyond the
    /// hardware loop counter, a domain beyond the device's limit; exit
    /// code 2).
    #[error("cannot run on the target: {0}")]
    Unfit(String),
    /// A bug (exit code 2).
    #[error(transparent)]
    Internal(#[from] InternalError),
}

impl SimulateError {
    fn from_reference(e: RuntimeError) -> SimulateError {
        match e {
            RuntimeError::BadArguments(why) => SimulateError::Internal(InternalError::Driver(
                format!("the reference interpreter rejected the driver's arguments: {why}"),
            )),
            RuntimeError::InvalidProgram(why) => SimulateError::Internal(InternalError::Driver(
                format!("the reference interpreter rejected the checked program: {why}"),
            )),
            fault => SimulateError::Fault(fault),
        }
    }
}

impl From<CodegenFailure> for SimulateError {
    fn from(e: CodegenFailure) -> SimulateError {
        match e {
            CodegenFailure::Limit(d) => SimulateError::Compile(d),
            CodegenFailure::Internal(e) => SimulateError::Internal(e),
            CodegenFailure::Unavailable(why) => SimulateError::Unfit(why),
        }
    }
}

impl From<LaunchError> for SimulateError {
    fn from(e: LaunchError) -> SimulateError {
        match e {
            LaunchError::Fault(why) => SimulateError::MachineFault(why),
            LaunchError::Unfit(why) => SimulateError::Unfit(why),
            LaunchError::Internal(e) => SimulateError::Internal(e),
        }
    }
}

/// Runs the compiled entry point on its target with `data`.
///
/// # Errors
/// [`SimulateError`]: a fault of the program, a kernel beyond a hardware
/// limit, data that does not fit the hardware, or a bug.
pub fn simulate(
    compilation: &Compilation,
    data: &RunData,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    let Some(target) = crate::target::machine(compilation.options().target) else {
        return run_reference(compilation.program(), compilation.entry(), data, options);
    };
    match (compilation.entry(), data) {
        (Entry::Kernel(kernel), RunData::Kernel(args)) => {
            let program = compile_entry(None, compilation, target, None)?;
            run_kernel(target, program.as_ref(), &kernel.params, args, options)
        }
        (Entry::Reduction(r), RunData::Reduction(input)) => {
            let mut pass = |ty: StreamType| {
                compile_entry(None, compilation, target, Some(ty)).map_err(Into::into)
            };
            run_reduction(target, &r.name, r.ty, &mut pass, input, options)
        }
        (entry, _) => Err(bound_for_another(entry.name())),
    }
}

fn bound_for_another(name: &str) -> SimulateError {
    SimulateError::Internal(InternalError::Driver(format!(
        "the data bound to `{name}` is for another kind of entry point"
    )))
}

/// Runs a compiled kernel whose parameters are `params` on `args` (one
/// entry per parameter, in order), on `target`'s simulated device.
///
/// # Errors
/// As [`simulate`].
pub fn run_kernel(
    target: &dyn MachineTarget,
    program: &dyn MachineProgram,
    params: &[KernelParam],
    args: &KernelArgs,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    if params.len() != args.params.len() {
        return Err(SimulateError::Internal(InternalError::Driver(format!(
            "{} values bound to the {} parameters of `{}`",
            args.params.len(),
            params.len(),
            program.kernel()
        ))));
    }
    let mut values = HashMap::new();
    for (p, d) in params.iter().zip(&args.params) {
        match d {
            ParamData::Input(s) => {
                values.insert(p.name.clone(), LaunchValue::Stream(s));
            }
            ParamData::Uniform(u) => {
                values.insert(p.name.clone(), LaunchValue::Uniform(u));
            }
            ParamData::Output => {}
        }
    }
    let mut session = target.session(options);
    let outputs = session.launch(
        program,
        &Launch {
            domain: args.domain,
            values,
        },
    )?;
    let measured = session.finish(program.kernel(), None);
    // In parameter order, whatever order the target returned them in (the
    // r700 gave its exports before its scatter stream, so previews of one
    // kernel came out in different orders on different targets).
    let mut outputs = outputs;
    outputs.sort_by_key(|(name, _)| {
        params
            .iter()
            .position(|p| &p.name == name)
            .unwrap_or(usize::MAX)
    });
    Ok(Simulation {
        outputs: outputs
            .into_iter()
            .map(|(name, data)| RunOutput {
                name,
                shape: OutputShape::Stream,
                data,
            })
            .collect(),
        stats: measured.stats,
        trace: measured.trace,
        trace_tracks: measured.trace_tracks,
    })
}

/// The stream type `data` holds.
fn stream_type_of(data: &StreamData) -> StreamType {
    match (&data.buffer, data.channels) {
        (StreamBuffer::U8(_), _) => StreamType::Unorm8x4,
        (StreamBuffer::U16(_), _) => StreamType::U16,
        (StreamBuffer::F32(_), 2) => StreamType::Vec2,
        (StreamBuffer::F32(_), 4) => StreamType::Vec4,
        (StreamBuffer::F32(_), _) => StreamType::F32,
    }
}

/// A pass program of a reduction for the stream type it reads.
pub type PassProgram<'a> =
    dyn FnMut(StreamType) -> Result<Box<dyn MachineProgram>, SimulateError> + 'a;

/// Runs a reduction named `name` of value type `ty` over `input` on
/// `target`: passes of the program `pass(stream type)` gives, until one
/// element is left (`ctm_ir::lower::pass_layout`). `pass` is asked for
/// the first pass's input type and for the reduction's own type (the
/// input of every later pass); each program is asked for once. The
/// hidden uniforms `block`, `offsets01` and `offsets23` are filled for
/// each pass (`docs/abi-x1k.md` §4), and the input of a program with
/// [`MachineProgram::input_padding`] is padded to whole blocks with it.
/// Statistics and the trace cover every pass.
///
/// # Errors
/// As [`simulate`], and whatever `pass` returns.
pub fn run_reduction(
    target: &dyn MachineTarget,
    name: &str,
    ty: Type,
    pass: &mut PassProgram<'_>,
    input: &StreamData,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    let own = reduction_stream_type(ty);
    let channels = own.channels();
    let mut programs: HashMap<StreamType, Box<dyn MachineProgram>> = HashMap::new();
    let mut current = input.clone();
    let mut session = target.session(options);
    let mut passes = 0u32;
    while let Some(layout) = ctm_ir::lower::pass_layout(current.width, current.height) {
        let input_type = if passes == 0 {
            stream_type_of(&current)
        } else {
            own
        };
        let program = match programs.entry(input_type) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(pass(input_type)?),
        };
        let program: &dyn MachineProgram = program.as_ref();
        let interface = program.entry().map_err(|why| {
            SimulateError::Internal(InternalError::Driver(format!(
                "the pass program of `{name}`: {why}"
            )))
        })?;
        let crate::target::ElfEntry::Reduction(r) = interface else {
            return Err(SimulateError::Internal(InternalError::Driver(format!(
                "the pass program of `{name}` does not have one input and one output"
            ))));
        };
        let source = r.locals[0].name.clone();
        let output = r.name.clone();
        let uniforms: Vec<(&str, UniformValue)> = ["block", "offsets01", "offsets23"]
            .iter()
            .zip(layout.uniforms)
            .map(|(n, v)| (*n, UniformValue::Value(Value::floats(&v))))
            .collect();
        let mut values: HashMap<String, LaunchValue<'_>> = uniforms
            .iter()
            .map(|(n, v)| (n.to_string(), LaunchValue::Uniform(v)))
            .collect();
        // An unguarded pass program reads past the edge of a grid that is
        // not whole blocks; its bindings say what the loader pads with.
        if let Some(padded) = program
            .input_padding()
            .and_then(|value| layout.pad_input(&current, value))
        {
            current = padded;
        }
        values.insert(source, LaunchValue::Stream(&current));
        let outputs = session.launch(
            program,
            &Launch {
                domain: layout.domain,
                values,
            },
        )?;
        current = match outputs.into_iter().find(|(n, _)| *n == output) {
            Some((_, data)) => data,
            None => {
                return Err(SimulateError::Internal(InternalError::Driver(format!(
                    "pass {} of `{name}` produced no output `{output}`",
                    passes + 1
                ))));
            }
        };
        passes += 1;
    }
    // The one element left, in the reduction's own channels (an input of
    // one element is its own result).
    let lanes = current.read(0, 0)[..channels].to_vec();
    let measured = session.finish(name, Some(passes));
    Ok(Simulation {
        outputs: vec![RunOutput {
            name: name.to_string(),
            shape: OutputShape::Value,
            data: StreamData {
                width: 1,
                height: 1,
                channels,
                buffer: StreamBuffer::F32(lanes),
            },
        }],
        stats: measured.stats,
        trace: measured.trace,
        trace_tracks: measured.trace_tracks,
    })
}

/// Runs `entry` in the reference interpreter.
///
/// # Errors
/// [`SimulateError::Fault`] for a fault of the program,
/// [`SimulateError::Internal`] if `data` does not fit `entry`.
pub fn run_reference(
    program: &Program,
    entry: Entry<'_>,
    data: &RunData,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    let started = std::time::Instant::now();
    let (outputs, stats) = match (entry, data) {
        (Entry::Kernel(kernel), RunData::Kernel(args)) => {
            let run = interp::run_kernel(program, kernel, args, &options.reference)
                .map_err(SimulateError::from_reference)?;
            let outputs = run
                .outputs
                .into_iter()
                .map(|o| RunOutput {
                    name: o.name,
                    shape: OutputShape::Stream,
                    data: o.data,
                })
                .collect();
            (
                outputs,
                Stats::from_reference(&kernel.name, &run.stats, None),
            )
        }
        (Entry::Reduction(reduction), RunData::Reduction(input)) => {
            let run = interp::run_reduction(program, reduction, input, &options.reference)
                .map_err(SimulateError::from_reference)?;
            let lanes = run.value.lanes().to_vec();
            let output = RunOutput {
                name: reduction.name.clone(),
                shape: OutputShape::Value,
                data: StreamData {
                    width: 1,
                    height: 1,
                    channels: lanes.len(),
                    buffer: StreamBuffer::F32(lanes),
                },
            };
            let stats = Stats::from_reference(&reduction.name, &run.stats, Some(run.passes));
            (vec![output], stats)
        }
        _ => return Err(bound_for_another(entry.name())),
    };
    let mut args = Map::new();
    args.insert("elements".into(), json!(stats.elements));
    args.insert("operations".into(), json!(stats.instructions));
    let trace_tracks = vec![TraceTrack {
        id: 1,
        name: "reference interpreter".into(),
    }];
    let trace = vec![TraceEvent {
        name: entry.name().to_string(),
        category: "ref".into(),
        track: 1,
        start_us: 0.0,
        duration_us: started.elapsed().as_secs_f64() * 1e6,
        args,
    }];
    Ok(Simulation {
        outputs,
        stats,
        trace,
        trace_tracks,
    })
}

/// The comparison of one output with the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    /// The output's name.
    pub name: String,
    /// Values compared (elements × channels).
    pub values_compared: usize,
    /// The values that differ beyond the tolerance, in row-major order.
    pub mismatches: Vec<Mismatch>,
    /// The values that differ from the reference only by the target's
    /// arithmetic (see [`check_against_reference`]): 0 when the output
    /// matches the reference directly.
    pub arithmetic_differences: usize,
}

/// The result of `--check`.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The tolerance used (spec §7).
    pub tolerance: f64,
    /// One entry per output of the reference run.
    pub outputs: Vec<OutputCheck>,
}

impl CheckReport {
    /// `true` if every output matched.
    pub fn passed(&self) -> bool {
        self.outputs.iter().all(|o| o.mismatches.is_empty())
    }
}

/// Runs the reference interpreter on the same data and compares `outputs`
/// (from any target) with its outputs, within the tolerance of spec §7.
///
/// On a machine target, an output of a kernel that differs from the
/// reference is still accepted when the difference is fully accounted for
/// by the target's arithmetic ([`target_numerics`]: the x1k's MAD and DP
/// round once, both targets divide with a reciprocal), checked as a chain
/// in which every link is held to the same tolerance (`docs/cli.md`,
/// "--check"):
/// 1. the IR interpreter on the optimised IR with the language's numerics
///    matches the reference: the front end and the optimiser kept the
///    program's meaning;
/// 2. the machine's output matches the IR interpreter on the same IR with
///    the target's numerics: the code generator and the device computed
///    that IR.
///
/// The only step not compared is the target's rounding itself, a
/// documented property of the hardware; an output that fails either link
/// fails the check with its differences from the reference. The two extra
/// interpreter runs happen only when the direct comparison fails.
///
/// # Errors
/// [`SimulateError`] if the reference run itself fails.
pub fn check_against_reference(
    compilation: &Compilation,
    data: &RunData,
    outputs: &[RunOutput],
    options: &SimulateOptions,
) -> Result<CheckReport, SimulateError> {
    let program = compilation.program();
    let entry = compilation.entry();
    let reference = run_reference(program, entry, data, options)?;
    let tolerance = tolerance_for(program, entry);
    let mut checks: Vec<OutputCheck> = reference
        .outputs
        .iter()
        .map(|want| {
            let mismatches = match outputs.iter().find(|o| o.name == want.name) {
                Some(got) => compare_streams(&got.data, &want.data, tolerance),
                None => vec![Mismatch::Shape {
                    got: (0, 0, 0),
                    want: (want.data.width, want.data.height, want.data.channels),
                }],
            };
            OutputCheck {
                name: want.name.clone(),
                values_compared: want.data.len() * want.data.channels,
                mismatches,
                arithmetic_differences: 0,
            }
        })
        .collect();
    if checks.iter().any(|c| !c.mismatches.is_empty()) {
        let runs = target_models(compilation, data, options);
        if let Some((twice, fused)) = runs {
            for check in checks.iter_mut().filter(|c| !c.mismatches.is_empty()) {
                let want = reference.outputs.iter().find(|o| o.name == check.name);
                let got = outputs.iter().find(|o| o.name == check.name);
                let language = twice.iter().find(|o| o.name == check.name);
                let hardware = fused.iter().find(|o| o.name == check.name);
                let (Some(want), Some(got), Some(language), Some(hardware)) =
                    (want, got, language, hardware)
                else {
                    continue;
                };
                let shape_mismatch = check
                    .mismatches
                    .iter()
                    .any(|m| matches!(m, Mismatch::Shape { .. }));
                if !shape_mismatch
                    && compare_streams(&language.data, &want.data, tolerance).is_empty()
                    && compare_streams(&got.data, &hardware.data, tolerance).is_empty()
                {
                    check.arithmetic_differences = check.mismatches.len();
                    check.mismatches.clear();
                }
            }
        }
    }
    Ok(CheckReport {
        tolerance,
        outputs: checks,
    })
}

/// The arithmetic of `target`'s machine code where it may differ from the
/// language's (`ctm_ir::interp::Numerics`): the x1k's MAD and DP round
/// once and it divides by multiplying with `RCP` ([`MachineTarget::fused_mad`],
/// `docs/sim-x1k.md` §2.2, `docs/cli.md` "--check"); the r700 rounds its
/// MULADD twice and divides as `a · RECIP_IEEE(b)` with huge divisors
/// scaled (`Numerics::R700`, `docs/backend-r700.md` "Division"), bit for
/// bit what its simulator computes.
pub fn target_numerics(target: &dyn MachineTarget) -> ctm_ir::interp::Numerics {
    if target.fused_mad() {
        ctm_ir::interp::Numerics::X1K
    } else {
        ctm_ir::interp::Numerics::R700
    }
}

/// The outputs of the IR interpreter on the optimised IR of a kernel, with
/// the language's numerics and with the target's ([`target_numerics`]);
/// `None` for the reference, for reductions, or if either run fails (the
/// check then stands on the direct comparison alone).
fn target_models(
    compilation: &Compilation,
    data: &RunData,
    options: &SimulateOptions,
) -> Option<(Vec<RunOutput>, Vec<RunOutput>)> {
    let (Entry::Kernel(_), RunData::Kernel(args)) = (compilation.entry(), data) else {
        return None;
    };
    let target = crate::target::machine(compilation.options().target)?;
    let ir = crate::pipeline::optimized_ir(compilation, target.cost_model(), None).ok()?;
    let run = |numerics| {
        ctm_ir::interp::run_with_numerics(ir.module(), args, &options.reference, numerics)
            .ok()
            .map(|r| {
                r.outputs
                    .into_iter()
                    .map(|o| RunOutput {
                        name: o.name,
                        shape: OutputShape::Stream,
                        data: o.data,
                    })
                    .collect::<Vec<_>>()
            })
    };
    let language = run(ctm_ir::interp::Numerics::default())?;
    let machine = run(target_numerics(target))?;
    Some((language, machine))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{RunInputs, bind_inputs};
    use crate::compile::{Checked, CompileOptions};
    use crate::io::parse_input_source;
    use ctm_frontend::tast::{
        BinaryOp, Block, Expr, ExprKind, Kernel, KernelParam, Local, LocalId, ParamId, ParamKind,
        Reduction, Stmt, StmtKind,
    };
    use ctm_frontend::types::{OutputType, StreamType, Type};
    use ctm_frontend::{Span, Target};

    fn expr(kind: ExprKind) -> Expr {
        Expr {
            kind,
            ty: Type::F32,
            span: Span::default(),
        }
    }

    fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        expr(ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    }

    /// `kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) { r = a * x + y; }`
    /// and `reduce sum(a: f32, b: f32) -> f32 { a + b }`, as the checker
    /// would build them.
    fn program() -> Program {
        let p = |name: &str, kind| KernelParam {
            name: name.into(),
            kind,
            span: Span::default(),
        };
        let value = binary(
            BinaryOp::Add,
            binary(
                BinaryOp::Mul,
                expr(ExprKind::Uniform(ParamId(0))),
                expr(ExprKind::Input(ParamId(1))),
            ),
            expr(ExprKind::Input(ParamId(2))),
        );
        let local = |name: &str| Local {
            name: name.into(),
            ty: Type::F32,
            mutable: false,
            span: Span::default(),
        };
        Program {
            functions: vec![],
            kernels: vec![Kernel {
                name: "saxpy".into(),
                params: vec![
                    p("a", ParamKind::Uniform(Type::F32)),
                    p("x", ParamKind::Input(StreamType::F32)),
                    p("y", ParamKind::Input(StreamType::F32)),
                    p("r", ParamKind::Output(OutputType::F32)),
                ],
                locals: vec![],
                body: Block {
                    stmts: vec![Stmt {
                        kind: StmtKind::WriteOutput {
                            param: ParamId(3),
                            value,
                        },
                        span: Span::default(),
                    }],
                    tail: None,
                    span: Span::default(),
                },
                span: Span::default(),
            }],
            reductions: vec![Reduction {
                name: "sum".into(),
                ty: Type::F32,
                params: [LocalId(0), LocalId(1)],
                locals: vec![local("a"), local("b")],
                body: Block {
                    stmts: vec![],
                    tail: Some(Box::new(binary(
                        BinaryOp::Add,
                        expr(ExprKind::Local(LocalId(0))),
                        expr(ExprKind::Local(LocalId(1))),
                    ))),
                    span: Span::default(),
                },
                span: Span::default(),
            }],
            consts: vec![],
        }
    }

    fn compilation(target: Target, kernel: &str) -> Compilation {
        let checked = Checked {
            program: program(),
            warnings: vec![],
        };
        let options = CompileOptions {
            target,
            kernel: Some(kernel.into()),
            ..Default::default()
        };
        Compilation::new(checked, options).unwrap()
    }

    fn inputs(domain: &str, ins: &[(&str, &str)], unis: &[(&str, &str)]) -> RunInputs {
        RunInputs {
            domain: Some(crate::args::Domain::parse(domain).unwrap()),
            inputs: ins
                .iter()
                .map(|(n, s)| (n.to_string(), parse_input_source(s).unwrap()))
                .collect(),
            uniforms: unis
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn reference_kernel_run() {
        let c = compilation(Target::Ref, "saxpy");
        let data = bind_inputs(
            c.entry(),
            &inputs("4x2", &[("x", "seq"), ("y", "const:1")], &[("a", "3")]),
        )
        .unwrap();
        let run = simulate(&c, &data, &SimulateOptions::default()).unwrap();
        assert_eq!(run.outputs.len(), 1);
        let r = &run.outputs[0];
        assert_eq!((r.name.as_str(), r.shape), ("r", OutputShape::Stream));
        let want: Vec<f32> = (0..8).map(|k| 3.0 * k as f32 + 1.0).collect();
        assert_eq!(r.values(), want);
        assert_eq!(r.to_array().shape, [2, 4]);
        assert_eq!(run.stats.elements, 8);
        assert!(run.stats.instructions > 0);
        let json = run.stats.to_json();
        assert_eq!(json["target"], "ref");
        assert_eq!(run.trace.len(), 1);
        let report =
            check_against_reference(&c, &data, &run.outputs, &SimulateOptions::default()).unwrap();
        assert!(report.passed());
        assert_eq!(report.tolerance, crate::compare::TOLERANCE_EXACT);
        assert_eq!(report.outputs[0].values_compared, 8);
        // A result off by a little more than the tolerance fails the check.
        let mut off = run.outputs.clone();
        if let StreamBuffer::F32(v) = &mut off[0].data.buffer {
            v[5] += 1e-3;
        }
        let report = check_against_reference(&c, &data, &off, &SimulateOptions::default()).unwrap();
        assert!(!report.passed());
        assert_eq!(report.outputs[0].mismatches.len(), 1);
    }

    #[test]
    fn reference_reduction_run() {
        let c = compilation(Target::Ref, "sum");
        let data = bind_inputs(c.entry(), &inputs("5x2", &[("a", "seq")], &[])).unwrap();
        let run = simulate(&c, &data, &SimulateOptions::default()).unwrap();
        let out = &run.outputs[0];
        assert_eq!((out.name.as_str(), out.shape), ("sum", OutputShape::Value));
        assert_eq!(out.values(), [45.0]);
        assert_eq!(out.to_array().shape, [1]);
        assert!(run.stats.passes.is_some());
        let report =
            check_against_reference(&c, &data, &run.outputs, &SimulateOptions::default()).unwrap();
        assert!(report.passed());
    }

    #[test]
    fn x1k_kernel_and_reduction_runs_match_the_reference() {
        let c = compilation(Target::X1k, "saxpy");
        let data = bind_inputs(
            c.entry(),
            &inputs("9x7", &[("x", "seq"), ("y", "const:1")], &[("a", "3")]),
        )
        .unwrap();
        let run = simulate(&c, &data, &SimulateOptions::default()).unwrap();
        let want: Vec<f32> = (0..63).map(|k| 3.0 * k as f32 + 1.0).collect();
        assert_eq!(run.outputs[0].values(), want);
        assert_eq!(run.stats.target, Target::X1k);
        assert_eq!(run.stats.elements, 63);
        assert!(run.stats.cycles > 0 && run.stats.instructions > 0);
        assert!(!run.trace.is_empty());
        let report =
            check_against_reference(&c, &data, &run.outputs, &SimulateOptions::default()).unwrap();
        assert!(report.passed());
        assert_eq!(report.outputs[0].arithmetic_differences, 0);
        // A wrong value is not accepted by the fused-MAD chain: the machine
        // no longer matches the IR run with one rounding per MAD.
        let mut off = run.outputs.clone();
        if let StreamBuffer::F32(v) = &mut off[0].data.buffer {
            v[9] += 0.5;
        }
        let report = check_against_reference(&c, &data, &off, &SimulateOptions::default()).unwrap();
        assert!(!report.passed());
        assert_eq!(report.outputs[0].mismatches.len(), 1);
        assert_eq!(report.outputs[0].arithmetic_differences, 0);
        let c = compilation(Target::X1k, "sum");
        let data = bind_inputs(c.entry(), &inputs("5x3", &[("a", "seq")], &[])).unwrap();
        let run = simulate(&c, &data, &SimulateOptions::default()).unwrap();
        assert_eq!(run.outputs[0].values(), [105.0]);
        // 5x3 -> 3x2 -> 2x1 -> 1x1.
        assert_eq!(run.stats.passes, Some(3));
        assert_eq!(run.stats.elements, 6 + 2 + 1);
    }

    #[test]
    fn mismatched_data_is_an_internal_error() {
        let c = compilation(Target::Ref, "saxpy");
        let data = RunData::Reduction(StreamData::zeros(1, 1, 1));
        assert!(matches!(
            simulate(&c, &data, &SimulateOptions::default()),
            Err(SimulateError::Internal(_))
        ));
    }
}
