//! The shape of a lowered `for` loop (`lower::stmt`): a tail-controlled
//! theta whose body's continue predicate is a conjunction holding the
//! counter test `k + 1 < end` (`k` the argument that
//! [`LoopInfo::counter`](crate::op::LoopInfo::counter) names), under a gamma
//! testing `start < end` (the theta runs at least once, the `for` may run
//! zero times).
//!
//! This module recognises those parts: the conjuncts of a continue
//! predicate, the counter test and the loop's bounds when each is an
//! integer constant or an `i32` uniform ([`Bound`]), the entry guard whose
//! other branch passes the loop's initial values through (a target whose
//! loop instruction skips a zero-trip body may drop it), and which live
//! loop values allow leaving the loop at a conjunct before the rest of the
//! body. Which loops a target can count in hardware (trip limits, count
//! registers) is the target's choice, not this module's.

use super::origin::origin;
use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::{BinOp, CmpOp, Op, Theta, UnOp};
use ctm_frontend::tast::ParamId;
use ctm_frontend::value::Value as Constant;

/// A `for` bound known before the loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// An integer constant.
    Const(i32),
    /// The value of an `i32` uniform.
    Uniform(ParamId),
}

/// `v` (after [`origin`]) as a [`Bound`], if it is one.
pub fn bound(m: &Module, v: Value) -> Option<Bound> {
    let v = origin(m, v);
    match &m.node(v.node).op {
        Op::Const(Constant::I32(c)) => Some(Bound::Const(*c)),
        Op::Uniform(p) => Some(Bound::Uniform(*p)),
        _ => None,
    }
}

/// The conjuncts of `v`: its `&&` operands, recursively, in order.
pub fn conjuncts(m: &Module, v: Value) -> Vec<Value> {
    let mut out = Vec::new();
    split_and(m, v, &mut out);
    out
}

fn split_and(m: &Module, v: Value, out: &mut Vec<Value>) {
    if let Op::Binary(BinOp::BAnd) = m.node(v.node).op {
        for i in m.inputs(v.node) {
            split_and(m, i, out);
        }
    } else {
        out.push(v);
    }
}

/// When conjunct `c` of loop `t`'s continue predicate is the counter test
/// `arg_k + 1 < end` (`k` the counter): the `end` operand.
pub fn counter_test(m: &Module, t: &Theta, c: Value) -> Option<Value> {
    let body = t.body;
    let k = t.info.counter? as usize;
    if m.node(c.node).op != Op::Compare(CmpOp::Lt) {
        return None;
    }
    let ins = m.inputs(c.node);
    let next = ins[0];
    if m.node(next.node).op != Op::Binary(BinOp::IAdd) {
        return None;
    }
    let add = m.inputs(next.node);
    let is_one = |v: Value| matches!(m.node(v.node).op, Op::Const(Constant::I32(1)));
    let is_k = |v: Value| v == m.argument(body, k);
    ((is_k(add[0]) && is_one(add[1])) || (is_k(add[1]) && is_one(add[0]))).then_some(ins[1])
}

/// The `(start, end)` of `for` loop `theta`: the bounds of the first
/// counter test among its continue conjuncts whose bounds are both known.
pub fn counter_bounds(m: &Module, theta: NodeId) -> Option<(Bound, Bound)> {
    let Op::Theta(t) = m.node(theta).op else {
        return None;
    };
    let start = bound(m, *m.inputs(theta).get(t.info.counter? as usize)?);
    conjuncts(m, m.result(t.body, 0))
        .into_iter()
        .filter_map(|c| counter_test(m, &t, c))
        .find_map(|end| Some((start?, bound(m, end)?)))
}

/// The constant `(start, end)` of `for` loop `theta`, if both are known.
pub fn const_bounds(m: &Module, theta: NodeId) -> Option<(i64, i64)> {
    match counter_bounds(m, theta)? {
        (Bound::Const(s), Bound::Const(e)) => Some((i64::from(s), i64::from(e))),
        _ => None,
    }
}

/// When gamma `gamma` only guards the `for` loop in its first branch: that
/// loop. The predicate is `start < end` for the loop's own bounds
/// ([`counter_bounds`]), the first branch holds nothing with effects or
/// flow control but that loop, and each `needed` output is the loop's
/// output where the second branch passes through the loop's initial value
/// (or the same value in both branches).
pub fn entry_guard(m: &Module, gamma: NodeId, needed: &dyn Fn(Value) -> bool) -> Option<NodeId> {
    let Op::Gamma(g) = m.node(gamma).op else {
        return None;
    };
    let ins = m.inputs(gamma);
    let pred = origin(m, *ins.first()?);
    if m.node(pred.node).op != Op::Compare(CmpOp::Lt) {
        return None;
    }
    let [then, else_] = g.branches;
    let thetas: Vec<NodeId> = m
        .nodes(then)
        .into_iter()
        .filter(|&n| matches!(m.node(n).op, Op::Theta(_)))
        .collect();
    let [theta] = thetas[..] else {
        return None;
    };
    // Nothing with effects or flow control besides the loop.
    if m.nodes(then)
        .into_iter()
        .any(|n| n != theta && matches!(m.node(n).op, Op::Gamma(_) | Op::Theta(_) | Op::Scatter(_)))
    {
        return None;
    }
    let (start, end) = counter_bounds(m, theta)?;
    let p = m.inputs(pred.node);
    if bound(m, p[0]) != Some(start) || bound(m, p[1]) != Some(end) {
        return None;
    }
    let theta_ins = m.inputs(theta);
    let outs = m.node(gamma).outputs.len();
    (0..outs)
        .all(|k| {
            let out = m.output(gamma, k);
            if !needed(out) {
                return true;
            }
            let (rt, re) = (m.result(then, k), m.result(else_, k));
            if rt.node == theta {
                same_value(m, theta_ins[rt.port as usize], re)
            } else {
                same_value(m, rt, re)
            }
        })
        .then_some(theta)
}

/// `a` (in the first branch) and `b` (in the second) are the same value:
/// the same gamma entry, or equal constants.
fn same_value(m: &Module, a: Value, b: Value) -> bool {
    let (a, b) = (origin(m, a), origin(m, b));
    if a == b {
        return true;
    }
    match (&m.node(a.node).op, &m.node(b.node).op) {
        (Op::Const(x), Op::Const(y)) => x == y,
        _ => false,
    }
}

/// Whether loop `theta` may leave as soon as its continue conjunct `c` is
/// false, before the rest of the body: every loop value `live` after the
/// loop must then keep its value from the start of the iteration, which
/// holds when its next value is the argument itself or the if-converted
/// `select(f, arg, new)` with `c = !f` (`select(c, new, arg)`). Inside the
/// rest of the body `c` is then true for every element still looping.
pub fn early_exit_ok(
    m: &Module,
    theta: NodeId,
    t: &Theta,
    c: Value,
    live: &dyn Fn(Value) -> bool,
) -> bool {
    let body: RegionId = t.body;
    let negated = match m.node(c.node).op {
        Op::Unary(UnOp::BNot) => Some(m.inputs(c.node)[0]),
        _ => None,
    };
    let outs = m.node(theta).outputs.len();
    (0..outs).all(|k| {
        if !live(m.output(theta, k)) {
            return true;
        }
        let arg = m.argument(body, k);
        let next = m.result(body, k + 1);
        if next == arg {
            return true;
        }
        if m.node(next.node).op != Op::Select {
            return false;
        }
        let ins = m.inputs(next.node);
        (Some(ins[0]) == negated && ins[1] == arg) || (ins[0] == c && ins[2] == arg)
    })
}
