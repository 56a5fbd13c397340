//! The CAL ELF image of an R700 program (`docs/abi-r700.md` §1): the
//! canonical writer and reader, built on the `object` crate, and the
//! disassembly listing of `ctmc disasm`.
//!
//! * [`write()`] packages an [`Executable`]; [`read`] gives it back
//!   (`read(&write(e)) == Ok(e)`).
//! * [`read_image`] reads any image of this layout — also one without
//!   ctm's `"ctm"` note — into an [`ElfImage`].
//! * [`listing`] prints an ELF or raw `.text` bytes.
//!
//! Every field the reader looks at is checked; a deviation is a typed
//! [`ElfError`], never a panic. This module depends on the ISA only (no
//! IR, no front end), so the simulator's loader uses it.

mod error;
pub mod listing;
mod read;
mod write;

pub use error::ElfError;
pub use listing::listing;
pub use read::{read, read_image};
pub use write::{image_of, write, write_image, write_with_source};

use crate::abi::Bindings;
use crate::isa::Program;

pub use crate::executable::{Executable, Resources};

/// `e_ident[EI_OSABI]`: `ELFOSABI_CALIMAGE` (the CAL image ABI).
pub const ELFOSABI_CAL: u8 = 100;
/// `e_ident[EI_ABIVERSION]`.
pub const ABI_VERSION: u8 = 1;
/// `e_machine`: `EM_ATI_CALIMAGE_BINARY`.
pub const EM_ATI_CALIMAGE_BINARY: u16 = 125;
/// The encoding-dictionary program header type: `PT_LOPROC + 2`.
pub const PT_ATI_ENCODING_DICTIONARY: u32 = 0x7000_0002;
/// `d_machine` of the RV770 encoding (CAL's machine list: R600 0, RV610 1,
/// RV630 2, RV670 3, R700 4, RV770 5, ...).
pub const D_MACHINE_RV770: u32 = 5;
/// Bytes of one encoding-dictionary entry (five words).
pub const DICT_ENTRY_BYTES: usize = 20;
/// The CAL note name with its NUL (`namesz` 8).
pub const NOTE_NAME_CAL: &[u8; 8] = b"ATI CAL\0";
/// ctm's metadata note name with its NUL (`namesz` 4).
pub const NOTE_NAME_CTM: &[u8; 4] = b"ctm\0";
/// The type of the `"ctm"` bindings note.
pub const CTM_NOTE_BINDINGS: u32 = 1;

/// Register addresses of the program-information note (byte addresses of
/// the R700 context registers, as Mesa's `r600d.h` and LLVM's
/// `R600Defines.h` spell them).
pub mod reg {
    /// `SQ_PGM_RESOURCES_PS`: NUM_GPRS [7:0], STACK_SIZE [15:8].
    pub const SQ_PGM_RESOURCES_PS: u32 = 0x0002_8850;
    /// `SQ_GPR_RESOURCE_MGMT_1`: NUM_CLAUSE_TEMP_GPRS [31:28] (Mesa
    /// `r600d.h` `S_008C04_NUM_CLAUSE_TEMP_GPRS`); in the note only when
    /// the program uses clause temporaries (ABI §2).
    pub const SQ_GPR_RESOURCE_MGMT_1: u32 = 0x0000_8C04;
    /// Shift of `NUM_CLAUSE_TEMP_GPRS` in `SQ_GPR_RESOURCE_MGMT_1`.
    pub const NUM_CLAUSE_TEMP_GPRS_SHIFT: u32 = 28;
    /// `SQ_PGM_EXPORTS_PS`: EXPORT_MODE; ctm writes colour exports << 1.
    pub const SQ_PGM_EXPORTS_PS: u32 = 0x0002_8854;
    /// `DB_SHADER_CONTROL`: KILL_ENABLE is bit 6.
    pub const DB_SHADER_CONTROL: u32 = 0x0002_880C;
    /// `CB_SHADER_MASK`: four enable bits per colour export.
    pub const CB_SHADER_MASK: u32 = 0x0002_823C;
    /// `DB_SHADER_CONTROL.KILL_ENABLE`.
    pub const KILL_ENABLE: u32 = 1 << 6;
}

/// The `"ATI CAL"` note types (`ELF_NOTE_ATI_*`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum NoteType {
    /// 1 — program information: (register, value) pairs.
    ProgInfo = 1,
    /// 2 — texture resources read.
    Inputs = 2,
    /// 3 — pixel exports written.
    Outputs = 3,
    /// 4 — conditional output (always 0 here).
    CondOut = 4,
    /// 5 — literal float constants (none: literals are inline).
    Float32Consts = 5,
    /// 6 — integer constants (none).
    Int32Consts = 6,
    /// 7 — boolean constants (none).
    Bool32Consts = 7,
    /// 8 — early exit: the program kills pixels.
    EarlyExit = 8,
    /// 10 — constant buffers: (buffer, elements) pairs.
    ConstantBuffers = 10,
}

impl NoteType {
    /// Every note type ctm writes, in file order.
    pub const ALL: [NoteType; 9] = [
        NoteType::ProgInfo,
        NoteType::Inputs,
        NoteType::Outputs,
        NoteType::CondOut,
        NoteType::Float32Consts,
        NoteType::Int32Consts,
        NoteType::Bool32Consts,
        NoteType::EarlyExit,
        NoteType::ConstantBuffers,
    ];

    /// The `n_type` value.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The note type of an `n_type` ctm knows.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The CAL name.
    pub const fn name(self) -> &'static str {
        match self {
            NoteType::ProgInfo => "ELF_NOTE_ATI_PROGINFO",
            NoteType::Inputs => "ELF_NOTE_ATI_INPUTS",
            NoteType::Outputs => "ELF_NOTE_ATI_OUTPUTS",
            NoteType::CondOut => "ELF_NOTE_ATI_CONDOUT",
            NoteType::Float32Consts => "ELF_NOTE_ATI_FLOAT32CONSTS",
            NoteType::Int32Consts => "ELF_NOTE_ATI_INT32CONSTS",
            NoteType::Bool32Consts => "ELF_NOTE_ATI_BOOL32CONSTS",
            NoteType::EarlyExit => "ELF_NOTE_ATI_EARLYEXIT",
            NoteType::ConstantBuffers => "ELF_NOTE_ATI_CONSTANT_BUFFERS",
        }
    }
}

/// The CAL notes besides the program information, as read.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct CalNotes {
    /// Texture resources read (0..16).
    pub inputs: Vec<u32>,
    /// Pixel export bases written (0..8).
    pub outputs: Vec<u32>,
    /// The program kills pixels.
    pub early_exit: bool,
    /// (constant buffer, elements) pairs.
    pub constant_buffers: Vec<(u32, u32)>,
}

/// Everything a CAL image holds, as read.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ElfImage {
    /// The `.text` program.
    pub program: Program,
    /// The program-information note's (register, value) pairs, in order.
    pub proginfo: Vec<(u32, u32)>,
    /// The other CAL notes.
    pub notes: CalNotes,
    /// The `"ctm"` note's bindings, if present.
    pub bindings: Option<Bindings>,
}

impl ElfImage {
    /// The value of a program-information register, if present.
    pub fn register(&self, address: u32) -> Option<u32> {
        self.proginfo
            .iter()
            .find(|(r, _)| *r == address)
            .map(|&(_, v)| v)
    }

    /// The resources the program-information registers give.
    pub fn resources(&self) -> Resources {
        let pgm = self.register(reg::SQ_PGM_RESOURCES_PS).unwrap_or(0);
        Resources {
            num_gprs: pgm & 0xFF,
            stack_size: (pgm >> 8) & 0xFF,
            kill: self.register(reg::DB_SHADER_CONTROL).unwrap_or(0) & reg::KILL_ENABLE != 0,
            color_exports: (self.register(reg::SQ_PGM_EXPORTS_PS).unwrap_or(0) >> 1) & 0xF,
            clause_temps: (self.register(reg::SQ_GPR_RESOURCE_MGMT_1).unwrap_or(0)
                >> reg::NUM_CLAUSE_TEMP_GPRS_SHIFT)
                & 0xF,
        }
    }
}
