//! The cycle model does what `docs/sim-r700.md` §3 says: an ALU clause
//! costs the clause switch plus 8 cycles per group for a lone wavefront;
//! wavefronts spread over the 10 SIMDs; two wavefronts on one SIMD
//! interleave on its even and odd pipelines; fetch latency is hidden by
//! other wavefronts; GPR use limits wavefronts in flight.

mod r700_common;

use ctm_backend_r700::isa::*;
use ctm_sim::r700::cycle::{
    CF_CYCLES, CLAUSE_SWITCH, EXPORT_CYCLES, FETCH_LATENCY, GROUP_INTERVAL,
};
use ctm_sim::r700::{Config, Launch, Machine, TexFormat, Texture};
use r700_common::*;

const X: Chan = Chan::X;

fn alu_program(groups: usize) -> Program {
    let g = group(
        &[AluInst::op2(
            Op2::Add,
            dst(1, X),
            [src(1, X), AluSrc::inline(InlineConst::One)],
        )],
        &[],
    );
    program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(1, 0, true)],
        vec![vec![g; groups]],
    )
}

fn cycles(p: &Program, elements: u32, setup: impl FnOnce(&mut Launch)) -> u64 {
    let mut l = Launch::raw(p.clone(), elements, vec![], &[]);
    setup(&mut l);
    let r = Machine::new(Config::default()).run(&l);
    assert_eq!(r.faults, vec![]);
    r.stats.cycles
}

#[test]
fn a_lone_wavefront_pays_switch_groups_and_export() {
    for n in [1, 10, 40] {
        let c = cycles(&alu_program(n), 64, |_| {});
        assert_eq!(c, CLAUSE_SWITCH + GROUP_INTERVAL * n as u64 + EXPORT_CYCLES);
    }
    let _ = CF_CYCLES;
}

#[test]
fn wavefronts_spread_over_simds_and_interleave() {
    let p = alu_program(40);
    let one = cycles(&p, 64, |_| {});
    // 10 wavefronts: one per SIMD, as fast as one.
    assert_eq!(cycles(&p, 640, |_| {}), one);
    // 20: two per SIMD on the even and odd pipelines, as fast but for the
    // second waiting for the export path.
    assert_eq!(cycles(&p, 1280, |_| {}), one + EXPORT_CYCLES);
    // 40: four per SIMD, two per pipeline: the ALU work doubles.
    let four = cycles(&p, 2560, |_| {});
    assert!(four >= one + GROUP_INTERVAL * 40, "{four} vs {one}");
}

#[test]
fn fetch_latency_is_hidden_by_other_wavefronts() {
    let mut fetch = CfGeneral::new(CfOp::Tex);
    fetch.addr = 4;
    let t = TexInst {
        op: TexOp::Sample,
        bc_frac_mode: false,
        fetch_whole_quad: false,
        resource_id: 0,
        src_gpr: gpr(0),
        src_rel: false,
        alt_const: false,
        dst_gpr: gpr(1),
        dst_rel: false,
        dst_sel: [Sel::X, Sel::Y, Sel::Z, Sel::W],
        lod_bias: LodBias::new(0).unwrap(),
        coord_type: [CoordType::Unnormalized; 4],
        offset: [TexOffset::new(0).unwrap(); 3],
        sampler_id: SamplerId::new(0).unwrap(),
        src_sel: [TexSrcSel::X, TexSrcSel::Y, TexSrcSel::Zero, TexSrcSel::Zero],
    };
    let mut p = Program {
        cf: vec![
            CfInst::Cf(fetch),
            export_done(1, 0, true),
            CfInst::nop(),
            CfInst::nop(),
        ],
        ..Program::default()
    };
    p.clauses
        .insert(4, Clause::Fetch(FetchClause::Tex(vec![t])));
    let tex = |l: &mut Launch| {
        l.textures
            .insert(0, Texture::from_words(1, 1, TexFormat::R32Float, &[0]));
    };
    let one = cycles(&p, 64, tex);
    assert_eq!(one, CLAUSE_SWITCH + 16 + FETCH_LATENCY + EXPORT_CYCLES);
    // Eight wavefronts per SIMD: the fetch unit is busy 16 cycles each,
    // the latency overlaps.
    let eight = cycles(&p, 64 * 80, tex);
    assert!(eight < 8 * one / 2, "{eight} vs {one}");
    assert!(eight >= one + 7 * 16);
}

#[test]
fn gprs_limit_wavefronts_in_flight() {
    let p = alu_program(4);
    let with = |gprs: u32| {
        let mut l = Launch::raw(p.clone(), 64 * 10 * 64, vec![], &[]);
        l.num_gprs = Some(gprs);
        Machine::new(Config::default()).run(&l).stats
    };
    assert_eq!(with(1).wavefronts_in_flight, 16);
    assert_eq!(with(32).wavefronts_in_flight, 8);
    assert_eq!(with(128).wavefronts_in_flight, 2);
    // Clause switches are latency: fewer wavefronts in flight hide less.
    assert!(with(128).cycles > with(1).cycles);
}
