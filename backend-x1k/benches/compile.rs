//! Compile time of the X1K code generator on every example, in release:
//! `cargo bench -p ctm-backend-x1k --bench compile`. Each example is
//! measured twice: the whole pipeline from the checked kernel (lowering,
//! the IR passes at `-O2`, verification, code generation with the
//! validator and the allocation checker), and code generation alone from
//! the verified module.

use criterion::{Criterion, criterion_group, criterion_main};
use ctm_backend_x1k::codegen::{Options, compile, compile_kernel, cost::X1kCost};
use ctm_frontend::Target;
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::examples::{X1K_CASES, example_program};
use std::hint::black_box;

/// The checked program of the example `name`.
fn program(name: &str) -> ctm_frontend::tast::Program {
    example_program(name, Target::X1k)
}

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let mut pipeline = c.benchmark_group("x1k pipeline");
    for &(name, ..) in X1K_CASES {
        let p = program(name);
        let k = &p.kernels[0];
        pipeline.bench_function(name, |b| {
            b.iter(|| compile_kernel(black_box(&p), k, OptLevel::O2, &options).expect("compiles"))
        });
    }
    pipeline.finish();
    let mut codegen = c.benchmark_group("x1k codegen");
    for &(name, ..) in X1K_CASES {
        let p = program(name);
        let m = ctm_ir::lower::lower_kernel(&p, &p.kernels[0]);
        let v = ctm_ir::passes::pipeline(m, OptLevel::O2, &X1kCost).expect("optimises");
        codegen.bench_function(name, |b| {
            b.iter(|| compile(black_box(&v), &options).expect("compiles"))
        });
    }
    codegen.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_millis(800));
    targets = bench
}
criterion_main!(benches);
