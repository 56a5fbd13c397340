//! Throughput of the X1K processor-array simulator in lane-operations per
//! second (one lane-operation = one instruction executed for one element),
//! on one thread and on all threads: a straight-line ALU kernel (MAD with
//! co-issued alpha), a loop kernel (LOOP with aL-relative constants), a
//! texture kernel, and a mixed kernel (lookup, dot products, a divergent
//! IF/ELSE, transcendentals, a loop).
//!
//! `cargo bench -p ctm-sim --bench x1k_dpp` runs criterion (wall clock).
//! Two other modes, chosen by environment variables, measure what the
//! shared machine cannot distort:
//!
//! * `X1K_DPP_RATE=alu,loop,tex,mixed` (any subset; `all`) runs each kernel
//!   for `X1K_DPP_SECONDS` (default 3) on a one-thread pool and then on
//!   all threads, and prints lane-operations per CPU-second of the process
//!   (the sum of its threads' run time from `/proc/self/task/*/schedstat`)
//!   and per wall-clock second.
//! * `X1K_DPP_ONCE=alu` (one kernel) runs it once on one thread, for
//!   `valgrind --tool=callgrind` instruction counts.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use ctm_backend_x1k::isa::parse_program;
use ctm_sim::x1k::dpp::{DppOptions, TableMemory, run_program};
use ctm_sim::x1k::interface::Program;

fn program(text: &str) -> Program {
    let insts = parse_program(text).expect("bench program assembles");
    let end = insts.len() as u32 - 1;
    Program {
        insts,
        us_config: 0,
        us_pixsize: 7,
        us_fc_ctrl: 0x8000_0000,
        us_code_addr: end << 16,
    }
}

/// 32 co-issued MADs, then an OUT.
fn alu_kernel() -> Program {
    let mut text = String::new();
    for k in 0..32 {
        let (d, s) = (1 + k % 4, k % 4);
        text.push_str(&format!(
            "alu r{d}.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r{d}.a = mad(s0.a, s1.a, s2.a) ; s0=r{s} s1=c0 s2=c1\n"
        ));
    }
    text.push_str("out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r4 sem_wait\n");
    program(&text)
}

/// LOOP × 32 of two instructions, then an OUT.
fn loop_kernel() -> Program {
    program(
        "fc loop 4 int=i0
         alu r1.rgb = mad(s0.rgb, s1.rgb, s0.rgb) ; r1.a = mad(s0.a, s1.a, s0.a) ; s0=r1 s1=c[0+aL]
         alu r2.rgb = max(s0.rgb, s1.rgb) ; r2.a = rcp(s1.a) ; s0=r2 s1=r1
         fc endloop 1 func=always jump_any int=i0
         out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r2 sem_wait",
    )
}

/// A lookup, eight ALU instructions, an OUT.
fn tex_kernel() -> Program {
    let mut text = String::from("tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\n");
    for k in 0..8 {
        let wait = if k == 0 { " sem_wait" } else { "" };
        text.push_str(&format!(
            "alu r2.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r2.a = mad(s0.a, s1.a, s2.a) ; s0=r1 s1=c0 s2=r2{wait}\n"
        ));
    }
    text.push_str("out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r2 sem_wait\n");
    program(&text)
}

/// A lookup, DP3 with an alpha DP, a divergent IF/ELSE (i < 100) with
/// output modifiers, clamp, FRC, EX2, RCP, CMP and MIN, a LOOP × 8 with
/// aL-relative constants and RSQ, an OUT.
fn mixed_kernel() -> Program {
    program(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled
         alu r2.rgb = dp3(s0.rgb, s1.rgb) ; r2.a = dp(s0.a, s1.a) ; s0=r1 s1=c0 sem_wait
         alu p.r<0 = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1=c2
         fc jump 7 func=!p pred=p.rrrr b_op0=incr b_op1=incr alu_wait
         alu r3.rgb = mad(s0.rgb, s1.rgb, s2.rgb) x2 ; r3.a = rcp(s0.a) ; s0=r2 s1=c0 s2=r1
         alu r3.rgb = frc(s0.rgb) sat ; r3.a = ex2(s0.a) d2 ; s0=r3
         fc jump 10 func=never b_op1=decr b_pop_cnt=1 b_else
         alu r3.rgb = cmp(s0.rgb, s1.rgb, s2.rgb) ; r3.a = max(s0.a, s1.a) ; s0=r2 s1=r1 s2=r0
         alu r3.rgb = min(s0.rgb, s1.rgb) omod_off ; r3.a = mad(s0.a, s1.a, s0.a) ; s0=r3 s1=c1
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         fc loop 14 int=i1
         alu r4.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r4.a = mad(s0.a, s1.a, s2.a) ; s0=r3 s1=c[0+aL] s2=r4
         alu r4.rgb = max(s0.rgb, s1.rgb) ; r4.a = rsq(s1.a) ; s0=r4 s1=r3
         fc endloop 11 func=always jump_any int=i1
         out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r4 sem_wait",
    )
}

fn memory() -> TableMemory {
    let mut mem = TableMemory::default();
    for k in 0..64u8 {
        mem.set_constant(k, [0.5, 0.25, 1.0, 0.125]);
    }
    mem.set_constant(2, [100.0; 4]);
    mem.set_loop(0, 32, 0, 1);
    mem.set_loop(1, 8, 0, 1);
    let texels = (0..256 * 256).map(|k| [k as f32, 1.0, 2.0, 3.0]).collect();
    mem.set_input(0, 256, 256, texels);
    mem
}

fn elements() -> Vec<(u32, u32)> {
    (0..256u32)
        .flat_map(|j| (0..256).map(move |i| (i, j)))
        .collect()
}

fn kernels() -> [(&'static str, Program); 4] {
    [
        ("alu", alu_kernel()),
        ("loop", loop_kernel()),
        ("tex", tex_kernel()),
        ("mixed", mixed_kernel()),
    ]
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
}

fn bench(c: &mut Criterion) {
    let elements = elements();
    let mem = memory();
    let options = DppOptions::default();
    let one = one_thread();
    let mut group = c.benchmark_group("x1k_dpp");
    group.sample_size(10);
    for (name, prog) in kernels() {
        let probe = run_program(&prog, &elements, &mem, &options).expect("bench kernel runs");
        let lane_ops = probe.stats.element_instructions;
        group.throughput(Throughput::Elements(lane_ops));
        group.bench_function(format!("{name}/1-thread"), |b| {
            b.iter(|| one.install(|| run_program(&prog, &elements, &mem, &options)))
        });
        group.bench_function(format!("{name}/all-threads"), |b| {
            b.iter(|| run_program(&prog, &elements, &mem, &options))
        });
    }
    group.finish();
}

/// CPU time of the whole process (all threads), from the scheduler's
/// per-thread run times; `None` where `/proc` is unavailable.
fn process_cpu() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path().join("schedstat");
        let text = std::fs::read_to_string(path).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

/// Run `f` repeatedly for about `seconds`; per run, (wall, process CPU).
fn measure(seconds: f64, mut f: impl FnMut()) -> Vec<(Duration, Duration)> {
    f(); // warm up
    let start = Instant::now();
    let mut runs = Vec::new();
    while runs.is_empty() || start.elapsed().as_secs_f64() < seconds {
        let (cpu0, t0) = (process_cpu().unwrap_or_default(), Instant::now());
        f();
        let wall = t0.elapsed();
        runs.push((wall, process_cpu().unwrap_or_default().saturating_sub(cpu0)));
    }
    runs
}

/// Lane-operations per second (millions) from per-run times: the median
/// run by CPU time, and the fastest run by wall-clock time (the least
/// disturbed by other jobs).
fn rates(ops: f64, runs: &[(Duration, Duration)]) -> (f64, f64) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let cpu = median(runs.iter().map(|r| r.1.as_secs_f64()).collect());
    let best = runs
        .iter()
        .map(|r| r.0.as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    (ops / cpu / 1e6, ops / best / 1e6)
}

fn rate_mode(spec: &str) {
    let seconds = std::env::var("X1K_DPP_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let elements = elements();
    let mem = memory();
    let options = DppOptions::default();
    let one = one_thread();
    let threads = rayon::current_num_threads();
    println!(
        "kernel  lane-ops/run | 1 thread: M/CPU-s (median) M/s (best wall) | {threads} threads: M/CPU-s (median) M/s (best wall)"
    );
    for (name, prog) in kernels() {
        if spec != "all" && !spec.split(',').any(|s| s == name) {
            continue;
        }
        let probe = run_program(&prog, &elements, &mem, &options).expect("bench kernel runs");
        let ops = probe.stats.element_instructions as f64;
        let single = rates(
            ops,
            &measure(seconds, || {
                one.install(|| run_program(&prog, &elements, &mem, &options))
                    .expect("runs");
            }),
        );
        let all = rates(
            ops,
            &measure(seconds, || {
                run_program(&prog, &elements, &mem, &options).expect("runs");
            }),
        );
        println!(
            "{name:<6} {ops:>13} | {:>8.1} {:>8.1} | {:>8.1} {:>8.1}",
            single.0, single.1, all.0, all.1
        );
    }
}

fn main() {
    if let Ok(name) = std::env::var("X1K_DPP_ONCE") {
        let (elements, mem, options) = (elements(), memory(), DppOptions::default());
        for (_, prog) in kernels().into_iter().filter(|(n, _)| *n == name) {
            let run = one_thread().install(|| run_program(&prog, &elements, &mem, &options));
            let run = run.expect("bench kernel runs");
            println!("{name}: {} lane-ops", run.stats.element_instructions);
        }
        return;
    }
    if let Ok(spec) = std::env::var("X1K_DPP_RATE") {
        rate_mode(&spec);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
