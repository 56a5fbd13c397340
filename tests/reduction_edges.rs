//! Reductions without boundary guards (issue 12): on both targets, every
//! recognised body (`+`, `*`, `min`, `max`, `min`/`max` of `abs` or
//! `saturate` of both operands, lane-wise mixes) and the
//! guarded fallback give the reference interpreter's value (spec §7
//! tolerance, NaN matching NaN) on every kind of domain shape: 1×1, single
//! rows and columns, odd and prime sides, sides of the 4096 limit. The
//! pass programs of recognised bodies carry no compare or select, and a
//! `+`/`*` program's bindings ask for the identity as padding, so an ELF
//! run (`ctmc run`) gets it too.

use ctm::{CompileOptions, EmitKind, Emitted, RunData, SimulateOptions, Target};
use ctm_frontend::data::{StreamBuffer, StreamData};

/// (name, source, whether the pass needs guards).
const BODIES: [(&str, &str, bool); 11] = [
    ("sum", "reduce sum(a: f32, b: f32) -> f32 { a + b }", false),
    (
        "prod",
        "reduce prod(a: vec2, b: vec2) -> vec2 { b * a }",
        false,
    ),
    (
        "lo",
        "reduce lo(a: f32, b: f32) -> f32 { min(a, b) }",
        false,
    ),
    (
        "hi",
        "reduce hi(a: vec4, b: vec4) -> vec4 { max(b, a) }",
        false,
    ),
    (
        "bounds",
        "reduce bounds(a: vec4, b: vec4) -> vec4 { vec4(min(a.xy, b.xy), max(a.zw, b.zw)) }",
        false,
    ),
    (
        "sums",
        "reduce sums(a: vec4, b: vec4) -> vec4 { vec4(a.xy + b.xy, a.zw * b.zw) }",
        false,
    ),
    // `min`/`max` of an idempotent map of both operands.
    (
        "maxabs",
        "reduce maxabs(a: f32, b: f32) -> f32 { max(abs(a), abs(b)) }",
        false,
    ),
    (
        "satlo",
        "reduce satlo(a: vec2, b: vec2) -> vec2 { min(saturate(b), saturate(a)) }",
        false,
    ),
    (
        "envelope",
        "reduce envelope(a: vec4, b: vec4) -> vec4 { vec4(max(abs(a).xy, abs(b).xy), min(abs(b.z), abs(a.z)), max(saturate(a.w), saturate(b.w))) }",
        false,
    ),
    // A `+` lane beside a `min` lane: no one padding serves both.
    (
        "mixed",
        "reduce mixed(a: vec2, b: vec2) -> vec2 { vec2(a.x + b.x, min(a.y, b.y)) }",
        true,
    ),
    // Not a recognised form (the user promises associativity).
    (
        "other",
        "reduce other(a: f32, b: f32) -> f32 { a + b + a * b * 0.0 }",
        true,
    ),
];

/// Shapes: 1×1, rows, columns, odd, prime, even, the 4096 side.
const SHAPES: [(usize, usize); 17] = [
    (1, 1),
    (2, 1),
    (1, 2),
    (3, 1),
    (1, 5),
    (13, 1),
    (1, 17),
    (3, 3),
    (5, 3),
    (2, 7),
    (31, 29),
    (64, 64),
    (97, 2),
    (4096, 1),
    (1, 4095),
    (4095, 3),
    (127, 131),
];

fn channels(source: &str) -> usize {
    if source.contains("vec4") {
        4
    } else if source.contains("vec2") {
        2
    } else {
        1
    }
}

/// Whether [`input`] puts NaN among the idempotent bodies' values.
#[derive(Clone, Copy, PartialEq)]
enum Nans {
    No,
    Yes,
}

/// A deterministic stream with negatives, and (for the idempotent
/// bodies) zeros of both signs, infinities and, with [`Nans::Yes`], NaN;
/// products stay near 1.
fn input(name: &str, w: usize, h: usize, c: usize, seed: u32, nans: Nans) -> StreamData {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    let mut data = Vec::with_capacity(w * h * c);
    for _ in 0..w * h * c {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let u = (state >> 8) as f32 / (1u32 << 24) as f32;
        let v = match name {
            "prod" | "sums" => 0.75 + 0.5 * u,
            "lo" | "hi" | "bounds" | "mixed" | "maxabs" | "satlo" | "envelope" => {
                match state % 23 {
                    0 if nans == Nans::Yes => f32::NAN,
                    // A NaN with its sign set (`abs` clears it).
                    4 if nans == Nans::Yes => -f32::NAN,
                    1 => f32::INFINITY,
                    2 => f32::NEG_INFINITY,
                    3 => -0.0,
                    5 => 0.0,
                    // Denormals of both signs (compared as zero, flushed
                    // by arithmetic).
                    6 => f32::from_bits(0x8000_0000 | (state >> 9)),
                    7 => f32::from_bits(state >> 9),
                    // Values in [0, 1] and beside it, for `saturate`.
                    8..=11 => u * 1.5 - 0.25,
                    _ => (u - 0.5) * 1000.0,
                }
            }
            _ => (u - 0.5) * 100.0,
        };
        data.push(v);
    }
    StreamData {
        width: w,
        height: h,
        channels: c,
        buffer: StreamBuffer::F32(data),
    }
}

fn compile(source: &str, target: Target) -> ctm::Compilation {
    let options = CompileOptions {
        target,
        ..Default::default()
    };
    ctm::compile(source, &options).expect("compiles")
}

fn value(source: &str, target: Target, data: &StreamData) -> Vec<f32> {
    let c = compile(source, target);
    let run = ctm::simulate(
        &c,
        &RunData::Reduction(data.clone()),
        &SimulateOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{target:?}: {e:?}"));
    match &run.outputs[0].data.buffer {
        StreamBuffer::F32(v) => v.clone(),
        other => panic!("a reduction's value in {other:?}"),
    }
}

fn matches(got: f32, want: f32) -> bool {
    got == want
        || (got.is_nan() && want.is_nan())
        || (got - want).abs() <= 1e-5 * want.abs().max(1.0)
}

#[test]
fn every_body_and_shape_matches_the_reference_on_both_targets() {
    let mut checked = 0;
    for (k, (name, source, _)) in BODIES.iter().enumerate() {
        let c = channels(source);
        for (s, &(w, h)) in SHAPES.iter().enumerate() {
            let data = input(name, w, h, c, (k * 100 + s) as u32, Nans::No);
            let want = value(source, Target::Ref, &data);
            for target in [Target::X1k, Target::R700] {
                let got = value(source, target, &data);
                assert_eq!(got.len(), want.len());
                for lane in 0..c {
                    assert!(
                        matches(got[lane], want[lane]),
                        "{name} {w}x{h} on {target:?}: lane {lane}: {} vs the reference's {}",
                        got[lane],
                        want[lane]
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, BODIES.len() * SHAPES.len() * 2);
}

/// The same body behind a statement, which the recognition refuses: the
/// guarded pass kernel of the same function.
fn guarded_twin(source: &str) -> String {
    let open = source.find('{').expect("a body");
    let body = source[open + 1..source.len() - 1].trim();
    format!("{} {{ let twin = {body}; twin }}", &source[..open])
}

#[test]
fn with_nans_the_unguarded_passes_give_what_the_guarded_ones_give() {
    // The X1K's MIN/MAX return the second operand when one is NaN
    // (docs/backend-x1k.md), so with NaNs an x1k min/max reduction may
    // differ from the reference, guarded or not; the clamped pass must
    // give exactly what the guarded pass gives. The R700's MIN_DX10 /
    // MAX_DX10 ignore NaN as the reference does.
    for (k, (name, source, _)) in BODIES.iter().enumerate() {
        if !matches!(
            *name,
            "lo" | "hi" | "bounds" | "maxabs" | "satlo" | "envelope"
        ) {
            continue;
        }
        let c = channels(source);
        let twin = guarded_twin(source);
        assert!(ir(&twin, Target::X1k).contains("select"), "{twin}");
        for (s, &(w, h)) in SHAPES.iter().enumerate() {
            let data = input(name, w, h, c, (k * 100 + s) as u32 + 7, Nans::Yes);
            let want = value(source, Target::Ref, &data);
            for target in [Target::X1k, Target::R700] {
                let got = value(source, target, &data);
                let guarded = value(&twin, target, &data);
                for lane in 0..c {
                    assert_eq!(
                        got[lane].to_bits(),
                        guarded[lane].to_bits(),
                        "{name} {w}x{h} on {target:?}: lane {lane}: {} vs guarded {}",
                        got[lane],
                        guarded[lane]
                    );
                    if target == Target::R700 {
                        assert!(
                            matches(got[lane], want[lane]),
                            "{name} {w}x{h} r700 lane {lane}"
                        );
                    }
                }
            }
        }
    }
}

/// The optimised IR of `source`'s pass for `target`.
fn ir(source: &str, target: Target) -> String {
    let c = compile(source, target);
    match ctm::emit(source, &c, EmitKind::Ir).expect("emits") {
        Emitted::Text(t) => t,
        Emitted::Binary(_) => panic!("IR as bytes"),
    }
}

#[test]
fn recognised_bodies_lose_their_guards_and_others_keep_them() {
    for (name, source, guarded) in BODIES {
        for target in [Target::X1k, Target::R700] {
            let text = ir(source, target);
            // The guards are `<` compares of the read positions with the
            // grid's size, and the selects they steer.
            let has_guards = text.contains("select") && text.contains("cmp.");
            assert_eq!(has_guards, guarded, "{name} on {target:?}:\n{text}");
            let padded = text.contains("input padded with");
            let wants_padding = matches!(name, "sum" | "prod" | "sums");
            assert_eq!(padded, wants_padding, "{name} on {target:?}:\n{text}");
        }
    }
}

#[test]
fn an_elf_run_pads_as_its_bindings_say() {
    // `sum`'s ELF alone (no source) reduces an odd grid correctly: the
    // bindings carry the identity to pad with.
    let data = input("sum", 7, 5, 1, 7, Nans::No);
    let want = value(BODIES[0].1, Target::Ref, &data)[0];
    for target in [Target::X1k, Target::R700] {
        let c = compile(BODIES[0].1, target);
        let Emitted::Binary(elf) = ctm::emit(BODIES[0].1, &c, EmitKind::Elf).expect("emits") else {
            panic!("an ELF as text");
        };
        let program = ctm::Program::from_elf(&elf).expect("reads");
        assert!(program.is_reduction());
        let mut dev = match target {
            Target::X1k => ctm::Device::x1k(),
            _ => ctm::Device::r700(),
        };
        let StreamBuffer::F32(values) = &data.buffer else {
            unreachable!()
        };
        let stream = ctm::Stream::<f32>::from_vec(7, 5, values.clone()).expect("a stream");
        let got = program.reduce(&mut dev, &stream).expect("runs").0[0];
        assert!(matches(got, want), "{target:?}: {got} vs {want}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any shape up to 70×70 (rows, columns, odd and prime sides among
    /// them), any body of the table, both targets: the reference's value.
    #[test]
    fn any_shape_matches_the_reference(
        w in 1usize..=70,
        h in 1usize..=70,
        body in 0usize..BODIES.len(),
        seed in 0u32..1000,
    ) {
        let (name, source, _) = BODIES[body];
        let c = channels(source);
        let data = input(name, w, h, c, seed, Nans::No);
        let want = value(source, Target::Ref, &data);
        for target in [Target::X1k, Target::R700] {
            let got = value(source, target, &data);
            for lane in 0..c {
                proptest::prop_assert!(
                    matches(got[lane], want[lane]),
                    "{} {}x{} on {:?}: lane {}: {} vs {}",
                    name, w, h, target, lane, got[lane], want[lane]
                );
            }
        }
    }
}

/// A reduction's first pass may read a packed stream (`unorm8x4` as a
/// `vec4`, `u16` as an `f32`, spec §4): its pass program reads that format
/// and writes the reduction's own type, and is still run as a reduction
/// (it was an internal error: the program's interface was not recognised
/// as a pass program when the two formats differ).
#[test]
fn packed_inputs_reduce_on_both_targets() {
    let cases = [
        (
            "reduce hi(a: vec4, b: vec4) -> vec4 { max(a, b) }",
            StreamData {
                width: 5,
                height: 3,
                channels: 4,
                buffer: StreamBuffer::U8((0..60).map(|i| (i * 37 % 251) as u8).collect()),
            },
        ),
        (
            "reduce sum(a: f32, b: f32) -> f32 { a + b }",
            StreamData {
                width: 7,
                height: 2,
                channels: 1,
                buffer: StreamBuffer::U16((0..14).map(|i| 1000 + i * 311).collect()),
            },
        ),
    ];
    for (source, data) in cases {
        let want = value(source, Target::Ref, &data);
        for target in [Target::X1k, Target::R700] {
            let got = value(source, target, &data);
            assert_eq!(got.len(), want.len(), "{source} on {target:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    matches(*g, *w),
                    "{source} on {target:?}: {got:?} vs {want:?}"
                );
            }
        }
    }
}
