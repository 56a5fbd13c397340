//! Launching compiled X1K programs on the simulated CTM device, as a CTM
//! application would: the program's bindings (`docs/abi-x1k.md`) say which
//! input, output and constant each parameter uses; [`launch`] lays out the
//! memory image (code, constants, inputs, outputs), builds the command
//! buffer (formats, constants, domain, `start_program`, flush, performance
//! counters) with the device's host helpers, submits it, and reads the
//! outputs back. `--simulate` always goes through this path.

use crate::target::{InternalError, Launch, LaunchError};
use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{Bindings, IntSource};
use ctm_frontend::Target;
use ctm_frontend::data::{StreamBuffer, StreamData, UniformValue};
use ctm_frontend::value::Value;
use ctm_sim::x1k::device::format::{DataFormat, Tiling};
use ctm_sim::x1k::device::host::{HostError, JobBuilder, OutputSpec};
use ctm_sim::x1k::device::params::{Domain, InputId, OutputId, PerfCounterMode};
use ctm_sim::x1k::device::pe::{Device, DeviceError, ExecError};
use ctm_sim::x1k::device::program::ProgramImage;
use ctm_sim::x1k::dpp::{Dpp, DppFault, DppOptions, RunRecord};

/// What a launch produced.
#[derive(Clone, Debug)]
pub struct LaunchResult {
    /// Each output (the `Out` streams in output order, or the scatter
    /// stream), by parameter name, with `f32` storage of the domain's shape.
    pub outputs: Vec<(String, StreamData)>,
    /// The processor array's record of the run (statistics, batches).
    pub record: RunRecord,
    /// The performance counters: (total clocks, clocks with a processor
    /// active).
    pub perf: Option<(u32, u32)>,
}

/// A failure of the device or of the memory layout: a bug of ctm.
fn device_bug(detail: impl Into<String>) -> LaunchError {
    LaunchError::Internal(InternalError::Device {
        target: Target::X1k,
        detail: detail.into(),
    })
}

fn data_format(name: &str) -> Result<DataFormat, LaunchError> {
    Ok(match name {
        "f32" => DataFormat::Float32_1,
        "vec2" => DataFormat::Float32_2,
        "vec4" => DataFormat::Float32_4,
        "unorm8x4" => DataFormat::Uint8_4,
        "u16" => DataFormat::Uint16_1,
        other => {
            return Err(LaunchError::Unfit(format!(
                "unknown stream format `{other}`"
            )));
        }
    })
}

/// The four channels of element (i, j) of a stream, as the device stores
/// them (bytes of `unorm8x4` as b/255, `u16` as integers).
fn texel(s: &StreamData, i: u32, j: u32) -> [f32; 4] {
    let mut t = s.read(i64::from(i), i64::from(j));
    if s.channels < 4 && matches!(s.buffer, StreamBuffer::F32(_) | StreamBuffer::U16(_)) {
        t[3] = if s.channels == 1 { 1.0 } else { t[3] };
    }
    t
}

/// The four channels of a uniform value as stored in a float constant:
/// scalars replicated, vectors in order.
fn constant_of(v: &Value) -> [f32; 4] {
    match v {
        Value::I32(i) => [*i as f32; 4],
        Value::Bool(b) => [if *b { 1.0 } else { 0.0 }; 4],
        Value::Float { lanes, width: 1 } => [lanes[0]; 4],
        Value::Float { lanes, width } => {
            let mut c = [0.0; 4];
            c[..*width as usize].copy_from_slice(&lanes[..*width as usize]);
            c
        }
        Value::Unit => [0.0; 4],
    }
}

fn int_source(launch: &Launch<'_>, s: &IntSource) -> Result<i64, LaunchError> {
    Ok(match s {
        IntSource::Const(c) => *c as i64,
        IntSource::Uniform(name) => match launch.uniform(name)? {
            UniformValue::Value(Value::I32(v)) => *v as i64,
            _ => {
                return Err(LaunchError::Unfit(format!(
                    "uniform `{name}` is not an i32"
                )));
            }
        },
        IntSource::UniformRange(start, end) => {
            (int_source(launch, end)? - int_source(launch, start)?).max(0)
        }
    })
}

/// The float, integer and boolean constant banks.
type ConstantBanks = (Vec<[f32; 4]>, Vec<u32>, Vec<bool>);

/// The float, integer and boolean constant banks the bindings ask for.
fn constants(b: &Bindings, launch: &Launch<'_>) -> Result<ConstantBanks, LaunchError> {
    let mut floats: Vec<[f32; 4]> = Vec::new();
    let mut set = |index: usize, value: [f32; 4]| {
        if floats.len() <= index {
            floats.resize(index + 1, [0.0; 4]);
        }
        floats[index] = value;
    };
    for u in &b.uniforms {
        let base = u.float_constant as usize;
        match launch.uniform(&u.param)? {
            UniformValue::Value(v) => set(base, constant_of(v)),
            UniformValue::Mat4(m) => {
                for c in 0..4 {
                    set(
                        base + c,
                        [m[4 * c], m[4 * c + 1], m[4 * c + 2], m[4 * c + 3]],
                    );
                }
            }
            UniformValue::Array(items) => {
                for (k, v) in items.iter().enumerate() {
                    set(base + k, constant_of(v));
                }
            }
        }
    }
    let mut bools: Vec<bool> = Vec::new();
    for u in &b.bool_uniforms {
        let value = match launch.uniform(&u.param)? {
            UniformValue::Value(Value::Bool(v)) => *v,
            _ => {
                return Err(LaunchError::Unfit(format!(
                    "uniform `{}` is not a bool",
                    u.param
                )));
            }
        };
        let k = u.bool_constant as usize;
        if bools.len() <= k {
            bools.resize(k + 1, false);
        }
        bools[k] = value;
        if let Some(f) = u.float_constant {
            set(f as usize, [if value { 1.0 } else { 0.0 }; 4]);
        }
    }
    if let Some(d) = b.domain_constant {
        set(
            d as usize,
            ctm_backend_x1k::abi::domain_constant_value(launch.domain.0, launch.domain.1),
        );
    }
    for l in &b.literals {
        set(l.float_constant as usize, l.value);
    }
    let mut ints: Vec<u32> = Vec::new();
    for ic in &b.int_constants {
        let count = int_source(launch, &ic.count)?;
        let init = int_source(launch, &ic.init)?;
        // The start is 8 bits, two's complement like the step
        // (docs/abi-x1k.md §3): a REP never reads it, and a LOOP whose
        // aL addresses constants starts where the code generator put it.
        if !(0..=255).contains(&count)
            || !(-128..=255).contains(&init)
            || !(-128..=127).contains(&ic.step)
        {
            return Err(LaunchError::Unfit(format!(
                "a loop of `{}` needs count {count}, start {init} and step {}; the X1K loop counter holds 0..255 (docs/abi-x1k.md §3)",
                b.kernel, ic.step
            )));
        }
        let word = count as u32 | u32::from(init as u8) << 8 | u32::from(ic.step as i8 as u8) << 16;
        let k = ic.int_constant as usize;
        if ints.len() <= k {
            ints.resize(k + 1, 0);
        }
        ints[k] = word;
    }
    Ok((floats, ints, bools))
}

/// The processor array's fault inside a device error, if that is what
/// stopped the run.
fn array_fault(e: &HostError) -> Option<&DppFault> {
    match e {
        HostError::Device(DeviceError::Execute {
            source: ExecError::Array(inner),
            ..
        }) => inner.downcast_ref::<DppFault>(),
        _ => None,
    }
}

/// The device's view of a compiled program: its ELF, written by the
/// backend and read by the device's loader, so every launch exercises the
/// ELF path.
///
/// # Errors
/// [`LaunchError::Internal`] if the device rejects the file (a bug).
pub fn program_image(program: &Program) -> Result<ProgramImage, LaunchError> {
    let bytes = ctm_backend_x1k::elf::write(program);
    ctm_sim::x1k::device::elf::read_elf(&bytes)
        .map_err(|e| device_bug(format!("the device rejects the ELF: {e}")))
}

/// Runs `program` on a fresh simulated device.
///
/// # Errors
/// [`LaunchError::Unfit`] when the values do not fit the bindings (or a
/// loop bound does not fit the hardware counter), [`LaunchError::Fault`]
/// when the program faults, [`LaunchError::Internal`] for a bug.
pub fn launch(
    program: &Program,
    image: ProgramImage,
    launch: &Launch<'_>,
    options: &DppOptions,
) -> Result<LaunchResult, LaunchError> {
    let b = &program.bindings;
    let (w, h) = launch.domain;
    let domain = Domain::sized(w as u32, h as u32).ok_or_else(|| {
        LaunchError::Unfit(format!(
            "the domain {w}x{h} is empty or larger than the CTM limit of 4096x4096"
        ))
    })?;
    let mut job = JobBuilder::new(image)
        .domain(domain)
        .perf_counters(PerfCounterMode::Enabled);
    for input in &b.inputs {
        let data = launch.stream(&input.param)?;
        // A texture is at most 4096 texels on a side, as the domain
        // (`Domain::sized`, docs/cli.md "x1k runs"): a larger stream, such as a reduction's
        // input, cannot run on the target (issue 13).
        if !(1..=4096).contains(&data.width) || !(1..=4096).contains(&data.height) {
            return Err(LaunchError::Unfit(format!(
                "input `{}` is {}x{}; an x1k texture is at most 4096x4096, so `{}` cannot run on the target with it",
                input.param, data.width, data.height, b.kernel
            )));
        }
        let id = InputId::new(input.input)
            .ok_or_else(|| LaunchError::Unfit(format!("input index {}", input.input)))?;
        // Encoded straight into the memory image (no texel list).
        job = job.input_with(
            id,
            data_format(&input.format)?,
            Tiling::Linear,
            (data.width as u32, data.height as u32),
            |i, j| texel(data, i, j),
        );
    }
    let mut outputs: Vec<(String, OutputId, usize)> = Vec::new();
    for o in &b.outputs {
        let id = OutputId::new(o.output)
            .ok_or_else(|| LaunchError::Unfit(format!("output index {}", o.output)))?;
        let format = data_format(&o.format)?;
        let channels = match o.format.as_str() {
            "vec2" => 2,
            "vec4" => 4,
            _ => 1,
        };
        job = job.output(
            id,
            OutputSpec {
                format,
                tiling: Tiling::Linear,
                width: w as u32,
                height: h as u32,
            },
        );
        outputs.push((o.param.clone(), id, channels));
    }
    if let Some(s) = &b.scatter {
        let id = OutputId::new(0).ok_or_else(|| device_bug("output 0"))?;
        job = job.output(
            id,
            OutputSpec {
                format: DataFormat::Float32_1,
                tiling: Tiling::Linear,
                width: w as u32,
                height: h as u32,
            },
        );
        outputs.push((s.clone(), id, 1));
    }
    let (floats, ints, bools) = constants(b, launch)?;
    job = job
        .float_constants(floats)
        .int_constants(ints)
        .bool_constants(bools);
    let mut job = job.build().map_err(|e| device_bug(e.to_string()))?;
    let mut device = Device::new(Dpp::new(options.clone()));
    // The memory image goes into the device piece by piece, each piece
    // dropped once written: no second copy of the streams is held through
    // the run (issue 13: memory ≈ the streams' bytes). `install` then
    // writes the command buffer and loads the program.
    for (address, bytes) in std::mem::take(&mut job.image) {
        device
            .memory_mut()
            .write_bytes(address, &bytes)
            .map_err(|e| device_bug(e.to_string()))?;
    }
    job.install(&mut device)
        .map_err(|e| device_bug(e.to_string()))?;
    let words = job.command_words().len() as u32;
    device
        .submit(job.command_address, words)
        .map_err(HostError::from)
        .map_err(|e| match array_fault(&e) {
            Some(fault) => LaunchError::Fault(fault.to_string()),
            None => device_bug(e.to_string()),
        })?;
    let mut results = Vec::new();
    for (name, id, channels) in outputs {
        let rb = job
            .read_output(device.memory(), id)
            .map_err(|e| device_bug(e.to_string()))?;
        let data = if rb.channels == channels {
            rb.data
        } else {
            let mut data = Vec::with_capacity((rb.width * rb.height) as usize * channels);
            for e in 0..(rb.width * rb.height) as usize {
                for c in 0..channels {
                    data.push(rb.data.get(e * rb.channels + c).copied().unwrap_or(0.0));
                }
            }
            data
        };
        results.push((
            name,
            StreamData {
                width: rb.width as usize,
                height: rb.height as usize,
                channels,
                buffer: StreamBuffer::F32(data),
            },
        ));
    }
    let perf = job
        .read_perf(device.memory())
        .map_err(|e| device_bug(e.to_string()))?;
    let record = device.array().runs.last().cloned().unwrap_or_default();
    Ok(LaunchResult {
        outputs: results,
        record,
        perf,
    })
}
