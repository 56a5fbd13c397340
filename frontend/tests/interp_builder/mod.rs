//! A small builder for typed-AST programs, so that the reference
//! interpreter's tests read close to the `.ck` source they stand for (the
//! parser and checker are not needed to build them). Each test file that
//! uses it says `mod interp_builder;`.

#![allow(dead_code)]

use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::interp::{self, KernelRun, RunOptions, RuntimeError};
use ctm_frontend::span::Span;
use ctm_frontend::tast::{
    BinaryOp, Block, Builtin, Expr, ExprKind, FuncId, Function, Kernel, KernelParam, Local,
    LocalId, LoopBound, ParamId, ParamKind, Program, Reduction, Stmt, StmtKind, Swizzle, UnaryOp,
};
use ctm_frontend::types::{OutputType, StreamType, Type};
use ctm_frontend::value::Value;

/// A local variable of the item being built.
#[derive(Clone, Copy, Debug)]
pub struct Var {
    pub id: LocalId,
    pub ty: Type,
}

impl Var {
    /// The local's value.
    pub fn get(self) -> Expr {
        expr(ExprKind::Local(self.id), self.ty)
    }
}

/// A kernel parameter; `ty` is the type it reads as (uniforms: their type,
/// inputs: their value type).
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub id: ParamId,
    pub ty: Type,
}

/// The locals of one item.
#[derive(Default)]
pub struct Locals(Vec<Local>);

impl Locals {
    /// A new local.
    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        self.0.push(Local {
            name: name.into(),
            ty,
            mutable: true,
            span: Span::default(),
        });
        Var {
            id: LocalId(self.0.len() as u32 - 1),
            ty,
        }
    }
}

/// Builds a kernel.
pub struct KernelBuilder {
    name: String,
    params: Vec<KernelParam>,
    pub locals: Locals,
}

impl KernelBuilder {
    pub fn new(name: &str) -> KernelBuilder {
        KernelBuilder {
            name: name.into(),
            params: Vec::new(),
            locals: Locals::default(),
        }
    }

    fn param(&mut self, name: &str, kind: ParamKind, ty: Type) -> Param {
        self.params.push(KernelParam {
            name: name.into(),
            kind,
            span: Span::default(),
        });
        Param {
            id: ParamId(self.params.len() as u32 - 1),
            ty,
        }
    }

    pub fn uniform(&mut self, name: &str, ty: Type) -> Param {
        self.param(name, ParamKind::Uniform(ty), ty)
    }

    pub fn input(&mut self, name: &str, ty: StreamType) -> Param {
        self.param(name, ParamKind::Input(ty), ty.value_type())
    }

    pub fn output(&mut self, name: &str, ty: OutputType) -> Param {
        self.param(name, ParamKind::Output(ty), ty.value_type())
    }

    pub fn scatter(&mut self, name: &str) -> Param {
        self.param(name, ParamKind::Scatter, Type::F32)
    }

    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        self.locals.var(name, ty)
    }

    pub fn build(self, stmts: Vec<Stmt>) -> Kernel {
        Kernel {
            name: self.name,
            params: self.params,
            locals: self.locals.0,
            body: block(stmts),
            span: Span::default(),
        }
    }
}

/// Builds a helper function.
pub struct FunctionBuilder {
    name: String,
    ret: Type,
    params: Vec<LocalId>,
    pub locals: Locals,
}

impl FunctionBuilder {
    pub fn new(name: &str, ret: Type) -> FunctionBuilder {
        FunctionBuilder {
            name: name.into(),
            ret,
            params: Vec::new(),
            locals: Locals::default(),
        }
    }

    pub fn param(&mut self, name: &str, ty: Type) -> Var {
        let v = self.locals.var(name, ty);
        self.params.push(v.id);
        v
    }

    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        self.locals.var(name, ty)
    }

    pub fn build(self, body: Block) -> Function {
        Function {
            name: self.name,
            params: self.params,
            ret: self.ret,
            locals: self.locals.0,
            body,
            span: Span::default(),
        }
    }
}

/// `reduce name(a: ty, b: ty) -> ty { body(a, b) }`.
pub fn reduction(name: &str, ty: Type, body: impl FnOnce(Var, Var) -> Block) -> Reduction {
    let mut locals = Locals::default();
    let a = locals.var("a", ty);
    let b = locals.var("b", ty);
    Reduction {
        name: name.into(),
        ty,
        params: [a.id, b.id],
        locals: locals.0,
        body: body(a, b),
        span: Span::default(),
    }
}

/// A program of these items.
pub fn program(
    functions: Vec<Function>,
    kernels: Vec<Kernel>,
    reductions: Vec<Reduction>,
) -> Program {
    Program {
        functions,
        kernels,
        reductions,
        consts: Vec::new(),
    }
}

// ---- expressions ----

pub fn expr(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::default(),
    }
}

pub fn f(x: f32) -> Expr {
    expr(ExprKind::Literal(Value::f32(x)), Type::F32)
}

pub fn i(x: i32) -> Expr {
    expr(ExprKind::Literal(Value::I32(x)), Type::I32)
}

pub fn boolean(x: bool) -> Expr {
    expr(ExprKind::Literal(Value::Bool(x)), Type::Bool)
}

/// A float vector literal.
pub fn vecl(lanes: &[f32]) -> Expr {
    let v = Value::floats(lanes);
    expr(ExprKind::Literal(v), v.ty())
}

pub fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() || matches!(op, BinaryOp::And | BinaryOp::Or) {
        Type::Bool
    } else {
        a.ty
    };
    expr(
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(b),
        },
        ty,
    )
}

pub fn add(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Add, a, b)
}
pub fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Sub, a, b)
}
pub fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Mul, a, b)
}
pub fn rem(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Rem, a, b)
}
pub fn lt(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Lt, a, b)
}
pub fn gt(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Gt, a, b)
}
pub fn ge(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Ge, a, b)
}
pub fn eq(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Eq, a, b)
}

pub fn unary(op: UnaryOp, a: Expr) -> Expr {
    let ty = a.ty;
    expr(
        ExprKind::Unary {
            op,
            operand: Box::new(a),
        },
        ty,
    )
}

pub fn neg(a: Expr) -> Expr {
    unary(UnaryOp::Neg, a)
}

/// `x` repeated into a float of `width` lanes.
pub fn splat(x: Expr, width: u8) -> Expr {
    expr(ExprKind::Splat(Box::new(x)), Type::float(width))
}

/// `e.lanes`, lanes spelled `"xyzw"`.
pub fn swz(e: Expr, lanes: &str) -> Expr {
    let lanes = swizzle(lanes);
    expr(
        ExprKind::Swizzle {
            base: Box::new(e),
            lanes,
        },
        Type::float(lanes.len() as u8),
    )
}

pub fn swizzle(lanes: &str) -> Swizzle {
    let l: Vec<u8> = lanes
        .chars()
        .map(|c| "xyzw".find(c).expect("lane letter") as u8)
        .collect();
    Swizzle::new(&l)
}

/// `vecN(parts..)`.
pub fn construct(parts: Vec<Expr>) -> Expr {
    let width: u8 = parts
        .iter()
        .map(|p| p.ty.float_width().expect("float part"))
        .sum();
    expr(ExprKind::Construct(parts), Type::float(width))
}

/// A built-in call; its type follows the usual signature shapes.
pub fn builtin(func: Builtin, args: Vec<Expr>) -> Expr {
    let ty = match func {
        Builtin::Dot | Builtin::Length | Builtin::Distance => Type::F32,
        Builtin::Index | Builtin::Domain => Type::Vec2,
        Builtin::Select => args.get(1).map_or(Type::Unit, |a| a.ty),
        _ => args.first().map_or(Type::Unit, |a| a.ty),
    };
    expr(ExprKind::Builtin { func, args }, ty)
}

pub fn index() -> Expr {
    builtin(Builtin::Index, vec![])
}

pub fn domain() -> Expr {
    builtin(Builtin::Domain, vec![])
}

pub fn cast(e: Expr, ty: Type) -> Expr {
    expr(ExprKind::Cast(Box::new(e)), ty)
}

pub fn call(func: u32, args: Vec<Expr>, ret: Type) -> Expr {
    expr(
        ExprKind::Call {
            func: FuncId(func),
            args,
        },
        ret,
    )
}

/// `if cond { then } else { else_ }` as an expression.
pub fn if_expr(cond: Expr, then: Block, else_: Block) -> Expr {
    let ty = then.ty();
    expr(
        ExprKind::If {
            cond: Box::new(cond),
            then,
            else_,
        },
        ty,
    )
}

pub fn uniform(p: Param) -> Expr {
    expr(ExprKind::Uniform(p.id), p.ty)
}

/// `arr[index]` for a uniform array `p` of element type `elem`.
pub fn element(p: Param, index: Expr, elem: Type) -> Expr {
    expr(
        ExprKind::UniformElement {
            param: p.id,
            index: Box::new(index),
        },
        elem,
    )
}

pub fn input(p: Param) -> Expr {
    expr(ExprKind::Input(p.id), p.ty)
}

pub fn gather(p: Param, pos: Expr) -> Expr {
    expr(
        ExprKind::Gather {
            param: p.id,
            pos: Box::new(pos),
        },
        p.ty,
    )
}

pub fn mat_vec(m: Param, v: Expr) -> Expr {
    expr(
        ExprKind::MatVec {
            mat: m.id,
            vec: Box::new(v),
        },
        Type::Vec4,
    )
}

pub fn vec_mat(v: Expr, m: Param) -> Expr {
    expr(
        ExprKind::VecMat {
            vec: Box::new(v),
            mat: m.id,
        },
        Type::Vec4,
    )
}

// ---- statements and blocks ----

pub fn stmt(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}

pub fn block(stmts: Vec<Stmt>) -> Block {
    Block {
        stmts,
        tail: None,
        span: Span::default(),
    }
}

/// A block with a value.
pub fn valued(stmts: Vec<Stmt>, tail: Expr) -> Block {
    Block {
        stmts,
        tail: Some(Box::new(tail)),
        span: Span::default(),
    }
}

pub fn let_(v: Var, init: Expr) -> Stmt {
    stmt(StmtKind::Let { local: v.id, init })
}

pub fn assign(v: Var, value: Expr) -> Stmt {
    stmt(StmtKind::Assign {
        local: v.id,
        lanes: None,
        value,
    })
}

/// `v.lanes = value;`
pub fn assign_lanes(v: Var, lanes: &str, value: Expr) -> Stmt {
    stmt(StmtKind::Assign {
        local: v.id,
        lanes: Some(swizzle(lanes)),
        value,
    })
}

/// `v = v + e` (what the checker makes of `v += e`).
pub fn add_assign(v: Var, e: Expr) -> Stmt {
    assign(v, add(v.get(), e))
}

pub fn out(p: Param, value: Expr) -> Stmt {
    stmt(StmtKind::WriteOutput { param: p.id, value })
}

pub fn scatter(p: Param, pos: Expr, value: Expr) -> Stmt {
    stmt(StmtKind::Scatter {
        param: p.id,
        pos,
        value,
    })
}

pub fn expr_stmt(e: Expr) -> Stmt {
    stmt(StmtKind::Expr(e))
}

/// `if cond { then }` as a statement.
pub fn if_(cond: Expr, then: Vec<Stmt>) -> Stmt {
    if_else(cond, then, vec![])
}

pub fn if_else(cond: Expr, then: Vec<Stmt>, else_: Vec<Stmt>) -> Stmt {
    expr_stmt(if_expr(cond, block(then), block(else_)))
}

pub fn for_(var: Var, start: LoopBound, end: LoopBound, body: Vec<Stmt>) -> Stmt {
    stmt(StmtKind::For {
        var: var.id,
        start,
        end,
        body: block(body),
    })
}

pub fn while_(cond: Expr, body: Vec<Stmt>) -> Stmt {
    stmt(StmtKind::While {
        cond,
        body: block(body),
    })
}

pub fn loop_(body: Vec<Stmt>) -> Stmt {
    stmt(StmtKind::Loop { body: block(body) })
}

pub fn brk() -> Stmt {
    stmt(StmtKind::Break)
}

pub fn cont() -> Stmt {
    stmt(StmtKind::Continue)
}

pub fn ret() -> Stmt {
    stmt(StmtKind::Return(None))
}

pub fn ret_val(e: Expr) -> Stmt {
    stmt(StmtKind::Return(Some(e)))
}

pub fn discard() -> Stmt {
    stmt(StmtKind::Discard)
}

// ---- data and runs ----

/// An `f32`-storage stream of `channels` channels.
pub fn floats(width: usize, height: usize, channels: usize, values: Vec<f32>) -> StreamData {
    StreamData {
        width,
        height,
        channels,
        buffer: StreamBuffer::F32(values),
    }
}

pub fn stream(data: StreamData) -> ParamData {
    ParamData::Input(data)
}

pub fn value(v: Value) -> ParamData {
    ParamData::Uniform(UniformValue::Value(v))
}

/// Runs the program's first kernel.
pub fn run(
    program: &Program,
    domain: (usize, usize),
    params: Vec<ParamData>,
) -> Result<KernelRun, RuntimeError> {
    run_with(program, domain, params, &RunOptions::default())
}

pub fn run_with(
    program: &Program,
    domain: (usize, usize),
    params: Vec<ParamData>,
    options: &RunOptions,
) -> Result<KernelRun, RuntimeError> {
    let args = KernelArgs { domain, params };
    interp::run_kernel(program, &program.kernels[0], &args, options)
}

/// Runs a program made of just `kernel` (and `functions`).
pub fn run_kernel(
    functions: Vec<Function>,
    kernel: Kernel,
    domain: (usize, usize),
    params: Vec<ParamData>,
) -> Result<KernelRun, RuntimeError> {
    run(&program(functions, vec![kernel], vec![]), domain, params)
}

/// The `f32` contents of the output named `name`.
pub fn output<'r>(run: &'r KernelRun, name: &str) -> &'r [f32] {
    let o = run
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no output `{name}`"));
    o.data.as_f32().expect("f32 output")
}
