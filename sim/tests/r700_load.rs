//! The loader (CAL ELF image → launch per `docs/abi-r700.md`), scatter
//! through MEM_EXPORT, the raw-run JSON of spec §10, the statistics JSON
//! of spec §9 and the Chrome trace.

mod r700_common;

use ctm_backend_r700::abi::{Bindings, OutputBinding, ScatterBinding, UniformBinding};
use ctm_backend_r700::elf::{self, Executable, Resources};
use ctm_backend_r700::isa::*;
use ctm_sim::r700::{Config, Launch, Machine, RegInit, load};
use r700_common::*;

const X: Chan = Chan::X;
const Y: Chan = Chan::Y;

fn kc(i: u32, c: Chan) -> AluSrc {
    AluSrc::new(AluSrcSel::Kcache0(KcacheIndex::new(i).unwrap()), c)
}

/// out[(i, j)] = (i·u, j, 0, 1) with u = cb0[0].x; scatter[(W−1−i, j)] = i + 100·j.
fn scatter_program() -> Program {
    let mem = CfInst::Mem(CfMem {
        op: CfMemOp::MemExport,
        access: MemAccess::WriteInd,
        array_size: ArraySize::new(0).unwrap(),
        comp_mask: CompMask::new(1).unwrap(),
        io: CfAllocIo {
            rw_gpr: gpr(3),
            index_gpr: gpr(2),
            ..CfAllocIo::default()
        },
    });
    let g1 = group(
        &[
            // R2.x = (W − 1 − i) + j·W (float), R3.x = i + 100·j.
            AluInst::op3(Op3::MuladdIeee, dst(2, X), [src(0, Y), kc(1, X), kc(1, X)]),
            AluInst::op2(Op2::MulIeee, dst(4, Chan::Z), [src(0, X), kc(0, X)]),
        ],
        &[],
    );
    let g1b = group(
        &[AluInst::op3(
            Op3::MuladdIeee,
            dst(3, X),
            [src(0, Y), AluSrc::literal(X), src(0, X)],
        )],
        &[f(100.0)],
    );
    let g2 = group(
        &[AluInst::op2(
            Op2::Add,
            dst(2, X),
            [src(2, X), {
                let mut s = src(0, X);
                s.neg = true;
                s
            }],
        )],
        &[],
    );
    let g3 = group(
        &[AluInst::op2(
            Op2::Add,
            dst(2, X),
            [src(2, X), AluSrc::inline(InlineConst::One)],
        )],
        &[],
    );
    let mut g3n = g3.clone();
    if let AluForm::Op2(fm) = &mut g3n.insts[0].form {
        fm.src[1].neg = true;
    }
    let g4 = group(
        &[AluInst::op2(
            Op2::FltToInt,
            dst(2, X),
            [src(2, X), src(2, X)],
        )],
        &[],
    );
    let g5 = group(
        &[
            AluInst::op2(Op2::Mov, dst(5, X), [src(4, Chan::Z), src(4, Chan::Z)]),
            AluInst::op2(Op2::Mov, dst(5, Y), [src(0, Y), src(0, Y)]),
            AluInst::op2(
                Op2::Mov,
                dst(5, Chan::Z),
                [
                    AluSrc::inline(InlineConst::Zero),
                    AluSrc::inline(InlineConst::Zero),
                ],
            ),
            AluInst::op2(
                Op2::Mov,
                dst(5, Chan::W),
                [
                    AluSrc::inline(InlineConst::One),
                    AluSrc::inline(InlineConst::One),
                ],
            ),
        ],
        &[],
    );
    program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), mem, export_done(5, 0, true)],
        vec![vec![g1, g1b, g2, g3n, g4, g5]],
    )
}

fn executable() -> Executable {
    Executable {
        program: scatter_program(),
        resources: Resources {
            num_gprs: 6,
            stack_size: 0,
            kill: false,
            color_exports: 1,
            clause_temps: 0,
        },
        bindings: Bindings {
            kernel: "k".into(),
            inputs: vec![],
            outputs: vec![OutputBinding {
                param: "o".into(),
                export: 0,
                format: "vec4".into(),
            }],
            scatters: vec![ScatterBinding {
                param: "s".into(),
                slot: 0,
            }],
            uniforms: vec![UniformBinding {
                param: "u".into(),
                ty: "f32".into(),
                element: 0,
                elements: 1,
            }],
            domain_element: Some(1),
            cb0_elements: 2,
            input_padding_bits: None,
            launch_constants: Vec::new(),
        },
    }
}

#[test]
fn an_elf_image_loads_and_runs_as_the_abi_says() {
    let bytes = elf::write(&executable()).expect("writes");
    let image = load::read_elf(&bytes).expect("reads");
    let (w, h) = (13u32, 7u32);
    let mut launch = Launch::from_image(&image, w, h);
    assert_eq!(launch.num_gprs, Some(6));
    assert_eq!(launch.memory.len(), (w * h + 1) as usize);
    launch.set_uniform(0, v4(2.5, 0.0, 0.0, 0.0));
    let r = Machine::new(Config::default()).run(&launch);
    assert_eq!(r.faults, vec![]);
    let out = pixels(&r, 0);
    assert_eq!(out.len(), (w * h) as usize);
    for j in 0..h {
        for i in 0..w {
            let e = (j * w + i) as usize;
            assert_eq!(out[e], [i as f32 * 2.5, j as f32, 0.0, 1.0], "({i}, {j})");
        }
    }
    let s = r.scatter_region(0, w, h);
    for j in 0..h {
        for i in 0..w {
            let at = (j * w + (w - 1 - i)) as usize;
            assert_eq!(f32::from_bits(s[at]), (i + 100 * j) as f32, "({i}, {j})");
        }
    }
    assert!(r.memory_written);
    assert_eq!(r.stats.memory["mem_write_bytes"], u64::from(w * h) * 4);
}

#[test]
fn raw_outputs_json_lists_exports_and_memory() {
    let p = fixture("alu_literal");
    let l = Launch::raw(
        p,
        3,
        vec![
            (gpr(0), RegInit::Seq),
            (gpr(1), RegInit::Const(v4(1.0, 2.0, 3.0, 4.0))),
        ],
        &[],
    );
    let r = Machine::new(Config::default()).run(&l);
    let j = ctm_sim::r700::raw_outputs_json(&r);
    let text = j.to_string();
    assert_eq!(
        text,
        r#"{"outputs":[{"index":0,"kind":"pixel","values":[[1.0,2.0,3.5,4.0],[1.0,2.0,3.5,4.0],[1.0,2.0,3.5,4.0]]}]}"#
    );
}

#[test]
fn stats_json_has_the_spec_keys_and_counts_what_ran() {
    let p = fixture("tex_many");
    let mut l = Launch::raw(p, 256, vec![(gpr(0), RegInit::Seq)], &[]);
    for rid in 0..4 {
        l.textures.insert(
            rid,
            ctm_sim::r700::Texture::from_words(
                4,
                4,
                ctm_sim::r700::TexFormat::Rgba32Float,
                &[0; 64],
            ),
        );
    }
    let r = Machine::new(Config {
        trace: true,
        ..Config::default()
    })
    .run(&l);
    let s = r.stats.to_json();
    for key in [
        "target",
        "elements",
        "cycles",
        "cycles_per_element",
        "instructions",
        "alu_slot_utilization",
        "registers",
        "stalls",
        "vliw_occupancy",
        "alu_fetch_ratio",
        "clauses",
        "cf_instructions",
        "wavefronts_in_flight",
        "memory",
    ] {
        assert!(s.get(key).is_some(), "missing {key}: {s}");
    }
    assert_eq!(s["target"], "r700");
    assert_eq!(s["elements"], 256);
    assert_eq!(s["wavefronts"], 4);
    let st = &r.stats;
    assert!(st.cycles > 0);
    assert!(st.alu_slot_utilization > 0.0 && st.alu_slot_utilization <= 1.0);
    assert_eq!(st.vliw_occupancy.iter().sum::<u64>(), st.alu_groups);
    assert_eq!(
        st.vliw_occupancy
            .iter()
            .enumerate()
            .map(|(i, n)| (i as u64 + 1) * n)
            .sum::<u64>(),
        st.alu_slots
    );
    assert!(st.clauses["tex"] > 0);
    assert!(st.stalls["fetch_latency"] > 0);
    let extra = st.extra();
    assert!(extra.contains_key("vliw_occupancy") && !extra.contains_key("cycles"));
    // The trace: one track name per SIMD, then complete events.
    let t = r.trace.expect("trace");
    let ev = t["traceEvents"].as_array().unwrap();
    assert!(ev.iter().any(|e| e["ph"] == "X" && e["name"] == "TEX"));
    assert!(ev.iter().any(|e| e["ph"] == "X" && e["name"] == "ALU"));
    assert!(ev.iter().filter(|e| e["name"] == "thread_name").count() == 10);
}

#[test]
fn more_gprs_mean_fewer_wavefronts_in_flight() {
    let p = fixture("alu_literal");
    let run = |gprs: u32| {
        let mut l = Launch::raw(p.clone(), 64 * 200, vec![], &[]);
        l.num_gprs = Some(gprs);
        Machine::new(Config::default()).run(&l).stats
    };
    let few = run(2);
    let many = run(64);
    assert_eq!(few.wavefronts_in_flight, 16);
    assert_eq!(many.wavefronts_in_flight, 4);
    assert!(
        many.cycles >= few.cycles,
        "{} < {}",
        many.cycles,
        few.cycles
    );
}

#[test]
fn inputs_bind_by_their_bindings() {
    use ctm_backend_r700::abi::InputBinding;
    let b = |format: &str, resource: u32| InputBinding {
        param: "x".into(),
        resource,
        format: format.into(),
    };
    let mut l = Launch::raw(fixture("alu_literal"), 1, vec![], &[]);
    assert!(l.bind_input(&b("vec2", 2), 3, 1, vec![0; 24]));
    assert_eq!(l.textures[&2].format, ctm_sim::r700::TexFormat::Rg32Float);
    assert!(l.bind_input(&b("u16", 0), 2, 2, vec![0; 8]));
    assert!(!l.bind_input(&b("vec4", 1), 2, 2, vec![0; 8]), "wrong size");
    assert!(
        !l.bind_input(&b("mat4", 1), 1, 1, vec![0; 64]),
        "not a stream type"
    );
    assert!(
        !l.bind_input(&b("f32", 300), 1, 1, vec![0; 4]),
        "no such resource"
    );
}

/// Clause temporaries (manual Table 2.6 L541, §4.6 L1299): the loader
/// takes NUM_CLAUSE_TEMP_GPRS from the image's `SQ_GPR_RESOURCE_MGMT_1`;
/// T0 (R124) written and read in one clause carries the value, read in
/// the next clause it is the poison NaN.
#[test]
fn clause_temporaries_live_for_one_clause() {
    let one = AluSrc::inline(InlineConst::One);
    let write_t0 = group(&[AluInst::op2(Op2::Add, dst(124, X), [one, one])], &[]);
    let read_t0 = |c: Chan| {
        group(
            &[AluInst::op2(
                Op2::Mov,
                dst(1, c),
                [src(124, X), src(124, X)],
            )],
            &[],
        )
    };
    // Clause 0: T0.x = 2, R1.x = T0.x; clause 1: R1.y = T0.x (stale).
    let p = program(
        vec![
            cf_alu(CfAluOp::Alu, 0, 0),
            cf_alu(CfAluOp::Alu, 1, 0),
            export_done(1, 0, true),
        ],
        vec![vec![write_t0, read_t0(X)], vec![read_t0(Y)]],
    );
    let mut exe = executable();
    exe.program = p;
    exe.resources.num_gprs = 2;
    exe.resources.clause_temps = 4;
    exe.bindings.scatters.clear();
    let bytes = elf::write(&exe).expect("writes");
    let image = load::read_elf(&bytes).expect("reads");
    assert_eq!(image.resources().clause_temps, 4);
    let launch = Launch::from_image(&image, 4, 1);
    assert_eq!(launch.clause_temps, Some(4));
    let r = Machine::new(Config::default()).run(&launch);
    assert_eq!(r.faults, vec![]);
    for px in pixels(&r, 0) {
        assert_eq!(px[0], 2.0);
        assert_eq!(
            px[1].to_bits(),
            ctm_sim::r700::wavefront::CLAUSE_TEMP_POISON
        );
    }
    // Without the register pair R124 is beyond NUM_GPRS: the write is
    // dropped (L1984) and the first read is not 2.
    exe.resources.clause_temps = 0;
    let bytes = elf::write(&exe).expect("writes");
    let launch = Launch::from_image(&load::read_elf(&bytes).expect("reads"), 4, 1);
    let r = Machine::new(Config::default()).run(&launch);
    assert!(pixels(&r, 0).iter().all(|px| px[0] != 2.0));
}
