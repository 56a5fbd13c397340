//! The numeric bookkeeping of [`NumericsMode::Robust`]: every generated
//! float or integer expression carries a [`Range`], an interval that holds
//! its value in every lane plus a bound on how far a GPU may be from the
//! reference in absolute terms (`err`).
//!
//! The model (spec §7): `+ - * min max`, comparisons and conversions are
//! bit-exact, so values built from them alone have `err = 0` ("exact
//! class"); `rcp rsqrt sqrt exp2 log2` are within [`REL`] relative, `sin cos`
//! within [`TRIG_ABS`] absolute, and derived functions (`/ pow exp log tan
//! normalize smoothstep length distance`) within what their expansion gives.
//! Once a value is approximate, every further operation on it may round
//! differently too ([`ULP`]). Errors propagate by first-order bounds over
//! the interval (`|f'| * err`). Only exact-class values reach a
//! discontinuity (a branch, `floor`, a cast to `i32`, a gather position).
//! For the X1K, whose MAD and DP round once, products (`*`, `dot`,
//! `cross`, `mix`, matrix products) are approximate ([`FUSED`]): the
//! fused rounding of `a * b + c` differs from the reference's two
//! roundings in the last bit, which a discontinuity would magnify.
//!
//! Every computation here uses only `+ - * /`, `sqrt`, `floor`, `ceil` and
//! bit manipulation of `f64`, which IEEE 754 defines exactly, so that the
//! generator's decisions are the same on every platform.
//!
//! [`NumericsMode::Robust`]: crate::NumericsMode::Robust

/// One unit in the last place of an f32, relative: the rounding of any
/// operation on an approximate value.
pub const ULP: f64 = 1.0 / 8_388_608.0;
/// The rounding a fused multiply-add or dot product can save, relative to
/// the product's magnitude (half an ulp, rounded up to one): the
/// difference between one rounding and two (X1K only, [`crate::ctx`]).
pub const FUSED: f64 = ULP;
/// Relative error of the primitive transcendentals `rcp rsqrt sqrt exp2
/// log2` (spec §7: 2^-21).
pub const REL: f64 = 1.0 / 2_097_152.0;
/// Absolute error of `sin`/`cos` on arguments up to [`TRIG_ARG`] (spec §7
/// gives 2^-20 on [-pi, pi]; range reduction costs a few more bits).
pub const TRIG_ABS: f64 = 1.0 / 262_144.0;
/// Largest magnitude of a `sin`/`cos` argument in robust kernels.
pub const TRIG_ARG: f64 = 8.0;
/// Largest magnitude of an `exp2` argument in robust kernels.
pub const EXP2_ARG: f64 = 8.0;
/// Largest magnitude of a `tan` argument in robust kernels (cos >= 0.36).
pub const TAN_ARG: f64 = 1.2;

/// Robust arguments: float stream elements, float uniforms and uniform
/// array elements lie in `[-ROBUST_FLOAT, ROBUST_FLOAT]`.
pub const ROBUST_FLOAT: f64 = 4.0;
/// Robust arguments: `mat4` entries lie in `[-ROBUST_MAT, ROBUST_MAT]`.
pub const ROBUST_MAT: f64 = 1.0;
/// Robust arguments: `i32` uniforms lie in `[-ROBUST_INT, ROBUST_INT]`.
pub const ROBUST_INT: i32 = 100;
/// Robust arguments: `u16` stream elements are at most this.
pub const ROBUST_U16: u16 = 1023;
/// Both modes: an `i32` uniform used as a `for` bound lies in
/// `[0, LOOP_BOUND_MAX]` (in exact mode `[-2, LOOP_BOUND_MAX]`).
pub const LOOP_BOUND_MAX: i32 = 8;
/// Robust kernels assume a domain of at most this many columns and rows,
/// so `index()` lies in `[0, MAX_DOMAIN - 1]`.
pub const MAX_DOMAIN: f64 = 1024.0;

/// Largest magnitude of any float value in a robust kernel.
pub const ROBUST_MAG: f64 = 4096.0;
/// Largest magnitude of any `i32` value in a robust kernel (x1k emulates
/// `i32` in f32, exact below 2^24).
pub const INT_MAG: f64 = 1_048_576.0;
/// Error budget of an output in a kernel that uses transcendental
/// built-ins: half of spec §7's 2e-3 (the model's bounds are worst cases
/// already; `tests/gen_robust.rs` measures the margin).
pub const OUT_ERR_TRANSCENDENTAL: f64 = 1e-3;
/// Largest magnitude of an approximate value: one rounding of a larger
/// one would not fit the error budget.
pub const APPROX_MAG: f64 = 128.0;
/// An interval holding a value (every lane of a vector) and a bound on
/// the absolute error a GPU may add to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// Lower bound of the value.
    pub lo: f64,
    /// Upper bound of the value.
    pub hi: f64,
    /// Bound on |GPU result - reference result|; 0 for exact-class values.
    pub err: f64,
}

/// `a * b` with `0 * inf = 0`, as interval multiplication needs.
fn prod(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p.is_nan() { 0.0 } else { p }
}

impl Range {
    /// The exact interval `[lo, hi]`.
    pub fn new(lo: f64, hi: f64) -> Range {
        Range { lo, hi, err: 0.0 }.sane()
    }

    /// The exact value `v`.
    pub fn point(v: f64) -> Range {
        Range::new(v, v)
    }

    /// Anything, exactly (`[-inf, inf]`, err 0): what exact mode tracks.
    pub fn any() -> Range {
        Range::new(f64::NEG_INFINITY, f64::INFINITY)
    }

    /// The symmetric interval `[-m, m]`.
    pub fn sym(m: f64) -> Range {
        Range::new(-m, m)
    }

    /// The same interval with error `err`.
    pub fn with_err(self, err: f64) -> Range {
        Range { err, ..self }.sane()
    }

    /// Replaces NaN bounds by infinities and orders the bounds.
    fn sane(self) -> Range {
        let lo = if self.lo.is_nan() {
            f64::NEG_INFINITY
        } else {
            self.lo
        };
        let hi = if self.hi.is_nan() {
            f64::INFINITY
        } else {
            self.hi
        };
        let err = if self.err.is_nan() {
            f64::INFINITY
        } else {
            self.err.max(0.0)
        };
        Range {
            lo: lo.min(hi),
            hi: hi.max(lo),
            err,
        }
    }

    /// The largest magnitude in the interval.
    pub fn mag(&self) -> f64 {
        self.lo.abs().max(self.hi.abs())
    }

    /// Adds the rounding of one more operation if the value is approximate.
    fn rounded(self) -> Range {
        if self.err > 0.0 {
            let e = self.err + ULP * self.mag();
            self.with_err(e)
        } else {
            self
        }
    }

    /// The smallest interval holding both.
    pub fn union(self, o: Range) -> Range {
        Range {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            err: self.err.max(o.err),
        }
        .sane()
    }

    /// `-x`.
    pub fn neg(self) -> Range {
        Range {
            lo: -self.hi,
            hi: -self.lo,
            err: self.err,
        }
    }

    /// `a + b`.
    pub fn add(self, o: Range) -> Range {
        Range {
            lo: self.lo + o.lo,
            hi: self.hi + o.hi,
            err: self.err + o.err,
        }
        .sane()
        .rounded()
    }

    /// `a - b`.
    pub fn sub(self, o: Range) -> Range {
        self.add(o.neg())
    }

    /// `a * b`.
    pub fn mul(self, o: Range) -> Range {
        let ps = [
            prod(self.lo, o.lo),
            prod(self.lo, o.hi),
            prod(self.hi, o.lo),
            prod(self.hi, o.hi),
        ];
        let lo = ps.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let err = prod(self.err, o.mag()) + prod(o.err, self.mag()) + prod(self.err, o.err);
        Range { lo, hi, err }.sane().rounded()
    }

    /// `x * c` for a scalar bound `c >= 0` applied symmetrically, as in a
    /// sum of `c` products (`dot`, `m * v`).
    pub fn scaled(self, c: f64) -> Range {
        let m = self.mag() * c;
        Range::sym(m).with_err(self.err * c).rounded()
    }

    /// `abs(x)`.
    pub fn abs(self) -> Range {
        if self.lo >= 0.0 {
            self
        } else if self.hi <= 0.0 {
            self.neg()
        } else {
            Range {
                lo: 0.0,
                hi: self.mag(),
                err: self.err,
            }
        }
    }

    /// `min(a, b)`.
    pub fn min(self, o: Range) -> Range {
        Range {
            lo: self.lo.min(o.lo),
            hi: self.hi.min(o.hi),
            err: self.err.max(o.err),
        }
        .sane()
    }

    /// `max(a, b)`.
    pub fn max(self, o: Range) -> Range {
        Range {
            lo: self.lo.max(o.lo),
            hi: self.hi.max(o.hi),
            err: self.err.max(o.err),
        }
        .sane()
    }

    /// `clamp(x, lo, hi)` = `min(max(x, lo), hi)`.
    pub fn clamp(self, lo: Range, hi: Range) -> Range {
        self.max(lo).min(hi)
    }

    /// `x / d` where `d` lies in `[dlo, dhi]` with `dlo > 0`, computed as
    /// `x * rcp(d)` on a GPU.
    pub fn div_positive(self, d: Range) -> Range {
        let dlo = d.lo.max(f64::MIN_POSITIVE);
        let m = self.mag() / dlo;
        let lo = if self.lo >= 0.0 { 0.0 } else { -m };
        let hi = if self.hi <= 0.0 { 0.0 } else { m };
        let err = self.err / dlo + self.mag() * d.err / (dlo * dlo) + (REL + ULP) * m;
        Range { lo, hi, err }.sane()
    }

    /// The range of `x as i32` of this float range (truncation toward
    /// zero, saturating).
    pub fn truncated(self) -> Range {
        let min = f64::from(i32::MIN);
        let max = f64::from(i32::MAX);
        Range::new(
            self.lo.trunc().clamp(min, max),
            self.hi.trunc().clamp(min, max),
        )
    }
}

/// The largest power of two at most `x` (for `x >= 2^-1000`), else 0.
pub fn pow2_floor(x: f64) -> f64 {
    if x.is_nan() || x < 1e-300 {
        return 0.0;
    }
    if x.is_infinite() {
        return f64::MAX;
    }
    f64::from_bits(x.to_bits() & 0xFFF0_0000_0000_0000)
}

/// `2^n` for an integer `n` in `[-1000, 1000]`, exactly.
pub fn exp2_int(n: i64) -> f64 {
    let n = n.clamp(-1000, 1000);
    f64::from_bits(((1023 + n) as u64) << 52)
}

/// An upper bound of `2^x`, exactly a power of two.
pub fn exp2_upper(x: f64) -> f64 {
    exp2_int(x.ceil().clamp(-1000.0, 1000.0) as i64)
}

/// A lower bound of `2^x`, exactly a power of two.
pub fn exp2_lower(x: f64) -> f64 {
    exp2_int(x.floor().clamp(-1000.0, 1000.0) as i64)
}

/// An upper bound of `log2(x)` for `x > 0` (the binary exponent plus one).
pub fn log2_upper(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x.is_infinite() {
        return 1024.0;
    }
    let e = ((x.to_bits() >> 52) & 0x7FF) as i64 - 1023;
    (e + 1) as f64
}

/// A lower bound of `log2(x)` for `x > 0` (the binary exponent).
pub fn log2_lower(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return -1100.0;
    }
    let e = ((x.to_bits() >> 52) & 0x7FF) as i64 - 1023;
    e as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_arithmetic() {
        let a = Range::new(-1.0, 2.0);
        let b = Range::new(3.0, 4.0);
        assert_eq!(a.add(b), Range::new(2.0, 6.0));
        assert_eq!(a.mul(b), Range::new(-4.0, 8.0));
        assert_eq!(a.neg().abs(), Range::new(0.0, 2.0));
        assert_eq!(Range::any().mul(Range::point(0.0)), Range::point(0.0));
        let approx = Range::new(1.0, 2.0).with_err(1e-6);
        let p = approx.mul(Range::new(0.0, 10.0));
        // 10 * 1e-6 from the operand, plus one rounding of a value up to 20.
        assert!(p.err >= 1e-5 && p.err <= 1e-5 + ULP * 20.0 * 1.000_001);
        let q = Range::new(-3.0, 3.0).div_positive(Range::new(1.0, 4.0));
        assert_eq!((q.lo, q.hi), (-3.0, 3.0));
        assert!(q.err > 0.0);
    }

    #[test]
    fn powers_of_two_are_exact() {
        assert_eq!(pow2_floor(5.0), 4.0);
        assert_eq!(pow2_floor(0.3), 0.25);
        assert_eq!(exp2_upper(2.5), 8.0);
        assert_eq!(exp2_lower(-1.5), 0.25);
        assert_eq!(log2_upper(8.0), 4.0);
        assert_eq!(log2_upper(7.9), 3.0);
        assert_eq!(log2_lower(7.9), 2.0);
        assert_eq!(exp2_int(-2), 0.25);
    }
}
