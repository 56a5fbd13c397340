//! The X1K's dot products round once (issue 13, `docs/fuzzing.md` §3):
//! DP2A/DP3/DP4 are "fused operations" (ctm-guide-x1k.txt, "X1K FP"), so
//! `dot(index(), vec2(0.1, -0.25))` at (5, 2) is `5 * 0.1f32 - 0.5`
//! = 7.45e-9 on the machine and 0 in the reference (which rounds the
//! product 0.5000000075 to 0.5 first); `sign` turns that into 1 against 0.
//! The three seeds of issue 13 were this class. `--check` accepts the
//! difference because the optimised IR matches the reference and the
//! machine matches that IR run with the X1K's arithmetic (fused MAD and
//! DP, reciprocal division: `docs/cli.md`, "--check"), and says so.

mod common;

use common::Work;

const KERNEL: &str =
    "kernel k(out0: Out<f32>) {\n    out0 = sign(dot(index(), vec2(0.1, -0.25)));\n}\n";

#[test]
fn check_names_a_fused_dot_discontinuity() {
    let w = Work::new();
    let src = w.file("fused_dot.ck", KERNEL);
    w.ctmc(&[&src, "--simulate", "--check", "--domain", "6x3"])
        .expect(0)
        .stdout_has("check passed")
        .stdout_has("differ from the reference only by the target's arithmetic");
    // The reference really differs there: the machine's value is not the
    // language's.
    let run = w.ctmc(&[
        &src,
        "--simulate",
        "--domain",
        "6x3",
        "--output",
        "out0=o.npy",
    ]);
    run.expect(0);
}

#[test]
fn without_the_discontinuity_the_fused_dot_passes_check() {
    // The same dot product, unrounded by `sign`, is within 1e-5.
    let w = Work::new();
    let src = w.file(
        "plain_dot.ck",
        "kernel k(out0: Out<f32>) {\n    out0 = dot(index(), vec2(0.1, -0.25));\n}\n",
    );
    w.ctmc(&[&src, "--simulate", "--check", "--domain", "6x3"])
        .expect(0)
        .stdout_has("check passed");
}
