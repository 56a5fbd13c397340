//! A CTM program as the loader sees it (CTM §4.1): the `.text` bytes, the
//! program-information structure (`dpp_proginfo`) and the six other notes.
//!
//! [`ProgramImage`] is what [`super::elf::read_elf`] returns and what
//! [`super::Device::load_program`] takes (`docs/ctm-device.md` §7): the
//! device learns the program registers from it on the host side, as the
//! CTM library's loader did, while the instructions themselves are read
//! from GPU memory through the MC at `start_program`.

use ctm_backend_x1k::elf::ProgInfo;
use ctm_backend_x1k::isa::encode::BYTES_PER_SLOT;
use ctm_backend_x1k::isa::program_regs::{
    FgDepthSrcReg, ProgramRegister, UsCodeAddrReg, UsConfigReg, UsFcCtrlReg, UsPixsizeReg,
};
use ctm_backend_x1k::isa::{IntConstId, MAX_SLOTS};

use super::params::{InputId, OutputId};
use crate::x1k::interface::Program;

/// The `dpp_proginfo` layout (CTM §4.1.4): defined once, by the backend's
/// ELF module, which writes and reads it.
pub use ctm_backend_x1k::elf::{PROGINFO_WORDS, proginfo_word};

/// Why a `dpp_proginfo` does not load: the backend's ELF errors, since
/// the backend's [`ProgInfo`] decodes and checks the layout (one
/// definition, issue 8).
pub type ProgInfoError = ctm_backend_x1k::elf::ElfError;

/// The `dpp_proginfo` structure (CTM §4.1.4), typed with the ISA's program
/// registers (`x1k-encoding.md` §10).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ProgramInfo {
    /// `FG_DEPTH_SRC`: bit 0 = the program exports a conditional value.
    pub fg_depth_src: FgDepthSrcReg,
    /// `US_CONFIG`: bit 0 = uncached (UMRT) output writes.
    pub us_config: UsConfigReg,
    /// `US_PIXSIZE`: largest temporary used.
    pub us_pixsize: UsPixsizeReg,
    /// `US_FC_CTRL`: bit 31 = full flow control.
    pub us_fc_ctrl: UsFcCtrlReg,
    /// `US_CODE_ADDR`: first and last slot executed.
    pub us_code_addr: UsCodeAddrReg,
    /// `INSTR_CNT`: slots in `.text` (1..=512).
    pub instr_cnt: u32,
}

impl ProgramInfo {
    /// `US_CODE_RANGE` as the note stores it: `(INSTR_CNT − 1) << 16`.
    pub const fn us_code_range(&self) -> u32 {
        self.instr_cnt.saturating_sub(1) << 16
    }

    /// The backend's untyped [`ProgInfo`] of these registers, whose
    /// [`ProgInfo::check`] is the one consistency check of the layout
    /// (`US_CODE_ADDR` start ≤ end < `INSTR_CNT` among others).
    pub fn raw(&self) -> ProgInfo {
        ProgInfo {
            fg_depth_src: self.fg_depth_src.encode(),
            us_config: self.us_config.encode(),
            us_pixsize: self.us_pixsize.encode(),
            us_fc_ctrl: self.us_fc_ctrl.encode(),
            us_code_addr: self.us_code_addr.encode(),
            us_code_range: self.us_code_range(),
            instr_cnt: self.instr_cnt,
        }
    }

    /// The 28 words of the note's descriptor (the backend's layout,
    /// [`ProgInfo::to_words`]).
    pub fn to_words(&self) -> [u32; PROGINFO_WORDS] {
        self.raw().to_words()
    }

    /// Decode and check the 28 descriptor words ([`ProgInfo::from_words`]
    /// and [`ProgInfo::check`] of the backend), with `INSTR_CNT` in
    /// 1..=512 (CTM §3.1).
    ///
    /// # Errors
    /// [`ProgInfoError`] for a wrong reserved word, a register with stray
    /// bits, an `INSTR_CNT` above 512 slots, or `US_CODE_RANGE` /
    /// `US_CODE_ADDR` inconsistent with `INSTR_CNT` (an `INSTR_CNT` of 0 has
    /// no valid `US_CODE_ADDR`).
    pub fn from_words(words: &[u32; PROGINFO_WORDS]) -> Result<Self, ProgInfoError> {
        let raw = ProgInfo::from_words(words)?;
        if raw.instr_cnt as usize > MAX_SLOTS {
            return Err(ProgInfoError::TooManySlots {
                slots: raw.instr_cnt as usize,
            });
        }
        raw.check(raw.instr_cnt as usize)?;
        fn reg<R: ProgramRegister>(value: u32, word: usize) -> Result<R, ProgInfoError> {
            R::decode(value).map_err(|source| ProgInfoError::ProgInfoRegister { word, source })
        }
        use proginfo_word as w;
        Ok(ProgramInfo {
            fg_depth_src: reg(raw.fg_depth_src, w::FG_DEPTH_SRC)?,
            us_config: reg(raw.us_config, w::US_CONFIG)?,
            us_pixsize: reg(raw.us_pixsize, w::US_PIXSIZE)?,
            us_fc_ctrl: reg(raw.us_fc_ctrl, w::US_FC_CTRL)?,
            us_code_addr: reg(raw.us_code_addr, w::US_CODE_ADDR)?,
            instr_cnt: raw.instr_cnt,
        })
    }

    /// The interface's [`Program`] for decoded instructions.
    pub fn to_program(&self, insts: Vec<ctm_backend_x1k::isa::Inst>) -> Program {
        Program {
            insts,
            us_config: self.us_config.encode(),
            us_pixsize: self.us_pixsize.encode(),
            us_fc_ctrl: self.us_fc_ctrl.encode(),
            us_code_addr: self.us_code_addr.encode(),
        }
    }
}

/// The six notes besides the program information. An absent note reads as
/// "none" / false (CTM §4.1.4: "the program loader acts as if the program
/// has no inputs", ...). Index lists keep the file's order.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ProgramNotes {
    /// `ELF_NOTE_ATI_INPUTS`: inputs referenced.
    pub inputs: Vec<InputId>,
    /// `ELF_NOTE_ATI_OUTPUTS`: outputs referenced.
    pub outputs: Vec<OutputId>,
    /// `ELF_NOTE_ATI_CONDOUT`: the program writes a conditional value.
    pub conditional_output: bool,
    /// `ELF_NOTE_ATI_FLOAT32CONSTS`: float constants referenced (0..=255).
    pub float_constants: Vec<u8>,
    /// `ELF_NOTE_ATI_INT32CONSTS`: integer constants referenced.
    pub int_constants: Vec<IntConstId>,
    /// `ELF_NOTE_ATI_EARLYEXIT`: the program can exit early.
    pub early_exit: bool,
}

/// Why a [`ProgramImage`] cannot be assembled from parts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ImageError {
    /// `.text` is empty or not whole 24-byte slots.
    #[error(".text is {bytes} bytes, not a positive multiple of 24")]
    TextSize {
        /// Its size.
        bytes: usize,
    },
    /// `INSTR_CNT` differs from the number of `.text` slots.
    #[error("INSTR_CNT is {instr_cnt} but .text holds {text_slots} slots")]
    InstrCntMismatch {
        /// The proginfo's count.
        instr_cnt: u32,
        /// Slots in `.text`.
        text_slots: usize,
    },
}

/// A loadable program: `.text` plus its notes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ProgramImage {
    text: Vec<u8>,
    /// The program-information note.
    pub info: ProgramInfo,
    /// The other notes.
    pub notes: ProgramNotes,
}

impl ProgramImage {
    /// Assemble an image (for callers that have the parts, not an ELF file).
    ///
    /// # Errors
    /// [`ImageError`] if `.text` is not whole slots or `INSTR_CNT` disagrees.
    pub fn new(text: Vec<u8>, info: ProgramInfo, notes: ProgramNotes) -> Result<Self, ImageError> {
        if text.is_empty() || !text.len().is_multiple_of(BYTES_PER_SLOT) {
            return Err(ImageError::TextSize { bytes: text.len() });
        }
        let text_slots = text.len() / BYTES_PER_SLOT;
        if text_slots != info.instr_cnt as usize {
            return Err(ImageError::InstrCntMismatch {
                instr_cnt: info.instr_cnt,
                text_slots,
            });
        }
        Ok(ProgramImage { text, info, notes })
    }

    /// The `.text` bytes (six little-endian words per slot).
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    /// Number of instruction slots.
    pub fn slots(&self) -> u32 {
        self.info.instr_cnt
    }
}
