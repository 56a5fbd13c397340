//! `--simulate` on the X1K: compile, validate, launch on the simulated
//! CTM device, and turn what came back into a [`Simulation`].
//!
//! A kernel is one launch. A reduction is a sequence of launches of its
//! pass program ([`ctm_ir::lower::pass_layout`]), each reading the previous
//! pass's output, until one element is left; the hidden uniforms `block`,
//! `offsets01` and `offsets23` are filled for each pass
//! (`docs/abi-x1k.md` §4). Statistics and the trace cover every pass.

use super::codegen::{CodegenFailure, compile_entry, reduction_stream_type};
use super::launch::{Launch, LaunchError, LaunchValue, launch, program_image};
use super::profile::{self, LaunchStats, TraceBuilder};
use crate::args::RunData;
use crate::compile::Compilation;
use crate::simulate::{OutputShape, RunOutput, SimulateError, SimulateOptions, Simulation};
use ctm_backend_x1k::Program;
use ctm_frontend::Entry;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::tast::KernelParam;
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::value::Value;
use std::collections::HashMap;

impl From<CodegenFailure> for SimulateError {
    fn from(e: CodegenFailure) -> SimulateError {
        match e {
            CodegenFailure::Limit(d) => SimulateError::Compile(d),
            CodegenFailure::Internal(why) => SimulateError::Internal(why),
        }
    }
}

impl From<LaunchError> for SimulateError {
    fn from(e: LaunchError) -> SimulateError {
        match e {
            LaunchError::Fault(why) => SimulateError::MachineFault(why),
            LaunchError::Bindings(why) => SimulateError::Unfit(why),
            LaunchError::Device(why) => SimulateError::Internal(format!("x1k device: {why}")),
        }
    }
}

/// Compiles the entry point of `compilation` for the X1K and runs it on
/// `data`.
///
/// # Errors
/// [`SimulateError::Compile`] for a kernel beyond a hardware limit,
/// [`SimulateError::MachineFault`] when the program faults,
/// [`SimulateError::Unfit`] when the data does not fit the hardware (a
/// loop bound beyond the loop counter, a domain beyond 4096×4096),
/// [`SimulateError::Internal`] for a bug.
pub fn simulate(
    compilation: &Compilation,
    data: &RunData,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    match (compilation.entry(), data) {
        (Entry::Kernel(kernel), RunData::Kernel(args)) => {
            let program = compile_entry(compilation, None)?;
            run_kernel(&program, &kernel.params, args, options)
        }
        (Entry::Reduction(r), RunData::Reduction(input)) => {
            let mut pass =
                |ty: StreamType| compile_entry(compilation, Some(ty)).map_err(Into::into);
            run_reduction(&r.name, r.ty, &mut pass, input, options)
        }
        (entry, _) => Err(SimulateError::Internal(format!(
            "the data bound to `{}` is for another kind of entry point",
            entry.name()
        ))),
    }
}

/// Runs a compiled kernel whose parameters are `params` on `args` (one
/// entry per parameter, in order).
///
/// # Errors
/// As [`simulate`].
pub fn run_kernel(
    program: &Program,
    params: &[KernelParam],
    args: &KernelArgs,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    if params.len() != args.params.len() {
        return Err(SimulateError::Internal(format!(
            "{} values bound to the {} parameters of `{}`",
            args.params.len(),
            params.len(),
            program.bindings.kernel
        )));
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
    let image = program_image(program)?;
    let run = launch(
        program,
        image,
        &Launch {
            domain: args.domain,
            values,
        },
        &options.x1k,
    )?;
    let launch_stats = LaunchStats {
        dpp: run.record.stats.clone(),
        perf: run.perf,
    };
    let mut trace = TraceBuilder::new();
    trace.launch(
        &program.bindings.kernel,
        run.record.stats.cycles,
        run.record.stats.elements,
        &run.record.batches,
    );
    let (trace_tracks, trace) = trace.finish();
    let outputs = run
        .outputs
        .into_iter()
        .map(|(name, data)| RunOutput {
            name,
            shape: OutputShape::Stream,
            data,
        })
        .collect();
    Ok(Simulation {
        outputs,
        stats: profile::stats(&program.bindings.kernel, &[launch_stats], None),
        trace,
        trace_tracks,
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

/// Runs a reduction named `name` of value type `ty` over `input`: passes
/// of the program `pass(stream type)` gives, until one element is left.
/// `pass` is asked for the first pass's input type and for the reduction's
/// own type (the input of every later pass); each program is asked for
/// once.
///
/// # Errors
/// As [`simulate`], and whatever `pass` returns.
pub fn run_reduction(
    name: &str,
    ty: Type,
    pass: &mut dyn FnMut(StreamType) -> Result<Program, SimulateError>,
    input: &StreamData,
    options: &SimulateOptions,
) -> Result<Simulation, SimulateError> {
    let own = reduction_stream_type(ty);
    let channels = own.channels();
    let mut programs: HashMap<StreamType, Program> = HashMap::new();
    let mut current = input.clone();
    let mut launches = Vec::new();
    let mut trace = TraceBuilder::new();
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
        let program = &*program;
        let (source, output) = match (
            program.bindings.inputs.as_slice(),
            program.bindings.outputs.as_slice(),
        ) {
            ([i], [o]) => (i.param.clone(), o.param.clone()),
            _ => {
                return Err(SimulateError::Internal(format!(
                    "the pass program of `{name}` does not have one input and one output"
                )));
            }
        };
        let uniforms: Vec<(&str, UniformValue)> = ["block", "offsets01", "offsets23"]
            .iter()
            .zip(layout.uniforms)
            .map(|(n, v)| (*n, UniformValue::Value(Value::floats(&v))))
            .collect();
        let mut values: HashMap<String, LaunchValue<'_>> = uniforms
            .iter()
            .map(|(n, v)| (n.to_string(), LaunchValue::Uniform(v)))
            .collect();
        values.insert(source, LaunchValue::Stream(&current));
        let run = launch(
            program,
            program_image(program)?,
            &Launch {
                domain: layout.domain,
                values,
            },
            &options.x1k,
        )?;
        trace.launch(
            &format!("{} (pass {})", program.bindings.kernel, passes + 1),
            run.record.stats.cycles,
            run.record.stats.elements,
            &run.record.batches,
        );
        launches.push(LaunchStats {
            dpp: run.record.stats,
            perf: run.perf,
        });
        current = match run.outputs.into_iter().find(|(n, _)| *n == output) {
            Some((_, data)) => data,
            None => {
                return Err(SimulateError::Internal(format!(
                    "pass {} of `{name}` produced no output `{output}`",
                    passes + 1
                )));
            }
        };
        passes += 1;
    }
    // The one element left, in the reduction's own channels (an input of
    // one element is its own result).
    let lanes = current.read(0, 0)[..channels].to_vec();
    let (trace_tracks, trace) = trace.finish();
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
        stats: profile::stats(name, &launches, Some(passes)),
        trace,
        trace_tracks,
    })
}
