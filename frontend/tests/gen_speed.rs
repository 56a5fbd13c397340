//! How fast the generator is (`cargo test --release --test gen_speed --
//! --nocapture`): kernels generated per second, per second checked and
//! run, and what parsing and compiling one costs. Asserts only floors far
//! below the measured speeds, to catch a runaway.

use ctm_frontend::r#gen::{GenOptions, NumericsMode, generate, random_args};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Target};
use std::time::Instant;

#[test]
fn generation_speed() {
    for mode in [NumericsMode::Exact, NumericsMode::Robust] {
        let o = GenOptions::new(Target::R700, mode);
        let n = 2000u64;
        let start = Instant::now();
        let mut bytes = 0;
        for seed in 0..n {
            bytes += generate(seed, &o).source.len();
        }
        let gen_s = start.elapsed().as_secs_f64();
        let start = Instant::now();
        for seed in 0..n / 4 {
            let k = generate(seed, &o);
            let (p, _) = ctm_frontend::check::check(&k.file, &CheckOptions { target: k.target });
            let p = p.expect("checks");
            let kernel = p.kernel(&k.kernel_name).expect("kernel");
            let args = random_args(kernel, (4, 3), seed, mode);
            run_kernel(&p, kernel, &args, &RunOptions::default()).expect("runs");
        }
        let all_s = start.elapsed().as_secs_f64();
        println!(
            "{mode:?}: {:.0} kernels/s generated ({:.0} bytes each); {:.0} kernels/s generated, checked and run on 4x3",
            n as f64 / gen_s,
            bytes as f64 / n as f64,
            (n / 4) as f64 / all_s
        );
        assert!(n as f64 / gen_s > 50.0, "generation is very slow");
    }
}

#[test]
fn compile_speed() {
    let o = GenOptions::new(Target::R700, NumericsMode::Exact);
    let ks: Vec<_> = (0..500).map(|s| generate(s, &o)).collect();
    let start = Instant::now();
    for k in &ks {
        let _ = ctm_frontend::parser::parse(&k.source);
    }
    let parse = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for k in &ks {
        let _ = ctm_frontend::compile(&k.source, &CheckOptions { target: k.target });
    }
    let comp = start.elapsed().as_secs_f64();
    let start = Instant::now();
    for k in &ks {
        let _ = ctm_frontend::check::check(&k.file, &CheckOptions { target: k.target });
    }
    let check = start.elapsed().as_secs_f64();
    println!(
        "per kernel: parse {:.3} ms, compile {:.3} ms, check the tree {:.3} ms",
        parse * 2.0,
        comp * 2.0,
        check * 2.0
    );
    assert!(comp < 25.0, "compiling 500 kernels took {comp} s");
}
