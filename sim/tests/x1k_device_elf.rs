//! Loading CTM executables (CTM §4.1): the backend's ELF reader is the one
//! definition of the layout (its own tests cover every field and error);
//! these tests check that the device's image of a file is exactly what was
//! written, that foreign notes (ctm's `"ctm"` bindings note) are ignored,
//! and that bad files are refused with the reader's error.

mod x1k_device_support;

use ctm_backend_x1k::isa::IntConstId;
use ctm_backend_x1k::isa::program_regs::{FcMode, OutputMode};
use ctm_sim::x1k::device::elf::{LoadError, read_elf};
use ctm_sim::x1k::device::params::{InputId, OutputId};
use ctm_sim::x1k::device::program::ProgramNotes;
use x1k_device_support::{elf_bytes, image, image_with};

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

#[test]
fn written_images_load_back_unchanged() {
    let images = [
        image(ProgramNotes::default()),
        image(notes()),
        image_with(
            |i| {
                i.us_config.output_mode = OutputMode::Uncached;
                i.us_fc_ctrl.mode = FcMode::Full;
                i.fg_depth_src.shader_exports_w = true;
            },
            notes(),
        ),
    ];
    for img in images {
        let loaded = read_elf(&elf_bytes(&img)).expect("a valid file loads");
        assert_eq!(loaded, img);
    }
}

#[test]
fn programs_with_a_ctm_note_load() {
    // The backend writes ctm's bindings in a note named "ctm": a CTM loader
    // must ignore it (docs/abi-x1k.md §1).
    let program = ctm_backend_x1k::Program {
        insts: ctm_backend_x1k::isa::parse_program(
            "out o0.r = max(s0.r00, s0.r00) ; _ ; s0=r0 sem_wait",
        )
        .expect("asm"),
        us_config: 0,
        us_pixsize: 0,
        us_fc_ctrl: 0,
        bindings: ctm_backend_x1k::abi::Bindings {
            kernel: "k".into(),
            ..Default::default()
        },
    };
    let bytes = ctm_backend_x1k::elf::write(&program);
    let loaded = read_elf(&bytes).expect("loads");
    assert_eq!(loaded.slots(), 1);
    assert_eq!(
        loaded.text(),
        &ctm_backend_x1k::isa::encode_program_bytes(&program.insts)[..]
    );
}

#[test]
fn bad_files_are_refused_with_the_readers_error() {
    let good = elf_bytes(&image(notes()));
    assert!(matches!(read_elf(&[]), Err(LoadError::Elf(_))));
    assert!(matches!(
        read_elf(&good[..good.len() / 2]),
        Err(LoadError::Elf(_))
    ));
    let mut wrong_machine = good.clone();
    wrong_machine[18] = 0x7d; // e_machine 125 instead of 122
    let err = read_elf(&wrong_machine).unwrap_err();
    assert!(matches!(err, LoadError::Elf(_)), "{err}");
    assert!(err.to_string().contains("Machine"), "{err}");
    let mut garbage = good;
    for b in garbage.iter_mut().skip(0x34) {
        *b ^= 0xA5;
    }
    assert!(read_elf(&garbage).is_err());
}
