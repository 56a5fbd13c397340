//! The ELF writer (`docs/abi-r700.md` §1.1): `object`'s two-phase ELF
//! writer lays out
//!
//! ```text
//! 0x00   ELF header (52 bytes)
//! 0x34   program headers: encoding dictionary (PT_LOPROC+2), PT_NOTE, PT_LOAD
//! 0x94   encoding dictionary: one entry of five words             align 4
//!        .note   "ATI CAL" notes in type order, then "ctm"        align 4
//!        .text   the program image (CF program, clauses)          align 8
//!        .ctm.source  only with the source (`write_with_source`) align 1
//!        .shstrtab, section headers: null, .note, .text, [.ctm.source,] .shstrtab
//! ```
//!
//! The sections, their headers and the name table are laid out by the
//! plumbing both chips share (`ctm_isa_kit::elf`).
//!
//! The dictionary entry names the RV770 encoding and covers the note and
//! text bytes (`d_offset`, `d_size`), as CAL's encoding dictionary does.

use ctm_isa_kit::elf::{self as sections, Section};
use ctm_isa_kit::note::{le_bytes, padded, push_note};
use object::Endianness;
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, Writer};

use crate::isa::encode_program;

use super::{
    ABI_VERSION, CTM_NOTE_BINDINGS, CalNotes, D_MACHINE_RV770, DICT_ENTRY_BYTES, ELFOSABI_CAL,
    EM_ATI_CALIMAGE_BINARY, ElfError, ElfImage, Executable, NOTE_NAME_CAL, NOTE_NAME_CTM, NoteType,
    PT_ATI_ENCODING_DICTIONARY, reg,
};

/// Package an executable as a CAL image.
///
/// # Errors
/// [`ElfError::Encode`] if the program cannot be encoded (a clause layout
/// the encoder rejects).
pub fn write(exe: &Executable) -> Result<Vec<u8>, ElfError> {
    write_image(&image_of(exe))
}

/// The image [`write()`] writes for `exe`: the notes derived from the
/// resources and bindings.
pub fn image_of(exe: &Executable) -> ElfImage {
    let r = &exe.resources;
    let b = &exe.bindings;
    let mut outputs: Vec<u32> = b.outputs.iter().map(|o| o.export).collect();
    outputs.sort_unstable();
    outputs.dedup();
    let mut inputs: Vec<u32> = b.inputs.iter().map(|i| i.resource).collect();
    inputs.sort_unstable();
    inputs.dedup();
    let mask = outputs.iter().fold(0u32, |m, &o| m | (0xF << (4 * o)));
    let mut proginfo = vec![
        (
            reg::SQ_PGM_RESOURCES_PS,
            (r.num_gprs & 0xFF) | ((r.stack_size & 0xFF) << 8),
        ),
        (reg::SQ_PGM_EXPORTS_PS, (r.color_exports & 0xF) << 1),
        (
            reg::DB_SHADER_CONTROL,
            if r.kill { reg::KILL_ENABLE } else { 0 },
        ),
        (reg::CB_SHADER_MASK, mask),
    ];
    if r.clause_temps > 0 {
        proginfo.push((
            reg::SQ_GPR_RESOURCE_MGMT_1,
            (r.clause_temps & 0xF) << reg::NUM_CLAUSE_TEMP_GPRS_SHIFT,
        ));
    }
    ElfImage {
        program: exe.program.clone(),
        proginfo,
        notes: CalNotes {
            inputs,
            outputs,
            early_exit: r.kill,
            constant_buffers: if b.cb0_elements > 0 {
                vec![(0, b.cb0_elements)]
            } else {
                Vec::new()
            },
        },
        bindings: Some(b.clone()),
    }
}

fn note_section(image: &ElfImage) -> Vec<u8> {
    let mut out = Vec::new();
    let n = &image.notes;
    for kind in NoteType::ALL {
        let desc = match kind {
            NoteType::ProgInfo => le_bytes(image.proginfo.iter().flat_map(|&(r, v)| [r, v])),
            NoteType::Inputs => le_bytes(n.inputs.iter().copied()),
            NoteType::Outputs => le_bytes(n.outputs.iter().copied()),
            NoteType::CondOut => le_bytes([0]),
            NoteType::Float32Consts | NoteType::Int32Consts | NoteType::Bool32Consts => Vec::new(),
            NoteType::EarlyExit => le_bytes([u32::from(n.early_exit)]),
            NoteType::ConstantBuffers => {
                le_bytes(n.constant_buffers.iter().flat_map(|&(b, s)| [b, s]))
            }
        };
        push_note(&mut out, NOTE_NAME_CAL, kind.code(), &desc);
    }
    if let Some(bindings) = &image.bindings {
        // UTF-8 JSON, NUL-padded to a multiple of 4 (counted in descsz).
        let json = padded(bindings.to_json().into_bytes());
        push_note(&mut out, NOTE_NAME_CTM, CTM_NOTE_BINDINGS, &json);
    }
    out
}

/// Write an image as it is (no derivation). With `bindings: None` the file
/// has no `"ctm"` note, like a foreign CAL image.
///
/// # Errors
/// [`ElfError::Encode`] if the program cannot be encoded.
pub fn write_image(image: &ElfImage) -> Result<Vec<u8>, ElfError> {
    let text = encode_program(&image.program).map_err(ElfError::Encode)?;
    // Writing into a Vec cannot fail once the layout is reserved.
    Ok(try_write(image, &text, None).unwrap_or_default())
}

/// [`write()`] with the [`ctm_isa_kit::elf::SOURCE_SECTION`] holding `source` (what the
/// reference interpreter needs, `docs/abi-r700.md` §1.1): a non-allocated
/// section after `.text`, in no segment and outside the dictionary
/// entry's span, which loaders ignore. The other sections' bytes are
/// those of [`write()`].
///
/// # Errors
/// [`ElfError::Encode`] as [`write()`].
pub fn write_with_source(exe: &Executable, source: &[u8]) -> Result<Vec<u8>, ElfError> {
    let image = image_of(exe);
    let text = encode_program(&image.program).map_err(ElfError::Encode)?;
    Ok(try_write(&image, &text, Some(source)).unwrap_or_default())
}

fn try_write(
    image: &ElfImage,
    text: &[u8],
    source: Option<&[u8]>,
) -> object::write::Result<Vec<u8>> {
    let notes = note_section(image);
    let mut sections = vec![Section::notes(&notes), Section::text(text, 8)];
    sections.extend(source.map(Section::source));
    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut buffer);

    w.reserve_file_header();
    w.reserve_program_headers(3);
    let dict_offset = w.reserve(DICT_ENTRY_BYTES as u64, 4);
    let reserved = sections::reserve(&mut w, &sections)?;
    let (note_offset, text_offset) = (reserved.offset(0), reserved.offset(1));

    w.write_file_header(&FileHeader {
        os_abi: elf::OsAbi(ELFOSABI_CAL),
        abi_version: ABI_VERSION,
        e_type: elf::ET_EXEC,
        e_machine: elf::Machine(EM_ATI_CALIMAGE_BINARY),
        e_entry: 0,
        e_flags: elf::FileFlags(0),
    })?;
    w.write_align_program_headers();
    w.write_program_header(&ProgramHeader {
        p_type: elf::ProgramType(PT_ATI_ENCODING_DICTIONARY),
        p_flags: elf::ProgramFlags(0),
        p_offset: dict_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: DICT_ENTRY_BYTES as u64,
        p_memsz: 0,
        p_align: 4,
    });
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_NOTE,
        p_flags: elf::ProgramFlags(0),
        p_offset: note_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: notes.len() as u64,
        p_memsz: 0,
        p_align: 4,
    });
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: elf::ProgramFlags(0),
        p_offset: text_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: text.len() as u64,
        p_memsz: text.len() as u64,
        p_align: 8,
    });
    w.write_align(4);
    let span = (text_offset + text.len() as u64 - note_offset) as u32;
    w.write(&le_bytes([D_MACHINE_RV770, 0, note_offset as u32, span, 0]));
    sections::write(&mut w, &sections, &reserved);
    Ok(buffer)
}
