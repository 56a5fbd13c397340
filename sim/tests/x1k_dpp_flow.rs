//! Flow control (CTM §3.5) with the field values of the §3.5.4 statement
//! table and the merged-ENDIF example of §3.5.5, run over elements whose
//! conditions differ (partially passing groups) and over uniform groups, at
//! several group sizes (results must not depend on the group size).

mod x1k_dpp_common;

use ctm_sim::x1k::dpp::{DppOptions, FaultKind, TableMemory};
use x1k_dpp_common::*;

/// Group sizes every program is run with.
const GROUP_SIZES: [usize; 6] = [1, 3, 7, 16, 48, 64];

/// Run `text` over elements (i, 0) for i in `range` at every group size;
/// check the sizes agree and return o0.r per element.
fn red_per_element(
    text: &str,
    mode: Mode,
    mem: &TableMemory,
    range: std::ops::Range<u32>,
) -> Vec<f32> {
    let prog = program(text, mode);
    let elements: Vec<(u32, u32)> = range.map(|i| (i, 0)).collect();
    let mut first: Option<Vec<f32>> = None;
    for g in GROUP_SIZES {
        let run =
            run_grouped(&prog, &elements, mem, g).unwrap_or_else(|e| panic!("group {g}: {e}"));
        let reds: Vec<f32> = run.results.iter().map(|r| target(r, 0)[0]).collect();
        match &first {
            None => first = Some(reds),
            Some(f) => assert_eq!(f, &reds, "group size {g} differs"),
        }
    }
    first.unwrap_or_default()
}

/// `p.r = (i - k < 0)`, i.e. i < k.
fn pred_i_less(k: &str) -> String {
    format!("alu p.r<0 = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1={k}")
}

/// `r1 += 1`.
const INC_R1: &str = "alu r1.rgb = mad(s0.rgb, s1.111, s1.rrr) ; _ ; s0=r1 s1=1.0";

fn set_r1(v: &str) -> String {
    format!("alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0={v}")
}

fn out_r1() -> String {
    "out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait".to_string()
}

#[test]
fn if_else_endif_on_predicate() {
    // CTM §3.5.4 rows IF p / ELSE / ENDIF.
    let text = format!(
        "{}
         fc jump 4 func=!p pred=p.rrrr b_op0=incr b_op1=incr alu_wait
         {}
         fc jump 6 func=never b_op1=decr b_pop_cnt=1 b_else
         {}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {}",
        pred_i_less("2.0"),
        set_r1("10.0"),
        set_r1("20.0"),
        out_r1()
    );
    let mem = TableMemory::default();
    let want = |i: u32| if i < 2 { 10.0 } else { 20.0 };
    let got = red_per_element(&text, Mode::Partial, &mem, 0..70);
    assert_eq!(got, (0..70).map(want).collect::<Vec<_>>());
    // Uniform groups: all pass, all fail.
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 0..2),
        vec![10.0, 10.0]
    );
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 5..9),
        vec![20.0; 4]
    );
    // A group that all fails jumps once: the IF to ELSE+1 (the ELSE is
    // skipped, the ENDIF does not jump).
    let prog = program(&text, Mode::Partial);
    let run = run(&prog, &[(5, 0), (6, 0)], &mem).unwrap();
    assert_eq!(run.stats.flow.jumps_taken, 1);
}

#[test]
fn if_else_endif_on_alu_result_and_boolean() {
    // IF c (JUMP_FUNC 0x0f) with the ALU result of the previous ALU instruction.
    let text = format!(
        "alu _ = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1=4.0 alu_result=r>=0
         fc jump 4 func=!alu b_op0=incr b_op1=incr alu_wait
         {}
         fc jump 6 func=never b_op1=decr b_pop_cnt=1 b_else
         {}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {}",
        set_r1("10.0"),
        set_r1("20.0"),
        out_r1()
    );
    let got = red_per_element(&text, Mode::Partial, &TableMemory::default(), 0..9);
    let want: Vec<f32> = (0..9).map(|i| if i >= 4 { 10.0 } else { 20.0 }).collect();
    assert_eq!(got, want);

    // IF b (0x55) / ELSE (0xff), no ENDIF instruction.
    let text = format!(
        "fc jump 3 func=!b bool=b5
         {}
         fc jump 4 func=always
         {}
         {}",
        set_r1("10.0"),
        set_r1("20.0"),
        out_r1()
    );
    let mut mem = TableMemory::default();
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 0..3),
        vec![20.0; 3]
    );
    mem.bool_constants = 1 << 5;
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 0..3),
        vec![10.0; 3]
    );
}

#[test]
fn nested_ifs_with_merged_endif() {
    // CTM §3.5.5: three IF c with B_OP1 = DECR 0/1/2 jumping to the one
    // merged ENDIF (B_POP_CNT 3). r1 = number of nested conditions passed = min(i, 3).
    let cond = |k: &str| {
        format!("alu _ = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1={k} alu_result=r>=0")
    };
    let text = format!(
        "{}
         fc jump 10 func=!alu b_op0=incr alu_wait
         {INC_R1}
         {}
         fc jump 10 func=!alu b_op0=incr b_op1=decr b_pop_cnt=1 alu_wait
         {INC_R1}
         {}
         fc jump 10 func=!alu b_op0=incr b_op1=decr b_pop_cnt=2 alu_wait
         {INC_R1}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=3
         {}",
        cond("1.0"),
        cond("2.0"),
        cond("3.0"),
        out_r1()
    );
    let got = red_per_element(&text, Mode::Partial, &TableMemory::default(), 0..8);
    assert_eq!(
        got,
        (0..8).map(|i: u32| i.min(3) as f32).collect::<Vec<_>>()
    );
    // The same without merging (three ENDIFs) gives the same results.
    let text = format!(
        "{}
         fc jump 12 func=!alu b_op0=incr alu_wait
         {INC_R1}
         {}
         fc jump 11 func=!alu b_op0=incr alu_wait
         {INC_R1}
         {}
         fc jump 10 func=!alu b_op0=incr alu_wait
         {INC_R1}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {}",
        cond("1.0"),
        cond("2.0"),
        cond("3.0"),
        out_r1()
    );
    let got = red_per_element(&text, Mode::Partial, &TableMemory::default(), 0..8);
    assert_eq!(
        got,
        (0..8).map(|i: u32| i.min(3) as f32).collect::<Vec<_>>()
    );
}

#[test]
fn loop_with_al_relative_addressing() {
    // LOOP/ENDLOOP (CTM §3.5.4) with count 4, aL = 2, 5, 8, 11 (step 3):
    // r1 += c[10 + aL] and r[20 + aL].r = i.
    let text = "fc loop 4 int=i2
         alu r1.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r1 s1=c[10+aL]
         alu r[20+aL].r = max(s0.rrr, s0.rrr) ; _ ; s0=r0
         fc endloop 1 func=always jump_any int=i2
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1
         out o1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r31 sem_wait";
    let mut mem = TableMemory::default();
    for k in 0..40u8 {
        mem.set_constant(k, [f32::from(k) * 1.5, 1.0, 0.0, 0.0]);
    }
    mem.set_loop(2, 4, 2, 3);
    let prog = program(text, Mode::Full);
    let run = run(&prog, &[(7, 0), (9, 0)], &mem).unwrap();
    let want = [12.0f32, 15.0, 18.0, 21.0]
        .iter()
        .map(|k| k * 1.5)
        .sum::<f32>();
    assert_eq!(target(&run.results[0], 0), [want, 4.0, 0.0, 0.0]);
    // The last iteration (aL = 11) wrote r31.r = i.
    assert_eq!(target(&run.results[1], 1)[0], 9.0);
    assert_eq!(run.stats.flow.max_loop_depth, 1);

    // Zero iterations: LOOP jumps past ENDLOOP (CTM §3.5.3 special case).
    mem.set_loop(2, 0, 2, 3);
    let run = x1k_dpp_common::run(&prog, &[(7, 0)], &mem).unwrap();
    assert_eq!(target(&run.results[0], 0)[0], 0.0);
    // Negative step (8-bit two's complement): aL = 20, 18, 16.
    mem.set_loop(2, 3, 20, -2);
    let run = x1k_dpp_common::run(&prog, &[(7, 0)], &mem).unwrap();
    assert_eq!(target(&run.results[0], 0)[0], (30.0 + 28.0 + 26.0) * 1.5);
}

#[test]
fn rep_inside_loop_sees_al() {
    // CTM §3.5.2: an inner REP sees the outer LOOP's aL.
    let text = "fc loop 5 int=i0
         fc rep 4 int=i1
         alu r1.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r1 s1=c[0+aL]
         fc endrep 2 func=always jump_any int=i1
         fc endloop 1 func=always jump_any int=i0
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait";
    let mut mem = consts(&[[1.0; 4], [10.0; 4], [100.0; 4]]);
    mem.set_loop(0, 3, 0, 1);
    mem.set_loop(1, 2, 0, 0);
    let got = red_per_element(text, Mode::Full, &mem, 0..3);
    assert_eq!(got, vec![2.0 * 111.0; 3]);
}

#[test]
fn break_on_predicate() {
    // LOOP (count 8) { r1 += 1; BREAK p if r1 >= i } → clamp(i, 1, 8).
    let text = format!(
        "fc loop 5 int=i0
         {INC_R1}
         alu p.r>=0 = mad(s0.rrr, s1.111, -s2.rrr) ; _ ; s0=r1 s1=1.0 s2=r0
         fc breakloop 5 func=p pred=p.rrrr b_op1=decr alu_wait
         fc endloop 1 func=always jump_any int=i0
         {}",
        out_r1()
    );
    let mut mem = TableMemory::default();
    mem.set_loop(0, 8, 0, 1);
    let got = red_per_element(&text, Mode::Full, &mem, 0..12);
    assert_eq!(
        got,
        (0..12)
            .map(|i: u32| i.clamp(1, 8) as f32)
            .collect::<Vec<_>>()
    );
}

#[test]
fn break_inside_if_and_rep() {
    // REP (count 6) { r1 += 1; IF c (r1 >= i) { BREAKREP (n = 1) } ENDIF; r2 += 1 }
    // r1 = clamp(i, 1, 6); r2 = r1 - 1 if the loop broke, else 6.
    let text = "fc rep 8 int=i0
         alu r1.rgb = mad(s0.rgb, s1.111, s1.rrr) ; _ ; s0=r1 s1=1.0
         alu _ = mad(s0.rrr, s1.111, -s2.rrr) ; _ ; s0=r1 s1=1.0 s2=r0 alu_result=r>=0
         fc jump 6 func=!alu b_op0=incr alu_wait
         fc breakrep 8 func=always b_op1=decr b_pop_cnt=1
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         alu r2.rgb = mad(s0.rgb, s1.111, s1.rrr) ; _ ; s0=r2 s1=1.0
         fc endrep 1 func=always jump_any int=i0
         alu r3.r = max(s0.rrr, s0.rrr) ; _ ; s0=r1
         alu r3.g = max(s0.rrr, s0.rrr) ; _ ; s0=r2
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r3 sem_wait";
    let mut mem = TableMemory::default();
    mem.set_loop(0, 6, 0, 0);
    let prog = program(text, Mode::Full);
    let elements: Vec<(u32, u32)> = (0..10).map(|i| (i, 0)).collect();
    for g in GROUP_SIZES {
        let run = run_grouped(&prog, &elements, &mem, g).unwrap();
        for (i, r) in run.results.iter().enumerate() {
            let i = i as u32;
            let r1 = i.clamp(1, 6) as f32;
            let r2 = if i <= 6 { r1 - 1.0 } else { 6.0 };
            assert_eq!(&target(r, 0)[..2], &[r1, r2], "i = {i}, group {g}");
        }
    }
}

#[test]
fn continue_on_predicate() {
    // REP (6) { r2 += 1; CONTINUE p if r2 > i; r1 += 1 } → r1 = min(i, 6).
    let text = format!(
        "fc rep 6 int=i1
         alu r2.rgb = mad(s0.rgb, s1.111, s1.rrr) ; _ ; s0=r2 s1=1.0
         alu p.r<0 = mad(s0.rrr, s1.111, -s2.rrr) ; _ ; s0=r0 s1=1.0 s2=r2
         fc continue 5 func=p pred=p.rrrr b_op1=decr alu_wait
         {INC_R1}
         fc endrep 1 func=always jump_any int=i1
         {}",
        out_r1()
    );
    let mut mem = TableMemory::default();
    mem.set_loop(1, 6, 0, 0);
    let got = red_per_element(&text, Mode::Full, &mem, 0..9);
    assert_eq!(
        got,
        (0..9).map(|i: u32| i.min(6) as f32).collect::<Vec<_>>()
    );
}

#[test]
fn call_and_return() {
    // CALL p (per element), CALL, RETURN with the address stack; the
    // subroutine doubles r1. i >= 2 → 4, else 2.
    let text = format!(
        "{}
         alu p.r>=0 = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1=2.0
         fc jump 5 func=p pred=p.rrrr jump_any a_op=push b_op1=incr alu_wait
         fc jump 5 func=always jump_any a_op=push b_op1=incr
         fc jump 7 func=always
         alu r1.rgb = mad(s0.rgb, s1.111, s0.rgb) ; _ ; s0=r1 s1=1.0
         fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1
         {}",
        set_r1("1.0"),
        out_r1()
    );
    let got = red_per_element(&text, Mode::Full, &TableMemory::default(), 0..6);
    assert_eq!(got, vec![2.0, 2.0, 4.0, 4.0, 4.0, 4.0]);
    let run = run(
        &program(&text, Mode::Full),
        &[(0, 0)],
        &TableMemory::default(),
    )
    .unwrap();
    assert_eq!(run.stats.flow.max_call_depth, 1);
}

#[test]
fn subroutine_after_end() {
    // A subroutine placed after END_ADDR is reachable by CALL.
    let text = format!(
        "{}
         fc jump 3 func=always jump_any a_op=push b_op1=incr
         {}
         alu r1.rgb = mad(s0.rgb, s1.111, s0.rgb) ; _ ; s0=r1 s1=1.0
         fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1",
        set_r1("3.0"),
        out_r1()
    );
    let mut prog = program(&text, Mode::Full);
    prog.us_code_addr = 2 << 16;
    let run = run(&prog, &[(0, 0)], &TableMemory::default()).unwrap();
    assert_eq!(target(&run.results[0], 0)[0], 6.0);
}

/// CTM §3.5.3 `JUMP_FUNC`: a 2×2×2 table, where bit (4 · alu_result +
/// 2 · predicate + boolean) set means jump. Every one of the 256 values
/// against all eight conditions, each element alone; then groups of the
/// four (alu, predicate) pairs, where `JUMP_ANY` = 0 jumps only if every
/// processor wants to and `JUMP_ANY` = 1 if any does. Element k reads
/// texel k = (−1 if k & 1 else 1, −1 if k & 2 else 1): predicate =
/// (k & 1 ≠ 0), ALU result = (k & 2 ≠ 0).
#[test]
fn jump_func_is_the_manuals_truth_table() {
    let mut mem = TableMemory::default();
    let texels = (0..4u32)
        .map(|k| {
            let sign = |bit: u32| if k & bit != 0 { -1.0 } else { 1.0 };
            [sign(1), sign(2), 0.0, 1.0]
        })
        .collect();
    mem.set_input(0, 4, 1, texels);
    let wants = |func: u32, k: u32, b: bool| {
        let (pred, alu) = (k & 1 != 0, k & 2 != 0);
        let bit = 4 * u32::from(alu) + 2 * u32::from(pred) + u32::from(b);
        func >> bit & 1 == 1
    };
    // Stayed: r2.r = 1; jumped over that: 0.
    let body = |func: u32, any: &str| {
        format!(
            "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled
             alu p.r<0 = mad(s0.rrr, s1.111, s1.000) ; _ ; s0=r1 s1=1.0 sem_wait
             alu _ = mad(s0.ggg, s1.111, s1.000) ; _ ; s0=r1 s1=1.0 alu_result=r<0
             fc jump 5 func={func:#04x} pred=p.rrrr bool=b0 {any} alu_wait
             alu r2.r = max(s0.rrr, s0.rrr) ; _ ; s0=1.0
             out o0.r = max(s0.rrr, s0.rrr) ; _ ; s0=r2 sem_wait"
        )
    };
    let all: Vec<(u32, u32)> = (0..4).map(|k| (k, 0)).collect();
    for func in 0..=255u32 {
        for any in ["", "jump_any"] {
            let prog = program(&body(func, any), Mode::Partial);
            for b in [false, true] {
                mem.bool_constants = u32::from(b);
                let jumped = |r: &ctm_sim::x1k::interface::ElementResult| target(r, 0)[0] == 0.0;
                // One element per run: it decides alone.
                for k in 0..4 {
                    let r = run(&prog, &[(k, 0)], &mem).unwrap();
                    assert_eq!(
                        jumped(&r.results[0]),
                        wants(func, k, b),
                        "func {func:#04x} element {k} b {b}"
                    );
                }
                // The four together: universal or existential.
                let r = run(&prog, &all, &mem).unwrap();
                let group = if any.is_empty() {
                    (0..4).all(|k| wants(func, k, b))
                } else {
                    (0..4).any(|k| wants(func, k, b))
                };
                for (k, e) in r.results.iter().enumerate() {
                    assert_eq!(
                        jumped(e),
                        group,
                        "func {func:#04x} {any} group, element {k}"
                    );
                }
            }
        }
    }
    // The common values the manual names, read off the same table.
    // (value, jump given (alu_result, predicate, boolean)).
    type Rule = fn(bool, bool, bool) -> bool;
    let named: [(u32, Rule); 8] = [
        (0x00, |_, _, _| false),
        (0x0f, |alu, _, _| !alu),
        (0x33, |_, p, _| !p),
        (0x55, |_, _, b| !b),
        (0xaa, |_, _, b| b),
        (0xcc, |_, p, _| p),
        (0xf0, |alu, _, _| alu),
        (0xff, |_, _, _| true),
    ];
    for (func, rule) in named {
        for k in 0..4 {
            for b in [false, true] {
                assert_eq!(
                    wants(func, k, b),
                    rule(k & 2 != 0, k & 1 != 0, b),
                    "{func:#04x}"
                );
            }
        }
    }
}

#[test]
fn if_without_else_on_predicate_and_boolean() {
    // CTM §3.5.4 rows IF p (0x33, B_OP0 INCR, to ENDIF+1) / ENDIF (0x00,
    // JUMP_ANY, B_OP0 DECR 1): r1 = 10 where i < 3.
    let text = format!(
        "{}
         fc jump 4 func=!p pred=p.rrrr b_op0=incr alu_wait
         {}
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {}",
        pred_i_less("3.0"),
        set_r1("10.0"),
        out_r1()
    );
    let got = red_per_element(&text, Mode::Partial, &TableMemory::default(), 0..9);
    let want: Vec<f32> = (0..9).map(|i| if i < 3 { 10.0 } else { 0.0 }).collect();
    assert_eq!(got, want);
    // IF b (0x55, to ENDIF) / ENDIF: no ENDIF instruction.
    let text = format!(
        "fc jump 2 func=!b bool=b7\n{}\n{}",
        set_r1("10.0"),
        out_r1()
    );
    let mut mem = TableMemory::default();
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 0..3),
        vec![0.0; 3]
    );
    mem.bool_constants = 1 << 7;
    assert_eq!(
        red_per_element(&text, Mode::Partial, &mem, 0..3),
        vec![10.0; 3]
    );
}

#[test]
fn break_on_alu_result_and_boolean() {
    // BREAK c (0xf0, B_OP1 DECR 0, to END+1): REP (6) { r1 += 1; BREAK c if
    // r1 >= i } → clamp(i, 1, 6).
    let text = format!(
        "fc rep 4 int=i0
         {INC_R1}
         alu _ = mad(s0.rrr, s1.111, -s2.rrr) ; _ ; s0=r1 s1=1.0 s2=r0 alu_result=r>=0
         fc breakrep 5 func=alu b_op1=decr alu_wait
         fc endrep 1 func=always jump_any int=i0
         {}",
        out_r1()
    );
    let mut mem = TableMemory::default();
    mem.set_loop(0, 6, 0, 0);
    let got = red_per_element(&text, Mode::Full, &mem, 0..10);
    let want: Vec<f32> = (0..10).map(|i: u32| i.clamp(1, 6) as f32).collect();
    assert_eq!(got, want);
    // BREAK b (0xaa): the first iteration leaves the loop when b2 is set.
    let text = format!(
        "fc rep 4 int=i0
         {INC_R1}
         fc breakrep 4 func=b bool=b2 b_op1=decr
         fc endrep 1 func=always jump_any int=i0
         {}",
        out_r1()
    );
    assert_eq!(red_per_element(&text, Mode::Full, &mem, 0..3), vec![6.0; 3]);
    mem.bool_constants = 1 << 2;
    assert_eq!(red_per_element(&text, Mode::Full, &mem, 0..3), vec![1.0; 3]);
}

#[test]
fn unconditional_continue_inside_if() {
    // CONTINUE (0xff, B_OP1 DECR n = 1, to END) inside IF c (i < r2):
    // REP (6) { r2 += 1; IF c (i − r2 < 0) { CONTINUE } ENDIF; r1 += 1 }
    // → r1 = min(i, 6).
    let text = format!(
        "fc rep 7 int=i1
         alu r2.rgb = mad(s0.rgb, s1.111, s1.rrr) ; _ ; s0=r2 s1=1.0
         alu _ = mad(s0.rrr, s1.111, -s2.rrr) ; _ ; s0=r0 s1=1.0 s2=r2 alu_result=r<0
         fc jump 6 func=!alu b_op0=incr alu_wait
         fc continue 7 func=always b_op1=decr b_pop_cnt=1
         fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1
         {INC_R1}
         fc endrep 1 func=always jump_any int=i1
         {}",
        out_r1()
    );
    let mut mem = TableMemory::default();
    mem.set_loop(1, 6, 0, 0);
    let got = red_per_element(&text, Mode::Full, &mem, 0..9);
    let want: Vec<f32> = (0..9).map(|i: u32| i.min(6) as f32).collect();
    assert_eq!(got, want);
}

#[test]
fn call_on_alu_result_and_boolean() {
    // CALL c (0xf0) and CALL b (0xaa): JUMP_ANY, A_OP PUSH, B_OP1 INCR; the
    // subroutine doubles r1 and RETURNs (0xff, A_OP POP, B_OP1 DECR 1).
    // r1 = 1 · (2 if i >= 2) · (2 if b1).
    let text = format!(
        "{}
         alu _ = mad(s0.rrr, s1.111, -s1.rrr) ; _ ; s0=r0 s1=2.0 alu_result=r>=0
         fc jump 5 func=alu jump_any a_op=push b_op1=incr alu_wait
         fc jump 5 func=b bool=b1 jump_any a_op=push b_op1=incr
         fc jump 7 func=always
         alu r1.rgb = mad(s0.rgb, s1.111, s0.rgb) ; _ ; s0=r1 s1=1.0
         fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1
         {}",
        set_r1("1.0"),
        out_r1()
    );
    let mut mem = TableMemory::default();
    for b in [false, true] {
        mem.bool_constants = u32::from(b) << 1;
        let got = red_per_element(&text, Mode::Full, &mem, 0..6);
        let twice = if b { 2.0 } else { 1.0 };
        let want: Vec<f32> = (0..6)
            .map(|i| if i >= 2 { 2.0 * twice } else { twice })
            .collect();
        assert_eq!(got, want, "b1 = {b}");
    }
}

fn fault_of(text: &str, mode: Mode, mem: &TableMemory) -> (u16, FaultKind) {
    let prog = program(text, mode);
    let elements: Vec<(u32, u32)> = (0..8).map(|i| (i, 0)).collect();
    let options = DppOptions {
        step_limit: 10_000,
        ..DppOptions::default()
    };
    let e = run_checked(&prog, &elements, mem, &options).expect_err("should fault");
    assert_eq!(e.rule, e.kind.rule());
    (e.slot, e.kind)
}

#[test]
fn stack_and_counter_faults() {
    let mem = TableMemory::default();
    // Partial mode has no loop stack.
    let mut m = TableMemory::default();
    m.set_loop(0, 2, 0, 1);
    let text = "fc loop 2 int=i0\nfc endloop 1 func=always jump_any int=i0\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Partial, &m),
        (0, FaultKind::StackOverflow { limit: 0, .. })
    ));
    // Five nested LOOPs overflow the full-mode stack of 4.
    let text = "fc loop 11 int=i0
         fc loop 10 int=i0
         fc loop 9 int=i0
         fc loop 8 int=i0
         fc loop 7 int=i0
         fc endloop 5 func=always jump_any int=i0
         fc endloop 4 func=always jump_any int=i0
         fc endloop 3 func=always jump_any int=i0
         fc endloop 2 func=always jump_any int=i0
         fc endloop 1 func=always jump_any int=i0
         out _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &m),
        (4, FaultKind::StackOverflow { limit: 4, .. })
    ));
    // ENDLOOP without LOOP.
    let text = "fc endloop 0 func=always jump_any int=i0\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::StackUnderflow { .. })
    ));
    // Unbounded recursion overflows the address stack (size 4).
    let text = "fc jump 0 func=always jump_any a_op=push b_op1=incr\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::StackOverflow { .. })
    ));
    // RETURN with nothing pushed.
    let text = "fc jump 0 func=always a_op=pop b_op1=decr b_pop_cnt=1\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::StackUnderflow { .. })
    ));
    // Partial mode: branch counters reach 3 at most (nesting 4); the fifth
    // nested IF that some processors fail overflows.
    let ifp = "fc jump 7 func=!p pred=p.rrrr b_op0=incr alu_wait";
    let text = format!(
        "{}\n{ifp}\n{ifp}\n{ifp}\n{ifp}\n{ifp}\nfc jump 0 func=never jump_any b_op0=decr b_pop_cnt=5\nout _ ; _ ; sem_wait",
        pred_i_less("4.0")
    );
    assert!(matches!(
        fault_of(&text, Mode::Partial, &mem),
        (5, FaultKind::BranchCounterOverflow { limit: 3, .. })
    ));
    // The same in full mode is fine.
    let prog = program(&text, Mode::Full);
    assert!(run(&prog, &[(0, 0), (5, 0)], &mem).is_ok());
}

#[test]
fn other_runtime_faults() {
    let mem = TableMemory::default();
    // A runaway loop.
    let text = "fc jump 0 func=always\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::RunawayLoop { limit: 10_000 })
    ));
    // aL outside a loop.
    let text = "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r[1+aL]\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::AlOutsideLoop)
    ));
    // JUMP_FUNC on the ALU result with none written.
    let text = "fc jump 1 func=alu\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::AluResultNotWritten)
    ));
    // The ALU result does not survive an FC instruction (CTM §3.3.10).
    let text = "alu _ = max(s0.rgb, s0.rgb) ; _ ; s0=r0 alu_result=r==0
         fc jump 2 func=!alu alu_wait
         fc jump 3 func=alu alu_wait
         out _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (2, FaultKind::AluResultNotWritten)
    ));
    // JUMP_FUNC on the predicate with no predicate selected.
    let text = "fc jump 1 func=p\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &mem),
        (0, FaultKind::FcPredicateNotSelected)
    ));
    // BREAKLOOP in a REP.
    let mut m = TableMemory::default();
    m.set_loop(0, 2, 0, 0);
    let text = "fc rep 3 int=i0\nfc breakloop 3 func=always\nfc endrep 1 func=always jump_any int=i0\nout _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &m),
        (1, FaultKind::LoopKindMismatch { .. })
    ));
    // Relative addressing out of range (aL = 200, r[100 + aL]).
    m.set_loop(0, 1, 200, 0);
    let text = "fc loop 3 int=i0
         alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r[100+aL]
         fc endloop 1 func=always jump_any int=i0
         out _ ; _ ; sem_wait";
    assert!(matches!(
        fault_of(text, Mode::Full, &m),
        (1, FaultKind::RelativeAddressOutOfRange { .. })
    ));
    // Missing ALU_WAIT on an FC reading a fresh predicate (CTM §3.2.1).
    let text = format!(
        "{}\nfc jump 2 func=p pred=p.rrrr\nout _ ; _ ; sem_wait",
        pred_i_less("1.0")
    );
    assert!(matches!(
        fault_of(&text, Mode::Full, &mem),
        (1, FaultKind::MissingAluWait { .. })
    ));
}
