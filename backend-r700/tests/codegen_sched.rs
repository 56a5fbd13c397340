//! Unit tests of the bundle scheduler's rules: the bank-swizzle search
//! (manual §4.7.4-4.7.9) finds legal assignments where the naive one
//! breaks the read ports, and reports the groups that have none (which
//! the clause builder then splits).

use ctm_backend_r700::codegen::sched::assign_bank_swizzles;
use ctm_backend_r700::isa::{
    AluDst, AluGroup, AluInst, AluSrc, AluSrcSel, BankSwizzle, Chan, Gpr, Op2, Op3,
};
use ctm_backend_r700::validate::group_port_violations;

fn r(g: u32, c: Chan) -> AluSrc {
    AluSrc::new(AluSrcSel::Gpr(Gpr::new(g).expect("gpr")), c)
}

fn dst(g: u32, c: Chan) -> AluDst {
    AluDst {
        gpr: Gpr::new(g).expect("gpr"),
        rel: false,
        chan: c,
    }
}

#[test]
fn search_repairs_a_group_the_naive_swizzle_breaks() {
    // X and Y both read bank X on cycle 0 under VEC_012 with different
    // GPRs (R1.x, R3.x): illegal; some other assignment is legal.
    let insts = [
        AluInst::op2(Op2::Add, dst(10, Chan::X), [r(1, Chan::X), r(2, Chan::Y)]),
        AluInst::op2(Op2::Add, dst(10, Chan::Y), [r(3, Chan::X), r(4, Chan::Y)]),
    ];
    let mut g = AluGroup::with_literals(&insts, &[]);
    assert!(
        !group_port_violations(&g).is_empty(),
        "the naive assignment should break the read ports"
    );
    assert!(assign_bank_swizzles(&mut g));
    assert!(group_port_violations(&g).is_empty());
    assert!(
        g.insts
            .iter()
            .any(|i| i.bank_swizzle != BankSwizzle::Vec012)
    );
}

#[test]
fn search_uses_the_trans_swizzles_and_constant_cycles() {
    // Trans reads a constant and a GPR: with one constant operand it may
    // not read a GPR on cycle 0 (§4.7.8); the vector op keeps its banks.
    let insts = [
        AluInst::op3(
            Op3::MuladdIeee,
            dst(10, Chan::X),
            [r(1, Chan::X), r(2, Chan::X), r(3, Chan::X)],
        ),
        AluInst::op2(
            Op2::MulIeee,
            dst(11, Chan::X),
            [AluSrc::new(AluSrcSel::Cfile(0), Chan::X), r(4, Chan::Y)],
        ),
    ];
    // Put the MUL in the Trans unit by making X taken: the unit
    // assignment gives the second any-unit op of element X to Trans.
    let mut g = AluGroup::with_literals(&insts, &[]);
    assert!(assign_bank_swizzles(&mut g));
    assert!(group_port_violations(&g).is_empty());
}

#[test]
fn four_registers_of_one_bank_have_no_assignment() {
    // Four different GPRs read from bank X: three cycles cannot serve them.
    let insts = [
        AluInst::op2(Op2::Add, dst(10, Chan::X), [r(1, Chan::X), r(2, Chan::X)]),
        AluInst::op2(Op2::Add, dst(10, Chan::Y), [r(3, Chan::X), r(4, Chan::X)]),
    ];
    let mut g = AluGroup::with_literals(&insts, &[]);
    assert!(!assign_bank_swizzles(&mut g));
}

#[test]
fn shared_reads_need_no_extra_port() {
    // Every unit reads R1.x as src0: one read serves them all (§4.7.4).
    let insts: Vec<AluInst> = [Chan::X, Chan::Y, Chan::Z, Chan::W]
        .into_iter()
        .map(|c| AluInst::op2(Op2::Add, dst(10, c), [r(1, Chan::X), r(2, c)]))
        .collect();
    let mut g = AluGroup::with_literals(&insts, &[]);
    assert!(assign_bank_swizzles(&mut g));
    assert!(group_port_violations(&g).is_empty());
}
