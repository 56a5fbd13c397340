//! One deliberately broken program per hardware rule, written in the
//! assembly syntax: each must violate exactly that rule, at that slot.

mod validate_common;

use ctm_backend_x1k::Program;
use ctm_backend_x1k::validate::Rule;
use validate_common::{assert_only, full, prog, umrt};

const END: &str = "out _ ; _ ; sem_wait";

fn with_end(body: &str) -> String {
    format!("{body}\n{END}")
}

#[test]
fn program_length() {
    let empty = prog("");
    assert_only(&empty, Rule::ProgramLength, None);
    let long = prog(&vec![END; 513].join("\n"));
    assert_only(&long, Rule::ProgramLength, None);
}

#[test]
fn program_register() {
    let p = Program {
        us_pixsize: 0x80,
        ..prog(END)
    };
    assert_only(&p, Rule::ProgramRegister, None);
    let p = Program {
        us_fc_ctrl: 0x4000_0000,
        ..prog(END)
    };
    assert_only(&p, Rule::ProgramRegister, None);
}

#[test]
fn last_not_output() {
    assert_only(&prog("alu _ ; _"), Rule::LastNotOutput, Some(0));
}

#[test]
fn last_without_sem_wait() {
    assert_only(&prog("out _ ; _"), Rule::LastWithoutSemWait, Some(0));
}

#[test]
fn pixsize_too_small() {
    let p = Program {
        us_pixsize: 4,
        ..prog(&with_end("alu r5.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0"))
    };
    assert_only(&p, Rule::PixsizeTooSmall, None);
    let ok = Program {
        us_pixsize: 5,
        ..p.clone()
    };
    validate_common::assert_valid(&ok);
}

#[test]
fn output_writes_alu_result() {
    let p = prog("out _ ; _ ; alu_result=r<0 sem_wait");
    assert_only(&p, Rule::OutputWritesAluResult, Some(0));
}

#[test]
fn omod_disabled_op() {
    let p = prog(&with_end(
        "alu r1.rgb = mad(s0.rgb, s0.rgb, s0.rgb) omod_off ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::OmodDisabledOp, Some(0));
    let p = prog(&with_end("alu _ ; r1.a = rcp(s0.a) omod_off ; s0=r0"));
    assert_only(&p, Rule::OmodDisabledOp, Some(0));
}

#[test]
fn omod_disabled_clamp() {
    let p = prog(&with_end(
        "alu r1.rgb = max(s0.rgb, s0.rgb) omod_off sat ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::OmodDisabledClamp, Some(0));
}

#[test]
fn sop_without_transcendental() {
    let p = prog(&with_end(
        "alu r1.rgb = sop() ; r1.a = max(s0.a, s0.a) ; s0=r0",
    ));
    assert_only(&p, Rule::SopWithoutTranscendental, Some(0));
}

#[test]
fn dp_without_dot_product() {
    let p = prog(&with_end(
        "alu r1.rgb = max(s0.rgb, s0.rgb) ; r1.a = dp(s0.a, s0.a) ; s0=r0",
    ));
    assert_only(&p, Rule::DpWithoutDotProduct, Some(0));
}

#[test]
fn dp4_modifier_mismatch() {
    let p = prog(&with_end(
        "alu r1.rgb = dp4(s0.rgb, s1.rgb) ; r1.a = dp(-s0.a, s1.a) ; s0=r0 s1=r2",
    ));
    assert_only(&p, Rule::Dp4ModifierMismatch, Some(0));
}

#[test]
fn undefined_swizzle() {
    let p = prog(&with_end("alu r1.rgb = max(s0.rg_, s0.rgb) ; _ ; s0=r0"));
    assert_only(&p, Rule::UndefinedSwizzle, Some(0));
    // DP4 reads the alpha unit's A and B as its fourth component.
    let p = prog(&with_end(
        "alu r1.rgb = dp4(s0.rgb, s0.rgb) ; r1.a = dp(s0._, s0.a) ; s0=r0",
    ));
    assert_only(&p, Rule::UndefinedSwizzle, Some(0));
    // An input the op does not read may hold code 7.
    let p = prog(&with_end(
        "alu r1.rgb = max(s0.rgb, s0.rgb, s0.__r) ; _ ; s0=r0",
    ));
    validate_common::assert_valid(&p);
}

#[test]
fn op_not_in_ctm_guide() {
    let p = prog(&with_end(
        "alu r1.rgb = mdh(s0.rgb, s0.rgb, s0.rgb) ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::OpNotInCtmGuide, Some(0));
}

#[test]
fn presubtract_nop() {
    let body = "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0
                alu r2.rgb = max(sp.rgb, sp.rgb) srcp=inv ; _ ; s0=r1";
    assert_only(&prog(&with_end(body)), Rule::PresubtractNop, Some(0));
    // With NOP on the writer, or a channel the presubtract does not read,
    // it is fine.
    let nop = "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 nop
               alu r2.rgb = max(sp.rgb, sp.rgb) srcp=inv ; _ ; s0=r1";
    validate_common::assert_valid(&prog(&with_end(nop)));
    let other = "alu r1.rg = max(s0.rgb, s0.rgb) ; _ ; s0=r0
                 alu r2.rgb = max(sp.bbb, sp.bbb) srcp=inv ; _ ; s0=r1";
    validate_common::assert_valid(&prog(&with_end(other)));
}

#[test]
fn umrt_partial_mask() {
    let p = umrt("out o0.rg = max(s0.rgb, s0.rgb) ; _ ; s0=r0 sem_wait");
    assert_only(&p, Rule::UmrtPartialMask, Some(0));
}

#[test]
fn umrt_alpha_not_zero() {
    let p = umrt("out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.1, s0.1) ; s0=r0 sem_wait");
    assert_only(&p, Rule::UmrtAlphaNotZero, Some(0));
}

#[test]
fn umrt_cached_write() {
    let p = umrt("out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a, w = max(s0.0, s0.0) ; s0=r0 sem_wait");
    assert_only(&p, Rule::UmrtCachedWrite, Some(0));
}

#[test]
fn acquire_without_wait() {
    let p = prog(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
    );
    assert_only(&p, Rule::AcquireWithoutWait, Some(0));
    // An acquiring UMRT write (o1 = SAME_IDX_TEX_SEM_ACQUIRE) too.
    let p = umrt(
        "out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.0, s0.0) ; s0=r0
         out _ ; _ ; sem_wait",
    );
    assert_only(&p, Rule::AcquireWithoutWait, Some(0));
}

#[test]
fn tex_result_not_ready() {
    let p = prog(&with_end(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
         alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1",
    ));
    assert_only(&p, Rule::TexResultNotReady, Some(1));
    // A lookup after the last acquire is not landed by the next wait.
    let p = prog(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
         tex r2.rgba = ld(t1, r0.rgaa)
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    assert_only(&p, Rule::TexResultNotReady, Some(2));
    // A dependent lookup is a reader too.
    let p = prog(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
         tex r2.rgba = ld(t1, r1.rgaa)
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 sem_wait",
    );
    assert_only(&p, Rule::TexResultNotReady, Some(1));
}

#[test]
fn tex_result_overwritten() {
    let p = prog(&with_end(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
         alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::TexResultOverwritten, Some(1));
}

#[test]
fn semaphore_held_at_end() {
    let p = umrt("out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.0, s0.0) ; s0=r0 sem_wait");
    assert_only(&p, Rule::SemaphoreHeldAtEnd, Some(0));
}

#[test]
fn uncached_read_not_synchronised() {
    let p = umrt(
        "out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.0, s0.0) ; s0=r0 sem_wait
         tex r1.r = ld_uncached(t0, r0.rrrr) sem_wait unscaled
         out _ ; _ ; sem_wait",
    );
    assert_only(&p, Rule::UncachedReadNotSynchronised, Some(1));
}

#[test]
fn errata_fc_sem_wait() {
    let p = prog(&with_end("fc jump 1 func=always"));
    assert_only(&p, Rule::ErrataFcSemWait, Some(0));
}

#[test]
fn missing_alu_wait() {
    let p = prog(
        "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0
         tex r2.rgba = ld(t0, r1.rgaa) acquire sem_wait
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    assert_only(&p, Rule::MissingAluWait, Some(1));
    // A predicate read by an FC instruction.
    let p = prog(&with_end(
        "alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
         fc jump 3 func=!p pred=p.rrrr b_op0=incr sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::MissingAluWait, Some(1));
    // A predicate read by a TEX instruction.
    let p = prog(
        "alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
         tex r2.rgba = ld(t0, r0.rgaa) rgb_pred=p.rrrr acquire sem_wait
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    assert_only(&p, Rule::MissingAluWait, Some(1));
}

#[test]
fn alu_result_not_written() {
    let p = prog(&with_end(
        "fc jump 2 func=!alu b_op0=incr alu_wait sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::AluResultNotWritten, Some(0));
    // Written, but an FC instruction in between destroys it.
    let p = prog(&with_end(
        "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 alu_result=r<0
         fc jump 2 func=never jump_any sem_wait
         fc jump 4 func=!alu b_op0=incr alu_wait sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::AluResultNotWritten, Some(2));
}

#[test]
fn fc_predicate_not_selected() {
    let p = prog(&with_end(
        "fc jump 2 func=!p b_op0=incr alu_wait sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::FcPredicateNotSelected, Some(0));
}

#[test]
fn jump_out_of_range() {
    let p = prog(&with_end("fc jump 9 func=always sem_wait"));
    assert_only(&p, Rule::JumpOutOfRange, Some(0));
}

const LOOP: &str = "fc loop 2 func=never int=i0 sem_wait
                    fc endloop 1 func=always jump_any int=i0 sem_wait";

#[test]
fn full_mode_required() {
    let found = validate_common::violations(&prog(&with_end(LOOP)));
    assert_eq!(
        found,
        vec![
            (Rule::FullModeRequired, Some(0)),
            (Rule::FullModeRequired, Some(1))
        ]
    );
    validate_common::assert_valid(&full(&with_end(LOOP)));
    let call = "fc jump 2 func=always jump_any a_op=push sem_wait
                fc jump 3 func=always sem_wait
                fc jump 0 func=always a_op=pop sem_wait";
    let found = validate_common::violations(&prog(&with_end(call)));
    assert_eq!(
        found,
        vec![
            (Rule::FullModeRequired, Some(0)),
            (Rule::FullModeRequired, Some(2))
        ]
    );
}

/// Five nested dynamic IFs closed by one merged ENDIF (CTM §3.5.5).
fn five_ifs() -> String {
    let mut lines = vec!["alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0".to_string()];
    for k in 0..5 {
        let b_op1 = if k == 0 {
            String::new()
        } else {
            format!(" b_op1=decr b_pop_cnt={k}")
        };
        lines.push(format!(
            "fc jump 7 func=!p pred=p.rrrr b_op0=incr{b_op1} alu_wait sem_wait"
        ));
    }
    lines.push("fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=5 sem_wait".to_string());
    with_end(&lines.join("\n"))
}

#[test]
fn branch_depth() {
    assert_only(&prog(&five_ifs()), Rule::BranchDepth, Some(5));
    validate_common::assert_valid(&full(&five_ifs()));
}

#[test]
fn branch_underflow() {
    let p = prog(&with_end(
        "fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::BranchUnderflow, Some(0));
    let p = prog(&with_end("fc jump 1 func=never b_else sem_wait"));
    assert_only(&p, Rule::BranchUnderflow, Some(0));
}

#[test]
fn loop_stack_overflow() {
    let mut lines = Vec::new();
    for k in 0..5 {
        lines.push(format!("fc loop {} func=never int=i{k} sem_wait", 10 - k));
    }
    for k in (0..5).rev() {
        lines.push(format!(
            "fc endloop {} func=always jump_any int=i{k} sem_wait",
            k + 1
        ));
    }
    assert_only(
        &full(&with_end(&lines.join("\n"))),
        Rule::LoopStackOverflow,
        Some(4),
    );
}

#[test]
fn loop_mismatch() {
    let p = full(&with_end(
        "fc loop 2 func=never int=i0 sem_wait
         fc endrep 1 func=always jump_any int=i0 sem_wait",
    ));
    assert_only(&p, Rule::LoopMismatch, Some(1));
    let p = full(&with_end("fc continue 1 func=always sem_wait"));
    assert_only(&p, Rule::LoopMismatch, Some(0));
}

#[test]
fn address_stack_overflow() {
    let p = full(&with_end(
        "fc jump 0 func=always jump_any a_op=push b_op1=incr sem_wait",
    ));
    assert_only(&p, Rule::AddressStackOverflow, Some(0));
}

#[test]
fn address_stack_underflow() {
    let p = full(&with_end("fc jump 0 func=always a_op=pop sem_wait"));
    assert_only(&p, Rule::AddressStackUnderflow, Some(0));
}

#[test]
fn nesting_mismatch() {
    // A goto out of an IF body skips its ENDIF.
    let p = prog(&with_end(
        "alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
         fc jump 4 func=!p pred=p.rrrr b_op0=incr alu_wait sem_wait
         fc jump 4 func=always sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait",
    ));
    assert_only(&p, Rule::NestingMismatch, Some(4));
}

#[test]
fn loop_body_unbalanced() {
    // BREAK inside an IF must pop that block (B_POP_CNT 1, not 0).
    let p = full(&with_end(
        "fc loop 6 func=never int=i0 sem_wait
         alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
         fc jump 5 func=!p pred=p.rrrr b_op0=incr alu_wait sem_wait
         fc breakloop 6 func=always b_op1=decr b_pop_cnt=0 sem_wait
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait
         fc endloop 1 func=always jump_any int=i0 sem_wait",
    ));
    assert_only(&p, Rule::LoopBodyUnbalanced, Some(3));
}

#[test]
fn return_unbalanced() {
    let p = full(&with_end(
        "fc jump 2 func=always jump_any a_op=push b_op1=incr sem_wait
         fc jump 3 func=always sem_wait
         fc jump 0 func=always a_op=pop sem_wait",
    ));
    assert_only(&p, Rule::ReturnUnbalanced, Some(2));
}

#[test]
fn unbalanced_at_end() {
    let p = prog(&with_end(
        "alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
         fc jump 2 func=!p pred=p.rrrr b_op0=incr b_op1=incr alu_wait sem_wait",
    ));
    assert_only(&p, Rule::UnbalancedAtEnd, Some(2));
}

#[test]
fn relative_outside_loop() {
    let p = full(&with_end(
        "alu r[1+aL].rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::RelativeOutsideLoop, Some(0));
    // REP does not set aL.
    let p = full(&with_end(
        "fc rep 3 func=never int=i0 sem_wait
         alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c[1+aL]
         fc endrep 1 func=always jump_any int=i0 sem_wait",
    ));
    assert_only(&p, Rule::RelativeOutsideLoop, Some(1));
}

#[test]
fn analysis_limit() {
    // Three levels of subroutines, each called from 64 sites: 64³ call
    // contexts of the innermost one, more (slot, call stack) states than
    // the flow analysis explores. Each part is well formed on its own.
    const SITES: usize = 64;
    let call = |target: usize| {
        format!("fc jump {target} func=always jump_any a_op=push b_op1=incr sem_wait")
    };
    let ret = "fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1 sem_wait";
    let s1 = SITES + 1;
    let s2 = s1 + SITES + 1;
    let s3 = s2 + SITES + 1;
    let end = s3 + 1;
    let mut lines: Vec<String> = (0..SITES).map(|_| call(s1)).collect();
    lines.push(format!("fc jump {end} func=always sem_wait"));
    lines.extend((0..SITES).map(|_| call(s2)));
    lines.push(ret.to_string());
    lines.extend((0..SITES).map(|_| call(s3)));
    lines.push(ret.to_string());
    lines.push(ret.to_string());
    lines.push(END.to_string());
    assert_eq!(lines.len(), end + 1);
    let p = full(&lines.join("\n"));
    assert_only(&p, Rule::AnalysisLimit, None);
    // With fewer call sites the same shape is valid.
    let small = SITES / 8;
    let (s1, s2, s3) = (small + 1, 2 * small + 2, 3 * small + 3);
    let end = s3 + 1;
    let mut lines: Vec<String> = (0..small).map(|_| call(s1)).collect();
    lines.push(format!("fc jump {end} func=always sem_wait"));
    lines.extend((0..small).map(|_| call(s2)));
    lines.push(ret.to_string());
    lines.extend((0..small).map(|_| call(s3)));
    lines.push(ret.to_string());
    lines.push(ret.to_string());
    lines.push(END.to_string());
    validate_common::assert_valid(&full(&lines.join("\n")));
}

#[test]
fn every_rule_has_a_section_and_name() {
    for rule in Rule::ALL {
        assert!(!rule.section().is_empty());
        assert!(!rule.name().contains(' '));
    }
}

/// Every rule has its broken program: a test here named after the rule
/// (`Rule::name` in snake case), or — for the rules about ELF images — a
/// check in `elf_roundtrip.rs`.
#[test]
fn every_rule_has_a_broken_program() {
    let here = include_str!("validate_rules.rs");
    let elf = include_str!("elf_roundtrip.rs");
    for rule in Rule::ALL {
        let test = format!("fn {}() {{", rule.name().replace('-', "_"));
        let in_elf = format!("Rule::{rule:?}");
        assert!(
            here.contains(&test) || elf.contains(&in_elf),
            "no broken program for rule {}",
            rule.name()
        );
    }
}

/// An OUT instruction may write temporaries as well as a target (CTM
/// §3.2's field table: `RGB_WMASK`/`ALPHA_WMASK` are effective for
/// OUTPUT; §3.3.6): its temporary writes obey the rules of an ALU
/// instruction's — the presubtract `NOP`, a lookup in flight, `ALU_WAIT`
/// before a fetch reading them — and it is accepted otherwise.
#[test]
fn out_instructions_write_temporaries_under_the_alu_rules() {
    let ok = prog(
        "out r1.rgb, o0.rgb = mad(s0.rgb, s0.rgb, s0.000) ; r1.a, o0.a = mad(s0.a, s0.a, s0.0) ; s0=r0
         out o1.rgb = max(s0.rgb, s0.rgb) omod_off ; _ ; s0=r1 sem_wait",
    );
    validate_common::assert_valid(&ok);
    let body = "out r1.rgb, o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0
                alu r2.rgb = max(sp.rgb, sp.rgb) srcp=inv ; _ ; s0=r1";
    assert_only(&prog(&with_end(body)), Rule::PresubtractNop, Some(0));
    let p = prog(&with_end(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
         out r1.r, o0.r = max(s0.rrr, s0.rrr) ; _ ; s0=r0",
    ));
    assert_only(&p, Rule::TexResultOverwritten, Some(1));
    let p = prog(
        "out r1.rg, o0.rg = max(s0.rgb, s0.rgb) ; _ ; s0=r0
         tex r2.rgba = ld(t0, r1.rgaa) acquire sem_wait
         out o1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    assert_only(&p, Rule::MissingAluWait, Some(1));
}
