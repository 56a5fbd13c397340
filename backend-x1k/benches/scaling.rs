//! Compile time against program size (issue 13): a kernel of N chained
//! `let`s (`let v{i} = v{i-1} * 1.5 + x;`) for N = 1k, 10k, 100k, stage by
//! stage: the front end (parse and check for x1k, which refuses 100k with
//! CK0054), lowering, the IR passes at
//! -O2, and x1k code generation (which refuses the larger kernels with
//! CK0072 after selection, before scheduling). `cargo bench -p
//! ctm-backend-x1k --bench scaling`; results and the growth per 10× in
//! `docs/backend-x1k.md` §7. The R700's counterpart is
//! `backend-r700/benches/scaling.rs`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ctm_backend_x1k::codegen::{Options, compile, cost::X1kCost};
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

/// The checked program, with the reference target's rules: x1k refuses
/// 100k lets early (CK0054, about 500,000 nodes), which is the point of
/// that limit, but lowering is measured on them all the same.
fn check(src: &str) -> ctm_frontend::tast::Program {
    ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::Ref,
        },
    )
    .program
    .expect("checks")
}

/// The front end as `ctmc --target x1k` runs it (diagnostics or program).
fn front_end(src: &str) -> ctm_frontend::Compiled {
    ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("lets");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000usize, 10_000, 100_000] {
        let src = lets(n);
        g.bench_with_input(BenchmarkId::new("front end", n), &src, |b, s| {
            b.iter(|| front_end(black_box(s)))
        });
        let p = check(&src);
        let k = &p.kernels[0];
        g.bench_with_input(BenchmarkId::new("lower", n), &n, |b, _| {
            b.iter(|| ctm_ir::lower::lower_kernel(black_box(&p), k))
        });
        let lowered = ctm_ir::lower::lower_kernel(&p, k);
        g.bench_with_input(BenchmarkId::new("passes -O2", n), &n, |b, _| {
            b.iter(|| ctm_ir::passes::pipeline(lowered.clone(), OptLevel::O2, &X1kCost))
        });
        let verified =
            ctm_ir::passes::pipeline(lowered.clone(), OptLevel::O2, &X1kCost).expect("optimises");
        g.bench_with_input(BenchmarkId::new("codegen", n), &n, |b, _| {
            b.iter(|| compile(black_box(&verified), &Options::default()).is_err())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
