//! The typed fetch instructions (128 bits each: three dwords and a zero
//! dword, digest §2.0) and the two fetch clauses.
//!
//! * [`TexInst`]: `TEX_WORD0/1/2` (digest §2.6), the only format of a TEX
//!   clause that ctm models. (TEX_INST 0-2 would be vertex fetch or data
//!   share through the texture path; Mesa only does that on Evergreen, and
//!   the data-share formats are not modelled, so they are decode errors.)
//! * [`VtxInst`]: `VTX_WORD0/1_{GPR,SEM}/2` (digest §2.5), FETCH or SEMANTIC
//!   in a VTX/VTX_TC clause. Which one it is follows from the destination
//!   ([`VtxDst`]), so `VTX_INST` and the `WORD1` layout cannot disagree.
//! * [`MemRdInst`]: `MEM_RD_WORD0/1/2` (digest §2.7), VTX_INST 2 in a VTX
//!   clause: scratch, reduction and scatter reads.

use super::enums::{
    Chan, CoordType, DataFormat, EndianSwap, FetchType, FormatComp, MemRdOp, NumFormat, Sel,
    SrfMode, TexSrcSel,
};
use super::opcodes::TexOp;
use super::operand::{
    ArrayBase, ArraySize, ElemSize, Gpr, LodBias, MegaFetchCount, SamplerId, TexOffset,
};

/// A texture fetch (`TEX_WORD0/1/2`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TexInst {
    /// `TEX_INST`.
    pub op: TexOp,
    /// `BC_FRAC_MODE`.
    pub bc_frac_mode: bool,
    /// `FETCH_WHOLE_QUAD`.
    pub fetch_whole_quad: bool,
    /// `RESOURCE_ID`: the surface.
    pub resource_id: u8,
    /// `SRC_GPR`: the coordinates.
    pub src_gpr: Gpr,
    /// `SRC_REL`: add aL to `SRC_GPR`.
    pub src_rel: bool,
    /// `ALT_CONST` (bit 24).
    pub alt_const: bool,
    /// `DST_GPR`.
    pub dst_gpr: Gpr,
    /// `DST_REL`: add aL to `DST_GPR`.
    pub dst_rel: bool,
    /// `DST_SEL_X/Y/Z/W`.
    pub dst_sel: [Sel; 4],
    /// `LOD_BIAS`.
    pub lod_bias: LodBias,
    /// `COORD_TYPE_X/Y/Z/W`.
    pub coord_type: [CoordType; 4],
    /// `OFFSET_X/Y/Z`.
    pub offset: [TexOffset; 3],
    /// `SAMPLER_ID`.
    pub sampler_id: SamplerId,
    /// `SRC_SEL_X/Y/Z/W`.
    pub src_sel: [TexSrcSel; 4],
}

/// Where a vertex fetch writes, which also fixes `VTX_INST`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VtxDst {
    /// `VTX_INST_FETCH` with `VTX_WORD1_GPR`.
    Gpr {
        /// `DST_GPR`.
        gpr: Gpr,
        /// `DST_REL`: add aL.
        rel: bool,
    },
    /// `VTX_INST_SEMANTIC` with `VTX_WORD1_SEM`.
    Semantic {
        /// `SEMANTIC_ID`: the semantic-table entry naming the GPR.
        id: u8,
    },
}

/// The format fields shared by `VTX_WORD1` and `MEM_RD_WORD1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FetchFormat {
    /// `DATA_FORMAT`.
    pub data_format: DataFormat,
    /// `NUM_FORMAT_ALL`.
    pub num_format: NumFormat,
    /// `FORMAT_COMP_ALL`.
    pub format_comp: FormatComp,
    /// `SRF_MODE_ALL`.
    pub srf_mode: SrfMode,
}

impl Default for FetchFormat {
    /// The all-zero encoding.
    fn default() -> Self {
        FetchFormat {
            data_format: DataFormat::Invalid,
            num_format: NumFormat::Norm,
            format_comp: FormatComp::Unsigned,
            srf_mode: SrfMode::ZeroClampMinusOne,
        }
    }
}

/// A vertex fetch (`VTX_WORD0/1/2`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct VtxInst {
    /// The destination; decides FETCH (GPR) or SEMANTIC.
    pub dst: VtxDst,
    /// `FETCH_TYPE`.
    pub fetch_type: FetchType,
    /// `FETCH_WHOLE_QUAD`.
    pub fetch_whole_quad: bool,
    /// `BUFFER_ID`: the vertex-fetch constant.
    pub buffer_id: u8,
    /// `SRC_GPR`: the index.
    pub src_gpr: Gpr,
    /// `SRC_REL`: add aL to `SRC_GPR`.
    pub src_rel: bool,
    /// `SRC_SEL_X`: the element holding the index.
    pub src_sel_x: Chan,
    /// `MEGA_FETCH_COUNT` (raw field).
    pub mega_fetch_count: MegaFetchCount,
    /// `DST_SEL_X/Y/Z/W`.
    pub dst_sel: [Sel; 4],
    /// `USE_CONST_FIELDS`: ignore the format fields below.
    pub use_const_fields: bool,
    /// `DATA_FORMAT`, `NUM_FORMAT_ALL`, `FORMAT_COMP_ALL`, `SRF_MODE_ALL`.
    pub format: FetchFormat,
    /// `OFFSET`: bytes.
    pub offset: u16,
    /// `ENDIAN_SWAP`.
    pub endian_swap: EndianSwap,
    /// `CONST_BUF_NO_STRIDE`.
    pub const_buf_no_stride: bool,
    /// `MEGA_FETCH`.
    pub mega_fetch: bool,
    /// `ALT_CONST`.
    pub alt_const: bool,
}

/// A memory read (`MEM_RD_WORD0/1/2`, `VTX_INST` = 2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct MemRdInst {
    /// `MEM_OP`.
    pub op: MemRdOp,
    /// `ELEM_SIZE`.
    pub elem_size: ElemSize,
    /// `FETCH_WHOLE_QUAD`.
    pub fetch_whole_quad: bool,
    /// `UNCACHED`.
    pub uncached: bool,
    /// `INDEXED`: add `SRC_GPR` to the address.
    pub indexed: bool,
    /// `SRC_GPR`.
    pub src_gpr: Gpr,
    /// `SRC_REL`.
    pub src_rel: bool,
    /// `SRC_SEL_X`.
    pub src_sel_x: Chan,
    /// `BURST_CNT` + 1: reads, 1..=16.
    pub burst_count: super::operand::BurstCount,
    /// `DST_GPR`.
    pub dst_gpr: Gpr,
    /// `DST_REL`.
    pub dst_rel: bool,
    /// `DST_SEL_X/Y/Z/W`.
    pub dst_sel: [Sel; 4],
    /// `DATA_FORMAT`, `NUM_FORMAT_ALL`, `FORMAT_COMP_ALL`, `SRF_MODE_ALL`.
    pub format: FetchFormat,
    /// `ARRAY_BASE`.
    pub array_base: ArrayBase,
    /// `ENDIAN_SWAP`.
    pub endian_swap: EndianSwap,
    /// `MEGA_FETCH` (must be 1; kept as read).
    pub mega_fetch: bool,
    /// `ARRAY_SIZE`.
    pub array_size: ArraySize,
}

/// One instruction of a VTX or VTX_TC clause.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VtxClauseInst {
    /// FETCH or SEMANTIC.
    Fetch(VtxInst),
    /// A memory read.
    MemRead(MemRdInst),
}

/// A fetch clause: the instructions a TEX or VTX/VTX_TC CF instruction runs.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum FetchClause {
    /// A texture-fetch clause.
    Tex(Vec<TexInst>),
    /// A vertex-fetch clause.
    Vtx(Vec<VtxClauseInst>),
}

impl FetchClause {
    /// The number of instructions.
    pub fn len(&self) -> usize {
        match self {
            FetchClause::Tex(v) => v.len(),
            FetchClause::Vtx(v) => v.len(),
        }
    }

    /// Whether the clause has no instructions.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
