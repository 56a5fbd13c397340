//! ALU opcode semantics over 64 lanes (manual chapter 9; digest §5.6,
//! §5.8): one tight loop per opcode. Sources arrive with ABS/NEG applied;
//! float opcodes flush denormal inputs and results to signed zero (the
//! hardware's IEEE deviation, spec §7), MUL/MULADD/DOT4 use the DX9 rule
//! 0·x = 0, `*_IEEE` forms the IEEE rule. Reductions and doubles span
//! several slots and are dispatched by the group (`double.rs` for the
//! latter); MOVA_GPR_INT is not modelled and faults (`docs/sim-r700.md`
//! §2.6).

use ctm_backend_r700::isa::{Op2, Op3};

use super::WAVE;
use super::fault::FaultKind;
use super::prepare::Op;

/// 64 lanes of one value.
pub type Lanes = [u32; WAVE];

/// Side effects a slot computes besides its result (committed by the group
/// for the lanes that execute it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Side {
    /// PRED_SET*: lanes whose condition says "execute".
    pub exec: u64,
    /// Whether the opcode is a PRED_SET*.
    pub pred_set: bool,
    /// KILL*: lanes to kill.
    pub kill: u64,
    /// MOVA*: the AR values.
    pub mova: bool,
}

/// The largest finite f32 (the manual's MAX_FLOAT).
pub const MAX_FLOAT: f32 = f32::MAX;

pub use crate::denormal::flush;

#[inline(always)]
fn fi(b: u32) -> f32 {
    flush(f32::from_bits(b))
}

#[inline(always)]
fn fo(x: f32) -> u32 {
    flush(x).to_bits()
}

#[inline(always)]
fn b2f(c: bool) -> u32 {
    if c { 0x3F80_0000 } else { 0 }
}

#[inline(always)]
fn b2m(c: bool) -> u32 {
    if c { u32::MAX } else { 0 }
}

/// Whether the opcode reads floats (ABS/NEG and denormal flushing apply).
pub fn float_src(op: Op) -> bool {
    match op {
        Op::O2(o) => !matches!(
            o,
            Op2::AndInt
                | Op2::OrInt
                | Op2::XorInt
                | Op2::NotInt
                | Op2::AddInt
                | Op2::SubInt
                | Op2::MaxInt
                | Op2::MinInt
                | Op2::MaxUint
                | Op2::MinUint
                | Op2::SeteInt
                | Op2::SetgtInt
                | Op2::SetgeInt
                | Op2::SetneInt
                | Op2::SetgtUint
                | Op2::SetgeUint
                | Op2::KillgtUint
                | Op2::KillgeUint
                | Op2::PredSeteInt
                | Op2::PredSetgtInt
                | Op2::PredSetgeInt
                | Op2::PredSetneInt
                | Op2::PredSetgtUint
                | Op2::PredSetgeUint
                | Op2::KilleInt
                | Op2::KillgtInt
                | Op2::KillgeInt
                | Op2::KillneInt
                | Op2::PredSetePushInt
                | Op2::PredSetgtPushInt
                | Op2::PredSetgePushInt
                | Op2::PredSetnePushInt
                | Op2::PredSetltPushInt
                | Op2::PredSetlePushInt
                | Op2::MovaInt
                | Op2::MovaGprInt
                | Op2::IntToFlt
                | Op2::UintToFlt
                | Op2::AshrInt
                | Op2::LshrInt
                | Op2::LshlInt
                | Op2::MulloInt
                | Op2::MulhiInt
                | Op2::MulloUint
                | Op2::MulhiUint
                | Op2::RecipInt
                | Op2::RecipUint
        ),
        Op::O3(o) => !matches!(o, Op3::CndeInt | Op3::CndgtInt | Op3::CndgeInt),
    }
}

/// Whether the result is a float (OMOD and CLAMP apply; not to the
/// dwords of a double).
pub fn float_result(op: Op) -> bool {
    if super::double::slots(op).is_some() {
        return false;
    }
    match op {
        Op::O2(o) => {
            float_src(op)
                && !matches!(
                    o,
                    Op2::SeteDx10
                        | Op2::SetgtDx10
                        | Op2::SetgeDx10
                        | Op2::SetneDx10
                        | Op2::FltToInt
                        | Op2::FltToUint
                        | Op2::Mova
                        | Op2::MovaFloor
                        | Op2::Nop
                )
                || matches!(o, Op2::IntToFlt | Op2::UintToFlt)
        }
        Op::O3(o) => !matches!(o, Op3::CndeInt | Op3::CndgtInt | Op3::CndgeInt),
    }
}

/// Whether the opcode is a four-slot reduction (DOT4, DOT4_IEEE, CUBE, MAX4).
pub fn is_reduction(op: Op) -> bool {
    matches!(
        op,
        Op::O2(Op2::Dot4 | Op2::Dot4Ieee | Op2::Cube | Op2::Max4)
    )
}

fn unimplemented(op: Op) -> FaultKind {
    FaultKind::Unimplemented {
        what: format!("opcode {}", op.mnemonic()),
    }
}

/// MOVA's clamp (manual L4487-4500: below −256 → −256; above 255 → −256,
/// as the pseudocode says).
#[inline]
fn mova_clamp(v: f64) -> i32 {
    if v.is_nan() || !(-256.0..=255.0).contains(&v) {
        -256
    } else {
        v as i32
    }
}

/// DX9 multiply: 0 · anything = 0 (L1831).
#[inline(always)]
fn mul_dx9(a: f32, b: f32) -> f32 {
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

/// FRACT kept in [0, 1) (x − floor(x) rounds to 1.0 for tiny negatives).
#[inline(always)]
fn fract(x: f32) -> f32 {
    let r = x - x.floor();
    if r >= 1.0 {
        f32::from_bits(0x3F7F_FFFF)
    } else {
        r
    }
}

/// Execute one non-reduction slot: `s` are the sources, `out` the result,
/// `ar` the AR values for MOVA*. Returns the side effects.
pub fn exec(
    op: Op,
    s: &[Lanes; 3],
    out: &mut Lanes,
    ar: &mut [i32; WAVE],
) -> Result<Side, FaultKind> {
    let (a, b, c) = (&s[0], &s[1], &s[2]);
    let mut side = Side::default();
    macro_rules! map {
        (|$l:ident| $e:expr) => {
            for $l in 0..WAVE {
                out[$l] = $e;
            }
        };
    }
    macro_rules! f1 {
        (|$x:ident| $e:expr) => {
            map!(|l| {
                let $x = fi(a[l]);
                fo($e)
            })
        };
    }
    macro_rules! f2 {
        (|$x:ident, $y:ident| $e:expr) => {
            map!(|l| {
                let ($x, $y) = (fi(a[l]), fi(b[l]));
                fo($e)
            })
        };
    }
    macro_rules! fset {
        (|$x:ident, $y:ident| $e:expr, $conv:ident) => {
            map!(|l| {
                let ($x, $y) = (fi(a[l]), fi(b[l]));
                $conv($e)
            })
        };
    }
    macro_rules! i2 {
        (|$x:ident, $y:ident| $e:expr) => {
            map!(|l| {
                let ($x, $y) = (a[l], b[l]);
                $e
            })
        };
    }
    // PRED_SET*: execute → dst 0.0 (or as given), skip → `skip`.
    macro_rules! pred {
        (|$x:ident, $y:ident| $cond:expr, $skip:expr) => {{
            side.pred_set = true;
            let mut exec = 0u64;
            for l in 0..WAVE {
                let ($x, $y) = (a[l], b[l]);
                let go: bool = $cond;
                exec |= (go as u64) << l;
                out[l] = if go { 0 } else { $skip };
            }
            side.exec = exec;
        }};
    }
    macro_rules! kill {
        (|$x:ident, $y:ident| $cond:expr) => {{
            let mut k = 0u64;
            for l in 0..WAVE {
                let ($x, $y) = (a[l], b[l]);
                let go: bool = $cond;
                k |= (go as u64) << l;
                out[l] = b2f(go);
            }
            side.kill = k;
        }};
    }
    let one = 1.0f32.to_bits();
    match op {
        Op::O2(o) => match o {
            Op2::Add => f2!(|x, y| x + y),
            Op2::Mul => f2!(|x, y| mul_dx9(x, y)),
            Op2::MulIeee => f2!(|x, y| x * y),
            Op2::Max => f2!(|x, y| if x >= y { x } else { y }),
            Op2::Min => f2!(|x, y| if x < y { x } else { y }),
            Op2::MaxDx10 => f2!(|x, y| x.max(y)),
            Op2::MinDx10 => f2!(|x, y| x.min(y)),
            Op2::Sete => fset!(|x, y| x == y, b2f),
            Op2::Setgt => fset!(|x, y| x > y, b2f),
            Op2::Setge => fset!(|x, y| x >= y, b2f),
            Op2::Setne => fset!(|x, y| x != y, b2f),
            Op2::SeteDx10 => fset!(|x, y| x == y, b2m),
            Op2::SetgtDx10 => fset!(|x, y| x > y, b2m),
            Op2::SetgeDx10 => fset!(|x, y| x >= y, b2m),
            Op2::SetneDx10 => fset!(|x, y| x != y, b2m),
            Op2::Fract => f1!(|x| fract(x)),
            Op2::Trunc => f1!(|x| x.trunc()),
            Op2::Ceil => f1!(|x| x.ceil()),
            Op2::Rndne => f1!(|x| x.round_ties_even()),
            Op2::Floor => f1!(|x| x.floor()),
            Op2::Mova | Op2::MovaFloor | Op2::MovaInt => {
                side.mova = true;
                for l in 0..WAVE {
                    ar[l] = match o {
                        Op2::Mova => mova_clamp((f64::from(fi(a[l])) + 0.5).floor()),
                        Op2::MovaFloor => mova_clamp(f64::from(fi(a[l])).floor()),
                        _ => mova_clamp(f64::from(a[l] as i32)),
                    };
                    out[l] = a[l];
                }
            }
            Op2::Mov => map!(|l| a[l]),
            Op2::Nop => map!(|l| a[l]),
            Op2::PredSetgtUint => pred!(|x, y| x > y, one),
            Op2::PredSetgeUint => pred!(|x, y| x >= y, one),
            Op2::PredSete => pred!(|x, y| fi(x) == fi(y), one),
            Op2::PredSetgt => pred!(|x, y| fi(x) > fi(y), one),
            Op2::PredSetge => pred!(|x, y| fi(x) >= fi(y), one),
            Op2::PredSetne => pred!(|x, y| fi(x) != fi(y), one),
            Op2::PredSetInv => {
                side.pred_set = true;
                let mut exec = 0u64;
                for l in 0..WAVE {
                    let x = fi(a[l]);
                    let go = x == 1.0;
                    exec |= (go as u64) << l;
                    out[l] = if go {
                        0
                    } else if x == 0.0 {
                        one
                    } else {
                        fo(x)
                    };
                }
                side.exec = exec;
            }
            Op2::PredSetPop => {
                side.pred_set = true;
                let mut exec = 0u64;
                for l in 0..WAVE {
                    let (x, y) = (fi(a[l]), fi(b[l]));
                    let go = x <= y;
                    exec |= (go as u64) << l;
                    out[l] = if go { 0 } else { fo(x - y) };
                }
                side.exec = exec;
            }
            Op2::PredSetClr => pred!(|_x, _y| false, MAX_FLOAT.to_bits()),
            Op2::PredSetRestore => {
                side.pred_set = true;
                let mut exec = 0u64;
                for l in 0..WAVE {
                    let x = fi(a[l]);
                    let go = x == 0.0;
                    exec |= (go as u64) << l;
                    out[l] = fo(x);
                }
                side.exec = exec;
            }
            Op2::PredSetePush => pred!(|x, y| fi(x) == 0.0 && fi(y) == 0.0, fo(fi(x) + 1.0)),
            Op2::PredSetgtPush => pred!(|x, y| fi(x) == 0.0 && fi(y) > 0.0, fo(fi(x) + 1.0)),
            Op2::PredSetgePush => pred!(|x, y| fi(x) == 0.0 && fi(y) >= 0.0, fo(fi(x) + 1.0)),
            Op2::PredSetnePush => pred!(|x, y| fi(x) == 0.0 && fi(y) != 0.0, fo(fi(x) + 1.0)),
            Op2::Kille => kill!(|x, y| fi(x) == fi(y)),
            Op2::Killgt => kill!(|x, y| fi(x) > fi(y)),
            Op2::Killge => kill!(|x, y| fi(x) >= fi(y)),
            Op2::Killne => kill!(|x, y| fi(x) != fi(y)),
            Op2::AndInt => i2!(|x, y| x & y),
            Op2::OrInt => i2!(|x, y| x | y),
            Op2::XorInt => i2!(|x, y| x ^ y),
            Op2::NotInt => map!(|l| !a[l]),
            Op2::AddInt => i2!(|x, y| x.wrapping_add(y)),
            Op2::SubInt => i2!(|x, y| x.wrapping_sub(y)),
            Op2::MaxInt => i2!(|x, y| (x as i32).max(y as i32) as u32),
            Op2::MinInt => i2!(|x, y| (x as i32).min(y as i32) as u32),
            Op2::MaxUint => i2!(|x, y| x.max(y)),
            Op2::MinUint => i2!(|x, y| x.min(y)),
            Op2::SeteInt => i2!(|x, y| b2m(x == y)),
            Op2::SetgtInt => i2!(|x, y| b2m((x as i32) > (y as i32))),
            Op2::SetgeInt => i2!(|x, y| b2m((x as i32) >= (y as i32))),
            Op2::SetneInt => i2!(|x, y| b2m(x != y)),
            Op2::SetgtUint => i2!(|x, y| b2m(x > y)),
            Op2::SetgeUint => i2!(|x, y| b2m(x >= y)),
            Op2::KillgtUint => kill!(|x, y| x > y),
            Op2::KillgeUint => kill!(|x, y| x >= y),
            Op2::PredSeteInt => pred!(|x, y| x == y, one),
            Op2::PredSetgtInt => pred!(|x, y| (x as i32) > (y as i32), one),
            Op2::PredSetgeInt => pred!(|x, y| (x as i32) >= (y as i32), one),
            Op2::PredSetneInt => pred!(|x, y| x != y, one),
            Op2::KilleInt => kill!(|x, y| x == y),
            Op2::KillgtInt => kill!(|x, y| (x as i32) > (y as i32)),
            Op2::KillgeInt => kill!(|x, y| (x as i32) >= (y as i32)),
            Op2::KillneInt => kill!(|x, y| x != y),
            Op2::PredSetePushInt => pred!(|x, y| x == 0 && y == 0, x.wrapping_add(1)),
            Op2::PredSetgtPushInt => {
                pred!(|x, y| x == 0 && (y as i32) > 0, x.wrapping_add(1))
            }
            Op2::PredSetgePushInt => {
                pred!(|x, y| x == 0 && (y as i32) >= 0, x.wrapping_add(1))
            }
            Op2::PredSetnePushInt => pred!(|x, y| x == 0 && y != 0, x.wrapping_add(1)),
            Op2::PredSetltPushInt => {
                pred!(|x, y| x == 0 && (y as i32) < 0, x.wrapping_add(1))
            }
            Op2::PredSetlePushInt => {
                pred!(|x, y| x == 0 && (y as i32) <= 0, x.wrapping_add(1))
            }
            Op2::ExpIeee => f1!(|x| x.exp2()),
            Op2::LogClamped => f1!(|x| {
                let r = if x == 1.0 { 0.0 } else { x.log2() };
                if r == f32::NEG_INFINITY {
                    -MAX_FLOAT
                } else {
                    r
                }
            }),
            Op2::LogIeee => f1!(|x| if x == 1.0 { 0.0 } else { x.log2() }),
            Op2::RecipClamped => f1!(|x| {
                let r = 1.0 / x;
                if r.is_infinite() {
                    MAX_FLOAT.copysign(r)
                } else {
                    r
                }
            }),
            Op2::RecipFf => f1!(|x| {
                let r = 1.0 / x;
                if r.is_infinite() {
                    0.0f32.copysign(r)
                } else {
                    r
                }
            }),
            Op2::RecipIeee => f1!(|x| 1.0 / x),
            Op2::RecipsqrtClamped => f1!(|x| {
                let r = if x == 1.0 { 1.0 } else { 1.0 / x.sqrt() };
                if r.is_infinite() {
                    MAX_FLOAT.copysign(r)
                } else {
                    r
                }
            }),
            Op2::RecipsqrtFf => f1!(|x| {
                let r = if x == 1.0 { 1.0 } else { 1.0 / x.sqrt() };
                if r.is_infinite() {
                    0.0f32.copysign(r)
                } else {
                    r
                }
            }),
            Op2::RecipsqrtIeee => f1!(|x| if x == 1.0 { 1.0 } else { 1.0 / x.sqrt() }),
            Op2::SqrtIeee => f1!(|x| x.sqrt()),
            // R700 SIN/COS take the angle in turns (docs/sim-r700.md §2.5).
            Op2::Sin => f1!(|x| (f64::from(x) * std::f64::consts::TAU).sin() as f32),
            Op2::Cos => f1!(|x| (f64::from(x) * std::f64::consts::TAU).cos() as f32),
            Op2::FltToInt => map!(|l| {
                let x = fi(a[l]);
                if x.is_nan() {
                    0
                } else {
                    x.trunc() as i32 as u32
                }
            }),
            Op2::FltToUint => map!(|l| {
                let x = fi(a[l]);
                if x.is_nan() { 0 } else { x.trunc() as u32 }
            }),
            Op2::IntToFlt => map!(|l| fo(a[l] as i32 as f32)),
            Op2::UintToFlt => map!(|l| fo(a[l] as f32)),
            Op2::AshrInt => i2!(|x, y| if y > 31 {
                if (x as i32) < 0 { u32::MAX } else { 0 }
            } else {
                ((x as i32) >> y) as u32
            }),
            Op2::LshrInt => i2!(|x, y| if y > 31 { 0 } else { x >> y }),
            Op2::LshlInt => i2!(|x, y| if y > 31 { 0 } else { x << y }),
            Op2::MulloInt => i2!(|x, y| (x as i32).wrapping_mul(y as i32) as u32),
            Op2::MulhiInt => {
                i2!(|x, y| ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32)
            }
            Op2::MulloUint => i2!(|x, y| x.wrapping_mul(y)),
            Op2::MulhiUint => i2!(|x, y| ((u64::from(x) * u64::from(y)) >> 32) as u32),
            Op2::RecipUint => map!(|l| {
                let x = a[l];
                if x <= 1 {
                    u32::MAX
                } else {
                    ((1u64 << 32) / u64::from(x)) as u32
                }
            }),
            Op2::RecipInt => map!(|l| {
                let x = a[l] as i32;
                let m = x.unsigned_abs();
                let r = if m <= 1 {
                    i32::MAX as u32
                } else {
                    ((1u64 << 31) / u64::from(m)) as u32
                };
                if x < 0 {
                    (r as i32).wrapping_neg() as u32
                } else {
                    r
                }
            }),
            Op2::Dot4 | Op2::Dot4Ieee | Op2::Cube | Op2::Max4 => {
                // Computed by the group across its four vector slots.
                return Err(unimplemented(op));
            }
            // Doubles are computed by the group across their slots
            // (`double.rs`); MOVA_GPR_INT has no description.
            Op2::Frexp64
            | Op2::Add64
            | Op2::Mul64
            | Op2::Flt64ToFlt32
            | Op2::Flt32ToFlt64
            | Op2::MovaGprInt
            | Op2::Ldexp64
            | Op2::Fract64
            | Op2::PredSetgt64
            | Op2::PredSete64
            | Op2::PredSetge64 => return Err(unimplemented(op)),
        },
        Op::O3(o) => {
            macro_rules! mad {
                ($mul:expr, $scale:expr) => {
                    map!(|l| {
                        let (x, y, z) = (fi(a[l]), fi(b[l]), fi(c[l]));
                        let p: f32 = $mul(x, y);
                        fo((p + z) * $scale)
                    })
                };
            }
            let ieee = |x: f32, y: f32| x * y;
            match o {
                Op3::Muladd => mad!(mul_dx9, 1.0),
                Op3::MuladdM2 => mad!(mul_dx9, 2.0),
                Op3::MuladdM4 => mad!(mul_dx9, 4.0),
                Op3::MuladdD2 => mad!(mul_dx9, 0.5),
                Op3::MuladdIeee => mad!(ieee, 1.0),
                Op3::MuladdIeeeM2 => mad!(ieee, 2.0),
                Op3::MuladdIeeeM4 => mad!(ieee, 4.0),
                Op3::MuladdIeeeD2 => mad!(ieee, 0.5),
                Op3::Cnde => map!(|l| if fi(a[l]) == 0.0 { b[l] } else { c[l] }),
                Op3::Cndgt => map!(|l| if fi(a[l]) > 0.0 { b[l] } else { c[l] }),
                Op3::Cndge => map!(|l| if fi(a[l]) >= 0.0 { b[l] } else { c[l] }),
                Op3::CndeInt => map!(|l| if a[l] == 0 { b[l] } else { c[l] }),
                Op3::CndgtInt => map!(|l| if (a[l] as i32) > 0 { b[l] } else { c[l] }),
                Op3::CndgeInt => map!(|l| if (a[l] as i32) >= 0 { b[l] } else { c[l] }),
                Op3::MulLit | Op3::MulLitM2 | Op3::MulLitM4 | Op3::MulLitD2 => {
                    let scale = match o {
                        Op3::MulLitM2 => 2.0,
                        Op3::MulLitM4 => 4.0,
                        Op3::MulLitD2 => 0.5,
                        _ => 1.0,
                    };
                    map!(|l| {
                        let (x, y, z) = (fi(a[l]), fi(b[l]), fi(c[l]));
                        let r = if y == -MAX_FLOAT
                            || y == f32::NEG_INFINITY
                            || y.is_nan()
                            || z <= 0.0
                            || z.is_nan()
                        {
                            -MAX_FLOAT
                        } else {
                            mul_dx9(x, y)
                        };
                        fo(r * scale)
                    })
                }
                Op3::Muladd64 | Op3::Muladd64M2 | Op3::Muladd64M4 | Op3::Muladd64D2 => {
                    return Err(unimplemented(op));
                }
            }
        }
    }
    Ok(side)
}

/// A four-slot reduction: `s0[c]`, `s1[c]` are the sources of the vector
/// slot of element c; the result of slot c goes to `out[c]`.
pub fn reduction(op: Op, s0: [&Lanes; 4], s1: [&Lanes; 4], out: &mut [Lanes; 4]) {
    match op {
        Op::O2(Op2::Dot4) | Op::O2(Op2::Dot4Ieee) => {
            let dx9 = op == Op::O2(Op2::Dot4);
            for l in 0..WAVE {
                let mut sum = 0.0f32;
                for c in 0..4 {
                    let (x, y) = (fi(s0[c][l]), fi(s1[c][l]));
                    sum += if dx9 { mul_dx9(x, y) } else { x * y };
                }
                let r = fo(sum);
                for o in out.iter_mut() {
                    o[l] = r;
                }
            }
        }
        Op::O2(Op2::Max4) => {
            for l in 0..WAVE {
                let mut m = fi(s0[0][l]);
                for v in &s0[1..] {
                    let x = fi(v[l]);
                    if x >= m || m.is_nan() {
                        m = x;
                    }
                }
                let r = fo(m);
                for o in out.iter_mut() {
                    o[l] = r;
                }
            }
        }
        _ => {
            // CUBE: src0 = R.zzxy, src1 = R.yxzz (L3360-3369).
            for l in 0..WAVE {
                let (z, x, y) = (fi(s0[0][l]), fi(s0[2][l]), fi(s0[3][l]));
                let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
                let (face, ma, sc, tc) = if az >= ax && az >= ay {
                    (
                        if z < 0.0 { 5.0 } else { 4.0 },
                        z,
                        if z < 0.0 { -x } else { x },
                        -y,
                    )
                } else if ay >= ax {
                    (
                        if y < 0.0 { 3.0 } else { 2.0 },
                        y,
                        x,
                        if y < 0.0 { -z } else { z },
                    )
                } else {
                    (
                        if x < 0.0 { 1.0 } else { 0.0 },
                        x,
                        if x < 0.0 { z } else { -z },
                        -y,
                    )
                };
                out[0][l] = fo(tc);
                out[1][l] = fo(sc);
                out[2][l] = fo(2.0 * ma);
                out[3][l] = fo(face);
            }
        }
    }
}
