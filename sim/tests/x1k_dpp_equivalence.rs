//! The fast engine against the reference engine, bit for bit, over
//! randomly generated valid programs (a fixed seed, so every run checks the
//! same corpus).
//!
//! Each program has a prologue of lookups from tables of special values
//! (±0, denormals, ±inf, NaNs with several payloads, extremes, values that
//! make dot-product terms cancel), then a body of random ALU/OUT
//! instructions built from the ISA's types — every RGB and alpha op, all
//! input selects, swizzles (with 0, ½, 1), modifiers, presubtract ops,
//! output modifiers (OMOD_DISABLED with the select ops), clamp, write and
//! output masks, predication, predicate writes, the ALU result, NOP,
//! WRITE_INACTIVE — with random constants and inline constants, mixed with
//! lookups from computed coordinates, KILLs, divergent IF/ELSE blocks (on a
//! predicate or the ALU result) and loops with aL-relative operands and
//! destinations. Three tails make every temporary and predicate bit
//! observable: OUTs of r0..r3 bit-exactly (MAX with OMOD_DISABLED), OUTs of
//! r4..r7, and the predicate bits turned into values.
//!
//! Each program runs on both engines under both hazard policies, with
//! `ZERO_TIMES_ANYTHING` on or off, at three group sizes; the runs must
//! agree on every output bit, kill bit, conditional value, statistic, batch
//! timing and warning, or fail with the same fault. The existing test
//! programs get the same check through `x1k_dpp_common::run_checked`.

mod x1k_dpp_common;

use ctm_backend_x1k::isa::{
    AlphaHalf, AlphaInput, AlphaMask, AlphaOp, AluInst, AluResult, AluResultSel, AluSource,
    AluWrites, CompareOp, ConstAddr, ConstReg, InlineConst, InputModifier, InputSelect, Inst,
    OutputModifier, OutputWrites, PredSel, Predicate, PredicateWrites, PresubOp, RenderTarget,
    RgbHalf, RgbInput, RgbMask, RgbOp, Swizzle, TempAddr, parse_program,
};
use ctm_sim::x1k::dpp::{DppOptions, HazardPolicy, TableMemory};
use ctm_sim::x1k::interface::Program;
use x1k_dpp_common::run_checked;

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() >> 33) as u32 % n
    }

    /// True with probability `percent` %.
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

/// Special and ordinary values, including ones whose products cancel.
fn special_value(rng: &mut Rng) -> f32 {
    const POOL: [u32; 24] = [
        0x0000_0000, // +0
        0x8000_0000, // -0
        0x3F80_0000, // 1
        0xBF80_0000, // -1
        0x3F00_0000, // 0.5
        0x4040_0000, // 3
        0xC020_0000, // -2.5
        0x0000_0001, // smallest denormal
        0x8040_0000, // negative denormal
        0x007F_FFFF, // largest denormal
        0x0080_0000, // smallest normal
        0x8080_0000, // -smallest normal
        0x7F7F_FFFF, // MAX
        0xFF7F_FFFF, // -MAX
        0x7F80_0000, // +inf
        0xFF80_0000, // -inf
        0x7FC0_0000, // quiet NaN
        0xFFC0_0001, // negative NaN with payload
        0x7F80_0001, // signalling NaN
        0x7149_F2CA, // 1e30
        0x0DA2_4260, // 1e-30
        0x3DCC_CCCD, // 0.1
        0x3EAA_AAAB, // 1/3
        0x4B80_0001, // 2^24 + 2
    ];
    match rng.below(10) {
        0..=4 => f32::from_bits(rng.pick(&POOL)),
        5..=7 => (rng.below(4001) as f32 - 2000.0) / 128.0,
        8 => f32::from_bits(rng.next() as u32),
        _ => f32::from_bits(rng.pick(&POOL)) * if rng.chance(50) { 4.0 } else { -0.25 },
    }
}

/// Where the generator is: inside a loop, aL-relative addressing is allowed.
#[derive(Clone, Copy)]
struct Ctx {
    in_loop: bool,
}

/// Temporaries the body computes in (r0..r7; r8 is the tail's scratch).
const BODY_REGS: u32 = 8;

fn temp_addr(rng: &mut Rng, ctx: Ctx) -> TempAddr {
    if ctx.in_loop && rng.chance(25) {
        // aL stays in 0..=3 (see `memory`): r[0..4 + aL] is in r0..r7.
        TempAddr::relative(rng.below(BODY_REGS - 3)).unwrap_or_default()
    } else {
        TempAddr::absolute(rng.below(BODY_REGS)).unwrap_or_default()
    }
}

fn source(rng: &mut Rng, ctx: Ctx) -> AluSource {
    match rng.below(10) {
        0..=4 => AluSource::Temp(temp_addr(rng, ctx)),
        5..=7 => {
            let relative = ctx.in_loop && rng.chance(30);
            AluSource::Const(ConstAddr {
                reg: ConstReg::new(rng.below(16)).unwrap_or_default(),
                addressing: if relative {
                    ctm_backend_x1k::isa::Addressing::LoopRelative
                } else {
                    ctm_backend_x1k::isa::Addressing::Absolute
                },
            })
        }
        _ => AluSource::Inline(InlineConst::new(rng.below(128)).unwrap_or(InlineConst::CODE_0)),
    }
}

fn select(rng: &mut Rng) -> InputSelect {
    if rng.chance(15) {
        InputSelect::Srcp
    } else {
        rng.pick(&[InputSelect::Src0, InputSelect::Src1, InputSelect::Src2])
    }
}

fn swizzle(rng: &mut Rng) -> Swizzle {
    if rng.chance(12) {
        rng.pick(&[Swizzle::Zero, Swizzle::Half, Swizzle::One])
    } else {
        rng.pick(&[Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A])
    }
}

fn modifier(rng: &mut Rng) -> InputModifier {
    if rng.chance(60) {
        InputModifier::None
    } else {
        rng.pick(InputModifier::ALL)
    }
}

fn omod(rng: &mut Rng, select_op: bool) -> OutputModifier {
    if select_op && rng.chance(50) {
        OutputModifier::Disabled
    } else if rng.chance(60) {
        OutputModifier::Mul1
    } else {
        rng.pick(&OutputModifier::ALL[..7])
    }
}

fn predicate(rng: &mut Rng) -> Option<Predicate> {
    rng.chance(25).then(|| Predicate {
        sel: rng.pick(PredSel::ALL),
        invert: rng.chance(50),
    })
}

fn rgb_mask(rng: &mut Rng) -> RgbMask {
    RgbMask::new(rng.below(8)).unwrap_or(RgbMask::NONE)
}

fn alpha_mask(rng: &mut Rng) -> AlphaMask {
    if rng.chance(50) {
        AlphaMask::On
    } else {
        AlphaMask::Off
    }
}

const TRANSCENDENTALS: [AlphaOp; 6] = [
    AlphaOp::Ex2,
    AlphaOp::Ln2,
    AlphaOp::Rcp,
    AlphaOp::Rsq,
    AlphaOp::Sin,
    AlphaOp::Cos,
];

/// A random ALU (or, with `out`, OUT) instruction. Mostly valid; about one
/// in fifty breaks a single-instruction rule (the fault must match too).
fn alu(rng: &mut Rng, ctx: Ctx, out: bool) -> AluInst {
    let rgb_ops = [
        RgbOp::Mad,
        RgbOp::Mad,
        RgbOp::Dp3,
        RgbOp::Dp4,
        RgbOp::D2a,
        RgbOp::Min,
        RgbOp::Max,
        RgbOp::Cnd,
        RgbOp::Cmp,
        RgbOp::Frc,
        RgbOp::Sop,
    ];
    let mut rgb_op = rng.pick(&rgb_ops);
    let mut alpha_op = rng.pick(&AlphaOp::ALL[..13]);
    let invalid = rng.chance(2);
    if !invalid {
        if rgb_op == RgbOp::Sop {
            alpha_op = rng.pick(&TRANSCENDENTALS);
        }
        if alpha_op == AlphaOp::Dp && !matches!(rgb_op, RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a) {
            alpha_op = AlphaOp::Mad;
        }
    } else if rng.chance(30) {
        rgb_op = RgbOp::Mdh;
    }
    let rgb_select = matches!(rgb_op, RgbOp::Min | RgbOp::Max | RgbOp::Cnd | RgbOp::Cmp);
    let alpha_select = matches!(
        alpha_op,
        AlphaOp::Min | AlphaOp::Max | AlphaOp::Cnd | AlphaOp::Cmp
    );
    let rgb = RgbHalf {
        op: rgb_op,
        inputs: std::array::from_fn(|_| RgbInput {
            sel: select(rng),
            swizzle: std::array::from_fn(|_| swizzle(rng)),
            modifier: modifier(rng),
        }),
        sources: std::array::from_fn(|_| source(rng, ctx)),
        presub: rng.pick(PresubOp::ALL),
        dest: temp_addr(rng, ctx),
        write_mask: rgb_mask(rng),
        omod: omod(rng, rgb_select || invalid),
        clamp: rng.chance(20),
        predicate: predicate(rng),
    };
    let mut rgb = rgb;
    if matches!(rgb_op, RgbOp::Dp3 | RgbOp::Dp4 | RgbOp::D2a) && rng.chance(40) {
        // B the same in every channel, so A's cancelling channels cancel
        // in the terms too.
        let s = rng.pick(&[Swizzle::One, Swizzle::R, Swizzle::A]);
        rgb.inputs[1].swizzle = [s; 3];
    }
    let alpha = AlphaHalf {
        op: alpha_op,
        inputs: std::array::from_fn(|_| AlphaInput {
            sel: select(rng),
            swizzle: swizzle(rng),
            modifier: modifier(rng),
        }),
        sources: std::array::from_fn(|_| source(rng, ctx)),
        presub: rng.pick(PresubOp::ALL),
        dest: temp_addr(rng, ctx),
        write_mask: alpha_mask(rng),
        omod: omod(rng, alpha_select),
        clamp: rng.chance(20),
        predicate: predicate(rng),
    };
    let writes = if out {
        AluWrites::Output(OutputWrites {
            rgb_mask: rgb_mask(rng),
            rgb_target: rng.pick(RenderTarget::ALL),
            alpha_mask: alpha_mask(rng),
            alpha_target: rng.pick(RenderTarget::ALL),
            w: alpha_mask(rng),
        })
    } else if rng.chance(30) {
        AluWrites::Predicate(PredicateWrites {
            rgb_mask: rgb_mask(rng),
            rgb_op: rng.pick(CompareOp::ALL),
            alpha_mask: alpha_mask(rng),
            alpha_op: rng.pick(CompareOp::ALL),
        })
    } else {
        AluWrites::Predicate(PredicateWrites::default())
    };
    AluInst {
        rgb,
        alpha,
        writes,
        alu_result: rng.chance(20).then(|| AluResult {
            sel: rng.pick(AluResultSel::ALL),
            op: rng.pick(CompareOp::ALL),
        }),
        sem_wait: false,
        write_inactive: rng.chance(10),
        last: false,
        nop: rng.chance(40),
    }
}

fn parse(text: &str) -> Vec<Inst> {
    parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn coords(rng: &mut Rng) -> String {
    let c = ["r", "g", "b", "a"];
    (0..4).map(|_| rng.pick(&c)).collect()
}

/// A program under construction.
struct Builder {
    insts: Vec<Inst>,
    /// The next ALU instruction must wait for the semaphore.
    pending_wait: bool,
}

impl Builder {
    fn push_alu(&mut self, mut a: AluInst) {
        if self.pending_wait {
            a.sem_wait = true;
            self.pending_wait = false;
        }
        self.insts.push(Inst::Alu(a));
    }

    fn push_text(&mut self, text: &str) {
        self.insts.extend(parse(text));
    }

    fn here(&self) -> usize {
        self.insts.len()
    }

    /// A straight run of random instructions (ALU, sometimes OUT or a lookup).
    fn straight(&mut self, rng: &mut Rng, ctx: Ctx, count: u32) {
        for _ in 0..count {
            match rng.below(20) {
                0 => {
                    let (d, s) = (rng.below(BODY_REGS), rng.below(BODY_REGS));
                    let op = rng.pick(&["ld", "ld", "proj", "ld_uncached", "lod"]);
                    let unscaled = if rng.chance(70) { " unscaled" } else { "" };
                    // t2 is unbound (reads zeros).
                    let t = rng.below(5) / 2;
                    self.push_text(&format!(
                        "tex r{d}.rgba = {op}(t{t}, r{s}.{}) acquire sem_wait alu_wait{unscaled}",
                        coords(rng)
                    ));
                    self.pending_wait = true;
                }
                1 if rng.chance(30) => {
                    let s = rng.below(BODY_REGS);
                    let mask = rng.pick(&["r", "rg", "a", "rgba"]);
                    self.push_text(&format!(
                        "tex r{s}.{mask} = texkill(t0, r{s}.rrrr) alu_wait"
                    ));
                }
                2 => self.push_alu(alu(rng, ctx, true)),
                _ => self.push_alu(alu(rng, ctx, false)),
            }
        }
    }

    /// IF/ELSE/ENDIF (CTM §3.5.4) on a predicate bit or the ALU result.
    fn if_else(&mut self, rng: &mut Rng, ctx: Ctx) {
        let condition = if rng.chance(50) {
            let ch = rng.pick(&["rrrr", "gggg", "bbbb", "aaaa"]);
            let inv = if rng.chance(50) { "!" } else { "" };
            format!("func={inv}p pred=p.{ch}")
        } else {
            let mut a = alu(rng, ctx, false);
            a.alu_result = Some(AluResult {
                sel: rng.pick(AluResultSel::ALL),
                op: rng.pick(CompareOp::ALL),
            });
            self.push_alu(a);
            "func=!alu".to_string()
        };
        let if_at = self.here();
        self.insts.push(Inst::Alu(AluInst::default())); // placeholder
        let n = 1 + rng.below(4);
        self.straight(rng, ctx, n);
        let else_at = self.here();
        self.insts.push(Inst::Alu(AluInst::default())); // placeholder
        let n = 1 + rng.below(4);
        self.straight(rng, ctx, n);
        let endif_at = self.here();
        self.push_text("fc jump 0 func=never jump_any b_op0=decr b_pop_cnt=1");
        self.insts[if_at] = parse(&format!(
            "fc jump {} {condition} b_op0=incr b_op1=incr alu_wait",
            else_at + 1
        ))[0];
        self.insts[else_at] = parse(&format!(
            "fc jump {} func=never b_op1=decr b_pop_cnt=1 b_else",
            endif_at + 1
        ))[0];
    }

    /// LOOP (i0 or i1) around random instructions with aL-relative operands.
    fn looped(&mut self, rng: &mut Rng) {
        let int = rng.below(2);
        let start = self.here();
        self.insts.push(Inst::Alu(AluInst::default())); // placeholder
        let n = 1 + rng.below(4);
        self.straight(rng, Ctx { in_loop: true }, n);
        let end = self.here();
        self.push_text(&format!(
            "fc endloop {} func=always jump_any int=i{int}",
            start + 1
        ));
        self.insts[start] = parse(&format!("fc loop {} int=i{int}", end + 1))[0];
    }
}

/// Tails that make the body's state observable.
#[derive(Clone, Copy, Debug)]
enum Tail {
    /// r0..r3 to o0..o3, bit-exact.
    Low,
    /// r4..r7 to o0..o3.
    High,
    /// Predicate bits R, G, B, A as 1/0 in r8, to o0; the body's OUTs and W.
    Predicates,
}

fn dump(first: u32) -> String {
    (0..4)
        .map(|k| {
            let r = first + k;
            format!(
                "out o{k}.rgb = max(s0.rgb, s0.rgb) omod_off ; o{k}.a = max(s0.a, s0.a) omod_off ; s0=r{r} sem_wait\n"
            )
        })
        .collect()
}

fn program(body: &[Inst], tail: Tail, us_config: u32) -> Program {
    let tail_text = match tail {
        Tail::Low => dump(0),
        Tail::High => dump(4),
        Tail::Predicates => "alu r8.rgb = max(s0.000, s0.000) omod_off ; r8.a = max(s0.0, s0.0) omod_off ; s0=r0 sem_wait
             alu r8.rgb = max(s0.111, s0.111) omod_off pred=p.rgba ; r8.a = max(s0.1, s0.1) omod_off pred=p.rgba ; s0=r0
             out o3.rgb = max(s0.rgb, s0.rgb) omod_off ; o3.a = max(s0.a, s0.a) omod_off ; s0=r8"
            .to_string(),
    };
    let mut insts = body.to_vec();
    insts.extend(parse(&tail_text));
    let end = insts.len() as u32 - 1;
    Program {
        insts,
        us_config,
        us_pixsize: 9,
        us_fc_ctrl: 0x8000_0000,
        us_code_addr: end << 16,
    }
}

/// Random body: prologue lookups, then straight runs, IF/ELSE blocks, loops.
fn body(rng: &mut Rng) -> Vec<Inst> {
    let mut b = Builder {
        insts: Vec::new(),
        pending_wait: false,
    };
    let lookups = 1 + rng.below(3);
    for k in 0..lookups {
        let last = k + 1 == lookups;
        let sync = if last { " acquire sem_wait" } else { "" };
        b.push_text(&format!(
            "tex r{}.rgba = ld(t{}, r0.{}){sync} unscaled",
            1 + k,
            rng.below(2),
            rng.pick(&["rgaa", "grba", "rrgg"])
        ));
    }
    b.pending_wait = true;
    let top = Ctx { in_loop: false };
    for _ in 0..1 + rng.below(4) {
        match rng.below(4) {
            0 => b.if_else(rng, top),
            1 => b.looped(rng),
            _ => {
                let n = 1 + rng.below(8);
                b.straight(rng, top, n);
            }
        }
    }
    b.insts
}

/// A random four-vector; one in four has two channels that cancel and a
/// third far smaller (the dot-product quirk of CTM §3.6.2).
fn vector(rng: &mut Rng) -> [f32; 4] {
    let mut v: [f32; 4] = std::array::from_fn(|_| special_value(rng));
    if rng.chance(25) {
        let x = (rng.below(2000) as f32 + 1.0) / 64.0;
        let tiny = x * f32::from_bits(0x3280_0000 + (rng.below(8) << 23)); // 2^-26..2^-19
        let (i, j, k) = match rng.below(3) {
            0 => (0, 1, 2),
            1 => (2, 0, 1),
            _ => (1, 2, 3),
        };
        v[i] = x;
        v[j] = -x;
        v[k] = if rng.chance(50) { tiny } else { -tiny };
    }
    v
}

fn memory(rng: &mut Rng) -> TableMemory {
    let mut mem = TableMemory::default();
    for k in 0..24u8 {
        mem.set_constant(k, vector(rng));
    }
    for t in 0..2u8 {
        let texels = (0..16 * 16).map(|_| vector(rng)).collect();
        mem.set_input(t, 16, 16, texels);
    }
    // aL stays in 0..=3: count · step + init ≤ 3.
    mem.set_loop(0, rng.below(4) as u8, 0, 1);
    mem.set_loop(1, 1 + rng.below(2) as u8, rng.below(2) as u8, 1);
    mem.bool_constants = rng.next() as u32;
    mem
}

#[test]
fn fast_engine_matches_reference_on_random_programs() {
    // A longer soak: X1K_DPP_EQUIV_CASES=20000 X1K_DPP_EQUIV_SEED=7.
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let cases = env("X1K_DPP_EQUIV_CASES").unwrap_or(600);
    let mut rng = Rng(0x005E_ED0F_C7A1_2024 ^ env("X1K_DPP_EQUIV_SEED").unwrap_or(0));
    let elements: Vec<(u32, u32)> = (0..60).map(|k| (k % 16, (k * 7) % 16)).collect();
    let (mut ok, mut total) = (0u64, 0u64);
    for case in 0..cases {
        let body = body(&mut rng);
        let mem = memory(&mut rng);
        let zta = if rng.chance(25) { 2 } else { 0 };
        for tail in [Tail::Low, Tail::High, Tail::Predicates] {
            let prog = program(&body, tail, zta);
            for (group_size, hazards) in [
                (48, HazardPolicy::Warn),
                (7, HazardPolicy::Warn),
                (64, HazardPolicy::Fault),
            ] {
                let options = DppOptions {
                    group_size,
                    hazards,
                    ..DppOptions::default()
                };
                // `run_checked` compares the two engines bit for bit.
                let run =
                    std::panic::catch_unwind(|| run_checked(&prog, &elements, &mem, &options))
                        .unwrap_or_else(|_| {
                            panic!(
                                "case {case} ({tail:?}, group {group_size}, {hazards:?}):\n{}",
                                ctm_backend_x1k::isa::format_program(&prog.insts)
                            )
                        });
                total += 1;
                ok += u64::from(run.is_ok());
            }
        }
    }
    eprintln!("{ok} of {total} runs completed");
    // The corpus must mostly run to the end, not stop at a fault.
    assert!(ok * 10 >= total * 6, "only {ok} of {total} runs completed");
}
