//! Correct programs pass the validator: the hardware-verified worked example
//! (`x1k-encoding.md` §9), the semaphore example of CTM §3.4.2, every
//! flow-control statement of CTM §3.5.4 and the merged ENDIF of §3.5.5, a
//! UMRT program; and the facts of the report are right.

mod validate_common;

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{Bindings, UniformBinding};
use ctm_backend_x1k::isa::program_regs::FcMode;
use ctm_backend_x1k::isa::{decode_program, encode_program};
use ctm_backend_x1k::validate::{Rule, validate};
use validate_common::{assert_valid, full, prog, umrt, violations};

#[test]
fn worked_example() {
    let words = [
        0x0000_7807,
        0x0240_0000,
        0xE400_F400,
        0,
        0,
        0,
        0x0007_8005,
        0x0802_0000,
        0x0802_0000,
        0x0044_0220,
        0x0060_C003,
        0x0000_0005,
    ];
    let p = Program {
        insts: decode_program(&words).expect("decodes"),
        us_pixsize: 0,
        ..prog("")
    };
    let report = validate(&p).expect("the worked example is valid");
    let f = report.facts();
    assert_eq!(f.inputs.iter().copied().collect::<Vec<_>>(), vec![0]);
    assert_eq!(f.outputs.iter().copied().collect::<Vec<_>>(), vec![0]);
    assert_eq!(f.max_temp(), Some(0));
    assert_eq!(f.fc_mode_needed, FcMode::Partial);
    assert!(f.float_constants.is_empty());
    assert_eq!(encode_program(&p.insts), words);
}

#[test]
fn semaphore_example_of_ctm_3_4_2() {
    let p = prog(
        "  0: tex r4.rgba = ld(t0, r1.rgaa)
           1: tex r5.rgba = ld(t1, r2.rgaa)
           2: tex r6.rgba = ld(t2, r3.rgaa) acquire sem_wait
           3: alu r1.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r1 s1=1.0
           4: alu r2.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r2 s1=1.0
           5: alu r3.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r3 s1=1.0
           6: alu r4.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r4 s1=1.0 sem_wait
           7: out o0.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; _ ; s0=r4 s1=r5 s2=r6 sem_wait",
    );
    let report = validate(&p).expect("valid");
    assert_eq!(report.facts().inputs.len(), 3);
    // Without the wait at slot 6, r4 is read too early.
    let mut early = p.clone();
    early.insts[6] = prog("alu r4.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r4 s1=1.0").insts[0];
    assert_eq!(
        violations(&early),
        vec![
            (Rule::TexResultNotReady, Some(6)),
            (Rule::TexResultOverwritten, Some(6))
        ]
    );
}

/// IF p / ELSE / ENDIF (CTM §3.5.4), partial mode.
const IF_P_ELSE: &str = "
  0: alu p.r>=0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r0 s1=c0
  1: fc jump 4 func=!p pred=p.rrrr b_op0=incr b_op1=incr alu_wait
  2: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c1
  3: fc jump 6 func=never b_else b_op1=decr b_pop_cnt=1 sem_wait
  4: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c2
  5: fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait
  6: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait";

#[test]
fn if_p_else_endif() {
    let p = prog(IF_P_ELSE);
    let report = validate(&p).expect("valid");
    assert_eq!(report.facts().max_branch_depth, 1);
    assert_eq!(report.fc_mode_needed(), FcMode::Partial);
    // ELSE jumps to ENDIF+1 = 6, whose OUT waits: the errata wants a wait on it.
    let mut no_wait = p.clone();
    no_wait.insts[3] = prog("fc jump 6 func=never b_else b_op1=decr b_pop_cnt=1").insts[0];
    assert_eq!(violations(&no_wait), vec![(Rule::ErrataFcSemWait, Some(3))]);
}

#[test]
fn if_c_without_else() {
    assert_valid(&prog(
        "  0: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 alu_result=r<0
           1: fc jump 4 func=!alu b_op0=incr alu_wait sem_wait
           2: alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c0
           3: fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait
           4: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    ));
}

#[test]
fn if_c_else_endif() {
    assert_valid(&prog(
        "  0: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 alu_result=r<0
           1: fc jump 4 func=!alu b_op0=incr b_op1=incr alu_wait
           2: alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c0
           3: fc jump 6 func=never b_else b_op1=decr b_pop_cnt=1 sem_wait
           4: alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c1
           5: fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1 sem_wait
           6: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    ));
}

#[test]
fn static_if_b_else() {
    assert_valid(&prog(
        "  0: fc jump 3 func=!b bool=b2
           1: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c0
           2: fc jump 4 func=always sem_wait
           3: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c1
           4: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
    ));
    // IF b without ELSE jumps to the ENDIF slot itself (no FC there).
    let p = prog(
        "  0: fc jump 2 func=!b bool=b0
           1: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c0
           2: alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1
           3: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    let report = validate(&p).expect("valid");
    assert_eq!(
        report
            .facts()
            .bool_constants
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![0]
    );
}

/// LOOP { r[1+aL] = c[aL]; if p { break } } with a nested REP, full mode.
const LOOPS: &str = "
  0: fc loop 12 func=never int=i0 sem_wait
  1: alu r[1+aL].rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c[0+aL]
  2: alu p.r<0 = mad(s0.rgb, s0.111, -s1.rgb) ; _ ; s0=r1 s1=c8
  3: fc jump 6 func=!p pred=p.rrrr b_op0=incr alu_wait sem_wait
  4: fc breakloop 12 func=always b_op1=decr b_pop_cnt=1 sem_wait
  5: fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
  6: fc rep 10 func=never int=i1
  7: alu r9.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r9 s1=c[4+aL]
  8: fc continue 9 func=always b_op1=decr b_pop_cnt=0
  9: fc endrep 7 func=always jump_any int=i1
 10: alu r9.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r9
 11: fc endloop 1 func=always jump_any int=i0 sem_wait
 12: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r9 sem_wait";

#[test]
fn loop_rep_break_continue() {
    let mut p = full(LOOPS);
    p.bindings = Bindings {
        uniforms: vec![UniformBinding {
            param: "table".into(),
            ty: "[vec4; 4]".into(),
            float_constant: 0,
        }],
        ..Bindings::default()
    };
    let report = validate(&p).expect("valid");
    let f = report.facts();
    assert_eq!(f.max_loop_depth, 2);
    assert_eq!(f.fc_mode_needed, FcMode::Full);
    assert_eq!(
        f.int_constants.iter().copied().collect::<Vec<_>>(),
        vec![0, 1]
    );
    // c[0+aL] reaches the array c0..c3; c[4+aL] is in no binding: c4..c255.
    assert_eq!(f.float_constants.len(), 256);
    assert!(f.relative_temps);
    // The same program in partial mode needs full mode.
    let partial = Program {
        us_fc_ctrl: 0,
        ..p.clone()
    };
    assert!(
        violations(&partial)
            .iter()
            .all(|(r, _)| *r == Rule::FullModeRequired)
    );
}

#[test]
fn call_and_return() {
    let p = full(
        "  0: fc jump 3 func=always jump_any a_op=push b_op1=incr
           1: fc jump 3 func=always jump_any a_op=push b_op1=incr
           2: fc jump 5 func=always sem_wait
           3: alu r1.rgb = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r1 s1=1.0
           4: fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1 sem_wait
           5: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
    );
    let report = validate(&p).expect("valid");
    assert_eq!(report.facts().max_call_depth, 1);
}

#[test]
fn merged_endif_of_ctm_3_5_5() {
    let p = prog(
        "  0: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 alu_result=r<0
           1: fc jump 8 func=!alu b_op0=incr alu_wait sem_wait
           2: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c0 alu_result=r<0
           3: fc jump 8 func=!alu b_op0=incr b_op1=decr b_pop_cnt=1 alu_wait sem_wait
           4: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c1 alu_result=r<0
           5: fc jump 8 func=!alu b_op0=incr b_op1=decr b_pop_cnt=2 alu_wait sem_wait
           6: alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c2
           7: fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=3 sem_wait
           8: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2 sem_wait",
    );
    let report = validate(&p).expect("valid");
    assert_eq!(report.facts().max_branch_depth, 3);
    // A wrong pop count on the merged ENDIF leaves a block open at the end.
    let mut wrong = p.clone();
    wrong.insts[7] = prog("fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=2 sem_wait").insts[0];
    assert!(violations(&wrong).contains(&(Rule::NestingMismatch, Some(8))));
}

#[test]
fn umrt_scatter_with_read_back() {
    let p = umrt(
        "  0: out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.0, s0.0) ; s0=r0 sem_wait
           1: tex r1.r = ld_uncached(t0, r0.rrrr) sem_wait unscaled
           2: out _ ; _ ; sem_wait",
    );
    let report = validate(&p).expect("valid");
    let f = report.facts();
    assert!(f.uncached_writes);
    assert_eq!(f.outputs.iter().copied().collect::<Vec<_>>(), vec![0]);
}

#[test]
fn early_exit_and_conditional_output_facts() {
    let p = prog(
        "  0: tex _ = texkill(t0, r1.rgba) sem_wait
           1: out o2.rgb = max(s0.rgb, s0.rgb) ; o3.a, w = max(s0.a, s0.a) ; s0=r1 sem_wait",
    );
    let report = validate(&p).expect("valid");
    let f = report.facts();
    assert!(f.early_exit && f.conditional_output);
    assert!(f.inputs.is_empty());
    assert_eq!(f.outputs.iter().copied().collect::<Vec<_>>(), vec![2, 3]);
}
