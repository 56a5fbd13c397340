//! Launch constants end to end (`docs/abi-x1k.md` §3.2): the hidden
//! uniforms `launch.N` are computed by the loader at every launch on both
//! targets — `ctmc --simulate --check`, `ctmc run` of a written ELF,
//! reduction passes, the host API and `ctm_kernel!` — and a user can
//! neither need nor set them.

mod common;

use common::Work;
use ctm::prelude::*;

const LIGHTING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/kernels/lighting.ck");

ctm_kernel! {
    kernel shade(light: vec3, gain: f32, n: In<vec4>, r: Out<f32>) {
        let l = normalize(light) * (gain + 1.0);
        r = dot(n.xyz, l);
    }
}

#[test]
fn lighting_with_a_non_unit_light_checks_on_both_targets() {
    let work = Work::new();
    for target in ["x1k", "r700"] {
        work.ctmc(&[
            LIGHTING,
            "--target",
            target,
            "--simulate",
            "--check",
            "--domain",
            "19x7",
            "--uniform",
            "light=3,-4,12",
            "--uniform",
            "shininess=9",
        ])
        .expect(0)
        .stdout_has("check passed");
        // The listing names both constants and the expression.
        work.ctmc(&[LIGHTING, "--target", target, "--emit", "asm"])
            .expect(0)
            .stdout_has("launch constant ")
            .stdout_has("= uniform light; dot %0 %0; rsqrt %1; splat3 %2; fmul %0 %3\n");
        // Not at -O0.
        let o0 = work.ctmc(&[LIGHTING, "--target", target, "--emit", "asm", "-O0"]);
        o0.expect(0);
        assert!(!o0.stdout.contains("launch constant"), "{}", o0.stdout);
    }
}

#[test]
fn a_written_elf_runs_with_only_the_users_uniforms() {
    let work = Work::new();
    for target in ["x1k", "r700"] {
        let elf = work.path(&format!("lighting.{target}.elf"));
        let elf = elf.to_str().expect("utf-8 path");
        work.ctmc(&[LIGHTING, "--target", target, "-o", elf])
            .expect(0);
        let out = work.path(&format!("r.{target}.npy"));
        let out = out.to_str().expect("utf-8 path");
        work.ctmc(&[
            "run",
            elf,
            "--simulate",
            "--check",
            "--domain",
            "9x4",
            "--uniform",
            "light=0.5,2,-1",
            "--uniform",
            "shininess=4",
            "--output",
            &format!("r={out}"),
        ])
        .expect(0)
        .stdout_has("check passed");
        // A different light gives different outputs: the constants are
        // computed from this launch's values, not baked in.
        let first = common::f32s(&common::read_npy(std::path::Path::new(out)));
        work.ctmc(&[
            "run",
            elf,
            "--simulate",
            "--domain",
            "9x4",
            "--uniform",
            "light=-2,0.25,1",
            "--uniform",
            "shininess=4",
            "--output",
            &format!("r={out}"),
        ])
        .expect(0);
        let second = common::f32s(&common::read_npy(std::path::Path::new(out)));
        assert_ne!(first, second, "{target}");
        // The hidden names are not parameters of the ELF.
        work.ctmc(&[
            "run",
            elf,
            "--simulate",
            "--domain",
            "9x4",
            "--uniform",
            "launch.0=1,2,3",
        ])
        .expect(2);
    }
}

#[test]
fn a_damaged_launch_expression_is_a_bad_file() {
    let work = Work::new();
    let elf = work.path("lighting.elf");
    let elf_path = elf.to_str().expect("utf-8 path");
    work.ctmc(&[LIGHTING, "--target", "x1k", "-o", elf_path])
        .expect(0);
    let bytes = std::fs::read(&elf).expect("elf");
    // Same length, so the note stays well formed: `rsqrt` -> `gathr`.
    let needle = b"rsqrt %1";
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the expression is in the note");
    let mut bad = bytes.clone();
    bad[at..at + 5].copy_from_slice(b"gathr");
    let bad_path = work.file("bad.elf", &bad);
    work.ctmc(&["run", &bad_path, "--simulate", "--domain", "4x4"])
        .expect(2)
        .stderr_has("launch constant `launch.0`");
    work.ctmc(&["disasm", &bad_path]).expect(0);
}

#[test]
fn the_host_api_and_the_macro_bind_them() {
    let n = Stream::from_vec(3, 1, vec![[0.0f32, 0.0, 1.0, 0.0]; 3]).unwrap();
    // normalize((0, 0, 2)) * (1 + 1) = (0, 0, 2); dot with (0, 0, 1) = 2.
    for mut dev in [Device::x1k(), Device::r700()] {
        let mut r = Stream::zeros(3, 1);
        shade::launch(&mut dev, [0.0, 0.0, 2.0], 1.0, &n, &mut r).unwrap();
        assert_eq!(r.to_vec(), [2.0, 2.0, 2.0]);
    }
    let src = std::fs::read_to_string(LIGHTING).unwrap();
    for target in [Target::X1k, Target::R700] {
        let p = compile_kernel(&src, target, &Options::default()).unwrap();
        let mut dev = match target {
            Target::X1k => Device::x1k(),
            _ => Device::r700(),
        };
        let nn = Stream::from_vec(2, 1, vec![[0.0f32, 0.0, 1.0, 0.0]; 2]).unwrap();
        let args = |light: [f32; 3]| {
            vec![
                Arg::uniform("light", light),
                Arg::uniform("shininess", 1.0f32),
                Arg::input("n", &nn),
            ]
        };
        let out = p.launch(&mut dev, &args([0.0, 0.0, 5.0])).unwrap();
        // diff = 1, h = (0, 0, 1), spec = 1: 2 in rgb.
        let r = out.output::<[f32; 4]>("r").unwrap().to_vec();
        assert_eq!(r[0], [2.0, 2.0, 2.0, 1.0], "{target:?}");
        // A missing user uniform is the usual error; the hidden one is
        // neither needed nor accepted.
        let missing = p.launch(&mut dev, &args([0.0, 0.0, 5.0])[1..]).unwrap_err();
        assert!(matches!(missing, Error::ArgumentCount { .. }), "{missing}");
        let mut extra = args([0.0, 0.0, 5.0]);
        extra.push(Arg::uniform("launch.0", [1.0f32, 2.0, 3.0]));
        assert!(matches!(
            p.launch(&mut dev, &extra).unwrap_err(),
            Error::ArgumentCount { .. }
        ));
        // The ELF loads back with the same interface.
        let loaded = Program::from_elf(&p.elf().unwrap()).unwrap();
        let again = loaded.launch(&mut dev, &args([0.0, 0.0, 5.0])).unwrap();
        assert_eq!(again.output::<[f32; 4]>("r").unwrap().to_vec()[0], r[0]);
    }
}

#[test]
fn reductions_still_run() {
    // A reduction's pass kernel reads only its hidden pass uniforms; the
    // launch-constant machinery must leave their binding alone.
    let work = Work::new();
    let src = work.file("sum.ck", "reduce sum(a: f32, b: f32) -> f32 { a + b }\n");
    for target in ["x1k", "r700"] {
        work.ctmc(&[
            &src,
            "--target",
            target,
            "--simulate",
            "--check",
            "--input",
            "a=seq",
            "--domain",
            "13x5",
        ])
        .expect(0)
        .stdout_has("check passed");
    }
}
