//! ELF round trips and fuzzing: `read(write(p)) == p` for random programs
//! and bindings; the notes of a written valid program pass
//! `validate_image`; the listing parses back; and the reader (and the
//! listings) never panic on random or mutated bytes.

mod common;

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{
    Bindings, BoolUniformBinding, InputBinding, IntConstBinding, IntSource, LiteralBinding,
    OutputBinding, UniformBinding,
};
use ctm_backend_x1k::elf::{self, listing};
use ctm_backend_x1k::isa::parse_program;
use ctm_backend_x1k::validate;
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,7}"
}

fn int_source() -> impl Strategy<Value = IntSource> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(IntSource::Const),
        name().prop_map(IntSource::Uniform),
    ];
    leaf.prop_recursive(2, 4, 2, |inner| {
        (inner.clone(), inner).prop_map(|(a, b)| IntSource::UniformRange(Box::new(a), Box::new(b)))
    })
}

/// Finite floats: JSON has no NaN or infinity.
fn finite() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |v| v.is_finite())
}

fn bindings() -> impl Strategy<Value = Bindings> {
    let inputs = prop::collection::vec(
        (name(), 0u8..16, name()).prop_map(|(param, input, format)| InputBinding {
            param,
            input,
            format,
        }),
        0..3,
    );
    let outputs = prop::collection::vec(
        (name(), 0u8..4, name()).prop_map(|(param, output, format)| OutputBinding {
            param,
            output,
            format,
        }),
        0..3,
    );
    let uniforms = prop::collection::vec(
        (name(), "[a-z0-9;\\[\\] ]{1,10}", any::<u8>()).prop_map(|(param, ty, float_constant)| {
            UniformBinding {
                param,
                ty,
                float_constant,
            }
        }),
        0..3,
    );
    let bools = prop::collection::vec(
        (name(), 0u8..32, proptest::option::of(any::<u8>())).prop_map(
            |(param, bool_constant, float_constant)| BoolUniformBinding {
                param,
                bool_constant,
                float_constant,
            },
        ),
        0..2,
    );
    let literals = prop::collection::vec(
        (any::<u8>(), [finite(), finite(), finite(), finite()]).prop_map(
            |(float_constant, value)| LiteralBinding {
                float_constant,
                value,
            },
        ),
        0..3,
    );
    let ints = prop::collection::vec(
        (0u8..32, int_source(), int_source(), -128i32..128).prop_map(
            |(int_constant, count, init, step)| IntConstBinding {
                int_constant,
                count,
                init,
                step,
            },
        ),
        0..2,
    );
    (
        (name(), inputs, outputs, proptest::option::of(name())),
        (
            uniforms,
            bools,
            proptest::option::of(any::<u8>()),
            literals,
            ints,
            proptest::collection::vec((0u8..8, name()), 0..3),
        ),
    )
        .prop_map(
            |(
                (kernel, inputs, outputs, scatter),
                (uniforms, bool_uniforms, domain_constant, literals, int_constants, launch),
            )| Bindings {
                kernel,
                inputs,
                outputs,
                scatter,
                uniforms,
                bool_uniforms,
                domain_constant,
                literals,
                int_constants,
                input_padding_bits: None,
                unread_uniforms: Vec::new(),
                launch_constants: launch
                    .into_iter()
                    .map(|(k, u)| ctm_backend_x1k::abi::LaunchConstantBinding {
                        param: format!("launch.{k}"),
                        ty: "vec3".into(),
                        expr: format!("uniform {u}; dot %0 %0; rsqrt %1"),
                    })
                    .collect(),
            },
        )
}

/// Random programs: any instructions (valid for the validator or not) and
/// any register values the proginfo can hold.
fn program() -> impl Strategy<Value = Program> {
    (
        prop::collection::vec(common::inst(), 1..24),
        0u32..4,
        0u32..128,
        prop_oneof![Just(0u32), Just(0x8000_0000)],
        bindings(),
    )
        .prop_map(
            |(insts, us_config, us_pixsize, us_fc_ctrl, bindings)| Program {
                insts,
                us_config,
                us_pixsize,
                us_fc_ctrl,
                bindings,
            },
        )
}

fn valid_program() -> Program {
    Program {
        insts: parse_program(
            "  0: tex r1.rgba = ld(t3, r0.rgaa) acquire sem_wait
               1: alu r2.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r2.a = rcp(s0.a) ; s0=r1 s1=c4 s2=c9 sem_wait
               2: out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.a, s0.a) ; s0=r2 sem_wait",
        )
        .expect("assembles"),
        us_config: 0,
        us_pixsize: 2,
        us_fc_ctrl: 0,
        bindings: Bindings {
            kernel: "k".into(),
            ..Bindings::default()
        },
    }
}

#[test]
fn valid_program_round_trips_and_its_notes_validate() {
    let p = valid_program();
    validate::validate(&p).expect("valid");
    let bytes = elf::write(&p);
    assert_eq!(elf::read(&bytes), Ok(p.clone()));
    let image = elf::read_image(&bytes).expect("reads");
    assert_eq!(image.notes.inputs, vec![3]);
    assert_eq!(image.notes.outputs, vec![1]);
    assert_eq!(image.notes.float32_constants, vec![4, 9]);
    validate::validate_image(&image).expect("notes match the code");
    // A note that lies about the code is a violation.
    let mut lying = image.clone();
    lying.notes.inputs = vec![3, 5];
    let v = validate::validate_image(&lying).expect_err("inputs note lies");
    assert_eq!(v[0].rule, validate::Rule::NoteMismatch);
    let mut lying = image.clone();
    lying.proginfo.fg_depth_src = 1;
    assert!(validate::validate_image(&lying).is_err());
    let mut lying = image;
    lying.proginfo.us_code_addr = 1 | (2 << 16);
    let v = validate::validate_image(&lying).expect_err("code range");
    assert_eq!(v[0].rule, validate::Rule::CodeRange);
}

#[test]
fn listing_reads_back_as_the_program() {
    let p = valid_program();
    let bytes = elf::write(&p);
    let text = listing::listing_elf(&bytes).expect("lists");
    assert!(
        text.starts_with("# ctm x1k executable: kernel \"k\"\n"),
        "{text}"
    );
    assert!(text.contains("US_PIXSIZE 2"), "{text}");
    assert!(text.ends_with(&ctm_backend_x1k::isa::format_program(&p.insts)));
    assert_eq!(parse_program(&text), Ok(p.insts.clone()));
    let raw = ctm_backend_x1k::isa::encode_program_bytes(&p.insts);
    assert_eq!(
        listing::listing_bin(&raw),
        Ok(ctm_backend_x1k::isa::format_program(&p.insts))
    );
    assert!(listing::listing_bin(&raw[..23]).is_err());
    let mut bad = raw.clone();
    bad[4] = 0xFF; // slot 0 word 1: reserved TEX bits
    let text = listing::listing_bin(&bad).expect("lists");
    assert!(text.starts_with("#   0:"), "{text}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn read_inverts_write(p in program()) {
        let bytes = elf::write(&p);
        prop_assert_eq!(elf::read(&bytes), Ok(p.clone()));
        let image = elf::read_image(&bytes).expect("reads");
        prop_assert_eq!(elf::write_image(&image), bytes);
        prop_assert_eq!(image, elf::image_of(&p));
    }

    #[test]
    fn reader_never_panics_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = elf::read_image(&bytes);
        let _ = listing::listing_elf(&bytes);
        let _ = listing::listing_bin(&bytes);
    }

    #[test]
    fn reader_never_panics_on_mutated_files(
        p in program(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = elf::write(&p);
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        if let Ok(image) = elf::read_image(&bytes) {
            // Whatever is accepted is consistent and validates without panicking.
            let _ = validate::validate_image(&image);
            prop_assert_eq!(image.proginfo.instr_cnt as usize, image.insts.len());
        }
        let _ = elf::read(&bytes);
        let _ = listing::listing_elf(&bytes);
    }

    #[test]
    fn validator_never_panics(p in program()) {
        let _ = validate::validate(&p);
        let _ = ctm_backend_x1k::stats::static_metrics(&p);
    }
}
