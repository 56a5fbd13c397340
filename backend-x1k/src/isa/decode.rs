//! Decoding six words into a typed [`Inst`], strictly.
//!
//! The decoder accepts exactly the words [`super::encode()`] can produce, so
//! `encode(&decode(w)?) == w` for every accepted `w`. It rejects, each with
//! a typed [`DecodeError`] naming the word, field and value:
//!
//! * bits in words the instruction type does not use (FC: words 1, 4, 5;
//!   TEX: words 4, 5, and word 3 unless the op is DXDY) — CTM §3.2 says the
//!   hardware ignores them, ctm requires 0;
//! * reserved bits of a used word (`x1k-encoding.md` §8);
//! * `US_CMN_INST` fields the CTM §3.2 table does not mark as effective for
//!   the type, and `STAT_WE` (§2: "write 0");
//! * undefined enumeration codes (opcodes, predicate selects 6/7, `A_OP` 3,
//!   `B_OP*` 3, ...);
//! * combinations the manual forbids or leaves meaningless: `*_PRED_INV`
//!   with `PRED_SEL` = NONE (CTM §3.3.6), a per-channel (RGBA) predicate on
//!   an FC instruction (CTM §3.5.1), `ALU_RESULT_SEL/OP` without
//!   `ALU_WMASK` (CTM §3.3.10), `W_OMASK` on an ALU (non-OUT) instruction,
//!   and an aL-relative inline constant (CTM §3.3.1).
//!
//! Semantic rules that hold across instructions or depend on the op
//! (OMOD_DISABLED only with MIN/MAX/CND/CMP, SOP/DP pairing, semaphores,
//! NOP hazards) are the hardware validator's job, not the decoder's.

use super::encode::WORDS_PER_SLOT;
use super::enums::{
    AlphaOp, AluResultSel, Channel, CompareOp, InputModifier, InputSelect, InstType,
    OutputModifier, PredSel, PresubOp, RenderTarget, RgbOp, Swizzle, TexOpcode, UnknownCode,
};
use super::fields::{
    FieldInfo, UsAluAlphaAddr, UsAluAlphaInst, UsAluRgbAddr, UsAluRgbInst, UsAluRgbaInst,
    UsCmnInst, UsFcAddr, UsFcInst, UsTexAddr, UsTexAddrDxdy, UsTexInst, cmn_fields_used,
    cmn_zero_mask, slot_layout,
};
use super::inst::{
    AlphaHalf, AlphaInput, AluInst, AluResult, AluWrites, FcInst, FcPredicate, Inst,
    JumpAddressing, OutputWrites, Predicate, PredicateWrites, RgbHalf, RgbInput, TexInst, TexOp,
    TexOperand,
};
use super::operand::{
    Addressing, AlphaMask, AluSource, BoolConstId, BranchPopCount, IntConstId, RgbMask, SlotIndex,
    TempAddr, TempReg, TexId,
};

use std::fmt;

/// Why a field that exists had to be zero.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ZeroReason {
    /// `*_PRED_INV` with `*_PRED_SEL` = NONE (CTM §3.3.6: "should be zero").
    PredicateSelectNone,
    /// `ALU_RESULT_SEL`/`ALU_RESULT_OP` with `ALU_WMASK` = 0 (CTM §3.3.10).
    AluResultNotWritten,
    /// `W_OMASK` on an ALU instruction: only OUT instructions write outputs (CTM §3.1).
    NotAnOutputInstruction,
    /// `US_TEX_ADDR_DXDY` on a TEX op other than DXDY (§8.6).
    NotDxdy,
}

impl fmt::Display for ZeroReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ZeroReason::PredicateSelectNone => "the predicate select is NONE",
            ZeroReason::AluResultNotWritten => "ALU_WMASK is 0",
            ZeroReason::NotAnOutputInstruction => "the instruction is ALU, not OUT",
            ZeroReason::NotDxdy => "the texture op is not DXDY",
        })
    }
}

/// Why six words are not a valid instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum DecodeError {
    /// A word the instruction type does not use is not 0.
    #[error("word {word} is unused by {inst_type} instructions and must be 0, found {value:#010x}")]
    UnusedWord {
        /// The instruction type.
        inst_type: InstType,
        /// The word index.
        word: u8,
        /// Its value.
        value: u32,
    },
    /// Reserved bits of a used word are set.
    #[error("word {word} ({register}): reserved bits {bits:#010x} are set")]
    ReservedBits {
        /// The word index.
        word: u8,
        /// The register occupying the word.
        register: &'static str,
        /// The offending bits.
        bits: u32,
    },
    /// A `US_CMN_INST` field not effective for this type is not 0 (CTM §3.2).
    #[error("{field} = {value:#x}: not used by {inst_type} instructions, must be 0")]
    FieldNotUsed {
        /// The instruction type.
        inst_type: InstType,
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
    },
    /// A field holds a code its enumeration does not define.
    #[error("{field} = {value}: not a defined value")]
    UndefinedValue {
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
    },
    /// A field must be 0 in this context.
    #[error("{field} = {value:#x} must be 0 because {reason}")]
    FieldMustBeZero {
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
        /// Why.
        reason: ZeroReason,
    },
    /// An inline constant with the aL-relative bit (CTM §3.3.1).
    #[error("{field}: an inline constant cannot be aL-relative")]
    RelativeInlineConstant {
        /// The `ADDRn_REL` field.
        field: FieldInfo,
    },
    /// An FC instruction with the per-channel (RGBA) predicate select (CTM §3.5.1).
    #[error("{field} = 1 (RGBA): flow control needs a replicate predicate select")]
    FcPerChannelPredicate {
        /// `US_CMN_INST.RGB_PRED_SEL`.
        field: FieldInfo,
    },
}

/// Why a word sequence is not a valid program.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ProgramDecodeError {
    /// The length is not a whole number of slots.
    #[error("program is {len} {unit} long, not a multiple of {per_slot}")]
    PartialSlot {
        /// The length.
        len: usize,
        /// `"words"` or `"bytes"`.
        unit: &'static str,
        /// Words or bytes per slot.
        per_slot: usize,
    },
    /// A slot does not decode.
    #[error("slot {slot}: {source}")]
    Slot {
        /// The slot index.
        slot: usize,
        /// The error.
        source: DecodeError,
    },
}

/// Read an enumeration field; an undefined code is an error naming the field.
fn enum_field<T: TryFrom<u32, Error = UnknownCode>>(
    field: FieldInfo,
    raw: u32,
) -> Result<T, DecodeError> {
    let value = field.extract(raw);
    T::try_from(value).map_err(|_| DecodeError::UndefinedValue { field, value })
}

fn flag(field: FieldInfo, raw: u32) -> bool {
    field.extract(raw) != 0
}

/// Decode a predicate select + invert pair (§2.1).
fn predicate(sel: FieldInfo, inv: FieldInfo, w0: u32) -> Result<Option<Predicate>, DecodeError> {
    let code = sel.extract(w0);
    let invert = flag(inv, w0);
    if code == 0 {
        if invert {
            return Err(DecodeError::FieldMustBeZero {
                field: inv,
                value: 1,
                reason: ZeroReason::PredicateSelectNone,
            });
        }
        return Ok(None);
    }
    let sel = enum_field::<PredSel>(sel, w0)?;
    Ok(Some(Predicate { sel, invert }))
}

/// Decode one instruction slot.
///
/// # Errors
/// A [`DecodeError`] naming the first offending word or field (module doc).
pub fn decode(words: &[u32; WORDS_PER_SLOT]) -> Result<Inst, DecodeError> {
    let w0 = words[0];
    let ty_code = UsCmnInst(w0).get(UsCmnInst::TYPE);
    let inst_type = enum_field::<InstType>(UsCmnInst::TYPE.info(), w0)?;

    // Unused words and reserved bits (§1.2, §8).
    for (i, (word, layout)) in words.iter().zip(slot_layout(ty_code)).enumerate() {
        let stray = word & layout.zero_mask;
        if stray != 0 {
            return Err(match layout.register {
                None => DecodeError::UnusedWord {
                    inst_type,
                    word: i as u8,
                    value: *word,
                },
                Some(register) => DecodeError::ReservedBits {
                    word: i as u8,
                    register,
                    bits: stray,
                },
            });
        }
    }
    // CMN fields not effective for this type (CTM §3.2 table).
    let stray = w0 & cmn_zero_mask(ty_code);
    if stray != 0 {
        let used = cmn_fields_used(ty_code);
        let field = UsCmnInst::FIELDS
            .iter()
            .find(|f| f.mask() & stray != 0 && !used.iter().any(|u| u.info() == **f))
            .copied()
            .unwrap_or(UsCmnInst::STAT_WE.info());
        return Err(DecodeError::FieldNotUsed {
            inst_type,
            field,
            value: field.extract(w0),
        });
    }

    match inst_type {
        InstType::Alu | InstType::Out => decode_alu(words, inst_type).map(Inst::Alu),
        InstType::Fc => decode_fc(words).map(Inst::Fc),
        InstType::Tex => decode_tex(words).map(Inst::Tex),
    }
}

/// Decode the three sources and presubtract op of an address word (§3.1).
macro_rules! address_word {
    ($reg:ident, $raw:expr) => {{
        let r = $reg($raw);
        let source = |addr: super::fields::Field<$reg>,
                      is_const: super::fields::Field<$reg>,
                      rel: super::fields::Field<$reg>|
         -> Result<AluSource, DecodeError> {
            AluSource::from_fields(r.get(addr), r.get(is_const), r.get(rel))
                .ok_or(DecodeError::RelativeInlineConstant { field: rel.info() })
        };
        let sources = [
            source($reg::ADDR0, $reg::ADDR0_CONST, $reg::ADDR0_REL)?,
            source($reg::ADDR1, $reg::ADDR1_CONST, $reg::ADDR1_REL)?,
            source($reg::ADDR2, $reg::ADDR2_CONST, $reg::ADDR2_REL)?,
        ];
        let presub = enum_field::<PresubOp>($reg::SRCP_OP.info(), $raw)?;
        (sources, presub)
    }};
}

fn rgb_input(
    raw: u32,
    sel: FieldInfo,
    swizzles: [FieldInfo; 3],
    modifier: FieldInfo,
) -> Result<RgbInput, DecodeError> {
    Ok(RgbInput {
        sel: enum_field::<InputSelect>(sel, raw)?,
        swizzle: [
            enum_field::<Swizzle>(swizzles[0], raw)?,
            enum_field::<Swizzle>(swizzles[1], raw)?,
            enum_field::<Swizzle>(swizzles[2], raw)?,
        ],
        modifier: enum_field::<InputModifier>(modifier, raw)?,
    })
}

fn alpha_input(
    raw: u32,
    sel: FieldInfo,
    swizzle: FieldInfo,
    modifier: FieldInfo,
) -> Result<AlphaInput, DecodeError> {
    Ok(AlphaInput {
        sel: enum_field::<InputSelect>(sel, raw)?,
        swizzle: enum_field::<Swizzle>(swizzle, raw)?,
        modifier: enum_field::<InputModifier>(modifier, raw)?,
    })
}

fn temp_addr(raw: u32, addr: FieldInfo, rel: FieldInfo) -> TempAddr {
    TempAddr {
        reg: TempReg::from_field(addr.extract(raw)),
        addressing: Addressing::from_bit(rel.extract(raw)),
    }
}

fn decode_alu(words: &[u32; WORDS_PER_SLOT], inst_type: InstType) -> Result<AluInst, DecodeError> {
    let [w0, w1, w2, w3, w4, w5] = *words;
    let cmn = UsCmnInst(w0);
    let rgb_inst = UsAluRgbInst(w3);
    let alpha_inst = UsAluAlphaInst(w4);

    let (rgb_sources, rgb_presub) = address_word!(UsAluRgbAddr, w1);
    let (alpha_sources, alpha_presub) = address_word!(UsAluAlphaAddr, w2);

    let i = |f: super::fields::Field<UsAluRgbInst>| f.info();
    let a = |f: super::fields::Field<UsAluAlphaInst>| f.info();
    let c = |f: super::fields::Field<UsAluRgbaInst>| f.info();
    let rgb = RgbHalf {
        op: enum_field::<RgbOp>(c(UsAluRgbaInst::RGB_OP), w5)?,
        inputs: [
            rgb_input(
                w3,
                i(UsAluRgbInst::RGB_SEL_A),
                [
                    i(UsAluRgbInst::RED_SWIZ_A),
                    i(UsAluRgbInst::GREEN_SWIZ_A),
                    i(UsAluRgbInst::BLUE_SWIZ_A),
                ],
                i(UsAluRgbInst::RGB_MOD_A),
            )?,
            rgb_input(
                w3,
                i(UsAluRgbInst::RGB_SEL_B),
                [
                    i(UsAluRgbInst::RED_SWIZ_B),
                    i(UsAluRgbInst::GREEN_SWIZ_B),
                    i(UsAluRgbInst::BLUE_SWIZ_B),
                ],
                i(UsAluRgbInst::RGB_MOD_B),
            )?,
            rgb_input(
                w5,
                c(UsAluRgbaInst::RGB_SEL_C),
                [
                    c(UsAluRgbaInst::RED_SWIZ_C),
                    c(UsAluRgbaInst::GREEN_SWIZ_C),
                    c(UsAluRgbaInst::BLUE_SWIZ_C),
                ],
                c(UsAluRgbaInst::RGB_MOD_C),
            )?,
        ],
        sources: rgb_sources,
        presub: rgb_presub,
        dest: temp_addr(
            w5,
            c(UsAluRgbaInst::RGB_ADDRD),
            c(UsAluRgbaInst::RGB_ADDRD_REL),
        ),
        write_mask: RgbMask::from_field(cmn.get(UsCmnInst::RGB_WMASK)),
        omod: enum_field::<OutputModifier>(i(UsAluRgbInst::OMOD), w3)?,
        clamp: cmn.get(UsCmnInst::RGB_CLAMP) != 0,
        predicate: predicate(
            UsCmnInst::RGB_PRED_SEL.info(),
            UsCmnInst::RGB_PRED_INV.info(),
            w0,
        )?,
    };
    let alpha = AlphaHalf {
        op: enum_field::<AlphaOp>(a(UsAluAlphaInst::ALPHA_OP), w4)?,
        inputs: [
            alpha_input(
                w4,
                a(UsAluAlphaInst::ALPHA_SEL_A),
                a(UsAluAlphaInst::ALPHA_SWIZ_A),
                a(UsAluAlphaInst::ALPHA_MOD_A),
            )?,
            alpha_input(
                w4,
                a(UsAluAlphaInst::ALPHA_SEL_B),
                a(UsAluAlphaInst::ALPHA_SWIZ_B),
                a(UsAluAlphaInst::ALPHA_MOD_B),
            )?,
            alpha_input(
                w5,
                c(UsAluRgbaInst::ALPHA_SEL_C),
                c(UsAluRgbaInst::ALPHA_SWIZ_C),
                c(UsAluRgbaInst::ALPHA_MOD_C),
            )?,
        ],
        sources: alpha_sources,
        presub: alpha_presub,
        dest: temp_addr(
            w4,
            a(UsAluAlphaInst::ALPHA_ADDRD),
            a(UsAluAlphaInst::ALPHA_ADDRD_REL),
        ),
        write_mask: AlphaMask::from_bit(cmn.get(UsCmnInst::ALPHA_WMASK)),
        omod: enum_field::<OutputModifier>(a(UsAluAlphaInst::OMOD), w4)?,
        clamp: cmn.get(UsCmnInst::ALPHA_CLAMP) != 0,
        predicate: predicate(
            UsCmnInst::ALPHA_PRED_SEL.info(),
            UsCmnInst::ALPHA_PRED_INV.info(),
            w0,
        )?,
    };

    let rgb_omask = RgbMask::from_field(cmn.get(UsCmnInst::RGB_OMASK));
    let alpha_omask = AlphaMask::from_bit(cmn.get(UsCmnInst::ALPHA_OMASK));
    let w_omask = alpha_inst.get(UsAluAlphaInst::W_OMASK);
    let writes = match inst_type {
        InstType::Out => AluWrites::Output(OutputWrites {
            rgb_mask: rgb_omask,
            rgb_target: enum_field::<RenderTarget>(i(UsAluRgbInst::TARGET), w3)?,
            alpha_mask: alpha_omask,
            alpha_target: enum_field::<RenderTarget>(a(UsAluAlphaInst::TARGET), w4)?,
            w: AlphaMask::from_bit(w_omask),
        }),
        _ => {
            if w_omask != 0 {
                return Err(DecodeError::FieldMustBeZero {
                    field: a(UsAluAlphaInst::W_OMASK),
                    value: w_omask,
                    reason: ZeroReason::NotAnOutputInstruction,
                });
            }
            AluWrites::Predicate(PredicateWrites {
                rgb_mask: rgb_omask,
                rgb_op: enum_field::<CompareOp>(i(UsAluRgbInst::TARGET), w3)?,
                alpha_mask: alpha_omask,
                alpha_op: enum_field::<CompareOp>(a(UsAluAlphaInst::TARGET), w4)?,
            })
        }
    };

    let alu_result = if rgb_inst.get(UsAluRgbInst::ALU_WMASK) != 0 {
        Some(AluResult {
            sel: enum_field::<AluResultSel>(UsCmnInst::ALU_RESULT_SEL.info(), w0)?,
            op: enum_field::<CompareOp>(UsCmnInst::ALU_RESULT_OP.info(), w0)?,
        })
    } else {
        for f in [UsCmnInst::ALU_RESULT_SEL, UsCmnInst::ALU_RESULT_OP] {
            let value = cmn.get(f);
            if value != 0 {
                return Err(DecodeError::FieldMustBeZero {
                    field: f.info(),
                    value,
                    reason: ZeroReason::AluResultNotWritten,
                });
            }
        }
        None
    };

    Ok(AluInst {
        rgb,
        alpha,
        writes,
        alu_result,
        sem_wait: cmn.get(UsCmnInst::TEX_SEM_WAIT) != 0,
        write_inactive: cmn.get(UsCmnInst::WRITE_INACTIVE) != 0,
        last: cmn.get(UsCmnInst::LAST) != 0,
        nop: cmn.get(UsCmnInst::NOP) != 0,
    })
}

fn decode_fc(words: &[u32; WORDS_PER_SLOT]) -> Result<FcInst, DecodeError> {
    let cmn = UsCmnInst(words[0]);
    let inst = UsFcInst(words[2]);
    let addr = UsFcAddr(words[3]);
    let f = |x: super::fields::Field<UsFcInst>| x.info();

    // CTM §3.5.1: FC predication must be a replicate select (or NONE).
    let predicate = match predicate(
        UsCmnInst::RGB_PRED_SEL.info(),
        UsCmnInst::RGB_PRED_INV.info(),
        words[0],
    )? {
        None => None,
        Some(Predicate { sel, invert }) => {
            let channel = match sel {
                PredSel::Rgba => {
                    return Err(DecodeError::FcPerChannelPredicate {
                        field: UsCmnInst::RGB_PRED_SEL.info(),
                    });
                }
                PredSel::Rrrr => Channel::R,
                PredSel::Gggg => Channel::G,
                PredSel::Bbbb => Channel::B,
                PredSel::Aaaa => Channel::A,
            };
            Some(FcPredicate { channel, invert })
        }
    };

    Ok(FcInst {
        op: enum_field(f(UsFcInst::OP), inst.0)?,
        jump_func: inst.get(UsFcInst::JUMP_FUNC) as u8,
        jump_any: inst.get(UsFcInst::JUMP_ANY) != 0,
        b_else: inst.get(UsFcInst::B_ELSE) != 0,
        a_op: enum_field(f(UsFcInst::A_OP), inst.0)?,
        b_op0: enum_field(f(UsFcInst::B_OP0), inst.0)?,
        b_op1: enum_field(f(UsFcInst::B_OP1), inst.0)?,
        b_pop_cnt: BranchPopCount::from_field(inst.get(UsFcInst::B_POP_CNT)),
        ignore_uncovered: inst.get(UsFcInst::IGNORE_UNCOVERED) != 0,
        bool_addr: BoolConstId::from_field(addr.get(UsFcAddr::BOOL_ADDR)),
        int_addr: IntConstId::from_field(addr.get(UsFcAddr::INT_ADDR)),
        jump_addr: SlotIndex::from_field(addr.get(UsFcAddr::JUMP_ADDR)),
        jump_addressing: if addr.get(UsFcAddr::JUMP_GLOBAL) != 0 {
            JumpAddressing::Global
        } else {
            JumpAddressing::Relative
        },
        predicate,
        sem_wait: cmn.get(UsCmnInst::TEX_SEM_WAIT) != 0,
        alu_wait: cmn.get(UsCmnInst::ALU_WAIT) != 0,
    })
}

fn channel(field: FieldInfo, raw: u32) -> Channel {
    match field.extract(raw) & 3 {
        0 => Channel::R,
        1 => Channel::G,
        2 => Channel::B,
        _ => Channel::A,
    }
}

fn decode_tex(words: &[u32; WORDS_PER_SLOT]) -> Result<TexInst, DecodeError> {
    let w0 = words[0];
    let cmn = UsCmnInst(w0);
    let inst = UsTexInst(words[1]);
    let w2 = words[2];
    let w3 = words[3];
    let t = |x: super::fields::Field<UsTexAddr>| x.info();
    let d = |x: super::fields::Field<UsTexAddrDxdy>| x.info();

    let opcode = enum_field::<TexOpcode>(UsTexInst::INST.info(), inst.0)?;
    let op = match opcode {
        TexOpcode::Nop => TexOp::Nop,
        TexOpcode::Ld => TexOp::Ld,
        TexOpcode::TexKill => TexOp::TexKill,
        TexOpcode::Proj => TexOp::Proj,
        TexOpcode::LodBias => TexOp::LodBias,
        TexOpcode::Lod => TexOp::Lod,
        TexOpcode::LdUncached => TexOp::LdUncached,
        TexOpcode::Dxdy => TexOp::Dxdy {
            dx: TexOperand {
                addr: temp_addr(w3, d(UsTexAddrDxdy::DX_ADDR), d(UsTexAddrDxdy::DX_ADDR_REL)),
                swizzle: [
                    channel(d(UsTexAddrDxdy::DX_S_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DX_T_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DX_R_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DX_Q_SWIZ), w3),
                ],
            },
            dy: TexOperand {
                addr: temp_addr(w3, d(UsTexAddrDxdy::DY_ADDR), d(UsTexAddrDxdy::DY_ADDR_REL)),
                swizzle: [
                    channel(d(UsTexAddrDxdy::DY_S_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DY_T_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DY_R_SWIZ), w3),
                    channel(d(UsTexAddrDxdy::DY_Q_SWIZ), w3),
                ],
            },
        },
    };
    if opcode != TexOpcode::Dxdy && w3 != 0 {
        // Name the lowest offending field of word 3.
        let field = UsTexAddrDxdy::FIELDS
            .iter()
            .find(|f| f.extract(w3) != 0)
            .copied();
        if let Some(field) = field {
            return Err(DecodeError::FieldMustBeZero {
                field,
                value: field.extract(w3),
                reason: ZeroReason::NotDxdy,
            });
        }
    }

    Ok(TexInst {
        op,
        tex_id: TexId::from_field(inst.get(UsTexInst::TEX_ID)),
        src: TexOperand {
            addr: temp_addr(w2, t(UsTexAddr::SRC_ADDR), t(UsTexAddr::SRC_ADDR_REL)),
            swizzle: [
                channel(t(UsTexAddr::SRC_S_SWIZ), w2),
                channel(t(UsTexAddr::SRC_T_SWIZ), w2),
                channel(t(UsTexAddr::SRC_R_SWIZ), w2),
                channel(t(UsTexAddr::SRC_Q_SWIZ), w2),
            ],
        },
        dst: temp_addr(w2, t(UsTexAddr::DST_ADDR), t(UsTexAddr::DST_ADDR_REL)),
        dst_swizzle: [
            channel(t(UsTexAddr::DST_R_SWIZ), w2),
            channel(t(UsTexAddr::DST_G_SWIZ), w2),
            channel(t(UsTexAddr::DST_B_SWIZ), w2),
            channel(t(UsTexAddr::DST_A_SWIZ), w2),
        ],
        rgb_write_mask: RgbMask::from_field(cmn.get(UsCmnInst::RGB_WMASK)),
        alpha_write_mask: AlphaMask::from_bit(cmn.get(UsCmnInst::ALPHA_WMASK)),
        rgb_predicate: predicate(
            UsCmnInst::RGB_PRED_SEL.info(),
            UsCmnInst::RGB_PRED_INV.info(),
            w0,
        )?,
        alpha_predicate: predicate(
            UsCmnInst::ALPHA_PRED_SEL.info(),
            UsCmnInst::ALPHA_PRED_INV.info(),
            w0,
        )?,
        sem_acquire: inst.get(UsTexInst::TEX_SEM_ACQUIRE) != 0,
        sem_wait: cmn.get(UsCmnInst::TEX_SEM_WAIT) != 0,
        alu_wait: cmn.get(UsCmnInst::ALU_WAIT) != 0,
        write_inactive: cmn.get(UsCmnInst::WRITE_INACTIVE) != 0,
        ignore_uncovered: inst.get(UsTexInst::IGNORE_UNCOVERED) != 0,
        unscaled: inst.get(UsTexInst::UNSCALED) != 0,
    })
}

/// Decode a program: six words per slot, slot 0 first.
///
/// # Errors
/// [`ProgramDecodeError::PartialSlot`] if `words.len()` is not a multiple of
/// 6; otherwise the first slot that does not decode. (The 512-slot limit is
/// the validator's to check.)
pub fn decode_program(words: &[u32]) -> Result<Vec<Inst>, ProgramDecodeError> {
    if !words.len().is_multiple_of(WORDS_PER_SLOT) {
        return Err(ProgramDecodeError::PartialSlot {
            len: words.len(),
            unit: "words",
            per_slot: WORDS_PER_SLOT,
        });
    }
    words
        .chunks_exact(WORDS_PER_SLOT)
        .enumerate()
        .map(|(slot, chunk)| {
            let mut slot_words = [0u32; WORDS_PER_SLOT];
            slot_words.copy_from_slice(chunk);
            decode(&slot_words).map_err(|source| ProgramDecodeError::Slot { slot, source })
        })
        .collect()
}

/// Decode `.text` bytes: little-endian words, six per slot, slot 0 first.
///
/// # Errors
/// As [`decode_program`]; also if the length is not a multiple of 24 bytes.
pub fn decode_program_bytes(bytes: &[u8]) -> Result<Vec<Inst>, ProgramDecodeError> {
    let per_slot = 4 * WORDS_PER_SLOT;
    if !bytes.len().is_multiple_of(per_slot) {
        return Err(ProgramDecodeError::PartialSlot {
            len: bytes.len(),
            unit: "bytes",
            per_slot,
        });
    }
    decode_program(&bytes_to_words(bytes))
}

/// Little-endian words of a byte sequence (a trailing partial word is dropped).
pub fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
