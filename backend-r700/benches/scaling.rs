//! Compile time against program size on the R700 (issue 13): a kernel of
//! N chained `let`s (`let v{i} = v{i-1} * 1.5 + x;`, the shape of
//! `backend-x1k/benches/scaling.rs`) for N = 1k, 10k, 100k, stage by stage:
//! lowering (of the program checked with the reference target's rules,
//! since the front end refuses 100k with CK0054), the IR passes at -O2 with
//! the R700 cost model, and R700 code generation with the validator (the
//! R700 has no 512-slot limit: it compiles all three).
//! `cargo bench -p ctm-backend-r700 --bench scaling`; results and the
//! growth per 10× in `docs/backend-r700.md` (compile time against size).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctm_backend_r700::codegen::{Options, compile, cost::R700Cost};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use std::hint::black_box;
use std::time::Duration;

/// The source of a kernel of `n` chained `let`s.
fn lets(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let v0 = x;\n");
    for i in 1..=n {
        s.push_str(&format!("    let v{i} = v{} * 1.5 + x;\n", i - 1));
    }
    s.push_str(&format!("    r = v{n};\n}}\n"));
    s
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("r700 lets");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000usize, 10_000, 100_000] {
        let p = ctm_frontend::compile(
            &lets(n),
            &CheckOptions {
                target: Target::Ref,
            },
        )
        .program
        .expect("checks");
        let k = &p.kernels[0];
        g.bench_with_input(BenchmarkId::new("lower", n), &n, |b, _| {
            b.iter(|| ctm_ir::lower::lower_kernel(black_box(&p), k))
        });
        let lowered = ctm_ir::lower::lower_kernel(&p, k);
        g.bench_with_input(BenchmarkId::new("passes -O2", n), &n, |b, _| {
            b.iter(|| ctm_ir::passes::pipeline(lowered.clone(), OptLevel::O2, &R700Cost))
        });
        let verified =
            ctm_ir::passes::pipeline(lowered.clone(), OptLevel::O2, &R700Cost).expect("optimises");
        g.bench_with_input(BenchmarkId::new("codegen", n), &n, |b, _| {
            b.iter(|| compile(black_box(&verified), &Options::default()).is_ok())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
