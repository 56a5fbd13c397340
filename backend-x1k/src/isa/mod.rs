//! The X1K (R5xx) fragment-program instruction set: the one definition of
//! every bit field of the six `US_*` instruction words, shared by the
//! encoder, decoder, disassembler, assembler, the hardware validator and the
//! simulator. It depends on nothing above it (style §1, §3).
//!
//! * [`fields`]: the field table (`macro_rules!`-generated typed registers,
//!   field lists, reserved masks, per-type word layouts).
//! * [`enums`]: every enumerated field value with its code and spelling.
//! * [`opcodes`]: the opcode table — RGB, alpha and texture opcodes with
//!   their per-opcode facts (inputs read, class, transcendental,
//!   coordinates read), read by every consumer.
//! * [`operand`], [`inline_const`]: registers, sources, masks, inline constants.
//! * [`inst`]: the typed [`Inst`] (ALU/OUT, FC, TEX).
//! * [`fc_statements`]: the CTM §3.5.4 flow-control statements (IF, LOOP,
//!   BREAK, CALL, ...) as [`FcInst`] constructors and a classifier.
//! * [`encode`](mod@encode), [`decode`](mod@decode): words ↔ [`Inst`], and
//!   programs ↔ `.text` words/bytes.
//! * [`program_regs`]: the program-level registers (`US_CONFIG`, `US_CODE_*`, ...).
//! * [`asm`]: the assembly syntax — formatter and parser.
//!
//! Sources: `shared/spec/x1k-encoding.md` (bit positions) and the CTM guide
//! chapter 3 (semantics; it wins on disagreement). Decisions on the fact
//! sheet's open questions are recorded in `docs/isa-x1k.md`.

pub mod asm;
pub mod decode;
pub mod encode;
pub mod enums;
pub mod fc_statements;
pub mod fields;
pub mod inline_const;
pub mod inst;
pub mod opcodes;
pub mod operand;
pub mod program_regs;

pub use asm::{AsmError, format_inst, format_program, parse_inst, parse_program};
pub use decode::{
    DecodeError, ProgramDecodeError, ZeroReason, decode, decode_program, decode_program_bytes,
};
pub use encode::{MAX_SLOTS, WORDS_PER_SLOT, encode, encode_program, encode_program_bytes};
pub use enums::{
    AddrStackOp, AlphaOp, AluResultSel, BranchOp, Channel, CompareOp, FcOp, InputModifier,
    InputSelect, InstType, OutputModifier, PredSel, PresubOp, RenderTarget, RgbOp, Swizzle,
    TexOpcode, UnknownCode,
};
pub use fc_statements::{DynamicCondition, ElseBranch, FcCondition, FcStatement, LoopKind};
pub use inline_const::{InlineConst, inline_constant_code, inline_constant_value};
pub use inst::{
    AlphaHalf, AlphaInput, AluInst, AluResult, AluWrites, FcInst, FcPredicate, Inst,
    JumpAddressing, OutputWrites, Predicate, PredicateWrites, RgbHalf, RgbInput, TexInst, TexOp,
    TexOperand, UmrtTarget,
};
pub use opcodes::{
    AlphaOpFacts, CoordReads, OpClass, RgbOpFacts, TexOpcodeFacts, Transcendental,
    alpha_inputs_read,
};
pub use operand::{
    Addressing, AlphaMask, AluSource, BoolConstId, BranchPopCount, ConstAddr, ConstReg, IntConstId,
    RgbMask, SlotIndex, TempAddr, TempReg, TexId,
};
