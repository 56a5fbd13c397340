//! One test per construct of the language (spec §2, §3, §5, §6): the tree
//! the parser builds for it, and its spans where they matter.

mod parse_support;

use ctm_frontend::ast::*;
use ctm_frontend::span::Span;
use ctm_frontend::{parser, print};
use parse_support::{body, expr, parens, parse_ok, stmts, type_text};

fn only_item(src: &str) -> Item {
    let mut file = parse_ok(src);
    assert_eq!(file.items.len(), 1, "{src}");
    file.items.remove(0)
}

fn span_text(src: &str, span: Span) -> &str {
    &src[span.range()]
}

#[test]
fn empty_file_is_an_empty_file() {
    for src in ["", "   \n\t", "// comment only\n/* and a block */"] {
        let (file, diags) = parser::parse(src);
        assert!(diags.is_empty());
        assert_eq!(file, Some(File { items: vec![] }));
    }
}

#[test]
fn const_item() {
    let src = "const PI: f32 = 3.14159265;";
    let Item::Const(c) = only_item(src) else {
        panic!()
    };
    assert_eq!(c.name.name, "PI");
    assert_eq!(span_text(src, c.name.span), "PI");
    assert_eq!(type_text(&c.ty), "f32");
    assert_eq!(c.value.kind, ExprKind::Float(std::f32::consts::PI));
    assert_eq!(span_text(src, c.span), src);
    let Item::Const(c) = only_item("const V: vec4 = vec4(1.0, 0.0, 0.0, 1.0);") else {
        panic!()
    };
    assert_eq!(parens(&c.value), "vec4(1.0, 0.0, 0.0, 1.0)");
}

#[test]
fn fn_item_with_params_result_and_tail() {
    let src = "fn lerp3(a: vec3, b: vec3, mut t: f32) -> vec3 {\n    a + (b - a) * t\n}";
    let Item::Fn(f) = only_item(src) else {
        panic!()
    };
    assert_eq!(f.name.name, "lerp3");
    let params: Vec<(bool, &str, String)> = f
        .params
        .iter()
        .map(|p| (p.mutable, p.name.name.as_str(), type_text(&p.ty)))
        .collect();
    assert_eq!(
        params,
        vec![
            (false, "a", "vec3".to_string()),
            (false, "b", "vec3".to_string()),
            (true, "t", "f32".to_string())
        ]
    );
    assert_eq!(span_text(src, f.params[2].span), "mut t: f32");
    assert_eq!(f.ret.as_ref().map(type_text), Some("vec3".to_string()));
    assert!(f.body.stmts.is_empty());
    assert_eq!(
        f.body.tail.as_deref().map(parens),
        Some("(a + ((b - a) * t))".into())
    );
    assert_eq!(
        span_text(src, f.body.span),
        &src[src.find('{').unwrap_or(0)..]
    );
}

#[test]
fn fn_without_result_and_trailing_comma() {
    let Item::Fn(f) = only_item("fn nothing(x: f32,) {}") else {
        panic!()
    };
    assert_eq!(f.params.len(), 1);
    assert_eq!(f.ret, None);
    assert!(f.body.stmts.is_empty() && f.body.tail.is_none());
    let Item::Fn(f) = only_item("fn unit() -> () {}") else {
        panic!()
    };
    assert_eq!(f.ret.map(|t| t.kind), Some(TypeExprKind::Unit));
}

#[test]
fn kernel_item_with_stream_types() {
    let src = "kernel k(a: f32, x: In<f32>, c: In<unorm8x4>, r: Out<vec4>, s: Scatter<f32>, m: mat4, w: [vec4; 8], n: i32, b: bool) { }";
    let Item::Kernel(k) = only_item(src) else {
        panic!()
    };
    let types: Vec<String> = k.params.iter().map(|p| type_text(&p.ty)).collect();
    assert_eq!(
        types,
        [
            "f32",
            "In<f32>",
            "In<unorm8x4>",
            "Out<vec4>",
            "Scatter<f32>",
            "mat4",
            "[vec4; 8]",
            "i32",
            "bool"
        ]
    );
    match &k.params[1].ty.kind {
        TypeExprKind::Generic { name, arg } => {
            assert_eq!(name.name, "In");
            assert_eq!(span_text(src, arg.span), "f32");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(span_text(src, k.params[1].ty.span), "In<f32>");
    assert_eq!(span_text(src, k.params[6].ty.span), "[vec4; 8]");
}

#[test]
fn nested_generics_split_shift_tokens() {
    let Item::Fn(f) = only_item("fn f(a: In<Out<f32>>, b: A<B<C<f32>>>, c: Out<[f32; 4]>) {}")
    else {
        panic!()
    };
    let types: Vec<String> = f.params.iter().map(|p| type_text(&p.ty)).collect();
    assert_eq!(types, ["In<Out<f32>>", "A<B<C<f32>>>", "Out<[f32; 4]>"]);
}

#[test]
fn reduce_item() {
    let src = "reduce sum(a: f32, b: f32) -> f32 { a + b }";
    let Item::Reduce(r) = only_item(src) else {
        panic!()
    };
    assert_eq!(r.name.name, "sum");
    assert_eq!(r.params.len(), 2);
    assert_eq!(type_text(&r.ret), "f32");
    assert_eq!(r.body.tail.as_deref().map(parens), Some("(a + b)".into()));
}

#[test]
fn items_in_any_order() {
    let file = parse_ok(
        "kernel k(r: Out<f32>) { r = C; }\nconst C: f32 = 1.0;\nfn h() {}\nreduce m(a: f32, b: f32) -> f32 { max(a, b) }",
    );
    let names: Vec<&str> = file.items.iter().map(|i| i.name().name.as_str()).collect();
    assert_eq!(names, ["k", "C", "h", "m"]);
}

#[test]
fn let_statements() {
    let s = stmts("let x = 1.0; let mut acc: vec4 = vec4(0.0); let y: f32; let z;");
    let summary: Vec<(bool, String, Option<String>, Option<String>)> = s
        .iter()
        .map(|k| match k {
            StmtKind::Let {
                mutable,
                name,
                ty,
                init,
            } => (
                *mutable,
                name.name.clone(),
                ty.as_ref().map(type_text),
                init.as_ref().map(parens),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (false, "x".into(), None, Some("1.0".into())),
            (
                true,
                "acc".into(),
                Some("vec4".into()),
                Some("vec4(0.0)".into())
            ),
            (false, "y".into(), Some("f32".into()), None),
            (false, "z".into(), None, None),
        ]
    );
}

#[test]
fn statement_spans_include_the_semicolon() {
    let src = "fn f() { let x = 1.0; x = 2.0; }";
    let Item::Fn(f) = only_item(src) else {
        panic!()
    };
    let texts: Vec<&str> = f
        .body
        .stmts
        .iter()
        .map(|s| span_text(src, s.span))
        .collect();
    assert_eq!(texts, ["let x = 1.0;", "x = 2.0;"]);
}

#[test]
fn every_assignment_operator() {
    let ops = [
        ("=", AssignOp::Assign),
        ("+=", AssignOp::Compound(BinaryOp::Add)),
        ("-=", AssignOp::Compound(BinaryOp::Sub)),
        ("*=", AssignOp::Compound(BinaryOp::Mul)),
        ("/=", AssignOp::Compound(BinaryOp::Div)),
        ("%=", AssignOp::Compound(BinaryOp::Rem)),
        ("&=", AssignOp::Compound(BinaryOp::BitAnd)),
        ("|=", AssignOp::Compound(BinaryOp::BitOr)),
        ("^=", AssignOp::Compound(BinaryOp::BitXor)),
        ("<<=", AssignOp::Compound(BinaryOp::Shl)),
        (">>=", AssignOp::Compound(BinaryOp::Shr)),
    ];
    for (text, want) in ops {
        match &stmts(&format!("x {text} y + 1;"))[..] {
            [StmtKind::Assign { target, op, value }] => {
                assert_eq!(*op, want, "{text}");
                assert_eq!(parens(target), "x");
                assert_eq!(parens(value), "(y + 1)");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}

#[test]
fn assignment_targets_are_place_expressions() {
    let targets: Vec<String> = stmts("x = a; v.xy = b; out.w = c; s[p] = v; w[i].x = d;")
        .iter()
        .map(|k| match k {
            StmtKind::Assign { target, .. } => parens(target),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(targets, ["x", "(v.xy)", "(out.w)", "(s[p])", "((w[i]).x)"]);
}

#[test]
fn if_else_if_else_statement() {
    let src = "if a { x = 1.0; } else if b { x = 2.0; } else { x = 3.0; } y = x;";
    let s = stmts(src);
    assert_eq!(s.len(), 2, "{s:?}");
    let StmtKind::Expr(Expr {
        kind: ExprKind::If { cond, then, else_ },
        ..
    }) = &s[0]
    else {
        panic!("{:?}", s[0])
    };
    assert_eq!(parens(cond), "a");
    assert_eq!(then.stmts.len(), 1);
    let Some(ExprKind::If {
        cond: cond2,
        else_: last,
        ..
    }) = else_.as_deref().map(|e| &e.kind)
    else {
        panic!()
    };
    assert_eq!(parens(cond2), "b");
    assert!(matches!(
        last.as_deref().map(|e| &e.kind),
        Some(ExprKind::Block(_))
    ));
}

#[test]
fn else_if_spans_start_at_their_if() {
    let src = "fn f() { if a { } else if b { } }";
    let Item::Fn(f) = only_item(src) else {
        panic!()
    };
    let Some(ExprKind::If { else_: Some(e), .. }) = f.body.tail.as_deref().map(|e| &e.kind) else {
        panic!("{:?}", f.body)
    };
    assert_eq!(span_text(src, e.span), "if b { }");
}

#[test]
fn if_without_else_and_if_as_expression() {
    let s = stmts("if c { discard; } let y = if c { a } else { b };");
    assert!(matches!(
        &s[0],
        StmtKind::Expr(Expr {
            kind: ExprKind::If { else_: None, .. },
            ..
        })
    ));
    let StmtKind::Let {
        init: Some(init), ..
    } = &s[1]
    else {
        panic!()
    };
    assert_eq!(parens(init), "(if c {a} else {b})");
}

#[test]
fn block_like_statements_need_no_semicolon_and_end_at_their_brace() {
    // `if` at the start of a statement ends at `}`: `- 1.0` is a new statement.
    let b = body("if c { a } else { b } - 1.0");
    assert_eq!(b.stmts.len(), 1);
    assert!(matches!(
        b.stmts[0].kind,
        StmtKind::Expr(Expr {
            kind: ExprKind::If { .. },
            ..
        })
    ));
    assert_eq!(b.tail.as_deref().map(parens), Some("(-1.0)".into()));
    // A block statement, with and without `;`.
    let b = body("{ let t = 1.0; } { x = 2.0; }; y");
    assert_eq!(b.stmts.len(), 2);
    assert_eq!(b.tail.as_deref().map(parens), Some("y".into()));
}

#[test]
fn block_tails() {
    assert_eq!(
        body("a + b").tail.as_deref().map(parens),
        Some("(a + b)".into())
    );
    assert_eq!(body("a + b;").tail, None);
    // A block-like expression last without `;` is the tail, as in Rust.
    let b = body("let x = 1.0; if c { x } else { 2.0 }");
    assert_eq!(b.stmts.len(), 1);
    assert!(matches!(
        b.tail.as_deref().map(|e| &e.kind),
        Some(ExprKind::If { .. })
    ));
    let b = body("if c { x } else { 2.0 };");
    assert_eq!((b.stmts.len(), b.tail.is_none()), (1, true));
    // Blocks as values.
    let s = stmts("let s = { let a = 1.0; a * 2.0 };");
    let StmtKind::Let {
        init: Some(Expr {
            kind: ExprKind::Block(inner),
            ..
        }),
        ..
    } = &s[0]
    else {
        panic!()
    };
    assert_eq!(inner.stmts.len(), 1);
    assert_eq!(inner.tail.as_deref().map(parens), Some("(a * 2.0)".into()));
}

#[test]
fn for_loop() {
    match &stmts("for k in 0..n + 1 { acc += w[k]; }")[..] {
        [
            StmtKind::For {
                var,
                start,
                end,
                body,
            },
        ] => {
            assert_eq!(var.name, "k");
            assert_eq!(parens(start), "0");
            assert_eq!(parens(end), "(n + 1)");
            assert_eq!(body.stmts.len(), 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn while_and_loop() {
    match &stmts("while i < 10 && go { i += 1; } loop { break; }")[..] {
        [
            StmtKind::While { cond, body },
            StmtKind::Loop { body: lbody },
        ] => {
            assert_eq!(parens(cond), "((i < 10) && go)");
            assert_eq!(body.stmts.len(), 1);
            assert_eq!(lbody.stmts[0].kind, StmtKind::Break);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn jumps() {
    let s = stmts("loop { break; continue; } return; discard;");
    let StmtKind::Loop { body } = &s[0] else {
        panic!()
    };
    let inner: Vec<&StmtKind> = body.stmts.iter().map(|s| &s.kind).collect();
    assert_eq!(inner, [&StmtKind::Break, &StmtKind::Continue]);
    assert_eq!(s[1], StmtKind::Return(None));
    assert_eq!(s[2], StmtKind::Discard);
    match &stmts("return a * 2.0;")[..] {
        [StmtKind::Return(Some(e))] => assert_eq!(parens(e), "(a * 2.0)"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn jumps_before_a_closing_brace_need_no_semicolon() {
    let s = stmts("loop { break } return x");
    let StmtKind::Loop { body } = &s[0] else {
        panic!()
    };
    assert_eq!(body.stmts[0].kind, StmtKind::Break);
    assert!(matches!(&s[1], StmtKind::Return(Some(_))));
}

#[test]
fn expression_statements_and_stray_semicolons() {
    let s = stmts(";; f(x); ;");
    assert_eq!(s.len(), 1);
    assert!(matches!(
        &s[0],
        StmtKind::Expr(Expr {
            kind: ExprKind::Call { .. },
            ..
        })
    ));
}

#[test]
fn literals() {
    assert_eq!(
        expr("42").kind,
        ExprKind::Int {
            value: 42,
            radix: IntRadix::Decimal
        }
    );
    assert_eq!(
        expr("0x2A").kind,
        ExprKind::Int {
            value: 42,
            radix: IntRadix::NonDecimal
        }
    );
    assert_eq!(
        expr("0b101").kind,
        ExprKind::Int {
            value: 5,
            radix: IntRadix::NonDecimal
        }
    );
    assert_eq!(
        expr("1_000i32").kind,
        ExprKind::Int {
            value: 1000,
            radix: IntRadix::Decimal
        }
    );
    assert_eq!(
        expr("2147483648").kind,
        ExprKind::Int {
            value: 2_147_483_648,
            radix: IntRadix::Decimal
        }
    );
    assert_eq!(expr("1e-3").kind, ExprKind::Float(1e-3));
    assert_eq!(expr("2.5f32").kind, ExprKind::Float(2.5));
    assert_eq!(expr("2f32").kind, ExprKind::Float(2.0));
    assert_eq!(expr("1.").kind, ExprKind::Float(1.0));
    assert_eq!(expr("true").kind, ExprKind::Bool(true));
    assert_eq!(expr("false").kind, ExprKind::Bool(false));
    // `-2147483648` is a negation of a literal; the checker ranges it.
    assert_eq!(parens(&expr("-2147483648")), "(-2147483648)");
}

#[test]
fn names_calls_and_constructors() {
    assert_eq!(parens(&expr("x")), "x");
    assert_eq!(parens(&expr("index()")), "index()");
    assert_eq!(parens(&expr("clamp(x, 0.0, 1.0,)")), "clamp(x, 0.0, 1.0)");
    assert_eq!(
        parens(&expr("vec4(v.xy, 0.0, 1.0)")),
        "vec4((v.xy), 0.0, 1.0)"
    );
    assert_eq!(parens(&expr("f(g(h(1.0)))")), "f(g(h(1.0)))");
    let e = expr("mix(a, b, t)");
    let ExprKind::Call { callee, args } = &e.kind else {
        panic!()
    };
    assert_eq!(callee.name, "mix");
    assert_eq!(args.len(), 3);
}

#[test]
fn swizzles_and_indexing() {
    assert_eq!(parens(&expr("v.xyz")), "(v.xyz)");
    assert_eq!(parens(&expr("c.rgba.a")), "((c.rgba).a)");
    assert_eq!(parens(&expr("weights[k % 4]")), "(weights[(k % 4)])");
    assert_eq!(
        parens(&expr("img[index() + vec2(1.0, 0.0)]")),
        "(img[(index() + vec2(1.0, 0.0))])"
    );
    // A literal can be swizzled syntactically (the checker decides).
    assert_eq!(parens(&expr("1.x")), "(1.x)");
    assert_eq!(parens(&expr("1.0.x")), "(1.0.x)");
}

#[test]
fn unary_and_casts() {
    assert_eq!(parens(&expr("-x")), "(-x)");
    assert_eq!(parens(&expr("!b")), "(!b)");
    assert_eq!(parens(&expr("y as i32")), "(y as i32)");
    assert_eq!(parens(&expr("x as [f32; 2]")), "(x as [f32; 2])");
}

#[test]
fn expression_spans_cover_their_text() {
    let src = "const X: f32 = -a * (b + c) as f32;";
    let Item::Const(c) = only_item(src) else {
        panic!()
    };
    assert_eq!(span_text(src, c.value.span), "-a * (b + c) as f32");
    let ExprKind::Binary { lhs, rhs, .. } = &c.value.kind else {
        panic!()
    };
    assert_eq!(span_text(src, lhs.span), "-a");
    assert_eq!(span_text(src, rhs.span), "(b + c) as f32");
}

#[test]
fn dump_shows_one_node_per_line_with_positions() {
    let src = "kernel k(r: Out<f32>) {\n    r = 1.0 + x;\n}\n";
    let file = parse_ok(src);
    let dump = print::dump_file(&file, src);
    assert_eq!(
        dump,
        "File\n  Kernel k @1:1\n    Param r @1:10\n      Type Out<> @1:13\n        Type f32 @1:17\n    body: Block @1:23\n      Assign = @2:5\n        target: Name r @2:5\n        value: Binary + @2:9\n          Float 1.0 @2:9\n          Name x @2:15\n"
    );
}

#[test]
fn dump_covers_every_node_kind() {
    let src = "const C: [f32; 2] = 0x10;\nfn f(mut a: i32) -> bool { let x: i32 = -a as i32; for i in 0..2 { continue; } while true { break; } loop { return !false; } g(x); { x } }\nkernel k(s: Scatter<f32>) { s[index()] = if c { 1.0 } else { 2.0 }.x; discard; }\nreduce r(a: f32, b: f32) -> () { a }";
    let (file, _) = parser::parse(src);
    let dump = print::dump_file(&file.expect("file"), src);
    for kind in [
        "Const C",
        "Type [;]",
        "elem: Type f32",
        "len: Int 2",
        "value: Int 0x10",
        "Fn f",
        "Param mut a",
        "ret: Type bool",
        "Let x",
        "type: Type i32",
        "init: Cast",
        "Unary -",
        "For i",
        "start: Int 0",
        "Continue",
        "While",
        "cond: Bool true",
        "Break",
        "Loop",
        "Return",
        "Unary !",
        "ExprStmt",
        "tail: Name x",
        "Kernel k",
        "Type Scatter<>",
        "Assign =",
        "Index",
        "index: Call index",
        "Field .x",
        "If",
        "then: Block",
        "else: Block",
        "Discard",
        "Reduce r",
        "ret: Type ()",
    ] {
        assert!(dump.contains(kind), "missing {kind:?} in\n{dump}");
    }
    for line in dump.lines().skip(1) {
        let (_, pos) = line.rsplit_once(" @").expect("position");
        let (l, c) = pos.split_once(':').expect("line:col");
        assert!(
            l.parse::<usize>().is_ok() && c.parse::<usize>().is_ok(),
            "{line}"
        );
    }
}
