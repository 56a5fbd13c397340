//! The random kernel differential as permanent machinery (issue 13,
//! `docs/fuzzing.md`): each robust x1k kernel of the generator runs on the
//! reference interpreter, on the IR interpreter after the x1k pipeline, and
//! as X1K machine code on the DPP simulator, at each level asked for.
//!
//! A difference is classified:
//! - **limit**: the kernel is over a hardware limit (a `CK` diagnostic);
//! - **fused MAD**: the machine code differs from the reference, but agrees
//!   with the IR interpreter run with `MadRounding::Fused` — the X1K's MAD
//!   does not round the product, and a discontinuous operation (a gather
//!   coordinate, `floor`, a comparison) downstream turns that rounding into
//!   a different result. Not a miscompile: seed 101953 at -O2 is the
//!   known case (`cross(in1.xxx, vec3(0.75))`);
//! - **ir** / **x1k**: a real difference, which fails the test after
//!   shrinking (re-generating the seed with smaller generator options while
//!   it still fails, and printing the smallest kernel).
//!
//! Environment: `CTM_DIFF_KERNELS` (default 16, so CI runs a few),
//! `CTM_DIFF_FIRST` (first seed, default 1000000), `CTM_DIFF_LEVELS`
//! (`0,1,2`; default `2`), `CTM_DIFF_DUMP=DIR` (write each failing kernel).
//! `scripts/differential.sh` drives long runs.

mod codegen_common;

use codegen_common::check_at_lanes;
use ctm_backend_x1k::codegen::cost::X1kCost;
use ctm_frontend::data::KernelArgs;
use ctm_frontend::interp::{KernelRun, RunOptions, run_kernel};
use ctm_frontend::tast::{Kernel, Program};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::interp::{MadRounding, run_with_mad};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, GeneratedKernel, NumericsMode, generate, random_args};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The verdict on one kernel at one level.
#[derive(Clone, Debug, PartialEq)]
enum Verdict {
    Agree,
    Limit(String),
    FusedMad(String),
    IrDiffers(String),
    X1kDiffers(String),
    NoProgram,
}

impl Verdict {
    fn is_failure(&self) -> bool {
        matches!(self, Verdict::IrDiffers(_) | Verdict::X1kDiffers(_))
    }
}

fn close(g: f32, r: f32, tol: f32) -> bool {
    (g.is_nan() && r.is_nan()) || (g - r).abs() <= tol * r.abs().max(1.0)
}

/// The first element where `got` differs from `want`, if any.
fn compare(got: &KernelRun, want: &KernelRun, tol: f32) -> Option<String> {
    for (g, w) in got.outputs.iter().zip(&want.outputs) {
        let (Some(gv), Some(wv)) = (g.data.as_f32(), w.data.as_f32()) else {
            return Some(format!("{}: not f32 data", w.name));
        };
        for (k, (a, b)) in gv.iter().zip(wv.iter()).enumerate() {
            if !close(*a, *b, tol) {
                return Some(format!("{} [{k}]: got {a} want {b}", w.name));
            }
        }
    }
    None
}

/// The optimised module of `kernel` at `level`, run by the IR interpreter.
fn ir_run(
    program: &Program,
    kernel: &Kernel,
    args: &KernelArgs,
    level: OptLevel,
    mad: MadRounding,
) -> Result<KernelRun, String> {
    let m = ctm_ir::lower::lower_kernel(program, kernel);
    let v = ctm_ir::passes::pipeline(m, level, &X1kCost).map_err(|e| e.to_string())?;
    run_with_mad(v.module(), args, &RunOptions::default(), mad).map_err(|e| e.to_string())
}

/// Runs kernel `g` at `level` three ways on two input sets.
fn judge(g: &GeneratedKernel, level: OptLevel) -> Verdict {
    let (program, diags) = ctm_frontend::check::check(
        &g.file,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    if ctm_frontend::diag::has_errors(&diags) {
        return Verdict::Limit(format!("does not check: {:?}", diags.first()));
    }
    let Some(program) = program else {
        return Verdict::NoProgram;
    };
    let Some(k) = program.kernels.iter().find(|k| k.name == g.kernel_name) else {
        return Verdict::NoProgram;
    };
    let tol = g.tolerance();
    let mut verdict = Verdict::Agree;
    for (set, domain) in [(0u64, (7, 5)), (1, (13, 4))] {
        let args = random_args(k, domain, g.seed * 2 + set, NumericsMode::Robust);
        let Ok(want) = run_kernel(&program, k, &args, &RunOptions::default()) else {
            return Verdict::NoProgram;
        };
        match ir_run(&program, k, &args, level, MadRounding::Twice) {
            Ok(ir) => {
                if let Some(d) = compare(&ir, &want, tol) {
                    return Verdict::IrDiffers(d);
                }
            }
            Err(e) => return Verdict::IrDiffers(e),
        }
        let none = |_: &str, _: usize, _: usize, _: usize| None;
        match check_at_lanes(&program, k, &args, tol, level, &none) {
            Ok(_) => {}
            Err(e) if e.starts_with("error[CK") => return Verdict::Limit(e),
            Err(e) => {
                // The fused-MAD class: the machine agrees with the IR run
                // with one rounding per MAD.
                let first = e.lines().next().unwrap_or("").to_string();
                let Ok(fused) = ir_run(&program, k, &args, level, MadRounding::Fused) else {
                    return Verdict::X1kDiffers(e);
                };
                let alt = |name: &str, i: usize, j: usize, ch: usize| {
                    let o = fused.outputs.iter().find(|o| o.name == name)?;
                    o.data.read(i as i64, j as i64).get(ch).copied()
                };
                match check_at_lanes(&program, k, &args, tol, level, &alt) {
                    Ok(_) => verdict = Verdict::FusedMad(first),
                    Err(_) => return Verdict::X1kDiffers(e),
                }
            }
        }
    }
    verdict
}

/// Smaller variants of `o`, one change each.
fn shrink_steps(o: &GenOptions) -> Vec<GenOptions> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut GenOptions) -> bool| {
        let mut c = o.clone();
        if f(&mut c) {
            out.push(c);
        }
    };
    push(&|c| {
        let b = c.max_statements > 1;
        c.max_statements /= 2;
        b
    });
    push(&|c| {
        let b = c.max_expr_depth > 2;
        c.max_expr_depth -= 1;
        b
    });
    push(&|c| std::mem::replace(&mut c.max_helpers, 0) > 0);
    push(&|c| std::mem::replace(&mut c.max_loop_nesting, 0) > 0);
    push(&|c| std::mem::replace(&mut c.max_nesting, 1) > 1);
    push(&|c| std::mem::replace(&mut c.max_uniforms, 0) > 0);
    push(&|c| std::mem::replace(&mut c.max_inputs, 1) > 1);
    push(&|c| std::mem::replace(&mut c.max_outputs, 1) > 1);
    push(&|c| std::mem::replace(&mut c.features.gathers, false));
    push(&|c| std::mem::replace(&mut c.features.transcendentals, false));
    push(&|c| std::mem::replace(&mut c.features.while_loops, false));
    push(&|c| std::mem::replace(&mut c.features.for_loops, false));
    push(&|c| std::mem::replace(&mut c.features.if_expressions, false));
    push(&|c| std::mem::replace(&mut c.features.uniform_arrays, false));
    push(&|c| std::mem::replace(&mut c.features.discard_return, false));
    out
}

/// Re-generates `seed` with ever smaller options while some kernel still
/// fails at `level`; returns the last failing kernel and its verdict.
fn shrink(seed: u64, level: OptLevel, verdict: Verdict) -> (GeneratedKernel, Verdict) {
    let mut options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let mut best = (generate(seed, &options), verdict);
    let mut progress = true;
    while progress {
        progress = false;
        for smaller in shrink_steps(&options) {
            // A few seeds per option set: a smaller budget draws another
            // kernel, which need not fail.
            for s in [seed, seed + 1_000_003, seed + 2_000_006] {
                let g = generate(s, &smaller);
                let v = judge(&g, level);
                if v.is_failure() && g.source.len() < best.0.source.len() {
                    best = (g, v);
                    options = smaller.clone();
                    progress = true;
                    break;
                }
            }
            if progress {
                break;
            }
        }
    }
    best
}

fn levels() -> Vec<OptLevel> {
    let text = std::env::var("CTM_DIFF_LEVELS").unwrap_or_else(|_| "2".into());
    text.split(',')
        .filter_map(|l| match l.trim() {
            "0" => Some(OptLevel::O0),
            "1" => Some(OptLevel::O1),
            "2" => Some(OptLevel::O2),
            _ => None,
        })
        .collect()
}

#[test]
fn random_kernels_three_ways() {
    let first = env_u64("CTM_DIFF_FIRST", 1_000_000);
    let count = env_u64("CTM_DIFF_KERNELS", 16);
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut agree, mut limits, mut fused, mut skipped) = (0u64, 0u64, Vec::new(), 0u64);
    let mut failures = Vec::new();
    for seed in first..first + count {
        let g = generate(seed, &options);
        for level in levels() {
            match judge(&g, level) {
                Verdict::Agree => agree += 1,
                Verdict::Limit(_) => limits += 1,
                Verdict::NoProgram => skipped += 1,
                Verdict::FusedMad(d) => fused.push((seed, level, d)),
                v => failures.push((seed, level, v)),
            }
        }
        if (seed - first + 1).is_multiple_of(500) {
            eprintln!(
                "... {} kernels: {agree} agree, {limits} over a limit, {} fused-MAD, {} differ",
                seed - first + 1,
                fused.len(),
                failures.len()
            );
        }
    }
    eprintln!(
        "differential: seeds {first}..{}, levels {:?}: {agree} agree, {limits} over a limit, \
         {} fused-MAD discontinuities, {skipped} skipped, {} differ",
        first + count,
        levels(),
        fused.len(),
        failures.len()
    );
    for (seed, level, d) in &fused {
        eprintln!("fused-MAD: seed {seed} {level:?}: {d}");
    }
    let mut report = String::new();
    for (seed, level, v) in &failures {
        let (small, sv) = shrink(*seed, *level, v.clone());
        let text = format!(
            "seed {seed} {level:?}: {v:?}\nshrunk to seed {} ({} bytes): {sv:?}\n{}\n",
            small.seed,
            small.source.len(),
            small.source
        );
        if let Ok(dir) = std::env::var("CTM_DIFF_DUMP") {
            let path = std::path::Path::new(&dir).join(format!("seed-{seed}-{level:?}.ck"));
            let _ = std::fs::write(&path, format!("{}\n/*\n{text}\n*/\n", small.source));
        }
        report.push_str(&text);
    }
    assert!(failures.is_empty(), "{report}");
}

/// Seed 101953 at -O2 once differed by a fused MAD's rounding
/// (`cross(in1.xxx, vec3(0.75))`: 0 in the reference, ± the product's
/// rounding error with one rounding, then a gather coordinate `2.0 − tiny`
/// rounded down), and issue 13's three "x1k differs" seeds 1003244,
/// 1006073, 1009251 by a fused dot product (DP2A/DP3/DP4 round once,
/// ctm-guide-x1k.txt "X1K FP") feeding `sign`, `fract` or `ceil`. Their
/// kernels are kept in `fuzz/regressions/source/differential-seed-*.ck`;
/// `--check` and `tests/random_both_targets.rs` tell the class apart by
/// the IR interpreter's fused numerics. Since robust X1K kernels treat
/// products as approximate (`kernel-gen/src/range.rs`, `FUSED`), the
/// generator no longer makes this class: the same seeds now agree
/// outright at every level.
#[test]
fn former_fused_rounding_seeds_now_agree_outright() {
    for seed in [101_953u64, 1_003_244, 1_006_073, 1_009_251] {
        let g = generate(seed, &GenOptions::new(Target::X1k, NumericsMode::Robust));
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            let v = judge(&g, level);
            assert!(
                matches!(v, Verdict::Agree | Verdict::Limit(_)),
                "seed {seed} at {level:?}: {v:?}"
            );
        }
    }
}
