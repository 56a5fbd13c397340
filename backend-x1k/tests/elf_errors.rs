//! The reader rejects malformed files with the right typed error: one test
//! per [`ElfError`] kind, each made by mutating a good file at a known
//! offset (`docs/abi-x1k.md` §1.1) or by writing an image with bad notes.

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::Bindings;
use ctm_backend_x1k::elf::{
    self, ElfError, ElfImage, HeaderField, NOTE_NAME_ATI, NOTE_NAME_CTM, NoteType,
};
use ctm_backend_x1k::isa::parse_program;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Writer};
use object::{Endianness, elf as E};

fn program() -> Program {
    Program {
        insts: parse_program(
            "  0: tex r1.rgba = ld(t1, r0.rgaa) acquire sem_wait
               1: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
        )
        .expect("assembles"),
        us_config: 0,
        us_pixsize: 1,
        us_fc_ctrl: 0,
        bindings: Bindings::default(),
    }
}

fn good() -> Vec<u8> {
    elf::write(&program())
}

fn image() -> ElfImage {
    elf::image_of(&program())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn put(b: &mut [u8], at: usize, value: u32) {
    b[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

const PHOFF: usize = 52;
/// File offset of program header `k`, field `f` (4-byte fields).
fn ph(k: usize, f: usize) -> usize {
    PHOFF + 32 * k + 4 * f
}
/// File offset of section header `k`, field `f`.
fn sh(b: &[u8], k: usize, f: usize) -> usize {
    u32_at(b, 32) as usize + 40 * k + 4 * f
}
/// File offset of the note section.
fn notes(b: &[u8]) -> usize {
    u32_at(b, ph(1, 1)) as usize
}
/// File offset of the `n`th note (0 = proginfo) of a written file.
fn note(b: &[u8], n: usize) -> usize {
    let mut at = notes(b);
    for _ in 0..n {
        let namesz = u32_at(b, at) as usize;
        let descsz = u32_at(b, at + 4) as usize;
        at += 12 + namesz.div_ceil(4) * 4 + descsz.div_ceil(4) * 4;
    }
    at
}
/// File offset of proginfo word `w`.
fn proginfo_word(b: &[u8], w: usize) -> usize {
    note(b, 0) + 20 + 4 * w
}

fn err(bytes: &[u8]) -> ElfError {
    elf::read_image(bytes).expect_err("must be rejected")
}

/// A note record.
fn raw_note(name: &[u8], n_type: u32, desc: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend((name.len() as u32).to_le_bytes());
    out.extend((desc.len() as u32).to_le_bytes());
    out.extend(n_type.to_le_bytes());
    out.extend(name);
    out.resize(out.len().div_ceil(4) * 4, 0);
    out.extend(desc);
    out.resize(out.len().div_ceil(4) * 4, 0);
    out
}

/// A file with the good `.text` and the given note-section bytes.
fn with_notes(note_bytes: &[u8]) -> Vec<u8> {
    let text = ctm_backend_x1k::isa::encode_program_bytes(&program().insts);
    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, false, &mut buffer);
    w.reserve_file_header();
    w.reserve_program_headers(2);
    let text_off = w.reserve(text.len() as u64, 4);
    let note_off = w.reserve(note_bytes.len() as u64, 4);
    w.reserve_null_section_index();
    let tn = w.add_section_name(b".text");
    w.reserve_section_index();
    let nn = w.add_section_name(b".note");
    w.reserve_section_index();
    w.reserve_shstrtab_section_index();
    w.reserve_shstrtab().unwrap();
    w.reserve_section_headers();
    w.write_file_header(&FileHeader {
        os_abi: E::OsAbi(98),
        abi_version: 1,
        e_type: E::ET_EXEC,
        e_machine: E::Machine(122),
        e_entry: 0,
        e_flags: E::FileFlags(1),
    })
    .unwrap();
    w.write_align_program_headers();
    for (p_type, off, len) in [
        (E::PT_LOAD, text_off, text.len()),
        (E::PT_NOTE, note_off, note_bytes.len()),
    ] {
        w.write_program_header(&ProgramHeader {
            p_type,
            p_flags: E::PF_R,
            p_offset: off,
            p_vaddr: 0,
            p_paddr: 0,
            p_filesz: len as u64,
            p_memsz: 0,
            p_align: 4,
        });
    }
    w.write_align(4);
    w.write(&text);
    w.write_align(4);
    w.write(note_bytes);
    w.write_shstrtab();
    w.write_null_section_header();
    for (name, sh_type, flags, off, len) in [
        (
            tn,
            E::SHT_PROGBITS,
            E::SHF_ALLOC | E::SHF_EXECINSTR,
            text_off,
            text.len(),
        ),
        (
            nn,
            E::SHT_NOTE,
            E::SectionFlags(0),
            note_off,
            note_bytes.len(),
        ),
    ] {
        w.write_section_header(&SectionHeader {
            sh_name: w.section_name_offset(Some(name)),
            sh_type,
            sh_flags: flags,
            sh_offset: off,
            sh_size: len as u64,
            sh_addralign: 4,
            ..SectionHeader::default()
        });
    }
    w.write_shstrtab_section_header();
    buffer
}

/// The good note section, note by note.
fn good_notes() -> Vec<Vec<u8>> {
    let b = good();
    (0..8)
        .map(|n| b[note(&b, n)..note(&b, n + 1)].to_vec())
        .collect()
}

#[test]
fn the_helper_builds_a_good_file() {
    let b = with_notes(&good_notes().concat());
    assert_eq!(elf::read(&b), Ok(program()));
}

#[test]
fn too_short() {
    assert_eq!(err(&good()[..51]), ElfError::TooShort { len: 51 });
}

#[test]
fn header_fields() {
    let cases: [(usize, u8, HeaderField); 6] = [
        (0, 0x7E, HeaderField::Magic),
        (4, 2, HeaderField::Class),
        (5, 2, HeaderField::Data),
        (6, 2, HeaderField::IdentVersion),
        (7, 0, HeaderField::OsAbi),
        (8, 2, HeaderField::AbiVersion),
    ];
    for (at, value, field) in cases {
        let mut b = good();
        b[at] = value;
        assert!(
            matches!(err(&b), ElfError::Header { field: f, .. } if f == field),
            "{field:?}"
        );
    }
    let words: [(usize, u32, u32, HeaderField); 6] = [
        (16, 0xFFFF, 3, HeaderField::Type),
        (18, 0xFFFF, 121, HeaderField::Machine),
        (20, u32::MAX, 2, HeaderField::Version),
        (24, u32::MAX, 4, HeaderField::Entry),
        (36, u32::MAX, 0, HeaderField::Flags),
        (40, 0xFFFF, 64, HeaderField::HeaderSize),
    ];
    for (at, mask, value, field) in words {
        let mut b = good();
        let old = u32_at(&b, at);
        put(&mut b, at, (old & !mask) | value);
        assert!(
            matches!(err(&b), ElfError::Header { field: f, found, .. }
                if f == field && found == u64::from(value)),
            "{field:?}: {:?}",
            err(&b)
        );
    }
}

#[test]
fn malformed_tables() {
    let mut b = good();
    put(&mut b, 28, 0xFFFF_FF00); // e_phoff past the end
    assert!(matches!(err(&b), ElfError::Malformed(_)));
}

#[test]
fn text_section_errors() {
    let mut b = good();
    // Rename .text to .txet in .shstrtab.
    let strtab = u32_at(&b, sh(&b, 3, 4)) as usize;
    let name = strtab + u32_at(&b, sh(&b, 1, 0)) as usize;
    b[name + 1..name + 5].copy_from_slice(b"txet");
    assert_eq!(err(&b), ElfError::NoText);

    let mut b = good();
    let name = strtab + u32_at(&b, sh(&b, 2, 0)) as usize;
    b[name + 1..name + 5].copy_from_slice(b"text"); // .note -> .text
    assert_eq!(err(&b), ElfError::DuplicateText { count: 2 });

    let mut b = good();
    let at = sh(&b, 1, 1);
    put(&mut b, at, 8); // SHT_NOBITS
    assert_eq!(err(&b), ElfError::TextType { found: 8 });

    let mut b = good();
    let at = sh(&b, 1, 2);
    put(&mut b, at, 6 | 1); // + SHF_WRITE
    assert_eq!(err(&b), ElfError::TextFlags { found: 7 });

    let mut b = good();
    put(&mut b, ph(0, 0), 0); // PT_LOAD -> PT_NULL
    assert_eq!(err(&b), ElfError::TextNotLoaded);

    let mut b = good();
    let at = sh(&b, 1, 5);
    put(&mut b, at, 23);
    assert_eq!(err(&b), ElfError::TextSize { bytes: 23 });

    let mut b = good();
    b[0x74 + 4] = 0xFF; // slot 0 word 1: TEX reserved bits
    assert!(matches!(err(&b), ElfError::TextDecode(_)));

    let mut big = image();
    big.insts = vec![big.insts[1]; 513];
    assert_eq!(
        err(&elf::write_image(&big)),
        ElfError::TooManySlots { slots: 513 }
    );
}

#[test]
fn note_segment_errors() {
    let mut b = good();
    put(&mut b, ph(1, 0), 0); // PT_NOTE -> PT_NULL
    assert_eq!(err(&b), ElfError::NoNoteSegment);

    let mut b = good();
    let size = u32_at(&b, ph(1, 4));
    put(&mut b, ph(1, 4), size - 4);
    assert!(matches!(
        err(&b),
        ElfError::NoteSectionOutsideSegment { .. }
    ));
}

#[test]
fn ati_note_errors() {
    let mut b = good();
    let at = note(&b, 2) + 8;
    put(&mut b, at, 9);
    assert_eq!(err(&b), ElfError::UnknownNoteType { found: 9 });

    let mut b = good();
    let at = note(&b, 1) + 8;
    put(&mut b, at, 3); // inputs -> a second outputs note
    assert_eq!(
        err(&b),
        ElfError::DuplicateNote {
            note: NoteType::Outputs
        }
    );

    let mut n = good_notes();
    n[6] = raw_note(NOTE_NAME_ATI, 7, &[1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        err(&with_notes(&n.concat())),
        ElfError::NoteSize {
            note: NoteType::EarlyExit,
            expected: 4,
            found: 8
        }
    );
    let mut n = good_notes();
    n[1] = raw_note(NOTE_NAME_ATI, 2, &[1, 0, 0]);
    assert!(matches!(
        err(&with_notes(&n.concat())),
        ElfError::NoteSize {
            note: NoteType::Inputs,
            ..
        }
    ));
    let mut n = good_notes();
    n[0] = raw_note(NOTE_NAME_ATI, 1, &[0; 4 * 29]);
    assert!(matches!(
        err(&with_notes(&n.concat())),
        ElfError::NoteSize {
            note: NoteType::ProgInfo,
            expected: 112,
            found: 116
        }
    ));

    let mut b = good();
    let at = note(&b, 3) + 20;
    put(&mut b, at, 2); // conditional output = 2
    assert_eq!(
        err(&b),
        ElfError::NoteFlag {
            note: NoteType::CondOut,
            value: 2
        }
    );

    let mut i = image();
    i.notes.inputs = vec![16];
    assert_eq!(
        err(&elf::write_image(&i)),
        ElfError::NoteIndex {
            note: NoteType::Inputs,
            index: 16
        }
    );
    let mut i = image();
    i.notes.float32_constants = vec![4, 4];
    assert_eq!(
        err(&elf::write_image(&i)),
        ElfError::DuplicateIndex {
            note: NoteType::Float32Consts,
            index: 4
        }
    );

    let mut b = good();
    let at = note(&b, 0) + 18;
    b[at] = b'Q'; // "ATI DPQ": an unknown note, ignored
    assert_eq!(err(&b), ElfError::MissingProgInfo);
}

#[test]
fn proginfo_errors() {
    let mut b = good();
    let at = proginfo_word(&b, 7);
    put(&mut b, at, 0xC1);
    assert_eq!(
        err(&b),
        ElfError::ProgInfoReserved {
            word: 7,
            expected: 0xC0,
            found: 0xC1
        }
    );
    let mut b = good();
    let at = proginfo_word(&b, 26);
    put(&mut b, at, 1);
    assert!(matches!(
        err(&b),
        ElfError::ProgInfoReserved { word: 26, .. }
    ));

    let mut i = image();
    i.proginfo.us_pixsize = 0x80;
    assert!(matches!(
        err(&elf::write_image(&i)),
        ElfError::ProgInfoRegister { word: 3, .. }
    ));
    let mut i = image();
    i.proginfo.instr_cnt = 3;
    assert_eq!(
        err(&elf::write_image(&i)),
        ElfError::InstrCntMismatch {
            instr_cnt: 3,
            text_slots: 2
        }
    );
    let mut i = image();
    i.proginfo.us_code_range = 0;
    assert_eq!(
        err(&elf::write_image(&i)),
        ElfError::CodeRange {
            expected: 1 << 16,
            found: 0
        }
    );
    let mut i = image();
    i.proginfo.us_code_addr = 2 << 16;
    assert_eq!(
        err(&elf::write_image(&i)),
        ElfError::CodeAddr {
            start: 0,
            end: 2,
            instr_cnt: 2
        }
    );
    // A program that starts at slot 1 is a valid image but not a Program.
    let mut i = image();
    i.proginfo.us_code_addr = 1 | (1 << 16);
    let bytes = elf::write_image(&i);
    assert!(elf::read_image(&bytes).is_ok());
    assert_eq!(
        elf::read(&bytes),
        Err(ElfError::PartialCodeAddr { start: 1, end: 1 })
    );
}

#[test]
fn ctm_note_errors() {
    let mut i = image();
    i.bindings = None;
    let bytes = elf::write_image(&i);
    assert!(elf::read_image(&bytes).is_ok());
    assert_eq!(elf::read(&bytes), Err(ElfError::MissingCtmNote));

    let mut n = good_notes();
    n.push(n[7].clone());
    assert_eq!(err(&with_notes(&n.concat())), ElfError::DuplicateCtmNote);

    let mut n = good_notes();
    n[7] = raw_note(NOTE_NAME_CTM, 2, b"{}");
    assert_eq!(
        err(&with_notes(&n.concat())),
        ElfError::UnknownCtmNoteType { found: 2 }
    );

    let mut n = good_notes();
    n[7] = raw_note(NOTE_NAME_CTM, 1, &[0xFF, 0xFE, 0, 0]);
    assert_eq!(err(&with_notes(&n.concat())), ElfError::CtmNoteText);
    let mut n = good_notes();
    n[7] = raw_note(NOTE_NAME_CTM, 1, b"{}\0x");
    assert_eq!(err(&with_notes(&n.concat())), ElfError::CtmNoteText);

    let mut n = good_notes();
    n[7] = raw_note(NOTE_NAME_CTM, 1, b"{\"kernel\": 3}");
    assert!(matches!(
        err(&with_notes(&n.concat())),
        ElfError::CtmNoteJson(_)
    ));

    // Notes with other names are ignored, wherever they are.
    let mut n = good_notes();
    n.insert(3, raw_note(b"GNU\0", 1, &[1, 2, 3, 4]));
    assert_eq!(elf::read(&with_notes(&n.concat())), Ok(program()));
}
