//! The ALU's floating-point rules (CTM §3.6), one function per rule.
//!
//! * Denormals are flushed to a signed zero on every arithmetic input and
//!   result (CTM §3.6.1). MIN/MAX/CND/CMP compare denormals as zero but
//!   return their input's bits (CTM §3.6.2).
//! * Non-transcendental ops keep extra range: the model computes them in
//!   f64 (every f32 product is exact in f64), applies the output modifier in
//!   f64, and only then rounds to f32, so a MAD whose result ×½ comes back
//!   into range stays finite and a denormal intermediate ×8 can become
//!   normal (CTM §3.6.2).
//! * The output modifiers (×1..×8, ÷2..÷8) turn NaN into 0x7FFFFFFF and
//!   flush denormal results; clamp (after the modifier) saturates to [0, 1];
//!   `OMOD_DISABLED` returns the bits unchanged and skips the clamp (CTM
//!   §3.3.5).
//! * Comparisons with zero for predicates, the ALU result and CMP follow the
//!   table of CTM §3.6.1 (NaN is only `!= 0`).

use ctm_backend_x1k::isa::{CompareOp, InputModifier, OutputModifier};

/// The NaN every output modifier produces (CTM §3.3.5).
pub const STANDARD_NAN: u32 = 0x7FFF_FFFF;

pub use crate::denormal::flush;

/// Apply an input modifier to the bits (CTM §3.3.3): NEG flips the sign,
/// ABS clears it, NAB sets it — also for NaN, zero and denormals, so a
/// bit-exact MOV keeps them.
#[inline(always)]
pub fn modify(x: f32, modifier: InputModifier) -> f32 {
    let bits = x.to_bits();
    f32::from_bits(match modifier {
        InputModifier::None => bits,
        InputModifier::Neg => bits ^ 0x8000_0000,
        InputModifier::Abs => bits & 0x7FFF_FFFF,
        InputModifier::NegAbs => bits | 0x8000_0000,
    })
}

/// The scale factor of an enabled output modifier; `None` for
/// `OMOD_DISABLED` (CTM §3.3.5).
pub const fn omod_scale(omod: OutputModifier) -> Option<f64> {
    match omod {
        OutputModifier::Mul1 => Some(1.0),
        OutputModifier::Mul2 => Some(2.0),
        OutputModifier::Mul4 => Some(4.0),
        OutputModifier::Mul8 => Some(8.0),
        OutputModifier::Div2 => Some(0.5),
        OutputModifier::Div4 => Some(0.25),
        OutputModifier::Div8 => Some(0.125),
        OutputModifier::Disabled => None,
    }
}

/// Round an extended-range intermediate result through an enabled output
/// modifier: scale in f64 (exact), round to f32 (overflow → ±inf), flush a
/// denormal, standardise NaN, then clamp if asked (CTM §3.3.5, §3.6.2).
#[inline(always)]
pub fn finish(x: f64, scale: f64, clamp: bool) -> f32 {
    let y = (x * scale) as f32;
    let y = if y.is_nan() {
        f32::from_bits(STANDARD_NAN)
    } else {
        flush(y)
    };
    if clamp { saturate(y) } else { y }
}

/// Clamp to [0, 1] (CTM §3.3.5). The manual does not say what NaN or -0
/// saturate to; the model follows the Direct3D 10 rule (NaN → +0) and gives
/// +0 for -0 (`docs/sim-x1k.md` §2).
#[inline(always)]
pub fn saturate(y: f32) -> f32 {
    if y > 0.0 {
        if y < 1.0 { y } else { 1.0 }
    } else {
        0.0
    }
}

/// Compare a result with zero (CTM §3.3.9, §3.3.10, table of §3.6.1):
/// denormals equal zero, NaN is only "not equal".
#[inline(always)]
pub fn compare(x: f32, op: CompareOp) -> bool {
    let x = flush(x);
    match op {
        CompareOp::Eq => x == 0.0,
        CompareOp::Lt => x < 0.0,
        CompareOp::Ge => x >= 0.0,
        CompareOp::Ne => x != 0.0,
    }
}

/// MIN: `A < B ? A : B`, returning B if either is NaN and for any pair of
/// zeros (denormals compare as zero), bits unchanged (CTM §3.3.4, §3.6.2).
#[inline(always)]
pub fn min(a: f32, b: f32) -> f32 {
    if flush(a) < flush(b) { a } else { b }
}

/// MAX: `A >= B ? A : B` with CTM §3.6.2's rule that NaN or two zeros
/// return the second argument: so `A > B ? A : B` (equal non-zero values
/// have equal bits).
#[inline(always)]
pub fn max(a: f32, b: f32) -> f32 {
    if flush(a) > flush(b) { a } else { b }
}

/// CND: `C > 0.5 ? A : B`; NaN C gives B (CTM §3.3.4, §3.6.2).
#[inline(always)]
pub fn cnd(a: f32, b: f32, c: f32) -> f32 {
    if c > 0.5 { a } else { b }
}

/// CMP: `C >= 0 ? A : B`; ±0 and denormal C are ≥ 0, NaN C gives B
/// (CTM §3.3.4, §3.6.2).
#[inline(always)]
pub fn cmp(a: f32, b: f32, c: f32) -> f32 {
    if flush(c) >= 0.0 { a } else { b }
}

/// Finish a MIN/MAX/CND/CMP result: bit-exact with `OMOD_DISABLED` (no
/// clamp), otherwise through the output modifier with the denormal input
/// flushed (CTM §3.3.5, §3.6.2).
#[inline(always)]
pub fn finish_select(x: f32, scale: Option<f64>, clamp: bool) -> f32 {
    match scale {
        None => x,
        Some(scale) => finish(f64::from(flush(x)), scale, clamp),
    }
}

/// One product of a MAD or dot product, exact in f64. With `US_CONFIG`
/// bit 1 (`ZERO_TIMES_ANYTHING_EQUALS_ZERO`, x1k-encoding §10) a zero
/// factor gives +0 even against Inf or NaN.
#[inline(always)]
pub fn product(a: f32, b: f32, zero_times_anything: bool) -> f64 {
    let (a, b) = (flush(a), flush(b));
    if zero_times_anything && (a == 0.0 || b == 0.0) {
        0.0
    } else {
        f64::from(a) * f64::from(b)
    }
}

/// MAD `A·B + C` in extended range (CTM §3.3.4, §3.6.2; IEEE special
/// values: `0·Inf` = NaN, `0 + -0` = +0, `-0 + -0` = -0).
#[inline(always)]
pub fn mad(a: f32, b: f32, c: f32, zero_times_anything: bool) -> f64 {
    product(a, b, zero_times_anything) + f64::from(flush(c))
}

/// FRC `A - floor(A)` (CTM §3.3.4). Computed in f64 and rounded once: a
/// tiny negative A gives 1.0 after rounding, as a correctly rounded
/// subtraction would.
#[inline(always)]
pub fn frc(a: f32) -> f64 {
    let a = f64::from(flush(a));
    a - a.floor()
}

/// Sum the products of a dot product (CTM §3.3.4) with the cancellation
/// quirk of CTM §3.6.2: if the two largest terms cancel exactly and every
/// other term is smaller by 2^25 or more, the result is +0.
#[inline]
pub fn dot_sum(terms: &[f64]) -> f64 {
    let sum = terms.iter().fold(0.0f64, |acc, t| acc + t);
    if !sum.is_finite() || terms.len() < 3 {
        return sum;
    }
    // The two largest magnitudes.
    let (mut i0, mut i1) = (0usize, 1usize);
    if terms[1].abs() > terms[0].abs() {
        (i0, i1) = (1, 0);
    }
    for (k, t) in terms.iter().enumerate().skip(2) {
        if t.abs() > terms[i0].abs() {
            i1 = i0;
            i0 = k;
        } else if t.abs() > terms[i1].abs() {
            i1 = k;
        }
    }
    let big = terms[i0];
    if big == 0.0 || big != -terms[i1] {
        return sum;
    }
    let rest = terms
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != i0 && *k != i1)
        .map(|(_, t)| t.abs())
        .fold(0.0f64, f64::max);
    if rest != 0.0 && rest * 33_554_432.0 <= big.abs() {
        0.0
    } else {
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_standardises_nan_and_flushes() {
        assert_eq!(finish(f64::NAN, 1.0, false).to_bits(), STANDARD_NAN);
        assert_eq!(finish(1e-40, 1.0, false).to_bits(), 0);
        assert_eq!(finish(-1e-40, 1.0, false).to_bits(), 0x8000_0000);
        // Extra range: 2^130 / 8 is finite.
        assert_eq!(finish(2f64.powi(130), 0.125, false), 2f32.powi(127));
    }

    #[test]
    fn dot_quirk() {
        assert_eq!(dot_sum(&[1.0, -1.0, 2f64.powi(-26)]).to_bits(), 0);
        assert_eq!(dot_sum(&[1.0, -1.0, 2f64.powi(-20)]), 2f64.powi(-20));
    }
}
