//! Throughput of the reference interpreter, in operations per second (the
//! `operations` count of [`RefStats`](ctm_frontend::interp::RefStats)), on
//! one thread and on the whole rayon pool.
//!
//! Kernels: `saxpy` (`r = a * x + y`, 6 operations an element) and
//! `mandelbrot` (up to 64 iterations of `z = z^2 + c` an element).
//!
//! Run with `cargo bench -p ctm-frontend --bench interp`; criterion's
//! "elem/s" is operations per second.

#[path = "../tests/interp_builder/mod.rs"]
mod interp_builder;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctm_frontend::data::{KernelArgs, ParamData};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::tast::{Builtin, LoopBound, Program};
use ctm_frontend::types::{OutputType, StreamType, Type};
use ctm_frontend::value::Value;
use interp_builder::*;

/// `kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) { r = a * x + y; }`
fn saxpy() -> Program {
    let mut kb = KernelBuilder::new("saxpy");
    let a = kb.uniform("a", Type::F32);
    let x = kb.input("x", StreamType::F32);
    let y = kb.input("y", StreamType::F32);
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![out(r, add(mul(uniform(a), input(x)), input(y)))]);
    program(vec![], vec![kernel], vec![])
}

/// ```text
/// kernel mandelbrot(r: Out<f32>) {
///     let c = index() / domain() * vec2(3.0, 2.0) - vec2(2.0, 1.0);
///     let mut z = vec2(0.0, 0.0);
///     let mut n = 0.0;
///     for k in 0..64 {
///         if dot(z, z) > 4.0 { break; }
///         z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
///         n += 1.0;
///     }
///     r = n / 64.0;
/// }
/// ```
fn mandelbrot() -> Program {
    let mut kb = KernelBuilder::new("mandelbrot");
    let r = kb.output("r", OutputType::F32);
    let c = kb.var("c", Type::Vec2);
    let z = kb.var("z", Type::Vec2);
    let n = kb.var("n", Type::F32);
    let k = kb.var("k", Type::I32);
    let div = |a, b| bin(ctm_frontend::tast::BinaryOp::Div, a, b);
    let zx = || swz(z.get(), "x");
    let zy = || swz(z.get(), "y");
    let kernel = kb.build(vec![
        let_(
            c,
            sub(
                mul(div(index(), domain()), vecl(&[3.0, 2.0])),
                vecl(&[2.0, 1.0]),
            ),
        ),
        let_(z, vecl(&[0.0, 0.0])),
        let_(n, f(0.0)),
        for_(
            k,
            LoopBound::Const(0),
            LoopBound::Const(64),
            vec![
                if_(
                    gt(builtin(Builtin::Dot, vec![z.get(), z.get()]), f(4.0)),
                    vec![brk()],
                ),
                assign(
                    z,
                    add(
                        construct(vec![
                            sub(mul(zx(), zx()), mul(zy(), zy())),
                            mul(mul(f(2.0), zx()), zy()),
                        ]),
                        c.get(),
                    ),
                ),
                add_assign(n, f(1.0)),
            ],
        ),
        out(r, div(n.get(), f(64.0))),
    ]);
    program(vec![], vec![kernel], vec![])
}

fn saxpy_args(side: usize) -> KernelArgs {
    let xs: Vec<f32> = (0..side * side).map(|k| k as f32 * 0.5).collect();
    let ys: Vec<f32> = (0..side * side).map(|k| 1.0 - k as f32).collect();
    KernelArgs {
        domain: (side, side),
        params: vec![
            value(Value::f32(2.5)),
            stream(floats(side, side, 1, xs)),
            stream(floats(side, side, 1, ys)),
            ParamData::Output,
        ],
    }
}

fn bench(c: &mut Criterion, name: &str, program: &Program, args: &KernelArgs) {
    let options = RunOptions::default();
    let kernel = &program.kernels[0];
    let operations = run_kernel(program, kernel, args, &options)
        .expect("benchmark kernel runs")
        .stats
        .operations;
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(operations));
    group.sample_size(10);
    group.bench_function("one_thread", |b| {
        b.iter(|| one_thread.install(|| run_kernel(program, kernel, args, &options)))
    });
    group.bench_function("all_threads", |b| {
        b.iter(|| run_kernel(program, kernel, args, &options))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench(c, "saxpy_512x512", &saxpy(), &saxpy_args(512));
    let side = 256;
    let args = KernelArgs {
        domain: (side, side),
        params: vec![ParamData::Output],
    };
    bench(c, "mandelbrot_256x256", &mandelbrot(), &args);
}

criterion_group!(interp, benches);
criterion_main!(interp);
