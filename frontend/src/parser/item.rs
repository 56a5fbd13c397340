//! Items (spec §2) and the whole file: `const`, `fn`, `kernel`, `reduce`.
//!
//! A broken item is skipped up to the next item keyword. Inside an item,
//! a broken parameter is skipped to its `,` or `)`, a broken type becomes
//! `Error`, and a missing `const` type or `reduce` result type, or a
//! kernel's result type, is reported without losing the item.

use super::expr::expr_parser;
use super::primitives::{
    BraceEnds, Ctx, Extra, In, P, custom_error, expected_found, group, ident, is_closer, kw, label,
    pattern, peek_with_span, punct, skip_item, skip_one, span, terminator,
};
use super::stmt::{block_parser, recovering_expr};
use super::types::{recovering_type, type_parser};
use crate::ast::{
    ConstItem, File, FnItem, Ident, Item, KernelItem, Param, ReduceItem, TypeExpr, TypeExprKind,
};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Keyword, Punct, Token};
use chumsky::input::InputRef;
use chumsky::prelude::*;

/// Recovery for a broken parameter: skips at least one token (groups
/// whole) up to the next `,` or `)`.
fn skip_parameter<'t>() -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let mut skipped = false;
        loop {
            let (token, s) = peek_with_span(inp);
            match token {
                Some(t) if !is_closer(&t) && t != Token::Punct(Punct::Comma) => {
                    skip_one(inp);
                    skipped = true;
                }
                other => {
                    return if skipped {
                        Ok(())
                    } else {
                        Err(expected_found(vec![label("parameter")], other, s))
                    };
                }
            }
        }
    })
}

/// The `,` after a parameter, or the `)` that ends the list. A missing `,`
/// before another parameter is reported and assumed; anything else is
/// reported and skipped to the next `,` or `)`, so the list is never lost.
fn parameter_separator<'t>() -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (token, s) = peek_with_span(inp);
        match &token {
            Some(Token::Punct(Punct::Comma)) => {
                inp.next();
                return Ok(());
            }
            Some(t) if is_closer(t) => return Ok(()),
            None => return Ok(()),
            _ => {}
        }
        let starts_parameter =
            matches!(token, Some(Token::Ident(_) | Token::Keyword(Keyword::Mut)));
        inp.emit(expected_found(
            vec![
                pattern(Token::Punct(Punct::Comma)),
                pattern(Token::Punct(Punct::RParen)),
            ],
            token,
            s,
        ));
        if !starts_parameter {
            while let Some(t) = inp.peek() {
                if is_closer(&t) {
                    break;
                }
                skip_one(inp);
                if t == Token::Punct(Punct::Comma) {
                    break;
                }
            }
        }
        Ok(())
    })
}

/// A parameter without `: T`: reported, and given an `Error` type so that
/// the name stays known to the checker.
fn missing_parameter_type<'t>() -> impl Parser<'t, In<'t>, TypeExpr, Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (token, s) = peek_with_span(inp);
        match &token {
            Some(Token::Punct(Punct::Comma | Punct::RParen)) | None => {
                inp.emit(expected_found(
                    vec![pattern(Token::Punct(Punct::Colon))],
                    token,
                    s,
                ));
                Ok(TypeExpr {
                    kind: TypeExprKind::Error,
                    span: span(SimpleSpan::from(s.start..s.start)),
                })
            }
            _ => Err(expected_found(
                vec![pattern(Token::Punct(Punct::Colon))],
                token,
                s,
            )),
        }
    })
}

/// An `Error` type standing for a missing one, right after `after`.
fn missing_type(after: &Ident) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Error,
        span: after.span.end_point(),
    }
}

/// The file parser.
pub(super) fn file_parser<'t>(ctx: Ctx<'t>) -> P<'t, File> {
    let block = block_parser(ctx);
    let expr = expr_parser(ctx, block.clone());
    let ty = recovering_type(type_parser(expr.clone()));
    let value = recovering_expr(expr);

    let param = kw(Keyword::Mut)
        .or_not()
        .then(ident())
        .then(choice((
            punct(Punct::Colon).ignore_then(ty.clone()),
            missing_parameter_type(),
        )))
        .map_with(|((mutable, name), ty), e| {
            Some(Param {
                mutable: mutable.is_some(),
                name,
                ty,
                span: span(e.span()),
            })
        })
        .labelled("parameter")
        .recover_with(via_parser(skip_parameter().to(None)));
    let params = param
        .then_ignore(parameter_separator())
        .repeated()
        .collect::<Vec<_>>()
        .delimited_by(punct(Punct::LParen), punct(Punct::RParen))
        .map(|params| params.into_iter().flatten().collect::<Vec<_>>())
        .recover_with(via_parser(group(Punct::LParen).to(Vec::new())));
    let result = punct(Punct::Arrow).ignore_then(ty.clone());

    let const_ = kw(Keyword::Const)
        .ignore_then(ident())
        .then(punct(Punct::Colon).ignore_then(ty).or_not())
        .validate(|(name, ty), _, emitter| {
            let ty = ty.unwrap_or_else(|| {
                let at = SimpleSpan::from(name.span.range());
                emitter.emit(custom_error(
                    at,
                    Diagnostic::new(
                        Code::SyntaxError,
                        name.span,
                        "missing type for `const` item",
                    )
                    .with_label("needs a type")
                    .with_help(format!(
                        "write the type after the name: `{}: f32`",
                        name.name
                    )),
                ));
                missing_type(&name)
            });
            (name, ty)
        })
        .then_ignore(punct(Punct::Eq))
        .then(value)
        .then_ignore(terminator(ctx, BraceEnds::No))
        .map_with(|((name, ty), value), e| {
            Item::Const(ConstItem {
                name,
                ty,
                value,
                span: span(e.span()),
            })
        });

    let fn_ = kw(Keyword::Fn)
        .ignore_then(ident())
        .then(params.clone())
        .then(result.clone().or_not())
        .then(block.clone())
        .map_with(|(((name, params), ret), body), e| {
            Item::Fn(FnItem {
                name,
                params,
                ret,
                body,
                span: span(e.span()),
            })
        });

    let kernel = kw(Keyword::Kernel)
        .ignore_then(ident())
        .then(params.clone())
        .then(result.clone().or_not())
        .validate(|((name, params), ret), _, emitter| {
            if let Some(ret) = ret {
                emitter.emit(custom_error(
                    SimpleSpan::from(ret.span.range()),
                    Diagnostic::new(Code::SyntaxError, ret.span, "kernels do not return a value")
                        .with_label("remove this result type")
                        .with_help("a kernel writes its results to `Out<T>` parameters"),
                ));
            }
            (name, params)
        })
        .then(block.clone())
        .map_with(|((name, params), body), e| {
            Item::Kernel(KernelItem {
                name,
                params,
                body,
                span: span(e.span()),
            })
        });

    let reduce = kw(Keyword::Reduce)
        .ignore_then(ident())
        .then(params)
        .then(result.or_not())
        .validate(|((name, params), ret), _, emitter| {
            let ret = ret.unwrap_or_else(|| {
                emitter.emit(custom_error(
                    SimpleSpan::from(name.span.range()),
                    Diagnostic::new(
                        Code::SyntaxError,
                        name.span,
                        "a reduction needs a result type",
                    )
                    .with_label("no `-> T` after the parameters")
                    .with_help("write it as in `reduce sum(a: f32, b: f32) -> f32 { a + b }`"),
                ));
                missing_type(&name)
            });
            (name, params, ret)
        })
        .then(block)
        .map_with(|((name, params, ret), body), e| {
            Item::Reduce(ReduceItem {
                name,
                params,
                ret,
                body,
                span: span(e.span()),
            })
        });

    choice((const_, fn_, kernel, reduce))
        .map(Some)
        .labelled("item")
        .recover_with(via_parser(skip_item().to(None)))
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(end())
        .map(|items| File {
            items: items.into_iter().flatten().collect(),
        })
        .boxed()
}
