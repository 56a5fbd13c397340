//! Typing of blocks, statements, assignments, `if` and loops.

use super::body::{BodyKind, Cx, Found};
use super::expr::node;
use crate::ast::{self, AssignOp, ExprKind, StmtKind};
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, LoopBound, ParamKind};
use crate::types::Type;

/// `true` if control never reaches the end of `b` (it ends in `return`,
/// `break`, `continue`, `discard`, or an `if` whose branches all do).
pub(super) fn block_diverges(b: &tast::Block) -> bool {
    b.tail.is_none() && b.stmts.last().is_some_and(stmt_diverges)
}

fn stmt_diverges(s: &tast::Stmt) -> bool {
    match &s.kind {
        tast::StmtKind::Return(_)
        | tast::StmtKind::Break
        | tast::StmtKind::Continue
        | tast::StmtKind::Discard => true,
        tast::StmtKind::Expr(e) => expr_diverges(e),
        _ => false,
    }
}

fn expr_diverges(e: &tast::Expr) -> bool {
    match &e.kind {
        tast::ExprKind::If { then, else_, .. } => block_diverges(then) && block_diverges(else_),
        tast::ExprKind::Block(b) => block_diverges(b),
        _ => false,
    }
}

fn stmt(kind: tast::StmtKind, span: Span) -> tast::Stmt {
    tast::Stmt { kind, span }
}

impl Cx<'_, '_> {
    /// Checks the body of a function, kernel or reduction whose result
    /// type is `ret` (`Unit` for kernels).
    pub fn check_body_block(
        &mut self,
        b: &ast::Block,
        ret: Type,
        ret_span: Option<Span>,
    ) -> tast::Block {
        let empty = tast::Block {
            stmts: Vec::new(),
            tail: None,
            span: b.span,
        };
        let Some(block) = self.check_block(b) else {
            return empty;
        };
        let ty = block.ty();
        if ty == ret || block_diverges(&block) && block.tail.is_none() {
            return block;
        }
        if ret == Type::Unit {
            if let Some(t) = &b.tail {
                self.error(
                    Diagnostic::new(
                        Code::TypeMismatch,
                        t.span,
                        format!("expected `()`, found `{ty}`"),
                    )
                    .with_label("this value is not used")
                    .with_help("end the statement with `;`"),
                );
            }
            return empty;
        }
        match &b.tail {
            Some(t) => {
                self.report_mismatch(ret, ty, t);
            }
            None => {
                let mut d = Diagnostic::new(
                    Code::ReturnMismatch,
                    b.span.end_point(),
                    format!("missing result: the body must produce a `{ret}`"),
                )
                .with_label("the block ends without a value");
                if let Some(span) = ret_span {
                    d = d.with_secondary(span, "result type declared here");
                }
                let trailing_value = b.stmts.last().is_some_and(|s| {
                    matches!(&s.kind, StmtKind::Expr(e) if !matches!(e.kind, ExprKind::If { .. } | ExprKind::Block(_)))
                });
                d = d.with_help(if trailing_value {
                    "remove the `;` after the last expression to make it the result"
                } else {
                    "end the body with an expression (without `;`) or `return value;`"
                });
                self.error(d);
            }
        }
        empty
    }

    /// Checks a block in a new scope. `None` if its value could not be typed.
    pub fn check_block(&mut self, b: &ast::Block) -> Option<tast::Block> {
        self.push_scope();
        let mut stmts = Vec::new();
        let mut warned_unreachable = false;
        for s in &b.stmts {
            if !warned_unreachable && stmts.last().is_some_and(stmt_diverges) {
                self.error(
                    Diagnostic::new(Code::UnreachableCode, s.span, "unreachable statement")
                        .with_label("never runs")
                        .with_help("the statement before it always leaves the block"),
                );
                warned_unreachable = true;
            }
            match self.check_stmt(s) {
                Some(t) => stmts.push(t),
                None => self.tainted = true,
            }
        }
        let tail = match &b.tail {
            Some(t) => {
                if !warned_unreachable && stmts.last().is_some_and(stmt_diverges) {
                    self.error(
                        Diagnostic::new(Code::UnreachableCode, t.span, "unreachable expression")
                            .with_label("never evaluated"),
                    );
                }
                match self.check_expr(t) {
                    Some(e) => Some(Box::new(e)),
                    None => {
                        self.tainted = true;
                        self.pop_scope();
                        return None;
                    }
                }
            }
            None => None,
        };
        self.pop_scope();
        // A `()`-typed tail (an `if` statement without `;`) is a statement.
        let tail = match tail {
            Some(t) if t.ty == Type::Unit => {
                let span = t.span;
                stmts.push(stmt(tast::StmtKind::Expr(*t), span));
                None
            }
            other => other,
        };
        Some(tast::Block {
            stmts,
            tail,
            span: b.span,
        })
    }

    fn check_stmt(&mut self, s: &ast::Stmt) -> Option<tast::Stmt> {
        let span = s.span;
        match &s.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                init,
            } => self.check_let(*mutable, name, ty.as_ref(), init.as_ref(), span),
            StmtKind::Assign { target, op, value } => self.check_assign(target, *op, value, span),
            StmtKind::Expr(e) => {
                let e = self.check_expr(e)?;
                Some(stmt(tast::StmtKind::Expr(e), span))
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                let start = self.check_loop_bound(start);
                let end = self.check_loop_bound(end);
                self.push_scope();
                let v = self.declare(var, Type::I32, false);
                self.loop_vars[v.index()] = true;
                self.loop_depth += 1;
                let body = self.check_block(body);
                self.loop_depth -= 1;
                self.pop_scope();
                Some(stmt(
                    tast::StmtKind::For {
                        var: v,
                        start: start?,
                        end: end?,
                        body: body?,
                    },
                    span,
                ))
            }
            StmtKind::While { cond, body } => {
                let cond = self.check_condition(cond);
                self.loop_depth += 1;
                let body = self.check_block(body);
                self.loop_depth -= 1;
                Some(stmt(
                    tast::StmtKind::While {
                        cond: cond?,
                        body: body?,
                    },
                    span,
                ))
            }
            StmtKind::Loop { body } => {
                self.loop_depth += 1;
                let body = self.check_block(body);
                self.loop_depth -= 1;
                Some(stmt(tast::StmtKind::Loop { body: body? }, span))
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                if self.loop_depth == 0 {
                    let word = if is_break { "break" } else { "continue" };
                    self.error(
                        Diagnostic::new(
                            Code::BreakOutsideLoop,
                            span,
                            format!("`{word}` outside of a loop"),
                        )
                        .with_label("not inside `for`, `while` or `loop`")
                        .with_help(if self.kind == BodyKind::Kernel {
                            "to end the element early use `return;` or `discard;`"
                        } else {
                            "to leave the function use `return`"
                        }),
                    );
                    return None;
                }
                let kind = if is_break {
                    tast::StmtKind::Break
                } else {
                    tast::StmtKind::Continue
                };
                Some(stmt(kind, span))
            }
            StmtKind::Return(value) => self.check_return(value.as_ref(), span),
            StmtKind::Discard => {
                if self.kind != BodyKind::Kernel {
                    self.error(
                        Diagnostic::new(
                            Code::KernelOnly,
                            span,
                            "`discard` is only allowed in a kernel",
                        )
                        .with_label("in a helper or reduction")
                        .with_help("return a flag and `discard` in the kernel"),
                    );
                    return None;
                }
                Some(stmt(tast::StmtKind::Discard, span))
            }
        }
    }

    fn check_let(
        &mut self,
        mutable: bool,
        name: &ast::Ident,
        ty: Option<&ast::TypeExpr>,
        init: Option<&ast::Expr>,
        span: Span,
    ) -> Option<tast::Stmt> {
        let annotated = match ty {
            None => None,
            Some(t) => match self.ck.resolve_type(t) {
                Some(super::types::Resolved::Type(ty)) if ty.is_value() && ty != Type::Unit => {
                    Some(ty)
                }
                Some(_) => {
                    self.error(
                        Diagnostic::new(
                            Code::NotAValue,
                            t.span,
                            "locals hold values: f32, i32, bool, vec2, vec3 or vec4",
                        )
                        .with_label("not a value type"),
                    );
                    self.declare_poisoned(name);
                    return None;
                }
                None => {
                    self.declare_poisoned(name);
                    return None;
                }
            },
        };
        let Some(init) = init else {
            self.error(
                Diagnostic::new(
                    Code::MissingInitializer,
                    span,
                    format!("`{}` has no initial value", name.name),
                )
                .with_label("declared without `= value`")
                .with_help(format!("give it a value: `let {} = ...;`", name.name)),
            );
            self.declare_poisoned(name);
            return None;
        };
        let value = self.check_value(init).and_then(|v| match annotated {
            Some(t) => self.coerce(v, init, t),
            None => Some(v),
        });
        let Some(value) = value else {
            self.declare_poisoned(name);
            return None;
        };
        let local = self.declare(name, value.ty, mutable);
        Some(stmt(tast::StmtKind::Let { local, init: value }, span))
    }

    fn check_assign(
        &mut self,
        target: &ast::Expr,
        op: AssignOp,
        value: &ast::Expr,
        span: Span,
    ) -> Option<tast::Stmt> {
        match &target.kind {
            ExprKind::Name(id) => match self.lookup(&id.name) {
                Found::Local(l) => {
                    if self.poisoned(l) {
                        let _ = self.check_expr(value);
                        return None;
                    }
                    self.require_mutable(l, id, target.span)?;
                    let ty = self.locals[l.index()].ty;
                    let v = self.assigned_value(
                        op,
                        node(tast::ExprKind::Local(l), ty, target.span),
                        target,
                        value,
                        span,
                        ty,
                    )?;
                    Some(stmt(
                        tast::StmtKind::Assign {
                            local: l,
                            lanes: None,
                            value: v,
                        },
                        span,
                    ))
                }
                Found::Param(p) => match self.params[p.index()].kind {
                    ParamKind::Output(o) => {
                        if op != AssignOp::Assign {
                            let _ = self.check_expr(value);
                            self.error(
                                Diagnostic::new(Code::ReadOutput, target.span, format!("`{}` reads output `{}`", assign_symbol(op), id.name))
                                    .with_label("outputs cannot be read")
                                    .with_help(format!("accumulate in a local (`let mut acc = ...;`) and assign `{} = acc;`", id.name)),
                            );
                            return None;
                        }
                        let v = self.check_value(value)?;
                        let v = self.coerce(v, value, o.value_type())?;
                        Some(stmt(
                            tast::StmtKind::WriteOutput { param: p, value: v },
                            span,
                        ))
                    }
                    ParamKind::Scatter => {
                        let _ = self.check_expr(value);
                        self.error(
                            Diagnostic::new(
                                Code::InvalidScatterWrite,
                                target.span,
                                format!("`{}` is a scatter stream", id.name),
                            )
                            .with_label("written without a position")
                            .with_help(format!(
                                "write at a position: `{}[p] = v;` with `p: vec2`",
                                id.name
                            )),
                        );
                        None
                    }
                    ParamKind::Uniform(_) | ParamKind::Input(_) => {
                        let _ = self.check_expr(value);
                        let what = if matches!(self.params[p.index()].kind, ParamKind::Input(_)) {
                            "input stream"
                        } else {
                            "uniform"
                        };
                        self.error(
                            Diagnostic::new(
                                Code::AssignToReadOnly,
                                target.span,
                                format!("cannot assign to {what} `{}`", id.name),
                            )
                            .with_label("read-only")
                            .with_help(format!(
                                "copy it into a local: `let mut {0} = {0};`",
                                id.name
                            )),
                        );
                        None
                    }
                },
                Found::Const(_) => {
                    let _ = self.check_expr(value);
                    self.error(
                        Diagnostic::new(
                            Code::AssignToReadOnly,
                            target.span,
                            format!("cannot assign to constant `{}`", id.name),
                        )
                        .with_label("a `const` item"),
                    );
                    None
                }
                Found::Fn(_) | Found::Entry => {
                    let _ = self.check_expr(value);
                    self.invalid_target(target);
                    None
                }
                Found::Failed => {
                    let _ = self.check_expr(value);
                    None
                }
                Found::Nothing => {
                    let _ = self.check_expr(target);
                    let _ = self.check_expr(value);
                    None
                }
            },
            ExprKind::Field { base, field } => {
                let ExprKind::Name(id) = &base.kind else {
                    let _ = self.check_expr(value);
                    self.invalid_target(target);
                    return None;
                };
                match self.lookup(&id.name) {
                    Found::Local(l) => {
                        if self.poisoned(l) {
                            let _ = self.check_expr(value);
                            return None;
                        }
                        self.require_mutable(l, id, base.span)?;
                        let ty = self.locals[l.index()].ty;
                        let lanes = self.swizzle_lanes(ty, field)?;
                        let mut seen = [false; 4];
                        for &lane in lanes.lanes() {
                            if std::mem::replace(&mut seen[lane as usize], true) {
                                self.error(
                                    Diagnostic::new(
                                        Code::RepeatedSwizzleWrite,
                                        field.span,
                                        format!(
                                            "lane `{}` is written twice",
                                            ["x", "y", "z", "w"][lane as usize]
                                        ),
                                    )
                                    .with_label("repeated lane")
                                    .with_help("each lane may appear once in a swizzle write"),
                                );
                                let _ = self.check_expr(value);
                                return None;
                            }
                        }
                        let part_ty = Type::float(lanes.len() as u8);
                        let current = node(
                            tast::ExprKind::Swizzle {
                                base: Box::new(node(tast::ExprKind::Local(l), ty, base.span)),
                                lanes,
                            },
                            part_ty,
                            target.span,
                        );
                        let v = self.assigned_value(op, current, target, value, span, part_ty)?;
                        Some(stmt(
                            tast::StmtKind::Assign {
                                local: l,
                                lanes: Some(lanes),
                                value: v,
                            },
                            span,
                        ))
                    }
                    Found::Param(p)
                        if matches!(self.params[p.index()].kind, ParamKind::Output(_)) =>
                    {
                        let _ = self.check_expr(value);
                        self.error(
                            Diagnostic::new(
                                Code::InvalidAssignTarget,
                                target.span,
                                "outputs are written whole",
                            )
                            .with_label("a lane of an output")
                            .with_help(format!(
                                "build the value in a local and assign it: `{} = v;`",
                                id.name
                            )),
                        );
                        None
                    }
                    _ => {
                        // Reuse the name assignment path for its messages.
                        self.check_assign(base, AssignOp::Assign, value, span)
                            .map(|_| ())
                            .and(None)
                    }
                }
            }
            ExprKind::Index { base, index } => {
                let param = match &base.kind {
                    ExprKind::Name(id) => match self.lookup(&id.name) {
                        Found::Param(p) => Some((p, id)),
                        _ => None,
                    },
                    _ => None,
                };
                match param.map(|(p, id)| (p, id, self.params[p.index()].kind)) {
                    Some((p, id, ParamKind::Scatter)) => {
                        if op != AssignOp::Assign {
                            let _ = self.check_expr(value);
                            self.error(
                                Diagnostic::new(
                                    Code::ReadOutput,
                                    target.span,
                                    format!(
                                        "`{}` reads scatter stream `{}`",
                                        assign_symbol(op),
                                        id.name
                                    ),
                                )
                                .with_label("outputs cannot be read")
                                .with_help("compute the value first, then write it with `="),
                            );
                            return None;
                        }
                        let pos = self.check_value(index);
                        let v = self.check_value(value);
                        let (pos, v) = (pos?, v?);
                        if pos.ty != Type::Vec2 {
                            self.error(
                                Diagnostic::new(
                                    Code::InvalidScatterWrite,
                                    index.span,
                                    format!("a scatter position is a `vec2`, found `{}`", pos.ty),
                                )
                                .with_label(format!("this is `{}`", pos.ty))
                                .with_help("write `s[vec2(i, j)] = v;`"),
                            );
                            return None;
                        }
                        let v = self.coerce(v, value, Type::F32)?;
                        Some(stmt(
                            tast::StmtKind::Scatter {
                                param: p,
                                pos,
                                value: v,
                            },
                            span,
                        ))
                    }
                    Some((_, id, ParamKind::Uniform(_) | ParamKind::Input(_))) => {
                        let _ = self.check_expr(value);
                        self.error(
                            Diagnostic::new(Code::AssignToReadOnly, target.span, format!("cannot assign to an element of `{}`", id.name))
                                .with_label("read-only")
                                .with_help("uniforms and input streams are read-only; scatter outputs are `Scatter<f32>`"),
                        );
                        None
                    }
                    Some((_, id, ParamKind::Output(_))) => {
                        let _ = self.check_expr(value);
                        self.error(
                            Diagnostic::new(Code::InvalidScatterWrite, target.span, format!("`{}` is written at the element's own position", id.name))
                                .with_label("`Out` streams cannot be indexed")
                                .with_help(format!("assign it whole: `{} = v;`, or declare it `Scatter<f32>` to write anywhere", id.name)),
                        );
                        None
                    }
                    None => {
                        let _ = self.check_expr(value);
                        self.invalid_target(target);
                        None
                    }
                }
            }
            ExprKind::Error => {
                let _ = self.check_expr(value);
                None
            }
            _ => {
                let _ = self.check_expr(value);
                self.invalid_target(target);
                None
            }
        }
    }

    /// The value stored by `target op= value`, of type `ty`.
    fn assigned_value(
        &mut self,
        op: AssignOp,
        current: tast::Expr,
        target: &ast::Expr,
        value: &ast::Expr,
        span: Span,
        ty: Type,
    ) -> Option<tast::Expr> {
        let v = self.check_value(value)?;
        match op {
            AssignOp::Assign => self.coerce(v, value, ty),
            AssignOp::Compound(bop) => {
                if let tast::ExprKind::Local(l) = current.kind {
                    self.reads[l.index()] = true;
                }
                if let tast::ExprKind::Swizzle { base, .. } = &current.kind
                    && let tast::ExprKind::Local(l) = base.kind
                {
                    self.reads[l.index()] = true;
                }
                let result = self.binary_typed(bop, current, target, v, value, span)?;
                if result.ty != ty {
                    self.error(
                        Diagnostic::new(
                            Code::TypeMismatch,
                            span,
                            format!(
                                "`{}` would change the type from `{ty}` to `{}`",
                                assign_symbol(op),
                                result.ty
                            ),
                        )
                        .with_label("the result does not fit the variable")
                        .with_help("vectors of different widths never mix: use a swizzle"),
                    );
                    return None;
                }
                Some(result)
            }
        }
    }

    fn require_mutable(&mut self, l: tast::LocalId, id: &ast::Ident, span: Span) -> Option<()> {
        let local = &self.locals[l.index()];
        if local.mutable {
            return Some(());
        }
        let decl = local.span;
        if self.loop_vars[l.index()] {
            self.error(
                Diagnostic::new(
                    Code::AssignToReadOnly,
                    span,
                    format!("cannot assign to loop variable `{}`", id.name),
                )
                .with_label("loop variables are read-only")
                .with_secondary(decl, "declared here")
                .with_help("copy it into a local: `let mut k2 = k;`"),
            );
        } else {
            self.error(
                Diagnostic::new(
                    Code::AssignToImmutable,
                    span,
                    format!("cannot assign twice to immutable variable `{}`", id.name),
                )
                .with_label("assigned here")
                .with_secondary(decl, "declared here")
                .with_help(format!("make it mutable: `let mut {}`", id.name)),
            );
        }
        None
    }

    fn invalid_target(&mut self, target: &ast::Expr) {
        self.error(
            Diagnostic::new(Code::InvalidAssignTarget, target.span, "invalid left-hand side of assignment")
                .with_label("cannot be assigned")
                .with_help("assign to a `let mut` variable, a swizzle of one (`v.xy`), an output, or a scatter position (`s[p]`)"),
        );
    }

    fn check_return(&mut self, value: Option<&ast::Expr>, span: Span) -> Option<tast::Stmt> {
        match (self.kind, value) {
            (BodyKind::Kernel, None) => Some(stmt(tast::StmtKind::Return(None), span)),
            (BodyKind::Kernel, Some(v)) => {
                let _ = self.check_expr(v);
                self.error(
                    Diagnostic::new(Code::ReturnMismatch, v.span, "kernels do not return values")
                        .with_label("returned value")
                        .with_help("write results to `Out` parameters, then `return;`"),
                );
                None
            }
            (BodyKind::Function { ret } | BodyKind::Reduction { ret }, Some(v)) => {
                let t = self.check_value(v)?;
                let t = self.coerce(t, v, ret)?;
                Some(stmt(tast::StmtKind::Return(Some(t)), span))
            }
            (BodyKind::Function { ret } | BodyKind::Reduction { ret }, None) => {
                if ret == Type::Unit {
                    return Some(stmt(tast::StmtKind::Return(None), span));
                }
                self.error(
                    Diagnostic::new(
                        Code::ReturnMismatch,
                        span,
                        format!("`return;` without a value in a function returning `{ret}`"),
                    )
                    .with_label("missing value")
                    .with_help("return a value: `return x;`"),
                );
                None
            }
            (BodyKind::Const, _) => None,
        }
    }

    /// Checks a condition, which must be a `bool`.
    pub fn check_condition(&mut self, cond: &ast::Expr) -> Option<tast::Expr> {
        let c = self.check_value(cond)?;
        if c.ty == Type::Bool {
            return Some(c);
        }
        let help = match c.ty {
            Type::I32 => "compare it: `x != 0`",
            Type::F32 => "compare it: `x > 0.0`",
            _ => "compare lanes to get a bool, e.g. `v.x > 0.0`",
        };
        self.error(
            Diagnostic::new(
                Code::NonBoolCondition,
                cond.span,
                format!("expected `bool`, found `{}`", c.ty),
            )
            .with_label("not a bool")
            .with_help(help),
        );
        None
    }

    /// Checks `if cond { then } else { else_ }` in expression position.
    pub fn check_if(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Block,
        else_: Option<&ast::Expr>,
        span: Span,
    ) -> Option<tast::Expr> {
        let c = self.check_condition(cond);
        let t = self.check_block(then);
        let e = match else_ {
            None => Some(tast::Block {
                stmts: Vec::new(),
                tail: None,
                span: span.end_point(),
            }),
            Some(e) => match &e.kind {
                ExprKind::Block(b) => self.check_block(b),
                _ => self.check_expr(e).map(|x| tast::Block {
                    span: x.span,
                    stmts: Vec::new(),
                    tail: Some(Box::new(x)),
                }),
            },
        };
        let (c, t, e) = (c?, t?, e?);
        let (tt, et) = (t.ty(), e.ty());
        let ty = if else_.is_none() {
            if tt != Type::Unit {
                self.error(
                    Diagnostic::new(
                        Code::IfWithoutElse,
                        span,
                        "`if` without `else` used as a value",
                    )
                    .with_label(format!("the `then` branch gives a `{tt}`"))
                    .with_help("add an `else` branch giving a value of the same type"),
                );
                return None;
            }
            Type::Unit
        } else if block_diverges(&t) {
            et
        } else if block_diverges(&e) || tt == et {
            tt
        } else {
            let else_tail = match else_.map(|x| &x.kind) {
                Some(ExprKind::Block(b)) => b.tail.as_deref(),
                other => other.and(else_),
            };
            match (then.tail.as_deref(), else_tail) {
                (Some(_), Some(et_ast))
                    if tt.is_float()
                        && et == Type::I32
                        && super::expr::int_literal(et_ast).is_some() =>
                {
                    self.report_mismatch(tt, et, et_ast);
                }
                (Some(tt_ast), Some(_))
                    if et.is_float()
                        && tt == Type::I32
                        && super::expr::int_literal(tt_ast).is_some() =>
                {
                    self.report_mismatch(et, tt, tt_ast);
                }
                _ => {
                    let mut d = Diagnostic::new(
                        Code::TypeMismatch,
                        span,
                        format!("`if` and `else` have different types: `{tt}` and `{et}`"),
                    )
                    .with_label("branches differ");
                    if let Some(x) = &then.tail {
                        d = d.with_secondary(x.span, format!("`{tt}`"));
                    }
                    if let Some(x) = else_tail {
                        d = d.with_secondary(x.span, format!("`{et}`"));
                    }
                    self.error(d.with_help("both branches must give the same type"));
                }
            }
            return None;
        };
        Some(node(
            tast::ExprKind::If {
                cond: Box::new(c),
                then: t,
                else_: e,
            },
            ty,
            span,
        ))
    }

    /// A `for` bound: an integer constant expression or an `i32` uniform.
    fn check_loop_bound(&mut self, e: &ast::Expr) -> Option<LoopBound> {
        if let ExprKind::Name(id) = &e.kind
            && let Found::Param(p) = self.lookup(&id.name)
            && self.params[p.index()].kind == ParamKind::Uniform(Type::I32)
        {
            return Some(LoopBound::Uniform(p));
        }
        let t = self.check_value(e)?;
        if t.ty != Type::I32 {
            self.error(
                Diagnostic::new(
                    Code::InvalidLoopBound,
                    e.span,
                    format!("for-loop bounds are `i32`, found `{}`", t.ty),
                )
                .with_label(format!("this is `{}`", t.ty))
                .with_help("write integer bounds such as `0..8`; the loop variable is an i32"),
            );
            return None;
        }
        match super::consteval::eval(&t) {
            Ok(v) => Some(LoopBound::Const(v.as_i32())),
            Err(_) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidLoopBound,
                        e.span,
                        "for-loop bounds must be integer constants or i32 uniforms",
                    )
                    .with_label("computed at run time")
                    .with_help("pass the bound as an `i32` uniform, or use a `while` loop"),
                );
                None
            }
        }
    }
}

fn assign_symbol(op: AssignOp) -> String {
    match op {
        AssignOp::Assign => "=".to_string(),
        AssignOp::Compound(b) => format!("{}=", b.symbol()),
    }
}
