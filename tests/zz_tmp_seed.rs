use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Target};
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};
#[test]
fn dump() {
    let seed = 926125u64;
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let g = generate(seed, &options);
    let checked = ctm_frontend::compile(
        &g.source,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = checked.program.unwrap();
    let kernel = program
        .kernels
        .iter()
        .find(|k| k.name == g.kernel_name)
        .unwrap();
    let args = random_args(kernel, (9, 5), seed, NumericsMode::Robust);
    eprintln!("ARGS {:?}", args);
    let want = run_kernel(&program, kernel, &args, &RunOptions::default()).unwrap();
    eprintln!("WANT {:?}", want.outputs[0]);
}
