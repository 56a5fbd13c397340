//! The CTM ELF reader (CTM §4.1): a valid file loads with every field, and
//! each deviation is its own typed error.

mod x1k_device_support;

use ctm_backend_x1k::isa::IntConstId;
use ctm_backend_x1k::isa::program_regs::{FcMode, OutputMode};
use ctm_sim::x1k::device::elf::{ElfError, HeaderField, read_elf};
use ctm_sim::x1k::device::params::{InputId, OutputId};
use ctm_sim::x1k::device::program::{
    ImageError, NoteType, PROGINFO_WORDS, ProgInfoError, ProgramImage, ProgramNotes, proginfo_word,
};
use x1k_device_support::{ElfSpec, RawNote, image, image_with, info, text_bytes};

fn notes() -> ProgramNotes {
    ProgramNotes {
        inputs: vec![InputId::new(3).unwrap(), InputId::new(0).unwrap()],
        outputs: vec![OutputId::new(1).unwrap()],
        conditional_output: true,
        float_constants: vec![0, 255, 7],
        int_constants: vec![IntConstId::new(31).unwrap()],
        early_exit: true,
    }
}

fn valid() -> (ProgramImage, ElfSpec) {
    let img = image_with(
        |i| {
            i.us_config.output_mode = OutputMode::Uncached;
            i.us_fc_ctrl.mode = FcMode::Full;
            i.fg_depth_src.shader_exports_w = true;
        },
        notes(),
    );
    let spec = ElfSpec::for_image(&img);
    (img, spec)
}

fn read(spec: &ElfSpec) -> Result<ProgramImage, ElfError> {
    read_elf(&spec.bytes())
}

#[test]
fn valid_file_round_trips_every_field() {
    let (img, spec) = valid();
    let got = read(&spec).expect("valid file loads");
    assert_eq!(got, img);
    assert_eq!(got.text(), &text_bytes(2)[..]);
    assert_eq!(got.info.us_config.output_mode, OutputMode::Uncached);
    assert_eq!(got.info.us_fc_ctrl.mode, FcMode::Full);
    assert!(got.info.fg_depth_src.shader_exports_w);
    assert_eq!(got.info.instr_cnt, 2);
    assert_eq!(got.notes, notes());
}

#[test]
fn proginfo_layout_is_28_words() {
    // CTM §4.1.4: 1 + FG_DEPTH_SRC..US_CODE_RANGE (6) + 2 fixed + 18 zero + INSTR_CNT.
    assert_eq!(PROGINFO_WORDS, 28);
    let w = info(5).to_words();
    assert_eq!(w[0], 1);
    assert_eq!(w[7], 0xC0);
    assert_eq!(w[8], 0x0002_0000);
    assert!(w[9..27].iter().all(|&x| x == 0));
    assert_eq!(w[27], 5);
    assert_eq!(w[proginfo_word::US_CODE_RANGE], 4 << 16);
    assert_eq!(w[proginfo_word::US_CODE_ADDR], 4 << 16); // start 0, end 4
}

#[test]
fn unaligned_buffers_load() {
    let (img, spec) = valid();
    let mut shifted = vec![0u8];
    shifted.extend(spec.bytes());
    assert_eq!(read_elf(&shifted[1..]), Ok(img));
}

#[test]
fn optional_notes_may_be_absent() {
    let (img, mut spec) = valid();
    spec.notes.truncate(1);
    let got = read(&spec).unwrap();
    assert_eq!(got.info, img.info);
    assert_eq!(got.notes, ProgramNotes::default());
}

#[test]
fn header_fields_are_checked_one_by_one() {
    type Tweak = Box<dyn Fn(&mut ElfSpec)>;
    let cases: Vec<(HeaderField, Tweak, u64, u64)> = vec![
        (
            HeaderField::Magic,
            Box::new(|s| s.magic = *b"\x7fELG"),
            0x464C_457F,
            0x474C_457F,
        ),
        (HeaderField::Class, Box::new(|s| s.class = 2), 1, 2),
        (HeaderField::Data, Box::new(|s| s.data = 2), 1, 2),
        (
            HeaderField::IdentVersion,
            Box::new(|s| s.ident_version = 0),
            1,
            0,
        ),
        (HeaderField::OsAbi, Box::new(|s| s.osabi = 0), 98, 0),
        (
            HeaderField::AbiVersion,
            Box::new(|s| s.abi_version = 2),
            1,
            2,
        ),
        (HeaderField::Type, Box::new(|s| s.e_type = 1), 2, 1),
        (
            HeaderField::Machine,
            Box::new(|s| s.e_machine = 123),
            122,
            123,
        ),
        (HeaderField::Version, Box::new(|s| s.e_version = 2), 1, 2),
        (
            HeaderField::Entry,
            Box::new(|s| s.e_entry = 0x100),
            0,
            0x100,
        ),
        (HeaderField::Flags, Box::new(|s| s.e_flags = 0), 1, 0),
    ];
    for (field, tweak, expected, found) in cases {
        let (_, mut spec) = valid();
        tweak(&mut spec);
        assert_eq!(
            read(&spec),
            Err(ElfError::Header {
                field,
                expected,
                found
            }),
            "{field:?}"
        );
    }
}

#[test]
fn truncated_files() {
    assert_eq!(read_elf(&[]), Err(ElfError::TooShort { len: 0 }));
    let (_, spec) = valid();
    let bytes = spec.bytes();
    assert_eq!(read_elf(&bytes[..51]), Err(ElfError::TooShort { len: 51 }));
    // Cut inside the section headers: the object crate reports it.
    let cut = &bytes[..bytes.len() - 10];
    assert!(matches!(read_elf(cut), Err(ElfError::Malformed(_))));
}

#[test]
fn text_section_rules() {
    let (_, mut spec) = valid();
    spec.text_sections = 0;
    assert_eq!(read(&spec), Err(ElfError::NoText));

    let (_, mut spec) = valid();
    spec.text_sections = 2;
    assert_eq!(read(&spec), Err(ElfError::DuplicateText { count: 2 }));

    let (_, mut spec) = valid();
    spec.text_type = 8; // SHT_NOBITS
    assert_eq!(read(&spec), Err(ElfError::TextType { found: 8 }));

    let (_, mut spec) = valid();
    spec.text_flags = 0x2; // no SHF_EXECINSTR
    assert_eq!(read(&spec), Err(ElfError::TextFlags { found: 2 }));

    let (_, mut spec) = valid();
    spec.text_flags = 0x7; // SHF_WRITE too
    assert_eq!(read(&spec), Err(ElfError::TextFlags { found: 7 }));

    let (_, mut spec) = valid();
    spec.load_segment = false;
    assert_eq!(read(&spec), Err(ElfError::TextNotLoaded));

    let (_, mut spec) = valid();
    spec.text.truncate(40);
    assert_eq!(read(&spec), Err(ElfError::TextSize { bytes: 40 }));

    let (_, mut spec) = valid();
    spec.text = text_bytes(513);
    assert_eq!(read(&spec), Err(ElfError::TooManySlots { slots: 513 }));

    let (_, mut spec) = valid();
    spec.text[4 * 4] = 1; // word 4 of a TEX slot must be 0
    assert!(matches!(read(&spec), Err(ElfError::TextDecode(_))));
}

#[test]
fn note_container_rules() {
    let (_, mut spec) = valid();
    spec.note_segment = false;
    assert_eq!(read(&spec), Err(ElfError::NoNoteSegment));

    let (_, mut spec) = valid();
    spec.note_section_outside = true;
    assert!(matches!(
        read(&spec),
        Err(ElfError::NoteSectionOutsideSegment { .. })
    ));
}

#[test]
fn note_header_rules() {
    let (_, mut spec) = valid();
    spec.notes[2].name = b"ATI CAL\0".to_vec();
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteName {
            found: b"ATI CAL\0".to_vec()
        })
    );

    let (_, mut spec) = valid();
    spec.notes[2].name = b"ATI DPP".to_vec(); // namesz 7
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteName {
            found: b"ATI DPP".to_vec()
        })
    );

    let (_, mut spec) = valid();
    spec.notes.push(RawNote::ati(8, &[0]));
    assert_eq!(read(&spec), Err(ElfError::UnknownNoteType { found: 8 }));

    let (_, mut spec) = valid();
    spec.notes.push(RawNote::ati(3, &[0]));
    assert_eq!(
        read(&spec),
        Err(ElfError::DuplicateNote {
            note: NoteType::Outputs
        })
    );
}

#[test]
fn missing_proginfo_fails() {
    let (_, mut spec) = valid();
    spec.notes.remove(0);
    assert_eq!(read(&spec), Err(ElfError::MissingProgramInfo));
}

#[test]
fn note_sizes() {
    let (_, mut spec) = valid();
    spec.notes[0].desc.truncate(27 * 4);
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteSize {
            note: NoteType::ProgInfo,
            expected: 112,
            found: 108
        })
    );
    // 30 words, as x1k-encoding.md §10.1's "0 × 20" would give.
    let (_, mut spec) = valid();
    spec.notes[0].desc.extend([0u8; 8]);
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteSize {
            note: NoteType::ProgInfo,
            expected: 112,
            found: 120
        })
    );
    let (_, mut spec) = valid();
    spec.notes[1].desc.push(0);
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteSize {
            note: NoteType::Inputs,
            expected: 4,
            found: 9
        })
    );
    let (_, mut spec) = valid();
    spec.notes[3] = RawNote::ati(4, &[1, 0]);
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteSize {
            note: NoteType::CondOut,
            expected: 4,
            found: 8
        })
    );
    let (_, mut spec) = valid();
    spec.notes[6] = RawNote::ati(7, &[]);
    assert_eq!(
        read(&spec),
        Err(ElfError::NoteSize {
            note: NoteType::EarlyExit,
            expected: 4,
            found: 0
        })
    );
}

#[test]
fn note_values() {
    let cases = [
        (
            RawNote::ati(2, &[16]),
            ElfError::NoteIndex {
                note: NoteType::Inputs,
                index: 16,
            },
        ),
        (
            RawNote::ati(3, &[4]),
            ElfError::NoteIndex {
                note: NoteType::Outputs,
                index: 4,
            },
        ),
        (
            RawNote::ati(5, &[256]),
            ElfError::NoteIndex {
                note: NoteType::Float32Consts,
                index: 256,
            },
        ),
        (
            RawNote::ati(6, &[32]),
            ElfError::NoteIndex {
                note: NoteType::Int32Consts,
                index: 32,
            },
        ),
        (
            RawNote::ati(2, &[1, 2, 1]),
            ElfError::DuplicateIndex {
                note: NoteType::Inputs,
                index: 1,
            },
        ),
        (
            RawNote::ati(4, &[2]),
            ElfError::NoteFlag {
                note: NoteType::CondOut,
                value: 2,
            },
        ),
        (
            RawNote::ati(7, &[0xFFFF_FFFF]),
            ElfError::NoteFlag {
                note: NoteType::EarlyExit,
                value: 0xFFFF_FFFF,
            },
        ),
    ];
    for (note, err) in cases {
        let (_, mut spec) = valid();
        let slot = note.n_type as usize - 1;
        spec.notes[slot] = note;
        assert_eq!(read(&spec), Err(err));
    }
}

fn with_proginfo(f: impl FnOnce(&mut [u32; 28])) -> Result<ProgramImage, ElfError> {
    let (img, mut spec) = valid();
    let mut w = img.info.to_words();
    f(&mut w);
    spec.notes[0] = RawNote::ati(1, &w);
    read(&spec)
}

#[test]
fn proginfo_reserved_words() {
    for (word, expected) in [(0usize, 1u32), (7, 0xC0), (8, 0x2_0000), (9, 0), (26, 0)] {
        assert_eq!(
            with_proginfo(|w| w[word] ^= 0x10),
            Err(ElfError::ProgInfo(ProgInfoError::Reserved {
                word,
                expected,
                found: expected ^ 0x10
            }))
        );
    }
}

#[test]
fn proginfo_registers_and_counts() {
    // US_CONFIG bit 2 is not a field.
    assert!(matches!(
        with_proginfo(|w| w[proginfo_word::US_CONFIG] = 4),
        Err(ElfError::ProgInfo(ProgInfoError::Register { word: 2, .. }))
    ));
    // US_FC_CTRL TEST_EN must be 0.
    assert!(matches!(
        with_proginfo(|w| w[proginfo_word::US_FC_CTRL] = 0x4000_0000),
        Err(ElfError::ProgInfo(ProgInfoError::Register { word: 4, .. }))
    ));
    assert!(matches!(
        with_proginfo(|w| w[proginfo_word::US_PIXSIZE] = 0x80),
        Err(ElfError::ProgInfo(ProgInfoError::Register { word: 3, .. }))
    ));
    assert!(matches!(
        with_proginfo(|w| w[proginfo_word::FG_DEPTH_SRC] = 2),
        Err(ElfError::ProgInfo(ProgInfoError::Register { word: 1, .. }))
    ));
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::INSTR_CNT] = 0),
        Err(ElfError::ProgInfo(ProgInfoError::InstrCnt { found: 0 }))
    );
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::INSTR_CNT] = 513),
        Err(ElfError::ProgInfo(ProgInfoError::InstrCnt { found: 513 }))
    );
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::US_CODE_RANGE] = 2 << 16),
        Err(ElfError::ProgInfo(ProgInfoError::CodeRange {
            expected: 1 << 16,
            found: 2 << 16
        }))
    );
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::US_CODE_RANGE] = (1 << 16) | 1),
        Err(ElfError::ProgInfo(ProgInfoError::CodeRange {
            expected: 1 << 16,
            found: (1 << 16) | 1
        }))
    );
    // End beyond INSTR_CNT − 1, and start after end.
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::US_CODE_ADDR] = 2 << 16),
        Err(ElfError::ProgInfo(ProgInfoError::CodeAddr {
            start: 0,
            end: 2,
            instr_cnt: 2
        }))
    );
    assert_eq!(
        with_proginfo(|w| w[proginfo_word::US_CODE_ADDR] = 1),
        Err(ElfError::ProgInfo(ProgInfoError::CodeAddr {
            start: 1,
            end: 0,
            instr_cnt: 2
        }))
    );
}

#[test]
fn instr_cnt_must_match_text() {
    // A consistent 3-slot proginfo over a 2-slot .text.
    let three = info(3).to_words();
    let (_, mut spec) = valid();
    spec.notes[0] = RawNote::ati(1, &three);
    assert_eq!(
        read(&spec),
        Err(ElfError::InstrCntMismatch {
            instr_cnt: 3,
            text_slots: 2
        })
    );
}

#[test]
fn image_from_parts_checks_consistency() {
    assert_eq!(
        ProgramImage::new(text_bytes(2), info(3), ProgramNotes::default()),
        Err(ImageError::InstrCntMismatch {
            instr_cnt: 3,
            text_slots: 2
        })
    );
    assert_eq!(
        ProgramImage::new(vec![0; 25], info(1), ProgramNotes::default()),
        Err(ImageError::TextSize { bytes: 25 })
    );
    assert_eq!(
        ProgramImage::new(Vec::new(), info(1), ProgramNotes::default()),
        Err(ImageError::TextSize { bytes: 0 })
    );
    assert!(ProgramImage::new(text_bytes(2), info(2), ProgramNotes::default()).is_ok());
    assert_eq!(image(ProgramNotes::default()).slots(), 2);
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap fuzz: flip each byte of a valid file; every result is Ok or a typed error.
    let (_, spec) = valid();
    let bytes = spec.bytes();
    for k in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut b = bytes.clone();
            b[k] ^= flip;
            let _ = read_elf(&b);
        }
    }
}
