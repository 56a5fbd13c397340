//! Encoding typed instructions into their microcode dwords.
//!
//! Every field is written through the [`super::fields`] table; nothing here
//! knows a bit position. Encoding a single instruction is total: the typed
//! values can only hold encodable values. (Whole programs, whose clause
//! layout can be inconsistent, are encoded by [`super::program`].)

use super::alu::{AluForm, AluInst};
use super::cf::{CfAllocIo, CfFlags, CfInst, Kcache};
use super::enums::Sel;
use super::fetch::{FetchFormat, MemRdInst, TexInst, VtxDst, VtxInst};
use super::fields::{
    AluWord0, AluWord1, AluWord1Op2, AluWord1Op3, CfAllocExportWord0, CfAllocExportWord1,
    CfAllocExportWord1Buf, CfAllocExportWord1Swiz, CfAluWord0, CfAluWord1, CfWord0, CfWord1, Field,
    MemRdWord0, MemRdWord1, MemRdWord2, TexWord0, TexWord1, TexWord2, VtxWord0, VtxWord1,
    VtxWord1Gpr, VtxWord1Sem, VtxWord2, Word,
};
use super::operand::AluSrc;

/// Whether an ALU instruction ends its group (`ALU_WORD0.LAST`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GroupEnd {
    /// More instructions of the group follow.
    More,
    /// The last instruction of the group: `LAST` = 1.
    Last,
}

/// `VTX_INST`/`TEX_INST` of the memory-read format.
pub(crate) const VTX_INST_MEM: u32 = 2;

pub(crate) fn bit(b: bool) -> u32 {
    u32::from(b)
}

/// Encode one CF instruction into its two dwords.
pub fn encode_cf(inst: &CfInst) -> [u32; 2] {
    match inst {
        CfInst::Cf(c) => {
            let count = c.count.field();
            let w0 = CfWord0::default().with(CfWord0::ADDR, c.addr);
            let w1 = cf_word1_flags(c.flags)
                .with(CfWord1::POP_COUNT, c.pop_count.get())
                .with(CfWord1::CF_CONST, c.cf_const.get())
                .with(CfWord1::COND, c.cond.code())
                .with(CfWord1::COUNT, count & 7)
                .with(CfWord1::CALL_COUNT, c.call_count.get())
                .with(CfWord1::COUNT_3, count >> 3)
                .with(CfWord1::CF_INST, c.op.code());
            [w0.0, w1.0]
        }
        CfInst::Alu(a) => {
            let [k0, k1]: [Kcache; 2] = a.kcache;
            let w0 = CfAluWord0::default()
                .with(CfAluWord0::ADDR, a.addr.get())
                .with(CfAluWord0::KCACHE_BANK0, k0.bank.get())
                .with(CfAluWord0::KCACHE_BANK1, k1.bank.get())
                .with(CfAluWord0::KCACHE_MODE0, k0.mode.code());
            let w1 = CfAluWord1::default()
                .with(CfAluWord1::KCACHE_MODE1, k1.mode.code())
                .with(CfAluWord1::KCACHE_ADDR0, u32::from(k0.line))
                .with(CfAluWord1::KCACHE_ADDR1, u32::from(k1.line))
                .with(CfAluWord1::COUNT, a.count.field())
                .with(CfAluWord1::ALT_CONST, bit(a.alt_const))
                .with(CfAluWord1::CF_INST, a.op.code())
                .with(CfAluWord1::WHOLE_QUAD_MODE, bit(a.whole_quad_mode))
                .with(CfAluWord1::BARRIER, bit(a.barrier));
            [w0.0, w1.0]
        }
        CfInst::Export(e) => {
            let w0 = alloc_word0(&e.io).with(CfAllocExportWord0::TYPE, e.export_type.code());
            let low = CfAllocExportWord1Swiz::default()
                .with(CfAllocExportWord1Swiz::SEL_X, e.swizzle[0].code())
                .with(CfAllocExportWord1Swiz::SEL_Y, e.swizzle[1].code())
                .with(CfAllocExportWord1Swiz::SEL_Z, e.swizzle[2].code())
                .with(CfAllocExportWord1Swiz::SEL_W, e.swizzle[3].code());
            [w0.0, alloc_word1(&e.io, e.op.code()).0 | low.0]
        }
        CfInst::Mem(m) => {
            let w0 = alloc_word0(&m.io).with(CfAllocExportWord0::TYPE, m.access.code());
            let low = CfAllocExportWord1Buf::default()
                .with(CfAllocExportWord1Buf::ARRAY_SIZE, m.array_size.get())
                .with(CfAllocExportWord1Buf::COMP_MASK, m.comp_mask.get());
            [w0.0, alloc_word1(&m.io, m.op.code()).0 | low.0]
        }
    }
}

fn cf_word1_flags(flags: CfFlags) -> CfWord1 {
    CfWord1::default()
        .with(CfWord1::END_OF_PROGRAM, bit(flags.end_of_program))
        .with(CfWord1::VALID_PIXEL_MODE, bit(flags.valid_pixel_mode))
        .with(CfWord1::WHOLE_QUAD_MODE, bit(flags.whole_quad_mode))
        .with(CfWord1::BARRIER, bit(flags.barrier))
}

fn alloc_word0(io: &CfAllocIo) -> CfAllocExportWord0 {
    CfAllocExportWord0::default()
        .with(CfAllocExportWord0::ARRAY_BASE, io.array_base.get())
        .with(CfAllocExportWord0::RW_GPR, io.rw_gpr.get())
        .with(CfAllocExportWord0::RW_REL, bit(io.rw_rel))
        .with(CfAllocExportWord0::INDEX_GPR, io.index_gpr.get())
        .with(CfAllocExportWord0::ELEM_SIZE, io.elem_size.get())
}

fn alloc_word1(io: &CfAllocIo, cf_inst: u32) -> CfAllocExportWord1 {
    CfAllocExportWord1::default()
        .with(CfAllocExportWord1::BURST_COUNT, io.burst_count.field())
        .with(
            CfAllocExportWord1::END_OF_PROGRAM,
            bit(io.flags.end_of_program),
        )
        .with(
            CfAllocExportWord1::VALID_PIXEL_MODE,
            bit(io.flags.valid_pixel_mode),
        )
        .with(CfAllocExportWord1::CF_INST, cf_inst)
        .with(
            CfAllocExportWord1::WHOLE_QUAD_MODE,
            bit(io.flags.whole_quad_mode),
        )
        .with(CfAllocExportWord1::BARRIER, bit(io.flags.barrier))
}

/// The four fields of one ALU source in a word: `(SEL, REL, CHAN, NEG)`.
pub(crate) struct SrcFields<W: Word> {
    pub sel: Field<W>,
    pub rel: Field<W>,
    pub chan: Field<W>,
    pub neg: Field<W>,
}

pub(crate) const SRC0: SrcFields<AluWord0> = SrcFields {
    sel: AluWord0::SRC0_SEL,
    rel: AluWord0::SRC0_REL,
    chan: AluWord0::SRC0_CHAN,
    neg: AluWord0::SRC0_NEG,
};
pub(crate) const SRC1: SrcFields<AluWord0> = SrcFields {
    sel: AluWord0::SRC1_SEL,
    rel: AluWord0::SRC1_REL,
    chan: AluWord0::SRC1_CHAN,
    neg: AluWord0::SRC1_NEG,
};
pub(crate) const SRC2: SrcFields<AluWord1Op3> = SrcFields {
    sel: AluWord1Op3::SRC2_SEL,
    rel: AluWord1Op3::SRC2_REL,
    chan: AluWord1Op3::SRC2_CHAN,
    neg: AluWord1Op3::SRC2_NEG,
};

/// Write one source's four fields with the word's `with`.
macro_rules! with_src {
    ($word:expr, $fields:expr, $src:expr) => {{
        let s: &AluSrc = $src;
        $word
            .with($fields.sel, s.sel.code())
            .with($fields.rel, bit(s.rel))
            .with($fields.chan, s.chan.code())
            .with($fields.neg, bit(s.neg))
    }};
}

/// Encode one ALU instruction into its two dwords.
pub fn encode_alu(inst: &AluInst, end: GroupEnd) -> [u32; 2] {
    let (src0, src1) = match &inst.form {
        AluForm::Op2(f) => (&f.src[0], &f.src[1]),
        AluForm::Op3(f) => (&f.src[0], &f.src[1]),
    };
    let w0 = AluWord0::default()
        .with(AluWord0::INDEX_MODE, inst.index_mode.code())
        .with(AluWord0::PRED_SEL, inst.pred_sel.code())
        .with(AluWord0::LAST, bit(end == GroupEnd::Last));
    let w0 = with_src!(w0, SRC0, src0);
    let w0 = with_src!(w0, SRC1, src1);
    let high = AluWord1::default()
        .with(AluWord1::BANK_SWIZZLE, inst.bank_swizzle.code())
        .with(AluWord1::DST_GPR, inst.dst.gpr.get())
        .with(AluWord1::DST_REL, bit(inst.dst.rel))
        .with(AluWord1::DST_ELEM, inst.dst.chan.code())
        .with(AluWord1::CLAMP, bit(inst.clamp));
    let low = match &inst.form {
        AluForm::Op2(f) => {
            AluWord1Op2::default()
                .with(AluWord1Op2::SRC0_ABS, bit(f.abs[0]))
                .with(AluWord1Op2::SRC1_ABS, bit(f.abs[1]))
                .with(AluWord1Op2::UPDATE_EXECUTE_MASK, bit(f.update_exec_mask))
                .with(AluWord1Op2::UPDATE_PRED, bit(f.update_pred))
                .with(AluWord1Op2::WRITE_MASK, bit(f.write_mask))
                .with(AluWord1Op2::OMOD, f.omod.code())
                .with(AluWord1Op2::ALU_INST, f.op.code())
                .0
        }
        AluForm::Op3(f) => {
            let w = AluWord1Op3::default().with(AluWord1Op3::ALU_INST, f.op.code());
            with_src!(w, SRC2, &f.src[2]).0
        }
    };
    [w0.0, high.0 | low]
}

fn sel_fields<W: Word>(
    word: W,
    fields: [Field<W>; 4],
    sel: [u32; 4],
    set: fn(W, Field<W>, u32) -> W,
) -> W {
    let mut w = word;
    for (field, value) in fields.into_iter().zip(sel) {
        w = set(w, field, value);
    }
    w
}

fn sel_codes(sel: &[Sel; 4]) -> [u32; 4] {
    sel.map(Sel::code)
}

/// Encode a texture fetch into its four dwords (dword 3 is zero).
pub fn encode_tex(inst: &TexInst) -> [u32; 4] {
    let w0 = TexWord0::default()
        .with(TexWord0::TEX_INST, inst.op.code())
        .with(TexWord0::BC_FRAC_MODE, bit(inst.bc_frac_mode))
        .with(TexWord0::FETCH_WHOLE_QUAD, bit(inst.fetch_whole_quad))
        .with(TexWord0::RESOURCE_ID, u32::from(inst.resource_id))
        .with(TexWord0::SRC_GPR, inst.src_gpr.get())
        .with(TexWord0::SRC_REL, bit(inst.src_rel))
        .with(TexWord0::ALT_CONST, bit(inst.alt_const));
    let w1 = TexWord1::default()
        .with(TexWord1::DST_GPR, inst.dst_gpr.get())
        .with(TexWord1::DST_REL, bit(inst.dst_rel))
        .with(TexWord1::LOD_BIAS, inst.lod_bias.field());
    let w1 = sel_fields(
        w1,
        [
            TexWord1::DST_SEL_X,
            TexWord1::DST_SEL_Y,
            TexWord1::DST_SEL_Z,
            TexWord1::DST_SEL_W,
        ],
        sel_codes(&inst.dst_sel),
        TexWord1::with,
    );
    let w1 = sel_fields(
        w1,
        [
            TexWord1::COORD_TYPE_X,
            TexWord1::COORD_TYPE_Y,
            TexWord1::COORD_TYPE_Z,
            TexWord1::COORD_TYPE_W,
        ],
        inst.coord_type.map(|c| c.code()),
        TexWord1::with,
    );
    let w2 = TexWord2::default()
        .with(TexWord2::OFFSET_X, inst.offset[0].field())
        .with(TexWord2::OFFSET_Y, inst.offset[1].field())
        .with(TexWord2::OFFSET_Z, inst.offset[2].field())
        .with(TexWord2::SAMPLER_ID, inst.sampler_id.get());
    let w2 = sel_fields(
        w2,
        [
            TexWord2::SRC_SEL_X,
            TexWord2::SRC_SEL_Y,
            TexWord2::SRC_SEL_Z,
            TexWord2::SRC_SEL_W,
        ],
        inst.src_sel.map(|s| s.code()),
        TexWord2::with,
    );
    [w0.0, w1.0, w2.0, 0]
}

/// The format fields of `VTX_WORD1`/`MEM_RD_WORD1`.
macro_rules! with_format {
    ($word:expr, $ty:ident, $format:expr) => {{
        let f: &FetchFormat = $format;
        $word
            .with($ty::DATA_FORMAT, f.data_format.code())
            .with($ty::NUM_FORMAT_ALL, f.num_format.code())
            .with($ty::FORMAT_COMP_ALL, f.format_comp.code())
            .with($ty::SRF_MODE_ALL, f.srf_mode.code())
    }};
}

/// Encode a vertex fetch into its four dwords (dword 3 is zero).
pub fn encode_vtx(inst: &VtxInst) -> [u32; 4] {
    let (vtx_inst, low) = match inst.dst {
        VtxDst::Gpr { gpr, rel } => (
            0,
            VtxWord1Gpr::default()
                .with(VtxWord1Gpr::DST_GPR, gpr.get())
                .with(VtxWord1Gpr::DST_REL, bit(rel))
                .0,
        ),
        VtxDst::Semantic { id } => (
            1,
            VtxWord1Sem::default()
                .with(VtxWord1Sem::SEMANTIC_ID, u32::from(id))
                .0,
        ),
    };
    let w0 = VtxWord0::default()
        .with(VtxWord0::VTX_INST, vtx_inst)
        .with(VtxWord0::FETCH_TYPE, inst.fetch_type.code())
        .with(VtxWord0::FETCH_WHOLE_QUAD, bit(inst.fetch_whole_quad))
        .with(VtxWord0::BUFFER_ID, u32::from(inst.buffer_id))
        .with(VtxWord0::SRC_GPR, inst.src_gpr.get())
        .with(VtxWord0::SRC_REL, bit(inst.src_rel))
        .with(VtxWord0::SRC_SEL_X, inst.src_sel_x.code())
        .with(VtxWord0::MEGA_FETCH_COUNT, inst.mega_fetch_count.get());
    let w1 = VtxWord1::default().with(VtxWord1::USE_CONST_FIELDS, bit(inst.use_const_fields));
    let w1 = with_format!(w1, VtxWord1, &inst.format);
    let w1 = sel_fields(
        w1,
        [
            VtxWord1::DST_SEL_X,
            VtxWord1::DST_SEL_Y,
            VtxWord1::DST_SEL_Z,
            VtxWord1::DST_SEL_W,
        ],
        sel_codes(&inst.dst_sel),
        VtxWord1::with,
    );
    let w2 = VtxWord2::default()
        .with(VtxWord2::OFFSET, u32::from(inst.offset))
        .with(VtxWord2::ENDIAN_SWAP, inst.endian_swap.code())
        .with(VtxWord2::CONST_BUF_NO_STRIDE, bit(inst.const_buf_no_stride))
        .with(VtxWord2::MEGA_FETCH, bit(inst.mega_fetch))
        .with(VtxWord2::ALT_CONST, bit(inst.alt_const));
    [w0.0, w1.0 | low, w2.0, 0]
}

/// Encode a memory read into its four dwords (dword 3 is zero).
pub fn encode_mem_rd(inst: &MemRdInst) -> [u32; 4] {
    let w0 = MemRdWord0::default()
        .with(MemRdWord0::VTX_INST, VTX_INST_MEM)
        .with(MemRdWord0::ELEM_SIZE, inst.elem_size.get())
        .with(MemRdWord0::FETCH_WHOLE_QUAD, bit(inst.fetch_whole_quad))
        .with(MemRdWord0::MEM_OP, inst.op.code())
        .with(MemRdWord0::UNCACHED, bit(inst.uncached))
        .with(MemRdWord0::INDEXED, bit(inst.indexed))
        .with(MemRdWord0::SRC_GPR, inst.src_gpr.get())
        .with(MemRdWord0::SRC_REL, bit(inst.src_rel))
        .with(MemRdWord0::SRC_SEL_X, inst.src_sel_x.code())
        .with(MemRdWord0::BURST_CNT, inst.burst_count.field());
    let w1 = MemRdWord1::default()
        .with(MemRdWord1::DST_GPR, inst.dst_gpr.get())
        .with(MemRdWord1::DST_REL, bit(inst.dst_rel));
    let w1 = with_format!(w1, MemRdWord1, &inst.format);
    let w1 = sel_fields(
        w1,
        [
            MemRdWord1::DST_SEL_X,
            MemRdWord1::DST_SEL_Y,
            MemRdWord1::DST_SEL_Z,
            MemRdWord1::DST_SEL_W,
        ],
        sel_codes(&inst.dst_sel),
        MemRdWord1::with,
    );
    let w2 = MemRdWord2::default()
        .with(MemRdWord2::ARRAY_BASE, inst.array_base.get())
        .with(MemRdWord2::ENDIAN_SWAP, inst.endian_swap.code())
        .with(MemRdWord2::MEGA_FETCH, bit(inst.mega_fetch))
        .with(MemRdWord2::ARRAY_SIZE, inst.array_size.get());
    [w0.0, w1.0, w2.0, 0]
}
