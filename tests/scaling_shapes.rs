//! Kernels of every shape at large sizes through `ctmc` on both targets
//! (issue 13, "no blow-up at any size"): long straight-line code, wide
//! code (many independent terms), deep nests of loops and branches. Each
//! either compiles or stops with a named diagnostic (exit 1, a `CK` code
//! naming the kernel), never an internal error; the x1k refuses a program
//! that cannot fit its 512 slots before scheduling it. Nothing is timed
//! here: the growth of the work is bounded by `ir/tests/scaling.rs`, and
//! the times are in `docs/scaling.md`.

mod common;

use common::Work;

/// `n` chained `let`s, each using the previous one and `x`.
fn lets(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let v0 = x;\n");
    for i in 1..=n {
        s.push_str(&format!(" let v{i} = v{} * 1.5 + x;\n", i - 1));
    }
    s + &format!(" r = v{n};\n}}\n")
}

/// `n` independent products summed as a balanced tree.
fn tree(n: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n");
    let mut names: Vec<String> = (0..n)
        .map(|i| {
            s.push_str(&format!(" let t{i} = x * {i}.5;\n"));
            format!("t{i}")
        })
        .collect();
    let mut k = 0;
    while names.len() > 1 {
        let mut next = Vec::new();
        for pair in names.chunks(2) {
            if let [a, b] = pair {
                s.push_str(&format!(" let u{k} = {a} + {b};\n"));
                next.push(format!("u{k}"));
                k += 1;
            } else {
                next.push(pair[0].clone());
            }
        }
        names = next;
    }
    s + &format!(" r = {};\n}}\n", names[0])
}

/// `d` nested `for` loops of two trips around one accumulation.
fn loops(d: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let mut acc = 0.0;\n");
    for i in 0..d {
        s.push_str(&format!("for i{i} in 0..2 {{\n"));
    }
    s.push_str(" acc = acc + x;\n");
    s.push_str(&"}\n".repeat(d));
    s + " r = acc;\n}\n"
}

/// `d` nested `if`s, each counting.
fn ifs(d: usize) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n let mut acc = 0.0;\n");
    for i in 0..d {
        s.push_str(&format!("if x > {i}.0 {{\n acc = acc + 1.0;\n"));
    }
    s.push_str(&"}\n".repeat(d));
    s + " r = acc;\n}\n"
}

/// Compiles `src` for `target`: `Ok(())` or the refusal's stderr, after
/// checking that a refusal is a named diagnostic, not a crash or a bug.
#[track_caller]
fn compile(src: &str, target: &str) -> Result<(), String> {
    let w = Work::new();
    let f = w.file("k.ck", src);
    let run = w.ctmc(&[&f, "--target", target, "--emit", "asm", "-o", "-"]);
    if run.code == Some(0) {
        return Ok(());
    }
    run.expect(1).stderr_has("error[CK");
    assert!(!run.stderr.contains("bug"), "{}", run.stderr);
    Err(run.stderr.clone())
}

#[test]
fn long_straight_line_code() {
    // Past the x1k's 512 slots (CK0072; from 10k on the bound before
    // scheduling already says so); the r700 (no slot limit) compiles them.
    // 20k are past the front end's 100,000 expression nodes on both.
    for n in [1_000, 10_000] {
        let e = compile(&lets(n), "x1k").expect_err("x1k refuses");
        assert!(e.contains("error[CK0072]"), "{e}");
        assert!(e.contains("`k`") && e.contains("512"), "{e}");
        compile(&lets(n), "r700").expect("r700 compiles");
    }
    let e = compile(&lets(10_000), "x1k").expect_err("x1k refuses");
    assert!(e.contains("needs at least"), "{e}");
    for t in ["x1k", "r700"] {
        let e = compile(&lets(20_000), t).expect_err("too many nodes");
        assert!(e.contains("error[CK0054]") && e.contains("100000"), "{e}");
    }
}

#[test]
fn wide_code() {
    // Independent products summed as a tree: 1k compiles on both (on the
    // x1k in 508 slots: two products summed are one D2A, `dot2.rs`, which
    // keeps it inside the 128 registers it ran out of before; the register
    // limit has its own test, `x1k_limits.rs`); 10k runs out of x1k
    // constants (CK0064) and r700 registers (CK0071).
    compile(&tree(1_000), "x1k").expect("x1k compiles");
    compile(&tree(1_000), "r700").expect("r700 compiles");
    let e = compile(&tree(10_000), "x1k").expect_err("refused");
    assert!(e.contains("error[CK0064]"), "{e}");
    let e = compile(&tree(10_000), "r700").expect_err("refused");
    assert!(e.contains("error[CK0071]"), "{e}");
}

#[test]
fn deep_loop_nests() {
    // The x1k nests 4 loops (CK0073 past that once unrolling is done);
    // the r700 runs out of registers for 64 levels of loop state; 257
    // levels pass the front end's nesting limit on both.
    compile(&loops(4), "x1k").expect("4 loops fit the x1k");
    compile(&loops(4), "r700").expect("4 loops fit the r700");
    let e = compile(&loops(64), "x1k").expect_err("too deep");
    assert!(e.contains("error[CK0073]"), "{e}");
    let e = compile(&loops(64), "r700").expect_err("too many registers");
    assert!(e.contains("error[CK0071]"), "{e}");
    for t in ["x1k", "r700"] {
        let e = compile(&loops(300), t).expect_err("nesting limit");
        assert!(e.contains("error[CK0008]"), "{e}");
    }
}

#[test]
fn deep_if_nests() {
    // If-conversion flattens these, so 200 levels compile; 300 pass the
    // front end's nesting limit.
    for t in ["x1k", "r700"] {
        compile(&ifs(200), t).expect("if-converted");
        let e = compile(&ifs(300), t).expect_err("nesting limit");
        assert!(e.contains("error[CK0008]"), "{e}");
    }
}

#[test]
fn many_parameters() {
    // Far past the limits on inputs (16), outputs (4 / 8) and float
    // constants (256): named, from the front end (whose parameter lookups
    // were quadratic: 100,000 inputs took 45 s to reach CK0063).
    let inputs: Vec<String> = (0..100_000).map(|i| format!("x{i}: In<f32>")).collect();
    let src = format!(
        "kernel k({}, r: Out<f32>) {{ r = x7; }}\n",
        inputs.join(", ")
    );
    let outputs: Vec<String> = (0..10_000).map(|i| format!("o{i}: Out<f32>")).collect();
    let writes: Vec<String> = (0..10_000).map(|i| format!("o{i} = x;")).collect();
    let outs = format!(
        "kernel k(x: In<f32>, {}) {{ {} }}\n",
        outputs.join(", "),
        writes.join(" ")
    );
    let uniforms: Vec<String> = (0..10_000).map(|i| format!("u{i}: f32")).collect();
    let sum: Vec<String> = (0..10_000).map(|i| format!(" a = a + u{i};")).collect();
    let unis = format!(
        "kernel k(x: In<f32>, {}, r: Out<f32>) {{ let mut a = x;{} r = a; }}\n",
        uniforms.join(", "),
        sum.join("")
    );
    for t in ["x1k", "r700"] {
        let e = compile(&src, t).expect_err("inputs");
        assert!(e.contains("error[CK0063]") && e.contains("16"), "{e}");
        let e = compile(&outs, t).expect_err("outputs");
        assert!(e.contains("error[CK0062]"), "{e}");
        let e = compile(&unis, t).expect_err("uniforms");
        assert!(e.contains("error[CK0064]") && e.contains("256"), "{e}");
    }
}
