//! The untyped abstract syntax tree produced by the parser.
//!
//! Every node carries the [`Span`] of the source it came from. The tree is a
//! faithful picture of the text (no desugaring): compound assignments,
//! swizzle writes and `if` expressions appear as written. Name resolution and
//! type checking (`check`) turn it into the typed tree of [`crate::tast`].

use crate::span::Span;

/// A whole source file: its items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    /// Items in source order.
    pub items: Vec<Item>,
}

/// A name with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name as written.
    pub name: String,
    /// Where it was written.
    pub span: Span,
}

/// A top-level item (spec §2).
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `const NAME: T = expr;`
    Const(ConstItem),
    /// `fn name(params) -> T { body }`
    Fn(FnItem),
    /// `kernel name(params) { body }`
    Kernel(KernelItem),
    /// `reduce name(a: T, b: T) -> T { body }`
    Reduce(ReduceItem),
}

impl Item {
    /// The item's name.
    pub fn name(&self) -> &Ident {
        match self {
            Item::Const(c) => &c.name,
            Item::Fn(f) => &f.name,
            Item::Kernel(k) => &k.name,
            Item::Reduce(r) => &r.name,
        }
    }

    /// The span of the whole item.
    pub fn span(&self) -> Span {
        match self {
            Item::Const(c) => c.span,
            Item::Fn(f) => f.span,
            Item::Kernel(k) => k.span,
            Item::Reduce(r) => r.span,
        }
    }
}

/// `const NAME: T = expr;`
#[derive(Clone, Debug, PartialEq)]
pub struct ConstItem {
    /// The constant's name.
    pub name: Ident,
    /// Its declared type.
    pub ty: TypeExpr,
    /// Its value, evaluated at compile time.
    pub value: Expr,
    /// The whole item.
    pub span: Span,
}

/// `fn name(params) -> T { body }`; a missing `-> T` means `()`.
#[derive(Clone, Debug, PartialEq)]
pub struct FnItem {
    /// The function's name.
    pub name: Ident,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Declared result type, if any.
    pub ret: Option<TypeExpr>,
    /// The body; its tail expression (or `return`) gives the result.
    pub body: Block,
    /// The whole item.
    pub span: Span,
}

/// `kernel name(params) { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct KernelItem {
    /// The kernel's name.
    pub name: Ident,
    /// Parameters: uniforms and streams.
    pub params: Vec<Param>,
    /// The body.
    pub body: Block,
    /// The whole item.
    pub span: Span,
}

/// `reduce name(a: T, b: T) -> T { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceItem {
    /// The reduction's name.
    pub name: Ident,
    /// Parameters (exactly two, of the result type, when well formed).
    pub params: Vec<Param>,
    /// Declared result type.
    pub ret: TypeExpr,
    /// The combining body.
    pub body: Block,
    /// The whole item.
    pub span: Span,
}

/// `[mut] name: T`
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `mut` was written (allowed on helper-function parameters).
    pub mutable: bool,
    /// Parameter name.
    pub name: Ident,
    /// Parameter type.
    pub ty: TypeExpr,
    /// The whole parameter.
    pub span: Span,
}

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// What was written.
    pub kind: TypeExprKind,
    /// Where.
    pub span: Span,
}

/// The shapes a written type can take.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    /// A plain name: `f32`, `vec3`, `unorm8x4`, ... (checked later).
    Named(Ident),
    /// `Name<T>`: `In<T>`, `Out<T>`, `Scatter<T>`.
    Generic {
        /// `In`, `Out` or `Scatter` when well formed.
        name: Ident,
        /// The element type.
        arg: Box<TypeExpr>,
    },
    /// `[T; N]`; `N` is a constant expression.
    Array {
        /// Element type.
        elem: Box<TypeExpr>,
        /// Length, an integer constant expression.
        len: Box<Expr>,
    },
    /// `()`.
    Unit,
    /// A type the parser could not read (after an error was reported).
    Error,
}

/// `{ stmts; tail }`
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The final expression without `;`, which is the block's value.
    pub tail: Option<Box<Expr>>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What kind of statement.
    pub kind: StmtKind,
    /// The whole statement, including its `;`.
    pub span: Span,
}

/// Statement forms (spec §5).
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let [mut] name[: T] [= init];`
    Let {
        /// `mut` was written.
        mutable: bool,
        /// The new variable.
        name: Ident,
        /// Optional type annotation.
        ty: Option<TypeExpr>,
        /// Initialiser (required by the checker).
        init: Option<Expr>,
    },
    /// `place op= value;` where `place` is a name, a swizzle of a name, or
    /// an index expression (scatter write `s[p] = v`).
    Assign {
        /// The assigned place, as an expression.
        target: Expr,
        /// `=`, `+=`, ...
        op: AssignOp,
        /// The right-hand side.
        value: Expr,
    },
    /// An expression used as a statement, e.g. an `if` or a block.
    Expr(Expr),
    /// `for var in start..end { body }`
    For {
        /// The loop variable (an `i32`).
        var: Ident,
        /// Range start.
        start: Expr,
        /// Range end (exclusive).
        end: Expr,
        /// Loop body.
        body: Block,
    },
    /// `while cond { body }`
    While {
        /// Condition, checked before every iteration.
        cond: Expr,
        /// Loop body.
        body: Block,
    },
    /// `loop { body }`
    Loop {
        /// Loop body.
        body: Block,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return [value];`
    Return(Option<Expr>),
    /// `discard;`
    Discard,
}

/// Assignment operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    /// `=`
    Assign,
    /// `op=` for a binary operator.
    Compound(BinaryOp),
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The expression's form.
    pub kind: ExprKind,
    /// Its source range.
    pub span: Span,
}

/// Expression forms (spec §6).
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A float literal, already rounded to f32 (`1.0`, `1e-3`, `2.5f32`).
    Float(f32),
    /// An integer literal (`42`, `0x2A`, `0b101`, `1_000i32`) before range
    /// checking, which depends on context (`-2147483648`).
    Int {
        /// The literal's value.
        value: u64,
        /// Written in hexadecimal or binary (allowed up to `u32::MAX`, read
        /// as a two's complement bit pattern).
        radix: IntRadix,
    },
    /// `true` or `false`.
    Bool(bool),
    /// A name: a local, parameter or constant.
    Name(Ident),
    /// `-x`, `!x`
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a op b`
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `x as T`
    Cast {
        /// The value converted.
        operand: Box<Expr>,
        /// The target type.
        ty: TypeExpr,
    },
    /// `f(args)`: a built-in, a constructor or a helper function.
    Call {
        /// The function's name.
        callee: Ident,
        /// Arguments in order.
        args: Vec<Expr>,
    },
    /// `x.field`: a swizzle such as `.x`, `.xyz`, `.rgba`.
    Field {
        /// The vector.
        base: Box<Expr>,
        /// The swizzle as written.
        field: Ident,
    },
    /// `x[i]`: uniform-array element, gather, or (as an assignment target)
    /// scatter position.
    Index {
        /// The array or stream.
        base: Box<Expr>,
        /// The index or position.
        index: Box<Expr>,
    },
    /// `if cond { .. } else { .. }`; `else if` chains nest in `else_`.
    If {
        /// The condition.
        cond: Box<Expr>,
        /// The `then` block.
        then: Block,
        /// The `else` branch: a block expression or another `if`.
        else_: Option<Box<Expr>>,
    },
    /// `{ ... }`
    Block(Block),
    /// A placeholder left by error recovery; never reported twice.
    Error,
}

/// How an integer literal was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntRadix {
    /// Decimal.
    Decimal,
    /// `0x` or `0b` (or `0o`).
    NonDecimal,
}

/// Prefix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-`
    Neg,
    /// `!`: logical not on `bool`, bitwise not on `i32`.
    Not,
}

/// Infix operators, in the spec's precedence groups (§6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// Binding strength, higher binds tighter (spec §6). Comparisons are
    /// non-associative.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 10,
            BinaryOp::Add | BinaryOp::Sub => 9,
            BinaryOp::Shl | BinaryOp::Shr => 8,
            BinaryOp::BitAnd => 7,
            BinaryOp::BitXor => 6,
            BinaryOp::BitOr => 5,
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge => 4,
            BinaryOp::And => 3,
            BinaryOp::Or => 2,
        }
    }

    /// `true` for `== != < <= > >=`.
    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }

    /// `true` for the operators x1k cannot run on `i32` (spec §3):
    /// `/ % & | ^ << >>`.
    pub fn is_integer_only_on_r700(self) -> bool {
        matches!(
            self,
            BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr
        )
    }
}
