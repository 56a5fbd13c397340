//! Blocks and statements (spec §5).
//!
//! A block is a list of *pieces* between braces. As in Rust, a block-like
//! expression (`if`, `{ }`) at the start of a statement ends at its `}` and
//! needs no `;`, and the last expression before `}` without `;` is the
//! block's tail (its value). Recovery works at three levels: a broken
//! expression inside a statement becomes `Error` where that keeps the
//! statement (so `let x = 1 +;` still declares `x`), a broken statement is
//! skipped to its `;` or to the block's `}`, and a missing `;` before a new
//! line or a keyword is reported and assumed.

use super::expr::{expr_parser, if_parser};
use super::primitives::{
    BraceEnds, Ctx, Ended, Extra, In, P, error_expr, ident, kw, punct, skip_statement, skip_until,
    span, terminator,
};
use super::types::{recovering_type, type_parser};
use crate::ast::{AssignOp, BinaryOp, Block, Expr, ExprKind, Stmt, StmtKind, TypeExpr};
use crate::lexer::{Keyword, Punct, Token};
use chumsky::prelude::*;

/// One element of a block's body, before the tail is picked out.
#[derive(Clone)]
enum Piece {
    /// A finished statement.
    Stmt(Stmt),
    /// A stray `;`.
    Empty,
    /// An expression without `;`: a block-like one anywhere, or any one
    /// right before `}`. The last such piece is the block's tail.
    Open(Expr),
}

/// What may end an expression that recovery skipped.
const AFTER_EXPR: &[Token<'static>] = &[Token::Punct(Punct::Semi), Token::Punct(Punct::Comma)];

/// What may end a condition or loop bound that recovery skipped.
const AFTER_CONDITION: &[Token<'static>] = &[
    Token::Punct(Punct::Semi),
    Token::Punct(Punct::LBrace),
    Token::Punct(Punct::DotDot),
];

/// An expression that recovers as `Error` (skipping to `;`, `,` or a
/// closer), for the places where losing the whole statement would cascade.
pub(super) fn recovering_expr<'t>(expr: P<'t, Expr>) -> P<'t, Expr> {
    expr.recover_with(via_parser(
        skip_until(AFTER_EXPR).map_with(|(), e| error_expr(e.span())),
    ))
    .boxed()
}

/// A condition or loop bound that recovers as `Error`, stopping before the
/// body's `{`.
pub(super) fn recovering_condition<'t>(expr: P<'t, Expr>) -> P<'t, Expr> {
    expr.recover_with(via_parser(
        skip_until(AFTER_CONDITION).map_with(|(), e| error_expr(e.span())),
    ))
    .boxed()
}

/// The assignment operators.
fn assign_op<'t>() -> impl Parser<'t, In<'t>, AssignOp, Extra<'t>> + Clone {
    let compound = |p: Punct, op: BinaryOp| punct(p).to(AssignOp::Compound(op));
    choice((
        punct(Punct::Eq).to(AssignOp::Assign),
        compound(Punct::PlusEq, BinaryOp::Add),
        compound(Punct::MinusEq, BinaryOp::Sub),
        compound(Punct::StarEq, BinaryOp::Mul),
        compound(Punct::SlashEq, BinaryOp::Div),
        compound(Punct::PercentEq, BinaryOp::Rem),
        compound(Punct::AmpEq, BinaryOp::BitAnd),
        compound(Punct::PipeEq, BinaryOp::BitOr),
        compound(Punct::CaretEq, BinaryOp::BitXor),
        compound(Punct::ShlEq, BinaryOp::Shl),
        compound(Punct::ShrEq, BinaryOp::Shr),
    ))
    .labelled("an assignment operator")
}

/// One statement (or block-like expression, or tail candidate).
fn piece<'t>(
    ctx: Ctx<'t>,
    expr: P<'t, Expr>,
    ty: P<'t, TypeExpr>,
    block: P<'t, Block>,
) -> P<'t, Piece> {
    let value = recovering_expr(expr.clone());
    let condition = recovering_condition(expr.clone());
    let stmt = |kind: StmtKind, s: SimpleSpan| {
        Piece::Stmt(Stmt {
            kind,
            span: span(s),
        })
    };

    let empty = punct(Punct::Semi).to(Piece::Empty);

    let let_ = kw(Keyword::Let)
        .ignore_then(kw(Keyword::Mut).or_not().map(|m| m.is_some()))
        .then(ident())
        .then(punct(Punct::Colon).ignore_then(ty).or_not())
        .then(punct(Punct::Eq).ignore_then(value.clone()).or_not())
        .then_ignore(terminator(ctx, BraceEnds::No))
        .map_with(move |(((mutable, name), ty), init), e| {
            stmt(
                StmtKind::Let {
                    mutable,
                    name,
                    ty,
                    init,
                },
                e.span(),
            )
        });

    let for_ = kw(Keyword::For)
        .ignore_then(ident())
        .then_ignore(kw(Keyword::In))
        .then(condition.clone())
        .then_ignore(punct(Punct::DotDot))
        .then(condition.clone())
        .then(block.clone())
        .map_with(move |(((var, start), end), body), e| {
            stmt(
                StmtKind::For {
                    var,
                    start,
                    end,
                    body,
                },
                e.span(),
            )
        });

    let while_ = kw(Keyword::While)
        .ignore_then(condition)
        .then(block.clone())
        .map_with(move |(cond, body), e| stmt(StmtKind::While { cond, body }, e.span()));

    let loop_ = kw(Keyword::Loop)
        .ignore_then(block.clone())
        .map_with(move |body, e| stmt(StmtKind::Loop { body }, e.span()));

    let jump = choice((
        kw(Keyword::Break).to(StmtKind::Break),
        kw(Keyword::Continue).to(StmtKind::Continue),
        kw(Keyword::Discard).to(StmtKind::Discard),
    ))
    .then_ignore(terminator(ctx, BraceEnds::Yes))
    .map_with(move |kind, e| stmt(kind, e.span()));

    let return_ = kw(Keyword::Return)
        .ignore_then(expr.clone().or_not())
        .then_ignore(terminator(ctx, BraceEnds::Yes))
        .map_with(move |value, e| stmt(StmtKind::Return(value), e.span()));

    let block_like = choice((
        if_parser(expr.clone(), block.clone()),
        block.map(|b| Expr {
            span: b.span,
            kind: ExprKind::Block(b),
        }),
    ))
    .then(punct(Punct::Semi).or_not())
    .map_with(move |(e, semi), extra| match semi {
        Some(_) => stmt(StmtKind::Expr(e), extra.span()),
        None => Piece::Open(e),
    });

    let expression = expr
        .then(assign_op().then(value).or_not())
        .then(terminator(ctx, BraceEnds::Yes))
        .map_with(move |((target, assign), ended), e| match assign {
            Some((op, value)) => stmt(StmtKind::Assign { target, op, value }, e.span()),
            None if ended == Ended::BeforeBrace => Piece::Open(target),
            None => stmt(StmtKind::Expr(target), e.span()),
        });

    choice((
        empty, let_, for_, while_, loop_, jump, return_, block_like, expression,
    ))
    .labelled("statement")
    .recover_with(via_parser(skip_statement(ctx).map_with(move |(), e| {
        stmt(StmtKind::Expr(error_expr(e.span())), e.span())
    })))
    .boxed()
}

/// Turns a block's pieces into statements and a tail.
fn assemble(pieces: Vec<Piece>, s: SimpleSpan) -> Block {
    let count = pieces.len();
    let mut stmts = Vec::with_capacity(count);
    let mut tail = None;
    for (i, piece) in pieces.into_iter().enumerate() {
        match piece {
            Piece::Stmt(st) => stmts.push(st),
            Piece::Empty => {}
            Piece::Open(e) if i + 1 == count => tail = Some(Box::new(e)),
            Piece::Open(e) => stmts.push(Stmt {
                span: e.span,
                kind: StmtKind::Expr(e),
            }),
        }
    }
    Block {
        stmts,
        tail,
        span: span(s),
    }
}

/// The block parser: `{ pieces }`. It is the root of the grammar's
/// recursion; expressions and types are built inside it.
pub(super) fn block_parser<'t>(ctx: Ctx<'t>) -> P<'t, Block> {
    recursive(move |block| {
        let block: P<'t, Block> = block.boxed();
        let expr = expr_parser(ctx, block.clone());
        let ty = recovering_type(type_parser(expr.clone()));
        piece(ctx, expr, ty, block)
            .repeated()
            .collect::<Vec<_>>()
            .delimited_by(punct(Punct::LBrace), punct(Punct::RBrace))
            .map_with(|pieces, e| assemble(pieces, e.span()))
    })
    .boxed()
}
