//! The table machinery both ctm instruction sets are written in: one
//! definition, shared by `ctm-backend-x1k` and `ctm-backend-r700`
//! (`docs/isa-kit.md`).
//!
//! An ISA module states its facts as tables (style §3: "each encoding is one
//! row of a table"); the macros here turn each table into typed Rust:
//!
//! * [`words!`] — one row per instruction word or register: a `u32`
//!   newtype with typed [`Field`] constants, `get`/`set`/`with`, the field
//!   list a raw disassembler walks and the reserved-bit mask decode checks
//!   ([`fields`]).
//! * [`isa_enum!`] — one row per enumerated field value: `TryFrom<u32>`
//!   (an undefined code is an [`UnknownCode`], never a default), `ALL`,
//!   `COUNT`, `code()`, `mnemonic()`, `from_mnemonic()`, `Display`
//!   ([`enums`]).
//! * [`bounded!`] and [`count!`] — range-limited operand numbers that can
//!   only hold what their field encodes ([`mod@bounded`]).
//! * [`rules!`] — the hardware-rule enumeration of a validator: `ALL`,
//!   the manual section of each rule, its kebab-case name ([`rule`]).
//! * [`note`] — the byte layout of the ELF note records both chips'
//!   images carry (`"ATI DPP"`, `"ATI CAL"`, `"ctm"`).
//! * [`mod@elf`] — the section plumbing of both chips' ELF writers and the
//!   `.ctm.source` section.
//!
//! The crate knows nothing about either chip and depends on no other ctm
//! crate, so the simulator can use the ISAs without the compiler.

pub mod bounded;
pub mod elf;
pub mod enums;
pub mod fields;
pub mod note;
pub mod rule;

pub use enums::UnknownCode;
pub use fields::{Field, FieldInfo, FieldLocation, Word, reserved_mask};
pub use rule::kebab_case;
