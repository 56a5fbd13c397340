//! `ctmc run FILE.elf` validates the image completely before it runs
//! (issue 13): an ELF whose code, notes or bindings disagree is refused
//! with the reason and exit 2, never run and never an internal error.

mod common;

use common::Work;
use ctm_backend_x1k::abi::{IntSource, UniformBinding};
use ctm_backend_x1k::elf;
use ctm_backend_x1k::isa::{Inst, TexId};

const RUN: [&str; 8] = [
    "--domain",
    "4x2",
    "--input",
    "x=seq",
    "--input",
    "y=seq",
    "--uniform",
    "a=2",
];

/// `saxpy.x1k.elf` compiled by `ctmc` in `w`, read back as an image.
fn saxpy_image(w: &Work) -> elf::ElfImage {
    let k = w.file("saxpy.ck", common::SAXPY);
    w.ctmc(&[&k]).expect(0);
    let bytes = std::fs::read(w.path("saxpy.x1k.elf")).expect("elf");
    elf::read_image(&bytes).expect("reads")
}

fn run(w: &Work, name: &str, image: &elf::ElfImage) -> common::Run {
    let file = w.file(name, elf::write_image(image));
    let mut args = vec!["run", file.as_str()];
    args.extend(RUN);
    w.ctmc(&args)
}

#[test]
fn a_consistent_image_runs() {
    let w = Work::new();
    let image = saxpy_image(&w);
    run(&w, "good.elf", &image).expect(0);
}

#[test]
fn code_reading_an_unlisted_texture_is_refused() {
    let w = Work::new();
    let mut image = saxpy_image(&w);
    let tex = image
        .insts
        .iter_mut()
        .find_map(|i| match i {
            Inst::Tex(t) => Some(t),
            _ => None,
        })
        .expect("a lookup");
    tex.tex_id = TexId::new(9).expect("t9");
    run(&w, "bad.elf", &image)
        .expect(2)
        .stderr_has("ELF_NOTE_ATI_INPUTS");
}

#[test]
fn a_uniform_on_an_unread_constant_is_refused() {
    let w = Work::new();
    let mut image = saxpy_image(&w);
    let b = image.bindings.as_mut().expect("bindings");
    b.uniforms.push(UniformBinding {
        param: "ghost".into(),
        ty: "f32".into(),
        float_constant: 77,
    });
    run(&w, "bad.elf", &image)
        .expect(2)
        .stderr_has("uniform `ghost` is bound to float constant 77, which the code never reads");
}

#[test]
fn too_many_constants_and_missing_loop_uniforms_are_refused() {
    let w = Work::new();
    let mut image = saxpy_image(&w);
    let b = image.bindings.as_mut().expect("bindings");
    b.uniforms[0].ty = "[vec4; 300]".into();
    run(&w, "big.elf", &image)
        .expect(2)
        .stderr_has("but the hardware has 256");
    let mut image = saxpy_image(&w);
    let b = image.bindings.as_mut().expect("bindings");
    b.int_constants.push(ctm_backend_x1k::abi::IntConstBinding {
        int_constant: 3,
        count: IntSource::Uniform("n".into()),
        init: IntSource::Const(0),
        step: 1,
    });
    run(&w, "loop.elf", &image)
        .expect(2)
        .stderr_has("reads uniform `n`, which is not an i32 uniform");
}
