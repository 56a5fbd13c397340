//! Why a file is not a ctm/CTM X1K executable: one [`ElfError`] variant per
//! check of the reader.

use crate::isa::ProgramDecodeError;
use crate::isa::program_regs::RegisterDecodeError;

use super::NoteType;

/// An ELF header field the reader checks (CTM §4.1.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HeaderField {
    /// `e_ident[EI_MAG0..=EI_MAG3]`, as a little-endian word.
    Magic,
    /// `e_ident[EI_CLASS]` (`ELFCLASS32`).
    Class,
    /// `e_ident[EI_DATA]` (`ELFDATA2LSB`).
    Data,
    /// `e_ident[EI_VERSION]` (`EV_CURRENT`).
    IdentVersion,
    /// `e_ident[EI_OSABI]` (`ELFOSABI_ATI` = 98).
    OsAbi,
    /// `e_ident[EI_ABIVERSION]` (1).
    AbiVersion,
    /// `e_type` (`ET_EXEC`).
    Type,
    /// `e_machine` (`EM_ATI_R5XX` = 122).
    Machine,
    /// `e_version` (`EV_CURRENT`).
    Version,
    /// `e_entry` (0).
    Entry,
    /// `e_flags` (`EF_ATI_DPP` = 1).
    Flags,
    /// `e_ehsize` (52).
    HeaderSize,
}

/// Why bytes are not a valid X1K executable.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ElfError {
    /// Shorter than an ELF32 header.
    #[error("file is {len} bytes, shorter than an ELF32 header (52)")]
    TooShort {
        /// The length.
        len: usize,
    },
    /// A header field has the wrong value (CTM §4.1.2).
    #[error("ELF header {field:?} must be {expected:#x}, found {found:#x}")]
    Header {
        /// The field.
        field: HeaderField,
        /// The required value.
        expected: u64,
        /// The value found.
        found: u64,
    },
    /// The `object` crate could not read a table (offsets, sizes, names).
    #[error("malformed ELF: {0}")]
    Malformed(#[from] object::read::Error),
    /// No `.text` section (CTM §4.1.3).
    #[error("no .text section")]
    NoText,
    /// More than one `.text` section (CTM §4.1.3: "a single .text section").
    #[error("{count} .text sections")]
    DuplicateText {
        /// How many.
        count: usize,
    },
    /// `.text` is not `SHT_PROGBITS` (CTM §4.1.3).
    #[error(".text has section type {found}, not SHT_PROGBITS")]
    TextType {
        /// `sh_type`.
        found: u32,
    },
    /// `.text` flags are not `SHF_ALLOC | SHF_EXECINSTR` (CTM §4.1.3).
    #[error(".text has flags {found:#x}, not SHF_ALLOC|SHF_EXECINSTR")]
    TextFlags {
        /// `sh_flags`.
        found: u64,
    },
    /// No `PT_LOAD` segment holds `.text` (CTM §4.1.3).
    #[error(".text is not inside a PT_LOAD segment")]
    TextNotLoaded,
    /// `.text` is empty or not whole 24-byte slots.
    #[error(".text is {bytes} bytes, not a positive multiple of 24")]
    TextSize {
        /// Its size.
        bytes: usize,
    },
    /// More than 512 slots (CTM §3.1).
    #[error(".text has {slots} slots, more than 512")]
    TooManySlots {
        /// Slots in `.text`.
        slots: usize,
    },
    /// A `.text` slot does not decode (`docs/isa-x1k.md` §3).
    #[error(".text: {0}")]
    TextDecode(ProgramDecodeError),
    /// No `PT_NOTE` segment (CTM §4.1.4).
    #[error("no PT_NOTE segment")]
    NoNoteSegment,
    /// An `SHT_NOTE` section lies outside every `PT_NOTE` segment (CTM
    /// §4.1.4: notes are "in sections of type SHT_NOTE with program header
    /// elements of type PT_NOTE").
    #[error("SHT_NOTE section at offset {offset:#x} is outside every PT_NOTE segment")]
    NoteSectionOutsideSegment {
        /// Its `sh_offset`.
        offset: u32,
    },
    /// An `"ATI DPP"` note of a type other than 1..=7.
    #[error("unknown ATI DPP note type {found}")]
    UnknownNoteType {
        /// `n_type`.
        found: u32,
    },
    /// Two ATI notes of one type.
    #[error("two {note} notes")]
    DuplicateNote {
        /// The type.
        note: NoteType,
    },
    /// A note descriptor of the wrong size.
    #[error("{note} descriptor is {found} bytes; must be {expected}")]
    NoteSize {
        /// The type.
        note: NoteType,
        /// The required size (for index lists: a multiple of 4).
        expected: u32,
        /// The size found.
        found: u32,
    },
    /// A flag note holds neither 0 nor 1.
    #[error("{note} holds {value}, not 0 or 1")]
    NoteFlag {
        /// The type.
        note: NoteType,
        /// The value.
        value: u32,
    },
    /// An index list names an index out of range.
    #[error("{note} lists index {index}, out of range")]
    NoteIndex {
        /// The type.
        note: NoteType,
        /// The index.
        index: u32,
    },
    /// An index list repeats an index.
    #[error("{note} lists index {index} twice")]
    DuplicateIndex {
        /// The type.
        note: NoteType,
        /// The index.
        index: u32,
    },
    /// No program-information note ("the object is ill conditioned and will
    /// fail to load", CTM §4.1.4).
    #[error("no ELF_NOTE_ATI_PROGINFO note")]
    MissingProgInfo,
    /// A reserved `dpp_proginfo` word differs from the manual's value.
    #[error("proginfo word {word}: reserved value must be {expected:#010x}, found {found:#010x}")]
    ProgInfoReserved {
        /// Word index.
        word: usize,
        /// The manual's value.
        expected: u32,
        /// The value found.
        found: u32,
    },
    /// A program register of the proginfo has bits outside its fields.
    #[error("proginfo word {word}: {source}")]
    ProgInfoRegister {
        /// Word index.
        word: usize,
        /// The decode error.
        source: RegisterDecodeError,
    },
    /// `INSTR_CNT` is not the number of `.text` slots.
    #[error("INSTR_CNT is {instr_cnt} but .text holds {text_slots} slots")]
    InstrCntMismatch {
        /// The proginfo's count.
        instr_cnt: u32,
        /// Slots in `.text`.
        text_slots: usize,
    },
    /// `US_CODE_RANGE` is not `(INSTR_CNT − 1) << 16` (CTM §4.1.4).
    #[error("US_CODE_RANGE must be {expected:#010x}, found {found:#010x}")]
    CodeRange {
        /// `(INSTR_CNT − 1) << 16`.
        expected: u32,
        /// The value found.
        found: u32,
    },
    /// `US_CODE_ADDR` does not satisfy start ≤ end < `INSTR_CNT`.
    #[error("US_CODE_ADDR start {start} / end {end} do not fit INSTR_CNT {instr_cnt}")]
    CodeAddr {
        /// First slot executed.
        start: u32,
        /// Last slot executed.
        end: u32,
        /// Slots in the program.
        instr_cnt: u32,
    },
    /// [`super::read`] only: `US_CODE_ADDR` does not run the whole program
    /// (start 0, end `INSTR_CNT − 1`), which a [`crate::Program`] cannot
    /// express ([`super::read_image`] accepts it).
    #[error("US_CODE_ADDR start {start} / end {end}: ctm programs run slots 0..INSTR_CNT")]
    PartialCodeAddr {
        /// First slot executed.
        start: u32,
        /// Last slot executed.
        end: u32,
    },
    /// Two `"ctm"` notes.
    #[error("two \"ctm\" notes")]
    DuplicateCtmNote,
    /// A `"ctm"` note of a type other than 1 (bindings).
    #[error("unknown \"ctm\" note type {found}")]
    UnknownCtmNoteType {
        /// `n_type`.
        found: u32,
    },
    /// The `"ctm"` note is not UTF-8 followed by NUL padding.
    #[error("the \"ctm\" note is not UTF-8 text padded with NULs")]
    CtmNoteText,
    /// The `"ctm"` note is not valid bindings JSON (`docs/abi-x1k.md` §3).
    #[error("the \"ctm\" note is not valid bindings JSON: {0}")]
    CtmNoteJson(String),
    /// [`super::read`] only: no `"ctm"` note ("ctm's loader requires it",
    /// `docs/abi-x1k.md` §1).
    #[error("no \"ctm\" bindings note")]
    MissingCtmNote,
}
