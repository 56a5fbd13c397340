//! One deliberately broken program per validator rule (each test is named
//! after the rule, `Rule::name` in snake case), clean baselines, a test
//! that every rule has its broken program, and a property test that the
//! validator never panics.

mod common;

use std::collections::BTreeMap;

use ctm_backend_r700::isa::*;
use ctm_backend_r700::validate::{Config, Rule, Violation, validate, validate_with};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

const X: Chan = Chan::X;
const Y: Chan = Chan::Y;
const Z: Chan = Chan::Z;

fn gpr(n: u32) -> Gpr {
    Gpr::new(n).unwrap()
}

fn d(g: u32, chan: Chan) -> AluDst {
    AluDst {
        gpr: gpr(g),
        rel: false,
        chan,
    }
}

fn r(g: u32, chan: Chan) -> AluSrc {
    AluSrc::gpr(gpr(g), chan)
}

fn one() -> AluSrc {
    AluSrc::inline(InlineConst::One)
}

fn half() -> AluSrc {
    AluSrc::inline(InlineConst::Half)
}

fn rel(mut s: AluSrc) -> AluSrc {
    s.rel = true;
    s
}

fn cfile(c: u8, chan: Chan) -> AluSrc {
    AluSrc::new(AluSrcSel::Cfile(c), chan)
}

fn kc0(i: u32) -> AluSrc {
    AluSrc::new(AluSrcSel::Kcache0(KcacheIndex::new(i).unwrap()), X)
}

fn add(dst: AluDst, a: AluSrc, b: AluSrc) -> AluInst {
    AluInst::op2(Op2::Add, dst, [a, b])
}

fn op2(op: Op2, dst: AluDst, a: AluSrc, b: AluSrc) -> AluInst {
    AluInst::op2(op, dst, [a, b])
}

fn no_write(mut i: AluInst) -> AluInst {
    if let AluForm::Op2(f) = &mut i.form {
        f.write_mask = false;
    }
    i
}

fn mova(chan: Chan) -> AluInst {
    no_write(op2(Op2::Mova, d(0, chan), r(1, chan), r(1, chan)))
}

fn swz(mut i: AluInst, b: BankSwizzle) -> AluInst {
    i.bank_swizzle = b;
    i
}

fn mode(mut i: AluInst, m: IndexMode) -> AluInst {
    i.index_mode = m;
    i
}

fn grp(insts: &[AluInst]) -> AluGroup {
    AluGroup::with_literals(insts, &[])
}

fn cf(op: CfOp, addr: u32) -> CfInst {
    let mut c = CfGeneral::new(op);
    c.addr = addr;
    CfInst::Cf(c)
}

fn pops(inst: CfInst, n: u32) -> CfInst {
    let CfInst::Cf(mut c) = inst else {
        unreachable!()
    };
    c.pop_count = PopCount::new(n).unwrap();
    CfInst::Cf(c)
}

fn end() -> CfInst {
    let mut c = CfGeneral::new(CfOp::Nop);
    c.flags.end_of_program = true;
    CfInst::Cf(c)
}

fn cf_alu(op: CfAluOp, addr: u32, slots: usize, kcache: [Kcache; 2]) -> CfInst {
    CfInst::Alu(CfAlu {
        op,
        addr: AluClauseAddr::new(addr).unwrap(),
        count: AluSlotCount::new(slots.clamp(1, 128) as u32).unwrap(),
        kcache,
        alt_const: false,
        whole_quad_mode: false,
        barrier: true,
    })
}

/// `ALU @2; NOP eop` running `groups` with the kcache sets `kcache`.
fn alu_k(groups: Vec<AluGroup>, kcache: [Kcache; 2]) -> Program {
    let clause = AluClause { groups };
    Program {
        cf: vec![cf_alu(CfAluOp::Alu, 2, clause.slots(), kcache), end()],
        clauses: BTreeMap::from([(2, Clause::Alu(clause))]),
    }
}

fn alu(groups: Vec<AluGroup>) -> Program {
    alu_k(groups, [Kcache::default(); 2])
}

fn lock(mode: KcacheMode) -> [Kcache; 2] {
    let mut k = [Kcache::default(); 2];
    k[0].mode = mode;
    k
}

/// A CF program; `ALU` placeholders (`alu_op`) all run one one-slot clause
/// placed after the program.
fn flow(mut insts: Vec<CfInst>) -> Program {
    let addr = insts.len() as u32;
    for i in &mut insts {
        if let CfInst::Alu(a) = i {
            a.addr = AluClauseAddr::new(addr).unwrap();
        }
    }
    let clause = AluClause {
        groups: vec![grp(&[add(d(1, X), r(1, X), one())])],
    };
    Program {
        cf: insts,
        clauses: BTreeMap::from([(addr, Clause::Alu(clause))]),
    }
}

fn alu_op(op: CfAluOp) -> CfInst {
    cf_alu(op, 0, 1, [Kcache::default(); 2])
}

fn violations(p: &Program, config: &Config) -> Vec<Violation> {
    validate_with(p, config).err().unwrap_or_default()
}

#[track_caller]
fn expect_with(p: &Program, config: &Config, rule: Rule) {
    let v = violations(p, config);
    assert!(
        v.iter().any(|v| v.rule == rule),
        "expected {}, got {v:#?}",
        rule.name()
    );
}

#[track_caller]
fn expect(p: &Program, rule: Rule) {
    expect_with(p, &Config::default(), rule);
}

#[track_caller]
fn clean(p: &Program) {
    assert_eq!(validate(p), Ok(()));
}

fn fixture(name: &str) -> Program {
    let path = format!(
        "{}/tests/fixtures/llvm/{name}.hex",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes: Vec<u8> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    decode_program(&bytes).unwrap()
}

fn sample<S: Strategy>(s: S) -> S::Value {
    s.new_tree(&mut TestRunner::deterministic())
        .unwrap()
        .current()
}

// --- baselines ------------------------------------------------------------

#[test]
fn baselines_are_clean() {
    clean(&alu(vec![grp(&[
        add(d(1, X), r(1, X), r(2, Y)),
        add(d(1, Y), r(1, Y), one()),
        op2(Op2::RecipIeee, d(2, X), r(3, Z), r(3, Z)),
    ])]));
    // MOVA, then an AR-relative read two groups later.
    clean(&alu(vec![
        grp(&[mova(X)]),
        grp(&[add(d(2, X), r(1, X), one())]),
        grp(&[add(d(3, Y), rel(r(4, Y)), one())]),
    ]));
    // Nested loops at the stack limit.
    let nested = flow(vec![
        cf(CfOp::LoopStartDx10, 4),
        cf(CfOp::LoopStartDx10, 3),
        cf(CfOp::LoopEnd, 2),
        cf(CfOp::LoopEnd, 1),
        end(),
    ]);
    let two = Config {
        stack_size: 2,
        ..Config::default()
    };
    assert_eq!(validate_with(&nested, &two), Ok(()));
    // if / else / endif around ALU clauses, a subroutine.
    clean(&flow(vec![
        alu_op(CfAluOp::AluPushBefore),
        cf(CfOp::Jump, 3),
        alu_op(CfAluOp::Alu),
        pops(cf(CfOp::Else, 5), 0),
        alu_op(CfAluOp::Alu),
        pops(cf(CfOp::Pop, 6), 1),
        cf(CfOp::Call, 8),
        end(),
        cf(CfOp::Return, 0),
    ]));
}

// --- one broken program per rule -----------------------------------------

#[test]
fn group_size() {
    let mut p = alu(vec![
        grp(&[add(d(1, X), r(1, X), one())]),
        AluGroup::default(),
    ]);
    if let CfInst::Alu(a) = &mut p.cf[0] {
        a.count = AluSlotCount::new(1).unwrap();
    }
    expect(&p, Rule::GroupSize);
}

#[test]
fn unit_taken() {
    let a = add(d(1, X), r(1, X), one());
    expect(&alu(vec![grp(&[a, a, a])]), Rule::UnitTaken);
}

#[test]
fn unit_order() {
    let p = alu(vec![grp(&[
        add(d(1, Y), r(1, Y), one()),
        add(d(1, X), r(1, X), one()),
    ])]);
    expect(&p, Rule::UnitOrder);
}

#[test]
fn reduction_slots() {
    let p = alu(vec![grp(&[op2(Op2::Dot4, d(1, X), r(1, X), r(2, X))])]);
    expect(&p, Rule::ReductionSlots);
}

#[test]
fn double_slots() {
    let p = alu(vec![grp(&[op2(Op2::Mul64, d(1, X), r(1, X), r(2, Y))])]);
    expect(&p, Rule::DoubleSlots);
}

#[test]
fn predicate_updates() {
    let p = alu(vec![grp(&[
        op2(Op2::Killgt, d(1, X), r(1, X), one()),
        op2(Op2::Killgt, d(1, Y), r(1, Y), one()),
    ])]);
    expect(&p, Rule::PredicateUpdates);
    // UPDATE_PRED on an instruction that is not a PRED_SET*.
    let mut a = add(d(1, X), r(1, X), one());
    if let AluForm::Op2(f) = &mut a.form {
        f.update_pred = true;
    }
    expect(&alu(vec![grp(&[a])]), Rule::PredicateUpdates);
}

#[test]
fn kill_not_last() {
    let p = alu(vec![
        grp(&[op2(Op2::Killgt, d(1, X), r(1, X), one())]),
        grp(&[add(d(1, X), r(1, X), one())]),
    ]);
    expect(&p, Rule::KillNotLast);
}

#[test]
fn constant_count() {
    let muladd = AluInst::op3(Op3::Muladd, d(2, X), [one(), half(), one()]);
    let p = alu(vec![grp(&[add(d(1, X), r(1, X), one()), muladd])]);
    expect(&p, Rule::ConstantCount);
}

#[test]
fn cfile_ports() {
    let p = alu(vec![grp(&[
        add(d(1, X), cfile(0, X), cfile(1, X)),
        add(d(1, Y), cfile(2, X), one()),
    ])]);
    expect(&p, Rule::CfilePorts);
}

#[test]
fn literal_limit() {
    let mut g = grp(&[add(d(1, X), AluSrc::literal(Z), one())]);
    g.literals.truncate(2);
    expect(&alu(vec![g]), Rule::LiteralLimit);
}

#[test]
fn unused_literal_select() {
    let p = alu(vec![grp(&[op2(
        Op2::Mov,
        d(1, X),
        r(1, X),
        AluSrc::literal(X),
    )])]);
    expect(&p, Rule::UnusedLiteralSelect);
}

#[test]
fn kcache_unlocked() {
    let p = alu(vec![grp(&[add(d(1, X), kc0(0), one())])]);
    expect(&p, Rule::KcacheUnlocked);
    let p = alu_k(
        vec![grp(&[add(d(1, X), kc0(16), one())])],
        lock(KcacheMode::Lock1),
    );
    expect(&p, Rule::KcacheUnlocked);
}

#[test]
fn constant_mode_mix() {
    let p = alu_k(
        vec![grp(&[add(d(1, X), kc0(0), cfile(0, X))])],
        lock(KcacheMode::Lock1),
    );
    expect(&p, Rule::ConstantModeMix);
}

#[test]
fn gpr_read_port() {
    // R1.x on cycle 0 in slot X, R3.x on cycle 0 in slot Y: one X-bank port.
    let p = alu(vec![grp(&[
        add(d(1, X), r(1, X), r(2, X)),
        add(d(1, Y), r(3, X), one()),
    ])]);
    expect(&p, Rule::GprReadPort);
    // The same read shared is fine; src1 = src0 reuses the read.
    clean(&alu(vec![grp(&[
        add(d(1, X), r(1, X), r(1, X)),
        add(d(1, Y), r(1, X), one()),
    ])]));
}

#[test]
fn trans_bank_swizzle() {
    let t = swz(
        op2(Op2::RecipIeee, d(2, X), r(3, Z), r(3, Z)),
        BankSwizzle::Vec201,
    );
    expect(&alu(vec![grp(&[t])]), Rule::TransBankSwizzle);
}

#[test]
fn trans_constant_cycle() {
    // SCL_210 reads src2 on cycle 0, but two constants come first.
    let muladd = AluInst::op3(Op3::Muladd, d(2, X), [one(), half(), r(3, Z)]);
    let p = alu(vec![grp(&[add(d(1, X), r(1, X), one()), muladd])]);
    expect(&p, Rule::TransConstantCycle);
}

#[test]
fn previous_result() {
    let pv = AluSrc::new(AluSrcSel::Pv, X);
    expect(
        &alu(vec![grp(&[add(d(1, X), pv, one())])]),
        Rule::PreviousResult,
    );
    // PV.y after a group that did not run unit Y.
    let p = alu(vec![
        grp(&[add(d(1, X), r(1, X), one())]),
        grp(&[add(d(1, X), AluSrc::new(AluSrcSel::Pv, Y), one())]),
    ]);
    expect(&p, Rule::PreviousResult);
}

#[test]
fn clause_temp() {
    let temps = Config {
        clause_temps: 4,
        ..Config::default()
    };
    // T0.x (R124) read before the clause writes it.
    let p = alu(vec![grp(&[add(d(1, X), r(124, X), one())])]);
    expect_with(&p, &temps, Rule::ClauseTemp);
    // Written and read by the same group: the read sees the old value.
    let p = alu(vec![grp(&[
        add(d(124, X), r(1, X), one()),
        add(d(1, Y), r(124, X), one()),
    ])]);
    expect_with(&p, &temps, Rule::ClauseTemp);
    // Written in group 0, read in group 1: legal.
    let p = alu(vec![
        grp(&[add(d(124, X), r(1, X), one())]),
        grp(&[add(d(1, X), r(124, X), one())]),
    ]);
    assert!(
        validate_with(&p, &temps)
            .err()
            .unwrap_or_default()
            .iter()
            .all(|v| v.rule != Rule::ClauseTemp)
    );
    // Without clause temporaries R124 is an ordinary GPR.
    let p = alu(vec![grp(&[add(d(1, X), r(124, X), one())])]);
    assert!(
        validate(&p)
            .err()
            .unwrap_or_default()
            .iter()
            .all(|v| v.rule != Rule::ClauseTemp)
    );
}

#[test]
fn kcache_relative_index() {
    let p = alu_k(
        vec![
            grp(&[mova(X)]),
            grp(&[add(d(1, X), r(1, X), one())]),
            grp(&[add(d(1, X), rel(kc0(0)), one())]),
        ],
        lock(KcacheMode::Lock2),
    );
    expect(&p, Rule::KcacheRelativeIndex);
}

#[test]
fn ar_not_loaded() {
    let p = alu(vec![grp(&[add(d(1, X), rel(r(2, X)), one())])]);
    expect(&p, Rule::ArNotLoaded);
}

#[test]
fn ar_element_mix() {
    let p = alu(vec![
        grp(&[mova(X)]),
        grp(&[add(d(1, X), r(1, X), one())]),
        grp(&[
            add(d(1, X), rel(cfile(0, X)), one()),
            mode(add(d(1, Y), rel(cfile(4, Y)), one()), IndexMode::ArY),
        ]),
    ]);
    expect(&p, Rule::ArElementMix);
}

#[test]
fn relative_in_mova_group() {
    let p = alu(vec![
        grp(&[mova(X)]),
        grp(&[mova(X), add(d(1, Y), rel(r(2, Y)), one())]),
    ]);
    expect(&p, Rule::RelativeInMovaGroup);
}

#[test]
fn mova_writes_gpr() {
    let p = alu(vec![grp(&[op2(Op2::Mova, d(0, X), r(1, X), r(1, X))])]);
    expect(&p, Rule::MovaWritesGpr);
}

#[test]
fn adjacent_relative_hazard() {
    let p = alu(vec![
        grp(&[mova(X)]),
        grp(&[add(d(5, Y), r(1, Y), one())]),
        grp(&[add(d(6, Y), rel(r(0, Y)), one())]),
    ]);
    expect(&p, Rule::AdjacentRelativeHazard);
}

#[test]
fn loop_index_outside_loop() {
    let p = alu(vec![grp(&[mode(
        add(d(1, X), rel(r(2, X)), one()),
        IndexMode::Loop,
    )])]);
    expect(&p, Rule::LoopIndexOutsideLoop);
}

#[test]
fn alu_clause_size() {
    let g = grp(&[add(d(1, X), r(1, X), one())]);
    expect(&alu(vec![g; 129]), Rule::AluClauseSize);
}

#[test]
fn fetch_clause_size() {
    expect(&fixture("tex_many"), Rule::FetchClauseSize);
}

#[test]
fn mem_read_clause() {
    let mut p = fixture("kcache_vtx");
    let read = sample(common::mem_rd_inst());
    let vtx = p
        .clauses
        .values_mut()
        .find_map(|c| match c {
            Clause::Fetch(FetchClause::Vtx(v)) => Some(v),
            _ => None,
        })
        .expect("a VTX clause");
    vtx.push(VtxClauseInst::MemRead(read));
    expect(&p, Rule::MemReadClause);
}

#[test]
fn clause_reference() {
    let mut p = alu(vec![grp(&[add(d(1, X), r(1, X), one())])]);
    if let CfInst::Alu(a) = &mut p.cf[0] {
        a.count = AluSlotCount::new(2).unwrap();
    }
    expect(&p, Rule::ClauseReference);
}

#[test]
fn clause_layout() {
    let mut p = alu(vec![grp(&[add(d(1, X), r(1, X), one())])]);
    let clause = p.clauses.remove(&2).unwrap();
    p.clauses.insert(1, clause);
    if let CfInst::Alu(a) = &mut p.cf[0] {
        a.addr = AluClauseAddr::new(1).unwrap();
    }
    expect(&p, Rule::ClauseLayout);
}

#[test]
fn cond_not_active() {
    let mut c = CfGeneral::new(CfOp::Nop);
    c.flags.end_of_program = true;
    c.cond = CfCond::False;
    expect(&flow(vec![CfInst::Cf(c)]), Rule::CondNotActive);
}

#[test]
fn wqm_with_vpm() {
    let mut c = CfGeneral::new(CfOp::Nop);
    c.flags.end_of_program = true;
    c.flags.whole_quad_mode = true;
    c.flags.valid_pixel_mode = true;
    expect(&flow(vec![CfInst::Cf(c)]), Rule::WqmWithVpm);
}

#[test]
fn jump_target() {
    expect(&flow(vec![cf(CfOp::Jump, 100), end()]), Rule::JumpTarget);
    let p = flow(vec![
        cf(CfOp::LoopStartDx10, 3),
        cf(CfOp::LoopBreak, 1),
        cf(CfOp::LoopEnd, 1),
        end(),
    ]);
    expect(&p, Rule::JumpTarget);
}

#[test]
fn jump_out_of_loop() {
    let p = flow(vec![
        cf(CfOp::LoopStartDx10, 3),
        cf(CfOp::Jump, 3),
        cf(CfOp::LoopEnd, 1),
        end(),
    ]);
    expect(&p, Rule::JumpOutOfLoop);
}

#[test]
fn call_pop_count() {
    let p = flow(vec![pops(cf(CfOp::Call, 2), 1), end(), cf(CfOp::Return, 0)]);
    expect(&p, Rule::CallPopCount);
}

#[test]
fn return_outside_subroutine() {
    expect(
        &flow(vec![cf(CfOp::Return, 0), end()]),
        Rule::ReturnOutsideSubroutine,
    );
}

#[test]
fn stack_overflow() {
    let nested = flow(vec![
        cf(CfOp::LoopStartDx10, 4),
        cf(CfOp::LoopStartDx10, 3),
        cf(CfOp::LoopEnd, 2),
        cf(CfOp::LoopEnd, 1),
        end(),
    ]);
    let one = Config {
        stack_size: 1,
        ..Config::default()
    };
    expect_with(&nested, &one, Rule::StackOverflow);
}

#[test]
fn stack_underflow() {
    expect(
        &flow(vec![pops(cf(CfOp::Pop, 1), 1), end()]),
        Rule::StackUnderflow,
    );
}

#[test]
fn loop_mismatch() {
    expect(&flow(vec![cf(CfOp::LoopEnd, 0), end()]), Rule::LoopMismatch);
    expect(
        &flow(vec![alu_op(CfAluOp::AluBreak), end()]),
        Rule::LoopMismatch,
    );
}

#[test]
fn end_of_program_nested() {
    expect(
        &flow(vec![alu_op(CfAluOp::AluPushBefore), end()]),
        Rule::EndOfProgramNested,
    );
}

#[test]
fn missing_end_of_program() {
    expect(&flow(vec![cf(CfOp::Nop, 0)]), Rule::MissingEndOfProgram);
}

#[test]
fn flow_analysis_limit() {
    let config = Config {
        max_flow_states: 1,
        ..Config::default()
    };
    let p = flow(vec![cf(CfOp::Nop, 0), end()]);
    expect_with(&p, &config, Rule::FlowAnalysisLimit);
}

// --- coverage and robustness ---------------------------------------------

#[test]
fn every_rule_has_a_section_and_name() {
    for rule in Rule::ALL {
        assert!(!rule.section().is_empty());
        assert!(!rule.name().contains(' '));
    }
}

/// Every rule has its broken program: a test here named after the rule.
#[test]
fn every_rule_has_a_broken_program() {
    let here = include_str!("validate_rules.rs");
    for rule in Rule::ALL {
        let test = format!("fn {}() {{", rule.name().replace('-', "_"));
        assert!(
            here.contains(&test),
            "no broken program for rule {}",
            rule.name()
        );
    }
}

/// Every rule is documented in `docs/validator-r700.md`.
#[test]
fn every_rule_is_documented() {
    let doc = include_str!("../../docs/validator-r700.md");
    for rule in Rule::ALL {
        assert!(
            doc.contains(&format!("`{}`", rule.name())),
            "rule {} missing from docs/validator-r700.md",
            rule.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any program the decoder accepts validates or gives violations,
    /// never a panic.
    #[test]
    fn decoded_programs_never_panic(p in common::program()) {
        let bytes = encode_program(&p).expect("encodes");
        let decoded = decode_program(&bytes).expect("decodes");
        let _ = validate(&decoded);
        let _ = validate_with(&decoded, &Config { stack_size: 1, wavefront_width: 16, ..Config::default() });
    }

    /// Arbitrary bytes: whatever decodes validates without panicking.
    #[test]
    fn arbitrary_bytes_never_panic(words in proptest::collection::vec(any::<u32>(), 0..64)) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Ok(p) = decode_program(&bytes) {
            let _ = validate(&p);
        }
    }
}

/// ALU_ELSE_AFTER's stack effect is `CfAluOp::pushes` (shared with the
/// simulator, `docs/isa-r700.md` §6 #26): one subentry per PRED_SET* of
/// its clause, none without one.
#[test]
fn alu_else_after_pushes_per_pred_set() {
    // No PRED_SET*: no push, so a POP after it underflows at top level ...
    expect(
        &flow(vec![
            alu_op(CfAluOp::AluElseAfter),
            pops(cf(CfOp::Pop, 2), 1),
            end(),
        ]),
        Rule::StackUnderflow,
    );
    // ... and it switches an if/else between a push and a pop.
    clean(&flow(vec![
        alu_op(CfAluOp::AluPushBefore),
        alu_op(CfAluOp::AluElseAfter),
        alu_op(CfAluOp::AluPopAfter),
        end(),
    ]));
    // With a PRED_SET*: one push, which the POP after it balances.
    let mut set = AluInst::op2(Op2::PredSetgt, d(1, X), [r(1, X), one()]);
    if let AluForm::Op2(f) = &mut set.form {
        f.write_mask = false;
        f.update_pred = true;
        f.update_exec_mask = true;
    }
    let mut p = flow(vec![
        alu_op(CfAluOp::AluElseAfter),
        pops(cf(CfOp::Pop, 2), 1),
        end(),
    ]);
    p.clauses.insert(
        3,
        Clause::Alu(AluClause {
            groups: vec![grp(&[set])],
        }),
    );
    clean(&p);
    // Without the POP the push is still open at the end.
    p.cf[1] = CfInst::Cf(CfGeneral::new(CfOp::Nop));
    expect(&p, Rule::EndOfProgramNested);
}

/// ALU_BREAK's transient push (`CfAluOp::transient_pushes`) needs a
/// subentry beside the loop's entry: STACK_SIZE 1 overflows, 2 does not.
#[test]
fn alu_break_needs_room_for_its_push() {
    let p = flow(vec![
        cf(CfOp::LoopStartDx10, 3),
        alu_op(CfAluOp::AluBreak),
        cf(CfOp::LoopEnd, 1),
        end(),
    ]);
    let size = |n: usize| Config {
        stack_size: n,
        ..Config::default()
    };
    expect_with(&p, &size(1), Rule::StackOverflow);
    assert!(
        violations(&p, &size(2)).is_empty(),
        "{:#?}",
        violations(&p, &size(2))
    );
}
