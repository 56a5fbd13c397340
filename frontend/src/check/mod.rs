//! Name resolution and type checking: [`crate::ast`] to [`crate::tast`].
//!
//! The checker enforces every rule of spec §2–§6 and the per-target rules of
//! §3–§4, and establishes the guarantees listed in [`crate::tast`]'s module
//! doc. It keeps going after errors, so one run reports as many independent
//! mistakes as it can; a program is returned only when there are none.
//!
//! Order of work:
//! 1. collect items and report duplicates ([`Checker::collect_items`]);
//! 2. resolve helper-function signatures, so calls type-check before the
//!    callee's body is seen;
//! 3. check each body ([`body`], [`expr`], [`call`], [`stmt`]); `const`
//!    items are checked and folded on first use ([`consteval`]), which
//!    also finds cycles;
//! 4. whole-program rules: recursion ([`recursion`]), call depth and
//!    inlined size ([`limits`]), definite assignment of
//!    outputs ([`outputs`]), target rules and limits ([`target`]).

mod body;
mod call;
mod consteval;
mod expr;
pub mod limits;
mod outputs;
mod recursion;
mod stmt;
mod suggest;
mod target;
mod types;

use crate::CheckOptions;
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, FuncId};
use crate::types::Type;
use crate::value::Value;
use std::collections::HashMap;

pub use suggest::closest;

/// Checks a parsed file for `options.target`.
///
/// Returns the typed program when there are no errors, and every
/// diagnostic found (checking goes on after errors).
pub fn check(file: &ast::File, options: &CheckOptions) -> (Option<tast::Program>, Vec<Diagnostic>) {
    let mut checker = Checker::new(file);
    checker.collect_items();
    checker.resolve_signatures();
    let program = checker.check_bodies();
    recursion::check(&program, &mut checker.diags);
    if !checker.diags.iter().any(|d| d.code == Code::Recursion) {
        limits::check(&program, options.target, &mut checker.diags);
    }
    for kernel in &program.kernels {
        // An output whose assignment failed to check would be reported
        // again as unassigned: skip kernels that did not check completely.
        let clean = !checker.tainted_kernels.contains(&kernel.name);
        if clean {
            outputs::check(kernel, &mut checker.diags);
        }
        target::check_kernel(&program, kernel, options.target, &mut checker.diags);
    }
    let mut diags = checker.diags;
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    diags.dedup();
    let ok = !crate::diag::has_errors(&diags);
    (ok.then_some(program), diags)
}

/// What a top-level name refers to.
#[derive(Clone, Copy, Debug)]
enum ItemRef {
    Const(usize),
    Fn(FuncId),
    Kernel,
    Reduce,
}

/// Evaluation state of a `const` item.
#[derive(Clone, Debug)]
enum ConstState {
    NotYet,
    InProgress,
    Done(Value),
    Failed,
}

/// A helper function's resolved signature.
#[derive(Clone, Debug)]
struct FnSig {
    name: String,
    params: Vec<(String, Type, bool, Span)>,
    ret: Type,
}

/// Whole-file checking state.
struct Checker<'a> {
    file: &'a ast::File,
    diags: Vec<Diagnostic>,
    items: HashMap<&'a str, ItemRef>,
    consts: Vec<&'a ast::ConstItem>,
    const_states: Vec<ConstState>,
    fns: Vec<&'a ast::FnItem>,
    sigs: Vec<Option<FnSig>>,
    /// Kernels whose bodies did not check completely.
    tainted_kernels: Vec<String>,
}

impl<'a> Checker<'a> {
    fn new(file: &'a ast::File) -> Checker<'a> {
        Checker {
            file,
            diags: Vec::new(),
            items: HashMap::new(),
            consts: Vec::new(),
            const_states: Vec::new(),
            fns: Vec::new(),
            sigs: Vec::new(),
            tainted_kernels: Vec::new(),
        }
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Registers every item's name; reports duplicates and helpers named
    /// like built-ins.
    fn collect_items(&mut self) {
        let mut first: HashMap<&'a str, Span> = HashMap::new();
        for item in &self.file.items {
            let name = item.name();
            if name.name.is_empty() {
                continue;
            }
            if let Some(&prev) = first.get(name.name.as_str()) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateItem,
                        name.span,
                        format!("the name `{}` is defined more than once", name.name),
                    )
                    .with_label("redefined here")
                    .with_secondary(prev, "first defined here")
                    .with_help("rename one of the items"),
                );
                continue;
            }
            first.insert(&name.name, name.span);
            let r = match item {
                ast::Item::Const(c) => {
                    self.consts.push(c);
                    self.const_states.push(ConstState::NotYet);
                    ItemRef::Const(self.consts.len() - 1)
                }
                ast::Item::Fn(f) => {
                    if crate::builtins::Builtin::from_name(&f.name.name).is_some()
                        || matches!(f.name.name.as_str(), "vec2" | "vec3" | "vec4")
                    {
                        self.error(
                            Diagnostic::new(
                                Code::DuplicateItem,
                                f.name.span,
                                format!("`{}` is a built-in function", f.name.name),
                            )
                            .with_label("redefines a built-in")
                            .with_help("choose another name for the helper"),
                        );
                    }
                    self.fns.push(f);
                    ItemRef::Fn(FuncId(self.fns.len() as u32 - 1))
                }
                ast::Item::Kernel(_) => ItemRef::Kernel,
                ast::Item::Reduce(_) => ItemRef::Reduce,
            };
            self.items.insert(&name.name, r);
        }
    }

    /// Resolves the parameter and result types of every helper.
    fn resolve_signatures(&mut self) {
        let fns = self.fns.clone();
        for f in fns {
            let sig = self.resolve_fn_signature(f);
            self.sigs.push(sig);
        }
    }

    /// Checks every body and assembles the program.
    fn check_bodies(&mut self) -> tast::Program {
        let mut functions = Vec::new();
        for (i, f) in self.fns.clone().into_iter().enumerate() {
            functions.push(self.check_function(f, FuncId(i as u32)));
        }
        let mut kernels = Vec::new();
        let mut reductions = Vec::new();
        for item in &self.file.items {
            match item {
                ast::Item::Kernel(k) => kernels.push(self.check_kernel(k)),
                ast::Item::Reduce(r) => {
                    if let Some(r) = self.check_reduction(r) {
                        reductions.push(r);
                    }
                }
                ast::Item::Const(c) => {
                    // Evaluate every const, used or not, so errors surface.
                    if let Some(ItemRef::Const(i)) = self.items.get(c.name.name.as_str()).copied()
                        && std::ptr::eq(self.consts[i], c)
                    {
                        self.const_value(i, c.name.span);
                    }
                }
                ast::Item::Fn(_) => {}
            }
        }
        let consts = self
            .consts
            .iter()
            .zip(&self.const_states)
            .filter_map(|(c, s)| match s {
                ConstState::Done(v) => Some(tast::ConstDef {
                    name: c.name.name.clone(),
                    value: *v,
                    span: c.span,
                }),
                _ => None,
            })
            .collect();
        tast::Program {
            functions,
            kernels,
            reductions,
            consts,
        }
    }
}
