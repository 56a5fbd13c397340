//! The typed AST: the checked program that the reference interpreter runs
//! and that `ctm-ir` lowers.
//!
//! Produced only by [`crate::check`], which guarantees:
//!
//! - every name is resolved: locals to [`LocalId`]s of their function,
//!   kernel parameters to [`ParamId`]s, helper calls to [`FuncId`]s;
//!   `const` items are folded into [`ExprKind::Literal`]s;
//! - every expression has its [`Type`]; operands of arithmetic have equal
//!   types (a scalar broadcast to a vector is an explicit [`ExprKind::Splat`]);
//!   comparisons have scalar operands; no implicit int/float conversion;
//! - compound assignments and swizzle writes are plain [`StmtKind::Assign`]s
//!   of a whole value or of some lanes, with the value already computed
//!   (`v.xy += e` is `v.xy = v.xy + e`);
//! - `break`/`continue` are inside loops, `discard` and stream access inside
//!   kernels, every `Out` is assigned on every path that does not `discard`,
//!   helper functions are not recursive, and the target's rules hold.
//!
//! Expressions have no side effects; statement order is program order.

use crate::span::Span;
use crate::types::{OutputType, StreamType, Type};
use crate::value::Value;

pub use crate::ast::{BinaryOp, UnaryOp};
pub use crate::builtins::Builtin;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its table.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A local variable (including parameters of functions and reductions
    /// and loop variables) of the enclosing function, kernel or reduction.
    LocalId,
    "l"
);
id_type!(
    /// A kernel parameter, indexing [`Kernel::params`].
    ParamId,
    "p"
);
id_type!(
    /// A helper function, indexing [`Program::functions`].
    FuncId,
    "fn"
);

/// A checked program: every item of the file, checked for one target.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Helper functions, indexed by [`FuncId`].
    pub functions: Vec<Function>,
    /// Kernels in source order.
    pub kernels: Vec<Kernel>,
    /// Reductions in source order.
    pub reductions: Vec<Reduction>,
    /// The `const` items with their folded values (for printing).
    pub consts: Vec<ConstDef>,
}

impl Program {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The reduction named `name`.
    pub fn reduction(&self, name: &str) -> Option<&Reduction> {
        self.reductions.iter().find(|r| r.name == name)
    }

    /// The helper function with id `id`.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }
}

/// A folded `const` item.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstDef {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: Value,
    /// The item's span.
    pub span: Span,
}

/// A local variable's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    /// Name as written (for printing; identity is the [`LocalId`]).
    pub name: String,
    /// Its type (always a value type).
    pub ty: Type,
    /// Declared `mut`.
    pub mutable: bool,
    /// Where it was declared.
    pub span: Span,
}

/// A helper function, inlined at every call.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// The parameters, which are its first locals.
    pub params: Vec<LocalId>,
    /// The result type (`Unit` if none).
    pub ret: Type,
    /// All locals, indexed by [`LocalId`].
    pub locals: Vec<Local>,
    /// The body; its tail, or a `return`, gives the result.
    pub body: Block,
    /// The item's span.
    pub span: Span,
}

/// An entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// Parameters, indexed by [`ParamId`].
    pub params: Vec<KernelParam>,
    /// All locals, indexed by [`LocalId`].
    pub locals: Vec<Local>,
    /// The body.
    pub body: Block,
    /// The item's span.
    pub span: Span,
}

impl Kernel {
    /// The parameter with id `id`.
    pub fn param(&self, id: ParamId) -> &KernelParam {
        &self.params[id.index()]
    }

    /// Ids of the parameters that satisfy `pred`, in order.
    pub fn params_where(&self, pred: impl Fn(&ParamKind) -> bool) -> Vec<ParamId> {
        (0..self.params.len() as u32)
            .map(ParamId)
            .filter(|&p| pred(&self.params[p.index()].kind))
            .collect()
    }
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    /// Its name.
    pub name: String,
    /// What it is.
    pub kind: ParamKind,
    /// Where it was declared.
    pub span: Span,
}

/// The four kinds of kernel parameters (spec §4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// A uniform of a value type, `mat4` or an array.
    Uniform(Type),
    /// `In<T>`.
    Input(StreamType),
    /// `Out<T>`.
    Output(OutputType),
    /// `Scatter<f32>`.
    Scatter,
}

/// A reduction: `reduce name(a: T, b: T) -> T { body }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    /// Its name.
    pub name: String,
    /// The element type `T` (`f32`, `vec2` or `vec4`).
    pub ty: Type,
    /// The two parameters, locals 0 and 1.
    pub params: [LocalId; 2],
    /// All locals.
    pub locals: Vec<Local>,
    /// The combining body.
    pub body: Block,
    /// The item's span.
    pub span: Span,
}

/// A block: statements, then an optional value.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block; `None` means `()`.
    pub tail: Option<Box<Expr>>,
    /// Source span.
    pub span: Span,
}

impl Block {
    /// The block's type: its tail's, or `Unit`.
    pub fn ty(&self) -> Type {
        self.tail.as_ref().map_or(Type::Unit, |t| t.ty)
    }
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// The statement.
    pub kind: StmtKind,
    /// Source span.
    pub span: Span,
}

/// Checked statements.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// Declare `local` and initialise it.
    Let {
        /// The new local.
        local: LocalId,
        /// Its initial value.
        init: Expr,
    },
    /// Assign a whole local (`lanes: None`) or some of its lanes.
    Assign {
        /// The local assigned.
        local: LocalId,
        /// Lanes written, distinct, in the order `value`'s lanes go to.
        lanes: Option<Swizzle>,
        /// The value: of the local's type, or of the swizzle's width.
        value: Expr,
    },
    /// An expression evaluated for its effects (an `if`, a block).
    Expr(Expr),
    /// `for var in start..end`: `var` takes `start, start+1, .. end-1`.
    For {
        /// The loop variable (`i32`, immutable).
        var: LocalId,
        /// First value.
        start: LoopBound,
        /// One past the last value.
        end: LoopBound,
        /// The body.
        body: Block,
    },
    /// `while cond { body }`
    While {
        /// Checked before every iteration.
        cond: Expr,
        /// The body.
        body: Block,
    },
    /// `loop { body }`
    Loop {
        /// The body.
        body: Block,
    },
    /// Leave the innermost loop.
    Break,
    /// Next iteration of the innermost loop.
    Continue,
    /// Leave the function (with its value) or end the element (kernels).
    Return(Option<Expr>),
    /// End the element without writing any `Out`.
    Discard,
    /// `out = value;`
    WriteOutput {
        /// An `Out` parameter.
        param: ParamId,
        /// The value, of the output's type.
        value: Expr,
    },
    /// `scatter[pos] = value;`
    Scatter {
        /// A `Scatter` parameter.
        param: ParamId,
        /// Position (`vec2`, rounded down; outside the domain: dropped).
        pos: Expr,
        /// The value (`f32`).
        value: Expr,
    },
}

/// A `for` bound: an integer constant or an `i32` uniform (spec §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopBound {
    /// A compile-time constant.
    Const(i32),
    /// The value of an `i32` uniform.
    Uniform(ParamId),
}

/// A typed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The form.
    pub kind: ExprKind,
    /// Its type (a value type or `Unit`).
    pub ty: Type,
    /// Source span.
    pub span: Span,
}

/// Checked expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant value (literals and folded `const` items).
    Literal(Value),
    /// A local's current value.
    Local(LocalId),
    /// A uniform of a value type.
    Uniform(ParamId),
    /// Element `index` (an `i32`) of a uniform array; out-of-range indices
    /// clamp to the array (see `docs/language-decisions.md`).
    UniformElement {
        /// The array uniform.
        param: ParamId,
        /// The element index.
        index: Box<Expr>,
    },
    /// An input stream's element at the current position.
    Input(ParamId),
    /// An input stream's element at `pos` (rounded down, clamped to edge).
    Gather {
        /// The input stream.
        param: ParamId,
        /// Position, a `vec2`.
        pos: Box<Expr>,
    },
    /// `index()` or `domain()` and the other built-ins.
    Builtin {
        /// Which.
        func: Builtin,
        /// Arguments, already broadcast to the result width where the
        /// built-in is per-lane.
        args: Vec<Expr>,
    },
    /// A scalar `f32` repeated into every lane of the vector type `ty`.
    Splat(Box<Expr>),
    /// A prefix operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand, of the result's type.
        operand: Box<Expr>,
    },
    /// An infix operator with operands of equal type.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `m * v`: a `mat4` uniform times a `vec4`.
    MatVec {
        /// The matrix uniform.
        mat: ParamId,
        /// The vector.
        vec: Box<Expr>,
    },
    /// `v * m`: a `vec4` times a `mat4` uniform (row vector).
    VecMat {
        /// The vector.
        vec: Box<Expr>,
        /// The matrix uniform.
        mat: ParamId,
    },
    /// `x as T`, `T` being the expression's type.
    Cast(Box<Expr>),
    /// A helper-function call.
    Call {
        /// The function.
        func: FuncId,
        /// Arguments, one per parameter.
        args: Vec<Expr>,
    },
    /// Selected lanes of a float vector (or of an `f32`, `.x` only).
    Swizzle {
        /// The vector read.
        base: Box<Expr>,
        /// Lanes, in result order.
        lanes: Swizzle,
    },
    /// `vecN(..)`: the arguments' lanes concatenated (a single `f32`
    /// argument is a [`ExprKind::Splat`] instead).
    Construct(Vec<Expr>),
    /// `if cond { then } else { else_ }`; both blocks have the
    /// expression's type (an `if` without `else` has an empty `else_`).
    If {
        /// A `bool`.
        cond: Box<Expr>,
        /// Taken when `cond` is true.
        then: Block,
        /// Taken otherwise.
        else_: Block,
    },
    /// A block in expression position.
    Block(Block),
}

/// A swizzle: 1 to 4 lane numbers (0 = x, 1 = y, 2 = z, 3 = w).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle {
    lanes: [u8; 4],
    len: u8,
}

impl Swizzle {
    /// A swizzle of the given lanes.
    ///
    /// # Panics
    /// If `lanes` is empty, longer than 4, or names a lane above 3.
    pub fn new(lanes: &[u8]) -> Swizzle {
        assert!(!lanes.is_empty() && lanes.len() <= 4);
        let mut l = [0; 4];
        for (i, &c) in lanes.iter().enumerate() {
            assert!(c < 4);
            l[i] = c;
        }
        Swizzle {
            lanes: l,
            len: lanes.len() as u8,
        }
    }

    /// The lanes in order.
    pub fn lanes(&self) -> &[u8] {
        &self.lanes[..self.len as usize]
    }

    /// Number of lanes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Always `false`: swizzles have at least one lane.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl std::fmt::Debug for Swizzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &l in self.lanes() {
            f.write_str(["x", "y", "z", "w"][l as usize])?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Swizzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// Calls `f` on the direct operands of `e` (for an `if`, its condition;
/// the expressions inside blocks are not direct operands).
pub fn for_each_operand<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Local(_) | ExprKind::Uniform(_) | ExprKind::Input(_) => {}
        ExprKind::UniformElement { index: x, .. }
        | ExprKind::Gather { pos: x, .. }
        | ExprKind::Splat(x)
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::MatVec { vec: x, .. }
        | ExprKind::VecMat { vec: x, .. }
        | ExprKind::Cast(x)
        | ExprKind::Swizzle { base: x, .. } => f(x),
        ExprKind::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Builtin { args, .. }
        | ExprKind::Call { args, .. }
        | ExprKind::Construct(args) => args.iter().for_each(f),
        ExprKind::If { cond, .. } => f(cond),
        ExprKind::Block(_) => {}
    }
}

/// The expressions a statement evaluates directly (not those in its
/// nested blocks), in evaluation order.
pub fn stmt_operands(s: &Stmt) -> impl Iterator<Item = &Expr> {
    let (a, b) = match &s.kind {
        StmtKind::Let { init: e, .. }
        | StmtKind::Assign { value: e, .. }
        | StmtKind::Expr(e)
        | StmtKind::WriteOutput { value: e, .. }
        | StmtKind::Return(Some(e))
        | StmtKind::While { cond: e, .. } => (Some(e), None),
        StmtKind::Scatter { pos, value, .. } => (Some(pos), Some(value)),
        _ => (None, None),
    };
    a.into_iter().chain(b)
}

/// The blocks nested directly in a statement (loop bodies).
fn stmt_blocks(s: &Stmt) -> Option<&Block> {
    match &s.kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Loop { body } => {
            Some(body)
        }
        _ => None,
    }
}

/// Calls `f` on every expression of `block`, parents before children,
/// including expressions nested in statements and in the blocks of `if`
/// and block expressions.
pub fn walk_block<'e>(block: &'e Block, f: &mut dyn FnMut(&'e Expr)) {
    for s in &block.stmts {
        walk_stmt(s, f);
    }
    if let Some(t) = &block.tail {
        walk_expr(t, f);
    }
}

/// Calls `f` on every expression of a statement (see [`walk_block`]).
pub fn walk_stmt<'e>(s: &'e Stmt, f: &mut dyn FnMut(&'e Expr)) {
    for e in stmt_operands(s) {
        walk_expr(e, f);
    }
    if let Some(b) = stmt_blocks(s) {
        walk_block(b, f);
    }
}

/// Calls `f` on `e` and then on every expression inside it.
pub fn walk_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) {
    f(e);
    for_each_operand(e, &mut |x| walk_expr(x, f));
    match &e.kind {
        ExprKind::If { then, else_, .. } => {
            walk_block(then, f);
            walk_block(else_, f);
        }
        ExprKind::Block(b) => walk_block(b, f),
        _ => {}
    }
}

/// Calls `f` on every statement of `block` and of every block nested in it
/// (loop bodies, `if` branches, block expressions), parents first.
pub fn walk_stmts<'e>(block: &'e Block, f: &mut dyn FnMut(&'e Stmt)) {
    fn in_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Stmt)) {
        for_each_operand(e, &mut |x| in_expr(x, f));
        match &e.kind {
            ExprKind::If { then, else_, .. } => {
                walk_stmts(then, f);
                walk_stmts(else_, f);
            }
            ExprKind::Block(b) => walk_stmts(b, f),
            _ => {}
        }
    }
    for s in &block.stmts {
        f(s);
        for e in stmt_operands(s) {
            in_expr(e, f);
        }
        if let Some(b) = stmt_blocks(s) {
            walk_stmts(b, f);
        }
    }
    if let Some(t) = &block.tail {
        in_expr(t, f);
    }
}
