//! ALU semantics from the CTM guide's own tables: inline constants
//! (§3.3.1), presubtract (§3.3.2), swizzles and modifiers (§3.3.3), the
//! operations (§3.3.4), output modifiers, `OMOD_DISABLED` and clamp
//! (§3.3.5), write masks and predication (§3.3.6, §3.3.9), the special
//! values of §3.6.1–§3.6.3. Expected values are the manual's or computed
//! independently with plain f32/f64 arithmetic.

mod x1k_dpp_common;

use ctm_backend_x1k::isa::InlineConst;
use x1k_dpp_common::*;

const NAN_STD: u32 = 0x7FFF_FFFF;
const NEG_ZERO: u32 = 0x8000_0000;

/// `out o0 = OP(c0, c1, c2)` on both units, returning o0's bits.
fn op3(rgb: &str, alpha: &str, c: &[[f32; 4]]) -> [u32; 4] {
    let text = format!("out o0.rgb = {rgb} ; o0.a = {alpha} ; s0=c0 s1=c1 s2=c2");
    target_bits(&run1(&text, &consts(c)), 0)
}

fn splat(x: f32) -> [f32; 4] {
    [x; 4]
}

#[test]
fn inline_constants_follow_the_table() {
    // CTM §3.3.1: 4-bit exponent (bias 7), 3-bit mantissa, denormals for
    // exponent 0, and code 0 = 2^-10.
    let table = [
        (0x00u32, 2f32.powi(-10)),
        (0x01, 2f32.powi(-9)),
        (0x02, 2f32.powi(-8)),
        (0x04, 2f32.powi(-7)),
        (0x08, 2f32.powi(-6)),
        (0x38, 1.0),
        (0x78, 256.0),
        (0x7F, 480.0),
    ];
    for (code, value) in table {
        let k = InlineConst::new(code).unwrap();
        let text = format!(
            "out o0.rgb = max(s0.rgb, s0.rgb) omod_off ; o0.a = max(s0.a, s0.a) omod_off ; s0={k}"
        );
        assert_eq!(
            target(&run1(&text, &consts(&[])), 0),
            [value; 4],
            "code {code:#x}"
        );
    }
    // Every code against the format's formula.
    for code in 0..128u32 {
        let (e, m) = (code >> 3, code & 7);
        let expected = match (e, m) {
            (0, 0) => 2f64.powi(-10),
            (0, m) => f64::from(m) * 2f64.powi(-9),
            (e, m) => (1.0 + f64::from(m) / 8.0) * 2f64.powi(e as i32 - 7),
        } as f32;
        let k = InlineConst::new(code).unwrap();
        let text = format!("out o0.rgb = max(s0.rgb, s0.rgb) omod_off ; _ ; s0={k}");
        assert_eq!(
            target(&run1(&text, &consts(&[])), 0)[0],
            expected,
            "code {code:#x}"
        );
    }
}

#[test]
fn mad_special_values_table() {
    // CTM §3.6.2 multiplication table, as A·B + (-0) so the adder keeps the
    // product's sign.
    let inf = f32::INFINITY;
    let mul = |a: f32, b: f32| {
        op3(
            "mad(s0.rgb, s1.rgb, -s0.000)",
            "mad(s0.a, s1.a, -s0.0)",
            &[splat(a), splat(b)],
        )[0]
    };
    assert_eq!(mul(3.0, f32::NAN), NAN_STD);
    assert_eq!(mul(0.0, inf), NAN_STD);
    assert_eq!(mul(inf, inf), inf.to_bits());
    assert_eq!(mul(inf, -inf), (-inf).to_bits());
    assert_eq!(mul(0.0, -0.0), NEG_ZERO);
    // Addition table, as A·1 + C.
    let add = |a: f32, c: f32| {
        op3(
            "mad(s0.rgb, s0.111, s2.rgb)",
            "mad(s0.a, s0.1, s2.a)",
            &[splat(a), splat(0.0), splat(c)],
        )[0]
    };
    assert_eq!(add(3.0, f32::NAN), NAN_STD);
    assert_eq!(add(inf, -inf), NAN_STD);
    assert_eq!(add(inf, inf), inf.to_bits());
    assert_eq!(add(inf, -1.0), inf.to_bits());
    assert_eq!(add(0.0, -0.0), 0);
    assert_eq!(add(-0.0, -0.0), NEG_ZERO);
    // CTM §3.6.1: "0 * 0 + r1" and "r0 * 1 + 0" do not copy -0; "-0 * 0 + r1" does.
    assert_eq!(
        op3(
            "mad(s0.000, s0.000, s0.rgb)",
            "mad(s0.0, s0.0, s0.a)",
            &[splat(-0.0)]
        )[0],
        0
    );
    assert_eq!(
        op3(
            "mad(s0.rgb, s0.111, s0.000)",
            "mad(s0.a, s0.1, s0.0)",
            &[splat(-0.0)]
        )[0],
        0
    );
    assert_eq!(
        op3(
            "mad(-s0.000, s0.000, s0.rgb)",
            "mad(-s0.0, s0.0, s0.a)",
            &[splat(-0.0)]
        )[0],
        NEG_ZERO
    );
}

#[test]
fn extra_range_and_denormal_flush() {
    // CTM §3.6.2: a MAD beyond the finite range brought back by the output
    // modifier stays finite; a denormal intermediate ×8 becomes normal.
    let big = 2f32.powi(127);
    let r = op3(
        "mad(s0.rgb, s1.rgb, s0.000) d8",
        "mad(s0.a, s1.a, s0.0) d8",
        &[splat(big), splat(4.0)],
    );
    assert_eq!(f32::from_bits(r[0]), 2f32.powi(126));
    let r = op3(
        "mad(s0.rgb, s1.rgb, s0.000)",
        "mad(s0.a, s1.a, s0.0)",
        &[splat(big), splat(4.0)],
    );
    assert_eq!(f32::from_bits(r[0]), f32::INFINITY);
    let (a, b) = (2f32.powi(-63), 2f32.powi(-64)); // product 2^-127: denormal
    let r = op3(
        "mad(s0.rgb, s1.rgb, s0.000) x8",
        "mad(s0.a, s1.a, s0.0) x8",
        &[splat(a), splat(b)],
    );
    assert_eq!(f32::from_bits(r[0]), 2f32.powi(-124));
    let r = op3(
        "mad(s0.rgb, s1.rgb, s0.000)",
        "mad(s0.a, s1.a, s0.0)",
        &[splat(a), splat(b)],
    );
    assert_eq!(r[0], 0, "denormal result flushed");
    // Denormal inputs are flushed (sign kept): -denormal · 1 + (-0) = -0.
    let tiny = f32::from_bits(0x8000_0001);
    let r = op3(
        "mad(s0.rgb, s0.111, -s0.000)",
        "mad(s0.a, s0.1, -s0.0)",
        &[splat(tiny)],
    );
    assert_eq!(r[0], NEG_ZERO);
}

#[test]
fn transcendentals_keep_no_extra_range() {
    // CTM §3.6.3: overflow is inf and underflow zero even if OMOD would
    // bring the value back.
    let text = "out o0.rgb = sop() d2 ; o0.a = ex2(s0.a) d2 ; s0=c0";
    let r = run1(text, &consts(&[splat(128.0)]));
    assert_eq!(target(&r, 0), [f32::INFINITY; 4]);
    let text = "out o0.rgb = sop() x8 ; o0.a = ex2(s0.a) x8 ; s0=c0";
    let r = run1(text, &consts(&[splat(-127.0)]));
    assert_eq!(target_bits(&r, 0), [0; 4]);
}

#[test]
fn transcendental_special_value_table() {
    // CTM §3.6.3, one row per input: EX2 LN2 RCP RSQ SIN COS.
    let inf = f32::INFINITY;
    let rows: [(f32, [f32; 6]); 5] = [
        (0.0, [1.0, -inf, inf, inf, 0.0, 1.0]),
        (-0.0, [1.0, -inf, -inf, inf, -0.0, 1.0]),
        (inf, [inf, inf, 0.0, 0.0, f32::NAN, f32::NAN]),
        (-inf, [0.0, f32::NAN, -0.0, f32::NAN, f32::NAN, f32::NAN]),
        (f32::NAN, [f32::NAN; 6]),
    ];
    let ops = ["ex2", "ln2", "rcp", "rsq", "sin", "cos"];
    for (input, expected) in rows {
        for (op, want) in ops.iter().zip(expected) {
            let text = format!("out o0.rgb = sop() ; o0.a = {op}(s0.a) ; s0=c0");
            let got = target_bits(&run1(&text, &consts(&[splat(input)])), 0);
            let want = if want.is_nan() {
                NAN_STD
            } else {
                want.to_bits()
            };
            assert_eq!(got, [want; 4], "{op}({input})");
        }
    }
}

#[test]
fn transcendental_values() {
    // Independent references: sqrt, log2, powers.
    let cases: [(&str, f32, f32); 7] = [
        ("ex2", 0.5, 2f64.sqrt() as f32),
        ("ln2", 3.0, 3f64.log2() as f32),
        ("rcp", 3.0, (1.0f64 / 3.0) as f32),
        ("rsq", 2.0, 0.5f64.sqrt() as f32),
        ("sin", 0.125, 0.5f64.sqrt() as f32),
        ("cos", 1.0 / 6.0, 0.5),
        ("sin", 0.5, 0.0),
    ];
    for (op, x, want) in cases {
        let text = format!("out o0.rgb = sop() ; o0.a = {op}(s0.a) ; s0=c0");
        let got = target(&run1(&text, &consts(&[splat(x)])), 0)[3];
        assert!(
            (got - want).abs() <= want.abs() * 2f32.powi(-22),
            "{op}({x}) = {got}, want {want}"
        );
    }
}

#[test]
fn omod_disabled_is_bit_exact() {
    // CTM §3.3.5: MIN(s,s), MAX(s,s), CND(s,s,0), CMP(s,s,0) with
    // OMOD_DISABLED copy any bits; with an output modifier NaN is
    // standardised and denormals flushed.
    let specials = [
        0x7FC0_1234u32,
        0xFF80_0001,
        0x0000_0001,
        0x8000_0001,
        NEG_ZERO,
        0x3F80_0000,
    ];
    for bits in specials {
        let c = [splat(f32::from_bits(bits))];
        for (rgb, alpha) in [
            ("min(s0.rgb, s0.rgb)", "min(s0.a, s0.a)"),
            ("max(s0.rgb, s0.rgb)", "max(s0.a, s0.a)"),
            ("cnd(s0.rgb, s0.rgb, s0.000)", "cnd(s0.a, s0.a, s0.0)"),
            ("cmp(s0.rgb, s0.rgb, s0.000)", "cmp(s0.a, s0.a, s0.0)"),
        ] {
            let exact = op3(&format!("{rgb} omod_off"), &format!("{alpha} omod_off"), &c);
            assert_eq!(exact, [bits; 4], "{rgb} of {bits:#x}");
            let modified = op3(rgb, alpha, &c);
            let x = f32::from_bits(bits);
            let want = if x.is_nan() {
                NAN_STD
            } else if x.is_subnormal() {
                bits & 0x8000_0000
            } else {
                bits
            };
            assert_eq!(modified, [want; 4], "{rgb} x1 of {bits:#x}");
        }
    }
    // OMOD_DISABLED ignores clamp (CTM §3.3.5).
    let r = op3(
        "max(s0.rgb, s0.rgb) omod_off sat",
        "max(s0.a, s0.a) omod_off sat",
        &[splat(7.0)],
    );
    assert_eq!(r, [7f32.to_bits(); 4]);
}

#[test]
fn min_max_nan_and_zero_rules() {
    // CTM §3.6.2: NaN or two zeros return the second argument.
    let nan = f32::from_bits(0x7FC0_0042);
    let cases: [(&str, f32, f32, u32); 10] = [
        ("min", 0.0, -0.0, NEG_ZERO),
        ("min", -0.0, 0.0, 0),
        ("max", 0.0, -0.0, NEG_ZERO),
        ("max", -0.0, 0.0, 0),
        ("min", nan, 1.0, 1f32.to_bits()),
        ("min", 1.0, nan, nan.to_bits()),
        ("max", nan, 1.0, 1f32.to_bits()),
        ("max", 1.0, nan, nan.to_bits()),
        ("min", f32::NEG_INFINITY, 1.0, f32::NEG_INFINITY.to_bits()),
        ("max", f32::INFINITY, -1.0, f32::INFINITY.to_bits()),
    ];
    for (op, a, b, want) in cases {
        let r = op3(
            &format!("{op}(s0.rgb, s1.rgb) omod_off"),
            &format!("{op}(s0.a, s1.a) omod_off"),
            &[splat(a), splat(b)],
        );
        assert_eq!(r, [want; 4], "{op}({a}, {b})");
    }
    // Denormals compare as zero: MIN(denormal, +0) is the second argument.
    let r = op3(
        "min(s0.rgb, s1.rgb) omod_off",
        "min(s0.a, s1.a) omod_off",
        &[splat(f32::from_bits(1)), splat(0.0)],
    );
    assert_eq!(r, [0; 4]);
}

#[test]
fn cnd_cmp_rules() {
    // CTM §3.3.4 CND: C > 0.5 ? A : B; CMP: C >= 0 ? A : B; NaN C gives B;
    // ±0 (and denormals) are zero (CTM §3.6.2).
    let (a, b) = (1.0f32, 2.0f32);
    let cmp_cases = [
        (-0.0, a),
        (0.0, a),
        (f32::from_bits(0x8000_0001), a),
        (-1.0, b),
        (f32::NAN, b),
        (f32::NEG_INFINITY, b),
        (f32::INFINITY, a),
    ];
    for (c, want) in cmp_cases {
        let r = op3(
            "cmp(s0.rgb, s1.rgb, s2.rgb)",
            "cmp(s0.a, s1.a, s2.a)",
            &[splat(a), splat(b), splat(c)],
        );
        assert_eq!(r, [want.to_bits(); 4], "cmp c={c}");
    }
    let cnd_cases = [
        (0.5, b),
        (0.500_001, a),
        (f32::NAN, b),
        (f32::INFINITY, a),
        (-3.0, b),
    ];
    for (c, want) in cnd_cases {
        let r = op3(
            "cnd(s0.rgb, s1.rgb, s2.rgb)",
            "cnd(s0.a, s1.a, s2.a)",
            &[splat(a), splat(b), splat(c)],
        );
        assert_eq!(r, [want.to_bits(); 4], "cnd c={c}");
    }
}

#[test]
fn presubtract_ops() {
    // CTM §3.3.2: BIAS 1-2·s0, SUB s1-s0, ADD s1+s0, INV 1-s0; RGB and
    // alpha have their own op.
    let c0 = [3.0f32, 0.25, -1.0, 2.0];
    let c1 = [5.0f32, 1.0, 0.5, 8.0];
    type Presub = fn(f32, f32) -> f32;
    let ops: [(&str, Presub); 4] = [
        ("bias", |s0, _| 1.0 - 2.0 * s0),
        ("sub", |s0, s1| s1 - s0),
        ("add", |s0, s1| s1 + s0),
        ("inv", |s0, _| 1.0 - s0),
    ];
    for (name, f) in ops {
        let r = op3(
            &format!("max(sp.rgb, sp.rgb) omod_off srcp={name}"),
            &format!("max(sp.a, sp.a) omod_off srcp={name}"),
            &[c0, c1],
        );
        let want: [u32; 4] = std::array::from_fn(|i| f(c0[i], c1[i]).to_bits());
        assert_eq!(r, want, "{name}");
    }
}

#[test]
fn swizzles_modifiers_and_source_assembly() {
    let c0 = [-2.0f32, 3.0, -0.0, 5.0];
    // Constant swizzles 0, ½, 1 and per-channel selection (CTM §3.3.3).
    let r = op3(
        "max(s0.h01, s0.h01) omod_off",
        "max(s0.r, s0.r) omod_off",
        &[c0],
    );
    assert_eq!(r, [0.5f32.to_bits(), 0, 1f32.to_bits(), (-2f32).to_bits()]);
    // Input modifiers: NEG, ABS, NAB on the bits.
    let r = op3(
        "max(|s0.rgb|, |s0.rgb|) omod_off",
        "max(-s0.a, -s0.a) omod_off",
        &[c0],
    );
    assert_eq!(r, [2f32.to_bits(), 3f32.to_bits(), 0, (-5f32).to_bits()]);
    let r = op3(
        "max(-|s0.rgb|, -|s0.rgb|) omod_off",
        "max(-s0.b, -s0.b) omod_off",
        &[c0],
    );
    assert_eq!(r, [(-2f32).to_bits(), (-3f32).to_bits(), NEG_ZERO, 0]);
    // src0 = {rgb_addr0.rgb, alpha_addr0.a}: an RGB swizzle of A reads the
    // alpha address, an alpha swizzle of R reads the RGB address.
    let text =
        "out o0.rgb = max(s0.aaa, s0.aaa) omod_off ; o0.a = max(s0.r, s0.r) omod_off ; s0=c0|c1";
    let r = run1(text, &consts(&[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]));
    assert_eq!(target(&r, 0), [8.0, 8.0, 8.0, 1.0]);
}

#[test]
fn dot_products_frc_and_copies() {
    let a = [1.5f32, -2.0, 3.0, 0.5];
    let b = [4.0f32, 0.25, -1.0, 8.0];
    let dp3 = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).to_bits();
    let dp4 = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]).to_bits();
    // DP3 broadcast; alpha DP copies the dot product (CTM §3.3.4).
    assert_eq!(
        op3("dp3(s0.rgb, s1.rgb)", "dp(s0.a, s1.a)", &[a, b]),
        [dp3; 4]
    );
    // DP4's fourth component comes from the alpha unit's select/swizzle.
    assert_eq!(
        op3("dp4(s0.rgb, s1.rgb)", "dp(s0.a, s1.a)", &[a, b]),
        [dp4; 4]
    );
    let swapped = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[0]).to_bits();
    assert_eq!(
        op3("dp4(s0.rgb, s1.rgb)", "dp(s0.a, s1.r)", &[a, b]),
        [swapped; 4]
    );
    // D2A: A.r·B.r + A.g·B.g + C.b.
    let d2a = (a[0] * b[0] + a[1] * b[1] + 7.0).to_bits();
    assert_eq!(
        op3(
            "d2a(s0.rgb, s1.rgb, s2.rgb)",
            "dp(s0.a, s1.a)",
            &[a, b, [0.0, 0.0, 7.0, 0.0]]
        ),
        [d2a; 4]
    );
    // The cancellation rule of CTM §3.6.2: the two largest terms cancel and
    // the rest is 2^26 times smaller → +0; 2^24 times smaller → exact.
    let small = 2f32.powi(-26);
    let r = op3(
        "dp3(s0.rgb, s1.rgb)",
        "dp(s0.a, s1.a)",
        &[[1.0, 1.0, small, 0.0], [1.0, -1.0, 1.0, 0.0]],
    );
    assert_eq!(r, [0; 4]);
    let small = 2f32.powi(-24);
    let r = op3(
        "dp3(s0.rgb, s1.rgb)",
        "dp(s0.a, s1.a)",
        &[[1.0, 1.0, small, 0.0], [1.0, -1.0, 1.0, 0.0]],
    );
    assert_eq!(r, [small.to_bits(); 4]);
    // FRC: A - floor(A).
    let r = op3(
        "frc(s0.rgb)",
        "frc(s0.a)",
        &[[-1.25, 3.5, -0.0, f32::INFINITY]],
    );
    assert_eq!(r, [0.75f32.to_bits(), 0.5f32.to_bits(), 0, NAN_STD]);
}

#[test]
fn output_modifiers_and_clamp() {
    let mods = [
        ("x1", 3.0f32),
        ("x2", 6.0),
        ("x4", 12.0),
        ("x8", 24.0),
        ("d2", 1.5),
        ("d4", 0.75),
        ("d8", 0.375),
    ];
    for (m, want) in mods {
        let r = op3(
            &format!("mad(s0.rgb, s0.111, s0.000) {m}"),
            &format!("mad(s0.a, s0.1, s0.0) {m}"),
            &[splat(3.0)],
        );
        assert_eq!(r, [want.to_bits(); 4], "{m}");
    }
    // Clamp after the modifier (CTM §3.3.5).
    let r = op3(
        "mad(s0.rgb, s0.111, s0.000) x2 sat",
        "mad(s0.a, s0.1, s0.0) sat",
        &[[0.75, -2.0, 0.25, 1.5]],
    );
    assert_eq!(r, [1f32.to_bits(), 0, 0.5f32.to_bits(), 1f32.to_bits()]);
}

#[test]
fn write_masks_and_predication() {
    let mem = consts(&[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 5.0, -2.0]]);
    // Write masks: only R and B of r1, and A.
    let text = format!(
        "alu r1.rb = max(s0.rgb, s0.rgb) ; r1.a = max(s0.a, s0.a) ; s0=c0\n{}",
        out_reg(1)
    );
    assert_eq!(target(&run1(&text, &mem), 0), [1.0, 0.0, 3.0, 4.0]);
    // Predicates from c1 with <0: bits R and A set. Per-channel (RGBA),
    // replicated and inverted predication of temporary writes.
    let text = "alu p.rgb<0 = max(s0.rgb, s0.rgb) ; p.a<0 = max(s0.a, s0.a) ; s0=c1
         alu r1.rgb = max(s0.rgb, s0.rgb) pred=p.rgba ; r1.a = max(s0.a, s0.a) pred=!p.rgba ; s0=c0
         alu r2.rgb = max(s0.rgb, s0.rgb) pred=p.aaaa ; r2.a = max(s0.a, s0.a) pred=!p.rrrr ; s0=c0
         alu r3.rgb = max(s0.rgb, s0.rgb) pred=!p.rrrr ; _ ; s0=c0
         out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r1
         out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.a, s0.a) ; s0=r2
         out o2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r3 sem_wait";
    let r = run1(text, &mem);
    assert_eq!(target(&r, 0), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(target(&r, 1), [1.0, 2.0, 3.0, 0.0]);
    assert_eq!(target(&r, 2), [0.0, 0.0, 0.0, 0.0]);
    // CTM §3.3.9 example: predicate 0x7, temp and predicate masks 0xF:
    // only R, G, B of the temporary are written, all four predicate bits are.
    let text = "alu p.rgb>=0 = max(s0.111, s0.111) ; p.a<0 = max(s0.1, s0.1) ; s0=c0
         alu r1.rgb = max(s0.rgb, s0.rgb) pred=p.rgba ; r1.a = max(s0.a, s0.a) pred=p.rgba ; s0=c0
         alu p.rgb<0 = max(-s0.111, -s0.111) pred=p.rgba ; p.a<0 = max(-s0.1, -s0.1) pred=p.rgba ; s0=c0
         out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r1
         out o1.rgb = max(s0.111, s0.111) pred=p.rgba ; o1.a = max(s0.1, s0.1) pred=p.rgba ; s0=r1 sem_wait";
    let r = run1(text, &mem);
    assert_eq!(target(&r, 0), [1.0, 2.0, 3.0, 0.0]);
    assert_eq!(r.targets[1].unwrap().mask, 0xF);
}

#[test]
fn predicate_compare_table() {
    // CTM §3.6.1: X<0, X>=0, X==0, X!=0 for the special values.
    let rows: [(f32, [bool; 4]); 6] = [
        (0.0, [false, true, true, false]),
        (-0.0, [false, true, true, false]),
        (f32::INFINITY, [false, true, false, true]),
        (f32::NEG_INFINITY, [true, false, false, true]),
        (f32::NAN, [false, false, false, true]),
        (f32::from_bits(0x8000_0001), [false, true, true, false]),
    ];
    let text = "alu p.r<0 = max(s0.rgb, s0.rgb) omod_off ; _ ; s0=c0
         alu p.g>=0 = max(s0.rgb, s0.rgb) omod_off ; _ ; s0=c0
         alu p.b==0 = max(s0.rgb, s0.rgb) omod_off ; _ ; s0=c0
         alu _ ; p.a!=0 = max(s0.a, s0.a) omod_off ; s0=c0
         out o0.rgb = max(s0.111, s0.111) pred=p.rgba ; o0.a = max(s0.1, s0.1) pred=p.rgba ; s0=c0 sem_wait";
    for (x, want) in rows {
        let r = run1(text, &consts(&[splat(x)]));
        let mask = r.targets[0].map_or(0, |t| t.mask);
        let got: [bool; 4] = std::array::from_fn(|c| mask & (1 << c) != 0);
        assert_eq!(got, want, "x = {x} ({:#x})", x.to_bits());
    }
}

#[test]
fn zero_times_anything_mode() {
    // US_CONFIG bit 1 (x1k-encoding §10): 0 · Inf = 0.
    let mut prog = program(
        "out o0.rgb = mad(s0.rgb, s1.rgb, s0.000) ; o0.a = mad(s0.a, s1.a, s0.0) ; s0=c0 s1=c1 sem_wait",
        Mode::Partial,
    );
    prog.us_config = 2;
    let mem = consts(&[splat(0.0), splat(f32::INFINITY)]);
    let r = run(&prog, &[(0, 0)], &mem).unwrap();
    assert_eq!(target_bits(&r.results[0], 0), [0; 4]);
}

/// An OUT instruction with temporary writes (CTM §3.2's field table,
/// §3.3.6) writes both, on both engines (`run1` checks the fast engine
/// against the reference): the target gets the result now, the register
/// keeps it for a later instruction; a predicated channel is skipped in
/// both (CTM §3.3.6: the predicate gates the write mask and the output
/// mask).
#[test]
fn an_out_instruction_writes_its_temporaries_too() {
    let mem = consts(&[[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]]);
    let text = "out r1.rgb, o1.rgb = mad(s0.rgb, s0.rgb, s1.rgb) ; r1.a, o1.a = mad(s0.a, s0.a, s1.a) ; s0=c0 s1=c1
         out o0.rgb = mad(s0.rgb, s0.111, s0.111) ; o0.a = mad(s0.a, s0.1, s0.1) ; s0=r1 sem_wait";
    let r = run1(text, &mem);
    assert_eq!(target(&r, 1), [11.0, 24.0, 39.0, 56.0]);
    assert_eq!(target(&r, 0), [12.0, 25.0, 40.0, 57.0]);
    // Different channels for the register and the target (a scalar in g
    // written to target channel r), and a transcendental: the alpha unit
    // writes the register, SOP the target.
    let text = "out r1.g, o0.r = mad(s0.ggg, s0.ggg, s0.000) ; r1.a = rcp(s0.a) ; s0=c0
         out o1.r = sop() ; r2.a = rcp(s0.g) ; s0=c0
         out o1.g = max(s0.0g0, s0.0g0) omod_off ; o1.a = max(s0.a, s0.a) omod_off ; s0=r1 sem_wait";
    let r = run1(text, &mem);
    assert_eq!(target(&r, 0)[0], 4.0);
    assert_eq!(target(&r, 1), [0.5, 4.0, 0.0, 0.25]);
    // Predicated: p.r false (c0.r − 2 < 0 is set, so `!p` skips), the
    // register and target channel both keep their old value.
    let text = "alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=c0 s1=2.0
         alu r1.r = max(s0.111, s0.111) omod_off ; _
         out r1.r, o0.r = max(s0.rrr, s0.rrr) omod_off pred=!p.rrrr ; _ ; s0=c1
         out o1.r = max(s0.rrr, s0.rrr) omod_off ; _ ; s0=r1 sem_wait";
    let r = run1(text, &mem);
    assert_eq!(r.targets[0].map_or(0, |w| w.mask) & 1, 0, "o0.r skipped");
    assert_eq!(target(&r, 1)[0], 1.0);
}
