//! Every X1K hardware limit at the limit, one past it and far past it
//! (issue 13): each run is either correct (`--simulate --check` against the
//! reference interpreter) or a diagnostic naming the kernel and the limit;
//! never a silent wrong result, never an internal error.

mod common;

use common::Work;

/// Compiles `src` for x1k, simulates it on a small domain and checks it
/// against the reference interpreter; `extra` adds options.
#[track_caller]
fn checks(src: &str, extra: &[&str]) {
    let w = Work::new();
    let file = w.file("k.ck", src);
    let mut args = vec![file.as_str(), "--simulate", "--check", "--domain", "4x2"];
    args.extend_from_slice(extra);
    w.ctmc(&args).expect(0).stdout_has("check passed");
}

/// Compiles `src` for x1k: it must fail with `code`, naming the kernel and
/// mentioning `limit`.
#[track_caller]
fn refused(src: &str, code: &str, limit: &str) {
    let w = Work::new();
    let file = w.file("k.ck", src);
    w.ctmc(&[file.as_str(), "--emit", "asm"])
        .expect(1)
        .stderr_has(&format!("error[{code}]"))
        .stderr_has("`k`")
        .stderr_has(limit);
}

/// A `for` loop of `n` trips accumulating `x * 0.001`.
fn counted_loop(n: u32) -> String {
    format!(
        "kernel k(x: In<f32>, r: Out<f32>) {{\n    let mut acc = 0.0;\n    \
         for i in 0..{n} {{ acc = acc + x * 0.001; }}\n    r = acc;\n}}\n"
    )
}

#[test]
fn constant_loop_counts_run_exactly() {
    // One REP (255), two levels (256, 300, 1000, 65025), three (65026).
    for n in [255, 256, 300, 1000, 65025, 65026] {
        checks(&counted_loop(n), &["-O0"]);
        checks(&counted_loop(n), &[]);
    }
}

#[test]
fn constant_loop_count_of_1000_gives_the_full_sum() {
    // The reproducer: 0.255·x before the fix.
    let w = Work::new();
    let file = w.file("k.ck", counted_loop(1000));
    let out = w
        .ctmc(&[
            &file,
            "--simulate",
            "--input",
            "x=const:1",
            "--domain",
            "1x1",
        ])
        .expect(0)
        .stdout
        .clone();
    assert!(out.contains("1.0000") || out.contains("0.9999"), "{out}");
}

#[test]
fn loop_with_break_and_counter_past_255() {
    let src = "kernel k(x: In<f32>, r: Out<f32>) {\n    let mut acc = 0.0;\n    \
               for i in 0..600 {\n        if i as f32 > x * 500.0 { break; }\n        \
               acc = acc + 1.0 + (i as f32) * 0.001;\n    }\n    r = acc;\n}\n";
    checks(src, &["-O0"]);
    checks(src, &[]);
}

#[test]
fn loop_past_255_cubed_is_refused() {
    refused(&counted_loop(16_581_376), "CK0074", "16581375");
    refused(&counted_loop(2_000_000_000), "CK0074", "16581375");
}

#[test]
fn uniform_loop_bound_past_255_is_refused_at_launch() {
    let src = "kernel k(n: i32, x: In<f32>, r: Out<f32>) {\n    let mut acc = 0.0;\n    \
               for i in 0..n { acc = acc + x; }\n    r = acc;\n}\n";
    checks(src, &["--uniform", "n=255"]);
    let w = Work::new();
    let file = w.file("k.ck", src);
    for n in ["n=256", "n=100000"] {
        w.ctmc(&[&file, "--simulate", "--uniform", n, "--domain", "2x2"])
            .expect(2)
            .stderr_has("a loop of `k`")
            .stderr_has("0..255");
    }
}

/// A kernel with `n` outputs.
fn outputs(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("o{i}: Out<f32>")).collect();
    let body: Vec<String> = (0..n).map(|i| format!("o{i} = x + {i}.0;")).collect();
    format!(
        "kernel k(x: In<f32>, {}) {{ {} }}\n",
        params.join(", "),
        body.join(" ")
    )
}

#[test]
fn outputs_at_and_past_the_limit() {
    checks(&outputs(4), &[]);
    refused(&outputs(5), "CK0062", "4");
    refused(&outputs(40), "CK0062", "4");
}

/// A kernel with `n` inputs.
fn inputs(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("x{i}: In<f32>")).collect();
    let sum: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    format!(
        "kernel k({}, r: Out<f32>) {{ r = {}; }}\n",
        params.join(", "),
        sum.join(" + ")
    )
}

#[test]
fn inputs_at_and_past_the_limit() {
    checks(&inputs(16), &[]);
    refused(&inputs(17), "CK0063", "16");
    refused(&inputs(64), "CK0063", "16");
}

/// A kernel with `n` distinct float constants.
fn constants(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let mut a = x;\n");
    for i in 0..n {
        s.push_str(&format!("    a = a * x + {}.25;\n", i + 3));
    }
    s.push_str("    r = a;\n}\n");
    s
}

#[test]
fn float_uniforms_at_and_past_the_limit() {
    // 256 float constants (spec §4): uniform arrays fill them.
    let ok = "kernel k(a: [vec4; 255], x: In<f32>, r: Out<f32>) { r = x + a[3].x; }\n";
    checks(ok, &[]);
    let over =
        "kernel k(a: [vec4; 256], b: vec4, x: In<f32>, r: Out<f32>) { r = x + a[3].x + b.y; }\n";
    let w = Work::new();
    let file = w.file("k.ck", over);
    w.ctmc(&[&file, "--emit", "asm"])
        .expect(1)
        .stderr_has("error[CK0064]")
        .stderr_has("256");
    // Far past: literals alone.
    let w = Work::new();
    let file = w.file("k.ck", constants(2000));
    let run = w.ctmc(&[&file, "--emit", "asm"]);
    run.expect(1);
    assert!(
        run.stderr.contains("error[CK0064]") || run.stderr.contains("error[CK0072]"),
        "{run:#?}"
    );
}

/// A straight-line chain of `n` dependent operations that cannot fold.
fn chain(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let v0 = x;\n");
    for i in 1..=n {
        s.push_str(&format!("    let v{i} = sin(v{}) * 1.5;\n", i - 1));
    }
    s.push_str(&format!("    r = v{n};\n}}\n"));
    s
}

#[test]
fn instruction_slots_past_the_limit() {
    checks(&chain(100), &[]);
    refused(&chain(600), "CK0072", "512");
    refused(&chain(4_000), "CK0072", "512");
}

/// `depth` nested loops.
fn nested_loops(depth: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let mut acc = 0.0;\n");
    for d in 0..depth {
        s.push_str(&format!("    for i{d} in 0..2 {{\n"));
    }
    s.push_str("    acc = acc + x;\n");
    for _ in 0..depth {
        s.push_str("    }\n");
    }
    s.push_str("    r = acc;\n}\n");
    s
}

#[test]
fn loop_nesting_at_and_past_the_limit() {
    // Unrolled at -O2; at -O0 every loop stays.
    checks(&nested_loops(4), &["-O0"]);
    let w = Work::new();
    for depth in [5, 12] {
        let file = w.file("k.ck", nested_loops(depth));
        w.ctmc(&[&file, "--emit", "asm", "-O0"])
            .expect(1)
            .stderr_has("error[CK0073]")
            .stderr_has("`k`")
            .stderr_has("4 loops");
    }
    // A split loop (over 255 trips) counts its levels.
    let w = Work::new();
    let src = "kernel k(x: In<f32>, r: Out<f32>) {\n    let mut acc = 0.0;\n    \
               for a in 0..2 { for b in 0..2 { for c in 0..2 { for d in 0..300 { acc = acc + x; } } } }\n    \
               r = acc;\n}\n";
    let file = w.file("k.ck", src);
    w.ctmc(&[&file, "--emit", "asm", "-O0"])
        .expect(1)
        .stderr_has("error[CK0073]");
}

/// `n` vec4 gathers, all live until one final sum.
fn live_registers(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<vec4>, r: Out<vec4>) {\n");
    for i in 0..n {
        s.push_str(&format!("    let g{i} = x[index() + vec2({i}.0, 0.0)];\n"));
    }
    let sum: Vec<String> = (0..n).map(|i| format!("g{i} * {i}.5")).collect();
    s.push_str(&format!("    r = {};\n}}\n", sum.join(" + ")));
    s
}

#[test]
fn temporary_registers_past_the_limit() {
    checks(&live_registers(100), &[]);
    refused(&live_registers(140), "CK0071", "128");
    refused(&live_registers(400), "CK0071", "128");
}

/// `n` bool uniforms, each deciding an `if`.
fn bool_uniforms(n: usize) -> String {
    let params: Vec<String> = (0..n).map(|i| format!("b{i}: bool")).collect();
    let body: Vec<String> = (0..n)
        .map(|i| format!("if b{i} {{ a = a + {i}.0; }}"))
        .collect();
    format!(
        "kernel k({}, x: In<f32>, r: Out<f32>) {{ let mut a = x; {} r = a; }}\n",
        params.join(", "),
        body.join(" ")
    )
}

#[test]
fn bool_constants_at_and_past_the_limit() {
    checks(&bool_uniforms(32), &[]);
    refused(&bool_uniforms(33), "CK0066", "32");
    refused(&bool_uniforms(100), "CK0066", "32");
}

/// `n` loops in sequence with distinct trip counts (one integer constant
/// each at -O0).
fn sequential_loops(n: usize) -> String {
    let body: Vec<String> = (0..n)
        .map(|i| format!("for i{i} in 0..{} {{ a = a + x; }}", i + 2))
        .collect();
    format!(
        "kernel k(x: In<f32>, r: Out<f32>) {{ let mut a = x; {} r = a; }}\n",
        body.join(" ")
    )
}

#[test]
fn integer_constants_at_and_past_the_limit() {
    checks(&sequential_loops(32), &["-O0"]);
    let w = Work::new();
    for n in [33, 100] {
        let file = w.file("k.ck", sequential_loops(n));
        w.ctmc(&[&file, "--emit", "asm", "-O0"])
            .expect(1)
            .stderr_has("error[CK0065]")
            .stderr_has("`k`")
            .stderr_has("32");
    }
}

#[test]
fn uniform_array_length_at_and_past_the_limit() {
    let array = |n: usize| {
        format!("kernel k(a: [f32; {n}], x: In<f32>, r: Out<f32>) {{ r = x + a[1]; }}\n")
    };
    checks(&array(256), &[]);
    for n in [257, 100_000] {
        let w = Work::new();
        let file = w.file("k.ck", array(n));
        w.ctmc(&[&file, "--emit", "asm"])
            .expect(1)
            .stderr_has("error[CK0041]");
    }
}
