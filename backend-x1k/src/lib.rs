//! `ctm-backend-x1k`: the X1K (R5xx, CTM) backend.
//!
//! It will own the X1K instruction set (one definition of every field, used
//! by the encoder, decoder, disassembler and simulator), instruction
//! selection, scheduling, register allocation, flow control, the hardware
//! validator and the CTM ELF ABI. See `docs/architecture.md`.
