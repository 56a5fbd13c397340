//! `ctm-backend-r700`: the R700 (Radeon HD 4000, VLIW5) backend.
//!
//! Without the `codegen` feature it is what the simulator needs: the
//! instruction set ([`isa`]: one definition of every microcode field, used
//! by the encoder, decoder and disassembler), the hardware validator
//! ([`validate`]), the ABI bindings ([`abi`]), the CAL ELF image ([`elf`])
//! and static metrics ([`stats`]). With it, [`codegen`] compiles verified
//! IR: instruction selection, bundle scheduling with bank swizzles,
//! register allocation, clauses and the CF program. See
//! `docs/architecture.md`, `docs/isa-r700.md`, `docs/validator-r700.md`
//! and `docs/abi-r700.md`.

pub mod abi;
pub mod elf;
mod executable;
pub mod isa;
pub mod stats;
pub mod validate;

#[cfg(feature = "codegen")]
pub mod codegen;

pub use executable::{Executable, Resources};
