//! Differential tests of the examples on the R700 simulator: compile, run
//! (a fault — read port, stack, illegal group — is a code-generator bug)
//! and compare every output with the reference interpreter within spec
//! §7's tolerance, on several random input sets per example, at -O2 and at
//! -O0/-O1 (loops not unrolled, array indices computed at run time).

mod codegen_common;

use codegen_common::{CASES, args_for, check_at, example_program};
use ctm_ir::passes::OptLevel;

fn examples_agree(level: OptLevel, seeds: u64) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for &(name, domain, tol, ranges) in CASES {
        let program = example_program(name);
        let k = &program.kernels[0];
        for seed in 0..seeds {
            let args = args_for(k, domain, seed, ranges);
            match check_at(&program, &args, tol, level) {
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
fn examples_agree_with_the_reference() {
    examples_agree(OptLevel::O2, 4);
}

#[test]
fn examples_agree_with_the_reference_at_o0_and_o1() {
    examples_agree(OptLevel::O0, 2);
    examples_agree(OptLevel::O1, 2);
}

#[test]
fn every_kernel_example_has_a_differential_case() {
    for name in codegen_common::EXAMPLES {
        if example_program(name).kernels.is_empty() {
            continue;
        }
        assert!(CASES.iter().any(|c| c.0 == *name), "{name}");
    }
}
