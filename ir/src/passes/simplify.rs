//! Algebraic simplification, IEEE-safe: only identities that hold for every
//! input, NaN, infinities and the sign of zero included (denormal inputs
//! aside, which the hardware flushes anyway):
//!
//! - `x + (-0.0)`, `x - 0.0`, `x * 1.0`, `x / 1.0` are `x` (but `x + 0.0`
//!   is not: `-0.0 + 0.0 = +0.0`; and `x * 0.0` is not 0 for NaN or inf);
//! - `-(-x)` is `x`; `!!b` is `b`; `b && true`, `b || false`, `b && b` are
//!   `b`; `b && false` is `false`, `b || true` is `true`;
//! - `select(c, x, x)` is `x`; `select(!c, a, b)` is `select(c, b, a)`;
//!   between bools, `select(c, true, false)` is `c`, `select(c, false,
//!   true)` is `!c`, `select(c, true, b)` is `c || b`, `select(c, a,
//!   false)` is `c && a`; a gamma on `!c` is a gamma on `c` with its
//!   branches swapped;
//! - swizzles: identity swizzles vanish, swizzles of swizzles compose, a
//!   swizzle of a splat is a splat (or the scalar), a swizzle of a
//!   constructed vector reads the part it selects;
//! - `i32`: `x + 0`, `x - 0`, `x * 1`, `x | 0`, `x ^ 0`, shifts by 0 are
//!   `x`; `x * 0` and `x & 0` are 0.
//! - signs: `abs(-x)` and `abs(abs(x))` are `abs(x)`; `(-a) * (-b)` is
//!   `a * b` and `(-a) / (-b)` is `a / b` (the sign of a product or a
//!   quotient is the exclusive or of its operands' signs, NaN included);
//! - `min(max(x, 0.0), 1.0)` (what `clamp(x, 0.0, 1.0)` lowers to; the
//!   `min` in either order, the `max` with `+0.0` second) is
//!   `saturate(x)`, which the language defines as that clamp (NaN gives
//!   0); `saturate(saturate(x))` is `saturate(x)`. `max(0.0, x)` is not
//!   matched: `max(0.0, -0.0)` is `-0.0` where `saturate(-0.0)` is `+0.0`.

use crate::graph::{Module, NodeId, Value};
use crate::op::{BinOp, Op, UnOp};
use ctm_frontend::tast::Swizzle;
use ctm_frontend::value::Value as Constant;

/// Runs simplification over the whole module. Returns `true` if anything
/// changed.
pub fn run(m: &mut Module) -> bool {
    super::rewrite_nodes(m, node)
}

fn constant(m: &Module, v: Value) -> Option<Constant> {
    match &m.node(v.node).op {
        Op::Const(c) => Some(*c),
        _ => None,
    }
}

/// `true` if `v` is a float constant whose every lane has the bits of `x`.
fn is_float(m: &Module, v: Value, x: f32) -> bool {
    constant(m, v).is_some_and(|c| {
        let l = c.lanes();
        !l.is_empty() && l.iter().all(|y| y.to_bits() == x.to_bits())
    })
}

fn is_int(m: &Module, v: Value, x: i32) -> bool {
    constant(m, v) == Some(Constant::I32(x))
}

fn is_bool(m: &Module, v: Value, x: bool) -> bool {
    constant(m, v) == Some(Constant::Bool(x))
}

/// `x` when `v` is `-x`.
fn negated(m: &Module, v: Value) -> Option<Value> {
    match m.node(v.node).op {
        Op::Unary(UnOp::FNeg) => Some(m.inputs(v.node)[0]),
        _ => None,
    }
}

/// Replaces `n`'s output by `v` and removes `n`.
fn forward(m: &mut Module, n: NodeId, v: Value) -> bool {
    m.replace_uses(m.output(n, 0), v);
    m.remove_node(n);
    true
}

fn node(m: &mut Module, n: NodeId) -> bool {
    let op = m.node(n).op.clone();
    let inputs = m.inputs(n);
    let input_op = |k: usize| m.node(inputs[k].node).op.clone();
    match op {
        Op::Binary(b) => {
            let (x, y) = (inputs[0], inputs[1]);
            use BinOp::*;
            let result = match b {
                FAdd if is_float(m, y, -0.0) => Some(x),
                FAdd if is_float(m, x, -0.0) => Some(y),
                FSub if is_float(m, y, 0.0) => Some(x),
                FMul if is_float(m, y, 1.0) => Some(x),
                FMul if is_float(m, x, 1.0) => Some(y),
                FDiv if is_float(m, y, 1.0) => Some(x),
                IAdd | ISub | IOr | IXor | IShl | IShr if is_int(m, y, 0) => Some(x),
                IAdd | IOr | IXor if is_int(m, x, 0) => Some(y),
                IMul if is_int(m, y, 1) => Some(x),
                IMul if is_int(m, x, 1) => Some(y),
                IMul | IAnd if is_int(m, y, 0) => Some(y),
                IMul | IAnd if is_int(m, x, 0) => Some(x),
                BAnd if is_bool(m, y, true) => Some(x),
                BAnd if is_bool(m, x, true) => Some(y),
                BAnd if is_bool(m, y, false) => Some(y),
                BAnd if is_bool(m, x, false) => Some(x),
                BOr if is_bool(m, y, false) => Some(x),
                BOr if is_bool(m, x, false) => Some(y),
                BOr if is_bool(m, y, true) => Some(y),
                BOr if is_bool(m, x, true) => Some(x),
                BAnd | BOr | IMin | IMax | IAnd | IOr if x == y => Some(x),
                _ => None,
            };
            if let Some(v) = result {
                return forward(m, n, v);
            }
            match b {
                FMul | FDiv => {
                    let (Some(a), Some(c)) = (negated(m, x), negated(m, y)) else {
                        return false;
                    };
                    let new = m.op(n.region, Op::Binary(b), &[a, c]);
                    forward(m, n, new)
                }
                FMin => {
                    let inner = if is_float(m, y, 1.0) {
                        x
                    } else if is_float(m, x, 1.0) {
                        y
                    } else {
                        return false;
                    };
                    if !matches!(m.node(inner.node).op, Op::Binary(FMax)) {
                        return false;
                    }
                    let [v, zero] = [m.inputs(inner.node)[0], m.inputs(inner.node)[1]];
                    if !is_float(m, zero, 0.0) {
                        return false;
                    }
                    let new = m.op(n.region, Op::Unary(UnOp::FSaturate), &[v]);
                    forward(m, n, new)
                }
                _ => false,
            }
        }
        Op::Unary(u @ (UnOp::FAbs | UnOp::FSaturate)) => match input_op(0) {
            Op::Unary(UnOp::FNeg) if u == UnOp::FAbs => {
                let inner = m.inputs(inputs[0].node)[0];
                m.set_input(n, 0, inner);
                true
            }
            Op::Unary(v) if v == u => forward(m, n, inputs[0]),
            _ => false,
        },
        Op::Unary(u @ (UnOp::FNeg | UnOp::BNot | UnOp::INot)) => match input_op(0) {
            Op::Unary(v) if v == u => {
                let inner = m.inputs(inputs[0].node)[0];
                forward(m, n, inner)
            }
            _ => false,
        },
        Op::Select => {
            if inputs[1] == inputs[2] {
                return forward(m, n, inputs[1]);
            }
            // Selects between bools are logic.
            let (c, a, b) = (inputs[0], inputs[1], inputs[2]);
            if is_bool(m, a, true) && is_bool(m, b, false) {
                return forward(m, n, c);
            }
            if is_bool(m, a, false) && is_bool(m, b, true) {
                let new = m.op(n.region, Op::Unary(UnOp::BNot), &[c]);
                return forward(m, n, new);
            }
            if is_bool(m, a, true) && m.ty(b) == crate::types::Ty::Bool {
                let new = m.op(n.region, Op::Binary(BinOp::BOr), &[c, b]);
                return forward(m, n, new);
            }
            if is_bool(m, b, false) && m.ty(a) == crate::types::Ty::Bool {
                let new = m.op(n.region, Op::Binary(BinOp::BAnd), &[c, a]);
                return forward(m, n, new);
            }
            if let Op::Unary(UnOp::BNot) = input_op(0) {
                let c = m.inputs(inputs[0].node)[0];
                let new = m.op(n.region, Op::Select, &[c, inputs[2], inputs[1]]);
                return forward(m, n, new);
            }
            false
        }
        Op::LaneSelect(_) if inputs[1] == inputs[2] => forward(m, n, inputs[1]),
        Op::Gamma(g) => match input_op(0) {
            // gamma(!c) {a} else {b} is gamma(c) {b} else {a}.
            Op::Unary(UnOp::BNot) => {
                let c = m.inputs(inputs[0].node)[0];
                m.set_input(n, 0, c);
                if let Op::Gamma(gm) = &mut m.node_mut(n).op {
                    gm.branches = [g.branches[1], g.branches[0]];
                }
                true
            }
            _ => false,
        },
        Op::Swizzle(s) => swizzle(m, n, s, inputs[0]),
        _ => false,
    }
}

fn swizzle(m: &mut Module, n: NodeId, s: Swizzle, base: Value) -> bool {
    let width = m.ty(base).width().unwrap_or(1) as usize;
    if s.len() == width && s.lanes().iter().enumerate().all(|(i, &l)| i == l as usize) {
        return forward(m, n, base);
    }
    match m.node(base.node).op.clone() {
        Op::Swizzle(inner) => {
            let lanes: Vec<u8> = s
                .lanes()
                .iter()
                .map(|&l| inner.lanes()[l as usize])
                .collect();
            let src = m.inputs(base.node)[0];
            let new = m.op(n.region, Op::Swizzle(Swizzle::new(&lanes)), &[src]);
            forward(m, n, new)
        }
        Op::Splat(_) => {
            let scalar = m.inputs(base.node)[0];
            let new = if s.len() == 1 {
                scalar
            } else {
                m.op(n.region, Op::Splat(s.len() as u8), &[scalar])
            };
            forward(m, n, new)
        }
        Op::Construct => {
            // Lane l of the construct comes from part p, lane q.
            let parts = m.inputs(base.node);
            let mut map = Vec::new();
            for (p, v) in parts.iter().enumerate() {
                for q in 0..m.ty(*v).width().unwrap_or(1) {
                    map.push((p, q));
                }
            }
            let picked: Vec<(usize, u8)> = s.lanes().iter().map(|&l| map[l as usize]).collect();
            let part = picked[0].0;
            if picked.iter().all(|(p, _)| *p == part) {
                let lanes: Vec<u8> = picked.iter().map(|(_, q)| *q).collect();
                let src = parts[part];
                let new = m.op(n.region, Op::Swizzle(Swizzle::new(&lanes)), &[src]);
                return forward(m, n, new);
            }
            false
        }
        _ => false,
    }
}
