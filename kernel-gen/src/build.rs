//! Small constructors of [`ctm_frontend::ast`] nodes. Generated nodes have empty
//! spans: the text printed from them is what carries positions.

use ctm_frontend::ast::{
    AssignOp, BinaryOp, Block, Expr, ExprKind, Ident, IntRadix, Stmt, StmtKind, TypeExpr,
    TypeExprKind, UnaryOp,
};
use ctm_frontend::span::Span;
use ctm_frontend::types::{OutputType, StreamType, Type};

/// An identifier.
pub fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

/// A name used as a value.
pub fn name(n: &str) -> Expr {
    expr(ExprKind::Name(ident(n)))
}

/// A float literal (negative values are printed with a leading `-`).
pub fn float(x: f32) -> Expr {
    expr(ExprKind::Float(x))
}

/// An integer literal; a negative value is a negated literal, as written.
pub fn int(v: i64) -> Expr {
    let lit = expr(ExprKind::Int {
        value: v.unsigned_abs(),
        radix: IntRadix::Decimal,
    });
    if v < 0 { unary(UnaryOp::Neg, lit) } else { lit }
}

/// An integer literal written in hexadecimal or binary: a 32-bit pattern.
pub fn int_bits(bits: u32) -> Expr {
    expr(ExprKind::Int {
        value: u64::from(bits),
        radix: IntRadix::NonDecimal,
    })
}

/// `true` or `false`.
pub fn boolean(b: bool) -> Expr {
    expr(ExprKind::Bool(b))
}

/// `op x`.
pub fn unary(op: UnaryOp, x: Expr) -> Expr {
    expr(ExprKind::Unary {
        op,
        operand: Box::new(x),
    })
}

/// `a op b`.
pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    expr(ExprKind::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    })
}

/// `x as ty`.
pub fn cast(x: Expr, ty: Type) -> Expr {
    expr(ExprKind::Cast {
        operand: Box::new(x),
        ty: type_expr(ty),
    })
}

/// `f(args)`.
pub fn call(f: &str, args: Vec<Expr>) -> Expr {
    expr(ExprKind::Call {
        callee: ident(f),
        args,
    })
}

/// `x.lanes`.
pub fn field(x: Expr, lanes: &str) -> Expr {
    expr(ExprKind::Field {
        base: Box::new(x),
        field: ident(lanes),
    })
}

/// `base[i]`.
pub fn index(base: &str, i: Expr) -> Expr {
    expr(ExprKind::Index {
        base: Box::new(name(base)),
        index: Box::new(i),
    })
}

/// A block of statements with an optional value.
pub fn block(stmts: Vec<Stmt>, tail: Option<Expr>) -> Block {
    Block {
        stmts,
        tail: tail.map(Box::new),
        span: Span::default(),
    }
}

/// `if cond { then } else ...`; `else_` is a block expression or another
/// `if`.
pub fn if_expr(cond: Expr, then: Block, else_: Option<Expr>) -> Expr {
    expr(ExprKind::If {
        cond: Box::new(cond),
        then,
        else_: else_.map(Box::new),
    })
}

/// A block used as an expression (an `else` branch).
pub fn block_expr(b: Block) -> Expr {
    expr(ExprKind::Block(b))
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

/// `let [mut] name[: ty] = init;`
pub fn let_(mutable: bool, n: &str, ty: Option<Type>, init: Expr) -> Stmt {
    stmt(StmtKind::Let {
        mutable,
        name: ident(n),
        ty: ty.map(type_expr),
        init: Some(init),
    })
}

/// `target op= value;`
pub fn assign(target: Expr, op: Option<BinaryOp>, value: Expr) -> Stmt {
    stmt(StmtKind::Assign {
        target,
        op: op.map_or(AssignOp::Assign, AssignOp::Compound),
        value,
    })
}

/// An expression statement (an `if`).
pub fn expr_stmt(e: Expr) -> Stmt {
    stmt(StmtKind::Expr(e))
}

/// `for var in start..end { body }`
pub fn for_(var: &str, start: Expr, end: Expr, body: Block) -> Stmt {
    stmt(StmtKind::For {
        var: ident(var),
        start,
        end,
        body,
    })
}

/// `while cond { body }`
pub fn while_(cond: Expr, body: Block) -> Stmt {
    stmt(StmtKind::While { cond, body })
}

/// `loop { body }`
pub fn loop_(body: Block) -> Stmt {
    stmt(StmtKind::Loop { body })
}

/// `break;`
pub fn break_() -> Stmt {
    stmt(StmtKind::Break)
}

/// `continue;`
pub fn continue_() -> Stmt {
    stmt(StmtKind::Continue)
}

/// `return [value];`
pub fn return_(value: Option<Expr>) -> Stmt {
    stmt(StmtKind::Return(value))
}

/// `discard;`
pub fn discard() -> Stmt {
    stmt(StmtKind::Discard)
}

fn named_type(n: &str) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Named(ident(n)),
        span: Span::default(),
    }
}

fn generic_type(n: &str, arg: TypeExpr) -> TypeExpr {
    TypeExpr {
        kind: TypeExprKind::Generic {
            name: ident(n),
            arg: Box::new(arg),
        },
        span: Span::default(),
    }
}

/// The written form of a value, `mat4` or array type.
pub fn type_expr(ty: Type) -> TypeExpr {
    match ty {
        Type::Array(a) => TypeExpr {
            kind: TypeExprKind::Array {
                elem: Box::new(type_expr(a.elem.ty())),
                len: Box::new(int(i64::from(a.len))),
            },
            span: Span::default(),
        },
        Type::Unit => TypeExpr {
            kind: TypeExprKind::Unit,
            span: Span::default(),
        },
        other => named_type(&other.to_string()),
    }
}

/// `In<T>`.
pub fn input_type(t: StreamType) -> TypeExpr {
    generic_type("In", named_type(t.name()))
}

/// `Out<T>`.
pub fn output_type(t: OutputType) -> TypeExpr {
    generic_type("Out", named_type(&t.value_type().to_string()))
}

/// `Scatter<f32>`.
pub fn scatter_type() -> TypeExpr {
    generic_type("Scatter", named_type("f32"))
}

/// Lane names of a swizzle: `lanes` in `xyzw` or `rgba` spelling.
pub fn swizzle_name(lanes: &[u8], rgba: bool) -> String {
    let set = if rgba { b"rgba" } else { b"xyzw" };
    lanes.iter().map(|&l| set[l as usize & 3] as char).collect()
}

/// `true` if `e` depends on nothing but literals and `const` items (named
/// `K..` by the generator): its value is known before the kernel runs.
pub fn is_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(id) => id.name.starts_with('K'),
        ExprKind::Float(_) | ExprKind::Int { .. } | ExprKind::Bool(_) => true,
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => is_constant(operand),
        ExprKind::Binary { lhs, rhs, .. } => is_constant(lhs) && is_constant(rhs),
        ExprKind::Call { callee, args } => {
            !matches!(callee.name.as_str(), "index" | "domain")
                && !callee.name.starts_with('h')
                && args.iter().all(is_constant)
        }
        ExprKind::Field { base, .. } => is_constant(base),
        ExprKind::If { cond, then, else_ } => {
            is_constant(cond)
                && then.stmts.is_empty()
                && then.tail.as_deref().is_none_or(is_constant)
                && else_.as_deref().is_none_or(is_constant)
        }
        ExprKind::Block(b) => b.stmts.is_empty() && b.tail.as_deref().is_none_or(is_constant),
        ExprKind::Index { .. } | ExprKind::Error => false,
    }
}
