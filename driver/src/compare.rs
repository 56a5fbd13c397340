//! Comparing results with the reference: the tolerance of spec §7.
//!
//! A result `g` matches the reference `r` when
//! `|g - r| <= tol * max(1, |r|)`, with `tol` = [`TOLERANCE_EXACT`]
//! (1e-5) for entry points without transcendentals and
//! [`TOLERANCE_TRANSCENDENTAL`] (2e-3) for those with them. NaN matches
//! NaN only, and an infinity only the same infinity.
//!
//! What counts as transcendental ([`uses_transcendentals`]): every
//! built-in whose [`BuiltinInfo::transcendental`] is set (`sqrt`, `rcp`,
//! `sin`, `pow`, `normalize`, ...), and also float `/` and `%`, because
//! both targets divide by multiplying with a reciprocal (`RCP` on x1k, the
//! trans unit's `RECIP_IEEE` on r700) whose error is that of a
//! transcendental, not of an IEEE division. Calls of helper functions are
//! followed.
//!
//! [`BuiltinInfo::transcendental`]: ctm_frontend::builtins::BuiltinInfo::transcendental

use ctm_frontend::Entry;
use ctm_frontend::data::StreamData;
use ctm_frontend::tast::{BinaryOp, Block, Expr, ExprKind, FuncId, LoopBound, Program, StmtKind};
use std::collections::HashSet;

/// Tolerance for entry points without transcendentals (spec §7).
pub const TOLERANCE_EXACT: f64 = 1e-5;

/// Tolerance for entry points with transcendentals (spec §7).
pub const TOLERANCE_TRANSCENDENTAL: f64 = 2e-3;

/// Whether `got` matches the reference value `want` within `tolerance`
/// (relative above 1, absolute below; NaN matches NaN; infinities must be
/// equal).
pub fn values_match(got: f32, want: f32, tolerance: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    let (g, r) = (f64::from(got), f64::from(want));
    (g - r).abs() <= tolerance * r.abs().max(1.0)
}

/// One difference between a result and the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The streams differ in shape; nothing else was compared.
    Shape {
        /// (width, height, channels) of the result.
        got: (usize, usize, usize),
        /// (width, height, channels) of the reference.
        want: (usize, usize, usize),
    },
    /// An element's channel differs beyond the tolerance.
    Value {
        /// Column.
        i: usize,
        /// Row.
        j: usize,
        /// Channel (0 = x).
        channel: usize,
        /// The result's value.
        got: f32,
        /// The reference's value.
        want: f32,
    },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Shape { got, want } => write!(
                f,
                "shape {}x{}x{} differs from the reference's {}x{}x{}",
                got.0, got.1, got.2, want.0, want.1, want.2
            ),
            Mismatch::Value {
                i,
                j,
                channel,
                got,
                want,
            } => {
                let lane = ["x", "y", "z", "w"].get(*channel).unwrap_or(&"?");
                write!(f, "({i}, {j}).{lane}: got {got:?}, reference {want:?}")
            }
        }
    }
}

/// Every channel of every element of `got` that does not match `want`
/// within `tolerance`, in row-major order (a single [`Mismatch::Shape`] if
/// the shapes differ). Empty means the streams match.
pub fn compare_streams(got: &StreamData, want: &StreamData, tolerance: f64) -> Vec<Mismatch> {
    let shape = |s: &StreamData| (s.width, s.height, s.channels);
    if shape(got) != shape(want) {
        return vec![Mismatch::Shape {
            got: shape(got),
            want: shape(want),
        }];
    }
    let mut out = Vec::new();
    for j in 0..want.height {
        for i in 0..want.width {
            let (g, r) = (got.read(i as i64, j as i64), want.read(i as i64, j as i64));
            for channel in 0..want.channels.min(4) {
                if !values_match(g[channel], r[channel], tolerance) {
                    out.push(Mismatch::Value {
                        i,
                        j,
                        channel,
                        got: g[channel],
                        want: r[channel],
                    });
                }
            }
        }
    }
    out
}

/// The spec §7 tolerance for `entry`.
pub fn tolerance_for(program: &Program, entry: Entry<'_>) -> f64 {
    if uses_transcendentals(program, entry) {
        TOLERANCE_TRANSCENDENTAL
    } else {
        TOLERANCE_EXACT
    }
}

/// Whether `entry`, or a helper it calls, uses a transcendental (see the
/// module doc for what counts).
pub fn uses_transcendentals(program: &Program, entry: Entry<'_>) -> bool {
    let body = match entry {
        Entry::Kernel(k) => &k.body,
        Entry::Reduction(r) => &r.body,
    };
    let mut walk = Walk {
        program,
        seen: HashSet::new(),
        blocks: vec![body],
        exprs: Vec::new(),
    };
    walk.run()
}

/// An explicit-stack walk of blocks and expressions (no recursion, so any
/// nesting depth is fine).
struct Walk<'p> {
    program: &'p Program,
    seen: HashSet<FuncId>,
    blocks: Vec<&'p Block>,
    exprs: Vec<&'p Expr>,
}

impl<'p> Walk<'p> {
    fn run(&mut self) -> bool {
        loop {
            if let Some(e) = self.exprs.pop() {
                if self.expr(e) {
                    return true;
                }
            } else if let Some(b) = self.blocks.pop() {
                self.block(b);
            } else {
                return false;
            }
        }
    }

    fn block(&mut self, block: &'p Block) {
        self.exprs.extend(block.tail.as_deref());
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::Let { init: e, .. }
                | StmtKind::Assign { value: e, .. }
                | StmtKind::Expr(e)
                | StmtKind::WriteOutput { value: e, .. } => self.exprs.push(e),
                StmtKind::For {
                    body, start, end, ..
                } => {
                    // Bounds are constants or uniforms: nothing to compute.
                    let _: (&LoopBound, &LoopBound) = (start, end);
                    self.blocks.push(body);
                }
                StmtKind::While { cond, body } => {
                    self.exprs.push(cond);
                    self.blocks.push(body);
                }
                StmtKind::Loop { body } => self.blocks.push(body),
                StmtKind::Return(value) => self.exprs.extend(value.as_ref()),
                StmtKind::Scatter { pos, value, .. } => {
                    self.exprs.push(pos);
                    self.exprs.push(value);
                }
                StmtKind::Break | StmtKind::Continue | StmtKind::Discard => {}
            }
        }
    }

    /// Queues the operands of `e`; `true` if `e` itself is transcendental.
    fn expr(&mut self, e: &'p Expr) -> bool {
        match &e.kind {
            ExprKind::Literal(_)
            | ExprKind::Local(_)
            | ExprKind::Uniform(_)
            | ExprKind::Input(_) => {}
            ExprKind::UniformElement { index: x, .. }
            | ExprKind::Gather { pos: x, .. }
            | ExprKind::Splat(x)
            | ExprKind::Unary { operand: x, .. }
            | ExprKind::MatVec { vec: x, .. }
            | ExprKind::VecMat { vec: x, .. }
            | ExprKind::Cast(x)
            | ExprKind::Swizzle { base: x, .. } => self.exprs.push(x),
            ExprKind::Builtin { func, args } => {
                if func.info().transcendental {
                    return true;
                }
                self.exprs.extend(args);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if matches!(op, BinaryOp::Div | BinaryOp::Rem) && lhs.ty.is_float() {
                    return true;
                }
                self.exprs.push(lhs);
                self.exprs.push(rhs);
            }
            ExprKind::Call { func, args } => {
                self.exprs.extend(args);
                if self.seen.insert(*func)
                    && let Some(f) = self.program.functions.get(func.index())
                {
                    self.blocks.push(&f.body);
                }
            }
            ExprKind::Construct(args) => self.exprs.extend(args),
            ExprKind::If { cond, then, else_ } => {
                self.exprs.push(cond);
                self.blocks.push(then);
                self.blocks.push(else_);
            }
            ExprKind::Block(b) => self.blocks.push(b),
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctm_frontend::Span;
    use ctm_frontend::builtins::Builtin;
    use ctm_frontend::tast::{Function, Kernel, Stmt};
    use ctm_frontend::types::Type;
    use ctm_frontend::value::Value;

    #[test]
    fn tolerance_rule() {
        assert!(values_match(1.0, 1.0, TOLERANCE_EXACT));
        assert!(values_match(1.0 + 9e-6, 1.0, TOLERANCE_EXACT));
        assert!(!values_match(1.0 + 2e-5, 1.0, TOLERANCE_EXACT));
        assert!(values_match(-1.0 - 9e-6, -1.0, TOLERANCE_EXACT));
        // Absolute below 1, relative above.
        assert!(values_match(1e-6, 0.0, TOLERANCE_EXACT));
        assert!(values_match(1000.009, 1000.0, TOLERANCE_EXACT));
        assert!(!values_match(1000.02, 1000.0, TOLERANCE_EXACT));
        assert!(values_match(1.0019, 1.0, TOLERANCE_TRANSCENDENTAL));
        assert!(!values_match(1.0021, 1.0, TOLERANCE_TRANSCENDENTAL));
        assert!(values_match(f32::NAN, f32::NAN, TOLERANCE_EXACT));
        assert!(!values_match(0.0, f32::NAN, TOLERANCE_EXACT));
        assert!(!values_match(f32::NAN, 0.0, TOLERANCE_EXACT));
        assert!(values_match(f32::INFINITY, f32::INFINITY, TOLERANCE_EXACT));
        assert!(!values_match(
            f32::INFINITY,
            f32::NEG_INFINITY,
            TOLERANCE_EXACT
        ));
        assert!(!values_match(
            f32::MAX,
            f32::INFINITY,
            TOLERANCE_TRANSCENDENTAL
        ));
        assert!(!values_match(
            f32::INFINITY,
            f32::MAX,
            TOLERANCE_TRANSCENDENTAL
        ));
        assert!(values_match(-0.0, 0.0, TOLERANCE_EXACT));
    }

    #[test]
    fn compares_streams_elementwise() {
        let mut got = StreamData::zeros(3, 2, 2);
        let want = StreamData::zeros(3, 2, 2);
        assert!(compare_streams(&got, &want, TOLERANCE_EXACT).is_empty());
        if let ctm_frontend::data::StreamBuffer::F32(v) = &mut got.buffer {
            v[(3 + 2) * 2 + 1] = 0.5;
        }
        let m = compare_streams(&got, &want, TOLERANCE_EXACT);
        assert_eq!(
            m,
            [Mismatch::Value {
                i: 2,
                j: 1,
                channel: 1,
                got: 0.5,
                want: 0.0
            }]
        );
        assert_eq!(m[0].to_string(), "(2, 1).y: got 0.5, reference 0.0");
        let other = StreamData::zeros(2, 3, 2);
        assert!(matches!(
            compare_streams(&other, &want, TOLERANCE_EXACT)[..],
            [Mismatch::Shape { .. }]
        ));
    }

    fn expr(kind: ExprKind, ty: Type) -> Expr {
        Expr {
            kind,
            ty,
            span: Span::default(),
        }
    }

    fn lit() -> Expr {
        expr(ExprKind::Literal(Value::f32(1.0)), Type::F32)
    }

    fn block_of(e: Expr) -> Block {
        Block {
            stmts: vec![Stmt {
                kind: StmtKind::Expr(e),
                span: Span::default(),
            }],
            tail: None,
            span: Span::default(),
        }
    }

    fn program(kernel_expr: Expr, helper_expr: Expr) -> Program {
        Program {
            functions: vec![Function {
                name: "h".into(),
                params: vec![],
                ret: Type::F32,
                locals: vec![],
                body: Block {
                    stmts: vec![],
                    tail: Some(Box::new(helper_expr)),
                    span: Span::default(),
                },
                span: Span::default(),
            }],
            kernels: vec![Kernel {
                name: "k".into(),
                params: vec![],
                locals: vec![],
                body: block_of(kernel_expr),
                span: Span::default(),
            }],
            reductions: vec![],
            consts: vec![],
        }
    }

    fn uses(p: &Program) -> bool {
        uses_transcendentals(p, Entry::Kernel(&p.kernels[0]))
    }

    #[test]
    fn finds_transcendentals() {
        let call = || {
            expr(
                ExprKind::Call {
                    func: FuncId(0),
                    args: vec![],
                },
                Type::F32,
            )
        };
        let builtin = |func| {
            expr(
                ExprKind::Builtin {
                    func,
                    args: vec![lit()],
                },
                Type::F32,
            )
        };
        let binary = |op, ty| {
            expr(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(expr(ExprKind::Literal(Value::zero(ty)), ty)),
                    rhs: Box::new(expr(ExprKind::Literal(Value::zero(ty)), ty)),
                },
                ty,
            )
        };
        assert!(!uses(&program(lit(), builtin(Builtin::Sin))));
        assert!(uses(&program(builtin(Builtin::Sin), lit())));
        assert!(!uses(&program(builtin(Builtin::Abs), lit())));
        assert!(uses(&program(call(), builtin(Builtin::Sqrt))));
        assert!(!uses(&program(call(), builtin(Builtin::Floor))));
        assert!(uses(&program(binary(BinaryOp::Div, Type::F32), lit())));
        assert!(uses(&program(binary(BinaryOp::Rem, Type::Vec2), lit())));
        assert!(!uses(&program(binary(BinaryOp::Div, Type::I32), lit())));
        assert!(!uses(&program(binary(BinaryOp::Mul, Type::F32), lit())));
        // Nested in a swizzle inside an if inside a block.
        let nested = expr(
            ExprKind::If {
                cond: Box::new(expr(ExprKind::Literal(Value::Bool(true)), Type::Bool)),
                then: block_of(expr(
                    ExprKind::Swizzle {
                        base: Box::new(builtin(Builtin::Exp2)),
                        lanes: ctm_frontend::tast::Swizzle::new(&[0]),
                    },
                    Type::F32,
                )),
                else_: block_of(lit()),
            },
            Type::F32,
        );
        assert!(uses(&program(nested, lit())));
        let plain = program(lit(), lit());
        assert_eq!(
            tolerance_for(&plain, Entry::Kernel(&plain.kernels[0])),
            TOLERANCE_EXACT
        );
        let trig = program(builtin(Builtin::Cos), lit());
        assert_eq!(
            tolerance_for(&trig, Entry::Kernel(&trig.kernels[0])),
            TOLERANCE_TRANSCENDENTAL
        );
    }
}
