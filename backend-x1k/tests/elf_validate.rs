//! Complete validation of X1K images before they run (issue 13, "ELF
//! images whose notes disagree with their code"): `validate::load_elf`
//! accepts every compiled example and rejects, with a typed
//! [`ImageError`], a code bit that reads a texture or writes an output the
//! notes do not list, a bindings note that binds a uniform to a constant
//! the code never reads, names a loop-count uniform that does not exist,
//! or needs more constants than the hardware has. Mutated images never
//! panic, and an image the loader accepts is one the validator and the
//! simulated device accept too.

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{IntSource, UniformBinding};
use ctm_backend_x1k::codegen::compile_kernel;
use ctm_backend_x1k::elf;
use ctm_backend_x1k::isa::{self, Inst, RenderTarget, TexId};
use ctm_backend_x1k::validate::{self, BindingError, ImageError, Rule};
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use proptest::prelude::*;

/// Compile the only kernel of `source` for the X1K.
fn compile(source: &str) -> Program {
    let checked = ctm_frontend::compile(
        source,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = checked.program.expect("checks");
    compile_kernel(
        &program,
        &program.kernels[0],
        OptLevel::O2,
        &Default::default(),
    )
    .expect("compiles")
}

/// A uniform, a loop over an `i32` uniform bound and two inputs.
const LOOPED: &str = "kernel k(n: i32, s: f32, a: In<f32>, b: In<f32>, r: Out<f32>) {
    let mut acc = 0.0;
    for t in 0..n { acc += a * (t as f32); }
    r = acc * s + b;
}";

fn looped() -> Program {
    compile(LOOPED)
}

fn bindings_errors(result: Result<Program, ImageError>) -> Vec<BindingError> {
    match result {
        Err(ImageError::Bindings(v)) => v,
        other => panic!("expected a bindings error, got {other:?}"),
    }
}

fn rules(result: Result<Program, ImageError>) -> Vec<Rule> {
    match result {
        Err(ImageError::Rules(v)) => v.into_iter().map(|v| v.rule).collect(),
        other => panic!("expected a rules error, got {other:?}"),
    }
}

#[test]
fn compiled_programs_load() {
    let p = looped();
    assert_eq!(validate::load_elf(&elf::write(&p)), Ok(p.clone()));
    assert!(p.bindings.int_constants.iter().any(|c| matches!(
        &c.count,
        IntSource::Uniform(_) | IntSource::UniformRange(..)
    )));
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    for name in [
        "saxpy",
        "matmul",
        "blend",
        "mandelbrot",
        "convolution",
        "transform",
    ] {
        let source = std::fs::read_to_string(examples.join(format!("{name}.ck"))).expect("example");
        let p = compile(&source);
        assert_eq!(validate::load_elf(&elf::write(&p)), Ok(p), "{name}");
    }
}

/// The byte offset of `.text` in a written file: the encoded program.
fn text_offset(bytes: &[u8], p: &Program) -> usize {
    let text = isa::encode_program_bytes(&p.insts);
    bytes
        .windows(text.len())
        .position(|w| w == text.as_slice())
        .expect(".text in the file")
}

#[test]
fn a_flipped_bit_reading_an_unlisted_texture_is_rejected() {
    let p = looped();
    let mut bytes = elf::write(&p);
    let (slot, tex) = p
        .insts
        .iter()
        .enumerate()
        .find_map(|(i, inst)| match inst {
            Inst::Tex(t) if t.tex_id.get() == 0 => Some((i, *t)),
            _ => None,
        })
        .expect("a lookup of t0");
    // Flip TEX_ID bit 3 (t0 -> t8) in the slot's bytes, found by encoding
    // the instruction both ways (no hand-written bit position).
    let before = isa::encode(&Inst::Tex(tex));
    let mut moved = tex;
    moved.tex_id = TexId::new(8).expect("t8");
    let after = isa::encode(&Inst::Tex(moved));
    let diff: Vec<usize> = (0..6).filter(|&w| before[w] != after[w]).collect();
    assert_eq!(diff.len(), 1, "TEX_ID lives in one word");
    let word = diff[0];
    assert_eq!((before[word] ^ after[word]).count_ones(), 1);
    let at = text_offset(&bytes, &p) + slot * 24 + word * 4;
    let flipped = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
        ^ (before[word] ^ after[word]);
    bytes[at..at + 4].copy_from_slice(&flipped.to_le_bytes());
    assert!(rules(validate::load_elf(&bytes)).contains(&Rule::NoteMismatch));
}

#[test]
fn an_output_write_the_notes_do_not_list_is_rejected() {
    let p = looped();
    let mut image = elf::image_of(&p);
    let out = image
        .insts
        .iter_mut()
        .find_map(|inst| match inst {
            Inst::Alu(a) => match &mut a.writes {
                isa::AluWrites::Output(o) if !o.rgb_mask.is_empty() => Some(o),
                _ => None,
            },
            _ => None,
        })
        .expect("an output write");
    out.rgb_target = RenderTarget::B;
    let bytes = elf::write_image(&image);
    assert!(rules(validate::load_elf(&bytes)).contains(&Rule::NoteMismatch));
}

#[test]
fn a_uniform_bound_to_an_unread_constant_is_rejected() {
    let p = looped();
    let mut image = elf::image_of(&p);
    let bindings = image.bindings.as_mut().expect("bindings");
    bindings.uniforms.push(UniformBinding {
        param: "ghost".into(),
        ty: "f32".into(),
        float_constant: 200,
    });
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert_eq!(
        errors,
        [BindingError::Unused {
            what: "uniform",
            param: "ghost".into(),
            resource: "float constant",
            index: 200,
            verb: "reads",
        }]
    );
    assert_eq!(
        errors[0].to_string(),
        "uniform `ghost` is bound to float constant 200, which the code never reads"
    );
}

#[test]
fn moving_a_uniform_off_the_constant_the_code_reads_is_rejected() {
    let p = looped();
    let mut image = elf::image_of(&p);
    let bindings = image.bindings.as_mut().expect("bindings");
    let s = bindings
        .uniforms
        .iter_mut()
        .find(|u| u.param == "s")
        .expect("s");
    let read = s.float_constant;
    s.float_constant = 201;
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.contains(&BindingError::Unbound {
        resource: "float constant",
        index: u32::from(read),
        verb: "reads",
    }));
    assert!(
        errors
            .iter()
            .any(|e| matches!(e, BindingError::Unused { index: 201, .. }))
    );
}

#[test]
fn a_loop_count_naming_a_missing_uniform_is_rejected() {
    let p = looped();
    let mut image = elf::image_of(&p);
    let bindings = image.bindings.as_mut().expect("bindings");
    let ic = bindings.int_constants.first_mut().expect("a loop");
    let index = ic.int_constant;
    ic.count = IntSource::UniformRange(
        Box::new(IntSource::Const(0)),
        Box::new(IntSource::Uniform("nope".into())),
    );
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    // `n` no longer feeds a loop and the code never reads its constant.
    assert_eq!(
        errors,
        [
            BindingError::Unused {
                what: "uniform",
                param: "n".into(),
                resource: "float constant",
                index: 0,
                verb: "reads",
            },
            BindingError::UnknownLoopUniform {
                int_constant: index,
                name: "nope".into()
            }
        ]
    );
    assert_eq!(
        errors[1].to_string(),
        "integer constant 0 reads uniform `nope`, which is not an i32 uniform of the kernel"
    );
    // A uniform that exists but is not an i32 is no loop count either.
    let mut image = elf::image_of(&p);
    let ic = &mut image.bindings.as_mut().expect("bindings").int_constants[0];
    ic.count = IntSource::Uniform("s".into());
    assert!(
        bindings_errors(validate::load_elf(&elf::write_image(&image)))
            .iter()
            .any(|e| matches!(e, BindingError::UnknownLoopUniform { name, .. } if name == "s"))
    );
}

#[test]
fn more_constants_than_the_hardware_has_are_rejected() {
    let p = looped();
    // A `[vec4; 8]` at c250 would need c250..c257.
    let mut image = elf::image_of(&p);
    let bindings = image.bindings.as_mut().expect("bindings");
    let s = bindings
        .uniforms
        .iter_mut()
        .find(|u| u.param == "s")
        .expect("s");
    s.float_constant = 250;
    s.ty = "[vec4; 8]".into();
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.contains(&BindingError::OutOfRange {
        what: "uniform",
        param: "s".into(),
        resource: "float constant",
        index: 256,
        limit: 256,
    }));
    // Integer constant 40 of 32.
    let mut image = elf::image_of(&p);
    image.bindings.as_mut().expect("bindings").int_constants[0].int_constant = 40;
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.iter().any(|e| matches!(
        e,
        BindingError::OutOfRange {
            resource: "integer constant",
            index: 40,
            limit: 32,
            ..
        }
    )));
    // CTM input 16 of 16.
    let mut image = elf::image_of(&p);
    image.bindings.as_mut().expect("bindings").inputs[1].input = 16;
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.iter().any(|e| matches!(
        e,
        BindingError::OutOfRange {
            resource: "CTM input",
            index: 16,
            limit: 16,
            ..
        }
    )));
}

#[test]
fn an_unbound_texture_or_output_is_rejected() {
    let p = looped();
    let mut image = elf::image_of(&p);
    image.bindings.as_mut().expect("bindings").inputs.remove(0);
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.iter().any(|e| matches!(
        e,
        BindingError::Unbound {
            resource: "CTM input",
            verb: "reads",
            ..
        }
    )));
    let mut image = elf::image_of(&p);
    image.bindings.as_mut().expect("bindings").outputs[0].output = 2;
    let errors = bindings_errors(validate::load_elf(&elf::write_image(&image)));
    assert!(errors.contains(&BindingError::Unbound {
        resource: "CTM output",
        index: 0,
        verb: "writes",
    }));
    assert!(
        errors
            .iter()
            .any(|e| matches!(e, BindingError::Unused { index: 2, .. }))
    );
}

#[test]
fn a_bad_container_is_an_elf_error() {
    let p = looped();
    let bytes = elf::write(&p);
    assert!(matches!(
        validate::load_elf(&bytes[..bytes.len() / 2]),
        Err(ImageError::Elf(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Flipping bits anywhere in a good image: never a panic; whatever
    /// loads is valid for the validator and for the simulated device's
    /// loader, so a launch can never reach an internal error on it.
    #[test]
    fn mutated_images_never_panic_and_what_loads_is_valid(
        flips in prop::collection::vec((any::<prop::sample::Index>(), 0u32..8), 1..4)
    ) {
        let p = looped();
        let mut bytes = elf::write(&p);
        for (at, bit) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        if let Ok(loaded) = validate::load_elf(&bytes) {
            prop_assert!(validate::validate(&loaded).is_ok());
            let rewritten = elf::write(&loaded);
            prop_assert!(ctm_sim::x1k::device::elf::read_elf(&rewritten).is_ok());
            prop_assert_eq!(validate::load_elf(&rewritten), Ok(loaded));
        }
    }

    /// Random edits of the bindings note: never a panic, and what loads
    /// binds exactly what the code uses.
    #[test]
    fn mutated_bindings_never_panic(
        constant in any::<u8>(),
        int_constant in any::<u8>(),
        input in any::<u8>(),
        ty in prop::sample::select(vec!["f32", "vec4", "mat4", "[vec4; 300]", "[f32; 0]", "bool", "i32"]),
        which in 0usize..4,
    ) {
        let p = looped();
        let mut image = elf::image_of(&p);
        let b = image.bindings.as_mut().expect("bindings");
        match which {
            0 => {
                b.uniforms[0].float_constant = constant;
                b.uniforms[0].ty = ty.to_string();
            }
            1 => b.int_constants[0].int_constant = int_constant,
            2 => b.inputs[0].input = input,
            _ => b.uniforms.push(UniformBinding {
                param: "x".into(),
                ty: ty.to_string(),
                float_constant: constant,
            }),
        }
        if let Ok(loaded) = validate::load_elf(&elf::write_image(&image)) {
            prop_assert!(validate::validate(&loaded).is_ok());
        }
    }
}
