//! Double-precision ALU instructions (manual §4.12 L2081-2085, chapter 9
//! pages; digest §5.7): a double occupies a slot pair. In a pair (X, Y) or
//! (Z, W) the first slot's operands name the high dwords and the second's
//! the low dwords; the result's low dword goes to the first slot's
//! destination and the high dword to the second's (the ADD_64 example,
//! L3039-3078). Four-slot instructions (MUL_64, MULADD_64*, FREXP_64) take
//! the high dwords from slot X and the low dwords from slot W and put the
//! result in X/Y and again in Z/W (L4647, L4925-4955). Denormals count as
//! zeros of their sign (Table 9.10 note); a NaN input propagates (src0
//! first), a NaN the operation creates is NaN64 = 0xFFF8000000000000.

// Lane loops index several arrays in lockstep (sources, two or four
// result slots), which reads clearer with the lane number.
#![allow(clippy::needless_range_loop)]

use ctm_backend_r700::isa::{Op2, Op3};

use super::WAVE;
use super::alu::{Lanes, Side};
use super::fault::FaultKind;
use super::prepare::Op;

/// NaN64.
const NAN64: u64 = 0xFFF8_0000_0000_0000;

#[inline]
fn join(hi: u32, lo: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

#[inline]
fn din(bits: u64) -> f64 {
    let x = f64::from_bits(bits);
    if x.is_subnormal() {
        f64::from_bits(bits & (1 << 63))
    } else {
        x
    }
}

#[inline]
fn dout(x: f64) -> u64 {
    if x.is_subnormal() {
        x.to_bits() & (1 << 63)
    } else if x.is_nan() {
        NAN64
    } else {
        x.to_bits()
    }
}

/// The result of a two-input operation with the manual's NaN rules.
#[inline]
fn nan_rules(a: u64, b: u64, f: impl Fn(f64, f64) -> f64) -> u64 {
    let (x, y) = (din(a), din(b));
    if x.is_nan() {
        a | (1 << 51)
    } else if y.is_nan() {
        b | (1 << 51)
    } else {
        dout(f(x, y))
    }
}

/// Whether `op` is a double-precision opcode, and how many slots it takes.
pub fn slots(op: Op) -> Option<usize> {
    match op {
        Op::O2(
            Op2::Add64
            | Op2::Flt64ToFlt32
            | Op2::Flt32ToFlt64
            | Op2::Ldexp64
            | Op2::Fract64
            | Op2::PredSetgt64
            | Op2::PredSete64
            | Op2::PredSetge64,
        ) => Some(2),
        Op::O2(Op2::Mul64 | Op2::Frexp64)
        | Op::O3(Op3::Muladd64 | Op3::Muladd64M2 | Op3::Muladd64M4 | Op3::Muladd64D2) => Some(4),
        _ => None,
    }
}

/// A two-slot instruction: `hi` / `lo` are the first / second slot's
/// sources; returns (first slot's result, second slot's result, side).
pub fn pair(op: Op, hi: &[Lanes; 3], lo: &[Lanes; 3]) -> Result<(Lanes, Lanes, Side), FaultKind> {
    let mut first = [0u32; WAVE];
    let mut second = [0u32; WAVE];
    let mut side = Side::default();
    let put = |first: &mut Lanes, second: &mut Lanes, l: usize, v: u64| {
        first[l] = v as u32;
        second[l] = (v >> 32) as u32;
    };
    match op {
        Op::O2(Op2::Add64) => {
            for l in 0..WAVE {
                let v = nan_rules(
                    join(hi[0][l], lo[0][l]),
                    join(hi[1][l], lo[1][l]),
                    |x, y| x + y,
                );
                put(&mut first, &mut second, l, v);
            }
        }
        Op::O2(Op2::Flt32ToFlt64) => {
            // src0.X (or .Z): the first slot's operand (L3507-3545).
            for l in 0..WAVE {
                let b = hi[0][l];
                let (sign, exp, mant) = (
                    u64::from(b >> 31),
                    (b >> 23) & 0xFF,
                    u64::from(b & 0x7F_FFFF),
                );
                let v = if exp == 0xFF {
                    (sign << 63) | (0x7FF << 52) | (mant << 29)
                } else if exp == 0 {
                    sign << 63
                } else {
                    f64::from(f32::from_bits(b)).to_bits()
                };
                put(&mut first, &mut second, l, v);
            }
        }
        Op::O2(Op2::Flt64ToFlt32) => {
            // The float goes to the first slot's destination (dst.X / .Z).
            for l in 0..WAVE {
                let x = f64::from_bits(join(hi[0][l], lo[0][l]));
                first[l] = if x.is_nan() {
                    if x.is_sign_negative() {
                        0xFFC0_0000
                    } else {
                        0x7FC0_0000
                    }
                } else if x.is_subnormal() {
                    (x.to_bits() >> 32) as u32 & 0x8000_0000
                } else {
                    let f = x as f32;
                    if f.is_subnormal() {
                        f.to_bits() & 0x8000_0000
                    } else {
                        f.to_bits()
                    }
                };
            }
        }
        Op::O2(Op2::Fract64) => {
            for l in 0..WAVE {
                let x = din(join(hi[0][l], lo[0][l]));
                let v = if x.is_infinite() {
                    NAN64
                } else if x.is_nan() {
                    join(hi[0][l], lo[0][l])
                } else {
                    let r = x - x.floor();
                    dout(if r >= 1.0 {
                        f64::from_bits(0x3FEF_FFFF_FFFF_FFFF)
                    } else {
                        r
                    })
                };
                put(&mut first, &mut second, l, v);
            }
        }
        Op::O2(Op2::Ldexp64) => {
            // src0 the double, src1 the integer exponent (the example,
            // L4080-4095: both slots name the same exponent dword).
            for l in 0..WAVE {
                let bits = join(hi[0][l], lo[0][l]);
                let x = din(bits);
                let e = (hi[1][l] as i32).clamp(-2200, 2200);
                let v = if x.is_nan() {
                    bits
                } else {
                    dout(x * 2f64.powi(e))
                };
                put(&mut first, &mut second, l, v);
            }
        }
        Op::O2(Op2::PredSete64 | Op2::PredSetgt64 | Op2::PredSetge64) => {
            side.pred_set = true;
            for l in 0..WAVE {
                let (x, y) = (din(join(hi[0][l], lo[0][l])), din(join(hi[1][l], lo[1][l])));
                let go = match op {
                    Op::O2(Op2::PredSete64) => x == y,
                    Op::O2(Op2::PredSetgt64) => x > y,
                    _ => x >= y,
                };
                side.exec |= u64::from(go) << l;
                let d = if go { 0 } else { u32::MAX };
                first[l] = d;
                second[l] = d;
            }
        }
        _ => {
            return Err(FaultKind::Unimplemented {
                what: format!("opcode {} as a two-slot instruction", op.mnemonic()),
            });
        }
    }
    Ok((first, second, side))
}

/// A four-slot instruction: `hi` is slot X's sources, `lo` slot W's;
/// returns the results of slots X, Y, Z, W.
pub fn quad(op: Op, hi: &[Lanes; 3], lo: &[Lanes; 3]) -> Result<[Lanes; 4], FaultKind> {
    let mut out = [[0u32; WAVE]; 4];
    let a = |l: usize, k: usize| join(hi[k][l], lo[k][l]);
    let mut put = |l: usize, v: u64| {
        out[0][l] = v as u32;
        out[1][l] = (v >> 32) as u32;
        out[2][l] = v as u32;
        out[3][l] = (v >> 32) as u32;
    };
    match op {
        Op::O2(Op2::Mul64) => {
            for l in 0..WAVE {
                put(l, nan_rules(a(l, 0), a(l, 1), |x, y| x * y));
            }
        }
        Op::O3(o @ (Op3::Muladd64 | Op3::Muladd64M2 | Op3::Muladd64M4 | Op3::Muladd64D2)) => {
            let scale = match o {
                Op3::Muladd64M2 => 2.0,
                Op3::Muladd64M4 => 4.0,
                Op3::Muladd64D2 => 0.5,
                _ => 1.0,
            };
            for l in 0..WAVE {
                let p = nan_rules(a(l, 0), a(l, 1), |x, y| x * y);
                let v = nan_rules(p, a(l, 2), |x, y| (x + y) * scale);
                put(l, v);
            }
        }
        Op::O2(Op2::Frexp64) => {
            // Exponent (a signed integer) to dst.YX, fraction to dst.WZ
            // (L3764-3802).
            for l in 0..WAVE {
                let bits = a(l, 0);
                let exp = ((bits >> 52) & 0x7FF) as i64;
                let frac = bits & ((1 << 52) - 1);
                let sign = bits & (1 << 63);
                let (e, f): (i64, u64) = if exp == 0x7FF {
                    (0xFFF_FFFF, if frac == 0 { NAN64 } else { bits })
                } else if exp == 0 {
                    (0, sign)
                } else {
                    (exp - 1022, sign | (0x3FE << 52) | frac)
                };
                out[0][l] = e as u32;
                out[1][l] = (e >> 32) as u32;
                out[2][l] = f as u32;
                out[3][l] = (f >> 32) as u32;
            }
        }
        _ => {
            return Err(FaultKind::Unimplemented {
                what: format!("opcode {} as a four-slot instruction", op.mnemonic()),
            });
        }
    }
    Ok(out)
}
