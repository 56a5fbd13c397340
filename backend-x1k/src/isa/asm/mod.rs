//! The X1K assembly syntax: one line per instruction, every non-default
//! field named, read back exactly by the assembler (`parse(format(x)) == x`).
//!
//! ```text
//!   0: tex r0.rgba = ld(t0, r0.rgaa) acquire sem_wait
//!   1: alu r1.rgb = mad(s0.rgb, s1.rrr, -s2.rgb) x2 sat ; r1.a = rcp(s1.a) ; s0=r0 s1=c3 s2=r2|_
//!   2: alu p.r<0 = mad(s0.rgb, s0.111, s1.rgb) ; _ ; s0=r1 s1=c0 alu_result=r<0
//!   3: fc jump 6 func=!alu b_op0=incr b_op1=incr alu_wait
//!   4: out o0.rgb = max(s0.rgb, s0.rgb) omod_off ; o0.a = max(s0.a, s0.a) omod_off ; s0=r0 sem_wait
//! ```
//!
//! * `alu`/`out`: `RGB-HALF ; ALPHA-HALF [; ITEMS]`, each half
//!   `DESTS = op(INPUTS) [x2|x4|x8|d2|d4|d8|omod_off] [sat] [srcp=OP] [pred=[!]p.SEL]`.
//!   Destinations: a temporary `r5.rgb` / `r[5+aL].rg` (mask `_` if empty),
//!   an output `o0..o3` (OUT), predicate bits `p.rg<0` (ALU), `w` (OUT
//!   alpha), or `_` for none. Inputs: `[-][|]sN.SWZ[|]` with `sN` ∈ s0 s1 s2
//!   sp and swizzle letters `r g b a 0 h 1 _` (`h` = 0.5). Items:
//!   `sN=SRC` or `sN=RGB-SRC|ALPHA-SRC` (`rN`, `r[N+aL]`, `cN`, `c[N+aL]`, a
//!   float literal for an inline constant, `_` for unused = inline code 0),
//!   `alu_result=r<0`, `sem_wait`, `write_inactive`, `last`, `nop`.
//! * `fc OP SLOT func=F [global] [pred=[!]p.rrrr] [jump_any] [b_else]
//!   [a_op=push|pop] [b_op0=..] [b_op1=..] [b_pop_cnt=N] [bool=bN] [int=iN]
//!   [ignore_uncovered] [sem_wait] [alu_wait]`.
//! * `tex DEST = op(tN, rS.stqr[, rDX.xxxx, rDY.yyyy])[.DSTSWZ] [rgb_pred=..]
//!   [alpha_pred=..] [acquire] [sem_wait] [alu_wait] [write_inactive]
//!   [ignore_uncovered] [unscaled]`.
//!
//! For hand-written programs the assembler also accepts registers and inline
//! constants directly as ALU inputs (`mad(r0.rgb, c3.rrr, 1.0)`) and
//! allocates source slots for them. The complete grammar, defaults and
//! rationale are in `docs/isa-x1k.md`.

mod cursor;
mod format;
mod parse;
mod parse_alu;

pub use format::{disassemble_words, format_inst, format_program, format_raw_slot};
pub use parse::{parse_inst, parse_program};

use std::fmt;

use super::enums::{AlphaOp, Channel, RgbOp};

/// The TEX destination swizzle printed by default (and assumed when omitted).
pub(crate) const IDENTITY_DST_SWIZZLE: [Channel; 4] =
    [Channel::R, Channel::G, Channel::B, Channel::A];

/// Number of inputs an RGB op reads (the opcode table, [`RgbOp::arity`]).
pub fn rgb_arity(op: RgbOp) -> usize {
    op.arity()
}

/// Number of alpha inputs printed for an alpha op: the inputs it reads
/// ([`AlphaOp::arity`]), but DP counts 2: its A/B selects feed the fourth
/// component of an RGB DP4 (CTM §3.3.3).
pub fn alpha_arity(op: AlphaOp) -> usize {
    if op == AlphaOp::Dp { 2 } else { op.arity() }
}

/// The common `JUMP_FUNC` values of CTM §3.5.3, by name.
const JUMP_FUNC_NAMES: [(u8, &str); 8] = [
    (0x00, "never"),
    (0xFF, "always"),
    (0xAA, "b"),
    (0x55, "!b"),
    (0xCC, "p"),
    (0x33, "!p"),
    (0xF0, "alu"),
    (0x0F, "!alu"),
];

/// The name of a common `JUMP_FUNC` value, if it has one.
pub fn jump_func_name(value: u8) -> Option<&'static str> {
    JUMP_FUNC_NAMES
        .iter()
        .find(|(v, _)| *v == value)
        .map(|(_, n)| *n)
}

fn jump_func_from_name(name: &str) -> Option<u8> {
    JUMP_FUNC_NAMES
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(v, _)| *v)
}

/// What went wrong in an assembly line.
#[derive(Clone, PartialEq, Debug)]
pub enum AsmErrorKind {
    /// A token or construct was expected here.
    Expected(&'static str),
    /// An unknown mnemonic, keyword or item.
    Unknown {
        /// What kind of name (e.g. "RGB opcode").
        what: &'static str,
        /// The text found.
        found: String,
    },
    /// A number does not fit its field.
    OutOfRange {
        /// What the number is (e.g. "temporary register").
        what: &'static str,
        /// The value found.
        value: u64,
        /// The largest valid value.
        max: u64,
    },
    /// A float literal is not exactly any inline constant.
    NotInlineConstant(f64),
    /// A construct not allowed in this instruction (e.g. `o0` in an `alu`).
    NotAllowed {
        /// The construct.
        what: &'static str,
        /// Where.
        context: &'static str,
    },
    /// The same field was given twice.
    Duplicate(&'static str),
    /// An op was given the wrong number of inputs.
    InputCount {
        /// The op.
        op: &'static str,
        /// Inputs given.
        found: usize,
        /// Minimum accepted (the op's arity).
        min: usize,
        /// Maximum accepted.
        max: usize,
    },
    /// No source slot is free for a directly written operand.
    NoFreeSource(String),
    /// A slot label does not match the instruction's position.
    SlotMismatch {
        /// The slot the instruction occupies.
        expected: usize,
        /// The label written.
        found: usize,
    },
}

impl fmt::Display for AsmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmErrorKind::Expected(what) => write!(f, "expected {what}"),
            AsmErrorKind::Unknown { what, found } => write!(f, "unknown {what} `{found}`"),
            AsmErrorKind::OutOfRange { what, value, max } => {
                write!(f, "{what} {value} is out of range (max {max})")
            }
            AsmErrorKind::NotInlineConstant(v) => {
                write!(
                    f,
                    "{v} is not an inline constant (unsigned, 4-bit exponent, 3-bit mantissa)"
                )
            }
            AsmErrorKind::NotAllowed { what, context } => {
                write!(f, "{what} is not allowed in {context}")
            }
            AsmErrorKind::Duplicate(what) => write!(f, "{what} given twice"),
            AsmErrorKind::InputCount {
                op,
                found,
                min,
                max,
            } => {
                write!(f, "`{op}` takes {min}..={max} inputs, found {found}")
            }
            AsmErrorKind::NoFreeSource(what) => write!(f, "no free source slot for `{what}`"),
            AsmErrorKind::SlotMismatch { expected, found } => {
                write!(f, "slot label {found} but this is slot {expected}")
            }
        }
    }
}

/// An assembly error at a 1-based line and column.
#[derive(Clone, PartialEq, Debug, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct AsmError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What went wrong.
    pub kind: AsmErrorKind,
}
