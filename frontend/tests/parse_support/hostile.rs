//! Large inputs for the parser: a megabyte of realistic kernels and a
//! megabyte of each kind of hostile text. Shared by the `parse_large` test
//! (which checks what the parser says about them) and the `frontend`
//! bench (which times it).
#![allow(dead_code)]

const KERNELS: &[&str] = &[
    include_str!("../parse_corpus/black_scholes.ck"),
    include_str!("../parse_corpus/mandelbrot.ck"),
    include_str!("../parse_corpus/convolution.ck"),
    include_str!("../parse_corpus/control.ck"),
    include_str!("../parse_corpus/hash.ck"),
    include_str!("../parse_corpus/swizzles.ck"),
];

/// Concatenates `piece(0)`, `piece(1)`, … until the text is 1 MB long.
pub fn megabyte_of(mut piece: impl FnMut(usize) -> String) -> String {
    let mut source = String::new();
    let mut i = 0;
    while source.len() < 1 << 20 {
        source.push_str(&piece(i));
        i += 1;
    }
    source
}

/// A megabyte of valid kernels (the corpus, renamed so names stay unique).
pub fn megabyte_of_kernels() -> String {
    megabyte_of(|i| KERNELS[i % KERNELS.len()].replace("kernel ", &format!("kernel k{i}_")) + "\n")
}

/// A megabyte of each kind of hostile input, named.
pub fn hostile_cases() -> Vec<(&'static str, String)> {
    vec![
        (
            "a long chain",
            format!("const X: f32 = {};", vec!["a"; 400_000].join("+")),
        ),
        (
            "syntax errors",
            megabyte_of(|i| format!("fn f{i}() {{ let x = 1 +; y = = 2; }}\n")),
        ),
        (
            "unclosed groups",
            megabyte_of(|_| "fn f() { g(1, [2, {3 ".to_string()),
        ),
        (
            "garbage",
            megabyte_of(|i| ["@#$", "é", "\"x", "1e", "..", "))"][i % 6].to_string()),
        ),
        (
            "stray items",
            megabyte_of(|i| ["fn ", "kernel ", "x ", "( ", "{ ", "; "][i % 6].to_string()),
        ),
    ]
}
