//! Lowering of blocks and statements: sequences with guards after early
//! exits, assignments, output and scatter writes, and loops.

use super::exits;
use super::{Cx, Env, LoopFlags, Lowerer, Var};
use crate::graph::{RegionId, Value};
use crate::op::{BinOp, CmpOp, LoopInfo, Op};
use crate::types::Ty;
use ctm_frontend::tast::{Block, Expr, LoopBound, Stmt, StmtKind, Swizzle};
use ctm_frontend::value::Value as Constant;

impl Lowerer<'_> {
    /// Lowers a block in its own scope; returns its tail value.
    pub(super) fn lower_block(&mut self, cx: &mut Cx, b: &Block) -> Option<Value> {
        let before: Vec<Var> = cx.env.values.keys().copied().collect();
        let tail = self.lower_seq(cx, &b.stmts, b.tail.as_deref());
        // Variables declared in the block die with it.
        cx.env.values.retain(|k, _| before.binary_search(k).is_ok());
        tail
    }

    /// Lowers `stmts` then `tail`, guarding what follows a statement that
    /// may exit early.
    fn lower_seq(&mut self, cx: &mut Cx, stmts: &[Stmt], tail: Option<&Expr>) -> Option<Value> {
        let tail_ty = tail.and_then(|t| Ty::from_type(t.ty));
        for (i, s) in stmts.iter().enumerate() {
            self.lower_stmt(cx, s);
            if exits::always_exits(s) {
                // The rest never runs (the checker warned about it).
                return tail_ty.map(|t| self.zero(cx, t));
            }
            let e = exits::of_stmt(s);
            if !e.is_empty() && (i + 1 < stmts.len() || tail.is_some()) {
                let go_on = self.normal_condition(cx, e);
                let rest = &stmts[i + 1..];
                return self.guarded(cx, go_on, tail_ty, &mut |l, cx| l.lower_seq(cx, rest, tail));
            }
        }
        tail.map(|t| self.lower_expr(cx, t))
    }

    fn set(&mut self, cx: &mut Cx, var: Var, v: Value) {
        cx.env.values.insert(var, v);
    }

    fn set_flag(&mut self, cx: &mut Cx, var: Var) {
        let t = self.constant(cx, Constant::Bool(true));
        self.set(cx, var, t);
    }

    fn lower_stmt(&mut self, cx: &mut Cx, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { local, init } => {
                let v = self.lower_expr(cx, init);
                let var = self.declare_local(*local);
                self.set(cx, var, v);
            }
            StmtKind::Assign {
                local,
                lanes,
                value,
            } => {
                let v = self.lower_expr(cx, value);
                let var = self.local(*local);
                let new = match lanes {
                    None => v,
                    Some(lanes) => {
                        let old = cx.env.values[&var];
                        self.write_lanes(cx, old, *lanes, v)
                    }
                };
                self.set(cx, var, new);
            }
            StmtKind::Expr(e) => {
                self.lower_expr(cx, e);
            }
            StmtKind::WriteOutput { param, value } => {
                let v = self.lower_expr(cx, value);
                if let Some(var) = self.outputs[param.index()] {
                    self.set(cx, var, v);
                }
            }
            StmtKind::Scatter { param, pos, value } => {
                let p = self.lower_expr(cx, pos);
                let v = self.lower_expr(cx, value);
                let st = cx.env.values[&self.state];
                let new = self.op(cx, Op::Scatter(*param), &[st, p, v]);
                self.set(cx, self.state, new);
            }
            StmtKind::Break => {
                if let Some(l) = self.frame().loops.last().copied() {
                    self.set_flag(cx, l.broke);
                }
            }
            StmtKind::Continue => {
                if let Some(l) = self.frame().loops.last().copied() {
                    self.set_flag(cx, l.continued);
                }
            }
            StmtKind::Return(value) => {
                if let Some(e) = value {
                    let v = self.lower_expr(cx, e);
                    if let Some(r) = self.frame().result {
                        self.set(cx, r, v);
                    }
                }
                let r = self.frame().returned;
                self.set_flag(cx, r);
            }
            StmtKind::Discard => {
                let d = self.discarded;
                self.set_flag(cx, d);
            }
            StmtKind::For {
                var,
                start,
                end,
                body,
            } => {
                let start = self.bound(cx, *start);
                let end_v = self.bound(cx, *end);
                let bounds = match (start.1, end_v.1) {
                    (Some(a), Some(b)) => Some((b as i64 - a as i64).max(0) as u32),
                    _ => None,
                };
                let enter = self.op(cx, Op::Compare(CmpOp::Lt), &[start.0, end_v.0]);
                // The counter and the end bound enter the guard as variables.
                let counter = self.declare_local(*var);
                self.set(cx, counter, start.0);
                let end_var = self.new_var(Ty::I32);
                self.set(cx, end_var, end_v.0);
                let body_exits = exits::of_block(body);
                let exact = !(body_exits.brk || body_exits.ret || body_exits.discard);
                self.guarded(cx, enter, None, &mut |l, cx| {
                    let info = LoopInfo {
                        exact_trips: bounds.filter(|_| exact),
                        max_trips: bounds,
                        counter: None,
                    };
                    l.lower_loop(cx, body, info, Some((counter, end_var)), None);
                    None
                });
                cx.env.values.remove(&counter);
                cx.env.values.remove(&end_var);
            }
            StmtKind::While { cond, body } => {
                let c = self.lower_expr(cx, cond);
                self.guarded(cx, c, None, &mut |l, cx| {
                    l.lower_loop(cx, body, LoopInfo::default(), None, Some(cond));
                    None
                });
            }
            StmtKind::Loop { body } => {
                self.lower_loop(cx, body, LoopInfo::default(), None, None);
            }
        }
    }

    /// A `for` bound's value, and the constant if it is one.
    fn bound(&mut self, cx: &mut Cx, b: LoopBound) -> (Value, Option<i32>) {
        match b {
            LoopBound::Const(c) => (self.constant(cx, Constant::I32(c)), Some(c)),
            LoopBound::Uniform(p) => (self.op(cx, Op::Uniform(p), &[]), None),
        }
    }

    /// Builds a theta for a loop body. `counter` is a `for` loop's variable
    /// (already holding the start) with the end bound; `cond` a `while`
    /// condition re-checked after each iteration.
    fn lower_loop(
        &mut self,
        cx: &mut Cx,
        body: &Block,
        mut info: LoopInfo,
        counter: Option<(Var, Var)>,
        cond: Option<&Expr>,
    ) {
        let exits = exits::of_block(body);
        let broke = self.new_var(Ty::Bool);
        let continued = self.new_var(Ty::Bool);
        if exits.brk {
            let f = self.constant(cx, Constant::Bool(false));
            cx.env.values.insert(broke, f);
        }
        let end_var = counter.map(|(_, end)| end);
        let vars: Vec<Var> = cx.env.values.keys().copied().collect();
        let inits: Vec<Value> = vars.iter().map(|v| cx.env.values[v]).collect();
        let types: Vec<Ty> = inits.iter().map(|v| self.m.ty(*v)).collect();
        let r: RegionId = self.m.new_region(&types);
        let mut inner = Cx {
            region: r,
            env: Env {
                values: vars
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (*v, self.m.argument(r, i)))
                    .collect(),
            },
        };
        if exits.cont {
            let f = self.constant(&mut inner, Constant::Bool(false));
            inner.env.values.insert(continued, f);
        }
        self.frame().loops.push(LoopFlags { broke, continued });
        self.lower_block(&mut inner, body);
        self.frame().loops.pop();
        inner.env.values.remove(&continued);
        // The continue predicate: the loop's own test, and no flag that
        // ends it (break, return, discard).
        let mut go_on = match (counter, end_var) {
            (Some((k, _)), Some(e)) => {
                let one = self.constant(&mut inner, Constant::I32(1));
                let kv = inner.env.values[&k];
                let next = self.op(&mut inner, Op::Binary(BinOp::IAdd), &[kv, one]);
                inner.env.values.insert(k, next);
                let ev = inner.env.values[&e];
                self.op(&mut inner, Op::Compare(CmpOp::Lt), &[next, ev])
            }
            _ => match cond {
                Some(c) => self.lower_expr(&mut inner, c),
                None => self.constant(&mut inner, Constant::Bool(true)),
            },
        };
        // Only the flags the body can set end the loop early.
        let mut stop = Vec::new();
        if exits.brk {
            stop.push(broke);
        }
        if exits.ret {
            stop.push(self.frame().returned);
        }
        if exits.discard {
            stop.push(self.discarded);
        }
        let none = self.none_set(&mut inner, &stop);
        go_on = self.op(&mut inner, Op::Binary(BinOp::BAnd), &[go_on, none]);
        self.m.add_result(r, go_on);
        for v in &vars {
            let out = inner.env.values[v];
            self.m.add_result(r, out);
        }
        if let Some((k, _)) = counter {
            info.counter = vars.iter().position(|v| *v == k).map(|i| i as u32);
        }
        let theta = self.m.add_theta(cx.region, &inits, r, info);
        for (i, v) in vars.iter().enumerate() {
            cx.env.values.insert(*v, self.m.output(theta, i));
        }
        cx.env.values.remove(&broke);
    }

    /// `old` with the lanes `lanes` replaced by the lanes of `v`.
    fn write_lanes(&mut self, cx: &mut Cx, old: Value, lanes: Swizzle, v: Value) -> Value {
        let width = self.m.ty(old).width().unwrap_or(1);
        if width == 1 {
            return v;
        }
        // Source of each result lane: (from_new, lane).
        let mut src: Vec<(bool, u8)> = (0..width).map(|l| (false, l)).collect();
        for (k, &l) in lanes.lanes().iter().enumerate() {
            src[l as usize] = (true, k as u8);
        }
        // Group consecutive lanes from the same source into swizzles.
        let mut parts: Vec<Value> = Vec::new();
        let mut i = 0;
        while i < src.len() {
            let from_new = src[i].0;
            let mut run = vec![src[i].1];
            while i + run.len() < src.len() && src[i + run.len()].0 == from_new {
                run.push(src[i + run.len()].1);
            }
            i += run.len();
            let base = if from_new { v } else { old };
            let base_w = self.m.ty(base).width().unwrap_or(1) as usize;
            let identity =
                run.len() == base_w && run.iter().enumerate().all(|(j, &l)| j == l as usize);
            parts.push(if identity {
                base
            } else {
                self.op(cx, Op::Swizzle(Swizzle::new(&run)), &[base])
            });
        }
        if parts.len() == 1 {
            parts[0]
        } else {
            self.op(cx, Op::Construct, &parts)
        }
    }
}
