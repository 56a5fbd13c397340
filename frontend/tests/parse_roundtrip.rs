//! Round trips: for every program, `print(parse(print(parse(src))))` equals
//! `print(parse(src))`, and the two trees are equal without spans.

mod parse_support;

use ctm_frontend::{parser, print};
use parse_support::{check_round_trip, parse_ok};

/// The realistic kernels of `tests/parse_corpus/`.
const CORPUS: &[(&str, &str)] = &[
    ("saxpy", include_str!("parse_corpus/saxpy.ck")),
    ("mandelbrot", include_str!("parse_corpus/mandelbrot.ck")),
    (
        "black_scholes",
        include_str!("parse_corpus/black_scholes.ck"),
    ),
    ("convolution", include_str!("parse_corpus/convolution.ck")),
    ("reductions", include_str!("parse_corpus/reductions.ck")),
    ("swizzles", include_str!("parse_corpus/swizzles.ck")),
    ("scatter", include_str!("parse_corpus/scatter.ck")),
    ("uniforms", include_str!("parse_corpus/uniforms.ck")),
    ("hash", include_str!("parse_corpus/hash.ck")),
    ("control", include_str!("parse_corpus/control.ck")),
];

#[test]
fn corpus_round_trips() {
    for (name, src) in CORPUS {
        let printed = check_round_trip(src);
        assert!(!printed.is_empty(), "{name}");
    }
}

#[test]
fn corpus_is_realistic() {
    // Each feature the corpus is meant to cover is really in it.
    let all: String = CORPUS.iter().map(|(_, s)| *s).collect();
    for feature in [
        "for k in 0..MAX_ITER",
        "break;",
        "fn cnd(",
        "const RISKFREE",
        "img[index() + vec2(1.0, 0.0)]",
        "reduce sum(a: f32, b: f32) -> f32 { a + b }",
        "c.xyz = ",
        "let y = if lum > threshold { 1.0 } else { 0.0 };",
        "target[p] = v;",
        "discard;",
        "[vec4; 8]",
        "for k in 0..n",
        "n: i32",
        "0x9E3779B9",
        "h << 13",
        "h >> 17",
        "x ^ GOLDEN",
        "Scatter<f32>",
        "while ",
        "loop {",
        "continue;",
        "return x;",
    ] {
        assert!(all.contains(feature), "the corpus lacks {feature:?}");
    }
}

#[test]
fn printed_corpus_looks_normalized() {
    let printed = check_round_trip(CORPUS[0].1);
    assert_eq!(
        printed,
        "kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {\n    r = a * x + y;\n}\n"
    );
    let printed = check_round_trip(CORPUS[4].1);
    assert!(printed.starts_with("reduce sum(a: f32, b: f32) -> f32 {\n    a + b\n}\n\n"));
}

#[test]
fn tricky_programs_round_trip() {
    for src in [
        // Block-like statements, tails and their semicolons.
        "fn f() { if a { b(); } }",
        "fn f() { if a { b(); }; }",
        "fn f() -> f32 { if a { 1.0 } else { 2.0 } }",
        "fn f() { if a { 1.0 } else { 2.0 }; x = 1.0; }",
        "fn f() { { a(); } { b(); } }",
        "fn f() -> f32 { { 1.0 } }",
        "fn f() { let x = { 1.0 }; let y = { let z = 2.0; z }; }",
        // Block-like expressions as operands keep their parentheses.
        "fn f() { (if a { b } else { c }).x = 1.0; }",
        "fn f() { (if a { b } else { c }) + 1.0; }",
        "fn f() -> f32 { ({ a }) * 2.0 }",
        "fn f() { let x = -(if a { b } else { c }); }",
        "fn f() { let x = (if a { b } else { c }) as i32; }",
        "fn f() { let x = { a }[0]; }",
        // Conditions and loop bounds that are blocks or ifs.
        "fn f() { while { a } { } for i in { 0 }..if c { 1 } else { 2 } { } }",
        // Else-if chains.
        "fn f(x: f32) -> f32 { if x < 0.0 { 1.0 } else if x < 1.0 { 2.0 } else if x < 2.0 { 3.0 } else { 4.0 } }",
        "fn f() { if a { } else if b { } }",
        // Literals.
        "const A: f32 = 1e-7;",
        "const B: f32 = 3.4028235e38;",
        "const C: f32 = 1.17549435e-38;",
        "const D: f32 = 0.1 + 0.2 * 1e10;",
        "const E: i32 = 0xFFFF_FFFF;",
        "const F: i32 = 0b1010 | 0o17;",
        "const G: i32 = -2147483648;",
        "const H: f32 = 16777217.0;",
        // Unary chains and postfix on literals.
        "const I: f32 = - -1.0;",
        "const J: bool = !!true;",
        "const K: f32 = -1.0.x;",
        "const L: f32 = 1.x + 2.0.y;",
        // Types.
        "fn f(a: In<Out<f32>>, b: [[f32; 2]; 3], c: [vec4; N + 1]) -> () { }",
        // Assignment operators and places.
        "fn f() { a <<= 1; b >>= 2; c %= 3; d &= 4; e |= 5; f ^= 6; s[i].x += 1.0; }",
        // Jumps.
        "fn f() { loop { break; continue; } return; }",
        "kernel k() { discard; }",
        // Precedence that needs parentheses.
        "const M: f32 = (a - b) - (c - d) * (e + f) / -(g as f32);",
        "const N: bool = (a < b) == (c >= d) && !(e || f);",
        "const O: i32 = (a | b) & (c ^ d) << (e >> f);",
    ] {
        check_round_trip(src);
    }
}

#[test]
fn printing_is_idempotent_on_its_own_output() {
    for (_, src) in CORPUS {
        let once = print::print_file(&parse_ok(src));
        let twice = print::print_file(&parse_ok(&once));
        let thrice = print::print_file(&parse_ok(&twice));
        assert_eq!(once, twice);
        assert_eq!(twice, thrice);
    }
}

#[test]
fn floats_print_as_the_same_f32() {
    // Every f32 bit pattern in a sample reads back exactly.
    let mut src = String::new();
    let mut values = Vec::new();
    for i in 0..2000u32 {
        let bits = i.wrapping_mul(2_654_435_761) & 0x7F7F_FFFF;
        let x = f32::from_bits(bits);
        if x.is_finite() {
            values.push(x);
            src.push_str(&format!(
                "const C{i}: f32 = {};\n",
                ctm_frontend::value::FloatLit(x)
            ));
        }
    }
    let file = parse_ok(&src);
    let read: Vec<f32> = file
        .items
        .iter()
        .map(|item| match item {
            ctm_frontend::ast::Item::Const(c) => match c.value.kind {
                ctm_frontend::ast::ExprKind::Float(x) => x,
                ref other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(values.len(), read.len());
    for (a, b) in values.iter().zip(&read) {
        assert_eq!(a.to_bits(), b.to_bits(), "{a:?} read back as {b:?}");
    }
}

#[test]
fn dump_of_the_corpus_has_one_node_per_line() {
    for (name, src) in CORPUS {
        let (file, _) = parser::parse(src);
        let dump = print::dump_file(&file.expect("parses"), src);
        assert!(dump.starts_with("File\n"), "{name}");
        for line in dump.lines().skip(1) {
            assert!(line.starts_with("  "), "{name}: {line}");
            assert!(line.contains(" @"), "{name}: {line}");
        }
    }
}
