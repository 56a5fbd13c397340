//! The typed X1K instruction: one [`Inst`] value passes between the decoder,
//! the encoder, the formatter and the assembler (style §3).
//!
//! Every field of the six words that is meaningful for an instruction type
//! has a typed home here; fields that are not meaningful (CTM guide §3.2
//! table, unused words, reserved bits) do not, and the decoder requires them
//! to be zero. Invalid states are unrepresentable where the manual says
//! "must" (an FC predicate cannot be per-channel, CTM §3.5.1; gradients exist
//! only for DXDY), so [`crate::isa::encode()`] is total.
//!
//! The ALU is split into its two units, which are different types (style §3):
//! [`RgbHalf`] (vec3: three-channel swizzles, 3-bit write masks, [`RgbOp`])
//! and [`AlphaHalf`] (scalar: one swizzle, 1-bit masks, [`AlphaOp`]).

use super::enums::{
    AddrStackOp, AlphaOp, AluResultSel, BranchOp, Channel, CompareOp, FcOp, InputModifier,
    InputSelect, InstType, OutputModifier, PredSel, PresubOp, RenderTarget, RgbOp, Swizzle,
    TexOpcode,
};
use super::operand::{
    AlphaMask, AluSource, BoolConstId, BranchPopCount, IntConstId, RgbMask, SlotIndex, TempAddr,
    TexId,
};

/// One instruction slot (6 words), typed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Inst {
    /// `TYPE` = ALU or OUT (same layout; [`AluInst::writes`] tells which).
    Alu(AluInst),
    /// `TYPE` = FC.
    Fc(FcInst),
    /// `TYPE` = TEX.
    Tex(TexInst),
}

impl Inst {
    /// The `US_CMN_INST.TYPE` of this instruction.
    pub const fn inst_type(&self) -> InstType {
        match self {
            Inst::Alu(a) => match a.writes {
                AluWrites::Predicate(_) => InstType::Alu,
                AluWrites::Output(_) => InstType::Out,
            },
            Inst::Fc(_) => InstType::Fc,
            Inst::Tex(_) => InstType::Tex,
        }
    }
}

/// Predication of a unit's writes (`*_PRED_SEL` 1..=5 + `*_PRED_INV`).
/// "No predication" is `Option::<Predicate>::None`; NONE with INV set is
/// rejected by the decoder (CTM §3.3.6: INV "should be zero" then).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Predicate {
    /// Which predicate bit(s) gate each channel.
    pub sel: PredSel,
    /// Invert the selected bit(s).
    pub invert: bool,
}

/// One RGB input (A, B or C): select, three swizzles, modifier (§4, §6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RgbInput {
    /// Which source (or srcp) feeds the input.
    pub sel: InputSelect,
    /// Swizzle of the input's r, g, b.
    pub swizzle: [Swizzle; 3],
    /// Input modifier.
    pub modifier: InputModifier,
}

impl Default for RgbInput {
    /// All-zero encoding: `s0.rrr`.
    fn default() -> Self {
        RgbInput {
            sel: InputSelect::Src0,
            swizzle: [Swizzle::R; 3],
            modifier: InputModifier::None,
        }
    }
}

/// One alpha input (A, B or C): select, one swizzle, modifier (§5, §6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AlphaInput {
    /// Which source (or srcp) feeds the input.
    pub sel: InputSelect,
    /// The channel.
    pub swizzle: Swizzle,
    /// Input modifier.
    pub modifier: InputModifier,
}

impl Default for AlphaInput {
    /// All-zero encoding: `s0.r`.
    fn default() -> Self {
        AlphaInput {
            sel: InputSelect::Src0,
            swizzle: Swizzle::R,
            modifier: InputModifier::None,
        }
    }
}

/// The RGB (vec3) unit of an ALU/OUT instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RgbHalf {
    /// `RGB_OP` (word 5).
    pub op: RgbOp,
    /// Inputs A (word 3), B (word 3), C (word 5).
    pub inputs: [RgbInput; 3],
    /// Source addresses 0..2 for the RGB channels (word 1, §3).
    pub sources: [AluSource; 3],
    /// `SRCP_OP` of word 1.
    pub presub: PresubOp,
    /// `RGB_ADDRD`/`RGB_ADDRD_REL` (word 5).
    pub dest: TempAddr,
    /// `RGB_WMASK` (word 0).
    pub write_mask: RgbMask,
    /// `OMOD` of word 3.
    pub omod: OutputModifier,
    /// `RGB_CLAMP` (word 0): saturate to [0, 1] after OMOD.
    pub clamp: bool,
    /// `RGB_PRED_SEL`/`RGB_PRED_INV` (word 0).
    pub predicate: Option<Predicate>,
}

impl Default for RgbHalf {
    /// The all-zero encoding except unused sources (`ADDRn` = 0x80).
    fn default() -> Self {
        RgbHalf {
            op: RgbOp::Mad,
            inputs: [RgbInput::default(); 3],
            sources: [AluSource::UNUSED; 3],
            presub: PresubOp::Bias,
            dest: TempAddr::default(),
            write_mask: RgbMask::NONE,
            omod: OutputModifier::Mul1,
            clamp: false,
            predicate: None,
        }
    }
}

/// The alpha (scalar) unit of an ALU/OUT instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AlphaHalf {
    /// `ALPHA_OP` (word 4).
    pub op: AlphaOp,
    /// Inputs A (word 4), B (word 4), C (word 5).
    pub inputs: [AlphaInput; 3],
    /// Source addresses 0..2 for the alpha channel (word 2, §3).
    pub sources: [AluSource; 3],
    /// `SRCP_OP` of word 2.
    pub presub: PresubOp,
    /// `ALPHA_ADDRD`/`ALPHA_ADDRD_REL` (word 4).
    pub dest: TempAddr,
    /// `ALPHA_WMASK` (word 0).
    pub write_mask: AlphaMask,
    /// `OMOD` of word 4.
    pub omod: OutputModifier,
    /// `ALPHA_CLAMP` (word 0).
    pub clamp: bool,
    /// `ALPHA_PRED_SEL`/`ALPHA_PRED_INV` (word 0).
    pub predicate: Option<Predicate>,
}

impl Default for AlphaHalf {
    /// The all-zero encoding except unused sources (`ADDRn` = 0x80).
    fn default() -> Self {
        AlphaHalf {
            op: AlphaOp::Mad,
            inputs: [AlphaInput::default(); 3],
            sources: [AluSource::UNUSED; 3],
            presub: PresubOp::Bias,
            dest: TempAddr::default(),
            write_mask: AlphaMask::Off,
            omod: OutputModifier::Mul1,
            clamp: false,
            predicate: None,
        }
    }
}

/// What `RGB_OMASK`/`ALPHA_OMASK` and the two `TARGET` fields mean: the only
/// difference between ALU and OUT instructions (CTM §3.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluWrites {
    /// `TYPE` = ALU: the masks update predicate bits (CTM §3.3.9).
    Predicate(PredicateWrites),
    /// `TYPE` = OUT: the masks write render targets (CTM §3.3.8).
    Output(OutputWrites),
}

impl Default for AluWrites {
    fn default() -> Self {
        AluWrites::Predicate(PredicateWrites::default())
    }
}

/// Predicate-bit updates of an ALU instruction (CTM §3.3.9).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PredicateWrites {
    /// `RGB_OMASK`: which of predicate bits R, G, B to update.
    pub rgb_mask: RgbMask,
    /// RGB `TARGET`: how the RGB result is compared with zero.
    pub rgb_op: CompareOp,
    /// `ALPHA_OMASK`: update predicate bit A.
    pub alpha_mask: AlphaMask,
    /// Alpha `TARGET`: how the alpha result is compared with zero.
    pub alpha_op: CompareOp,
}

impl Default for PredicateWrites {
    fn default() -> Self {
        PredicateWrites {
            rgb_mask: RgbMask::NONE,
            rgb_op: CompareOp::Eq,
            alpha_mask: AlphaMask::Off,
            alpha_op: CompareOp::Eq,
        }
    }
}

/// Output writes of an OUT instruction (CTM §3.3.6, §3.3.8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OutputWrites {
    /// `RGB_OMASK`: which of R, G, B to write to `rgb_target`.
    pub rgb_mask: RgbMask,
    /// RGB `TARGET` (in a UMRT program: the UMRT write kind).
    pub rgb_target: RenderTarget,
    /// `ALPHA_OMASK`: write A to `alpha_target`.
    pub alpha_mask: AlphaMask,
    /// Alpha `TARGET` (ignored in a UMRT program, CTM §3.3.8).
    pub alpha_target: RenderTarget,
    /// `W_OMASK`: write the alpha result to the W (depth) output — in CTM
    /// the conditional-output value (`x1k-encoding.md` §5, inference).
    pub w: AlphaMask,
}

impl Default for OutputWrites {
    fn default() -> Self {
        OutputWrites {
            rgb_mask: RgbMask::NONE,
            rgb_target: RenderTarget::A,
            alpha_mask: AlphaMask::Off,
            alpha_target: RenderTarget::A,
            w: AlphaMask::Off,
        }
    }
}

/// The UMRT write kinds the RGB `TARGET` selects in an uncached-output
/// program (CTM §3.3.8). The numeric codes are not documented anywhere;
/// ctm uses the listed order, which makes bit 0 "acquire the texture
/// semaphore" and bit 1 "per-processor index" (`docs/isa-x1k.md`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UmrtTarget {
    /// `RNDR_TGT_UMRT_SAME_IDX` (code 0).
    SameIdx,
    /// `RNDR_TGT_UMRT_SAME_IDX_TEX_SEM_ACQUIRE` (code 1).
    SameIdxAcquire,
    /// `RNDR_TGT_UMRT_PER_PROCESSOR_IDX` (code 2).
    PerProcessorIdx,
    /// `RNDR_TGT_UMRT_PER_PROCESSOR_IDX_TEX_SEM_ACQUIRE` (code 3).
    PerProcessorIdxAcquire,
}

impl UmrtTarget {
    /// The UMRT kind a `TARGET` code selects in a UMRT program.
    pub const fn from_target(target: RenderTarget) -> Self {
        match target {
            RenderTarget::A => UmrtTarget::SameIdx,
            RenderTarget::B => UmrtTarget::SameIdxAcquire,
            RenderTarget::C => UmrtTarget::PerProcessorIdx,
            RenderTarget::D => UmrtTarget::PerProcessorIdxAcquire,
        }
    }

    /// The `TARGET` code of this UMRT kind.
    pub const fn target(self) -> RenderTarget {
        match self {
            UmrtTarget::SameIdx => RenderTarget::A,
            UmrtTarget::SameIdxAcquire => RenderTarget::B,
            UmrtTarget::PerProcessorIdx => RenderTarget::C,
            UmrtTarget::PerProcessorIdxAcquire => RenderTarget::D,
        }
    }

    /// Whether this write acquires the texture semaphore.
    pub const fn acquires_semaphore(self) -> bool {
        matches!(
            self,
            UmrtTarget::SameIdxAcquire | UmrtTarget::PerProcessorIdxAcquire
        )
    }
}

/// ALU-result update (`ALU_WMASK` = 1 with `ALU_RESULT_SEL`/`ALU_RESULT_OP`,
/// CTM §3.3.10). With `ALU_WMASK` = 0 the decoder requires SEL/OP = 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AluResult {
    /// Channel compared.
    pub sel: AluResultSel,
    /// Comparison with zero.
    pub op: CompareOp,
}

/// An ALU or OUT instruction (words 0..5 all used).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct AluInst {
    /// The RGB unit.
    pub rgb: RgbHalf,
    /// The alpha unit.
    pub alpha: AlphaHalf,
    /// ALU (predicate writes) or OUT (output writes).
    pub writes: AluWrites,
    /// `ALU_WMASK` + `ALU_RESULT_SEL`/`ALU_RESULT_OP`.
    pub alu_result: Option<AluResult>,
    /// `TEX_SEM_WAIT`.
    pub sem_wait: bool,
    /// `WRITE_INACTIVE`: also write channels of inactive pixels.
    pub write_inactive: bool,
    /// `LAST`: active pixels may terminate after this instruction.
    pub last: bool,
    /// `NOP`: insert a bubble after this instruction (CTM §3.3.2).
    pub nop: bool,
}

/// The predicate fed to an FC instruction's `JUMP_FUNC`: one replicated
/// channel (CTM §3.5.1: "one of the replicate swizzles must be used").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FcPredicate {
    /// The predicate bit.
    pub channel: Channel,
    /// Invert it.
    pub invert: bool,
}

impl FcPredicate {
    /// The `RGB_PRED_SEL` code (2..=5 = RRRR..AAAA).
    pub const fn sel(self) -> PredSel {
        match self.channel {
            Channel::R => PredSel::Rrrr,
            Channel::G => PredSel::Gggg,
            Channel::B => PredSel::Bbbb,
            Channel::A => PredSel::Aaaa,
        }
    }
}

/// Where `JUMP_ADDR` points (`JUMP_GLOBAL`, §8.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum JumpAddressing {
    /// Relative to `US_CODE_OFFSET.OFFSET_ADDR` (`JUMP_GLOBAL` = 0).
    #[default]
    Relative,
    /// Absolute (`JUMP_GLOBAL` = 1).
    Global,
}

/// A flow-control instruction (words 0, 2, 3; CTM §3.5.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FcInst {
    /// `OP`: loop-stack op.
    pub op: FcOp,
    /// `JUMP_FUNC`: bit `(alu_result << 2) | (predicate << 1) | boolean`.
    pub jump_func: u8,
    /// `JUMP_ANY`: jump if any (rather than all) active pixel wants to.
    pub jump_any: bool,
    /// `B_ELSE`: else-swap before executing.
    pub b_else: bool,
    /// `A_OP`: address-stack op if the jump is taken.
    pub a_op: AddrStackOp,
    /// `B_OP0`: branch-counter op if the jump is not taken.
    pub b_op0: BranchOp,
    /// `B_OP1`: branch-counter op if the jump is taken.
    pub b_op1: BranchOp,
    /// `B_POP_CNT`.
    pub b_pop_cnt: BranchPopCount,
    /// `IGNORE_UNCOVERED`.
    pub ignore_uncovered: bool,
    /// `BOOL_ADDR`.
    pub bool_addr: BoolConstId,
    /// `INT_ADDR`.
    pub int_addr: IntConstId,
    /// `JUMP_ADDR`.
    pub jump_addr: SlotIndex,
    /// `JUMP_GLOBAL`.
    pub jump_addressing: JumpAddressing,
    /// `RGB_PRED_SEL`/`RGB_PRED_INV`: the predicate input of `JUMP_FUNC`.
    pub predicate: Option<FcPredicate>,
    /// `TEX_SEM_WAIT` (CTM §3.7 errata).
    pub sem_wait: bool,
    /// `ALU_WAIT`.
    pub alu_wait: bool,
}

impl Default for FcInst {
    fn default() -> Self {
        FcInst {
            op: FcOp::Jump,
            jump_func: 0,
            jump_any: false,
            b_else: false,
            a_op: AddrStackOp::None,
            b_op0: BranchOp::None,
            b_op1: BranchOp::None,
            b_pop_cnt: BranchPopCount::default(),
            ignore_uncovered: false,
            bool_addr: BoolConstId::default(),
            int_addr: IntConstId::default(),
            jump_addr: SlotIndex::default(),
            jump_addressing: JumpAddressing::Relative,
            predicate: None,
            sem_wait: false,
            alu_wait: false,
        }
    }
}

/// A swizzled temporary read by the texture unit (coordinates or a gradient).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TexOperand {
    /// The temporary.
    pub addr: TempAddr,
    /// Channel used as S, T, R, Q.
    pub swizzle: [Channel; 4],
}

impl Default for TexOperand {
    /// All-zero encoding: `r0.rrrr`.
    fn default() -> Self {
        TexOperand {
            addr: TempAddr::default(),
            swizzle: [Channel::R; 4],
        }
    }
}

/// A texture opcode with its operation-specific operands: the gradients of
/// word 3 exist only for DXDY (word 3 must be 0 otherwise).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TexOp {
    /// `TEX_INST_NOP`.
    Nop,
    /// `TEX_INST_LOOKUP`.
    Ld,
    /// `TEX_INST_KILL_LT_0`.
    TexKill,
    /// `TEX_INST_LOOKUP_PROJ`.
    Proj,
    /// Lookup with LOD bias.
    LodBias,
    /// Lookup with explicit LOD.
    Lod,
    /// Lookup with explicit gradients (word 3).
    Dxdy {
        /// d/dx.
        dx: TexOperand,
        /// d/dy.
        dy: TexOperand,
    },
    /// `TEX_INST_LOOKUP_UNCACHED`.
    LdUncached,
}

impl TexInst {
    /// The channels of the source register the op reads (bit 0 = R), from
    /// the opcode table's [`CoordReads`](crate::isa::CoordReads): S and T,
    /// or S, T and Q, through the source swizzle; TEXKILL the channels of
    /// its write mask, swizzle ignored (CTM §3.4.1). DXDY's gradient
    /// operands are separate.
    pub fn coordinate_channels(&self) -> u8 {
        use crate::isa::CoordReads;
        let s = self.src.swizzle;
        let bit = |c: Channel| 1u8 << c.code();
        match self.op.opcode().facts().coords {
            CoordReads::None => 0,
            CoordReads::St => bit(s[0]) | bit(s[1]),
            CoordReads::Stq => bit(s[0]) | bit(s[1]) | bit(s[3]),
            CoordReads::WriteMask => {
                self.rgb_write_mask.bits() as u8 | ((self.alpha_write_mask.bit() as u8) << 3)
            }
        }
    }
}

impl TexOp {
    /// The `INST` code.
    pub const fn opcode(&self) -> TexOpcode {
        match self {
            TexOp::Nop => TexOpcode::Nop,
            TexOp::Ld => TexOpcode::Ld,
            TexOp::TexKill => TexOpcode::TexKill,
            TexOp::Proj => TexOpcode::Proj,
            TexOp::LodBias => TexOpcode::LodBias,
            TexOp::Lod => TexOpcode::Lod,
            TexOp::Dxdy { .. } => TexOpcode::Dxdy,
            TexOp::LdUncached => TexOpcode::LdUncached,
        }
    }
}

/// A texture instruction (words 0..3; CTM §3.4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TexInst {
    /// The operation (with DXDY gradients).
    pub op: TexOp,
    /// `TEX_ID`.
    pub tex_id: TexId,
    /// `SRC_ADDR`/`SRC_ADDR_REL`/`SRC_*_SWIZ`: the coordinates.
    pub src: TexOperand,
    /// `DST_ADDR`/`DST_ADDR_REL`.
    pub dst: TempAddr,
    /// `DST_*_SWIZ`: which returned channel goes to dst.r, .g, .b, .a.
    pub dst_swizzle: [Channel; 4],
    /// `RGB_WMASK`.
    pub rgb_write_mask: RgbMask,
    /// `ALPHA_WMASK`.
    pub alpha_write_mask: AlphaMask,
    /// `RGB_PRED_SEL`/`RGB_PRED_INV`: predication of the RGB result.
    pub rgb_predicate: Option<Predicate>,
    /// `ALPHA_PRED_SEL`/`ALPHA_PRED_INV`: predication of the alpha result.
    pub alpha_predicate: Option<Predicate>,
    /// `TEX_SEM_ACQUIRE`.
    pub sem_acquire: bool,
    /// `TEX_SEM_WAIT`.
    pub sem_wait: bool,
    /// `ALU_WAIT`.
    pub alu_wait: bool,
    /// `WRITE_INACTIVE`.
    pub write_inactive: bool,
    /// `IGNORE_UNCOVERED`.
    pub ignore_uncovered: bool,
    /// `UNSCALED`.
    pub unscaled: bool,
}

impl Default for TexInst {
    fn default() -> Self {
        TexInst {
            op: TexOp::Nop,
            tex_id: TexId::default(),
            src: TexOperand::default(),
            dst: TempAddr::default(),
            dst_swizzle: [Channel::R, Channel::G, Channel::B, Channel::A],
            rgb_write_mask: RgbMask::NONE,
            alpha_write_mask: AlphaMask::Off,
            rgb_predicate: None,
            alpha_predicate: None,
            sem_acquire: false,
            sem_wait: false,
            alu_wait: false,
            write_inactive: false,
            ignore_uncovered: false,
            unscaled: false,
        }
    }
}
