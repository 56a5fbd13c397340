//! Textual output as insta snapshots: the raw-run JSON (spec §10) of an
//! LLVM kernel, the statistics JSON of a small run, and fault messages.

mod r700_common;

use ctm_backend_r700::isa::*;
use ctm_sim::r700::{Config, Launch, Machine, RegInit, raw_outputs_json};
use r700_common::*;

#[test]
fn raw_outputs_of_an_llvm_kernel() {
    let l = Launch::raw(
        fixture("int_ops"),
        4,
        vec![(
            gpr(0),
            RegInit::PerElement(vec![
                v4(7.0, 3.0, 0.0, 0.0),
                v4(-7.0, 3.0, 0.0, 0.0),
                v4(100.0, -50.0, 0.0, 0.0),
                v4(0.0, 0.0, 0.0, 0.0),
            ]),
        )],
        &[],
    );
    let r = Machine::new(Config::default()).run(&l);
    assert_eq!(r.faults, vec![]);
    insta::assert_snapshot!(serde_json::to_string_pretty(&raw_outputs_json(&r)).unwrap());
}

#[test]
fn statistics_of_a_small_run() {
    let l = Launch::raw(fixture("flow_loop"), 100, vec![(gpr(0), RegInit::Seq)], &[]);
    let r = Machine::new(Config::default()).run(&l);
    assert_eq!(r.faults, vec![]);
    insta::assert_snapshot!(serde_json::to_string_pretty(&r.stats.to_json()).unwrap());
}

#[test]
fn fault_messages() {
    let x = Chan::X;
    let bad = group(
        &[
            AluInst::op2(Op2::Add, dst(1, x), [src(1, x), src(2, x)]),
            AluInst::op2(
                Op2::Add,
                dst(1, Chan::Y),
                [src(3, x), AluSrc::inline(InlineConst::One)],
            ),
        ],
        &[],
    );
    let p = program(
        vec![cf_alu(CfAluOp::Alu, 0, 0), export_done(1, 0, true)],
        vec![vec![bad]],
    );
    let r = run_raw(p, 1, vec![], &[]);
    let mut text: Vec<String> = r.faults.iter().map(|f| f.to_string()).collect();
    let p = program(vec![CfInst::Cf(CfGeneral::new(CfOp::Return))], vec![]);
    text.extend(
        run_raw(p, 1, vec![], &[])
            .faults
            .iter()
            .map(|f| f.to_string()),
    );
    insta::assert_snapshot!(text.join("\n"));
}
