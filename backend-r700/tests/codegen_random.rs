//! Differential test over generated kernels (`ctm_frontend::gen`, R700
//! target, robust numerics): each is compiled at -O2 (every fifth also at
//! -O0, another fifth at -O1), must pass the validator (inside `compile`),
//! run on the R700 simulator without a fault on two random input sets and
//! agree with the reference interpreter within the kernel's spec §7
//! tolerance. A kernel over a hardware limit (a `CK` code) counts
//! separately; any other outcome fails.

mod codegen_common;

use codegen_common::check_kernel;
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};

/// Kernels per run (`CTM_RANDOM_KERNELS` overrides, `CTM_RANDOM_FIRST`
/// sets the first seed).
const KERNELS: u64 = 200;

fn levels(seed: u64) -> Vec<OptLevel> {
    match seed % 5 {
        0 => vec![OptLevel::O2, OptLevel::O0],
        2 => vec![OptLevel::O2, OptLevel::O1],
        _ => vec![OptLevel::O2],
    }
}

#[test]
fn random_kernels_agree_with_the_reference() {
    let options = GenOptions::new(Target::R700, NumericsMode::Robust);
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let first = env("CTM_RANDOM_FIRST", 0);
    let (mut ok, mut failed, mut limits, mut predicated) = (0, Vec::new(), 0, 0);
    for seed in first..first + env("CTM_RANDOM_KERNELS", KERNELS) {
        let g = generate(seed, &options);
        let (program, diags) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::R700,
            },
        );
        assert!(
            !ctm_frontend::diag::has_errors(&diags),
            "seed {seed} does not check"
        );
        let Some(program) = program else { continue };
        let Some(k) = program.kernels.iter().find(|k| k.name == g.kernel_name) else {
            continue;
        };
        for level in levels(seed) {
            let mut result = Ok(());
            for (set, domain) in [(0u64, (7, 5)), (1, (13, 4))] {
                let args = random_args(k, domain, seed * 2 + set, NumericsMode::Robust);
                if let Err(e) = check_kernel(&program, k, &args, g.tolerance(), level) {
                    result = Err(e);
                    break;
                }
            }
            match result {
                Ok(()) => {
                    ok += 1;
                    // How often predication inside clauses was exercised.
                    if codegen_common::compile_kernel(&program, k, level).is_ok_and(|e| {
                        e.program.clauses.values().any(|c| {
                            matches!(c, ctm_backend_r700::isa::Clause::Alu(a)
                                if a.groups.iter().flat_map(|g| &g.insts)
                                    .any(|i| i.pred_sel != ctm_backend_r700::isa::PredSel::Off))
                        })
                    }) {
                        predicated += 1;
                    }
                }
                Err(e) if e.starts_with("error[CK") => limits += 1,
                Err(e) => failed.push(format!("seed {seed} {level:?}: {e}\n{}", g.source)),
            }
        }
    }
    eprintln!(
        "random kernels: {ok} agree ({predicated} with predicated `if`s), {limits} over a hardware limit, {} differ",
        failed.len()
    );
    assert!(
        failed.is_empty(),
        "{} failures; first:\n{}",
        failed.len(),
        failed[0]
    );
}
