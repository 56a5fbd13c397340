//! Operator precedence and associativity (spec §6): a table of cases, and
//! every pair of binary operators checked against `BinaryOp::precedence`.

mod parse_support;

use ctm_frontend::ast::{BinaryOp, ExprKind};
use ctm_frontend::{Code, parser, print};
use parse_support::{codes, expr, parens};

/// Each case: source, and the tree fully parenthesised.
const TABLE: &[(&str, &str)] = &[
    // Left associativity at every level.
    ("a - b - c", "((a - b) - c)"),
    ("a / b / c", "((a / b) / c)"),
    ("a % b * c", "((a % b) * c)"),
    ("a << b >> c", "((a << b) >> c)"),
    ("a & b & c", "((a & b) & c)"),
    ("a ^ b ^ c", "((a ^ b) ^ c)"),
    ("a | b | c", "((a | b) | c)"),
    ("a && b && c", "((a && b) && c)"),
    ("a || b || c", "((a || b) || c)"),
    // Each level binds tighter than the next.
    ("a + b * c", "(a + (b * c))"),
    ("a * b + c", "((a * b) + c)"),
    ("a << b + c", "(a << (b + c))"),
    ("a & b << c", "(a & (b << c))"),
    ("a ^ b & c", "(a ^ (b & c))"),
    ("a | b ^ c", "(a | (b ^ c))"),
    (
        "a | b ^ c & d << e + f * g",
        "(a | (b ^ (c & (d << (e + (f * g))))))",
    ),
    ("a == b | c", "(a == (b | c))"),
    ("a < b && c >= d", "((a < b) && (c >= d))"),
    ("a == b && c != d || e", "(((a == b) && (c != d)) || e)"),
    ("a || b && c", "(a || (b && c))"),
    // `as` sits between unary and `*`.
    ("-x as i32", "((-x) as i32)"),
    ("a * b as f32", "(a * (b as f32))"),
    ("x as i32 as f32", "((x as i32) as f32)"),
    ("!a as i32 + 1", "(((!a) as i32) + 1)"),
    ("x as i32 < y", "((x as i32) < y)"),
    ("x as i32 >> 2", "((x as i32) >> 2)"),
    // Unary binds tighter than binary, looser than postfix.
    ("-a * b", "((-a) * b)"),
    ("- -a", "(-(-a))"),
    ("!!a", "(!(!a))"),
    ("-a.x", "(-(a.x))"),
    ("-a[i]", "(-(a[i]))"),
    ("-f(x)", "(-f(x))"),
    ("!a == b", "((!a) == b)"),
    ("a - -b", "(a - (-b))"),
    // Postfix chains, left to right.
    ("a.xy.x", "((a.xy).x)"),
    ("m[i][j]", "((m[i])[j])"),
    (
        "img[index() + vec2(1.0, 0.0)].x",
        "((img[(index() + vec2(1.0, 0.0))]).x)",
    ),
    ("f(a + b, c * d).w", "(f((a + b), (c * d)).w)"),
    ("(a + b).x", "((a + b).x)"),
    ("(a + b) * c", "((a + b) * c)"),
    // `if` is an expression anywhere.
    ("1.0 + if c { a } else { b }", "(1.0 + (if c {a} else {b}))"),
    (
        "(if c { a } else { b }) * 2.0",
        "((if c {a} else {b}) * 2.0)",
    ),
    (
        "if a < b { a } else { b } + 1.0",
        "((if (a < b) {a} else {b}) + 1.0)",
    ),
    ("f(if c { a } else { b })", "f((if c {a} else {b}))"),
    // Comparisons take whole shift/bit expressions on either side.
    ("a + 1 < b * 2", "((a + 1) < (b * 2))"),
    ("(a < b) == c", "((a < b) == c)"),
];

#[test]
fn precedence_table() {
    for (src, want) in TABLE {
        assert_eq!(parens(&expr(src)), *want, "parsing {src}");
    }
}

#[test]
fn the_table_round_trips_through_the_printer() {
    for (src, want) in TABLE {
        let printed = print::print_expr(&expr(src));
        assert_eq!(parens(&expr(&printed)), *want, "{src} printed as {printed}");
    }
}

#[test]
fn the_printer_uses_only_needed_parentheses() {
    for (src, printed) in [
        ("(a + b) * c", "(a + b) * c"),
        ("a + (b * c)", "a + b * c"),
        ("(a - b) - c", "a - b - c"),
        ("a - (b - c)", "a - (b - c)"),
        ("(-x) as i32", "-x as i32"),
        ("-(x as i32)", "-(x as i32)"),
        ("((a.x))", "a.x"),
        ("(a < b) == c", "(a < b) == c"),
        ("a == (b < c)", "a == (b < c)"),
        (
            "(if c { a } else { b }) * 2.0",
            "(if c { a } else { b }) * 2.0",
        ),
        (
            "2.0 * if c { a } else { b }",
            "2.0 * (if c { a } else { b })",
        ),
        ("({ a }).x", "({ a }).x"),
    ] {
        assert_eq!(print::print_expr(&expr(src)), printed, "{src}");
    }
}

const ALL_BINARY: &[BinaryOp] = &[
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Shl,
    BinaryOp::Shr,
    BinaryOp::BitAnd,
    BinaryOp::BitXor,
    BinaryOp::BitOr,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::And,
    BinaryOp::Or,
];

/// `a op1 b op2 c` groups to the left when `op1` binds at least as tightly
/// as `op2`, else to the right; two comparisons are `CK0009`.
#[test]
fn every_pair_of_binary_operators() {
    for &op1 in ALL_BINARY {
        for &op2 in ALL_BINARY {
            let src = format!("const X: f32 = a {} b {} c;", op1.symbol(), op2.symbol());
            let (file, diags) = parser::parse(&src);
            if op1.is_comparison() && op2.is_comparison() {
                assert_eq!(codes(&diags), vec![Code::ChainedComparison], "{src}");
                continue;
            }
            assert!(diags.is_empty(), "{src}: {diags:?}");
            let value = match file.and_then(|f| f.items.into_iter().next()) {
                Some(ctm_frontend::ast::Item::Const(c)) => c.value,
                other => panic!("{src}: {other:?}"),
            };
            let (o1, o2) = (op1.symbol(), op2.symbol());
            let want = if op1.precedence() >= op2.precedence() {
                format!("((a {o1} b) {o2} c)")
            } else {
                format!("(a {o1} (b {o2} c))")
            };
            assert_eq!(parens(&value), want, "{src}");
        }
    }
}

#[test]
fn chained_comparisons_are_ck0009_with_help() {
    // Each case: source and the second operator (the primary span).
    for (src, second) in [
        ("a < b < c", "< c"),
        ("a == b == c", "== c"),
        ("a <= b > c", "> c"),
        ("a < b < c < d", "< c <"),
    ] {
        let text = format!("const X: bool = {src};");
        let (file, diags) = parser::parse(&text);
        assert_eq!(codes(&diags), vec![Code::ChainedComparison], "{src}");
        let d = &diags[0];
        let at = text.find(second).unwrap_or(0);
        let op_len = second.split(' ').next().unwrap_or("").len();
        assert_eq!(d.span.range(), at..at + op_len, "{src}");
        assert_eq!(d.secondary.len(), 1);
        assert!(d.help.as_deref().unwrap_or("").contains("&&"), "{d:?}");
        // The chain became one `Error` expression.
        match file.and_then(|f| f.items.into_iter().next()) {
            Some(ctm_frontend::ast::Item::Const(c)) => assert_eq!(c.value.kind, ExprKind::Error),
            other => panic!("{other:?}"),
        }
    }
    let (_, diags) = parser::parse("const X: bool = a < b < c;");
    assert_eq!(
        diags[0].help.as_deref(),
        Some("compare twice and combine with `&&`: `a < b && b < c`")
    );
}
