//! The ELF reader: every field `docs/abi-r700.md` §1 fixes is checked,
//! each deviation a typed [`ElfError`]:
//!
//! * ELF header: magic, `ELFCLASS32`, `ELFDATA2LSB`, `EI_VERSION` 1,
//!   `EI_OSABI` 100, `EI_ABIVERSION` 1, `ET_EXEC`, `e_machine` 125,
//!   `e_version` 1 (table sizes and offsets are checked by `object`).
//! * Program headers: exactly one encoding dictionary (`PT_LOPROC + 2`)
//!   with an entry of `d_machine` 5 (RV770), exactly one `PT_NOTE` and
//!   exactly one `PT_LOAD`, all inside the file. The program is the
//!   `PT_LOAD` segment's file bytes, decoded by the strict program decoder.
//! * Notes: `"ATI CAL"` notes of the known types at most once each, with
//!   whole-word descriptors (pairs for PROGINFO and CONSTANT_BUFFERS); the
//!   program-information note is required. A `"ctm"` note of type 1 holds
//!   NUL-padded UTF-8 bindings JSON. Other notes are ignored, as a loader
//!   ignores notes it does not know.

use ctm_isa_kit::note::le_words;
use object::LittleEndian;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader as _};

use crate::abi::Bindings;
use crate::isa::decode_program;

use super::{
    ABI_VERSION, CTM_NOTE_BINDINGS, CalNotes, D_MACHINE_RV770, DICT_ENTRY_BYTES, ELFOSABI_CAL,
    EM_ATI_CALIMAGE_BINARY, ElfError, ElfImage, Executable, NOTE_NAME_CAL, NOTE_NAME_CTM, NoteType,
    PT_ATI_ENCODING_DICTIONARY,
};

type Header = elf::FileHeader32<LittleEndian>;

/// Read a ctm CAL image back into the [`Executable`] it was written from.
///
/// # Errors
/// Everything [`read_image`] rejects; also a missing `"ctm"` note.
pub fn read(data: &[u8]) -> Result<Executable, ElfError> {
    let image = read_image(data)?;
    let resources = image.resources();
    match image.bindings {
        Some(bindings) => Ok(Executable {
            program: image.program,
            resources,
            bindings,
        }),
        None => Err(ElfError::MissingCtmNote),
    }
}

fn field(field: &'static str, expected: u64, found: u64) -> Result<(), ElfError> {
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

fn word(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Read any CAL image of ctm's layout (module doc for what is checked).
///
/// # Errors
/// The first deviation found, as an [`ElfError`]. Never panics.
pub fn read_image(data: &[u8]) -> Result<ElfImage, ElfError> {
    if data.len() < 52 {
        return Err(ElfError::TooShort { len: data.len() });
    }
    field("magic", 0x464C_457F, u64::from(word(data, 0).unwrap_or(0)))?;
    field("EI_CLASS", elf::ELFCLASS32.0.into(), data[4].into())?;
    field("EI_DATA", elf::ELFDATA2LSB.0.into(), data[5].into())?;
    field("EI_VERSION", elf::EV_CURRENT.0.into(), data[6].into())?;
    field("EI_OSABI", ELFOSABI_CAL.into(), data[7].into())?;
    field("EI_ABIVERSION", ABI_VERSION.into(), data[8].into())?;
    let e = LittleEndian;
    let header = Header::parse(data)?;
    field("e_type", elf::ET_EXEC.0.into(), header.e_type(e).0.into())?;
    field(
        "e_machine",
        EM_ATI_CALIMAGE_BINARY.into(),
        header.e_machine(e).0.into(),
    )?;
    field(
        "e_version",
        elf::EV_CURRENT.0.into(),
        header.e_version(e).into(),
    )?;

    let segments = header.program_headers(e, data)?;
    let one = |kind: &'static str, p_type: u32| -> Result<&[u8], ElfError> {
        let found: Vec<_> = segments
            .iter()
            .filter(|s| s.p_type(e).0 == p_type)
            .collect();
        let [seg] = found.as_slice() else {
            return Err(ElfError::SegmentCount {
                kind,
                count: found.len(),
            });
        };
        let (offset, size) = (u64::from(seg.p_offset(e)), u64::from(seg.p_filesz(e)));
        usize::try_from(offset)
            .ok()
            .zip(usize::try_from(offset + size).ok())
            .and_then(|(a, b)| data.get(a..b))
            .ok_or(ElfError::SegmentOutOfFile { kind, offset, size })
    };
    let dict = one("encoding dictionary", PT_ATI_ENCODING_DICTIONARY)?;
    if !dict
        .chunks_exact(DICT_ENTRY_BYTES)
        .any(|entry| word(entry, 0) == Some(D_MACHINE_RV770))
    {
        return Err(ElfError::NoRv770Encoding);
    }
    let note_bytes = one("PT_NOTE", elf::PT_NOTE.0)?;
    let text = one("PT_LOAD", elf::PT_LOAD.0)?;
    let program = decode_program(text).map_err(ElfError::TextDecode)?;

    let mut proginfo = None;
    let mut notes = CalNotes::default();
    let mut seen = Vec::new();
    let mut bindings = None;
    let mut at = 0usize;
    while at < note_bytes.len() {
        let bad = ElfError::BadNote { offset: at };
        let (Some(namesz), Some(descsz), Some(n_type)) = (
            word(note_bytes, at),
            word(note_bytes, at + 4),
            word(note_bytes, at + 8),
        ) else {
            return Err(bad);
        };
        let round = |n: u32| (n as usize).checked_add(3).map(|v| v & !3);
        let name_start = at + 12;
        let (Some(name_len), Some(desc_len)) = (round(namesz), round(descsz)) else {
            return Err(bad);
        };
        let desc_start = name_start.checked_add(name_len).ok_or(bad.clone())?;
        let end = desc_start.checked_add(desc_len).ok_or(bad.clone())?;
        if end > note_bytes.len() {
            return Err(bad);
        }
        let name = &note_bytes[name_start..name_start + namesz as usize];
        let desc = &note_bytes[desc_start..desc_start + descsz as usize];
        if name == NOTE_NAME_CAL {
            if let Some(kind) = NoteType::from_code(n_type) {
                if seen.contains(&kind) {
                    return Err(ElfError::DuplicateNote { name: kind.name() });
                }
                seen.push(kind);
                let size_err = ElfError::NoteSize {
                    name: kind.name(),
                    size: desc.len(),
                };
                let pairs = matches!(kind, NoteType::ProgInfo | NoteType::ConstantBuffers);
                if !desc.len().is_multiple_of(if pairs { 8 } else { 4 }) {
                    return Err(size_err);
                }
                let w = le_words(desc);
                match kind {
                    NoteType::ProgInfo => {
                        proginfo = Some(w.chunks_exact(2).map(|p| (p[0], p[1])).collect());
                    }
                    NoteType::Inputs => notes.inputs = w,
                    NoteType::Outputs => notes.outputs = w,
                    NoteType::EarlyExit => match w.as_slice() {
                        [flag] => notes.early_exit = *flag != 0,
                        _ => return Err(size_err),
                    },
                    NoteType::ConstantBuffers => {
                        notes.constant_buffers = w.chunks_exact(2).map(|p| (p[0], p[1])).collect();
                    }
                    NoteType::CondOut
                    | NoteType::Float32Consts
                    | NoteType::Int32Consts
                    | NoteType::Bool32Consts => {}
                }
            }
        } else if name == NOTE_NAME_CTM && n_type == CTM_NOTE_BINDINGS {
            if bindings.is_some() {
                return Err(ElfError::DuplicateNote { name: "ctm" });
            }
            let text = std::str::from_utf8(desc)
                .map_err(|e| ElfError::BadBindings(e.to_string()))?
                .trim_end_matches('\0');
            bindings = Some(Bindings::from_json(text).map_err(ElfError::BadBindings)?);
        }
        at = end;
    }
    Ok(ElfImage {
        program,
        proginfo: proginfo.ok_or(ElfError::NoProgInfo)?,
        notes,
        bindings,
    })
}
