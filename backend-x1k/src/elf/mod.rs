//! The CTM ELF container (CTM guide chapter 4, `docs/abi-x1k.md` §1): the
//! canonical writer and reader of ctm's X1K executables, built on the
//! `object` crate, and the disassembly listing of `ctmc disasm`.
//!
//! * [`write()`] packages a [`Program`]; [`read`] gives it back
//!   (`read(&write(p)) == Ok(p)`).
//! * [`read_image`] reads any CTM executable — also one without ctm's
//!   `"ctm"` note — into an [`ElfImage`] (instructions, `dpp_proginfo`, the
//!   ATI notes, the bindings if present), which
//!   [`crate::validate::validate_image`] checks against the hardware rules
//!   and the notes against the code.
//! * [`listing`] prints an ELF or raw `.bin` words for `ctmc disasm`.
//!
//! The exact byte layout is in `docs/abi-x1k.md` §1.1. Every field the
//! reader looks at is checked; a deviation is a typed [`ElfError`], never a
//! panic.

mod error;
pub mod listing;
mod read;
mod write;

pub use error::{ElfError, HeaderField};
pub use read::{read, read_image};
pub use write::{image_of, write, write_image, write_with_source};

use crate::Program;
use crate::abi::Bindings;
use crate::isa::Inst;

/// `e_ident[EI_OSABI]`: `ELFOSABI_ATI` (CTM §4.1.2).
pub const ELFOSABI_ATI: u8 = 98;
/// `e_ident[EI_ABIVERSION]` (CTM §4.1.2).
pub const ABI_VERSION: u8 = 1;
/// `e_machine`: `EM_ATI_R5XX` (CTM §4.1.2).
pub const EM_ATI_R5XX: u16 = 122;
/// `e_flags`: `EF_ATI_DPP` (CTM §4.1.2).
pub const EF_ATI_DPP: u32 = 1;
/// The ATI note name `ELF_NOTE_ATI` with its NUL (`namesz` 8, CTM §4.1.4).
pub const NOTE_NAME_ATI: &[u8; 8] = b"ATI DPP\0";
/// ctm's metadata note name with its NUL (`namesz` 4, `docs/abi-x1k.md` §1).
pub const NOTE_NAME_CTM: &[u8; 4] = b"ctm\0";
/// The type of the `"ctm"` bindings note.
pub const CTM_NOTE_BINDINGS: u32 = 1;
/// Words in `dpp_proginfo`: CTM §4.1.4's table row by row — reserved 1,
/// `FG_DEPTH_SRC`, `US_CONFIG`, `US_PIXSIZE`, `US_FC_CTRL`, `US_CODE_ADDR`,
/// `US_CODE_RANGE`, reserved 0xC0, reserved 0x20000, eighteen reserved 0,
/// `INSTR_CNT`. (`x1k-encoding.md` §10.1 says "0 × 20"; the manual's table
/// has eighteen zero rows, and the manual wins.)
pub const PROGINFO_WORDS: usize = 28;

/// Index of each `dpp_proginfo` word.
pub mod proginfo_word {
    /// Reserved, 0x00000001.
    pub const RESERVED_1: usize = 0;
    /// `FG_DEPTH_SRC`.
    pub const FG_DEPTH_SRC: usize = 1;
    /// `US_CONFIG`.
    pub const US_CONFIG: usize = 2;
    /// `US_PIXSIZE`.
    pub const US_PIXSIZE: usize = 3;
    /// `US_FC_CTRL`.
    pub const US_FC_CTRL: usize = 4;
    /// `US_CODE_ADDR`.
    pub const US_CODE_ADDR: usize = 5;
    /// `US_CODE_RANGE`.
    pub const US_CODE_RANGE: usize = 6;
    /// Reserved, 0x000000C0.
    pub const RESERVED_C0: usize = 7;
    /// Reserved, 0x00020000.
    pub const RESERVED_20000: usize = 8;
    /// The first of the eighteen zero words (9..=26).
    pub const FIRST_ZERO: usize = 9;
    /// `INSTR_CNT`.
    pub const INSTR_CNT: usize = 27;
}

/// The ATI note types (`ELF_NOTE_ATI_*`, CTM §4.1.4), in file order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum NoteType {
    /// 1 — `ELF_NOTE_ATI_PROGINFO`.
    ProgInfo = 1,
    /// 2 — `ELF_NOTE_ATI_INPUTS`.
    Inputs = 2,
    /// 3 — `ELF_NOTE_ATI_OUTPUTS`.
    Outputs = 3,
    /// 4 — `ELF_NOTE_ATI_CONDOUT`.
    CondOut = 4,
    /// 5 — `ELF_NOTE_ATI_FLOAT32CONSTS`.
    Float32Consts = 5,
    /// 6 — `ELF_NOTE_ATI_INT32CONSTS`.
    Int32Consts = 6,
    /// 7 — `ELF_NOTE_ATI_EARLYEXIT`.
    EarlyExit = 7,
}

impl NoteType {
    /// Every note type in code (and file) order.
    pub const ALL: [NoteType; 7] = [
        NoteType::ProgInfo,
        NoteType::Inputs,
        NoteType::Outputs,
        NoteType::CondOut,
        NoteType::Float32Consts,
        NoteType::Int32Consts,
        NoteType::EarlyExit,
    ];

    /// The `n_type` value.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The note type of an `n_type`.
    pub fn from_code(code: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The manual's name.
    pub const fn name(self) -> &'static str {
        match self {
            NoteType::ProgInfo => "ELF_NOTE_ATI_PROGINFO",
            NoteType::Inputs => "ELF_NOTE_ATI_INPUTS",
            NoteType::Outputs => "ELF_NOTE_ATI_OUTPUTS",
            NoteType::CondOut => "ELF_NOTE_ATI_CONDOUT",
            NoteType::Float32Consts => "ELF_NOTE_ATI_FLOAT32CONSTS",
            NoteType::Int32Consts => "ELF_NOTE_ATI_INT32CONSTS",
            NoteType::EarlyExit => "ELF_NOTE_ATI_EARLYEXIT",
        }
    }

    /// The exclusive upper bound of the indices an index-list note holds.
    pub const fn index_limit(self) -> Option<u32> {
        match self {
            NoteType::Inputs => Some(16),
            NoteType::Outputs => Some(4),
            NoteType::Float32Consts => Some(256),
            NoteType::Int32Consts => Some(32),
            _ => None,
        }
    }
}

impl std::fmt::Display for NoteType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The `dpp_proginfo` structure's per-program words (CTM §4.1.4). The
/// reserved words are constants and are not stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ProgInfo {
    /// `FG_DEPTH_SRC`: bit 0 = the conditional value is exported.
    pub fg_depth_src: u32,
    /// `US_CONFIG`: bit 0 = uncached (UMRT) output writes.
    pub us_config: u32,
    /// `US_PIXSIZE`: the largest temporary used.
    pub us_pixsize: u32,
    /// `US_FC_CTRL`: bit 31 = full flow control.
    pub us_fc_ctrl: u32,
    /// `US_CODE_ADDR`: first slot in bits 8:0, last slot in bits 24:16.
    pub us_code_addr: u32,
    /// `US_CODE_RANGE`: `(INSTR_CNT − 1) << 16`.
    pub us_code_range: u32,
    /// `INSTR_CNT`: the number of instruction slots.
    pub instr_cnt: u32,
}

impl ProgInfo {
    /// The proginfo of a program of `slots` slots (start 0, end
    /// `slots − 1`) with the given registers.
    pub fn for_program(slots: usize, fg_depth_src: u32, p: &Program) -> Self {
        let last = u32::try_from(slots.saturating_sub(1)).unwrap_or(u32::MAX);
        ProgInfo {
            fg_depth_src,
            us_config: p.us_config,
            us_pixsize: p.us_pixsize,
            us_fc_ctrl: p.us_fc_ctrl,
            us_code_addr: last << 16,
            us_code_range: last << 16,
            instr_cnt: u32::try_from(slots).unwrap_or(u32::MAX),
        }
    }

    /// The 28 descriptor words.
    pub fn to_words(&self) -> [u32; PROGINFO_WORDS] {
        use proginfo_word as w;
        let mut words = [0u32; PROGINFO_WORDS];
        words[w::RESERVED_1] = 1;
        words[w::FG_DEPTH_SRC] = self.fg_depth_src;
        words[w::US_CONFIG] = self.us_config;
        words[w::US_PIXSIZE] = self.us_pixsize;
        words[w::US_FC_CTRL] = self.us_fc_ctrl;
        words[w::US_CODE_ADDR] = self.us_code_addr;
        words[w::US_CODE_RANGE] = self.us_code_range;
        words[w::RESERVED_C0] = 0xC0;
        words[w::RESERVED_20000] = 0x0002_0000;
        words[w::INSTR_CNT] = self.instr_cnt;
        words
    }

    /// Decode the descriptor words (`PROGINFO_WORDS` of them, or fewer,
    /// which are an error): the reserved words must hold their fixed
    /// values and the registers must decode (CTM §4.1.4). The one decoder
    /// of the layout, used by the ELF reader and the simulated device.
    ///
    /// # Errors
    /// [`ElfError::NoteSize`], [`ElfError::ProgInfoReserved`],
    /// [`ElfError::ProgInfoRegister`].
    pub fn from_words(words: &[u32]) -> Result<ProgInfo, ElfError> {
        use crate::isa::program_regs::{
            FgDepthSrcReg, ProgramRegister, UsCodeAddrReg, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
        };
        use proginfo_word as w;
        if words.len() != PROGINFO_WORDS {
            return Err(ElfError::NoteSize {
                note: NoteType::ProgInfo,
                expected: (PROGINFO_WORDS * 4) as u32,
                found: u32::try_from(words.len().saturating_mul(4)).unwrap_or(u32::MAX),
            });
        }
        for (word, expected) in ProgInfo::reserved_words() {
            if words[word] != expected {
                return Err(ElfError::ProgInfoReserved {
                    word,
                    expected,
                    found: words[word],
                });
            }
        }
        fn reg<R: ProgramRegister>(words: &[u32], word: usize) -> Result<u32, ElfError> {
            R::decode(words[word])
                .map(|_| words[word])
                .map_err(|source| ElfError::ProgInfoRegister { word, source })
        }
        Ok(ProgInfo {
            fg_depth_src: reg::<FgDepthSrcReg>(words, w::FG_DEPTH_SRC)?,
            us_config: reg::<UsConfigReg>(words, w::US_CONFIG)?,
            us_pixsize: reg::<UsPixsizeReg>(words, w::US_PIXSIZE)?,
            us_fc_ctrl: reg::<UsFcCtrlReg>(words, w::US_FC_CTRL)?,
            us_code_addr: reg::<UsCodeAddrReg>(words, w::US_CODE_ADDR)?,
            us_code_range: words[w::US_CODE_RANGE],
            instr_cnt: words[w::INSTR_CNT],
        })
    }

    /// The proginfo's consistency with a `.text` of `text_slots` slots
    /// (CTM §4.1.4): `INSTR_CNT` = slots, `US_CODE_RANGE` =
    /// `(INSTR_CNT − 1) << 16`, `US_CODE_ADDR` start ≤ end < `INSTR_CNT`.
    ///
    /// # Errors
    /// [`ElfError::InstrCntMismatch`], [`ElfError::CodeRange`],
    /// [`ElfError::ProgInfoRegister`], [`ElfError::CodeAddr`].
    pub fn check(&self, text_slots: usize) -> Result<(), ElfError> {
        use crate::isa::program_regs::{ProgramRegister, UsCodeAddrReg};
        if self.instr_cnt as usize != text_slots {
            return Err(ElfError::InstrCntMismatch {
                instr_cnt: self.instr_cnt,
                text_slots,
            });
        }
        let expected = self.instr_cnt.saturating_sub(1) << 16;
        if self.us_code_range != expected {
            return Err(ElfError::CodeRange {
                expected,
                found: self.us_code_range,
            });
        }
        let code = UsCodeAddrReg::decode(self.us_code_addr).map_err(|source| {
            ElfError::ProgInfoRegister {
                word: proginfo_word::US_CODE_ADDR,
                source,
            }
        })?;
        let (start, end) = (code.start.get(), code.end.get());
        if start > end || end >= self.instr_cnt {
            return Err(ElfError::CodeAddr {
                start,
                end,
                instr_cnt: self.instr_cnt,
            });
        }
        Ok(())
    }

    /// The fixed value of each reserved word: `(index, value)`.
    pub fn reserved_words() -> impl Iterator<Item = (usize, u32)> {
        use proginfo_word as w;
        [
            (w::RESERVED_1, 1),
            (w::RESERVED_C0, 0xC0),
            (w::RESERVED_20000, 0x2_0000),
        ]
        .into_iter()
        .chain((w::FIRST_ZERO..w::INSTR_CNT).map(|k| (k, 0)))
    }
}

/// The six ATI notes besides the program information (CTM §4.1.4). An
/// absent note reads as empty / false ("the loader acts as if the program
/// has no inputs", ...). Index lists keep the file's order.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AtiNotes {
    /// `ELF_NOTE_ATI_INPUTS`: CTM input indices used (0..16).
    pub inputs: Vec<u32>,
    /// `ELF_NOTE_ATI_OUTPUTS`: CTM output indices written (0..4).
    pub outputs: Vec<u32>,
    /// `ELF_NOTE_ATI_CONDOUT`: the conditional output is written.
    pub conditional_output: bool,
    /// `ELF_NOTE_ATI_FLOAT32CONSTS`: float constant indices read (0..256).
    pub float32_constants: Vec<u32>,
    /// `ELF_NOTE_ATI_INT32CONSTS`: integer constant indices read (0..32).
    pub int32_constants: Vec<u32>,
    /// `ELF_NOTE_ATI_EARLYEXIT`: the program can exit early (kill).
    pub early_exit: bool,
}

/// Everything a CTM executable holds, as read: what
/// [`crate::validate::validate_image`] checks.
#[derive(Clone, PartialEq, Debug)]
pub struct ElfImage {
    /// The `.text` instructions, slot 0 first.
    pub insts: Vec<Inst>,
    /// The program-information note.
    pub proginfo: ProgInfo,
    /// The other ATI notes.
    pub notes: AtiNotes,
    /// The `"ctm"` note's bindings, if the file has one.
    pub bindings: Option<Bindings>,
}

impl ElfImage {
    /// The [`Program`] the image holds (empty bindings if it has none).
    pub fn program(&self) -> Program {
        Program {
            insts: self.insts.clone(),
            us_config: self.proginfo.us_config,
            us_pixsize: self.proginfo.us_pixsize,
            us_fc_ctrl: self.proginfo.us_fc_ctrl,
            bindings: self.bindings.clone().unwrap_or_default(),
        }
    }
}
