//! Texture instructions (CTM §3.4): lookups with scaled and unscaled
//! coordinates, clamp to edge, projection, result swizzle and masks, KILL;
//! the texture semaphore (§3.4.2) and the other synchronisation rules
//! (§3.2.1, §3.3.2, §3.7); outputs (UMRT, W) and program-level faults.

mod x1k_dpp_common;

use ctm_sim::x1k::dpp::{FaultKind, TableMemory};
use x1k_dpp_common::*;

/// A 4 × 3 input whose texel (x, y) is (x + 10y, x, y, 1).
fn grid() -> TableMemory {
    let mut mem = TableMemory::default();
    let texels = (0..3)
        .flat_map(|y| (0..4).map(move |x| [(x + 10 * y) as f32, x as f32, y as f32, 1.0]))
        .collect();
    mem.set_input(0, 4, 3, texels);
    mem
}

fn texel(x: u32, y: u32) -> [f32; 4] {
    let (x, y) = (x.min(3), y.min(2));
    [(x + 10 * y) as f32, x as f32, y as f32, 1.0]
}

fn fault(text: &str, mem: &TableMemory) -> (u16, FaultKind) {
    let e = run(&program(text, Mode::Full), &[(1, 1), (2, 0)], mem).expect_err("should fault");
    (e.slot, e.kind)
}

#[test]
fn unscaled_lookup_clamps_to_edge() {
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\n{}",
        out_reg(1)
    );
    let prog = program(&text, Mode::Partial);
    let elements = [(0, 0), (3, 2), (1, 2), (7, 5), (2, 9)];
    let run = run(&prog, &elements, &grid()).unwrap();
    for ((i, j), r) in elements.iter().zip(&run.results) {
        assert_eq!(target(r, 0), texel(*i, *j), "({i}, {j})");
    }
    assert_eq!(run.stats.texture.texels, 5);
    assert_eq!(run.stats.texture.semaphore_waits, 1);
}

#[test]
fn scaled_lookup_multiplies_by_size() {
    // Texel centres: ((i + ½) / 4, (j + ½) / 3) scaled back by the size.
    let text = format!(
        "alu r2.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; _ ; s0=r0 s1=c0 s2=c1
         tex r1.rgba = ld(t0, r2.rgaa) acquire sem_wait alu_wait
         {}",
        out_reg(1)
    );
    let mut mem = grid();
    mem.set_constant(0, [0.25, 1.0 / 3.0, 0.0, 0.0]);
    mem.set_constant(1, [0.125, 1.0 / 6.0, 0.0, 0.0]);
    let elements = [(0, 0), (3, 2), (2, 1)];
    let run = run(&program(&text, Mode::Partial), &elements, &mem).unwrap();
    for ((i, j), r) in elements.iter().zip(&run.results) {
        assert_eq!(target(r, 0), texel(*i, *j));
    }
}

#[test]
fn result_swizzle_masks_projection_and_unbound_input() {
    // Destination swizzle .abgr with mask rg: r1.r = texel.a, r1.g = texel.b.
    let text = format!(
        "tex r1.rg = ld(t0, r0.rgaa).abgr acquire sem_wait unscaled\n{}",
        out_reg(1)
    );
    let r = run(&program(&text, Mode::Full), &[(2, 1)], &grid()).unwrap();
    assert_eq!(target(&r.results[0], 0), [1.0, 1.0, 0.0, 0.0]);
    // Projected: (2i, 2j, 0, 2) / q.
    let text = format!(
        "alu r2.rgb = mad(s0.rgb, s1.rgb, s0.000) ; r2.a = max(s1.a, s1.a) ; s0=r0 s1=2.0
         tex r1.rgba = proj(t0, r2.rgba) acquire sem_wait alu_wait unscaled
         {}",
        out_reg(1)
    );
    let r = run(&program(&text, Mode::Full), &[(2, 1), (1, 2)], &grid()).unwrap();
    assert_eq!(target(&r.results[0], 0), texel(2, 1));
    assert_eq!(target(&r.results[1], 0), texel(1, 2));
    // An unbound input reads zeros.
    let text = format!(
        "tex r1.rgba = ld(t5, r0.rgaa) acquire sem_wait unscaled\n{}",
        out_reg(1)
    );
    let r = run(&program(&text, Mode::Full), &[(2, 1)], &grid()).unwrap();
    assert_eq!(target(&r.results[0], 0), [0.0; 4]);
}

#[test]
fn kill_examines_masked_channels() {
    // r2.r = i - 2 (kill for i < 2; i = 2 gives +0: not < 0); r2.g = -1
    // is not examined (mask r).
    let text = format!(
        "alu r2.rgb = mad(s0.rgb, s1.111, -s1.r11) ; _ ; s0=r0 s1=2.0
         tex r2.r = texkill(t0, r2.rrrr) alu_wait
         {}",
        out_reg(0)
    );
    let prog = program(&text, Mode::Partial);
    let elements: Vec<(u32, u32)> = (0..5).map(|i| (i, 0)).collect();
    let run = run(&prog, &elements, &TableMemory::default()).unwrap();
    let killed: Vec<bool> = run.results.iter().map(|r| r.killed).collect();
    assert_eq!(killed, [true, true, false, false, false]);
    assert!(run.results[0].targets.iter().all(Option::is_none));
    assert_eq!(target(&run.results[3], 0)[0], 3.0);
    assert_eq!(run.stats.killed, 2);
    // -0 does not kill.
    let text = format!("tex r2.rgba = texkill(t0, r1.rrrr)\n{}", out_reg(0));
    let mut mem = TableMemory::default();
    mem.set_constant(0, [-0.0; 4]);
    let text = format!(
        "alu r1.rgb = max(s0.rgb, s0.rgb) omod_off ; r1.a = max(s0.a, s0.a) omod_off ; s0=c0\n{}",
        text.replace("texkill(t0, r1.rrrr)", "texkill(t0, r1.rrrr) alu_wait")
    );
    let run = x1k_dpp_common::run(&program(&text, Mode::Full), &[(0, 0)], &mem).unwrap();
    assert!(!run.results[0].killed);
}

#[test]
fn semaphore_example_of_the_manual() {
    // CTM §3.4.2: three lookups, ACQUIRE (with WAIT) on the last, WAIT on
    // the first use; independent ALU work in between.
    let text = "tex r4.rgba = ld(t0, r1.rgaa) unscaled
         tex r5.rgba = ld(t0, r2.rgaa) unscaled
         tex r6.rgba = ld(t0, r3.rgaa) acquire sem_wait unscaled
         alu r1.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r1 s1=1.0
         alu r2.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r2 s1=1.0
         alu r3.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r3 s1=1.0
         alu r4.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r4 s1=1.0 sem_wait
         out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r4
         out o1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r6 sem_wait";
    let r = run(&program(text, Mode::Full), &[(0, 0)], &grid()).unwrap();
    assert_eq!(target(&r.results[0], 0)[0], 1.0);
    assert_eq!(target(&r.results[0], 1)[..3], texel(0, 0)[..3]);
}

#[test]
fn semaphore_hazards() {
    let mem = grid();
    // Reading a lookup's result without waiting (CTM §3.4.2).
    let text = format!("tex r1.rgba = ld(t0, r0.rgaa) unscaled\n{}", out_reg(1));
    assert!(matches!(
        fault(&text, &mem),
        (
            1,
            FaultKind::TexResultNotReady {
                reg: 1,
                lookup_slot: 0,
                ..
            }
        )
    ));
    // A wait with no acquire does not make it ready.
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) unscaled\nalu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r3 sem_wait\n{}",
        out_reg(1)
    );
    assert!(matches!(
        fault(&text, &mem),
        (2, FaultKind::TexResultNotReady { .. })
    ));
    // Overwriting a pending destination with the ALU.
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\nalu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r3\n{}",
        out_reg(3)
    );
    assert!(matches!(
        fault(&text, &mem),
        (1, FaultKind::TexResultNotReady { .. })
    ));
    // Under the warn policy the run goes on with the looked-up value.
    let text = format!("tex r1.rgba = ld(t0, r0.rgaa) unscaled\n{}", out_reg(1));
    let r = run_warn(&program(&text, Mode::Full), &[(1, 1), (2, 0)], &mem).unwrap();
    assert_eq!(target(&r.results[0], 0), texel(1, 1));
    // One warning per channel read, each seen once (one group).
    assert_eq!(r.warnings.len(), 4);
    assert!(r.warnings.iter().all(|w| w.slot == 1 && w.count == 1));
    assert_eq!(r.stats.warnings, 4);
    // Ending while holding the semaphore.
    let text = "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\nout o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r2";
    assert!(matches!(
        fault(text, &mem),
        (1, FaultKind::SemaphoreHeldAtEnd { acquired_at: 0 })
    ));
    // Acquire without wait on the same instruction.
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire unscaled\n{}",
        out_reg(1)
    );
    assert!(matches!(
        fault(&text, &mem),
        (0, FaultKind::AcquireWithoutWait)
    ));
    // Errata (CTM §3.7): a wait right after an FC that does not wait.
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\nfc jump 2 func=never\n{}",
        out_reg(1)
    );
    assert!(matches!(fault(&text, &mem), (2, FaultKind::WaitAfterFc)));
    let text = format!(
        "tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait unscaled\nfc jump 2 func=never sem_wait\n{}",
        out_reg(1)
    );
    assert!(run(&program(&text, Mode::Full), &[(1, 1)], &mem).is_ok());
}

#[test]
fn alu_wait_and_nop_rules() {
    let mem = grid();
    // TEX coordinates from a pending ALU instruction need ALU_WAIT (CTM §3.2.1).
    let text = format!(
        "alu r2.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0\ntex r1.rgba = ld(t0, r2.rgaa) acquire sem_wait unscaled\n{}",
        out_reg(1)
    );
    assert!(matches!(
        fault(&text, &mem),
        (1, FaultKind::MissingAluWait { .. })
    ));
    // Presubtract of a register written by the previous ALU instruction
    // needs NOP on that instruction (CTM §3.3.2).
    let body = "alu r1.rgb = mad(s0.rgb, s1.111, s1.rgb) ; _ ; s0=r0 s1=1.0";
    let user = "out o0.rgb = max(sp.rgb, sp.rgb) srcp=sub ; _ ; s0=r1 s1=r0 sem_wait";
    let text = format!("{body}\n{user}");
    assert!(matches!(
        fault(&text, &mem),
        (1, FaultKind::MissingNop { reg: 1, .. })
    ));
    let text = format!("{body} nop\n{user}");
    let r = run(&program(&text, Mode::Full), &[(4, 0)], &mem).unwrap();
    // src1 - src0 = r0 - r1 = -1.
    assert_eq!(target(&r.results[0], 0)[0], -1.0);
    assert_eq!(r.stats.stalls.nop, 4);
}

#[test]
fn instruction_rules_apply_when_executed() {
    let mem = TableMemory::default();
    // OMOD_DISABLED with MAD, SOP without a transcendental, DP without a
    // dot product, MDH (not in the CTM guide).
    for (inst, check) in [
        (
            "alu r1.rgb = mad(s0.rgb, s0.rgb, s0.rgb) omod_off ; _ ; s0=r0",
            FaultKind::OmodDisabledRgb(ctm_backend_x1k::isa::RgbOp::Mad),
        ),
        (
            "alu r1.rgb = sop() ; r1.a = mad(s0.a, s0.a, s0.a) ; s0=r0",
            FaultKind::SopWithoutTranscendental(ctm_backend_x1k::isa::AlphaOp::Mad),
        ),
        (
            "alu r1.rgb = max(s0.rgb, s0.rgb) ; r1.a = dp(s0.a, s0.a) ; s0=r0",
            FaultKind::DpWithoutDotProduct(ctm_backend_x1k::isa::RgbOp::Max),
        ),
        (
            "alu r1.rgb = mdh(s0.rgb, s0.rgb, s0.rgb) ; _ ; s0=r0",
            FaultKind::UnsupportedOp("mdh"),
        ),
        (
            "alu r1.rgb = max(s0.__r, s0.rgb) ; _ ; s0=r0",
            FaultKind::UndefinedSwizzle,
        ),
    ] {
        let text = format!("{inst}\n{}", out_reg(0));
        assert_eq!(fault(&text, &mem), (0, check.clone()), "{inst}");
        // Skipped by a jump, it does not fault.
        let text = format!("fc jump 2 func=always\n{inst}\n{}", out_reg(0));
        assert!(
            run(&program(&text, Mode::Full), &[(0, 0)], &mem).is_ok(),
            "{inst}"
        );
    }
    // The last instruction must be OUT (CTM §3.1).
    let text = "alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0";
    assert_eq!(fault(text, &mem), (0, FaultKind::LastNotOutput));
    // US_PIXSIZE bounds the temporaries.
    let mut prog = program(
        &format!(
            "alu r5.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0\n{}",
            out_reg(0)
        ),
        Mode::Full,
    );
    prog.us_pixsize = 2;
    let e = run(&prog, &[(0, 0)], &mem).unwrap_err();
    assert_eq!(e.kind, FaultKind::TempOutOfFrame { reg: 5, pixsize: 2 });
    // US_CODE_ADDR outside the program.
    prog.us_code_addr = 9 << 16;
    assert!(matches!(
        run(&prog, &[(0, 0)], &mem).unwrap_err().kind,
        FaultKind::ProgramRange { .. }
    ));
    // Running past the last slot (code after END_ADDR reached by a jump).
    let mut prog = program(
        "fc jump 2 func=always\nout _ ; _ ; sem_wait\nalu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0",
        Mode::Full,
    );
    prog.us_code_addr = 1 << 16;
    let e = run(&prog, &[(0, 0)], &mem).unwrap_err();
    assert_eq!(
        (e.slot, e.kind),
        (2, FaultKind::JumpOutOfProgram { target: 3, end: 1 })
    );
}

#[test]
fn uncached_writes_and_conditional_value() {
    // UMRT (US_CONFIG bit 0): R = value, G = x, B = y, A = 0 (CTM §3.3.8).
    let text = "out o2.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.0, s0.0) ; s0=c0 sem_wait";
    let mut prog = program(text, Mode::Partial);
    prog.us_config = 1;
    let mem = consts(&[[7.5, 3.0, 4.0, 0.0]]);
    let r = run(&prog, &[(0, 0), (1, 0)], &mem).unwrap();
    assert_eq!(r.results[1].umrt.len(), 1);
    let w = r.results[1].umrt[0];
    assert_eq!((w.target, w.x, w.y, w.value), (2, 3.0, 4.0, 7.5));
    assert!(r.results[0].targets.iter().all(Option::is_none));
    assert_eq!(r.stats.umrt_writes, 2);
    // Per-processor-index writes issue at ¼ speed: 4 × 4 clocks per batch.
    assert_eq!(r.stats.cycles, 16);
    // All or no channels; alpha must be 0.
    let mut bad = program(
        "out o0.rg = max(s0.rgb, s0.rgb) ; o0.a = max(s0.0, s0.0) ; s0=c0 sem_wait",
        Mode::Partial,
    );
    bad.us_config = 1;
    assert!(matches!(
        run(&bad, &[(0, 0)], &mem).unwrap_err().kind,
        FaultKind::UmrtPartialMask { .. }
    ));
    let mut bad = program(
        "out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.1, s0.1) ; s0=c0 sem_wait",
        Mode::Partial,
    );
    bad.us_config = 1;
    assert!(matches!(
        run(&bad, &[(0, 0)], &mem).unwrap_err().kind,
        FaultKind::UmrtAlphaNotZero { .. }
    ));
    // An uncached read after an unsynchronised uncached write.
    let text = "out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.0, s0.0) ; s0=c0
         tex r1.rgba = ld_uncached(t0, r0.rgaa) acquire sem_wait unscaled
         out _ ; _ ; sem_wait";
    let mut prog = program(text, Mode::Partial);
    prog.us_config = 1;
    assert!(matches!(
        run(&prog, &[(0, 0)], &mem).unwrap_err().kind,
        FaultKind::UncachedReadNotSynchronised { write_slot: 0 }
    ));
    // With the acquiring kind (code 1) and a wait on the read it is fine.
    let text =
        text.replacen("out o0.rgb", "out o1.rgb", 1)
            .replacen("s0=c0\n", "s0=c0 sem_wait\n", 1);
    let mut prog = program(&text, Mode::Partial);
    prog.us_config = 1;
    assert!(run(&prog, &[(0, 0)], &mem).is_ok());
    // W_OMASK: the alpha result is the conditional value.
    let text = "out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a, w = max(s0.a, s0.a) ; s0=c0 sem_wait";
    let r = run(
        &program(text, Mode::Partial),
        &[(0, 0)],
        &consts(&[[1.0, 2.0, 3.0, 9.0]]),
    )
    .unwrap();
    assert_eq!(r.results[0].conditional_value, Some(9.0));
}
