//! Helpers shared by the IR's integration tests.

#![allow(dead_code)]

use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::interp::KernelRun;
use ctm_frontend::tast::{Kernel, ParamKind, Program};
use ctm_frontend::types::{StreamType, Target, Type};
use ctm_frontend::value::Value;
use ctm_frontend::{CheckOptions, compile};
use ctm_ir::graph::Module;
use ctm_ir::{lower, verify};
use std::path::{Path, PathBuf};

/// The `.ck` files of `examples/`.
pub fn example_paths() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ck"))
        .collect();
    v.sort();
    v
}

/// Compiles an example for the reference target, panicking on errors.
pub fn compile_example(path: &Path) -> Program {
    let src = std::fs::read_to_string(path).expect("read");
    let c = compile(
        &src,
        &CheckOptions {
            target: Target::Ref,
        },
    );
    match c.program {
        Some(p) => p,
        None => panic!(
            "{} does not compile:\n{}",
            path.display(),
            ctm_frontend::diag::render(&c.diagnostics, "x.ck", &src, false)
        ),
    }
}

/// A small deterministic generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
}

pub fn random_stream(w: usize, h: usize, channels: usize, seed: u64) -> StreamData {
    let mut r = Rng::new(seed);
    StreamData {
        width: w,
        height: h,
        channels,
        buffer: StreamBuffer::F32((0..w * h * channels).map(|_| r.float(-2.0, 2.0)).collect()),
    }
}

/// Arguments for a kernel: random streams of the domain's size, small
/// uniforms, loop counts from 0 to 8.
pub fn random_args(kernel: &Kernel, domain: (usize, usize), seed: u64) -> KernelArgs {
    let mut r = Rng::new(seed);
    let (w, h) = domain;
    let params = kernel
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Input(st) => ParamData::Input(match st {
                StreamType::Unorm8x4 => StreamData {
                    width: w,
                    height: h,
                    channels: 4,
                    buffer: StreamBuffer::U8((0..w * h * 4).map(|_| r.next() as u8).collect()),
                },
                StreamType::U16 => StreamData {
                    width: w,
                    height: h,
                    channels: 1,
                    buffer: StreamBuffer::U16((0..w * h).map(|_| r.next() as u16).collect()),
                },
                st => StreamData {
                    width: w,
                    height: h,
                    channels: st.channels(),
                    buffer: StreamBuffer::F32(
                        (0..w * h * st.channels())
                            .map(|_| r.float(0.25, 4.0))
                            .collect(),
                    ),
                },
            }),
            ParamKind::Output(_) | ParamKind::Scatter => ParamData::Output,
            ParamKind::Uniform(t) => ParamData::Uniform(match t {
                Type::Mat4 => UniformValue::Mat4(std::array::from_fn(|_| r.float(-1.0, 1.0))),
                Type::Array(a) => UniformValue::Array(
                    (0..a.len)
                        .map(|_| random_value(&mut r, a.elem.ty()))
                        .collect(),
                ),
                t => UniformValue::Value(random_value(&mut r, t)),
            }),
        })
        .collect();
    KernelArgs { domain, params }
}

fn random_value(r: &mut Rng, t: Type) -> Value {
    match t {
        Type::Bool => Value::Bool(r.next() & 1 == 1),
        Type::I32 => Value::I32((r.next() % 9) as i32),
        t => {
            let w = t.float_width().unwrap_or(1) as usize;
            let lanes: Vec<f32> = (0..w).map(|_| r.float(-1.5, 1.5)).collect();
            Value::floats(&lanes)
        }
    }
}

/// Asserts two runs are bitwise equal (NaN equals NaN).
pub fn assert_same(got: &KernelRun, want: &KernelRun, what: &str, m: &ctm_ir::Module) {
    assert_eq!(
        got.outputs.len(),
        want.outputs.len(),
        "{what}: output count"
    );
    for (g, w) in got.outputs.iter().zip(&want.outputs) {
        let (gv, wv) = (g.data.as_f32().expect("f32"), w.data.as_f32().expect("f32"));
        assert_eq!(gv.len(), wv.len(), "{what}: {} length", g.name);
        for (k, (a, b)) in gv.iter().zip(wv).enumerate() {
            let same = a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            if !same {
                panic!(
                    "{what}: output {} element {k}: IR {a} vs reference {b}\n{}",
                    g.name,
                    ctm_ir::print::to_text(m)
                );
            }
        }
    }
}

/// Checks and lowers the first kernel of `src` for the reference target,
/// verifying the lowered IR; panics with the diagnostics on errors.
pub fn lowered(src: &str) -> (ctm_frontend::tast::Program, Module) {
    let c = compile(
        src,
        &CheckOptions {
            target: Target::Ref,
        },
    );
    let program = c.program.unwrap_or_else(|| {
        panic!(
            "{}",
            ctm_frontend::diag::render(&c.diagnostics, "t.ck", src, false)
        )
    });
    let m = lower::lower_kernel(&program, &program.kernels[0]);
    verify::check(&m, "lowering").expect("lowered IR verifies");
    (program, m)
}
