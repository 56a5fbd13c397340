//! Compiling an entry point to an X1K [`Program`] and the `--emit`
//! artifacts made from it.
//!
//! A kernel goes through `ctm_backend_x1k::codegen::compile_kernel`; a
//! reduction compiles its pass kernel (`ir::lower::lower_reduction_pass`)
//! for the stream type the pass reads. Every program is checked by the
//! hardware validator before anyone sees it: a violation is a compiler bug
//! ([`CodegenFailure::Internal`]), never a program handed to the device.

use crate::compile::Compilation;
use ctm_backend_x1k::Program;
use ctm_backend_x1k::codegen::{self, CodegenError, Options};
use ctm_frontend::diag::Diagnostic;
use ctm_frontend::types::{StreamType, Type};
use ctm_frontend::{Entry, Span};

/// Why an entry point did not compile for the X1K.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CodegenFailure {
    /// The entry point exceeds a hardware limit: a user error with a CK
    /// code (exit code 1). Its span is the entry point's whole item; see
    /// [`crate::compile::name_span`] to narrow it to the name.
    #[error("{0}")]
    Limit(Box<Diagnostic>),
    /// A compiler bug: a broken code-generation rule, an IR verifier
    /// failure, or a program the hardware validator rejects (exit code 2).
    #[error("{0}")]
    Internal(String),
}

/// The stream type a reduction's passes after the first read: the
/// reduction's own value type.
pub fn reduction_stream_type(ty: Type) -> StreamType {
    match ty {
        Type::Vec2 => StreamType::Vec2,
        Type::Vec4 => StreamType::Vec4,
        _ => StreamType::F32,
    }
}

/// Compiles the entry point of `compilation` for the X1K. A reduction
/// compiles its pass kernel reading a stream of `input` (`None`: the
/// reduction's own type).
///
/// # Errors
/// [`CodegenFailure`].
pub fn compile_entry(
    compilation: &Compilation,
    input: Option<StreamType>,
) -> Result<Program, CodegenFailure> {
    let program = compilation.program();
    let level = compilation.options().opt_level;
    let entry = compilation.entry();
    let (span, name) = match entry {
        Entry::Kernel(k) => (k.span, k.name.as_str()),
        Entry::Reduction(r) => (r.span, r.name.as_str()),
    };
    let compiled = match entry {
        Entry::Kernel(k) => codegen::compile_kernel(program, k, level, &Options::default()),
        Entry::Reduction(r) => {
            let input = input.unwrap_or_else(|| reduction_stream_type(r.ty));
            let mut module = ctm_ir::lower::lower_reduction_pass(program, r, input);
            codegen::optimize_for_x1k(&mut module, level).and_then(|()| {
                let verified = ctm_ir::verify::verify(module, "x1k pipeline")
                    .map_err(|e| CodegenError::Verify(e.to_string()))?;
                codegen::compile(&verified, &Options::default())
            })
        }
    };
    let program = compiled.map_err(|e| failure(e, span, name))?;
    check_program(&program)?;
    Ok(program)
}

/// A code generator's error as the driver reports it.
fn failure(e: CodegenError, span: Span, name: &str) -> CodegenFailure {
    match e {
        CodegenError::Limit { code, message, .. } => CodegenFailure::Limit(Box::new(
            Diagnostic::new(code, span, message)
                .with_label(format!("`{name}` does not fit the x1k"))
                .with_help("simplify the kernel or split it into several, or use --target r700"),
        )),
        CodegenError::Internal { .. } => CodegenFailure::Internal(
            e.to_string()
                .trim_start_matches("internal error: ")
                .to_string(),
        ),
        CodegenError::Verify(why) => {
            CodegenFailure::Internal(format!("the IR failed verification: {why}"))
        }
    }
}

/// Runs the hardware validator on a program ctm produced.
///
/// # Errors
/// [`CodegenFailure::Internal`] listing the violations (at most ten).
pub fn check_program(program: &Program) -> Result<(), CodegenFailure> {
    match ctm_backend_x1k::validate::validate(program) {
        Ok(_) => Ok(()),
        Err(violations) => {
            let mut text = format!(
                "the x1k code generator produced a program that breaks {} hardware rule(s) for `{}`:",
                violations.len(),
                program.bindings.kernel
            );
            for v in violations.iter().take(10) {
                text.push_str(&format!("\n  {v}"));
            }
            Err(CodegenFailure::Internal(text))
        }
    }
}

/// The ELF file of a program (`--emit elf`).
pub fn elf_bytes(program: &Program) -> Vec<u8> {
    ctm_backend_x1k::elf::write(program)
}

/// The disassembly of `--emit asm`: exactly what `ctmc disasm` prints for
/// the program's ELF.
///
/// # Errors
/// [`CodegenFailure::Internal`] if the written ELF does not read back.
pub fn asm_listing(program: &Program) -> Result<String, CodegenFailure> {
    ctm_backend_x1k::elf::listing::listing_elf(&elf_bytes(program))
        .map_err(|e| CodegenFailure::Internal(format!("the written ELF does not read back: {e}")))
}

/// The static metrics of `--emit stats`: one JSON object with the keys
/// `instructions alu tex fc coissued temps consts`, and a newline.
pub fn stats_json(program: &Program) -> String {
    let mut text = ctm_backend_x1k::stats::static_metrics(program).to_json();
    text.push('\n');
    text
}
