//! Types as written (spec §3, §4): names, `Name<T>`, `[T; N]` and `()`.
//!
//! Generic nesting (`In<In<f32>>`, meaningless but possible to write) is
//! parsed as a flat run of `Name <` prefixes and then counted `>`/`>>`
//! closers, so it needs no recursion and `>>` closes two levels, as in
//! Rust. Only `[T; N]` recurses, and brackets are bounded by the pre-pass.

use super::primitives::{Extra, In, P, PErr, custom_error, ident, punct, skip_until, span};
use crate::ast::{Expr, Ident, TypeExpr, TypeExprKind};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Punct, Token};
use chumsky::input::InputRef;
use chumsky::prelude::*;

/// Where a broken type's recovery stops: what may follow a type.
const AFTER_TYPE: &[Token<'static>] = &[
    Token::Punct(Punct::Comma),
    Token::Punct(Punct::Eq),
    Token::Punct(Punct::Semi),
    Token::Punct(Punct::LBrace),
    Token::Punct(Punct::Gt),
    Token::Punct(Punct::Shr),
];

/// A type with no generic prefix: a name, `[T; N]` or `()`.
fn simple_type<'t>(ty: P<'t, TypeExpr>, expr: P<'t, Expr>) -> P<'t, TypeExpr> {
    let named = ident().map(TypeExprKind::Named);
    let unit = punct(Punct::LParen)
        .then(punct(Punct::RParen))
        .to(TypeExprKind::Unit);
    let array = ty
        .then_ignore(punct(Punct::Semi))
        .then(expr)
        .delimited_by(punct(Punct::LBracket), punct(Punct::RBracket))
        .map(|(elem, len)| TypeExprKind::Array {
            elem: Box::new(elem),
            len: Box::new(len),
        });
    choice((named, unit, array))
        .map_with(|kind, e| TypeExpr {
            kind,
            span: span(e.span()),
        })
        .labelled("type")
        .boxed()
}

/// Consumes `>` and `>>` tokens while they are needed to close `wanted`
/// generic levels and returns how many levels they closed.
fn closers<'t>() -> impl Parser<'t, In<'t>, usize, Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let mut closed = 0usize;
        loop {
            match inp.peek() {
                Some(Token::Punct(Punct::Gt)) => closed += 1,
                Some(Token::Punct(Punct::Shr)) => closed += 2,
                _ => return Ok::<usize, PErr<'t>>(closed),
            }
            inp.next();
        }
    })
}

/// The full type parser: `Name<...<T>...>` or a simple type.
pub(super) fn type_parser<'t>(expr: P<'t, Expr>) -> P<'t, TypeExpr> {
    recursive(move |ty| {
        let simple = simple_type(ty.boxed(), expr.clone());
        let prefixes = ident()
            .then_ignore(punct(Punct::Lt))
            .repeated()
            .at_least(1)
            .collect::<Vec<Ident>>();
        let generic = prefixes
            .then(simple.clone())
            .then(closers().map_with(|n, e| (n, e.span())))
            .validate(|((names, inner), (closed, closers_span)), e, emitter| {
                let wanted = names.len();
                if closed < wanted {
                    // The innermost `Name<` left open.
                    if let Some(open) = names.get(wanted - closed - 1) {
                        emitter.emit(custom_error(
                            closers_span,
                            Diagnostic::new(
                                Code::SyntaxError,
                                open.span,
                                format!("expected `>` to close `{}<`", open.name),
                            )
                            .with_label("this `<` is never closed")
                            .with_help("add `>` after the type argument"),
                        ));
                    }
                } else if closed > wanted {
                    emitter.emit(custom_error(
                        closers_span,
                        Diagnostic::new(
                            Code::SyntaxError,
                            span(closers_span),
                            "unmatched `>` after a type",
                        )
                        .with_label("this closes more `<` than were opened")
                        .with_help("remove the extra `>`"),
                    ));
                }
                let whole = e.span();
                names.into_iter().rev().fold(inner, |arg, name| TypeExpr {
                    span: span(SimpleSpan::from(name.span.start as usize..whole.end)),
                    kind: TypeExprKind::Generic {
                        name,
                        arg: Box::new(arg),
                    },
                })
            });
        choice((generic, simple)).boxed()
    })
    .boxed()
}

/// The type after `as`: a simple type, never generic, so that
/// `x as i32 < y` compares (Rust would read a generic argument list).
pub(super) fn cast_type_parser<'t>(ty: P<'t, TypeExpr>, expr: P<'t, Expr>) -> P<'t, TypeExpr> {
    simple_type(ty, expr)
        .recover_with(via_parser(error_type()))
        .boxed()
}

/// A zero-or-more-token recovery for a type: skips to what may follow a
/// type and stands for the type there.
fn error_type<'t>() -> impl Parser<'t, In<'t>, TypeExpr, Extra<'t>> + Clone {
    skip_until(AFTER_TYPE).map_with(|(), e| TypeExpr {
        kind: TypeExprKind::Error,
        span: span(e.span()),
    })
}

/// A type that recovers from errors as [`TypeExprKind::Error`], for
/// parameters, `let`, `const` and return types.
pub(super) fn recovering_type<'t>(ty: P<'t, TypeExpr>) -> P<'t, TypeExpr> {
    ty.recover_with(via_parser(error_type())).boxed()
}
