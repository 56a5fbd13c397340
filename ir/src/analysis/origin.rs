//! Value origins: the value a value stands for once region arguments and
//! pass-through ports are seen through, and loop invariance of theta
//! arguments.
//!
//! Assumes a verified module (ports and regions as `verify` checks them).
//! A gamma branch's argument `i` is the gamma's input `i + 1`; a gamma
//! output whose two branches pass the same entry through is that entry; a
//! theta argument or output is the theta's input when the body passes the
//! argument through unchanged (possibly via gammas and inner loops). The
//! search is bounded (4096 steps); past the bound a value stands for
//! itself, which is always a sound (if weaker) answer.

use crate::graph::{Module, RegionId, Value};
use crate::op::Op;

/// The step bound of one [`origin`] query.
const BUDGET: u32 = 4096;

/// Follows `v` through region arguments and pass-through ports to the
/// value it stands for. Each step is resolved inside its own region first
/// (a branch's arguments stand for themselves there), so the search is
/// linear in the ports it passes.
pub fn origin(m: &Module, mut v: Value) -> Value {
    let mut budget = BUDGET;
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
            Op::Theta(_) if passes(m, region, i, &mut budget) => m.inputs(owner)[i],
            _ => return l,
        };
        if budget == 0 {
            return v;
        }
    }
}

/// [`origin`] inside `v`'s own region: through gamma and theta outputs
/// that pass an entry through, stopping at the region's arguments.
pub fn local_origin(m: &Module, v: Value) -> Value {
    local(m, v, &mut BUDGET.clone())
}

/// Whether loop body `body` passes its argument `i` through unchanged, so
/// that the argument is the theta's input `i` in every iteration.
pub fn invariant_argument(m: &Module, body: RegionId, i: usize) -> bool {
    passes(m, body, i, &mut BUDGET.clone())
}

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
            Op::Theta(t) if passes(m, t.body, port, budget) => v = m.inputs(v.node)[port],
            _ => return v,
        }
    }
}

fn passes(m: &Module, body: RegionId, i: usize, budget: &mut u32) -> bool {
    local(m, m.result(body, i + 1), budget) == m.argument(body, i)
}
