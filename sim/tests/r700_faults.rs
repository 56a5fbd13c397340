//! Faults: illegal groups name the validator's rule (read ports, unit
//! conflicts, missing literals), unimplemented opcodes name themselves,
//! runaway loops stop at the step limit, RETURN outside a subroutine,
//! missing END_OF_PROGRAM, unbound resources; and a property test that no
//! program the decoder accepts panics the simulator.

mod r700_common;

use ctm_backend_r700::isa::*;
use ctm_backend_r700::validate::Rule;
use ctm_sim::r700::{Config, FaultKind, FaultLoc, Launch, Machine, RegInit};
use proptest::prelude::*;
use r700_common::*;

const X: Chan = Chan::X;
const Y: Chan = Chan::Y;

fn one() -> AluSrc {
    AluSrc::inline(InlineConst::One)
}

fn run_groups(groups: Vec<AluGroup>) -> ctm_sim::r700::RunResult {
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(1, 0, true)],
        vec![groups],
    );
    run_raw(p, 64, vec![], &[])
}

fn illegal(r: &ctm_sim::r700::RunResult) -> Rule {
    assert_eq!(r.faults.len(), 1, "one wavefront, one fault");
    match &r.faults[0].kind {
        FaultKind::IllegalGroup { rule, .. } => *rule,
        other => panic!("expected an illegal group, got {other:?}"),
    }
}

#[test]
fn gpr_read_port_violation_faults_with_the_rule() {
    // R1.x and R3.x both on cycle 0 of the X bank.
    let r = run_groups(vec![group(
        &[
            AluInst::op2(Op2::Add, dst(1, X), [src(1, X), src(2, X)]),
            AluInst::op2(Op2::Add, dst(1, Y), [src(3, X), one()]),
        ],
        &[],
    )]);
    assert_eq!(illegal(&r), Rule::GprReadPort);
    assert_eq!(
        r.faults[0].loc,
        FaultLoc::Alu {
            cf: 0,
            clause: 2,
            group: 0,
            slot: Some(1)
        }
    );
    assert!(
        r.faults[0].to_string().contains("gpr-read-port"),
        "{}",
        r.faults[0]
    );
    // Nothing was exported: the wavefront stopped.
    assert!(r.exports.is_empty());
}

#[test]
fn two_trans_ops_in_one_group_fault() {
    let rcp = |c| AluInst::op2(Op2::RecipIeee, dst(1, c), [src(0, X), src(0, X)]);
    // The first RECIP takes Trans, which must come last (unit order); the
    // second finds Trans taken.
    let r = run_groups(vec![group(&[rcp(X), rcp(Y)], &[])]);
    assert_eq!(illegal(&r), Rule::UnitOrder);
    let add = AluInst::op2(Op2::Add, dst(2, X), [src(1, X), one()]);
    let r = run_groups(vec![group(&[add, rcp(Y), rcp(Chan::Z)], &[])]);
    assert!(matches!(illegal(&r), Rule::UnitTaken | Rule::UnitOrder));
}

#[test]
fn missing_literal_faults() {
    let mut g = group(
        &[AluInst::op2(
            Op2::Add,
            dst(1, X),
            [AluSrc::literal(Chan::Z), one()],
        )],
        &[],
    );
    g.literals.truncate(2);
    let r = run_groups(vec![g]);
    assert_eq!(illegal(&r), Rule::LiteralLimit);
}

#[test]
fn unit_order_violation_faults() {
    let r = run_groups(vec![group(
        &[
            AluInst::op2(Op2::Add, dst(1, Y), [src(1, Y), one()]),
            AluInst::op2(Op2::Add, dst(1, X), [src(1, X), one()]),
        ],
        &[],
    )]);
    assert_eq!(illegal(&r), Rule::UnitOrder);
}

#[test]
fn unimplemented_opcode_names_itself() {
    let mut i = AluInst::op2(Op2::MovaGprInt, dst(0, X), [src(0, X), src(0, X)]);
    if let AluForm::Op2(f) = &mut i.form {
        f.write_mask = false;
    }
    let r = run_groups(vec![group(&[i], &[])]);
    assert_eq!(r.faults.len(), 1);
    assert_eq!(
        r.faults[0].kind,
        FaultKind::Unimplemented {
            what: "opcode MOVA_GPR_INT".into()
        }
    );
    assert!(r.faults[0].to_string().contains("MOVA_GPR_INT"));
}

#[test]
fn runaway_loop_stops_at_the_step_limit() {
    let mut start = CfGeneral::new(CfOp::LoopStartDx10);
    start.addr = 3;
    let mut end = CfGeneral::new(CfOp::LoopEnd);
    end.addr = 1;
    let p = program(
        vec![
            CfInst::Cf(start),
            CfInst::nop(),
            CfInst::Cf(end),
            export_done(0, 0, true),
        ],
        vec![],
    );
    let config = Config {
        step_limit: 1000,
        ..Config::default()
    };
    let r = Machine::new(config).run(&Launch::raw(p, 3, vec![], &[]));
    assert_eq!(r.faults.len(), 1);
    assert_eq!(r.faults[0].kind, FaultKind::StepLimit { limit: 1000 });
}

#[test]
fn return_outside_a_subroutine_and_missing_end_fault() {
    let p = program(vec![CfInst::Cf(CfGeneral::new(CfOp::Return))], vec![]);
    let r = run_raw(p, 1, vec![], &[]);
    assert!(matches!(r.faults[0].kind, FaultKind::StackUnderflow { .. }));
    let p = program(vec![CfInst::nop()], vec![]);
    let r = run_raw(p, 1, vec![], &[]);
    assert_eq!(r.faults[0].kind, FaultKind::PastEnd);
}

#[test]
fn unbound_texture_faults() {
    let p = fixture("tex_sample");
    let r = run_raw(p, 4, vec![], &[]);
    assert!(matches!(
        r.faults[0].kind,
        FaultKind::MissingResource { .. }
    ));
    assert!(r.faults[0].to_string().contains("texture resource 3"));
}

#[test]
fn partial_wavefronts_and_many_wavefronts_are_deterministic() {
    let p = fixture("nested_flow");
    let launch = |parallel: bool| {
        let xs: Vec<[u32; 4]> = (0..1000)
            .map(|k| v4((k % 13) as f32 - 6.0, 2.5, 0.0, 0.0))
            .collect();
        let l = Launch::raw(
            p.clone(),
            1000,
            vec![(gpr(0), RegInit::PerElement(xs))],
            &[(2, v4(7.0, 0.5, 0.0, 0.0))],
        );
        Machine::new(Config {
            parallel,
            ..Config::default()
        })
        .run(&l)
    };
    let a = launch(true);
    let b = launch(false);
    let c = launch(true);
    assert_eq!(a.exports, b.exports);
    assert_eq!(a.exports, c.exports);
    assert_eq!(a.stats, b.stats);
    assert_eq!(a.stats, c.stats);
    assert_eq!(a.stats.wavefronts, 16);
    assert_eq!(pixels(&a, 0).len(), 1000);
}

// --- no panics on any decodable program --------------------------------

fn arb_src() -> impl Strategy<Value = AluSrc> {
    let chan = (0usize..4).prop_map(Chan::from_index);
    (0u32..14, chan, any::<bool>(), any::<bool>(), 0u32..128).prop_map(|(k, chan, rel, neg, g)| {
        let sel = match k {
            0..=5 => AluSrcSel::Gpr(Gpr::new(g % 8).unwrap()),
            6 => AluSrcSel::Kcache0(KcacheIndex::new(g % 32).unwrap()),
            7 => AluSrcSel::Cfile((g * 2) as u8),
            8 => AluSrcSel::Inline(InlineConst::One),
            9 => AluSrcSel::Literal,
            10 => AluSrcSel::Pv,
            11 => AluSrcSel::Ps,
            12 => AluSrcSel::Inline(InlineConst::MinusOneInt),
            _ => AluSrcSel::Gpr(Gpr::new(g).unwrap()),
        };
        AluSrc {
            sel,
            chan,
            rel: rel && k < 3,
            neg,
        }
    })
}

fn arb_inst() -> impl Strategy<Value = AluInst> {
    let op2 = (0usize..Op2::COUNT).prop_map(|i| Op2::ALL[i]);
    let op3 = (0usize..Op3::COUNT).prop_map(|i| Op3::ALL[i]);
    (
        op2,
        op3,
        any::<bool>(),
        arb_src(),
        arb_src(),
        arb_src(),
        0u32..8,
        0usize..4,
        any::<u8>(),
    )
        .prop_map(|(o2, o3, three, a, b, c, g, ch, bits)| {
            let d = AluDst {
                gpr: Gpr::new(g).unwrap(),
                rel: bits & 1 == 1,
                chan: Chan::from_index(ch),
            };
            let mut i = if three {
                AluInst::op3(o3, d, [a, b, c])
            } else {
                AluInst::op2(o2, d, [a, b])
            };
            if let AluForm::Op2(f) = &mut i.form {
                f.update_pred = bits & 2 != 0;
                f.update_exec_mask = bits & 4 != 0;
                f.omod = Omod::try_from(u32::from(bits >> 6)).unwrap_or(Omod::Off);
            }
            i.clamp = bits & 8 != 0;
            i.pred_sel = if bits & 16 != 0 {
                PredSel::One
            } else {
                PredSel::Off
            };
            i.index_mode = if bits & 32 != 0 {
                IndexMode::Loop
            } else {
                IndexMode::ArX
            };
            i
        })
}

fn arb_cf(n_clauses: usize) -> impl Strategy<Value = CfInst> {
    (0u32..16, 0u32..12, 0u32..3, 0usize..n_clauses.max(1)).prop_map(move |(k, addr, pops, c)| {
        let g = |op: CfOp| {
            let mut x = CfGeneral::new(op);
            x.addr = addr;
            x.pop_count = PopCount::new(pops).unwrap();
            CfInst::Cf(x)
        };
        match k {
            0 => g(CfOp::Push),
            1 => g(CfOp::Pop),
            2 => g(CfOp::Else),
            3 => g(CfOp::Jump),
            4 => g(CfOp::LoopStartDx10),
            5 => g(CfOp::LoopEnd),
            6 => g(CfOp::LoopBreak),
            7 => g(CfOp::LoopContinue),
            8 => g(CfOp::Call),
            9 => g(CfOp::Return),
            10 => g(CfOp::LoopStart),
            11 => cf_alu(CfAluOp::AluPushBefore, c as u32, 0),
            12 => cf_alu(CfAluOp::AluPopAfter, c as u32, 0),
            13 => export_done(0, 0, false),
            _ => cf_alu(CfAluOp::Alu, c as u32, 0),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_never_panic(
        groups in prop::collection::vec(prop::collection::vec(arb_inst(), 1..5), 1..4),
        cf in prop::collection::vec(arb_cf(2), 1..10),
        lits in prop::collection::vec(any::<u32>(), 4),
    ) {
        let clause: Vec<AluGroup> = groups.iter().map(|g| AluGroup::with_literals(g, &lits)).collect();
        // Both clauses referenced, so the program encodes.
        let mut cf: Vec<CfInst> = std::iter::once(cf_alu(CfAluOp::Alu, 0, 0))
            .chain(cf)
            .chain(std::iter::once(cf_alu(CfAluOp::Alu, 1, 0)))
            .collect();
        let n = cf.len() as u32 + 1;
        for inst in &mut cf {
            if let CfInst::Cf(c) = inst {
                c.addr = c.addr.min(n - 1);
            }
        }
        cf.push(export_done(1, 0, true));
        let p = program(cf, vec![clause.clone(), clause]);
        // Only programs the decoder would accept (the simulator's input).
        let e = encode_program(&p);
        if let Ok(bytes) = e {
            let p = decode_program(&bytes).unwrap();
            let xs: Vec<[u32; 4]> = lits.iter().cycle().take(70).map(|&v| [v, v ^ 1, 7, 0x3F80_0000]).collect();
            let mut l = Launch::raw(p, 70, vec![(gpr(0), RegInit::PerElement(xs))], &[(0, [1, 2, 3, 4])]);
            l.loop_consts = vec![[3, 0, 1]];
            l.stack_size = Some(3);
            let r = Machine::new(Config { step_limit: 2000, ..Config::default() }).run(&l);
            // Every fault names where it happened.
            for f in &r.faults {
                prop_assert!(!f.to_string().is_empty());
            }
            let _ = ctm_sim::r700::raw_outputs_json(&r);
        }
    }
}
