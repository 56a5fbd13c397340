//! The smaller defects of issue 12, as a new user meets them: a warning
//! printed once, a file without an entry point is a compile error (exit 1,
//! spec §9), image outputs written as PNG (`docs/cli.md`, "--output").

mod common;

use common::Work;

/// A kernel whose loop variable is never read (CK0052).
const UNUSED_LOOP_VARIABLE: &str = "kernel k(x: In<f32>, r: Out<f32>) {
    let mut s = 0.0;
    for i in 0..4 {
        s += x;
    }
    r = s;
}
";

#[test]
fn a_warning_is_printed_once() {
    let w = Work::new();
    let k = w.file("k.ck", UNUSED_LOOP_VARIABLE);
    for args in [
        vec![k.as_str(), "--emit", "asm"],
        vec![k.as_str(), "--emit", "asm", "--target", "r700"],
        vec![k.as_str(), "--emit", "ir"],
        vec![k.as_str(), "--simulate", "--domain", "4x4", "--check"],
        vec![k.as_str(), "--emit", "asm", "--simulate", "--domain", "4x4"],
    ] {
        let run = w.ctmc(&args);
        run.expect(0);
        assert_eq!(
            run.stderr.matches("warning[CK0052]").count(),
            1,
            "{args:?}: {run:#?}"
        );
    }
}

#[test]
fn a_file_without_an_entry_point_is_a_compile_error() {
    let w = Work::new();
    let empty = w.file("empty.ck", "");
    let blank = w.file("blank.ck", "\n  // nothing here\n\n");
    let helpers = w.file(
        "helpers.ck",
        "const K: f32 = 2.0;\nfn twice(x: f32) -> f32 { x * K }\n",
    );
    for file in [&empty, &blank, &helpers] {
        for extra in [
            &[][..],
            &["--target", "ref"][..],
            &["--emit", "asm"][..],
            &["--simulate"][..],
            &["--target", "r700", "--emit", "stats"][..],
        ] {
            let mut args = vec![file.as_str()];
            args.extend_from_slice(extra);
            let run = w.ctmc(&args);
            run.expect(1)
                .stderr_has("error[CK0017]")
                .stderr_has("could not compile");
        }
    }
    // Still exit 1 when an option is also wrong: source first.
    w.ctmc(&[&empty, "--no-such-option"])
        .expect(1)
        .stderr_has("error[CK0017]");
    // A file with a kernel and an unused helper still compiles.
    let fine = w.file(
        "fine.ck",
        "fn twice(x: f32) -> f32 { x * 2.0 }\nkernel k(x: In<f32>, r: Out<f32>) { r = x; }\n",
    );
    w.ctmc(&[&fine, "--target", "ref"]).expect(0);
}

/// The width, height, bit depth and colour type of a PNG file's IHDR.
fn png_header(bytes: &[u8]) -> (u32, u32, u8, u8) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |k: usize| u32::from_be_bytes([bytes[k], bytes[k + 1], bytes[k + 2], bytes[k + 3]]);
    (be(16), be(20), bytes[24], bytes[25])
}

fn example(name: &str) -> String {
    format!("{}/examples/{name}.ck", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn image_outputs_are_written_as_png() {
    let w = Work::new();
    // An f32 field (grey, colour type 0) and the same output as .npy.
    w.ctmc(&[
        &example("mandelbrot"),
        "--simulate",
        "--domain",
        "40x24",
        "--uniform",
        "scale=0.08",
        "--uniform",
        "center=-0.5,0",
        "--output",
        "r=r.PNG",
    ])
    .expect(0);
    let png = std::fs::read(w.path("r.PNG")).unwrap();
    assert_eq!(png_header(&png), (40, 24, 8, 0));
    w.ctmc(&[
        &example("mandelbrot"),
        "--simulate",
        "--domain",
        "40x24",
        "--uniform",
        "scale=0.08",
        "--uniform",
        "center=-0.5,0",
        "--output",
        "r=r.npy",
    ])
    .expect(0);
    let values = common::f32s(&common::read_npy(&w.path("r.npy")));
    let stream = ctm::io::array_to_stream(
        &common::read_npy(&w.path("r.npy")),
        ctm_frontend::types::StreamType::F32,
    )
    .unwrap();
    assert_eq!(png, ctm::io::encode_png(&stream).unwrap());
    // The field is not flat, so the image spans black to white.
    let (_, grey) = ctm::io::png::pixels(&stream).unwrap();
    assert_eq!(grey.len(), values.len());
    assert!(grey.contains(&0) && grey.contains(&255));
    // vec4 streams (ripple) and unorm8x4-derived ones (grayscale's
    // negative) are RGBA (colour type 6), on x1k, r700 and ref.
    for target in ["x1k", "r700", "ref"] {
        w.ctmc(&[
            &example("grayscale"),
            "--target",
            target,
            "--simulate",
            "--domain",
            "16x8",
            "--output",
            "negative=n.png",
            "--output",
            "gray=g.png",
        ])
        .expect(0);
        assert_eq!(
            png_header(&std::fs::read(w.path("n.png")).unwrap()),
            (16, 8, 8, 6)
        );
        assert_eq!(
            png_header(&std::fs::read(w.path("g.png")).unwrap()),
            (16, 8, 8, 0)
        );
    }
    // Not images: a vec2 stream, a reduction's result (exit 2, named).
    let k = w.file(
        "v2.ck",
        "kernel k(x: In<f32>, r: Out<vec2>) { r = vec2(x, 1.0); }\n",
    );
    w.ctmc(&[&k, "--simulate", "--domain", "4x4", "--output", "r=r2.png"])
        .expect(2)
        .stderr_has("not an image");
    w.ctmc(&[
        &example("sum"),
        "--simulate",
        "--domain",
        "4x4",
        "--output",
        "sum=s.png",
    ])
    .expect(2)
    .stderr_has("not an image");
}
