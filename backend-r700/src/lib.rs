//! `ctm-backend-r700`: the R700 (Radeon HD 4000, VLIW5) backend.
//!
//! It will own the R700 microcode formats (encode, decode, disassemble),
//! instruction selection, bundle scheduling with bank swizzles, register
//! allocation, clause formation, the hardware validator and the ELF image.
//! See `docs/architecture.md`.
