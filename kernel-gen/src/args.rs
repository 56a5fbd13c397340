//! Arguments for running a kernel: input streams and uniforms with values
//! suited to the numerics mode.
//!
//! Robust mode keeps to the ranges generated robust kernels assume
//! ([`ROBUST_FLOAT`], [`ROBUST_MAT`], [`ROBUST_INT`], [`ROBUST_U16`]).
//! Exact mode mixes moderate values with integers, values of any exponent
//! and, at [`ArgOptions::special_per_mille`], special values: ±0, ±inf,
//! NaN, the largest finite values, tiny normal and denormal numbers, and
//! `i32::MIN`/`MAX`. In both modes an `i32` uniform that bounds a `for`
//! loop lies in `[0, LOOP_BOUND_MAX]` (exact: `[-2, LOOP_BOUND_MAX]`), so
//! that no loop runs away.

use super::options::NumericsMode;
use super::range::{LOOP_BOUND_MAX, ROBUST_FLOAT, ROBUST_INT, ROBUST_MAT, ROBUST_U16};
use super::rng::Rng;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::tast::{self, Kernel, LoopBound, ParamKind, StmtKind};
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::value::Value;
use std::collections::HashSet;

/// Salt of the argument stream (independent of the program generator's).
const ARGS_SALT: u64 = 0x6172_6773;

/// Options of [`random_args_with`].
#[derive(Clone, Debug, PartialEq)]
pub struct ArgOptions {
    /// Which ranges to draw from.
    pub numerics: NumericsMode,
    /// Exact mode: how many float values in a thousand are special (±0,
    /// ±inf, NaN, huge, tiny, denormal), and as many `i32` values extreme.
    pub special_per_mille: u32,
}

impl ArgOptions {
    /// Defaults for `numerics`: 3% special values in exact mode.
    pub fn new(numerics: NumericsMode) -> ArgOptions {
        ArgOptions {
            numerics,
            special_per_mille: 30,
        }
    }
}

/// Arguments for `kernel` over `domain` (width, height), drawn from
/// `seed`, with the defaults of [`ArgOptions::new`]. Streams have the
/// domain's shape (at least 1x1); `Out` and `Scatter` parameters get
/// [`ParamData::Output`].
pub fn random_args(
    kernel: &Kernel,
    domain: (usize, usize),
    seed: u64,
    mode: NumericsMode,
) -> KernelArgs {
    random_args_with(kernel, domain, seed, &ArgOptions::new(mode))
}

/// [`random_args`] with explicit options.
pub fn random_args_with(
    kernel: &Kernel,
    domain: (usize, usize),
    seed: u64,
    options: &ArgOptions,
) -> KernelArgs {
    let mut a = ArgGen {
        rng: Rng::derived(seed, ARGS_SALT),
        robust: options.numerics == NumericsMode::Robust,
        special: options.special_per_mille,
    };
    let bounds = loop_bound_uniforms(kernel);
    let (w, h) = (domain.0.max(1), domain.1.max(1));
    let params = kernel
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| match p.kind {
            ParamKind::Uniform(Type::I32) if bounds.contains(&i) => {
                let lo = if a.robust { 0 } else { -2 };
                let v = a.rng.range_i64(lo, i64::from(LOOP_BOUND_MAX));
                ParamData::Uniform(UniformValue::Value(Value::I32(v as i32)))
            }
            ParamKind::Uniform(Type::Mat4) => {
                let mut m = [0.0f32; 16];
                for x in &mut m {
                    *x = a.float(ROBUST_MAT);
                }
                ParamData::Uniform(UniformValue::Mat4(m))
            }
            ParamKind::Uniform(Type::Array(arr)) => {
                let ty = arr.elem.ty();
                let items = (0..arr.len).map(|_| a.value(ty)).collect();
                ParamData::Uniform(UniformValue::Array(items))
            }
            ParamKind::Uniform(ty) => ParamData::Uniform(UniformValue::Value(a.value(ty))),
            ParamKind::Input(s) => ParamData::Input(a.stream(s, w, h)),
            ParamKind::Output(_) | ParamKind::Scatter => ParamData::Output,
        })
        .collect();
    KernelArgs { domain, params }
}

/// Indices of the parameters used as `for` bounds in `kernel`'s body.
fn loop_bound_uniforms(kernel: &Kernel) -> HashSet<usize> {
    let mut set = HashSet::new();
    tast::walk_stmts(&kernel.body, &mut |s| {
        if let StmtKind::For { start, end, .. } = &s.kind {
            for b in [start, end] {
                if let LoopBound::Uniform(p) = b {
                    set.insert(p.index());
                }
            }
        }
    });
    set
}

struct ArgGen {
    rng: Rng,
    robust: bool,
    special: u32,
}

/// Special f32 values of exact mode.
const SPECIAL_F32: &[f32] = &[
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MAX,
    f32::MIN,
    3.0e38,
    f32::MIN_POSITIVE,
    1e-40,
    -1e-42,
    1e30,
    -1e-30,
    16_777_217.0,
];

/// Extreme i32 values of exact mode.
const SPECIAL_I32: &[i32] = &[i32::MIN, i32::MAX, -1, 0, 1 << 24, -(1 << 24) - 1, 1 << 30];

impl ArgGen {
    /// A float; robust mode draws from `[-robust_mag, robust_mag]`.
    fn float(&mut self, robust_mag: f64) -> f32 {
        if self.robust {
            return ((self.rng.unit_f64() * 2.0 - 1.0) * robust_mag) as f32;
        }
        if self.rng.per_mille(self.special) {
            return *self.rng.pick(SPECIAL_F32).unwrap_or(&0.0);
        }
        match self.rng.below(10) {
            0..=3 => ((self.rng.unit_f64() * 2.0 - 1.0) * 4.0) as f32,
            4 | 5 => self.rng.range_i64(-8, 8) as f32,
            6 | 7 => {
                // Any exponent in 2^-20 .. 2^20.
                let m = 1.0 + self.rng.unit_f64();
                let e = self.rng.range_i64(-20, 20) as i32;
                let sign = if self.rng.percent(50) { -1.0 } else { 1.0 };
                (sign * m * super::range::exp2_int(i64::from(e))) as f32
            }
            _ => self.rng.unit_f64() as f32,
        }
    }

    fn int(&mut self) -> i32 {
        if self.robust {
            return self
                .rng
                .range_i64(-i64::from(ROBUST_INT), i64::from(ROBUST_INT))
                as i32;
        }
        if self.rng.per_mille(self.special) {
            return *self.rng.pick(SPECIAL_I32).unwrap_or(&0);
        }
        match self.rng.below(10) {
            0..=5 => self.rng.range_i64(-10, 10) as i32,
            6 | 7 => self.rng.range_i64(-1000, 1000) as i32,
            _ => self.rng.next_u64() as i32,
        }
    }

    fn value(&mut self, ty: Type) -> Value {
        match ty {
            Type::Bool => Value::Bool(self.rng.percent(50)),
            Type::I32 => Value::I32(self.int()),
            t => {
                let w = t.float_width().unwrap_or(1);
                let lanes: Vec<f32> = (0..w).map(|_| self.float(ROBUST_FLOAT)).collect();
                Value::floats(&lanes)
            }
        }
    }

    fn stream(&mut self, s: StreamType, width: usize, height: usize) -> StreamData {
        let n = width * height * s.channels();
        let buffer = match s {
            StreamType::Unorm8x4 => {
                StreamBuffer::U8((0..n).map(|_| self.rng.below(256) as u8).collect())
            }
            StreamType::U16 => {
                let max = if self.robust {
                    u64::from(ROBUST_U16) + 1
                } else {
                    1 << 16
                };
                StreamBuffer::U16((0..n).map(|_| self.rng.below(max) as u16).collect())
            }
            _ => StreamBuffer::F32((0..n).map(|_| self.float(ROBUST_FLOAT)).collect()),
        };
        StreamData {
            width,
            height,
            channels: s.channels(),
            buffer,
        }
    }
}
