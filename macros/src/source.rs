//! The macro input as `.ck` source text: the tokens written back with
//! their original layout (lines and columns from their spans), each
//! token's byte range in the text recorded with its [`Span`], so that a
//! diagnostic's byte range maps back onto the tokens it covers.
//!
//! Doc comments, which rustc turns into `#[doc = ".."]` attributes, are
//! comments in the language and are dropped. A leading
//! `#![targets(x1k, r700)]` restricts the targets (see
//! `docs/host-api.md`) and is not part of the source.

use proc_macro::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use std::ops::Range;

/// The source text and where each of its tokens came from.
pub struct Source {
    /// The text given to the compiler.
    pub text: String,
    /// Byte range of each token in `text`, with its span, in text order.
    pub tokens: Vec<(Range<usize>, Span)>,
    /// The targets named by `#![targets(..)]`, with the attribute's span.
    pub targets: Option<(Vec<String>, Span)>,
}

/// A position in the original file: (line, column), both from rustc.
type Pos = (usize, usize);

struct Writer {
    text: String,
    tokens: Vec<(Range<usize>, Span)>,
    /// Where the last token ended in the original file.
    at: Option<Pos>,
    /// Where the last token started in the original file.
    from: Option<Pos>,
    /// The last token was a punctuation joined to the next one.
    joint: bool,
}

impl Writer {
    /// Writes `token` (whose span is `span`) where the layout puts it.
    fn put(&mut self, token: &str, span: Span, joint: bool) {
        let start = (span.line(), span.column());
        let end = {
            let e = span.end();
            (e.line(), e.column())
        };
        match self.at {
            _ if self.joint => {}
            // Tokens without a layout of their own (made by another
            // macro, all at one place): keep them apart.
            Some(_) if self.from == Some(start) => self.text.push(' '),
            Some((line, _)) if start.0 > line => {
                for _ in 0..(start.0 - line).min(1000) {
                    self.text.push('\n');
                }
                for _ in 0..start.1.saturating_sub(1).min(1000) {
                    self.text.push(' ');
                }
            }
            Some((line, col)) if start.0 == line && start.1 >= col => {
                for _ in 0..(start.1 - col).min(1000) {
                    self.text.push(' ');
                }
            }
            Some(_) => self.text.push(' '),
            None => {}
        }
        let from = self.text.len();
        self.text.push_str(token);
        self.tokens.push((from..self.text.len(), span));
        self.at = Some(end);
        self.from = Some(start);
        self.joint = joint;
    }

    fn stream(&mut self, stream: TokenStream) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let mut k = 0;
        while k < tokens.len() {
            if let Some(skip) = doc_attribute(&tokens[k..]) {
                k += skip;
                continue;
            }
            match &tokens[k] {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    if open.is_empty() {
                        self.stream(g.stream());
                    } else {
                        self.put(open, g.span_open(), false);
                        self.stream(g.stream());
                        self.put(close, g.span_close(), false);
                    }
                }
                TokenTree::Punct(p) => {
                    let joint = p.spacing() == Spacing::Joint;
                    self.put(&p.as_char().to_string(), p.span(), joint);
                }
                TokenTree::Ident(i) => self.put(&i.to_string(), i.span(), false),
                TokenTree::Literal(l) => self.put(&l.to_string(), l.span(), false),
            }
            k += 1;
        }
    }
}

/// The number of tokens of a doc attribute (`#[doc = ".."]` or
/// `#![doc = ".."]`) at the start of `tokens`, if there is one.
fn doc_attribute(tokens: &[TokenTree]) -> Option<usize> {
    let TokenTree::Punct(hash) = tokens.first()? else {
        return None;
    };
    if hash.as_char() != '#' {
        return None;
    }
    let mut k = 1;
    if let Some(TokenTree::Punct(bang)) = tokens.get(1)
        && bang.as_char() == '!'
    {
        k = 2;
    }
    let TokenTree::Group(g) = tokens.get(k)? else {
        return None;
    };
    if g.delimiter() != Delimiter::Bracket {
        return None;
    }
    match g.stream().into_iter().next() {
        Some(TokenTree::Ident(i)) if i.to_string() == "doc" => Some(k + 1),
        _ => None,
    }
}

/// A leading `#![targets(a, b)]`: the names, its span and its length in
/// tokens.
fn targets_attribute(tokens: &[TokenTree]) -> Option<(Vec<String>, Span, usize)> {
    let (TokenTree::Punct(hash), TokenTree::Punct(bang), TokenTree::Group(g)) =
        (tokens.first()?, tokens.get(1)?, tokens.get(2)?)
    else {
        return None;
    };
    if hash.as_char() != '#' || bang.as_char() != '!' || g.delimiter() != Delimiter::Bracket {
        return None;
    }
    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
    match inner.as_slice() {
        [TokenTree::Ident(name), TokenTree::Group(list)] if name.to_string() == "targets" => {
            let names = list
                .stream()
                .into_iter()
                .filter_map(|t| match t {
                    TokenTree::Ident(i) => Some(i.to_string()),
                    _ => None,
                })
                .collect();
            Some((names, g.span(), 3))
        }
        _ => None,
    }
}

/// Writes the macro input back as source text.
pub fn reconstruct(input: TokenStream) -> Source {
    let tokens: Vec<TokenTree> = input.into_iter().collect();
    let (targets, skip) = match targets_attribute(&tokens) {
        Some((names, span, n)) => (Some((names, span)), n),
        None => (None, 0),
    };
    let mut w = Writer {
        text: String::new(),
        tokens: Vec::new(),
        at: None,
        from: None,
        joint: false,
    };
    w.stream(tokens.into_iter().skip(skip).collect());
    Source {
        text: w.text,
        tokens: w.tokens,
        targets,
    }
}

impl Source {
    /// The spans of the first and last tokens inside the byte range
    /// `range` (the token at or after its start when it covers none; the
    /// last token for a range past the end).
    pub fn spans(&self, range: Range<usize>) -> (Span, Span) {
        let first = self
            .tokens
            .iter()
            .find(|(r, _)| r.end > range.start)
            .or(self.tokens.last());
        let Some((_, first_span)) = first else {
            return (Span::call_site(), Span::call_site());
        };
        let last = self
            .tokens
            .iter()
            .rev()
            .find(|(r, _)| r.start < range.end && r.start >= range.start)
            .map_or(*first_span, |(_, s)| *s);
        (*first_span, last)
    }

    /// The text of the byte range `range`, if it is one.
    pub fn snippet(&self, range: Range<usize>) -> &str {
        self.text.get(range).unwrap_or("")
    }
}
