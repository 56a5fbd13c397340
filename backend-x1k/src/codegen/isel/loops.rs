//! Loop analyses for selection: where a value really comes from (through
//! region arguments), the `for` counter's bounds, and the `start < end`
//! guard a REP does not need. (Which loops set aL for uniform-array reads:
//! `arrays`.)
//!
//! **The entry guard.** A `for` loop is a tail-controlled theta under a
//! gamma testing `start < end` (the theta runs at least once). `REP`/`LOOP`
//! with a zero count skip their body (CTM §3.5.3 special cases), so when
//! the gamma's other branch passes through exactly the loop's initial
//! values, the gamma is dropped and the loop selected unconditionally.

use crate::abi::IntSource;
use ctm_frontend::value::Value as Constant;
use ctm_ir::graph::{Module, NodeId, RegionId, Value};
use ctm_ir::op::{CmpOp, Op, Theta};

/// Follows `v` through region arguments and pass-through ports to the
/// value it stands for: a gamma branch's argument `i` is the gamma's input
/// `i + 1`; a gamma output whose branches both pass the same entry through
/// is that entry; a loop-invariant theta argument or output (the body
/// passes the argument through, possibly via gammas and inner loops) is
/// the theta's input. Each step is resolved inside its own region first
/// (a branch's arguments stand for themselves there), so the search is
/// linear in the ports it passes; it is bounded all the same, and past the
/// bound `v` stands for itself.
pub fn origin(m: &Module, mut v: Value) -> Value {
    let mut budget = 4096u32;
    loop {
        let l = local(m, v, &mut budget);
        let Op::Argument(i) = m.node(l.node).op else {
            return l;
        };
        let region = l.node.region;
        let Some(owner) = m.region(region).owner else {
            return l;
        };
        let i = i as usize;
        v = match m.node(owner).op {
            Op::Gamma(_) => m.inputs(owner)[i + 1],
            Op::Theta(_) if invariant(m, region, i, &mut budget) => m.inputs(owner)[i],
            _ => return l,
        };
        if budget == 0 {
            return v;
        }
    }
}

/// [`origin`] inside `v`'s region: through gamma and theta outputs that
/// pass an entry through, stopping at the region's arguments.
fn local(m: &Module, mut v: Value, budget: &mut u32) -> Value {
    loop {
        if *budget == 0 {
            return v;
        }
        *budget -= 1;
        let port = v.port as usize;
        match m.node(v.node).op {
            Op::Gamma(g) => {
                let [a, b] = g.branches.map(|r| local(m, m.result(r, port), budget));
                let (Op::Argument(i), Op::Argument(j)) = (&m.node(a.node).op, &m.node(b.node).op)
                else {
                    return v;
                };
                let ins = m.inputs(v.node);
                let (x, y) = (ins[*i as usize + 1], ins[*j as usize + 1]);
                if x != y {
                    return v;
                }
                v = x;
            }
            Op::Theta(t) if invariant(m, t.body, port, budget) => v = m.inputs(v.node)[port],
            _ => return v,
        }
    }
}

/// Whether loop body `body` passes argument `i` through unchanged.
fn invariant(m: &Module, body: RegionId, i: usize, budget: &mut u32) -> bool {
    local(m, m.result(body, i + 1), budget) == m.argument(body, i)
}

/// A `for` bound: an integer constant or an `i32` uniform.
pub fn bound_source(m: &Module, v: Value) -> Option<IntSource> {
    let v = origin(m, v);
    match &m.node(v.node).op {
        Op::Const(Constant::I32(c)) => Some(IntSource::Const(*c)),
        Op::Uniform(p) => Some(IntSource::Uniform(m.params[p.index()].name.clone())),
        _ => None,
    }
}

/// Whether gamma `gamma` only guards the `for` loop in its first branch:
/// its predicate is `start < end` for the loop's own bounds, the first
/// branch holds nothing but that loop (and pure values feeding it), and
/// each needed output is the loop's output where the second branch passes
/// through the loop's initial value.
pub fn guard_only(m: &Module, gamma: NodeId, needed: &dyn Fn(Value) -> bool) -> bool {
    let Op::Gamma(g) = m.node(gamma).op else {
        return false;
    };
    let ins = m.inputs(gamma);
    let pred = origin(m, ins[0]);
    if m.node(pred.node).op != Op::Compare(CmpOp::Lt) {
        return false;
    }
    let [then, else_] = g.branches;
    let thetas: Vec<NodeId> = m
        .nodes(then)
        .into_iter()
        .filter(|&n| matches!(m.node(n).op, Op::Theta(_)))
        .collect();
    let [theta] = thetas[..] else {
        return false;
    };
    let Op::Theta(t) = m.node(theta).op else {
        return false;
    };
    // Nothing with effects or flow control besides the loop.
    if m.nodes(then)
        .into_iter()
        .any(|n| n != theta && matches!(m.node(n).op, Op::Gamma(_) | Op::Theta(_) | Op::Scatter(_)))
    {
        return false;
    }
    let (_, counter) = super::flow::loop_conjuncts(m, theta, &t);
    let Some((start, end)) = counter else {
        return false;
    };
    let p = m.inputs(pred.node);
    if bound_source(m, p[0]).as_ref() != Some(&start)
        || bound_source(m, p[1]).as_ref() != Some(&end)
    {
        return false;
    }
    let theta_ins = m.inputs(theta);
    let outs = m.node(gamma).outputs.len();
    (0..outs).all(|k| {
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

/// Whether `region` (or a region nested in it) has effects: scatters.
pub fn has_effects(m: &Module, region: ctm_ir::RegionId) -> bool {
    let mut regions = vec![region];
    while let Some(r) = regions.pop() {
        for n in m.nodes(r) {
            match &m.node(n).op {
                Op::Scatter(_) => return true,
                Op::Gamma(g) => regions.extend(g.branches),
                Op::Theta(t) => regions.push(t.body),
                _ => {}
            }
        }
    }
    false
}

/// Whether the loop may leave as soon as its continue conjunct `c` is
/// false, before the rest of the body: every loop value live after the
/// loop must then keep its value from the start of the iteration, which
/// holds when its next value is the argument itself or the if-converted
/// `select(f, arg, new)` with `c = !f` (`select(c, new, arg)`). Inside the
/// rest of the body `c` is then true for every processor still looping.
pub fn early_exit_ok(
    m: &Module,
    theta: NodeId,
    t: &Theta,
    c: Value,
    live: &dyn Fn(Value) -> bool,
) -> bool {
    let body = t.body;
    let negated = match m.node(c.node).op {
        Op::Unary(ctm_ir::op::UnOp::BNot) => Some(m.inputs(c.node)[0]),
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

/// The nodes of `region` that `v` depends on (`v`'s node included), in
/// the region's topological order.
pub fn dependencies(m: &Module, region: ctm_ir::RegionId, v: Value) -> Vec<NodeId> {
    let mut seen = ctm_ir::fasthash::FastSet::default();
    let mut work = vec![v.node];
    while let Some(n) = work.pop() {
        if n.region != region || !seen.insert(n) {
            continue;
        }
        work.extend(m.inputs(n).iter().map(|i| i.node));
    }
    m.topo_order(region)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| seen.contains(n))
        .collect()
}
