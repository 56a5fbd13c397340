//! Syntax diagnostics: chumsky's errors turned into rustc-like `CK0006`
//! messages ("expected one of `;`, `}`, found `let`"), and the filter that
//! keeps one diagnostic per mistake.
//!
//! A syntax error is dropped when it is a consequence of an error already
//! reported: when it sits at or right after a lexical error token, inside
//! the shadow of an unclosed delimiter, or at the same place as another
//! diagnostic.

use super::primitives::{Ctx, PErr, span};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Keyword, Punct, Token};
use crate::span::Span;
use chumsky::error::{RichPattern, RichReason};
use chumsky::span::SimpleSpan;

/// How an expected pattern is described, and where it sorts.
fn describe(pattern: &RichPattern<'_, Token<'_>>) -> Option<(u8, String)> {
    match pattern {
        RichPattern::Token(t) => Some((0, format!("`{}`", &**t))),
        RichPattern::Label(l) => Some((1, l.to_string())),
        RichPattern::Identifier(i) => Some((1, i.clone())),
        RichPattern::Any => Some((1, "a token".to_string())),
        RichPattern::EndOfInput => Some((2, "end of file".to_string())),
        _ => None,
    }
}

/// The token at `span`, quoted from the source where possible.
fn quote_found(ctx: Ctx<'_>, found: Option<&Token<'_>>, span: SimpleSpan) -> String {
    match found {
        None => "end of file".to_string(),
        Some(t) => match ctx.text(span, 24).filter(|t| !t.is_empty()) {
            Some(text) => format!("`{text}`"),
            None => format!("`{t}`"),
        },
    }
}

/// The token before the one starting at `start`.
fn token_before<'t>(ctx: Ctx<'t>, start: usize) -> Option<&'t Token<'t>> {
    let index = ctx.toks.partition_point(|(_, s)| s.start < start);
    index
        .checked_sub(1)
        .and_then(|i| ctx.toks.get(i))
        .map(|(t, _)| t)
}

/// A hint for common mistakes, from what was expected and found.
fn hint(
    ctx: Ctx<'_>,
    expected: &[String],
    found: Option<&Token<'_>>,
    span: SimpleSpan,
) -> Option<String> {
    let wants = |what: &str| expected.iter().any(|e| e == what);
    let before = token_before(ctx, span.start);
    match (found, before) {
        (Some(Token::Keyword(k)), _) if wants("identifier") => Some(format!(
            "`{}` is a keyword and cannot be used as a name",
            k.as_str()
        )),
        (_, Some(Token::Punct(Punct::Dot))) if wants("identifier") => {
            Some("swizzles are written with letters, as in `.x`, `.xy` or `.rgba`".to_string())
        }
        (Some(Token::Punct(Punct::Eq)), Some(Token::Punct(Punct::DotDot))) => {
            Some("inclusive ranges `..=` are not supported: write `a..b + 1`".to_string())
        }
        (Some(Token::Punct(Punct::Eq)), _) if wants("an operator") => {
            Some("`=` assigns, and only as a statement; to compare, write `==`".to_string())
        }
        (Some(Token::Keyword(Keyword::Else)), _) => {
            Some("`else` must directly follow the `}` of an `if` block".to_string())
        }
        _ if wants("item") => {
            Some("a file holds items: `const`, `fn`, `kernel` and `reduce` definitions".to_string())
        }
        _ => None,
    }
}

/// Converts one parser error.
pub(super) fn to_diagnostic(err: PErr<'_>, ctx: Ctx<'_>) -> Diagnostic {
    let at = *err.span();
    match err.into_reason() {
        RichReason::Custom(d) => *d,
        RichReason::ExpectedFound { expected, found } => {
            let found = found.map(|t| t.into_inner());
            let mut described: Vec<(u8, String)> = expected.iter().filter_map(describe).collect();
            described.sort();
            described.dedup();
            let expected: Vec<String> = described.into_iter().map(|(_, d)| d).collect();
            let found_text = quote_found(ctx, found.as_ref(), at);
            let message = match expected.as_slice() {
                [] => format!("unexpected {found_text}"),
                [one] => format!("expected {one}, found {found_text}"),
                many => format!("expected one of {}, found {found_text}", many.join(", ")),
            };
            let label = if found.is_some() {
                "unexpected token"
            } else {
                "the file ends here"
            };
            let d = Diagnostic::new(Code::SyntaxError, span(at), message).with_label(label);
            match hint(ctx, &expected, found.as_ref(), at) {
                Some(help) => d.with_help(help),
                None => d,
            }
        }
    }
}

/// `true` if a syntax error at `span` follows from a lexical error: it is
/// at an error token or right after one.
fn after_lexical_error(ctx: Ctx<'_>, span: Span) -> bool {
    let start = span.start as usize;
    let index = ctx.toks.partition_point(|(_, s)| s.start < start);
    let at = ctx.toks.get(index).map(|(t, _)| t);
    let before = index
        .checked_sub(1)
        .and_then(|i| ctx.toks.get(i))
        .map(|(t, _)| t);
    at == Some(&Token::Error) || before == Some(&Token::Error)
}

/// Byte ranges `start..=end` merged into disjoint ranges sorted by start.
fn merge_ranges(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(sorted.len());
    for (from, to) in sorted {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// `true` if `at` lies in one of the disjoint sorted `ranges`.
fn in_ranges(ranges: &[(u32, u32)], at: u32) -> bool {
    let index = ranges.partition_point(|&(from, _)| from <= at);
    index
        .checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|&(_, to)| at <= to)
}

/// The spans of diagnostics already reported, swept in source order:
/// answers whether a new span starts where another starts or inside
/// another. Spans are asked about, and added, in order of their start.
struct Covered {
    /// Earlier diagnostics' spans, sorted.
    earlier: Vec<(u32, u32)>,
    /// The first of `earlier` not yet passed.
    next: usize,
    /// The largest end of the spans passed so far (earlier and added).
    max_end_before: u32,
    /// The start of the last added span.
    last_added: Option<u32>,
    /// The largest end of the added spans.
    max_end_added: u32,
}

impl Covered {
    fn new(diags: &[Diagnostic]) -> Covered {
        let mut earlier: Vec<(u32, u32)> =
            diags.iter().map(|d| (d.span.start, d.span.end)).collect();
        earlier.sort_unstable();
        Covered {
            earlier,
            next: 0,
            max_end_before: 0,
            last_added: None,
            max_end_added: 0,
        }
    }

    /// Whether `span` starts at the start of, or strictly inside, a span
    /// reported before.
    fn covers(&mut self, span: Span) -> bool {
        while let Some(&(from, to)) = self.earlier.get(self.next) {
            if from >= span.start {
                break;
            }
            self.max_end_before = self.max_end_before.max(to);
            self.next += 1;
        }
        let same_start = self
            .earlier
            .get(self.next)
            .is_some_and(|&(from, _)| from == span.start)
            || self.last_added == Some(span.start);
        same_start || self.max_end_before > span.start || self.max_end_added > span.start
    }

    /// Records a kept span.
    fn add(&mut self, span: Span) {
        self.last_added = Some(span.start);
        self.max_end_added = self.max_end_added.max(span.end);
    }
}

/// Converts the parser's errors and drops those that follow from an error
/// already reported in `earlier` (lexical and delimiter diagnostics) or in
/// a shadow of an unclosed delimiter. Linear after sorting: a file full of
/// errors stays fast.
pub(super) fn syntax_diagnostics(
    errors: Vec<PErr<'_>>,
    ctx: Ctx<'_>,
    shadows: &[(u32, u32)],
    earlier: &[Diagnostic],
) -> Vec<Diagnostic> {
    let shadows = merge_ranges(shadows);
    let mut covered = Covered::new(earlier);
    let mut kept: Vec<Diagnostic> = Vec::new();
    let mut converted: Vec<Diagnostic> =
        errors.into_iter().map(|e| to_diagnostic(e, ctx)).collect();
    converted.sort_by_key(|d| (d.span.start, d.span.end));
    for d in converted {
        let consequence = matches!(d.code, Code::SyntaxError | Code::ChainedComparison)
            && (after_lexical_error(ctx, d.span) || in_ranges(&shadows, d.span.start));
        let duplicate = covered.covers(d.span) && d.code == Code::SyntaxError;
        if !consequence && !duplicate {
            covered.add(d.span);
            kept.push(d);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_and_are_found() {
        let merged = merge_ranges(&[(10, 20), (0, 5), (15, 30), (40, 41)]);
        assert_eq!(merged, vec![(0, 5), (10, 30), (40, 41)]);
        for (at, inside) in [
            (0, true),
            (5, true),
            (6, false),
            (10, true),
            (30, true),
            (31, false),
            (41, true),
            (42, false),
        ] {
            assert_eq!(in_ranges(&merged, at), inside, "{at}");
        }
        assert!(!in_ranges(&[], 3));
    }

    #[test]
    fn coverage_sweeps_in_order() {
        let earlier = [
            Diagnostic::new(Code::UnexpectedCharacter, Span::new(5, 9), "a"),
            Diagnostic::new(Code::MalformedNumber, Span::new(20, 22), "b"),
        ];
        let mut covered = Covered::new(&earlier);
        assert!(!covered.covers(Span::new(1, 2)));
        assert!(covered.covers(Span::new(5, 6)));
        assert!(covered.covers(Span::new(7, 8)));
        assert!(!covered.covers(Span::new(9, 10)));
        covered.add(Span::new(9, 15));
        assert!(covered.covers(Span::new(9, 9)));
        assert!(covered.covers(Span::new(12, 13)));
        assert!(!covered.covers(Span::new(16, 17)));
        assert!(covered.covers(Span::new(20, 21)));
        assert!(!covered.covers(Span::new(22, 23)));
    }
}
