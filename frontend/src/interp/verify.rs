//! Checks, once per run, the invariants of the typed AST that the walker
//! in [`super::exec`] relies on, so that it can index without checks and
//! never panics, whatever program it is handed.
//!
//! The checker ([`crate::check`]) guarantees all of this for programs it
//! produces; hand-built programs (tests, other tools) get a clear
//! [`super::RuntimeError::InvalidProgram`] instead of a panic. Checked:
//!
//! - every [`LocalId`] is below its item's `locals.len()`, every
//!   [`FuncId`] names a function, every call passes one argument per
//!   parameter, and the functions reachable from the entry are not
//!   recursive;
//! - every [`ParamId`] names a kernel parameter of the kind its use needs
//!   (a value uniform, an array, a `mat4`, an `i32` loop bound, an input,
//!   an `Out`, a `Scatter`), and is used only in the kernel's own body;
//! - `discard`, `index()` and `domain()` appear only in kernels and in the
//!   helpers they call, `break`/`continue` only inside loops;
//! - built-ins get their arity, `vecN(..)` 1 to 4 parts and a float type,
//!   splats a float type, literals a well-formed value of their type, and
//!   a reduction a float element type.
//!
//! It does not re-check types: values of unexpected types make the
//! numerics return `()` or garbage, never a panic.
//!
//! It also measures the nesting depth (blocks, statements, expressions and
//! calls, as the walker recurses), which decides the stack the run needs.

use super::bind::describe_value;
use crate::builtins::Builtin;
use crate::tast::{
    Block, Expr, ExprKind, FuncId, Kernel, LocalId, LoopBound, ParamId, ParamKind, Program,
    Reduction, Stmt, StmtKind,
};
use crate::types::Type;
use crate::value::Value;

/// Why verification stopped.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum VerifyError {
    /// The program breaks an invariant (the message says which, where).
    Invalid(String),
    /// The program nests deeper than the budget; retry with a larger one
    /// on a larger stack.
    TooDeep,
}

type Check<T> = Result<T, VerifyError>;

/// Verifies `kernel` and the helpers it calls; returns the nesting depth.
pub(crate) fn kernel(program: &Program, kernel: &Kernel, max_depth: usize) -> Check<usize> {
    let mut v = Verifier::new(program, Some(kernel), max_depth);
    let scope = Scope {
        item: &kernel.name,
        locals: kernel.locals.len(),
        loops: 0,
        in_kernel_body: true,
        depth: 0,
    };
    v.block(&kernel.body, scope)
}

/// Verifies `reduction` and the helpers it calls; returns the nesting
/// depth.
pub(crate) fn reduction(
    program: &Program,
    reduction: &Reduction,
    max_depth: usize,
) -> Check<usize> {
    let item = &reduction.name;
    if !reduction.ty.is_float() {
        return invalid(
            item,
            format!("element type {} is not a float type", reduction.ty),
        );
    }
    for p in reduction.params {
        if p.index() >= reduction.locals.len() {
            return invalid(item, format!("parameter {p} is not one of its locals"));
        }
    }
    let mut v = Verifier::new(program, None, max_depth);
    let scope = Scope {
        item,
        locals: reduction.locals.len(),
        loops: 0,
        in_kernel_body: false,
        depth: 0,
    };
    v.block(&reduction.body, scope)
}

fn invalid<T>(item: &str, message: String) -> Check<T> {
    Err(VerifyError::Invalid(format!("in `{item}`: {message}")))
}

/// Where the walk is.
#[derive(Clone, Copy)]
struct Scope<'s> {
    /// The kernel, reduction or function, for messages.
    item: &'s str,
    /// Its number of locals.
    locals: usize,
    /// Enclosing loops in this item.
    loops: u32,
    /// In the kernel's own body (kernel parameters are in scope).
    in_kernel_body: bool,
    /// Frames of the walker above this point.
    depth: usize,
}

/// The verification state of one helper function.
#[derive(Clone, Copy, PartialEq)]
enum FnState {
    Unvisited,
    /// On the current call path: reaching it again is recursion.
    Visiting,
    /// Verified; the depth its body adds.
    Done(usize),
}

struct Verifier<'p> {
    program: &'p Program,
    /// The kernel, when the entry is one (else a reduction).
    kernel: Option<&'p Kernel>,
    functions: Vec<FnState>,
    max_depth: usize,
}

impl<'p> Verifier<'p> {
    fn new(program: &'p Program, kernel: Option<&'p Kernel>, max_depth: usize) -> Verifier<'p> {
        Verifier {
            program,
            kernel,
            functions: vec![FnState::Unvisited; program.functions.len()],
            max_depth,
        }
    }

    /// One level deeper; fails once past the budget.
    fn enter<'s>(&self, s: Scope<'s>) -> Check<Scope<'s>> {
        if s.depth >= self.max_depth {
            return Err(VerifyError::TooDeep);
        }
        Ok(Scope {
            depth: s.depth + 1,
            ..s
        })
    }

    /// Returns the depth reached below `s` (at least `s.depth + 1`).
    fn block(&mut self, b: &Block, s: Scope) -> Check<usize> {
        let s = self.enter(s)?;
        let mut depth = s.depth;
        for st in &b.stmts {
            depth = depth.max(self.stmt(st, s)?);
        }
        if let Some(tail) = &b.tail {
            depth = depth.max(self.expr(tail, s)?);
        }
        Ok(depth)
    }

    fn stmt(&mut self, st: &Stmt, s: Scope) -> Check<usize> {
        let s = self.enter(s)?;
        let in_loop = Scope {
            loops: s.loops + 1,
            ..s
        };
        match &st.kind {
            StmtKind::Let { local, init } => {
                self.local(*local, s)?;
                self.expr(init, s)
            }
            StmtKind::Assign { local, value, .. } => {
                self.local(*local, s)?;
                self.expr(value, s)
            }
            StmtKind::Expr(e) => self.expr(e, s),
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                self.local(*var, s)?;
                self.bound(*start, s)?;
                self.bound(*end, s)?;
                self.block(body, in_loop)
            }
            StmtKind::While { cond, body } => {
                let d = self.expr(cond, s)?;
                Ok(d.max(self.block(body, in_loop)?))
            }
            StmtKind::Loop { body } => self.block(body, in_loop),
            StmtKind::Break | StmtKind::Continue => {
                if s.loops == 0 {
                    return invalid(s.item, "`break` or `continue` outside a loop".into());
                }
                Ok(s.depth)
            }
            StmtKind::Return(value) => match value {
                Some(e) => self.expr(e, s),
                None => Ok(s.depth),
            },
            StmtKind::Discard => {
                self.kernel_only(s, "`discard`")?;
                Ok(s.depth)
            }
            StmtKind::WriteOutput { param, value } => {
                self.param(*param, s, "an `Out`", |k| matches!(k, ParamKind::Output(_)))?;
                self.expr(value, s)
            }
            StmtKind::Scatter { param, pos, value } => {
                self.param(*param, s, "a `Scatter`", |k| {
                    matches!(k, ParamKind::Scatter)
                })?;
                let d = self.expr(pos, s)?;
                Ok(d.max(self.expr(value, s)?))
            }
        }
    }

    fn expr(&mut self, e: &Expr, s: Scope) -> Check<usize> {
        let s = self.enter(s)?;
        match &e.kind {
            ExprKind::Literal(v) => {
                if !literal_fits(v, e.ty) {
                    return invalid(
                        s.item,
                        format!(
                            "literal ({}) is not a well-formed {}",
                            describe_value(v),
                            e.ty
                        ),
                    );
                }
                Ok(s.depth)
            }
            ExprKind::Local(l) => {
                self.local(*l, s)?;
                Ok(s.depth)
            }
            ExprKind::Uniform(p) => {
                self.param(
                    *p,
                    s,
                    "a value uniform",
                    |k| matches!(k, ParamKind::Uniform(t) if t.is_value()),
                )?;
                Ok(s.depth)
            }
            ExprKind::UniformElement { param, index } => {
                self.param(*param, s, "a uniform array", |k| {
                    matches!(k, ParamKind::Uniform(Type::Array(_)))
                })?;
                self.expr(index, s)
            }
            ExprKind::Input(p) => {
                self.param(*p, s, "an input stream", |k| {
                    matches!(k, ParamKind::Input(_))
                })?;
                Ok(s.depth)
            }
            ExprKind::Gather { param, pos } => {
                self.param(*param, s, "an input stream", |k| {
                    matches!(k, ParamKind::Input(_))
                })?;
                self.expr(pos, s)
            }
            ExprKind::Builtin { func, args } => {
                if args.len() != func.info().arity {
                    return invalid(
                        s.item,
                        format!(
                            "`{}` takes {} arguments, got {}",
                            func.name(),
                            func.info().arity,
                            args.len()
                        ),
                    );
                }
                if matches!(func, Builtin::Index | Builtin::Domain) {
                    self.kernel_only(s, func.name())?;
                }
                self.exprs(args, s)
            }
            ExprKind::Splat(x) => {
                if e.ty.float_width().is_none() {
                    return invalid(s.item, format!("splat to {}", e.ty));
                }
                self.expr(x, s)
            }
            ExprKind::Construct(parts) => {
                if e.ty.float_width().is_none() || parts.is_empty() || parts.len() > 4 {
                    return invalid(s.item, format!("{} built from {} parts", e.ty, parts.len()));
                }
                self.exprs(parts, s)
            }
            ExprKind::Unary { operand, .. } => self.expr(operand, s),
            ExprKind::Binary { lhs, rhs, .. } => {
                let d = self.expr(lhs, s)?;
                Ok(d.max(self.expr(rhs, s)?))
            }
            ExprKind::MatVec { mat, vec } | ExprKind::VecMat { vec, mat } => {
                self.param(*mat, s, "a `mat4` uniform", |k| {
                    matches!(k, ParamKind::Uniform(Type::Mat4))
                })?;
                self.expr(vec, s)
            }
            ExprKind::Cast(x) | ExprKind::Swizzle { base: x, .. } => self.expr(x, s),
            ExprKind::Call { func, args } => {
                let d = self.exprs(args, s)?;
                let params = match self.program.functions.get(func.index()) {
                    Some(f) => f.params.len(),
                    None => return invalid(s.item, format!("call of unknown function {func}")),
                };
                if args.len() != params {
                    return invalid(
                        s.item,
                        format!("call of {func} with {} arguments for {params}", args.len()),
                    );
                }
                // The callee's body runs two frames below the call (the
                // call itself and the body block).
                let body = self.function(*func, s)?;
                let depth = s.depth + body;
                if depth > self.max_depth {
                    return Err(VerifyError::TooDeep);
                }
                Ok(d.max(depth))
            }
            ExprKind::If { cond, then, else_ } => {
                let d = self.expr(cond, s)?;
                let d = d.max(self.block(then, s)?);
                Ok(d.max(self.block(else_, s)?))
            }
            ExprKind::Block(b) => self.block(b, s),
        }
    }

    fn exprs(&mut self, es: &[Expr], s: Scope) -> Check<usize> {
        let mut depth = s.depth;
        for e in es {
            depth = depth.max(self.expr(e, s)?);
        }
        Ok(depth)
    }

    /// Verifies helper `id` (once) and returns the depth its body adds.
    fn function(&mut self, id: FuncId, caller: Scope) -> Check<usize> {
        match self.functions[id.index()] {
            FnState::Done(d) => return Ok(d),
            FnState::Visiting => {
                let name = &self.program.functions[id.index()].name;
                return invalid(caller.item, format!("recursive call of `{name}`"));
            }
            FnState::Unvisited => {}
        }
        self.functions[id.index()] = FnState::Visiting;
        let program = self.program;
        let f = &program.functions[id.index()];
        if let Some(p) = f.params.iter().find(|p| p.index() >= f.locals.len()) {
            return invalid(&f.name, format!("parameter {p} is not one of its locals"));
        }
        // Budget: what is left below the call site, so that a deep chain of
        // calls is caught too.
        let scope = Scope {
            item: &f.name,
            locals: f.locals.len(),
            loops: 0,
            in_kernel_body: false,
            depth: caller.depth,
        };
        let depth = self.block(&f.body, scope)? - caller.depth;
        self.functions[id.index()] = FnState::Done(depth);
        Ok(depth)
    }

    fn local(&self, l: LocalId, s: Scope) -> Check<()> {
        if l.index() >= s.locals {
            return invalid(
                s.item,
                format!("local {l} out of range ({} locals)", s.locals),
            );
        }
        Ok(())
    }

    fn bound(&self, b: LoopBound, s: Scope) -> Check<()> {
        match b {
            LoopBound::Const(_) => Ok(()),
            LoopBound::Uniform(p) => self.param(p, s, "an `i32` uniform", |k| {
                matches!(k, ParamKind::Uniform(Type::I32))
            }),
        }
    }

    /// `p` is a parameter of the kernel, used in its body, of the kind
    /// `is_kind` accepts (described by `what`).
    fn param(
        &self,
        p: ParamId,
        s: Scope,
        what: &str,
        is_kind: impl Fn(&ParamKind) -> bool,
    ) -> Check<()> {
        let Some(kernel) = self.kernel.filter(|_| s.in_kernel_body) else {
            return invalid(
                s.item,
                format!("kernel parameter {p} used outside a kernel body"),
            );
        };
        match kernel.params.get(p.index()) {
            Some(param) if is_kind(&param.kind) => Ok(()),
            Some(param) => invalid(
                s.item,
                format!("parameter `{}` ({p}) used as {what}", param.name),
            ),
            None => invalid(s.item, format!("parameter {p} out of range")),
        }
    }

    fn kernel_only(&self, s: Scope, what: &str) -> Check<()> {
        if self.kernel.is_none() {
            return invalid(s.item, format!("{what} in a reduction"));
        }
        Ok(())
    }
}

/// Whether literal `v` is a well-formed value of type `ty`.
fn literal_fits(v: &Value, ty: Type) -> bool {
    match *v {
        Value::Unit => ty == Type::Unit,
        Value::Bool(_) => ty == Type::Bool,
        Value::I32(_) => ty == Type::I32,
        Value::Float { width, .. } => ty.float_width() == Some(width),
    }
}
