//! User diagnostics: stable codes, the [`Diagnostic`] value, and its
//! rendering with ariadne.
//!
//! Only this module builds ariadne reports. Every diagnostic has a code of
//! the form `CKnnnn` (distinct from rustc's `E` codes, because the same
//! diagnostics appear in Rust builds through `ctm_kernel!`), a message, a
//! labelled primary span, optional secondary spans and an optional help
//! line. `docs/diagnostics.md` lists every code with an example; a test
//! checks that the list and this table agree.

use crate::span::Span;
use std::fmt;

/// Whether a diagnostic stops compilation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Severity {
    /// Compilation fails (exit code 1).
    Error,
    /// Reported; compilation goes on.
    Warning,
}

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $num:literal, $sev:ident, $title:literal;)*) => {
        /// A diagnostic code. The number never changes once published.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($(#[$doc])* $name = $num,)*
        }

        impl Code {
            /// Every code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];

            /// A one-line description of what the code is about.
            pub fn title(self) -> &'static str {
                match self { $(Code::$name => $title,)* }
            }

            /// Error or warning.
            pub fn severity(self) -> Severity {
                match self { $(Code::$name => Severity::$sev,)* }
            }
        }
    };
}

codes! {
    // --- lexical structure and syntax ---
    /// A character that cannot start any token.
    UnexpectedCharacter = 1, Error, "unexpected character";
    /// `/*` without its `*/`.
    UnterminatedComment = 2, Error, "unterminated block comment";
    /// A number that does not follow the literal syntax (spec §1).
    MalformedNumber = 3, Error, "malformed number literal";
    /// An integer literal that does not fit an `i32`.
    IntegerOutOfRange = 4, Error, "integer literal out of range";
    /// `.5`: Rust, and so the language, needs a digit before the point.
    LeadingDotFloat = 5, Error, "float literal without a leading digit";
    /// A token where the grammar does not allow it.
    SyntaxError = 6, Error, "syntax error";
    /// An opening delimiter never closed, or closed by the wrong one.
    UnclosedDelimiter = 7, Error, "unclosed or mismatched delimiter";
    /// Nesting deeper than the compiler's bound.
    NestingTooDeep = 8, Error, "nesting too deep";
    /// `a < b < c`: comparisons do not associate (spec §6).
    ChainedComparison = 9, Error, "comparison operators cannot be chained";
    // --- names ---
    /// A name that is not a local, parameter or constant in scope.
    UnknownName = 10, Error, "unknown name";
    /// Two items with the same name.
    DuplicateItem = 11, Error, "duplicate item name";
    /// Two parameters of one item with the same name.
    DuplicateParameter = 12, Error, "duplicate parameter name";
    /// A type name the language does not have.
    UnknownType = 13, Error, "unknown type";
    /// A call of something that is neither a built-in nor a helper.
    UnknownFunction = 14, Error, "unknown function";
    /// A call with the wrong number of arguments.
    ArgumentCount = 15, Error, "wrong number of arguments";
    /// A helper that calls itself, directly or through others.
    Recursion = 16, Error, "recursive function";
    /// A file with no `kernel` or `reduce` to compile.
    NoEntryPoint = 17, Error, "no kernel to compile";
    /// Several entry points and no `--kernel` to choose.
    AmbiguousEntryPoint = 18, Error, "several kernels: choose one with --kernel";
    /// `--kernel NAME` names no kernel or reduction of the file.
    UnknownEntryPoint = 19, Error, "no kernel with that name";
    // --- types ---
    /// A value of one type where another is required.
    TypeMismatch = 20, Error, "mismatched types";
    /// An integer literal where an `f32` is required (write `2.0`).
    IntLiteralInFloatContext = 21, Error, "integer literal in float context";
    /// A binary operator applied to operand types it does not accept.
    InvalidOperands = 22, Error, "invalid operand types";
    /// Vectors of different widths combined.
    VectorWidthMismatch = 23, Error, "vector widths differ";
    /// A swizzle naming lanes the value does not have, or malformed.
    InvalidSwizzle = 24, Error, "invalid swizzle";
    /// A swizzle write naming a lane twice (`v.xx = ..`).
    RepeatedSwizzleWrite = 25, Error, "repeated lane in swizzle write";
    /// An `as` conversion the language does not have.
    InvalidCast = 26, Error, "invalid cast";
    /// A condition that is not a `bool`.
    NonBoolCondition = 27, Error, "condition is not a bool";
    /// A prefix operator applied to a type it does not accept.
    InvalidUnaryOperand = 28, Error, "invalid operand for unary operator";
    /// A `mat4`, array, or stream used where a value is needed.
    NotAValue = 29, Error, "not a value";
    /// Assignment to a variable declared without `mut`.
    AssignToImmutable = 30, Error, "assignment to immutable variable";
    /// Assignment to a uniform, input, constant or loop variable.
    AssignToReadOnly = 31, Error, "assignment to read-only value";
    /// Reading an `Out` or `Scatter` stream.
    ReadOutput = 32, Error, "outputs cannot be read";
    /// An `Out` not assigned on some path that does not `discard`.
    OutputNotAssigned = 33, Error, "output not assigned on every path";
    /// A stream element type the stream kind does not support.
    InvalidStreamType = 34, Error, "invalid stream element type";
    /// Streams, `discard`, `index()` or `domain()` outside a kernel body.
    KernelOnly = 35, Error, "only allowed in a kernel";
    /// Indexing something that cannot be indexed, or with the wrong type.
    InvalidIndex = 36, Error, "invalid index";
    /// `break` or `continue` outside a loop.
    BreakOutsideLoop = 37, Error, "break or continue outside a loop";
    /// `return` with a value in a kernel, or without one in a function.
    ReturnMismatch = 38, Error, "mismatched return";
    /// `let x;` without an initial value.
    MissingInitializer = 39, Error, "variable without initial value";
    // --- statements and items ---
    /// A `for` bound that is neither an integer constant nor an `i32` uniform.
    InvalidLoopBound = 40, Error, "invalid for-loop bound";
    /// An array length that is not an integer constant in 1..=256.
    InvalidArrayLength = 41, Error, "invalid array length";
    /// A `const` initialiser that cannot be evaluated at compile time.
    NotConstant = 42, Error, "not a constant expression";
    /// `const` items that depend on each other in a cycle.
    ConstCycle = 43, Error, "cyclic constant";
    /// An `if` used as a value without an `else`.
    IfWithoutElse = 44, Error, "if without else used as a value";
    /// A built-in called with argument types it does not accept.
    BuiltinArguments = 45, Error, "invalid arguments to built-in";
    /// A kernel with no `Out` or `Scatter` parameter.
    NoOutputs = 46, Error, "kernel has no outputs";
    /// A malformed scatter write.
    InvalidScatterWrite = 47, Error, "invalid scatter write";
    /// A reduction whose signature is not `(a: T, b: T) -> T`.
    InvalidReduction = 48, Error, "invalid reduction";
    /// The left side of `=` is not something that can be assigned.
    InvalidAssignTarget = 49, Error, "invalid assignment target";
    /// A parameter type not allowed for that kind of item.
    InvalidParameterType = 50, Error, "invalid parameter type";
    /// Code after `return`, `break`, `continue` or `discard`.
    UnreachableCode = 51, Warning, "unreachable code";
    /// A local that is never read.
    UnusedVariable = 52, Warning, "unused variable";
    /// Helper calls nested deeper than the compiler's bound.
    CallsTooDeep = 53, Error, "helper calls nested too deeply";
    /// A kernel whose helpers, once inlined, exceed the compiler's budget.
    InlineBudget = 54, Error, "program too large after inlining";
    // --- target rules and limits ---
    /// `/ % & | ^ << >> !` on `i32` for x1k, which emulates integers in f32.
    X1kIntegerOperator = 60, Error, "integer operator not supported on x1k";
    /// `Scatter` and `Out` in one kernel for x1k.
    X1kScatterWithOutputs = 61, Error, "x1k cannot mix Scatter with Out";
    /// More outputs than the target has.
    TooManyOutputs = 62, Error, "too many outputs";
    /// More than 16 input streams.
    TooManyInputs = 63, Error, "too many inputs";
    /// Uniforms needing more than 256 float constants.
    TooManyConstants = 64, Error, "too many float constants";
    /// More `i32` uniforms than the 32 x1k integer constants.
    TooManyIntConstants = 65, Error, "too many integer constants";
    /// More `bool` uniforms than the 32 boolean constants.
    TooManyBoolConstants = 66, Error, "too many boolean constants";
    /// A `while`/`loop` whose bound x1k's 255-iteration counter may cut.
    X1kUnboundedLoop = 67, Warning, "loop may exceed 255 iterations on x1k";
    // --- limits found by the backends ---
    /// An x1k uniform-array index that is not a constant or loop counter
    /// plus a constant after optimisation.
    X1kDynamicIndex = 70, Error, "uniform-array index not supported on x1k";
    /// More than 128 registers live at once.
    TooManyRegisters = 71, Error, "too many registers";
    /// More instructions than the target's program memory holds.
    TooManyInstructions = 72, Error, "program too long";
    /// Flow control nested deeper than the hardware allows.
    FlowControlTooDeep = 73, Error, "flow control nested too deeply";
    /// A loop with more iterations than the x1k's nested loop counters
    /// reach (255^3).
    X1kLoopTooLong = 74, Error, "loop runs too many times for x1k";
}

impl Code {
    /// The number, e.g. 12 for `CK0012`.
    pub fn number(self) -> u16 {
        self as u16
    }

    /// Looks a code up by its number.
    pub fn from_number(n: u16) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.number() == n)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CK{:04}", self.number())
    }
}

/// One diagnostic: a code, a message, spans with labels, help and notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// The code, which also decides the severity.
    pub code: Code,
    /// The headline.
    pub message: String,
    /// The primary span.
    pub span: Span,
    /// The label at the primary span (empty: none).
    pub label: String,
    /// Further labelled spans.
    pub secondary: Vec<(Span, String)>,
    /// A suggestion for fixing it.
    pub help: Option<String>,
    /// Extra context.
    pub note: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with code, primary span and message.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            help: None,
            note: None,
        }
    }

    /// Sets the label of the primary span.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// Adds a labelled secondary span.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Sets the note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.note = Some(note.into());
        self
    }

    /// Error or warning, from the code.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    /// `true` for errors.
    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// The one-line form: `error[CK0012]: message`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{kind}[{}]: {}", self.code, self.message)
    }
}

/// `true` if any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Renders diagnostics against their source, as rustc-like reports:
///
/// ```text
/// error[CK0021]: integer literal in float context
///    ╭─[ saxpy.ck:2:13 ]
///  2 │     r = a * 2 + y;
///    │             ┬
///    │             ╰── this is an i32 literal
///    │ Help: write `2.0`
/// ```
///
/// Spans outside the text are clamped, so rendering never panics.
///
/// At most [`MAX_RENDERED`] diagnostics are shown (errors have priority;
/// the shown ones stay in source order), followed by a line saying how many
/// more errors and warnings there were, as rustc does. Rendering takes time
/// linear in the source plus the shown reports (the source's line index is
/// built once; a long line is cut to a window around its labels).
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str, color: bool) -> String {
    let mut text = String::new();
    let mut cache = (file_name.to_string(), ariadne::Source::from(source));
    // Errors have priority; the shown ones keep their order.
    let error_count = diags.iter().filter(|d| d.is_error()).count();
    let mut warning_room = MAX_RENDERED.saturating_sub(error_count);
    let mut error_room = MAX_RENDERED;
    for d in diags {
        let room = if d.is_error() {
            &mut error_room
        } else {
            &mut warning_room
        };
        if *room == 0 {
            continue;
        }
        *room -= 1;
        text.push_str(&render_one(d, file_name, source, color, &mut cache));
    }
    if diags.len() > MAX_RENDERED {
        let shown_errors = diags
            .iter()
            .filter(|d| d.is_error())
            .count()
            .min(MAX_RENDERED);
        let more_errors = diags.iter().filter(|d| d.is_error()).count() - shown_errors;
        let more_warnings = diags.len() - MAX_RENDERED - more_errors;
        let plural =
            |n: usize, what: &str| format!("{n} more {what}{}", if n == 1 { "" } else { "s" });
        let parts: Vec<String> = [(more_errors, "error"), (more_warnings, "warning")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|&(n, w)| plural(n, w))
            .collect();
        text.push_str(&format!(
            "note: {} not shown (ctmc shows the first {MAX_RENDERED} diagnostics)\n",
            parts.join(" and ")
        ));
    }
    text
}

/// The most diagnostics [`render`] shows; the rest are counted.
pub const MAX_RENDERED: usize = 100;

/// Lines longer than this (in bytes) are shown as a window around the
/// labels instead of whole: a minified or generated source can have a
/// megabyte on one line.
const LONG_LINE: usize = 200;
/// Context kept on each side of the labels in a long line, and the most a
/// window shows.
const WINDOW_CONTEXT: usize = 60;
const WINDOW_MAX: usize = 300;
/// What marks the cut ends of a window.
const ELLIPSIS: &str = "…";

/// Clamps a span into `source` at character boundaries.
fn clamp_span(source: &str, s: Span) -> std::ops::Range<usize> {
    let len = source.len();
    let mut start = (s.start as usize).min(len);
    let mut end = (s.end as usize).clamp(start, len);
    while start > 0 && !source.is_char_boundary(start) {
        start -= 1;
    }
    while end < len && !source.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The source as a diagnostic shows it: long lines that a label touches
/// cut down to a window around the labels (cut ends marked `…`), with the
/// labels' ranges moved to match. Lines and line numbers are unchanged.
struct Shown {
    text: String,
    /// (original line start, window start, window end, shown window start)
    windows: Vec<(usize, usize, usize, usize)>,
}

impl Shown {
    fn new(source: &str, ranges: &[std::ops::Range<usize>]) -> Shown {
        let line_of = |at: usize| {
            let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = source[at..].find('\n').map_or(source.len(), |i| at + i);
            (start, end)
        };
        // Long lines touched by a label, with the labels' extent on each.
        let mut lines: Vec<(usize, usize, usize, usize)> = Vec::new();
        for r in ranges {
            let (ls, le) = line_of(r.start);
            if le - ls <= LONG_LINE {
                continue;
            }
            let (lo, hi) = (r.start, r.end.min(le).max(r.start));
            match lines.iter_mut().find(|l| l.0 == ls) {
                Some(l) => {
                    l.2 = l.2.min(lo);
                    l.3 = l.3.max(hi);
                }
                None => lines.push((ls, le, lo, hi)),
            }
        }
        lines.sort_unstable();
        let snap_down = |mut i: usize| {
            while i > 0 && !source.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        if lines.is_empty() {
            // Nothing to cut: the caller renders the source itself.
            return Shown {
                text: String::new(),
                windows: Vec::new(),
            };
        }
        let mut text = String::with_capacity(source.len().min(1 << 16));
        let mut windows = Vec::new();
        let mut at = 0;
        for (ls, le, lo, hi) in lines {
            let a = snap_down(lo.saturating_sub(WINDOW_CONTEXT).max(ls));
            let b = snap_down((hi + WINDOW_CONTEXT).min(le).min(a + WINDOW_MAX).max(lo));
            text.push_str(&source[at..ls]);
            if a > ls {
                text.push_str(ELLIPSIS);
            }
            windows.push((ls, a, b, text.len()));
            text.push_str(&source[a..b]);
            if b < le {
                text.push_str(ELLIPSIS);
            }
            at = le;
        }
        text.push_str(&source[at..]);
        Shown { text, windows }
    }

    /// Where original offset `at` is in the shown text.
    fn map(&self, source: &str, at: usize) -> usize {
        let mut shift: isize = 0;
        for &(ls, a, b, shown) in &self.windows {
            if at < ls {
                break;
            }
            let le = source[ls..].find('\n').map_or(source.len(), |i| ls + i);
            if at <= le {
                return shown + at.clamp(a, b) - a;
            }
            let shown_end = shown + (b - a) + if b < le { ELLIPSIS.len() } else { 0 };
            shift = shown_end as isize - le as isize;
        }
        (at as isize + shift) as usize
    }
}

fn render_one(
    d: &Diagnostic,
    file_name: &str,
    source: &str,
    color: bool,
    whole: &mut (String, ariadne::Source<&str>),
) -> String {
    use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
    let primary_range = clamp_span(source, d.span);
    let mut ranges = vec![primary_range.clone()];
    ranges.extend(d.secondary.iter().map(|(s, _)| clamp_span(source, *s)));
    let shown = Shown::new(source, &ranges);
    let windowed = !shown.windows.is_empty();
    let place = |r: &std::ops::Range<usize>| {
        if windowed {
            shown.map(source, r.start)..shown.map(source, r.end)
        } else {
            r.clone()
        }
    };
    let (word, tint) = match d.severity() {
        Severity::Error => ("error", Color::Red),
        Severity::Warning => ("warning", Color::Yellow),
    };
    let head = format!("{word}[{}]", d.code);
    let mut report = Report::build(
        ReportKind::Custom(&head, tint),
        (file_name.to_string(), place(&primary_range)),
    )
    .with_config(
        Config::default()
            .with_color(color)
            .with_index_type(IndexType::Byte),
    )
    .with_message(&d.message);
    let mut primary = Label::new((file_name.to_string(), place(&primary_range)));
    if !d.label.is_empty() {
        primary = primary.with_message(&d.label);
    }
    if color {
        primary = primary.with_color(tint);
    }
    report = report.with_label(primary);
    for (range, (_, text)) in ranges[1..].iter().zip(&d.secondary) {
        let mut label = Label::new((file_name.to_string(), place(range))).with_message(text);
        if color {
            label = label.with_color(Color::Blue);
        }
        report = report.with_label(label);
    }
    if let Some(help) = &d.help {
        report = report.with_help(help);
    }
    if let Some(note) = &d.note {
        report = report.with_note(note);
    }
    let mut out = Vec::new();
    if windowed {
        let mut cache = (file_name.to_string(), Source::from(shown.text.as_str()));
        let _ = report.finish().write(&mut cache, &mut out);
    } else {
        let _ = report.finish().write(whole, &mut out);
    }
    let mut text = String::from_utf8_lossy(&out).into_owned();
    if windowed {
        text = fix_header_column(&text, source, primary_range.start);
    }
    if color { text } else { strip_ansi(&text) }
}

/// In a windowed report, puts the true column of `at` (1-based, in
/// characters, as ariadne counts) back into the `╭─[ file:line:col ]`
/// header, which ariadne computed in the shown text.
fn fix_header_column(text: &str, source: &str, at: usize) -> String {
    let line_start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let column = source[line_start..at].chars().count() + 1;
    let Some(open) = text.find("╭─[") else {
        return text.to_string();
    };
    let Some(close) = text[open..].find(']').map(|i| open + i) else {
        return text.to_string();
    };
    let header = &text[open..close];
    let Some(colon) = header.rfind(':') else {
        return text.to_string();
    };
    let digits = header[colon + 1..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    let trail = &header[colon + 1 + digits..];
    format!(
        "{}{}{trail}{}",
        &text[..open + colon + 1],
        column,
        &text[close..]
    )
}

/// Removes ANSI colour sequences (ariadne colours custom report kinds even
/// when colour is off).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_print_as_ck() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.number()), "{c:?} reuses a number");
            assert_eq!(Code::from_number(c.number()), Some(*c));
        }
        assert_eq!(Code::TypeMismatch.to_string(), "CK0020");
    }

    #[test]
    fn render_starts_with_error_code_and_survives_bad_spans() {
        let src = "kernel k() {}\n";
        let d = Diagnostic::new(
            Code::NoOutputs,
            Span::new(7, 8),
            "kernel `k` has no outputs",
        )
        .with_label("here")
        .with_help("add an `Out<f32>` parameter");
        let text = render(std::slice::from_ref(&d), "k.ck", src, false);
        assert!(
            text.starts_with("error[CK0046]: kernel `k` has no outputs"),
            "{text}"
        );
        assert!(text.contains("add an `Out<f32>` parameter"));
        let wild = Diagnostic::new(Code::SyntaxError, Span::new(500, 900), "past the end");
        let text = render(&[wild], "k.ck", src, false);
        assert!(text.contains("CK0006"));
        let text = render(&[d], "k.ck", "", false);
        assert!(text.contains("CK0046"));
    }

    #[test]
    fn long_lines_show_a_window_around_the_labels() {
        // Line 1 is long with a label in its middle; line 2 is long with a
        // secondary label near its end; line 3 is short and labelled.
        let line1 = format!("{}BAD{}", "x".repeat(5000), "y".repeat(5000));
        let line2 = format!("{}HERE", "é".repeat(3000));
        let src = format!("{line1}\n{line2}\nshort OK\n");
        let bad = 5000;
        let here = line1.len() + 1 + "é".len() * 3000;
        let ok = line1.len() + 1 + line2.len() + 1 + 6;
        let d = Diagnostic::new(Code::SyntaxError, Span::new(bad, bad + 3), "bad")
            .with_label("the bad part")
            .with_secondary(Span::new(here, here + 4), "the other part")
            .with_secondary(Span::new(ok, ok + 2), "after the windows");
        let text = render(std::slice::from_ref(&d), "k.ck", &src, false);
        assert!(text.len() < 3000, "{text}");
        assert!(text.contains("k.ck:1:5001 ]"), "{text}");
        assert!(text.contains("xxBADyy"), "{text}");
        assert!(text.contains("ééHERE"), "{text}");
        assert!(text.contains("short OK"), "{text}");
        assert!(text.contains('…'), "{text}");
        for label in ["the bad part", "the other part", "after the windows"] {
            assert!(text.contains(label), "{label}: {text}");
        }
        // Each label's caret sits under its text: find the column of the
        // label's `┬` and of the text it marks on the line above.
        let lines: Vec<&str> = text.lines().collect();
        for (needle, line) in [("BAD", " 1 │"), ("HERE", " 2 │"), ("OK", " 3 │")] {
            let row = lines.iter().position(|l| l.starts_with(line)).expect(line);
            let col = lines[row]
                .find(needle)
                .map(|byte| lines[row][..byte].chars().count());
            let caret = lines[row + 1].chars().position(|c| c == '┬' || c == '─');
            assert_eq!(col, caret, "{needle}: {text}");
        }
        // Short lines are shown whole, as before.
        let short = render(std::slice::from_ref(&d), "k.ck", "short OK\n", false);
        assert!(!short.contains('…'), "{short}");
    }
}
