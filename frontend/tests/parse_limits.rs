//! Hostile inputs: the parser never panics and never overflows the stack.
//! Deep inputs go through `ctm_frontend::compile`, which runs the front end
//! on a thread with a large stack (test threads have 2 MB).

mod parse_support;

use ctm_frontend::parser::{MAX_DEPTH, MAX_NESTING};
use ctm_frontend::{CheckOptions, Code, Compiled, Diagnostic, Target, compile, parser};
use parse_support::codes;

fn compiled(src: &str) -> Compiled {
    compile(
        src,
        &CheckOptions {
            target: Target::R700,
        },
    )
}

/// The diagnostics of `src` through `compile`, which must not have
/// panicked (a panic shows up as a single diagnostic with a default span).
fn diags(src: &str) -> Vec<Diagnostic> {
    let c = compiled(src);
    assert!(
        !c.diagnostics
            .iter()
            .any(|d| d.message == "the front end could not run on this input"),
        "the front end panicked or overflowed"
    );
    c.diagnostics
}

fn nesting_errors(src: &str) -> usize {
    diags(src)
        .iter()
        .filter(|d| d.code == Code::NestingTooDeep)
        .count()
}

#[test]
fn empty_file() {
    let (file, d) = parser::parse("");
    assert_eq!(file.map(|f| f.items.len()), Some(0));
    assert!(d.is_empty());
    assert!(diags("").is_empty());
}

#[test]
fn ten_thousand_nested_parentheses() {
    let src = format!(
        "const X: f32 = {}1.0{};",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let d = diags(&src);
    assert_eq!(codes(&d), vec![Code::NestingTooDeep]);
    assert_eq!(
        d[0].message,
        format!("nesting too deep: the limit is {MAX_NESTING} levels")
    );
    // The span is the first opener past the limit.
    assert_eq!(
        d[0].span.start as usize,
        "const X: f32 = ".len() + MAX_NESTING
    );
    assert!(d[0].help.is_some());
    assert!(compiled(&src).program.is_none());
    // Unbalanced too.
    assert_eq!(nesting_errors(&"(".repeat(10_000)), 1);
    assert_eq!(nesting_errors(&"{[(".repeat(5_000)), 1);
}

#[test]
fn nesting_bound_is_exact() {
    // 255 parentheses inside a call's: 256 brackets, accepted.
    let ok = format!(
        "const X: f32 = f({}1.0{});",
        "(".repeat(MAX_NESTING - 1),
        ")".repeat(MAX_NESTING - 1)
    );
    assert_eq!(nesting_errors(&ok), 0);
    let (file, d) = run_big(ok);
    assert!(d.is_empty() && file);
    let deep = format!(
        "const X: f32 = f({}1.0{});",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    assert_eq!(nesting_errors(&deep), 1);
}

/// Runs `parse` directly on a big-stack thread: (parsed to `Some`, diags).
fn run_big(src: String) -> (bool, Vec<Diagnostic>) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let (file, d) = parser::parse(&src);
            (file.is_some(), d)
        })
        .ok()
        .and_then(|h| h.join().ok())
        .unwrap_or((false, Vec::new()))
}

#[test]
fn hundred_thousand_term_chains() {
    let chain = vec!["a"; 100_000].join(" + ");
    let src = format!("const X: f32 = {chain};");
    let d = diags(&src);
    assert_eq!(codes(&d), vec![Code::NestingTooDeep]);
    // The first operator past the limit.
    let at = d[0].span.start as usize;
    assert_eq!(&src[at..at + 1], "+");
    assert_eq!(src[..at].matches('+').count(), MAX_DEPTH);
    for op in ["*", "||", "&&", "|", "<<"] {
        let chain = vec!["a"; 100_000].join(op);
        assert_eq!(
            nesting_errors(&format!("const X: f32 = {chain};")),
            1,
            "{op}"
        );
    }
    // Postfix and cast chains.
    assert_eq!(
        nesting_errors(&format!("const X: f32 = a{};", ".x".repeat(100_000))),
        1
    );
    assert_eq!(
        nesting_errors(&format!("const X: f32 = a{};", "[0]".repeat(100_000))),
        1
    );
    assert_eq!(
        nesting_errors(&format!("const X: f32 = a{};", " as f32".repeat(100_000))),
        1
    );
    // Comparisons do not chain at all.
    let cmp = vec!["a"; 100_000].join(" < ");
    assert_eq!(
        codes(&diags(&format!("const X: bool = {cmp};"))),
        vec![Code::ChainedComparison]
    );
}

#[test]
fn ten_thousand_else_ifs() {
    let mut src = String::from("fn f(x: f32) -> f32 { if x < 0.0 { 0.0 }");
    for i in 0..10_000 {
        src.push_str(&format!(" else if x < {i}.0 {{ {i}.0 }}"));
    }
    src.push_str(" else { 1.0 } }");
    assert_eq!(nesting_errors(&src), 1);
    // Just below the bound is fine.
    let mut ok = String::from("fn f(x: f32) -> f32 { if x < 0.0 { 0.0 }");
    for i in 0..400 {
        ok.push_str(&format!(" else if x < {i}.0 {{ {i}.0 }}"));
    }
    ok.push_str(" else { 1.0 } }");
    assert_eq!(nesting_errors(&ok), 0);
}

#[test]
fn ten_thousand_prefix_operators() {
    let d = diags(&format!("const X: f32 = {}1.0;", "-".repeat(10_000)));
    assert_eq!(codes(&d), vec![Code::NestingTooDeep]);
    assert_eq!(
        d[0].span.start as usize,
        "const X: f32 = ".len() + MAX_NESTING
    );
    assert_eq!(
        nesting_errors(&format!("const X: bool = {}a;", "!".repeat(10_000))),
        1
    );
    assert_eq!(
        nesting_errors(&format!("const X: f32 = {}1.0;", "- ".repeat(MAX_NESTING))),
        0
    );
}

#[test]
fn the_depth_bound_counts_every_level() {
    // Body block (1) + tail chain of n links (n + 1 levels).
    let at = |links: usize| {
        format!(
            "fn f(a: f32) -> f32 {{ {} }}",
            vec!["a"; links + 1].join(" + ")
        )
    };
    assert_eq!(nesting_errors(&at(MAX_DEPTH - 2)), 0);
    assert_eq!(nesting_errors(&at(MAX_DEPTH - 1)), 1);
    // Mixed nesting below the bracket bound but past the depth bound.
    let nested = format!(
        "fn f(a: f32) -> f32 {{ {} }}",
        std::iter::repeat_n("f(a + a * (a - ", 200).collect::<String>() + "a" + &"))".repeat(200)
    );
    assert_eq!(nesting_errors(&nested), 1);
}

#[test]
fn deep_generic_types() {
    let src = format!(
        "fn f(x: {}f32{}) {{}}",
        "In<".repeat(10_000),
        ">".repeat(10_000)
    );
    assert_eq!(nesting_errors(&src), 1);
    let src = format!(
        "fn f(x: {}f32{}) {{}}",
        "In<".repeat(10_000),
        ">>".repeat(5_000)
    );
    assert_eq!(nesting_errors(&src), 1);
}

#[test]
fn unterminated_comments_and_strings_of_junk() {
    assert_eq!(
        codes(&diags(&"/*".repeat(100_000))),
        vec![Code::UnterminatedComment]
    );
    // The comment swallows the `}`: the open `{` is not reported as well.
    assert_eq!(
        codes(&diags("kernel k() { /* */ /* /* */ }")),
        vec![Code::UnterminatedComment]
    );
    let d = diags(&"\"".repeat(10_001));
    assert!(d.iter().all(|d| d.code == Code::UnexpectedCharacter));
    let d = diags("fn f() { let s = \"never closed\n; }");
    assert!(d.iter().any(|d| d.code == Code::UnexpectedCharacter));
}

#[test]
fn binary_garbage() {
    // Every byte value as a character, in a scrambled order, many times.
    let garbage: String = (0..200_000u32)
        .map(|i| char::from_u32((i.wrapping_mul(2_654_435_761) >> 8) % 256).unwrap_or('?'))
        .collect();
    let d = diags(&garbage);
    assert!(!d.is_empty());
    // Arbitrary Unicode too.
    let unicode: String = (0..50_000u32)
        .filter_map(|i| char::from_u32(i.wrapping_mul(40_503) % 0x11_0000))
        .collect();
    assert!(!diags(&unicode).is_empty());
}

#[test]
fn valid_tokens_in_hostile_orders() {
    for src in [
        "fn fn fn fn",
        "kernel",
        "kernel k(",
        "kernel k(r: Out<",
        "{{{{ }}}}",
        ")))]]]}}}",
        "if else if else for in while loop break continue return discard",
        "let let = = ; ;",
        "const const: const = const;",
        "fn f() { a.b.c(d)(e)[f].g() }",
        "reduce r(a: f32, b: f32) -> f32 { a + }",
        "fn f() -> In<Out<Scatter<[[f32; 2]; 3]>>> { }",
        "fn f() { -!-!-!-x as as as f32 }",
        "fn f() { x += -= *= /= ; }",
        "fn f() { 1..2..3 }",
        ">> >>= << <<= -> .. . , ; :",
    ] {
        let _ = diags(src);
        let _ = parser::parse(src);
    }
}

#[test]
fn the_parser_stack_per_level_fits_the_front_end_thread() {
    // 256 levels of brackets, the deepest the parser accepts, parse fine
    // with the stack `compile` gives it (and the checker then has the
    // rest).
    let deepest = format!(
        "fn f() -> f32 {{ {}a{} }}",
        "(".repeat(MAX_NESTING - 1),
        ")".repeat(MAX_NESTING - 1)
    );
    assert_eq!(nesting_errors(&deepest), 0);
    let blocks = format!("fn f() {{ {}a{} }}", "{".repeat(200), "}".repeat(200));
    assert_eq!(nesting_errors(&blocks), 0);
}

/// Resident bytes of the memory mapping containing `addr`, from
/// `/proc/self/smaps` (Linux).
#[cfg(target_os = "linux")]
fn resident_bytes(addr: usize) -> Option<usize> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split_once(' ').and_then(|(r, _)| r.split_once('-'));
        if let Some((a, b)) = range
            && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
        {
            inside = a <= addr && addr < b;
            continue;
        }
        if inside && let Some(rest) = line.strip_prefix("Rss:") {
            let kb: usize = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            return Some(kb * 1024);
        }
    }
    None
}

/// The stack `parse` touches for `source`: measured on a fresh thread with
/// a 512 MB stack as the growth of that stack's resident pages.
#[cfg(target_os = "linux")]
fn stack_used(source: String) -> usize {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let marker = 0u8;
            let addr = std::ptr::addr_of!(marker) as usize;
            let before = resident_bytes(addr).unwrap_or(0);
            let (_, diags) = parser::parse(&source);
            assert!(diags.is_empty(), "{diags:?}");
            resident_bytes(addr)
                .unwrap_or(usize::MAX)
                .saturating_sub(before)
        })
        .ok()
        .and_then(|h| h.join().ok())
        .unwrap_or(usize::MAX)
}

/// Measures the stack one bracket level costs, and checks that the deepest
/// accepted nesting uses less than half of the 256 MB `compile` provides.
/// `cargo test -p ctm-frontend --test parse_limits stack -- --nocapture`
/// prints the numbers recorded in `docs/syntax.md`.
#[cfg(target_os = "linux")]
#[test]
fn stack_cost_per_nesting_level() {
    type Shape = (&'static str, fn(usize) -> String);
    let shapes: [Shape; 4] = [
        ("parens", |n| {
            format!("const X: f32 = {}a{};", "(".repeat(n), ")".repeat(n))
        }),
        ("calls", |n| {
            format!("const X: f32 = {}a{};", "f(".repeat(n), ")".repeat(n))
        }),
        ("blocks", |n| {
            format!("fn f() {}a{}", "{".repeat(n), "}".repeat(n))
        }),
        ("indexes", |n| {
            format!("const X: f32 = {}0{};", "a[".repeat(n), "]".repeat(n))
        }),
    ];
    for (name, make) in shapes {
        let small = stack_used(make(32));
        let large = stack_used(make(MAX_NESTING - 6));
        let per_level = large.saturating_sub(small) / (MAX_NESTING - 6 - 32);
        println!(
            "{name}: {small} B at 32 levels, {large} B at {} levels, ~{per_level} B/level",
            MAX_NESTING - 6
        );
        assert!(large < 128 << 20, "{name}: {large} bytes of stack");
    }
}
