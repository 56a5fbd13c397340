//! The pass between lexer and parser: delimiter balance and nesting bounds.
//!
//! It owns `CK0007` and the pre-parse half of `CK0008`:
//!
//! - Brackets (`( ) [ ] { }`) are matched with an explicit stack. The
//!   token list handed to the parser is *repaired* so that it is always
//!   balanced: an unclosed opener gets a zero-width closer where its closer
//!   was due (before the mismatched closer that closes an outer group, before
//!   an item keyword in the first column of a line, or at the end of the file); a
//!   wrong closer inside a `(`/`[` group stands for the right one; a
//!   closer that closes nothing is dropped. The parser can then recover
//!   inside delimiters without ever losing its place, and syntax errors
//!   between an unclosed opener and its invented closer are known to be
//!   consequences (they are *shadowed*, see [`Prepared::shadows`]).
//! - Bracket nesting deeper than [`MAX_NESTING`] and runs of more than
//!   [`MAX_NESTING`] prefix operators are refused before parsing, which
//!   bounds the parser's recursion (see `docs/syntax.md`).

use super::MAX_NESTING;
use super::primitives::is_item_keyword;
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Punct, Token};
use crate::span::Span;
use chumsky::span::SimpleSpan;

/// The result of the pass.
pub(super) struct Prepared<'s> {
    /// Balanced tokens for the parser.
    pub tokens: Vec<(Token<'s>, SimpleSpan)>,
    /// `CK0007` diagnostics.
    pub diags: Vec<Diagnostic>,
    /// Byte ranges `start..=end` inside which syntax errors are consequences
    /// of an unclosed delimiter and are not reported.
    pub shadows: Vec<(u32, u32)>,
}

/// How many unclosed openers one diagnostic labels (the rest are counted
/// in a note).
const MAX_OPENERS_SHOWN: usize = 8;

/// An opener on the stack.
struct Open {
    opener: Punct,
    span: Span,
}

/// The closer matching `opener`.
fn closer_of(opener: Punct) -> Punct {
    match opener {
        Punct::LParen => Punct::RParen,
        Punct::LBracket => Punct::RBracket,
        _ => Punct::RBrace,
    }
}

/// The diagnostic for a nesting or prefix-run bound exceeded at `at`.
fn too_deep(at: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        Code::NestingTooDeep,
        at,
        format!("nesting too deep: the limit is {MAX_NESTING} levels"),
    )
    .with_label(format!("this {what} goes past the limit"))
    .with_help("split the code into `let` bindings or helper functions")
}

/// Whether the end of the file is where the text really ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum FileEnd {
    /// The last token is the end of the text.
    Normal,
    /// An unterminated comment swallowed the rest of the text (already
    /// reported), so delimiters left open at the end are not reported.
    Swallowed,
}

/// Checks delimiters and nesting of `tokens` and returns the repaired
/// token list, or the `CK0008` diagnostic if nesting is too deep (the
/// source is then not parsed at all).
pub(super) fn prepare<'s>(
    tokens: Vec<(Token<'s>, Span)>,
    source: &str,
    end: FileEnd,
) -> Result<Prepared<'s>, Box<Diagnostic>> {
    let mut out: Vec<(Token<'s>, SimpleSpan)> = Vec::with_capacity(tokens.len() + 8);
    let mut diags = Vec::new();
    let mut shadows = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut prefix_run = 0usize;
    let simple = |s: Span| SimpleSpan::from(s.range());

    // Closes every opener above `keep` with zero-width closers at `at`,
    // reporting them as unclosed (primary span `due`, labelled `due_label`).
    let close_down_to = |stack: &mut Vec<Open>,
                         keep: usize,
                         at: u32,
                         due: Span,
                         due_label: &str,
                         out: &mut Vec<(Token<'s>, SimpleSpan)>,
                         diags: &mut Vec<Diagnostic>,
                         shadows: &mut Vec<(u32, u32)>| {
        let mut diag: Option<Diagnostic> = None;
        let mut unshown = 0usize;
        while stack.len() > keep {
            let Some(open) = stack.pop() else { break };
            let closer = closer_of(open.opener);
            out.push((
                Token::Punct(closer),
                SimpleSpan::from(at as usize..at as usize),
            ));
            shadows.push((open.span.start, at));
            diag = Some(match diag {
                None => Diagnostic::new(
                    Code::UnclosedDelimiter,
                    due,
                    format!("unclosed delimiter `{}`", open.opener.as_str()),
                )
                .with_label(format!("{due_label} `{}`", closer.as_str()))
                .with_secondary(open.span, "unclosed delimiter"),
                Some(d) if d.secondary.len() < MAX_OPENERS_SHOWN => {
                    d.with_secondary(open.span, "unclosed delimiter")
                }
                Some(d) => {
                    unshown += 1;
                    d
                }
            });
        }
        if let Some(mut d) = diag {
            if unshown > 0 {
                d = d.with_note(format!("{unshown} more delimiters are unclosed"));
            }
            diags.push(d);
        }
    };

    for (token, span) in tokens {
        if matches!(token, Token::Punct(Punct::Minus | Punct::Bang)) {
            prefix_run += 1;
            if prefix_run > MAX_NESTING {
                return Err(Box::new(too_deep(span, "prefix operator")));
            }
        } else {
            prefix_run = 0;
        }
        match token {
            Token::Punct(p @ (Punct::LParen | Punct::LBracket | Punct::LBrace)) => {
                stack.push(Open { opener: p, span });
                if stack.len() > MAX_NESTING {
                    return Err(Box::new(too_deep(span, "delimiter")));
                }
                out.push((token, simple(span)));
            }
            Token::Punct(p @ (Punct::RParen | Punct::RBracket | Punct::RBrace)) => {
                let top = stack.last().map(|o| o.opener);
                if top.map(closer_of) == Some(p) {
                    stack.pop();
                    out.push((token, simple(span)));
                } else if let Some(depth) = stack.iter().rposition(|o| closer_of(o.opener) == p) {
                    // Closes an outer group: the groups inside it are unclosed.
                    close_down_to(
                        &mut stack,
                        depth + 1,
                        span.start,
                        span,
                        "expected",
                        &mut out,
                        &mut diags,
                        &mut shadows,
                    );
                    stack.pop();
                    out.push((token, simple(span)));
                } else if let Some(open) = stack
                    .last()
                    .filter(|o| matches!(o.opener, Punct::LParen | Punct::LBracket))
                {
                    // `(a]`: a wrong closer for a paren or bracket group.
                    let right = closer_of(open.opener);
                    diags.push(
                        Diagnostic::new(
                            Code::UnclosedDelimiter,
                            span,
                            format!("mismatched closing delimiter `{}`", p.as_str()),
                        )
                        .with_label(format!("expected `{}`", right.as_str()))
                        .with_secondary(open.span, "opened here")
                        .with_help(format!("write `{}`", right.as_str())),
                    );
                    stack.pop();
                    out.push((Token::Punct(right), simple(span)));
                } else {
                    diags.push(
                        Diagnostic::new(
                            Code::UnclosedDelimiter,
                            span,
                            format!("unexpected closing delimiter `{}`", p.as_str()),
                        )
                        .with_label("nothing to close here")
                        .with_help("remove it, or add the opening delimiter it belongs to"),
                    );
                }
            }
            t if is_item_keyword(&t) && !stack.is_empty() && starts_line(source, span) => {
                // An item at the start of a line: whatever is open above
                // it was never closed.
                close_down_to(
                    &mut stack,
                    0,
                    span.start,
                    span,
                    "expected",
                    &mut out,
                    &mut diags,
                    &mut shadows,
                );
                out.push((token, simple(span)));
            }
            _ => out.push((token, simple(span))),
        }
    }
    let eof = Span::new(source.len(), source.len());
    let mut at_end = Vec::new();
    close_down_to(
        &mut stack,
        0,
        eof.start,
        eof,
        "the file ends here; expected",
        &mut out,
        &mut at_end,
        &mut shadows,
    );
    if end == FileEnd::Normal {
        diags.extend(at_end);
    }
    Ok(Prepared {
        tokens: out,
        diags,
        shadows,
    })
}

/// `true` if `span` starts in the first column of a line (items nested
/// in a block are indented; an item in column 1 is a new top-level item).
fn starts_line(source: &str, span: Span) -> bool {
    let before = source.get(..span.start as usize).unwrap_or("");
    before.is_empty() || before.ends_with('\n')
}
