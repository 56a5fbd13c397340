//! The R700 instruction set: the one definition of every bit field of the
//! microcode formats, shared by the encoder, decoder and disassembler, the
//! hardware validator and the simulator. It depends on nothing above it
//! (style §1, §3).
//!
//! * [`fields`]: the field table (`words!`-generated typed dwords, field
//!   lists, reserved-bit masks).
//! * [`enums`], [`opcodes`]: every enumerated field value with its code and
//!   spelling; opcodes also carry their unit class and operand count.
//! * [`operand`]: GPRs, ALU source selects, range-limited numbers.
//! * [`cf`], [`alu`], [`fetch`]: the typed instructions of each format,
//!   ALU groups with their literals, clauses.
//! * [`encode`](mod@encode), [`decode`](mod@decode): one instruction ↔ its dwords.
//! * [`program`]: whole program images (CF program + clauses) ↔ bytes.
//! * [`asm`]: the disassembler.
//!
//! Sources: `shared/spec/r700-digest.md` and the manual
//! (`shared/spec/seeds/r700-isa.txt`, the authority). Resolved unknowns and
//! digest/manual disagreements are recorded in `docs/isa-r700.md`.

pub mod alu;
pub mod asm;
pub mod cf;
pub mod decode;
pub mod encode;
pub mod enums;
pub mod fetch;
pub mod fields;
pub mod opcodes;
pub mod operand;
pub mod program;

pub use alu::{
    AluClause, AluDst, AluForm, AluGroup, AluInst, Op2Form, Op3Form, PreferVector, Unit,
    assign_units,
};
pub use asm::{
    format_alu, format_cf, format_program, format_program_with_temps, format_tex,
    format_vtx_clause_inst,
};
pub use cf::{CfAllocIo, CfAlu, CfExport, CfFlags, CfGeneral, CfInst, CfMem, Kcache};
pub use decode::{
    DecodeError, Unmodelled, decode_alu, decode_cf, decode_tex, decode_vtx_clause_inst,
};
pub use encode::{GroupEnd, encode_alu, encode_cf, encode_mem_rd, encode_tex, encode_vtx};
pub use enums::{
    BankSwizzle, CfCond, Chan, CoordType, DataFormat, EndianSwap, ExportType, FetchType,
    FormatComp, IndexMode, InlineConst, KcacheMode, MemAccess, MemRdOp, NumFormat, Omod, PredSel,
    Sel, SrfMode, TexSrcSel, UnknownCode,
};
pub use fetch::{FetchClause, FetchFormat, MemRdInst, TexInst, VtxClauseInst, VtxDst, VtxInst};
pub use opcodes::{
    AluOpFacts, CfAddr, CfAluOp, CfExportOp, CfMemOp, CfOp, FetchClauseKind, Op2, Op3, TexOp,
    UnitClass,
};
pub use operand::{
    AluClauseAddr, AluSlotCount, AluSrc, AluSrcSel, ArrayBase, ArraySize, BurstCount, CallCount,
    CfConst, CompMask, ElemSize, FetchCount, Gpr, KcacheBank, KcacheIndex, LodBias, MegaFetchCount,
    PopCount, SamplerId, TexOffset,
};
pub use program::{
    Clause, ClauseKind, Program, ProgramDecodeError, ProgramEncodeError, decode_program,
    encode_program,
};
