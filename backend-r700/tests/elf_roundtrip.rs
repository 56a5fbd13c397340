//! The CAL ELF image (`docs/abi-r700.md` §1): write → read is the identity
//! on random programs; the layout is the documented one; every corruption
//! is a typed error; arbitrary bytes never panic.

mod common;

use ctm_backend_r700::Executable;
use ctm_backend_r700::Resources;
use ctm_backend_r700::abi::{Bindings, InputBinding, OutputBinding, UniformBinding};
use ctm_backend_r700::elf::{self, ElfError, reg};
use proptest::prelude::*;

fn sample(program: ctm_backend_r700::isa::Program) -> Executable {
    Executable {
        program,
        resources: Resources {
            num_gprs: 5,
            stack_size: 2,
            kill: true,
            color_exports: 2,
            clause_temps: 0,
        },
        bindings: Bindings {
            kernel: "k".into(),
            inputs: vec![InputBinding {
                param: "a".into(),
                resource: 0,
                format: "vec4".into(),
            }],
            outputs: vec![
                OutputBinding {
                    param: "o".into(),
                    export: 0,
                    format: "f32".into(),
                },
                OutputBinding {
                    param: "p".into(),
                    export: 1,
                    format: "vec2".into(),
                },
            ],
            uniforms: vec![UniformBinding {
                param: "u".into(),
                ty: "f32".into(),
                element: 0,
                elements: 1,
            }],
            domain_element: Some(1),
            cb0_elements: 2,
            ..Bindings::default()
        },
    }
}

fn llvm_text(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/llvm/{name}.hex",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    text.lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

#[test]
fn llvm_program_round_trips_through_the_image() {
    let program =
        ctm_backend_r700::isa::decode_program(&llvm_text("flow_loop")).expect("fixture decodes");
    let exe = sample(program);
    let bytes = elf::write(&exe).expect("write");
    assert_eq!(elf::read(&bytes), Ok(exe.clone()));
    // The header of docs/abi-r700.md §1.
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert_eq!(bytes[4], 1, "ELFCLASS32");
    assert_eq!(bytes[5], 1, "little endian");
    assert_eq!(bytes[7], 100, "OSABI");
    assert_eq!(bytes[8], 1, "ABI version");
    assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), 2, "ET_EXEC");
    assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 125, "e_machine");
    let image = elf::read_image(&bytes).expect("image");
    assert_eq!(image.register(reg::SQ_PGM_RESOURCES_PS), Some(5 | (2 << 8)));
    assert_eq!(
        image.register(reg::DB_SHADER_CONTROL),
        Some(reg::KILL_ENABLE)
    );
    assert_eq!(image.register(reg::CB_SHADER_MASK), Some(0xFF));
    assert_eq!(image.notes.outputs, vec![0, 1]);
    assert_eq!(image.notes.inputs, vec![0]);
    assert_eq!(image.notes.constant_buffers, vec![(0, 2)]);
    assert!(image.notes.early_exit);
    let listing = elf::listing(&bytes).expect("listing");
    assert!(listing.contains("; kernel k"), "{listing}");
    assert!(listing.contains("LOOP_START_DX10"), "{listing}");
}

#[test]
fn foreign_image_without_ctm_note_reads_as_image_only() {
    let program =
        ctm_backend_r700::isa::decode_program(&llvm_text("alu_literal")).expect("fixture decodes");
    let mut image = elf::image_of(&sample(program));
    image.bindings = None;
    let bytes = elf::write_image(&image).expect("write");
    assert_eq!(elf::read_image(&bytes), Ok(image));
    assert_eq!(elf::read(&bytes), Err(ElfError::MissingCtmNote));
}

#[test]
fn header_corruptions_are_typed_errors() {
    let program =
        ctm_backend_r700::isa::decode_program(&llvm_text("alu_literal")).expect("fixture decodes");
    let bytes = elf::write(&sample(program)).expect("write");
    for (at, field) in [
        (4usize, "EI_CLASS"),
        (5, "EI_DATA"),
        (7, "EI_OSABI"),
        (8, "EI_ABIVERSION"),
        (18, "e_machine"),
    ] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        match elf::read(&bad) {
            Err(ElfError::Header { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
    }
    assert_eq!(elf::read(&bytes[..20]), Err(ElfError::TooShort { len: 20 }));
}

#[test]
fn text_corruption_is_a_decode_error() {
    let program =
        ctm_backend_r700::isa::decode_program(&llvm_text("alu_literal")).expect("fixture decodes");
    let mut bytes = elf::write(&sample(program.clone())).expect("write");
    let text = ctm_backend_r700::isa::encode_program(&program).expect("encode");
    // The text is the file's tail before the section names and headers:
    // find it and chop its length by flipping the first CF word to an
    // undefined opcode.
    let at = bytes
        .windows(text.len())
        .position(|w| w == text.as_slice())
        .expect("text in file");
    bytes[at + 7] = 0x7F; // CF_INST bits of dword 1 → undefined code
    assert!(matches!(elf::read(&bytes), Err(ElfError::TextDecode(_))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_programs_round_trip(program in common::program()) {
        let exe = sample(program);
        let bytes = elf::write(&exe).expect("write");
        prop_assert_eq!(elf::read(&bytes), Ok(exe));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = elf::read_image(&bytes);
    }

    #[test]
    fn flipped_bytes_never_panic(flip in 0usize..2000, bit in 0u8..8) {
        let program = ctm_backend_r700::isa::decode_program(&llvm_text("kcache_vtx")).expect("fixture");
        let mut bytes = elf::write(&sample(program)).expect("write");
        let at = flip % bytes.len();
        bytes[at] ^= 1 << bit;
        let _ = elf::read(&bytes);
        let _ = elf::listing(&bytes);
    }
}
