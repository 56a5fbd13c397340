//! Throughput of the R700 simulator in lane-operations per second (one
//! lane-operation = one ALU instruction executed for one thread), on one
//! thread and on all threads, over a 256×256 domain (1024 wavefronts):
//!
//! * `alu`: 100 full groups (four MULADDs and a Trans MUL each), the
//!   ALU-heavy case the 200 M lane-ops/s/core target is about;
//! * `loop`: a DX9 loop of 32 iterations of four groups with aL-relative
//!   constant-file reads;
//! * `tex`: a TEX clause then 16 groups;
//! * `llvm`: the LLVM-compiled `nested_flow` fixture (divergent loops).
//!
//! `cargo bench -p ctm-sim --bench r700` runs criterion (wall clock).
//! `R700_RATE=alu,loop,tex,llvm` (or `all`) instead runs each kernel for
//! `R700_SECONDS` (default 3) on one thread and on all threads and prints
//! lane-operations per CPU-second of the process (from
//! `/proc/self/task/*/schedstat`) and per wall-clock second.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use ctm_backend_r700::isa::*;
use ctm_sim::r700::{Config, Launch, Machine, TexFormat, Texture};

const X: Chan = Chan::X;

fn gpr(n: u32) -> Gpr {
    Gpr::new(n).expect("gpr")
}

fn src(g: u32, c: Chan) -> AluSrc {
    AluSrc::gpr(gpr(g), c)
}

fn dst(g: u32, c: Chan) -> AluDst {
    AluDst {
        gpr: gpr(g),
        rel: false,
        chan: c,
    }
}

fn kc(i: u32, c: Chan) -> AluSrc {
    AluSrc::new(AluSrcSel::Kcache0(KcacheIndex::new(i).expect("kc")), c)
}

fn cf_alu(addr: u32, slots: usize, kcache: bool) -> CfInst {
    CfInst::Alu(CfAlu {
        op: CfAluOp::Alu,
        addr: AluClauseAddr::new(addr).expect("addr"),
        count: AluSlotCount::new(slots as u32).expect("count"),
        kcache: [
            if kcache {
                Kcache {
                    mode: KcacheMode::Lock2,
                    bank: KcacheBank::new(0).expect("bank"),
                    line: 0,
                }
            } else {
                Kcache::default()
            },
            Kcache::default(),
        ],
        alt_const: false,
        whole_quad_mode: false,
        barrier: false,
    })
}

fn export(rw: u32) -> CfInst {
    CfInst::Export(CfExport {
        op: CfExportOp::ExportDone,
        export_type: ExportType::Pixel,
        swizzle: [Sel::X, Sel::Y, Sel::Z, Sel::W],
        io: CfAllocIo {
            rw_gpr: gpr(rw),
            flags: CfFlags {
                end_of_program: true,
                ..CfFlags::default()
            },
            ..CfAllocIo::default()
        },
    })
}

/// One full group: R1.c = R1.c · R2.c + R3.c on X..W, R4.x = KC0[0].x · KC0[1].y on Trans.
fn full_group() -> AluGroup {
    let mut insts: Vec<AluInst> = [Chan::X, Chan::Y, Chan::Z, Chan::W]
        .iter()
        .map(|&c| {
            AluInst::op3(
                Op3::MuladdIeee,
                dst(1, c),
                [src(1, c), src(2, c), src(3, c)],
            )
        })
        .collect();
    insts.push(AluInst::op2(
        Op2::MulIeee,
        dst(4, X),
        [kc(0, X), kc(1, Chan::Y)],
    ));
    AluGroup::with_literals(&insts, &[])
}

fn alu_kernel() -> Program {
    // A clause holds at most 128 slots: 25 groups, run four times.
    let groups: Vec<AluGroup> = (0..25).map(|_| full_group()).collect();
    let clause = AluClause { groups };
    let mut cf: Vec<CfInst> = (0..4).map(|_| cf_alu(5, clause.slots(), true)).collect();
    cf.push(export(1));
    let mut p = Program {
        cf,
        ..Program::default()
    };
    p.clauses.insert(5, Clause::Alu(clause));
    p
}

fn loop_kernel() -> Program {
    let mut start = CfGeneral::new(CfOp::LoopStart);
    start.addr = 3;
    let mut end = CfGeneral::new(CfOp::LoopEnd);
    end.addr = 1;
    let body: Vec<AluGroup> = (0..4)
        .map(|k| {
            let mut c = AluSrc::new(AluSrcSel::Cfile(0), Chan::from_index(k));
            c.rel = true;
            let mut i = AluInst::op3(
                Op3::MuladdIeee,
                dst(1, Chan::from_index(k)),
                [src(1, Chan::from_index(k)), c, src(2, Chan::from_index(k))],
            );
            i.index_mode = IndexMode::Loop;
            AluGroup::with_literals(&[i], &[])
        })
        .collect();
    let clause = AluClause { groups: body };
    let mut p = Program {
        cf: vec![
            CfInst::Cf(start),
            cf_alu(5, clause.slots(), false),
            CfInst::Cf(end),
            export(1),
            CfInst::nop(),
        ],
        ..Program::default()
    };
    p.clauses.insert(5, Clause::Alu(clause));
    p
}

fn tex_kernel() -> Program {
    let tex = TexInst {
        op: TexOp::Sample,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 0,
        src_gpr: gpr(0),
        src_rel: false,
        alt_const: false,
        dst_gpr: gpr(2),
        dst_rel: false,
        dst_sel: [Sel::X, Sel::Y, Sel::Z, Sel::W],
        lod_bias: LodBias::new(0).expect("lod"),
        coord_type: [CoordType::Unnormalized; 4],
        offset: [TexOffset::new(0).expect("offset"); 3],
        sampler_id: SamplerId::new(0).expect("sampler"),
        src_sel: [TexSrcSel::X, TexSrcSel::Y, TexSrcSel::Zero, TexSrcSel::Zero],
    };
    let groups: Vec<AluGroup> = (0..16).map(|_| full_group()).collect();
    let clause = AluClause { groups };
    let mut fetch = CfGeneral::new(CfOp::Tex);
    fetch.addr = 4;
    let mut p = Program {
        cf: vec![
            CfInst::Cf(fetch),
            cf_alu(6, clause.slots(), true),
            export(1),
            CfInst::nop(),
        ],
        ..Program::default()
    };
    p.clauses
        .insert(4, Clause::Fetch(FetchClause::Tex(vec![tex])));
    p.clauses.insert(6, Clause::Alu(clause));
    p
}

fn llvm_kernel() -> Program {
    let text = include_str!("../tests/fixtures/r700/nested_flow.hex");
    let bytes: Vec<u8> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.split_whitespace())
        .map(|b| u8::from_str_radix(b, 16).expect("hex"))
        .collect();
    decode_program(&bytes).expect("fixture decodes")
}

fn launch(program: Program) -> Launch {
    let mut l = Launch::pixel_shader(program, 256, 256);
    l.set_uniform(0, [0x3F00_0000; 4]);
    l.set_uniform(1, [0x3F80_0000; 4]);
    l.set_uniform(2, [f32::to_bits(9.0), f32::to_bits(0.5), 0, 0]);
    l.cfile = (0..256).map(|k| [(k as f32 * 0.01).to_bits(); 4]).collect();
    l.loop_consts = vec![[32, 0, 1]];
    let words: Vec<u32> = (0..256 * 256 * 4).map(|k| (k as f32).to_bits()).collect();
    l.textures.insert(
        0,
        Texture::from_words(256, 256, TexFormat::Rgba32Float, &words),
    );
    l
}

fn kernels() -> [(&'static str, Launch); 4] {
    [
        ("alu", launch(alu_kernel())),
        ("loop", launch(loop_kernel())),
        ("tex", launch(tex_kernel())),
        ("llvm", launch(llvm_kernel())),
    ]
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
}

fn lane_ops(m: &Machine, l: &Launch) -> u64 {
    let r = m.run(l);
    assert!(
        r.faults.is_empty(),
        "bench kernel faults: {:?}",
        r.faults.first()
    );
    r.stats.lane_operations
}

fn bench(c: &mut Criterion) {
    let m = Machine::new(Config::default());
    let one = one_thread();
    let mut group = c.benchmark_group("r700");
    group.sample_size(10);
    for (name, l) in kernels() {
        group.throughput(Throughput::Elements(lane_ops(&m, &l)));
        group.bench_function(format!("{name}/1-thread"), |b| {
            b.iter(|| one.install(|| m.run(&l)))
        });
        group.bench_function(format!("{name}/all-threads"), |b| b.iter(|| m.run(&l)));
    }
    group.finish();
}

fn process_cpu() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path().join("schedstat");
        let text = std::fs::read_to_string(path).ok()?;
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

fn measure(seconds: f64, mut f: impl FnMut()) -> Vec<(Duration, Duration)> {
    f();
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

fn rates(ops: f64, runs: &[(Duration, Duration)]) -> (f64, f64) {
    let mut cpu: Vec<f64> = runs.iter().map(|r| r.1.as_secs_f64()).collect();
    cpu.sort_by(f64::total_cmp);
    let best = runs
        .iter()
        .map(|r| r.0.as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    (ops / cpu[cpu.len() / 2] / 1e6, ops / best / 1e6)
}

fn rate_mode(spec: &str) {
    let seconds = std::env::var("R700_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let m = Machine::new(Config::default());
    let one = one_thread();
    let threads = rayon::current_num_threads();
    println!(
        "kernel  lane-ops/run | 1 thread: M/CPU-s (median) M/s (best wall) | {threads} threads: M/CPU-s M/s"
    );
    for (name, l) in kernels() {
        if spec != "all" && !spec.split(',').any(|s| s == name) {
            continue;
        }
        let ops = lane_ops(&m, &l) as f64;
        let single = rates(
            ops,
            &measure(seconds, || {
                one.install(|| {
                    m.run(&l);
                })
            }),
        );
        let all = rates(
            ops,
            &measure(seconds, || {
                m.run(&l);
            }),
        );
        println!(
            "{name:6}  {ops:12.0} | {:8.1} {:8.1} | {:8.1} {:8.1}",
            single.0, single.1, all.0, all.1
        );
    }
}

fn main() {
    if let Ok(spec) = std::env::var("R700_RATE") {
        rate_mode(&spec);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
