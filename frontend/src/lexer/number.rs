//! Number literals: finding where one ends (as rustc's lexer does) and
//! turning its text into a token or a diagnostic.
//!
//! Scanning is deliberately generous, like rustc's: it takes everything that
//! belongs to the literal, suffix included, even when that turns out to be
//! malformed (`1e`, `0x`, `1.0.0`, `5u8`), so that one mistake yields one
//! diagnostic and one [`Token::Error`] instead of a cascade.

use super::Token;
use crate::ast::IntRadix;
use crate::diag::{Code, Diagnostic};
use crate::span::Span;

/// A source of characters with two characters of look-ahead.
pub(super) trait CharCursor {
    /// The next character, without consuming it.
    fn first(&mut self) -> Option<char>;
    /// The character after the next one, without consuming anything.
    fn second(&mut self) -> Option<char>;
    /// Consumes one character.
    fn bump(&mut self);
}

/// A [`CharCursor`] over a string, for re-scanning a literal's text.
pub(super) struct StrCursor<'s> {
    rest: std::str::Chars<'s>,
}

impl<'s> StrCursor<'s> {
    /// A cursor at the start of `text`.
    pub(super) fn new(text: &'s str) -> StrCursor<'s> {
        StrCursor { rest: text.chars() }
    }
}

impl CharCursor for StrCursor<'_> {
    fn first(&mut self) -> Option<char> {
        self.rest.clone().next()
    }

    fn second(&mut self) -> Option<char> {
        let mut ahead = self.rest.clone();
        ahead.next();
        ahead.next()
    }

    fn bump(&mut self) {
        self.rest.next();
    }
}

/// The base a literal is written in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Base {
    Binary,
    Octal,
    Decimal,
    Hexadecimal,
}

impl Base {
    fn radix(self) -> u32 {
        match self {
            Base::Binary => 2,
            Base::Octal => 8,
            Base::Decimal => 10,
            Base::Hexadecimal => 16,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Base::Binary => "binary",
            Base::Octal => "octal",
            Base::Decimal => "decimal",
            Base::Hexadecimal => "hexadecimal",
        }
    }
}

/// The structure of a scanned number literal, as byte offsets into its text
/// (which is all ASCII: digits, `_`, `.`, signs and identifier characters).
#[derive(Clone, Debug)]
struct Parts {
    base: Base,
    /// Where the digits start (after `0x`, `0o` or `0b`).
    digits_start: usize,
    /// `0x` and friends followed by no digit at all.
    empty_int: bool,
    /// A `.` was part of the literal (a fraction, possibly empty: `1.`).
    has_point: bool,
    /// An exponent `e`/`E` was part of the literal.
    has_exponent: bool,
    /// The exponent had no digit (`1e`, `1e+`).
    empty_exponent: bool,
    /// A second `.` followed by a digit was swallowed (`1.0.0`).
    extra_point: bool,
    /// Where the suffix (`i32`, `f32`, or something invalid) starts.
    suffix_start: usize,
    /// Total length in bytes.
    len: usize,
}

fn is_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_id_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Counts bytes consumed, so every part is located by offset.
struct Counting<'c, C: CharCursor> {
    inner: &'c mut C,
    pos: usize,
}

impl<C: CharCursor> Counting<'_, C> {
    fn first(&mut self) -> Option<char> {
        self.inner.first()
    }

    fn second(&mut self) -> Option<char> {
        self.inner.second()
    }

    fn bump(&mut self) {
        if let Some(c) = self.inner.first() {
            self.pos += c.len_utf8();
            self.inner.bump();
        }
    }

    /// Eats `[0-9_]*`; `true` if a digit was seen.
    fn eat_decimal_digits(&mut self) -> bool {
        let mut any = false;
        while let Some(c) = self.first() {
            match c {
                '_' => self.bump(),
                '0'..='9' => {
                    any = true;
                    self.bump();
                }
                _ => break,
            }
        }
        any
    }

    /// Eats `[0-9a-fA-F_]*`; `true` if a digit was seen.
    fn eat_hexadecimal_digits(&mut self) -> bool {
        let mut any = false;
        while let Some(c) = self.first() {
            match c {
                '_' => self.bump(),
                c if c.is_ascii_hexdigit() => {
                    any = true;
                    self.bump();
                }
                _ => break,
            }
        }
        any
    }

    /// After `e`/`E`: an optional sign and digits; `true` if a digit was seen.
    fn eat_float_exponent(&mut self) -> bool {
        if matches!(self.first(), Some('-' | '+')) {
            self.bump();
        }
        self.eat_decimal_digits()
    }
}

/// Scans one number literal whose first character (an ASCII digit) is next.
/// Follows `rustc_lexer::Cursor::number`, plus one extension: a second
/// `.digit` right after a fraction is swallowed (`1.0.0`) so that it is
/// reported as one malformed literal.
fn scan_parts<C: CharCursor>(cursor: &mut C) -> Parts {
    let mut c = Counting {
        inner: cursor,
        pos: 0,
    };
    let mut parts = Parts {
        base: Base::Decimal,
        digits_start: 0,
        empty_int: false,
        has_point: false,
        has_exponent: false,
        empty_exponent: false,
        extra_point: false,
        suffix_start: 0,
        len: 0,
    };
    let first_digit = c.first();
    c.bump();
    let mut done = false;
    if first_digit == Some('0') {
        let prefixed = match c.first() {
            Some('b') => Some(Base::Binary),
            Some('o') => Some(Base::Octal),
            Some('x') => Some(Base::Hexadecimal),
            _ => None,
        };
        if let Some(base) = prefixed {
            parts.base = base;
            c.bump();
            parts.digits_start = c.pos;
            let any = if base == Base::Hexadecimal {
                c.eat_hexadecimal_digits()
            } else {
                c.eat_decimal_digits()
            };
            if !any {
                parts.empty_int = true;
                done = true;
            }
        } else {
            c.eat_decimal_digits();
        }
    } else {
        c.eat_decimal_digits();
    }
    if !done {
        match c.first() {
            Some('.') if c.second() != Some('.') && !c.second().is_some_and(is_id_start) => {
                c.bump();
                parts.has_point = true;
                if c.first().is_some_and(|d| d.is_ascii_digit()) {
                    c.eat_decimal_digits();
                    if matches!(c.first(), Some('e' | 'E')) {
                        c.bump();
                        parts.has_exponent = true;
                        parts.empty_exponent = !c.eat_float_exponent();
                    }
                }
            }
            Some('e' | 'E') if parts.base != Base::Hexadecimal => {
                c.bump();
                parts.has_exponent = true;
                parts.empty_exponent = !c.eat_float_exponent();
            }
            _ => {}
        }
        // `1.0.0`, `1e3.5`: swallow further `.digits` groups, so that the
        // whole thing is reported once as a malformed number.
        if parts.has_point || parts.has_exponent {
            while c.first() == Some('.') && c.second().is_some_and(|d| d.is_ascii_digit()) {
                c.bump();
                c.eat_decimal_digits();
                parts.extra_point = true;
            }
        }
    }
    parts.suffix_start = c.pos;
    while c.first().is_some_and(is_id_continue) {
        c.bump();
    }
    parts.len = c.pos;
    parts
}

/// Consumes one number literal from `cursor` (whose next character is an
/// ASCII digit) and returns its length in bytes.
pub(super) fn scan<C: CharCursor>(cursor: &mut C) -> usize {
    scan_parts(cursor).len
}

/// Numeric suffixes Rust has and the language does not.
const RUST_SUFFIXES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i64", "i128", "isize", "f16", "f64",
    "f128",
];

/// Turns the text of one number literal (as found by [`scan`]) at `span`
/// into a token, or a diagnostic explaining what is wrong with it.
pub(super) fn validate(text: &str, span: Span) -> Result<Token<'static>, Box<Diagnostic>> {
    let fail = |d: Diagnostic| Err(Box::new(d));
    let parts = scan_parts(&mut StrCursor::new(text));
    let whole = |code: Code, message: String| Diagnostic::new(code, span, message);
    let sub = |from: usize, to: usize| {
        Span::new(
            span.start as usize + from,
            span.start as usize + to.max(from),
        )
    };
    let suffix = text.get(parts.suffix_start..).unwrap_or("");
    let is_float_form = parts.has_point || parts.has_exponent;
    let base_name = parts.base.name();

    if parts.empty_int {
        let prefix = text.get(..2).unwrap_or(text);
        return fail(
            whole(
                Code::MalformedNumber,
                "no valid digits found for number".to_string(),
            )
            .with_label(format!("`{prefix}` must be followed by {base_name} digits"))
            .with_help(match parts.base {
                Base::Binary => "write e.g. `0b1010`",
                Base::Octal => "write e.g. `0o17`",
                _ => "write e.g. `0x2A`",
            }),
        );
    }
    if parts.extra_point {
        return fail(
            whole(Code::MalformedNumber, format!("malformed number `{text}`"))
                .with_label("a number has at most one decimal point")
                .with_help("write a single float literal such as `1.0`"),
        );
    }
    if parts.base != Base::Decimal && is_float_form {
        return fail(
            whole(
                Code::MalformedNumber,
                format!("{base_name} float literals are not supported"),
            )
            .with_label("only decimal literals can have a fraction or an exponent")
            .with_help("write the value as a decimal float literal, such as `1.5`"),
        );
    }
    if parts.empty_exponent {
        return fail(
            whole(
                Code::MalformedNumber,
                "expected at least one digit in exponent".to_string(),
            )
            .with_label("the exponent has no digits")
            .with_help("write the exponent's digits, as in `1e3` or `2.5e-3`"),
        );
    }
    // Digits valid for the base (rustc: "invalid digit for a base 2 literal").
    if matches!(parts.base, Base::Binary | Base::Octal) {
        let digits = text
            .get(parts.digits_start..parts.suffix_start)
            .unwrap_or("");
        if let Some((i, d)) = digits
            .char_indices()
            .find(|&(_, d)| d.to_digit(parts.base.radix()).is_none() && d != '_')
        {
            let at = parts.digits_start + i;
            return fail(
                Diagnostic::new(
                    Code::MalformedNumber,
                    sub(at, at + d.len_utf8()),
                    format!("invalid digit `{d}` in {base_name} literal"),
                )
                .with_label(format!("not a base-{} digit", parts.base.radix()))
                .with_help(format!(
                    "{base_name} literals use the digits 0 to {}",
                    parts.base.radix() - 1
                )),
            );
        }
    }

    let suffix_span = sub(parts.suffix_start, parts.len);
    let float = match suffix {
        "" => is_float_form,
        "f32" => {
            if parts.base != Base::Decimal {
                return fail(
                    Diagnostic::new(
                        Code::MalformedNumber,
                        suffix_span,
                        format!("{base_name} literals cannot have the suffix `f32`"),
                    )
                    .with_label("only decimal literals can be floats")
                    .with_help("write the value as a decimal float literal, such as `2.0`"),
                );
            }
            true
        }
        "i32" => {
            if is_float_form {
                return fail(
                    Diagnostic::new(
                        Code::MalformedNumber,
                        suffix_span,
                        "a float literal cannot have the suffix `i32`",
                    )
                    .with_label("integer suffix on a float literal")
                    .with_help("remove the suffix, or write an integer such as `1i32`"),
                );
            }
            false
        }
        other if RUST_SUFFIXES.contains(&other) => {
            let example = if is_float_form || other.starts_with('f') {
                "`1.5` or `1.5f32`"
            } else {
                "`42` or `42i32`"
            };
            return fail(
                Diagnostic::new(
                    Code::MalformedNumber,
                    suffix_span,
                    format!("unsupported literal suffix `{other}`"),
                )
                .with_label("the language has no such type")
                .with_help(format!(
                    "the only numeric types are `i32` and `f32`: write {example}"
                )),
            );
        }
        other => {
            return fail(
                Diagnostic::new(
                    Code::MalformedNumber,
                    suffix_span,
                    format!("invalid suffix `{other}` for number literal"),
                )
                .with_label("invalid suffix")
                .with_help("a number literal may end in `i32` or `f32`, or in nothing"),
            );
        }
    };

    let digits = text.get(..parts.suffix_start).unwrap_or("");
    if float {
        let cleaned: String = digits.chars().filter(|&c| c != '_').collect();
        let Ok(value) = cleaned.parse::<f32>() else {
            return fail(
                whole(Code::MalformedNumber, format!("malformed number `{text}`"))
                    .with_label("not a float literal"),
            );
        };
        if value.is_infinite() {
            return fail(
                whole(
                    Code::IntegerOutOfRange,
                    format!("float literal `{text}` is out of range for `f32`"),
                )
                .with_label("rounds to infinity")
                .with_help("the largest finite f32 is about 3.4028235e38"),
            );
        }
        return Ok(Token::Float(value));
    }

    let radix = parts.base.radix();
    let body = text
        .get(parts.digits_start..parts.suffix_start)
        .unwrap_or("");
    let mut value: u64 = 0;
    for d in body.chars().filter(|&c| c != '_') {
        let digit = u64::from(d.to_digit(radix).unwrap_or(0));
        value = match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(digit))
        {
            Some(v) => v,
            None => {
                return fail(
                    whole(
                        Code::IntegerOutOfRange,
                        "integer literal is too large".to_string(),
                    )
                    .with_label("this does not even fit in 64 bits")
                    .with_help(
                        "an `i32` holds -2147483648 to 2147483647; hexadecimal and binary \
                     literals may spell bit patterns up to 0xFFFF_FFFF",
                    ),
                );
            }
        };
    }
    let radix = if parts.base == Base::Decimal {
        IntRadix::Decimal
    } else {
        IntRadix::NonDecimal
    };
    Ok(Token::Int { value, radix })
}
