//! The tree walker: runs statements and evaluates expressions of a
//! verified program ([`super::verify`]) for one element at a time.
//!
//! Every value computation goes through [`crate::numerics`]; this file only
//! moves values around, decides control flow and counts.
//!
//! - Locals live in one `Vec<Value>` stack per thread: the running item's
//!   frame starts at `base` and is indexed by [`LocalId`]. A call pushes its
//!   arguments and the callee's frame above the caller's and truncates them
//!   on return, so nothing is allocated per element once the stack has
//!   grown to the program's need.
//! - Control flow leaves a construct as an [`Escape`] in the `Err` side of
//!   a `Result`, so `?` carries `break`, `continue`, `return`, `discard` and
//!   the step limit outwards until the construct that handles each.
//! - `&&` and `||` short-circuit, as in Rust; everything else evaluates its
//!   operands left to right.

use super::stats::{Counts, OpKind};
use crate::builtins::Builtin;
use crate::data::StreamData;
use crate::numerics;
use crate::tast::{
    BinaryOp, Block, Expr, ExprKind, Kernel, LocalId, LoopBound, Program, Reduction, Stmt, StmtKind,
};
use crate::value::Value;

/// What a kernel parameter is bound to for a run (checked by
/// [`super::bind`] against the parameter's kind and type).
pub(crate) enum Binding<'a> {
    /// A value-type uniform.
    Value(Value),
    /// A `mat4` uniform, column-major.
    Mat4(&'a [f32; 16]),
    /// A uniform array, at least one element.
    Array(Vec<Value>),
    /// An input stream whose elements read as floats of `width` lanes.
    Input {
        /// The data.
        stream: &'a StreamData,
        /// Lanes of the value an element reads as.
        width: u8,
    },
    /// An `Out` parameter: index into [`Machine::outputs`].
    Output {
        /// Its slot among the kernel's `Out` parameters.
        slot: usize,
    },
    /// A `Scatter` parameter.
    Scatter {
        /// Its slot among the kernel's `Scatter` parameters.
        slot: u32,
    },
}

/// Everything shared by all elements of a run.
pub(crate) struct Env<'a> {
    /// The program (for helper functions).
    pub(crate) program: &'a Program,
    /// One binding per kernel parameter (none for reductions).
    pub(crate) params: Vec<Binding<'a>>,
    /// (width, height): `domain()` and the scatter bounds.
    pub(crate) domain: (usize, usize),
}

/// Why evaluation left a construct early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Escape {
    /// `break`: leaves the innermost loop.
    Break,
    /// `continue`: next iteration of the innermost loop.
    Continue,
    /// `return`: leaves the function (its value in [`Machine::ret`]) or
    /// ends the element.
    Return,
    /// `discard`: ends the element, dropping its `Out` values.
    Discard,
    /// The element ran past the step limit.
    StepLimit,
}

/// Evaluation result: a value, or an escape.
pub(crate) type Flow<T> = Result<T, Escape>;

/// How an element ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ElementEnd {
    /// Normally or by `return`: its `Out` values count.
    Done,
    /// By `discard`.
    Discarded,
    /// Past the step limit.
    StepLimit,
}

/// One scatter write, recorded so that writes can be applied in element
/// order after a parallel run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScatterWrite {
    /// Slot of the `Scatter` parameter.
    pub(crate) slot: u32,
    /// Row-major element index in the domain.
    pub(crate) index: usize,
    /// The value written.
    pub(crate) value: f32,
}

/// One thread's interpreter state, reused for every element it runs.
pub(crate) struct Machine<'a> {
    env: &'a Env<'a>,
    max_steps: u64,
    /// Frames of locals (and pushed call arguments).
    stack: Vec<Value>,
    /// Start of the running item's frame in `stack`.
    base: usize,
    /// Steps of the current element.
    steps: u64,
    /// (i, j) of the current element.
    pos: (usize, usize),
    /// The value of the last `return`.
    ret: Value,
    /// Operations counted so far.
    pub(crate) counts: Counts,
    /// The current element's `Out` values by slot (`Unit`: not written).
    pub(crate) outputs: Vec<Value>,
    /// Scatter writes in execution order.
    pub(crate) scatters: Vec<ScatterWrite>,
}

impl<'a> Machine<'a> {
    /// A machine for `env` with `outputs` `Out` slots.
    pub(crate) fn new(env: &'a Env<'a>, max_steps: u64, outputs: usize) -> Machine<'a> {
        Machine {
            env,
            max_steps,
            stack: Vec::new(),
            base: 0,
            steps: 0,
            pos: (0, 0),
            ret: Value::Unit,
            counts: Counts::default(),
            outputs: vec![Value::Unit; outputs],
            scatters: Vec::new(),
        }
    }

    /// Starts element `(i, j)`: its step count begins at zero.
    pub(crate) fn start_element(&mut self, i: usize, j: usize) {
        self.pos = (i, j);
        self.steps = 0;
    }

    /// Runs `kernel`'s body for the element started last.
    pub(crate) fn run_kernel_body(&mut self, kernel: &Kernel) -> ElementEnd {
        self.enter_frame(kernel.locals.len());
        self.outputs.fill(Value::Unit);
        match self.exec_block(&kernel.body) {
            // `break`/`continue` cannot leave the body (verified).
            Ok(_) | Err(Escape::Return | Escape::Break | Escape::Continue) => ElementEnd::Done,
            Err(Escape::Discard) => ElementEnd::Discarded,
            Err(Escape::StepLimit) => ElementEnd::StepLimit,
        }
    }

    /// Runs `reduction`'s body on `(a, b)`; its steps count towards the
    /// element started last. The only possible escape is the step limit.
    pub(crate) fn combine(&mut self, reduction: &Reduction, a: Value, b: Value) -> Flow<Value> {
        self.enter_frame(reduction.locals.len());
        let [pa, pb] = reduction.params;
        self.set(pa, a);
        self.set(pb, b);
        match self.exec_block(&reduction.body) {
            Ok(v) => Ok(v),
            Err(Escape::Return) => Ok(self.ret),
            Err(e) => Err(e),
        }
    }

    /// Counts an operation done on the walker's behalf (reduction reads
    /// and writes).
    pub(crate) fn count(&mut self, kind: OpKind) {
        self.counts.bump(kind);
    }

    /// A fresh bottom frame of `locals` locals.
    fn enter_frame(&mut self, locals: usize) {
        self.base = 0;
        self.stack.clear();
        self.stack.resize(locals, Value::Unit);
    }

    fn set(&mut self, local: LocalId, v: Value) {
        self.stack[self.base + local.index()] = v;
    }

    /// One step (a statement, a loop iteration or a helper call).
    #[inline]
    fn step(&mut self) -> Flow<()> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(Escape::StepLimit);
        }
        Ok(())
    }

    fn exec_block(&mut self, block: &Block) -> Flow<Value> {
        for st in &block.stmts {
            self.exec_stmt(st)?;
        }
        match &block.tail {
            Some(tail) => self.eval(tail),
            None => Ok(Value::Unit),
        }
    }

    /// Runs a loop body once; `Ok(true)` to go on, `Ok(false)` after a
    /// `break`.
    fn iterate(&mut self, body: &Block) -> Flow<bool> {
        self.step()?;
        match self.exec_block(body) {
            Ok(_) | Err(Escape::Continue) => Ok(true),
            Err(Escape::Break) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn exec_stmt(&mut self, st: &Stmt) -> Flow<()> {
        self.step()?;
        let env = self.env;
        match &st.kind {
            StmtKind::Let { local, init } => {
                let v = self.eval(init)?;
                self.set(*local, v);
            }
            StmtKind::Assign {
                local,
                lanes,
                value,
            } => {
                let v = self.eval(value)?;
                let slot = &mut self.stack[self.base + local.index()];
                *slot = match lanes {
                    None => v,
                    Some(lanes) => numerics::write_lanes(slot, lanes.lanes(), &v),
                };
            }
            StmtKind::Expr(e) => {
                self.eval(e)?;
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                // Bounds are read once, at entry.
                let (start, end) = (self.bound(*start), self.bound(*end));
                for k in start..end {
                    self.set(*var, Value::I32(k));
                    if !self.iterate(body)? {
                        break;
                    }
                }
            }
            StmtKind::While { cond, body } => {
                while self.eval(cond)?.as_bool() {
                    if !self.iterate(body)? {
                        break;
                    }
                }
            }
            StmtKind::Loop { body } => while self.iterate(body)? {},
            StmtKind::Break => return Err(Escape::Break),
            StmtKind::Continue => return Err(Escape::Continue),
            StmtKind::Return(value) => {
                self.ret = match value {
                    Some(e) => self.eval(e)?,
                    None => Value::Unit,
                };
                return Err(Escape::Return);
            }
            StmtKind::Discard => return Err(Escape::Discard),
            StmtKind::WriteOutput { param, value } => {
                let v = self.eval(value)?;
                self.counts.bump(OpKind::Output);
                if let Binding::Output { slot } = env.params[param.index()] {
                    self.outputs[slot] = v;
                }
            }
            StmtKind::Scatter { param, pos, value } => {
                let p = self.eval(pos)?;
                let v = self.eval(value)?;
                self.counts.bump(OpKind::Scatter);
                if let Binding::Scatter { slot } = env.params[param.index()]
                    && let Some(index) = scatter_index(&p, env.domain)
                {
                    self.scatters.push(ScatterWrite {
                        slot,
                        index,
                        value: v.as_f32(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The value of a `for` bound.
    fn bound(&self, bound: LoopBound) -> i32 {
        match bound {
            LoopBound::Const(k) => k,
            LoopBound::Uniform(p) => match self.env.params[p.index()] {
                Binding::Value(v) => v.as_i32(),
                _ => 0,
            },
        }
    }

    fn eval(&mut self, e: &Expr) -> Flow<Value> {
        let env = self.env;
        let value = match &e.kind {
            ExprKind::Literal(v) => *v,
            ExprKind::Local(l) => self.stack[self.base + l.index()],
            ExprKind::Uniform(p) => {
                self.counts.bump(OpKind::Uniform);
                match env.params[p.index()] {
                    Binding::Value(v) => v,
                    _ => Value::Unit,
                }
            }
            ExprKind::UniformElement { param, index } => {
                let k = self.eval(index)?.as_i32();
                self.counts.bump(OpKind::Uniform);
                match &env.params[param.index()] {
                    Binding::Array(items) => {
                        // Clamped to the array (spec decision); negative
                        // indices fail the conversion and give 0.
                        let last = items.len().saturating_sub(1);
                        let at = usize::try_from(k).map_or(0, |k| k.min(last));
                        items.get(at).copied().unwrap_or(Value::Unit)
                    }
                    _ => Value::Unit,
                }
            }
            ExprKind::Input(p) => {
                self.counts.bump(OpKind::Input);
                read(&env.params[p.index()], self.pos.0 as i64, self.pos.1 as i64)
            }
            ExprKind::Gather { param, pos } => {
                let p = lanes4(&self.eval(pos)?);
                self.counts.bump(OpKind::Gather);
                read(
                    &env.params[param.index()],
                    coordinate(p[0]),
                    coordinate(p[1]),
                )
            }
            ExprKind::Builtin { func, args } => self.builtin(*func, args)?,
            ExprKind::Splat(x) => {
                let v = self.eval(x)?;
                self.counts.bump(OpKind::Splat);
                numerics::splat(&v, e.ty.float_width().unwrap_or(1))
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                self.counts.bump(OpKind::unary(*op));
                numerics::eval_unary(*op, &v)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.eval(lhs)?;
                let v = match op {
                    // Short-circuit, as Rust: the right operand is not
                    // evaluated when the left decides.
                    BinaryOp::And if !a.as_bool() => Value::Bool(false),
                    BinaryOp::Or if a.as_bool() => Value::Bool(true),
                    _ => {
                        let b = self.eval(rhs)?;
                        numerics::eval_binary(*op, &a, &b)
                    }
                };
                self.counts.bump(OpKind::binary(*op));
                v
            }
            ExprKind::MatVec { mat, vec } => {
                let v = lanes4(&self.eval(vec)?);
                self.counts.bump(OpKind::MatVec);
                match env.params[mat.index()] {
                    Binding::Mat4(m) => numerics::mat_vec(m, &v),
                    _ => Value::Unit,
                }
            }
            ExprKind::VecMat { vec, mat } => {
                let v = lanes4(&self.eval(vec)?);
                self.counts.bump(OpKind::VecMat);
                match env.params[mat.index()] {
                    Binding::Mat4(m) => numerics::vec_mat(&v, m),
                    _ => Value::Unit,
                }
            }
            ExprKind::Cast(x) => {
                let v = self.eval(x)?;
                self.counts.bump(OpKind::Cast);
                numerics::eval_cast(&v, e.ty)
            }
            ExprKind::Call { func, args } => self.call(*func, args)?,
            ExprKind::Swizzle { base, lanes } => {
                let v = self.eval(base)?;
                self.counts.bump(OpKind::Swizzle);
                numerics::swizzle(&v, lanes.lanes())
            }
            ExprKind::Construct(parts) => {
                let mut values = [Value::Unit; 4];
                for (slot, part) in values.iter_mut().zip(parts) {
                    *slot = self.eval(part)?;
                }
                self.counts.bump(OpKind::Construct);
                let n = parts.len().min(4);
                numerics::construct(&values[..n], e.ty.float_width().unwrap_or(1))
            }
            ExprKind::If { cond, then, else_ } => {
                if self.eval(cond)?.as_bool() {
                    self.exec_block(then)?
                } else {
                    self.exec_block(else_)?
                }
            }
            ExprKind::Block(block) => self.exec_block(block)?,
        };
        Ok(value)
    }

    fn builtin(&mut self, func: Builtin, args: &[Expr]) -> Flow<Value> {
        let value = match func {
            Builtin::Index => position(self.pos),
            Builtin::Domain => position(self.env.domain),
            _ => {
                // Built-ins take at most 3 arguments (arity verified).
                let mut values = [Value::Unit; 3];
                for (slot, arg) in values.iter_mut().zip(args) {
                    *slot = self.eval(arg)?;
                }
                let values = &values[..args.len().min(3)];
                if well_shaped(func, values) {
                    numerics::eval_builtin(func, values)
                } else {
                    Value::Unit
                }
            }
        };
        self.counts.bump_builtin(func);
        Ok(value)
    }

    /// A helper call: arguments in order, then the body in a new frame.
    fn call(&mut self, func: crate::tast::FuncId, args: &[Expr]) -> Flow<Value> {
        let f = self.env.program.function(func);
        let args_at = self.stack.len();
        for arg in args {
            match self.eval(arg) {
                Ok(v) => self.stack.push(v),
                Err(e) => {
                    self.stack.truncate(args_at);
                    return Err(e);
                }
            }
        }
        self.counts.bump(OpKind::Call);
        // A call is a step too: helpers whose bodies are one expression
        // would otherwise call each other 2^n times without one (issue 13).
        if let Err(e) = self.step() {
            self.stack.truncate(args_at);
            return Err(e);
        }
        let frame = self.stack.len();
        self.stack.resize(frame + f.locals.len(), Value::Unit);
        for (k, p) in f.params.iter().enumerate() {
            self.stack[frame + p.index()] = self.stack[args_at + k];
        }
        let caller = std::mem::replace(&mut self.base, frame);
        let result = self.exec_block(&f.body);
        self.base = caller;
        self.stack.truncate(args_at);
        match result {
            Err(Escape::Return) => Ok(self.ret),
            other => other,
        }
    }
}

/// The element of the stream bound by `binding` at `(i, j)`, clamped to
/// the stream's edges by [`StreamData::read`].
fn read(binding: &Binding, i: i64, j: i64) -> Value {
    match binding {
        Binding::Input { stream, width } => Value::Float {
            lanes: stream.read(i, j),
            width: *width,
        },
        _ => Value::Unit,
    }
}

/// A gather or scatter coordinate: rounded down (through the language's
/// `floor`, so a negative denormal counts as zero), NaN as 0, infinities
/// and huge values saturated (Rust's float-to-int `as`).
fn coordinate(x: f32) -> i64 {
    numerics::coordinate(x)
}

/// The row-major index of scatter position `p` in `domain`, or `None` if it
/// lies outside (or is NaN).
fn scatter_index(p: &Value, (width, height): (usize, usize)) -> Option<usize> {
    let l = lanes4(p);
    if l[0].is_nan() || l[1].is_nan() {
        return None;
    }
    let x = usize::try_from(coordinate(l[0]))
        .ok()
        .filter(|&x| x < width)?;
    let y = usize::try_from(coordinate(l[1]))
        .ok()
        .filter(|&y| y < height)?;
    Some(y * width + x)
}

/// `vec2(a as f32, b as f32)`: an element position or the domain size.
fn position((a, b): (usize, usize)) -> Value {
    Value::floats(&[a as f32, b as f32])
}

/// All four lanes of a float value (zeros for other values).
fn lanes4(v: &Value) -> [f32; 4] {
    match v {
        Value::Float { lanes, .. } => *lanes,
        _ => [0.0; 4],
    }
}

/// Whether `args` have the shapes the geometric built-ins index into
/// (the others accept any values without panicking).
fn well_shaped(func: Builtin, args: &[Value]) -> bool {
    let lanes = |k: usize| args.get(k).map_or(0, |v: &Value| v.lanes().len());
    match func {
        Builtin::Dot | Builtin::Distance => lanes(0) > 0 && lanes(1) > 0,
        Builtin::Length | Builtin::Normalize => lanes(0) > 0,
        Builtin::Cross => lanes(0) >= 3 && lanes(1) >= 3,
        _ => args.len() == func.info().arity,
    }
}
