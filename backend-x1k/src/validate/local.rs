//! Rules checked on the program registers and on each instruction alone
//! (or with its straight-line predecessor): program length, the final OUT,
//! `US_PIXSIZE`, output modifiers, SOP/DP pairing, DP4 inputs, swizzles,
//! presubtract NOP, UMRT writes, acquire-with-wait.

use crate::Program;
use crate::isa::program_regs::{
    OutputMode, ProgramRegister, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
};
use crate::isa::{
    AlphaHalf, AlphaOp, AluInst, AluSource, AluWrites, InputModifier, InputSelect, Inst, MAX_SLOTS,
    OpClass, OutputModifier, PresubOp, RgbOp, Swizzle, TexInst, UmrtTarget,
};

use super::reads::{alu_reads, alu_temp_reads, alu_temp_writes, channel_name};
use super::rule::{Rule, Violation};

/// The decoded program registers (`None` where a register does not decode).
pub(crate) struct Registers {
    pub config: Option<UsConfigReg>,
    pub pixsize: Option<UsPixsizeReg>,
    pub fc_ctrl: Option<UsFcCtrlReg>,
}

impl Registers {
    /// Whether output writes are uncached (UMRT, `US_CONFIG` bit 0).
    pub(crate) fn umrt(&self) -> bool {
        self.config
            .is_some_and(|c| c.output_mode == OutputMode::Uncached)
    }
}

/// Decode the program registers, reporting those that do not decode.
pub(crate) fn registers(p: &Program, out: &mut Vec<Violation>) -> Registers {
    fn reg<R: ProgramRegister>(raw: u32, out: &mut Vec<Violation>) -> Option<R> {
        R::decode(raw)
            .map_err(|e| {
                out.push(Violation::program(
                    Rule::ProgramRegister,
                    format!("{} = {raw:#010x}: {e}", R::NAME),
                ));
            })
            .ok()
    }
    Registers {
        config: reg(p.us_config, out),
        pixsize: reg(p.us_pixsize, out),
        fc_ctrl: reg(p.us_fc_ctrl, out),
    }
}

/// Program-level rules: length, the last instruction, `US_PIXSIZE`.
pub(crate) fn check_program(
    p: &Program,
    regs: &Registers,
    max_temp: Option<u8>,
    out: &mut Vec<Violation>,
) {
    let len = p.insts.len();
    if len == 0 || len > MAX_SLOTS {
        out.push(Violation::program(
            Rule::ProgramLength,
            format!("the program has {len} slots; it must have 1 to {MAX_SLOTS}"),
        ));
    }
    if let Some(last) = p.insts.last() {
        let slot = len - 1;
        match last {
            Inst::Alu(a) if matches!(a.writes, AluWrites::Output(_)) => {
                if !a.sem_wait {
                    out.push(Violation::at(
                        Rule::LastWithoutSemWait,
                        slot,
                        "the last instruction does not set TEX_SEM_WAIT",
                    ));
                }
            }
            other => out.push(Violation::at(
                Rule::LastNotOutput,
                slot,
                format!("the last instruction is {}, not OUT", other.inst_type()),
            )),
        }
    }
    if let (Some(pix), Some(max)) = (regs.pixsize, max_temp)
        && u32::from(max) > pix.max_temp.get()
    {
        out.push(Violation::program(
            Rule::PixsizeTooSmall,
            format!("r{max} is used but US_PIXSIZE is {}", pix.max_temp.get()),
        ));
    }
}

/// Rules on one instruction (and its straight-line predecessor for the
/// presubtract hazard).
pub(crate) fn check_inst(insts: &[Inst], slot: usize, regs: &Registers, out: &mut Vec<Violation>) {
    match &insts[slot] {
        Inst::Alu(a) => {
            check_alu(a, slot, out);
            if let Some(Inst::Alu(prev)) = slot.checked_sub(1).map(|s| &insts[s]) {
                check_presub_nop(prev, a, slot, out);
            }
            if regs.umrt() {
                check_umrt(a, slot, out);
            }
        }
        Inst::Tex(t) => check_tex(t, slot, out),
        Inst::Fc(_) => {}
    }
}

/// CTM §3.3.5: `OMOD_DISABLED` only with MIN, MAX, CND, CMP (the opcode
/// table's `Select` class).
fn omod_disable_ok_rgb(op: RgbOp) -> bool {
    op.class() == OpClass::Select
}

fn omod_disable_ok_alpha(op: AlphaOp) -> bool {
    op.class() == OpClass::Select
}

fn check_alu(a: &AluInst, slot: usize, out: &mut Vec<Violation>) {
    if matches!(a.writes, AluWrites::Output(_)) && a.alu_result.is_some() {
        out.push(Violation::at(
            Rule::OutputWritesAluResult,
            slot,
            "an OUT instruction sets ALU_WMASK",
        ));
    }
    let halves = [
        (
            "RGB",
            a.rgb.omod,
            a.rgb.clamp,
            omod_disable_ok_rgb(a.rgb.op),
            a.rgb.op.mnemonic(),
        ),
        (
            "alpha",
            a.alpha.omod,
            a.alpha.clamp,
            omod_disable_ok_alpha(a.alpha.op),
            a.alpha.op.mnemonic(),
        ),
    ];
    for (unit, omod, clamp, ok, op) in halves {
        if omod == OutputModifier::Disabled {
            if !ok {
                out.push(Violation::at(
                    Rule::OmodDisabledOp,
                    slot,
                    format!("OMOD_DISABLED with {unit} {op}"),
                ));
            }
            if clamp {
                out.push(Violation::at(
                    Rule::OmodDisabledClamp,
                    slot,
                    format!("{unit} clamp with OMOD_DISABLED"),
                ));
            }
        }
    }
    if a.rgb.op == RgbOp::Sop && a.alpha.op.transcendental().is_none() {
        out.push(Violation::at(
            Rule::SopWithoutTranscendental,
            slot,
            format!("RGB sop with alpha {}", a.alpha.op),
        ));
    }
    if a.alpha.op == AlphaOp::Dp && a.rgb.op.class() != OpClass::Dot {
        out.push(Violation::at(
            Rule::DpWithoutDotProduct,
            slot,
            format!("alpha dp with RGB {}", a.rgb.op),
        ));
    }
    if a.rgb.op == RgbOp::Dp4 {
        for (k, name) in [(0, 'A'), (1, 'B')] {
            let (rgb, alpha) = (a.rgb.inputs[k].modifier, a.alpha.inputs[k].modifier);
            if rgb != alpha {
                out.push(Violation::at(
                    Rule::Dp4ModifierMismatch,
                    slot,
                    format!("dp4 input {name}: RGB modifier {rgb} but alpha modifier {alpha}"),
                ));
            }
        }
    }
    if alu_reads(a).undefined_swizzle {
        out.push(Violation::at(
            Rule::UndefinedSwizzle,
            slot,
            "an input the op reads uses swizzle code 7 (`_`)",
        ));
    }
    for (unit, op, bad) in [
        (
            "RGB",
            a.rgb.op.mnemonic(),
            a.rgb.op.class() == OpClass::Derivative,
        ),
        (
            "alpha",
            a.alpha.op.mnemonic(),
            a.alpha.op.class() == OpClass::Derivative,
        ),
    ] {
        if bad {
            out.push(Violation::at(
                Rule::OpNotInCtmGuide,
                slot,
                format!("{unit} {op} is not a CTM operation"),
            ));
        }
    }
}

fn check_presub_nop(prev: &AluInst, a: &AluInst, slot: usize, out: &mut Vec<Violation>) {
    if prev.nop {
        return;
    }
    let hit = alu_temp_reads(a, true).intersection(&alu_temp_writes(prev));
    if let Some((reg, ch)) = hit.first() {
        out.push(Violation::at(
            Rule::PresubtractNop,
            slot - 1,
            format!(
                "slot {slot} reads {} through a presubtract and this instruction writes it; \
                 set NOP here",
                channel_name(reg, ch)
            ),
        ));
    }
}

fn check_umrt(a: &AluInst, slot: usize, out: &mut Vec<Violation>) {
    let AluWrites::Output(o) = a.writes else {
        return;
    };
    let rgb = o.rgb_mask.bits();
    let alpha = o.alpha_mask.is_on();
    let writes = rgb != 0 || alpha;
    if writes && !(rgb == 7 && alpha) {
        out.push(Violation::at(
            Rule::UmrtPartialMask,
            slot,
            format!(
                "UMRT write with output mask {}{}",
                o.rgb_mask,
                if alpha { "+a" } else { "" }
            ),
        ));
    }
    if o.w.is_on() {
        out.push(Violation::at(
            Rule::UmrtCachedWrite,
            slot,
            "a UMRT program writes the W / conditional output",
        ));
    }
    if alpha
        && let Some(v) = alpha_constant(a)
        && v != 0.0
    {
        out.push(Violation::at(
            Rule::UmrtAlphaNotZero,
            slot,
            format!("the UMRT write's alpha is the constant {v}"),
        ));
    }
    if writes && UmrtTarget::from_target(o.rgb_target).acquires_semaphore() && !a.sem_wait {
        out.push(Violation::at(
            Rule::AcquireWithoutWait,
            slot,
            "an acquiring UMRT write without TEX_SEM_WAIT",
        ));
    }
}

fn check_tex(t: &TexInst, slot: usize, out: &mut Vec<Violation>) {
    if t.sem_acquire && !t.sem_wait {
        out.push(Violation::at(
            Rule::AcquireWithoutWait,
            slot,
            "TEX_SEM_ACQUIRE without TEX_SEM_WAIT",
        ));
    }
}

/// The alpha result of an ALU instruction when it is a compile-time
/// constant (inputs are constant swizzles or inline constants).
pub(crate) fn alpha_constant(a: &AluInst) -> Option<f32> {
    let h: &AlphaHalf = &a.alpha;
    let source = |sources: &[AluSource; 3], k: usize| match sources[k] {
        AluSource::Inline(c) => Some(c.value()),
        _ => None,
    };
    let vector = |sel: InputSelect, comp: usize| -> Option<f32> {
        let sources = if comp == 3 {
            &h.sources
        } else {
            &a.rgb.sources
        };
        let presub = if comp == 3 { h.presub } else { a.rgb.presub };
        match sel {
            InputSelect::Srcp => {
                let s0 = source(sources, 0);
                match presub {
                    PresubOp::Bias => s0.map(|x| 1.0 - 2.0 * x),
                    PresubOp::Inv => s0.map(|x| 1.0 - x),
                    PresubOp::Sub => Some(source(sources, 1)? - s0?),
                    PresubOp::Add => Some(source(sources, 1)? + s0?),
                }
            }
            s => source(sources, s.code() as usize),
        }
    };
    let input = |k: usize| -> Option<f32> {
        let i = h.inputs[k];
        let v = match i.swizzle {
            Swizzle::Zero => 0.0,
            Swizzle::Half => 0.5,
            Swizzle::One => 1.0,
            Swizzle::R => vector(i.sel, 0)?,
            Swizzle::G => vector(i.sel, 1)?,
            Swizzle::B => vector(i.sel, 2)?,
            Swizzle::A => vector(i.sel, 3)?,
            Swizzle::Unused => return None,
        };
        Some(match i.modifier {
            InputModifier::None => v,
            InputModifier::Neg => -v,
            InputModifier::Abs => v.abs(),
            InputModifier::NegAbs => -v.abs(),
        })
    };
    let v = match h.op {
        AlphaOp::Mad => input(0)? * input(1)? + input(2)?,
        AlphaOp::Min => input(0)?.min(input(1)?),
        AlphaOp::Max => input(0)?.max(input(1)?),
        AlphaOp::Cnd => {
            if input(2)? > 0.5 {
                input(0)?
            } else {
                input(1)?
            }
        }
        AlphaOp::Cmp => {
            if input(2)? >= 0.0 {
                input(0)?
            } else {
                input(1)?
            }
        }
        AlphaOp::Frc => {
            let x = input(0)?;
            x - x.floor()
        }
        AlphaOp::Ex2 => input(0)?.exp2(),
        AlphaOp::Ln2 => input(0)?.log2(),
        AlphaOp::Rcp => 1.0 / input(0)?,
        AlphaOp::Rsq => 1.0 / input(0)?.sqrt(),
        AlphaOp::Sin => (input(0)? * std::f32::consts::TAU).sin(),
        AlphaOp::Cos => (input(0)? * std::f32::consts::TAU).cos(),
        AlphaOp::Dp | AlphaOp::Mdh | AlphaOp::Mdv => return None,
    };
    let scaled = match h.omod {
        OutputModifier::Mul1 | OutputModifier::Disabled => v,
        OutputModifier::Mul2 => v * 2.0,
        OutputModifier::Mul4 => v * 4.0,
        OutputModifier::Mul8 => v * 8.0,
        OutputModifier::Div2 => v / 2.0,
        OutputModifier::Div4 => v / 4.0,
        OutputModifier::Div8 => v / 8.0,
    };
    Some(if h.clamp && h.omod != OutputModifier::Disabled {
        scaled.clamp(0.0, 1.0)
    } else {
        scaled
    })
}
