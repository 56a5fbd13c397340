//! The ELF files `ctm_kernel!` embeds are byte-identical to the ones the
//! built `ctmc` writes for the same source, target and entry point (the
//! macro bodies below are the `examples/*.ck` files verbatim).

use ctm::ctm_kernel;
use std::process::Command;

ctm_kernel! {
    // SAXPY: r = a * x + y, the "hello world" of stream computing.
    kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
        r = a * x + y;
    }
}

ctm_kernel! {
    // The Mandelbrot set: the escape time of z -> z^2 + c, scaled to [0, 1].
    const MAX_ITER: i32 = 64;

    kernel mandelbrot(center: vec2, scale: f32, r: Out<f32>) {
        let c = (index() - 0.5 * domain()) * scale + center;
        let mut z = vec2(0.0);
        let mut n = 0;
        for _k in 0..MAX_ITER {
            if dot(z, z) > 4.0 {
                break;
            }
            z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
            n += 1;
        }
        r = n as f32 / MAX_ITER as f32;
    }
}

ctm_kernel! {
    // A 3x3 convolution: each output is the weighted sum of the 3x3
    // neighbourhood of its input element (gathers clamp at the edges).
    kernel convolve3x3(w: [f32; 9], img: In<f32>, r: Out<f32>) {
        let p = index();
        let mut acc = 0.0;
        for dy in 0..3 {
            for dx in 0..3 {
                let offset = vec2((dx - 1) as f32, (dy - 1) as f32);
                acc += w[dy * 3 + dx] * img[p + offset];
            }
        }
        r = acc;
    }
}

ctm_kernel! {
    // The sum of all elements of a stream.
    reduce sum(a: f32, b: f32) -> f32 {
        a + b
    }
}

/// What `ctmc FILE --target T [--kernel K] -o OUT` writes, without its
/// `.ctm.source` section.
fn ctmc(file: &str, target: &str, kernel: Option<&str>) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.elf");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctmc"));
    cmd.arg(file).args(["--target", target, "-o"]).arg(&out);
    if let Some(k) = kernel {
        cmd.args(["--kernel", k]);
    }
    let status = cmd.output().unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // ctmc's file also carries the kernel's source (`.ctm.source`, for
    // `ctmc run FILE.elf --check`), which the macro, having only the
    // kernel's tokens, does not: read the file and write it again without
    // that section (the readers and writers round-trip byte for byte).
    let bytes = std::fs::read(&out).unwrap();
    ctm::Program::from_elf(&bytes)
        .and_then(|p| p.elf())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn the_macro_elf_is_ctmcs() {
    let cases: [(&str, Option<&[u8]>); 4] = [
        ("examples/saxpy.ck", saxpy::ELF_X1K),
        ("examples/mandelbrot.ck", mandelbrot::ELF_X1K),
        ("examples/convolution.ck", convolve3x3::ELF_X1K),
        ("examples/sum.ck", sum::ELF_X1K),
    ];
    for (file, elf) in cases {
        let elf = elf.unwrap_or_else(|| panic!("{file}: no x1k ELF"));
        assert!(
            ctmc(file, "x1k", None) == elf,
            "{file}: the ELF files differ"
        );
    }
}

#[test]
fn every_target_embeds_an_elf_or_a_reason() {
    // r700: whatever the target layer gives (today: not built yet); once
    // it compiles, the ELF must equal ctmc's too.
    let r700 = [
        (
            "examples/saxpy.ck",
            saxpy::ELF_R700,
            saxpy::UNAVAILABLE_R700,
        ),
        ("examples/sum.ck", sum::ELF_R700, sum::UNAVAILABLE_R700),
    ];
    for (file, elf, why) in r700 {
        match (elf, why) {
            (Some(elf), None) => assert!(ctmc(file, "r700", None) == elf, "{file}"),
            (None, Some(why)) => assert!(!why.is_empty()),
            other => panic!("{file}: {other:?}"),
        }
    }
}
