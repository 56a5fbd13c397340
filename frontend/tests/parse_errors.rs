//! Syntax diagnostics and error recovery: every parser error code, rustc-like
//! messages, exact spans, several independent errors per run, and no
//! cascades.

mod parse_support;

use ctm_frontend::ast::*;
use ctm_frontend::{Code, Diagnostic, parser, print};
use parse_support::{codes, render, text_at};

/// Parses `src` and returns the file, the diagnostics, and for each
/// diagnostic its code and the text under its primary span.
fn run(src: &str) -> (Option<File>, Vec<Diagnostic>, Vec<(Code, String)>) {
    let (file, diags) = parser::parse(src);
    let summary = diags
        .iter()
        .map(|d| (d.code, text_at(src, d).to_string()))
        .collect();
    (file, diags, summary)
}

fn summary(src: &str) -> Vec<(Code, String)> {
    run(src).2
}

fn pair(code: Code, text: &str) -> (Code, String) {
    (code, text.to_string())
}

/// The printed form of whatever was recovered.
fn recovered(src: &str) -> String {
    print::print_file(&parser::parse(src).0.expect("a recovered file"))
}

#[test]
fn three_independent_mistakes_give_three_diagnostics() {
    let src = "\
kernel k(x: In<f32>, r: Out<f32>) {
    let a = x @ 2.0;
    let b = a < x < 1.0;
    r = b.abs();
}
";
    let (file, diags, got) = run(src);
    assert_eq!(
        got,
        vec![
            pair(Code::UnexpectedCharacter, "@"),
            pair(Code::ChainedComparison, "<"),
            pair(Code::SyntaxError, "abs"),
        ],
        "{}",
        render(&diags, src)
    );
    // The second `<` is the primary span, not the first.
    assert_eq!(
        diags[1].span.start as usize,
        src.find("x < 1.0").unwrap_or(0) + 2
    );
    // All three statements survive, so the checker can see `a`, `b` and `r`.
    let Some(Item::Kernel(k)) = file.and_then(|f| f.items.into_iter().next()) else {
        panic!()
    };
    assert_eq!(k.body.stmts.len(), 3);
}

#[test]
fn three_mistakes_in_three_items() {
    let src = "\
const A: f32 = 1.0 +;
fn f(x: f32) -> f32 { x * }
kernel k(r: Out<f32>) { r = A 2.0; }
";
    let (file, diags, got) = run(src);
    assert_eq!(
        got,
        vec![
            pair(Code::SyntaxError, ";"),
            pair(Code::SyntaxError, "}"),
            pair(Code::SyntaxError, "2.0"),
        ],
        "{}",
        render(&diags, src)
    );
    assert_eq!(diags[0].message, "expected expression, found `;`");
    assert_eq!(file.map(|f| f.items.len()), Some(3));
}

#[test]
fn missing_semicolon_before_a_statement() {
    let src = "fn f() {\n    let x = 1.0\n    let y = x;\n}";
    let (file, diags, got) = run(src);
    assert_eq!(got, vec![pair(Code::SyntaxError, "let")]);
    assert_eq!(diags[0].message, "expected `;`, found `let`");
    assert!(!diags[0].label.is_empty());
    assert!(diags[0].help.is_some());
    // A secondary label points at where the `;` belongs.
    let (at, label) = &diags[0].secondary[0];
    assert_eq!(&src[at.range()], "1.0");
    assert_eq!(label, "add `;` after this");
    // Both statements are kept.
    let Some(Item::Fn(f)) = file.and_then(|f| f.items.into_iter().next()) else {
        panic!()
    };
    assert_eq!(f.body.stmts.len(), 2);

    let src = "fn f() {\n    x = 1.0\n    let y = x;\n}";
    let (_, diags, _) = run(src);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "expected one of `;`, `}`, found `let`");
}

#[test]
fn missing_semicolon_before_a_new_line() {
    let src = "fn f() {\n    x = 1.0\n    y = 2.0;\n}";
    let (_, diags, got) = run(src);
    assert_eq!(got, vec![pair(Code::SyntaxError, "y")]);
    assert_eq!(diags[0].message, "expected one of `;`, `}`, found `y`");
    assert_eq!(recovered(src), "fn f() {\n    x = 1.0;\n    y = 2.0;\n}\n");
}

#[test]
fn assignment_where_a_comparison_belongs() {
    let (_, diags, got) = run("fn f() { if r = 1.0 { } }");
    assert_eq!(got, vec![pair(Code::SyntaxError, "=")]);
    assert!(diags[0].help.as_deref().unwrap_or("").contains("`==`"));
}

#[test]
fn junk_in_a_statement_is_reported_once_and_the_statement_kept() {
    let src = "fn f() { let z = 1.0 2.0 3.0; let w = z; }";
    let (_, diags, got) = run(src);
    assert_eq!(
        got,
        vec![pair(Code::SyntaxError, "2.0")],
        "{}",
        render(&diags, src)
    );
    assert_eq!(
        diags[0].message,
        "expected one of `(`, `.`, `;`, `[`, `as`, an operator, found `2.0`"
    );
    assert_eq!(
        recovered(src),
        "fn f() {\n    let z = 1.0;\n    let w = z;\n}\n"
    );
}

#[test]
fn a_missing_operand_keeps_the_let() {
    let src = "fn f() { let x = 1.0 +; let y = x; }";
    let (_, diags, got) = run(src);
    assert_eq!(got, vec![pair(Code::SyntaxError, ";")]);
    assert_eq!(diags[0].message, "expected expression, found `;`");
    assert_eq!(
        recovered(src),
        "fn f() {\n    let x = 1.0 + <error>;\n    let y = x;\n}\n"
    );
    let src = "fn f() { let x = ; }";
    assert_eq!(summary(src), vec![pair(Code::SyntaxError, ";")]);
    assert_eq!(recovered(src), "fn f() {\n    let x = <error>;\n}\n");
    // The missing operand is an empty span right after what precedes it.
    let (file, _) = parser::parse("const X: f32 = 1.0 + ;");
    let Some(Item::Const(c)) = file.and_then(|f| f.items.into_iter().next()) else {
        panic!()
    };
    let ExprKind::Binary { rhs, .. } = &c.value.kind else {
        panic!()
    };
    assert_eq!((rhs.span.start, rhs.span.end), (20, 20));
    assert_eq!((c.value.span.start, c.value.span.end), (15, 20));
}

#[test]
fn broken_statements_are_skipped_to_their_semicolon() {
    let src = "fn f() { else { a = 1.0; } = 3; let ok = 1.0; }";
    let (_, diags, got) = run(src);
    assert_eq!(
        got,
        vec![pair(Code::SyntaxError, "else")],
        "{}",
        render(&diags, src)
    );
    assert!(diags[0].help.as_deref().unwrap_or("").contains("`else`"));
    assert!(recovered(src).contains("let ok = 1.0;"));
}

#[test]
fn errors_inside_parentheses_recover_there() {
    let src =
        "fn f() { let a = (1.0 + * 2.0) * 3.0; let b = g(1.0, , 2.0); let c = a[]; let d = 4.0; }";
    let (_, diags, got) = run(src);
    assert_eq!(
        got,
        vec![
            pair(Code::SyntaxError, "*"),
            pair(Code::SyntaxError, ","),
            pair(Code::SyntaxError, "]"),
        ],
        "{}",
        render(&diags, src)
    );
    let printed = recovered(src);
    assert!(printed.contains("let a = <error> * 3.0;"), "{printed}");
    assert!(printed.contains("let b = <error>;"), "{printed}");
    assert!(printed.contains("let c = a[<error>];"), "{printed}");
    assert!(printed.contains("let d = 4.0;"), "{printed}");
}

#[test]
fn broken_items_are_skipped_to_the_next_item() {
    let src = "blah blah;\nkernel k(r: Out<f32>) { r = 1.0; }\nfn (x) {}\nconst C: f32 = 2.0;";
    let (file, diags, got) = run(src);
    assert_eq!(
        got,
        vec![
            pair(Code::SyntaxError, "blah"),
            pair(Code::SyntaxError, "(")
        ],
        "{}",
        render(&diags, src)
    );
    assert_eq!(diags[0].message, "expected item, found `blah`");
    assert!(diags[0].help.is_some());
    let names: Vec<String> = file
        .map(|f| f.items.iter().map(|i| i.name().name.clone()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["k", "C"]);
}

#[test]
fn parameter_errors_keep_the_other_parameters() {
    for (src, bad) in [
        ("kernel k(a: f32 r: Out<f32>) { r = a; }", "r"),
        ("kernel k(a: f32, 3, r: Out<f32>) { r = a; }", "3"),
        ("kernel k(a, r: Out<f32>) { r = a; }", ","),
    ] {
        let (file, diags, got) = run(src);
        assert_eq!(
            got,
            vec![pair(Code::SyntaxError, bad)],
            "{}",
            render(&diags, src)
        );
        let Some(Item::Kernel(k)) = file.and_then(|f| f.items.into_iter().next()) else {
            panic!()
        };
        let names: Vec<&str> = k.params.iter().map(|p| p.name.name.as_str()).collect();
        assert!(names.contains(&"r"), "{src}: {names:?}");
    }
}

#[test]
fn keyword_as_name_and_bad_swizzle_get_help() {
    let (_, diags, _) = run("fn f() { let in = 1.0; }");
    assert_eq!(codes(&diags), vec![Code::SyntaxError]);
    assert_eq!(
        diags[0].help.as_deref(),
        Some("`in` is a keyword and cannot be used as a name")
    );
    let (_, diags, got) = run("fn f() { let x = v.0; }");
    assert_eq!(got, vec![pair(Code::SyntaxError, "0")]);
    assert!(diags[0].help.as_deref().unwrap_or("").contains("`.xy`"));
    let (_, diags, _) = run("fn f() { for i in 0..=4 { } }");
    assert_eq!(codes(&diags), vec![Code::SyntaxError]);
    assert!(diags[0].help.as_deref().unwrap_or("").contains("..="));
}

#[test]
fn method_calls_suggest_the_function() {
    for (src, help) in [
        ("x.abs()", "write `abs(x)`"),
        ("v.clamp(0.0, 1.0)", "write `clamp(v, 0.0, 1.0)`"),
        ("(a + b).dot(n)", "write `dot(a + b, n)`"),
    ] {
        let text = format!("const X: f32 = {src};");
        let (file, diags, got) = run(&text);
        let name = src
            .split('.')
            .nth(1)
            .and_then(|s| s.split('(').next())
            .unwrap_or("");
        assert_eq!(got, vec![pair(Code::SyntaxError, name)], "{src}");
        assert_eq!(diags[0].help.as_deref(), Some(help));
        let Some(Item::Const(c)) = file.and_then(|f| f.items.into_iter().next()) else {
            panic!()
        };
        assert_eq!(c.value.kind, ExprKind::Error);
    }
    // `-2.0.abs()`: still one error.
    assert_eq!(
        summary("const X: f32 = -2.0.abs();"),
        vec![pair(Code::SyntaxError, "abs")]
    );
    // Calling something that is not a name.
    assert_eq!(
        summary("const X: f32 = (f)(x);"),
        vec![pair(Code::SyntaxError, "(x)")]
    );
}

#[test]
fn item_level_mistakes_keep_the_item() {
    let (file, diags, got) = run("kernel k(r: Out<f32>) -> f32 { r = 1.0; }");
    assert_eq!(got, vec![pair(Code::SyntaxError, "f32")]);
    assert_eq!(diags[0].message, "kernels do not return a value");
    assert!(matches!(file.map(|f| f.items), Some(items) if items.len() == 1));

    let (file, diags, got) = run("reduce s(a: f32, b: f32) { a + b }");
    assert_eq!(got, vec![pair(Code::SyntaxError, "s")]);
    assert!(diags[0].help.as_deref().unwrap_or("").contains("-> f32"));
    let Some(Item::Reduce(r)) = file.and_then(|f| f.items.into_iter().next()) else {
        panic!()
    };
    assert_eq!(r.ret.kind, TypeExprKind::Error);

    let (file, _, got) = run("const X = 1.0;");
    assert_eq!(got, vec![pair(Code::SyntaxError, "X")]);
    assert!(file.is_some());
}

#[test]
fn generic_angle_brackets() {
    let (_, diags, got) = run("kernel k(x: In<f32, r: Out<f32>) { }");
    assert_eq!(
        codes(&diags),
        vec![Code::SyntaxError],
        "{}",
        render(&diags, "x")
    );
    assert_eq!(got[0].1, "In");
    assert_eq!(
        summary("kernel k(r: Out<In<f32>>>) { }"),
        vec![pair(Code::SyntaxError, ">>>")]
    );
}

#[test]
fn unclosed_delimiter_at_end_of_file() {
    let src = "kernel k(r: Out<f32>) {\n    if x {\n        r = 1.0;\n";
    let (file, diags, _) = run(src);
    assert_eq!(
        codes(&diags),
        vec![Code::UnclosedDelimiter],
        "{}",
        render(&diags, src)
    );
    let d = &diags[0];
    assert_eq!(d.span.start as usize, src.len());
    assert_eq!(d.message, "unclosed delimiter `{`");
    let openers: Vec<usize> = d.secondary.iter().map(|(s, _)| s.start as usize).collect();
    assert_eq!(
        openers,
        vec![
            src.find("    if x {").unwrap_or(0) + 9,
            src.find('{').unwrap_or(0)
        ]
    );
    assert!(d.secondary.iter().all(|(_, l)| l == "unclosed delimiter"));
    assert!(file.is_some());
}

#[test]
fn unclosed_paren_inside_a_block() {
    let src = "fn f() { let x = (1.0 + 2.0; let y = 3.0; }";
    let (_, diags, got) = run(src);
    // One diagnostic: the syntax errors inside the unclosed group follow
    // from it and are not reported.
    assert_eq!(
        got,
        vec![pair(Code::UnclosedDelimiter, "}")],
        "{}",
        render(&diags, src)
    );
    assert_eq!(
        diags[0].secondary[0].0.start as usize,
        src.find("(1.0").unwrap_or(0)
    );
}

#[test]
fn mismatched_and_unexpected_closers() {
    let src = "fn f() { let x = (1.0 + 2.0]; let y = x; }";
    let (_, diags, got) = run(src);
    assert_eq!(got, vec![pair(Code::UnclosedDelimiter, "]")]);
    assert_eq!(diags[0].message, "mismatched closing delimiter `]`");
    assert_eq!(diags[0].secondary.len(), 1);
    // The `]` stood for `)`, so the rest parsed normally.
    assert!(recovered(src).contains("let x = 1.0 + 2.0;"));

    let src = "fn f() { let x = 1.0); let y = x; }";
    let (_, diags, got) = run(src);
    assert_eq!(got, vec![pair(Code::UnclosedDelimiter, ")")]);
    assert_eq!(diags[0].message, "unexpected closing delimiter `)`");
    assert!(recovered(src).contains("let y = x;"));

    let (_, _, got) = run("fn f() {} }");
    assert_eq!(got, vec![pair(Code::UnclosedDelimiter, "}")]);
}

#[test]
fn an_item_in_the_first_column_closes_what_is_open() {
    let src = "fn a() {\n    let x = 1.0;\n\nkernel k(r: Out<f32>) {\n    r = 2.0;\n}\n";
    let (file, diags, got) = run(src);
    assert_eq!(
        got,
        vec![pair(Code::UnclosedDelimiter, "kernel")],
        "{}",
        render(&diags, src)
    );
    let names: Vec<String> = file
        .map(|f| f.items.iter().map(|i| i.name().name.clone()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["a", "k"]);
}

#[test]
fn lexical_errors_do_not_cascade_into_syntax_errors() {
    for (src, code, text) in [
        (
            "fn f() { let x = a @ b; let y = x; }",
            Code::UnexpectedCharacter,
            "@",
        ),
        ("fn f() { let x = 1e; }", Code::MalformedNumber, "1e"),
        (
            "fn f() { let x = 1.0.0 * 2.0; }",
            Code::MalformedNumber,
            "1.0.0",
        ),
        ("fn f() { let x = 5u8 + 1; }", Code::MalformedNumber, "u8"),
        (
            "fn f() { let x = 99999999999999999999; }",
            Code::IntegerOutOfRange,
            "99999999999999999999",
        ),
        ("fn f() { let x = .5; }", Code::LeadingDotFloat, ".5"),
        ("#[inline]\nfn f() { }", Code::UnexpectedCharacter, "#"),
        (
            "fn f() { let s = \"text\"; }",
            Code::UnexpectedCharacter,
            "\"text\"",
        ),
        ("fn f() { x = 1.0 $ }", Code::UnexpectedCharacter, "$"),
        ("fn f() { } /* open", Code::UnterminatedComment, "/*"),
    ] {
        let (file, diags, got) = run(src);
        assert_eq!(
            got,
            vec![pair(code, text)],
            "{src}\n{}",
            render(&diags, src)
        );
        assert!(file.is_some(), "{src}");
    }
}

#[test]
fn leading_dot_float_still_parses_as_the_float() {
    let (file, _, _) = run("const X: f32 = .5 * 2.0;");
    let Some(Item::Const(c)) = file.and_then(|f| f.items.into_iter().next()) else {
        panic!()
    };
    assert_eq!(print::print_expr(&c.value), "0.5 * 2.0");
}

#[test]
fn nothing_useful_gives_none() {
    let (file, diags, _) = run("@@@ $$$");
    assert!(file.is_none());
    assert_eq!(
        codes(&diags),
        vec![Code::UnexpectedCharacter, Code::UnexpectedCharacter]
    );
    let (file, diags, _) = run("blah");
    assert!(file.is_none());
    assert_eq!(codes(&diags), vec![Code::SyntaxError]);
}

#[test]
fn diagnostics_are_in_source_order_and_never_share_a_start() {
    let src = "\
const A: f32 = 1.0 +;
fn f(x f32) { let y = (x; }
kernel k(r: Out<f32>) { r = a < b < c; r = @; r = 1e; }
junk
";
    let (_, diags, _) = run(src);
    let starts: Vec<u32> = diags.iter().map(|d| d.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(starts, sorted, "{}", render(&diags, src));
    assert!(diags.len() >= 5, "{}", render(&diags, src));
}

#[test]
fn every_syntax_diagnostic_has_a_label() {
    for src in [
        "fn f() { let = 1; }",
        "fn f( { }",
        "kernel k() { r = ; }",
        "const X: f32 = a < b < c;",
        "fn f() { x.y(); }",
        "fn f() -> { }",
        "reduce r(a: f32) { a }",
    ] {
        let (_, diags, _) = run(src);
        assert!(!diags.is_empty(), "{src}");
        for d in &diags {
            assert!(!d.label.is_empty(), "{src}: {d:?}");
            assert!(!d.message.is_empty(), "{src}: {d:?}");
        }
    }
}
