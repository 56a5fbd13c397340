//! `ctm-backend-r700`: the R700 (Radeon HD 4000, VLIW5) backend.
//!
//! It owns the R700 instruction set ([`isa`]: one definition of every
//! microcode field, used by the encoder, decoder and disassembler, and by
//! the simulator) and the hardware validator ([`validate`]: the manual's
//! scheduling, clause and CF rules on a decoded program), and will own
//! instruction selection, bundle scheduling with bank swizzles, register
//! allocation, clause formation and the ELF image. See
//! `docs/architecture.md`, `docs/isa-r700.md` and `docs/validator-r700.md`.

pub mod isa;
pub mod validate;
