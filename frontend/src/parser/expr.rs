//! Expressions (spec §6), with the spec's precedence:
//! postfix (`.swz`, `[ ]`, calls) > unary `- !` > `as` > `* / %` > `+ -` >
//! `<< >>` > `&` > `^` > `|` > comparisons (non-associative) > `&&` > `||`.
//!
//! Each level is a left fold over a flat repetition, and `else if` chains
//! and prefix operators are collected flat too, so long chains cost no
//! parser recursion; only brackets recurse. A chain longer than
//! [`MAX_DEPTH`] is cut short with one `CK0008` (it would be rejected by the
//! depth check anyway, and this keeps the tree the parser builds shallow).
//!
//! After an infix operator, `as` or `.`, the operand is required: a missing
//! one is reported once and stands as an `Error` expression, so that
//! `let x = a + ;` still declares `x`.

use super::MAX_DEPTH;
use super::depth::dismantle_expr;
use super::primitives::{
    Ctx, Extra, In, P, custom_error, error_expr, expr as node, group, ident, kw, punct, span,
};
use super::stmt::recovering_condition;
use super::types::{cast_type_parser, type_parser};
use crate::ast::{BinaryOp, Block, Expr, ExprKind, Ident, UnaryOp};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Keyword, Punct, Token};
use crate::span::Span;
use chumsky::input::MapExtra;
use chumsky::prelude::*;

/// The infix levels below `as` and above the comparisons, tightest first.
const LEVELS: &[&[(Punct, BinaryOp)]] = &[
    &[
        (Punct::Star, BinaryOp::Mul),
        (Punct::Slash, BinaryOp::Div),
        (Punct::Percent, BinaryOp::Rem),
    ],
    &[(Punct::Plus, BinaryOp::Add), (Punct::Minus, BinaryOp::Sub)],
    &[(Punct::Shl, BinaryOp::Shl), (Punct::Shr, BinaryOp::Shr)],
    &[(Punct::Amp, BinaryOp::BitAnd)],
    &[(Punct::Caret, BinaryOp::BitXor)],
    &[(Punct::Pipe, BinaryOp::BitOr)],
];

/// The comparison operators.
const COMPARISONS: &[(Punct, BinaryOp)] = &[
    (Punct::EqEq, BinaryOp::Eq),
    (Punct::Ne, BinaryOp::Ne),
    (Punct::Lt, BinaryOp::Lt),
    (Punct::Le, BinaryOp::Le),
    (Punct::Gt, BinaryOp::Gt),
    (Punct::Ge, BinaryOp::Ge),
];

/// Marks a chain that went past the bound and became `Error`.
const CUT: u32 = u32::MAX;

/// The diagnostic for a chain of operations longer than [`MAX_DEPTH`].
fn chain_too_long(at: SimpleSpan) -> Diagnostic {
    Diagnostic::new(
        Code::NestingTooDeep,
        span(at),
        format!("nesting too deep: the limit is {MAX_DEPTH} levels"),
    )
    .with_label("this operation is nested too deeply")
    .with_help("split the expression with `let` bindings")
}

/// Adds one link (at `op`) to a chain whose links so far are counted in
/// `acc.1`; past [`MAX_DEPTH`] links the chain is reported once and
/// becomes `Error`.
fn chain_step<'t, 'p>(
    acc: (Expr, u32),
    op: SimpleSpan,
    link: impl FnOnce(Box<Expr>) -> ExprKind,
    e: &mut MapExtra<'t, 'p, In<'t>, Extra<'t>>,
) -> (Expr, u32) {
    let (base, links) = acc;
    let whole = e.span();
    if links == CUT {
        return (error_expr(whole), CUT);
    }
    if links as usize >= MAX_DEPTH {
        e.emit(custom_error(op, chain_too_long(op)));
        dismantle_expr(base);
        return (error_expr(whole), CUT);
    }
    (node(link(Box::new(base)), whole), links + 1)
}

/// A zero-width `Error` expression: the recovery for a required operand.
fn missing<'t>() -> impl Parser<'t, In<'t>, Expr, Extra<'t>> + Clone {
    empty().map_with(|(), e| error_expr(e.span()))
}

/// A parenthesised argument list; `None` if it had to be skipped.
fn arguments<'t>(
    expr: P<'t, Expr>,
) -> impl Parser<'t, In<'t>, (Option<Vec<Expr>>, SimpleSpan), Extra<'t>> + Clone {
    expr.separated_by(punct(Punct::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(punct(Punct::LParen), punct(Punct::RParen))
        .map(Some)
        .recover_with(via_parser(group(Punct::LParen).to(None)))
        .map_with(|args, e| (args, e.span()))
}

/// `if c { } else if d { } else { }`, collected flat and folded from the
/// right.
pub(super) fn if_parser<'t>(expr: P<'t, Expr>, block: P<'t, Block>) -> P<'t, Expr> {
    let head = kw(Keyword::If)
        .map_with(|_, e| e.span())
        .then(recovering_condition(expr))
        .then(block.clone());
    let else_if = kw(Keyword::Else).ignore_then(head.clone());
    head.then(else_if.repeated().collect::<Vec<_>>())
        .then(kw(Keyword::Else).ignore_then(block).or_not())
        .validate(|((first, rest), last), e, emitter| {
            let whole = e.span();
            if rest.len() >= MAX_DEPTH {
                if let Some(((at, _), _)) = rest.get(MAX_DEPTH - 1) {
                    emitter.emit(custom_error(*at, chain_too_long(*at)));
                }
                return error_expr(whole);
            }
            let mut tail: Option<Box<Expr>> = last.map(|b| {
                Box::new(Expr {
                    span: b.span,
                    kind: ExprKind::Block(b),
                })
            });
            for ((at, cond), then) in rest.into_iter().rev() {
                tail = Some(Box::new(node(
                    ExprKind::If {
                        cond: Box::new(cond),
                        then,
                        else_: tail,
                    },
                    SimpleSpan::from(at.start..whole.end),
                )));
            }
            let ((_, cond), then) = first;
            node(
                ExprKind::If {
                    cond: Box::new(cond),
                    then,
                    else_: tail,
                },
                whole,
            )
        })
        .boxed()
}

/// Literals, names, calls, parentheses, `if` and blocks.
fn atom<'t>(expr: P<'t, Expr>, block: P<'t, Block>) -> P<'t, Expr> {
    let literal = select! {
        Token::Int { value, radix } => ExprKind::Int { value, radix },
        Token::Float(x) => ExprKind::Float(x),
        Token::Keyword(Keyword::True) => ExprKind::Bool(true),
        Token::Keyword(Keyword::False) => ExprKind::Bool(false),
        Token::Error => ExprKind::Error,
    }
    .map_with(|kind, e| node(kind, e.span()));
    let name_or_call =
        ident()
            .then(arguments(expr.clone()).or_not())
            .map_with(|(callee, args), e| {
                let kind = match args {
                    None => ExprKind::Name(callee),
                    Some((Some(args), _)) => ExprKind::Call { callee, args },
                    Some((None, _)) => ExprKind::Error,
                };
                node(kind, e.span())
            });
    let paren = expr
        .clone()
        .delimited_by(punct(Punct::LParen), punct(Punct::RParen))
        .recover_with(via_parser(
            group(Punct::LParen).map_with(|(), e| error_expr(e.span())),
        ));
    let if_ = if_parser(expr, block.clone());
    let block_expr = block.map(|b| Expr {
        span: b.span,
        kind: ExprKind::Block(b),
    });
    choice((literal, name_or_call, paren, if_, block_expr))
        .labelled("expression")
        .boxed()
}

/// One postfix operation.
enum Postfix {
    /// `.name`
    Field(Ident),
    /// `.` not followed by a name (already reported).
    BadField,
    /// `.name(args)`: a method call, which the language does not have.
    Method { name: Ident, args: SimpleSpan },
    /// `[index]`
    Index(Expr),
    /// `(args)` after something that is not a name.
    Call(SimpleSpan),
}

/// `atom` followed by any number of `.name`, `[index]` and `(args)`.
fn postfix<'t>(ctx: Ctx<'t>, atom: P<'t, Expr>, expr: P<'t, Expr>) -> P<'t, Expr> {
    let field_name = ident().map(Some).recover_with(via_parser(
        select! { Token::Int { .. } => (), Token::Float(_) => () }
            .or_not()
            .to(None),
    ));
    let field = punct(Punct::Dot)
        .ignore_then(field_name)
        .then(arguments(expr.clone()).or_not())
        .map(|(name, args)| match (name, args) {
            (None, _) => Postfix::BadField,
            (Some(name), None) => Postfix::Field(name),
            (Some(name), Some((_, args))) => Postfix::Method { name, args },
        });
    let index = expr
        .clone()
        .delimited_by(punct(Punct::LBracket), punct(Punct::RBracket))
        .recover_with(via_parser(
            group(Punct::LBracket).map_with(|(), e| error_expr(e.span())),
        ))
        .map(Postfix::Index);
    let call = arguments(expr).map(|(_, s)| Postfix::Call(s));
    let op = choice((field, index, call)).map_with(|op, e| (op, e.span()));
    atom.map(|e| (e, 0u32))
        .foldl_with(op.repeated(), move |acc, (op, at), e| {
            let base_span = acc.0.span;
            match op {
                Postfix::Field(field) => {
                    chain_step(acc, at, |base| ExprKind::Field { base, field }, e)
                }
                Postfix::Index(index) => chain_step(
                    acc,
                    at,
                    |base| ExprKind::Index {
                        base,
                        index: Box::new(index),
                    },
                    e,
                ),
                Postfix::BadField => {
                    dismantle_expr(acc.0);
                    (error_expr(e.span()), acc.1)
                }
                Postfix::Method { name, args } => {
                    e.emit(custom_error(at, method_call(ctx, base_span, &name, args)));
                    dismantle_expr(acc.0);
                    (error_expr(e.span()), acc.1)
                }
                Postfix::Call(args) => {
                    e.emit(custom_error(
                        args,
                        Diagnostic::new(
                            Code::SyntaxError,
                            span(args),
                            "only functions can be called, by their name",
                        )
                        .with_label("this is not a function name")
                        .with_help("call a function by its name, as in `f(x)`"),
                    ));
                    dismantle_expr(acc.0);
                    (error_expr(e.span()), acc.1)
                }
            }
        })
        .map(|(e, _)| e)
        .boxed()
}

/// The diagnostic for `x.name(args)`.
fn method_call(ctx: Ctx<'_>, receiver: Span, name: &Ident, args: SimpleSpan) -> Diagnostic {
    let receiver_text = ctx.text(SimpleSpan::from(receiver.range()), 40);
    let inner = SimpleSpan::from(args.start + 1..args.end.saturating_sub(1).max(args.start + 1));
    let args_text = ctx.text(inner, 60).map(str::trim);
    let help = match (receiver_text, args_text) {
        (Some(r), Some("")) => format!("write `{}({r})`", name.name),
        (Some(r), Some(a)) => format!("write `{}({r}, {a})`", name.name),
        _ => format!(
            "write a function call with the value as first argument: `{}(x, ...)`",
            name.name
        ),
    };
    Diagnostic::new(
        Code::SyntaxError,
        name.span,
        "method calls are not part of the language",
    )
    .with_label(format!("`{}` is called like a method here", name.name))
    .with_help(help)
}

/// Prefix `-` and `!` (collected flat) before a postfix expression.
fn unary<'t>(postfix: P<'t, Expr>) -> P<'t, Expr> {
    let op = choice((
        punct(Punct::Minus).to(UnaryOp::Neg),
        punct(Punct::Bang).to(UnaryOp::Not),
    ))
    .map_with(|op, e| (op, e.span()));
    let prefixed = op
        .repeated()
        .at_least(1)
        .collect::<Vec<_>>()
        .then(postfix.clone().recover_with(via_parser(missing())))
        .map(|(ops, operand)| {
            let end = operand.span.end;
            ops.into_iter()
                .rev()
                .fold(operand, |operand, (op, at)| Expr {
                    span: Span {
                        start: at.start as u32,
                        end,
                    },
                    kind: ExprKind::Unary {
                        op,
                        operand: Box::new(operand),
                    },
                })
        });
    choice((prefixed, postfix)).labelled("expression").boxed()
}

/// `x as T as U ...`.
fn cast<'t>(unary: P<'t, Expr>, ty: P<'t, crate::ast::TypeExpr>) -> P<'t, Expr> {
    let step = kw(Keyword::As).map_with(|_, e| e.span()).then(ty);
    unary
        .map(|e| (e, 0u32))
        .foldl_with(step.repeated(), |acc, (at, ty), e| {
            chain_step(acc, at, |operand| ExprKind::Cast { operand, ty }, e)
        })
        .map(|(e, _)| e)
        .boxed()
}

/// The operator tokens `ops`, labelled "an operator" in messages. One
/// token test, not one alternative per operator: failed alternatives are
/// what costs time in chumsky (each records an error).
fn operator<'t>(
    ops: &'static [(Punct, BinaryOp)],
) -> impl Parser<'t, In<'t>, (BinaryOp, SimpleSpan), Extra<'t>> + Clone {
    chumsky::primitive::select(move |t: Token<'t>, e| match t {
        Token::Punct(p) => ops
            .iter()
            .find(|(q, _)| *q == p)
            .map(|(_, op)| (*op, e.span())),
        _ => None,
    })
    .labelled("an operator")
}

/// One left-associative infix level.
fn infix_level<'t>(operand: P<'t, Expr>, ops: &'static [(Punct, BinaryOp)]) -> P<'t, Expr> {
    let rhs = operand.clone().recover_with(via_parser(missing()));
    operand
        .map(|e| (e, 0u32))
        .foldl_with(
            operator(ops).then(rhs).repeated(),
            |acc, ((op, at), rhs), e| {
                chain_step(
                    acc,
                    at,
                    |lhs| ExprKind::Binary {
                        op,
                        lhs,
                        rhs: Box::new(rhs),
                    },
                    e,
                )
            },
        )
        .map(|(e, _)| e)
        .boxed()
}

/// The non-associative comparison level: `a < b < c` is `CK0009`.
fn comparison<'t>(ctx: Ctx<'t>, operand: P<'t, Expr>) -> P<'t, Expr> {
    let rhs = operand.clone().recover_with(via_parser(missing()));
    operand
        .then(
            operator(COMPARISONS)
                .then(rhs)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .validate(move |(first, mut rest), e, emitter| {
            let whole = e.span();
            match rest.len() {
                0 => first,
                1 => match rest.pop() {
                    Some(((op, _), rhs)) => node(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(first),
                            rhs: Box::new(rhs),
                        },
                        whole,
                    ),
                    None => first,
                },
                _ => {
                    if let (Some(((op1, at1), middle)), Some(((op2, at2), last))) =
                        (rest.first(), rest.get(1))
                    {
                        let d = chained_comparison(
                            ctx,
                            [first.span, middle.span, last.span],
                            [(*op1, *at1), (*op2, *at2)],
                        );
                        emitter.emit(custom_error(*at2, d));
                    }
                    dismantle_expr(first);
                    for (_, operand) in rest {
                        dismantle_expr(operand);
                    }
                    error_expr(whole)
                }
            }
        })
        .boxed()
}

/// The diagnostic for `a < b < c`, with the `&&` form as help.
fn chained_comparison(
    ctx: Ctx<'_>,
    operands: [Span; 3],
    ops: [(BinaryOp, SimpleSpan); 2],
) -> Diagnostic {
    let [(op1, at1), (op2, at2)] = ops;
    let text = |s: Span| ctx.text(SimpleSpan::from(s.range()), 40);
    let help = match operands.map(text) {
        [Some(a), Some(b), Some(c)] => format!(
            "compare twice and combine with `&&`: `{a} {} {b} && {b} {} {c}`",
            op1.symbol(),
            op2.symbol()
        ),
        _ => "compare twice and combine with `&&`, as in `a < b && b < c`".to_string(),
    };
    Diagnostic::new(
        Code::ChainedComparison,
        span(at2),
        "comparison operators cannot be chained",
    )
    .with_label("second comparison")
    .with_secondary(span(at1), "first comparison")
    .with_help(help)
}

/// The whole expression grammar, given the block parser it needs for
/// `if` and block expressions.
pub(super) fn expr_parser<'t>(ctx: Ctx<'t>, block: P<'t, Block>) -> P<'t, Expr> {
    recursive(move |expr| {
        let expr: P<'t, Expr> = expr.boxed();
        let ty = type_parser(expr.clone());
        let cast_ty = cast_type_parser(ty, expr.clone());
        let atom = atom(expr.clone(), block.clone());
        let postfix = postfix(ctx, atom, expr);
        let mut level = cast(unary(postfix), cast_ty);
        for ops in LEVELS {
            level = infix_level(level, ops);
        }
        let compared = comparison(ctx, level);
        let conjunction = infix_level(compared, &[(Punct::AndAnd, BinaryOp::And)]);
        infix_level(conjunction, &[(Punct::OrOr, BinaryOp::Or)])
    })
    .boxed()
}
