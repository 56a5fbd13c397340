//! Speed of the front end: parsing a megabyte of realistic kernels and a
//! megabyte of each kind of hostile input, and generating, parsing,
//! checking and interpreting random kernels.
//!
//! Run with `cargo bench -p ctm-frontend --bench frontend` (add
//! `-- --warm-up-time 1 --measurement-time 3` for a quick look).
//! Criterion's throughput is bytes per second for parsing and kernels per
//! second for the generator groups.

#[path = "../tests/parse_support/hostile.rs"]
mod hostile;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Target};
use ctm_kernel_gen::{GenOptions, NumericsMode, generate, random_args};
use std::hint::black_box;

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse 1 MB");
    group.sample_size(10);
    let mut cases = vec![("kernels", hostile::megabyte_of_kernels())];
    cases.extend(hostile::hostile_cases());
    for (name, source) in cases {
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &source, |b, s| {
            b.iter(|| ctm_frontend::parser::parse(black_box(s)).1.len())
        });
    }
    group.finish();
}

fn generator(c: &mut Criterion) {
    let mut group = c.benchmark_group("generated kernels");
    for mode in [NumericsMode::Exact, NumericsMode::Robust] {
        let o = GenOptions::new(Target::R700, mode);
        let kernels: Vec<_> = (0..100).map(|s| generate(s, &o)).collect();
        group.throughput(Throughput::Elements(kernels.len() as u64));
        group.bench_function(format!("generate {mode:?}"), |b| {
            b.iter(|| {
                (0..100)
                    .map(|s| generate(s, &o).source.len())
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("compile {mode:?}"), |b| {
            b.iter(|| {
                kernels
                    .iter()
                    .filter(|k| {
                        ctm_frontend::compile(&k.source, &CheckOptions { target: k.target })
                            .program
                            .is_some()
                    })
                    .count()
            })
        });
        group.bench_function(format!("check and run on 4x3 {mode:?}"), |b| {
            b.iter(|| {
                for (seed, k) in kernels.iter().enumerate() {
                    let (p, _) =
                        ctm_frontend::check::check(&k.file, &CheckOptions { target: k.target });
                    let p = p.expect("checks");
                    let kernel = p.kernel(&k.kernel_name).expect("kernel");
                    let args = random_args(kernel, (4, 3), seed as u64, mode);
                    run_kernel(&p, kernel, &args, &RunOptions::default()).expect("runs");
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, parse, generator);
criterion_main!(benches);
