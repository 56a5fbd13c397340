//! Why bytes are not a ctm CAL image.

use crate::isa::{ProgramDecodeError, ProgramEncodeError};

/// A deviation from the layout of `docs/abi-r700.md` §1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// Fewer bytes than an ELF header.
    #[error("file is {len} bytes, too short for an ELF header")]
    TooShort {
        /// The length.
        len: usize,
    },
    /// A header field has the wrong value.
    #[error("ELF header field {field}: expected {expected:#x}, found {found:#x}")]
    Header {
        /// The field's name.
        field: &'static str,
        /// What the ABI requires.
        expected: u64,
        /// What the file has.
        found: u64,
    },
    /// The `object` crate could not parse a table.
    #[error("malformed ELF: {0}")]
    Malformed(String),
    /// Not exactly one segment of a required type.
    #[error("expected exactly one {kind} program header, found {count}")]
    SegmentCount {
        /// `PT_LOAD`, `PT_NOTE` or the encoding dictionary.
        kind: &'static str,
        /// How many there are.
        count: usize,
    },
    /// A segment's bytes lie outside the file.
    #[error("{kind} segment at {offset:#x} (+{size}) lies outside the file")]
    SegmentOutOfFile {
        /// The segment kind.
        kind: &'static str,
        /// Its offset.
        offset: u64,
        /// Its size.
        size: u64,
    },
    /// No encoding-dictionary entry names the RV770 encoding.
    #[error("the encoding dictionary has no RV770 entry (d_machine 5)")]
    NoRv770Encoding,
    /// A note record runs past its segment or has a bad size.
    #[error("malformed note at offset {offset:#x} of the note segment")]
    BadNote {
        /// Offset inside the note segment.
        offset: usize,
    },
    /// A CAL note appears twice.
    #[error("note {name} appears twice")]
    DuplicateNote {
        /// The note's name.
        name: &'static str,
    },
    /// A CAL note has a descriptor of the wrong size.
    #[error("note {name} has a descriptor of {size} bytes")]
    NoteSize {
        /// The note's name.
        name: &'static str,
        /// Its size.
        size: usize,
    },
    /// The program-information note is missing.
    #[error("no ELF_NOTE_ATI_PROGINFO note")]
    NoProgInfo,
    /// The `"ctm"` note is not bindings JSON.
    #[error("bad \"ctm\" note: {0}")]
    BadBindings(String),
    /// The `"ctm"` note is missing (needed by [`super::read`]).
    #[error("no \"ctm\" bindings note")]
    MissingCtmNote,
    /// The `.text` bytes are not a valid program.
    #[error("bad .text: {0}")]
    TextDecode(ProgramDecodeError),
    /// The program cannot be encoded.
    #[error("cannot encode the program: {0}")]
    Encode(ProgramEncodeError),
}

impl From<object::read::Error> for ElfError {
    fn from(e: object::read::Error) -> Self {
        ElfError::Malformed(e.to_string())
    }
}
