//! The one definition of every bit field of the R700 microcode words.
//!
//! Each microcode dword is one row of the `words!` table below (`ctm_isa_kit`,
//! shared with the X1K): its manual
//! name, which dword of its instruction it is, and its fields as
//! `NAME: hi:lo`. From that table the macro generates, per dword,
//!
//! * a newtype over `u32` ([`CfWord1`], [`AluWord0`], ...) whose fields are
//!   typed constants (`CfWord1::CF_INST` is a `Field<CfWord1>`, so it cannot
//!   be applied to a TEX word by mistake), with `get`/`set`/`with`;
//! * `FIELDS`, the list the raw disassembler walks;
//! * `USED_MASK`, the bits the row's fields cover.
//!
//! Words whose high and low parts are defined separately by the manual are
//! split the same way here, so that no field is defined twice:
//! `CF_ALLOC_EXPORT_WORD1` holds bits `[31:17]` and `_BUF`/`_SWIZ` the low bits;
//! `ALU_WORD1` holds the bits `[31:18]` shared by `_OP2` and `_OP3`
//! ("Bits `[31:18]` of this format are identical", manual L7955); `VTX_WORD1`
//! holds bits `[31:9]` shared by `_GPR` and `_SEM`. [`reserved_mask`] combines
//! them: every bit no field covers must be zero.
//!
//! Bit positions: `r700-digest.md` §2 and the manual's chapter 10
//! (`seeds/r700-isa.txt` L7586-8900); where the two differ the manual wins
//! and `docs/isa-r700.md` §7 records it. Names follow the manual, so `grep`
//! leads from the manual here.

pub use ctm_isa_kit::reserved_mask;

/// Which dword of its instruction a word is (0, 1 or 2).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Dword(pub u8);

impl ctm_isa_kit::FieldLocation for Dword {
    fn word_index(&self) -> Option<u8> {
        Some(self.0)
    }
}

/// A bit field with its word erased (`register` is the word's manual name,
/// `location` which dword it is): what errors and the field walk use.
pub type FieldInfo = ctm_isa_kit::FieldInfo<Dword>;

/// A bit field of word `W`: a [`FieldInfo`] that only `W`'s accessors take.
pub type Field<W> = ctm_isa_kit::Field<W>;

/// The trait every generated word implements (bound generic code over
/// [`Field<W>`] with `W: Word`).
pub use ctm_isa_kit::Word;

ctm_isa_kit::words! {
    location Dword;

    /// `CF_WORD0` (digest §2.1, manual L7624-7633).
    CfWord0 = "CF_WORD0" at Dword(0) => {
        /// Clause start, jump target (qwords from `PGM_START_*`) or WAIT_ACK threshold.
        ADDR: 31:0,
    }

    /// `CF_WORD1` (digest §2.1, manual L7635-7713). Bit 20 is reserved.
    CfWord1 = "CF_WORD1" at Dword(1) => {
        /// Stack entries to pop, 0..7.
        POP_COUNT: 2:0,
        /// Loop integer constant or boolean constant index.
        CF_CONST: 7:3,
        /// Condition test (`CfCond`).
        COND: 9:8,
        /// Low three bits of (clause size − 1).
        COUNT: 12:10,
        /// Call-nesting increment of CALL.
        CALL_COUNT: 18:13,
        /// Most significant bit of (clause size − 1).
        COUNT_3: 19:19,
        /// Last CF instruction of the program.
        END_OF_PROGRAM: 21:21,
        /// Treat invalid pixels as inactive.
        VALID_PIXEL_MODE: 22:22,
        /// Opcode (`CfOp`).
        CF_INST: 29:23,
        /// Treat all pixels of a quad as active.
        WHOLE_QUAD_MODE: 30:30,
        /// Wait for all earlier CF instructions.
        BARRIER: 31:31,
    }

    /// `CF_ALU_WORD0` (digest §2.2, manual L7715-7733).
    CfAluWord0 = "CF_ALU_WORD0" at Dword(0) => {
        /// Clause start in qwords.
        ADDR: 21:0,
        /// Constant buffer of kcache set 0.
        KCACHE_BANK0: 25:22,
        /// Constant buffer of kcache set 1.
        KCACHE_BANK1: 29:26,
        /// Lock mode of set 0 (`KcacheMode`).
        KCACHE_MODE0: 31:30,
    }

    /// `CF_ALU_WORD1` (digest §2.2, manual L7735-7774).
    CfAluWord1 = "CF_ALU_WORD1" at Dword(1) => {
        /// Lock mode of set 1 (`KcacheMode`).
        KCACHE_MODE1: 1:0,
        /// First locked line of set 0 (16 constants per line).
        KCACHE_ADDR0: 9:2,
        /// First locked line of set 1.
        KCACHE_ADDR1: 17:10,
        /// Clause size in 64-bit slots, minus one (literal slots included).
        COUNT: 24:18,
        /// Use the other shader stage's constants.
        ALT_CONST: 25:25,
        /// Opcode (`CfAluOp`, 8..15).
        CF_INST: 29:26,
        /// Treat all pixels of a quad as active.
        WHOLE_QUAD_MODE: 30:30,
        /// Wait for all earlier CF instructions.
        BARRIER: 31:31,
    }

    /// `CF_ALLOC_EXPORT_WORD0` (digest §2.3, manual L7776-7813).
    CfAllocExportWord0 = "CF_ALLOC_EXPORT_WORD0" at Dword(0) => {
        /// First export target or array base.
        ARRAY_BASE: 12:0,
        /// Export type (`ExportType`) or memory access type (`MemAccess`).
        TYPE: 14:13,
        /// First GPR read (or written).
        RW_GPR: 21:15,
        /// Add aL to `RW_GPR`.
        RW_REL: 22:22,
        /// GPR whose X holds the index of indexed types.
        INDEX_GPR: 29:23,
        /// Dwords per element, minus one.
        ELEM_SIZE: 31:30,
    }

    /// The common part, bits `[31:17]`, of `CF_ALLOC_EXPORT_WORD1_{BUF,SWIZ}`
    /// (digest §2.3, manual L7817-7857).
    CfAllocExportWord1 = "CF_ALLOC_EXPORT_WORD1" at Dword(1) => {
        /// Number of exports or elements, minus one.
        BURST_COUNT: 20:17,
        /// Last CF instruction of the program.
        END_OF_PROGRAM: 21:21,
        /// Treat invalid pixels as inactive.
        VALID_PIXEL_MODE: 22:22,
        /// Opcode (`CfExportOp` or `CfMemOp`).
        CF_INST: 29:23,
        /// Treat all pixels of a quad as active.
        WHOLE_QUAD_MODE: 30:30,
        /// Wait for all earlier CF instructions.
        BARRIER: 31:31,
    }

    /// The low part of `CF_ALLOC_EXPORT_WORD1_BUF`, used by `MEM_*`
    /// (manual L7863-7877). Bit 16 is unused and must be 0.
    CfAllocExportWord1Buf = "CF_ALLOC_EXPORT_WORD1_BUF" at Dword(1) => {
        /// Array size in `ELEM_SIZE` units, for the write clamp (digest §2.3).
        ARRAY_SIZE: 11:0,
        /// Component write enables, X = bit 12.
        COMP_MASK: 15:12,
    }

    /// The low part of `CF_ALLOC_EXPORT_WORD1_SWIZ`, used by `EXPORT*`
    /// (manual L7879-7900). Bits `[16:12]` are unused and must be 0.
    CfAllocExportWord1Swiz = "CF_ALLOC_EXPORT_WORD1_SWIZ" at Dword(1) => {
        /// Source of exported X (`Sel`).
        SEL_X: 2:0,
        /// Source of exported Y.
        SEL_Y: 5:3,
        /// Source of exported Z.
        SEL_Z: 8:6,
        /// Source of exported W.
        SEL_W: 11:9,
    }

    /// `ALU_WORD0`, shared by OP2 and OP3 (digest §2.4, manual L7911-7947;
    /// `SRC1_SEL` `[21:13]` from the gap, confirmed by LLVM's bytes).
    AluWord0 = "ALU_WORD0" at Dword(0) => {
        /// Source 0 select (`AluSrcSel`).
        SRC0_SEL: 8:0,
        /// Add the INDEX_MODE index to source 0.
        SRC0_REL: 9:9,
        /// Source 0 element.
        SRC0_CHAN: 11:10,
        /// Negate source 0.
        SRC0_NEG: 12:12,
        /// Source 1 select.
        SRC1_SEL: 21:13,
        /// Add the INDEX_MODE index to source 1.
        SRC1_REL: 22:22,
        /// Source 1 element.
        SRC1_CHAN: 24:23,
        /// Negate source 1.
        SRC1_NEG: 25:25,
        /// Relative-addressing index (`IndexMode`).
        INDEX_MODE: 28:26,
        /// Predication (`PredSel`).
        PRED_SEL: 30:29,
        /// Last instruction of the group.
        LAST: 31:31,
    }

    /// The common part, bits `[31:18]`, of `ALU_WORD1_OP2` and `ALU_WORD1_OP3`
    /// (manual L7955, L8113-8143, L8213-8243).
    AluWord1 = "ALU_WORD1" at Dword(1) => {
        /// Operand read cycles (`BankSwizzle`).
        BANK_SWIZZLE: 20:18,
        /// Destination GPR.
        DST_GPR: 27:21,
        /// Add the INDEX_MODE index to the destination.
        DST_REL: 28:28,
        /// Destination element.
        DST_ELEM: 30:29,
        /// Clamp the result to [0, 1].
        CLAMP: 31:31,
    }

    /// The low part, bits `[17:0]`, of `ALU_WORD1_OP2` ("_V2", manual
    /// L7951-8112). `ALU_INST` is `[17:7]` (the stale "`[17:8]`" headers at L8040,
    /// L8091 are wrong; LLVM's bytes agree with `[17:7]`).
    AluWord1Op2 = "ALU_WORD1_OP2" at Dword(1) => {
        /// Absolute value of source 0.
        SRC0_ABS: 0:0,
        /// Absolute value of source 1.
        SRC1_ABS: 1:1,
        /// Send the predicate to the active mask.
        UPDATE_EXECUTE_MASK: 2:2,
        /// Write the ALU predicate.
        UPDATE_PRED: 3:3,
        /// Write the result to the GPR.
        WRITE_MASK: 4:4,
        /// Output modifier (`Omod`).
        OMOD: 6:5,
        /// Opcode (`Op2`); bits `[17:15]` are zero for every OP2 opcode.
        ALU_INST: 17:7,
    }

    /// The low part, bits `[17:0]`, of `ALU_WORD1_OP3` (manual L8146-8212).
    AluWord1Op3 = "ALU_WORD1_OP3" at Dword(1) => {
        /// Source 2 select (`AluSrcSel`).
        SRC2_SEL: 8:0,
        /// Add the INDEX_MODE index to source 2.
        SRC2_REL: 9:9,
        /// Source 2 element.
        SRC2_CHAN: 11:10,
        /// Negate source 2.
        SRC2_NEG: 12:12,
        /// Opcode (`Op3`); never below 8, so bits `[17:15]` are not all zero.
        ALU_INST: 17:13,
    }

    /// `VTX_WORD0` (digest §2.5, manual L8251-8289).
    VtxWord0 = "VTX_WORD0" at Dword(0) => {
        /// Opcode: 0 FETCH, 1 SEMANTIC, 2 MEM (`MEM_RD_WORD0`).
        VTX_INST: 4:0,
        /// Index offset to apply (`FetchType`).
        FETCH_TYPE: 6:5,
        /// Fetch for every pixel of the quad.
        FETCH_WHOLE_QUAD: 7:7,
        /// Vertex-fetch constant (buffer).
        BUFFER_ID: 15:8,
        /// GPR holding the index.
        SRC_GPR: 22:16,
        /// Add aL to `SRC_GPR`.
        SRC_REL: 23:23,
        /// Element of `SRC_GPR` holding the index.
        SRC_SEL_X: 25:24,
        /// Mega-fetch size in bytes, minus one (see `docs/isa-r700.md` §6).
        MEGA_FETCH_COUNT: 31:26,
    }

    /// The common part, bits `[31:9]`, of `VTX_WORD1_{GPR,SEM}`
    /// (manual L8291-8469). Bit 8 is reserved.
    VtxWord1 = "VTX_WORD1" at Dword(1) => {
        /// Source of destination X (`Sel`).
        DST_SEL_X: 11:9,
        /// Source of destination Y.
        DST_SEL_Y: 14:12,
        /// Source of destination Z.
        DST_SEL_Z: 17:15,
        /// Source of destination W.
        DST_SEL_W: 20:18,
        /// Take the format fields from the fetch constant.
        USE_CONST_FIELDS: 21:21,
        /// Data format (`DataFormat`).
        DATA_FORMAT: 27:22,
        /// Number format (`NumFormat`).
        NUM_FORMAT_ALL: 29:28,
        /// Signedness (`FormatComp`).
        FORMAT_COMP_ALL: 30:30,
        /// Signed-fraction mapping (`SrfMode`).
        SRF_MODE_ALL: 31:31,
    }

    /// The low part of `VTX_WORD1_GPR`, used by FETCH (manual L8414-8432).
    VtxWord1Gpr = "VTX_WORD1_GPR" at Dword(1) => {
        /// Destination GPR.
        DST_GPR: 6:0,
        /// Add aL to `DST_GPR`.
        DST_REL: 7:7,
    }

    /// The low part of `VTX_WORD1_SEM`, used by SEMANTIC (manual L8463-8468).
    VtxWord1Sem = "VTX_WORD1_SEM" at Dword(1) => {
        /// Semantic-table index of the destination GPR.
        SEMANTIC_ID: 7:0,
    }

    /// `VTX_WORD2` (digest §2.5, manual L8473-8498). Bits `[31:21]` are reserved.
    VtxWord2 = "VTX_WORD2" at Dword(2) => {
        /// Byte offset to start reading at.
        OFFSET: 15:0,
        /// Endian swap (`EndianSwap`).
        ENDIAN_SWAP: 17:16,
        /// Force stride 0 for absolute constant-buffer fetches.
        CONST_BUF_NO_STRIDE: 18:18,
        /// Mega-fetch (1) or mini-fetch (0).
        MEGA_FETCH: 19:19,
        /// Use the other shader stage's constants.
        ALT_CONST: 20:20,
    }

    /// `TEX_WORD0` (digest §2.6, manual L8506-8570). Bit 6 and bits `[31:25]`
    /// are reserved; `ALT_CONST` is bit 24 (the table's "reserved `[31:24]`"
    /// overlaps it, docs §7).
    TexWord0 = "TEX_WORD0" at Dword(0) => {
        /// Opcode (`TexOp`).
        TEX_INST: 4:0,
        /// Black texture / white border to get the border fraction.
        BC_FRAC_MODE: 5:5,
        /// Fetch for every pixel of the quad.
        FETCH_WHOLE_QUAD: 7:7,
        /// Resource (surface) to read.
        RESOURCE_ID: 15:8,
        /// GPR holding the coordinates.
        SRC_GPR: 22:16,
        /// Add aL to `SRC_GPR`.
        SRC_REL: 23:23,
        /// Use the other shader stage's constants.
        ALT_CONST: 24:24,
    }

    /// `TEX_WORD1` (digest §2.6, manual L8572-8595). Bit 8 is reserved.
    TexWord1 = "TEX_WORD1" at Dword(1) => {
        /// Destination GPR.
        DST_GPR: 6:0,
        /// Add aL to `DST_GPR`.
        DST_REL: 7:7,
        /// Source of destination X (`Sel`).
        DST_SEL_X: 11:9,
        /// Source of destination Y.
        DST_SEL_Y: 14:12,
        /// Source of destination Z.
        DST_SEL_Z: 17:15,
        /// Source of destination W.
        DST_SEL_W: 20:18,
        /// LOD bias, two's-complement S3.4.
        LOD_BIAS: 27:21,
        /// X coordinate normalized (1) or not (0).
        COORD_TYPE_X: 28:28,
        /// Y coordinate normalized.
        COORD_TYPE_Y: 29:29,
        /// Z coordinate normalized.
        COORD_TYPE_Z: 30:30,
        /// W coordinate normalized.
        COORD_TYPE_W: 31:31,
    }

    /// `TEX_WORD2` (digest §2.6, manual L8597-8622).
    TexWord2 = "TEX_WORD2" at Dword(2) => {
        /// Texel offset X, 5-bit two's complement.
        OFFSET_X: 4:0,
        /// Texel offset Y.
        OFFSET_Y: 9:5,
        /// Texel offset Z.
        OFFSET_Z: 14:10,
        /// Sampler state to use.
        SAMPLER_ID: 19:15,
        /// Coordinate X source (`TexSrcSel`).
        SRC_SEL_X: 22:20,
        /// Coordinate Y source.
        SRC_SEL_Y: 25:23,
        /// Coordinate Z source.
        SRC_SEL_Z: 28:26,
        /// Coordinate W source.
        SRC_SEL_W: 31:29,
    }

    /// `MEM_RD_WORD0` (digest §2.7, manual L8632-8681). Bit 15 and bits
    /// `[31:30]` are reserved; `MEM_REQ_SIZE` must be 0 on R700.
    MemRdWord0 = "MEM_RD_WORD0" at Dword(0) => {
        /// Must be 2 (MEM).
        VTX_INST: 4:0,
        /// Dwords per element, minus one.
        ELEM_SIZE: 6:5,
        /// Fetch for every pixel of the quad.
        FETCH_WHOLE_QUAD: 7:7,
        /// Sub-opcode (`MemRdOp`).
        MEM_OP: 10:8,
        /// Bypass the cache.
        UNCACHED: 11:11,
        /// Add `SRC_GPR` to the address.
        INDEXED: 12:12,
        /// Must be 0 on R700.
        MEM_REQ_SIZE: 14:13,
        /// GPR holding the index.
        SRC_GPR: 22:16,
        /// Add aL to `SRC_GPR`.
        SRC_REL: 23:23,
        /// Element of `SRC_GPR` holding the index.
        SRC_SEL_X: 25:24,
        /// Number of reads, minus one.
        BURST_CNT: 29:26,
    }

    /// `MEM_RD_WORD1` (digest §2.7, manual L8685-8728). Bits 8 and 21 are reserved.
    MemRdWord1 = "MEM_RD_WORD1" at Dword(1) => {
        /// Destination GPR.
        DST_GPR: 6:0,
        /// Add aL to `DST_GPR`.
        DST_REL: 7:7,
        /// Source of destination X (`Sel`).
        DST_SEL_X: 11:9,
        /// Source of destination Y.
        DST_SEL_Y: 14:12,
        /// Source of destination Z.
        DST_SEL_Z: 17:15,
        /// Source of destination W.
        DST_SEL_W: 20:18,
        /// Data format (`DataFormat`).
        DATA_FORMAT: 27:22,
        /// Number format (`NumFormat`).
        NUM_FORMAT_ALL: 29:28,
        /// Signedness (`FormatComp`).
        FORMAT_COMP_ALL: 30:30,
        /// Signed-fraction mapping (`SrfMode`).
        SRF_MODE_ALL: 31:31,
    }

    /// `MEM_RD_WORD2` (digest §2.7, manual L8733-8752). Bits `[15:13]` and 18
    /// are reserved.
    MemRdWord2 = "MEM_RD_WORD2" at Dword(2) => {
        /// Array base (units depend on the buffer).
        ARRAY_BASE: 12:0,
        /// Endian swap (`EndianSwap`).
        ENDIAN_SWAP: 17:16,
        /// Must be 1 for memory reads (kept as read, checked by the validator).
        MEGA_FETCH: 19:19,
        /// Array size (clamp).
        ARRAY_SIZE: 31:20,
    }
}

/// Reserved bits of each dword layout, for the decoder and the tests.
pub mod reserved {
    use super::*;

    /// `CF_WORD1`: bit 20.
    pub const CF_WORD1: u32 = reserved_mask(&[CfWord1::USED_MASK]);
    /// `CF_ALLOC_EXPORT_WORD1_BUF`: bit 16.
    pub const CF_ALLOC_EXPORT_WORD1_BUF: u32 = reserved_mask(&[
        CfAllocExportWord1::USED_MASK,
        CfAllocExportWord1Buf::USED_MASK,
    ]);
    /// `CF_ALLOC_EXPORT_WORD1_SWIZ`: bits `[16:12]`.
    pub const CF_ALLOC_EXPORT_WORD1_SWIZ: u32 = reserved_mask(&[
        CfAllocExportWord1::USED_MASK,
        CfAllocExportWord1Swiz::USED_MASK,
    ]);
    /// `ALU_WORD1_OP2`: none.
    pub const ALU_WORD1_OP2: u32 = reserved_mask(&[AluWord1::USED_MASK, AluWord1Op2::USED_MASK]);
    /// `ALU_WORD1_OP3`: none.
    pub const ALU_WORD1_OP3: u32 = reserved_mask(&[AluWord1::USED_MASK, AluWord1Op3::USED_MASK]);
    /// `VTX_WORD1_GPR`: bit 8.
    pub const VTX_WORD1_GPR: u32 = reserved_mask(&[VtxWord1::USED_MASK, VtxWord1Gpr::USED_MASK]);
    /// `VTX_WORD1_SEM`: bit 8.
    pub const VTX_WORD1_SEM: u32 = reserved_mask(&[VtxWord1::USED_MASK, VtxWord1Sem::USED_MASK]);
    /// `VTX_WORD2`: bits `[31:21]`.
    pub const VTX_WORD2: u32 = reserved_mask(&[VtxWord2::USED_MASK]);
    /// `TEX_WORD0`: bit 6, bits `[31:25]`.
    pub const TEX_WORD0: u32 = reserved_mask(&[TexWord0::USED_MASK]);
    /// `TEX_WORD1`: bit 8.
    pub const TEX_WORD1: u32 = reserved_mask(&[TexWord1::USED_MASK]);
    /// `MEM_RD_WORD0`: bit 15, bits `[31:30]`.
    pub const MEM_RD_WORD0: u32 = reserved_mask(&[MemRdWord0::USED_MASK]);
    /// `MEM_RD_WORD1`: bits 8 and 21.
    pub const MEM_RD_WORD1: u32 = reserved_mask(&[MemRdWord1::USED_MASK]);
    /// `MEM_RD_WORD2`: bits `[15:13]` and 18.
    pub const MEM_RD_WORD2: u32 = reserved_mask(&[MemRdWord2::USED_MASK]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_disjoint(rows: &[&[FieldInfo]]) {
        let mut seen = 0u32;
        for fields in rows {
            for f in *fields {
                assert_eq!(seen & f.mask(), 0, "{f} overlaps another field");
                seen |= f.mask();
            }
        }
    }

    #[test]
    fn fields_do_not_overlap() {
        for rows in [
            &[CfWord0::FIELDS][..],
            &[CfWord1::FIELDS],
            &[CfAluWord0::FIELDS],
            &[CfAluWord1::FIELDS],
            &[CfAllocExportWord0::FIELDS],
            &[CfAllocExportWord1::FIELDS, CfAllocExportWord1Buf::FIELDS],
            &[CfAllocExportWord1::FIELDS, CfAllocExportWord1Swiz::FIELDS],
            &[AluWord0::FIELDS],
            &[AluWord1::FIELDS, AluWord1Op2::FIELDS],
            &[AluWord1::FIELDS, AluWord1Op3::FIELDS],
            &[VtxWord0::FIELDS],
            &[VtxWord1::FIELDS, VtxWord1Gpr::FIELDS],
            &[VtxWord1::FIELDS, VtxWord1Sem::FIELDS],
            &[VtxWord2::FIELDS],
            &[TexWord0::FIELDS],
            &[TexWord1::FIELDS],
            &[TexWord2::FIELDS],
            &[MemRdWord0::FIELDS],
            &[MemRdWord1::FIELDS],
            &[MemRdWord2::FIELDS],
        ] {
            check_disjoint(rows);
        }
    }

    #[test]
    fn reserved_bits_match_the_manual() {
        use reserved::*;
        assert_eq!(CF_WORD1, 1 << 20);
        assert_eq!(reserved_mask(&[CfWord0::USED_MASK]), 0);
        assert_eq!(reserved_mask(&[CfAluWord0::USED_MASK]), 0);
        assert_eq!(reserved_mask(&[CfAluWord1::USED_MASK]), 0);
        assert_eq!(reserved_mask(&[CfAllocExportWord0::USED_MASK]), 0);
        assert_eq!(CF_ALLOC_EXPORT_WORD1_BUF, 1 << 16);
        assert_eq!(CF_ALLOC_EXPORT_WORD1_SWIZ, 0x1f << 12);
        assert_eq!(reserved_mask(&[AluWord0::USED_MASK]), 0);
        assert_eq!(ALU_WORD1_OP2, 0);
        assert_eq!(ALU_WORD1_OP3, 0);
        assert_eq!(reserved_mask(&[VtxWord0::USED_MASK]), 0);
        assert_eq!(VTX_WORD1_GPR, 1 << 8);
        assert_eq!(VTX_WORD1_SEM, 1 << 8);
        assert_eq!(VTX_WORD2, 0xffe0_0000);
        assert_eq!(TEX_WORD0, 0xfe00_0040);
        assert_eq!(TEX_WORD1, 1 << 8);
        assert_eq!(reserved_mask(&[TexWord2::USED_MASK]), 0);
        assert_eq!(MEM_RD_WORD0, 0xc000_8000);
        assert_eq!(MEM_RD_WORD1, (1 << 8) | (1 << 21));
        assert_eq!(MEM_RD_WORD2, (7 << 13) | (1 << 18));
    }

    #[test]
    fn set_and_get() {
        let w = CfWord1::default()
            .with(CfWord1::CF_INST, 40)
            .with(CfWord1::BARRIER, 1);
        assert_eq!(w.0, (40 << 23) | (1 << 31));
        assert_eq!(w.get(CfWord1::CF_INST), 40);
        assert_eq!(AluWord1Op2::ALU_INST.info().lo, 7);
        assert_eq!(AluWord0::SRC1_SEL.info().hi(), 21);
    }
}
