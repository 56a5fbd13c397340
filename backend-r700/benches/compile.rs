//! Compile time of the R700 code generator on every example with a
//! kernel, in release: `cargo bench -p ctm-backend-r700 --bench compile`.
//! Each example is measured twice: the whole pipeline from the checked
//! kernel (lowering, the IR passes at `-O2` with the R700 cost model,
//! verification, code generation with the hardware validator), and code
//! generation alone from the verified module.

use criterion::{Criterion, criterion_group, criterion_main};
use ctm_backend_r700::codegen::{Options, compile, compile_kernel, optimize_for_r700};
use ctm_frontend::Target;
use ctm_ir::passes::OptLevel;
use ctm_kernel_gen::examples::{CASES, example_program};
use std::hint::black_box;

/// The checked program of the example `name`.
fn program(name: &str) -> ctm_frontend::tast::Program {
    example_program(name, Target::R700)
}

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let mut pipeline = c.benchmark_group("r700 pipeline");
    for &(name, ..) in CASES {
        let p = program(name);
        let k = &p.kernels[0];
        pipeline.bench_function(name, |b| {
            b.iter(|| compile_kernel(black_box(&p), k, OptLevel::O2, &options).expect("compiles"))
        });
    }
    pipeline.finish();
    let mut codegen = c.benchmark_group("r700 codegen");
    for &(name, ..) in CASES {
        let p = program(name);
        let mut m = ctm_ir::lower::lower_kernel(&p, &p.kernels[0]);
        optimize_for_r700(&mut m, OptLevel::O2).expect("optimises");
        let v = ctm_ir::verify::verify(m, "bench").expect("verifies");
        codegen.bench_function(name, |b| {
            b.iter(|| compile(black_box(&v), &options).expect("compiles"))
        });
    }
    codegen.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
