//! Property tests: lexing and parsing never panic on any text or token
//! sequence, diagnostics stay inside the text, and random trees print to
//! source that parses back to the same tree.

mod parse_support;

use ctm_frontend::ast::*;
use ctm_frontend::lexer::{Keyword, Punct};
use ctm_frontend::span::Span;
use ctm_frontend::{CheckOptions, Target, compile, lexer, parser, print};
use parse_support::{check_round_trip, erase_file};
use proptest::prelude::*;

/// Checks what must hold for any input: no panic (by getting here),
/// diagnostics in source order with spans on character boundaries inside
/// the text, and a round trip whenever the text parsed without diagnostics.
fn check_any(src: &str) {
    let (tokens, _) = lexer::lex(src);
    for (_, s) in &tokens {
        assert!(s.start <= s.end && (s.end as usize) <= src.len());
        assert!(src.is_char_boundary(s.start as usize) && src.is_char_boundary(s.end as usize));
    }
    let (file, diags) = parser::parse(src);
    let mut previous = 0;
    for d in &diags {
        assert!(
            d.span.start >= previous,
            "diagnostics out of order: {diags:?}"
        );
        previous = d.span.start;
        assert!((d.span.end as usize) <= src.len(), "{d:?} outside {src:?}");
        assert!(d.span.start <= d.span.end);
        assert!(!d.message.is_empty());
        for (s, _) in &d.secondary {
            assert!((s.end as usize) <= src.len());
        }
    }
    if let Some(file) = &file {
        for s in parse_support::all_spans(file) {
            assert!(
                s.start <= s.end && (s.end as usize) <= src.len(),
                "bad span {s:?} in a tree of {src:?}"
            );
        }
    }
    if diags.is_empty() {
        assert!(file.is_some());
        check_round_trip(src);
    }
}

/// The text of every token kind, as material for random token sequences.
fn vocabulary() -> Vec<String> {
    let mut words: Vec<String> = Keyword::ALL
        .iter()
        .map(|k| k.as_str().to_string())
        .collect();
    words.extend(Punct::ALL.iter().map(|p| p.as_str().to_string()));
    words.extend(
        [
            "x", "y", "r", "f32", "i32", "vec4", "In", "Out", "Scatter", "abs", "index", "0", "1",
            "42", "0x2A", "0b101", "1.0", "2.5e3", "1e-3", "2f32", "7i32",
        ]
        .map(String::from),
    );
    words
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn any_text_never_panics(src in "\\PC{0,200}") {
        check_any(&src);
    }

    #[test]
    fn any_ascii_never_panics(src in "[ -~\t\n]{0,300}") {
        check_any(&src);
    }

    #[test]
    fn random_token_sequences_never_panic(
        picks in proptest::collection::vec(any::<proptest::sample::Index>(), 0..120),
        glue in proptest::collection::vec(prop_oneof![Just(" "), Just(""), Just("\n")], 120),
    ) {
        let words = vocabulary();
        let mut src = String::new();
        for (i, pick) in picks.iter().enumerate() {
            src.push_str(pick.get::<String>(&words));
            src.push_str(glue.get(i).copied().unwrap_or(" "));
        }
        check_any(&src);
        let compiled = compile(&src, &CheckOptions { target: Target::X1k });
        prop_assert!(!compiled
            .diagnostics
            .iter()
            .any(|d| d.message == "the front end could not run on this input"));
    }

    #[test]
    fn token_sequences_inside_a_kernel_never_panic(
        picks in proptest::collection::vec(any::<proptest::sample::Index>(), 0..60),
    ) {
        let words = vocabulary();
        let body: Vec<&str> = picks.iter().map(|p| p.get(words.as_slice()).as_str()).collect();
        check_any(&format!("kernel k(x: In<f32>, r: Out<f32>) {{ {} }}", body.join(" ")));
        check_any(&format!("fn f(x: f32) -> f32 {{ let y = {}; y }}", body.join(" ")));
    }

    #[test]
    fn random_trees_print_and_parse_back(file in arb_file()) {
        let printed = print::print_file(&file);
        let (parsed, diags) = parser::parse(&printed);
        prop_assert!(diags.is_empty(), "{printed}\n{diags:#?}");
        let mut parsed = parsed.unwrap_or(File { items: vec![] });
        erase_file(&mut parsed);
        prop_assert_eq!(&parsed, &file, "printed as\n{}", printed);
    }
}

// --- Random trees (spans left at their default) ---

fn id(name: String) -> Ident {
    Ident {
        name,
        span: Span::default(),
    }
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn block(stmts: Vec<Stmt>, tail: Option<Expr>) -> Block {
    Block {
        stmts,
        tail: tail.map(Box::new),
        span: Span::default(),
    }
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

fn ty(kind: TypeExprKind) -> TypeExpr {
    TypeExpr {
        kind,
        span: Span::default(),
    }
}

fn arb_name() -> BoxedStrategy<String> {
    "[a-z_][a-z0-9_]{0,4}"
        .prop_filter("not a keyword", |s| Keyword::lookup(s).is_none())
        .boxed()
}

fn arb_binary() -> BoxedStrategy<BinaryOp> {
    prop::sample::select(vec![
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
    ])
    .boxed()
}

/// Types without generics (what may follow `as`).
fn arb_simple_type() -> BoxedStrategy<TypeExpr> {
    prop_oneof![
        prop::sample::select(vec!["f32", "i32", "bool", "vec2", "vec4", "mat4"])
            .prop_map(|n| ty(TypeExprKind::Named(id(n.to_string())))),
        Just(ty(TypeExprKind::Unit)),
        (1u64..300).prop_map(|n| ty(TypeExprKind::Array {
            elem: Box::new(ty(TypeExprKind::Named(id("f32".into())))),
            len: Box::new(e(ExprKind::Int {
                value: n,
                radix: IntRadix::Decimal
            })),
        })),
    ]
    .boxed()
}

fn arb_type() -> BoxedStrategy<TypeExpr> {
    (
        arb_simple_type(),
        prop::collection::vec(prop::sample::select(vec!["In", "Out", "Scatter"]), 0..3),
    )
        .prop_map(|(inner, wrappers)| {
            wrappers.into_iter().fold(inner, |arg, name| {
                ty(TypeExprKind::Generic {
                    name: id(name.to_string()),
                    arg: Box::new(arg),
                })
            })
        })
        .boxed()
}

fn arb_leaf() -> BoxedStrategy<Expr> {
    prop_oneof![
        arb_name().prop_map(|n| e(ExprKind::Name(id(n)))),
        any::<u32>().prop_map(|v| e(ExprKind::Int {
            value: u64::from(v),
            radix: IntRadix::Decimal
        })),
        any::<u64>().prop_map(|v| e(ExprKind::Int {
            value: v,
            radix: IntRadix::NonDecimal
        })),
        any::<u32>()
            .prop_map(|bits| f32::from_bits(bits & 0x7FFF_FFFF))
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| e(ExprKind::Float(x))),
        any::<bool>().prop_map(|b| e(ExprKind::Bool(b))),
    ]
    .boxed()
}

fn arb_expr() -> BoxedStrategy<Expr> {
    arb_leaf()
        .prop_recursive(5, 48, 4, |inner| {
            prop_oneof![
                (
                    prop::sample::select(vec![UnaryOp::Neg, UnaryOp::Not]),
                    inner.clone()
                )
                    .prop_map(|(op, x)| e(ExprKind::Unary {
                        op,
                        operand: Box::new(x)
                    })),
                (arb_binary(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| e(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(l),
                        rhs: Box::new(r)
                    }
                )),
                (inner.clone(), arb_simple_type()).prop_map(|(x, t)| e(ExprKind::Cast {
                    operand: Box::new(x),
                    ty: t
                })),
                (arb_name(), prop::collection::vec(inner.clone(), 0..4)).prop_map(|(n, args)| e(
                    ExprKind::Call {
                        callee: id(n),
                        args
                    }
                )),
                (inner.clone(), "[xyzwrgba]{1,4}").prop_map(|(x, f)| e(ExprKind::Field {
                    base: Box::new(x),
                    field: id(f)
                })),
                (inner.clone(), inner.clone()).prop_map(|(b, i)| e(ExprKind::Index {
                    base: Box::new(b),
                    index: Box::new(i)
                })),
                (
                    inner.clone(),
                    inner.clone(),
                    prop::option::of(inner.clone()),
                    any::<bool>()
                )
                    .prop_map(|(c, t, f, chain)| {
                        let else_ = f.map(|f| {
                            let branch = block(vec![], Some(f));
                            if chain {
                                Box::new(e(ExprKind::If {
                                    cond: Box::new(e(ExprKind::Bool(true))),
                                    then: branch,
                                    else_: None,
                                }))
                            } else {
                                Box::new(e(ExprKind::Block(branch)))
                            }
                        });
                        e(ExprKind::If {
                            cond: Box::new(c),
                            then: block(vec![], Some(t)),
                            else_,
                        })
                    }),
                inner.prop_map(|x| e(ExprKind::Block(block(vec![], Some(x))))),
            ]
        })
        .boxed()
}

fn arb_assign_op() -> BoxedStrategy<AssignOp> {
    prop_oneof![
        Just(AssignOp::Assign),
        arb_binary()
            .prop_filter("compound operators", |op| !op.is_comparison()
                && !matches!(op, BinaryOp::And | BinaryOp::Or))
            .prop_map(AssignOp::Compound),
    ]
    .boxed()
}

fn arb_stmt() -> BoxedStrategy<Stmt> {
    let simple = prop_oneof![
        (
            any::<bool>(),
            arb_name(),
            prop::option::of(arb_type()),
            prop::option::of(arb_expr())
        )
            .prop_map(|(mutable, n, t, init)| stmt(StmtKind::Let {
                mutable,
                name: id(n),
                ty: t,
                init
            })),
        (arb_expr(), arb_assign_op(), arb_expr())
            .prop_map(|(target, op, value)| stmt(StmtKind::Assign { target, op, value })),
        arb_expr().prop_map(|x| stmt(StmtKind::Expr(x))),
        Just(stmt(StmtKind::Break)),
        Just(stmt(StmtKind::Continue)),
        Just(stmt(StmtKind::Discard)),
        prop::option::of(arb_expr()).prop_map(|x| stmt(StmtKind::Return(x))),
    ];
    simple
        .prop_recursive(3, 24, 4, |inner| {
            let body = (
                prop::collection::vec(inner, 0..4),
                prop::option::of(arb_expr()),
            )
                .prop_map(|(s, t)| block(s, t));
            prop_oneof![
                (arb_name(), arb_expr(), arb_expr(), body.clone()).prop_map(
                    |(v, a, b, body)| stmt(StmtKind::For {
                        var: id(v),
                        start: a,
                        end: b,
                        body
                    })
                ),
                (arb_expr(), body.clone())
                    .prop_map(|(cond, body)| stmt(StmtKind::While { cond, body })),
                body.clone().prop_map(|body| stmt(StmtKind::Loop { body })),
                (arb_expr(), body.clone(), prop::option::of(body.clone())).prop_map(
                    |(c, then, els)| {
                        stmt(StmtKind::Expr(e(ExprKind::If {
                            cond: Box::new(c),
                            then,
                            else_: els.map(|b| Box::new(e(ExprKind::Block(b)))),
                        })))
                    }
                ),
                body.prop_map(|b| stmt(StmtKind::Expr(e(ExprKind::Block(b))))),
            ]
        })
        .boxed()
}

fn arb_params() -> BoxedStrategy<Vec<Param>> {
    prop::collection::vec((any::<bool>(), arb_name(), arb_type()), 0..4)
        .prop_map(|ps| {
            ps.into_iter()
                .map(|(mutable, n, t)| Param {
                    mutable,
                    name: id(n),
                    ty: t,
                    span: Span::default(),
                })
                .collect()
        })
        .boxed()
}

fn arb_item() -> impl Strategy<Value = Item> {
    let body = (
        prop::collection::vec(arb_stmt(), 0..5),
        prop::option::of(arb_expr()),
    )
        .prop_map(|(s, t)| block(s, t));
    prop_oneof![
        (arb_name(), arb_type(), arb_expr()).prop_map(|(n, t, v)| Item::Const(ConstItem {
            name: id(n),
            ty: t,
            value: v,
            span: Span::default()
        })),
        (
            arb_name(),
            arb_params(),
            prop::option::of(arb_type()),
            body.clone()
        )
            .prop_map(|(n, params, ret, body)| Item::Fn(FnItem {
                name: id(n),
                params,
                ret,
                body,
                span: Span::default()
            })),
        (arb_name(), arb_params(), body.clone()).prop_map(|(n, params, body)| Item::Kernel(
            KernelItem {
                name: id(n),
                params,
                body,
                span: Span::default()
            }
        )),
        (arb_name(), arb_params(), arb_type(), body).prop_map(|(n, params, ret, body)| {
            Item::Reduce(ReduceItem {
                name: id(n),
                params,
                ret,
                body,
                span: Span::default(),
            })
        }),
    ]
}

fn arb_file() -> impl Strategy<Value = File> {
    prop::collection::vec(arb_item(), 0..4).prop_map(|items| File { items })
}
