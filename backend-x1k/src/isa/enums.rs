//! Every enumerated field value of the X1K instruction words, each defined
//! once with its numeric code and its assembly spelling.
//!
//! The `isa_enum!` table (`ctm_isa_kit`, shared with the R700) generates, per enumeration, `TryFrom<u32>` (an
//! unknown code is an [`UnknownCode`] error, never a default), `code()`,
//! `ALL` (every defined value, in code order, used by the golden tests and
//! proptest strategies), `mnemonic()` and `from_mnemonic()` (used by the
//! disassembler and the assembler).
//!
//! Codes: `x1k-encoding.md` §2.1, §3.2, §7, §8; names: CTM guide chapter 3.

pub use ctm_isa_kit::UnknownCode;
use ctm_isa_kit::isa_enum;

/// The opcodes live in the opcode table with their facts; re-exported here
/// for the paths `enums::RgbOp` etc.
pub use super::opcodes::{AlphaOp, RgbOp, TexOpcode};

isa_enum! {
    /// `US_CMN_INST.TYPE` (§2, CTM §3.1).
    pub enum InstType {
        /// `INST_TYPE_ALU`: RGB + alpha math, may write predicates.
        Alu = 0 => "alu",
        /// `INST_TYPE_OUTPUT`: RGB + alpha math, may write outputs.
        Out = 1 => "out",
        /// `INST_TYPE_FC`: flow control.
        Fc = 2 => "fc",
        /// `INST_TYPE_TEX`: texture.
        Tex = 3 => "tex",
    }

    /// Predicate select codes 1..=5 of `*_PRED_SEL` (§2.1, CTM §3.3.6);
    /// code 0 (NONE) is `Option::None` in [`crate::isa::Predicate`], and
    /// codes 6 and 7 are undefined.
    pub enum PredSel {
        /// Channel c uses predicate bit c.
        Rgba = 1 => "p.rgba",
        /// All channels use predicate bit R.
        Rrrr = 2 => "p.rrrr",
        /// All channels use predicate bit G.
        Gggg = 3 => "p.gggg",
        /// All channels use predicate bit B.
        Bbbb = 4 => "p.bbbb",
        /// All channels use predicate bit A.
        Aaaa = 5 => "p.aaaa",
    }

    /// `SRCP_OP` presubtract (§3.2, CTM §3.3.2).
    pub enum PresubOp {
        /// `SRCP_OP_BIAS`: 1 − 2·src0.
        Bias = 0 => "bias",
        /// `SRCP_OP_SUB`: src1 − src0.
        Sub = 1 => "sub",
        /// `SRCP_OP_ADD`: src1 + src0.
        Add = 2 => "add",
        /// `SRCP_OP_INV`: 1 − src0.
        Inv = 3 => "inv",
    }

    /// `*_SEL_A/B/C` input source select (§7.1, CTM §3.3.3).
    pub enum InputSelect {
        /// Source 0.
        Src0 = 0 => "s0",
        /// Source 1.
        Src1 = 1 => "s1",
        /// Source 2.
        Src2 = 2 => "s2",
        /// The presubtract result.
        Srcp = 3 => "sp",
    }

    /// One 3-bit ALU swizzle select (§7.2, CTM §3.3.3).
    pub enum Swizzle {
        /// Red channel (from the RGB address).
        R = 0 => "r",
        /// Green channel (from the RGB address).
        G = 1 => "g",
        /// Blue channel (from the RGB address).
        B = 2 => "b",
        /// Alpha channel (from the alpha address).
        A = 3 => "a",
        /// The constant 0.0.
        Zero = 4 => "0",
        /// The constant 0.5.
        Half = 5 => "h",
        /// The constant 1.0.
        One = 6 => "1",
        /// AMD "Unused" (Mesa never emits it).
        Unused = 7 => "_",
    }

    /// `*_MOD_*` input modifier (§7.3, CTM §3.3.3).
    pub enum InputModifier {
        /// `IMOD_OFF`.
        None = 0 => "none",
        /// `IMOD_NEG`: −x (assembly `-s0.rgb`).
        Neg = 1 => "neg",
        /// `IMOD_ABS`: |x| (assembly `|s0.rgb|`).
        Abs = 2 => "abs",
        /// `IMOD_NAB`: −|x| (assembly `-|s0.rgb|`).
        NegAbs = 3 => "nab",
    }

    /// `OMOD` output modifier (§7.4, CTM §3.3.5).
    pub enum OutputModifier {
        /// `OMOD_U1`: ×1 (the default; not printed).
        Mul1 = 0 => "x1",
        /// `OMOD_U2`: ×2.
        Mul2 = 1 => "x2",
        /// `OMOD_U4`: ×4.
        Mul4 = 2 => "x4",
        /// `OMOD_U8`: ×8.
        Mul8 = 3 => "x8",
        /// `OMOD_D2`: ÷2.
        Div2 = 4 => "d2",
        /// `OMOD_D4`: ÷4.
        Div4 = 5 => "d4",
        /// `OMOD_D8`: ÷8.
        Div8 = 6 => "d8",
        /// `OMOD_DISABLED`: bit-exact result, no clamp (MIN/MAX/CND/CMP only).
        Disabled = 7 => "omod_off",
    }

    /// Compare-with-zero: ALU `TARGET` (predicate op, CTM §3.3.9) and
    /// `ALU_RESULT_OP` (CTM §3.3.10), §7.5.
    pub enum CompareOp {
        /// `*_OP_EQUAL`: set if == 0.
        Eq = 0 => "==0",
        /// `*_OP_LESS`: set if < 0.
        Lt = 1 => "<0",
        /// `*_OP_GREATER_EQUAL`: set if >= 0.
        Ge = 2 => ">=0",
        /// `*_OP_NOT_EQUAL`: set if != 0.
        Ne = 3 => "!=0",
    }

    /// OUT `TARGET`: render target A..D (§7.5, CTM §3.3.8). In a UMRT
    /// program the same codes select the UMRT write kind; see
    /// [`crate::isa::UmrtTarget`].
    pub enum RenderTarget {
        /// `RNDR_TGT_A` (CTM output 0).
        A = 0 => "o0",
        /// `RNDR_TGT_B` (CTM output 1).
        B = 1 => "o1",
        /// `RNDR_TGT_C` (CTM output 2).
        C = 2 => "o2",
        /// `RNDR_TGT_D` (CTM output 3).
        D = 3 => "o3",
    }

    /// `ALU_RESULT_SEL`: channel feeding the ALU result (CTM §3.3.10).
    pub enum AluResultSel {
        /// `ALU_RESULT_SEL_RED`.
        Red = 0 => "r",
        /// `ALU_RESULT_SEL_ALPHA`.
        Alpha = 1 => "a",
    }

    /// 2-bit channel select: TEX swizzles (§8.5) and the replicate channel
    /// of an FC predicate.
    pub enum Channel {
        /// Red.
        R = 0 => "r",
        /// Green.
        G = 1 => "g",
        /// Blue.
        B = 2 => "b",
        /// Alpha.
        A = 3 => "a",
    }

    /// `US_FC_INST.OP` loop-stack op (§8.1, CTM §3.5.3).
    pub enum FcOp {
        /// `FC_OP_JUMP`: no loop-stack op.
        Jump = 0 => "jump",
        /// `FC_OP_LOOP`.
        Loop = 1 => "loop",
        /// `FC_OP_ENDLOOP`.
        EndLoop = 2 => "endloop",
        /// `FC_OP_REP`.
        Rep = 3 => "rep",
        /// `FC_OP_ENDREP`.
        EndRep = 4 => "endrep",
        /// `FC_OP_BREAKLOOP`.
        BreakLoop = 5 => "breakloop",
        /// `FC_OP_BREAKREP`.
        BreakRep = 6 => "breakrep",
        /// `FC_OP_CONTINUE`.
        Continue = 7 => "continue",
    }

    /// `A_OP` address-stack op if the jump is taken (§8.1). Code 3 is undefined.
    pub enum AddrStackOp {
        /// `FC_A_OP_NONE`.
        None = 0 => "none",
        /// `FC_A_OP_POP`: the popped address replaces `JUMP_ADDR`.
        Pop = 1 => "pop",
        /// `FC_A_OP_PUSH`: push the current address.
        Push = 2 => "push",
    }

    /// `B_OP0`/`B_OP1` branch-counter op (§8.1). Code 3 is undefined.
    pub enum BranchOp {
        /// `FC_B_OP_NONE`.
        None = 0 => "none",
        /// `FC_B_OP_DECR`: subtract `B_POP_CNT` from inactive pixels' counters.
        Decr = 1 => "decr",
        /// `FC_B_OP_INCR`: increment, deactivating dissenting pixels.
        Incr = 2 => "incr",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tripwire (style §7): the golden tests enumerate `ALL`; if a value is
    /// added, these counts (and the docs) must be revisited.
    #[test]
    fn enum_sizes() {
        assert_eq!(InstType::COUNT, 4);
        assert_eq!(PredSel::COUNT, 5);
        assert_eq!(PresubOp::COUNT, 4);
        assert_eq!(InputSelect::COUNT, 4);
        assert_eq!(Swizzle::COUNT, 8);
        assert_eq!(InputModifier::COUNT, 4);
        assert_eq!(OutputModifier::COUNT, 8);
        assert_eq!(CompareOp::COUNT, 4);
        assert_eq!(RenderTarget::COUNT, 4);
        assert_eq!(AluResultSel::COUNT, 2);
        assert_eq!(RgbOp::COUNT, 12);
        assert_eq!(AlphaOp::COUNT, 15);
        assert_eq!(Channel::COUNT, 4);
        assert_eq!(FcOp::COUNT, 8);
        assert_eq!(AddrStackOp::COUNT, 3);
        assert_eq!(BranchOp::COUNT, 3);
        assert_eq!(TexOpcode::COUNT, 8);
    }

    #[test]
    fn undefined_codes_are_errors() {
        assert!(RgbOp::try_from(6).is_err());
        for c in 13..16 {
            assert!(RgbOp::try_from(c).is_err());
        }
        assert!(AlphaOp::try_from(4).is_err());
        assert!(PredSel::try_from(0).is_err());
        assert!(PredSel::try_from(6).is_err());
        assert!(PredSel::try_from(7).is_err());
        assert!(AddrStackOp::try_from(3).is_err());
        assert!(BranchOp::try_from(3).is_err());
    }

    #[test]
    fn codes_round_trip() {
        for op in RgbOp::ALL {
            assert_eq!(RgbOp::try_from(op.code()), Ok(*op));
            assert_eq!(RgbOp::from_mnemonic(op.mnemonic()), Some(*op));
        }
    }
}
