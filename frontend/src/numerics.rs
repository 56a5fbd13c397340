//! The numerics of the language (spec §3, §6, §7): the one definition of
//! what every operator and built-in computes.
//!
//! The reference interpreter, compile-time constant evaluation and the IR
//! interpreter all call these functions, so they agree bit for bit.
//!
//! Rules (see `docs/language-decisions.md` for the reasoning):
//! - every f32 operation flushes denormal operands and results to zero of
//!   the same sign ([`ftz`]); no exceptions; overflow gives ±inf and NaN
//!   propagates as in IEEE 754;
//! - `min`/`max` return the non-NaN operand when one is NaN (IEEE
//!   `minNum`/`maxNum`);
//! - compound built-ins are defined by their expansion into primitive
//!   operations, each rounded to f32: `pow(x, y) = exp2(y * log2(x))`,
//!   `exp(x) = exp2(x * log2(e))`, `log(x) = log2(x) * ln(2)`,
//!   `tan = sin / cos`, `normalize(v) = v * rsqrt(dot(v, v))`, and so on;
//!   the backends lower them the same way;
//! - `i32` arithmetic wraps; `/` and `%` by zero give 0; shift amounts are
//!   taken modulo 32 and `>>` is arithmetic;
//! - `f32 as i32` truncates toward zero, saturating, NaN giving 0 (Rust).

use crate::ast::{BinaryOp, UnaryOp};
use crate::builtins::Builtin;
use crate::types::Type;
use crate::value::Value;

/// Flushes a denormal to zero of the same sign; other values pass through.
#[inline]
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `a + b`.
#[inline]
pub fn add(a: f32, b: f32) -> f32 {
    ftz(ftz(a) + ftz(b))
}

/// `a - b`.
#[inline]
pub fn sub(a: f32, b: f32) -> f32 {
    ftz(ftz(a) - ftz(b))
}

/// `a * b`.
#[inline]
pub fn mul(a: f32, b: f32) -> f32 {
    ftz(ftz(a) * ftz(b))
}

/// `a * b + c`, rounded twice (the hardware's MAD is not fused).
#[inline]
pub fn mad(a: f32, b: f32, c: f32) -> f32 {
    add(mul(a, b), c)
}

/// `a / b`, IEEE division.
#[inline]
pub fn div(a: f32, b: f32) -> f32 {
    ftz(ftz(a) / ftz(b))
}

/// `a % b` on floats: `a - b * trunc(a / b)`.
#[inline]
pub fn rem(a: f32, b: f32) -> f32 {
    sub(a, mul(b, trunc(div(a, b))))
}

/// `-a`.
#[inline]
pub fn neg(a: f32) -> f32 {
    -ftz(a)
}

/// `abs(a)`.
#[inline]
pub fn abs(a: f32) -> f32 {
    ftz(a).abs()
}

/// `min(a, b)`: the smaller; the other operand if one is NaN.
#[inline]
pub fn min(a: f32, b: f32) -> f32 {
    let (a, b) = (ftz(a), ftz(b));
    if a.is_nan() {
        b
    } else if b.is_nan() || a < b {
        a
    } else {
        b
    }
}

/// `max(a, b)`: the larger; the other operand if one is NaN.
#[inline]
pub fn max(a: f32, b: f32) -> f32 {
    let (a, b) = (ftz(a), ftz(b));
    if a.is_nan() {
        b
    } else if b.is_nan() || a > b {
        a
    } else {
        b
    }
}

/// `clamp(x, lo, hi) = min(max(x, lo), hi)`.
#[inline]
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    min(max(x, lo), hi)
}

/// `saturate(x) = clamp(x, 0, 1)`; NaN gives 0.
#[inline]
pub fn saturate(x: f32) -> f32 {
    clamp(x, 0.0, 1.0)
}

/// `sign(x)`: 1 for x > 0, -1 for x < 0, x itself for ±0 and NaN.
#[inline]
pub fn sign(x: f32) -> f32 {
    let x = ftz(x);
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// `floor(x)`.
#[inline]
pub fn floor(x: f32) -> f32 {
    ftz(x).floor()
}

/// `ceil(x)`.
#[inline]
pub fn ceil(x: f32) -> f32 {
    ftz(x).ceil()
}

/// `trunc(x)`.
#[inline]
pub fn trunc(x: f32) -> f32 {
    ftz(x).trunc()
}

/// `round(x)`: halves away from zero, as Rust.
#[inline]
pub fn round(x: f32) -> f32 {
    ftz(x).round()
}

/// `fract(x) = x - floor(x)`.
#[inline]
pub fn fract(x: f32) -> f32 {
    sub(x, floor(x))
}

/// `step(edge, x)`: 1 if `x >= edge`, else 0 (Cg/HLSL, Brook's ancestry),
/// so a NaN operand gives 0, as both targets' compare-and-set does
/// (`docs/language-decisions.md`, "step").
#[inline]
pub fn step(edge: f32, x: f32) -> f32 {
    if ftz(x) >= ftz(edge) { 1.0 } else { 0.0 }
}

/// `mix(a, b, t) = a + (b - a) * t`.
#[inline]
pub fn mix(a: f32, b: f32, t: f32) -> f32 {
    add(a, mul(sub(b, a), t))
}

/// `smoothstep(e0, e1, x)`: `t = saturate((x - e0) / (e1 - e0))`, then
/// `t * t * (3 - 2 * t)`.
#[inline]
pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = saturate(div(sub(x, e0), sub(e1, e0)));
    mul(mul(t, t), sub(3.0, mul(2.0, t)))
}

/// `sqrt(x)`, correctly rounded.
#[inline]
pub fn sqrt(x: f32) -> f32 {
    ftz(ftz(x).sqrt())
}

/// `rsqrt(x) = 1 / sqrt(x)`, correctly rounded from f64.
#[inline]
pub fn rsqrt(x: f32) -> f32 {
    ftz((1.0 / (ftz(x) as f64).sqrt()) as f32)
}

/// `rcp(x) = 1 / x`.
#[inline]
pub fn rcp(x: f32) -> f32 {
    ftz(1.0 / ftz(x))
}

/// `exp2(x)`.
#[inline]
pub fn exp2(x: f32) -> f32 {
    ftz(((ftz(x) as f64).exp2()) as f32)
}

/// `log2(x)`.
#[inline]
pub fn log2(x: f32) -> f32 {
    ftz(((ftz(x) as f64).log2()) as f32)
}

/// `exp(x) = exp2(x * log2(e))`.
#[inline]
pub fn exp(x: f32) -> f32 {
    exp2(mul(x, std::f32::consts::LOG2_E))
}

/// `log(x) = log2(x) * ln(2)`.
#[inline]
pub fn log(x: f32) -> f32 {
    mul(log2(x), std::f32::consts::LN_2)
}

/// `pow(x, y) = exp2(y * log2(x))` (NaN for negative `x`, as the expansion).
#[inline]
pub fn pow(x: f32, y: f32) -> f32 {
    exp2(mul(y, log2(x)))
}

/// `sin(x)`, radians.
#[inline]
pub fn sin(x: f32) -> f32 {
    ftz(((ftz(x) as f64).sin()) as f32)
}

/// `cos(x)`, radians.
#[inline]
pub fn cos(x: f32) -> f32 {
    ftz(((ftz(x) as f64).cos()) as f32)
}

/// `tan(x) = sin(x) / cos(x)`.
#[inline]
pub fn tan(x: f32) -> f32 {
    div(sin(x), cos(x))
}

/// `f32 as i32`: truncation toward zero, saturating, NaN to 0.
#[inline]
pub fn f32_to_i32(x: f32) -> i32 {
    ftz(x) as i32
}

/// `i32 as f32`: round to nearest even.
#[inline]
pub fn i32_to_f32(x: i32) -> f32 {
    x as f32
}

/// A gather or scatter coordinate: rounded down (with denormals flushed,
/// so a negative denormal counts as 0), NaN as 0, saturating at the `i64`
/// range (positions are then clamped or dropped by the caller).
#[inline]
pub fn coordinate(x: f32) -> i64 {
    floor(x) as i64
}

/// `i32` division; by zero gives 0; `MIN / -1` wraps to `MIN`.
#[inline]
pub fn idiv(a: i32, b: i32) -> i32 {
    if b == 0 { 0 } else { a.wrapping_div(b) }
}

/// `i32` remainder (sign of the dividend); by zero gives 0.
#[inline]
pub fn irem(a: i32, b: i32) -> i32 {
    if b == 0 { 0 } else { a.wrapping_rem(b) }
}

/// `a << b`, the amount taken modulo 32.
#[inline]
pub fn ishl(a: i32, b: i32) -> i32 {
    a.wrapping_shl(b as u32 & 31)
}

/// `a >> b`, arithmetic, the amount taken modulo 32.
#[inline]
pub fn ishr(a: i32, b: i32) -> i32 {
    a.wrapping_shr(b as u32 & 31)
}

fn lanewise1(v: &Value, f: impl Fn(f32) -> f32) -> Value {
    match *v {
        Value::Float { lanes, width } => {
            let mut out = [0.0; 4];
            for i in 0..width as usize {
                out[i] = f(lanes[i]);
            }
            Value::Float { lanes: out, width }
        }
        other => other,
    }
}

fn lanewise2(a: &Value, b: &Value, f: impl Fn(f32, f32) -> f32) -> Value {
    let (la, lb) = (a.lanes(), b.lanes());
    let mut out = [0.0; 4];
    let width = la.len().min(lb.len());
    for i in 0..width {
        out[i] = f(la[i], lb[i]);
    }
    Value::Float {
        lanes: out,
        width: width as u8,
    }
}

fn lanewise3(a: &Value, b: &Value, c: &Value, f: impl Fn(f32, f32, f32) -> f32) -> Value {
    let (la, lb, lc) = (a.lanes(), b.lanes(), c.lanes());
    let mut out = [0.0; 4];
    let width = la.len().min(lb.len()).min(lc.len());
    for i in 0..width {
        out[i] = f(la[i], lb[i], lc[i]);
    }
    Value::Float {
        lanes: out,
        width: width as u8,
    }
}

/// Dot product of the lanes, summed left to right:
/// `((a0*b0 + a1*b1) + a2*b2) + a3*b3`.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = mul(a[0], b[0]);
    for i in 1..a.len().min(b.len()) {
        acc = add(acc, mul(a[i], b[i]));
    }
    acc
}

/// A unary operator on a value of a type it accepts.
pub fn eval_unary(op: UnaryOp, v: &Value) -> Value {
    match (op, v) {
        (UnaryOp::Neg, Value::I32(x)) => Value::I32(x.wrapping_neg()),
        (UnaryOp::Neg, Value::Float { .. }) => lanewise1(v, neg),
        (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnaryOp::Not, Value::I32(x)) => Value::I32(!x),
        _ => *v,
    }
}

/// A binary operator on two values of equal type (comparisons on scalars).
/// Combinations the checker rejects give `Value::Unit`.
pub fn eval_binary(op: BinaryOp, a: &Value, b: &Value) -> Value {
    use BinaryOp::*;
    match (a, b) {
        (Value::I32(x), Value::I32(y)) => {
            let (x, y) = (*x, *y);
            match op {
                Add => Value::I32(x.wrapping_add(y)),
                Sub => Value::I32(x.wrapping_sub(y)),
                Mul => Value::I32(x.wrapping_mul(y)),
                Div => Value::I32(idiv(x, y)),
                Rem => Value::I32(irem(x, y)),
                Shl => Value::I32(ishl(x, y)),
                Shr => Value::I32(ishr(x, y)),
                BitAnd => Value::I32(x & y),
                BitOr => Value::I32(x | y),
                BitXor => Value::I32(x ^ y),
                Eq => Value::Bool(x == y),
                Ne => Value::Bool(x != y),
                Lt => Value::Bool(x < y),
                Le => Value::Bool(x <= y),
                Gt => Value::Bool(x > y),
                Ge => Value::Bool(x >= y),
                And | Or => Value::Unit,
            }
        }
        (Value::Bool(x), Value::Bool(y)) => match op {
            And => Value::Bool(*x && *y),
            Or => Value::Bool(*x || *y),
            Eq => Value::Bool(x == y),
            Ne => Value::Bool(x != y),
            _ => Value::Unit,
        },
        (Value::Float { .. }, Value::Float { .. }) => {
            let scalar = || (ftz(a.as_f32()), ftz(b.as_f32()));
            match op {
                Add => lanewise2(a, b, add),
                Sub => lanewise2(a, b, sub),
                Mul => lanewise2(a, b, mul),
                Div => lanewise2(a, b, div),
                Rem => lanewise2(a, b, rem),
                Eq => Value::Bool(scalar().0 == scalar().1),
                Ne => Value::Bool(scalar().0 != scalar().1),
                Lt => Value::Bool(scalar().0 < scalar().1),
                Le => Value::Bool(scalar().0 <= scalar().1),
                Gt => Value::Bool(scalar().0 > scalar().1),
                Ge => Value::Bool(scalar().0 >= scalar().1),
                _ => Value::Unit,
            }
        }
        _ => Value::Unit,
    }
}

/// `v as to` for the casts the checker allows (`f32 <-> i32`, `bool ->
/// i32`, and a type to itself).
pub fn eval_cast(v: &Value, to: Type) -> Value {
    match (v, to) {
        (Value::Float { .. }, Type::I32) => Value::I32(f32_to_i32(v.as_f32())),
        (Value::I32(x), Type::F32) => Value::f32(i32_to_f32(*x)),
        (Value::Bool(b), Type::I32) => Value::I32(*b as i32),
        _ => *v,
    }
}

/// A scalar `f32` repeated into `width` lanes.
pub fn splat(v: &Value, width: u8) -> Value {
    let mut lanes = [0.0; 4];
    lanes[..width as usize].fill(v.as_f32());
    Value::Float { lanes, width }
}

/// The lanes of `v` named by `lanes`, in order.
pub fn swizzle(v: &Value, lanes: &[u8]) -> Value {
    let src = match v {
        Value::Float { lanes, .. } => *lanes,
        _ => [0.0; 4],
    };
    let mut out = [0.0; 4];
    for (i, &l) in lanes.iter().enumerate() {
        out[i] = src[l as usize];
    }
    Value::Float {
        lanes: out,
        width: lanes.len() as u8,
    }
}

/// Writes `value`'s lanes into the lanes `lanes` of `target`.
pub fn write_lanes(target: &Value, lanes: &[u8], value: &Value) -> Value {
    match (*target, value) {
        (
            Value::Float {
                lanes: mut t,
                width,
            },
            Value::Float { lanes: v, .. },
        ) => {
            for (i, &l) in lanes.iter().enumerate() {
                t[l as usize] = v[i];
            }
            Value::Float { lanes: t, width }
        }
        (t, _) => t,
    }
}

/// The lanes of `parts` concatenated into a float value of `width` lanes.
pub fn construct(parts: &[Value], width: u8) -> Value {
    let mut out = [0.0; 4];
    let mut n = 0;
    for p in parts {
        for &x in p.lanes() {
            if n < 4 {
                out[n] = x;
                n += 1;
            }
        }
    }
    Value::Float { lanes: out, width }
}

/// `m * v` with `m` column-major (`m[4 * c + r]`): the columns scaled by
/// the lanes of `v` and summed in column order.
pub fn mat_vec(m: &[f32; 16], v: &[f32]) -> Value {
    let mut out = [0.0; 4];
    for (r, o) in out.iter_mut().enumerate() {
        let mut acc = mul(m[r], v[0]);
        for c in 1..4 {
            acc = add(acc, mul(m[4 * c + r], v[c]));
        }
        *o = acc;
    }
    Value::floats(&out)
}

/// `v * m`: lane `c` is `dot(v, column c)`.
pub fn vec_mat(v: &[f32], m: &[f32; 16]) -> Value {
    let mut out = [0.0; 4];
    for (c, o) in out.iter_mut().enumerate() {
        *o = dot(v, &m[4 * c..4 * c + 4]);
    }
    Value::floats(&out)
}

/// A built-in applied to arguments of the types the checker assigned
/// (per-lane arguments already broadcast to a common width). `index()` and
/// `domain()` are not evaluated here: they need the element position.
pub fn eval_builtin(func: Builtin, args: &[Value]) -> Value {
    use Builtin::*;
    let int_args = matches!(args.first(), Some(Value::I32(_)));
    if int_args {
        let i = |k: usize| args[k].as_i32();
        return match func {
            Abs => Value::I32(i(0).wrapping_abs()),
            Min => Value::I32(i(0).min(i(1))),
            Max => Value::I32(i(0).max(i(1))),
            Clamp => Value::I32(i(0).max(i(1)).min(i(2))),
            Sign => Value::I32(i(0).signum()),
            _ => Value::Unit,
        };
    }
    match func {
        Abs => lanewise1(&args[0], abs),
        Min => lanewise2(&args[0], &args[1], min),
        Max => lanewise2(&args[0], &args[1], max),
        Clamp => lanewise3(&args[0], &args[1], &args[2], clamp),
        Saturate => lanewise1(&args[0], saturate),
        Sign => lanewise1(&args[0], sign),
        Floor => lanewise1(&args[0], floor),
        Ceil => lanewise1(&args[0], ceil),
        Fract => lanewise1(&args[0], fract),
        Trunc => lanewise1(&args[0], trunc),
        Round => lanewise1(&args[0], round),
        Step => lanewise2(&args[0], &args[1], step),
        Mix => lanewise3(&args[0], &args[1], &args[2], mix),
        Smoothstep => lanewise3(&args[0], &args[1], &args[2], smoothstep),
        Select => {
            if args[0].as_bool() {
                args[1]
            } else {
                args[2]
            }
        }
        Sqrt => lanewise1(&args[0], sqrt),
        Rsqrt => lanewise1(&args[0], rsqrt),
        Rcp => lanewise1(&args[0], rcp),
        Exp2 => lanewise1(&args[0], exp2),
        Log2 => lanewise1(&args[0], log2),
        Exp => lanewise1(&args[0], exp),
        Log => lanewise1(&args[0], log),
        Pow => lanewise2(&args[0], &args[1], pow),
        Sin => lanewise1(&args[0], sin),
        Cos => lanewise1(&args[0], cos),
        Tan => lanewise1(&args[0], tan),
        Dot => Value::f32(dot(args[0].lanes(), args[1].lanes())),
        Cross => {
            let (a, b) = (args[0].lanes(), args[1].lanes());
            Value::floats(&[
                sub(mul(a[1], b[2]), mul(a[2], b[1])),
                sub(mul(a[2], b[0]), mul(a[0], b[2])),
                sub(mul(a[0], b[1]), mul(a[1], b[0])),
            ])
        }
        Length => {
            let l = args[0].lanes();
            Value::f32(sqrt(dot(l, l)))
        }
        Distance => {
            let d = lanewise2(&args[0], &args[1], sub);
            let l = d.lanes();
            Value::f32(sqrt(dot(l, l)))
        }
        Normalize => {
            let l = args[0].lanes();
            let inv = rsqrt(dot(l, l));
            lanewise1(&args[0], |x| mul(x, inv))
        }
        Index | Domain => Value::Unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denormals_flush_to_signed_zero() {
        let tiny = f32::from_bits(1);
        assert_eq!(ftz(tiny).to_bits(), 0);
        assert_eq!(ftz(-tiny).to_bits(), 0x8000_0000);
        assert_eq!(mul(1e-20, 1e-20).to_bits(), 0);
        assert_eq!(
            add(f32::MIN_POSITIVE, -f32::MIN_POSITIVE * 1.5).to_bits(),
            0x8000_0000
        );
        // A denormal operand counts as zero.
        assert_eq!(
            add(f32::MIN_POSITIVE, -f32::MIN_POSITIVE * 0.5),
            f32::MIN_POSITIVE
        );
    }

    #[test]
    fn min_max_ignore_nan() {
        assert_eq!(min(f32::NAN, 2.0), 2.0);
        assert_eq!(max(3.0, f32::NAN), 3.0);
        assert!(min(f32::NAN, f32::NAN).is_nan());
    }

    #[test]
    fn integer_division_by_zero_is_zero() {
        assert_eq!(idiv(7, 0), 0);
        assert_eq!(irem(7, 0), 0);
        assert_eq!(idiv(i32::MIN, -1), i32::MIN);
        assert_eq!(irem(-7, 2), -1);
        assert_eq!(ishl(1, 33), 2);
        assert_eq!(ishr(-8, 1), -4);
    }

    #[test]
    fn round_halves_away_from_zero_and_sign_keeps_zero() {
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -3.0);
        assert_eq!(sign(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(sign(-5.0), -1.0);
    }

    #[test]
    fn pow_is_its_expansion() {
        assert!((pow(2.0, 10.0) - 1024.0).abs() < 1e-3);
        assert!(pow(-2.0, 2.0).is_nan());
    }

    #[test]
    fn casts_truncate_and_saturate() {
        assert_eq!(f32_to_i32(-2.7), -2);
        assert_eq!(f32_to_i32(f32::NAN), 0);
        assert_eq!(f32_to_i32(1e20), i32::MAX);
    }

    #[test]
    fn mat_vec_is_column_major() {
        // Columns e0..e3 scaled: m = translation by (5, 6, 7).
        let mut m = [0.0; 16];
        m[0] = 1.0;
        m[5] = 1.0;
        m[10] = 1.0;
        m[15] = 1.0;
        m[12] = 5.0;
        m[13] = 6.0;
        m[14] = 7.0;
        let r = mat_vec(&m, &[1.0, 2.0, 3.0, 1.0]);
        assert_eq!(r.lanes(), &[6.0, 8.0, 10.0, 1.0]);
        let r = vec_mat(&[1.0, 2.0, 3.0, 1.0], &m);
        assert_eq!(r.lanes(), &[1.0, 2.0, 3.0, 5.0 + 12.0 + 21.0 + 1.0]);
    }
}
