//! The IR verifier. It checks every invariant the passes and backends rely
//! on, collects every violation (each located by the node or region it
//! concerns), and returns a [`Verified`] module that backends require.
//!
//! Invariants, by concern:
//!
//! - **structure** ([`structure`]): the root region has no owner and takes
//!   the state; every other live region is owned by exactly one live gamma
//!   or theta, which names it; every node a structured node names exists;
//!   `arguments[i]` is an `Argument(i)` node and `results[i]` a `Result(i)`
//!   node, and there are no others; results have one input and no users;
//!   each region is acyclic; no construction error was recorded.
//! - **edges and types** ([`typing`]): every input port 0..n is connected
//!   exactly once, from an existing output of a node of the same region;
//!   every simple node's output type is what its operation gives for its
//!   input types; a gamma's predicate is a `bool`, its entries match both
//!   branches' arguments and both branches' results match its outputs; a
//!   theta's inputs, outputs and body arguments have equal types and its
//!   body results are a `bool` followed by those types; the root region's
//!   results are the kernel's outputs, a `bool` and the state.
//! - **effects** ([`effects`]): every state value is used at most once, so
//!   scatter writes form one chain and cannot be duplicated or reordered.
//! - **launch constants** ([`launch`]): each names a distinct hidden float
//!   value uniform, every hidden parameter has one, and each expression
//!   reads only the kernel's uniforms and survives its text form.

mod effects;
mod launch;
mod structure;
mod typing;

use crate::graph::Module;
use std::fmt;
use std::ops::Deref;

/// One violated invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The node or region concerned, e.g. `r2.n7` or `r3`.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Every violation found in a module.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("IR verification failed in `{kernel}` after {stage}:\n{}", .errors.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
pub struct VerifyErrors {
    /// The kernel.
    pub kernel: String,
    /// The pipeline step after which verification ran.
    pub stage: String,
    /// The violations.
    pub errors: Vec<VerifyError>,
}

/// A module that passed the verifier. Backends take `&Verified`, so an
/// unverified module cannot reach code generation.
#[derive(Clone, Debug)]
pub struct Verified(Module);

impl Verified {
    /// The verified module.
    pub fn module(&self) -> &Module {
        &self.0
    }

    /// Gives the module back for further transformation (it must be
    /// verified again before a backend sees it).
    pub fn into_inner(self) -> Module {
        self.0
    }
}

impl Deref for Verified {
    type Target = Module;
    fn deref(&self) -> &Module {
        &self.0
    }
}

/// Collects violations.
pub(crate) struct Report {
    errors: Vec<VerifyError>,
}

impl Report {
    pub(crate) fn error(&mut self, location: impl fmt::Debug, message: impl Into<String>) {
        self.errors.push(VerifyError {
            location: format!("{location:?}"),
            message: message.into(),
        });
    }
}

/// Checks every invariant; `stage` names the step just run, for messages.
///
/// # Errors
/// Every violation found.
pub fn check(m: &Module, stage: &str) -> Result<(), VerifyErrors> {
    let mut report = Report { errors: Vec::new() };
    for e in &m.build_errors {
        report.error("build", e.clone());
    }
    let structure_ok = structure::check(m, &mut report);
    if structure_ok {
        typing::check(m, &mut report);
        effects::check(m, &mut report);
    }
    launch::check(m, &mut report);
    if report.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors {
            kernel: m.name.clone(),
            stage: stage.to_string(),
            errors: report.errors,
        })
    }
}

/// Verifies `m` and wraps it for the backends.
///
/// # Errors
/// Every violation found.
pub fn verify(m: Module, stage: &str) -> Result<Verified, VerifyErrors> {
    check(&m, stage)?;
    Ok(Verified(m))
}
