//! Typing of expressions: names, literals, operators, casts, swizzles and
//! indexing. Calls are in [`super::call`], `if` and blocks in
//! [`super::stmt`].

use super::body::{BodyKind, Cx, Found};
use super::suggest;
use crate::ast::{self, BinaryOp, ExprKind, IntRadix, UnaryOp};
use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, ParamId, ParamKind, Swizzle};
use crate::types::Type;
use crate::value::Value;

/// A typed expression node.
pub(super) fn node(kind: tast::ExprKind, ty: Type, span: Span) -> tast::Expr {
    tast::Expr { kind, ty, span }
}

/// `true` if `e` is an integer literal, possibly negated or parenthesised.
pub(super) fn int_literal(e: &ast::Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int { value, .. } => Some(*value as i64),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => int_literal(operand).map(|v| -v),
        _ => None,
    }
}

/// Parses a swizzle field such as `xyz` or `rgba` into lane numbers.
fn parse_swizzle(field: &str) -> Result<Vec<u8>, &'static str> {
    if field.is_empty() || field.len() > 4 {
        return Err("a swizzle names 1 to 4 lanes");
    }
    let xyzw = field.chars().all(|c| "xyzw".contains(c));
    let rgba = field.chars().all(|c| "rgba".contains(c));
    if !xyzw && !rgba {
        if field.chars().all(|c| "xyzwrgba".contains(c)) {
            return Err("a swizzle uses either `xyzw` or `rgba`, not both");
        }
        return Err("lanes are named `x y z w` or `r g b a`");
    }
    Ok(field
        .chars()
        .map(|c| match c {
            'x' | 'r' => 0,
            'y' | 'g' => 1,
            'z' | 'b' => 2,
            _ => 3,
        })
        .collect())
}

impl Cx<'_, '_> {
    /// Types an expression; `None` after an error (already reported).
    pub fn check_expr(&mut self, e: &ast::Expr) -> Option<tast::Expr> {
        match &e.kind {
            ExprKind::Error => None,
            ExprKind::Float(x) => Some(node(
                tast::ExprKind::Literal(Value::f32(*x)),
                Type::F32,
                e.span,
            )),
            ExprKind::Int { value, radix } => self.int_literal_node(*value, *radix, false, e.span),
            ExprKind::Bool(b) => Some(node(
                tast::ExprKind::Literal(Value::Bool(*b)),
                Type::Bool,
                e.span,
            )),
            ExprKind::Name(id) => self.check_name(id),
            ExprKind::Unary { op, operand } => self.check_unary(*op, operand, e.span),
            ExprKind::Binary { op, lhs, rhs } => self.check_binary(*op, lhs, rhs, e.span),
            ExprKind::Cast { operand, ty } => self.check_cast(operand, ty, e.span),
            ExprKind::Call { callee, args } => self.check_call(callee, args, e.span),
            ExprKind::Field { base, field } => self.check_swizzle(base, field, e.span),
            ExprKind::Index { base, index } => self.check_index(base, index, e.span),
            ExprKind::If { cond, then, else_ } => {
                self.check_if(cond, then, else_.as_deref(), e.span)
            }
            ExprKind::Block(b) => {
                let block = self.check_block(b)?;
                let ty = block.ty();
                Some(node(tast::ExprKind::Block(block), ty, e.span))
            }
        }
    }

    /// Types an expression that must produce a value (not `()`).
    pub fn check_value(&mut self, e: &ast::Expr) -> Option<tast::Expr> {
        let t = self.check_expr(e)?;
        if t.ty == Type::Unit {
            self.error(
                Diagnostic::new(Code::NotAValue, e.span, "this expression has no value")
                    .with_label("its type is `()`")
                    .with_help("a block's value is its last expression, written without `;`"),
            );
            return None;
        }
        Some(t)
    }

    /// Checks that `typed` (from `e`) has type `expected`; there are no
    /// implicit conversions.
    pub fn coerce(
        &mut self,
        typed: tast::Expr,
        e: &ast::Expr,
        expected: Type,
    ) -> Option<tast::Expr> {
        if typed.ty == expected {
            return Some(typed);
        }
        self.report_mismatch(expected, typed.ty, e);
        None
    }

    /// Reports that `e`, of type `found`, was used where `expected` is needed.
    pub fn report_mismatch(&mut self, expected: Type, found: Type, e: &ast::Expr) {
        if expected.is_float()
            && found == Type::I32
            && let Some(v) = int_literal(e)
        {
            self.error(
                Diagnostic::new(
                    Code::IntLiteralInFloatContext,
                    e.span,
                    format!("integer literal used where `{expected}` is expected"),
                )
                .with_label("this is an `i32` literal")
                .with_help(format!("write a float literal: `{v}.0`")),
            );
            return;
        }
        let mut d = Diagnostic::new(
            Code::TypeMismatch,
            e.span,
            format!("expected `{expected}`, found `{found}`"),
        )
        .with_label(format!("this is `{found}`"));
        d = match (expected, found) {
            (Type::F32, Type::I32) => d.with_help("convert with `as f32`"),
            (Type::I32, Type::F32) => d.with_help("convert with `as i32` (truncates toward zero)"),
            (e, f) if e.is_vector() && f == Type::F32 => {
                d.with_help(format!("splat the scalar: `{e}(x)`"))
            }
            (e, f) if e.is_float() && f.is_float() => {
                d.with_help("vectors of different widths never mix: use a swizzle or a constructor")
            }
            (Type::Bool, _) => d.with_help("compare to get a bool, e.g. `x > 0.0`"),
            _ => d,
        };
        self.error(d);
    }

    fn int_literal_node(
        &mut self,
        value: u64,
        radix: IntRadix,
        negated: bool,
        span: Span,
    ) -> Option<tast::Expr> {
        let v: Option<i32> = match (radix, negated) {
            (IntRadix::Decimal, false) => i32::try_from(value).ok(),
            (IntRadix::Decimal, true) => {
                if value <= 1 << 31 {
                    Some((-(value as i64)) as i32)
                } else {
                    None
                }
            }
            (IntRadix::NonDecimal, neg) => u32::try_from(value).ok().map(|u| {
                let v = u as i32;
                if neg { v.wrapping_neg() } else { v }
            }),
        };
        match v {
            Some(v) => Some(node(
                tast::ExprKind::Literal(Value::I32(v)),
                Type::I32,
                span,
            )),
            None => {
                self.error(
                    Diagnostic::new(
                        Code::IntegerOutOfRange,
                        span,
                        "integer literal out of range for `i32`",
                    )
                    .with_label(format!("{value} does not fit in 32 bits"))
                    .with_help("i32 holds -2147483648 to 2147483647 (hex and binary literals up to 0xFFFFFFFF, read as bit patterns)"),
                );
                None
            }
        }
    }

    fn check_name(&mut self, id: &ast::Ident) -> Option<tast::Expr> {
        match self.lookup(&id.name) {
            Found::Local(l) => {
                self.reads[l.index()] = true;
                if self.poisoned(l) {
                    return None;
                }
                let ty = self.locals[l.index()].ty;
                Some(node(tast::ExprKind::Local(l), ty, id.span))
            }
            Found::Param(p) => self.param_value(p, id),
            Found::Failed => None,
            Found::Const(i) => {
                let v = self.ck.const_value(i, id.span)?;
                Some(node(tast::ExprKind::Literal(v), v.ty(), id.span))
            }
            Found::Fn(_) | Found::Entry => {
                self.error(
                    Diagnostic::new(
                        Code::NotAValue,
                        id.span,
                        format!("`{}` is a function, not a value", id.name),
                    )
                    .with_label("used as a value")
                    .with_help(format!("call it: `{}(..)`", id.name)),
                );
                None
            }
            Found::Nothing => {
                self.report_unknown_name(id);
                None
            }
        }
    }

    fn report_unknown_name(&mut self, id: &ast::Ident) {
        let mut d = Diagnostic::new(
            Code::UnknownName,
            id.span,
            format!("cannot find `{}` in this scope", id.name),
        )
        .with_label("not found");
        let names = self.visible_names();
        if let Some(s) = suggest::closest(&id.name, names.iter().map(String::as_str)) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if matches!(id.name.as_str(), "i" | "j" | "gid" | "pos" | "idx")
            && self.kind == BodyKind::Kernel
        {
            d = d.with_help("the element's position is `index()` (a vec2 of i, j)");
        } else if matches!(id.name.as_str(), "PI" | "pi" | "TAU" | "E") {
            d = d.with_help(format!("define it: `const {}: f32 = ...;`", id.name));
        } else if self.kind == BodyKind::Const {
            d = d.with_help("constant expressions may only use literals and other `const` items");
        }
        self.error(d);
    }

    /// A kernel parameter used as a value.
    fn param_value(&mut self, p: ParamId, id: &ast::Ident) -> Option<tast::Expr> {
        match self.params[p.index()].kind {
            ParamKind::Uniform(t) if t.is_value() => {
                Some(node(tast::ExprKind::Uniform(p), t, id.span))
            }
            ParamKind::Uniform(Type::Mat4) => {
                self.error(
                    Diagnostic::new(
                        Code::NotAValue,
                        id.span,
                        format!("`{}` is a mat4 uniform", id.name),
                    )
                    .with_label("a matrix is not a value")
                    .with_help(format!("multiply with it: `{0} * v` or `v * {0}`", id.name)),
                );
                None
            }
            ParamKind::Uniform(_) => {
                self.error(
                    Diagnostic::new(
                        Code::NotAValue,
                        id.span,
                        format!("`{}` is a uniform array", id.name),
                    )
                    .with_label("an array is not a value")
                    .with_help(format!("index it: `{}[k]`", id.name)),
                );
                None
            }
            ParamKind::Input(s) => Some(node(tast::ExprKind::Input(p), s.value_type(), id.span)),
            ParamKind::Output(_) | ParamKind::Scatter => {
                self.error(
                    Diagnostic::new(
                        Code::ReadOutput,
                        id.span,
                        format!("output `{}` cannot be read", id.name),
                    )
                    .with_label("read here")
                    .with_help("keep the value in a local and write the output from it"),
                );
                None
            }
        }
    }

    /// The `mat4` uniform `e` names, if it is one.
    fn mat_uniform(&self, e: &ast::Expr) -> Option<ParamId> {
        if let ExprKind::Name(id) = &e.kind
            && let Found::Param(p) = self.lookup(&id.name)
            && self.params[p.index()].kind == ParamKind::Uniform(Type::Mat4)
        {
            return Some(p);
        }
        None
    }

    fn check_unary(&mut self, op: UnaryOp, operand: &ast::Expr, span: Span) -> Option<tast::Expr> {
        if op == UnaryOp::Neg {
            match &operand.kind {
                ExprKind::Int { value, radix } => {
                    return self.int_literal_node(*value, *radix, true, span);
                }
                ExprKind::Float(x) => {
                    return Some(node(
                        tast::ExprKind::Literal(Value::f32(-x)),
                        Type::F32,
                        span,
                    ));
                }
                _ => {}
            }
        }
        let v = self.check_value(operand)?;
        let ok = match op {
            UnaryOp::Neg => v.ty.is_float() || v.ty == Type::I32,
            UnaryOp::Not => v.ty == Type::Bool || v.ty == Type::I32,
        };
        if !ok {
            let (help, sym) = match op {
                UnaryOp::Neg => ("`-` negates f32, vectors and i32; for a bool use `!`", "-"),
                UnaryOp::Not => (
                    "`!` negates a bool (or flips the bits of an i32); for floats use `-` or `1.0 - x`",
                    "!",
                ),
            };
            self.error(
                Diagnostic::new(
                    Code::InvalidUnaryOperand,
                    operand.span,
                    format!("cannot apply `{sym}` to `{}`", v.ty),
                )
                .with_label(format!("this is `{}`", v.ty))
                .with_help(help),
            );
            return None;
        }
        let ty = v.ty;
        Some(node(
            tast::ExprKind::Unary {
                op,
                operand: Box::new(v),
            },
            ty,
            span,
        ))
    }

    fn check_binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<tast::Expr> {
        if op == BinaryOp::Mul {
            if let Some(m) = self.mat_uniform(lhs) {
                if self.mat_uniform(rhs).is_some() {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidOperands,
                            span,
                            "`mat4 * mat4` is not supported",
                        )
                        .with_label("two matrices")
                        .with_help("multiply the vector by each matrix in turn: `a * (b * v)`"),
                    );
                    return None;
                }
                let v = self.check_value(rhs)?;
                let v = self.expect_mat_operand(v, rhs)?;
                return Some(node(
                    tast::ExprKind::MatVec {
                        mat: m,
                        vec: Box::new(v),
                    },
                    Type::Vec4,
                    span,
                ));
            }
            if let Some(m) = self.mat_uniform(rhs) {
                let v = self.check_value(lhs)?;
                let v = self.expect_mat_operand(v, lhs)?;
                return Some(node(
                    tast::ExprKind::VecMat {
                        vec: Box::new(v),
                        mat: m,
                    },
                    Type::Vec4,
                    span,
                ));
            }
        }
        let l = self.check_value(lhs);
        let r = self.check_value(rhs);
        let (l, r) = (l?, r?);
        self.binary_typed(op, l, lhs, r, rhs, span)
    }

    fn expect_mat_operand(&mut self, v: tast::Expr, e: &ast::Expr) -> Option<tast::Expr> {
        if v.ty == Type::Vec4 {
            return Some(v);
        }
        self.error(
            Diagnostic::new(
                Code::InvalidOperands,
                e.span,
                format!("a mat4 multiplies a vec4, not `{}`", v.ty),
            )
            .with_label(format!("this is `{}`", v.ty))
            .with_help("extend the vector: `vec4(v, 1.0)`"),
        );
        None
    }

    /// Types `l op r` from already-typed operands (also used for compound
    /// assignment); inserts splats for scalar-vector arithmetic.
    pub fn binary_typed(
        &mut self,
        op: BinaryOp,
        l: tast::Expr,
        lhs: &ast::Expr,
        r: tast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<tast::Expr> {
        use BinaryOp::*;
        let (lt, rt) = (l.ty, r.ty);
        let mk = |l: tast::Expr, r: tast::Expr, ty: Type| {
            node(
                tast::ExprKind::Binary {
                    op,
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                ty,
                span,
            )
        };
        match op {
            And | Or => {
                if lt == Type::Bool && rt == Type::Bool {
                    return Some(mk(l, r, Type::Bool));
                }
                let bad = if lt != Type::Bool {
                    (lhs, lt)
                } else {
                    (rhs, rt)
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidOperands,
                        bad.0.span,
                        format!("`{}` needs bool operands, found `{}`", op.symbol(), bad.1),
                    )
                    .with_label(format!("this is `{}`", bad.1))
                    .with_help("compare to get a bool, e.g. `x > 0.0`"),
                );
                None
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let ok = lt == rt
                    && (lt == Type::F32
                        || lt == Type::I32
                        || (lt == Type::Bool && matches!(op, Eq | Ne)));
                if ok {
                    return Some(mk(l, r, Type::Bool));
                }
                if lt.is_vector() || rt.is_vector() {
                    self.error(
                        Diagnostic::new(Code::InvalidOperands, span, "comparisons are scalar")
                            .with_label(format!("comparing `{lt}` with `{rt}`"))
                            .with_help("compare lanes, e.g. `v.x < w.x`, or use `step`/`min`/`max` per lane"),
                    );
                    return None;
                }
                self.operand_mismatch(op, lt, lhs, rt, rhs, span);
                None
            }
            Add | Sub | Mul | Div | Rem => {
                if lt == Type::I32 && rt == Type::I32 {
                    return Some(mk(l, r, Type::I32));
                }
                match (lt.float_width(), rt.float_width()) {
                    (Some(a), Some(b)) if a == b => Some(mk(l, r, lt)),
                    (Some(1), Some(b)) => {
                        let ty = Type::float(b);
                        let ls = l.span;
                        Some(mk(node(tast::ExprKind::Splat(Box::new(l)), ty, ls), r, ty))
                    }
                    (Some(a), Some(1)) => {
                        let ty = Type::float(a);
                        let rs = r.span;
                        Some(mk(l, node(tast::ExprKind::Splat(Box::new(r)), ty, rs), ty))
                    }
                    (Some(_), Some(_)) => {
                        self.error(
                            Diagnostic::new(
                                Code::VectorWidthMismatch,
                                span,
                                format!("cannot combine `{lt}` and `{rt}` with `{}`", op.symbol()),
                            )
                            .with_label("vector widths differ")
                            .with_secondary(lhs.span, format!("`{lt}`"))
                            .with_secondary(rhs.span, format!("`{rt}`"))
                            .with_help("vectors of different widths never mix: use a swizzle such as `.xy` or a constructor"),
                        );
                        None
                    }
                    _ => {
                        self.operand_mismatch(op, lt, lhs, rt, rhs, span);
                        None
                    }
                }
            }
            Shl | Shr | BitAnd | BitOr | BitXor => {
                if lt == Type::I32 && rt == Type::I32 {
                    return Some(mk(l, r, Type::I32));
                }
                let help = if lt == Type::Bool && rt == Type::Bool {
                    "for bools use `&&` and `||`"
                } else {
                    "bitwise operators and shifts work on i32"
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidOperands,
                        span,
                        format!("cannot apply `{}` to `{lt}` and `{rt}`", op.symbol()),
                    )
                    .with_label("invalid operands")
                    .with_help(help),
                );
                None
            }
        }
    }

    /// Reports operands of incompatible types: an integer literal among
    /// floats gets CK0021, others CK0022.
    fn operand_mismatch(
        &mut self,
        op: BinaryOp,
        lt: Type,
        lhs: &ast::Expr,
        rt: Type,
        rhs: &ast::Expr,
        span: Span,
    ) {
        if lt.is_float() && rt == Type::I32 && int_literal(rhs).is_some() {
            self.report_mismatch(lt, rt, rhs);
            return;
        }
        if rt.is_float() && lt == Type::I32 && int_literal(lhs).is_some() {
            self.report_mismatch(rt, lt, lhs);
            return;
        }
        let help = if (lt.is_float() && rt == Type::I32) || (lt == Type::I32 && rt.is_float()) {
            "there are no implicit int/float conversions: convert with `as f32` or `as i32`"
        } else {
            "both operands must have the same type"
        };
        self.error(
            Diagnostic::new(
                Code::InvalidOperands,
                span,
                format!("cannot apply `{}` to `{lt}` and `{rt}`", op.symbol()),
            )
            .with_label("invalid operands")
            .with_secondary(lhs.span, format!("`{lt}`"))
            .with_secondary(rhs.span, format!("`{rt}`"))
            .with_help(help),
        );
    }

    fn check_cast(
        &mut self,
        operand: &ast::Expr,
        ty: &ast::TypeExpr,
        span: Span,
    ) -> Option<tast::Expr> {
        let v = self.check_value(operand);
        let target = match self.ck.resolve_type(ty)? {
            super::types::Resolved::Type(t) => t,
            _ => {
                self.error(
                    Diagnostic::new(Code::InvalidCast, ty.span, "casts convert to f32 or i32")
                        .with_label("not a scalar type"),
                );
                return None;
            }
        };
        let v = v?;
        let ok = matches!(
            (v.ty, target),
            (Type::F32, Type::I32) | (Type::I32, Type::F32) | (Type::Bool, Type::I32)
        ) || (v.ty == target
            && (target == Type::F32 || target == Type::I32 || target == Type::Bool));
        if !ok {
            let help = match (v.ty, target) {
                (Type::Bool, Type::F32) => "write `select(b, 1.0, 0.0)`, or `b as i32 as f32`",
                (_, Type::Bool) => "compare instead: `x != 0`",
                (a, b) if a.is_vector() || b.is_vector() => "casts are scalar: convert each lane",
                _ => "the casts are f32 <-> i32 and bool -> i32",
            };
            self.error(
                Diagnostic::new(
                    Code::InvalidCast,
                    span,
                    format!("cannot cast `{}` to `{target}`", v.ty),
                )
                .with_label("invalid cast")
                .with_help(help),
            );
            return None;
        }
        if v.ty == target {
            return Some(tast::Expr { span, ..v });
        }
        Some(node(tast::ExprKind::Cast(Box::new(v)), target, span))
    }

    /// The lanes of a swizzle `field` applied to a value of type `base_ty`,
    /// reporting problems at `field.span`.
    pub fn swizzle_lanes(&mut self, base_ty: Type, field: &ast::Ident) -> Option<Swizzle> {
        let Some(width) = base_ty.float_width() else {
            self.error(
                Diagnostic::new(
                    Code::InvalidSwizzle,
                    field.span,
                    format!("`{base_ty}` has no lanes to select"),
                )
                .with_label(format!("`.{}` on `{base_ty}`", field.name))
                .with_help(
                    "swizzles apply to f32 and vectors; there are no methods or fields otherwise",
                ),
            );
            return None;
        };
        let lanes = match parse_swizzle(&field.name) {
            Ok(l) => l,
            Err(why) => {
                self.error(
                    Diagnostic::new(
                        Code::InvalidSwizzle,
                        field.span,
                        format!("invalid swizzle `.{}`", field.name),
                    )
                    .with_label(why)
                    .with_help("write e.g. `.x`, `.xy`, `.zyx` or `.rgba`"),
                );
                return None;
            }
        };
        if let Some(&bad) = lanes.iter().find(|&&l| l >= width) {
            let lane = ["x", "y", "z", "w"][bad as usize];
            self.error(
                Diagnostic::new(
                    Code::InvalidSwizzle,
                    field.span,
                    format!("`{base_ty}` has no lane `{lane}`"),
                )
                .with_label(format!("out of range for `{base_ty}`"))
                .with_help(format!("a `{base_ty}` has {width} lane(s)")),
            );
            return None;
        }
        Some(Swizzle::new(&lanes))
    }

    fn check_swizzle(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        span: Span,
    ) -> Option<tast::Expr> {
        let b = self.check_value(base)?;
        let lanes = self.swizzle_lanes(b.ty, field)?;
        let ty = Type::float(lanes.len() as u8);
        if b.ty == ty
            && lanes
                .lanes()
                .iter()
                .enumerate()
                .all(|(i, &l)| i == l as usize)
        {
            return Some(tast::Expr { span, ..b });
        }
        Some(node(
            tast::ExprKind::Swizzle {
                base: Box::new(b),
                lanes,
            },
            ty,
            span,
        ))
    }

    fn check_index(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> Option<tast::Expr> {
        let param = match &base.kind {
            ExprKind::Name(id) => match self.lookup(&id.name) {
                Found::Param(p) => Some(p),
                _ => None,
            },
            _ => None,
        };
        if let ExprKind::Name(id) = &base.kind
            && matches!(self.lookup(&id.name), Found::Failed)
        {
            let _ = self.check_expr(index);
            return None;
        }
        let Some(p) = param else {
            let t = self.check_value(base);
            let help = match t.map(|t| t.ty) {
                Some(t) if t.is_vector() => "select vector lanes with a swizzle: `.x`, `.y`, ...",
                _ => "only uniform arrays and input streams can be indexed",
            };
            self.error(
                Diagnostic::new(Code::InvalidIndex, base.span, "this cannot be indexed")
                    .with_label("not an array or input stream")
                    .with_help(help),
            );
            return None;
        };
        match self.params[p.index()].kind {
            ParamKind::Uniform(Type::Array(a)) => {
                let i = self.check_value(index)?;
                if i.ty != Type::I32 {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidIndex,
                            index.span,
                            format!("array index must be `i32`, found `{}`", i.ty),
                        )
                        .with_label(format!("this is `{}`", i.ty))
                        .with_help("convert with `as i32`"),
                    );
                    return None;
                }
                Some(node(
                    tast::ExprKind::UniformElement {
                        param: p,
                        index: Box::new(i),
                    },
                    a.elem.ty(),
                    span,
                ))
            }
            ParamKind::Input(s) => {
                if self.kind != BodyKind::Kernel {
                    return None;
                }
                let pos = self.check_value(index)?;
                if pos.ty != Type::Vec2 {
                    self.error(
                        Diagnostic::new(
                            Code::InvalidIndex,
                            index.span,
                            format!("a gather position is a `vec2`, found `{}`", pos.ty),
                        )
                        .with_label(format!("this is `{}`", pos.ty))
                        .with_help("write `stream[vec2(i, j)]` with i the column and j the row, e.g. `x[index() + vec2(1.0, 0.0)]`"),
                    );
                    return None;
                }
                Some(node(
                    tast::ExprKind::Gather {
                        param: p,
                        pos: Box::new(pos),
                    },
                    s.value_type(),
                    span,
                ))
            }
            ParamKind::Output(_) | ParamKind::Scatter => {
                let name = self.params[p.index()].name.clone();
                self.error(
                    Diagnostic::new(
                        Code::ReadOutput,
                        span,
                        format!("output `{name}` cannot be read"),
                    )
                    .with_label("read here")
                    .with_help("outputs are write-only"),
                );
                None
            }
            ParamKind::Uniform(t) => {
                let name = self.params[p.index()].name.clone();
                let help = if t.is_vector() {
                    "select vector lanes with a swizzle: `.x`, `.y`, ..."
                } else {
                    "only uniform arrays and input streams can be indexed"
                };
                self.error(
                    Diagnostic::new(
                        Code::InvalidIndex,
                        base.span,
                        format!("`{name}` of type `{t}` cannot be indexed"),
                    )
                    .with_label("not an array")
                    .with_help(help),
                );
                None
            }
        }
    }
}
