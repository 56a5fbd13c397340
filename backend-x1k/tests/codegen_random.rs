//! Differential tests: compile + simulate equals the reference interpreter
//! within spec §7's tolerance, for every example and for random kernels.
//!
//! Needs the X1K processor-array simulator (`sim/src/x1k/dpp`) and the
//! kernel generator (`ctm_frontend::gen`); built only with the
//! `differential` feature until both are on main:
//! `cargo test -p ctm-backend-x1k --features differential --test codegen_diff`.

use ctm_backend_x1k::abi::{Bindings, IntSource};
use ctm_backend_x1k::codegen::compile_kernel;
use ctm_frontend::data::{KernelArgs, ParamData, StreamData, UniformValue};
use ctm_frontend::r#gen::{GenOptions, NumericsMode, generate, random_args};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::tast::{Kernel, ParamKind, Program};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_sim::x1k::dpp::{DppOptions, run_program};
use ctm_sim::x1k::interface::{self, DppMemory};

/// Inputs and constants of one run, laid out by the bindings.
struct Memory {
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

fn lanes(v: &ctm_frontend::value::Value) -> [f32; 4] {
    use ctm_frontend::value::Value as V;
    match *v {
        V::I32(i) => [i as f32; 4],
        V::Bool(b) => [if b { 1.0 } else { 0.0 }; 4],
        V::Float { lanes, width: 1 } => [lanes[0]; 4],
        V::Float { lanes, width } => {
            let mut out = [0.0; 4];
            out[..width as usize].copy_from_slice(&lanes[..width as usize]);
            out
        }
        _ => [0.0; 4],
    }
}

fn memory(kernel: &Kernel, args: &KernelArgs, b: &Bindings) -> Memory {
    let mut m = Memory {
        inputs: Vec::new(),
        consts: vec![[0.0; 4]; 256],
        ints: Vec::new(),
        bools: vec![false; 32],
    };
    let int_of = |src: &IntSource| -> i32 {
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
        match src {
            IntSource::Const(c) => *c,
            IntSource::Uniform(n) => find(n),
            IntSource::UniformRange(a, e) => {
                let v = |s: &IntSource| match s {
                    IntSource::Const(c) => *c,
                    IntSource::Uniform(n) => find(n),
                    _ => 0,
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
    if let Some(d) = b.domain_constant {
        m.consts[d as usize] = [args.domain.0 as f32, args.domain.1 as f32, 0.0, 0.0];
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

/// Runs `kernel` both ways; `Err` describes the first mismatch.
fn check(program: &Program, kernel: &Kernel, args: &KernelArgs, tol: f32) -> Result<(), String> {
    let want = run_kernel(program, kernel, args, &RunOptions::default())
        .map_err(|e| format!("reference: {e}"))?;
    let p = compile_kernel(program, kernel, OptLevel::O2, &Default::default())
        .map_err(|e| e.to_string())?;
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
    let run = run_program(&sp, &elements, &mem, &DppOptions::default()).map_err(|e| {
        format!(
            "simulator: {e:?}\n{}",
            ctm_backend_x1k::isa::format_program(&p.insts)
        )
    })?;
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
                    if !close(g[ch], r[ch]) {
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
    Ok(())
}

fn set(s: &mut StreamData, i: usize, j: usize, v: &[f32]) {
    if let ctm_frontend::data::StreamBuffer::F32(buf) = &mut s.buffer {
        let base = (j * s.width + i) * s.channels;
        buf[base..base + v.len().min(s.channels)].copy_from_slice(&v[..v.len().min(s.channels)]);
    }
}

#[test]
fn random_kernels_agree_with_the_reference() {
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut ok, mut failed, mut limits) = (0, Vec::new(), 0);
    for seed in 0..300u64 {
        let g = generate(seed, &options);
        let (program, diags) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::X1k,
            },
        );
        assert!(
            !ctm_frontend::diag::has_errors(&diags),
            "seed {seed} does not check"
        );
        let Some(program) = program else { continue };
        let Some(k) = program.kernels.iter().find(|k| k.name == g.kernel_name) else {
            continue;
        };
        let args = random_args(k, (7, 5), seed, NumericsMode::Robust);
        match check(&program, k, &args, g.tolerance()) {
            Ok(()) => ok += 1,
            Err(e) if e.contains("error[CK") => limits += 1,
            Err(e) => failed.push((seed, e)),
        }
    }
    eprintln!(
        "random kernels: {ok} agree, {limits} over a limit, {} differ",
        failed.len()
    );
    if let Some((seed, e)) = failed.first() {
        panic!("seed {seed}: {e}");
    }
}

#[test]
fn examples_agree_with_the_reference() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut failures = Vec::new();
    for name in [
        "saxpy",
        "threshold",
        "mandelbrot",
        "convolution",
        "polynomial",
        "black_scholes",
        "blend",
        "cbrt",
        "collatz",
        "grayscale",
        "matmul",
        "nbody",
        "normals",
        "ripple",
        "tonemap",
        "transform",
        "transpose",
    ] {
        let src = std::fs::read_to_string(dir.join(format!("{name}.ck"))).expect("example");
        let program = ctm_frontend::compile(
            &src,
            &CheckOptions {
                target: Target::X1k,
            },
        )
        .program
        .expect("checks");
        let k = &program.kernels[0];
        let args = random_args(k, (9, 7), 1, NumericsMode::Robust);
        if let Err(e) = check(&program, k, &args, 2e-3) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
