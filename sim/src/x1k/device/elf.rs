//! Reader for CTM DPP executables (CTM §4.1), built on the `object` crate.
//!
//! The accepted layout (`docs/ctm-device.md` §8) is checked field by field;
//! every deviation is a typed [`ElfError`]:
//!
//! * ELF header (§4.1.2): magic, `ELFCLASS32`, `ELFDATA2LSB`,
//!   `EI_VERSION` 1, `EI_OSABI` 98 (`ELFOSABI_ATI`), `EI_ABIVERSION` 1,
//!   `e_type` `ET_EXEC`, `e_machine` 122 (`EM_ATI_R5XX`), `e_version` 1,
//!   `e_entry` 0, `e_flags` 1 (`EF_ATI_DPP`), `e_ehsize` 52.
//! * Code (§4.1.3): exactly one section named `.text`, `SHT_PROGBITS`,
//!   flags exactly `SHF_ALLOC | SHF_EXECINSTR`, inside the file bytes of a
//!   `PT_LOAD` segment, a positive multiple of 24 bytes, at most 512 slots,
//!   each slot decoding with the ISA's strict decoder.
//! * Notes (§4.1.4): read from the `PT_NOTE` segments (at least one); every
//!   `SHT_NOTE` section must lie inside one. Each note has `namesz` 8, name
//!   `"ATI DPP\0"`, a type 1..=7, at most one note per type, and the
//!   descriptor size its type requires. The program-information note is
//!   required; the others default to "none". Index lists must be in range
//!   (inputs < 16, outputs < 4, float constants < 256, int constants < 32)
//!   and free of repeats; flags must be 0 or 1.
//! * `INSTR_CNT` must equal the number of `.text` slots.

use object::LittleEndian;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};

use ctm_backend_x1k::isa::encode::BYTES_PER_SLOT;
use ctm_backend_x1k::isa::{IntConstId, MAX_SLOTS, ProgramDecodeError, decode_program_bytes};

use super::params::{InputId, OutputId};
use super::program::{
    ImageError, NoteType, PROGINFO_WORDS, ProgInfoError, ProgramImage, ProgramInfo, ProgramNotes,
};

/// `e_ident[EI_OSABI]`: `ELFOSABI_ATI`.
pub const ELFOSABI_ATI: u8 = 98;
/// `e_ident[EI_ABIVERSION]`.
pub const ABI_VERSION: u8 = 1;
/// `e_machine`: `EM_ATI_R5XX`.
pub const EM_ATI_R5XX: u16 = 122;
/// `e_flags`: `EF_ATI_DPP`.
pub const EF_ATI_DPP: u32 = 1;
/// The note name `ELF_NOTE_ATI`, with its terminating NUL (`namesz` = 8).
pub const ELF_NOTE_ATI: &[u8; 8] = b"ATI DPP\0";

/// A checked ELF header field.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HeaderField {
    /// `e_ident[EI_MAG0..3]` (compared as a little-endian word).
    Magic,
    /// `e_ident[EI_CLASS]`.
    Class,
    /// `e_ident[EI_DATA]`.
    Data,
    /// `e_ident[EI_VERSION]`.
    IdentVersion,
    /// `e_ident[EI_OSABI]`.
    OsAbi,
    /// `e_ident[EI_ABIVERSION]`.
    AbiVersion,
    /// `e_type`.
    Type,
    /// `e_machine`.
    Machine,
    /// `e_version`.
    Version,
    /// `e_entry`.
    Entry,
    /// `e_flags`.
    Flags,
    /// `e_ehsize`.
    HeaderSize,
}

/// Why a file is not a loadable CTM program.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ElfError {
    /// Shorter than an ELF32 header.
    #[error("file is {len} bytes, shorter than an ELF32 header")]
    TooShort {
        /// The length.
        len: usize,
    },
    /// A header field has the wrong value.
    #[error("ELF header {field:?} must be {expected:#x}, found {found:#x}")]
    Header {
        /// The field.
        field: HeaderField,
        /// The required value.
        expected: u64,
        /// The value found.
        found: u64,
    },
    /// The `object` crate could not read a table (bad offsets, sizes, ...).
    #[error("malformed ELF: {0}")]
    Malformed(#[from] object::read::Error),
    /// No `.text` section.
    #[error("no .text section")]
    NoText,
    /// More than one `.text` section.
    #[error("{count} .text sections")]
    DuplicateText {
        /// How many.
        count: usize,
    },
    /// `.text` is not `SHT_PROGBITS`.
    #[error(".text has section type {found}, not SHT_PROGBITS")]
    TextType {
        /// `sh_type`.
        found: u32,
    },
    /// `.text` flags are not exactly `SHF_ALLOC | SHF_EXECINSTR`.
    #[error(".text has flags {found:#x}, not SHF_ALLOC|SHF_EXECINSTR")]
    TextFlags {
        /// `sh_flags`.
        found: u64,
    },
    /// No `PT_LOAD` segment holds `.text`.
    #[error(".text is not inside a PT_LOAD segment")]
    TextNotLoaded,
    /// `.text` is empty or not whole 24-byte slots.
    #[error(".text is {bytes} bytes, not a positive multiple of 24")]
    TextSize {
        /// Its size.
        bytes: usize,
    },
    /// `.text` has more than 512 slots (CTM §3.1).
    #[error(".text has {slots} slots, more than 512")]
    TooManySlots {
        /// Its slot count.
        slots: usize,
    },
    /// A `.text` slot does not decode.
    #[error(".text: {0}")]
    TextDecode(ProgramDecodeError),
    /// No `PT_NOTE` segment.
    #[error("no PT_NOTE segment")]
    NoNoteSegment,
    /// An `SHT_NOTE` section lies outside every `PT_NOTE` segment.
    #[error("SHT_NOTE section at file offset {offset:#x} is outside every PT_NOTE segment")]
    NoteSectionOutsideSegment {
        /// The section's `sh_offset`.
        offset: u32,
    },
    /// A note's name is not `"ATI DPP\0"` (or `namesz` is not 8).
    #[error("note name {found:?} is not \"ATI DPP\\0\"")]
    NoteName {
        /// The name bytes.
        found: Vec<u8>,
    },
    /// A note's type is not 1..=7.
    #[error("unknown ATI DPP note type {found}")]
    UnknownNoteType {
        /// `n_type`.
        found: u32,
    },
    /// Two notes of one type.
    #[error("two {note} notes")]
    DuplicateNote {
        /// The type.
        note: NoteType,
    },
    /// A note's descriptor has the wrong size.
    #[error("{note} descriptor is {found} bytes, must be {expected}")]
    NoteSize {
        /// The type.
        note: NoteType,
        /// The required size (for lists: the size must be a multiple of it).
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
    /// An index list names an index outside its range.
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
    /// fail to load", §4.1.4).
    #[error("no ELF_NOTE_ATI_PROGINFO note")]
    MissingProgramInfo,
    /// The program-information note does not check.
    #[error("proginfo: {0}")]
    ProgInfo(#[from] ProgInfoError),
    /// `INSTR_CNT` differs from the number of `.text` slots.
    #[error("INSTR_CNT is {instr_cnt} but .text holds {text_slots} slots")]
    InstrCntMismatch {
        /// The proginfo's count.
        instr_cnt: u32,
        /// Slots in `.text`.
        text_slots: usize,
    },
}

type Header = elf::FileHeader32<LittleEndian>;

fn header_field(field: HeaderField, expected: u64, found: u64) -> Result<(), ElfError> {
    if expected == found {
        Ok(())
    } else {
        Err(ElfError::Header {
            field,
            expected,
            found,
        })
    }
}

/// Check `e_ident` byte by byte, so each deviation gets its own error
/// (the `object` crate's own check lumps them together).
fn check_ident(data: &[u8]) -> Result<(), ElfError> {
    const EHDR32: usize = 52;
    if data.len() < EHDR32 {
        return Err(ElfError::TooShort { len: data.len() });
    }
    let word = |b: &[u8]| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    header_field(HeaderField::Magic, word(&elf::ELFMAG), word(&data[0..4]))?;
    header_field(HeaderField::Class, elf::ELFCLASS32.0.into(), data[4].into())?;
    header_field(HeaderField::Data, elf::ELFDATA2LSB.0.into(), data[5].into())?;
    header_field(
        HeaderField::IdentVersion,
        elf::EV_CURRENT.0.into(),
        data[6].into(),
    )?;
    header_field(HeaderField::OsAbi, ELFOSABI_ATI.into(), data[7].into())?;
    header_field(HeaderField::AbiVersion, ABI_VERSION.into(), data[8].into())?;
    Ok(())
}

/// Read and check a CTM DPP executable.
///
/// # Errors
/// [`ElfError`] naming the first deviation from the layout in the module doc.
pub fn read_elf(data: &[u8]) -> Result<ProgramImage, ElfError> {
    check_ident(data)?;
    let header = Header::parse(data)?;
    let e = LittleEndian;
    header_field(
        HeaderField::Type,
        elf::ET_EXEC.0.into(),
        header.e_type(e).0.into(),
    )?;
    header_field(
        HeaderField::Machine,
        EM_ATI_R5XX.into(),
        header.e_machine(e).0.into(),
    )?;
    header_field(
        HeaderField::Version,
        elf::EV_CURRENT.0.into(),
        header.e_version(e).into(),
    )?;
    header_field(HeaderField::Entry, 0, header.e_entry(e).into())?;
    header_field(
        HeaderField::Flags,
        EF_ATI_DPP.into(),
        header.e_flags(e).0.into(),
    )?;
    header_field(HeaderField::HeaderSize, 52, header.e_ehsize(e).into())?;

    let segments = header.program_headers(e, data)?;
    let sections = header.sections(e, data)?;

    // §4.1.3: the single .text section, loaded by a PT_LOAD segment.
    let mut texts = Vec::new();
    for section in sections.iter() {
        if sections.section_name(e, section)? == b".text" {
            texts.push(section);
        }
    }
    let text = match texts.as_slice() {
        [] => return Err(ElfError::NoText),
        [one] => *one,
        many => return Err(ElfError::DuplicateText { count: many.len() }),
    };
    if text.sh_type(e) != elf::SHT_PROGBITS {
        return Err(ElfError::TextType {
            found: text.sh_type(e).0,
        });
    }
    let want_flags = elf::SHF_ALLOC.0 | elf::SHF_EXECINSTR.0;
    if text.sh_flags(e).0 != want_flags {
        return Err(ElfError::TextFlags {
            found: text.sh_flags(e).0,
        });
    }
    let inside = |seg: &elf::ProgramHeader32<LittleEndian>, off: u32, size: u32| {
        let start = u64::from(seg.p_offset(e));
        let end = start + u64::from(seg.p_filesz(e));
        u64::from(off) >= start && u64::from(off) + u64::from(size) <= end
    };
    let (text_off, text_size) = (text.sh_offset(e), text.sh_size(e));
    if !segments
        .iter()
        .any(|s| s.p_type(e) == elf::PT_LOAD && inside(s, text_off, text_size))
    {
        return Err(ElfError::TextNotLoaded);
    }
    let text_bytes = text.data(e, data)?;
    if text_bytes.is_empty() || !text_bytes.len().is_multiple_of(BYTES_PER_SLOT) {
        return Err(ElfError::TextSize {
            bytes: text_bytes.len(),
        });
    }
    let text_slots = text_bytes.len() / BYTES_PER_SLOT;
    if text_slots > MAX_SLOTS {
        return Err(ElfError::TooManySlots { slots: text_slots });
    }
    decode_program_bytes(text_bytes).map_err(ElfError::TextDecode)?;

    // §4.1.4: notes in PT_NOTE segments; SHT_NOTE sections inside them.
    let note_segments: Vec<_> = segments
        .iter()
        .filter(|s| s.p_type(e) == elf::PT_NOTE)
        .collect();
    if note_segments.is_empty() {
        return Err(ElfError::NoNoteSegment);
    }
    for section in sections.iter() {
        if section.sh_type(e) == elf::SHT_NOTE
            && !note_segments
                .iter()
                .any(|s| inside(s, section.sh_offset(e), section.sh_size(e)))
        {
            return Err(ElfError::NoteSectionOutsideSegment {
                offset: section.sh_offset(e),
            });
        }
    }
    let mut notes = NoteSet::default();
    for segment in note_segments {
        let Some(mut iter) = segment.notes(e, data)? else {
            continue;
        };
        while let Some(note) = iter.next()? {
            if note.name_bytes() != ELF_NOTE_ATI {
                return Err(ElfError::NoteName {
                    found: note.name_bytes().to_vec(),
                });
            }
            let code = note.n_type(e).0;
            let kind =
                NoteType::from_code(code).ok_or(ElfError::UnknownNoteType { found: code })?;
            notes.add(kind, note.desc())?;
        }
    }
    let info = notes.info.ok_or(ElfError::MissingProgramInfo)?;
    if info.instr_cnt as usize != text_slots {
        return Err(ElfError::InstrCntMismatch {
            instr_cnt: info.instr_cnt,
            text_slots,
        });
    }
    ProgramImage::new(text_bytes.to_vec(), info, notes.notes).map_err(|err| match err {
        ImageError::TextSize { bytes } => ElfError::TextSize { bytes },
        ImageError::InstrCntMismatch {
            instr_cnt,
            text_slots,
        } => ElfError::InstrCntMismatch {
            instr_cnt,
            text_slots,
        },
    })
}

/// Notes seen so far.
#[derive(Default)]
struct NoteSet {
    seen: Vec<NoteType>,
    info: Option<ProgramInfo>,
    notes: ProgramNotes,
}

fn words(desc: &[u8]) -> Vec<u32> {
    desc.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// An index list: `descsz` a multiple of 4, each index below `limit`, no repeats.
fn index_list(note: NoteType, desc: &[u8], limit: u32) -> Result<Vec<u32>, ElfError> {
    if !desc.len().is_multiple_of(4) {
        return Err(ElfError::NoteSize {
            note,
            expected: 4,
            found: desc.len() as u32,
        });
    }
    let list = words(desc);
    for (k, &index) in list.iter().enumerate() {
        if index >= limit {
            return Err(ElfError::NoteIndex { note, index });
        }
        if list[..k].contains(&index) {
            return Err(ElfError::DuplicateIndex { note, index });
        }
    }
    Ok(list)
}

/// A one-word flag note holding 0 or 1.
fn flag(note: NoteType, desc: &[u8]) -> Result<bool, ElfError> {
    if desc.len() != 4 {
        return Err(ElfError::NoteSize {
            note,
            expected: 4,
            found: desc.len() as u32,
        });
    }
    match words(desc)[0] {
        0 => Ok(false),
        1 => Ok(true),
        value => Err(ElfError::NoteFlag { note, value }),
    }
}

impl NoteSet {
    fn add(&mut self, note: NoteType, desc: &[u8]) -> Result<(), ElfError> {
        if self.seen.contains(&note) {
            return Err(ElfError::DuplicateNote { note });
        }
        self.seen.push(note);
        // Indices below are range-checked by `index_list`, so the typed
        // constructors cannot fail.
        match note {
            NoteType::ProgInfo => {
                let expected = (PROGINFO_WORDS * 4) as u32;
                if desc.len() != PROGINFO_WORDS * 4 {
                    return Err(ElfError::NoteSize {
                        note,
                        expected,
                        found: desc.len() as u32,
                    });
                }
                let mut w = [0u32; PROGINFO_WORDS];
                w.copy_from_slice(&words(desc));
                self.info = Some(ProgramInfo::from_words(&w)?);
            }
            NoteType::Inputs => {
                self.notes.inputs = index_list(note, desc, InputId::COUNT as u32)?
                    .into_iter()
                    .filter_map(|i| InputId::new(i as u8))
                    .collect();
            }
            NoteType::Outputs => {
                self.notes.outputs = index_list(note, desc, OutputId::COUNT as u32)?
                    .into_iter()
                    .filter_map(|i| OutputId::new(i as u8))
                    .collect();
            }
            NoteType::CondOut => self.notes.conditional_output = flag(note, desc)?,
            NoteType::Float32Consts => {
                self.notes.float_constants = index_list(note, desc, 256)?
                    .into_iter()
                    .map(|i| i as u8)
                    .collect();
            }
            NoteType::Int32Consts => {
                self.notes.int_constants = index_list(note, desc, 32)?
                    .into_iter()
                    .filter_map(IntConstId::new)
                    .collect();
            }
            NoteType::EarlyExit => self.notes.early_exit = flag(note, desc)?,
        }
        Ok(())
    }
}
