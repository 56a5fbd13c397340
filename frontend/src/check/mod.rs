//! Name resolution and type checking: [`crate::ast`] to [`crate::tast`].

use crate::ast;
use crate::diag::Diagnostic;
use crate::tast;
use crate::CheckOptions;

/// Checks a parsed file for `options.target`.
///
/// Returns the typed program when there are no errors, and every
/// diagnostic found (checking goes on after errors).
pub fn check(_file: &ast::File, _options: &CheckOptions) -> (Option<tast::Program>, Vec<Diagnostic>) {
    (None, Vec::new())
}
