//! Random kernels through the path `--simulate` takes: each generated x1k
//! kernel (`ctm_frontend::gen`, robust numerics) is compiled at `-O2` and
//! launched by the driver (`ctm::simulate::run_kernel`: ELF, memory image of
//! inputs, constants, loop counters and booleans laid out from the
//! bindings, command buffer, device), and every output is compared with
//! the reference interpreter within the kernel's spec §7 tolerance.
//!
//! `backend-x1k/tests/codegen_random.rs` runs 320 kernels on the processor
//! array directly, with the test's own memory layout; this runs other
//! seeds through the driver's, so a slip in the launch (a constant in the
//! wrong register, a loop count packed wrongly) cannot hide behind a
//! layout the test computed the same way.

use ctm::compare::values_match;
use ctm::simulate::SimulateOptions;
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};

/// Kernels per run, and the first seed (after those of `codegen_random`).
const KERNELS: u64 = 64;
const FIRST_SEED: u64 = 100_000;

#[test]
fn random_kernels_through_the_device_agree_with_the_reference() {
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut agree, mut over_limit) = (0, 0);
    for seed in FIRST_SEED..FIRST_SEED + KERNELS {
        let g = generate(seed, &options);
        let checked = ctm_frontend::compile(
            &g.source,
            &CheckOptions {
                target: Target::X1k,
            },
        );
        let program = checked
            .program
            .unwrap_or_else(|| panic!("seed {seed} does not check:\n{}", g.source));
        let kernel = program
            .kernels
            .iter()
            .find(|k| k.name == g.kernel_name)
            .expect("the generated kernel");
        let compilation = ctm::compile(
            &g.source,
            &ctm::CompileOptions {
                target: ctm::Target::X1k,
                kernel: Some(g.kernel_name.clone()),
                opt_level: OptLevel::O2,
            },
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let x1k = ctm::machine(ctm::Target::X1k).expect("x1k");
        let machine = match ctm::pipeline::compile_entry(None, &compilation, x1k, None) {
            Ok(p) => p,
            // A kernel over a hardware limit is a diagnostic, not a result.
            Err(ctm::CodegenFailure::Limit(_)) => {
                over_limit += 1;
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}\n{}", g.source),
        };
        let args = random_args(kernel, (9, 5), seed, NumericsMode::Robust);
        let want = run_kernel(&program, kernel, &args, &RunOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: reference: {e}"));
        let got = ctm::simulate::run_kernel(
            x1k,
            machine.as_ref(),
            &kernel.params,
            &args,
            &SimulateOptions::default(),
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", g.source));
        for w in &want.outputs {
            let g_out = got
                .outputs
                .iter()
                .find(|o| o.name == w.name)
                .unwrap_or_else(|| panic!("seed {seed}: no output `{}`", w.name));
            let (gv, wv) = (
                g_out.data.as_f32().expect("f32 output"),
                w.data.as_f32().expect("f32 reference"),
            );
            assert_eq!(gv.len(), wv.len(), "seed {seed}: `{}`", w.name);
            for (k, (a, b)) in gv.iter().zip(wv).enumerate() {
                assert!(
                    values_match(*a, *b, f64::from(g.tolerance())),
                    "seed {seed}: `{}`[{k}]: got {a}, reference {b}\n{}",
                    w.name,
                    g.source
                );
            }
        }
        agree += 1;
    }
    eprintln!("{agree} random kernels agree through the device, {over_limit} over a limit");
    assert!(agree * 10 >= KERNELS * 9, "only {agree} of {KERNELS} ran");
}
