//! Compiling a source text: the front end for a target, the choice of the
//! entry point, and the `--emit` artifacts.
//!
//! The AST and the graph IR (text and Graphviz) are available for every
//! target — the IR is the module the target's code generator receives
//! ([`crate::pipeline`]); machine code (`elf`, `asm`, `stats`) comes from
//! the target object ([`crate::target`]).

use ctm_frontend::diag::{self, Diagnostic};
use ctm_frontend::tast::Program;
use ctm_frontend::{CheckOptions, Entry, Span, Target};

pub use ctm_ir::passes::OptLevel;

/// Parses `0`, `1` or `2` (the text after `-O`).
pub fn parse_opt_level(text: &str) -> Option<OptLevel> {
    match text {
        "0" => Some(OptLevel::O0),
        "1" => Some(OptLevel::O1),
        "2" => Some(OptLevel::O2),
        _ => None,
    }
}

/// Parses a target name as written on the command line (`x1k`, `r700`,
/// `ref`).
pub fn parse_target(text: &str) -> Option<Target> {
    match text {
        "x1k" => Some(Target::X1k),
        "r700" => Some(Target::R700),
        "ref" => Some(Target::Ref),
        _ => None,
    }
}

/// What to compile for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// The target whose rules apply and whose code is produced.
    pub target: Target,
    /// The entry point (`--kernel NAME`); `None`: the file's only one.
    pub kernel: Option<String>,
    /// Optimisation level.
    pub opt_level: OptLevel,
}

impl Default for CompileOptions {
    /// The command line's defaults: x1k, the only entry point, `-O2`.
    fn default() -> CompileOptions {
        CompileOptions {
            target: Target::X1k,
            kernel: None,
            opt_level: OptLevel::O2,
        }
    }
}

/// A checked program, with its warnings.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The program.
    pub program: Program,
    /// Warnings (there are no errors, or there would be no program).
    pub warnings: Vec<Diagnostic>,
}

/// Why a source text did not compile.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CompileError {
    /// The source has errors (exit code 1). Holds every diagnostic,
    /// warnings included, in source order.
    #[error("the source has errors")]
    Source(Vec<Diagnostic>),
    /// `--kernel` names no entry point, or several could be meant, or there
    /// is none (a usage error: exit code 2).
    #[error("{0}")]
    Entry(Box<Diagnostic>),
    /// The front end returned neither a program nor an error: a bug.
    #[error("the front end produced neither a program nor an error")]
    NoProgram,
}

/// Parses and checks `source` with the rules of `target`.
///
/// # Errors
/// [`CompileError::Source`] with every diagnostic if there is any error;
/// [`CompileError::NoProgram`] if the front end misbehaves.
pub fn check_source(source: &str, target: Target) -> Result<Checked, CompileError> {
    let compiled = ctm_frontend::compile(source, &CheckOptions { target });
    if diag::has_errors(&compiled.diagnostics) {
        return Err(CompileError::Source(compiled.diagnostics));
    }
    match compiled.program {
        Some(program) => Ok(Checked {
            program,
            warnings: compiled.diagnostics,
        }),
        None => Err(CompileError::NoProgram),
    }
}

/// A program checked for a target, with its entry point chosen.
///
/// The fields are private so that the entry point always exists.
#[derive(Clone, Debug)]
pub struct Compilation {
    program: Program,
    entry_name: String,
    warnings: Vec<Diagnostic>,
    options: CompileOptions,
}

impl Compilation {
    /// Chooses the entry point of a checked program: `kernel`, or the only
    /// one.
    ///
    /// # Errors
    /// The front end's entry-point diagnostic (CK0017..CK0019).
    pub fn new(checked: Checked, options: CompileOptions) -> Result<Compilation, Box<Diagnostic>> {
        let entry_name = ctm_frontend::select_entry(&checked.program, options.kernel.as_deref())
            .map_err(Box::new)?
            .name()
            .to_string();
        Ok(Compilation {
            program: checked.program,
            entry_name,
            warnings: checked.warnings,
            options,
        })
    }

    /// The checked program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The entry point.
    pub fn entry(&self) -> Entry<'_> {
        match self.program.kernel(&self.entry_name) {
            Some(k) => Entry::Kernel(k),
            // `new` found the name, and the program cannot change since.
            None => match self.program.reduction(&self.entry_name) {
                Some(r) => Entry::Reduction(r),
                None => unreachable!("entry `{}` vanished from its program", self.entry_name),
            },
        }
    }

    /// The front end's warnings.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The options it was compiled with.
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }
}

/// Checks `source` for `options.target` and selects the entry point.
///
/// # Errors
/// [`CompileError::Source`] (errors in the source: checked first, whatever
/// the options), then [`CompileError::Entry`].
///
/// # Example
/// ```no_run
/// let options = ctm_driver::CompileOptions { target: ctm_driver::Target::Ref, ..Default::default() };
/// let c = ctm_driver::compile("kernel k(x: In<f32>, r: Out<f32>) { r = x; }", &options)?;
/// assert_eq!(c.entry().name(), "k");
/// # Ok::<(), ctm_driver::CompileError>(())
/// ```
pub fn compile(source: &str, options: &CompileOptions) -> Result<Compilation, CompileError> {
    let checked = check_source(source, options.target)?;
    Compilation::new(checked, options.clone()).map_err(CompileError::Entry)
}

/// The artifacts of `--emit`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EmitKind {
    /// The ELF program (the default for machine targets).
    Elf,
    /// The disassembly.
    Asm,
    /// The graph IR as text.
    Ir,
    /// The graph IR as Graphviz.
    Dot,
    /// The syntax tree.
    Ast,
    /// Static code metrics as one JSON object.
    Stats,
}

impl EmitKind {
    /// Parses the value of `--emit`.
    pub fn parse(text: &str) -> Option<EmitKind> {
        Some(match text {
            "elf" => EmitKind::Elf,
            "asm" => EmitKind::Asm,
            "ir" => EmitKind::Ir,
            "dot" => EmitKind::Dot,
            "ast" => EmitKind::Ast,
            "stats" => EmitKind::Stats,
            _ => return None,
        })
    }

    /// The name as written after `--emit`.
    pub fn name(self) -> &'static str {
        match self {
            EmitKind::Elf => "elf",
            EmitKind::Asm => "asm",
            EmitKind::Ir => "ir",
            EmitKind::Dot => "dot",
            EmitKind::Ast => "ast",
            EmitKind::Stats => "stats",
        }
    }

    /// `true` for the artifacts only a machine target has.
    pub fn needs_machine_target(self) -> bool {
        matches!(self, EmitKind::Elf | EmitKind::Asm | EmitKind::Stats)
    }
}

/// An emitted artifact.
#[derive(Clone, Debug, PartialEq)]
pub enum Emitted {
    /// Text (asm, ir, dot, ast, stats).
    Text(String),
    /// Bytes (elf).
    Binary(Vec<u8>),
}

/// Why an artifact could not be emitted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EmitError {
    /// `--emit elf|asm|stats` with `--target ref`.
    #[error("--emit {} needs a machine target (--target x1k or --target r700); `ref` runs the reference interpreter and has no machine code", kind.name())]
    NeedsMachineTarget {
        /// The artifact asked for.
        kind: EmitKind,
    },
    /// The entry point exceeds a limit of the target's hardware, found by
    /// its code generator (exit code 1). The span is the entry point's
    /// item; [`name_span`] narrows it to the name.
    #[error("{0}")]
    Compile(Box<Diagnostic>),
    /// The syntax tree of a source with syntax errors.
    #[error("the source could not be parsed")]
    Unparsable,
    /// The target cannot produce it yet (exit code 2).
    #[error("{0}")]
    Unavailable(String),
    /// A compiler bug.
    #[error("internal error: {0}")]
    Internal(#[from] crate::target::InternalError),
}

/// Produces `kind` for `compilation`, whose source text is `source`.
///
/// `ir` and `dot` show the module the target's code generator receives
/// (on `ref`, optimised with the target-neutral cost model); on a machine
/// target `elf` is the ELF file, `asm` the listing `ctmc disasm` prints
/// for it, and `stats` the static metrics as one JSON object; a reduction
/// gives its pass program reading a stream of its own type.
///
/// # Errors
/// [`EmitError`]: [`EmitError::Compile`] (with its span narrowed to the
/// entry point's name) when the entry point exceeds a hardware limit,
/// [`EmitError::Internal`] for a compiler bug,
/// [`EmitError::NeedsMachineTarget`] for machine code on `ref`.
pub fn emit(source: &str, compilation: &Compilation, kind: EmitKind) -> Result<Emitted, EmitError> {
    use crate::pipeline::{compile_entry, cost_model, optimized_ir};
    use crate::target::{CodegenFailure, EmbeddedSource};
    let target = crate::target::machine(compilation.options.target);
    let ir = || optimized_ir(compilation, cost_model(target), None);
    match kind {
        EmitKind::Ast => dump_ast(source).map(Emitted::Text),
        EmitKind::Ir => Ok(Emitted::Text(ctm_ir::print::to_text(ir()?.module()))),
        EmitKind::Dot => Ok(Emitted::Text(ctm_ir::print::to_dot(ir()?.module()))),
        EmitKind::Elf | EmitKind::Asm | EmitKind::Stats => {
            let Some(target) = target else {
                return Err(EmitError::NeedsMachineTarget { kind });
            };
            let program =
                compile_entry(Some(source), compilation, target, None).map_err(|e| match e {
                    CodegenFailure::Limit(d) => EmitError::Compile(d),
                    CodegenFailure::Internal(e) => EmitError::Internal(e),
                    CodegenFailure::Unavailable(why) => EmitError::Unavailable(why),
                })?;
            Ok(match kind {
                // With the source, for `ctmc run FILE.elf --check`
                // (`crate::target::EmbeddedSource`).
                EmitKind::Elf => Emitted::Binary(program.elf_with_source(&EmbeddedSource {
                    entry: compilation.entry().name().to_string(),
                    opt_level: compilation.options.opt_level,
                    source: source.to_string(),
                })?),
                EmitKind::Asm => Emitted::Text(program.listing()?),
                _ => {
                    let mut text = serde_json::Value::Object(program.static_metrics()).to_string();
                    text.push('\n');
                    Emitted::Text(text)
                }
            })
        }
    }
}

/// The span of `name` in the item at `item` of `source` (the first whole
/// word `name` after the item's keyword), or `item` itself if it is not
/// found there. Diagnostics of the code generator have no span of their
/// own; they point at the entry point's name.
pub fn name_span(source: &str, item: Span, name: &str) -> Span {
    let range = item.range();
    let Some(text) = source.get(range.clone()) else {
        return item;
    };
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = text[from..].find(name) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        if at > 0 && !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Span::new(range.start + at, range.start + at + name.len());
        }
        from = at + name.len().max(1);
        if from >= text.len() {
            break;
        }
    }
    item
}

/// Stack for the thread that parses and prints the AST (as the front end
/// uses for itself).
const AST_STACK_BYTES: usize = 256 << 20;

/// The AST dump of `--emit ast`: the front end's indented tree
/// ([`ctm_frontend::print::dump_file`]).
///
/// Parses `source` a second time, on a thread with the front end's stack
/// size, because [`ctm_frontend::compile`] does not return the tree.
///
/// # Errors
/// [`EmitError::Unparsable`] if the parser returns no tree.
pub fn dump_ast(source: &str) -> Result<String, EmitError> {
    let run = || {
        let (file, _) = ctm_frontend::parser::parse(source);
        file.map(|f| ctm_frontend::print::dump_file(&f, source))
    };
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("ctm-ast".into())
            .stack_size(AST_STACK_BYTES)
            .spawn_scoped(scope, run)
            .ok()
            .and_then(|handle| handle.join().ok())
            .flatten()
    })
    .ok_or(EmitError::Unparsable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_spellings() {
        assert_eq!(parse_opt_level("0"), Some(OptLevel::O0));
        assert_eq!(parse_opt_level("2"), Some(OptLevel::O2));
        assert_eq!(parse_opt_level("3"), None);
        assert_eq!(OptLevel::default(), OptLevel::O2);
        assert_eq!(parse_target("r700"), Some(Target::R700));
        assert_eq!(parse_target("X1K"), None);
        for k in ["elf", "asm", "ir", "dot", "ast", "stats"] {
            assert_eq!(EmitKind::parse(k).map(EmitKind::name), Some(k));
        }
        assert_eq!(EmitKind::parse("bin"), None);
        assert_eq!(CompileOptions::default().target, Target::X1k);
    }

    #[test]
    fn the_name_of_an_item() {
        let source = "// saxpy\nkernel saxpy(saxpy_x: In<f32>, r: Out<f32>) { r = saxpy_x; }";
        let start = source.find("kernel").unwrap();
        let item = Span::new(start, source.len());
        let s = name_span(source, item, "saxpy");
        assert_eq!(&source[s.range()], "saxpy");
        assert_eq!(s.start as usize, start + 7);
        assert_eq!(name_span(source, item, "nothere"), item);
        assert_eq!(name_span("", item, "x"), item);
    }

    #[test]
    fn missing_parts_say_so() {
        let e = EmitError::NeedsMachineTarget {
            kind: EmitKind::Elf,
        };
        assert!(e.to_string().contains("--target x1k"), "{e}");
    }
}
