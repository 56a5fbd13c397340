//! The typed control-flow (CF) instruction: one 64-bit CF word pair.
//!
//! The four CF formats (digest §2.1-2.3) are four variants of [`CfInst`];
//! which one a word pair is follows from its opcode (digest §2.0): bit 29 of
//! dword 1 selects `CF_ALU_WORD*`, codes 39-40 `CF_ALLOC_EXPORT_WORD1_SWIZ`,
//! codes 32-38 and 58 `CF_ALLOC_EXPORT_WORD1_BUF`, everything else
//! `CF_WORD*`. Every field of every format has a typed home, including
//! fields the opcode ignores (Table 3.1 "No"), so decoding is lossless; the
//! hardware validator, not the type, decides which values an opcode may use.

use super::enums::{CfCond, ExportType, KcacheMode, MemAccess, Sel};
use super::opcodes::{CfAluOp, CfExportOp, CfMemOp, CfOp};
use super::operand::{
    AluClauseAddr, AluSlotCount, ArrayBase, ArraySize, BurstCount, CallCount, CfConst, CompMask,
    ElemSize, FetchCount, Gpr, KcacheBank, PopCount,
};

/// The stack effect of the `CF_ALU` variants — the one definition the
/// validator (`validate/flow.rs`) and the simulator share
/// (`docs/isa-r700.md` §6 #26 gives the evidence for `ALU_ELSE_AFTER`).
impl CfAluOp {
    /// Subentry pushes made for a clause holding `pred_sets` `PRED_SET*`
    /// instructions, all of the active mask at the start of the clause
    /// (the per-pixel state changes only when the clause completes,
    /// L1183): `ALU_PUSH_BEFORE` one before the clause (Table 3.7 L1112;
    /// ctm's clauses hold one `PRED_SET*`, so the per-`PRED_SET*` reading
    /// of L1185 agrees, digest §7.2 #10); `ALU_ELSE_AFTER` one per
    /// `PRED_SET*` (L2306-2312, L7761: "each PRED_SET* … causes a stack
    /// push first"), none for a clause without one; the others none.
    pub fn pushes(self, pred_sets: usize) -> usize {
        match self {
            CfAluOp::AluPushBefore => 1,
            CfAluOp::AluElseAfter => pred_sets,
            _ => 0,
        }
    }

    /// Subentries pushed for the clause and popped again by it:
    /// `ALU_BREAK` and `ALU_CONTINUE` are "PUSH, ALU, ELSE, CONTINUE,
    /// POP" (Table 3.7 L1115-1116, L2272), so the push needs room in
    /// STACK_SIZE (LLVM's R600 back end counts both among the pushing
    /// CF_ALU forms) though the stack is unchanged after the clause.
    pub fn transient_pushes(self) -> usize {
        match self {
            CfAluOp::AluBreak | CfAluOp::AluContinue => 1,
            _ => 0,
        }
    }

    /// Entries popped after the clause: `ALU_POP_AFTER` one,
    /// `ALU_POP2_AFTER` two (Table 3.7 L1113-1114).
    pub fn pops_after(self) -> usize {
        match self {
            CfAluOp::AluPopAfter => 1,
            CfAluOp::AluPop2After => 2,
            _ => 0,
        }
    }

    /// Whether an `ELSE` with POP_COUNT 0 follows the clause
    /// (`ALU_ELSE_AFTER`, L2306-2312, L7761; the CF_ALU word has no POP_COUNT,
    /// so Table 3.7's "ALU; POP" row (L1117) and §3.7.2's "pops the stack,
    /// then performs an ELSE" (L1185) pop nothing beyond the pushes made
    /// for its own `PRED_SET*`s: `docs/isa-r700.md` §6 #26).
    pub fn else_after(self) -> bool {
        self == CfAluOp::AluElseAfter
    }
}

/// One CF instruction (64 bits).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CfInst {
    /// `CF_WORD0/1`: clauses of fetches, branches, loops, calls, NOP, ...
    Cf(CfGeneral),
    /// `CF_ALU_WORD0/1`: start an ALU clause.
    Alu(CfAlu),
    /// `CF_ALLOC_EXPORT_WORD0/1_SWIZ`: EXPORT, EXPORT_DONE.
    Export(CfExport),
    /// `CF_ALLOC_EXPORT_WORD0/1_BUF`: MEM_STREAM*, MEM_SCRATCH, ...
    Mem(CfMem),
}

impl CfInst {
    /// The opcode's manual mnemonic.
    pub const fn mnemonic(&self) -> &'static str {
        match self {
            CfInst::Cf(c) => c.op.mnemonic(),
            CfInst::Alu(a) => a.op.mnemonic(),
            CfInst::Export(e) => e.op.mnemonic(),
            CfInst::Mem(m) => m.op.mnemonic(),
        }
    }

    /// `END_OF_PROGRAM` (always false for `CF_ALU`, which has no such bit).
    pub const fn end_of_program(&self) -> bool {
        match self {
            CfInst::Cf(c) => c.flags.end_of_program,
            CfInst::Alu(_) => false,
            CfInst::Export(e) => e.io.flags.end_of_program,
            CfInst::Mem(m) => m.io.flags.end_of_program,
        }
    }

    /// A CF `NOP` with every other field zero: the all-zero qword, which is
    /// also what LLVM emits as padding before a 16-byte-aligned clause.
    pub const fn nop() -> CfInst {
        CfInst::Cf(CfGeneral::new(CfOp::Nop))
    }
}

/// The mode bits shared by `CF_WORD1` and `CF_ALLOC_EXPORT_WORD1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CfFlags {
    /// `END_OF_PROGRAM`: the program ends after this instruction.
    pub end_of_program: bool,
    /// `VALID_PIXEL_MODE`: invalid pixels are inactive.
    pub valid_pixel_mode: bool,
    /// `WHOLE_QUAD_MODE`: every pixel of a quad with an active pixel is active.
    pub whole_quad_mode: bool,
    /// `BARRIER`: wait for every earlier CF instruction.
    pub barrier: bool,
}

/// `CF_WORD0/1` (digest §2.1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CfGeneral {
    /// `CF_INST`.
    pub op: CfOp,
    /// `ADDR`, in qwords: clause start or jump target ([`CfOp::addr_meaning`]).
    pub addr: u32,
    /// `COUNT` + `COUNT_3`: fetch-clause size.
    pub count: FetchCount,
    /// `POP_COUNT`.
    pub pop_count: PopCount,
    /// `CF_CONST`.
    pub cf_const: CfConst,
    /// `COND`.
    pub cond: CfCond,
    /// `CALL_COUNT`.
    pub call_count: CallCount,
    /// EOP, VPM, WQM, BARRIER.
    pub flags: CfFlags,
}

impl CfGeneral {
    /// `op` with every other field zero (count 1).
    pub const fn new(op: CfOp) -> Self {
        CfGeneral {
            op,
            addr: 0,
            count: FetchCount::ONE,
            pop_count: PopCount::from_field(0),
            cf_const: CfConst::from_field(0),
            cond: CfCond::Active,
            call_count: CallCount::from_field(0),
            flags: CfFlags {
                end_of_program: false,
                valid_pixel_mode: false,
                whole_quad_mode: false,
                barrier: false,
            },
        }
    }
}

/// One of the two kcache sets of an ALU clause (digest §2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Kcache {
    /// `KCACHE_MODE0/1`.
    pub mode: KcacheMode,
    /// `KCACHE_BANK0/1`: the constant buffer.
    pub bank: KcacheBank,
    /// `KCACHE_ADDR0/1`: the first line (16 constants per line).
    pub line: u8,
}

impl Default for Kcache {
    /// The all-zero encoding: nothing locked.
    fn default() -> Self {
        Kcache {
            mode: KcacheMode::Nop,
            bank: KcacheBank::default(),
            line: 0,
        }
    }
}

/// `CF_ALU_WORD0/1` (digest §2.2). There is no END_OF_PROGRAM, no
/// VALID_PIXEL_MODE and no USES_WATERFALL bit (digest §7.2 #12).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CfAlu {
    /// `CF_INST`.
    pub op: CfAluOp,
    /// `ADDR`: clause start in qwords.
    pub addr: AluClauseAddr,
    /// `COUNT`: clause size in slots, literal slots included.
    pub count: AluSlotCount,
    /// Kcache sets 0 and 1.
    pub kcache: [Kcache; 2],
    /// `ALT_CONST`.
    pub alt_const: bool,
    /// `WHOLE_QUAD_MODE`.
    pub whole_quad_mode: bool,
    /// `BARRIER`.
    pub barrier: bool,
}

/// `CF_ALLOC_EXPORT_WORD0` and the common bits of `_WORD1` (digest §2.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CfAllocIo {
    /// `ARRAY_BASE`: first export target or array base.
    pub array_base: ArrayBase,
    /// `RW_GPR`: first GPR read or written.
    pub rw_gpr: Gpr,
    /// `RW_REL`: add aL to `RW_GPR`.
    pub rw_rel: bool,
    /// `INDEX_GPR`: index source of indexed types.
    pub index_gpr: Gpr,
    /// `ELEM_SIZE`: dwords per element minus one (ignored by EXPORT*).
    pub elem_size: ElemSize,
    /// `BURST_COUNT`: exports or elements.
    pub burst_count: BurstCount,
    /// EOP, VPM, WQM, BARRIER.
    pub flags: CfFlags,
}

/// EXPORT / EXPORT_DONE: `CF_ALLOC_EXPORT_WORD0` + `_WORD1_SWIZ`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CfExport {
    /// `CF_INST`.
    pub op: CfExportOp,
    /// `TYPE`: pixel, position or parameter.
    pub export_type: ExportType,
    /// `SEL_X/Y/Z/W`: the exported elements.
    pub swizzle: [Sel; 4],
    /// The common fields.
    pub io: CfAllocIo,
}

/// MEM_*: `CF_ALLOC_EXPORT_WORD0` + `_WORD1_BUF`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CfMem {
    /// `CF_INST`.
    pub op: CfMemOp,
    /// `TYPE`: write or read, direct or indexed.
    pub access: MemAccess,
    /// `ARRAY_SIZE`.
    pub array_size: ArraySize,
    /// `COMP_MASK`.
    pub comp_mask: CompMask,
    /// The common fields.
    pub io: CfAllocIo,
}
