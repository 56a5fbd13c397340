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

/// An `if` closes with `ALU_POP_AFTER` (manual Table 3.7) where its last
/// CF instruction is a small ALU clause; the `ELSE` (or the `JUMP`) skips
/// to it, and it runs with no element active there. The programs agree
/// with the reference where some, all and no elements take the branch.
#[test]
fn if_regions_closed_by_alu_pop_after_agree() {
    let then_only = "kernel a(x: In<f32>, r: Out<f32>) {\n    let mut s = x;\n    \
                     if x > 0.5 {\n        s = x * 3.0 + 1.0;\n    }\n    r = s;\n}\n";
    let with_else = "kernel b(x: In<f32>, r: Out<f32>) {\n    let mut s = 0.0;\n    \
                     if x > 0.5 {\n        s = x * 3.0;\n    } else {\n        \
                     s = x - 7.0;\n    }\n    r = s;\n}\n";
    for src in [then_only, with_else] {
        let program = codegen_common::checked(src).expect("checks");
        let k = &program.kernels[0];
        let exe = codegen_common::compile_program(&program, OptLevel::O0).expect("compiles");
        let listing = ctm_backend_r700::isa::format_program(&exe.program);
        assert!(listing.contains("ALU_POP_AFTER"), "{listing}");
        assert!(!listing.contains(" POP "), "{listing}");
        for (lo, hi) in [(0.0, 1.0), (0.6, 1.0), (0.0, 0.4)] {
            let args = args_for(k, (16, 8), 1, |_| (0.0, 1.0));
            let args = ctm_frontend::data::KernelArgs {
                params: args
                    .params
                    .into_iter()
                    .map(|p| match p {
                        ctm_frontend::data::ParamData::Input(mut s) => {
                            if let ctm_frontend::data::StreamBuffer::F32(v) = &mut s.buffer {
                                for x in v.iter_mut() {
                                    *x = lo + (hi - lo) * *x;
                                }
                            }
                            ctm_frontend::data::ParamData::Input(s)
                        }
                        other => other,
                    })
                    .collect(),
                ..args
            };
            check_at(&program, &args, 1e-5, OptLevel::O0).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
