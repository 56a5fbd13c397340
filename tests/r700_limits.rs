//! Every R700 hardware limit the language meets, at the limit, one past it
//! and far past it (the model is `tests/x1k_limits.rs`): each run is
//! either correct (`--target r700 --simulate --check` against the
//! reference interpreter) or a diagnostic naming the kernel and the
//! limit; never a silent wrong result, never an internal error.
//!
//! Limits (spec §4, `docs/abi-r700.md`): 8 outputs (pixel exports), 16
//! input streams (resources), 256 float constants of uniforms, 128 GPRs,
//! the domain 8192×8192; loops have no trip cap on the R700
//! (`LOOP_START_DX10` with a runtime bound, issue 9), so large constant
//! and uniform trip counts must run exactly; deep `if` nesting uses the
//! CF stack (its depth goes into `STACK_SIZE`); long straight-line code
//! is split into clauses within the manual's size limits.

mod common;

use common::Work;

#[track_caller]
fn checks(src: &str, extra: &[&str]) {
    let w = Work::new();
    let file = w.file("k.ck", src);
    let mut args = vec![
        file.as_str(),
        "--target",
        "r700",
        "--simulate",
        "--check",
        "--domain",
        "4x2",
    ];
    args.extend_from_slice(extra);
    w.ctmc(&args).expect(0).stdout_has("check passed");
}

#[track_caller]
fn refused(src: &str, code: &str, limit: &str) {
    let w = Work::new();
    let file = w.file("k.ck", src);
    w.ctmc(&[file.as_str(), "--target", "r700", "--emit", "asm"])
        .expect(1)
        .stderr_has(&format!("error[{code}]"))
        .stderr_has("`k`")
        .stderr_has(limit);
}

fn outputs(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("o{i}: Out<f32>")).collect();
    let body: Vec<String> = (0..n).map(|i| format!("o{i} = x + {i}.0;")).collect();
    format!(
        "kernel k(x: In<f32>, {}) {{ {} }}\n",
        params.join(", "),
        body.join(" ")
    )
}

fn inputs(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("x{i}: In<f32>")).collect();
    let sum: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    format!(
        "kernel k({}, r: Out<f32>) {{ r = {}; }}\n",
        params.join(", "),
        sum.join(" + ")
    )
}

fn counted_loop(n: u32) -> String {
    format!(
        "kernel k(x: In<f32>, r: Out<f32>) {{\n    let mut acc = 0.0;\n    \
         for i in 0..{n} {{ acc = acc + x * 0.001; }}\n    r = acc;\n}}\n"
    )
}

#[test]
fn outputs_at_and_past_the_limit() {
    checks(&outputs(8), &[]);
    refused(&outputs(9), "CK0062", "8");
    refused(&outputs(40), "CK0062", "8");
}

#[test]
fn inputs_at_and_past_the_limit() {
    checks(&inputs(16), &[]);
    refused(&inputs(17), "CK0063", "16");
    refused(&inputs(40), "CK0063", "16");
}

#[test]
fn float_uniforms_at_and_past_the_limit() {
    checks(
        "kernel k(a: [vec4; 255], x: In<f32>, r: Out<f32>) { r = x + a[3].x + a[254].w; }\n",
        &[],
    );
    refused(
        "kernel k(a: [vec4; 256], b: vec4, x: In<f32>, r: Out<f32>) { r = x + a[3].x + b.y; }\n",
        "CK0064",
        "256",
    );
}

#[test]
fn many_literals_run_correctly() {
    // 2000 distinct literals: far past the 4 per group, split into groups
    // and clauses (manual §4.7 literal rules, clause size limits).
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let mut a = x;\n");
    for i in 0..2000 {
        s.push_str(&format!("    a = a * 0.5 + {}.25;\n", i + 3));
    }
    s.push_str("    r = a;\n}\n");
    checks(&s, &[]);
}

#[test]
fn register_pressure_runs_or_is_refused_by_name() {
    // 150 values live at once, then combined: more than fits in 128 GPRs
    // unless the allocator packs channels or rematerialises.
    let n = 150;
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n");
    for i in 0..n {
        s.push_str(&format!("    let v{i} = x * {i}.5 + {i}.0;\n"));
    }
    s.push_str("    let mut acc = 0.0;\n");
    for i in 0..n {
        s.push_str(&format!("    acc = acc + v{i} * v{};\n", (i * 7) % n));
    }
    s.push_str("    r = acc;\n}\n");
    checks(&s, &[]);
}

#[test]
fn loop_trip_counts_have_no_cap() {
    for n in [255, 256, 100_000] {
        checks(&counted_loop(n), &[]);
        checks(&counted_loop(n), &["-O0"]);
    }
    let src = "kernel k(n: i32, x: In<f32>, r: Out<f32>) {\n    let mut acc = 0.0;\n    \
               for i in 0..n { acc = acc + x; }\n    r = acc;\n}\n";
    for n in ["n=0", "n=255", "n=256", "n=100000"] {
        checks(src, &["--uniform", n]);
    }
}

#[test]
fn deep_if_nesting_runs() {
    for depth in [8, 40] {
        let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let mut a = 0.0;\n");
        for i in 0..depth {
            s.push_str(&format!("if x > {}.0 * 0.01 {{\n", i));
        }
        s.push_str("a = a + 1.0;\n");
        for _ in 0..depth {
            s.push_str("}\n");
        }
        s.push_str("    r = a;\n}\n");
        checks(&s, &[]);
    }
}

#[test]
fn deep_loop_nesting_runs_or_is_refused_by_name() {
    for depth in [4, 40] {
        let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let mut a = 0.0;\n");
        for i in 0..depth {
            s.push_str(&format!("for i{i} in 0..2 {{\n"));
        }
        s.push_str("a = a + x;\n");
        for _ in 0..depth {
            s.push_str("}\n");
        }
        s.push_str("    r = a;\n}\n");
        let w = Work::new();
        let file = w.file("k.ck", &s);
        let run = w.ctmc(&[&file, "--target", "r700", "--emit", "asm"]);
        if run.code == Some(0) {
            checks(&s, &[]);
        } else {
            run.expect(1).stderr_has("error[CK").stderr_has("`k`");
        }
    }
}

#[test]
fn domain_at_and_past_8192() {
    let w = Work::new();
    let file = w.file("k.ck", common::SAXPY);
    w.ctmc(&[
        &file,
        "--target",
        "r700",
        "--simulate",
        "--check",
        "--domain",
        "8192x1",
    ])
    .expect(0);
    for d in ["8193x1", "1x8193", "100000x1"] {
        w.ctmc(&[&file, "--target", "r700", "--simulate", "--domain", d])
            .expect(2)
            .stderr_has("8192");
    }
}

#[test]
fn reduction_input_at_and_past_8192() {
    // Issue 13: a reduction whose input exceeds the target's textures is
    // "cannot run on the target" (exit 2), never an internal error.
    let w = Work::new();
    let file = w.file("sum.ck", common::SUM);
    w.ctmc(&[
        &file,
        "--target",
        "r700",
        "--simulate",
        "--check",
        "--domain",
        "8192x1",
    ])
    .expect(0)
    .stdout_has("check passed");
    for d in ["8193x1", "1x8193", "100000x1"] {
        w.ctmc(&[&file, "--target", "r700", "--simulate", "--domain", d])
            .expect(2)
            .stderr_has("cannot run on the target")
            .stderr_has("8192");
    }
}
