//! The lexer: source text to tokens with spans (spec §1).
//!
//! It owns the [`Token`] type, the lexical grammar and every lexical
//! diagnostic (`CK0001`–`CK0005`). Lexing never stops at an error: each bad
//! piece of text is reported once and stands in the token stream as a single
//! [`Token::Error`], which the parser accepts quietly wherever an expression
//! may go, so that a lexical mistake does not also produce syntax errors.
//!
//! The scanner is a chumsky parser over `&str` that splits the text into
//! *lexemes* (tokens, trivia, and raw text that needs checking); a second,
//! plain pass turns lexemes into tokens and diagnostics. Number literals are
//! scanned and checked in `lexer/number.rs` the way rustc does it.

mod number;
#[cfg(test)]
mod tests;

use crate::ast::IntRadix;
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::value::FloatLit;
use chumsky::input::InputRef;
use chumsky::prelude::*;
use std::fmt;

/// One token of the language (spec §1). Tokens borrow identifiers from
/// the source text, so they are `Copy` (the parser copies tokens freely).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'src> {
    /// An identifier that is not a keyword: `[A-Za-z_][A-Za-z0-9_]*`.
    Ident(&'src str),
    /// An integer literal (`42`, `0x2A`, `0b101`, `1_000i32`); the `i32`
    /// suffix is dropped. Range checking against `i32` happens later.
    Int {
        /// The value, which fits a `u64` (else the literal is an error).
        value: u64,
        /// Decimal or not.
        radix: IntRadix,
    },
    /// A float literal (`1.0`, `1e-3`, `2.5f32`, `2f32`), rounded to f32.
    Float(f32),
    /// A keyword.
    Keyword(Keyword),
    /// An operator or punctuation.
    Punct(Punct),
    /// Text that could not be lexed; already reported.
    Error,
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(name) => f.write_str(name),
            Token::Int { value, .. } => write!(f, "{value}"),
            Token::Float(x) => write!(f, "{}", FloatLit(*x)),
            Token::Keyword(k) => f.write_str(k.as_str()),
            Token::Punct(p) => f.write_str(p.as_str()),
            Token::Error => f.write_str("<error>"),
        }
    }
}

macro_rules! keywords {
    ($($(#[$doc:meta])* $name:ident = $text:literal,)*) => {
        /// The keywords (spec §1).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Keyword {
            $($(#[$doc])* $name,)*
        }

        impl Keyword {
            /// Every keyword.
            pub const ALL: &'static [Keyword] = &[$(Keyword::$name,)*];

            /// The keyword as written.
            pub fn as_str(self) -> &'static str {
                match self { $(Keyword::$name => $text,)* }
            }

            /// The keyword spelled `text`, if any.
            pub fn lookup(text: &str) -> Option<Keyword> {
                match text { $($text => Some(Keyword::$name),)* _ => None }
            }
        }
    };
}

keywords! {
    /// `kernel`
    Kernel = "kernel",
    /// `reduce`
    Reduce = "reduce",
    /// `fn`
    Fn = "fn",
    /// `const`
    Const = "const",
    /// `let`
    Let = "let",
    /// `mut`
    Mut = "mut",
    /// `if`
    If = "if",
    /// `else`
    Else = "else",
    /// `for`
    For = "for",
    /// `in`
    In = "in",
    /// `while`
    While = "while",
    /// `loop`
    Loop = "loop",
    /// `break`
    Break = "break",
    /// `continue`
    Continue = "continue",
    /// `return`
    Return = "return",
    /// `discard`
    Discard = "discard",
    /// `true`
    True = "true",
    /// `false`
    False = "false",
    /// `as`
    As = "as",
}

macro_rules! puncts {
    ($($(#[$doc:meta])* $name:ident = $text:literal,)*) => {
        /// Operators and punctuation (spec §1).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Punct {
            $($(#[$doc])* $name,)*
        }

        impl Punct {
            /// Every punctuation token, longest spellings first (the order
            /// in which the lexer tries them).
            pub const ALL: &'static [Punct] = &[$(Punct::$name,)*];

            /// The token as written.
            pub fn as_str(self) -> &'static str {
                match self { $(Punct::$name => $text,)* }
            }
        }
    };
}

puncts! {
    /// `<<=`
    ShlEq = "<<=",
    /// `>>=`
    ShrEq = ">>=",
    /// `<<`
    Shl = "<<",
    /// `>>`
    Shr = ">>",
    /// `<=`
    Le = "<=",
    /// `>=`
    Ge = ">=",
    /// `==`
    EqEq = "==",
    /// `!=`
    Ne = "!=",
    /// `&&`
    AndAnd = "&&",
    /// `||`
    OrOr = "||",
    /// `+=`
    PlusEq = "+=",
    /// `-=`
    MinusEq = "-=",
    /// `*=`
    StarEq = "*=",
    /// `/=`
    SlashEq = "/=",
    /// `%=`
    PercentEq = "%=",
    /// `&=`
    AmpEq = "&=",
    /// `|=`
    PipeEq = "|=",
    /// `^=`
    CaretEq = "^=",
    /// `->`
    Arrow = "->",
    /// `..`
    DotDot = "..",
    /// `+`
    Plus = "+",
    /// `-`
    Minus = "-",
    /// `*`
    Star = "*",
    /// `/`
    Slash = "/",
    /// `%`
    Percent = "%",
    /// `&`
    Amp = "&",
    /// `|`
    Pipe = "|",
    /// `^`
    Caret = "^",
    /// `!`
    Bang = "!",
    /// `<`
    Lt = "<",
    /// `>`
    Gt = ">",
    /// `=`
    Eq = "=",
    /// `.`
    Dot = ".",
    /// `,`
    Comma = ",",
    /// `;`
    Semi = ";",
    /// `:`
    Colon = ":",
    /// `(`
    LParen = "(",
    /// `)`
    RParen = ")",
    /// `[`
    LBracket = "[",
    /// `]`
    RBracket = "]",
    /// `{`
    LBrace = "{",
    /// `}`
    RBrace = "}",
}

/// The characters that appear in punctuation tokens.
const PUNCT_CHARS: &str = "+-*/%&|^!<>=.,;:()[]{}";

/// Rust's whitespace (`Pattern_White_Space`), which the language shares.
fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0B}'
            | '\u{0C}'
            | '\r'
            | ' '
            | '\u{85}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// `true` if `c` can start some lexeme (anything else is an unknown
/// character).
fn starts_lexeme(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '"' || is_whitespace(c) || PUNCT_CHARS.contains(c)
}

/// What the scanner found, before checking.
#[derive(Clone, Debug)]
enum Lexeme<'s> {
    /// Whitespace or a comment.
    Trivia,
    /// A finished token.
    Token(Token<'s>),
    /// A number literal's text, checked later.
    Number(&'s str),
    /// `.` followed by a number (`.5`), checked later.
    LeadingDot(&'s str),
    /// A run of characters that start no token.
    Unknown(&'s str),
    /// `"..."` on one line.
    String,
    /// `/*` never closed; the span of the innermost comment still open.
    UnterminatedComment { innermost: Option<(usize, usize)> },
}

type LexExtra = extra::Err<EmptyErr>;

/// A [`number::CharCursor`] over chumsky's input.
struct InputCursor<'i, 's: 'p, 'p> {
    inp: &'i mut InputRef<'s, 'p, &'s str, LexExtra>,
}

impl number::CharCursor for InputCursor<'_, '_, '_> {
    fn first(&mut self) -> Option<char> {
        self.inp.peek()
    }

    fn second(&mut self) -> Option<char> {
        let save = self.inp.save();
        self.inp.next();
        let c = self.inp.peek();
        self.inp.rewind(save);
        c
    }

    fn bump(&mut self) {
        self.inp.next();
    }
}

/// A block comment, nesting as in Rust. Scanned with a depth counter, not
/// recursion, so `/*/*/*...` cannot exhaust the stack.
fn block_comment<'s>() -> impl Parser<'s, &'s str, Lexeme<'s>, LexExtra> + Clone {
    custom(|inp: &mut InputRef<'s, '_, &'s str, LexExtra>| {
        if inp.next() != Some('/') || inp.next() != Some('*') {
            return Err(EmptyErr::default());
        }
        // Byte offsets of the comments still open, relative to `start`.
        let mut open: Vec<usize> = vec![0];
        let mut offset = 2;
        loop {
            let Some(c) = inp.next() else {
                let innermost = match open.as_slice() {
                    [_, .., last] => Some((*last, *last + 2)),
                    _ => None,
                };
                return Ok(Lexeme::UnterminatedComment { innermost });
            };
            let here = offset;
            offset += c.len_utf8();
            match c {
                '*' if inp.peek() == Some('/') => {
                    inp.next();
                    offset += 1;
                    open.pop();
                    if open.is_empty() {
                        return Ok(Lexeme::Trivia);
                    }
                }
                '/' if inp.peek() == Some('*') => {
                    inp.next();
                    offset += 1;
                    open.push(here);
                }
                _ => {}
            }
        }
    })
}

/// The longest punctuation token at the cursor (one look-up, rather than
/// one failed alternative per token).
fn punctuation<'s>() -> impl Parser<'s, &'s str, Punct, LexExtra> + Clone {
    custom(|inp: &mut InputRef<'s, '_, &'s str, LexExtra>| {
        let save = inp.save();
        let mut ahead = [0u8; 3];
        let mut len = 0;
        for slot in &mut ahead {
            match inp.next() {
                Some(c) if c.is_ascii() => {
                    *slot = c as u8;
                    len += 1;
                }
                _ => break,
            }
        }
        inp.rewind(save);
        let ahead = ahead.get(..len).unwrap_or(&[]);
        // `Punct::ALL` lists longer spellings first.
        let found = Punct::ALL
            .iter()
            .find(|p| ahead.starts_with(p.as_str().as_bytes()))
            .copied()
            .ok_or_else(EmptyErr::default)?;
        for _ in 0..found.as_str().len() {
            inp.next();
        }
        Ok(found)
    })
}

/// A number literal starting with a digit.
fn number_literal<'s>() -> impl Parser<'s, &'s str, Lexeme<'s>, LexExtra> + Clone {
    custom(|inp: &mut InputRef<'s, '_, &'s str, LexExtra>| {
        let start = inp.cursor();
        if !inp.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(EmptyErr::default());
        }
        number::scan(&mut InputCursor { inp });
        Ok(Lexeme::Number(inp.slice_since(&start..)))
    })
}

/// `.` followed by a digit: a float without its leading `0`.
fn leading_dot<'s>() -> impl Parser<'s, &'s str, Lexeme<'s>, LexExtra> + Clone {
    custom(|inp: &mut InputRef<'s, '_, &'s str, LexExtra>| {
        let start = inp.cursor();
        if inp.next() != Some('.') || !inp.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(EmptyErr::default());
        }
        number::scan(&mut InputCursor { inp });
        Ok(Lexeme::LeadingDot(inp.slice_since(&start..)))
    })
}

/// `"..."` closed on the same line; an unclosed `"` is an unknown character.
fn string_literal<'s>() -> impl Parser<'s, &'s str, Lexeme<'s>, LexExtra> + Clone {
    custom(|inp: &mut InputRef<'s, '_, &'s str, LexExtra>| {
        let start = inp.cursor();
        if inp.next() != Some('"') {
            return Err(EmptyErr::default());
        }
        let after_quote = inp.save();
        loop {
            match inp.next() {
                Some('"') => return Ok(Lexeme::String),
                Some('\\') => {
                    if inp.peek() != Some('\n') {
                        inp.next();
                    }
                }
                Some('\n') | None => {
                    inp.rewind(after_quote);
                    return Ok(Lexeme::Unknown(inp.slice_since(&start..)));
                }
                Some(_) => {}
            }
        }
    })
}

/// The scanner: the whole text as lexemes with byte spans.
fn scanner<'s>() -> impl Parser<'s, &'s str, Vec<(Lexeme<'s>, SimpleSpan)>, LexExtra> {
    let whitespace = any()
        .filter(|c: &char| is_whitespace(*c))
        .repeated()
        .at_least(1)
        .to(Lexeme::Trivia);
    let line_comment = just("//")
        .then(any().filter(|c: &char| *c != '\n').repeated())
        .to(Lexeme::Trivia);
    let word = text::ascii::ident().map(|word: &str| match Keyword::lookup(word) {
        Some(k) => Lexeme::Token(Token::Keyword(k)),
        None => Lexeme::Token(Token::Ident(word)),
    });
    let punct = punctuation().map(|p| Lexeme::Token(Token::Punct(p)));
    let unknown = any()
        .filter(|c: &char| !starts_lexeme(*c))
        .repeated()
        .at_least(1)
        .to_slice()
        .map(Lexeme::Unknown);
    let lexeme = choice((
        whitespace,
        line_comment,
        block_comment(),
        word,
        number_literal(),
        leading_dot(),
        string_literal(),
        punct,
        unknown,
    ));
    lexeme
        .map_with(|lexeme, e| (lexeme, e.span()))
        .repeated()
        .collect()
        .then_ignore(end())
}

/// Splits `source` into tokens with their spans, and reports every lexical
/// error (`CK0001`–`CK0005`). Never fails: each error is reported, stands
/// in the token list as one [`Token::Error`] (or, for `.5`, as the float it
/// meant), and lexing goes on after it.
pub fn lex(source: &str) -> (Vec<(Token<'_>, Span)>, Vec<Diagnostic>) {
    let mut tokens: Vec<(Token<'_>, Span)> = Vec::new();
    let mut diags = Vec::new();
    let (lexemes, _) = scanner().parse(source).into_output_errors();
    let Some(lexemes) = lexemes else {
        // The scanner accepts every character, so this cannot happen; stay
        // safe and report rather than panic.
        diags.push(
            Diagnostic::new(
                Code::UnexpectedCharacter,
                Span::new(0, source.len()),
                "the source could not be split into tokens",
            )
            .with_label("here"),
        );
        return (tokens, diags);
    };
    // End of the previous token, if nothing (not even trivia) came since.
    let mut adjacent_to: Option<usize> = None;
    for (lexeme, span) in lexemes {
        let span = Span::new(span.start, span.end);
        let follows_directly = adjacent_to == Some(span.start as usize);
        adjacent_to = Some(span.end as usize);
        match lexeme {
            Lexeme::Trivia => adjacent_to = None,
            Lexeme::Token(token) => tokens.push((token, span)),
            Lexeme::Number(text) => match number::validate(text, span) {
                Ok(token) => tokens.push((token, span)),
                Err(d) => {
                    diags.push(*d);
                    tokens.push((Token::Error, span));
                }
            },
            Lexeme::LeadingDot(text) => {
                let previous = tokens.last().map(|(t, _)| t);
                let after_operand = follows_directly
                    && matches!(
                        previous,
                        Some(
                            Token::Ident(_)
                                | Token::Punct(Punct::RParen | Punct::RBracket)
                                | Token::Error
                        )
                    );
                let digits = text.get(1..).unwrap_or("");
                if after_operand {
                    // `v.0`: a field access with a number, which the parser
                    // rejects with a better message than "leading dot".
                    let dot = Span::new(span.start as usize, span.start as usize + 1);
                    tokens.push((Token::Punct(Punct::Dot), dot));
                    let rest = Span::new(span.start as usize + 1, span.end as usize);
                    match number::validate(digits, rest) {
                        Ok(token) => tokens.push((token, rest)),
                        Err(d) => {
                            diags.push(*d);
                            tokens.push((Token::Error, rest));
                        }
                    }
                } else {
                    let fixed = format!("0{text}");
                    diags.push(
                        Diagnostic::new(
                            Code::LeadingDotFloat,
                            span,
                            "float literals must have an integer part",
                        )
                        .with_label("missing `0` before the `.`")
                        .with_help(format!("write `{fixed}`")),
                    );
                    match number::validate(&fixed, span) {
                        Ok(token) => tokens.push((token, span)),
                        Err(mut d) => {
                            d.span = span;
                            diags.push(*d);
                            tokens.push((Token::Error, span));
                        }
                    }
                }
            }
            Lexeme::Unknown(text) => {
                diags.push(unknown_characters(text, span));
                tokens.push((Token::Error, span));
            }
            Lexeme::String => {
                diags.push(
                    Diagnostic::new(
                        Code::UnexpectedCharacter,
                        span,
                        "string literals are not part of the language",
                    )
                    .with_label("unexpected string literal")
                    .with_help("kernels have no strings; remove it"),
                );
                tokens.push((Token::Error, span));
            }
            Lexeme::UnterminatedComment { innermost } => {
                let opener = Span::new(span.start as usize, span.start as usize + 2);
                let mut d = Diagnostic::new(
                    Code::UnterminatedComment,
                    opener,
                    "unterminated block comment",
                )
                .with_label("this comment is never closed")
                .with_help(
                    "close it with `*/`; block comments nest, so each `/*` inside \
                     needs its own `*/`",
                );
                if let Some((from, to)) = innermost {
                    let base = span.start as usize;
                    d = d.with_secondary(
                        Span::new(base + from, base + to),
                        "this nested comment is not closed either",
                    );
                }
                diags.push(d);
                adjacent_to = None;
            }
        }
    }
    (tokens, diags)
}

/// How many characters of an unknown run are quoted in the message.
const QUOTED_CHARS: usize = 12;

/// The diagnostic for a run of characters that start no token.
fn unknown_characters(text: &str, span: Span) -> Diagnostic {
    let count = text.chars().count();
    let mut quoted: String = text
        .chars()
        .take(QUOTED_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if count > QUOTED_CHARS {
        quoted.push('…');
    }
    let message = if count == 1 {
        format!("unexpected character `{quoted}`")
    } else {
        format!("unexpected characters `{quoted}`")
    };
    let d = Diagnostic::new(Code::UnexpectedCharacter, span, message)
        .with_label("no token starts with this");
    let first = text.chars().next().unwrap_or(' ');
    match character_help(first) {
        Some(help) => d.with_help(help),
        None => d,
    }
}

/// A hint for characters people type by habit or by accident.
fn character_help(c: char) -> Option<String> {
    let lookalike = match c {
        '\u{2212}' | '\u{2013}' | '\u{2014}' => Some('-'),
        '\u{00D7}' => Some('*'),
        '\u{00F7}' => Some('/'),
        '\u{037E}' => Some(';'),
        '\u{FF08}' => Some('('),
        '\u{FF09}' => Some(')'),
        _ => None,
    };
    if let Some(ascii) = lookalike {
        return Some(format!(
            "`{}` looks like `{ascii}`, but is a different character; write `{ascii}`",
            c.escape_debug()
        ));
    }
    Some(
        match c {
            '#' => "attributes (`#[...]`) are not part of the kernel language",
            '\'' => "there are no character literals or lifetimes in kernels",
            '~' => "bitwise not is written `!`, as in Rust",
            '?' => "there is no `?` operator; use `if` or `select(c, a, b)`",
            '@' | '$' | '`' | '\\' => "this character has no meaning in the kernel language",
            c if !c.is_ascii() && c.is_alphabetic() => {
                "identifiers may only use ASCII letters, digits and `_`"
            }
            c if c.is_control() || c.is_whitespace() => {
                "remove this invisible character (only ASCII spaces, tabs and newlines are allowed)"
            }
            _ => return None,
        }
        .to_string(),
    )
}
