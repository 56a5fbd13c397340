//! The written file, byte by byte, against CTM chapter 4 and
//! `docs/abi-x1k.md` §1.1 — read with plain offsets, independently of the
//! `object` crate and of the reader.

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{Bindings, InputBinding};
use ctm_backend_x1k::elf;
use ctm_backend_x1k::isa::{encode_program_bytes, parse_program};

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn program() -> Program {
    Program {
        insts: parse_program(
            "  0: tex r1.rgba = ld(t2, r0.rgaa) acquire sem_wait
               1: tex _ = texkill(t0, r1.rgba) sem_wait
               2: alu r2.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; _ ; s0=r1 s1=c7 s2=c3
               3: out o0.rgb = max(s0.rgb, s0.rgb) ; o2.a = max(s0.a, s0.a) ; s0=r2 sem_wait",
        )
        .expect("assembles"),
        us_config: 0,
        us_pixsize: 2,
        us_fc_ctrl: 0x8000_0000,
        bindings: Bindings {
            kernel: "layout".into(),
            inputs: vec![InputBinding {
                param: "x".into(),
                input: 2,
                format: "f32".into(),
            }],
            ..Bindings::default()
        },
    }
}

/// One note at `at`: (namesz, descsz, type, name, desc, next offset).
fn note_at(b: &[u8], at: usize) -> (u32, u32, u32, &[u8], &[u8], usize) {
    let namesz = u32_at(b, at);
    let descsz = u32_at(b, at + 4);
    let n_type = u32_at(b, at + 8);
    let name = &b[at + 12..at + 12 + namesz as usize];
    let desc_at = at + 12 + (namesz as usize).div_ceil(4) * 4;
    let desc = &b[desc_at..desc_at + descsz as usize];
    let next = desc_at + (descsz as usize).div_ceil(4) * 4;
    (namesz, descsz, n_type, name, desc, next)
}

fn words(desc: &[u8]) -> Vec<u32> {
    (0..desc.len() / 4).map(|k| u32_at(desc, 4 * k)).collect()
}

#[test]
fn header_segments_sections_and_notes() {
    let p = program();
    let b = elf::write(&p);

    // ELF header (CTM §4.1.2).
    assert_eq!(&b[0..4], b"\x7fELF");
    assert_eq!(b[4], 1, "ELFCLASS32");
    assert_eq!(b[5], 1, "ELFDATA2LSB");
    assert_eq!(b[6], 1, "EV_CURRENT");
    assert_eq!(b[7], 98, "ELFOSABI_ATI");
    assert_eq!(b[8], 1, "EI_ABIVERSION");
    assert!(b[9..16].iter().all(|&x| x == 0), "EI_PAD");
    assert_eq!(u16_at(&b, 16), 2, "ET_EXEC");
    assert_eq!(u16_at(&b, 18), 122, "EM_ATI_R5XX");
    assert_eq!(u32_at(&b, 20), 1, "e_version");
    assert_eq!(u32_at(&b, 24), 0, "e_entry");
    let phoff = u32_at(&b, 28) as usize;
    let shoff = u32_at(&b, 32) as usize;
    assert_eq!(u32_at(&b, 36), 1, "EF_ATI_DPP");
    assert_eq!(u16_at(&b, 40), 52, "e_ehsize");
    assert_eq!(u16_at(&b, 42), 32, "e_phentsize");
    assert_eq!(u16_at(&b, 44), 2, "e_phnum");
    assert_eq!(u16_at(&b, 46), 40, "e_shentsize");
    assert_eq!(u16_at(&b, 48), 4, "e_shnum");
    assert_eq!(u16_at(&b, 50), 3, "e_shstrndx");
    assert_eq!(phoff, 52);

    // Program headers: PT_LOAD (.text), then PT_NOTE.
    let text = encode_program_bytes(&p.insts);
    let ph = |k: usize, field: usize| u32_at(&b, phoff + 32 * k + 4 * field);
    assert_eq!(ph(0, 0), 1, "PT_LOAD");
    let text_off = ph(0, 1) as usize;
    assert_eq!(text_off, 0x74);
    assert_eq!((ph(0, 2), ph(0, 3)), (0, 0), "p_vaddr, p_paddr");
    assert_eq!(ph(0, 4) as usize, text.len(), "p_filesz");
    assert_eq!(ph(0, 5) as usize, text.len(), "p_memsz");
    assert_eq!(ph(0, 6), 4 | 1, "PF_R | PF_X");
    assert_eq!(ph(0, 7), 4, "p_align");
    assert_eq!(&b[text_off..text_off + text.len()], &text[..]);
    assert_eq!(ph(1, 0), 4, "PT_NOTE");
    let note_off = ph(1, 1) as usize;
    let note_size = ph(1, 4) as usize;
    assert_eq!(note_off, text_off + text.len());
    assert_eq!(ph(1, 6), 4, "PF_R");

    // Section headers: null, .text, .note, .shstrtab.
    let sh = |k: usize, field: usize| u32_at(&b, shoff + 40 * k + 4 * field);
    assert!((0..10).all(|f| sh(0, f) == 0), "null section");
    let strtab = sh(3, 4) as usize;
    let name = |k: usize| {
        let at = strtab + sh(k, 0) as usize;
        let end = b[at..].iter().position(|&c| c == 0).unwrap() + at;
        std::str::from_utf8(&b[at..end]).unwrap().to_string()
    };
    assert_eq!(name(1), ".text");
    assert_eq!(sh(1, 1), 1, "SHT_PROGBITS");
    assert_eq!(sh(1, 2), 2 | 4, "SHF_ALLOC | SHF_EXECINSTR");
    assert_eq!(sh(1, 4) as usize, text_off);
    assert_eq!(sh(1, 5) as usize, text.len());
    assert_eq!(name(2), ".note");
    assert_eq!(sh(2, 1), 7, "SHT_NOTE");
    assert_eq!(sh(2, 4) as usize, note_off);
    assert_eq!(sh(2, 5) as usize, note_size);
    assert_eq!(name(3), ".shstrtab");
    assert_eq!(sh(3, 1), 3, "SHT_STRTAB");

    // The notes (CTM §4.1.4), in order, then "ctm".
    let mut at = note_off;
    let mut next = |expect_type: u32| {
        let (namesz, descsz, n_type, name, desc, after) = note_at(&b, at);
        assert_eq!((namesz, n_type), (8, expect_type));
        assert_eq!(name, b"ATI DPP\0");
        assert_eq!(descsz as usize, desc.len());
        at = after;
        words(desc)
    };
    let info = next(1);
    let mut expected = vec![1, 0, 0, 2, 0x8000_0000, 3 << 16, 3 << 16, 0xC0, 0x2_0000];
    expected.extend([0; 18]);
    expected.push(4);
    assert_eq!(info, expected, "dpp_proginfo");
    assert_eq!(info.len(), 28);
    assert_eq!(next(2), vec![2], "inputs (texkill reads no texture)");
    assert_eq!(next(3), vec![0, 2], "outputs");
    assert_eq!(next(4), vec![0], "conditional output");
    assert_eq!(next(5), vec![3, 7], "float32 constants");
    assert_eq!(next(6), Vec::<u32>::new(), "int32 constants");
    assert_eq!(next(7), vec![1], "early exit (texkill)");
    let (namesz, descsz, n_type, name, desc, after) = note_at(&b, at);
    assert_eq!((namesz, n_type, name), (4, 1, &b"ctm\0"[..]));
    assert_eq!(descsz % 4, 0, "the JSON is padded to a multiple of 4");
    let json = std::str::from_utf8(desc).unwrap().trim_end_matches('\0');
    assert_eq!(Bindings::from_json(json), Ok(p.bindings.clone()));
    assert_eq!(after, note_off + note_size, "nothing after the ctm note");
}
