//! Scaling regression tests (issue 13): the work of lowering, the whole
//! -O2 pass pipeline and the verifier, counted as node and edge visits by
//! the graph's primitives ([`ctm_ir::Module::work`]), grows near-linearly
//! with the size of the kernel: ten times the statements may cost at most
//! fifteen times the visits. Nothing is timed; a pass that rescans its
//! region per change, or a graph edit that walks a value's uses, makes the
//! ratio about 10× larger and fails here.

use ctm_frontend::{CheckOptions, Target, compile};
use ctm_ir::passes::{OptLevel, pipeline};

/// The work of lowering and optimising `src`'s only kernel at -O2.
fn work(src: &str) -> u64 {
    let p = compile(
        src,
        &CheckOptions {
            target: Target::Ref,
        },
    )
    .program
    .expect("checks");
    let m = ctm_ir::lower::lower_kernel(&p, &p.kernels[0]);
    let v = pipeline(m, OptLevel::O2, &ctm_ir::cost::DefaultCost).expect("optimises");
    v.module().work()
}

/// Asserts that the kernel `shape(10 n)` costs at most 15 times `shape(n)`.
fn near_linear(name: &str, shape: impl Fn(usize) -> String) {
    let (small, large) = (work(&shape(1_000)), work(&shape(10_000)));
    // Printed for docs/scaling.md (`-- --nocapture`).
    println!(
        "{name}: {small} visits at 1,000, {large} at 10,000 ({:.1}x)",
        large as f64 / small as f64
    );
    assert!(small > 1_000, "{name}: {small} visits for 1,000 statements");
    assert!(
        large <= 15 * small,
        "{name}: {large} visits for 10,000 statements, {small} for 1,000 ({:.1}x)",
        large as f64 / small as f64
    );
}

#[test]
fn chained_lets() {
    // The input: every statement uses the last one and `x`, which
    // ends with n users (MAD formation replaces each of them).
    near_linear("chained lets", |n| {
        let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let v0 = x;\n");
        for i in 1..=n {
            s.push_str(&format!(" let v{i} = v{} * 1.5 + x;\n", i - 1));
        }
        s + &format!(" r = v{n};\n}}\n")
    });
}

#[test]
fn common_subexpressions_and_dead_code() {
    // Every statement computes `x * 2.0` again (CSE merges n copies into
    // one with n users) and a value nobody reads (DCE removes n nodes).
    near_linear("cse and dce", |n| {
        let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let mut acc = 0.0;\n");
        for i in 0..n {
            s.push_str(&format!(
                " let d{i} = x * 3.0 + acc;\n acc = acc + x * 2.0;\n"
            ));
        }
        s + " r = acc;\n}\n"
    });
}

#[test]
fn sequential_ifs() {
    // One gamma per statement, each if-converted into selects.
    near_linear("sequential ifs", |n| {
        let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let mut acc = 0.0;\n");
        for i in 0..n {
            s.push_str(&format!(" if x > {i}.0 {{ acc = acc + 1.0; }}\n"));
        }
        s + " r = acc;\n}\n"
    });
}
