//! Compile time of the R700 code generator on every example with a
//! kernel, in release: `cargo bench -p ctm-backend-r700 --bench compile`.
//! Each example is measured twice: the whole pipeline from the checked
//! kernel (lowering, the IR passes at `-O2` with the R700 cost model,
//! verification, code generation with the hardware validator), and code
//! generation alone from the verified module.

use criterion::{Criterion, criterion_group, criterion_main};
use ctm_backend_r700::codegen::{Options, compile, compile_kernel, optimize_for_r700};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use std::hint::black_box;
use std::path::Path;

const EXAMPLES: &[&str] = &[
    "black_scholes",
    "blend",
    "cbrt",
    "collatz",
    "convolution",
    "grayscale",
    "hash",
    "mandelbrot",
    "matmul",
    "nbody",
    "normals",
    "polynomial",
    "ripple",
    "saxpy",
    "threshold",
    "tonemap",
    "transform",
    "transpose",
];

fn program(name: &str) -> ctm_frontend::tast::Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/{name}.ck"));
    let src = std::fs::read_to_string(path).expect("example");
    ctm_frontend::compile(
        &src,
        &CheckOptions {
            target: Target::R700,
        },
    )
    .program
    .expect("checks")
}

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let mut pipeline = c.benchmark_group("r700 pipeline");
    for name in EXAMPLES {
        let p = program(name);
        let k = &p.kernels[0];
        pipeline.bench_function(*name, |b| {
            b.iter(|| compile_kernel(black_box(&p), k, OptLevel::O2, &options).expect("compiles"))
        });
    }
    pipeline.finish();
    let mut codegen = c.benchmark_group("r700 codegen");
    for name in EXAMPLES {
        let p = program(name);
        let mut m = ctm_ir::lower::lower_kernel(&p, &p.kernels[0]);
        optimize_for_r700(&mut m, OptLevel::O2).expect("optimises");
        let v = ctm_ir::verify::verify(m, "bench").expect("verifies");
        codegen.bench_function(*name, |b| {
            b.iter(|| compile(black_box(&v), &options).expect("compiles"))
        });
    }
    codegen.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
