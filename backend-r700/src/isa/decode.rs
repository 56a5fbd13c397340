//! Decoding microcode dwords into typed instructions, strictly.
//!
//! Each decoder accepts exactly the dwords its encoder can produce, so
//! `encode(decode(w)?) == w` for every accepted `w`. It rejects, each with a
//! typed [`DecodeError`] naming the word, field and value:
//!
//! * undefined enumeration codes (opcodes, selects, modes; digest §3);
//! * reserved bits that are set (digest §2: CF_WORD1 bit 20, the unused
//!   bits of `_BUF`/`_SWIZ`, `TEX_WORD0` bit 6 and `[31:25]`, ...) and a
//!   non-zero fourth dword of a fetch instruction;
//! * `MEM_REQ_SIZE` ≠ 0 ("must be cleared for R700", L8670);
//! * fetch formats ctm does not model in the clause at hand (TEX_INST 0-2
//!   in a TEX clause, the data-share MEM_OPs 4-5).
//!
//! Nothing here panics on any input. Rules about how instructions combine
//! (units, read ports, kcache, flow control) belong to the validator.

use super::alu::{AluDst, AluForm, AluInst, Op2Form, Op3Form};
use super::cf::{CfAllocIo, CfAlu, CfExport, CfFlags, CfGeneral, CfInst, CfMem, Kcache};
use super::encode::{GroupEnd, SRC0, SRC1, SRC2, SrcFields, VTX_INST_MEM};
use super::enums::{Chan, UnknownCode};
use super::fetch::{FetchFormat, MemRdInst, TexInst, VtxClauseInst, VtxDst, VtxInst};
use super::fields::{
    AluWord0, AluWord1, AluWord1Op2, AluWord1Op3, CfAllocExportWord0, CfAllocExportWord1,
    CfAllocExportWord1Buf, CfAllocExportWord1Swiz, CfAluWord0, CfAluWord1, CfWord0, CfWord1, Dword,
    Field, FieldInfo, MemRdWord0, MemRdWord1, MemRdWord2, TexWord0, TexWord1, TexWord2, VtxWord0,
    VtxWord1, VtxWord1Gpr, VtxWord1Sem, VtxWord2, Word, reserved,
};
use super::opcodes::{CfAluOp, CfExportOp, CfMemOp, CfOp, Op2, Op3, TexOp};
use super::operand::{
    AluClauseAddr, AluSlotCount, AluSrc, AluSrcSel, ArrayBase, ArraySize, BurstCount, CallCount,
    CfConst, CompMask, ElemSize, FetchCount, Gpr, KcacheBank, LodBias, MegaFetchCount, PopCount,
    SamplerId, TexOffset,
};

/// Why a fetch instruction is not accepted although its code is defined.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unmodelled {
    /// TEX_INST 0-2 (vertex fetch, semantic fetch, MEM/data share) in a TEX
    /// clause: on R700 Mesa never emits them, and their layout through the
    /// texture path is not documented.
    NotATextureFormat,
    /// MEM_OP 4-5, the data-share (LDS) formats `MEM_DSW`/`MEM_DSR`.
    DataShare,
    /// VTX_INST 3-31 (the manual: "all other values are illegal").
    NotAVertexFormat,
}

impl std::fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unmodelled::NotATextureFormat => "not a texture-format instruction",
            Unmodelled::DataShare => "a data-share (LDS) instruction, which ctm does not model",
            Unmodelled::NotAVertexFormat => "not a vertex-fetch instruction",
        })
    }
}

/// Why dwords are not a valid instruction.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum DecodeError {
    /// A field holds a code its enumeration does not define.
    #[error("{field} = {value}: not a defined value")]
    UndefinedValue {
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
    },
    /// Reserved bits of a word are set.
    #[error("{word}: reserved bits {bits:#010x} are set")]
    ReservedBits {
        /// The word's manual name.
        word: &'static str,
        /// The offending bits.
        bits: u32,
    },
    /// The fourth (padding) dword of a fetch instruction is not zero.
    #[error("dword 3 of a fetch instruction must be 0, found {value:#010x}")]
    NonZeroPadding {
        /// Its value.
        value: u32,
    },
    /// A field that must be zero is not.
    #[error("{field} = {value}: must be 0")]
    FieldMustBeZero {
        /// The field.
        field: FieldInfo,
        /// Its value.
        value: u32,
    },
    /// A defined instruction that ctm does not model in this clause.
    #[error("{field} = {value}: {reason}")]
    Unmodelled {
        /// The opcode field.
        field: FieldInfo,
        /// Its value.
        value: u32,
        /// Why.
        reason: Unmodelled,
    },
}

/// Read an enumerated field, mapping an undefined code to an error.
fn enum_field<W: Word<Location = Dword>, T>(raw: u32, field: Field<W>) -> Result<T, DecodeError>
where
    T: TryFrom<u32, Error = UnknownCode>,
{
    let info = field.info();
    let value = info.extract(raw);
    T::try_from(value).map_err(|_| DecodeError::UndefinedValue { field: info, value })
}

fn flag<W: Word<Location = Dword>>(raw: u32, field: Field<W>) -> bool {
    field.info().extract(raw) != 0
}

fn num<W: Word<Location = Dword>>(raw: u32, field: Field<W>) -> u32 {
    field.info().extract(raw)
}

fn check_reserved(word: &'static str, raw: u32, mask: u32) -> Result<(), DecodeError> {
    match raw & mask {
        0 => Ok(()),
        bits => Err(DecodeError::ReservedBits { word, bits }),
    }
}

/// Decode one CF instruction from its two dwords (digest §2.0: bit 29 of
/// dword 1 selects `CF_ALU`; otherwise `CF_INST` picks the format).
pub fn decode_cf(words: [u32; 2]) -> Result<CfInst, DecodeError> {
    let [w0, w1] = words;
    // CF_ALU_WORD1.CF_INST is 8..=15, so its top bit (bit 29) is set; no
    // CF_WORD1/CF_ALLOC_EXPORT_WORD1 opcode (< 64) has bit 29 set.
    if num(w1, CfAluWord1::CF_INST) & 8 != 0 {
        return decode_cf_alu(w0, w1).map(CfInst::Alu);
    }
    let code = num(w1, CfWord1::CF_INST);
    if let Ok(op) = CfExportOp::try_from(code) {
        check_reserved(
            CfAllocExportWord1Swiz::NAME,
            w1,
            reserved::CF_ALLOC_EXPORT_WORD1_SWIZ,
        )?;
        let swizzle = enum4(
            w1,
            [
                CfAllocExportWord1Swiz::SEL_X,
                CfAllocExportWord1Swiz::SEL_Y,
                CfAllocExportWord1Swiz::SEL_Z,
                CfAllocExportWord1Swiz::SEL_W,
            ],
        )?;
        return Ok(CfInst::Export(CfExport {
            op,
            export_type: enum_field(w0, CfAllocExportWord0::TYPE)?,
            swizzle,
            io: decode_alloc_io(w0, w1),
        }));
    }
    if let Ok(op) = CfMemOp::try_from(code) {
        check_reserved(
            CfAllocExportWord1Buf::NAME,
            w1,
            reserved::CF_ALLOC_EXPORT_WORD1_BUF,
        )?;
        return Ok(CfInst::Mem(CfMem {
            op,
            access: enum_field(w0, CfAllocExportWord0::TYPE)?,
            array_size: ArraySize::from_field(num(w1, CfAllocExportWord1Buf::ARRAY_SIZE)),
            comp_mask: CompMask::from_field(num(w1, CfAllocExportWord1Buf::COMP_MASK)),
            io: decode_alloc_io(w0, w1),
        }));
    }
    let op: CfOp = enum_field(w1, CfWord1::CF_INST)?;
    check_reserved(CfWord1::NAME, w1, reserved::CF_WORD1)?;
    let count = num(w1, CfWord1::COUNT) | (num(w1, CfWord1::COUNT_3) << 3);
    Ok(CfInst::Cf(CfGeneral {
        op,
        addr: num(w0, CfWord0::ADDR),
        count: FetchCount::from_field(count),
        pop_count: PopCount::from_field(num(w1, CfWord1::POP_COUNT)),
        cf_const: CfConst::from_field(num(w1, CfWord1::CF_CONST)),
        cond: enum_field(w1, CfWord1::COND)?,
        call_count: CallCount::from_field(num(w1, CfWord1::CALL_COUNT)),
        flags: CfFlags {
            end_of_program: flag(w1, CfWord1::END_OF_PROGRAM),
            valid_pixel_mode: flag(w1, CfWord1::VALID_PIXEL_MODE),
            whole_quad_mode: flag(w1, CfWord1::WHOLE_QUAD_MODE),
            barrier: flag(w1, CfWord1::BARRIER),
        },
    }))
}

fn decode_cf_alu(w0: u32, w1: u32) -> Result<CfAlu, DecodeError> {
    let op: CfAluOp = enum_field(w1, CfAluWord1::CF_INST)?;
    Ok(CfAlu {
        op,
        addr: AluClauseAddr::from_field(num(w0, CfAluWord0::ADDR)),
        count: AluSlotCount::from_field(num(w1, CfAluWord1::COUNT)),
        kcache: [
            Kcache {
                mode: enum_field(w0, CfAluWord0::KCACHE_MODE0)?,
                bank: KcacheBank::from_field(num(w0, CfAluWord0::KCACHE_BANK0)),
                line: num(w1, CfAluWord1::KCACHE_ADDR0) as u8,
            },
            Kcache {
                mode: enum_field(w1, CfAluWord1::KCACHE_MODE1)?,
                bank: KcacheBank::from_field(num(w0, CfAluWord0::KCACHE_BANK1)),
                line: num(w1, CfAluWord1::KCACHE_ADDR1) as u8,
            },
        ],
        alt_const: flag(w1, CfAluWord1::ALT_CONST),
        whole_quad_mode: flag(w1, CfAluWord1::WHOLE_QUAD_MODE),
        barrier: flag(w1, CfAluWord1::BARRIER),
    })
}

fn decode_alloc_io(w0: u32, w1: u32) -> CfAllocIo {
    CfAllocIo {
        array_base: ArrayBase::from_field(num(w0, CfAllocExportWord0::ARRAY_BASE)),
        rw_gpr: Gpr::from_field(num(w0, CfAllocExportWord0::RW_GPR)),
        rw_rel: flag(w0, CfAllocExportWord0::RW_REL),
        index_gpr: Gpr::from_field(num(w0, CfAllocExportWord0::INDEX_GPR)),
        elem_size: ElemSize::from_field(num(w0, CfAllocExportWord0::ELEM_SIZE)),
        burst_count: BurstCount::from_field(num(w1, CfAllocExportWord1::BURST_COUNT)),
        flags: CfFlags {
            end_of_program: flag(w1, CfAllocExportWord1::END_OF_PROGRAM),
            valid_pixel_mode: flag(w1, CfAllocExportWord1::VALID_PIXEL_MODE),
            whole_quad_mode: flag(w1, CfAllocExportWord1::WHOLE_QUAD_MODE),
            barrier: flag(w1, CfAllocExportWord1::BARRIER),
        },
    }
}

fn decode_src<W: Word<Location = Dword>>(
    raw: u32,
    fields: &SrcFields<W>,
) -> Result<AluSrc, DecodeError> {
    let sel_info = fields.sel.info();
    let sel_code = sel_info.extract(raw);
    let sel = AluSrcSel::from_code(sel_code).map_err(|_| DecodeError::UndefinedValue {
        field: sel_info,
        value: sel_code,
    })?;
    Ok(AluSrc {
        sel,
        chan: Chan::from_index(num(raw, fields.chan) as usize),
        rel: flag(raw, fields.rel),
        neg: flag(raw, fields.neg),
    })
}

/// Decode one ALU instruction from its two dwords, with its `LAST` bit
/// (digest §2.0: OP3 if any of bits `[17:15]` of dword 1 is set).
pub fn decode_alu(words: [u32; 2]) -> Result<(AluInst, GroupEnd), DecodeError> {
    let [w0, w1] = words;
    let src0 = decode_src(w0, &SRC0)?;
    let src1 = decode_src(w0, &SRC1)?;
    // Every OP2 opcode is below 256, so bits [17:15] of ALU_INST [17:7] are
    // zero; every OP3 opcode is 8 or more in [17:13], so one of them is set.
    let form = if num(w1, AluWord1Op2::ALU_INST) >> 8 != 0 {
        let op: Op3 = enum_field(w1, AluWord1Op3::ALU_INST)?;
        AluForm::Op3(Op3Form {
            op,
            src: [src0, src1, decode_src(w1, &SRC2)?],
        })
    } else {
        let op: Op2 = enum_field(w1, AluWord1Op2::ALU_INST)?;
        AluForm::Op2(Op2Form {
            op,
            src: [src0, src1],
            abs: [
                flag(w1, AluWord1Op2::SRC0_ABS),
                flag(w1, AluWord1Op2::SRC1_ABS),
            ],
            write_mask: flag(w1, AluWord1Op2::WRITE_MASK),
            update_pred: flag(w1, AluWord1Op2::UPDATE_PRED),
            update_exec_mask: flag(w1, AluWord1Op2::UPDATE_EXECUTE_MASK),
            omod: enum_field(w1, AluWord1Op2::OMOD)?,
        })
    };
    let inst = AluInst {
        form,
        dst: AluDst {
            gpr: Gpr::from_field(num(w1, AluWord1::DST_GPR)),
            rel: flag(w1, AluWord1::DST_REL),
            chan: Chan::from_index(num(w1, AluWord1::DST_ELEM) as usize),
        },
        clamp: flag(w1, AluWord1::CLAMP),
        bank_swizzle: enum_field(w1, AluWord1::BANK_SWIZZLE)?,
        index_mode: enum_field(w0, AluWord0::INDEX_MODE)?,
        pred_sel: enum_field(w0, AluWord0::PRED_SEL)?,
    };
    let end = if flag(w0, AluWord0::LAST) {
        GroupEnd::Last
    } else {
        GroupEnd::More
    };
    Ok((inst, end))
}

fn check_padding(words: &[u32; 4]) -> Result<(), DecodeError> {
    match words[3] {
        0 => Ok(()),
        value => Err(DecodeError::NonZeroPadding { value }),
    }
}

/// Four enumerated fields (X, Y, Z, W selects or types) of one word.
fn enum4<W: Word<Location = Dword>, T>(
    raw: u32,
    fields: [Field<W>; 4],
) -> Result<[T; 4], DecodeError>
where
    T: TryFrom<u32, Error = UnknownCode>,
{
    let [x, y, z, w] = fields;
    Ok([
        enum_field(raw, x)?,
        enum_field(raw, y)?,
        enum_field(raw, z)?,
        enum_field(raw, w)?,
    ])
}

/// Decode one instruction of a TEX clause from its four dwords.
pub fn decode_tex(words: [u32; 4]) -> Result<TexInst, DecodeError> {
    check_padding(&words)?;
    let [w0, w1, w2, _] = words;
    let code = num(w0, TexWord0::TEX_INST);
    if code <= VTX_INST_MEM {
        return Err(DecodeError::Unmodelled {
            field: TexWord0::TEX_INST.info(),
            value: code,
            reason: Unmodelled::NotATextureFormat,
        });
    }
    let op: TexOp = enum_field(w0, TexWord0::TEX_INST)?;
    check_reserved(TexWord0::NAME, w0, reserved::TEX_WORD0)?;
    check_reserved(TexWord1::NAME, w1, reserved::TEX_WORD1)?;
    Ok(TexInst {
        op,
        bc_frac_mode: flag(w0, TexWord0::BC_FRAC_MODE),
        fetch_whole_quad: flag(w0, TexWord0::FETCH_WHOLE_QUAD),
        resource_id: num(w0, TexWord0::RESOURCE_ID) as u8,
        src_gpr: Gpr::from_field(num(w0, TexWord0::SRC_GPR)),
        src_rel: flag(w0, TexWord0::SRC_REL),
        alt_const: flag(w0, TexWord0::ALT_CONST),
        dst_gpr: Gpr::from_field(num(w1, TexWord1::DST_GPR)),
        dst_rel: flag(w1, TexWord1::DST_REL),
        dst_sel: enum4(
            w1,
            [
                TexWord1::DST_SEL_X,
                TexWord1::DST_SEL_Y,
                TexWord1::DST_SEL_Z,
                TexWord1::DST_SEL_W,
            ],
        )?,
        lod_bias: LodBias::from_field(num(w1, TexWord1::LOD_BIAS)),
        coord_type: enum4(
            w1,
            [
                TexWord1::COORD_TYPE_X,
                TexWord1::COORD_TYPE_Y,
                TexWord1::COORD_TYPE_Z,
                TexWord1::COORD_TYPE_W,
            ],
        )?,
        offset: [
            TexOffset::from_field(num(w2, TexWord2::OFFSET_X)),
            TexOffset::from_field(num(w2, TexWord2::OFFSET_Y)),
            TexOffset::from_field(num(w2, TexWord2::OFFSET_Z)),
        ],
        sampler_id: SamplerId::from_field(num(w2, TexWord2::SAMPLER_ID)),
        src_sel: enum4(
            w2,
            [
                TexWord2::SRC_SEL_X,
                TexWord2::SRC_SEL_Y,
                TexWord2::SRC_SEL_Z,
                TexWord2::SRC_SEL_W,
            ],
        )?,
    })
}

/// Decode one instruction of a VTX/VTX_TC clause from its four dwords:
/// VTX_INST 0 (FETCH) and 1 (SEMANTIC) are [`VtxInst`], 2 is [`MemRdInst`].
pub fn decode_vtx_clause_inst(words: [u32; 4]) -> Result<VtxClauseInst, DecodeError> {
    check_padding(&words)?;
    let [w0, w1, w2, _] = words;
    match num(w0, VtxWord0::VTX_INST) {
        0 | 1 => decode_vtx(w0, w1, w2).map(VtxClauseInst::Fetch),
        VTX_INST_MEM => decode_mem_rd(w0, w1, w2).map(VtxClauseInst::MemRead),
        value => Err(DecodeError::Unmodelled {
            field: VtxWord0::VTX_INST.info(),
            value,
            reason: Unmodelled::NotAVertexFormat,
        }),
    }
}

fn decode_vtx(w0: u32, w1: u32, w2: u32) -> Result<VtxInst, DecodeError> {
    let dst = if num(w0, VtxWord0::VTX_INST) == 0 {
        check_reserved(VtxWord1Gpr::NAME, w1, reserved::VTX_WORD1_GPR)?;
        VtxDst::Gpr {
            gpr: Gpr::from_field(num(w1, VtxWord1Gpr::DST_GPR)),
            rel: flag(w1, VtxWord1Gpr::DST_REL),
        }
    } else {
        check_reserved(VtxWord1Sem::NAME, w1, reserved::VTX_WORD1_SEM)?;
        VtxDst::Semantic {
            id: num(w1, VtxWord1Sem::SEMANTIC_ID) as u8,
        }
    };
    check_reserved(VtxWord2::NAME, w2, reserved::VTX_WORD2)?;
    Ok(VtxInst {
        dst,
        fetch_type: enum_field(w0, VtxWord0::FETCH_TYPE)?,
        fetch_whole_quad: flag(w0, VtxWord0::FETCH_WHOLE_QUAD),
        buffer_id: num(w0, VtxWord0::BUFFER_ID) as u8,
        src_gpr: Gpr::from_field(num(w0, VtxWord0::SRC_GPR)),
        src_rel: flag(w0, VtxWord0::SRC_REL),
        src_sel_x: Chan::from_index(num(w0, VtxWord0::SRC_SEL_X) as usize),
        mega_fetch_count: MegaFetchCount::from_field(num(w0, VtxWord0::MEGA_FETCH_COUNT)),
        dst_sel: enum4(
            w1,
            [
                VtxWord1::DST_SEL_X,
                VtxWord1::DST_SEL_Y,
                VtxWord1::DST_SEL_Z,
                VtxWord1::DST_SEL_W,
            ],
        )?,
        use_const_fields: flag(w1, VtxWord1::USE_CONST_FIELDS),
        format: FetchFormat {
            data_format: enum_field(w1, VtxWord1::DATA_FORMAT)?,
            num_format: enum_field(w1, VtxWord1::NUM_FORMAT_ALL)?,
            format_comp: enum_field(w1, VtxWord1::FORMAT_COMP_ALL)?,
            srf_mode: enum_field(w1, VtxWord1::SRF_MODE_ALL)?,
        },
        offset: num(w2, VtxWord2::OFFSET) as u16,
        endian_swap: enum_field(w2, VtxWord2::ENDIAN_SWAP)?,
        const_buf_no_stride: flag(w2, VtxWord2::CONST_BUF_NO_STRIDE),
        mega_fetch: flag(w2, VtxWord2::MEGA_FETCH),
        alt_const: flag(w2, VtxWord2::ALT_CONST),
    })
}

fn decode_mem_rd(w0: u32, w1: u32, w2: u32) -> Result<MemRdInst, DecodeError> {
    let mem_op = num(w0, MemRdWord0::MEM_OP);
    if mem_op == 4 || mem_op == 5 {
        return Err(DecodeError::Unmodelled {
            field: MemRdWord0::MEM_OP.info(),
            value: mem_op,
            reason: Unmodelled::DataShare,
        });
    }
    let op = enum_field(w0, MemRdWord0::MEM_OP)?;
    check_reserved(MemRdWord0::NAME, w0, reserved::MEM_RD_WORD0)?;
    let req_size = num(w0, MemRdWord0::MEM_REQ_SIZE);
    if req_size != 0 {
        return Err(DecodeError::FieldMustBeZero {
            field: MemRdWord0::MEM_REQ_SIZE.info(),
            value: req_size,
        });
    }
    check_reserved(MemRdWord1::NAME, w1, reserved::MEM_RD_WORD1)?;
    check_reserved(MemRdWord2::NAME, w2, reserved::MEM_RD_WORD2)?;
    Ok(MemRdInst {
        op,
        elem_size: ElemSize::from_field(num(w0, MemRdWord0::ELEM_SIZE)),
        fetch_whole_quad: flag(w0, MemRdWord0::FETCH_WHOLE_QUAD),
        uncached: flag(w0, MemRdWord0::UNCACHED),
        indexed: flag(w0, MemRdWord0::INDEXED),
        src_gpr: Gpr::from_field(num(w0, MemRdWord0::SRC_GPR)),
        src_rel: flag(w0, MemRdWord0::SRC_REL),
        src_sel_x: Chan::from_index(num(w0, MemRdWord0::SRC_SEL_X) as usize),
        burst_count: BurstCount::from_field(num(w0, MemRdWord0::BURST_CNT)),
        dst_gpr: Gpr::from_field(num(w1, MemRdWord1::DST_GPR)),
        dst_rel: flag(w1, MemRdWord1::DST_REL),
        dst_sel: enum4(
            w1,
            [
                MemRdWord1::DST_SEL_X,
                MemRdWord1::DST_SEL_Y,
                MemRdWord1::DST_SEL_Z,
                MemRdWord1::DST_SEL_W,
            ],
        )?,
        format: FetchFormat {
            data_format: enum_field(w1, MemRdWord1::DATA_FORMAT)?,
            num_format: enum_field(w1, MemRdWord1::NUM_FORMAT_ALL)?,
            format_comp: enum_field(w1, MemRdWord1::FORMAT_COMP_ALL)?,
            srf_mode: enum_field(w1, MemRdWord1::SRF_MODE_ALL)?,
        },
        array_base: ArrayBase::from_field(num(w2, MemRdWord2::ARRAY_BASE)),
        endian_swap: enum_field(w2, MemRdWord2::ENDIAN_SWAP)?,
        mega_fetch: flag(w2, MemRdWord2::MEGA_FETCH),
        array_size: ArraySize::from_field(num(w2, MemRdWord2::ARRAY_SIZE)),
    })
}
