//! `ctm-frontend`: the `.ck` kernel language up to a checked program.
//!
//! It owns the lexer and parser ([`lexer`], [`parser`]) producing the
//! [`ast`], name resolution and type checking ([`check`]) producing the
//! typed [`tast`], the [`diag`]nostics, the language's [`numerics`], and the
//! reference interpreter ([`interp`]) — the oracle of every differential
//! test. [`compile`] runs the whole front end.

pub mod ast;
pub mod builtins;
pub mod check;
pub mod data;
pub mod diag;
pub mod interp;
pub mod lexer;
pub mod numerics;
pub mod parser;
pub mod print;
pub mod span;
pub mod tast;
pub mod types;
pub mod value;

pub use diag::{Code, Diagnostic, Severity};
pub use span::Span;
pub use types::Target;

/// Options of the checker.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The target whose rules and limits apply.
    pub target: Target,
}

/// The result of [`compile`]: the checked program (if there were no
/// errors) and every diagnostic, warnings included, in source order.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The program, `None` if any error was reported.
    pub program: Option<tast::Program>,
    /// All diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Stack given to the thread that runs the front end: deep enough for the
/// nesting bound of `parser` on any input.
const FRONTEND_STACK_BYTES: usize = 256 << 20;

/// Parses and checks `source` for `options.target`.
///
/// Runs on a thread of its own with a large stack, so that no input can
/// overflow the stack (nesting is also bounded, with diagnostic
/// [`Code::NestingTooDeep`]). Never panics on any input.
pub fn compile(source: &str, options: &CheckOptions) -> Compiled {
    let run = || {
        let (file, mut diagnostics) = parser::parse(source);
        let program = match file {
            Some(file) if !diag::has_errors(&diagnostics) => {
                let (program, more) = check::check(&file, options);
                diagnostics.extend(more);
                program
            }
            Some(file) => {
                // Report semantic errors too, but never produce a program.
                // Text lost to syntax errors would make outputs look
                // unassigned or missing: those analyses are not reported.
                let (_, more) = check::check(&file, options);
                diagnostics.extend(
                    more.into_iter()
                        .filter(|d| !matches!(d.code, Code::OutputNotAssigned | Code::NoOutputs)),
                );
                None
            }
            None => None,
        };
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        let program = program.filter(|_| !diag::has_errors(&diagnostics));
        Compiled {
            program,
            diagnostics,
        }
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("ctm-frontend".into())
            .stack_size(FRONTEND_STACK_BYTES)
            .spawn_scoped(scope, run)
            .ok()
            .and_then(|handle| handle.join().ok())
    })
    .unwrap_or_else(|| Compiled {
        program: None,
        diagnostics: vec![Diagnostic::new(
            Code::NestingTooDeep,
            Span::default(),
            "the front end could not run on this input",
        )],
    })
}

/// The entry point chosen for compilation.
#[derive(Clone, Copy, Debug)]
pub enum Entry<'p> {
    /// A kernel.
    Kernel(&'p tast::Kernel),
    /// A reduction.
    Reduction(&'p tast::Reduction),
}

impl Entry<'_> {
    /// The entry point's name.
    pub fn name(&self) -> &str {
        match self {
            Entry::Kernel(k) => &k.name,
            Entry::Reduction(r) => &r.name,
        }
    }
}

/// Chooses the kernel or reduction named `name`, or the only one.
///
/// # Errors
/// [`Code::NoEntryPoint`], [`Code::AmbiguousEntryPoint`] (listing the
/// choices) or [`Code::UnknownEntryPoint`].
// Diagnostics are the cold path; boxing them would only add noise.
#[allow(clippy::result_large_err)]
pub fn select_entry<'p>(
    program: &'p tast::Program,
    name: Option<&str>,
) -> Result<Entry<'p>, Diagnostic> {
    let all: Vec<Entry<'p>> = program
        .kernels
        .iter()
        .map(Entry::Kernel)
        .chain(program.reductions.iter().map(Entry::Reduction))
        .collect();
    let names = || {
        all.iter()
            .map(|e| format!("`{}`", e.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        Some(n) => all.iter().copied().find(|e| e.name() == n).ok_or_else(|| {
            Diagnostic::new(
                Code::UnknownEntryPoint,
                Span::default(),
                format!("no kernel or reduction named `{n}`"),
            )
            .with_help(if all.is_empty() {
                "the file defines no kernel".to_string()
            } else {
                format!("the file defines {}", names())
            })
        }),
        None => match all.as_slice() {
            [one] => Ok(*one),
            [] => Err(Diagnostic::new(
                Code::NoEntryPoint,
                Span::default(),
                "the file defines no kernel or reduction",
            )
            .with_help("add `kernel name(x: In<f32>, r: Out<f32>) { r = x; }`")),
            _ => Err(Diagnostic::new(
                Code::AmbiguousEntryPoint,
                Span::default(),
                "the file defines several kernels",
            )
            .with_help(format!("choose one with --kernel NAME: {}", names()))),
        },
    }
}
