//! Lowering of expressions: operators, reads, `if` expressions, blocks and
//! inlined helper calls.

use super::{Cx, Frame, Lowerer, local_types};
use crate::graph::Value;
use crate::op::{BinOp, CmpOp, Op, UnOp};
use crate::types::Ty;
use ctm_frontend::tast::{self, BinaryOp, Expr, ExprKind, LocalId, UnaryOp};
use ctm_frontend::types::Type;
use ctm_frontend::value::Value as Constant;

impl Lowerer<'_> {
    /// Lowers an expression in the current region; returns its value (a
    /// `false` constant for expressions of type `()`).
    pub(super) fn lower_expr(&mut self, cx: &mut Cx, e: &Expr) -> Value {
        match &e.kind {
            ExprKind::Literal(c) => self.constant(cx, *c),
            ExprKind::Local(l) => {
                let var = self.local(*l);
                match cx.env.values.get(&var) {
                    Some(v) => *v,
                    None => {
                        self.m
                            .build_errors
                            .push(format!("local {l} read before it is set"));
                        let t = self.local_type(*l);
                        self.zero(cx, t)
                    }
                }
            }
            ExprKind::Uniform(p) => self.op(cx, Op::Uniform(*p), &[]),
            ExprKind::UniformElement { param, index } => {
                let i = self.lower_expr(cx, index);
                self.op(cx, Op::UniformElement(*param), &[i])
            }
            ExprKind::Input(p) => self.op(cx, Op::Input(*p), &[]),
            ExprKind::Gather { param, pos } => {
                let p = self.lower_expr(cx, pos);
                self.op(cx, Op::Gather(*param), &[p])
            }
            ExprKind::Builtin { func, args } => {
                let vals: Vec<Value> = args.iter().map(|a| self.lower_expr(cx, a)).collect();
                self.lower_builtin(cx, *func, &vals)
            }
            ExprKind::Splat(x) => {
                let v = self.lower_expr(cx, x);
                let w = e.ty.float_width().unwrap_or(1);
                self.op(cx, Op::Splat(w), &[v])
            }
            ExprKind::Unary { op, operand } => {
                let v = self.lower_expr(cx, operand);
                let u = match (op, operand.ty) {
                    (UnaryOp::Neg, Type::I32) => UnOp::INeg,
                    (UnaryOp::Neg, _) => UnOp::FNeg,
                    (UnaryOp::Not, Type::I32) => UnOp::INot,
                    (UnaryOp::Not, _) => UnOp::BNot,
                };
                self.op(cx, Op::Unary(u), &[v])
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.lower_expr(cx, lhs);
                let b = self.lower_expr(cx, rhs);
                self.lower_binary(cx, *op, lhs.ty, a, b)
            }
            ExprKind::MatVec { mat, vec } => {
                let v = self.lower_expr(cx, vec);
                let mut acc: Option<Value> = None;
                for c in 0..4u8 {
                    let idx = self.constant(cx, Constant::I32(c as i32));
                    let col = self.op(cx, Op::UniformElement(*mat), &[idx]);
                    let lane = self.op(cx, Op::Swizzle(tast::Swizzle::new(&[c])), &[v]);
                    let s = self.op(cx, Op::Splat(4), &[lane]);
                    let term = self.op(cx, Op::Binary(BinOp::FMul), &[col, s]);
                    acc = Some(match acc {
                        None => term,
                        Some(a) => self.op(cx, Op::Binary(BinOp::FAdd), &[a, term]),
                    });
                }
                acc.unwrap_or(v)
            }
            ExprKind::VecMat { vec, mat } => {
                let v = self.lower_expr(cx, vec);
                let mut lanes = Vec::new();
                for c in 0..4 {
                    let idx = self.constant(cx, Constant::I32(c));
                    let col = self.op(cx, Op::UniformElement(*mat), &[idx]);
                    lanes.push(self.op(cx, Op::Dot, &[v, col]));
                }
                self.op(cx, Op::Construct, &lanes)
            }
            ExprKind::Cast(x) => {
                let v = self.lower_expr(cx, x);
                let u = match (x.ty, e.ty) {
                    (Type::F32, Type::I32) => UnOp::F2I,
                    (Type::I32, Type::F32) => UnOp::I2F,
                    (Type::Bool, Type::I32) => UnOp::B2I,
                    _ => return v,
                };
                self.op(cx, Op::Unary(u), &[v])
            }
            ExprKind::Call { func, args } => {
                let vals: Vec<Value> = args.iter().map(|a| self.lower_expr(cx, a)).collect();
                let f = self.program.function(*func);
                self.inline(cx, &f.params, &f.locals, &f.body, f.ret, &vals)
            }
            ExprKind::Swizzle { base, lanes } => {
                let v = self.lower_expr(cx, base);
                self.op(cx, Op::Swizzle(*lanes), &[v])
            }
            ExprKind::Construct(parts) => {
                let vals: Vec<Value> = parts.iter().map(|a| self.lower_expr(cx, a)).collect();
                if vals.len() == 1 {
                    return vals[0];
                }
                self.op(cx, Op::Construct, &vals)
            }
            ExprKind::If { cond, then, else_ } => {
                let c = self.lower_expr(cx, cond);
                let tail = Ty::from_type(e.ty);
                let value = self.branch(
                    cx,
                    c,
                    tail,
                    &mut |l, cx| l.lower_block(cx, then),
                    &mut |l, cx| l.lower_block(cx, else_),
                );
                match value {
                    Some(v) => v,
                    None => self.constant(cx, Constant::Bool(false)),
                }
            }
            ExprKind::Block(b) => match self.lower_block(cx, b) {
                Some(v) => v,
                None => self.constant(cx, Constant::Bool(false)),
            },
        }
    }

    fn lower_binary(
        &mut self,
        cx: &mut Cx,
        op: BinaryOp,
        operand: Type,
        a: Value,
        b: Value,
    ) -> Value {
        use BinaryOp::*;
        let float = operand.is_float();
        let cmp = |c| Op::Compare(c);
        let bin = |o| Op::Binary(o);
        let o = match op {
            Add => bin(if float { BinOp::FAdd } else { BinOp::IAdd }),
            Sub => bin(if float { BinOp::FSub } else { BinOp::ISub }),
            Mul => bin(if float { BinOp::FMul } else { BinOp::IMul }),
            Div => bin(if float { BinOp::FDiv } else { BinOp::IDiv }),
            Rem if float => {
                // a - b * trunc(a / b), as `numerics::rem`.
                let q = self.op(cx, Op::Binary(BinOp::FDiv), &[a, b]);
                let t = self.op(cx, Op::Unary(UnOp::FTrunc), &[q]);
                let p = self.op(cx, Op::Binary(BinOp::FMul), &[b, t]);
                return self.op(cx, Op::Binary(BinOp::FSub), &[a, p]);
            }
            Rem => bin(BinOp::IRem),
            Shl => bin(BinOp::IShl),
            Shr => bin(BinOp::IShr),
            BitAnd => bin(BinOp::IAnd),
            BitOr => bin(BinOp::IOr),
            BitXor => bin(BinOp::IXor),
            Eq => cmp(CmpOp::Eq),
            Ne => cmp(CmpOp::Ne),
            Lt => cmp(CmpOp::Lt),
            Le => cmp(CmpOp::Le),
            Gt => cmp(CmpOp::Gt),
            Ge => cmp(CmpOp::Ge),
            And => bin(BinOp::BAnd),
            Or => bin(BinOp::BOr),
        };
        self.op(cx, o, &[a, b])
    }

    /// Inlines a helper (or reduction) body with `params` bound to `args`;
    /// returns its result.
    pub(super) fn inline(
        &mut self,
        cx: &mut Cx,
        params: &[LocalId],
        locals: &[tast::Local],
        body: &tast::Block,
        ret: Type,
        args: &[Value],
    ) -> Value {
        let returned = self.new_var(Ty::Bool);
        let ret_ty = Ty::from_type(ret);
        let result = ret_ty.map(|t| self.new_var(t));
        let mut frame = Frame {
            locals: vec![None; locals.len()],
            local_types: local_types(locals),
            returned,
            result,
            loops: Vec::new(),
        };
        let mut bound = Vec::new();
        for (p, a) in params.iter().zip(args) {
            let var = self.new_var(frame.local_types[p.index()]);
            frame.locals[p.index()] = Some(var);
            cx.env.values.insert(var, *a);
            bound.push(var);
        }
        let f = self.constant(cx, Constant::Bool(false));
        cx.env.values.insert(returned, f);
        if let (Some(r), Some(t)) = (result, ret_ty) {
            let z = self.zero(cx, t);
            cx.env.values.insert(r, z);
        }
        self.frames.push(frame);
        let tail = self.lower_block(cx, body);
        self.frames.pop();
        let has_return = {
            let mut found = false;
            tast::walk_stmts(body, &mut |s| {
                found |= matches!(s.kind, tast::StmtKind::Return(_))
            });
            found
        };
        let value = match (tail, result) {
            (Some(t), Some(r)) if has_return => {
                let flag = cx.env.values[&returned];
                let rv = cx.env.values[&r];
                self.op(cx, Op::Select, &[flag, rv, t])
            }
            (Some(t), _) => t,
            (None, Some(r)) => cx.env.values[&r],
            (None, None) => self.constant(cx, Constant::Bool(false)),
        };
        cx.env.values.remove(&returned);
        if let Some(r) = result {
            cx.env.values.remove(&r);
        }
        for v in bound {
            cx.env.values.remove(&v);
        }
        value
    }
}
