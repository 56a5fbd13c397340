//! Multiply-add formation: `a * b + c` (either order), `a * b - c` and
//! `c - a * b` become `mad`, when every use of the multiply is such an
//! addition or subtraction (so the multiply disappears). The
//! hardware's MAD rounds twice, like the separate operations, so forming it
//! never changes a result; the negations it introduces are free input
//! modifiers on both targets.

use crate::fasthash::FastMap;
use crate::graph::{Module, NodeId, Value};
use crate::op::{BinOp, Op, UnOp};

/// Runs MAD formation over the whole module. Returns `true` if anything
/// changed.
pub fn run(m: &mut Module) -> bool {
    let mut adds_only = FastMap::default();
    super::rewrite_nodes(m, |m, n| node(m, n, &mut adds_only))
}

/// Whether every use of multiply `v` is an addition or subtraction, kept
/// per multiply for the pass (issue 13: a multiply with n users was
/// examined again for each of them, n² visits). An entry stays right while
/// the pass runs: its users only leave (each addition replaced by a MAD)
/// except when the value becomes an input of a new node, and
/// [`node`] forgets the entries of those values.
type AddsOnly = FastMap<Value, bool>;

/// The operands of `v` if it is a multiply whose every use is an addition
/// or subtraction (each of which becomes a `mad`, so the multiply dies).
fn single_use_mul(m: &Module, v: Value, adds_only: &mut AddsOnly) -> Option<(Value, Value)> {
    if m.node(v.node).op != Op::Binary(BinOp::FMul) || !m.has_users(v.node) {
        return None;
    }
    let all_adds = *adds_only.entry(v).or_insert_with(|| {
        m.users(v)
            .iter()
            .all(|(u, _)| matches!(m.node(*u).op, Op::Binary(BinOp::FAdd | BinOp::FSub)))
    });
    if !all_adds {
        return None;
    }
    let i = m.inputs(v.node);
    Some((i[0], i[1]))
}

fn node(m: &mut Module, n: NodeId, adds_only: &mut AddsOnly) -> bool {
    let Op::Binary(b @ (BinOp::FAdd | BinOp::FSub)) = m.node(n).op else {
        return false;
    };
    let inputs = m.inputs(n);
    let (x, y) = (inputs[0], inputs[1]);
    let r = n.region;
    // The values that get a new user (a negation or the MAD), whose
    // entries in `adds_only` no longer hold: the multiply's operands and
    // the other addend (the multiply itself only loses this user).
    let (mul, a, bb, c) = if let Some((a, bb)) = single_use_mul(m, x, adds_only) {
        for v in [a, bb, y] {
            adds_only.remove(&v);
        }
        // a*b + y, a*b - y
        let c = if b == BinOp::FSub {
            m.op(r, Op::Unary(UnOp::FNeg), &[y])
        } else {
            y
        };
        (x, a, bb, c)
    } else if let Some((a, bb)) = single_use_mul(m, y, adds_only) {
        for v in [a, bb, x] {
            adds_only.remove(&v);
        }
        // x + a*b, x - a*b = (-a)*b + x
        let a = if b == BinOp::FSub {
            m.op(r, Op::Unary(UnOp::FNeg), &[a])
        } else {
            a
        };
        (y, a, bb, x)
    } else {
        return false;
    };
    let mad = m.op(r, Op::Mad, &[a, bb, c]);
    m.replace_uses(m.output(n, 0), mad);
    m.remove_node(n);
    if !m.has_users(mul.node) {
        m.remove_node(mul.node);
    }
    true
}
