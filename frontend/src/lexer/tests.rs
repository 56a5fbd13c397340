//! Unit tests of the lexer: every token kind, literal form and lexical error.

use super::*;

/// Tokens of `src`, which must lex without diagnostics.
fn toks(src: &str) -> Vec<Token<'_>> {
    let (tokens, diags) = lex(src);
    assert!(
        diags.is_empty(),
        "unexpected diagnostics for {src:?}: {diags:#?}"
    );
    tokens.into_iter().map(|(t, _)| t).collect()
}

/// The single token of `src`.
fn one(src: &str) -> Token<'_> {
    let t = toks(src);
    assert_eq!(t.len(), 1, "{src:?} gave {t:?}");
    t.into_iter().next().unwrap_or(Token::Error)
}

/// The diagnostics of `src`.
fn diags(src: &str) -> Vec<Diagnostic> {
    lex(src).1
}

/// The only diagnostic of `src`, with its code and the text under its span.
fn error(src: &str) -> (Code, String, Diagnostic) {
    let d = diags(src);
    assert_eq!(d.len(), 1, "{src:?} gave {d:#?}");
    let d = d.into_iter().next().expect("one diagnostic");
    let text = src.get(d.span.range()).unwrap_or("<bad span>").to_string();
    (d.code, text, d)
}

fn int(value: u64) -> Token<'static> {
    Token::Int {
        value,
        radix: IntRadix::Decimal,
    }
}

fn hex(value: u64) -> Token<'static> {
    Token::Int {
        value,
        radix: IntRadix::NonDecimal,
    }
}

fn ident(name: &str) -> Token<'_> {
    Token::Ident(name)
}

#[test]
fn empty_and_trivia_only_sources_give_no_tokens() {
    assert!(toks("").is_empty());
    assert!(toks("  \t\r\n ").is_empty());
    assert!(toks("// just a comment").is_empty());
    assert!(toks("/* block */ /** doc */ /// doc\n//! inner doc").is_empty());
}

#[test]
fn identifiers() {
    assert_eq!(one("x"), ident("x"));
    assert_eq!(one("_"), ident("_"));
    assert_eq!(one("_tmp9"), ident("_tmp9"));
    assert_eq!(one("vec4"), ident("vec4"));
    assert_eq!(one("In"), ident("In"));
    assert_eq!(one("unorm8x4"), ident("unorm8x4"));
    // Keywords are case-sensitive; prefixes of keywords are identifiers.
    assert_eq!(one("Let"), ident("Let"));
    assert_eq!(one("lets"), ident("lets"));
    assert_eq!(one("iff"), ident("iff"));
}

#[test]
fn every_keyword() {
    for k in Keyword::ALL {
        assert_eq!(one(k.as_str()), Token::Keyword(*k), "{k:?}");
    }
    assert_eq!(Keyword::ALL.len(), 19);
}

#[test]
fn every_punct_alone_and_their_spans() {
    for p in Punct::ALL {
        let src = format!(" {} ", p.as_str());
        let (tokens, d) = lex(&src);
        assert!(d.is_empty());
        assert_eq!(tokens.len(), 1, "{p:?}");
        assert_eq!(tokens[0].0, Token::Punct(*p));
        assert_eq!(tokens[0].1, Span::new(1, 1 + p.as_str().len()));
    }
    assert_eq!(Punct::ALL.len(), 42);
}

#[test]
fn longest_operator_wins() {
    use Punct::*;
    let p = |ps: &[Punct]| ps.iter().map(|p| Token::Punct(*p)).collect::<Vec<_>>();
    assert_eq!(toks("<<="), p(&[ShlEq]));
    assert_eq!(toks(">>>"), p(&[Shr, Gt]));
    assert_eq!(toks("a<=b"), vec![ident("a"), Token::Punct(Le), ident("b")]);
    assert_eq!(toks("!==="), p(&[Ne, EqEq]));
    assert_eq!(toks("->"), p(&[Arrow]));
    assert_eq!(
        toks("--x"),
        vec![Token::Punct(Minus), Token::Punct(Minus), ident("x")]
    );
    assert_eq!(toks("&&&"), p(&[AndAnd, Amp]));
    assert_eq!(toks("|||"), p(&[OrOr, Pipe]));
    assert_eq!(toks("..."), p(&[DotDot, Dot]));
    assert_eq!(toks("::"), p(&[Colon, Colon]));
}

#[test]
fn decimal_integers() {
    assert_eq!(one("0"), int(0));
    assert_eq!(one("42"), int(42));
    assert_eq!(one("1_000"), int(1000));
    assert_eq!(one("1_"), int(1));
    assert_eq!(one("007"), int(7));
    assert_eq!(one("42i32"), int(42));
    assert_eq!(one("2147483648"), int(2_147_483_648));
    assert_eq!(one("18446744073709551615"), int(u64::MAX));
}

#[test]
fn non_decimal_integers() {
    assert_eq!(one("0x2A"), hex(42));
    assert_eq!(one("0x2a"), hex(42));
    assert_eq!(one("0x9E3779B9"), hex(0x9E37_79B9));
    assert_eq!(one("0xFFFF_FFFF"), hex(0xFFFF_FFFF));
    assert_eq!(one("0b101"), hex(5));
    assert_eq!(one("0o17"), hex(15));
    assert_eq!(one("0b1i32"), hex(1));
    // `f` is a hex digit, so this is one hexadecimal integer.
    assert_eq!(one("0x1f32"), hex(0x1f32));
}

#[test]
fn floats() {
    assert_eq!(one("1.0"), Token::Float(1.0));
    assert_eq!(one("0.5"), Token::Float(0.5));
    assert_eq!(one("1e-3"), Token::Float(1e-3));
    assert_eq!(one("2.5e3"), Token::Float(2500.0));
    assert_eq!(one("1E5"), Token::Float(1e5));
    assert_eq!(one("1e+2"), Token::Float(100.0));
    assert_eq!(one("1.5f32"), Token::Float(1.5));
    assert_eq!(one("2f32"), Token::Float(2.0));
    assert_eq!(one("1_000.5"), Token::Float(1000.5));
    assert_eq!(one("3.14159265"), Token::Float(std::f32::consts::PI));
    // Correctly rounded to f32, not via f64 text.
    assert_eq!(one("0.1"), Token::Float(0.1_f32));
    assert_eq!(one("16777217.0"), Token::Float(16_777_216.0));
    // Underflow is not an error (as in Rust).
    assert_eq!(one("1e-50"), Token::Float(0.0));
}

#[test]
fn trailing_dot_floats_follow_rust() {
    assert_eq!(one("1."), Token::Float(1.0));
    assert_eq!(
        toks("1.;"),
        vec![Token::Float(1.0), Token::Punct(Punct::Semi)]
    );
    assert_eq!(
        toks("(1.)"),
        vec![
            Token::Punct(Punct::LParen),
            Token::Float(1.0),
            Token::Punct(Punct::RParen)
        ]
    );
    // `..` is a range, and a letter after the dot makes a field access.
    assert_eq!(
        toks("0..8"),
        vec![int(0), Token::Punct(Punct::DotDot), int(8)]
    );
    assert_eq!(
        toks("1.x"),
        vec![int(1), Token::Punct(Punct::Dot), ident("x")]
    );
    assert_eq!(
        toks("1.e3"),
        vec![int(1), Token::Punct(Punct::Dot), ident("e3")]
    );
    assert_eq!(
        toks("1.0.x"),
        vec![Token::Float(1.0), Token::Punct(Punct::Dot), ident("x")]
    );
}

#[test]
fn spans_are_byte_ranges() {
    let (tokens, _) = lex("let x = 1.5;");
    let spans: Vec<_> = tokens.iter().map(|(_, s)| (s.start, s.end)).collect();
    assert_eq!(spans, vec![(0, 3), (4, 5), (6, 7), (8, 11), (11, 12)]);
    // Multi-byte characters inside comments shift later spans in bytes.
    let (tokens, _) = lex("/* é */x");
    assert_eq!(tokens[0].1, Span::new(8, 9));
}

#[test]
fn comments_nest_and_doc_comments_are_comments() {
    assert_eq!(toks("a /* x /* y */ z */ b"), vec![ident("a"), ident("b")]);
    assert_eq!(toks("a // c /* not open\nb"), vec![ident("a"), ident("b")]);
    assert_eq!(toks("/// doc\nfn"), vec![Token::Keyword(Keyword::Fn)]);
    assert_eq!(toks("a/**/b"), vec![ident("a"), ident("b")]);
    assert_eq!(toks("a/***/b"), vec![ident("a"), ident("b")]);
    assert_eq!(
        toks("x/ /y"),
        vec![
            ident("x"),
            Token::Punct(Punct::Slash),
            Token::Punct(Punct::Slash),
            ident("y")
        ]
    );
}

#[test]
fn unknown_characters_are_ck0001_and_lexing_continues() {
    for c in [
        "@", "$", "#", "`", "~", "?", "'", "\\", "é", "\u{0}", "\u{a0}", "→",
    ] {
        let src = format!("a {c} b");
        let (tokens, d) = lex(&src);
        assert_eq!(d.len(), 1, "{c:?}: {d:#?}");
        assert_eq!(d[0].code, Code::UnexpectedCharacter);
        assert_eq!(&src[d[0].span.range()], c);
        assert!(!d[0].label.is_empty());
        assert_eq!(
            tokens.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            vec![ident("a"), Token::Error, ident("b")],
            "{c:?}"
        );
    }
}

#[test]
fn a_run_of_unknown_characters_is_one_error() {
    let (code, text, d) = error("x = @$#;");
    assert_eq!(code, Code::UnexpectedCharacter);
    assert_eq!(text, "@$#");
    assert!(d.message.contains("@$#"), "{}", d.message);
}

#[test]
fn helpful_hints_for_some_characters() {
    let (_, _, d) = error("a \u{2212} b");
    assert!(d.help.as_deref().unwrap_or("").contains("`-`"), "{d:?}");
    let (_, _, d) = error("#[inline]");
    assert!(
        d.help.as_deref().unwrap_or("").contains("attributes"),
        "{d:?}"
    );
    let (_, _, d) = error("größe");
    assert!(d.help.as_deref().unwrap_or("").contains("ASCII"), "{d:?}");
}

#[test]
fn strings_are_one_error_on_their_line() {
    let (code, text, _) = error("let s = \"hi there\";");
    assert_eq!(code, Code::UnexpectedCharacter);
    assert_eq!(text, "\"hi there\"");
    // Unclosed: only the quote is reported; the rest of the line lexes.
    let (tokens, d) = lex("a \"b\nc");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].span, Span::new(2, 3));
    assert_eq!(tokens.len(), 4);
}

#[test]
fn unterminated_block_comment_is_ck0002_at_the_opener() {
    let src = "a /* never closed";
    let (tokens, d) = lex(src);
    assert_eq!(tokens.len(), 1);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::UnterminatedComment);
    assert_eq!(d[0].span, Span::new(2, 4));
    assert!(d[0].help.is_some());
    // Nested: the outer opener is the primary span, the inner one secondary.
    let src = "/* a /* b */ c /* d";
    let d = diags(src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].span, Span::new(0, 2));
    assert_eq!(d[0].secondary.len(), 1);
    assert_eq!(d[0].secondary[0].0, Span::new(15, 17));
    // Deep nesting does not recurse.
    let deep = "/*".repeat(100_000);
    assert_eq!(diags(&deep).len(), 1);
}

#[test]
fn malformed_numbers_are_ck0003() {
    for (src, bad) in [
        ("1e", "1e"),
        ("1e+", "1e+"),
        ("2.5E-", "2.5E-"),
        ("0x", "0x"),
        ("0b", "0b"),
        ("0x_", "0x_"),
        ("1.0.0", "1.0.0"),
        ("1.2.3.4", "1.2.3.4"),
        ("0x1.5", "0x1.5"),
        ("0b1e3", "0b1e3"),
        ("0b102", "2"),
        ("0o78", "8"),
        ("1.5i32", "i32"),
        ("0b1f32", "f32"),
        ("12abc", "abc"),
    ] {
        let (code, text, d) = error(src);
        assert_eq!(code, Code::MalformedNumber, "{src}");
        assert_eq!(text, bad, "{src}");
        assert!(!d.label.is_empty(), "{src}");
        assert!(d.help.is_some(), "{src}");
    }
}

#[test]
fn rust_suffixes_are_ck0003_with_help() {
    for (src, suffix) in [
        ("5u8", "u8"),
        ("1.0f64", "f64"),
        ("3usize", "usize"),
        ("7i64", "i64"),
    ] {
        let (code, text, d) = error(src);
        assert_eq!(code, Code::MalformedNumber);
        assert_eq!(text, suffix);
        assert!(d.message.contains(suffix));
        assert!(d.help.as_deref().unwrap_or("").contains("i32"), "{d:?}");
    }
}

#[test]
fn integers_beyond_u64_are_ck0004() {
    let (code, text, _) = error("x = 18446744073709551616;");
    assert_eq!(code, Code::IntegerOutOfRange);
    assert_eq!(text, "18446744073709551616");
    let (code, _, _) = error("0x1_0000_0000_0000_0000");
    assert_eq!(code, Code::IntegerOutOfRange);
    // Floats that round to infinity are out of range as well.
    let (code, text, _) = error("1e39");
    assert_eq!(code, Code::IntegerOutOfRange);
    assert_eq!(text, "1e39");
}

#[test]
fn leading_dot_is_ck0005_and_still_a_float() {
    let (tokens, d) = lex("x = .5;");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::LeadingDotFloat);
    assert_eq!(d[0].span, Span::new(4, 6));
    assert_eq!(d[0].help.as_deref(), Some("write `0.5`"));
    assert_eq!(tokens[2].0, Token::Float(0.5));
    let (_, _, d) = error("(.25e2)");
    assert_eq!(d.help.as_deref(), Some("write `0.25e2`"));
    // Right after a name it is a field access with a number.
    let (tokens, d) = lex("v.0");
    assert!(d.is_empty());
    assert_eq!(tokens.len(), 3);
    assert_eq!(tokens[1].0, Token::Punct(Punct::Dot));
}

#[test]
fn lexing_continues_after_every_error() {
    let src = "a @ 1e b 5u8 c .5 d 0x e /* f";
    let (tokens, d) = lex(src);
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::UnexpectedCharacter,
            Code::MalformedNumber,
            Code::MalformedNumber,
            Code::LeadingDotFloat,
            Code::MalformedNumber,
            Code::UnterminatedComment,
        ]
    );
    let names: Vec<&str> = tokens
        .iter()
        .filter_map(|(t, _)| match t {
            Token::Ident(n) => Some(*n),
            _ => None,
        })
        .collect();
    assert_eq!(names, vec!["a", "b", "c", "d", "e"]);
}

#[test]
fn display_of_tokens() {
    assert_eq!(Token::Punct(Punct::ShlEq).to_string(), "<<=");
    assert_eq!(Token::Keyword(Keyword::Discard).to_string(), "discard");
    assert_eq!(ident("v").to_string(), "v");
    assert_eq!(Token::Float(1.0).to_string(), "1.0");
    assert_eq!(int(7).to_string(), "7");
}

#[test]
fn binary_garbage_never_panics() {
    let garbage: String = (0..5000u32)
        .map(|i| char::from_u32((i * 7919) % 0x3000).unwrap_or('x'))
        .collect();
    let (tokens, d) = lex(&garbage);
    assert!(!tokens.is_empty());
    assert!(!d.is_empty());
    for (_, span) in &tokens {
        assert!(garbage.is_char_boundary(span.start as usize));
        assert!(garbage.is_char_boundary(span.end as usize));
    }
}
