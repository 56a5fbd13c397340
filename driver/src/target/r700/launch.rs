//! Launching compiled R700 programs on the simulated RV770, as a CAL
//! application would (`docs/abi-r700.md` §2-3): the element position in
//! R0, `NUM_GPRS` and `STACK_SIZE` from the program's resources, uniforms
//! and the domain in constant buffer 0, each input stream as a texture
//! resource of its format, a zeroed scatter buffer; after the run, pixel
//! exports and scatter regions become the output streams.

use super::R700Program;
use super::profile::{self, TraceBuilder};
use crate::target::{
    InternalError, Launch, LaunchError, MachineProgram, Measured, Session, launch_label, program_of,
};
use ctm_backend_r700::Executable;
use ctm_frontend::Target;
use ctm_frontend::data::{StreamBuffer, StreamData, UniformValue};
use ctm_frontend::value::Value;
use ctm_sim::r700::{Config, ExportKind, Launch as SimLaunch, Machine, TexFormat, Texture};

/// The largest domain side: the RV770's render-target and 2-D texture
/// limit (8192 × 8192).
pub const MAX_SIDE: usize = 8192;

/// A uniform's four cb0 lanes (ABI §3.1): floats as IEEE binary32 in
/// lanes x.., `i32` as two's complement and `bool` as 1 or 0 in lane x.
fn lanes_of(v: &Value) -> [u32; 4] {
    match *v {
        Value::I32(i) => [i as u32, 0, 0, 0],
        Value::Bool(b) => [u32::from(b), 0, 0, 0],
        Value::Float { lanes, width } => {
            let mut out = [0u32; 4];
            for (o, l) in out.iter_mut().zip(lanes).take(width as usize) {
                *o = l.to_bits();
            }
            out
        }
        Value::Unit => [0; 4],
    }
}

/// The texture of an input stream in its format (ABI §3.2).
fn texture(data: &StreamData) -> Texture {
    let (format, bytes): (TexFormat, Vec<u8>) = match &data.buffer {
        StreamBuffer::U8(v) => (TexFormat::Rgba8Unorm, v.clone()),
        StreamBuffer::U16(v) => (
            TexFormat::R16Uint,
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        ),
        StreamBuffer::F32(v) => (
            match data.channels {
                1 => TexFormat::R32Float,
                2 => TexFormat::Rg32Float,
                _ => TexFormat::Rgba32Float,
            },
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        ),
    };
    Texture {
        width: data.width as u32,
        height: data.height as u32,
        format,
        data: bytes,
    }
}

/// Channels of an output format.
fn channels(format: &str) -> usize {
    match format {
        "vec2" => 2,
        "vec4" => 4,
        _ => 1,
    }
}

/// The simulator's launch of `exe` on `launch` (the loader's job).
///
/// # Errors
/// [`LaunchError::Unfit`] when the values do not fit the bindings or the
/// domain the hardware.
pub fn sim_launch(exe: &Executable, launch: &Launch<'_>) -> Result<SimLaunch, LaunchError> {
    let (w, h) = launch.domain;
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(LaunchError::Unfit(format!(
            "the domain {w}x{h} is empty or larger than the r700 limit of {MAX_SIDE}x{MAX_SIDE}"
        )));
    }
    let b = &exe.bindings;
    let mut l = SimLaunch::pixel_shader(exe.program.clone(), w as u32, h as u32);
    l.num_gprs = Some(exe.resources.num_gprs);
    l.stack_size = Some(exe.resources.stack_size);
    l.clause_temps = Some(exe.resources.clause_temps);
    let mut cb0 = vec![[0u32; 4]; b.cb0_elements as usize];
    let mut put = |element: usize, value: [u32; 4]| -> Result<(), LaunchError> {
        match cb0.get_mut(element) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(LaunchError::Internal(InternalError::Driver(format!(
                "a uniform of `{}` at cb0 element {element} is past the {} elements the program reads",
                b.kernel, b.cb0_elements
            )))),
        }
    };
    for u in &b.uniforms {
        let value = launch.uniform(&u.param)?;
        let base = u.element as usize;
        match value {
            UniformValue::Value(v) => put(base, lanes_of(v))?,
            UniformValue::Mat4(x) => {
                for c in 0..4 {
                    let mut column = [0u32; 4];
                    for (r, lane) in column.iter_mut().enumerate() {
                        *lane = x[4 * c + r].to_bits();
                    }
                    put(base + c, column)?;
                }
            }
            UniformValue::Array(vs) => {
                for (k, v) in vs.iter().enumerate().take(u.elements as usize) {
                    put(base + k, lanes_of(v))?;
                }
            }
        }
    }
    if let Some(d) = b.domain_element {
        put(
            d as usize,
            [(w as f32).to_bits(), (h as f32).to_bits(), 0, 0],
        )?;
    }
    for input in &b.inputs {
        let data = launch.stream(&input.param)?;
        if data.width > MAX_SIDE || data.height > MAX_SIDE {
            return Err(LaunchError::Unfit(format!(
                "input `{}` is {}x{}, larger than the r700's {MAX_SIDE}x{MAX_SIDE} textures",
                input.param, data.width, data.height
            )));
        }
        let resource = u8::try_from(input.resource).map_err(|_| {
            LaunchError::Internal(InternalError::Driver(format!(
                "input `{}` bound to resource {}",
                input.param, input.resource
            )))
        })?;
        l.textures.insert(resource, texture(data));
    }
    l.cfile = cb0.iter().take(256).copied().collect();
    l.const_buffers = vec![cb0];
    if !b.scatters.is_empty() {
        l.memory = vec![0; b.scatters.len() * w * h + 1];
    }
    Ok(l)
}

/// The output streams of a run, by parameter name: pixel exports in
/// their formats' channels, scatter regions as `f32` streams (zeros where
/// nothing was written, spec §9).
pub fn outputs(
    exe: &Executable,
    result: &ctm_sim::r700::RunResult,
    (w, h): (usize, usize),
) -> Vec<(String, StreamData)> {
    let mut out = Vec::new();
    for o in &exe.bindings.outputs {
        let c = channels(&o.format);
        let rows = result.export_f32(ExportKind::Pixel, o.export);
        let mut values = Vec::with_capacity(w * h * c);
        for e in 0..w * h {
            let v = rows.get(e).copied().unwrap_or([0.0; 4]);
            values.extend_from_slice(&v[..c]);
        }
        out.push((
            o.param.clone(),
            StreamData {
                width: w,
                height: h,
                channels: c,
                buffer: StreamBuffer::F32(values),
            },
        ));
    }
    for s in &exe.bindings.scatters {
        let region = result.scatter_region(s.slot, w as u32, h as u32);
        out.push((
            s.param.clone(),
            StreamData {
                width: w,
                height: h,
                channels: 1,
                buffer: StreamBuffer::F32(region.into_iter().map(f32::from_bits).collect()),
            },
        ));
    }
    out
}

/// Launches on one simulated RV770.
pub struct R700Session {
    config: Config,
    launches: Vec<ctm_sim::r700::Stats>,
    trace: TraceBuilder,
}

impl R700Session {
    /// A session of a machine configured by `config` (its per-SIMD
    /// trace events only when `config.trace` asks for them; the launch
    /// events are always there).
    pub fn new(config: Config) -> R700Session {
        R700Session {
            config,
            launches: Vec::new(),
            trace: TraceBuilder::default(),
        }
    }
}

impl Session for R700Session {
    fn launch_bound(
        &mut self,
        program: &dyn MachineProgram,
        launch: &Launch<'_>,
    ) -> Result<Vec<(String, StreamData)>, LaunchError> {
        let program: &R700Program = program_of(program, Target::R700)?;
        let exe = program.executable();
        let sim = sim_launch(exe, launch)?;
        let result = Machine::new(self.config.clone()).run(&sim);
        if let Some(fault) = result.first_fault() {
            return Err(LaunchError::Fault(format!(
                "`{}` on r700: {fault}",
                exe.bindings.kernel
            )));
        }
        let label = launch_label(&exe.bindings.kernel, self.launches.len());
        self.trace
            .launch(&label, result.stats.cycles, result.trace.as_ref());
        let outputs = outputs(exe, &result, launch.domain);
        self.launches.push(result.stats);
        Ok(outputs)
    }

    fn finish(self: Box<Self>, entry: &str, passes: Option<u32>) -> Measured {
        let stats = profile::stats(entry, &self.launches, passes);
        let (trace_tracks, trace) = self.trace.finish();
        Measured {
            stats,
            trace,
            trace_tracks,
        }
    }
}
