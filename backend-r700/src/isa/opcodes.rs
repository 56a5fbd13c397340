//! The opcode enumerations of every R700 microcode format, each opcode
//! defined once with its code, its manual mnemonic and its static
//! properties (ALU unit class and operand count; what a CF instruction's
//! ADDR means).
//!
//! Codes: the manual's chapter 10 lists (`seeds/r700-isa.txt` L7670-7704,
//! L7752-7761, L7834-7844, L7984-8112, L8188-8212, L8508-8546), with the
//! scrambled and unnumbered stretches resolved as in `r700-digest.md` §3
//! and `docs/isa-r700.md` §6. Unit classes: Tables 4.4-4.6 (digest §3.2),
//! with the corrections recorded there.

use super::enums::isa_enum;

isa_enum! {
    /// `CF_WORD1.CF_INST` of the general CF format (manual L7670-7704).
    /// 25 and 27-31 are reserved; 32-40 and 58 are [`CfExportOp`]/[`CfMemOp`].
    pub enum CfOp {
        /// No operation.
        Nop = 0 => "NOP",
        /// Run a texture-fetch clause.
        Tex = 1 => "TEX",
        /// Run a vertex-fetch clause through the vertex cache.
        Vtx = 2 => "VTX",
        /// Run a vertex-fetch clause through the texture cache.
        VtxTc = 3 => "VTX_TC",
        /// DX9 loop start.
        LoopStart = 4 => "LOOP_START",
        /// Loop end.
        LoopEnd = 5 => "LOOP_END",
        /// DX10 loop start.
        LoopStartDx10 = 6 => "LOOP_START_DX10",
        /// Loop start without aL.
        LoopStartNoAl = 7 => "LOOP_START_NO_AL",
        /// Continue the innermost loop.
        LoopContinue = 8 => "LOOP_CONTINUE",
        /// Break the innermost loop.
        LoopBreak = 9 => "LOOP_BREAK",
        /// Jump if all pixels fail (10, not 16: digest §7.2 #1).
        Jump = 10 => "JUMP",
        /// Push the active state.
        Push = 11 => "PUSH",
        /// Push, then else.
        PushElse = 12 => "PUSH_ELSE",
        /// Else.
        Else = 13 => "ELSE",
        /// Pop the active state.
        Pop = 14 => "POP",
        /// Pop, then JUMP.
        PopJump = 15 => "POP_JUMP",
        /// Pop, then PUSH.
        PopPush = 16 => "POP_PUSH",
        /// Pop, then PUSH_ELSE.
        PopPushElse = 17 => "POP_PUSH_ELSE",
        /// Subroutine call.
        Call = 18 => "CALL",
        /// Call the fetch subroutine (VS).
        CallFs = 19 => "CALL_FS",
        /// Subroutine return.
        Return = 20 => "RETURN",
        /// GS: vertex exported.
        EmitVertex = 21 => "EMIT_VERTEX",
        /// GS: vertex exported and strip cut.
        EmitCutVertex = 22 => "EMIT_CUT_VERTEX",
        /// GS: strip cut.
        CutVertex = 23 => "CUT_VERTEX",
        /// PS: kill pixels passing the test.
        Kill = 24 => "KILL",
        /// Wait until outstanding acks ≤ ADDR.
        WaitAck = 26 => "WAIT_ACK",
    }

    /// `CF_ALU_WORD1.CF_INST` (manual L7752-7761; 12 is reserved).
    pub enum CfAluOp {
        /// ALU clause.
        Alu = 8 => "ALU",
        /// Push before the first PRED_SET*.
        AluPushBefore = 9 => "ALU_PUSH_BEFORE",
        /// Pop once after the clause.
        AluPopAfter = 10 => "ALU_POP_AFTER",
        /// Pop twice after the clause.
        AluPop2After = 11 => "ALU_POP2_AFTER",
        /// Masked-off pixels continue.
        AluContinue = 13 => "ALU_CONTINUE",
        /// Masked-off pixels break.
        AluBreak = 14 => "ALU_BREAK",
        /// Like PUSH_BEFORE, then ELSE after the clause.
        AluElseAfter = 15 => "ALU_ELSE_AFTER",
    }

    /// The export opcodes of `CF_ALLOC_EXPORT_WORD1_SWIZ` (manual L7841-7842).
    pub enum CfExportOp {
        /// Export, not the last of its type.
        Export = 39 => "EXPORT",
        /// Last export of its type.
        ExportDone = 40 => "EXPORT_DONE",
    }

    /// The memory opcodes of `CF_ALLOC_EXPORT_WORD1_BUF` (manual
    /// L7834-7844; MEM_STREAM3 is 35 = 0x23, not "0x32", digest §7.2 #37).
    pub enum CfMemOp {
        /// Stream buffer 0 write.
        MemStream0 = 32 => "MEM_STREAM0",
        /// Stream buffer 1 write.
        MemStream1 = 33 => "MEM_STREAM1",
        /// Stream buffer 2 write.
        MemStream2 = 34 => "MEM_STREAM2",
        /// Stream buffer 3 write.
        MemStream3 = 35 => "MEM_STREAM3",
        /// Scratch buffer read or write.
        MemScratch = 36 => "MEM_SCRATCH",
        /// Reduction buffer read or write.
        MemReduction = 37 => "MEM_REDUCTION",
        /// Ring buffer write.
        MemRing = 38 => "MEM_RING",
        /// Scatter (global) buffer read or write.
        MemExport = 58 => "MEM_EXPORT",
    }

    /// `TEX_WORD0.TEX_INST` of the texture format (manual L8508-8546).
    /// 0-2 (vertex fetch, semantic fetch, MEM/LDS) are not texture-format
    /// instructions and 13 is reserved: all four are rejected in a TEX clause
    /// (`docs/isa-r700.md` §3).
    pub enum TexOp {
        /// Unfiltered fetch at integer XYZ, W = LOD.
        Ld = 3 => "LD",
        /// Width, height, depth, mip levels.
        GetTextureResinfo = 4 => "GET_TEXTURE_RESINFO",
        /// MSAA sample count (5, not GET_LERP: digest §7.2 #32).
        GetNumberOfSamples = 5 => "GET_NUMBER_OF_SAMPLES",
        /// Clamped and unclamped LOD.
        GetCompTexLod = 6 => "GET_COMP_TEX_LOD",
        /// Horizontal gradients.
        GetGradientsH = 7 => "GET_GRADIENTS_H",
        /// Vertical gradients.
        GetGradientsV = 8 => "GET_GRADIENTS_V",
        /// Bilinear weights.
        GetLerp = 9 => "GET_LERP",
        /// Compute and keep gradients.
        KeepGradients = 10 => "KEEP_GRADIENTS",
        /// Set horizontal gradients.
        SetGradientsH = 11 => "SET_GRADIENTS_H",
        /// Set vertical gradients.
        SetGradientsV = 12 => "SET_GRADIENTS_V",
        /// Set the cubemap-array index from Z.
        SetCubemapIndex = 14 => "SET_CUBEMAP_INDEX",
        /// DX10.1 Fetch4/Load4 (name from Mesa; the manual gives none).
        Fetch4 = 15 => "FETCH4",
        /// Sample.
        Sample = 16 => "SAMPLE",
        /// Sample at LOD src.W.
        SampleL = 17 => "SAMPLE_L",
        /// Sample with LOD_BIAS.
        SampleLb = 18 => "SAMPLE_LB",
        /// Sample at LOD 0.
        SampleLz = 19 => "SAMPLE_LZ",
        /// Sample with set gradients.
        SampleG = 20 => "SAMPLE_G",
        /// SAMPLE_G at LOD src.W.
        SampleGL = 21 => "SAMPLE_G_L",
        /// SAMPLE_G with LOD bias.
        SampleGLb = 22 => "SAMPLE_G_LB",
        /// SAMPLE_G at LOD 0.
        SampleGLz = 23 => "SAMPLE_G_LZ",
        /// Sample and compare with src.W.
        SampleC = 24 => "SAMPLE_C",
        /// SAMPLE_C at LOD src.W.
        SampleCL = 25 => "SAMPLE_C_L",
        /// SAMPLE_C with LOD bias.
        SampleCLb = 26 => "SAMPLE_C_LB",
        /// SAMPLE_C at LOD 0.
        SampleCLz = 27 => "SAMPLE_C_LZ",
        /// SAMPLE_C with set gradients.
        SampleCG = 28 => "SAMPLE_C_G",
        /// SAMPLE_C_G at LOD src.W.
        SampleCGL = 29 => "SAMPLE_C_G_L",
        /// SAMPLE_C_G with LOD bias.
        SampleCGLb = 30 => "SAMPLE_C_G_LB",
        /// SAMPLE_C_G at LOD 0.
        SampleCGLz = 31 => "SAMPLE_C_G_LZ",
    }
}

/// What a general CF instruction's `ADDR` field means (Table 3.1 and
/// its notes, manual L751-791).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CfAddr {
    /// The start of a fetch clause of this kind (TEX, VTX, VTX_TC).
    Clause(FetchClauseKind),
    /// Another CF instruction (loops, branches, CALL).
    JumpTarget,
    /// Something else or nothing: ignored (NOP, POP, RETURN, ...), a host
    /// register offset (CALL_FS) or an ack count (WAIT_ACK).
    Other,
}

/// The two kinds of fetch clause (digest §1.3).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FetchClauseKind {
    /// A texture-fetch clause (TEX_WORD* instructions).
    Tex,
    /// A vertex-fetch clause (VTX_WORD* and MEM_RD_WORD* instructions).
    Vtx,
}

impl CfOp {
    /// What this instruction's `ADDR` means. POP is `Other`: it never
    /// jumps (manual L2851; LLVM still writes the next instruction there).
    pub const fn addr_meaning(self) -> CfAddr {
        match self {
            CfOp::Tex => CfAddr::Clause(FetchClauseKind::Tex),
            CfOp::Vtx | CfOp::VtxTc => CfAddr::Clause(FetchClauseKind::Vtx),
            CfOp::LoopStart
            | CfOp::LoopEnd
            | CfOp::LoopStartDx10
            | CfOp::LoopStartNoAl
            | CfOp::LoopContinue
            | CfOp::LoopBreak
            | CfOp::Jump
            | CfOp::Push
            | CfOp::PushElse
            | CfOp::Else
            | CfOp::PopJump
            | CfOp::PopPush
            | CfOp::PopPushElse
            | CfOp::Call => CfAddr::JumpTarget,
            CfOp::Nop
            | CfOp::Pop
            | CfOp::CallFs
            | CfOp::Return
            | CfOp::EmitVertex
            | CfOp::EmitCutVertex
            | CfOp::CutVertex
            | CfOp::Kill
            | CfOp::WaitAck => CfAddr::Other,
        }
    }
}

/// Which ALU units an opcode may run on (Tables 4.4-4.6, digest §3.2).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum UnitClass {
    /// Any of ALU.X/Y/Z/W and ALU.Trans (Table 4.4).
    Any,
    /// Only the vector unit of its destination element (Table 4.5).
    Vector,
    /// Only ALU.Trans (Table 4.6).
    Trans,
    /// All four vector slots with the same opcode (DOT4, DOT4_IEEE, CUBE, MAX4).
    Reduction,
    /// A double-precision op on the slot pair X+Y or Z+W.
    DoublePair,
    /// A double-precision op on all four vector slots.
    DoubleQuad,
}

/// The static facts of an ALU opcode (one row of [`Op2`] or [`Op3`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct AluOpFacts {
    /// The units the opcode may run on.
    pub unit: UnitClass,
    /// How many source operands it reads.
    pub srcs: usize,
}

/// Generates an ALU opcode enumeration (through the kit's `isa_ops!`)
/// whose rows also carry the unit class and the number of source operands
/// (`Variant = code => "MNEMONIC", UnitClass, sources`).
macro_rules! alu_ops {
    (
        $(#[$doc:meta])*
        pub enum $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident = $code:literal => $mnem:literal, $unit:ident, $srcs:literal ),* $(,)?
        }
    ) => {
        ctm_isa_kit::isa_ops! {
            $(#[$doc])*
            pub enum $name facts AluOpFacts {
                $( $(#[$vdoc])* $variant = $code => $mnem { unit: UnitClass::$unit, srcs: $srcs }, )*
            }
        }

        impl $name {
            /// The units the opcode may run on.
            pub const fn unit_class(self) -> UnitClass {
                self.facts().unit
            }

            /// How many source operands the opcode reads.
            pub const fn src_count(self) -> usize {
                self.facts().srcs
            }
        }
    };
}

alu_ops! {
    /// `ALU_WORD1_OP2.ALU_INST` (manual L7984-8112; numbers 73-79 and 111-126
    /// from the chapter-9 "Instruction Field" lines, digest §3.2). 84-95 and
    /// 127 are reserved. Unit classes per Tables 4.4-4.6 with ADD_INT moved
    /// to `Any` (LLVM issues it in the Trans slot, digest §3.2).
    pub enum Op2 {
        /// s0 + s1.
        Add = 0 => "ADD", Any, 2,
        /// s0 · s1 (0 · x = 0).
        Mul = 1 => "MUL", Any, 2,
        /// s0 · s1 (IEEE).
        MulIeee = 2 => "MUL_IEEE", Any, 2,
        /// max(s0, s1).
        Max = 3 => "MAX", Any, 2,
        /// min(s0, s1).
        Min = 4 => "MIN", Any, 2,
        /// max, DX10 NaN rules.
        MaxDx10 = 5 => "MAX_DX10", Any, 2,
        /// min, DX10 NaN rules.
        MinDx10 = 6 => "MIN_DX10", Any, 2,
        /// Double: split mantissa and exponent.
        Frexp64 = 7 => "FREXP_64", DoubleQuad, 1,
        /// s0 == s1 ? 1.0 : 0.0.
        Sete = 8 => "SETE", Any, 2,
        /// s0 > s1 ? 1.0 : 0.0.
        Setgt = 9 => "SETGT", Any, 2,
        /// s0 >= s1 ? 1.0 : 0.0.
        Setge = 10 => "SETGE", Any, 2,
        /// s0 != s1 ? 1.0 : 0.0.
        Setne = 11 => "SETNE", Any, 2,
        /// s0 == s1 ? ~0 : 0.
        SeteDx10 = 12 => "SETE_DX10", Any, 2,
        /// s0 > s1 ? ~0 : 0.
        SetgtDx10 = 13 => "SETGT_DX10", Any, 2,
        /// s0 >= s1 ? ~0 : 0.
        SetgeDx10 = 14 => "SETGE_DX10", Any, 2,
        /// s0 != s1 ? ~0 : 0.
        SetneDx10 = 15 => "SETNE_DX10", Any, 2,
        /// s0 − floor(s0).
        Fract = 16 => "FRACT", Any, 1,
        /// Integer part.
        Trunc = 17 => "TRUNC", Any, 1,
        /// Ceiling.
        Ceil = 18 => "CEIL", Any, 1,
        /// Round to nearest even.
        Rndne = 19 => "RNDNE", Any, 1,
        /// Floor.
        Floor = 20 => "FLOOR", Any, 1,
        /// AR.e = round(s0).
        Mova = 21 => "MOVA", Vector, 1,
        /// AR.e = floor(s0).
        MovaFloor = 22 => "MOVA_FLOOR", Vector, 1,
        /// Double add (listed under Table 4.4, but a slot pair, digest §7.2 #26).
        Add64 = 23 => "ADD_64", DoublePair, 2,
        /// AR.e = s0 (integer).
        MovaInt = 24 => "MOVA_INT", Vector, 1,
        /// s0.
        Mov = 25 => "MOV", Any, 1,
        /// No operation (26, not 0: digest §7.2 #2, Mesa's r600 table).
        Nop = 26 => "NOP", Any, 0,
        /// Double multiply.
        Mul64 = 27 => "MUL_64", DoubleQuad, 2,
        /// Double to float.
        Flt64ToFlt32 = 28 => "FLT64_TO_FLT32", DoublePair, 1,
        /// Float to double.
        Flt32ToFlt64 = 29 => "FLT32_TO_FLT64", DoublePair, 1,
        /// Predicate s0 > s1 (unsigned).
        PredSetgtUint = 30 => "PRED_SETGT_UINT", Any, 2,
        /// Predicate s0 >= s1 (unsigned).
        PredSetgeUint = 31 => "PRED_SETGE_UINT", Any, 2,
        /// Predicate s0 == s1.
        PredSete = 32 => "PRED_SETE", Any, 2,
        /// Predicate s0 > s1.
        PredSetgt = 33 => "PRED_SETGT", Any, 2,
        /// Predicate s0 >= s1.
        PredSetge = 34 => "PRED_SETGE", Any, 2,
        /// Predicate s0 != s1.
        PredSetne = 35 => "PRED_SETNE", Any, 2,
        /// Predicate inversion.
        PredSetInv = 36 => "PRED_SET_INV", Any, 1,
        /// Predicate pop counter.
        PredSetPop = 37 => "PRED_SET_POP", Any, 2,
        /// Clear the predicate.
        PredSetClr = 38 => "PRED_SET_CLR", Any, 0,
        /// Restore the predicate.
        PredSetRestore = 39 => "PRED_SET_RESTORE", Any, 1,
        /// Push-counter s0 == 0 and s1 == 0.
        PredSetePush = 40 => "PRED_SETE_PUSH", Any, 2,
        /// Push-counter s0 == 0 and s1 > 0.
        PredSetgtPush = 41 => "PRED_SETGT_PUSH", Any, 2,
        /// Push-counter s0 == 0 and s1 >= 0.
        PredSetgePush = 42 => "PRED_SETGE_PUSH", Any, 2,
        /// Push-counter s0 == 0 and s1 != 0.
        PredSetnePush = 43 => "PRED_SETNE_PUSH", Any, 2,
        /// Kill if s0 == s1.
        Kille = 44 => "KILLE", Any, 2,
        /// Kill if s0 > s1.
        Killgt = 45 => "KILLGT", Any, 2,
        /// Kill if s0 >= s1.
        Killge = 46 => "KILLGE", Any, 2,
        /// Kill if s0 != s1.
        Killne = 47 => "KILLNE", Any, 2,
        /// Bitwise and.
        AndInt = 48 => "AND_INT", Any, 2,
        /// Bitwise or.
        OrInt = 49 => "OR_INT", Any, 2,
        /// Bitwise xor.
        XorInt = 50 => "XOR_INT", Any, 2,
        /// Bitwise not.
        NotInt = 51 => "NOT_INT", Any, 1,
        /// Integer add.
        AddInt = 52 => "ADD_INT", Any, 2,
        /// Integer s0 − s1.
        SubInt = 53 => "SUB_INT", Any, 2,
        /// Signed max.
        MaxInt = 54 => "MAX_INT", Any, 2,
        /// Signed min.
        MinInt = 55 => "MIN_INT", Any, 2,
        /// Unsigned max.
        MaxUint = 56 => "MAX_UINT", Any, 2,
        /// Unsigned min.
        MinUint = 57 => "MIN_UINT", Any, 2,
        /// s0 == s1 ? ~0 : 0 (integer).
        SeteInt = 58 => "SETE_INT", Any, 2,
        /// s0 > s1 ? ~0 : 0 (signed).
        SetgtInt = 59 => "SETGT_INT", Any, 2,
        /// s0 >= s1 ? ~0 : 0 (signed).
        SetgeInt = 60 => "SETGE_INT", Any, 2,
        /// s0 != s1 ? ~0 : 0 (integer).
        SetneInt = 61 => "SETNE_INT", Any, 2,
        /// s0 > s1 ? ~0 : 0 (unsigned).
        SetgtUint = 62 => "SETGT_UINT", Any, 2,
        /// s0 >= s1 ? ~0 : 0 (unsigned).
        SetgeUint = 63 => "SETGE_UINT", Any, 2,
        /// Kill if s0 > s1 (unsigned).
        KillgtUint = 64 => "KILLGT_UINT", Any, 2,
        /// Kill if s0 >= s1 (unsigned).
        KillgeUint = 65 => "KILLGE_UINT", Any, 2,
        /// Predicate s0 == s1 (integer).
        PredSeteInt = 66 => "PRED_SETE_INT", Any, 2,
        /// Predicate s0 > s1 (signed).
        PredSetgtInt = 67 => "PRED_SETGT_INT", Any, 2,
        /// Predicate s0 >= s1 (signed).
        PredSetgeInt = 68 => "PRED_SETGE_INT", Any, 2,
        /// Predicate s0 != s1 (integer).
        PredSetneInt = 69 => "PRED_SETNE_INT", Any, 2,
        /// Kill if s0 == s1 (integer).
        KilleInt = 70 => "KILLE_INT", Any, 2,
        /// Kill if s0 > s1 (signed).
        KillgtInt = 71 => "KILLGT_INT", Any, 2,
        /// Kill if s0 >= s1 (signed).
        KillgeInt = 72 => "KILLGE_INT", Any, 2,
        /// Kill if s0 != s1 (integer).
        KillneInt = 73 => "KILLNE_INT", Any, 2,
        /// Push-counter, integer ==.
        PredSetePushInt = 74 => "PRED_SETE_PUSH_INT", Any, 2,
        /// Push-counter, integer >.
        PredSetgtPushInt = 75 => "PRED_SETGT_PUSH_INT", Any, 2,
        /// Push-counter, integer >=.
        PredSetgePushInt = 76 => "PRED_SETGE_PUSH_INT", Any, 2,
        /// Push-counter, integer !=.
        PredSetnePushInt = 77 => "PRED_SETNE_PUSH_INT", Any, 2,
        /// Push-counter, integer <.
        PredSetltPushInt = 78 => "PRED_SETLT_PUSH_INT", Any, 2,
        /// Push-counter, integer <=.
        PredSetlePushInt = 79 => "PRED_SETLE_PUSH_INT", Any, 2,
        /// Four-element dot product.
        Dot4 = 80 => "DOT4", Reduction, 2,
        /// Four-element dot product (IEEE).
        Dot4Ieee = 81 => "DOT4_IEEE", Reduction, 2,
        /// Cube-map face and coordinates.
        Cube = 82 => "CUBE", Reduction, 2,
        /// Maximum of four elements.
        Max4 = 83 => "MAX4", Reduction, 1,
        /// Listed only in chapter 10; Mesa treats it as R600-only, Trans.
        MovaGprInt = 96 => "MOVA_GPR_INT", Trans, 1,
        /// 2^s0.
        ExpIeee = 97 => "EXP_IEEE", Trans, 1,
        /// log2(s0), −inf clamped.
        LogClamped = 98 => "LOG_CLAMPED", Trans, 1,
        /// log2(s0).
        LogIeee = 99 => "LOG_IEEE", Trans, 1,
        /// 1/s0, ±inf clamped.
        RecipClamped = 100 => "RECIP_CLAMPED", Trans, 1,
        /// 1/s0, ±inf to ±0.
        RecipFf = 101 => "RECIP_FF", Trans, 1,
        /// 1/s0.
        RecipIeee = 102 => "RECIP_IEEE", Trans, 1,
        /// 1/√s0, clamped.
        RecipsqrtClamped = 103 => "RECIPSQRT_CLAMPED", Trans, 1,
        /// 1/√s0, ±inf to ±0.
        RecipsqrtFf = 104 => "RECIPSQRT_FF", Trans, 1,
        /// 1/√s0.
        RecipsqrtIeee = 105 => "RECIPSQRT_IEEE", Trans, 1,
        /// √s0.
        SqrtIeee = 106 => "SQRT_IEEE", Trans, 1,
        /// Float to signed integer.
        FltToInt = 107 => "FLT_TO_INT", Trans, 1,
        /// Signed integer to float.
        IntToFlt = 108 => "INT_TO_FLT", Trans, 1,
        /// Unsigned integer to float.
        UintToFlt = 109 => "UINT_TO_FLT", Trans, 1,
        /// sin(s0).
        Sin = 110 => "SIN", Trans, 1,
        /// cos(s0).
        Cos = 111 => "COS", Trans, 1,
        /// Arithmetic shift right.
        AshrInt = 112 => "ASHR_INT", Any, 2,
        /// Logical shift right.
        LshrInt = 113 => "LSHR_INT", Any, 2,
        /// Shift left.
        LshlInt = 114 => "LSHL_INT", Any, 2,
        /// Low 32 bits of the signed product.
        MulloInt = 115 => "MULLO_INT", Trans, 2,
        /// High 32 bits of the signed product.
        MulhiInt = 116 => "MULHI_INT", Trans, 2,
        /// Low 32 bits of the unsigned product.
        MulloUint = 117 => "MULLO_UINT", Trans, 2,
        /// High 32 bits of the unsigned product.
        MulhiUint = 118 => "MULHI_UINT", Trans, 2,
        /// Signed reciprocal (fixed point).
        RecipInt = 119 => "RECIP_INT", Trans, 1,
        /// Unsigned reciprocal (fixed point).
        RecipUint = 120 => "RECIP_UINT", Trans, 1,
        /// Float to unsigned integer.
        FltToUint = 121 => "FLT_TO_UINT", Trans, 1,
        /// Double ldexp.
        Ldexp64 = 122 => "LDEXP_64", DoublePair, 2,
        /// Double fract.
        Fract64 = 123 => "FRACT_64", DoublePair, 1,
        /// Double predicate >.
        PredSetgt64 = 124 => "PRED_SETGT_64", DoublePair, 2,
        /// Double predicate ==.
        PredSete64 = 125 => "PRED_SETE_64", DoublePair, 2,
        /// Double predicate >=.
        PredSetge64 = 126 => "PRED_SETGE_64", DoublePair, 2,
    }
}

alu_ops! {
    /// `ALU_WORD1_OP3.ALU_INST` (manual L8188-8212; 0-7, 27 and 31 are not
    /// defined). The chapter-9 pages call CNDE* "CMOV*".
    pub enum Op3 {
        /// Double s0 · s1 + s2.
        Muladd64 = 8 => "MULADD_64", DoubleQuad, 3,
        /// Double (s0 · s1 + s2) · 2.
        Muladd64M2 = 9 => "MULADD_64_M2", DoubleQuad, 3,
        /// Double (s0 · s1 + s2) · 4.
        Muladd64M4 = 10 => "MULADD_64_M4", DoubleQuad, 3,
        /// Double (s0 · s1 + s2) / 2.
        Muladd64D2 = 11 => "MULADD_64_D2", DoubleQuad, 3,
        /// Lighting multiply.
        MulLit = 12 => "MUL_LIT", Trans, 3,
        /// MUL_LIT · 2.
        MulLitM2 = 13 => "MUL_LIT_M2", Trans, 3,
        /// MUL_LIT · 4.
        MulLitM4 = 14 => "MUL_LIT_M4", Trans, 3,
        /// MUL_LIT / 2.
        MulLitD2 = 15 => "MUL_LIT_D2", Trans, 3,
        /// s0 · s1 + s2 (0 · x = 0).
        Muladd = 16 => "MULADD", Any, 3,
        /// (s0 · s1 + s2) · 2.
        MuladdM2 = 17 => "MULADD_M2", Any, 3,
        /// (s0 · s1 + s2) · 4.
        MuladdM4 = 18 => "MULADD_M4", Any, 3,
        /// (s0 · s1 + s2) / 2.
        MuladdD2 = 19 => "MULADD_D2", Any, 3,
        /// s0 · s1 + s2 (IEEE).
        MuladdIeee = 20 => "MULADD_IEEE", Any, 3,
        /// IEEE, · 2.
        MuladdIeeeM2 = 21 => "MULADD_IEEE_M2", Any, 3,
        /// IEEE, · 4.
        MuladdIeeeM4 = 22 => "MULADD_IEEE_M4", Any, 3,
        /// IEEE, / 2.
        MuladdIeeeD2 = 23 => "MULADD_IEEE_D2", Any, 3,
        /// s0 == 0.0 ? s1 : s2.
        Cnde = 24 => "CNDE", Any, 3,
        /// s0 > 0.0 ? s1 : s2.
        Cndgt = 25 => "CNDGT", Any, 3,
        /// s0 >= 0.0 ? s1 : s2.
        Cndge = 26 => "CNDGE", Any, 3,
        /// s0 == 0 ? s1 : s2 (integer).
        CndeInt = 28 => "CNDE_INT", Any, 3,
        /// s0 > 0 ? s1 : s2 (signed; printed "CMNDGT_INT" at L8210).
        CndgtInt = 29 => "CNDGT_INT", Any, 3,
        /// s0 >= 0 ? s1 : s2 (signed).
        CndgeInt = 30 => "CNDGE_INT", Any, 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tripwire_counts() {
        // The opcode lists of chapter 10: grow these tests with the enums.
        assert_eq!(CfOp::COUNT, 26);
        assert_eq!(CfAluOp::COUNT, 7);
        assert_eq!(CfExportOp::COUNT, 2);
        assert_eq!(CfMemOp::COUNT, 8);
        assert_eq!(Op2::COUNT, 84 + 31);
        assert_eq!(Op3::COUNT, 22);
        assert_eq!(TexOp::COUNT, 28);
    }

    #[test]
    fn op2_codes_fit_below_bit_15() {
        // ALU_WORD1_OP2.ALU_INST is [17:7]; its top three bits are zero for
        // every OP2 opcode, and every OP3 opcode has one of them set.
        for op in Op2::ALL {
            assert!(op.code() < 1 << 8, "{op}");
        }
        for op in Op3::ALL {
            assert!(op.code() >= 8, "{op}");
        }
    }

    #[test]
    fn opcode_lists_have_no_gaps_where_the_manual_has_none() {
        for code in 0..=83 {
            assert!(Op2::try_from(code).is_ok(), "OP2 {code}");
        }
        for code in 84..=95 {
            assert!(Op2::try_from(code).is_err(), "OP2 {code}");
        }
        for code in 96..=126 {
            assert!(Op2::try_from(code).is_ok(), "OP2 {code}");
        }
        assert!(Op2::try_from(127).is_err());
        assert!(Op2::try_from(204).is_err());
        assert!(CfOp::try_from(25).is_err());
        assert!(CfAluOp::try_from(12).is_err());
        assert!(TexOp::try_from(13).is_err());
    }
}
