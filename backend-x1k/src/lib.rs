//! `ctm-backend-x1k`: the X1K (R5xx, CTM) backend.
//!
//! It owns the X1K instruction set ([`isa`]: one definition of every field,
//! used by the encoder, decoder, disassembler, assembler and simulator) and
//! will own instruction selection, scheduling, register allocation, flow
//! control, the hardware validator and the CTM ELF ABI. See
//! `docs/architecture.md` and `docs/isa-x1k.md`.

pub mod isa;
