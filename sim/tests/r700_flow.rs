//! The CF program and the stack after the manual's flow-control examples
//! (§3.6-3.7, chapter 9 CF pages): if/else with PUSH/ELSE/POP, JUMP over
//! code no pixel runs, DX9 loops with the loop constant and aL, DX10 loops
//! with per-pixel LOOP_BREAK, LOOP_CONTINUE, nested loops restoring aL,
//! CALL/RETURN, ALU_POP2_AFTER, stack overflow.

mod r700_common;

use ctm_backend_r700::isa::*;
use ctm_sim::r700::{Config, FaultKind, Launch, Machine, RegInit};
use r700_common::*;

const X: Chan = Chan::X;
const Y: Chan = Chan::Y;

fn cf(op: CfOp, addr: u32, pops: u32) -> CfInst {
    let mut c = CfGeneral::new(op);
    c.addr = addr;
    c.pop_count = PopCount::new(pops).unwrap();
    CfInst::Cf(c)
}

fn with_const(inst: CfInst, k: u32) -> CfInst {
    match inst {
        CfInst::Cf(mut c) => {
            c.cf_const = CfConst::new(k).unwrap();
            CfInst::Cf(c)
        }
        other => other,
    }
}

fn no_kcache(inst: CfInst) -> CfInst {
    match inst {
        CfInst::Alu(mut a) => {
            a.kcache = [Kcache::default(); 2];
            CfInst::Alu(a)
        }
        other => other,
    }
}

fn pred_exec(op: Op2, a: AluSrc, b: AluSrc) -> AluInst {
    let mut i = AluInst::op2(op, dst(9, X), [a, b]);
    if let AluForm::Op2(f) = &mut i.form {
        f.write_mask = false;
        f.update_pred = true;
        f.update_exec_mask = true;
    }
    i
}

fn mov_lit(g: u32, c: Chan, v: f32) -> AluGroup {
    group(
        &[AluInst::op2(
            Op2::Mov,
            dst(g, c),
            [AluSrc::literal(X), AluSrc::inline(InlineConst::Zero)],
        )],
        &[f(v)],
    )
}

fn add_lit(g: u32, c: Chan, v: f32) -> AluGroup {
    group(
        &[AluInst::op2(
            Op2::Add,
            dst(g, c),
            [src(g, c), AluSrc::literal(X)],
        )],
        &[f(v)],
    )
}

fn cfile_al(i: u8) -> AluSrc {
    let mut s = AluSrc::new(AluSrcSel::Cfile(i), X);
    s.rel = true;
    s
}

fn add_cfile_al(g: u32) -> AluGroup {
    let mut i = AluInst::op2(Op2::Add, dst(g, X), [src(g, X), cfile_al(0)]);
    i.index_mode = IndexMode::Loop;
    group(&[i], &[])
}

fn run(p: Program, xs: &[f32], setup: impl FnOnce(&mut Launch)) -> ctm_sim::r700::RunResult {
    let regs = vec![(
        gpr(0),
        RegInit::PerElement(xs.iter().map(|&x| v4(x, 0.0, 0.0, 0.0)).collect()),
    )];
    let mut launch = Launch::raw(p, xs.len() as u32, regs, &[]);
    setup(&mut launch);
    Machine::new(Config::default()).run(&launch)
}

fn xs_of(r: &ctm_sim::r700::RunResult) -> Vec<f32> {
    pixels(r, 0).iter().map(|v| v[0]).collect()
}

#[test]
fn if_else_with_push_else_pop() {
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            cf_alu(CfAluOp::Alu, 1, 0),
            cf(CfOp::Else, 4, 0),
            cf_alu(CfAluOp::Alu, 2, 0),
            cf(CfOp::Pop, 0, 1),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                &[f(3.0)],
            )],
            vec![mov_lit(1, X, 1.0)],
            vec![mov_lit(1, X, 2.0)],
        ],
    );
    let xs = [5.0, 1.0, 3.0, 4.0, -9.0];
    let r = run(p.clone(), &xs, |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [1.0, 2.0, 2.0, 1.0, 2.0]);
    // All lanes one way: ELSE jumps over the else-clause (it never runs).
    let r = run(p, &[10.0; 64], |_| {});
    assert_eq!(xs_of(&r), [1.0; 64]);
    assert_eq!(r.stats.clauses["alu"], 2);
}

#[test]
fn jump_skips_code_no_pixel_runs_and_pops_when_taken() {
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            cf(CfOp::Jump, 3, 1),
            cf_alu(CfAluOp::AluPopAfter, 1, 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                &[f(100.0)],
            )],
            vec![mov_lit(1, X, 1.0)],
        ],
    );
    let r = run(p.clone(), &[1.0, 2.0, 3.0], |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 0.0, 0.0]);
    assert_eq!(r.stats.clauses["alu"], 1);
    let r = run(p, &[1.0, 200.0, 3.0], |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 1.0, 0.0]);
    assert_eq!(r.stats.clauses["alu"], 2);
}

fn dx9_loop() -> Program {
    program(
        vec![
            with_const(cf(CfOp::LoopStart, 3, 0), 0),
            no_kcache(cf_alu(CfAluOp::Alu, 0, 0)),
            with_const(cf(CfOp::LoopEnd, 1, 0), 0),
            export_done(1, 0, true),
        ],
        vec![vec![add_lit(1, Y, 1.0), add_cfile_al(1)]],
    )
}

fn cfile_k(n: usize) -> Vec<[u32; 4]> {
    (0..n).map(|k| v4(k as f32, 0.0, 0.0, 0.0)).collect()
}

#[test]
fn dx9_loop_counts_and_steps_al() {
    // I0 = (count 5, init 2, step 3): aL = 2, 5, 8, 11, 14.
    let r = run(dx9_loop(), &[0.0; 3], |l| {
        l.loop_consts = vec![[5, 2, 3]];
        l.cfile = cfile_k(32);
    });
    assert_eq!(r.faults, vec![]);
    assert_eq!(pixels(&r, 0)[0][..2], [40.0, 5.0]);
    // A zero trip count skips the loop.
    let r = run(dx9_loop(), &[0.0; 3], |l| {
        l.loop_consts = vec![[0, 2, 3]];
        l.cfile = cfile_k(32);
    });
    assert_eq!(pixels(&r, 0)[0][..2], [0.0, 0.0]);
}

#[test]
fn repeat_loop_leaves_al_alone() {
    let mut p = dx9_loop();
    p.cf[0] = with_const(cf(CfOp::LoopStartNoAl, 3, 0), 0);
    let r = run(p, &[0.0], |l| {
        l.loop_consts = vec![[4, 9, 9]];
        l.cfile = cfile_k(32);
    });
    assert_eq!(r.faults, vec![]);
    // aL stays 0 outside any loop: four times c[0] = 0, count 4.
    assert_eq!(pixels(&r, 0)[0][..2], [0.0, 4.0]);
}

#[test]
fn nested_loops_restore_the_outer_al() {
    let p = program(
        vec![
            with_const(cf(CfOp::LoopStart, 6, 0), 0),
            with_const(cf(CfOp::LoopStart, 4, 0), 1),
            no_kcache(cf_alu(CfAluOp::Alu, 0, 0)),
            with_const(cf(CfOp::LoopEnd, 2, 0), 1),
            no_kcache(cf_alu(CfAluOp::Alu, 1, 0)),
            with_const(cf(CfOp::LoopEnd, 1, 0), 0),
            export_done(1, 0, true),
        ],
        vec![vec![add_cfile_al(1)], vec![add_cfile_al(1)]],
    );
    let r = run(p, &[0.0; 2], |l| {
        l.loop_consts = vec![[3, 0, 10], [2, 1, 1]];
        l.cfile = cfile_k(32);
    });
    assert_eq!(r.faults, vec![]);
    // Inner: 1 + 2 per outer iteration; outer: 0 + 10 + 20.
    assert_eq!(xs_of(&r), [39.0, 39.0]);
    assert_eq!(r.stats.stack_entries, 2);
}

#[test]
fn dx10_loop_breaks_per_pixel() {
    // do { R1.x += 1 } while (R1.x < R0.x): LLVM's JUMP / LOOP_BREAK / POP.
    let p = program(
        vec![
            cf(CfOp::LoopStartDx10, 7, 0),
            cf_alu(CfAluOp::Alu, 0, 0),
            cf_alu(CfAluOp::AluPushBefore, 1, 0),
            cf(CfOp::Jump, 6, 1),
            cf(CfOp::LoopBreak, 6, 0),
            cf(CfOp::Pop, 6, 1),
            cf(CfOp::LoopEnd, 1, 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![add_lit(1, X, 1.0)],
            vec![group(
                &[pred_exec(Op2::PredSetge, src(1, X), src(0, X))],
                &[],
            )],
        ],
    );
    let xs: Vec<f32> = (0..70).map(|k| (k % 9) as f32).collect();
    let r = run(p, &xs, |_| {});
    assert_eq!(r.faults, vec![]);
    let want: Vec<f32> = xs.iter().map(|&x| x.max(1.0)).collect();
    assert_eq!(xs_of(&r), want);
}

#[test]
fn loop_continue_skips_the_rest_of_the_iteration() {
    // for aL in 0..4 { if c[aL] > x continue; R1.x += c[aL] }, c[k] = k + 1.
    let p = program(
        vec![
            with_const(cf(CfOp::LoopStart, 6, 0), 0),
            no_kcache(cf_alu(CfAluOp::AluPushBefore, 0, 0)),
            cf(CfOp::LoopContinue, 5, 0),
            cf(CfOp::Pop, 0, 1),
            no_kcache(cf_alu(CfAluOp::Alu, 1, 0)),
            with_const(cf(CfOp::LoopEnd, 1, 0), 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[{
                    let mut i = pred_exec(Op2::PredSetgt, cfile_al(0), src(0, X));
                    i.index_mode = IndexMode::Loop;
                    i
                }],
                &[],
            )],
            vec![add_cfile_al(1)],
        ],
    );
    let r = run(p, &[0.0, 2.5, 10.0, 1.0], |l| {
        l.loop_consts = vec![[4, 0, 1]];
        l.cfile = (0..32).map(|k| v4(k as f32 + 1.0, 0.0, 0.0, 0.0)).collect();
    });
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 3.0, 10.0, 1.0]);
}

#[test]
fn call_and_return() {
    let p = program(
        vec![
            cf(CfOp::Call, 3, 0),
            cf(CfOp::Call, 3, 0),
            export_done(1, 0, true),
            cf_alu(CfAluOp::Alu, 0, 0),
            cf(CfOp::Return, 0, 0),
        ],
        vec![vec![add_lit(1, X, 10.0)]],
    );
    let r = run(p, &[0.0; 5], |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [20.0; 5]);
}

#[test]
fn alu_pop2_after_pops_two_levels() {
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            cf_alu(CfAluOp::AluPushBefore, 1, 0),
            cf_alu(CfAluOp::AluPop2After, 2, 0),
            cf_alu(CfAluOp::Alu, 3, 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[pred_exec(
                    Op2::PredSetgt,
                    src(0, X),
                    AluSrc::inline(InlineConst::One),
                )],
                &[],
            )],
            vec![group(
                &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                &[f(5.0)],
            )],
            vec![add_lit(1, X, 100.0)],
            vec![add_lit(1, Y, 1.0)],
        ],
    );
    let r = run(p, &[0.0, 2.0, 9.0], |_| {});
    assert_eq!(r.faults, vec![]);
    let got: Vec<[f32; 2]> = pixels(&r, 0).iter().map(|v| [v[0], v[1]]).collect();
    // Only x > 5 runs the inner clause; every pixel runs the last one.
    assert_eq!(got, [[0.0, 1.0], [0.0, 1.0], [100.0, 1.0]]);
}

#[test]
fn stack_overflow_faults() {
    let pushes = |n: usize| {
        let mut cfv: Vec<CfInst> = (0..n).map(|_| cf(CfOp::Push, 0, 0)).collect();
        cfv.push(cf(CfOp::Pop, 0, n as u32));
        cfv.push(export_done(0, 0, true));
        program(cfv, vec![])
    };
    // Four pushes are four sub-entries = one entry (width 64, digest §5.2).
    let r = run(pushes(4), &[1.0], |l| l.stack_size = Some(1));
    assert_eq!(r.faults, vec![]);
    let r = run(pushes(5), &[1.0], |l| l.stack_size = Some(1));
    assert_eq!(r.faults.len(), 1);
    assert_eq!(
        r.faults[0].kind,
        FaultKind::StackOverflow { needed: 2, size: 1 }
    );
    assert_eq!(r.faults[0].rule_name(), "stack-overflow");
}

#[test]
fn kill_cf_instruction_and_valid_pixel_mode_pop() {
    // KILL with COND_ACTIVE kills the active pixels; exports drop them.
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            cf(CfOp::Kill, 3, 0),
            cf(CfOp::Pop, 0, 1),
            export_done(0, 0, true),
        ],
        vec![vec![group(
            &[pred_exec(
                Op2::PredSetgt,
                src(0, X),
                AluSrc::inline(InlineConst::One),
            )],
            &[],
        )]],
    );
    let r = run(p, &[0.0, 2.0, 1.0, 5.0], |_| {});
    assert_eq!(r.faults, vec![]);
    let e = &r.exports[&(ctm_sim::r700::ExportKind::Pixel, 0)];
    assert_eq!(
        e.iter().map(|v| v.is_some()).collect::<Vec<_>>(),
        [true, false, true, false]
    );
}

#[test]
fn whole_quad_mode_activates_quads_and_valid_pixel_mode_drops_killed_pixels() {
    // Lane 1 alone passes x > 3; a WQM PUSH keeps its whole quad (lanes
    // 0..3) active for the clause that follows.
    let mut push = cf(CfOp::Push, 3, 0);
    let p = |push: CfInst| {
        program(
            vec![
                cf_alu(CfAluOp::AluPushBefore, 0, 0),
                push,
                cf_alu(CfAluOp::Alu, 1, 0),
                cf(CfOp::Pop, 0, 2),
                export_done(1, 0, true),
            ],
            vec![
                vec![group(
                    &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                    &[f(3.0)],
                )],
                vec![mov_lit(1, X, 1.0)],
            ],
        )
    };
    let xs = [0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let r = run(p(push), &xs, |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    if let CfInst::Cf(c) = &mut push {
        c.flags.whole_quad_mode = true;
    }
    let r = run(p(push), &xs, |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn pop_with_valid_pixel_mode_deactivates_killed_pixels() {
    // Kill x > 1 inside a branch, POP with VPM: the ALU after the POP runs
    // only for the surviving pixels.
    let mut pop = cf(CfOp::Pop, 0, 1);
    if let CfInst::Cf(c) = &mut pop {
        c.flags.valid_pixel_mode = true;
    }
    let kill = {
        let mut i = AluInst::op2(
            Op2::Killgt,
            dst(9, X),
            [src(0, X), AluSrc::inline(InlineConst::One)],
        );
        if let AluForm::Op2(fm) = &mut i.form {
            fm.write_mask = false;
        }
        i
    };
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            pop,
            cf_alu(CfAluOp::Alu, 1, 0),
            export_done(1, 0, true),
        ],
        vec![vec![group(&[kill], &[])], vec![mov_lit(1, Y, 2.0)]],
    );
    let r = run(p, &[0.0, 2.0, 1.0], |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(r.stats.discarded, 1);
    assert_eq!(r.stats.lane_operations, 3 + 2);
}

#[test]
fn alu_break_and_alu_continue_retire_masked_pixels() {
    // for aL in 0..4 { ALU_BREAK: pixels with c[aL] > x break; R1.x += 1 }
    // with c = (1, 5, 1, 1); the PRED_SET turns the others off in the same
    // clause, so its add is predicated.
    let brk = |op: CfAluOp| {
        program(
            vec![
                with_const(cf(CfOp::LoopStart, 3, 0), 0),
                no_kcache(cf_alu(op, 0, 0)),
                with_const(cf(CfOp::LoopEnd, 1, 0), 0),
                export_done(1, 0, true),
            ],
            vec![vec![
                group(
                    &[{
                        let mut i = pred_exec(Op2::PredSetge, src(0, X), cfile_al(0));
                        i.index_mode = IndexMode::Loop;
                        i
                    }],
                    &[],
                ),
                {
                    let mut g = add_lit(1, X, 1.0);
                    g.insts[0].pred_sel = PredSel::One;
                    g
                },
            ]],
        )
    };
    let setup = |l: &mut Launch| {
        l.loop_consts = vec![[4, 0, 1]];
        l.cfile = [1.0, 5.0, 1.0, 1.0]
            .iter()
            .map(|&c| v4(c, 0.0, 0.0, 0.0))
            .collect();
    };
    let r = run(brk(CfAluOp::AluBreak), &[0.0, 1.5, 9.0], setup);
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 1.0, 4.0]);
    // ALU_CONTINUE: the pixel skips one iteration and comes back.
    let r = run(brk(CfAluOp::AluContinue), &[0.0, 1.5, 9.0], setup);
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [0.0, 3.0, 4.0]);
    assert!(r.stats.cf_instructions > 0);
    // Their transient push ("PUSH, ALU, ELSE, …, POP", Table 3.7) needs
    // room beside the loop's entry: a subentry, so STACK_SIZE 2.
    let r = run(brk(CfAluOp::AluBreak), &[0.0, 1.5, 9.0], |l| {
        setup(l);
        l.stack_size = Some(1);
    });
    assert_eq!(r.faults.len(), 1);
    assert_eq!(
        r.faults[0].kind,
        FaultKind::StackOverflow { needed: 2, size: 1 }
    );
    let r = run(brk(CfAluOp::AluBreak), &[0.0, 1.5, 9.0], |l| {
        setup(l);
        l.stack_size = Some(2);
    });
    assert_eq!(r.faults, vec![]);
}

/// ALU_ELSE_AFTER (`CfAluOp::pushes`, docs/sim-r700.md §2.2): a clause
/// with no PRED_SET* pushes nothing, then ELSE swaps the branch's pixels —
/// the `ALU; ELSE` of an if/else in one CF instruction.
#[test]
fn alu_else_after_without_pred_set_is_alu_then_else() {
    let p = program(
        vec![
            cf_alu(CfAluOp::AluPushBefore, 0, 0),
            cf_alu(CfAluOp::AluElseAfter, 1, 0),
            cf_alu(CfAluOp::AluPopAfter, 2, 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                &[f(3.0)],
            )],
            vec![mov_lit(1, X, 1.0)],
            vec![mov_lit(1, X, 2.0)],
        ],
    );
    let xs = [5.0, 1.0, 3.0, 4.0, -9.0];
    let r = run(p.clone(), &xs, |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [1.0, 2.0, 2.0, 1.0, 2.0]);
    // No element takes the first part: it runs idle, the second for all.
    let r = run(p, &[0.0; 64], |_| {});
    assert_eq!(r.faults, vec![]);
    assert_eq!(xs_of(&r), [2.0; 64]);
}

/// ALU_ELSE_AFTER with a PRED_SET* pushes first (L2306-2312, L7761): the
/// pixels failing the test run the next clause, and the POP after it
/// finds the pushed entry (without the push it would underflow).
#[test]
fn alu_else_after_pushes_for_its_pred_set() {
    let p = program(
        vec![
            cf_alu(CfAluOp::AluElseAfter, 0, 0),
            cf_alu(CfAluOp::Alu, 1, 0),
            cf(CfOp::Pop, 0, 1),
            cf_alu(CfAluOp::Alu, 2, 0),
            export_done(1, 0, true),
        ],
        vec![
            vec![group(
                &[pred_exec(Op2::PredSetgt, src(0, X), AluSrc::literal(X))],
                &[f(3.0)],
            )],
            vec![mov_lit(1, X, 2.0)],
            vec![add_lit(1, Y, 1.0)],
        ],
    );
    let r = run(p, &[5.0, 1.0, 3.0, 4.0], |_| {});
    assert_eq!(r.faults, vec![]);
    let got: Vec<[f32; 2]> = pixels(&r, 0).iter().map(|v| [v[0], v[1]]).collect();
    assert_eq!(got, [[0.0, 1.0], [2.0, 1.0], [2.0, 1.0], [0.0, 1.0]]);
}
