//! Shared by the code generator's tests: compiling the examples (kernels,
//! and reductions as their pass kernel) for the R700.

#![allow(dead_code)]

use ctm_backend_r700::Executable;
use ctm_backend_r700::codegen::{CodegenError, compile, optimize_for_r700};
use ctm_frontend::types::StreamType;
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;

/// Every example.
pub const EXAMPLES: &[&str] = &[
    "black_scholes",
    "blend",
    "bounds",
    "cbrt",
    "collatz",
    "convolution",
    "grayscale",
    "hash",
    "mandelbrot",
    "matmul",
    "nbody",
    "normals",
    "polynomial",
    "ripple",
    "saxpy",
    "sum",
    "threshold",
    "tonemap",
    "transform",
    "transpose",
];

/// The checked program of `examples/{name}.ck` for the R700.
pub fn example_program(name: &str) -> ctm_frontend::tast::Program {
    ctm_kernel_gen::examples::example_program(name, Target::R700)
}

/// The checked program of `src` for the R700.
pub fn checked(src: &str) -> Option<ctm_frontend::tast::Program> {
    ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::R700,
        },
    )
    .program
}

/// The optimised, verified IR of the first kernel (or the first
/// reduction's pass over an f32 stream) of `program`.
pub fn module(program: &ctm_frontend::tast::Program, level: OptLevel) -> ctm_ir::verify::Verified {
    let mut m = match program.kernels.first() {
        Some(k) => ctm_ir::lower::lower_kernel(program, k),
        None => {
            let r = &program.reductions[0];
            let input = match r.ty {
                ctm_frontend::types::Type::Vec2 => StreamType::Vec2,
                ctm_frontend::types::Type::Vec4 => StreamType::Vec4,
                _ => StreamType::F32,
            };
            ctm_ir::lower::lower_reduction_pass(program, r, input)
        }
    };
    optimize_for_r700(&mut m, level).expect("optimises");
    ctm_ir::verify::verify(m, "test").expect("verifies")
}

/// Compiles the first kernel (or reduction pass) of `program`.
pub fn compile_program(
    program: &ctm_frontend::tast::Program,
    level: OptLevel,
) -> Result<Executable, CodegenError> {
    compile(&module(program, level), &Default::default())
}

/// The compiled example at -O2.
pub fn example(name: &str) -> Executable {
    compile_program(&example_program(name), OptLevel::O2).unwrap_or_else(|e| panic!("{name}: {e}"))
}

use ctm_backend_r700::abi::Bindings;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, UniformValue};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::tast::{Kernel, ParamKind};
use ctm_frontend::value::Value;
use ctm_sim::r700::{Launch, Machine, RunResult, TexFormat, Texture};

/// A uniform's cb0 lanes (ABI §3.1).
fn lanes_of(v: &Value) -> [u32; 4] {
    match *v {
        Value::I32(i) => [i as u32, 0, 0, 0],
        Value::Bool(b) => [u32::from(b), 0, 0, 0],
        Value::Float { lanes, width } => {
            let mut out = [0u32; 4];
            for k in 0..width as usize {
                out[k] = lanes[k].to_bits();
            }
            out
        }
        Value::Unit => [0; 4],
    }
}

/// The value of a launch constant's expression `text` for `args` (the
/// loader's job; the driver's is `ctm_driver::target::launch_const`).
pub fn launch_constant(kernel: &Kernel, args: &KernelArgs, text: &str) -> Value {
    let expr = ctm_ir::launch::LaunchExpr::parse(text).expect("a launch expression");
    let lookup = |name: &str| {
        let i = kernel.params.iter().position(|p| p.name == name)?;
        match &args.params[i] {
            ParamData::Uniform(u) => Some(u),
            _ => None,
        }
    };
    expr.evaluate(&lookup)
        .expect("the launch constant evaluates")
}

/// The launch of `exe` (compiled from `kernel`) with `args` (the
/// loader's job, ABI §2-3).
pub fn launch(exe: &Executable, kernel: &Kernel, args: &KernelArgs) -> Launch {
    let (w, h) = args.domain;
    let b: &Bindings = &exe.bindings;
    let mut l = Launch::pixel_shader(exe.program.clone(), w as u32, h as u32);
    l.num_gprs = Some(exe.resources.num_gprs);
    l.stack_size = Some(exe.resources.stack_size);
    l.clause_temps = Some(exe.resources.clause_temps);
    let mut cfile = vec![[0u32; 4]; b.cb0_elements as usize];
    for (i, p) in kernel.params.iter().enumerate() {
        match (&p.kind, &args.params[i]) {
            (ParamKind::Uniform(_), ParamData::Uniform(u)) => {
                let Some(ub) = b.uniforms.iter().find(|x| x.param == p.name) else {
                    continue;
                };
                let base = ub.element as usize;
                match u {
                    UniformValue::Value(v) => cfile[base] = lanes_of(v),
                    UniformValue::Mat4(x) => {
                        for c in 0..4 {
                            for r in 0..4 {
                                cfile[base + c][r] = x[4 * c + r].to_bits();
                            }
                        }
                    }
                    UniformValue::Array(vs) => {
                        for (k, v) in vs.iter().enumerate() {
                            cfile[base + k] = lanes_of(v);
                        }
                    }
                }
            }
            (ParamKind::Input(s), ParamData::Input(data)) => {
                let Some(ib) = b.inputs.iter().find(|x| x.param == p.name) else {
                    continue;
                };
                let (format, bytes): (TexFormat, Vec<u8>) = match (&data.buffer, s) {
                    (StreamBuffer::U8(v), _) => (TexFormat::Rgba8Unorm, v.clone()),
                    (StreamBuffer::U16(v), _) => (
                        TexFormat::R16Uint,
                        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    ),
                    (StreamBuffer::F32(v), _) => (
                        match data.channels {
                            1 => TexFormat::R32Float,
                            2 => TexFormat::Rg32Float,
                            _ => TexFormat::Rgba32Float,
                        },
                        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    ),
                };
                l.textures.insert(
                    ib.resource as u8,
                    Texture {
                        width: data.width as u32,
                        height: data.height as u32,
                        format,
                        data: bytes,
                    },
                );
            }
            _ => {}
        }
    }
    // Launch constants: computed from the user's uniforms (ABI §3.6).
    for c in &b.launch_constants {
        let v = launch_constant(kernel, args, &c.expr);
        if let Some(ub) = b.uniforms.iter().find(|x| x.param == c.param) {
            cfile[ub.element as usize] = lanes_of(&v);
        }
    }
    if let Some(d) = b.domain_element {
        cfile[d as usize] = [(w as f32).to_bits(), (h as f32).to_bits(), 0, 0];
    }
    l.cfile = cfile.clone();
    l.const_buffers = vec![cfile];
    if !b.scatters.is_empty() {
        l.memory = vec![0; b.scatters.len() * w * h + 1];
    }
    l
}

/// Runs `exe` on the simulator.
pub fn simulate(exe: &Executable, kernel: &Kernel, args: &KernelArgs) -> Result<RunResult, String> {
    let l = launch(exe, kernel, args);
    let run = Machine::default().run(&l);
    if let Some(f) = run.first_fault() {
        return Err(format!(
            "simulator fault: {f:?}\n{}",
            ctm_backend_r700::isa::format_program(&exe.program)
        ));
    }
    Ok(run)
}

/// Compiles `program`'s first kernel at `level`, runs it on the
/// simulator and compares every output with the reference interpreter
/// within `tol` (spec §7).
pub fn check_at(
    program: &ctm_frontend::tast::Program,
    args: &KernelArgs,
    tol: f32,
    level: OptLevel,
) -> Result<RunResult, String> {
    check_kernel(program, &program.kernels[0], args, tol, level)
}

/// The compiled `kernel` of `program` at `level`.
pub fn compile_kernel(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    level: OptLevel,
) -> Result<Executable, CodegenError> {
    ctm_backend_r700::codegen::compile_kernel(program, kernel, level, &Default::default())
}

/// [`check_at`] for any kernel of `program`.
pub fn check_kernel(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    args: &KernelArgs,
    tol: f32,
    level: OptLevel,
) -> Result<RunResult, String> {
    let want = run_kernel(program, kernel, args, &RunOptions::default())
        .map_err(|e| format!("reference: {e}"))?;
    let exe = compile_kernel(program, kernel, level).map_err(|e| e.to_string())?;
    let run = simulate(&exe, kernel, args)?;
    let (w, h) = args.domain;
    let close =
        |g: f32, r: f32| (g.is_nan() && r.is_nan()) || (g - r).abs() <= tol * r.abs().max(1.0);
    let mut outs = exe.bindings.outputs.iter();
    let mut scatters = exe.bindings.scatters.iter();
    for out in &want.outputs {
        let c = out.data.channels;
        let got: Vec<[f32; 4]> =
            if let Some(s) = exe.bindings.scatters.iter().find(|s| s.param == out.name) {
                let _ = scatters.next();
                let base = s.slot as usize * w * h;
                (0..w * h)
                    .map(|e| [f32::from_bits(run.memory[base + e]), 0.0, 0.0, 0.0])
                    .collect()
            } else {
                let o = outs
                    .next()
                    .ok_or_else(|| format!("no export for output {}", out.name))?;
                let v = run.export_f32(ctm_sim::r700::ExportKind::Pixel, o.export);
                if v.is_empty() {
                    vec![[0.0; 4]; w * h]
                } else {
                    v
                }
            };
        for j in 0..h {
            for i in 0..w {
                let r = out.data.read(i as i64, j as i64);
                let g = got[j * w + i];
                for ch in 0..c {
                    if !close(g[ch], r[ch]) {
                        return Err(format!(
                            "{} ({i},{j}).{ch}: got {} want {}\n{}",
                            out.name,
                            g[ch],
                            r[ch],
                            ctm_backend_r700::isa::format_program(&exe.program)
                        ));
                    }
                }
            }
        }
    }
    Ok(run)
}

/// The examples' differential cases and argument ranges (shared with the
/// other code generator's tests).
#[allow(unused_imports)]
pub use ctm_kernel_gen::examples::{
    CASES, Case, Ranges, TOL_EXACT, TOL_TRANSCENDENTAL, XorShift as Rng, args_for,
};
