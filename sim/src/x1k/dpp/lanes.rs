//! Lane kernels of the fast engine: one straight loop over a group's lanes
//! per operation, written without data-dependent branches so that LLVM
//! vectorises them (SSE2 on the baseline x86-64 target: four f32 or two
//! f64 lanes per instruction).
//!
//! Every kernel computes, lane by lane, exactly the expression of the
//! scalar rule functions in [`super::fp`] and [`super::transcendental`]
//! (same f64 operations in the same order, same single rounding to f32);
//! only the *form* differs:
//!
//! * [`flush`] tests the exponent field instead of calling
//!   `f32::is_subnormal`: an exponent of zero is a zero or a denormal, and
//!   keeping only the sign bit maps both to the same signed zero that
//!   `fp::flush` returns (a zero is returned unchanged by both).
//! * The NaN standardisation, the clamp and the selects of MIN/MAX/CND/CMP
//!   are written as selects (`if c { x } else { y }` on values already
//!   computed), which LLVM lowers to compare-and-blend.
//! * A dot product's cancellation quirk (`fp::dot_sum`) can only apply
//!   when two non-zero terms cancel exactly; lanes where no pair does take
//!   the plain sum (what `dot_sum` returns for them), the others call
//!   `fp::dot_sum` itself.
//!
//! The kernels take output and input slices of the group's length; the
//! caller guarantees the lengths agree (the loops index `0..out.len()` into
//! inputs re-sliced to that length, so LLVM drops the bounds checks).

use ctm_backend_x1k::isa::InputModifier;

use super::fp::{self, STANDARD_NAN};
use super::state::MAX_GROUP_SIZE;
use super::transcendental::{Eval, Transcendental};

/// The select ops, which return an input's bits (CTM §3.3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SelectOp {
    /// `A < B ? A : B`, compared flushed.
    Min,
    /// `A > B ? A : B`, compared flushed.
    Max,
    /// `C > 0.5 ? A : B`.
    Cnd,
    /// `C >= 0 ? A : B`, C flushed.
    Cmp,
}

/// The three dot products (CTM §3.3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DotOp {
    /// A.rgb · B.rgb.
    Dp3,
    /// A.rgb · B.rgb + A.a · B.a (the alpha unit's inputs A and B).
    Dp4,
    /// A.r·B.r + A.g·B.g + C.b.
    D2a,
}

pub(crate) use crate::denormal::flush;

/// Whether `x` is a denormal (what [`flush`] changes besides nothing).
#[inline(always)]
fn is_denormal(x: f32) -> bool {
    let b = x.to_bits();
    b & 0x7F80_0000 == 0 && b & 0x007F_FFFF != 0
}

/// Whether any lane holds a denormal.
pub(crate) fn any_denormal(x: &[f32]) -> bool {
    x.iter().fold(false, |acc, v| acc | is_denormal(*v))
}

/// `dst = flush(modify(src))` on every lane (the two commute: a modifier
/// only touches the sign bit, the flush keeps it).
pub(crate) fn modify_flush(dst: &mut [f32], src: &[f32], m: InputModifier) {
    let src = &src[..dst.len()];
    let (and, xor) = sign_ops(m);
    for (d, s) in dst.iter_mut().zip(src) {
        *d = flush(f32::from_bits((s.to_bits() & and) ^ xor));
    }
}

/// An input modifier as `(bits & and) ^ xor`.
#[inline(always)]
fn sign_ops(m: InputModifier) -> (u32, u32) {
    match m {
        InputModifier::None => (u32::MAX, 0),
        InputModifier::Neg => (u32::MAX, 0x8000_0000),
        InputModifier::Abs => (0x7FFF_FFFF, 0),
        InputModifier::NegAbs => (0x7FFF_FFFF, 0x8000_0000),
    }
}

/// `fp::saturate` as selects.
#[inline(always)]
fn saturate(y: f32) -> f32 {
    let t = if y < 1.0 { y } else { 1.0 };
    if y > 0.0 { t } else { 0.0 }
}

/// `fp::finish`: scale in f64, round once, standardise NaN, flush, clamp.
/// Without `SCALED` the scale is 1 and the multiplication is skipped
/// (`x * 1.0` is `x` for every non-NaN `x`, and a NaN is standardised).
#[inline(always)]
fn finish_s<const CLAMP: bool, const SCALED: bool>(x: f64, scale: f64) -> f32 {
    let y = (if SCALED { x * scale } else { x }) as f32;
    let r = if y.is_nan() {
        f32::from_bits(STANDARD_NAN)
    } else {
        flush(y)
    };
    if CLAMP { saturate(r) } else { r }
}

/// [`finish_s`] with the scale applied.
#[inline(always)]
fn finish<const CLAMP: bool>(x: f64, scale: f64) -> f32 {
    finish_s::<CLAMP, true>(x, scale)
}

/// `fp::product` of inputs already flushed.
#[inline(always)]
fn product<const ZTA: bool>(a: f32, b: f32) -> f64 {
    let p = f64::from(a) * f64::from(b);
    if ZTA && (a == 0.0 || b == 0.0) {
        0.0
    } else {
        p
    }
}

/// `fp::modify` on every lane: `dst = src` with the sign bit changed.
pub(crate) fn modify(dst: &mut [f32], src: &[f32], m: InputModifier) {
    let src = &src[..dst.len()];
    let (and, xor) = sign_ops(m);
    for (d, s) in dst.iter_mut().zip(src) {
        *d = f32::from_bits((s.to_bits() & and) ^ xor);
    }
}

/// A kernel input: one value per lane, or one value for every lane (a
/// constant, which the kernel converts once).
#[derive(Clone, Copy, Debug)]
pub(crate) enum In<'a> {
    /// One value per lane.
    Lanes(&'a [f32]),
    /// The same value in every lane.
    Splat(f32),
}

/// A kernel operand, per lane or uniform (monomorphised, so a uniform
/// operand costs no load).
trait Src: Copy {
    /// This operand with exactly `n` lanes (lets LLVM drop bounds checks).
    fn prefix(self, n: usize) -> Self;
    /// Lane `l`.
    fn at(self, l: usize) -> f32;
}

impl Src for &[f32] {
    #[inline(always)]
    fn prefix(self, n: usize) -> Self {
        &self[..n]
    }
    #[inline(always)]
    fn at(self, l: usize) -> f32 {
        self[l]
    }
}

/// A uniform operand.
#[derive(Clone, Copy)]
struct Splat(f32);

impl Src for Splat {
    #[inline(always)]
    fn prefix(self, _n: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _l: usize) -> f32 {
        self.0
    }
}

/// MAD `A·B + C` through the output modifier (`fp::mad` then
/// `fp::finish`), of inputs already flushed; B and C may be uniform.
pub(crate) fn mad(
    out: &mut [f32],
    a: &[f32],
    b: In<'_>,
    c: In<'_>,
    scale: f64,
    clamp: bool,
    zta: bool,
) {
    match (b, c) {
        (In::Lanes(b), In::Lanes(c)) => mad_bc(out, a, b, c, scale, clamp, zta),
        (In::Lanes(b), In::Splat(c)) => mad_bc(out, a, b, Splat(c), scale, clamp, zta),
        (In::Splat(b), In::Lanes(c)) => mad_bc(out, a, Splat(b), c, scale, clamp, zta),
        (In::Splat(b), In::Splat(c)) => mad_bc(out, a, Splat(b), Splat(c), scale, clamp, zta),
    }
}

#[inline(always)]
fn mad_bc<B: Src, C: Src>(
    out: &mut [f32],
    a: &[f32],
    b: B,
    c: C,
    scale: f64,
    clamp: bool,
    zta: bool,
) {
    match (clamp, zta, scale != 1.0) {
        (false, false, false) => mad_with::<B, C, false, false, false>(out, a, b, c, scale),
        (false, false, true) => mad_with::<B, C, false, false, true>(out, a, b, c, scale),
        (false, true, false) => mad_with::<B, C, false, true, false>(out, a, b, c, scale),
        (false, true, true) => mad_with::<B, C, false, true, true>(out, a, b, c, scale),
        (true, false, false) => mad_with::<B, C, true, false, false>(out, a, b, c, scale),
        (true, false, true) => mad_with::<B, C, true, false, true>(out, a, b, c, scale),
        (true, true, false) => mad_with::<B, C, true, true, false>(out, a, b, c, scale),
        (true, true, true) => mad_with::<B, C, true, true, true>(out, a, b, c, scale),
    }
}

fn mad_with<B: Src, C: Src, const CLAMP: bool, const ZTA: bool, const SCALED: bool>(
    out: &mut [f32],
    a: &[f32],
    b: B,
    c: C,
    scale: f64,
) {
    let n = out.len();
    let (a, b, c) = (&a[..n], b.prefix(n), c.prefix(n));
    for l in 0..n {
        let x = product::<ZTA>(a[l], b.at(l)) + f64::from(c.at(l));
        out[l] = finish_s::<CLAMP, SCALED>(x, scale);
    }
}

/// `fp::finish` of f64 values (dot products).
pub(crate) fn finish_f64(out: &mut [f32], x: &[f64], scale: f64, clamp: bool) {
    let x = &x[..out.len()];
    if clamp {
        for (o, x) in out.iter_mut().zip(x) {
            *o = finish::<true>(*x, scale);
        }
    } else {
        for (o, x) in out.iter_mut().zip(x) {
            *o = finish::<false>(*x, scale);
        }
    }
}

/// `fp::finish` of f32 values widened (transcendental results, SOP).
pub(crate) fn finish_f32(out: &mut [f32], x: &[f32], scale: f64, clamp: bool) {
    let x = &x[..out.len()];
    let s = scale as f32;
    match (clamp, scale != 1.0) {
        (false, false) => finish_f32_with::<false, false>(out, x, s),
        (false, true) => finish_f32_with::<false, true>(out, x, s),
        (true, false) => finish_f32_with::<true, false>(out, x, s),
        (true, true) => finish_f32_with::<true, true>(out, x, s),
    }
}

fn finish_f32_with<const CLAMP: bool, const SCALED: bool>(out: &mut [f32], x: &[f32], s: f32) {
    for (o, x) in out.iter_mut().zip(x) {
        *o = finish_value::<CLAMP, SCALED>(*x, s);
    }
}

/// `fp::finish_select` in place: the value flushed (a denormal input is
/// zero to the output modifier, even one that scaling would make normal),
/// then finished.
fn finish_select_in_place<const CLAMP: bool, const SCALED: bool>(out: &mut [f32], s: f32) {
    for o in out.iter_mut() {
        *o = finish_value::<CLAMP, SCALED>(flush(*o), s);
    }
}

/// `fp::finish(f64::from(x), scale, CLAMP)` for an f32 `x` and a scale
/// `s` of the output modifier, in f32: the scale is a power of two, so the
/// f64 product `x · s` is exact and rounding it to f32 is the one rounding
/// of the f32 product (overflow to ±inf and the denormal range included);
/// without `SCALED` (×1) there is nothing to round.
#[inline(always)]
fn finish_value<const CLAMP: bool, const SCALED: bool>(x: f32, s: f32) -> f32 {
    let y = if SCALED { x * s } else { x };
    let r = if y.is_nan() {
        f32::from_bits(STANDARD_NAN)
    } else {
        flush(y)
    };
    if CLAMP { saturate(r) } else { r }
}

/// FRC (`fp::frc`, then `fp::finish`).
pub(crate) fn frc(out: &mut [f32], a: &[f32], scale: f64, clamp: bool) {
    let a = &a[..out.len()];
    for (o, a) in out.iter_mut().zip(a) {
        *o = fp::finish(fp::frc(*a), scale, clamp);
    }
}

/// MIN/MAX/CND/CMP, then `fp::finish_select` (bits unchanged with
/// `OMOD_DISABLED`, else through the output modifier).
pub(crate) fn select(
    out: &mut [f32],
    op: SelectOp,
    a: &[f32],
    b: &[f32],
    c: &[f32],
    scale: Option<f64>,
    clamp: bool,
) {
    let n = out.len();
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    match op {
        SelectOp::Min => {
            for l in 0..n {
                out[l] = if flush(a[l]) < flush(b[l]) {
                    a[l]
                } else {
                    b[l]
                };
            }
        }
        SelectOp::Max => {
            for l in 0..n {
                out[l] = if flush(a[l]) > flush(b[l]) {
                    a[l]
                } else {
                    b[l]
                };
            }
        }
        SelectOp::Cnd => {
            for l in 0..n {
                out[l] = if c[l] > 0.5 { a[l] } else { b[l] };
            }
        }
        SelectOp::Cmp => {
            for l in 0..n {
                out[l] = if flush(c[l]) >= 0.0 { a[l] } else { b[l] };
            }
        }
    }
    if let Some(scale) = scale {
        let s = scale as f32;
        match (clamp, scale != 1.0) {
            (false, false) => finish_select_in_place::<false, false>(out, s),
            (false, true) => finish_select_in_place::<false, true>(out, s),
            (true, false) => finish_select_in_place::<true, false>(out, s),
            (true, true) => finish_select_in_place::<true, true>(out, s),
        }
    }
}

/// The inputs of a dot product: A.r, A.g, A.b, B.r, B.g, B.b, then the
/// fourth pair (DP4: alpha A, alpha B) and C.b (D2A). The RGB inputs are
/// already flushed; the alpha pair is flushed here (the alpha unit may
/// read it unflushed for its own op).
pub(crate) struct DotInputs<'a> {
    /// A's three channels.
    pub a: [&'a [f32]; 3],
    /// B's three channels.
    pub b: [&'a [f32]; 3],
    /// The alpha unit's inputs A and B (DP4).
    pub alpha: [&'a [f32]; 2],
    /// C.b (D2A).
    pub c: &'a [f32],
}

/// The dot product of every lane in f64 (`fp::product` terms summed by
/// `fp::dot_sum`).
pub(crate) fn dot(out: &mut [f64], op: DotOp, inputs: &DotInputs<'_>, zta: bool) {
    if zta {
        dot_with::<true>(out, op, inputs);
    } else {
        dot_with::<false>(out, op, inputs);
    }
}

/// Whether two non-zero terms of `t` cancel exactly: the only lanes where
/// `fp::dot_sum` may differ from the plain sum.
#[inline(always)]
fn may_cancel<const N: usize>(t: &[f64; N]) -> bool {
    let mut any = false;
    for i in 0..N {
        for j in i + 1..N {
            any |= t[i] == -t[j] && t[i] != 0.0;
        }
    }
    any
}

#[inline(always)]
fn dot_with<const ZTA: bool>(out: &mut [f64], op: DotOp, inputs: &DotInputs<'_>) {
    let n = out.len();
    let [a0, a1, a2] = inputs.a.map(|s| &s[..n]);
    let [b0, b1, b2] = inputs.b.map(|s| &s[..n]);
    let mut check = [false; MAX_GROUP_SIZE];
    let check = &mut check[..n];
    match op {
        DotOp::Dp3 => {
            for l in 0..n {
                let t = [
                    product::<ZTA>(a0[l], b0[l]),
                    product::<ZTA>(a1[l], b1[l]),
                    product::<ZTA>(a2[l], b2[l]),
                ];
                out[l] = 0.0 + t[0] + t[1] + t[2];
                check[l] = may_cancel(&t);
            }
            for l in 0..n {
                if check[l] {
                    out[l] = fp::dot_sum(&[
                        product::<ZTA>(a0[l], b0[l]),
                        product::<ZTA>(a1[l], b1[l]),
                        product::<ZTA>(a2[l], b2[l]),
                    ]);
                }
            }
        }
        DotOp::Dp4 => {
            let [a3, b3] = inputs.alpha.map(|s| &s[..n]);
            for l in 0..n {
                let t = [
                    product::<ZTA>(a0[l], b0[l]),
                    product::<ZTA>(a1[l], b1[l]),
                    product::<ZTA>(a2[l], b2[l]),
                    product::<ZTA>(flush(a3[l]), flush(b3[l])),
                ];
                out[l] = 0.0 + t[0] + t[1] + t[2] + t[3];
                check[l] = may_cancel(&t);
            }
            for l in 0..n {
                if check[l] {
                    out[l] = fp::dot_sum(&[
                        product::<ZTA>(a0[l], b0[l]),
                        product::<ZTA>(a1[l], b1[l]),
                        product::<ZTA>(a2[l], b2[l]),
                        product::<ZTA>(flush(a3[l]), flush(b3[l])),
                    ]);
                }
            }
        }
        DotOp::D2a => {
            let c = &inputs.c[..n];
            for l in 0..n {
                let t = [
                    product::<ZTA>(a0[l], b0[l]),
                    product::<ZTA>(a1[l], b1[l]),
                    f64::from(c[l]),
                ];
                out[l] = 0.0 + t[0] + t[1] + t[2];
                check[l] = may_cancel(&t);
            }
            for l in 0..n {
                if check[l] {
                    out[l] = fp::dot_sum(&[
                        product::<ZTA>(a0[l], b0[l]),
                        product::<ZTA>(a1[l], b1[l]),
                        f64::from(c[l]),
                    ]);
                }
            }
        }
    }
}

/// A transcendental of every lane (`Transcendental::eval`): RCP and RSQ
/// as vector loops, the others through `eval`.
pub(crate) fn transcendental(out: &mut [f32], t: Transcendental, a: &[f32]) {
    let a = &a[..out.len()];
    match t {
        Transcendental::Rcp => {
            for (o, a) in out.iter_mut().zip(a) {
                let x = flush(*a);
                *o = flush((1.0 / f64::from(x)) as f32);
            }
        }
        Transcendental::Rsq => {
            for (o, a) in out.iter_mut().zip(a) {
                let x = flush(*a);
                let r = 1.0 / f64::from(x).sqrt();
                *o = flush((if x == 0.0 { f64::INFINITY } else { r }) as f32);
            }
        }
        _ => {
            for (o, a) in out.iter_mut().zip(a) {
                *o = t.eval(*a);
            }
        }
    }
}

/// Presubtract of every lane (`sources::presub`, whose NaN rule makes the
/// result independent of how the compiler orders the operands).
pub(crate) fn presub(out: &mut [f32], op: ctm_backend_x1k::isa::PresubOp, s0: &[f32], s1: &[f32]) {
    let n = out.len();
    let (s0, s1) = (&s0[..n], &s1[..n]);
    for l in 0..n {
        out[l] = super::sources::presub(op, flush(s0[l]), flush(s1[l]));
    }
}

/// Store `values` into `dst` for the lanes whose bit is set in `mask`.
pub(crate) fn masked_store(dst: &mut [f32], values: &[f32], mask: u64) {
    let values = &values[..dst.len()];
    for (l, (d, v)) in dst.iter_mut().zip(values).enumerate() {
        let on = (mask >> l) & 1 != 0;
        *d = if on { *v } else { *d };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exponents 0, 1, 254, 255 with every mantissa pattern of a sparse
    /// walk, and every exponent with edge mantissas, both signs.
    fn interesting_bits() -> Vec<u32> {
        let mut v = Vec::new();
        for sign in [0u32, 0x8000_0000] {
            for exp in 0..=255u32 {
                for m in [0u32, 1, 2, 0x40_0000, 0x7F_FFFF, 0x7F_FFFE, 0x12_3456] {
                    v.push(sign | (exp << 23) | m);
                }
            }
            for exp in [0u32, 1, 254, 255] {
                let mut m = 1u32;
                while m < 0x80_0000 {
                    v.push(sign | (exp << 23) | m);
                    v.push(sign | (exp << 23) | ((m * 3) & 0x7F_FFFF));
                    m = m * 5 / 3 + 1;
                }
            }
        }
        v
    }

    #[test]
    fn flush_matches_fp_flush() {
        for b in interesting_bits() {
            let x = f32::from_bits(b);
            assert_eq!(flush(x).to_bits(), fp::flush(x).to_bits(), "{b:#x}");
        }
    }

    #[test]
    fn f32_finish_matches_fp() {
        let scales = [1.0, 2.0, 4.0, 8.0, 0.5, 0.25, 0.125];
        for b in interesting_bits() {
            let x = f32::from_bits(b);
            for scale in scales {
                for clamp in [false, true] {
                    let mut out = [0.0f32; 1];
                    finish_f32(&mut out, &[x], scale, clamp);
                    assert_eq!(
                        out[0].to_bits(),
                        fp::finish(f64::from(x), scale, clamp).to_bits(),
                        "finish {b:#x} x{scale} clamp {clamp}"
                    );
                    // MAX(x, x) returns x; then the output modifier.
                    select(
                        &mut out,
                        SelectOp::Max,
                        &[x],
                        &[x],
                        &[x],
                        Some(scale),
                        clamp,
                    );
                    assert_eq!(
                        out[0].to_bits(),
                        fp::finish_select(x, Some(scale), clamp).to_bits(),
                        "select {b:#x} x{scale} clamp {clamp}"
                    );
                }
            }
        }
    }

    #[test]
    fn finish_and_saturate_match_fp() {
        let bits = interesting_bits();
        for &b in bits.iter().step_by(3) {
            let x = f64::from(f32::from_bits(b));
            for wide in [x, x * 3.0e38, x * 1.0e-38, x + 0.1] {
                for scale in [1.0, 2.0, 4.0, 8.0, 0.5, 0.25, 0.125] {
                    assert_eq!(
                        finish::<false>(wide, scale).to_bits(),
                        fp::finish(wide, scale, false).to_bits()
                    );
                    assert_eq!(
                        finish::<true>(wide, scale).to_bits(),
                        fp::finish(wide, scale, true).to_bits()
                    );
                }
            }
        }
    }
}
