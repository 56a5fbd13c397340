//! Differential tests of the examples: compile, run on the DPP simulator
//! (default options: a hazard is a fault, i.e. a code-generator bug) and
//! compare every output with the reference interpreter within spec §7's
//! tolerance — `1e-5` for kernels without transcendentals or divisions,
//! `2e-3` with them — on several random input sets per example, each in
//! the range the example is meant for.

mod codegen_common;

use codegen_common::{CASES, TOL_EXACT, args_for, check, check_at, example_program};
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;

/// Input sets per example.
const SEEDS: u64 = 6;

#[test]
fn examples_agree_with_the_reference() {
    examples_agree(OptLevel::O2, SEEDS);
}

/// The code generator takes the IR as any level leaves it: loops that
/// are not unrolled, uniform-array indices still computed from counters,
/// dead gamma and theta ports (`-O0`).
#[test]
fn examples_agree_with_the_reference_at_o0_and_o1() {
    examples_agree(OptLevel::O0, 2);
    examples_agree(OptLevel::O1, 2);
}

fn examples_agree(level: OptLevel, seeds: u64) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for &(name, domain, tol, ranges) in CASES {
        let program = example_program(name);
        let k = &program.kernels[0];
        for seed in 0..seeds {
            let args = args_for(k, domain, seed, ranges);
            let alt = |out: &str, i: usize, j: usize| match (name, out) {
                ("cbrt", "steps") => Some(cbrt_steps_fused(
                    input(&args, 0).read(i as i64, j as i64)[0],
                )),
                _ => None,
            };
            match check_at(&program, k, &args, tol, level, &alt) {
                Ok(_) => runs += 1,
                Err(e) => failures.push(format!("{name} seed {seed} {level:?}: {e}")),
            }
        }
    }
    eprintln!(
        "{} examples x {seeds} input sets at {level:?}: {runs} agree, {} differ",
        CASES.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_example_has_a_differential_case() {
    for name in codegen_common::EXAMPLES {
        assert!(CASES.iter().any(|c| c.0 == *name), "{name}");
    }
}

fn input(args: &KernelArgs, k: usize) -> &StreamData {
    args.params
        .iter()
        .filter_map(|p| match p {
            ParamData::Input(s) => Some(s),
            _ => None,
        })
        .nth(k)
        .expect("input")
}

/// cbrt's step count with `y·y·y − a` rounded once, as the IR's MAD
/// fusion computes it (spec §7 allows a MAD within 1 ulp of IEEE). The
/// count is a discontinuous function of `y`: its stopping test
/// `|next − y| <= 1e-6·y` can sit within an ulp of the threshold (x =
/// −72.294044: 9.0 ulps against 8.7), so a 1-ulp difference in `next`
/// moves it by one step while `root` agrees. Only for that output, and
/// only this exact alternative, is accepted besides the reference.
fn cbrt_steps_fused(x: f32) -> f32 {
    if x == 0.0 {
        return 0.0;
    }
    let a = x.abs();
    let mut y = a.max(1.0);
    let mut n = 0.0f32;
    loop {
        n += 1.0;
        let yy = y * y;
        let num = ((yy as f64) * (y as f64) - a as f64) as f32;
        let next = y - num / (3.0 * yy);
        let done = (next - y).abs() <= 1e-6 * y || n >= 32.0;
        y = next;
        if done {
            return n;
        }
    }
}

/// Compiles and checks `src`'s kernel on the given input values of its
/// first input (a row), uniforms in [0.25, 0.75).
fn check_source(src: &str, xs: &[f32]) -> Result<(), String> {
    check_source_with(src, xs, |_| (0.25, 0.75))
}

/// [`check_source`] with uniforms from `ranges`.
fn check_source_with(src: &str, xs: &[f32], ranges: fn(&str) -> (f32, f32)) -> Result<(), String> {
    let program = ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    let k = &program.kernels[0];
    let mut args = args_for(k, (xs.len(), 1), 0, ranges);
    for p in &mut args.params {
        if let ParamData::Input(s) = p {
            s.buffer = StreamBuffer::F32(xs.to_vec());
        }
    }
    check(&program, k, &args, TOL_EXACT).map(|_| ())
}

/// ripple's bug: `step(edge, x)` compared `edge − x` with zero (the
/// operands of the difference swapped), so `step(0.5, fract(d·10))` was
/// 1 below the edge and 0 above it. Pins both operand orders, the edge
/// itself, and a uniform or stream on either side.
#[test]
fn step_subtracts_the_edge_from_the_value() {
    let xs = [0.0, 0.25, 0.4999999, 0.5, 0.5000001, 0.75, 1.0, -3.0];
    for src in [
        "kernel k(x: In<f32>, r: Out<f32>) { r = step(0.5, x); }",
        "kernel k(x: In<f32>, r: Out<f32>) { r = step(x, 0.5); }",
        "kernel k(e: f32, x: In<f32>, r: Out<f32>) { r = step(e, x); }",
        "kernel k(e: f32, x: In<f32>, r: Out<f32>) { r = step(x, e); }",
        "kernel k(x: In<f32>, r: Out<f32>) { r = step(0.5, fract(x * 10.0)); }",
        "kernel k(x: In<f32>, r: Out<vec2>) { r = step(vec2(0.5, 0.25), vec2(x)); }",
    ] {
        check_source(src, &xs).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

/// `w[k]` with `k` the counter of a loop with a uniform bound reads
/// `c[N + aL]` in a LOOP (CTM §3.3.1), not CK0070; offsets and a negative
/// start shift aL.
#[test]
fn uniform_array_at_the_loop_counter_reads_through_al() {
    use ctm_backend_x1k::isa::{AluSource, FcOp, Inst};
    let xs = [0.5, -1.0, 2.0, 0.25];
    for (src, n) in [
        (
            "kernel k(n: i32, w: [f32; 8], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..n { acc += w[k] * x; } r = acc; }",
            (0.0, 8.0),
        ),
        (
            "kernel k(n: i32, w: [f32; 8], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 1..n { acc += w[k - 1] * x + w[k]; } r = acc; }",
            (1.0, 8.0),
        ),
        (
            "kernel k(n: i32, w: [vec2; 12], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in -2..n { acc += w[k + 3].y * x; } r = acc; }",
            (0.0, 8.0),
        ),
    ] {
        let ranges: fn(&str) -> (f32, f32) = match n {
            (0.0, 8.0) => |p| if p == "n" { (0.0, 8.0) } else { (-1.0, 1.0) },
            (1.0, 8.0) => |p| if p == "n" { (1.0, 8.0) } else { (-1.0, 1.0) },
            _ => |_| (-1.0, 1.0),
        };
        check_source_with(src, &xs, ranges).unwrap_or_else(|e| panic!("{src}: {e}"));
        let program = ctm_frontend::compile(
            src,
            &CheckOptions {
                target: Target::X1k,
            },
        )
        .program
        .expect("checks");
        let p = ctm_backend_x1k::codegen::compile_kernel(
            &program,
            &program.kernels[0],
            ctm_ir::passes::OptLevel::O2,
            &Default::default(),
        )
        .expect("compiles");
        let ops: Vec<FcOp> = p
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Fc(f) => Some(f.op),
                _ => None,
            })
            .collect();
        assert!(
            ops.contains(&FcOp::Loop) && ops.contains(&FcOp::EndLoop),
            "{src}: {ops:?}"
        );
        let relative = p.insts.iter().any(|i| matches!(i, Inst::Alu(a) if a.rgb.sources.iter().chain(&a.alpha.sources).any(|s| matches!(s, AluSource::Const(c) if c.addressing == ctm_backend_x1k::isa::Addressing::LoopRelative))));
        assert!(relative, "{src}: no c[N+aL]");
    }
}

/// Nested IFs without ELSE, each the last statement of the one around it,
/// close with one ENDIF popping every block (CTM §3.5.5), and still agree
/// with the reference on every combination of conditions.
#[test]
fn nested_ifs_share_one_endif() {
    use ctm_backend_x1k::isa::{FcOp, Inst};
    let src = "kernel k(x: In<f32>, y: In<f32>, s: Scatter<f32>) {
        if x > 0.0 { if y > 0.0 { if x > y { s[index()] = x * y; } } }
    }";
    let program = ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    let k = &program.kernels[0];
    for seed in 0..4 {
        let args = args_for(k, (8, 4), seed, |_| (-1.0, 1.0));
        check(&program, k, &args, TOL_EXACT).unwrap_or_else(|e| panic!("{e}"));
    }
    let p = ctm_backend_x1k::codegen::compile_kernel(
        &program,
        k,
        ctm_ir::passes::OptLevel::O2,
        &Default::default(),
    )
    .expect("compiles");
    let fc: Vec<_> = p
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Fc(f) => Some(*f),
            _ => None,
        })
        .collect();
    let ifs = fc
        .iter()
        .filter(|f| f.b_op0 == ctm_backend_x1k::isa::BranchOp::Incr)
        .count();
    let endifs: Vec<u32> = fc
        .iter()
        .filter(|f| f.op == FcOp::Jump && f.b_op0 == ctm_backend_x1k::isa::BranchOp::Decr)
        .map(|f| f.b_pop_cnt.get())
        .collect();
    assert_eq!(
        (ifs, endifs),
        (3, vec![3]),
        "{}",
        ctm_backend_x1k::isa::format_program(&p.insts)
    );
}

/// `&&`, `||` and `!` of two comparisons and a `bool` uniform branch on
/// one `JUMP_FUNC` (ALU result, predicate bit, boolean constant; CTM
/// §3.5.3) instead of materialising each comparison.
#[test]
fn combined_conditions_branch_on_one_jump_func() {
    use ctm_backend_x1k::isa::Inst;
    for cond in [
        "x > 0.0 && y < 0.5",
        "x > 0.0 || y < 0.5",
        "!(x >= y) && x != 0.25",
        "b && x > y",
        "(b || x > 0.5) && y <= 0.0",
    ] {
        let src = format!(
            "kernel k(b: bool, x: In<f32>, y: In<f32>, s: Scatter<f32>) {{ if {cond} {{ s[index()] = x - y; }} }}"
        );
        let program = ctm_frontend::compile(
            &src,
            &CheckOptions {
                target: Target::X1k,
            },
        )
        .program
        .expect("checks");
        let k = &program.kernels[0];
        for seed in 0..4 {
            let args = args_for(k, (8, 4), seed, |_| (-1.0, 1.0));
            check(&program, k, &args, TOL_EXACT).unwrap_or_else(|e| panic!("{cond}: {e}"));
        }
        let p = ctm_backend_x1k::codegen::compile_kernel(
            &program,
            k,
            ctm_ir::passes::OptLevel::O2,
            &Default::default(),
        )
        .expect("compiles");
        let alu_before_if = p
            .insts
            .iter()
            .take_while(|i| !matches!(i, Inst::Fc(_)))
            .filter(|i| matches!(i, Inst::Alu(_)))
            .count();
        assert!(
            alu_before_if <= 2,
            "{cond}:\n{}",
            ctm_backend_x1k::isa::format_program(&p.insts)
        );
    }
}

/// Checks `src`'s kernel at `level` on `xs` (its `f32` inputs, a row;
/// other inputs and the uniforms drawn from `ranges`).
fn check_source_at(
    src: &str,
    xs: &[f32],
    ranges: fn(&str) -> (f32, f32),
    level: OptLevel,
) -> Result<ctm_backend_x1k::Program, String> {
    let program = ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    let k = &program.kernels[0];
    for seed in 0..2 {
        let mut args = args_for(k, (xs.len(), 1), seed, ranges);
        for p in &mut args.params {
            if let ParamData::Input(s) = p
                && s.channels == 1
            {
                s.buffer = StreamBuffer::F32(xs.to_vec());
            }
        }
        check_at(&program, k, &args, TOL_EXACT, level, &|_, _, _| None)?;
    }
    ctm_backend_x1k::codegen::compile_kernel(&program, k, level, &Default::default())
        .map_err(|e| e.to_string())
}

/// Whether `p` reads a float constant relative to aL.
fn reads_relative(p: &ctm_backend_x1k::Program) -> bool {
    use ctm_backend_x1k::isa::{Addressing, AluSource, Inst};
    p.insts.iter().any(|i| {
        matches!(i, Inst::Alu(a) if a.rgb.sources.iter().chain(&a.alpha.sources).any(
            |s| matches!(s, AluSource::Const(c) if c.addressing == Addressing::LoopRelative)
        ))
    })
}

/// Uniform-array indices computed from loop counters compile at every
/// level (before unrolling they are not "counter plus a constant"):
/// `s·k + c` reads through aL with step `s` (CTM §3.5.4: aL increment),
/// anything else from counters is a select chain, which clamps like the
/// reference — also where the loop reads past the array's ends.
#[test]
fn uniform_array_indices_from_loop_counters_at_every_level() {
    let xs = [0.5, -1.0, 2.0, 0.25];
    let ranges: fn(&str) -> (f32, f32) = |p| if p == "n" { (0.0, 8.0) } else { (-1.0, 1.0) };
    // (source, at -O1: relative reads, aL step of the LOOP if any)
    let cases: &[(&str, bool, Option<i32>)] = &[
        (
            "kernel k(c: [f32; 8], x: In<f32>, r: Out<f32>) { let mut acc = c[7]; for k in 0..7 { acc = acc * x + c[6 - k]; } r = acc; }",
            true,
            Some(-1),
        ),
        (
            "kernel k(w: [f32; 9], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..4 { acc += w[2 * k + 1] * x; } r = acc; }",
            true,
            Some(2),
        ),
        (
            "kernel k(a: f32, w: [vec2; 6], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 2..6 { acc += w[7 - k].y * x + a; } r = acc; }",
            true,
            Some(-1),
        ),
        (
            "kernel k(w: [f32; 6], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for i in 0..3 { for j in 0..2 { acc += w[i * 2 + j] * x; } } r = acc; }",
            false,
            None,
        ),
        (
            "kernel k(w: [f32; 3], v: [f32; 3], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for i in 0..3 { for j in 0..3 { acc += w[i] * v[j] * x; } } r = acc; }",
            true,
            Some(1),
        ),
        (
            "kernel k(w: [f32; 4], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..6 { acc = acc * x + w[k - 1]; } r = acc; }",
            false,
            None,
        ),
        (
            "kernel k(n: i32, w: [f32; 8], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..n { acc = acc * x + w[7 - k]; } r = acc; }",
            false,
            None,
        ),
        // The counter reaches the read through a `loop` with a break flag
        // (gammas and an inner theta passing it through at -O0).
        (
            "kernel k(w: [f32; 4], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..4 { let mut n = 0; loop { n += 1; if n > 2 || x > 100.0 { break; } acc += w[k] * x; } } r = acc; }",
            true,
            Some(1),
        ),
        (
            "kernel k(w: [i32; 5], v: [vec4; 5], x: In<f32>, r: Out<f32>) { let mut acc = 0.0; for k in 0..5 { acc += (w[4 - k] as f32) * x + v[4 - k].z; } r = acc; }",
            true,
            Some(-1),
        ),
    ];
    for &(src, relative, step) in cases {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            let p = check_source_at(src, &xs, ranges, level)
                .unwrap_or_else(|e| panic!("{src} at {level:?}: {e}"));
            if level == OptLevel::O1 {
                assert_eq!(reads_relative(&p), relative, "{src}");
                let steps: Vec<i32> = p
                    .bindings
                    .int_constants
                    .iter()
                    .map(|c| c.step)
                    .filter(|&s| s != 1)
                    .collect();
                match step {
                    Some(1) | None => assert!(steps.is_empty(), "{src}: {steps:?}"),
                    Some(s) => assert_eq!(steps, [s], "{src}"),
                }
            }
        }
    }
}

/// An index computed from data is still CK0070 at every level (the
/// language contract: constant or loop counter plus a constant after
/// optimisation).
#[test]
fn data_dependent_uniform_array_index_is_ck0070() {
    let src = "kernel k(w: [f32; 16], i: In<f32>, r: Out<f32>) { r = w[i as i32]; }";
    let program = ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        match ctm_backend_x1k::codegen::compile_kernel(
            &program,
            &program.kernels[0],
            level,
            &Default::default(),
        ) {
            Err(ctm_backend_x1k::codegen::CodegenError::Limit { code, .. }) => {
                assert_eq!(code, ctm_frontend::Code::X1kDynamicIndex, "{level:?}")
            }
            other => panic!("{level:?}: {other:?}"),
        }
    }
}

/// A branch on a condition that is constant only once `!`, `&&`, `||`
/// are folded (`!false` at -O0) is inlined; the emitter also steps over
/// the blocks of the branch it drops. It used to emit one branch while
/// scheduling and allocation had numbered the blocks of both, so later
/// blocks received other blocks' instructions (the ALU result of an IF
/// set after it, `allocation-checker` conflicts).
#[test]
fn constant_branch_conditions_at_o0() {
    let xs = [0.25, 0.75, 0.0, 2.0];
    for src in [
        "kernel k(in0: In<f32>, in2: In<vec2>, out0: Out<f32>) { if 0.5 < in0 { out0 = dot(if false { if 0.5f32 < 0.0625 { index() } else { vec2(1.5, 1.0) } } else { in2 }, in2 - (if !false { domain() } else { index() })); if in0 == 0.0 { return; } } out0 = 1.0 - in2[domain()].x; }",
        "kernel k(x: In<f32>, r: Out<f32>) { let mut a = x; if !(false || x > 5.0 && false) { a = a * 2.0; } else { a = a - 1.0; } if true && !true { a = 0.0; } r = a; }",
    ] {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            check_source_at(src, &xs, |_| (-1.0, 1.0), level)
                .unwrap_or_else(|e| panic!("{src} at {level:?}: {e}"));
        }
    }
}

/// A program longer than 512 slots is CK0072, found before anything
/// follows its jumps (addresses past 511 cannot be encoded; the checker
/// used to report an internal error on the truncated ones).
#[test]
fn too_long_programs_are_ck0072() {
    let mut src = String::from("kernel k(x: In<f32>, r: Out<f32>) { let mut acc = x;");
    for i in 0..70 {
        src += &format!(
            " if acc > {i}.5 {{ acc = acc * 0.5 - sin(acc); }} else {{ acc = acc + cos(acc); }}"
        );
    }
    src += " r = acc; }";
    let program = ctm_frontend::compile(
        &src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    let r = ctm_backend_x1k::codegen::compile_kernel(
        &program,
        &program.kernels[0],
        OptLevel::O0,
        &Default::default(),
    );
    match r {
        Err(ctm_backend_x1k::codegen::CodegenError::Limit { code, .. }) => {
            assert_eq!(code, ctm_frontend::Code::TooManyInstructions)
        }
        other => panic!("{other:?}"),
    }
}

/// Seed 2002300 (issue 13): `saturate(i as f32)` set the clamp bit on the
/// `ADD` computing `i` itself (`i2f` is free and shares its operand's
/// register), so `i`'s other uses — here a loop counter and its exit
/// test — saw the clamped value. The clamp may only go on a producer
/// whose value, through every free alias, has no other use.
#[test]
fn saturate_of_an_aliased_integer_keeps_the_integer() {
    let xs = [-3.0, -0.5, 0.0, 0.5, 1.5, 2.0, 3.0, 7.0];
    for src in [
        "kernel k(x: In<f32>, r: Out<f32>) {
            let i = (x as i32) + 1;
            r = saturate(i as f32) * 8.0 + ((i + 4) as f32);
        }",
        "kernel k(x: In<f32>, r: Out<f32>) {
            let mut w = 0;
            let mut s = 0.0;
            while w < 3i32 && saturate(w as f32) > x * 0.1 - 1.0 {
                w += 1;
                s += (w + 4) as f32;
            }
            r = s + (w as f32) * 100.0;
        }",
    ] {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            check_source_at(src, &xs, |_| (0.25, 0.75), level)
                .unwrap_or_else(|e| panic!("{level:?} {src}: {e}"));
        }
    }
}
