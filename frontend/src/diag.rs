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
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str, color: bool) -> String {
    use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
    let mut out = Vec::new();
    let len = source.len();
    let clamp = |s: Span| {
        let mut start = (s.start as usize).min(len);
        let mut end = (s.end as usize).clamp(start, len);
        while start > 0 && !source.is_char_boundary(start) {
            start -= 1;
        }
        while end < len && !source.is_char_boundary(end) {
            end += 1;
        }
        start..end
    };
    let mut cache = (file_name.to_string(), Source::from(source));
    for d in diags {
        let (word, tint) = match d.severity() {
            Severity::Error => ("error", Color::Red),
            Severity::Warning => ("warning", Color::Yellow),
        };
        let head = format!("{word}[{}]", d.code);
        let mut report = Report::build(
            ReportKind::Custom(&head, tint),
            (file_name.to_string(), clamp(d.span)),
        )
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_message(&d.message);
        let mut primary = Label::new((file_name.to_string(), clamp(d.span)));
        if !d.label.is_empty() {
            primary = primary.with_message(&d.label);
        }
        if color {
            primary = primary.with_color(tint);
        }
        report = report.with_label(primary);
        for (span, text) in &d.secondary {
            let mut label = Label::new((file_name.to_string(), clamp(*span))).with_message(text);
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
        let _ = report.finish().write(&mut cache, &mut out);
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    if color { text } else { strip_ansi(&text) }
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
}
