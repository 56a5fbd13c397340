//! The shipped examples as differential test cases, shared by both code
//! generators' tests: each example's domain, spec §7 tolerance and the
//! value range of each parameter (the inputs the example is meant for),
//! and [`args_for`], which draws a run's arguments from those ranges with
//! a small seeded generator ([`XorShift`]). The random-kernel generator's
//! own arguments are [`crate::random_args`].

use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::tast::{Kernel, ParamKind};
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::value::Value;
use ctm_frontend::{CheckOptions, Target};
use std::path::Path;

/// The text of `examples/{name}.ck` (test support: panics if it is missing).
pub fn example_source(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/{name}.ck"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The checked program of `examples/{name}.ck` for `target` (test support:
/// panics if it does not check).
pub fn example_program(name: &str, target: Target) -> ctm_frontend::tast::Program {
    ctm_frontend::compile(&example_source(name), &CheckOptions { target })
        .program
        .unwrap_or_else(|| panic!("{name} does not check for {target:?}"))
}

/// Spec §7: kernels without transcendentals (or divisions).
pub const TOL_EXACT: f32 = 1e-5;
/// Spec §7: kernels with transcendentals.
pub const TOL_TRANSCENDENTAL: f32 = 2e-3;

/// A small deterministic generator (xorshift64*).
pub struct XorShift(u64);

impl XorShift {
    /// Seeded (any seed, 0 included).
    pub fn new(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [lo, hi).
    pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    /// Uniform in lo..=hi.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i32
    }
}

/// The value range of each parameter of an example: uniforms and input
/// streams get values in `[lo, hi)`; `i32` uniforms integers in `lo..=hi`.
pub type Ranges = fn(&str) -> (f32, f32);

/// Random arguments for `kernel` over `domain`, each parameter drawn from
/// `ranges(name)`.
pub fn args_for(kernel: &Kernel, domain: (usize, usize), seed: u64, ranges: Ranges) -> KernelArgs {
    let mut rng = XorShift::new(seed);
    let (w, h) = domain;
    let params = kernel
        .params
        .iter()
        .map(|p| {
            let (lo, hi) = ranges(&p.name);
            let mut f = || rng.float(lo, hi);
            match p.kind {
                ParamKind::Uniform(Type::Bool) => {
                    ParamData::Uniform(UniformValue::Value(Value::Bool(f() >= 0.5)))
                }
                ParamKind::Uniform(Type::I32) => {
                    let v = (f().floor() as i32).clamp(lo as i32, hi as i32);
                    ParamData::Uniform(UniformValue::Value(Value::I32(v)))
                }
                ParamKind::Uniform(Type::Mat4) => {
                    let mut m = [0.0; 16];
                    for x in &mut m {
                        *x = f();
                    }
                    ParamData::Uniform(UniformValue::Mat4(m))
                }
                ParamKind::Uniform(Type::Array(a)) => ParamData::Uniform(UniformValue::Array(
                    (0..a.len).map(|_| value_of(a.elem.ty(), &mut f)).collect(),
                )),
                ParamKind::Uniform(t) => {
                    let n = t.float_width().unwrap_or(1) as usize;
                    let v: Vec<f32> = (0..n).map(|_| f()).collect();
                    ParamData::Uniform(UniformValue::Value(Value::floats(&v)))
                }
                ParamKind::Input(s) => {
                    let c = s.channels();
                    let n = w * h * c;
                    let buffer = match s {
                        StreamType::Unorm8x4 => {
                            StreamBuffer::U8((0..n).map(|_| f().clamp(0.0, 255.0) as u8).collect())
                        }
                        StreamType::U16 => StreamBuffer::U16(
                            (0..n).map(|_| f().clamp(0.0, 65535.0) as u16).collect(),
                        ),
                        _ => StreamBuffer::F32((0..n).map(|_| f()).collect()),
                    };
                    ParamData::Input(StreamData {
                        width: w,
                        height: h,
                        channels: c,
                        buffer,
                    })
                }
                ParamKind::Output(_) | ParamKind::Scatter => ParamData::Output,
            }
        })
        .collect();
    KernelArgs { domain, params }
}

/// A value of type `ty` from `f`.
fn value_of(ty: Type, f: &mut dyn FnMut() -> f32) -> Value {
    match ty {
        Type::I32 => Value::I32(f().floor() as i32),
        Type::Bool => Value::Bool(f() >= 0.5),
        t => {
            let v: Vec<f32> = (0..t.float_width().unwrap_or(1)).map(|_| f()).collect();
            Value::floats(&v)
        }
    }
}

/// (example, domain, tolerance, parameter ranges).
pub type Case = (&'static str, (usize, usize), f32, Ranges);

/// Every example with a kernel (the reductions run their pass kernel
/// elsewhere), for the r700.
pub const CASES: &[Case] = &[
    ("saxpy", (9, 7), TOL_EXACT, |_| (-10.0, 10.0)),
    ("threshold", (9, 7), TOL_EXACT, |_| (-1.0, 1.0)),
    ("mandelbrot", (9, 7), TOL_EXACT, |p| match p {
        "center" => (-1.0, 0.3),
        _ => (0.05, 0.3),
    }),
    ("convolution", (9, 7), TOL_EXACT, |_| (-1.0, 1.0)),
    ("polynomial", (9, 7), TOL_EXACT, |_| (-1.0, 1.0)),
    ("blend", (9, 7), TOL_EXACT, |p| match p {
        "weight" | "use_max" => (0.0, 1.0),
        _ => (-10.0, 10.0),
    }),
    ("collatz", (9, 7), TOL_EXACT, |_| (1.0, 100.0)),
    ("grayscale", (9, 7), TOL_EXACT, |_| (0.0, 256.0)),
    ("matmul", (9, 7), TOL_EXACT, |p| match p {
        "k" => (0.0, 9.0),
        _ => (-2.0, 2.0),
    }),
    ("transform", (9, 7), TOL_EXACT, |_| (-4.0, 4.0)),
    ("transpose", (7, 7), TOL_EXACT, |_| (-100.0, 100.0)),
    ("black_scholes", (9, 7), TOL_TRANSCENDENTAL, |p| match p {
        "rate" => (0.0, 0.1),
        "volatility" => (0.1, 0.5),
        "years" => (0.25, 5.0),
        _ => (10.0, 100.0),
    }),
    ("cbrt", (9, 7), TOL_TRANSCENDENTAL, |_| (-100.0, 100.0)),
    ("nbody", (9, 3), TOL_TRANSCENDENTAL, |p| match p {
        "count" => (0.0, 9.0),
        "softening" => (0.1, 1.0),
        _ => (0.1, 10.0),
    }),
    ("normals", (9, 7), TOL_TRANSCENDENTAL, |p| match p {
        "scale" => (0.1, 2.0),
        _ => (0.0, 1000.0),
    }),
    ("ripple", (9, 7), TOL_TRANSCENDENTAL, |p| match p {
        "time" => (0.0, 10.0),
        _ => (0.0, 1.0),
    }),
    ("tonemap", (9, 7), TOL_TRANSCENDENTAL, |p| match p {
        "exposure" => (-2.0, 2.0),
        "posterize" | "vignette" => (0.0, 1.0),
        _ => (0.0, 10.0),
    }),
    // Last: the x1k refuses it (CK0060, integer bit operations).
    ("hash", (9, 7), TOL_EXACT, |_| (-1000.0, 1000.0)),
];

/// [`CASES`] without the integer example the x1k refuses (the last case).
pub const X1K_CASES: &[Case] = match CASES.split_last() {
    Some((_, rest)) => rest,
    None => CASES,
};
