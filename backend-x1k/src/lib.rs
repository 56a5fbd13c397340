//! `ctm-backend-x1k`: the X1K (R5xx, CTM) backend.
//!
//! It owns the X1K instruction set ([`isa`]: one definition of every field,
//! used by the encoder, decoder, disassembler, assembler and simulator),
//! the program ABI ([`abi`], `docs/abi-x1k.md`), and will own instruction
//! selection, scheduling, register allocation, flow control, the hardware
//! validator and the CTM ELF writer and reader. See `docs/architecture.md`
//! and `docs/isa-x1k.md`.

pub mod abi;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod elf;
pub mod isa;
pub mod stats;
pub mod validate;

/// A compiled program: instructions, program registers and bindings —
/// everything the ELF holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The instructions, slot 0 first.
    pub insts: Vec<isa::Inst>,
    /// `US_CONFIG` (bit 0: uncached output writes).
    pub us_config: u32,
    /// `US_PIXSIZE` (the highest temporary register used).
    pub us_pixsize: u32,
    /// `US_FC_CTRL` (bit 31: full flow-control mode).
    pub us_fc_ctrl: u32,
    /// The parameter bindings.
    pub bindings: abi::Bindings,
}
