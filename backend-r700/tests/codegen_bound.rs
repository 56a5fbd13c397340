//! The scheduler against the lower bound (`docs/backend-r700.md` §3 "The
//! lower bound"): ops that may share the group of an op they follow
//! (a closing `KILL`/`PRED_SET`), and the bound's refinements (Trans-only
//! ops competing at one depth, many ops after a short chain, fixed result
//! elements, short windows of the path), each a count that fails if the
//! pattern comes back; and the bound never above the groups emitted, on
//! the examples and on generated kernels.

mod codegen_common;

use codegen_common::{
    EXAMPLES, TOL_EXACT, args_for, check_at, checked, compile_kernel, example_program, module,
};
use ctm_backend_r700::codegen::{compile_with_report, optimize_for_r700};
use ctm_backend_r700::isa::{AluForm, Clause};
use ctm_backend_r700::stats::static_metrics;
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, NumericsMode, generate};

/// (ALU groups, lower bound) of example `name` at -O2.
fn groups_and_bound(name: &str) -> (usize, usize) {
    let program = example_program(name);
    let (exe, report) = compile_with_report(&module(&program, OptLevel::O2), &Default::default())
        .expect("compiles");
    (static_metrics(&exe).alu_groups as usize, report.lower_bound)
}

/// Per ALU group that holds a `KILL*` or a `PRED_SET*` updating the active
/// mask: how many instructions the group has.
fn closing_group_sizes(exe: &ctm_backend_r700::Executable) -> Vec<usize> {
    let mut out = Vec::new();
    for c in exe.program.clauses.values() {
        let Clause::Alu(a) = c else { continue };
        for g in &a.groups {
            let closes = g.insts.iter().any(|i| {
                i.mnemonic().starts_with("KILL")
                    || matches!(&i.form, AluForm::Op2(f) if f.update_exec_mask)
            });
            if closes {
                out.push(g.insts.len());
            }
        }
    }
    out
}

#[test]
fn a_kill_shares_the_group_of_the_select_it_follows() {
    // The KILL depends on everything before it only by "last in the
    // clause" (§4.8 L1872: a group-level rule): it joins the group of the
    // last select (3 → 2 groups).
    let src = "kernel k(limit: f32, x: In<f32>, r: Out<f32>) {\n    \
               if x < limit {\n        discard;\n    }\n    r = x;\n}\n";
    let program = checked(src).expect("checks");
    let exe = compile_kernel(&program, &program.kernels[0], OptLevel::O2).expect("compiles");
    assert_eq!(static_metrics(&exe).alu_groups, 2);
    assert_eq!(closing_group_sizes(&exe), vec![2]);
    for seed in 1..4 {
        let args = args_for(&program.kernels[0], (16, 8), seed, |_| (-4.0, 4.0));
        check_at(&program, &args, TOL_EXACT, OptLevel::O2).expect("agrees");
    }
}

#[test]
fn a_branch_predicate_shares_the_last_group_of_its_clause() {
    // nbody: the loop guard's PRED_SETNE beside the last select of the
    // saturating conversion, the exit test's PRED_SETE beside the copies
    // into the loop variables (22 → 20 groups; 19 since `softening²` is
    // a launch constant read in the loop instead of a loop variable).
    let exe = codegen_common::example("nbody");
    let sizes = closing_group_sizes(&exe);
    assert_eq!(sizes.len(), 2, "{sizes:?}");
    assert!(sizes.iter().all(|&n| n > 1), "{sizes:?}");
    assert_eq!(groups_and_bound("nbody"), (19, 19));
}

#[test]
fn the_bound_counts_the_trans_unit_and_the_ops_after_short_chains() {
    // hash: two FLT_TO_INTs start its longest path, one Trans unit.
    assert_eq!(groups_and_bound("hash"), (20, 20));
    // sum and bounds: two MULs, then eight ADDs (a group of five at most).
    assert_eq!(groups_and_bound("sum"), (5, 5));
    assert_eq!(groups_and_bound("bounds"), (6, 6));
    // ripple: `cos`, its reciprocal and the `sin` beside them, three
    // Trans-only ops in a window of two groups of the path.
    assert_eq!(groups_and_bound("ripple"), (23, 23));
    // tonemap: `pow` per lane is LOG, MUL, EXP; the three LOGs (their
    // depth) and the three EXPs (their height) bound a window of the path
    // holding six Trans-only ops (26: one uniform-only product is a
    // launch constant).
    assert_eq!(groups_and_bound("tonemap"), (26, 26));
    // matmul: five copies into fixed elements x, y, z, y, z.
    assert_eq!(groups_and_bound("matmul"), (11, 11));
    assert_eq!(groups_and_bound("threshold"), (2, 2));
}

#[test]
fn the_bound_is_never_above_the_groups() {
    for name in EXAMPLES {
        let (groups, bound) = groups_and_bound(name);
        assert!(groups >= bound, "{name}: {groups} groups, bound {bound}");
    }
    let options = GenOptions::new(Target::R700, NumericsMode::Robust);
    let mut compiled = 0;
    for seed in 0..300 {
        let g = generate(seed, &options);
        let (program, _) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::R700,
            },
        );
        let Some(program) = program else { continue };
        let Some(k) = program.kernels.iter().find(|k| k.name == g.kernel_name) else {
            continue;
        };
        for level in [OptLevel::O0, OptLevel::O2] {
            let mut m = ctm_ir::lower::lower_kernel(&program, k);
            optimize_for_r700(&mut m, level).expect("optimises");
            let v = ctm_ir::verify::verify(m, "test").expect("verifies");
            let Ok((exe, report)) = compile_with_report(&v, &Default::default()) else {
                continue;
            };
            let groups = static_metrics(&exe).alu_groups as usize;
            assert!(
                groups >= report.lower_bound,
                "seed {seed} {level:?}: {groups} groups, bound {}\n{}",
                report.lower_bound,
                g.source
            );
            compiled += 1;
        }
    }
    assert!(compiled > 400, "{compiled}");
}

#[test]
fn a_kill_stays_in_the_last_group_with_copies_after_it() {
    // Generated kernels whose export copies follow the `KILL` in its
    // segment: the KILL joined an early group and a copy landed after it
    // (validator `kill-not-last`); the KILL now moves after them.
    let options = GenOptions::new(Target::R700, NumericsMode::Robust);
    for seed in [701_652, 987_169, 987_208, 989_233] {
        let g = generate(seed, &options);
        let (program, _) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::R700,
            },
        );
        let program = program.expect("checks");
        let k = program
            .kernels
            .iter()
            .find(|k| k.name == g.kernel_name)
            .expect("kernel");
        for (set, domain) in [(0u64, (7, 5)), (1, (13, 4))] {
            let args = ctm_kernel_gen::random_args(k, domain, seed * 2 + set, NumericsMode::Robust);
            codegen_common::check_kernel(&program, k, &args, g.tolerance(), OptLevel::O2)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
}
