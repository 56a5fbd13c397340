//! Parsing speed: about 1 MB of realistic kernels, and 1 MB of hostile
//! input, parse in well under a second in release builds (and with no
//! blow-up in test builds). Run `cargo test --release -p ctm-frontend
//! --test parse_perf -- --nocapture` to see the numbers.

use std::time::{Duration, Instant};

const KERNELS: &[&str] = &[
    include_str!("parse_corpus/black_scholes.ck"),
    include_str!("parse_corpus/mandelbrot.ck"),
    include_str!("parse_corpus/convolution.ck"),
    include_str!("parse_corpus/control.ck"),
    include_str!("parse_corpus/hash.ck"),
    include_str!("parse_corpus/swizzles.ck"),
];

/// The bound: a second in release, generous in unoptimised test builds
/// (which only guard against super-linear behaviour).
fn bound() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(30)
    } else {
        Duration::from_secs(1)
    }
}

/// The best of three timed parses of `source` (on a big-stack thread, as
/// `compile` does), with the number of diagnostics.
fn time_parse(source: String) -> (Duration, usize) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut best = Duration::MAX;
            let mut count = 0;
            for _ in 0..3 {
                let start = Instant::now();
                let (_, diags) = ctm_frontend::parser::parse(&source);
                best = best.min(start.elapsed());
                count = diags.len();
            }
            (best, count)
        })
        .ok()
        .and_then(|h| h.join().ok())
        .unwrap_or((Duration::MAX, 0))
}

fn megabyte_of(mut piece: impl FnMut(usize) -> String) -> String {
    let mut source = String::new();
    let mut i = 0;
    while source.len() < 1 << 20 {
        source.push_str(&piece(i));
        i += 1;
    }
    source
}

#[test]
fn one_megabyte_of_kernels() {
    let source = megabyte_of(|i| {
        KERNELS[i % KERNELS.len()].replace("kernel ", &format!("kernel k{i}_")) + "\n"
    });
    let bytes = source.len();
    let (took, diags) = time_parse(source);
    println!(
        "{bytes} bytes of kernels: {:.1} ms",
        took.as_secs_f64() * 1e3
    );
    assert_eq!(diags, 0);
    assert!(took < bound(), "{took:?}");
}

#[test]
fn one_megabyte_of_hostile_input() {
    let cases: [(&str, String); 5] = [
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
    ];
    for (name, source) in cases {
        let bytes = source.len();
        let (took, diags) = time_parse(source);
        println!(
            "{bytes} bytes of {name}: {:.1} ms, {diags} diagnostics",
            took.as_secs_f64() * 1e3
        );
        assert!(took < bound() * 2, "{name}: {took:?}");
    }
}
