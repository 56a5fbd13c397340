//! Compile-time evaluation of constant expressions (`const` items, array
//! lengths, `for` bounds), with the language's own [`crate::numerics`].

use crate::numerics;
use crate::span::Span;
use crate::tast::{Expr, ExprKind};
use crate::value::Value;

/// Evaluates a typed expression built only from literals, operators,
/// casts, constructors, swizzles and built-in math. `Err` carries the span
/// of the first part that is not constant.
pub fn eval(e: &Expr) -> Result<Value, Span> {
    Ok(match &e.kind {
        ExprKind::Literal(v) => *v,
        ExprKind::Unary { op, operand } => numerics::eval_unary(*op, &eval(operand)?),
        ExprKind::Binary { op, lhs, rhs } => numerics::eval_binary(*op, &eval(lhs)?, &eval(rhs)?),
        ExprKind::Cast(inner) => numerics::eval_cast(&eval(inner)?, e.ty),
        ExprKind::Splat(inner) => numerics::splat(&eval(inner)?, e.ty.float_width().unwrap_or(1)),
        ExprKind::Swizzle { base, lanes } => numerics::swizzle(&eval(base)?, lanes.lanes()),
        ExprKind::Construct(parts) => {
            let vals = parts.iter().map(eval).collect::<Result<Vec<_>, _>>()?;
            numerics::construct(&vals, e.ty.float_width().unwrap_or(1))
        }
        ExprKind::Builtin { func, args } => {
            use crate::builtins::Builtin;
            if matches!(func, Builtin::Index | Builtin::Domain) {
                return Err(e.span);
            }
            let vals = args.iter().map(eval).collect::<Result<Vec<_>, _>>()?;
            numerics::eval_builtin(*func, &vals)
        }
        ExprKind::If { cond, then, else_ } => {
            let branch = if eval(cond)?.as_bool() { then } else { else_ };
            match (&branch.stmts[..], &branch.tail) {
                ([], Some(t)) => eval(t)?,
                _ => return Err(branch.span),
            }
        }
        ExprKind::Block(b) => match (&b.stmts[..], &b.tail) {
            ([], Some(t)) => eval(t)?,
            _ => return Err(b.span),
        },
        _ => return Err(e.span),
    })
}
