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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    /// `true` if the brackets of `tokens` are balanced and properly nested.
    fn balanced(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
        let mut stack = Vec::new();
        for (t, _) in tokens {
            let Token::Punct(p) = *t else { continue };
            if matches!(p, Punct::LParen | Punct::LBracket | Punct::LBrace) {
                stack.push(closer_of(p));
            } else if matches!(p, Punct::RParen | Punct::RBracket | Punct::RBrace)
                && stack.pop() != Some(p)
            {
                return false;
            }
        }
        stack.is_empty()
    }

    fn prepared(src: &str) -> Prepared<'_> {
        let (tokens, _) = lex(src);
        match prepare(tokens, src, FileEnd::Normal) {
            Ok(p) => p,
            Err(d) => panic!("{src:?}: {d:?}"),
        }
    }

    #[test]
    fn every_short_bracket_sequence_comes_out_balanced() {
        let pieces = ["(", ")", "[", "]", "{", "}", "x", "\nfn "];
        let mut count = 0;
        for len in 0..=6u32 {
            for mut n in 0..pieces.len().pow(len) {
                let mut src = String::new();
                for _ in 0..len {
                    src.push_str(pieces[n % pieces.len()]);
                    src.push(' ');
                    n /= pieces.len();
                }
                let p = prepared(&src);
                assert!(balanced(&p.tokens), "{src:?}");
                let already_balanced = balanced(
                    &lex(&src)
                        .0
                        .into_iter()
                        .map(|(t, s)| (t, SimpleSpan::from(s.range())))
                        .collect::<Vec<_>>(),
                );
                let crosses_item = src.contains("fn") && !already_balanced;
                if already_balanced && !src.contains("fn") {
                    assert!(p.diags.is_empty(), "{src:?}: {:?}", p.diags);
                } else if !already_balanced && !crosses_item {
                    assert!(!p.diags.is_empty(), "{src:?}");
                }
                count += 1;
            }
        }
        assert_eq!(count, (0..=6).map(|l| pieces.len().pow(l)).sum::<usize>());
    }

    #[test]
    fn repairs() {
        // Unclosed at the end: one diagnostic, closer inserted at the end.
        let p = prepared("f(a, [b");
        assert_eq!(p.diags.len(), 1);
        assert_eq!(p.diags[0].secondary.len(), 2);
        assert_eq!(p.shadows.len(), 2);
        // A wrong closer in a paren group stands for the right one.
        let p = prepared("(a]");
        assert_eq!(
            p.tokens.last().map(|(t, _)| *t),
            Some(Token::Punct(Punct::RParen))
        );
        // A closer that closes nothing is dropped.
        let p = prepared("a)");
        assert_eq!(p.tokens.len(), 1);
        // An item in column 1 closes what is open; indented, it does not.
        assert_eq!(prepared("fn f() {\nfn g() {}").diags.len(), 1);
        assert_eq!(prepared("fn f() {\n  fn g() {}\n}").diags.len(), 0);
    }

    #[test]
    fn bounds() {
        let ok = "(".repeat(MAX_NESTING) + &")".repeat(MAX_NESTING);
        assert!(prepare(lex(&ok).0, &ok, FileEnd::Normal).is_ok());
        let deep = "(".repeat(MAX_NESTING + 1);
        let err = prepare(lex(&deep).0, &deep, FileEnd::Normal).err();
        assert_eq!(
            err.map(|d| d.span),
            Some(Span::new(MAX_NESTING, MAX_NESTING + 1))
        );
        let run = "-".repeat(MAX_NESTING + 1) + "x";
        assert!(prepare(lex(&run).0, &run, FileEnd::Normal).is_err());
        let run = "-".repeat(MAX_NESTING) + "x";
        assert!(prepare(lex(&run).0, &run, FileEnd::Normal).is_ok());
    }

    #[test]
    fn a_swallowed_end_reports_nothing_at_the_end() {
        let src = "fn f() { /* x";
        let p = prepare(lex(src).0, src, FileEnd::Swallowed).ok();
        assert!(p.is_some_and(|p| p.diags.is_empty() && balanced(&p.tokens)));
    }
}
