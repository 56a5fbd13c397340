//! Per-instruction tests of the R700 simulator's ALU after the manual's
//! chapter 9 descriptions (and digest §5.5-5.6): special values, integer
//! edge cases, modifiers, PV/PS, the predicate, kills, AR-relative
//! addressing, reductions and constants. Instructions are built as typed
//! values (`ctm_backend_r700::isa`).

mod r700_common;

use ctm_backend_r700::isa::*;
use r700_common::*;

const X: Chan = Chan::X;
const Y: Chan = Chan::Y;
const Z: Chan = Chan::Z;
const W: Chan = Chan::W;

/// Run one ALU clause, then export R3 (pixel 0); one element per row of
/// `r0`/`r1`/`r2` (R0, R1, R2).
fn run_groups(groups: Vec<AluGroup>, r: [Vec<[u32; 4]>; 3]) -> Vec<[u32; 4]> {
    let n = r[0].len() as u32;
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![groups],
    );
    let [a, b, c] = r;
    let out = run_raw(p, n, vec![(0, a), (1, b), (2, c)], &[]);
    assert_eq!(out.faults, vec![], "no fault expected");
    pixel_bits(&out, 0)
}

/// OP2 `op` on (R0.x, R1.x) per case → R3.x.
fn op2_cases(op: Op2, cases: &[(u32, u32)]) -> Vec<u32> {
    let inst = AluInst::op2(op, dst(3, X), [src(0, X), src(1, X)]);
    let a = cases.iter().map(|c| [c.0, 0, 0, 0]).collect();
    let b = cases.iter().map(|c| [c.1, 0, 0, 0]).collect();
    let z = cases.iter().map(|_| [0; 4]).collect();
    run_groups(vec![group(&[inst], &[])], [a, b, z])
        .iter()
        .map(|v| v[0])
        .collect()
}

/// OP3 `op` on (R0.x, R1.x, R2.x) → R3.x.
fn op3_cases(op: Op3, cases: &[(u32, u32, u32)]) -> Vec<u32> {
    let inst = AluInst::op3(op, dst(3, X), [src(0, X), src(1, X), src(2, X)]);
    let a = cases.iter().map(|c| [c.0, 0, 0, 0]).collect();
    let b = cases.iter().map(|c| [c.1, 0, 0, 0]).collect();
    let c = cases.iter().map(|c| [c.2, 0, 0, 0]).collect();
    run_groups(vec![group(&[inst], &[])], [a, b, c])
        .iter()
        .map(|v| v[0])
        .collect()
}

fn ff(cases: &[(f32, f32)]) -> Vec<(u32, u32)> {
    cases.iter().map(|&(a, b)| (f(a), f(b))).collect()
}

fn floats(bits: &[u32]) -> Vec<f32> {
    bits.iter().map(|&b| f32::from_bits(b)).collect()
}

const INF: f32 = f32::INFINITY;
const NAN: f32 = f32::NAN;
const DENORM: f32 = 1.0e-40;

#[test]
fn add_and_multiplies_follow_dx9_and_ieee_zero_rules() {
    let cases = ff(&[
        (1.5, 2.25),
        (0.0, INF),
        (INF, 0.0),
        (-0.0, NAN),
        (3.0, -2.0),
    ]);
    assert_eq!(floats(&op2_cases(Op2::Add, &cases[..1])), [3.75]);
    // MUL: 0 · anything = 0 (L1831), also inf and NaN.
    assert_eq!(
        floats(&op2_cases(Op2::Mul, &cases)),
        [3.375, 0.0, 0.0, 0.0, -6.0]
    );
    // MUL_IEEE: 0 · inf = NaN.
    let ieee = floats(&op2_cases(Op2::MulIeee, &cases));
    assert_eq!(ieee[0], 3.375);
    assert!(ieee[1].is_nan() && ieee[2].is_nan() && ieee[3].is_nan());
}

#[test]
fn denormals_flush_to_signed_zero() {
    let out = op2_cases(
        Op2::Add,
        &ff(&[(DENORM, 0.0), (-DENORM, -0.0), (1.0e-20, 1.0e-20)]),
    );
    assert_eq!(out[0], 0);
    assert_eq!(out[1], 0x8000_0000);
    // A denormal product flushes too.
    let out = op2_cases(
        Op2::MulIeee,
        &ff(&[(1.0e-20, 1.0e-20), (-1.0e-20, 1.0e-20)]),
    );
    assert_eq!(out, [0, 0x8000_0000]);
    // MOV is a raw move.
    assert_eq!(
        op2_cases(Op2::Mov, &ff(&[(DENORM, 0.0)])),
        [DENORM.to_bits()]
    );
}

#[test]
fn min_max_nan_rules() {
    let c = ff(&[(1.0, 2.0), (NAN, 2.0), (2.0, NAN), (-0.0, 0.0)]);
    let max = floats(&op2_cases(Op2::Max, &c));
    assert_eq!(max[0], 2.0);
    // s0 >= s1 ? s0 : s1 — a NaN compare is false.
    assert_eq!(max[1], 2.0);
    assert!(max[2].is_nan());
    let min = floats(&op2_cases(Op2::Min, &c));
    assert_eq!(min[0], 1.0);
    assert_eq!(min[1], 2.0);
    // DX10: the number wins over NaN.
    assert_eq!(floats(&op2_cases(Op2::MaxDx10, &c))[1..3], [2.0, 2.0]);
    assert_eq!(floats(&op2_cases(Op2::MinDx10, &c))[1..3], [2.0, 2.0]);
}

#[test]
fn set_opcodes_give_one_or_all_ones() {
    let c = ff(&[(1.0, 1.0), (2.0, 1.0), (1.0, 2.0), (NAN, NAN)]);
    assert_eq!(floats(&op2_cases(Op2::Sete, &c)), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(floats(&op2_cases(Op2::Setgt, &c)), [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(floats(&op2_cases(Op2::Setge, &c)), [1.0, 1.0, 0.0, 0.0]);
    assert_eq!(floats(&op2_cases(Op2::Setne, &c)), [0.0, 1.0, 1.0, 1.0]);
    let m = u32::MAX;
    assert_eq!(op2_cases(Op2::SeteDx10, &c), [m, 0, 0, 0]);
    assert_eq!(op2_cases(Op2::SetgtDx10, &c), [0, m, 0, 0]);
    assert_eq!(op2_cases(Op2::SetgeDx10, &c), [m, m, 0, 0]);
    assert_eq!(op2_cases(Op2::SetneDx10, &c), [0, m, m, m]);
}

#[test]
fn rounding_opcodes() {
    let xs = [2.5f32, 3.5, -2.5, -0.25, -1.0e-9, 7.0];
    let c: Vec<(u32, u32)> = xs.iter().map(|&x| (f(x), 0)).collect();
    assert_eq!(
        floats(&op2_cases(Op2::Rndne, &c)),
        [2.0, 4.0, -2.0, -0.0, -0.0, 7.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::Floor, &c)),
        [2.0, 3.0, -3.0, -1.0, -1.0, 7.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::Ceil, &c)),
        [3.0, 4.0, -2.0, -0.0, -0.0, 7.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::Trunc, &c)),
        [2.0, 3.0, -2.0, -0.0, -0.0, 7.0]
    );
    let fr = floats(&op2_cases(Op2::Fract, &c));
    assert_eq!(fr[..4], [0.5, 0.5, 0.5, 0.75]);
    // FRACT stays below 1 even when x − floor(x) rounds to 1.
    assert!(fr[4] < 1.0 && fr[4] > 0.99);
    assert_eq!(fr[5], 0.0);
}

#[test]
fn integer_arithmetic_wraps() {
    let c = [(u32::MAX, 1), (0x8000_0000, 1), (5, 7)];
    assert_eq!(op2_cases(Op2::AddInt, &c), [0, 0x8000_0001, 12]);
    // SUB_INT is s0 − s1 (digest §5.6, corrected by LLVM).
    assert_eq!(
        op2_cases(Op2::SubInt, &c),
        [u32::MAX - 1, 0x7FFF_FFFF, (-2i32) as u32]
    );
    assert_eq!(op2_cases(Op2::MaxInt, &c), [1, 1, 7]);
    assert_eq!(op2_cases(Op2::MinInt, &c), [u32::MAX, 0x8000_0000, 5]);
    assert_eq!(op2_cases(Op2::MaxUint, &c), [u32::MAX, 0x8000_0000, 7]);
    assert_eq!(op2_cases(Op2::MinUint, &c), [1, 1, 5]);
    assert_eq!(op2_cases(Op2::AndInt, &c), [1, 0, 5]);
    assert_eq!(op2_cases(Op2::OrInt, &c), [u32::MAX, 0x8000_0001, 7]);
    assert_eq!(op2_cases(Op2::XorInt, &c), [u32::MAX - 1, 0x8000_0001, 2]);
    assert_eq!(op2_cases(Op2::NotInt, &c), [0, 0x7FFF_FFFF, !5]);
}

#[test]
fn shifts_saturate_past_31() {
    let c = [(0x8000_0010, 4), (0x8000_0010, 32), (0x10, 33), (1, 31)];
    assert_eq!(op2_cases(Op2::AshrInt, &c), [0xF800_0001, u32::MAX, 0, 0]);
    assert_eq!(op2_cases(Op2::LshrInt, &c), [0x0800_0001, 0, 0, 0]);
    assert_eq!(op2_cases(Op2::LshlInt, &c), [0x100, 0, 0, 0x8000_0000]);
}

#[test]
fn integer_compares() {
    let m = u32::MAX;
    let c = [(u32::MAX, 1), (1, 1), (2, 1)];
    assert_eq!(op2_cases(Op2::SeteInt, &c), [0, m, 0]);
    assert_eq!(op2_cases(Op2::SetneInt, &c), [m, 0, m]);
    assert_eq!(op2_cases(Op2::SetgtInt, &c), [0, 0, m]);
    assert_eq!(op2_cases(Op2::SetgeInt, &c), [0, m, m]);
    assert_eq!(op2_cases(Op2::SetgtUint, &c), [m, 0, m]);
    assert_eq!(op2_cases(Op2::SetgeUint, &c), [m, m, m]);
}

#[test]
fn trans_integer_multiply_and_reciprocal() {
    let c = [(u32::MAX, u32::MAX), (0x8000_0000, 2), (100_000, 100_000)];
    assert_eq!(op2_cases(Op2::MulloInt, &c), [1, 0, 1_410_065_408]);
    assert_eq!(op2_cases(Op2::MulhiInt, &c), [0, u32::MAX, 2]);
    assert_eq!(op2_cases(Op2::MulloUint, &c), [1, 0, 1_410_065_408]);
    assert_eq!(op2_cases(Op2::MulhiUint, &c), [u32::MAX - 1, 1, 2]);
    // RECIP_UINT: 2^32 / x as a 0.32 fixed-point fraction.
    let r = op2_cases(Op2::RecipUint, &[(2, 0), (3, 0), (u32::MAX, 0), (1, 0)]);
    assert_eq!(r, [0x8000_0000, 0x5555_5555, 1, u32::MAX]);
}

#[test]
fn conversions() {
    let c = ff(&[
        (-1.5, 0.0),
        (3.99, 0.0),
        (NAN, 0.0),
        (3.0e9, 0.0),
        (-3.0e9, 0.0),
    ]);
    assert_eq!(
        op2_cases(Op2::FltToInt, &c),
        [(-1i32) as u32, 3, 0, i32::MAX as u32, i32::MIN as u32]
    );
    assert_eq!(op2_cases(Op2::FltToUint, &c), [0, 3, 0, 3_000_000_000, 0]);
    let i = [(i32::MIN as u32, 0), (u32::MAX, 0), (7, 0)];
    assert_eq!(
        floats(&op2_cases(Op2::IntToFlt, &i)),
        [-2147483648.0, -1.0, 7.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::UintToFlt, &i)),
        [2147483648.0, 4294967296.0, 7.0]
    );
}

#[test]
fn transcendentals_and_their_clamped_forms() {
    let c = ff(&[(0.0, 0.0), (-0.0, 0.0), (4.0, 0.0), (INF, 0.0), (1.0, 0.0)]);
    let m = f32::MAX;
    assert_eq!(
        floats(&op2_cases(Op2::RecipIeee, &c)),
        [INF, -INF, 0.25, 0.0, 1.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::RecipClamped, &c)),
        [m, -m, 0.25, 0.0, 1.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::RecipFf, &c)),
        [0.0, -0.0, 0.25, 0.0, 1.0]
    );
    assert_eq!(
        floats(&op2_cases(Op2::RecipsqrtIeee, &c))[2..],
        [0.5, 0.0, 1.0]
    );
    assert_eq!(floats(&op2_cases(Op2::RecipsqrtClamped, &c))[0], m);
    assert_eq!(floats(&op2_cases(Op2::RecipsqrtFf, &c))[0], 0.0);
    assert_eq!(floats(&op2_cases(Op2::SqrtIeee, &c))[2..], [2.0, INF, 1.0]);
    assert_eq!(
        floats(&op2_cases(Op2::LogIeee, &c)),
        [-INF, -INF, 2.0, INF, 0.0]
    );
    assert_eq!(floats(&op2_cases(Op2::LogClamped, &c))[..3], [-m, -m, 2.0]);
    assert_eq!(
        floats(&op2_cases(Op2::ExpIeee, &c)),
        [1.0, 1.0, 16.0, INF, 2.0]
    );
    assert!(floats(&op2_cases(Op2::SqrtIeee, &ff(&[(-1.0, 0.0)])))[0].is_nan());
}

#[test]
fn sin_and_cos_take_turns() {
    // R700 SIN/COS: the angle in turns, [-0.5, 0.5) (docs/sim-r700.md §2.5).
    let c = ff(&[(0.25, 0.0), (-0.25, 0.0), (0.5, 0.0), (0.125, 0.0)]);
    let s = floats(&op2_cases(Op2::Sin, &c));
    let co = floats(&op2_cases(Op2::Cos, &c));
    let want_s = [1.0, -1.0, 0.0, std::f32::consts::FRAC_1_SQRT_2];
    let want_c = [0.0, 0.0, -1.0, std::f32::consts::FRAC_1_SQRT_2];
    for k in 0..4 {
        assert!((s[k] - want_s[k]).abs() < 1e-6, "sin {k}: {}", s[k]);
        assert!((co[k] - want_c[k]).abs() < 1e-6, "cos {k}: {}", co[k]);
    }
}

#[test]
fn op3_muladd_forms_and_conditional_moves() {
    let c = |a: f32, b: f32, d: f32| (f(a), f(b), f(d));
    let cases = [c(2.0, 3.0, 1.0), c(0.0, INF, 1.0), c(-1.0, 4.0, 0.5)];
    assert_eq!(floats(&op3_cases(Op3::Muladd, &cases)), [7.0, 1.0, -3.5]);
    assert_eq!(floats(&op3_cases(Op3::MuladdM2, &cases)), [14.0, 2.0, -7.0]);
    assert_eq!(
        floats(&op3_cases(Op3::MuladdM4, &cases)),
        [28.0, 4.0, -14.0]
    );
    assert_eq!(floats(&op3_cases(Op3::MuladdD2, &cases)), [3.5, 0.5, -1.75]);
    let ieee = floats(&op3_cases(Op3::MuladdIeee, &cases));
    assert_eq!(ieee[0], 7.0);
    assert!(ieee[1].is_nan());
    let sel = [
        c(0.0, 1.0, 2.0),
        c(-0.0, 1.0, 2.0),
        c(0.5, 1.0, 2.0),
        c(-0.5, 1.0, 2.0),
    ];
    assert_eq!(floats(&op3_cases(Op3::Cnde, &sel)), [1.0, 1.0, 2.0, 2.0]);
    assert_eq!(floats(&op3_cases(Op3::Cndgt, &sel)), [2.0, 2.0, 1.0, 2.0]);
    assert_eq!(floats(&op3_cases(Op3::Cndge, &sel)), [1.0, 1.0, 1.0, 2.0]);
    let i = [(0, 1, 2), (u32::MAX, 1, 2), (5, 1, 2)];
    assert_eq!(op3_cases(Op3::CndeInt, &i), [1, 2, 2]);
    assert_eq!(op3_cases(Op3::CndgtInt, &i), [2, 2, 1]);
    assert_eq!(op3_cases(Op3::CndgeInt, &i), [1, 2, 1]);
    // MUL_LIT: −MAX_FLOAT when src2 <= 0 or src1 is −inf.
    let lit = [c(2.0, 3.0, 1.0), c(2.0, 3.0, 0.0), c(2.0, -INF, 1.0)];
    assert_eq!(
        floats(&op3_cases(Op3::MulLit, &lit)),
        [6.0, -f32::MAX, -f32::MAX]
    );
}

fn with_mods(mut i: AluInst, abs: [bool; 2], neg: [bool; 2], omod: Omod, clamp: bool) -> AluInst {
    if let AluForm::Op2(form) = &mut i.form {
        form.abs = abs;
        form.omod = omod;
        form.src[0].neg = neg[0];
        form.src[1].neg = neg[1];
    }
    i.clamp = clamp;
    i
}

#[test]
fn input_and_output_modifiers() {
    let add = AluInst::op2(Op2::Add, dst(3, X), [src(0, X), src(1, X)]);
    let run = |i: AluInst, a: f32, b: f32| -> f32 {
        let r = run_groups(
            vec![group(&[i], &[])],
            [vec![[f(a), 0, 0, 0]], vec![[f(b), 0, 0, 0]], vec![[0; 4]]],
        );
        f32::from_bits(r[0][0])
    };
    // ABS then NEG: −|−3| + 1 = −2.
    assert_eq!(
        run(
            with_mods(add, [true, false], [true, false], Omod::Off, false),
            -3.0,
            1.0
        ),
        -2.0
    );
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false, true], Omod::M2, false),
            3.0,
            1.0
        ),
        4.0
    );
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false; 2], Omod::M4, false),
            0.25,
            0.0
        ),
        1.0
    );
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false; 2], Omod::D2, false),
            3.0,
            0.0
        ),
        1.5
    );
    // OMOD before CLAMP: (0.4 + 0.2) · 2 = 1.2 → 1.0.
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false; 2], Omod::M2, true),
            0.4,
            0.2
        ),
        1.0
    );
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false; 2], Omod::Off, true),
            -5.0,
            0.0
        ),
        0.0
    );
    // NaN clamps to 0.
    assert_eq!(
        run(
            with_mods(add, [false; 2], [false; 2], Omod::Off, true),
            NAN,
            0.0
        ),
        0.0
    );
    // Modifiers do not touch integer opcodes.
    let iadd = AluInst::op2(Op2::AddInt, dst(3, X), [src(0, X), src(1, X)]);
    let r = run(
        with_mods(iadd, [true; 2], [true; 2], Omod::M2, true),
        f32::from_bits(5),
        f32::from_bits(7),
    );
    assert_eq!(r.to_bits(), 12);
}

#[test]
fn pv_and_ps_carry_the_previous_group() {
    let pv = AluSrc::new(AluSrcSel::Pv, Y);
    let ps = AluSrc::new(AluSrcSel::Ps, X);
    let g1 = group(
        &[
            AluInst::op2(Op2::Add, dst(4, Y), [src(0, X), src(1, X)]),
            AluInst::op2(Op2::RecipIeee, dst(5, Z), [src(0, Y), src(0, Y)]),
        ],
        &[],
    );
    // The second group reads the first's results through PV.y and PS.
    let g2 = group(
        &[
            AluInst::op2(Op2::Mov, dst(3, X), [pv, pv]),
            AluInst::op2(Op2::Mov, dst(3, Y), [ps, ps]),
            AluInst::op2(Op2::Mov, dst(3, Z), [src(4, Y), src(4, Y)]),
        ],
        &[],
    );
    let r = run_groups(
        vec![g1, g2],
        [
            vec![v4(2.0, 4.0, 0.0, 0.0)],
            vec![v4(3.0, 0.0, 0.0, 0.0)],
            vec![[0; 4]],
        ],
    );
    assert_eq!(f32::from_bits(r[0][0]), 5.0);
    assert_eq!(f32::from_bits(r[0][1]), 0.25);
    assert_eq!(f32::from_bits(r[0][2]), 5.0);
}

#[test]
fn a_group_reads_registers_before_it_writes_them() {
    // R0.x ← R0.y and R0.y ← R0.x in one group swap them.
    let g = group(
        &[
            AluInst::op2(Op2::Mov, dst(0, X), [src(0, Y), src(0, Y)]),
            AluInst::op2(Op2::Mov, dst(0, Y), [src(0, X), src(0, X)]),
        ],
        &[],
    );
    let g2 = group(
        &[
            AluInst::op2(Op2::Mov, dst(3, X), [src(0, X), src(0, X)]),
            AluInst::op2(Op2::Mov, dst(3, Y), [src(0, Y), src(0, Y)]),
        ],
        &[],
    );
    let r = run_groups(
        vec![g, g2],
        [vec![[1, 2, 0, 0]], vec![[0; 4]], vec![[0; 4]]],
    );
    assert_eq!(r[0][..2], [2, 1]);
}

#[test]
fn literals_and_inline_constants() {
    let g = group(
        &[
            AluInst::op2(
                Op2::Add,
                dst(3, X),
                [AluSrc::literal(X), AluSrc::inline(InlineConst::Half)],
            ),
            AluInst::op2(
                Op2::Mov,
                dst(3, Y),
                [AluSrc::literal(W), AluSrc::inline(InlineConst::Zero)],
            ),
            AluInst::op2(
                Op2::AddInt,
                dst(3, Z),
                [
                    AluSrc::inline(InlineConst::OneInt),
                    AluSrc::inline(InlineConst::MinusOneInt),
                ],
            ),
            AluInst::op2(
                Op2::Mov,
                dst(3, W),
                [
                    AluSrc::inline(InlineConst::One),
                    AluSrc::inline(InlineConst::One),
                ],
            ),
        ],
        &[f(2.0), 0, 0, f(-7.0)],
    );
    let r = run_groups(vec![g], [vec![[0; 4]], vec![[0; 4]], vec![[0; 4]]]);
    assert_eq!(r[0], [f(2.5), f(-7.0), 0, f(1.0)]);
}

fn no_write(mut i: AluInst) -> AluInst {
    if let AluForm::Op2(form) = &mut i.form {
        form.write_mask = false;
    }
    i
}

fn pred_set(op: Op2, a: AluSrc, b: AluSrc, pred: bool, exec: bool) -> AluInst {
    let mut i = no_write(AluInst::op2(op, dst(9, X), [a, b]));
    if let AluForm::Op2(form) = &mut i.form {
        form.update_pred = pred;
        form.update_exec_mask = exec;
    }
    i
}

fn sel(mut i: AluInst, p: PredSel) -> AluInst {
    i.pred_sel = p;
    i
}

#[test]
fn predicate_selects_which_lanes_write() {
    // pred = R0.x > 0; R3.x = pred ? 1 : 2 via PRED_SEL_ONE / _ZERO.
    let g1 = group(
        &[pred_set(
            Op2::PredSetgt,
            src(0, X),
            AluSrc::inline(InlineConst::Zero),
            true,
            false,
        )],
        &[],
    );
    let g2 = group(
        &[
            sel(
                AluInst::op2(
                    Op2::Mov,
                    dst(3, X),
                    [AluSrc::inline(InlineConst::One), src(0, X)],
                ),
                PredSel::One,
            ),
            sel(
                AluInst::op2(
                    Op2::Mov,
                    dst(3, Y),
                    [AluSrc::inline(InlineConst::Half), src(0, X)],
                ),
                PredSel::Zero,
            ),
        ],
        &[],
    );
    let xs = [3.0f32, -1.0, 0.0, 0.5];
    let r = run_groups(
        vec![g1, g2],
        [
            xs.iter().map(|&x| v4(x, 0.0, 0.0, 0.0)).collect(),
            vec![[0; 4]; 4],
            vec![[0; 4]; 4],
        ],
    );
    let got: Vec<[f32; 2]> = r
        .iter()
        .map(|v| [f32::from_bits(v[0]), f32::from_bits(v[1])])
        .collect();
    assert_eq!(got, [[1.0, 0.0], [0.0, 0.5], [0.0, 0.5], [1.0, 0.0]]);
}

#[test]
fn pred_set_results_are_counters() {
    // execute → 0.0, skip → 1.0; PUSH forms: s0 + 1 on skip.
    let r = op2_cases(Op2::PredSetge, &ff(&[(1.0, 2.0), (2.0, 1.0)]));
    assert_eq!(floats(&r), [1.0, 0.0]);
    let r = op2_cases(
        Op2::PredSetgtPush,
        &ff(&[(0.0, 1.0), (0.0, -1.0), (2.0, 1.0)]),
    );
    assert_eq!(floats(&r), [0.0, 1.0, 3.0]);
    let r = op2_cases(
        Op2::PredSetltPushInt,
        &[(0, u32::MAX), (0, 1), (4, u32::MAX)],
    );
    assert_eq!(r, [0, 1, 5]);
    assert_eq!(
        floats(&op2_cases(Op2::PredSetClr, &ff(&[(1.0, 1.0)]))),
        [f32::MAX]
    );
    assert_eq!(
        floats(&op2_cases(Op2::PredSetPop, &ff(&[(5.0, 2.0), (1.0, 2.0)]))),
        [3.0, 0.0]
    );
    assert_eq!(
        floats(&op2_cases(
            Op2::PredSetInv,
            &ff(&[(1.0, 0.0), (0.0, 0.0), (3.0, 0.0)])
        )),
        [0.0, 1.0, 3.0]
    );
}

#[test]
fn execute_mask_update_disables_exports() {
    // PRED_SETGT with UPDATE_EXECUTE_MASK: lanes with R0.x <= 0 are off
    // after the clause and export nothing (zeros).
    let g1 = group(
        &[
            AluInst::op2(Op2::Mov, dst(3, X), [src(0, X), src(0, X)]),
            pred_set(
                Op2::PredSetgt,
                src(0, X),
                AluSrc::inline(InlineConst::Zero),
                false,
                true,
            ),
        ],
        &[],
    );
    let xs = [3.0f32, -1.0, 2.0];
    let r = run_groups(
        vec![g1],
        [
            xs.iter().map(|&x| v4(x, 0.0, 0.0, 0.0)).collect(),
            vec![[0; 4]; 3],
            vec![[0; 4]; 3],
        ],
    );
    assert_eq!(
        r.iter().map(|v| f32::from_bits(v[0])).collect::<Vec<_>>(),
        [3.0, 0.0, 2.0]
    );
}

#[test]
fn kill_drops_the_pixel() {
    let g = group(
        &[
            AluInst::op2(Op2::Mov, dst(3, X), [src(0, X), src(0, X)]),
            no_write(AluInst::op2(
                Op2::Killgt,
                dst(9, Y),
                [src(0, X), AluSrc::inline(InlineConst::One)],
            )),
        ],
        &[],
    );
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![vec![g]],
    );
    let xs: Vec<[u32; 4]> = [0.5f32, 2.0, 1.0, 7.0]
        .iter()
        .map(|&x| v4(x, 0.0, 0.0, 0.0))
        .collect();
    let r = run_raw(p, 4, vec![(0, xs)], &[]);
    assert_eq!(r.faults, vec![]);
    let e = &r.exports[&(ctm_sim::r700::ExportKind::Pixel, 0)];
    assert_eq!(e[0], Some(v4(0.5, 0.0, 0.0, 0.0)));
    assert_eq!(e[1], None);
    assert_eq!(e[2], Some(v4(1.0, 0.0, 0.0, 0.0)));
    assert_eq!(e[3], None);
    assert_eq!(r.stats.discarded, 2);
}

fn rel(mut s: AluSrc) -> AluSrc {
    s.rel = true;
    s
}

#[test]
fn mova_int_and_ar_relative_reads_and_writes() {
    // AR.x = R0.x (int); R3.x = R(4 + AR.x).x; R(8 + AR.x).y = 5.0 → R3.y
    // reads it back when AR.x = 0.
    let mova = no_write(AluInst::op2(
        Op2::MovaInt,
        dst(0, X),
        [src(0, X), src(0, X)],
    ));
    let nop = AluInst::op2(Op2::Nop, dst(0, X), [src(0, X), src(0, X)]);
    let read = AluInst::op2(Op2::Mov, dst(3, X), [rel(src(4, X)), rel(src(4, X))]);
    let mut write = AluInst::op2(
        Op2::Mov,
        dst(8, Y),
        [AluSrc::literal(X), AluSrc::inline(InlineConst::Zero)],
    );
    write.dst.rel = true;
    let back = AluInst::op2(Op2::Mov, dst(3, Y), [src(8, Y), src(8, Y)]);
    let groups = vec![
        group(&[mova], &[]),
        group(&[nop], &[]),
        group(&[read, write], &[f(5.0)]),
        group(&[back], &[]),
    ];
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![groups],
    );
    let idx: Vec<[u32; 4]> = (0..4).map(|i| [i, 0, 0, 0]).collect();
    let mut regs = vec![(0, idx)];
    for g in 4..8u32 {
        regs.push((g, vec![v4(g as f32 * 10.0, 0.0, 0.0, 0.0); 4]));
    }
    let r = run_raw(p, 4, regs, &[]);
    assert_eq!(r.faults, vec![]);
    let got = pixels(&r, 0);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(v[0], (4 + i) as f32 * 10.0, "lane {i}");
        assert_eq!(v[1], if i == 0 { 5.0 } else { 0.0 }, "lane {i}");
    }
}

#[test]
fn mova_clamps_to_nine_bits() {
    let mova = no_write(AluInst::op2(Op2::Mova, dst(0, X), [src(0, X), src(0, X)]));
    let nop = AluInst::op2(Op2::Nop, dst(0, X), [src(0, X), src(0, X)]);
    // Out-of-range relative reads give GPR0: AR.x = −256 → R(4−256) → R0.
    let read = AluInst::op2(Op2::Mov, dst(3, X), [rel(src(4, X)), rel(src(4, X))]);
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![vec![
            group(&[mova], &[]),
            group(&[nop], &[]),
            group(&[read], &[]),
        ]],
    );
    let xs: Vec<[u32; 4]> = [1.4f32, 1.5, 300.0, -1000.0]
        .iter()
        .map(|&x| v4(x, 0.0, 0.0, 0.0))
        .collect();
    let mut regs = vec![(0, xs)];
    for g in 1..8u32 {
        regs.push((g, vec![v4(g as f32, 0.0, 0.0, 0.0); 4]));
    }
    let r = run_raw(p, 4, regs, &[]);
    assert_eq!(r.faults, vec![]);
    let got: Vec<f32> = pixels(&r, 0).iter().map(|v| v[0]).collect();
    // floor(1.4 + 0.5) = 1 → R5; floor(1.5 + 0.5) = 2 → R6; 300 and −1000 → −256 → R0.x.
    assert_eq!(got, [5.0, 6.0, 300.0, -1000.0]);
}

#[test]
fn dot4_max4_and_cube_use_four_slots() {
    let red = |op: Op2| -> Vec<AluInst> {
        [X, Y, Z, W]
            .iter()
            .map(|&c| AluInst::op2(op, dst(3, c), [src(0, c), src(1, c)]))
            .collect()
    };
    let a = vec![v4(1.0, 2.0, 3.0, 4.0), v4(0.0, -5.0, 1.0, 0.5)];
    let b = vec![v4(2.0, 0.5, -1.0, 0.25), v4(f32::INFINITY, 1.0, 1.0, 2.0)];
    let r = run_groups(
        vec![group(&red(Op2::Dot4), &[])],
        [a.clone(), b.clone(), vec![[0; 4]; 2]],
    );
    // 2 + 1 − 3 + 1 = 1; DX9: 0 · inf = 0 → −5 + 1 + 1 = −3.
    assert_eq!(r[0], [f(1.0); 4]);
    assert_eq!(r[1], [f(-3.0); 4]);
    let r = run_groups(vec![group(&red(Op2::Max4), &[])], [a, b, vec![[0; 4]; 2]]);
    assert_eq!(r[0], [f(4.0); 4]);
    assert_eq!(r[1], [f(1.0); 4]);
    // CUBE of (x, y, z) = (0.5, −2, 1): major axis −y → face 3, 2·ma = −4.
    let (x, y, z) = (0.5f32, -2.0f32, 1.0f32);
    let s0 = [z, z, x, y];
    let s1 = [y, x, z, z];
    let r = run_groups(
        vec![group(&red(Op2::Cube), &[])],
        [
            vec![v4(s0[0], s0[1], s0[2], s0[3])],
            vec![v4(s1[0], s1[1], s1[2], s1[3])],
            vec![[0; 4]],
        ],
    );
    assert_eq!(r[0], [f(-z), f(x), f(-4.0), f(3.0)]);
}

#[test]
fn kcache_and_constant_file_reads() {
    use ctm_sim::r700::{Config, Launch, Machine};
    let kc = |i: u32| AluSrc::new(AluSrcSel::Kcache0(KcacheIndex::new(i).unwrap()), Z);
    let g = group(&[AluInst::op2(Op2::Add, dst(3, X), [kc(3), kc(17)])], &[]);
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(3, 0, true)],
        vec![vec![g]],
    );
    let consts: Vec<(u32, [u32; 4])> = (0..32).map(|i| (i, v4(0.0, 0.0, i as f32, 0.0))).collect();
    let r = Machine::new(Config::default()).run(&Launch::raw(p, 2, vec![], &consts));
    assert_eq!(r.faults, vec![]);
    assert_eq!(pixels(&r, 0)[1][0], 20.0);
    // The constant file (DX9 mode) sees the same cb0 elements in a raw run.
    let c = |i: u8| AluSrc::new(AluSrcSel::Cfile(i), Z);
    let g = group(&[AluInst::op2(Op2::Add, dst(3, X), [c(5), c(200)])], &[]);
    let mut cfa = cf_alu(CfAluOp::Alu, 0, 0);
    if let CfInst::Alu(a) = &mut cfa {
        a.kcache = [Kcache::default(); 2];
    }
    let p = program(vec![cfa, export_done(3, 0, true)], vec![vec![g]]);
    let consts: Vec<(u32, [u32; 4])> = (0..256).map(|i| (i, v4(0.0, 0.0, i as f32, 0.0))).collect();
    let r = Machine::new(Config::default()).run(&Launch::raw(p, 1, vec![], &consts));
    assert_eq!(r.faults, vec![]);
    assert_eq!(pixels(&r, 0)[0][0], 205.0);
}
