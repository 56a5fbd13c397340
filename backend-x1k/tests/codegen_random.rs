//! Differential test over generated kernels: each of 320 robust x1k
//! kernels (`ctm_frontend::gen`) is compiled, run on the DPP simulator
//! (hazards fault) on two random input sets and compared with the
//! reference interpreter within the kernel's spec §7 tolerance. A kernel
//! over a hardware limit (a `CK` code) counts separately; any other
//! difference fails the test.

mod codegen_common;

use codegen_common::check;
use ctm_frontend::r#gen::{GenOptions, NumericsMode, generate, random_args};
use ctm_frontend::{CheckOptions, Target};

/// Kernels per run (`CTM_RANDOM_KERNELS` overrides; `CTM_RANDOM_FIRST`
/// sets the first seed).
const KERNELS: u64 = 320;

#[test]
fn random_kernels_agree_with_the_reference() {
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut ok, mut failed, mut limits) = (0, Vec::new(), Vec::new());
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let first = env("CTM_RANDOM_FIRST", 0);
    for seed in first..first + env("CTM_RANDOM_KERNELS", KERNELS) {
        let g = generate(seed, &options);
        let (program, diags) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::X1k,
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
        let mut result = Ok(());
        for (set, domain) in [(0u64, (7, 5)), (1, (13, 4))] {
            let args = random_args(k, domain, seed * 2 + set, NumericsMode::Robust);
            if let Err(e) = check(&program, k, &args, g.tolerance()) {
                result = Err(e);
                break;
            }
        }
        match result {
            Ok(()) => ok += 1,
            Err(e) if e.starts_with("error[CK") => limits.push((seed, e)),
            Err(e) => failed.push((seed, e)),
        }
    }
    eprintln!(
        "random kernels: {ok} agree, {} over a limit, {} differ",
        limits.len(),
        failed.len()
    );
    for (seed, e) in &limits {
        eprintln!("seed {seed}: {}", e.lines().next().unwrap_or(""));
    }
    for (seed, e) in &failed {
        eprintln!("seed {seed}: {}", e.lines().next().unwrap_or(""));
    }
    if let Some((seed, e)) = failed.first() {
        panic!("seed {seed}: {e}");
    }
}
