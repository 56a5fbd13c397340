//! Throughput of the X1K processor-array simulator in lane-operations per
//! second (one lane-operation = one instruction executed for one element),
//! on one thread and on all threads: a straight-line ALU kernel (MAD with
//! co-issued alpha), a loop kernel (LOOP with aL-relative constants), and a
//! texture kernel.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

/// LOOP × 32 of three instructions, then an OUT.
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

fn memory() -> TableMemory {
    let mut mem = TableMemory::default();
    for k in 0..64u8 {
        mem.set_constant(k, [0.5, 0.25, 1.0, 0.125]);
    }
    mem.set_loop(0, 32, 0, 1);
    let texels = (0..256 * 256).map(|k| [k as f32, 1.0, 2.0, 3.0]).collect();
    mem.set_input(0, 256, 256, texels);
    mem
}

fn bench(c: &mut Criterion) {
    let elements: Vec<(u32, u32)> = (0..256u32)
        .flat_map(|j| (0..256).map(move |i| (i, j)))
        .collect();
    let mem = memory();
    let options = DppOptions::default();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let mut group = c.benchmark_group("x1k_dpp");
    group.sample_size(10);
    for (name, prog) in [
        ("alu", alu_kernel()),
        ("loop", loop_kernel()),
        ("tex", tex_kernel()),
    ] {
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

criterion_group!(benches, bench);
criterion_main!(benches);
