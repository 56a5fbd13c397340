//! Per-body checking state (scopes, locals, loop depth) and the checks of
//! whole items: helper functions, kernels, reductions and `const` items.

use super::types::Resolved;
use super::{Checker, ConstState, ItemRef};
use crate::ast;
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, FuncId, LocalId, ParamId, ParamKind};
use crate::types::Type;
use crate::value::Value;

/// What kind of body is being checked; decides which statements and names
/// are allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum BodyKind {
    /// A kernel: streams, `discard`, `index()`, `return;`.
    Kernel,
    /// A helper function returning `ret`.
    Function { ret: Type },
    /// A reduction returning `ret`.
    Reduction { ret: Type },
    /// A constant expression: no locals, parameters or calls.
    Const,
}

/// What a name refers to at a use site.
#[derive(Clone, Copy, Debug)]
pub(super) enum Found {
    Local(LocalId),
    Param(ParamId),
    Const(usize),
    Fn(FuncId),
    Entry,
    /// A kernel parameter whose declaration failed: uses are not reported.
    Failed,
    Nothing,
}

/// Checking state of one body.
pub(super) struct Cx<'c, 'a> {
    pub ck: &'c mut Checker<'a>,
    pub kind: BodyKind,
    pub locals: Vec<tast::Local>,
    /// Visible locals, innermost last.
    scope: Vec<(String, LocalId)>,
    /// The same bindings by name, innermost last (lookups in constant
    /// time: a body of 100,000 `let`s was quadratic, issue 13).
    by_name: std::collections::HashMap<String, Vec<LocalId>>,
    marks: Vec<usize>,
    pub loop_depth: u32,
    /// Per local: read at least once.
    pub reads: Vec<bool>,
    /// Per local: a `for` loop variable.
    pub loop_vars: Vec<bool>,
    /// Per local: its declaration failed; uses are not reported again.
    poisoned: Vec<bool>,
    /// Kernel parameters (empty for other bodies).
    pub params: Vec<tast::KernelParam>,
    /// Names of kernel parameters whose declaration failed.
    pub failed_params: Vec<String>,
    /// `params` and `failed_params` by name (lookups in constant time: a
    /// kernel of 100,000 parameters was quadratic, issue 13).
    param_index: std::collections::HashMap<String, usize>,
    failed_index: std::collections::HashSet<String>,
    /// Some statement or expression failed to check (errors were reported),
    /// so whole-body analyses would only repeat them.
    pub tainted: bool,
}

impl<'c, 'a> Cx<'c, 'a> {
    pub fn new(ck: &'c mut Checker<'a>, kind: BodyKind) -> Cx<'c, 'a> {
        Cx {
            ck,
            kind,
            locals: Vec::new(),
            scope: Vec::new(),
            by_name: std::collections::HashMap::new(),
            marks: Vec::new(),
            loop_depth: 0,
            reads: Vec::new(),
            loop_vars: Vec::new(),
            poisoned: Vec::new(),
            params: Vec::new(),
            failed_params: Vec::new(),
            param_index: std::collections::HashMap::new(),
            failed_index: std::collections::HashSet::new(),
            tainted: false,
        }
    }

    pub fn error(&mut self, d: Diagnostic) {
        self.ck.diags.push(d);
    }

    pub fn push_scope(&mut self) {
        self.marks.push(self.scope.len());
    }

    pub fn pop_scope(&mut self) {
        let mark = self.marks.pop().unwrap_or(0);
        for (name, _) in self.scope.drain(mark.min(self.scope.len())..) {
            if let Some(ids) = self.by_name.get_mut(&name) {
                ids.pop();
            }
        }
    }

    /// Declares a new local in the innermost scope.
    pub fn declare(&mut self, name: &ast::Ident, ty: Type, mutable: bool) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(tast::Local {
            name: name.name.clone(),
            ty,
            mutable,
            span: name.span,
        });
        self.reads.push(false);
        self.loop_vars.push(false);
        self.poisoned.push(false);
        self.scope.push((name.name.clone(), id));
        self.by_name.entry(name.name.clone()).or_default().push(id);
        id
    }

    /// Declares a local whose declaration failed, so that later uses are
    /// silent instead of "unknown name".
    pub fn declare_poisoned(&mut self, name: &ast::Ident) {
        let id = self.declare(name, Type::Unit, true);
        self.poisoned[id.index()] = true;
        self.reads[id.index()] = true;
    }

    /// `true` if `l` was declared by [`Cx::declare_poisoned`].
    pub fn poisoned(&self, l: LocalId) -> bool {
        self.poisoned[l.index()]
    }

    /// Resolves a name: locals (innermost first), kernel parameters, items.
    pub fn lookup(&self, name: &str) -> Found {
        if let Some(id) = self.by_name.get(name).and_then(|ids| ids.last()) {
            return Found::Local(*id);
        }
        if let Some(&p) = self.param_index.get(name) {
            return Found::Param(ParamId(p as u32));
        }
        if self.failed_index.contains(name) {
            return Found::Failed;
        }
        match self.ck.items.get(name) {
            Some(ItemRef::Const(i)) => Found::Const(*i),
            Some(ItemRef::Fn(f)) => Found::Fn(*f),
            Some(ItemRef::Kernel | ItemRef::Reduce) => Found::Entry,
            None => Found::Nothing,
        }
    }

    /// Every name visible here, for suggestions.
    pub fn visible_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.scope.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.params.iter().map(|p| p.name.clone()));
        names.extend(self.ck.items.keys().map(|k| k.to_string()));
        names
    }

    /// Warns about locals that are declared but never read.
    pub fn warn_unused(&mut self, first: usize) {
        for i in first..self.locals.len() {
            let l = &self.locals[i];
            if !self.reads[i] && !l.name.starts_with('_') {
                let what = if self.loop_vars[i] {
                    "loop variable"
                } else {
                    "variable"
                };
                let d = Diagnostic::new(
                    Code::UnusedVariable,
                    l.span,
                    format!("unused {what} `{}`", l.name),
                )
                .with_label("never read")
                .with_help(format!(
                    "if this is intentional, prefix it with an underscore: `_{}`",
                    l.name
                ));
                self.error(d);
            }
        }
    }
}

impl<'a> Checker<'a> {
    /// Checks a helper function's body against its signature.
    pub(super) fn check_function(&mut self, f: &'a ast::FnItem, id: FuncId) -> tast::Function {
        let sig = self.sigs[id.index()].clone();
        let ret = sig.as_ref().map_or(Type::Unit, |s| s.ret);
        let mut cx = Cx::new(self, BodyKind::Function { ret });
        cx.push_scope();
        let mut params = Vec::new();
        if let Some(sig) = &sig {
            for (name, ty, mutable, span) in &sig.params {
                let ident = ast::Ident {
                    name: name.clone(),
                    span: *span,
                };
                let l = cx.declare(&ident, *ty, *mutable);
                cx.reads[l.index()] = true; // parameters are not warned about
                params.push(l);
            }
        }
        let body = cx.check_body_block(&f.body, ret, f.ret.as_ref().map(|t| t.span));
        cx.pop_scope();
        cx.warn_unused(params.len());
        tast::Function {
            name: f.name.name.clone(),
            params,
            ret,
            locals: cx.locals,
            body,
            span: f.span,
        }
    }

    /// Checks a kernel: its parameters and body.
    pub(super) fn check_kernel(&mut self, k: &'a ast::KernelItem) -> tast::Kernel {
        let (params, failed) = self.check_kernel_params(k);
        let mut cx = Cx::new(self, BodyKind::Kernel);
        for (i, p) in params.iter().enumerate() {
            cx.param_index.entry(p.name.clone()).or_insert(i);
        }
        cx.failed_index = failed.iter().cloned().collect();
        cx.params = params;
        cx.failed_params = failed;
        cx.push_scope();
        let body = cx.check_body_block(&k.body, Type::Unit, None);
        cx.pop_scope();
        cx.warn_unused(0);
        let has_output = !cx.failed_params.is_empty()
            || cx
                .params
                .iter()
                .any(|p| matches!(p.kind, ParamKind::Output(_) | ParamKind::Scatter));
        let params = cx.params;
        let locals = cx.locals;
        if cx.tainted {
            self.tainted_kernels.push(k.name.name.clone());
        }
        if !has_output {
            self.error(
                Diagnostic::new(
                    Code::NoOutputs,
                    k.name.span,
                    format!("kernel `{}` has no outputs", k.name.name),
                )
                .with_label("writes nothing")
                .with_help("add an output parameter such as `r: Out<f32>` and assign it"),
            );
        }
        tast::Kernel {
            name: k.name.name.clone(),
            params,
            locals,
            body,
            span: k.span,
        }
    }

    /// The kernel's parameters, and the names of those that failed to check.
    fn check_kernel_params(
        &mut self,
        k: &'a ast::KernelItem,
    ) -> (Vec<tast::KernelParam>, Vec<String>) {
        let mut out: Vec<tast::KernelParam> = Vec::new();
        let mut failed = Vec::new();
        // The span of each accepted parameter by name (a scan per parameter
        // was quadratic in their number, issue 13).
        let mut seen: std::collections::HashMap<&str, Span> = std::collections::HashMap::new();
        for p in &k.params {
            if let Some(&prev) = seen.get(p.name.name.as_str()) {
                self.error(
                    Diagnostic::new(
                        Code::DuplicateParameter,
                        p.name.span,
                        format!("parameter `{}` is declared twice", p.name.name),
                    )
                    .with_label("second declaration")
                    .with_secondary(prev, "first declaration"),
                );
                continue;
            }
            if p.mutable {
                self.error(
                    Diagnostic::new(
                        Code::InvalidParameterType,
                        p.span,
                        "kernel parameters cannot be `mut`",
                    )
                    .with_label("`mut` not allowed here")
                    .with_help("copy the value into a local: `let mut x = x;`"),
                );
            }
            let kind = match self.resolve_type(&p.ty) {
                Some(Resolved::Type(Type::Unit)) => {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidParameterType,
                            p.ty.span,
                            "`()` is not a parameter type",
                        )
                        .with_label("not allowed here"),
                    );
                    failed.push(p.name.name.clone());
                    continue;
                }
                Some(Resolved::Type(t)) => ParamKind::Uniform(t),
                Some(Resolved::Input(s)) => ParamKind::Input(s),
                Some(Resolved::Output(o)) => ParamKind::Output(o),
                Some(Resolved::Scatter) => ParamKind::Scatter,
                Some(Resolved::StreamElement(s)) => {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidParameterType,
                            p.ty.span,
                            format!("`{}` is only a stream element type", s.name()),
                        )
                        .with_label("not a uniform type")
                        .with_help(format!("did you mean `In<{}>`?", s.name())),
                    );
                    failed.push(p.name.name.clone());
                    continue;
                }
                None => {
                    failed.push(p.name.name.clone());
                    continue;
                }
            };
            seen.insert(p.name.name.as_str(), p.name.span);
            out.push(tast::KernelParam {
                name: p.name.name.clone(),
                kind,
                span: p.name.span,
            });
        }
        (out, failed)
    }

    /// Checks a reduction's signature and body.
    pub(super) fn check_reduction(&mut self, r: &'a ast::ReduceItem) -> Option<tast::Reduction> {
        let ret = match self.resolve_type(&r.ret)? {
            Resolved::Type(t @ (Type::F32 | Type::Vec2 | Type::Vec4)) => t,
            _ => {
                self.error(
                    Diagnostic::new(Code::InvalidReduction, r.ret.span, "invalid reduction type")
                        .with_label("reductions combine f32, vec2 or vec4")
                        .with_help(
                            "reduce over the value type of an input stream: f32, vec2 or vec4",
                        ),
                );
                return None;
            }
        };
        if r.params.len() != 2 {
            self.error(
                Diagnostic::new(
                    Code::InvalidReduction,
                    r.name.span,
                    format!(
                        "a reduction takes exactly two parameters, `{}` has {}",
                        r.name.name,
                        r.params.len()
                    ),
                )
                .with_label("wrong number of parameters")
                .with_help(format!(
                    "write `reduce {}(a: {ret}, b: {ret}) -> {ret} {{ .. }}`",
                    r.name.name
                )),
            );
            return None;
        }
        let mut ok = true;
        for p in &r.params {
            match self.resolve_type(&p.ty) {
                Some(Resolved::Type(t)) if t == ret => {}
                Some(_) => {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidReduction,
                            p.ty.span,
                            "reduction parameters must have the result type",
                        )
                        .with_label(format!("expected `{ret}`")),
                    );
                    ok = false;
                }
                None => ok = false,
            }
        }
        if r.params[0].name.name == r.params[1].name.name {
            self.error(
                Diagnostic::new(
                    Code::DuplicateParameter,
                    r.params[1].name.span,
                    format!("parameter `{}` is declared twice", r.params[1].name.name),
                )
                .with_secondary(r.params[0].name.span, "first declaration"),
            );
            ok = false;
        }
        let mut cx = Cx::new(self, BodyKind::Reduction { ret });
        cx.push_scope();
        let a = cx.declare(&r.params[0].name, ret, r.params[0].mutable);
        let b = cx.declare(&r.params[1].name, ret, r.params[1].mutable);
        cx.reads[a.index()] = true;
        cx.reads[b.index()] = true;
        let body = cx.check_body_block(&r.body, ret, Some(r.ret.span));
        cx.pop_scope();
        cx.warn_unused(2);
        let locals = cx.locals;
        ok.then(|| tast::Reduction {
            name: r.name.name.clone(),
            ty: ret,
            params: [a, b],
            locals,
            body,
            span: r.span,
        })
    }

    /// The value of const item `i`, evaluating it on first use. Reports
    /// cycles at `use_span`. `None` after an error.
    pub(super) fn const_value(&mut self, i: usize, use_span: Span) -> Option<Value> {
        match self.const_states[i] {
            ConstState::Done(v) => return Some(v),
            ConstState::Failed => return None,
            ConstState::InProgress => {
                let c = self.consts[i];
                self.error(
                    Diagnostic::new(
                        Code::ConstCycle,
                        use_span,
                        format!("constant `{}` depends on itself", c.name.name),
                    )
                    .with_label("used while being defined")
                    .with_secondary(c.name.span, "defined here")
                    .with_help("break the cycle by writing one of the values out"),
                );
                self.const_states[i] = ConstState::Failed;
                return None;
            }
            ConstState::NotYet => {}
        }
        self.const_states[i] = ConstState::InProgress;
        let c = self.consts[i];
        let ty = match self.resolve_type(&c.ty) {
            Some(Resolved::Type(t)) if t.is_value() && t != Type::Unit => Some(t),
            Some(_) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidParameterType,
                        c.ty.span,
                        "invalid constant type",
                    )
                    .with_label("not a value type")
                    .with_help("constants are f32, i32, bool, vec2, vec3 or vec4"),
                );
                None
            }
            None => None,
        };
        let value = ty.and_then(|t| self.eval_const_expr(&c.value, t));
        if !matches!(self.const_states[i], ConstState::Failed) {
            self.const_states[i] = match value {
                Some(v) => ConstState::Done(v),
                None => ConstState::Failed,
            };
        }
        value
    }

    /// Type-checks `e` as a constant expression of type `expected` and
    /// evaluates it. `None` after an error (reported).
    pub(super) fn eval_const_expr(&mut self, e: &ast::Expr, expected: Type) -> Option<Value> {
        let mut cx = Cx::new(self, BodyKind::Const);
        let typed = cx.check_expr(e)?;
        let typed = cx.coerce(typed, e, expected)?;
        match super::consteval::eval(&typed) {
            Ok(v) => Some(v),
            Err(span) => {
                self.error(
                    Diagnostic::new(Code::NotConstant, span, "not a constant expression")
                        .with_label("cannot be evaluated at compile time")
                        .with_help("constants are built from literals, other constants, operators and built-in math"),
                );
                None
            }
        }
    }
}
