//! Shared by the code generator's tests: compiling examples, laying out a
//! run's memory from the ABI bindings (`docs/abi-x1k.md` §3), running the
//! DPP simulator with its default (faulting) hazard policy and comparing
//! with the reference interpreter under spec §7's tolerance.

#![allow(dead_code)]

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{Bindings, IntSource};
use ctm_backend_x1k::codegen::compile_kernel;
use ctm_frontend::Target;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::tast::{Kernel, ParamKind};
use ctm_frontend::value::Value;
use ctm_ir::passes::OptLevel;
use ctm_sim::x1k::dpp::{DppOptions, DppRun, run_program};
use ctm_sim::x1k::interface::{self, DppMemory};

/// The checked program of `examples/{name}.ck`.
pub fn example_program(name: &str) -> ctm_frontend::tast::Program {
    ctm_kernel_gen::examples::example_program(name, Target::X1k)
}

/// The compiled first kernel of `examples/{name}.ck`.
pub fn example(name: &str) -> Program {
    let program = example_program(name);
    let k = &program.kernels[0];
    compile_kernel(&program, k, OptLevel::O2, &Default::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every example that compiles for x1k (all but `hash`, CK0060, and the
/// reductions, which compile to their pass kernel elsewhere).
pub const EXAMPLES: &[&str] = &[
    "black_scholes",
    "blend",
    "cbrt",
    "collatz",
    "convolution",
    "grayscale",
    "mandelbrot",
    "matmul",
    "nbody",
    "normals",
    "polynomial",
    "ripple",
    "saxpy",
    "threshold",
    "tonemap",
    "transform",
    "transpose",
];

/// Inputs and constants of one run, laid out by the bindings.
pub struct Memory {
    inputs: Vec<StreamData>,
    consts: Vec<[f32; 4]>,
    ints: Vec<u32>,
    bools: Vec<bool>,
}

impl DppMemory for Memory {
    fn input_size(&self, input: u8) -> Option<(u32, u32)> {
        self.inputs
            .get(input as usize)
            .map(|s| (s.width as u32, s.height as u32))
    }
    fn read_input(&self, input: u8, x: u32, y: u32) -> [f32; 4] {
        self.inputs[input as usize].read(x as i64, y as i64)
    }
    fn float_constant(&self, index: u8) -> [f32; 4] {
        self.consts[index as usize]
    }
    fn int_constant(&self, index: u8) -> u32 {
        self.ints.get(index as usize).copied().unwrap_or(0)
    }
    fn bool_constant(&self, index: u8) -> bool {
        self.bools.get(index as usize).copied().unwrap_or(false)
    }
}

fn lanes(v: &Value) -> [f32; 4] {
    match *v {
        Value::I32(i) => [i as f32; 4],
        Value::Bool(b) => [if b { 1.0 } else { 0.0 }; 4],
        Value::Float { lanes, width: 1 } => [lanes[0]; 4],
        Value::Float { lanes, width } => {
            let mut out = [0.0; 4];
            out[..width as usize].copy_from_slice(&lanes[..width as usize]);
            out
        }
        _ => [0.0; 4],
    }
}

/// The memory image of a run of `kernel` with `args` (the driver's job).
pub fn memory(kernel: &Kernel, args: &KernelArgs, b: &Bindings) -> Memory {
    let mut m = Memory {
        inputs: Vec::new(),
        consts: vec![[0.0; 4]; 256],
        ints: Vec::new(),
        bools: vec![false; 32],
    };
    let find = |name: &str| {
        kernel
            .params
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| match &args.params[i] {
                ParamData::Uniform(UniformValue::Value(v)) => Some(v.as_i32()),
                _ => None,
            })
            .unwrap_or(0)
    };
    let int_of = |src: &IntSource| -> i32 {
        match src {
            IntSource::Const(c) => *c,
            IntSource::Uniform(n) => find(n),
            IntSource::UniformRange(a, e) => {
                let v = |s: &IntSource| match s {
                    IntSource::Const(c) => *c,
                    IntSource::Uniform(n) => find(n),
                    IntSource::UniformRange(..) => 0,
                };
                (v(e) - v(a)).clamp(0, 255)
            }
        }
    };
    for (i, p) in kernel.params.iter().enumerate() {
        match (&p.kind, &args.params[i]) {
            (ParamKind::Input(_), ParamData::Input(s)) => m.inputs.push(s.clone()),
            (ParamKind::Uniform(_), ParamData::Uniform(u)) => {
                if let Some(ub) = b.uniforms.iter().find(|u| u.param == p.name) {
                    let base = ub.float_constant as usize;
                    match u {
                        UniformValue::Value(v) => m.consts[base] = lanes(v),
                        UniformValue::Mat4(x) => {
                            for c in 0..4 {
                                m.consts[base + c].copy_from_slice(&x[4 * c..4 * c + 4]);
                            }
                        }
                        UniformValue::Array(vs) => {
                            for (k, v) in vs.iter().enumerate() {
                                m.consts[base + k] = lanes(v);
                            }
                        }
                    }
                }
                if let Some(bb) = b.bool_uniforms.iter().find(|x| x.param == p.name)
                    && let UniformValue::Value(v) = u
                {
                    m.bools[bb.bool_constant as usize] = v.as_bool();
                    if let Some(f) = bb.float_constant {
                        m.consts[f as usize] = lanes(v);
                    }
                }
            }
            _ => {}
        }
    }
    // Launch constants: computed from the user's uniforms (ABI §3.2).
    for c in &b.launch_constants {
        let expr = ctm_ir::launch::LaunchExpr::parse(&c.expr).expect("a launch expression");
        let lookup = |name: &str| {
            let i = kernel.params.iter().position(|p| p.name == name)?;
            match &args.params[i] {
                ParamData::Uniform(u) => Some(u),
                _ => None,
            }
        };
        let v = expr
            .evaluate(&lookup)
            .expect("the launch constant evaluates");
        if let Some(ub) = b.uniforms.iter().find(|u| u.param == c.param) {
            m.consts[ub.float_constant as usize] = lanes(&v);
        }
    }
    if let Some(d) = b.domain_constant {
        m.consts[d as usize] =
            ctm_backend_x1k::abi::domain_constant_value(args.domain.0, args.domain.1);
    }
    for l in &b.literals {
        m.consts[l.float_constant as usize] = l.value;
    }
    for ic in &b.int_constants {
        let (count, init) = (
            int_of(&ic.count).clamp(0, 255) as u32,
            int_of(&ic.init) as u32 & 0xFF,
        );
        if m.ints.len() <= ic.int_constant as usize {
            m.ints.resize(ic.int_constant as usize + 1, 0);
        }
        m.ints[ic.int_constant as usize] = count | init << 8 | ((ic.step as u32 & 0xFF) << 16);
    }
    m
}

/// Runs `p` (compiled from `kernel`) on the simulator over the domain of
/// `args`, with the default options (hazards fault).
pub fn simulate(p: &Program, kernel: &Kernel, args: &KernelArgs) -> Result<DppRun, String> {
    let mem = memory(kernel, args, &p.bindings);
    let (w, h) = args.domain;
    let elements: Vec<(u32, u32)> = (0..h)
        .flat_map(|j| (0..w).map(move |i| (i as u32, j as u32)))
        .collect();
    let sp = interface::Program {
        insts: p.insts.clone(),
        us_config: p.us_config,
        us_pixsize: p.us_pixsize,
        us_fc_ctrl: p.us_fc_ctrl,
        us_code_addr: ((p.insts.len() as u32 - 1) << 16),
    };
    run_program(&sp, &elements, &mem, &DppOptions::default()).map_err(|e| {
        format!(
            "simulator: {e:?}\n{}",
            ctm_backend_x1k::isa::format_program(&p.insts)
        )
    })
}

/// Compiles `kernel`, runs it both ways and compares every output within
/// `tol` (spec §7); `Err` describes the first mismatch with the listing.
pub fn check(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    args: &KernelArgs,
    tol: f32,
) -> Result<DppRun, String> {
    check_with(program, kernel, args, tol, &|_, _, _| None)
}

/// A second reference value for (output, i, j), where the kernel's result
/// legitimately depends on the rounding of a fused multiply-add (see the
/// callers).
pub type Alternative<'a> = &'a dyn Fn(&str, usize, usize) -> Option<f32>;

/// [`check`], also accepting `alternative`'s value where it has one.
pub fn check_with(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    args: &KernelArgs,
    tol: f32,
    alternative: Alternative,
) -> Result<DppRun, String> {
    check_at(program, kernel, args, tol, OptLevel::O2, alternative)
}

/// [`check_with`] with the IR optimised at `level`.
pub fn check_at(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    args: &KernelArgs,
    tol: f32,
    level: OptLevel,
    alternative: Alternative,
) -> Result<DppRun, String> {
    check_at_lanes(program, kernel, args, tol, level, &|n, i, j, _| {
        alternative(n, i, j)
    })
}

/// A second reference value per (output, i, j, channel).
pub type LaneAlternative<'a> = &'a dyn Fn(&str, usize, usize, usize) -> Option<f32>;

/// [`check_at`] with an alternative value per channel.
pub fn check_at_lanes(
    program: &ctm_frontend::tast::Program,
    kernel: &Kernel,
    args: &KernelArgs,
    tol: f32,
    level: OptLevel,
    alternative: LaneAlternative,
) -> Result<DppRun, String> {
    let want = run_kernel(program, kernel, args, &RunOptions::default())
        .map_err(|e| format!("reference: {e}"))?;
    let p =
        compile_kernel(program, kernel, level, &Default::default()).map_err(|e| e.to_string())?;
    let run = simulate(&p, kernel, args)?;
    let (w, h) = args.domain;
    let close =
        |g: f32, r: f32| (g.is_nan() && r.is_nan()) || (g - r).abs() <= tol * r.abs().max(1.0);
    for (k, out) in want.outputs.iter().enumerate() {
        let c = out.data.channels;
        let mut got = StreamData::zeros(w, h, c);
        let scatter = p.bindings.scatter.is_some();
        for e in &run.results {
            if scatter {
                for u in &e.umrt {
                    if u.x >= 0.0 && u.y >= 0.0 && (u.x as usize) < w && (u.y as usize) < h {
                        set(&mut got, u.x as usize, u.y as usize, &[u.value]);
                    }
                }
            } else if !e.killed
                && let Some(t) = e.targets[k]
            {
                set(&mut got, e.i as usize, e.j as usize, &t.value[..c]);
            }
        }
        for j in 0..h {
            for i in 0..w {
                let (g, r) = (
                    got.read(i as i64, j as i64),
                    out.data.read(i as i64, j as i64),
                );
                for ch in 0..c {
                    let alt = alternative(&out.name, i, j, ch);
                    if !close(g[ch], r[ch]) && !alt.is_some_and(|a| close(g[ch], a)) {
                        return Err(format!(
                            "{} ({i},{j}).{ch}: got {} want {}\n{}",
                            out.name,
                            g[ch],
                            r[ch],
                            ctm_backend_x1k::isa::format_program(&p.insts)
                        ));
                    }
                }
            }
        }
    }
    Ok(run)
}

fn set(s: &mut StreamData, i: usize, j: usize, v: &[f32]) {
    if let StreamBuffer::F32(buf) = &mut s.buffer {
        let base = (j * s.width + i) * s.channels;
        let n = v.len().min(s.channels);
        buf[base..base + n].copy_from_slice(&v[..n]);
    }
}

/// The examples' differential cases and argument ranges (shared with the
/// other code generator's tests).
#[allow(unused_imports)]
pub use ctm_kernel_gen::examples::{
    Case, Ranges, TOL_EXACT, TOL_TRANSCENDENTAL, X1K_CASES as CASES, XorShift as Rng, args_for,
};
