//! The one definition of every bit field of the X1K fragment-program ("US")
//! instruction words and of the program-level registers.
//!
//! Each register is one row of the `words!` table below (`ctm_isa_kit`,
//! shared with the R700): its manual
//! name, where it lives (a word of the 6-dword instruction slot, or an MMIO
//! address), and its fields as `NAME: hi:lo`. From that table the macro
//! generates, per register,
//!
//! * a newtype over `u32` (`UsCmnInst`, `UsAluRgbAddr`, ...) whose fields are
//!   typed constants (`UsCmnInst::TYPE` is a `Field<UsCmnInst>`, so it cannot
//!   be applied to a TEX word by mistake), with `get`/`set`/`with`;
//! * `FIELDS`, the list of fields the raw disassembler walks
//!   ([`crate::isa::asm::format_raw_slot`]);
//! * `RESERVED_MASK`, the bits no field covers, which decode requires to be 0
//!   (and `USED_MASK`, its complement).
//!
//! The per-instruction-type tables at the end ([`cmn_fields_used`],
//! [`slot_layout`]) say which `US_CMN_INST` fields and which words each
//! instruction type uses; everything else must be zero (CTM guide §3.2: "the
//! unused memory locations for FC and TEX are ignored"; ctm writes and
//! requires 0 so that `encode(decode(w)) == w`).
//!
//! Bit positions: `x1k-encoding.md` §2–§8 (words) and §10 (registers), all
//! checked there against the AMD R5xx register reference and Mesa.
//! Field names follow the manuals so that `grep` leads from the fact sheet here.

use std::fmt;

pub use ctm_isa_kit::reserved_mask;

/// Where a register lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Location {
    /// Word `n` (0..=5) of a 6-dword instruction slot (`x1k-encoding.md` §1.2).
    SlotWord(u8),
    /// A memory-mapped register at this byte address (`x1k-encoding.md` §10).
    Mmio(u32),
}

impl ctm_isa_kit::FieldLocation for Location {
    fn word_index(&self) -> Option<u8> {
        match *self {
            Location::SlotWord(w) => Some(w),
            Location::Mmio(_) => None,
        }
    }

    /// Slot-word fields print as `word 3 US_ALU_RGB_INST.RGB_SEL_A`.
    fn fmt_prefix(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Location::SlotWord(w) => write!(f, "word {w} "),
            Location::Mmio(_) => Ok(()),
        }
    }
}

/// A bit field with its register erased (`register`, `name`, `location`,
/// `lo`, `width`): what errors and the field walk use.
pub type FieldInfo = ctm_isa_kit::FieldInfo<Location>;

/// A bit field of register `R`: a [`FieldInfo`] that only `R`'s accessors take.
pub type Field<R> = ctm_isa_kit::Field<R>;

/// The trait every generated register implements (bound generic code over
/// [`Field<R>`] with `R: Word`).
pub use ctm_isa_kit::Word;

ctm_isa_kit::words! {
    location Location;

    /// Word 0 of every instruction: type, semaphores, predication, masks
    /// (`x1k-encoding.md` §2, CTM guide §3.2).
    UsCmnInst = "US_CMN_INST" at Location::SlotWord(0) => {
        /// 0 ALU, 1 OUT, 2 FC, 3 TEX.
        TYPE: 1:0,
        /// Wait for the texture semaphore before issuing.
        TEX_SEM_WAIT: 2:2,
        /// Predicate select of the RGB unit (and of a whole FC instruction).
        RGB_PRED_SEL: 5:3,
        /// Invert the RGB predicate.
        RGB_PRED_INV: 6:6,
        /// Also write channels of inactive pixels.
        WRITE_INACTIVE: 7:7,
        /// Active pixels may terminate after this instruction.
        LAST: 8:8,
        /// Insert a bubble after this instruction.
        NOP: 9:9,
        /// Wait for pending ALU instructions (FC, TEX).
        ALU_WAIT: 10:10,
        /// Temp write enable R, G, B (bits 11, 12, 13).
        RGB_WMASK: 13:11,
        /// Temp write enable A.
        ALPHA_WMASK: 14:14,
        /// OUT: output write enable R, G, B; ALU: predicate write enable.
        RGB_OMASK: 17:15,
        /// OUT: output write enable A; ALU: predicate write enable A.
        ALPHA_OMASK: 18:18,
        /// Saturate the RGB result.
        RGB_CLAMP: 19:19,
        /// Saturate the alpha result.
        ALPHA_CLAMP: 20:20,
        /// Channel feeding the ALU result: 0 red, 1 alpha.
        ALU_RESULT_SEL: 21:21,
        /// Invert the alpha predicate.
        ALPHA_PRED_INV: 22:22,
        /// Compare-with-zero for the ALU result.
        ALU_RESULT_OP: 24:23,
        /// Predicate select of the alpha unit.
        ALPHA_PRED_SEL: 27:25,
        /// Statistics channel enables; ctm writes (and requires) 0.
        STAT_WE: 31:28,
    }

    /// Word 1 of ALU/OUT: RGB source addresses and RGB presubtract (§3).
    UsAluRgbAddr = "US_ALU_RGB_ADDR" at Location::SlotWord(1) => {
        /// Source 0 address (§3.1).
        ADDR0: 7:0,
        /// Source 0 is a constant register.
        ADDR0_CONST: 8:8,
        /// Add aL to source 0.
        ADDR0_REL: 9:9,
        /// Source 1 address.
        ADDR1: 17:10,
        /// Source 1 is a constant register.
        ADDR1_CONST: 18:18,
        /// Add aL to source 1.
        ADDR1_REL: 19:19,
        /// Source 2 address.
        ADDR2: 27:20,
        /// Source 2 is a constant register.
        ADDR2_CONST: 28:28,
        /// Add aL to source 2.
        ADDR2_REL: 29:29,
        /// Presubtract op (§3.2).
        SRCP_OP: 31:30,
    }

    /// Word 2 of ALU/OUT: alpha source addresses and alpha presubtract (§3).
    UsAluAlphaAddr = "US_ALU_ALPHA_ADDR" at Location::SlotWord(2) => {
        /// Source 0 address (§3.1).
        ADDR0: 7:0,
        /// Source 0 is a constant register.
        ADDR0_CONST: 8:8,
        /// Add aL to source 0.
        ADDR0_REL: 9:9,
        /// Source 1 address.
        ADDR1: 17:10,
        /// Source 1 is a constant register.
        ADDR1_CONST: 18:18,
        /// Add aL to source 1.
        ADDR1_REL: 19:19,
        /// Source 2 address.
        ADDR2: 27:20,
        /// Source 2 is a constant register.
        ADDR2_CONST: 28:28,
        /// Add aL to source 2.
        ADDR2_REL: 29:29,
        /// Presubtract op (§3.2).
        SRCP_OP: 31:30,
    }

    /// Word 3 of ALU/OUT: RGB inputs A and B, RGB OMOD and TARGET (§4).
    UsAluRgbInst = "US_ALU_RGB_INST" at Location::SlotWord(3) => {
        /// Source select of RGB input A.
        RGB_SEL_A: 1:0,
        /// Swizzle of A.r.
        RED_SWIZ_A: 4:2,
        /// Swizzle of A.g.
        GREEN_SWIZ_A: 7:5,
        /// Swizzle of A.b.
        BLUE_SWIZ_A: 10:8,
        /// Input modifier of A.
        RGB_MOD_A: 12:11,
        /// Source select of RGB input B.
        RGB_SEL_B: 14:13,
        /// Swizzle of B.r.
        RED_SWIZ_B: 17:15,
        /// Swizzle of B.g.
        GREEN_SWIZ_B: 20:18,
        /// Swizzle of B.b.
        BLUE_SWIZ_B: 23:21,
        /// Input modifier of B.
        RGB_MOD_B: 25:24,
        /// RGB output modifier.
        OMOD: 28:26,
        /// OUT: render target; ALU: predicate compare.
        TARGET: 30:29,
        /// Update the ALU result.
        ALU_WMASK: 31:31,
    }

    /// Word 4 of ALU/OUT: alpha op, destination, inputs A and B (§5).
    UsAluAlphaInst = "US_ALU_ALPHA_INST" at Location::SlotWord(4) => {
        /// Alpha opcode (§7.7).
        ALPHA_OP: 3:0,
        /// Alpha destination temporary.
        ALPHA_ADDRD: 10:4,
        /// Add aL to the alpha destination.
        ALPHA_ADDRD_REL: 11:11,
        /// Source select of alpha input A.
        ALPHA_SEL_A: 13:12,
        /// Swizzle of alpha input A.
        ALPHA_SWIZ_A: 16:14,
        /// Input modifier of alpha input A.
        ALPHA_MOD_A: 18:17,
        /// Source select of alpha input B.
        ALPHA_SEL_B: 20:19,
        /// Swizzle of alpha input B.
        ALPHA_SWIZ_B: 23:21,
        /// Input modifier of alpha input B.
        ALPHA_MOD_B: 25:24,
        /// Alpha output modifier.
        OMOD: 28:26,
        /// OUT: render target; ALU: predicate compare.
        TARGET: 30:29,
        /// Write alpha to the W output.
        W_OMASK: 31:31,
    }

    /// Word 5 of ALU/OUT: RGB op, RGB destination, inputs C (§6).
    UsAluRgbaInst = "US_ALU_RGBA_INST" at Location::SlotWord(5) => {
        /// RGB opcode (§7.6).
        RGB_OP: 3:0,
        /// RGB destination temporary.
        RGB_ADDRD: 10:4,
        /// Add aL to the RGB destination.
        RGB_ADDRD_REL: 11:11,
        /// Source select of RGB input C.
        RGB_SEL_C: 13:12,
        /// Swizzle of C.r.
        RED_SWIZ_C: 16:14,
        /// Swizzle of C.g.
        GREEN_SWIZ_C: 19:17,
        /// Swizzle of C.b.
        BLUE_SWIZ_C: 22:20,
        /// Input modifier of RGB input C.
        RGB_MOD_C: 24:23,
        /// Source select of alpha input C.
        ALPHA_SEL_C: 26:25,
        /// Swizzle of alpha input C.
        ALPHA_SWIZ_C: 29:27,
        /// Input modifier of alpha input C.
        ALPHA_MOD_C: 31:30,
    }

    /// Word 2 of FC (§8.1, CTM §3.5.3).
    UsFcInst = "US_FC_INST" at Location::SlotWord(2) => {
        /// Loop-stack op (JUMP, LOOP, ...).
        OP: 2:0,
        /// Else-swap before executing.
        B_ELSE: 4:4,
        /// Jump if any (not all) active pixel wants to.
        JUMP_ANY: 5:5,
        /// Address-stack op if the jump is taken.
        A_OP: 7:6,
        /// 2×2×2 jump truth table.
        JUMP_FUNC: 15:8,
        /// Branch-counter decrement amount.
        B_POP_CNT: 20:16,
        /// Branch-counter op if the jump is not taken.
        B_OP0: 25:24,
        /// Branch-counter op if the jump is taken.
        B_OP1: 27:26,
        /// Uncovered pixels do not take part in the decision.
        IGNORE_UNCOVERED: 28:28,
    }

    /// Word 3 of FC (§8.2).
    UsFcAddr = "US_FC_ADDR" at Location::SlotWord(3) => {
        /// Boolean constant feeding `JUMP_FUNC`.
        BOOL_ADDR: 4:0,
        /// Integer constant initialising LOOP/REP.
        INT_ADDR: 12:8,
        /// Jump target slot.
        JUMP_ADDR: 24:16,
        /// 1 = `JUMP_ADDR` is absolute (no `US_CODE_OFFSET`).
        JUMP_GLOBAL: 31:31,
    }

    /// Word 1 of TEX (§8.4, CTM §3.4).
    UsTexInst = "US_TEX_INST" at Location::SlotWord(1) => {
        /// Sampler / texture id.
        TEX_ID: 19:16,
        /// Texture opcode.
        INST: 24:22,
        /// Hold the texture semaphore until this lookup lands.
        TEX_SEM_ACQUIRE: 25:25,
        /// Do not fetch for uncovered pixels.
        IGNORE_UNCOVERED: 26:26,
        /// Coordinates are already in texels.
        UNSCALED: 27:27,
    }

    /// Word 2 of TEX (§8.5).
    UsTexAddr = "US_TEX_ADDR" at Location::SlotWord(2) => {
        /// Coordinate temporary.
        SRC_ADDR: 6:0,
        /// Add aL to `SRC_ADDR`.
        SRC_ADDR_REL: 7:7,
        /// Channel used as S.
        SRC_S_SWIZ: 9:8,
        /// Channel used as T.
        SRC_T_SWIZ: 11:10,
        /// Channel used as R.
        SRC_R_SWIZ: 13:12,
        /// Channel used as Q.
        SRC_Q_SWIZ: 15:14,
        /// Destination temporary.
        DST_ADDR: 22:16,
        /// Add aL to `DST_ADDR`.
        DST_ADDR_REL: 23:23,
        /// Returned channel written to dst.r.
        DST_R_SWIZ: 25:24,
        /// Returned channel written to dst.g.
        DST_G_SWIZ: 27:26,
        /// Returned channel written to dst.b.
        DST_B_SWIZ: 29:28,
        /// Returned channel written to dst.a.
        DST_A_SWIZ: 31:30,
    }

    /// Word 3 of TEX, used only by DXDY (§8.6). `DY_ADDR_REL` is bit 23 per
    /// the AMD table; Mesa's `1 << 17` is a header typo (§14 item 1).
    UsTexAddrDxdy = "US_TEX_ADDR_DXDY" at Location::SlotWord(3) => {
        /// Temporary holding d/dx.
        DX_ADDR: 6:0,
        /// Add aL to `DX_ADDR`.
        DX_ADDR_REL: 7:7,
        /// Channel of d/dx used for S.
        DX_S_SWIZ: 9:8,
        /// Channel of d/dx used for T.
        DX_T_SWIZ: 11:10,
        /// Channel of d/dx used for R.
        DX_R_SWIZ: 13:12,
        /// Channel of d/dx used for Q.
        DX_Q_SWIZ: 15:14,
        /// Temporary holding d/dy.
        DY_ADDR: 22:16,
        /// Add aL to `DY_ADDR`.
        DY_ADDR_REL: 23:23,
        /// Channel of d/dy used for S.
        DY_S_SWIZ: 25:24,
        /// Channel of d/dy used for T.
        DY_T_SWIZ: 27:26,
        /// Channel of d/dy used for R.
        DY_R_SWIZ: 29:28,
        /// Channel of d/dy used for Q.
        DY_Q_SWIZ: 31:30,
    }

    /// `US_CONFIG` (§10). Bit 0 is documented only by the CTM proginfo note
    /// ("output writes are uncached"); the manual wins (§14 item 3).
    UsConfig = "US_CONFIG" at Location::Mmio(0x4600) => {
        /// CTM: 1 = uncached (UMRT) output writes.
        UNCACHED_OUTPUT: 0:0,
        /// 1 = legacy 0·anything = 0 multiplier.
        ZERO_TIMES_ANYTHING_EQUALS_ZERO: 1:1,
    }

    /// `US_PIXSIZE` (§10).
    UsPixsize = "US_PIXSIZE" at Location::Mmio(0x4604) => {
        /// Largest temporary index used (CTM/Mesa reading, §14 item 8).
        PIX_SIZE: 6:0,
    }

    /// `US_FC_BOOL_CONST` (§10).
    UsFcBoolConst = "US_FC_BOOL_CONST" at Location::Mmio(0x4620) => {
        /// Boolean constants 0..31, bit N = boolean N.
        KBOOL: 31:0,
    }

    /// `US_FC_CTRL` (§10).
    UsFcCtrl = "US_FC_CTRL" at Location::Mmio(0x4624) => {
        /// No effect; written 0.
        TEST_EN: 30:30,
        /// 1 = full flow control.
        FULL_FC_EN: 31:31,
    }

    /// `US_CODE_ADDR` (§10).
    UsCodeAddr = "US_CODE_ADDR" at Location::Mmio(0x4630) => {
        /// First slot executed (relative to `US_CODE_OFFSET`).
        START_ADDR: 8:0,
        /// Last slot executed.
        END_ADDR: 24:16,
    }

    /// `US_CODE_RANGE` (§10).
    UsCodeRange = "US_CODE_RANGE" at Location::Mmio(0x4634) => {
        /// Absolute start of the code window.
        CODE_ADDR: 8:0,
        /// Window size − 1.
        CODE_SIZE: 24:16,
    }

    /// `US_CODE_OFFSET` (§10).
    UsCodeOffset = "US_CODE_OFFSET" at Location::Mmio(0x4638) => {
        /// Added to START/END and to relative jump targets.
        OFFSET_ADDR: 8:0,
    }

    /// `US_FC_INT_CONST_0..31` (§10, CTM §3.5.3 INT_ADDR).
    UsFcIntConst = "US_FC_INT_CONST" at Location::Mmio(0x4C00) => {
        /// Iteration count.
        KR: 7:0,
        /// Initial aL.
        KG: 15:8,
        /// aL increment, two's complement (§14 item 7).
        KB: 23:16,
    }

    /// `FG_DEPTH_SRC` (§10).
    FgDepthSrc = "FG_DEPTH_SRC" at Location::Mmio(0x4BD8) => {
        /// 1 = depth/W (CTM: the conditional value) comes from the shader.
        SHADER: 0:0,
    }
}

/// The instruction types of `US_CMN_INST.TYPE` as raw codes, for the tables below.
const TYPE_ALU: u32 = 0;
const TYPE_OUT: u32 = 1;
const TYPE_FC: u32 = 2;
const TYPE_TEX: u32 = 3;

/// `US_CMN_INST` fields effective for ALU and OUT instructions
/// (CTM guide §3.2 table). Everything else in word 0 must be zero.
const CMN_ALU_OUT: &[Field<UsCmnInst>] = &[
    UsCmnInst::TYPE,
    UsCmnInst::TEX_SEM_WAIT,
    UsCmnInst::RGB_PRED_SEL,
    UsCmnInst::RGB_PRED_INV,
    UsCmnInst::WRITE_INACTIVE,
    UsCmnInst::LAST,
    UsCmnInst::NOP,
    UsCmnInst::RGB_WMASK,
    UsCmnInst::ALPHA_WMASK,
    UsCmnInst::RGB_OMASK,
    UsCmnInst::ALPHA_OMASK,
    UsCmnInst::RGB_CLAMP,
    UsCmnInst::ALPHA_CLAMP,
    UsCmnInst::ALU_RESULT_SEL,
    UsCmnInst::ALPHA_PRED_INV,
    UsCmnInst::ALU_RESULT_OP,
    UsCmnInst::ALPHA_PRED_SEL,
];

/// `US_CMN_INST` fields effective for FC instructions (CTM guide §3.2 table).
const CMN_FC: &[Field<UsCmnInst>] = &[
    UsCmnInst::TYPE,
    UsCmnInst::TEX_SEM_WAIT,
    UsCmnInst::RGB_PRED_SEL,
    UsCmnInst::RGB_PRED_INV,
    UsCmnInst::ALU_WAIT,
];

/// `US_CMN_INST` fields effective for TEX instructions (CTM guide §3.2 table).
const CMN_TEX: &[Field<UsCmnInst>] = &[
    UsCmnInst::TYPE,
    UsCmnInst::TEX_SEM_WAIT,
    UsCmnInst::RGB_PRED_SEL,
    UsCmnInst::RGB_PRED_INV,
    UsCmnInst::ALPHA_PRED_SEL,
    UsCmnInst::ALPHA_PRED_INV,
    UsCmnInst::WRITE_INACTIVE,
    UsCmnInst::ALU_WAIT,
    UsCmnInst::RGB_WMASK,
    UsCmnInst::ALPHA_WMASK,
];

/// The `US_CMN_INST` fields an instruction of raw type `ty` (0..=3) uses.
pub fn cmn_fields_used(ty: u32) -> &'static [Field<UsCmnInst>] {
    match ty & 3 {
        TYPE_ALU | TYPE_OUT => CMN_ALU_OUT,
        TYPE_FC => CMN_FC,
        TYPE_TEX => CMN_TEX,
        _ => CMN_TEX, // unreachable: `ty & 3`
    }
}

const fn union_mask(fields: &[Field<UsCmnInst>]) -> u32 {
    Field::union_mask(fields)
}

/// Bits of `US_CMN_INST` that must be 0 for raw type `ty`.
pub fn cmn_zero_mask(ty: u32) -> u32 {
    const MASKS: [u32; 4] = [
        !union_mask(CMN_ALU_OUT),
        !union_mask(CMN_ALU_OUT),
        !union_mask(CMN_FC),
        !union_mask(CMN_TEX),
    ];
    MASKS[(ty & 3) as usize]
}

/// What occupies one word of a slot for a given instruction type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct WordUse {
    /// The register's manual name, or `None` if the word is unused (must be 0).
    pub register: Option<&'static str>,
    /// The register's fields (empty if unused).
    pub fields: &'static [FieldInfo],
    /// Bits that must be 0 (reserved bits, or the whole word if unused).
    pub zero_mask: u32,
}

const UNUSED: WordUse = WordUse {
    register: None,
    fields: &[],
    zero_mask: u32::MAX,
};

macro_rules! word_use {
    ($reg:ident) => {
        WordUse {
            register: Some($reg::NAME),
            fields: $reg::FIELDS,
            zero_mask: $reg::RESERVED_MASK,
        }
    };
}

const ALU_LAYOUT: [WordUse; 6] = [
    word_use!(UsCmnInst),
    word_use!(UsAluRgbAddr),
    word_use!(UsAluAlphaAddr),
    word_use!(UsAluRgbInst),
    word_use!(UsAluAlphaInst),
    word_use!(UsAluRgbaInst),
];
/// FC uses words 0, 2, 3 (not 0, 1, 2): `x1k-encoding.md` §1.2.
const FC_LAYOUT: [WordUse; 6] = [
    word_use!(UsCmnInst),
    UNUSED,
    word_use!(UsFcInst),
    word_use!(UsFcAddr),
    UNUSED,
    UNUSED,
];
/// TEX uses words 0..3; word 3 only for DXDY (checked by the decoder).
const TEX_LAYOUT: [WordUse; 6] = [
    word_use!(UsCmnInst),
    word_use!(UsTexInst),
    word_use!(UsTexAddr),
    word_use!(UsTexAddrDxdy),
    UNUSED,
    UNUSED,
];

/// The register in each of the six words for raw type `ty` (0..=3), with
/// the bits that must be zero (`x1k-encoding.md` §1.2, CTM guide §3.2).
pub fn slot_layout(ty: u32) -> &'static [WordUse; 6] {
    match ty & 3 {
        TYPE_ALU | TYPE_OUT => &ALU_LAYOUT,
        TYPE_FC => &FC_LAYOUT,
        _ => &TEX_LAYOUT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_disjoint_and_ordered(fields: &[FieldInfo]) {
        let mut seen = 0u32;
        for f in fields {
            assert_eq!(seen & f.mask(), 0, "{f} overlaps another field");
            seen |= f.mask();
        }
    }

    #[test]
    fn fields_do_not_overlap() {
        for fields in [
            UsCmnInst::FIELDS,
            UsAluRgbAddr::FIELDS,
            UsAluAlphaAddr::FIELDS,
            UsAluRgbInst::FIELDS,
            UsAluAlphaInst::FIELDS,
            UsAluRgbaInst::FIELDS,
            UsFcInst::FIELDS,
            UsFcAddr::FIELDS,
            UsTexInst::FIELDS,
            UsTexAddr::FIELDS,
            UsTexAddrDxdy::FIELDS,
            UsConfig::FIELDS,
            UsCodeAddr::FIELDS,
            UsFcIntConst::FIELDS,
        ] {
            check_disjoint_and_ordered(fields);
        }
    }

    #[test]
    fn reserved_masks_match_fact_sheet() {
        // ALU words are fully used (§3–§6).
        assert_eq!(UsCmnInst::RESERVED_MASK, 0);
        assert_eq!(UsAluRgbAddr::RESERVED_MASK, 0);
        assert_eq!(UsAluRgbInst::RESERVED_MASK, 0);
        assert_eq!(UsAluAlphaInst::RESERVED_MASK, 0);
        assert_eq!(UsAluRgbaInst::RESERVED_MASK, 0);
        // §8.1: bit 3, bits 23:21, bits 31:29 unused.
        assert_eq!(UsFcInst::RESERVED_MASK, 0xE0E0_0008);
        // §8.2: bits 7:5, 15:13, 30:25.
        assert_eq!(UsFcAddr::RESERVED_MASK, 0x7E00_E0E0);
        // §8.4: bits 15:0, 21:20, 31:28.
        assert_eq!(UsTexInst::RESERVED_MASK, 0xF030_FFFF);
        assert_eq!(UsTexAddr::RESERVED_MASK, 0);
        assert_eq!(UsTexAddrDxdy::RESERVED_MASK, 0);
    }

    #[test]
    fn cmn_masks_follow_ctm_table() {
        // STAT_WE is never used; FC does not use the write/alpha fields.
        assert_eq!(
            cmn_zero_mask(TYPE_ALU) & UsCmnInst::STAT_WE.mask(),
            UsCmnInst::STAT_WE.mask()
        );
        assert_eq!(
            cmn_zero_mask(TYPE_ALU) & !UsCmnInst::STAT_WE.mask(),
            UsCmnInst::ALU_WAIT.mask()
        );
        assert_ne!(cmn_zero_mask(TYPE_FC) & UsCmnInst::RGB_WMASK.mask(), 0);
        assert_eq!(cmn_zero_mask(TYPE_TEX) & UsCmnInst::RGB_WMASK.mask(), 0);
        assert_ne!(cmn_zero_mask(TYPE_TEX) & UsCmnInst::NOP.mask(), 0);
    }

    #[test]
    fn set_and_get() {
        let w = UsCmnInst::default()
            .with(UsCmnInst::TYPE, 3)
            .with(UsCmnInst::RGB_WMASK, 7);
        assert_eq!(w.0, 0x3803);
        assert_eq!(w.get(UsCmnInst::RGB_WMASK), 7);
        assert_eq!(UsTexAddrDxdy::DY_ADDR_REL.info().lo, 23);
    }
}
