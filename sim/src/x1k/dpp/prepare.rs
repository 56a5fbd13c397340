//! Decode-once preparation: the [`Program`]'s instructions are turned into
//! [`Slot`]s that carry what execution needs precomputed (which source
//! channels each ALU instruction reads — from the ISA's opcode table —,
//! output-modifier scales, the
//! transcendental, co-issue), and every rule that depends only on one
//! instruction is checked here (CTM §3.3.4 pairing, §3.3.5 `OMOD_DISABLED`,
//! §3.3.8 UMRT masks, §3.4.2 acquire-without-wait). A slot that breaks one
//! becomes [`Slot::Invalid`]; the fault is raised only if the slot executes.

use ctm_backend_x1k::isa::{
    self, AlphaOp, AluInst, AluWrites, FcInst, InputSelect, Inst, OpClass, OutputModifier,
    PresubOp, RgbOp, Swizzle, TexInst, UmrtTarget,
};

use super::fault::FaultKind;
use super::fp::omod_scale;
use super::operands::FastAlu;
use super::transcendental::Transcendental;
use crate::x1k::interface::Program;

/// One prepared instruction slot.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    /// ALU or OUT.
    Alu(Box<AluPlan>),
    /// Flow control.
    Fc(FcInst),
    /// Texture.
    Tex(TexInst),
    /// An instruction that breaks a single-instruction rule.
    Invalid(FaultKind),
}

/// An ALU/OUT instruction with its precomputed facts.
#[derive(Clone, Debug)]
pub(crate) struct AluPlan {
    /// The instruction.
    pub inst: AluInst,
    /// Source channels read, per source 0..2 (bit c = channel c; R, G, B
    /// from the RGB address, A from the alpha address), presubtract
    /// operands included.
    pub src_need: [u8; 3],
    /// Channels of the presubtract vector read by the inputs.
    pub srcp_need: u8,
    /// Channels of src0/src1 read by the presubtract (for the NOP hazard).
    pub presub_need: [u8; 2],
    /// RGB output-modifier scale (`None` = `OMOD_DISABLED`).
    pub rgb_scale: Option<f64>,
    /// Alpha output-modifier scale.
    pub alpha_scale: Option<f64>,
    /// The alpha op as a transcendental.
    pub transcendental: Option<Transcendental>,
    /// The RGB unit's result goes somewhere (co-issue statistics).
    pub rgb_used: bool,
    /// The alpha unit's result goes somewhere.
    pub alpha_used: bool,
    /// RGB result channels something reads (bit c = channel c): temporary,
    /// predicate and output masks, the ALU result, UMRT. The fast engine
    /// computes only these.
    pub rgb_out_need: u8,
    /// The alpha result is read by something.
    pub alpha_out_need: bool,
    /// What the fast engine computes and reads.
    pub fast: FastAlu,
    /// The UMRT kind, for an OUT that writes in an uncached program.
    pub umrt: Option<UmrtTarget>,
    /// The program's outputs are uncached (`US_CONFIG` bit 0).
    pub uncached: bool,
}

/// The prepared program.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// One per instruction slot.
    pub slots: Vec<Slot>,
    /// `START_ADDR`.
    pub start: u16,
    /// `END_ADDR`: the last slot executed.
    pub end: u16,
    /// Temporaries in the frame (`US_PIXSIZE` + 1).
    pub nregs: usize,
    /// `US_FC_CTRL.FULL_FC_EN`.
    pub full_fc: bool,
    /// `US_CONFIG` bit 1: 0 · anything = 0.
    pub zero_times_anything: bool,
    /// A fault of the program as a whole (range, last instruction).
    pub program_fault: Option<(u16, FaultKind)>,
}

/// The channel a swizzle reads (`None` for the constants 0, ½, 1);
/// `Err` for the undefined code 7.
fn swizzle_channel(s: Swizzle) -> Result<Option<usize>, FaultKind> {
    match s {
        Swizzle::R => Ok(Some(0)),
        Swizzle::G => Ok(Some(1)),
        Swizzle::B => Ok(Some(2)),
        Swizzle::A => Ok(Some(3)),
        Swizzle::Zero | Swizzle::Half | Swizzle::One => Ok(None),
        Swizzle::Unused => Err(FaultKind::UndefinedSwizzle),
    }
}

/// Mark channel `ch` of vector `sel` as needed.
fn need(src_need: &mut [u8; 3], srcp_need: &mut u8, sel: InputSelect, ch: usize) {
    match sel {
        InputSelect::Src0 => src_need[0] |= 1 << ch,
        InputSelect::Src1 => src_need[1] |= 1 << ch,
        InputSelect::Src2 => src_need[2] |= 1 << ch,
        InputSelect::Srcp => *srcp_need |= 1 << ch,
    }
}

/// Prepare one ALU/OUT instruction, checking its single-instruction rules.
fn prepare_alu(inst: &AluInst, uncached: bool) -> Result<AluPlan, FaultKind> {
    let (rgb, alpha) = (&inst.rgb, &inst.alpha);
    // MDH/MDV are not in the CTM guide (x1k-encoding §14 item 14).
    if rgb.op.class() == OpClass::Derivative {
        return Err(FaultKind::UnsupportedOp(rgb.op.mnemonic()));
    }
    if alpha.op.class() == OpClass::Derivative {
        return Err(FaultKind::UnsupportedOp(alpha.op.mnemonic()));
    }
    // CTM §3.3.5: OMOD_DISABLED only with MIN, MAX, CND, CMP.
    if rgb.omod == OutputModifier::Disabled && rgb.op.class() != OpClass::Select {
        return Err(FaultKind::OmodDisabledRgb(rgb.op));
    }
    if alpha.omod == OutputModifier::Disabled && alpha.op.class() != OpClass::Select {
        return Err(FaultKind::OmodDisabledAlpha(alpha.op));
    }
    // CTM §3.3.4: SOP needs a transcendental alpha op, DP a dot-product RGB op.
    let transcendental = alpha.op.transcendental();
    if rgb.op == RgbOp::Sop && transcendental.is_none() {
        return Err(FaultKind::SopWithoutTranscendental(alpha.op));
    }
    if alpha.op == AlphaOp::Dp && rgb.op.class() != OpClass::Dot {
        return Err(FaultKind::DpWithoutDotProduct(rgb.op));
    }

    let mut src_need = [0u8; 3];
    let mut srcp_need = 0u8;
    for (input, channels) in rgb.inputs.iter().zip(rgb.op.reads()) {
        for (i, swz) in input.swizzle.iter().enumerate() {
            if channels & (1 << i) != 0
                && let Some(ch) = swizzle_channel(*swz)?
            {
                need(&mut src_need, &mut srcp_need, input.sel, ch);
            }
        }
    }
    for (input, read) in alpha
        .inputs
        .iter()
        .zip(isa::alpha_inputs_read(alpha.op, rgb.op))
    {
        if read && let Some(ch) = swizzle_channel(input.swizzle)? {
            need(&mut src_need, &mut srcp_need, input.sel, ch);
        }
    }
    // The presubtract vector: R, G, B from the RGB op, A from the alpha op
    // (CTM §3.3.3 "srcp" row); BIAS and INV read src0 only (CTM §3.3.2).
    let mut presub_need = [0u8; 2];
    let rgb_part = srcp_need & 7;
    let alpha_part = srcp_need & 8;
    presub_need[0] = rgb_part | alpha_part;
    if matches!(rgb.presub, PresubOp::Sub | PresubOp::Add) {
        presub_need[1] |= rgb_part;
    }
    if matches!(alpha.presub, PresubOp::Sub | PresubOp::Add) {
        presub_need[1] |= alpha_part;
    }
    src_need[0] |= presub_need[0];
    src_need[1] |= presub_need[1];

    let (rgb_out, alpha_out, umrt) = match &inst.writes {
        AluWrites::Predicate(p) => (p.rgb_mask.bits() as u8, p.alpha_mask.is_on(), None),
        AluWrites::Output(o) => {
            let umrt = if uncached {
                // CTM §3.3.8: a UMRT output writes all channels or none.
                let all = o.rgb_mask.bits() == 7 && o.alpha_mask.is_on();
                let none = o.rgb_mask.is_empty() && !o.alpha_mask.is_on();
                if !all && !none {
                    return Err(FaultKind::UmrtPartialMask {
                        rgb_mask: o.rgb_mask.bits() as u8,
                        alpha: o.alpha_mask.is_on(),
                    });
                }
                let kind = UmrtTarget::from_target(o.rgb_target);
                // CTM §3.4.2: acquiring needs TEX_SEM_WAIT on the same instruction.
                if all && kind.acquires_semaphore() && !inst.sem_wait {
                    return Err(FaultKind::AcquireWithoutWait);
                }
                all.then_some(kind)
            } else {
                None
            };
            (
                o.rgb_mask.bits() as u8,
                o.alpha_mask.is_on() || o.w.is_on(),
                umrt,
            )
        }
    };
    let result_sel = inst.alu_result.map(|r| r.sel);
    let red_result = result_sel == Some(ctm_backend_x1k::isa::AluResultSel::Red);
    let rgb_used =
        !rgb.write_mask.is_empty() || rgb_out != 0 || red_result || alpha.op == AlphaOp::Dp;
    let alpha_out_need = alpha.write_mask.is_on()
        || alpha_out
        || result_sel == Some(ctm_backend_x1k::isa::AluResultSel::Alpha)
        || umrt.is_some();
    let rgb_out_need = rgb.write_mask.bits() as u8
        | rgb_out
        | u8::from(red_result)
        | if umrt.is_some() { 7 } else { 0 };
    let alpha_used = alpha.write_mask.is_on()
        || alpha_out
        || result_sel == Some(ctm_backend_x1k::isa::AluResultSel::Alpha)
        || rgb.op == RgbOp::Sop;

    Ok(AluPlan {
        inst: *inst,
        src_need,
        srcp_need,
        presub_need,
        rgb_scale: omod_scale(rgb.omod),
        alpha_scale: omod_scale(alpha.omod),
        transcendental,
        rgb_out_need,
        alpha_out_need,
        fast: FastAlu::new(inst, rgb_out_need, alpha_out_need, transcendental),
        rgb_used,
        alpha_used,
        umrt,
        uncached,
    })
}

/// Prepare a program: decode-time facts and single-instruction rules.
pub(crate) fn prepare(program: &Program) -> Plan {
    let uncached = program.us_config & 1 != 0;
    let slots = program
        .insts
        .iter()
        .map(|inst| match inst {
            Inst::Alu(alu) => match prepare_alu(alu, uncached) {
                Ok(plan) => Slot::Alu(Box::new(plan)),
                Err(kind) => Slot::Invalid(kind),
            },
            Inst::Fc(fc) => Slot::Fc(*fc),
            Inst::Tex(tex) => {
                if tex.sem_acquire && !tex.sem_wait {
                    Slot::Invalid(FaultKind::AcquireWithoutWait)
                } else {
                    Slot::Tex(*tex)
                }
            }
        })
        .collect::<Vec<_>>();

    // US_CODE_ADDR: start in bits 15:0, end in 31:16 (CTM §4.1.4).
    let start = program.us_code_addr & 0xFFFF;
    let end = program.us_code_addr >> 16;
    let len = program.insts.len();
    let program_fault = if start > end || end as usize >= len {
        Some((
            end.min(u32::from(u16::MAX)) as u16,
            FaultKind::ProgramRange { start, end, len },
        ))
    } else if !matches!(
        program.insts[end as usize],
        Inst::Alu(AluInst {
            writes: AluWrites::Output(_),
            ..
        })
    ) {
        // CTM §3.1: the last executed instruction must be OUTPUT; the
        // instruction at END_ADDR is always the last one executed.
        Some((end as u16, FaultKind::LastNotOutput))
    } else {
        None
    };

    Plan {
        slots,
        start: start.min(511) as u16,
        end: end.min(511) as u16,
        nregs: (program.us_pixsize & 0x7F) as usize + 1,
        full_fc: program.us_fc_ctrl & 0x8000_0000 != 0,
        zero_times_anything: program.us_config & 2 != 0,
        program_fault,
    }
}
