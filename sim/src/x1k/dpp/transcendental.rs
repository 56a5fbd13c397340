//! The alpha unit's transcendental ops EX2, LN2, RCP, RSQ, SIN, COS
//! (CTM §3.3.4, §3.6.3).
//!
//! Accuracy model: each value is computed in f64 and rounded once to f32
//! (correctly rounded except for rare double-rounding ties). The hardware
//! is looser (CTM §3.6.1: "transcendental functions have larger
//! tolerances"); the model is deliberately exact so that a program checked
//! on it fails only for its own reasons (`docs/sim-x1k.md` §2.5).
//!
//! Range (CTM §3.6.3): transcendentals keep no extra range. A result beyond
//! the f32 range is ±inf and a denormal result is a signed zero *before* the
//! output modifier is applied. Special inputs follow the table of CTM
//! §3.6.3, including RSQ(-0) = +inf (IEEE would give -inf).

use super::fp::flush;

pub use ctm_backend_x1k::isa::Transcendental;

/// The simulator's evaluation of the ISA's [`Transcendental`] ops (the
/// opcode table says which alpha op is which transcendental).
pub(crate) trait Eval {
    /// The op's value for input `a`, as the f32 the unit produces (before
    /// the output modifier).
    fn eval(self, a: f32) -> f32;
}

impl Eval for Transcendental {
    #[inline]
    fn eval(self, a: f32) -> f32 {
        let x = flush(a);
        let r: f64 = match self {
            Transcendental::Ex2 => f64::from(x).exp2(),
            // log2(±0) = -inf, log2(<0) = NaN, log2(+inf) = +inf.
            Transcendental::Ln2 => {
                if x == 0.0 {
                    f64::NEG_INFINITY
                } else {
                    f64::from(x).log2()
                }
            }
            // 1/±0 = ±inf, 1/±inf = ±0.
            Transcendental::Rcp => 1.0 / f64::from(x),
            Transcendental::Rsq => {
                if x == 0.0 {
                    // CTM §3.6.3: RSQ(-0) = +inf (the square root comes first).
                    f64::INFINITY
                } else {
                    1.0 / f64::from(x).sqrt()
                }
            }
            Transcendental::Sin | Transcendental::Cos => {
                if x.is_finite() {
                    sin_cos_turns(f64::from(x), self == Transcendental::Sin)
                } else {
                    f64::NAN
                }
            }
        };
        // No extra range: round to f32 now (overflow → inf), flush denormals.
        flush(r as f32)
    }
}

/// sin(2πx) or cos(2πx) for finite `x`, with exact argument reduction: `x`
/// minus its nearest integer, then minus the nearest quarter turn, are exact
/// in f64, so the quarter points give exact 0 and ±1. A zero sine has the
/// sign of `x` (so SIN(±0) = ±0, CTM §3.6.3); a zero cosine is +0.
fn sin_cos_turns(x: f64, sine: bool) -> f64 {
    let r = x - x.round();
    let q = (r * 4.0).round();
    let t = (r - q * 0.25) * std::f64::consts::TAU;
    let (s, c) = (t.sin(), t.cos());
    let quadrant = (q as i64).rem_euclid(4);
    let v = match (sine, quadrant) {
        (true, 0) | (false, 3) => s,
        (true, 1) | (false, 0) => c,
        (true, 2) | (false, 1) => -s,
        _ => -c,
    };
    if v == 0.0 {
        if sine { 0.0f64.copysign(x) } else { 0.0 }
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_points() {
        assert_eq!(Transcendental::Sin.eval(0.25), 1.0);
        assert_eq!(Transcendental::Cos.eval(0.5), -1.0);
        assert_eq!(Transcendental::Ex2.eval(10.0), 1024.0);
        assert_eq!(Transcendental::Ln2.eval(0.125), -3.0);
        assert_eq!(Transcendental::Rsq.eval(0.25), 2.0);
    }
}
