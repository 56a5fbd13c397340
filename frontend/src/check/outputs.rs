//! Definite assignment of outputs (spec §4): every `Out` parameter must be
//! assigned on every path that ends the element normally (the end of the
//! body or a `return;`); paths that `discard` need not assign anything.
//!
//! A forward data-flow over the structured tree: the state is the set of
//! outputs certainly assigned (a bit per `Out` parameter), or "unreachable"
//! after `return`, `break`, `continue` and `discard`. Branches meet by
//! intersection; a `for` or `while` body may run zero times, so the state
//! after it is the state before it; the state after a `loop` is the
//! intersection of the states at its `break`s.

use crate::diag::{Code, Diagnostic};
use crate::tast::{self, Block, Expr, ExprKind, Kernel, ParamKind, Stmt, StmtKind};

/// Assigned-output bits, `None` where control cannot reach.
type State = Option<u128>;

fn meet(a: State, b: State) -> State {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(a & b),
    }
}

struct Flow<'k> {
    kernel: &'k Kernel,
    /// Bit of each parameter that is an `Out` (first 128 only).
    bit: Vec<Option<u128>>,
    all: u128,
    /// Per enclosing loop, the meet of the states at its `break`s
    /// (unreachable until a `break` is seen).
    loops: Vec<State>,
    diags: &'k mut Vec<Diagnostic>,
}

/// Reports outputs of `kernel` not assigned on some normal path.
pub fn check(kernel: &Kernel, diags: &mut Vec<Diagnostic>) {
    let mut bit = Vec::new();
    let mut n = 0u32;
    for p in &kernel.params {
        if matches!(p.kind, ParamKind::Output(_)) && n < 128 {
            bit.push(Some(1u128 << n));
            n += 1;
        } else {
            bit.push(None);
        }
    }
    let all = bit.iter().flatten().fold(0, |a, b| a | b);
    if all == 0 {
        return;
    }
    let mut flow = Flow {
        kernel,
        bit,
        all,
        loops: Vec::new(),
        diags,
    };
    let end = flow.block(&kernel.body, Some(0));
    if let Some(state) = end {
        flow.report(state, kernel.body.span.end_point(), "the kernel ends here");
    }
}

impl Flow<'_> {
    fn report(&mut self, state: u128, span: crate::span::Span, where_: &str) {
        let missing: Vec<&tast::KernelParam> = self
            .kernel
            .params
            .iter()
            .zip(&self.bit)
            .filter(|(_, b)| b.is_some_and(|b| state & b == 0))
            .map(|(p, _)| p)
            .collect();
        if missing.is_empty() {
            return;
        }
        let names: Vec<String> = missing.iter().map(|p| format!("`{}`", p.name)).collect();
        let plural = missing.len() > 1;
        let mut d = Diagnostic::new(
            Code::OutputNotAssigned,
            span,
            format!(
                "output{} {} {} not assigned on every path",
                if plural { "s" } else { "" },
                names.join(", "),
                if plural { "are" } else { "is" }
            ),
        )
        .with_label(format!("{where_} without assigning {}", names.join(", ")))
        .with_help("assign every output on every path that does not `discard`, e.g. give it a default value at the start of the kernel");
        for p in missing {
            d = d.with_secondary(p.span, "declared here");
        }
        self.diags.push(d);
    }

    fn block(&mut self, b: &Block, mut state: State) -> State {
        for s in &b.stmts {
            state = self.stmt(s, state);
        }
        if let Some(t) = &b.tail {
            state = self.expr(t, state);
        }
        state
    }

    fn stmt(&mut self, s: &Stmt, state: State) -> State {
        state?;
        let mut state = state;
        for e in tast::stmt_operands(s) {
            state = self.expr(e, state);
        }
        match &s.kind {
            StmtKind::WriteOutput { param, .. } => {
                let b = self.bit[param.index()].unwrap_or(0);
                state.map(|s| s | b)
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                self.loops.push(None);
                self.block(body, state);
                self.loops.pop();
                state
            }
            StmtKind::Loop { body } => {
                self.loops.push(None);
                self.block(body, state);
                // Only `break` leaves a `loop`.
                self.loops.pop().flatten()
            }
            StmtKind::Break => {
                if let Some(exit) = self.loops.last_mut() {
                    *exit = meet(*exit, state);
                }
                None
            }
            StmtKind::Continue | StmtKind::Discard => None,
            StmtKind::Return(_) => {
                if let Some(st) = state
                    && st & self.all != self.all
                {
                    self.report(st, s.span, "returns here");
                }
                None
            }
            StmtKind::Let { .. }
            | StmtKind::Assign { .. }
            | StmtKind::Expr(_)
            | StmtKind::Scatter { .. } => state,
        }
    }

    fn expr(&mut self, e: &Expr, state: State) -> State {
        state?;
        let mut state = state;
        let mut operands = Vec::new();
        tast::for_each_operand(e, &mut |x| operands.push(x));
        for x in operands {
            state = self.expr(x, state);
        }
        match &e.kind {
            ExprKind::If { then, else_, .. } => {
                let t = self.block(then, state);
                let f = self.block(else_, state);
                meet(t, f)
            }
            ExprKind::Block(b) => self.block(b, state),
            _ => state,
        }
    }
}
