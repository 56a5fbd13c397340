//! Random differential on both targets through the driver (issue 10):
//! generated kernels (`ctm_kernel_gen`, robust numerics, each target's
//! language subset) are compiled at `-O2` (every fifth seed also at
//! `-O0`, another fifth at `-O1`), launched by the driver's target layer
//! (`ctm::simulate::run_kernel`: the ELF, the loader of
//! `docs/abi-x1k.md`/`docs/abi-r700.md`, the simulated device) and compared
//! with the reference interpreter within the kernel's spec §7 tolerance.
//!
//! The crates' own differential tests (`backend-*/tests/codegen_random.rs`)
//! run the simulators with their own launch; this one goes through the
//! driver's, on seeds of its own (from 200 000). Per run: 250 kernels per
//! target, 500 in all (`CTM_RANDOM_KERNELS` overrides the count per
//! target, `CTM_RANDOM_FIRST` the first seed, to run thousands locally).
//! A kernel over a hardware limit is a diagnostic and counts apart; any
//! other failure, and a wrong answer above all, fails the test.

use ctm::compare::values_match;
use ctm::simulate::SimulateOptions;
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};

const KERNELS: u64 = 250;
const FIRST_SEED: u64 = 200_000;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn levels(seed: u64) -> Vec<OptLevel> {
    match seed % 5 {
        0 => vec![OptLevel::O2, OptLevel::O0],
        2 => vec![OptLevel::O2, OptLevel::O1],
        _ => vec![OptLevel::O2],
    }
}

/// Runs one seed on `target`; `Ok(false)` when over a hardware limit.
fn one(seed: u64, front: Target, target: ctm::Target) -> Result<bool, String> {
    let options = GenOptions::new(front, NumericsMode::Robust);
    let g = generate(seed, &options);
    let checked = ctm_frontend::compile(&g.source, &CheckOptions { target: front });
    let program = checked
        .program
        .ok_or_else(|| format!("does not check:\n{}", g.source))?;
    let kernel = program
        .kernels
        .iter()
        .find(|k| k.name == g.kernel_name)
        .ok_or("no generated kernel")?;
    let args = random_args(kernel, (9, 5), seed, NumericsMode::Robust);
    let want = run_kernel(&program, kernel, &args, &RunOptions::default())
        .map_err(|e| format!("reference: {e}"))?;
    let machine = ctm::machine(target).ok_or("no machine")?;
    for level in levels(seed) {
        let compilation = ctm::compile(
            &g.source,
            &ctm::CompileOptions {
                target,
                kernel: Some(g.kernel_name.clone()),
                opt_level: level,
            },
        )
        .map_err(|e| format!("{level:?}: {e}\n{}", g.source))?;
        let code = match ctm::pipeline::compile_entry(None, &compilation, machine, None) {
            Ok(p) => p,
            Err(ctm::CodegenFailure::Limit(_)) => return Ok(false),
            Err(e) => return Err(format!("{level:?}: {e}\n{}", g.source)),
        };
        let got = ctm::simulate::run_kernel(
            machine,
            code.as_ref(),
            &kernel.params,
            &args,
            &SimulateOptions::default(),
        )
        .map_err(|e| format!("{level:?}: {e}\n{}", g.source))?;
        for w in &want.outputs {
            let o = got
                .outputs
                .iter()
                .find(|o| o.name == w.name)
                .ok_or_else(|| format!("no output `{}`", w.name))?;
            let (gv, wv) = (
                o.data.as_f32().ok_or("not f32")?,
                w.data.as_f32().ok_or("reference not f32")?,
            );
            if gv.len() != wv.len() {
                return Err(format!("`{}`: length {} vs {}", w.name, gv.len(), wv.len()));
            }
            for (k, (a, b)) in gv.iter().zip(wv).enumerate() {
                if !values_match(*a, *b, f64::from(g.tolerance())) {
                    return Err(format!(
                        "{level:?}: `{}`[{k}]: got {a}, reference {b}\n{}",
                        w.name, g.source
                    ));
                }
            }
        }
    }
    Ok(true)
}

fn run_target(front: Target, target: ctm::Target) {
    let first = env("CTM_RANDOM_FIRST", FIRST_SEED);
    let count = env("CTM_RANDOM_KERNELS", KERNELS);
    let (mut agree, mut over_limit, mut failed) = (0u64, 0u64, Vec::new());
    for seed in first..first + count {
        match one(seed, front, target) {
            Ok(true) => agree += 1,
            Ok(false) => over_limit += 1,
            Err(e) => failed.push(format!("seed {seed}: {e}")),
        }
    }
    eprintln!(
        "{target:?}: {agree} of {count} random kernels agree through the driver, \
         {over_limit} over a limit, {} failed",
        failed.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert!(agree * 10 >= count * 9, "only {agree} of {count} ran");
}

#[test]
fn random_kernels_on_the_r700_through_the_driver() {
    run_target(Target::R700, ctm::Target::R700);
}

#[test]
fn random_kernels_on_the_x1k_through_the_driver() {
    run_target(Target::X1k, ctm::Target::X1k);
}
