//! The X1K target in the driver: compiling an entry point to machine code
//! ([`codegen`]), launching it on the simulated CTM device ([`launch`],
//! [`mod@run`]), reporting what the run measured ([`profile`]), reading
//! back ctm's own ELF files for `ctmc run FILE.elf` ([`elf_entry`]), and
//! bare runs of any machine code for `ctmc run --raw` ([`raw`]).
//!
//! The backend (`ctm-backend-x1k`) and the simulator (`ctm-sim`) are used
//! through their public APIs only; `docs/cli.md` says what each command
//! does with them.

pub mod codegen;
pub mod elf_entry;
pub mod launch;
pub mod profile;
pub mod raw;
pub mod run;

pub use codegen::{CodegenFailure, asm_listing, compile_entry, elf_bytes, stats_json};
pub use launch::{Launch, LaunchError, LaunchResult, LaunchValue, launch, program_image};
pub use run::{run_kernel, run_reduction, simulate};

/// `e_machine` of an X1K (R5xx) executable, `EM_ATI_R5XX`.
pub const EM_X1K: u16 = ctm_backend_x1k::elf::EM_ATI_R5XX;

/// The `e_machine` field of an ELF file (at byte 18, in the byte order
/// `e_ident[EI_DATA]` gives), if the file is long enough to have one.
pub fn elf_machine(bytes: &[u8]) -> Option<u16> {
    let field = [*bytes.get(18)?, *bytes.get(19)?];
    Some(if bytes.get(5) == Some(&2) {
        u16::from_be_bytes(field)
    } else {
        u16::from_le_bytes(field)
    })
}
