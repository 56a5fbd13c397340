//! The ELF reader: every field CTM chapter 4 and `docs/abi-x1k.md` §1 fix
//! is checked, each deviation a typed [`ElfError`]:
//!
//! * ELF header (CTM §4.1.2): magic, `ELFCLASS32`, `ELFDATA2LSB`,
//!   `EI_VERSION` 1, `EI_OSABI` 98, `EI_ABIVERSION` 1, `ET_EXEC`,
//!   `e_machine` 122, `e_version` 1, `e_entry` 0, `e_flags` 1, `e_ehsize`
//!   52 (the table sizes and offsets are checked by `object`).
//! * Code (CTM §4.1.3): exactly one `.text`, `SHT_PROGBITS`, flags exactly
//!   `SHF_ALLOC | SHF_EXECINSTR`, inside a `PT_LOAD` segment's file bytes,
//!   a positive multiple of 24 bytes, at most 512 slots, each slot decoding
//!   with the ISA's strict decoder.
//! * Notes (CTM §4.1.4): read from the `PT_NOTE` segments (at least one);
//!   every `SHT_NOTE` section lies inside one. `"ATI DPP"` notes: type
//!   1..=7, at most one of each, the descriptor size the type needs, index
//!   lists in range and without repeats, flags 0 or 1. The program
//!   information note is required, and its reserved words, registers,
//!   `INSTR_CNT` (= `.text` slots), `US_CODE_RANGE` and `US_CODE_ADDR` are
//!   checked. A `"ctm"` note (type 1, at most one) holds NUL-padded UTF-8
//!   bindings JSON. Notes with other names are ignored, as a CTM loader
//!   ignores notes it does not know.

use ctm_isa_kit::note::le_words;
use object::LittleEndian;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader as _, SectionHeader as _};

use crate::Program;
use crate::abi::Bindings;
use crate::isa::encode::BYTES_PER_SLOT;
use crate::isa::program_regs::{ProgramRegister, UsCodeAddrReg};
use crate::isa::{MAX_SLOTS, decode_program_bytes};

use super::{
    ABI_VERSION, AtiNotes, CTM_NOTE_BINDINGS, EF_ATI_DPP, ELFOSABI_ATI, EM_ATI_R5XX, ElfError,
    ElfImage, HeaderField, NOTE_NAME_ATI, NOTE_NAME_CTM, NoteType, PROGINFO_WORDS, ProgInfo,
    proginfo_word,
};

type Header = elf::FileHeader32<LittleEndian>;
type Segment = elf::ProgramHeader32<LittleEndian>;

/// Read a ctm X1K executable back into the [`Program`] it was written from.
///
/// # Errors
/// Everything [`read_image`] rejects; also a missing `"ctm"` note
/// ([`ElfError::MissingCtmNote`]) and a `US_CODE_ADDR` that does not run
/// slots `0..INSTR_CNT` ([`ElfError::PartialCodeAddr`]).
pub fn read(data: &[u8]) -> Result<Program, ElfError> {
    let image = read_image(data)?;
    let code = UsCodeAddrReg::decode(image.proginfo.us_code_addr).map_err(|source| {
        ElfError::ProgInfoRegister {
            word: proginfo_word::US_CODE_ADDR,
            source,
        }
    })?;
    let (start, end) = (code.start.get(), code.end.get());
    if start != 0 || end + 1 != image.proginfo.instr_cnt {
        return Err(ElfError::PartialCodeAddr { start, end });
    }
    if image.bindings.is_none() {
        return Err(ElfError::MissingCtmNote);
    }
    Ok(image.program())
}

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

/// `e_ident`, byte by byte, so each deviation has its own error.
fn check_ident(data: &[u8]) -> Result<(), ElfError> {
    if data.len() < 52 {
        return Err(ElfError::TooShort { len: data.len() });
    }
    let magic = |b: &[u8]| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    header_field(HeaderField::Magic, magic(&elf::ELFMAG), magic(&data[0..4]))?;
    header_field(HeaderField::Class, elf::ELFCLASS32.0.into(), data[4].into())?;
    header_field(HeaderField::Data, elf::ELFDATA2LSB.0.into(), data[5].into())?;
    header_field(
        HeaderField::IdentVersion,
        elf::EV_CURRENT.0.into(),
        data[6].into(),
    )?;
    header_field(HeaderField::OsAbi, ELFOSABI_ATI.into(), data[7].into())?;
    header_field(HeaderField::AbiVersion, ABI_VERSION.into(), data[8].into())
}

/// Whether `[offset, offset + size)` lies in the segment's file bytes.
fn inside(seg: &Segment, offset: u32, size: u32) -> bool {
    let e = LittleEndian;
    let start = u64::from(seg.p_offset(e));
    let end = start + u64::from(seg.p_filesz(e));
    u64::from(offset) >= start && u64::from(offset) + u64::from(size) <= end
}

/// Read any CTM X1K executable (module doc for what is checked).
///
/// # Errors
/// The first deviation found, as an [`ElfError`]. Never panics.
pub fn read_image(data: &[u8]) -> Result<ElfImage, ElfError> {
    check_ident(data)?;
    let e = LittleEndian;
    let header = Header::parse(data)?;
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

    // CTM §4.1.3: one .text section, loaded by a PT_LOAD segment.
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
    let want = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
    let flags = text.sh_flags(e).0;
    if flags != want.0 {
        return Err(ElfError::TextFlags { found: flags });
    }
    let (text_offset, text_size) = (text.sh_offset(e), text.sh_size(e));
    if !segments
        .iter()
        .any(|s| s.p_type(e) == elf::PT_LOAD && inside(s, text_offset, text_size))
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
    let insts = decode_program_bytes(text_bytes).map_err(ElfError::TextDecode)?;

    // CTM §4.1.4: notes in PT_NOTE segments; SHT_NOTE sections inside them.
    let note_segments: Vec<&Segment> = segments
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
            let n_type = note.n_type(e).0;
            if note.name_bytes() == NOTE_NAME_ATI {
                let kind = NoteType::from_code(n_type)
                    .ok_or(ElfError::UnknownNoteType { found: n_type })?;
                notes.add(kind, note.desc())?;
            } else if note.name_bytes() == NOTE_NAME_CTM {
                notes.add_ctm(n_type, note.desc())?;
            }
        }
    }
    let proginfo = notes.proginfo.ok_or(ElfError::MissingProgInfo)?;
    proginfo.check(text_slots)?;
    Ok(ElfImage {
        insts,
        proginfo,
        notes: notes.notes,
        bindings: notes.bindings,
    })
}

/// The notes seen so far.
#[derive(Default)]
struct NoteSet {
    seen: Vec<NoteType>,
    proginfo: Option<ProgInfo>,
    notes: AtiNotes,
    bindings: Option<Bindings>,
}

fn size_error(note: NoteType, expected: usize, found: usize) -> ElfError {
    ElfError::NoteSize {
        note,
        expected: u32::try_from(expected).unwrap_or(u32::MAX),
        found: u32::try_from(found).unwrap_or(u32::MAX),
    }
}

/// An index list: a multiple of 4 bytes, indices in range, no repeats.
fn index_list(note: NoteType, desc: &[u8]) -> Result<Vec<u32>, ElfError> {
    if !desc.len().is_multiple_of(4) {
        return Err(size_error(note, 4, desc.len()));
    }
    let limit = note.index_limit().unwrap_or(u32::MAX);
    let list = le_words(desc);
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

/// A one-word flag: 0 or 1.
fn flag(note: NoteType, desc: &[u8]) -> Result<bool, ElfError> {
    match le_words(desc).as_slice() {
        [0] if desc.len() == 4 => Ok(false),
        [1] if desc.len() == 4 => Ok(true),
        [value] if desc.len() == 4 => Err(ElfError::NoteFlag {
            note,
            value: *value,
        }),
        _ => Err(size_error(note, 4, desc.len())),
    }
}

fn proginfo(desc: &[u8]) -> Result<ProgInfo, ElfError> {
    if desc.len() != PROGINFO_WORDS * 4 {
        return Err(size_error(
            NoteType::ProgInfo,
            PROGINFO_WORDS * 4,
            desc.len(),
        ));
    }
    ProgInfo::from_words(&le_words(desc))
}

impl NoteSet {
    fn add(&mut self, note: NoteType, desc: &[u8]) -> Result<(), ElfError> {
        if self.seen.contains(&note) {
            return Err(ElfError::DuplicateNote { note });
        }
        self.seen.push(note);
        let n = &mut self.notes;
        match note {
            NoteType::ProgInfo => self.proginfo = Some(proginfo(desc)?),
            NoteType::Inputs => n.inputs = index_list(note, desc)?,
            NoteType::Outputs => n.outputs = index_list(note, desc)?,
            NoteType::CondOut => n.conditional_output = flag(note, desc)?,
            NoteType::Float32Consts => n.float32_constants = index_list(note, desc)?,
            NoteType::Int32Consts => n.int32_constants = index_list(note, desc)?,
            NoteType::EarlyExit => n.early_exit = flag(note, desc)?,
        }
        Ok(())
    }

    fn add_ctm(&mut self, n_type: u32, desc: &[u8]) -> Result<(), ElfError> {
        if n_type != CTM_NOTE_BINDINGS {
            return Err(ElfError::UnknownCtmNoteType { found: n_type });
        }
        if self.bindings.is_some() {
            return Err(ElfError::DuplicateCtmNote);
        }
        let end = desc.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let text = std::str::from_utf8(&desc[..end]).map_err(|_| ElfError::CtmNoteText)?;
        if text.contains('\0') {
            return Err(ElfError::CtmNoteText);
        }
        self.bindings = Some(Bindings::from_json(text).map_err(ElfError::CtmNoteJson)?);
        Ok(())
    }
}
