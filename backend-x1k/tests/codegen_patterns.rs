//! One small kernel per code-quality pattern of issue 12 (`docs/quality.md`):
//! each asserts the instruction count the pattern's fix reaches (so the
//! pattern cannot come back unnoticed) and that the program still agrees
//! with the reference interpreter on random inputs.

mod codegen_common;

use codegen_common::{TOL_EXACT, TOL_TRANSCENDENTAL, args_for, check};
use ctm_backend_x1k::codegen::compile_kernel;
use ctm_backend_x1k::isa::{self, Inst};
use ctm_frontend::{CheckOptions, Target, compile};
use ctm_ir::passes::OptLevel;

/// Compiles `src` at -O2, checks it against the reference on three input
/// sets (values in -2..2), and returns its listing and ALU/OUT count.
fn compiled(src: &str, tol: f32) -> (String, usize) {
    compiled_in(src, tol, |_| (-2.0, 2.0))
}

/// [`compiled`] with the inputs and uniforms drawn from `ranges`.
fn compiled_in(src: &str, tol: f32, ranges: codegen_common::Ranges) -> (String, usize) {
    let c = compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = c.program.expect("checks");
    let k = &program.kernels[0];
    let p = compile_kernel(&program, k, OptLevel::O2, &Default::default()).expect("compiles");
    for seed in 0..3 {
        let args = args_for(k, (8, 8), seed, ranges);
        if let Err(e) = check(&program, k, &args, tol) {
            panic!("seed {seed}: {e}");
        }
    }
    let alu = p.insts.iter().filter(|i| matches!(i, Inst::Alu(_))).count();
    (isa::format_program(&p.insts), alu)
}

/// Four DP4s are the four lanes of the output: no lane copies, no copy-out.
#[test]
fn dot_products_write_the_output_lanes() {
    let (asm, alu) = compiled(
        "kernel k(m: mat4, v: In<vec4>, r: Out<vec4>) { r = v * m; }",
        TOL_EXACT,
    );
    assert_eq!(alu, 4, "{asm}");
    assert!(!asm.contains("omod_off"), "a copy is back:\n{asm}");
}

/// An output assembled from an RGB result and an alpha result is written
/// by the two ops themselves (one co-issued instruction).
#[test]
fn an_assembled_output_needs_no_copy() {
    let (asm, alu) = compiled(
        "kernel k(img: In<vec4>, n: Out<vec4>) { n = vec4(1.0 - img.rgb, img.a * 2.0); }",
        TOL_EXACT,
    );
    assert_eq!(alu, 1, "{asm}");
}

/// `f(x)` and `f(-x)` share `abs`, the square and what follows: one
/// exponential and one reciprocal (value numbering over input modifiers
/// and product signs).
#[test]
fn negated_arguments_share_their_work() {
    let (asm, _) = compiled(
        "fn g(d: f32) -> f32 { exp(-0.5 * d * d) / (1.0 + 0.25 * abs(d)) }
         kernel k(x: In<f32>, a: Out<f32>, b: Out<f32>) { a = g(x); b = g(-x); }",
        TOL_TRANSCENDENTAL,
    );
    assert_eq!(asm.matches("ex2(").count(), 1, "{asm}");
    assert_eq!(asm.matches("rcp(").count(), 1, "{asm}");
}

/// Two gather coordinates (vec2 each) are computed by one vec4 op, the
/// second read through the `.ba` swizzle (when their operands differ only
/// in lanes: `+(1, 0)` and `+(0, 1)` do, `+(1, 0)` and `−(1, 0)` do not).
#[test]
fn two_coordinates_per_op() {
    let (asm, alu) = compiled(
        "kernel k(img: In<f32>, r: Out<f32>) {
             let p = index();
             r = img[p + vec2(1.0, 0.0)] - img[p + vec2(0.0, 1.0)];
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
    assert!(asm.contains(".baaa"), "{asm}");
}

/// `p + (1, 0)` and `p − (1, 0)` pair too: their constant operands
/// become one literal `(1, 0, −1, 0)`.
#[test]
fn opposite_offsets_pair() {
    let (asm, alu) = compiled(
        "kernel k(img: In<f32>, r: Out<f32>) {
             let p = index();
             r = img[p + vec2(1.0, 0.0)] - img[p - vec2(1.0, 0.0)];
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
}

/// Neighbouring literal lanes of a constructed vector are one move, or
/// none when a product computes the vector's other lane (the literals
/// become its addend).
#[test]
fn literal_lanes_move_together() {
    let (asm, alu) = compiled(
        "kernel k(s: f32, h: In<f32>, n: Out<vec4>) {
             let t = vec3(2.0, 0.0, h * s);
             n = vec4(t * h, h * 3.0);
         }",
        TOL_EXACT,
    );
    assert!(alu <= 3, "{asm}");
    assert!(!asm.contains("omod_off"), "a literal move is back:\n{asm}");
}

/// A select on `x && y` is two selects on the comparisons' differences:
/// no 1.0/0.0 values, no MIN, no CND.
#[test]
fn a_select_on_a_conjunction_nests() {
    let (asm, alu) = compiled(
        "kernel k(x: In<f32>, y: In<f32>, r: Out<f32>) {
             r = select(x < 1.0 && y < 0.5, x, y);
         }",
        TOL_EXACT,
    );
    assert!(!asm.contains("cnd(") && !asm.contains("min("), "{asm}");
    assert!(alu <= 3, "{asm}");
}

/// Generated kernel 501234 at -O1: a DP4 computed into an alpha phi
/// register while a later op read its (RGB) result through a presubtract
/// broke the allocation checker. A value read by a presubtract stays on
/// its side (RGB or alpha) when it is computed into another register.
#[test]
fn a_presubtracted_value_keeps_its_side() {
    generated_kernel_agrees(501_234, &[OptLevel::O1, OptLevel::O2]);
}

/// Multiplications by powers of two are output modifiers of the op
/// computing their operand (CTM §3.3.5): `0.25 · sin(x)` is one `SIN`
/// with `d4`, `exp2(x) · −8` one `EX2` with `x8` read back negated, and
/// `(a·b + c) · 0.5` one MAD with `d2`.
#[test]
fn power_of_two_factors_are_output_modifiers() {
    let (asm, alu) = compiled(
        "kernel k(x: In<f32>, r: Out<f32>) { r = exp2(0.25 * sin(x)); }",
        TOL_TRANSCENDENTAL,
    );
    assert!(asm.contains("d4"), "{asm}");
    // The reduction (one MAD and an FRC), the SIN and the EX2 (with its
    // copy to the output).
    assert!(alu <= 4, "{asm}");
    let (asm, _) = compiled(
        "kernel k(x: In<f32>, r: Out<f32>) { r = exp2(exp2(x) * -8.0); }",
        TOL_TRANSCENDENTAL,
    );
    assert!(asm.contains("x8"), "{asm}");
    let (asm, alu) = compiled(
        "kernel k(a: In<vec4>, b: In<vec4>, r: Out<vec4>) { r = max((a * b + b) * 0.5, a); }",
        TOL_EXACT,
    );
    assert!(asm.contains("d2"), "{asm}");
    assert_eq!(alu, 2, "{asm}");
}

/// `clamp(x, 0, 1)` is `saturate(x)` (IR simplification), and a saturate
/// whose operand was selected earlier is the clamp bit of the op computing
/// it (CTM §3.3.5), not a `MAX` with the clamp.
#[test]
fn clamp_to_unit_range_is_the_clamp_bit() {
    let (asm, alu) = compiled(
        "kernel k(a: In<vec4>, b: In<f32>, r: Out<vec4>) { \
         let s = clamp(a.rgb * (b / max(b, 0.5)), 0.0, 1.0); r = vec4(s * s, 1.0); }",
        TOL_TRANSCENDENTAL,
    );
    assert!(!asm.contains("max(s0.rgb, s0.rgb) sat"), "{asm}");
    assert!(asm.contains("sat"), "{asm}");
    assert_eq!(alu, 5, "{asm}");
}

/// `1 − w` read by a select is the select's presubtract (CTM §3.3.2,
/// `SRCP_OP_INV`), not an op of its own: Black-Scholes' `cnd` tail.
#[test]
fn one_minus_is_a_presubtract() {
    let (asm, alu) = compiled(
        "kernel k(d: In<f32>, r: Out<f32>) { let w = exp2(d * d); \
         let v = if d < 0.0 { 1.0 - w } else { w }; r = v * d; }",
        TOL_TRANSCENDENTAL,
    );
    assert!(asm.contains("srcp=inv"), "{asm}");
    // d·d, EX2, the select, the product.
    assert_eq!(alu, 4, "{asm}");
}

/// A power-of-two factor of a product moves to the product's output
/// modifier: mandelbrot's `2·x·y` is one MAD with `x2`.
#[test]
fn power_of_two_factor_of_a_product_is_an_output_modifier() {
    let (asm, alu) = compiled(
        "kernel k(a: In<vec2>, r: Out<vec2>) { r = vec2(a.x * a.x - a.y * a.y, 2.0 * a.x * a.y); }",
        TOL_EXACT,
    );
    assert!(asm.contains("x2"), "{asm}");
    assert_eq!(alu, 2, "{asm}");
}

/// `saturate(t · −0.25)` keeps its clamp on the scaled op: moving the
/// clamp to `t`'s op and reading it negated would negate the clamped
/// value (random seed 732246: smoothstep of a negated sum).
#[test]
fn a_negative_factor_under_a_clamp_stays() {
    let (asm, _) = compiled(
        "kernel k(a: In<f32>, b: In<f32>, r: Out<f32>) { \
         let t = smoothstep(0.0, 4.0, -(a + b)); r = t * t + a; }",
        TOL_EXACT,
    );
    assert!(asm.contains("sat"), "{asm}");
}

/// Two scalar differences of four fetched values co-issue: the scheduler
/// groups two of the values into one register so that the four sources
/// take three RGB addresses (normals' `hx` and `hy`; before, two
/// instructions).
#[test]
fn scalar_ops_share_source_registers() {
    let (asm, alu) = compiled(
        "kernel k(h: In<f32>, r: Out<f32>) { let p = index(); \
         let a = h[p + vec2(1.0, 0.0)] - h[p - vec2(1.0, 0.0)]; \
         let b = h[p + vec2(0.0, 1.0)] - h[p - vec2(0.0, 1.0)]; r = a * b; }",
        TOL_EXACT,
    );
    // Two coordinate ops, the two differences, the product.
    assert_eq!(alu, 4, "{asm}");
}

/// Two MADs reading four fetched values and a uniform co-issue: five RGB
/// values fit three addresses after two joins (x, y, z in one register).
#[test]
fn five_rgb_sources_fit_after_two_joins() {
    let (asm, alu) = compiled(
        "kernel k(w: f32, x: In<f32>, y: In<f32>, z: In<f32>, u: In<f32>, r: Out<f32>) { \
         r = (x * w + y) * (z * w + u); }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
}

/// A two-lane result whose lanes are output channels b (RGB unit) and a
/// (alpha unit) is computed by the two ops writing them, co-issued,
/// instead of into a temporary copied lane by lane (bounds' `max`).
#[test]
fn lanes_copied_to_an_output_are_computed_there() {
    let (asm, alu) = compiled(
        "kernel k(a: In<vec4>, b: In<vec4>, r: Out<vec4>) { \
         r = vec4(min(a.xy, b.xy), max(a.zw, b.zw)); }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
    assert!(!asm.contains("omod_off"), "a lane copy is back:\n{asm}");
}

/// A loop-carried counter's increment is computed into the counter after
/// its last reader, not into a temporary copied back: the body's only
/// bit-exact op is the select (`k == me` skips the element).
#[test]
fn a_carried_value_is_computed_in_place() {
    let (asm, _) = compiled(
        "kernel k(n: i32, x: In<f32>, r: Out<f32>) { let mut s = 0.0; \
         let me = index().x as i32; \
         for k in 0..n { if k == me { continue; } s = s + x * (k as f32); } r = s; }",
        TOL_EXACT,
    );
    let body: String = asm
        .lines()
        .skip_while(|l| !l.contains(" rep "))
        .take_while(|l| !l.contains("endrep"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(body.matches("omod_off").count(), 1, "{asm}");
}

/// Two scalar loop-carried values take different units (their classes
/// alternate), so their updates co-issue: one ALU instruction per
/// iteration (two when both were alpha scalars).
#[test]
fn two_carried_scalars_update_in_one_instruction() {
    let (asm, _) = compiled(
        "kernel k(n: i32, x: In<f32>, r: Out<f32>) { let mut s = 0.0; let mut k = 0.0; \
         for _i in 0..n { s = s * k + x; k = k + 1.0; } r = s; }",
        TOL_EXACT,
    );
    let body = asm
        .lines()
        .skip_while(|l| !l.contains(" rep "))
        .take_while(|l| !l.contains("endrep"))
        .filter(|l| l.contains(": alu"))
        .count();
    assert_eq!(body, 1, "{asm}");
}

/// A branch result copied from a loop's carried value (collatz' step
/// count) takes the carried value's register once the loop's interval
/// ends at its ENDREP, and the copy, now moving nothing, is removed; so
/// is the identity copy of `n`'s initial value. (12 with `floor`'s `CMP`
/// that keeps `floor(±inf)` infinite.)
#[test]
fn a_branch_result_shares_the_loop_register() {
    let (asm, alu) = compiled(
        "kernel k(x: In<f32>, steps: Out<f32>) { let mut n = floor(x); let mut count = 0.0; \
         while n > 1.0 { if count >= 200.0 { break; } let half = n * 0.5; \
         n = if fract(half) == 0.0 { half } else { 3.0 * n + 1.0 }; count += 1.0; } \
         steps = count; }",
        TOL_EXACT,
    );
    assert_eq!(alu, 12, "{asm}");
}

/// `floor`/`trunc`/`round` of a lane of `index()` is that lane (an exact
/// integer): no `FRC`, no `CMP`.
#[test]
fn index_lanes_are_their_own_floor() {
    let (asm, _) = compiled(
        "kernel k(r: Out<vec4>) {
             let p = index();
             r = vec4(floor(p.x), trunc(p.y), round(p.x), (p.y as i32) as f32);
         }",
        TOL_EXACT,
    );
    assert!(!asm.contains("frc("), "{asm}");
    assert!(!asm.contains("cmp("), "{asm}");
}

/// `rsqrt` of a value whose sign bit is never set (a sum of squares) is one
/// `RSQ`; of any other value it also takes `RCP` and a `CMP`, so that
/// `rsqrt(-0)` is −inf (the reference) rather than RSQ's +inf.
#[test]
fn rsqrt_pays_for_negative_zero_only_where_it_can_occur() {
    let (asm, _) = compiled(
        "kernel k(v: In<vec4>, s: f32, r: Out<f32>) { r = rsqrt(dot(v, v) + s * s); }",
        TOL_TRANSCENDENTAL,
    );
    assert!(!asm.contains("rcp("), "{asm}");
    let (asm, _) = compiled(
        "kernel k(x: In<f32>, r: Out<f32>) { r = rsqrt(x); }",
        TOL_TRANSCENDENTAL,
    );
    assert_eq!(asm.matches("rcp(").count(), 1, "{asm}");
    assert_eq!(asm.matches("cmp(").count(), 1, "{asm}");
}

/// Gather coordinates whose lanes already sit in registers are read in
/// place through the fetch's source swizzle (CTM `US_TEX_ADDR`
/// `SRC_S_SWIZ`/`SRC_T_SWIZ`): matmul's loop counter gets the free lane
/// beside `index()` in `r0`, and both fetches read `r0` (`r0.bggg`,
/// `r0.rbbb`) with no lane copies. The loop is the counter's increment
/// co-issued with the MAD: three ALU instructions in all.
#[test]
fn gather_coordinates_are_read_in_place() {
    let (asm, alu) = compiled_in(
        "kernel k(n: i32, a: In<f32>, b: In<f32>, c: Out<f32>) {
             let p = index();
             let mut acc = 0.0;
             for t in 0..n {
                 let tf = t as f32;
                 acc += a[vec2(tf, p.y)] * b[vec2(p.x, tf)];
             }
             c = acc;
         }",
        TOL_EXACT,
        |name| if name == "n" { (0.0, 9.0) } else { (-2.0, 2.0) },
    );
    assert!(asm.contains("ld(t0, r0.bggg)"), "{asm}");
    assert!(asm.contains("ld(t1, r0.rbbb)"), "{asm}");
    assert_eq!(alu, 3, "{asm}");
}

/// Gather coordinates sharing their T component are computed three to
/// a register, `(x + c1, y, x + c2, x + c3)`, and read through the TEX
/// source swizzle (`.rggg`, `.bggg`, `.aggg`, CTM §3.4): `fir`'s eight
/// row neighbours (one of them `p` itself) take three instructions, not
/// six; with the eight multiply-adds, eleven.
#[test]
fn row_coordinates_share_one_register() {
    let (asm, alu) = compiled(
        "kernel fir(taps: [f32; 8], x: In<f32>, r: Out<f32>) {
             let p = index();
             let mut acc = 0.0;
             for k in 0..8 {
                 acc += taps[k] * x[p + vec2(k as f32 - 4.0, 0.0)];
             }
             r = acc;
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 11, "{asm}");
    for swizzle in [".rggg)", ".bggg)", ".aggg)"] {
        assert!(asm.contains(swizzle), "{swizzle}:\n{asm}");
    }
}

/// `sobel`'s eight neighbours: three rows of shared T, three
/// instructions for their coordinates (four as vec2 pairs).
#[test]
fn neighbour_coordinates_share_their_rows() {
    let (asm, alu) = compiled(
        "kernel sobel(img: In<f32>, r: Out<f32>) {
             let p = index();
             let tl = img[p + vec2(-1.0, -1.0)];
             let t = img[p + vec2(0.0, -1.0)];
             let tr = img[p + vec2(1.0, -1.0)];
             let l = img[p + vec2(-1.0, 0.0)];
             let rr = img[p + vec2(1.0, 0.0)];
             let bl = img[p + vec2(-1.0, 1.0)];
             let b = img[p + vec2(0.0, 1.0)];
             let br = img[p + vec2(1.0, 1.0)];
             let gx = (tr + 2.0 * rr + br) - (tl + 2.0 * l + bl);
             let gy = (bl + 2.0 * b + br) - (tl + 2.0 * t + tr);
             r = sqrt(gx * gx + gy * gy);
         }",
        TOL_TRANSCENDENTAL,
    );
    assert_eq!(alu, 12, "{asm}");
    assert!(asm.contains(".aggg)"), "{asm}");
}

/// Coordinates sharing their S component (a column) share the register
/// the other way round: `(x, y + c1, y + c2, y + c3)`, read as `.rggg`,
/// `.rbbb`, `.raaa`: one instruction for three.
#[test]
fn column_coordinates_share_one_register() {
    let (asm, alu) = compiled(
        "kernel k(img: In<f32>, r: Out<f32>) {
             let p = index();
             r = img[p + vec2(0.0, -1.0)] + img[p + vec2(0.0, 1.0)] * 0.5 - img[p + vec2(0.0, 2.0)];
         }",
        TOL_EXACT,
    );
    for swizzle in [".rggg)", ".rbbb)", ".raaa)"] {
        assert!(asm.contains(swizzle), "{swizzle}:\n{asm}");
    }
    assert_eq!(alu, 3, "{asm}");
}

/// A vector divided by one lane computes that lane's `RCP` once (alpha
/// unit) and multiplies every lane by it: `four_outputs`' `p.xy / p.w`
/// was two `RCP`s moved to RGB by `SOP`. One `RCP`, then the product as
/// the output: two ALU instructions.
#[test]
fn a_vector_over_a_scalar_takes_one_reciprocal() {
    for src in [
        "kernel k(v: In<vec4>, d: Out<vec2>) { d = v.xy / v.w; }",
        "kernel k(v: In<vec4>, d: Out<vec4>) { d = v / v.w; }",
        "kernel k(s: f32, v: In<vec4>, d: Out<vec2>) { d = v.xy / s; }",
    ] {
        let (asm, alu) = compiled_in(src, TOL_TRANSCENDENTAL, |_| (0.5, 2.0));
        assert_eq!(asm.matches("rcp(").count(), 1, "{src}\n{asm}");
        assert!(!asm.contains("sop()"), "{src}\n{asm}");
        assert_eq!(alu, 2, "{src}\n{asm}");
    }
}

/// Lanes of one register in another order need no copy either: the
/// fetch reads `p.yx` with the swizzle.
#[test]
fn swapped_coordinates_are_a_swizzle() {
    let (asm, alu) = compiled(
        "kernel k(a: In<f32>, r: Out<f32>) { let p = index(); r = a[p.yx] * 2.0 + a[p]; }",
        TOL_EXACT,
    );
    assert!(asm.contains("r0.grrr"), "{asm}");
    assert_eq!(alu, 1, "{asm}");
}

/// `x − y` of two alpha-unit values read by one op is that op's
/// presubtract (CTM §3.3.2, `SRCP_OP_SUB`: srcp = src1 − src0, the alpha
/// presubtract on channel a): the two `EX2`s, the product and the output.
#[test]
fn a_difference_is_a_presubtract() {
    let (asm, alu) = compiled(
        "kernel k(a: In<f32>, b: In<f32>, c: In<f32>, r: Out<f32>) { \
         let d = (exp2(a) - exp2(b)) * c; r = d * d + a; }",
        TOL_TRANSCENDENTAL,
    );
    assert!(asm.contains("srcp=sub"), "{asm}");
    assert_eq!(alu, 4, "{asm}");
    let (asm, alu) = compiled(
        "kernel k(a: In<f32>, b: In<f32>, c: In<f32>, r: Out<f32>) { \
         let d = (exp2(a) + exp2(b)) * c; r = d * d + a; }",
        TOL_TRANSCENDENTAL,
    );
    assert!(asm.contains("srcp=add"), "{asm}");
    assert_eq!(alu, 4, "{asm}");
}

/// A power-of-two factor of a value written to a render target is the
/// output modifier of the op computing it, which writes the target
/// itself (CTM §3.3.5, §3.3.8): one instruction.
#[test]
fn a_scaled_output_is_the_modifier_of_its_op() {
    let (asm, alu) = compiled(
        "kernel k(a: In<f32>, b: In<f32>, c: In<f32>, r: Out<f32>) { r = (a * b + c) * 2.0; }",
        TOL_EXACT,
    );
    assert!(asm.contains("x2"), "{asm}");
    assert_eq!(alu, 1, "{asm}");
}

/// `u = t · 0.5` where `t` has another reader: each product reading `u`
/// reads `t` and takes the modifier (`(t·½)·y = (t·y)·½`), and `u` goes.
#[test]
fn a_scale_moves_into_the_products_reading_it() {
    let (asm, alu) = compiled(
        "kernel k(a: In<f32>, b: In<f32>, r: Out<vec4>) { \
         let t = a * b + a; let u = t * 0.5; r = vec4(u * a, u * b, t, 1.0); }",
        TOL_EXACT,
    );
    assert_eq!(asm.matches(" d2").count(), 2, "{asm}");
    assert!(alu <= 4, "{asm}");
}

/// `saturate` of a value another IR value also names (a gamma on a
/// constant condition passes its input through at -O0) keeps its own
/// `MAX … sat`: random seed 761710 set the clamp bit on the op computing
/// `max(-1.5, p.y)`, which the kernel's output also reads.
#[test]
fn a_saturate_of_a_shared_register_keeps_its_own_op() {
    generated_kernel_agrees(761_710, &[OptLevel::O0, OptLevel::O2]);
}

/// Generated kernel `seed` (robust numerics, the x1k's options) agrees
/// with the reference at each of `levels`, on a 7×5 domain of random
/// arguments seeded with `2 · seed`.
fn generated_kernel_agrees(seed: u64, levels: &[OptLevel]) {
    use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let g = generate(seed, &options);
    let (program, _) = ctm_frontend::check::check(
        &g.file,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = program.expect("checks");
    let k = program
        .kernels
        .iter()
        .find(|k| k.name == g.kernel_name)
        .expect("the kernel");
    for &level in levels {
        let args = random_args(k, (7, 5), 2 * seed, NumericsMode::Robust);
        codegen_common::check_at(&program, k, &args, g.tolerance(), level, &|_, _, _| None)
            .unwrap_or_else(|e| panic!("{level:?}: {e}"));
    }
}

/// `index() / domain()` is one vec2 MAD by the reciprocal lanes the loader
/// fills into the domain constant (`docs/abi-x1k.md` §3: width, height,
/// 1/width, 1/height): no `RCP`, no `SOP` copies. A width that is not a
/// power of two (7×5) agrees with the reference too (within one ulp).
#[test]
fn division_by_the_domain_reads_its_reciprocal() {
    let src = "kernel k(r: Out<vec4>) {
                   let uv = index() / domain();
                   r = vec4(uv, 1.0 / domain().y, rcp(domain().x));
               }";
    let (asm, alu) = compiled(src, TOL_EXACT);
    assert!(!asm.contains("rcp("), "{asm}");
    assert!(!asm.contains("sop("), "{asm}");
    assert!(alu <= 2, "{asm}");
    let c = compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = c.program.expect("checks");
    let k = &program.kernels[0];
    let args = args_for(k, (7, 5), 0, |_| (-2.0, 2.0));
    if let Err(e) = check(&program, k, &args, TOL_EXACT) {
        panic!("7x5: {e}");
    }
}

/// A gather at `vec2(k, 0.0)` in a loop (nbody's `bodies[vec2(k, 0.0)]`):
/// the counter lives in the coordinate register beside the 0.0, which is
/// written once before the loop, together with the counter's start (one
/// move for both). The loop is the fetch, the sum and the increment: no
/// lane moves per iteration.
#[test]
fn a_literal_coordinate_lane_is_written_before_the_loop() {
    let (asm, alu) = compiled_in(
        "kernel k(n: i32, a: In<f32>, c: Out<f32>) {
             let mut acc = 0.0;
             for t in 0..n {
                 acc += a[vec2(t as f32, 0.0)];
             }
             c = acc;
         }",
        TOL_EXACT,
        |name| if name == "n" { (0.0, 9.0) } else { (-2.0, 2.0) },
    );
    let body = asm
        .lines()
        .skip_while(|l| !l.contains(" rep "))
        .take_while(|l| !l.contains("endrep"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !body.contains("omod_off"),
        "a coordinate move is back:\n{asm}"
    );
    // One instruction before the loop (the counter's start and the 0.0,
    // beside the sum's start), the increment in the loop, the output.
    assert_eq!(alu, 3, "{asm}");
}

/// Two outputs of an `if` (the cbrt example's `r` and `steps`): the
/// second is written by the op computing it in each branch (CTM §3.3.8:
/// any ALU instruction may write a render target), the first by the
/// program's last instruction, which must be an `OUT` anyway (CTM §3.1):
/// one instruction after the `endif`, not two.
#[test]
fn a_branch_writes_its_output() {
    let program = codegen_common::example_program("cbrt");
    let k = &program.kernels[0];
    let p = compile_kernel(&program, k, OptLevel::O2, &Default::default()).expect("compiles");
    for seed in 0..3 {
        let args = args_for(k, (8, 8), seed, |_| (-2.0, 2.0));
        if let Err(e) = check(&program, k, &args, TOL_TRANSCENDENTAL) {
            panic!("seed {seed}: {e}");
        }
    }
    let asm = isa::format_program(&p.insts);
    let after: Vec<&str> = asm
        .lines()
        .skip_while(|l| !l.contains("# endif"))
        .skip(1)
        .collect();
    assert_eq!(after.len(), 1, "{asm}");
    assert_eq!(asm.matches("out o1.r").count(), 2, "{asm}");
}

/// A vec4 written to an output and read again (`four_outputs`' `a = p`):
/// the op computing it writes the register and the target (one OUT
/// instruction, CTM §3.2/§3.3.6: an OUT has the temporary write masks
/// too); no copy-out.
#[test]
fn a_value_written_and_read_again_writes_both() {
    let (asm, alu) = compiled(
        "kernel k(v: In<vec4>, y: In<f32>, a: Out<vec4>, b: Out<vec4>) {
             let p = v * y + v;
             a = p;
             b = p * p.w;
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
    assert!(asm.contains("out r0.rgb, o0.rgb = mad("), "{asm}");
    assert!(!asm.contains("omod_off"), "a copy is back:\n{asm}");
}

/// A scalar dot product written to an output channel and read again
/// (`yuv`'s `y`): the DP3 writes its register lane and the target's r.
#[test]
fn a_dot_product_written_and_read_again_writes_both() {
    let (asm, alu) = compiled(
        "kernel k(c: In<vec4>, r: Out<vec4>) {
             let y = dot(c.rgb, vec3(0.299, 0.587, 0.114));
             r = vec4(y, (c.b - y) * 0.492, (c.r - y) * 0.877, 1.0);
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 4, "{asm}");
    assert!(asm.contains(", o0.r = dp3("), "{asm}");
    assert_eq!(
        asm.matches("omod_off").count(),
        1,
        "only a = 1 moves:\n{asm}"
    );
}

/// A vec2 written to an output's r, g and read again: its register lanes
/// are pinned to channels r, g, so one instruction computes each lane
/// once for both.
#[test]
fn a_vec2_written_and_read_again_keeps_its_channels() {
    let (asm, alu) = compiled(
        "kernel k(v: In<vec2>, s: f32, r: Out<vec2>, m: Out<f32>) {
             let w = v * s + v;
             r = w;
             m = w.x * w.y + w.x;
         }",
        TOL_EXACT,
    );
    assert_eq!(alu, 2, "{asm}");
    assert!(asm.contains(".rg, o0.rg = mad("), "{asm}");
}

/// A transcendental written to an RGB output channel and read again: the
/// alpha unit writes the register, `SOP` the target (CTM §3.3.4).
#[test]
fn a_transcendental_writes_its_target_through_sop() {
    let (asm, alu) = compiled(
        "kernel k(x: In<f32>, y: In<f32>, a: Out<f32>, b: Out<f32>) {
             let e = exp2(x);
             a = e;
             b = e * y + e;
         }",
        TOL_TRANSCENDENTAL,
    );
    assert_eq!(alu, 2, "{asm}");
    assert!(asm.contains("out o0.r = sop() ; r0.a = ex2("), "{asm}");
}

/// Refusals: a value carried out of a loop is copied after it (the copy
/// cannot move into the loop), and a copy that swaps lanes stays (the
/// op computes each lane in one channel).
#[test]
fn copies_that_cannot_move_stay() {
    let (asm, _) = compiled(
        "kernel k(x: In<f32>, y: In<f32>, a: Out<f32>, b: Out<f32>) {
             let mut s = x;
             for _i in 0..40 { s = s * y + x; }
             a = s;
             b = s * y + x;
         }",
        TOL_EXACT,
    );
    let after: Vec<&str> = asm
        .lines()
        .skip_while(|l| !l.contains("# endrep"))
        .collect();
    assert!(after.iter().any(|l| l.contains("out o0.r = max(")), "{asm}");
    let (asm, _) = compiled(
        "kernel k(x: In<f32>, y: In<f32>, a: Out<vec2>, b: Out<f32>) {
             let p = vec2(x * y, y - x);
             a = p.yx;
             b = p.x * p.y;
         }",
        TOL_EXACT,
    );
    assert!(asm.contains("o0.rg = max("), "{asm}");
}

/// Values written to an output and read again, over producers (MAD, MIN,
/// MAX, FRC, a select, dot products, transcendentals), widths 1, 2, 4,
/// target channels (a scalar into r of an `f32` output, or a lane of a
/// vec4 output), swizzled and straight reads, in straight code, an `if`
/// and a loop: every kernel agrees with the reference (`out_reg.rs`).
#[test]
fn values_written_and_read_again_agree() {
    let scalars = [
        "x.y * s + x.z",
        "min(x.x, s)",
        "max(x.w, -s)",
        "fract(x.z * 3.0)",
        "select(s > 0.0, x.x, x.y)",
        "dot(x.xyz, x.zyx)",
        "dot(x, x.wzyx)",
        "exp2(s)",
        "rsqrt(abs(s) + 1.0)",
        "rcp(s * s + 1.0)",
    ];
    let vec2s = ["x.xy * s + x.zw", "max(x.yx, x.zw)", "fract(x.zw * 1.5)"];
    let vec4s = ["x * s + x.wzyx", "min(x, x.yxwz)", "select(s > 0.0, x, -x)"];
    let mut fired = 0;
    let mut kernels = Vec::new();
    for e in scalars {
        // The value into r of an f32 output, and into a lane of a vec4.
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<f32>, b: Out<f32>) {{
                 let p = {e}; a = p; b = p * x.x + s; }}"
        ));
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<vec4>, b: Out<f32>) {{
                 let p = {e}; a = vec4(x.x * 2.0, s, x.z, p); b = p * x.y - p; }}"
        ));
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<vec4>, b: Out<f32>) {{
                 let p = {e}; a = vec4(s, p, x.z * s, x.w); b = p * x.y - p; }}"
        ));
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<f32>, b: Out<f32>) {{
                 let mut q = s;
                 if x.x > 0.0 {{ let p = {e}; a = p; q = p * p; }} else {{ a = s; }}
                 b = q; }}"
        ));
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<f32>, b: Out<f32>) {{
                 let mut q = s;
                 for _i in 0..20 {{ q = q * 0.5 + {e}; }}
                 a = q; b = q * x.x; }}"
        ));
    }
    for e in vec2s {
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<vec2>, b: Out<f32>) {{
                 let p = {e}; a = p; b = p.x * p.y + s; }}"
        ));
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<vec2>, b: Out<vec2>) {{
                 let p = {e}; a = p.yx; b = p * s; }}"
        ));
    }
    for e in vec4s {
        kernels.push(format!(
            "kernel k(x: In<vec4>, s: In<f32>, a: Out<vec4>, b: Out<f32>) {{
                 let p = {e}; a = p; b = dot(p, x); }}"
        ));
    }
    for src in &kernels {
        let (asm, _) = compiled(src, TOL_TRANSCENDENTAL);
        if asm.lines().any(|l| l.contains("out ") && l.contains(", o")) {
            fired += 1;
        }
    }
    // 38 of the 59 use one instruction for a register and an output
    // (branch `x1k-outreg`).
    println!(
        "{fired} of {} write a register and an output",
        kernels.len()
    );
    assert!(fired >= 30, "{fired} of {}", kernels.len());
}
