//! Token-level building blocks shared by the grammar: the parser's input
//! and error types, keyword/punctuation/identifier parsers, skipping of
//! balanced groups for error recovery, and statement terminators (with the
//! "missing `;`" recovery).
//!
//! The skipping parsers are imperative ([`chumsky::primitive::custom`]) and
//! count depth instead of recursing, so recovery costs no stack.

use crate::ast::{Expr, ExprKind, Ident};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Keyword, Punct, Token};
use crate::span::Span;
use chumsky::error::{LabelError, RichPattern};
use chumsky::input::{InputRef, MappedInput};
use chumsky::prelude::*;
use chumsky::util::MaybeRef;
use std::borrow::Cow;

/// The parser's input: tokens with chumsky spans.
pub(super) type In<'t> = MappedInput<'t, Token<'t>, SimpleSpan, &'t [(Token<'t>, SimpleSpan)]>;

/// The parser's error: chumsky's rich error, whose custom variant carries a
/// finished [`Diagnostic`] (chained comparisons, method calls, ...).
pub(super) type PErr<'t> = Rich<'t, Token<'t>, SimpleSpan, Box<Diagnostic>>;

/// Parser extras: just the error type.
pub(super) type Extra<'t> = extra::Err<PErr<'t>>;

/// A type-erased parser producing `O`.
pub(super) type P<'t, O> = Boxed<'t, 't, In<'t>, O, Extra<'t>>;

/// What every grammar function may consult: the source text (for help
/// messages and line breaks) and the token list being parsed.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'t> {
    /// The source text.
    pub src: &'t str,
    /// The tokens the parser runs over.
    pub toks: &'t [(Token<'t>, SimpleSpan)],
}

impl<'t> Ctx<'t> {
    /// The source text under `span`, shortened to `max` characters.
    pub fn text(&self, span: SimpleSpan, max: usize) -> Option<&'t str> {
        let text = self.src.get(span.start..span.end)?;
        (text.chars().count() <= max && !text.contains('\n')).then_some(text)
    }

    /// The span of the last non-empty token ending at or before `start`.
    pub fn token_before(&self, start: usize) -> Option<SimpleSpan> {
        let index = self.toks.partition_point(|(_, s)| s.start < start);
        self.toks
            .get(..index)?
            .iter()
            .rev()
            .map(|(_, s)| *s)
            .find(|s| s.start < s.end && s.end <= start)
    }

    /// `true` if a line break separates the token starting at `start` from
    /// the token before it.
    pub fn line_break_before(&self, start: usize) -> bool {
        let Some(previous_end) = self.token_before(start).map(|s| s.end) else {
            return false;
        };
        self.src
            .get(previous_end.min(start)..start)
            .is_some_and(|gap| gap.contains('\n'))
    }
}

/// Converts a chumsky span. A zero-width span between two tokens comes out
/// of chumsky as `next token start .. previous token end`; it becomes an
/// empty span at the end of the previous token (where something is
/// missing).
pub(super) fn span(s: SimpleSpan) -> Span {
    Span::new(s.start.min(s.end), s.end)
}

/// An expression of kind `kind` at `s`.
pub(super) fn expr(kind: ExprKind, s: SimpleSpan) -> Expr {
    Expr {
        kind,
        span: span(s),
    }
}

/// The error placeholder expression at `s`.
pub(super) fn error_expr(s: SimpleSpan) -> Expr {
    expr(ExprKind::Error, s)
}

/// A custom error carrying a finished diagnostic.
pub(super) fn custom_error<'t>(s: SimpleSpan, d: Diagnostic) -> PErr<'t> {
    Rich::custom(s, Box::new(d))
}

/// An "expected ..., found ..." error.
pub(super) fn expected_found<'t>(
    expected: Vec<RichPattern<'t, Token<'t>>>,
    found: Option<Token<'t>>,
    s: SimpleSpan,
) -> PErr<'t> {
    <PErr<'t> as LabelError<'t, In<'t>, RichPattern<'t, Token<'t>>>>::expected_found(
        expected,
        found.map(MaybeRef::Val),
        s,
    )
}

/// The pattern "the token `t`".
pub(super) fn pattern<'t>(t: Token<'t>) -> RichPattern<'t, Token<'t>> {
    RichPattern::Token(MaybeRef::Val(t))
}

/// The pattern "a thing described by `label`".
pub(super) fn label<'t>(label: &'static str) -> RichPattern<'t, Token<'t>> {
    RichPattern::Label(Cow::Borrowed(label))
}

/// The next token and its span, without consuming it (an empty span at
/// the end of input for `None`).
pub(super) fn peek_with_span<'t>(
    inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>,
) -> (Option<Token<'t>>, SimpleSpan) {
    let save = inp.save();
    let before = inp.cursor();
    let token = inp.next();
    let s = inp.span_since(&before);
    inp.rewind(save);
    (token, s)
}

/// Parses the keyword `k`.
pub(super) fn kw<'t>(k: Keyword) -> impl Parser<'t, In<'t>, Token<'t>, Extra<'t>> + Clone {
    just(Token::Keyword(k))
}

/// Parses the punctuation `p`.
pub(super) fn punct<'t>(p: Punct) -> impl Parser<'t, In<'t>, Token<'t>, Extra<'t>> + Clone {
    just(Token::Punct(p))
}

/// Parses an identifier.
pub(super) fn ident<'t>() -> impl Parser<'t, In<'t>, Ident, Extra<'t>> + Clone {
    select! { Token::Ident(name) => name }
        .map_with(|name: &str, e| Ident {
            name: name.to_string(),
            span: span(e.span()),
        })
        .labelled("identifier")
}

/// `true` for `(`, `[` and `{`.
pub(super) fn is_opener(t: &Token<'_>) -> bool {
    matches!(
        t,
        Token::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace)
    )
}

/// `true` for `)`, `]` and `}`.
pub(super) fn is_closer(t: &Token<'_>) -> bool {
    matches!(
        t,
        Token::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace)
    )
}

/// `true` for the keywords that start an item.
pub(super) fn is_item_keyword(t: &Token<'_>) -> bool {
    matches!(
        t,
        Token::Keyword(Keyword::Fn | Keyword::Kernel | Keyword::Reduce | Keyword::Const)
    )
}

/// `true` for the keywords that start a statement (or an item), before
/// which a missing `;` is assumed rather than reported as a cascade.
fn starts_statement(t: &Token<'_>) -> bool {
    is_item_keyword(t)
        || matches!(
            t,
            Token::Keyword(
                Keyword::Let
                    | Keyword::If
                    | Keyword::For
                    | Keyword::While
                    | Keyword::Loop
                    | Keyword::Break
                    | Keyword::Continue
                    | Keyword::Return
                    | Keyword::Discard
            )
        )
}

/// Consumes one token, or a whole balanced group if it is an opener. The
/// delimiter pre-pass guarantees that groups are balanced.
pub(super) fn skip_one<'t>(inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>) -> bool {
    match inp.next() {
        None => false,
        Some(t) if is_opener(&t) => {
            let mut depth = 1usize;
            while depth > 0 {
                match inp.next() {
                    None => break,
                    Some(t) if is_opener(&t) => depth += 1,
                    Some(t) if is_closer(&t) => depth -= 1,
                    Some(_) => {}
                }
            }
            true
        }
        Some(_) => true,
    }
}

/// Skips one balanced group starting with `opener`; fails elsewhere. The
/// recovery for a broken `( ... )`, `[ ... ]` or `{ ... }`.
pub(super) fn group<'t>(opener: Punct) -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(move |inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (token, s) = peek_with_span(inp);
        match token {
            Some(Token::Punct(p)) if p == opener => {
                skip_one(inp);
                Ok(())
            }
            other => Err(expected_found(
                vec![pattern(Token::Punct(opener))],
                other,
                s,
            )),
        }
    })
}

/// Skips tokens (groups whole) until the next token is one of `stops`, a
/// closer, or the end. Consumes nothing if already there: a zero-width
/// recovery for places that must produce *something*.
pub(super) fn skip_until<'t>(
    stops: &'static [Token<'static>],
) -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(move |inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        loop {
            match inp.peek() {
                None => return Ok(()),
                Some(t) if is_closer(&t) || stops.contains(&t) => return Ok(()),
                Some(_) => {
                    skip_one(inp);
                }
            }
        }
    })
}

/// Recovery for a broken statement: skips at least one token (groups
/// whole) up to and including the next `;`, up to the `}` closing the
/// block, or up to the end of a `{ ... }` group followed by a new line or
/// a statement keyword (a broken `while x y { ... }` ends with its body).
/// Fails at `}` or the end, so that a block's statement list ends.
pub(super) fn skip_statement<'t>(ctx: Ctx<'t>) -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(move |inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (first, s) = peek_with_span(inp);
        match first {
            None => return Err(expected_found(vec![label("statement")], None, s)),
            Some(t) if is_closer(&t) => {
                return Err(expected_found(vec![label("statement")], Some(t), s));
            }
            _ => {}
        }
        loop {
            match inp.peek() {
                None => return Ok(()),
                Some(t) if is_closer(&t) => return Ok(()),
                Some(Token::Punct(Punct::Semi)) => {
                    inp.next();
                    return Ok(());
                }
                Some(t) => {
                    skip_one(inp);
                    if t == Token::Punct(Punct::LBrace) {
                        let (after, at) = peek_with_span(inp);
                        let ends = match &after {
                            None => true,
                            Some(a) => starts_statement(a) || ctx.line_break_before(at.start),
                        };
                        if ends {
                            return Ok(());
                        }
                    }
                }
            }
        }
    })
}

/// Recovery for a broken item: skips its first token (or group), then
/// everything up to the next item keyword or the end. Fails only at the
/// end of input.
pub(super) fn skip_item<'t>() -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (first, s) = peek_with_span(inp);
        if first.is_none() {
            return Err(expected_found(vec![label("item")], None, s));
        }
        skip_one(inp);
        while let Some(t) = inp.peek() {
            if is_item_keyword(&t) {
                break;
            }
            skip_one(inp);
        }
        Ok(())
    })
}

/// How a statement ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ended {
    /// With its `;`.
    Semicolon,
    /// Right before the `}` of its block, without `;`.
    BeforeBrace,
    /// Without `;` where one was needed (already reported).
    Missing,
}

/// Whether `}` may end a statement instead of `;`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum BraceEnds {
    /// `let` and `const`: `;` is required.
    No,
    /// Expression statements, `break`, `return`, ...: `}` will do.
    Yes,
}

/// The end of a statement or `const` item. A missing `;` is reported and
/// assumed when the next token starts a statement or an item, or is on a
/// new line (the statement is complete and parsing resumes right there).
/// Anything else is a syntax error, after which the rest of the statement
/// is skipped (to its `;`, the block's `}`, or a keyword that starts a
/// statement or item) and the statement is kept as parsed so far, so that
/// `let z = 1.0 2.0;` still declares `z`.
pub(super) fn terminator<'t>(
    ctx: Ctx<'t>,
    brace: BraceEnds,
) -> impl Parser<'t, In<'t>, Ended, Extra<'t>> + Clone {
    plain_terminator(ctx, brace).recover_with(via_parser(skip_rest().to(Ended::Missing)))
}

/// Skips the rest of a broken statement: up to and including `;`, or up to
/// a closer or a keyword that starts a statement or an item.
fn skip_rest<'t>() -> impl Parser<'t, In<'t>, (), Extra<'t>> + Clone {
    custom(|inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        loop {
            match inp.peek() {
                None => return Ok(()),
                Some(t) if is_closer(&t) || starts_statement(&t) => return Ok(()),
                Some(Token::Punct(Punct::Semi)) => {
                    inp.next();
                    return Ok(());
                }
                Some(_) => {
                    skip_one(inp);
                }
            }
        }
    })
}

/// [`terminator`] without its recovery.
fn plain_terminator<'t>(
    ctx: Ctx<'t>,
    brace: BraceEnds,
) -> impl Parser<'t, In<'t>, Ended, Extra<'t>> + Clone {
    custom(move |inp: &mut InputRef<'t, '_, In<'t>, Extra<'t>>| {
        let (token, s) = peek_with_span(inp);
        let expected = || match brace {
            BraceEnds::No => vec![pattern(Token::Punct(Punct::Semi))],
            BraceEnds::Yes => vec![
                pattern(Token::Punct(Punct::Semi)),
                pattern(Token::Punct(Punct::RBrace)),
            ],
        };
        let wanted = match brace {
            BraceEnds::No => "expected `;`",
            BraceEnds::Yes => "expected one of `;`, `}`",
        };
        match &token {
            Some(Token::Punct(Punct::Semi)) => {
                inp.next();
                return Ok(Ended::Semicolon);
            }
            Some(Token::Punct(Punct::RBrace)) if brace == BraceEnds::Yes => {
                return Ok(Ended::BeforeBrace);
            }
            _ => {}
        }
        let assume = match &token {
            None => true,
            Some(Token::Error) => false,
            Some(t) => is_closer(t) || starts_statement(t) || ctx.line_break_before(s.start),
        };
        if !assume {
            return Err(expected_found(expected(), token, s));
        }
        let found = match &token {
            None => "end of file".to_string(),
            Some(t) => match ctx.text(s, 24).filter(|t| !t.is_empty()) {
                Some(text) => format!("`{text}`"),
                None => format!("`{t}`"),
            },
        };
        let mut d = Diagnostic::new(
            Code::SyntaxError,
            span(s),
            format!("{wanted}, found {found}"),
        )
        .with_label("unexpected here")
        .with_help("statements and `const` items end with `;`");
        if let Some(previous) = ctx.token_before(s.start) {
            d = d.with_secondary(span(previous), "add `;` after this");
        }
        inp.emit(custom_error(s, d));
        Ok(Ended::Missing)
    })
}
