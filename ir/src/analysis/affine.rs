//! Affine analysis of integer values over `for` loop counters: which
//! `i32` values are built from integer constants and counters by integer
//! operations only (*counter-derived*: what unrolling would make
//! constant), which of those are exactly `Σ coeff · counter + c`
//! ([`Affine`]), and the range such a value takes given each loop's
//! bounds.
//!
//! Values are first resolved with [`origin`], so a counter seen through
//! gamma entries or inner loops that pass it through is still the
//! counter. Coefficients and constants are kept below 2^24 in magnitude
//! (indices stay exact in `f32`); a larger one, or a product of two
//! non-constant terms, is not affine. Recursion is bounded (depth 32).

use super::origin::origin;
use crate::graph::{Module, NodeId, Value};
use crate::op::{BinOp, Op, UnOp};
use crate::types::Ty;
use ctm_frontend::value::Value as Constant;
use smallvec::SmallVec;

/// `Σ coeff · counter + c`, each counter named by its theta.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    /// `(theta, coefficient)`, each theta once, no zero coefficient.
    pub terms: SmallVec<[(NodeId, i64); 2]>,
    /// The constant term.
    pub c: i64,
}

/// Bound on the magnitude of affine coefficients and constants.
pub const MAG: i64 = 1 << 24;

/// The recursion bound of [`affine`] and [`counter_derived`].
const DEPTH: u32 = 32;

impl Affine {
    /// The constant `c`.
    pub fn constant(c: i64) -> Affine {
        Affine {
            terms: SmallVec::new(),
            c,
        }
    }

    /// `self · s`, if still within [`MAG`].
    pub fn scaled(mut self, s: i64) -> Option<Affine> {
        for (_, k) in &mut self.terms {
            *k = k.checked_mul(s).filter(|v| v.abs() < MAG)?;
        }
        self.c = self.c.checked_mul(s).filter(|v| v.abs() < MAG)?;
        self.terms.retain(|(_, k)| *k != 0);
        Some(self)
    }

    /// `self + other`, if still within [`MAG`].
    pub fn plus(mut self, other: Affine) -> Option<Affine> {
        for (t, k) in other.terms {
            match self.terms.iter_mut().find(|(u, _)| *u == t) {
                Some((_, j)) => *j = j.checked_add(k).filter(|v| v.abs() < MAG)?,
                None => self.terms.push((t, k)),
            }
        }
        self.c = self.c.checked_add(other.c).filter(|v| v.abs() < MAG)?;
        self.terms.retain(|(_, k)| *k != 0);
        Some(self)
    }

    /// The values `self` takes, given each counter's loop's constant
    /// `(start, end)` (`None`: unknown, and so is the range). A loop runs
    /// at least once, so its counter takes `start..=max(start, end - 1)`.
    pub fn range(&self, bounds: &dyn Fn(NodeId) -> Option<(i64, i64)>) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (self.c, self.c);
        for &(t, k) in &self.terms {
            let (s, e) = bounds(t)?;
            let (first, last) = (s, (e - 1).max(s));
            let (x, y) = (k * first, k * last);
            lo += x.min(y);
            hi += x.max(y);
        }
        Some((lo, hi))
    }
}

/// The `for` loop whose counter `v` is (`v` taken as it is: apply
/// [`origin`] first).
pub fn counter_of(m: &Module, v: Value) -> Option<NodeId> {
    let Op::Argument(i) = m.node(v.node).op else {
        return None;
    };
    let owner = m.region(v.node.region).owner?;
    match m.node(owner).op {
        Op::Theta(t) if t.info.counter == Some(i) => Some(owner),
        _ => None,
    }
}

/// `v` as an affine function of loop counters, if it is one.
pub fn affine(m: &Module, v: Value) -> Option<Affine> {
    affine_at(m, v, 0)
}

fn affine_at(m: &Module, v: Value, depth: u32) -> Option<Affine> {
    if depth > DEPTH {
        return None;
    }
    let v = origin(m, v);
    if let Some(t) = counter_of(m, v) {
        return Some(Affine {
            terms: smallvec::smallvec![(t, 1)],
            c: 0,
        });
    }
    let ins = m.inputs(v.node);
    let sub = |i: usize| affine_at(m, ins[i], depth + 1);
    match m.node(v.node).op {
        Op::Const(Constant::I32(c)) => Some(Affine::constant(i64::from(c))),
        Op::Unary(UnOp::INeg) => sub(0)?.scaled(-1),
        Op::Binary(BinOp::IAdd) => sub(0)?.plus(sub(1)?),
        Op::Binary(BinOp::ISub) => sub(0)?.plus(sub(1)?.scaled(-1)?),
        Op::Binary(BinOp::IMul) => {
            let (a, b) = (sub(0)?, sub(1)?);
            match (a.terms.is_empty(), b.terms.is_empty()) {
                (true, _) => b.scaled(a.c),
                (_, true) => a.scaled(b.c),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `v` is computed from integer constants and `for` counters by
/// integer operations only.
pub fn counter_derived(m: &Module, v: Value) -> bool {
    derived_at(m, v, 0)
}

fn derived_at(m: &Module, v: Value, depth: u32) -> bool {
    if depth > DEPTH {
        return false;
    }
    let v = origin(m, v);
    if counter_of(m, v).is_some() {
        return true;
    }
    match m.node(v.node).op {
        Op::Const(Constant::I32(_)) => true,
        Op::Unary(UnOp::INeg | UnOp::IAbs) | Op::Binary(_) if m.ty(v) == Ty::I32 => m
            .inputs(v.node)
            .iter()
            .all(|&i| m.ty(i) == Ty::I32 && derived_at(m, i, depth + 1)),
        _ => false,
    }
}
