//! Differential tests on generated kernels (`ctm_frontend::gen`): for
//! every seed, the IR interpreter agrees with the reference interpreter on
//! the lowered module, after each individual pass, and after the whole
//! pipeline at every level — on NaN-free inputs and on inputs full of
//! special values (±0, ±inf, NaN, huge, tiny, denormals, extreme i32s).
//!
//! Every pass preserves the language's numerics exactly (folding uses
//! `numerics`; simplifications are IEEE-exact identities; MADs round twice
//! like the operations they replace), so the comparison is bitwise, NaN
//! matching NaN.

mod common;

use common::assert_same;
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::types::Target;
use ctm_frontend::{CheckOptions, compile};
use ctm_ir::graph::Module;
use ctm_ir::passes::{self, OptLevel, Options, VerifyEach};
use ctm_ir::{lower, verify};
use ctm_kernel_gen::{ArgOptions, GenOptions, NumericsMode, generate, random_args_with};

/// Kernels per run of the test (the issue asks for at least 300).
const KERNELS: u64 = 320;

type Pass = (&'static str, fn(&mut Module) -> bool);

fn single_passes() -> Vec<Pass> {
    vec![
        ("fold", passes::fold::run),
        ("simplify", passes::simplify::run),
        ("cse", passes::cse::run),
        ("dce", passes::dce::run),
        ("unroll", |m| passes::unroll::run(m, 512)),
        ("licm", passes::licm::run),
        ("if-convert", |m| {
            passes::if_convert::run(m, &ctm_ir::cost::DefaultCost)
        }),
        ("launch-const", passes::launch_const::run),
        ("mad", passes::mad::run),
    ]
}

#[test]
fn generated_kernels_agree_after_every_pass() {
    let targets = [Target::Ref, Target::R700, Target::X1k];
    let (mut checked, mut with_launch_constants) = (0, 0);
    for seed in 0..KERNELS {
        let target = targets[(seed % 3) as usize];
        let g = generate(seed, &GenOptions::new(target, NumericsMode::Exact));
        let compiled = compile(
            &g.source,
            &CheckOptions {
                target: Target::Ref,
            },
        );
        let program = compiled.program.unwrap_or_else(|| {
            panic!(
                "seed {seed}: generated kernel does not compile\n{}",
                ctm_frontend::diag::render(&compiled.diagnostics, "gen.ck", &g.source, false)
            )
        });
        let kernel = program
            .kernel(&g.kernel_name)
            .expect("the generated kernel");
        let inputs = [
            ArgOptions {
                numerics: NumericsMode::Robust,
                special_per_mille: 0,
            },
            ArgOptions {
                numerics: NumericsMode::Exact,
                special_per_mille: 150,
            },
        ];
        let cases: Vec<_> = inputs
            .iter()
            .enumerate()
            .filter_map(|(k, o)| {
                let args = random_args_with(kernel, (5, 3), seed * 7 + k as u64, o);
                // Kernels whose reference run faults (a runaway loop on
                // special values) have nothing to compare.
                run_kernel(&program, kernel, &args, &RunOptions::default())
                    .ok()
                    .map(|want| (args, want))
            })
            .collect();
        let check = |m: &Module, stage: &str| {
            verify::check(m, stage).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", g.source));
            for (args, want) in &cases {
                let got =
                    ctm_ir::interp::run(m, args, &RunOptions::default()).unwrap_or_else(|e| {
                        panic!(
                            "seed {seed} after {stage}: IR interpreter: {e}\n{}",
                            g.source
                        )
                    });
                assert_same(
                    &got,
                    want,
                    &format!("seed {seed} after {stage}\n{}", g.source),
                    m,
                );
            }
        };
        let mut m = lower::lower_kernel(&program, kernel);
        check(&m, "lowering");
        for _round in 0..3 {
            for (name, pass) in single_passes() {
                pass(&mut m);
                check(&m, name);
            }
        }
        for level in [OptLevel::O1, OptLevel::O2] {
            let mut m = lower::lower_kernel(&program, kernel);
            let mut o = Options::new(level);
            o.verify_each = VerifyEach::Yes;
            passes::optimize(&mut m, &o).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            check(&m, &format!("{level:?}"));
            with_launch_constants += usize::from(!m.launch_constants.is_empty());
        }
        checked += 1;
    }
    assert_eq!(checked, KERNELS);
    // The hidden uniforms are exercised (evaluated by the interpreter from
    // the user's arguments, special values included), not just possible.
    println!(
        "{with_launch_constants} of {} optimised modules have launch constants",
        2 * KERNELS
    );
    assert!(with_launch_constants >= 10, "{with_launch_constants}");
}
