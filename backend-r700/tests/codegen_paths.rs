//! Shorter critical paths in the selected op graph (`docs/backend-r700.md`
//! §3 "Shorter paths"): one test per pattern, each asserting the listing
//! no longer has the op the pattern removed, and that the kernel still
//! agrees with the reference interpreter on the simulator.

mod codegen_common;

use codegen_common::{TOL_EXACT, TOL_TRANSCENDENTAL, args_for, check_at, checked, compile_kernel};
use ctm_ir::passes::OptLevel;

/// The listing of `source`'s first kernel at -O2.
fn listing(source: &str) -> String {
    let program = checked(source).expect("checks");
    let exe = compile_kernel(&program, &program.kernels[0], OptLevel::O2).expect("compiles");
    ctm_backend_r700::isa::format_program(&exe.program)
}

/// The ALU instructions of a listing (mnemonic lines, no literals).
fn alu_lines(listing: &str) -> Vec<&str> {
    listing
        .lines()
        .filter(|l| {
            [" x: ", " y: ", " z: ", " w: ", " t: "]
                .iter()
                .any(|u| l.contains(u))
        })
        .collect()
}

fn count(listing: &str, mnemonic: &str) -> usize {
    alu_lines(listing)
        .iter()
        .filter(|l| l.split_whitespace().any(|w| w == mnemonic))
        .count()
}

fn wide(_: &str) -> (f32, f32) {
    (-40.0, 40.0)
}

/// Runs `source` on the simulator against the reference at -O2 and -O0.
fn agrees(source: &str, tol: f32) {
    let program = checked(source).expect("checks");
    for (seed, level) in [(1, OptLevel::O2), (2, OptLevel::O2), (3, OptLevel::O0)] {
        let args = args_for(&program.kernels[0], (64, 16), seed, wide);
        if let Err(e) = check_at(&program, &args, tol, level) {
            panic!("{source}\n{e}");
        }
    }
}

#[test]
fn saturate_and_clamp_fold_into_the_producing_op() {
    let src = "kernel k(x: In<f32>, y: In<f32>, a: Out<f32>, b: Out<f32>) {\n    \
               a = saturate(x * 0.3 + y);\n    b = clamp(x * y, 0.0, 1.0);\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "MOV"), 0, "{l}");
    assert_eq!(count(&l, "MIN_DX10") + count(&l, "MAX_DX10"), 0, "{l}");
    assert_eq!(
        alu_lines(&l)
            .iter()
            .filter(|s| s.ends_with("clamp") || s.contains("clamp "))
            .count(),
        2,
        "{l}"
    );
    agrees(src, TOL_EXACT);
}

#[test]
fn a_value_read_elsewhere_keeps_its_unclamped_copy() {
    // `p` is exported unclamped too: the CLAMP must not go on its op.
    let src = "kernel k(x: In<f32>, y: In<f32>, a: Out<f32>, b: Out<f32>) {\n    \
               let p = x * y;\n    a = saturate(p);\n    b = p;\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "MOV"), 1, "{l}");
    agrees(src, TOL_EXACT);
}

#[test]
fn sin_of_a_constant_multiple_is_one_fract_before_sin() {
    // `TAU * x` folds into the reduction's 1/2π (their product rounds to
    // 1): FRACT then SIN, no multiply, no ADD of −0.5.
    let src = "const TAU: f32 = 6.2831853;\n\
               kernel k(x: In<f32>, a: Out<f32>, b: Out<f32>) {\n    \
               a = sin(TAU * x);\n    b = cos(3.0 * x);\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "ADD"), 0, "{l}");
    assert_eq!(count(&l, "MUL_IEEE"), 1, "{l}");
    assert_eq!(count(&l, "FRACT"), 2, "{l}");
    assert!(l.contains("ALU clause") && l.contains("3 groups"), "{l}");
    agrees(src, TOL_TRANSCENDENTAL);
}

#[test]
fn a_bounded_divisor_is_not_scaled() {
    // cos(x) + 2 is at most 3, sqrt(x) at most 2^64: no SETGT/CNDE
    // scaling (the divisor is kept away from cos's zeros, whose quotients
    // amplify the reduction's rounding beyond the tolerance).
    let src = "kernel k(x: In<f32>, y: In<f32>, a: Out<f32>, b: Out<f32>, c: Out<f32>) {\n    \
               a = y / (cos(x) + 2.0);\n    b = y / sqrt(abs(x));\n    c = y / x;\n}\n";
    let l = listing(src);
    // Only `y / x` is scaled: one SETGT and its two CNDEs.
    assert_eq!(count(&l, "SETGT"), 1, "{l}");
    assert_eq!(count(&l, "CNDE"), 2, "{l}");
    agrees(src, TOL_TRANSCENDENTAL);
}

#[test]
fn a_splatted_product_fuses_into_each_sum() {
    // `s * 0.01` is splatted into a vec2 sum: two MULADDs, no MUL.
    let src = "kernel k(x: In<f32>, o: Out<vec2>) {\n    o = index() + x * 0.01;\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "MUL_IEEE"), 0, "{l}");
    assert_eq!(count(&l, "MULADD_IEEE"), 2, "{l}");
    agrees(src, TOL_EXACT);
}

#[test]
fn an_absolute_addend_is_not_fused_into_op3() {
    // OP3 has no ABS (digest §2.4): `u * v − |w|` keeps the sign right.
    let src = "kernel k(x: In<f32>, y: In<f32>, o: Out<vec2>) {\n    \
               o = index() * x - abs(select(x < y, y, x - y));\n}\n";
    agrees(src, TOL_EXACT);
}

#[test]
fn gather_coordinates_use_both_element_pairs() {
    // Four gathers: their coordinates alternate between xy and zw, so the
    // eight ADDs take two groups (four vector units each) and the four
    // SAMPLEs still share one TEX clause.
    let src = "kernel k(img: In<f32>, o: Out<f32>) {\n    let p = index();\n    \
               o = img[p + vec2(1.0, 0.0)] + img[p + vec2(-1.0, 0.0)] \
               + img[p + vec2(0.0, 1.0)] + img[p + vec2(0.0, -1.0)];\n}\n";
    let l = listing(src);
    assert!(l.contains("zw00"), "{l}");
    assert!(l.contains("TEX") && l.contains("count:4"), "{l}");
    let first = l
        .lines()
        .find(|s| s.starts_with("; ALU clause"))
        .unwrap_or_default()
        .to_string();
    assert!(first.ends_with("2 groups"), "{first}\n{l}");
    agrees(src, TOL_EXACT);
}

#[test]
fn a_product_shared_by_constant_bound_sums_is_computed_once() {
    // The reduction pass's four gather coordinates `pos * block + offset`:
    // each MULADD reads two constant pairs, so only two fit a group; one
    // MUL and eight ADDs (one pair each) take three groups, not four.
    let exe = codegen_common::example("sum");
    let l = ctm_backend_r700::isa::format_program(&exe.program);
    let first = l
        .lines()
        .find(|s| s.starts_with("; ALU clause"))
        .unwrap_or_default()
        .to_string();
    assert!(first.ends_with("3 groups"), "{first}\n{l}");
    assert_eq!(count(&l, "MULADD_IEEE"), 0, "{l}");
}

#[test]
fn a_select_between_k_minus_w_and_w_moves_off_w() {
    // cnd's `if d < 0 { 1 − w } else { w }`: MULADD(±1, w, 1 or −0) with
    // both selects on d alone, one group after w instead of two (ADD, CND).
    let src = "kernel k(x: In<f32>, y: In<f32>, r: Out<f32>) {\n    \
               let w = 1.0 - x * y;\n    r = if x < 0.0 { 1.0 - w } else { w };\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "ADD"), 0, "{l}");
    assert_eq!(count(&l, "CNDGT"), 2, "{l}");
    assert_eq!(count(&l, "MULADD_IEEE"), 2, "{l}");
    agrees(src, TOL_EXACT);
    // The else value read from a stream may be a denormal (w + −0 would
    // flush it): not rewritten.
    let src = "kernel k(x: In<f32>, w: In<f32>, r: Out<f32>) {\n    \
               r = if x < 0.0 { 1.0 - w } else { w };\n}\n";
    let l = listing(src);
    assert_eq!(count(&l, "ADD"), 1, "{l}");
    agrees(src, TOL_EXACT);
}

#[test]
fn ops_between_exports_move_before_the_first() {
    // The copy of alpha into the second output used to follow the first
    // export: an ALU clause and a CF instruction of its own.
    let src = "kernel k(img: In<vec4>, gray: Out<f32>, negative: Out<vec4>) {\n    \
               gray = dot(img.rgb, vec3(0.3, 0.6, 0.1)) * 2.0;\n    \
               let mut n = img;\n    n.rgb = 1.0 - img.rgb;\n    negative = n;\n}\n";
    let l = listing(src);
    let alu_cf = l
        .lines()
        .filter(|s| !s.starts_with(';'))
        .filter(|s| {
            s.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.starts_with("ALU"))
        })
        .count();
    assert_eq!(alu_cf, 1, "{l}");
    agrees(src, TOL_EXACT);
    // After a `discard` the KILL stays the last op of its clause: nothing
    // moves (the validator's kill-not-last, random seed 986485).
    let src = "kernel k(img: In<vec4>, gray: Out<f32>, negative: Out<vec4>) {\n    \
               if img.x < 0.5 {\n        discard;\n    }\n    \
               gray = img.y * 2.0;\n    \
               let mut n = img;\n    n.rgb = 1.0 - img.rgb;\n    negative = n;\n}\n";
    let _ = listing(src);
    agrees(src, TOL_EXACT);
}
