//! Which early exits (`break`, `continue`, `return`, `discard`) a statement
//! may take, as seen from the statement's own block: exits consumed by a
//! loop inside the statement do not count, and a helper call cannot exit
//! its caller.

use ctm_frontend::tast::{self, Block, Expr, ExprKind, Stmt, StmtKind};

/// A set of exits.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Exits {
    /// Leaves the innermost loop.
    pub brk: bool,
    /// Skips to the next iteration of the innermost loop.
    pub cont: bool,
    /// Leaves the body being lowered (kernel or inlined function).
    pub ret: bool,
    /// Ends the element (kernels only).
    pub discard: bool,
}

impl Exits {
    /// No exit at all.
    pub fn is_empty(self) -> bool {
        self == Exits::default()
    }

    fn union(self, o: Exits) -> Exits {
        Exits {
            brk: self.brk || o.brk,
            cont: self.cont || o.cont,
            ret: self.ret || o.ret,
            discard: self.discard || o.discard,
        }
    }

    /// Exits that leave a loop's body through the loop statement itself.
    fn through_loop(self) -> Exits {
        Exits {
            brk: false,
            cont: false,
            ..self
        }
    }
}

/// Exits a statement may take.
pub fn of_stmt(s: &Stmt) -> Exits {
    let mut e = match &s.kind {
        StmtKind::Break => Exits {
            brk: true,
            ..Exits::default()
        },
        StmtKind::Continue => Exits {
            cont: true,
            ..Exits::default()
        },
        StmtKind::Return(_) => Exits {
            ret: true,
            ..Exits::default()
        },
        StmtKind::Discard => Exits {
            discard: true,
            ..Exits::default()
        },
        StmtKind::For { body, .. } | StmtKind::Loop { body } => of_block(body).through_loop(),
        StmtKind::While { cond, body } => of_expr(cond).union(of_block(body).through_loop()),
        _ => Exits::default(),
    };
    for x in tast::stmt_operands(s) {
        e = e.union(of_expr(x));
    }
    e
}

/// Exits a block may take.
pub fn of_block(b: &Block) -> Exits {
    let mut e = b
        .stmts
        .iter()
        .map(of_stmt)
        .fold(Exits::default(), Exits::union);
    if let Some(t) = &b.tail {
        e = e.union(of_expr(t));
    }
    e
}

/// Exits an expression may take (through the blocks of `if`s and block
/// expressions in it).
pub fn of_expr(x: &Expr) -> Exits {
    let mut e = match &x.kind {
        ExprKind::If { then, else_, .. } => of_block(then).union(of_block(else_)),
        ExprKind::Block(b) => of_block(b),
        _ => Exits::default(),
    };
    tast::for_each_operand(x, &mut |o| e = e.union(of_expr(o)));
    e
}

/// `true` if the statement always exits (it is a bare exit statement).
pub fn always_exits(s: &Stmt) -> bool {
    matches!(
        s.kind,
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) | StmtKind::Discard
    )
}
