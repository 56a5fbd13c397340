//! Double-precision instructions after the manual's chapter 9 examples
//! (ADD_64 L3039-3078, MUL_64 L4640-4660, MULADD_64 L4925-4955, the
//! conversion tables 9.2-9.3, FREXP_64, LDEXP_64, FRACT_64, PRED_SET*_64).

mod r700_common;

use ctm_backend_r700::isa::*;
use r700_common::*;

const CH: [Chan; 4] = [Chan::X, Chan::Y, Chan::Z, Chan::W];

fn hi(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}

fn lo(x: f64) -> u32 {
    x.to_bits() as u32
}

/// One group of `op` in the slots `chans`, sources R0.c, R1.c (R2.c),
/// destination R3.c; returns R3 of the one element.
fn run(op2: Option<Op2>, op3: Option<Op3>, chans: &[usize], r: [[u32; 4]; 3]) -> [u32; 4] {
    let insts: Vec<AluInst> = chans
        .iter()
        .map(|&c| {
            let ch = CH[c];
            match (op2, op3) {
                (Some(o), _) => AluInst::op2(o, dst(3, ch), [src(0, ch), src(1, ch)]),
                (_, Some(o)) => AluInst::op3(o, dst(3, ch), [src(0, ch), src(1, ch), src(2, ch)]),
                _ => unreachable!(),
            }
        })
        .collect();
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![vec![group(&insts, &[])]],
    );
    let out = run_raw(
        p,
        1,
        vec![(0, vec![r[0]]), (1, vec![r[1]]), (2, vec![r[2]])],
        &[],
    );
    assert_eq!(out.faults, vec![]);
    pixel_bits(&out, 0)[0]
}

#[test]
fn add_64_in_both_slot_pairs() {
    // X/Y: 3 + 6; Z/W: 6 + 12 (the manual's example). High dwords in the
    // first slot's operands, result LSB then MSB.
    let a = [hi(3.0), lo(3.0), hi(6.0), lo(6.0)];
    let b = [hi(6.0), lo(6.0), hi(12.0), lo(12.0)];
    let r = run(Some(Op2::Add64), None, &[0, 1, 2, 3], [a, b, [0; 4]]);
    assert_eq!(r, [0, 0x4022_0000, 0, 0x4032_0000]);
    // inf − inf = NaN64; a NaN input propagates; a + −a = +0.
    let inf = f64::INFINITY;
    let a = [hi(inf), lo(inf), hi(2.5), lo(2.5)];
    let b = [hi(-inf), lo(-inf), hi(-2.5), lo(-2.5)];
    let r = run(Some(Op2::Add64), None, &[0, 1, 2, 3], [a, b, [0; 4]]);
    assert_eq!(r, [0, 0xFFF8_0000, 0, 0]);
}

#[test]
fn mul_64_and_muladd_64_write_both_pairs() {
    let a = [hi(3.0), 0, 0, lo(3.0)];
    let b = [hi(6.0), 0, 0, lo(6.0)];
    let c = [hi(12.0), 0, 0, lo(12.0)];
    let r = run(Some(Op2::Mul64), None, &[0, 1, 2, 3], [a, b, [0; 4]]);
    assert_eq!(r, [0, 0x4032_0000, 0, 0x4032_0000]);
    let r = run(None, Some(Op3::Muladd64), &[0, 1, 2, 3], [a, b, c]);
    assert_eq!(r, [0, 0x403E_0000, 0, 0x403E_0000]);
    let r = run(None, Some(Op3::Muladd64D2), &[0, 1, 2, 3], [a, b, c]);
    assert_eq!(
        f64::from_bits((u64::from(r[1]) << 32) | u64::from(r[0])),
        15.0
    );
    // A denormal times anything is a zero.
    let tiny = f64::from_bits(1);
    let d = [hi(tiny), 0, 0, lo(tiny)];
    let r = run(Some(Op2::Mul64), None, &[0, 1, 2, 3], [d, b, [0; 4]]);
    assert_eq!(r, [0; 4]);
}

#[test]
fn conversions_between_float_and_double() {
    let r = run(
        Some(Op2::Flt32ToFlt64),
        None,
        &[0, 1, 2, 3],
        [[f(1.5), 0, f(-1.0e-40), 0], [0; 4], [0; 4]],
    );
    assert_eq!(r, [lo(1.5), hi(1.5), 0, 0x8000_0000]);
    let r = run(
        Some(Op2::Flt32ToFlt64),
        None,
        &[0, 1],
        [[0x7FC0_0001, 0, 0, 0], [0; 4], [0; 4]],
    );
    assert_eq!(r[..2], [0x2000_0000, 0x7FF8_0000]);
    let x = 1.0e300f64;
    let r = run(
        Some(Op2::Flt64ToFlt32),
        None,
        &[0, 1, 2, 3],
        [[hi(0.1), lo(0.1), hi(x), lo(x)], [0; 4], [0; 4]],
    );
    assert_eq!(r[0], f(0.1));
    assert_eq!(r[2], f32::INFINITY.to_bits());
}

#[test]
fn fract_ldexp_frexp_64() {
    let r = run(
        Some(Op2::Fract64),
        None,
        &[0, 1, 2, 3],
        [[hi(-2.25), lo(-2.25), hi(f64::INFINITY), 0], [0; 4], [0; 4]],
    );
    assert_eq!(r, [lo(0.75), hi(0.75), 0, 0xFFF8_0000]);
    let r = run(
        Some(Op2::Ldexp64),
        None,
        &[0, 1],
        [[hi(1.5), lo(1.5), 0, 0], [3, 3, 0, 0], [0; 4]],
    );
    assert_eq!(r[..2], [lo(12.0), hi(12.0)]);
    let r = run(
        Some(Op2::Frexp64),
        None,
        &[0, 1, 2, 3],
        [[hi(-12.0), 0, 0, lo(-12.0)], [0; 4], [0; 4]],
    );
    assert_eq!(r, [4, 0, lo(-0.75), hi(-0.75)]);
}

#[test]
fn pred_set_64_sets_the_predicate() {
    // One pair per group (one PRED_SET* per group, R8).
    let b = [hi(1.0), lo(1.0), 0, 0];
    let r = run(
        Some(Op2::PredSetgt64),
        None,
        &[0, 1],
        [[hi(2.0), lo(2.0), 0, 0], b, [0; 4]],
    );
    assert_eq!(r[..2], [0, 0]);
    let r = run(Some(Op2::PredSetgt64), None, &[0, 1], [b, b, [0; 4]]);
    assert_eq!(r[..2], [u32::MAX, u32::MAX]);
    let r = run(Some(Op2::PredSete64), None, &[0, 1], [b, b, [0; 4]]);
    assert_eq!(r[..2], [0, 0]);
}

#[test]
fn negation_applies_to_the_high_dword_slot_only() {
    let mut x = AluInst::op2(
        Op2::Add64,
        dst(3, Chan::X),
        [src(0, Chan::X), src(1, Chan::X)],
    );
    let mut y = AluInst::op2(
        Op2::Add64,
        dst(3, Chan::Y),
        [src(0, Chan::Y), src(1, Chan::Y)],
    );
    if let AluForm::Op2(fm) = &mut x.form {
        fm.src[1].neg = true;
    }
    if let AluForm::Op2(fm) = &mut y.form {
        fm.src[1].neg = true;
    }
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![vec![group(&[x, y], &[])]],
    );
    let v = 1.0 + f64::EPSILON * 3.0;
    let out = run_raw(
        p,
        1,
        vec![
            (0, vec![[hi(5.0), lo(5.0), 0, 0]]),
            (1, vec![[hi(v), lo(v), 0, 0]]),
        ],
        &[],
    );
    let r = pixel_bits(&out, 0)[0];
    assert_eq!(
        (u64::from(r[1]) << 32) | u64::from(r[0]),
        (5.0 - v).to_bits()
    );
}
