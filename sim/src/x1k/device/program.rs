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
    FgDepthSrcReg, ProgramRegister, RegisterDecodeError, UsCodeAddrReg, UsConfigReg, UsFcCtrlReg,
    UsPixsizeReg,
};
use ctm_backend_x1k::isa::{IntConstId, MAX_SLOTS};

use super::params::{InputId, OutputId};
use crate::x1k::interface::Program;

/// The `dpp_proginfo` layout (CTM §4.1.4): defined once, by the backend's
/// ELF module, which writes and reads it.
pub use ctm_backend_x1k::elf::{PROGINFO_WORDS, proginfo_word};

/// Why a `dpp_proginfo` does not load.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ProgInfoError {
    /// A reserved word differs from the guide's value.
    #[error("proginfo word {word}: reserved value must be {expected:#010x}, found {found:#010x}")]
    Reserved {
        /// Word index.
        word: usize,
        /// The guide's value.
        expected: u32,
        /// The value found.
        found: u32,
    },
    /// A program register does not decode (stray bits).
    #[error("proginfo word {word}: {source}")]
    Register {
        /// Word index.
        word: usize,
        /// The decode error.
        source: RegisterDecodeError,
    },
    /// `INSTR_CNT` is 0 or above 512 slots (CTM §3.1).
    #[error("INSTR_CNT {found} is outside 1..=512")]
    InstrCnt {
        /// The value found.
        found: u32,
    },
    /// `US_CODE_RANGE` is not `(INSTR_CNT − 1) << 16` (CTM §4.1.4).
    #[error("US_CODE_RANGE must be {expected:#010x} for INSTR_CNT, found {found:#010x}")]
    CodeRange {
        /// `(INSTR_CNT − 1) << 16`.
        expected: u32,
        /// The value found.
        found: u32,
    },
    /// `US_CODE_ADDR`'s start/end slots are not `start ≤ end < INSTR_CNT`.
    #[error("US_CODE_ADDR start {start} / end {end} do not fit INSTR_CNT {instr_cnt}")]
    CodeAddr {
        /// First slot executed.
        start: u32,
        /// Last slot executed.
        end: u32,
        /// Slots in the program.
        instr_cnt: u32,
    },
}

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

    /// The 28 words of the note's descriptor (the backend's layout,
    /// [`ProgInfo::to_words`]).
    pub fn to_words(&self) -> [u32; PROGINFO_WORDS] {
        ProgInfo {
            fg_depth_src: self.fg_depth_src.encode(),
            us_config: self.us_config.encode(),
            us_pixsize: self.us_pixsize.encode(),
            us_fc_ctrl: self.us_fc_ctrl.encode(),
            us_code_addr: self.us_code_addr.encode(),
            us_code_range: self.us_code_range(),
            instr_cnt: self.instr_cnt,
        }
        .to_words()
    }

    /// Decode and check the 28 descriptor words.
    ///
    /// # Errors
    /// [`ProgInfoError`] for a wrong reserved word, a register with stray
    /// bits, an `INSTR_CNT` outside 1..=512, or `US_CODE_RANGE` /
    /// `US_CODE_ADDR` inconsistent with `INSTR_CNT`.
    pub fn from_words(words: &[u32; PROGINFO_WORDS]) -> Result<Self, ProgInfoError> {
        use proginfo_word as w;
        for (word, expected) in ProgInfo::reserved_words() {
            if words[word] != expected {
                return Err(ProgInfoError::Reserved {
                    word,
                    expected,
                    found: words[word],
                });
            }
        }
        fn reg<R: ProgramRegister>(words: &[u32], word: usize) -> Result<R, ProgInfoError> {
            R::decode(words[word]).map_err(|source| ProgInfoError::Register { word, source })
        }
        let instr_cnt = words[w::INSTR_CNT];
        if instr_cnt == 0 || instr_cnt as usize > MAX_SLOTS {
            return Err(ProgInfoError::InstrCnt { found: instr_cnt });
        }
        let info = ProgramInfo {
            fg_depth_src: reg(words, w::FG_DEPTH_SRC)?,
            us_config: reg(words, w::US_CONFIG)?,
            us_pixsize: reg(words, w::US_PIXSIZE)?,
            us_fc_ctrl: reg(words, w::US_FC_CTRL)?,
            us_code_addr: reg(words, w::US_CODE_ADDR)?,
            instr_cnt,
        };
        if words[w::US_CODE_RANGE] != info.us_code_range() {
            return Err(ProgInfoError::CodeRange {
                expected: info.us_code_range(),
                found: words[w::US_CODE_RANGE],
            });
        }
        info.check_code_addr()?;
        Ok(info)
    }

    /// `start ≤ end < INSTR_CNT` for `US_CODE_ADDR`.
    ///
    /// # Errors
    /// [`ProgInfoError::CodeAddr`].
    pub fn check_code_addr(&self) -> Result<(), ProgInfoError> {
        let start = self.us_code_addr.start.get();
        let end = self.us_code_addr.end.get();
        if start > end || end >= self.instr_cnt {
            return Err(ProgInfoError::CodeAddr {
                start,
                end,
                instr_cnt: self.instr_cnt,
            });
        }
        Ok(())
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
