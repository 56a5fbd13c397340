//! The ELF writer: `object`'s two-phase ELF writer lays out the file
//! (`docs/abi-x1k.md` §1.1):
//!
//! ```text
//! 0x00   ELF header (52 bytes)
//! 0x34   program headers: PT_LOAD (.text), PT_NOTE (.note)     2 × 32 bytes
//! 0x74   .text      24 bytes per slot                          align 4
//!        .note      ATI notes 1..=7 in order, then "ctm"      align 4
//!        .ctm.source  only with the source (`write_with_source`) align 1
//!        .shstrtab  "\0.text\0.note\0.shstrtab\0"
//!        section headers: null, .text, .note, [.ctm.source,] .shstrtab
//! ```
//!
//! The sections, their headers and the name table are laid out by the
//! plumbing both chips share (`ctm_isa_kit::elf`).

use ctm_isa_kit::elf::{self as sections, Section};
use ctm_isa_kit::note::{le_bytes, padded, push_note};
use object::Endianness;
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, Writer};

use crate::Program;
use crate::isa::encode_program_bytes;
use crate::validate;

use super::{
    ABI_VERSION, AtiNotes, CTM_NOTE_BINDINGS, EF_ATI_DPP, ELFOSABI_ATI, EM_ATI_R5XX, ElfImage,
    NOTE_NAME_ATI, NOTE_NAME_CTM, NoteType, ProgInfo,
};

/// Package a program as a CTM executable.
///
/// The notes come from the program itself ([`validate::facts`]): inputs,
/// outputs, constants, conditional output and early exit as used; the
/// bindings go in the `"ctm"` note. The program is not validated here —
/// callers run [`validate::validate`] first.
///
/// ```
/// use ctm_backend_x1k::{Program, abi::Bindings, elf, isa};
/// let insts = isa::parse_program("out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r0 sem_wait").unwrap();
/// let p = Program { insts, us_config: 0, us_pixsize: 0, us_fc_ctrl: 0, bindings: Bindings::default() };
/// let bytes = elf::write(&p);
/// assert_eq!(&bytes[..4], b"\x7fELF");
/// assert_eq!(elf::read(&bytes), Ok(p));
/// ```
pub fn write(program: &Program) -> Vec<u8> {
    write_image(&image_of(program))
}

/// The image [`write()`] writes for `program`.
pub fn image_of(program: &Program) -> ElfImage {
    let facts = validate::facts(program);
    let list = |set: &std::collections::BTreeSet<u8>| set.iter().map(|&i| u32::from(i)).collect();
    ElfImage {
        insts: program.insts.clone(),
        proginfo: ProgInfo::for_program(
            program.insts.len(),
            u32::from(facts.conditional_output),
            program,
        ),
        notes: AtiNotes {
            inputs: list(&facts.inputs),
            outputs: list(&facts.outputs),
            conditional_output: facts.conditional_output,
            float32_constants: list(&facts.float_constants),
            int32_constants: list(&facts.int_constants),
            early_exit: facts.early_exit,
        },
        bindings: Some(program.bindings.clone()),
    }
}

/// Write an image as it is (no derivation). With `bindings: None` the file
/// has no `"ctm"` note, like a foreign CTM executable.
pub fn write_image(image: &ElfImage) -> Vec<u8> {
    // Writing into a Vec cannot fail; the layout is reserved before it is
    // written, so `object` has no other error to report.
    try_write(image, None).unwrap_or_default()
}

/// [`write()`] with the [`ctm_isa_kit::elf::SOURCE_SECTION`] holding `source` (what the
/// reference interpreter needs, `docs/abi-x1k.md` §1.3): a non-allocated
/// section after the notes, in no segment, which loaders ignore. The
/// other sections' bytes are those of [`write()`].
pub fn write_with_source(program: &Program, source: &[u8]) -> Vec<u8> {
    try_write(&image_of(program), Some(source)).unwrap_or_default()
}

/// The `.note` section: the seven ATI notes in type order, then `"ctm"`.
fn note_section(image: &ElfImage) -> Vec<u8> {
    let mut out = Vec::new();
    let n = &image.notes;
    for kind in NoteType::ALL {
        let desc = match kind {
            NoteType::ProgInfo => le_bytes(image.proginfo.to_words()),
            NoteType::Inputs => le_bytes(n.inputs.iter().copied()),
            NoteType::Outputs => le_bytes(n.outputs.iter().copied()),
            NoteType::CondOut => le_bytes([u32::from(n.conditional_output)]),
            NoteType::Float32Consts => le_bytes(n.float32_constants.iter().copied()),
            NoteType::Int32Consts => le_bytes(n.int32_constants.iter().copied()),
            NoteType::EarlyExit => le_bytes([u32::from(n.early_exit)]),
        };
        push_note(&mut out, NOTE_NAME_ATI, kind.code(), &desc);
    }
    if let Some(bindings) = &image.bindings {
        // `docs/abi-x1k.md` §1: UTF-8 JSON, padded with NULs to a multiple
        // of 4 (the padding is counted in `descsz`).
        let json = padded(bindings.to_json().into_bytes());
        push_note(&mut out, NOTE_NAME_CTM, CTM_NOTE_BINDINGS, &json);
    }
    out
}

fn try_write(image: &ElfImage, source: Option<&[u8]>) -> object::write::Result<Vec<u8>> {
    let text = encode_program_bytes(&image.insts);
    let notes = note_section(image);
    let mut sections = vec![Section::text(&text, 4), Section::notes(&notes)];
    sections.extend(source.map(Section::source));
    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut buffer);

    w.reserve_file_header();
    w.reserve_program_headers(2);
    let reserved = sections::reserve(&mut w, &sections)?;
    let (text_offset, note_offset) = (reserved.offset(0), reserved.offset(1));

    w.write_file_header(&FileHeader {
        os_abi: elf::OsAbi(ELFOSABI_ATI),
        abi_version: ABI_VERSION,
        e_type: elf::ET_EXEC,
        e_machine: elf::Machine(EM_ATI_R5XX),
        e_entry: 0,
        e_flags: elf::FileFlags(EF_ATI_DPP),
    })?;
    w.write_align_program_headers();
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_LOAD,
        p_flags: elf::PF_R | elf::PF_X,
        p_offset: text_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: text.len() as u64,
        p_memsz: text.len() as u64,
        p_align: 4,
    });
    w.write_program_header(&ProgramHeader {
        p_type: elf::PT_NOTE,
        p_flags: elf::PF_R,
        p_offset: note_offset,
        p_vaddr: 0,
        p_paddr: 0,
        p_filesz: notes.len() as u64,
        p_memsz: notes.len() as u64,
        p_align: 4,
    });
    sections::write(&mut w, &sections, &reserved);
    Ok(buffer)
}
