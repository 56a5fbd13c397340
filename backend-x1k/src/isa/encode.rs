//! Encoding a typed [`Inst`] into its six words, and a program into the
//! `.text` layout.
//!
//! Every field is written through the [`super::fields`] table; nothing here
//! knows a bit position. Encoding is total: the typed values can only hold
//! encodable values.
//!
//! `.text` layout (`x1k-encoding.md` §1.2, the CTM guide does not spell it
//! out): 24 bytes per slot, words 0..5 in `US_CMN_INST`, word-1 .. word-5
//! order, each little-endian (CTM §4.1.2: ELFDATA2LSB), slot 0 first. This
//! is the order the graphics upload path streams to `GA_US_VECTOR_DATA` and
//! the order of the hardware-verified binaries (`x1k-encoding.md` §9).

use super::enums::{AluResultSel, CompareOp};
use super::fields::{
    UsAluAlphaAddr, UsAluAlphaInst, UsAluRgbAddr, UsAluRgbInst, UsAluRgbaInst, UsCmnInst, UsFcAddr,
    UsFcInst, UsTexAddr, UsTexAddrDxdy, UsTexInst,
};
use super::inst::{AluInst, AluWrites, FcInst, Inst, Predicate, TexInst, TexOp, TexOperand};
use super::operand::AluSource;

/// Number of 32-bit words per instruction slot.
pub const WORDS_PER_SLOT: usize = 6;
/// Number of bytes per instruction slot in `.text`.
pub const BYTES_PER_SLOT: usize = 4 * WORDS_PER_SLOT;
/// Number of instruction slots of the X1K fragment processor (CTM §3.1).
pub const MAX_SLOTS: usize = 512;

fn bit(b: bool) -> u32 {
    u32::from(b)
}

/// `(PRED_SEL, PRED_INV)` for an optional predicate (§2.1).
fn predicate_fields(p: Option<Predicate>) -> (u32, u32) {
    match p {
        None => (0, 0),
        Some(p) => (p.sel.code(), bit(p.invert)),
    }
}

/// Encode one instruction into its six words (`x1k-encoding.md` §1.2).
pub fn encode(inst: &Inst) -> [u32; WORDS_PER_SLOT] {
    match inst {
        Inst::Alu(a) => encode_alu(a),
        Inst::Fc(f) => encode_fc(f),
        Inst::Tex(t) => encode_tex(t),
    }
}

/// Writes the three sources and the presubtract op into an address word;
/// the RGB and alpha address words share one layout (§3).
macro_rules! address_word {
    ($reg:ident, $sources:expr, $presub:expr) => {{
        let s: [AluSource; 3] = $sources;
        let (a0, c0, r0) = s[0].fields();
        let (a1, c1, r1) = s[1].fields();
        let (a2, c2, r2) = s[2].fields();
        $reg::default()
            .with($reg::ADDR0, a0)
            .with($reg::ADDR0_CONST, c0)
            .with($reg::ADDR0_REL, r0)
            .with($reg::ADDR1, a1)
            .with($reg::ADDR1_CONST, c1)
            .with($reg::ADDR1_REL, r1)
            .with($reg::ADDR2, a2)
            .with($reg::ADDR2_CONST, c2)
            .with($reg::ADDR2_REL, r2)
            .with($reg::SRCP_OP, $presub.code())
            .0
    }};
}

fn encode_alu(a: &AluInst) -> [u32; WORDS_PER_SLOT] {
    let (rgb_pred_sel, rgb_pred_inv) = predicate_fields(a.rgb.predicate);
    let (alpha_pred_sel, alpha_pred_inv) = predicate_fields(a.alpha.predicate);
    // The two TARGET fields and the OMASKs: predicate compare (ALU) or
    // render target (OUT), §7.5.
    let (ty, rgb_omask, alpha_omask, rgb_target, alpha_target, w_omask) = match a.writes {
        AluWrites::Predicate(p) => (
            0,
            p.rgb_mask.bits(),
            p.alpha_mask.bit(),
            p.rgb_op.code(),
            p.alpha_op.code(),
            0,
        ),
        AluWrites::Output(o) => (
            1,
            o.rgb_mask.bits(),
            o.alpha_mask.bit(),
            o.rgb_target.code(),
            o.alpha_target.code(),
            o.w.bit(),
        ),
    };
    let (alu_wmask, result_sel, result_op) = match a.alu_result {
        None => (0, AluResultSel::Red.code(), CompareOp::Eq.code()),
        Some(r) => (1, r.sel.code(), r.op.code()),
    };

    let w0 = UsCmnInst::default()
        .with(UsCmnInst::TYPE, ty)
        .with(UsCmnInst::TEX_SEM_WAIT, bit(a.sem_wait))
        .with(UsCmnInst::RGB_PRED_SEL, rgb_pred_sel)
        .with(UsCmnInst::RGB_PRED_INV, rgb_pred_inv)
        .with(UsCmnInst::WRITE_INACTIVE, bit(a.write_inactive))
        .with(UsCmnInst::LAST, bit(a.last))
        .with(UsCmnInst::NOP, bit(a.nop))
        .with(UsCmnInst::RGB_WMASK, a.rgb.write_mask.bits())
        .with(UsCmnInst::ALPHA_WMASK, a.alpha.write_mask.bit())
        .with(UsCmnInst::RGB_OMASK, rgb_omask)
        .with(UsCmnInst::ALPHA_OMASK, alpha_omask)
        .with(UsCmnInst::RGB_CLAMP, bit(a.rgb.clamp))
        .with(UsCmnInst::ALPHA_CLAMP, bit(a.alpha.clamp))
        .with(UsCmnInst::ALU_RESULT_SEL, result_sel)
        .with(UsCmnInst::ALPHA_PRED_INV, alpha_pred_inv)
        .with(UsCmnInst::ALU_RESULT_OP, result_op)
        .with(UsCmnInst::ALPHA_PRED_SEL, alpha_pred_sel)
        .0;

    let w1 = address_word!(UsAluRgbAddr, a.rgb.sources, a.rgb.presub);
    let w2 = address_word!(UsAluAlphaAddr, a.alpha.sources, a.alpha.presub);

    // Word 3: RGB inputs A and B (§4).
    let [ra, rb, rc] = a.rgb.inputs;
    let w3 = UsAluRgbInst::default()
        .with(UsAluRgbInst::RGB_SEL_A, ra.sel.code())
        .with(UsAluRgbInst::RED_SWIZ_A, ra.swizzle[0].code())
        .with(UsAluRgbInst::GREEN_SWIZ_A, ra.swizzle[1].code())
        .with(UsAluRgbInst::BLUE_SWIZ_A, ra.swizzle[2].code())
        .with(UsAluRgbInst::RGB_MOD_A, ra.modifier.code())
        .with(UsAluRgbInst::RGB_SEL_B, rb.sel.code())
        .with(UsAluRgbInst::RED_SWIZ_B, rb.swizzle[0].code())
        .with(UsAluRgbInst::GREEN_SWIZ_B, rb.swizzle[1].code())
        .with(UsAluRgbInst::BLUE_SWIZ_B, rb.swizzle[2].code())
        .with(UsAluRgbInst::RGB_MOD_B, rb.modifier.code())
        .with(UsAluRgbInst::OMOD, a.rgb.omod.code())
        .with(UsAluRgbInst::TARGET, rgb_target)
        .with(UsAluRgbInst::ALU_WMASK, alu_wmask)
        .0;

    // Word 4: alpha op, destination, inputs A and B (§5).
    let [aa, ab, ac] = a.alpha.inputs;
    let w4 = UsAluAlphaInst::default()
        .with(UsAluAlphaInst::ALPHA_OP, a.alpha.op.code())
        .with(UsAluAlphaInst::ALPHA_ADDRD, a.alpha.dest.reg.get())
        .with(
            UsAluAlphaInst::ALPHA_ADDRD_REL,
            a.alpha.dest.addressing.bit(),
        )
        .with(UsAluAlphaInst::ALPHA_SEL_A, aa.sel.code())
        .with(UsAluAlphaInst::ALPHA_SWIZ_A, aa.swizzle.code())
        .with(UsAluAlphaInst::ALPHA_MOD_A, aa.modifier.code())
        .with(UsAluAlphaInst::ALPHA_SEL_B, ab.sel.code())
        .with(UsAluAlphaInst::ALPHA_SWIZ_B, ab.swizzle.code())
        .with(UsAluAlphaInst::ALPHA_MOD_B, ab.modifier.code())
        .with(UsAluAlphaInst::OMOD, a.alpha.omod.code())
        .with(UsAluAlphaInst::TARGET, alpha_target)
        .with(UsAluAlphaInst::W_OMASK, w_omask)
        .0;

    // Word 5: RGB op, RGB destination, RGB and alpha input C (§6).
    let w5 = UsAluRgbaInst::default()
        .with(UsAluRgbaInst::RGB_OP, a.rgb.op.code())
        .with(UsAluRgbaInst::RGB_ADDRD, a.rgb.dest.reg.get())
        .with(UsAluRgbaInst::RGB_ADDRD_REL, a.rgb.dest.addressing.bit())
        .with(UsAluRgbaInst::RGB_SEL_C, rc.sel.code())
        .with(UsAluRgbaInst::RED_SWIZ_C, rc.swizzle[0].code())
        .with(UsAluRgbaInst::GREEN_SWIZ_C, rc.swizzle[1].code())
        .with(UsAluRgbaInst::BLUE_SWIZ_C, rc.swizzle[2].code())
        .with(UsAluRgbaInst::RGB_MOD_C, rc.modifier.code())
        .with(UsAluRgbaInst::ALPHA_SEL_C, ac.sel.code())
        .with(UsAluRgbaInst::ALPHA_SWIZ_C, ac.swizzle.code())
        .with(UsAluRgbaInst::ALPHA_MOD_C, ac.modifier.code())
        .0;

    [w0, w1, w2, w3, w4, w5]
}

fn encode_fc(f: &FcInst) -> [u32; WORDS_PER_SLOT] {
    let (pred_sel, pred_inv) = match f.predicate {
        None => (0, 0),
        Some(p) => (p.sel().code(), bit(p.invert)),
    };
    let w0 = UsCmnInst::default()
        .with(UsCmnInst::TYPE, 2)
        .with(UsCmnInst::TEX_SEM_WAIT, bit(f.sem_wait))
        .with(UsCmnInst::RGB_PRED_SEL, pred_sel)
        .with(UsCmnInst::RGB_PRED_INV, pred_inv)
        .with(UsCmnInst::ALU_WAIT, bit(f.alu_wait))
        .0;
    let w2 = UsFcInst::default()
        .with(UsFcInst::OP, f.op.code())
        .with(UsFcInst::B_ELSE, bit(f.b_else))
        .with(UsFcInst::JUMP_ANY, bit(f.jump_any))
        .with(UsFcInst::A_OP, f.a_op.code())
        .with(UsFcInst::JUMP_FUNC, u32::from(f.jump_func))
        .with(UsFcInst::B_POP_CNT, f.b_pop_cnt.get())
        .with(UsFcInst::B_OP0, f.b_op0.code())
        .with(UsFcInst::B_OP1, f.b_op1.code())
        .with(UsFcInst::IGNORE_UNCOVERED, bit(f.ignore_uncovered))
        .0;
    let w3 = UsFcAddr::default()
        .with(UsFcAddr::BOOL_ADDR, f.bool_addr.get())
        .with(UsFcAddr::INT_ADDR, f.int_addr.get())
        .with(UsFcAddr::JUMP_ADDR, f.jump_addr.get())
        .with(
            UsFcAddr::JUMP_GLOBAL,
            match f.jump_addressing {
                super::inst::JumpAddressing::Relative => 0,
                super::inst::JumpAddressing::Global => 1,
            },
        )
        .0;
    // FC occupies words 0, 2, 3; words 1, 4, 5 are 0 (§1.2).
    [w0, 0, w2, w3, 0, 0]
}

fn encode_tex(t: &TexInst) -> [u32; WORDS_PER_SLOT] {
    let (rgb_pred_sel, rgb_pred_inv) = predicate_fields(t.rgb_predicate);
    let (alpha_pred_sel, alpha_pred_inv) = predicate_fields(t.alpha_predicate);
    let w0 = UsCmnInst::default()
        .with(UsCmnInst::TYPE, 3)
        .with(UsCmnInst::TEX_SEM_WAIT, bit(t.sem_wait))
        .with(UsCmnInst::RGB_PRED_SEL, rgb_pred_sel)
        .with(UsCmnInst::RGB_PRED_INV, rgb_pred_inv)
        .with(UsCmnInst::WRITE_INACTIVE, bit(t.write_inactive))
        .with(UsCmnInst::ALU_WAIT, bit(t.alu_wait))
        .with(UsCmnInst::RGB_WMASK, t.rgb_write_mask.bits())
        .with(UsCmnInst::ALPHA_WMASK, t.alpha_write_mask.bit())
        .with(UsCmnInst::ALPHA_PRED_INV, alpha_pred_inv)
        .with(UsCmnInst::ALPHA_PRED_SEL, alpha_pred_sel)
        .0;
    let w1 = UsTexInst::default()
        .with(UsTexInst::TEX_ID, t.tex_id.get())
        .with(UsTexInst::INST, t.op.opcode().code())
        .with(UsTexInst::TEX_SEM_ACQUIRE, bit(t.sem_acquire))
        .with(UsTexInst::IGNORE_UNCOVERED, bit(t.ignore_uncovered))
        .with(UsTexInst::UNSCALED, bit(t.unscaled))
        .0;
    let s = t.src.swizzle;
    let d = t.dst_swizzle;
    let w2 = UsTexAddr::default()
        .with(UsTexAddr::SRC_ADDR, t.src.addr.reg.get())
        .with(UsTexAddr::SRC_ADDR_REL, t.src.addr.addressing.bit())
        .with(UsTexAddr::SRC_S_SWIZ, s[0].code())
        .with(UsTexAddr::SRC_T_SWIZ, s[1].code())
        .with(UsTexAddr::SRC_R_SWIZ, s[2].code())
        .with(UsTexAddr::SRC_Q_SWIZ, s[3].code())
        .with(UsTexAddr::DST_ADDR, t.dst.reg.get())
        .with(UsTexAddr::DST_ADDR_REL, t.dst.addressing.bit())
        .with(UsTexAddr::DST_R_SWIZ, d[0].code())
        .with(UsTexAddr::DST_G_SWIZ, d[1].code())
        .with(UsTexAddr::DST_B_SWIZ, d[2].code())
        .with(UsTexAddr::DST_A_SWIZ, d[3].code())
        .0;
    let w3 = match t.op {
        TexOp::Dxdy { dx, dy } => encode_gradients(dx, dy),
        _ => 0,
    };
    // TEX occupies words 0..3; words 4, 5 are 0 (§1.2).
    [w0, w1, w2, w3, 0, 0]
}

fn encode_gradients(dx: TexOperand, dy: TexOperand) -> u32 {
    UsTexAddrDxdy::default()
        .with(UsTexAddrDxdy::DX_ADDR, dx.addr.reg.get())
        .with(UsTexAddrDxdy::DX_ADDR_REL, dx.addr.addressing.bit())
        .with(UsTexAddrDxdy::DX_S_SWIZ, dx.swizzle[0].code())
        .with(UsTexAddrDxdy::DX_T_SWIZ, dx.swizzle[1].code())
        .with(UsTexAddrDxdy::DX_R_SWIZ, dx.swizzle[2].code())
        .with(UsTexAddrDxdy::DX_Q_SWIZ, dx.swizzle[3].code())
        .with(UsTexAddrDxdy::DY_ADDR, dy.addr.reg.get())
        .with(UsTexAddrDxdy::DY_ADDR_REL, dy.addr.addressing.bit())
        .with(UsTexAddrDxdy::DY_S_SWIZ, dy.swizzle[0].code())
        .with(UsTexAddrDxdy::DY_T_SWIZ, dy.swizzle[1].code())
        .with(UsTexAddrDxdy::DY_R_SWIZ, dy.swizzle[2].code())
        .with(UsTexAddrDxdy::DY_Q_SWIZ, dy.swizzle[3].code())
        .0
}

/// Encode a program: six words per slot, slot 0 first (module doc).
pub fn encode_program(insts: &[Inst]) -> Vec<u32> {
    insts.iter().flat_map(encode).collect()
}

/// The `.text` bytes of a program: [`encode_program`], each word
/// little-endian (module doc).
pub fn encode_program_bytes(insts: &[Inst]) -> Vec<u8> {
    words_to_bytes(&encode_program(insts))
}

/// Little-endian bytes of a word sequence.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
