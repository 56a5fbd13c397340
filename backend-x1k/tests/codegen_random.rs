//! Differential test over generated kernels: each of 320 robust x1k
//! kernels (`ctm_frontend::gen`) is compiled at `-O2`, run on the DPP
//! simulator (hazards fault) on two random input sets and compared with
//! the reference interpreter within the kernel's spec §7 tolerance; every
//! fifth kernel is also compiled at `-O0` and another fifth at `-O1` (the
//! code generator must take the IR as any level leaves it: loops not
//! unrolled, counters still computed, dead ports). A kernel over a
//! hardware limit (a `CK` code) counts separately; any other difference
//! fails the test.

mod codegen_common;

use codegen_common::check_at;
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};

/// Kernels per run (`CTM_RANDOM_KERNELS` overrides; `CTM_RANDOM_FIRST`
/// sets the first seed; `CTM_RANDOM_DUMP=DIR` writes the source of each
/// failing kernel to `DIR/seed-N-LEVEL.ck`).
const KERNELS: u64 = 320;

/// The levels seed `seed` is compiled at: `-O2` always, `-O0` for every
/// fifth seed and `-O1` for another fifth (64 kernels each of the 320);
/// `CTM_RANDOM_ALL_LEVELS=1` compiles every kernel at every level.
fn levels(seed: u64, all: bool) -> Vec<OptLevel> {
    match seed % 5 {
        _ if all => vec![OptLevel::O2, OptLevel::O1, OptLevel::O0],
        0 => vec![OptLevel::O2, OptLevel::O0],
        2 => vec![OptLevel::O2, OptLevel::O1],
        _ => vec![OptLevel::O2],
    }
}

#[test]
fn random_kernels_agree_with_the_reference() {
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut ok, mut failed, mut limits) = (0, Vec::new(), Vec::new());
    let mut per_level = [0usize; 3];
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let first = env("CTM_RANDOM_FIRST", 0);
    let all = env("CTM_RANDOM_ALL_LEVELS", 0) == 1;
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
        for level in levels(seed, all) {
            let mut result = Ok(());
            for (set, domain) in [(0u64, (7, 5)), (1, (13, 4))] {
                let args = random_args(k, domain, seed * 2 + set, NumericsMode::Robust);
                if let Err(e) = check_at(&program, k, &args, g.tolerance(), level, &|_, _, _| None)
                {
                    result = Err(e);
                    break;
                }
            }
            per_level[level as usize] += 1;
            if let (Err(e), Ok(dir)) = (&result, std::env::var("CTM_RANDOM_DUMP")) {
                let path = std::path::Path::new(&dir).join(format!("seed-{seed}-{level:?}.ck"));
                std::fs::write(&path, format!("{}\n/*\n{e}\n*/\n", g.source)).expect("dump");
            }
            match result {
                Ok(()) => ok += 1,
                Err(e) if e.starts_with("error[CK") => limits.push((seed, level, e)),
                Err(e) => failed.push((seed, level, e)),
            }
        }
    }
    eprintln!(
        "random kernels (runs at O0/O1/O2: {per_level:?}): {ok} agree, {} over a limit, {} differ",
        limits.len(),
        failed.len()
    );
    for (seed, level, e) in &limits {
        eprintln!("seed {seed} {level:?}: {}", e.lines().next().unwrap_or(""));
    }
    for (seed, level, e) in &failed {
        eprintln!("seed {seed} {level:?}: {}", e.lines().next().unwrap_or(""));
    }
    if let Some((seed, level, e)) = failed.first() {
        panic!("seed {seed} at {level:?}: {e}");
    }
}
