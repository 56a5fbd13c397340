//! Every enumerated field value of the R700 microcode words other than the
//! opcodes ([`super::opcodes`]), each defined once with its code and its
//! assembly spelling.
//!
//! The `isa_enum!` table (`ctm_isa_kit`, shared with the X1K) generates, per enumeration, `TryFrom<u32>` (an
//! undefined code is an [`UnknownCode`] error, never a default), `code()`,
//! `ALL` (every defined value in code order, used by the proptest strategies
//! and golden tests), `mnemonic()`, `from_mnemonic()` and `Display`.
//!
//! Codes: `r700-digest.md` §2-§3 and the manual's chapter 10; the manual
//! wins where they differ (`docs/isa-r700.md` §7).

pub use ctm_isa_kit::UnknownCode;
pub(crate) use ctm_isa_kit::isa_enum;

isa_enum! {
    /// `CF_WORD1.COND` (digest §2.1, manual L7647-7652).
    pub enum CfCond {
        /// Passes for active pixels.
        Active = 0 => "ACTIVE",
        /// Fails for all pixels.
        False = 1 => "FALSE",
        /// Passes for active pixels if boolean `CF_CONST` is true.
        Bool = 2 => "BOOL",
        /// Passes for active pixels if boolean `CF_CONST` is false.
        NotBool = 3 => "NOT_BOOL",
    }

    /// `KCACHE_MODE0/1` (digest §2.2, manual L7727-7731).
    pub enum KcacheMode {
        /// No lines locked.
        Nop = 0 => "NOP",
        /// Line ADDR locked (constants 0-15).
        Lock1 = 1 => "LOCK_1",
        /// Lines ADDR and ADDR+1 locked (constants 0-31).
        Lock2 = 2 => "LOCK_2",
        /// Lines aL/16+ADDR and aL/16+ADDR+1 locked.
        LockLoopIndex = 3 => "LOCK_LOOP_INDEX",
    }

    /// `CF_ALLOC_EXPORT_WORD0.TYPE` for EXPORT and EXPORT_DONE (manual
    /// L7793-7798; value 3 is unused).
    pub enum ExportType {
        /// Pixel (MRT) or computed-Z export (PS).
        Pixel = 0 => "PIXEL",
        /// Position export (VS).
        Pos = 1 => "POS",
        /// Parameter export (VS).
        Param = 2 => "PARAM",
    }

    /// `CF_ALLOC_EXPORT_WORD0.TYPE` for `MEM_*` (manual L7795-7798; L7794's
    /// WRITE_ACK names are not in the value list, docs §7).
    pub enum MemAccess {
        /// Write to the buffer.
        Write = 0 => "WRITE",
        /// Write at `INDEX_GPR.x`.
        WriteInd = 1 => "WRITE_IND",
        /// Read from the buffer (scratch and reduction only).
        ImportRead = 2 => "IMPORT_READ",
        /// Read at `INDEX_GPR.x` (scratch and reduction only).
        ImportReadInd = 3 => "IMPORT_READ_IND",
    }

    /// The element selects `SEL_X/Y/Z/W` of exports and `DST_SEL_*` of
    /// fetches (manual L7889-7897, L8306-8313; 6 is reserved).
    pub enum Sel {
        /// Element X.
        X = 0 => "x",
        /// Element Y.
        Y = 1 => "y",
        /// Element Z.
        Z = 2 => "z",
        /// Element W.
        W = 3 => "w",
        /// The constant 0.0.
        Zero = 4 => "0",
        /// The constant 1.0.
        One = 5 => "1",
        /// Do not write (mask).
        Mask = 7 => "_",
    }

    /// `TEX_WORD2.SRC_SEL_*` (manual L8603-8619: 0-5 listed, 6 and 7 not).
    pub enum TexSrcSel {
        /// Element X.
        X = 0 => "x",
        /// Element Y.
        Y = 1 => "y",
        /// Element Z.
        Z = 2 => "z",
        /// Element W.
        W = 3 => "w",
        /// The constant 0.0.
        Zero = 4 => "0",
        /// The constant 1.0.
        One = 5 => "1",
    }

    /// A vector element: `SRC*_CHAN`, `DST_ELEM`, `SRC_SEL_X` (manual L7920).
    pub enum Chan {
        /// X.
        X = 0 => "x",
        /// Y.
        Y = 1 => "y",
        /// Z.
        Z = 2 => "z",
        /// W.
        W = 3 => "w",
    }

    /// `ALU_WORD0.INDEX_MODE` (manual L7927-7935; 7 is not listed).
    pub enum IndexMode {
        /// GPR: AR.X; constants: AR.X.
        ArX = 0 => "AR_X",
        /// GPR: AR.X; constants: AR.Y.
        ArY = 1 => "AR_Y",
        /// GPR: AR.X; constants: AR.Z.
        ArZ = 2 => "AR_Z",
        /// GPR: AR.X; constants: AR.W.
        ArW = 3 => "AR_W",
        /// The loop index aL.
        Loop = 4 => "LOOP",
        /// Absolute (SIMD-global) GPR address.
        Global = 5 => "GLOBAL",
        /// Absolute GPR address plus AR.X.
        GlobalArX = 6 => "GLOBAL_AR_X",
    }

    /// `ALU_WORD0.PRED_SEL` (manual L7936-7941; 1 is reserved).
    pub enum PredSel {
        /// Execute for all pixels.
        Off = 0 => "OFF",
        /// Execute where the predicate is 0.
        Zero = 2 => "ZERO",
        /// Execute where the predicate is 1.
        One = 3 => "ONE",
    }

    /// `ALU_WORD1_OP2.OMOD` (manual L7973-7978).
    pub enum Omod {
        /// Identity.
        Off = 0 => "OFF",
        /// Multiply by 2.
        M2 = 1 => "M2",
        /// Multiply by 4.
        M4 = 2 => "M4",
        /// Divide by 2.
        D2 = 3 => "D2",
    }

    /// `ALU_WORD1.BANK_SWIZZLE` (manual L8113-8121). The spelling is the
    /// vector-slot name; in the Trans slot codes 0-3 mean SCL_210, SCL_122,
    /// SCL_212, SCL_221 ([`BankSwizzle::scalar_mnemonic`]) and 4-5 are
    /// undefined there.
    pub enum BankSwizzle {
        /// src0, src1, src2 read on cycles 0, 1, 2 (Trans: SCL_210).
        Vec012 = 0 => "VEC_012",
        /// Cycles 0, 2, 1 (Trans: SCL_122).
        Vec021 = 1 => "VEC_021",
        /// Cycles 1, 2, 0 (Trans: SCL_212).
        Vec120 = 2 => "VEC_120",
        /// Cycles 1, 0, 2 (Trans: SCL_221).
        Vec102 = 3 => "VEC_102",
        /// Cycles 2, 0, 1 (vector slots only).
        Vec201 = 4 => "VEC_201",
        /// Cycles 2, 1, 0 (vector slots only).
        Vec210 = 5 => "VEC_210",
    }

    /// The inline constants of `SRC*_SEL` 244..252 (manual L7917).
    pub enum InlineConst {
        /// 1.0 double, low dword.
        OneDblLo = 244 => "1.0_dbl_l",
        /// 1.0 double, high dword.
        OneDblHi = 245 => "1.0_dbl_m",
        /// 0.5 double, low dword.
        HalfDblLo = 246 => "0.5_dbl_l",
        /// 0.5 double, high dword.
        HalfDblHi = 247 => "0.5_dbl_m",
        /// 0.0f.
        Zero = 248 => "0.0",
        /// 1.0f.
        One = 249 => "1.0",
        /// Integer 1.
        OneInt = 250 => "1i",
        /// Integer −1.
        MinusOneInt = 251 => "-1i",
        /// 0.5f.
        Half = 252 => "0.5",
    }

    /// `VTX_WORD0.FETCH_TYPE` (manual L8263-8267; 3 is not listed).
    pub enum FetchType {
        /// Add the vertex index offset.
        VertexData = 0 => "VERTEX_DATA",
        /// Add the instance index offset.
        InstanceData = 1 => "INSTANCE_DATA",
        /// No index offset.
        NoIndexOffset = 2 => "NO_INDEX_OFFSET",
    }

    /// `NUM_FORMAT_ALL` (manual L8354-8358; 3 is not listed).
    pub enum NumFormat {
        /// Repeating fraction 0.N.
        Norm = 0 => "NORM",
        /// Integer N.0.
        Int = 1 => "INT",
        /// Integer converted to float.
        Scaled = 2 => "SCALED",
    }

    /// `FORMAT_COMP_ALL` (manual L8360-8363).
    pub enum FormatComp {
        /// Unsigned elements.
        Unsigned = 0 => "UNSIGNED",
        /// Signed elements.
        Signed = 1 => "SIGNED",
    }

    /// `SRF_MODE_ALL` (manual L8366-8369).
    pub enum SrfMode {
        /// −1.0 has two encodings.
        ZeroClampMinusOne = 0 => "ZERO_CLAMP_MINUS_ONE",
        /// OpenGL: no zero.
        NoZero = 1 => "NO_ZERO",
    }

    /// `ENDIAN_SWAP` (manual L8480-8484; 3 is not listed).
    pub enum EndianSwap {
        /// No swap.
        None = 0 => "NONE",
        /// Bytes swapped within 16 bits.
        Swap8In16 = 1 => "8IN16",
        /// Bytes swapped within 32 bits.
        Swap8In32 = 2 => "8IN32",
    }

    /// `TEX_WORD1.COORD_TYPE_*` (manual L8588-8595).
    pub enum CoordType {
        /// In [0, dim); no repeat or mirror.
        Unnormalized = 0 => "U",
        /// In [0, 1].
        Normalized = 1 => "N",
    }

    /// `MEM_RD_WORD0.MEM_OP` for memory reads (manual L8646-8653). Codes 4
    /// and 5 (LDS write/read) belong to the data-share formats, which ctm
    /// does not model; 3, 6 and 7 are reserved.
    pub enum MemRdOp {
        /// Scratch buffer read.
        Scratch = 0 => "SCRATCH",
        /// Reduction buffer read.
        Reduction = 1 => "REDUCTION",
        /// Scatter (MEM_EXPORT) buffer read.
        Scatter = 2 => "SCATTER",
    }

    /// `DATA_FORMAT` (manual L8319-8353). The manual's table lost the names
    /// of 37, 39, 49, 51 and 62; 37, 39, 49 and 51 are taken from AMD's
    /// register headers as shipped with Mesa (`docs/isa-r700.md` §6); 62 is
    /// kept by number. The RESERVED codes 4, 33, 36 and 63 are undefined.
    pub enum DataFormat {
        /// `FMT_INVALID`.
        Invalid = 0 => "INVALID",
        /// `FMT_8`.
        F8 = 1 => "8",
        /// `FMT_4_4`.
        F4_4 = 2 => "4_4",
        /// `FMT_3_3_2`.
        F3_3_2 = 3 => "3_3_2",
        /// `FMT_16`.
        F16 = 5 => "16",
        /// `FMT_16_FLOAT`.
        F16Float = 6 => "16_FLOAT",
        /// `FMT_8_8`.
        F8_8 = 7 => "8_8",
        /// `FMT_5_6_5`.
        F5_6_5 = 8 => "5_6_5",
        /// `FMT_6_5_5`.
        F6_5_5 = 9 => "6_5_5",
        /// `FMT_1_5_5_5`.
        F1_5_5_5 = 10 => "1_5_5_5",
        /// `FMT_4_4_4_4`.
        F4_4_4_4 = 11 => "4_4_4_4",
        /// `FMT_5_5_5_1`.
        F5_5_5_1 = 12 => "5_5_5_1",
        /// `FMT_32`.
        F32 = 13 => "32",
        /// `FMT_32_FLOAT`.
        F32Float = 14 => "32_FLOAT",
        /// `FMT_16_16`.
        F16_16 = 15 => "16_16",
        /// `FMT_16_16_FLOAT`.
        F16_16Float = 16 => "16_16_FLOAT",
        /// `FMT_8_24`.
        F8_24 = 17 => "8_24",
        /// `FMT_8_24_FLOAT`.
        F8_24Float = 18 => "8_24_FLOAT",
        /// `FMT_24_8`.
        F24_8 = 19 => "24_8",
        /// `FMT_24_8_FLOAT`.
        F24_8Float = 20 => "24_8_FLOAT",
        /// `FMT_10_11_11`.
        F10_11_11 = 21 => "10_11_11",
        /// `FMT_10_11_11_FLOAT`.
        F10_11_11Float = 22 => "10_11_11_FLOAT",
        /// `FMT_11_11_10`.
        F11_11_10 = 23 => "11_11_10",
        /// `FMT_11_11_10_FLOAT`.
        F11_11_10Float = 24 => "11_11_10_FLOAT",
        /// `FMT_2_10_10_10`.
        F2_10_10_10 = 25 => "2_10_10_10",
        /// `FMT_8_8_8_8`.
        F8_8_8_8 = 26 => "8_8_8_8",
        /// `FMT_10_10_10_2`.
        F10_10_10_2 = 27 => "10_10_10_2",
        /// `FMT_X24_8_32_FLOAT`.
        X24_8_32Float = 28 => "X24_8_32_FLOAT",
        /// `FMT_32_32`.
        F32_32 = 29 => "32_32",
        /// `FMT_32_32_FLOAT`.
        F32_32Float = 30 => "32_32_FLOAT",
        /// `FMT_16_16_16_16`.
        F16_16_16_16 = 31 => "16_16_16_16",
        /// `FMT_16_16_16_16_FLOAT`.
        F16_16_16_16Float = 32 => "16_16_16_16_FLOAT",
        /// `FMT_32_32_32_32`.
        F32_32_32_32 = 34 => "32_32_32_32",
        /// `FMT_32_32_32_32_FLOAT`.
        F32_32_32_32Float = 35 => "32_32_32_32_FLOAT",
        /// `FMT_1` (name lost in the manual; AMD/Mesa headers).
        F1 = 37 => "1",
        /// `FMT_1_REVERSED`.
        F1Reversed = 38 => "1_REVERSED",
        /// `FMT_GB_GR` (name lost in the manual; AMD/Mesa headers).
        GbGr = 39 => "GB_GR",
        /// `FMT_BG_RG`.
        BgRg = 40 => "BG_RG",
        /// `FMT_32_AS_8`.
        F32As8 = 41 => "32_AS_8",
        /// `FMT_32_AS_8_8`.
        F32As8_8 = 42 => "32_AS_8_8",
        /// `FMT_5_9_9_9_SHAREDEXP`.
        F5_9_9_9SharedExp = 43 => "5_9_9_9_SHAREDEXP",
        /// `FMT_8_8_8`.
        F8_8_8 = 44 => "8_8_8",
        /// `FMT_16_16_16`.
        F16_16_16 = 45 => "16_16_16",
        /// `FMT_16_16_16_FLOAT`.
        F16_16_16Float = 46 => "16_16_16_FLOAT",
        /// `FMT_32_32_32`.
        F32_32_32 = 47 => "32_32_32",
        /// `FMT_32_32_32_FLOAT`.
        F32_32_32Float = 48 => "32_32_32_FLOAT",
        /// `FMT_BC1` (name lost in the manual; AMD/Mesa headers).
        Bc1 = 49 => "BC1",
        /// `FMT_BC2`.
        Bc2 = 50 => "BC2",
        /// `FMT_BC3` (name lost in the manual; AMD/Mesa headers).
        Bc3 = 51 => "BC3",
        /// `FMT_BC4`.
        Bc4 = 52 => "BC4",
        /// `FMT_BC5`.
        Bc5 = 53 => "BC5",
        /// `FMT_APC0`.
        Apc0 = 54 => "APC0",
        /// `FMT_APC1`.
        Apc1 = 55 => "APC1",
        /// `FMT_APC2`.
        Apc2 = 56 => "APC2",
        /// `FMT_APC3`.
        Apc3 = 57 => "APC3",
        /// `FMT_APC4`.
        Apc4 = 58 => "APC4",
        /// `FMT_APC5`.
        Apc5 = 59 => "APC5",
        /// `FMT_APC6`.
        Apc6 = 60 => "APC6",
        /// `FMT_APC7`.
        Apc7 = 61 => "APC7",
        /// Code 62, whose name the manual lost (not found elsewhere).
        Fmt62 = 62 => "FMT_62",
    }
}

impl BankSwizzle {
    /// The Trans-slot name of this code (SCL_210, SCL_122, SCL_212,
    /// SCL_221), or `None` for 4 and 5, which the Trans slot does not define.
    pub const fn scalar_mnemonic(self) -> Option<&'static str> {
        match self {
            BankSwizzle::Vec012 => Some("SCL_210"),
            BankSwizzle::Vec021 => Some("SCL_122"),
            BankSwizzle::Vec120 => Some("SCL_212"),
            BankSwizzle::Vec102 => Some("SCL_221"),
            BankSwizzle::Vec201 | BankSwizzle::Vec210 => None,
        }
    }

    /// The cycle (0..=2) on which a vector slot reads source `k`
    /// (Table 4.3, digest §3.5).
    pub const fn vector_cycles(self) -> [u8; 3] {
        match self {
            BankSwizzle::Vec012 => [0, 1, 2],
            BankSwizzle::Vec021 => [0, 2, 1],
            BankSwizzle::Vec120 => [1, 2, 0],
            BankSwizzle::Vec102 => [1, 0, 2],
            BankSwizzle::Vec201 => [2, 0, 1],
            BankSwizzle::Vec210 => [2, 1, 0],
        }
    }

    /// The cycle on which the Trans slot reads source `k`, `None` for codes
    /// 4 and 5 (Table 4.3; SCL_210 is 2, 1, 0, digest §7.2 #6).
    pub const fn scalar_cycles(self) -> Option<[u8; 3]> {
        match self {
            BankSwizzle::Vec012 => Some([2, 1, 0]),
            BankSwizzle::Vec021 => Some([1, 2, 2]),
            BankSwizzle::Vec120 => Some([2, 1, 2]),
            BankSwizzle::Vec102 => Some([2, 2, 1]),
            BankSwizzle::Vec201 | BankSwizzle::Vec210 => None,
        }
    }
}

impl InlineConst {
    /// The 32-bit value the constant supplies (the double halves are the
    /// dwords of 1.0 = 0x3FF00000_00000000 and 0.5 = 0x3FE00000_00000000).
    pub const fn bits(self) -> u32 {
        match self {
            InlineConst::OneDblLo | InlineConst::HalfDblLo | InlineConst::Zero => 0,
            InlineConst::OneDblHi => 0x3FF0_0000,
            InlineConst::HalfDblHi => 0x3FE0_0000,
            InlineConst::One => 0x3F80_0000,
            InlineConst::OneInt => 1,
            InlineConst::MinusOneInt => 0xFFFF_FFFF,
            InlineConst::Half => 0x3F00_0000,
        }
    }
}

impl Default for Chan {
    /// The all-zero encoding.
    fn default() -> Self {
        Chan::X
    }
}

impl Chan {
    /// The element as an index 0..=3.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The element with index `i & 3`.
    pub const fn from_index(i: usize) -> Chan {
        match i & 3 {
            0 => Chan::X,
            1 => Chan::Y,
            2 => Chan::Z,
            _ => Chan::W,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_codes_are_errors() {
        assert_eq!(
            Sel::try_from(6),
            Err(UnknownCode {
                enumeration: "Sel",
                value: 6
            })
        );
        assert!(PredSel::try_from(1).is_err());
        assert!(IndexMode::try_from(7).is_err());
        assert!(ExportType::try_from(3).is_err());
        assert!(TexSrcSel::try_from(6).is_err());
        for reserved in [4, 33, 36, 63] {
            assert!(DataFormat::try_from(reserved).is_err());
        }
        assert_eq!(DataFormat::COUNT, 60);
    }

    #[test]
    fn codes_round_trip() {
        for s in BankSwizzle::ALL {
            assert_eq!(BankSwizzle::try_from(s.code()), Ok(*s));
            assert_eq!(BankSwizzle::from_mnemonic(s.mnemonic()), Some(*s));
        }
        for c in InlineConst::ALL {
            assert_eq!(InlineConst::try_from(c.code()), Ok(*c));
        }
        assert_eq!(InlineConst::ALL.len(), 9);
    }
}
