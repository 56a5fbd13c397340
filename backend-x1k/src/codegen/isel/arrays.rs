//! How each uniform-array read with a non-constant index is addressed,
//! decided for the whole module before selection (liveness depends on
//! it: an aL-relative read does not need its index value).
//!
//! An index is *counter-derived* when it is built from integer constants
//! and `for` counters with integer operations — what unrolling would turn
//! into a constant. Such an index is read in one of two ways:
//!
//! - **aL-relative** (CTM §3.3.1, §3.5.2): `s · k + c` for the counter `k`
//!   of a loop (a constant step `s`, −128..=127, not 0) becomes `c[N +
//!   aL]` in that loop, selected as `LOOP`/`ENDLOOP` with aL = `s · k +
//!   shift` (init and step in its integer constant). `shift` makes aL's
//!   smallest value over the iterations 0 when the bounds are constants
//!   (so N is the address read at that iteration, inside the array), and
//!   is 0 with a uniform start (the ABI's recipe: init = start, step 1).
//!   A loop takes the step most of its reads share. A `REP` between the
//!   read and its loop keeps aL visible; a `LOOP` shadows it, so loops are
//!   decided innermost first and an outer read under an inner `LOOP` is
//!   not relative. With constant bounds every element read must lie in
//!   the array (the reference clamps the index); with a uniform bound the
//!   program's indices are taken to be in range (`docs/backend-x1k.md`
//!   §3).
//! - **a select chain** otherwise (several counters, another step, a read
//!   aL cannot reach): `v = c[lo]`, then `v = idx >= i ? c[i] : v` for
//!   i = lo+1..=hi, one `CMP` each (the comparison fused by a
//!   presubtract), over the index's range when the counters' bounds are
//!   constants, else the whole array. Clamping to the array is free.
//!
//! Any other index (data-dependent) is CK0070, as the language contract
//! says. The affine analysis itself is `ctm_ir::analysis::affine`; this
//! module holds the X1K choices on top of it.

use super::flow::loop_conjuncts;
use crate::abi::IntSource;
use ctm_frontend::tast::ParamKind;
use ctm_ir::analysis::affine::{Affine, affine, counter_derived};
use ctm_ir::fasthash::FastMap as HashMap;
use ctm_ir::graph::{Module, NodeId, RegionId};
use ctm_ir::op::Op;

/// How a uniform-array read is addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayRead {
    /// `c[n + aL]` inside the `LOOP` of `theta`.
    Relative {
        /// The loop whose aL it reads.
        theta: NodeId,
        /// The constant address N.
        n: u8,
    },
    /// A select chain over elements `lo..=hi`.
    Chain {
        /// First element.
        lo: u16,
        /// Last element.
        hi: u16,
    },
}

/// A loop selected as `LOOP` (aL = `step` · counter + shift).
#[derive(Clone, Debug, PartialEq)]
pub struct AlLoop {
    /// aL's initial value.
    pub init: IntSource,
    /// aL's increment per iteration.
    pub step: i32,
}

/// The addressing of every counter-derived uniform-array read.
#[derive(Clone, Debug, Default)]
pub struct ArrayPlan {
    /// By `UniformElement` node.
    pub reads: HashMap<NodeId, ArrayRead>,
    /// The loops that set aL, by theta.
    pub loops: HashMap<NodeId, AlLoop>,
}

impl ArrayPlan {
    /// Whether read `n` goes through aL (its index value is not needed).
    pub fn is_relative(&self, n: NodeId) -> bool {
        matches!(self.reads.get(&n), Some(ArrayRead::Relative { .. }))
    }
}

/// The constant `(start, end)` of a `for` loop, if both are known.
fn const_bounds(m: &Module, theta: NodeId) -> Option<(i64, i64)> {
    let Op::Theta(t) = m.node(theta).op else {
        return None;
    };
    match loop_conjuncts(m, theta, &t).1 {
        Some((IntSource::Const(s), IntSource::Const(e))) => Some((i64::from(s), i64::from(e))),
        _ => None,
    }
}

/// The values `a` takes (`None`: unknown), over the loops counted in
/// hardware.
fn range(m: &Module, a: &Affine) -> Option<(i64, i64)> {
    a.range(&|t| const_bounds(m, t))
}

/// A uniform-array read of the plan.
struct Read {
    node: NodeId,
    /// The array's first constant and length.
    base: i64,
    len: i64,
    /// The index as an affine function, if it is one.
    affine: Option<Affine>,
}

/// Decides the addressing of every counter-derived uniform-array read;
/// `base` is each parameter's first float constant.
pub fn plan(m: &Module, base: &[Option<u8>]) -> ArrayPlan {
    let mut reads: Vec<Read> = Vec::new();
    for r in m.region_ids() {
        for n in m.nodes(r) {
            let Op::UniformElement(p) = m.node(n).op else {
                continue;
            };
            let index = m.inputs(n)[0];
            let origin = super::loops::origin(m, index);
            if matches!(m.node(origin.node).op, Op::Const(_)) || !counter_derived(m, index) {
                continue;
            }
            let len = match m.params[p.index()].kind {
                ParamKind::Uniform(t) => i64::from(super::super::consts::uniform_size(t)),
                _ => 1,
            };
            let Some(b) = base.get(p.index()).copied().flatten() else {
                continue;
            };
            if len < 1 {
                continue;
            }
            reads.push(Read {
                node: n,
                base: i64::from(b),
                len,
                affine: affine(m, index),
            });
        }
    }
    let mut plan = ArrayPlan::default();
    if reads.is_empty() {
        return plan;
    }
    let mut order = Vec::new();
    post_order(m, m.root, &mut order);
    for theta in order {
        decide_loop(m, theta, &reads, &mut plan);
    }
    for r in &reads {
        if plan.reads.contains_key(&r.node) {
            continue;
        }
        let last = r.len - 1;
        let (lo, hi) = r
            .affine
            .as_ref()
            .and_then(|a| range(m, a))
            .map_or((0, last), |(lo, hi)| (lo.clamp(0, last), hi.clamp(0, last)));
        plan.reads.insert(
            r.node,
            ArrayRead::Chain {
                lo: lo as u16,
                hi: hi as u16,
            },
        );
    }
    plan
}

/// The thetas of `r` and the regions inside it, innermost first.
fn post_order(m: &Module, r: RegionId, out: &mut Vec<NodeId>) {
    for n in m.nodes(r) {
        match &m.node(n).op {
            Op::Gamma(g) => {
                for b in g.branches {
                    post_order(m, b, out);
                }
            }
            Op::Theta(t) => {
                post_order(m, t.body, out);
                out.push(n);
            }
            _ => {}
        }
    }
}

/// Whether `n` lies in the body of `theta` with no aL-setting loop in
/// between.
fn reaches(m: &Module, n: NodeId, theta: NodeId, plan: &ArrayPlan) -> bool {
    let Op::Theta(t) = m.node(theta).op else {
        return false;
    };
    let mut region = n.region;
    for _ in 0..256 {
        if region == t.body {
            return true;
        }
        let Some(owner) = m.region(region).owner else {
            return false;
        };
        if plan.loops.contains_key(&owner) {
            return false;
        }
        region = owner.region;
    }
    false
}

/// Makes `theta` a `LOOP` if reads of its counter can use aL.
fn decide_loop(m: &Module, theta: NodeId, reads: &[Read], plan: &mut ArrayPlan) {
    let Op::Theta(t) = m.node(theta).op else {
        return;
    };
    // (read, step, offset) of the reads at `step · counter + offset`.
    let mut cands: Vec<(&Read, i64, i64)> = Vec::new();
    for r in reads {
        if let Some(a) = &r.affine
            && let [(owner, s)] = a.terms[..]
            && owner == theta
            && (-128..=127).contains(&s)
            && reaches(m, r.node, theta, plan)
        {
            cands.push((r, s, a.c));
        }
    }
    if cands.is_empty() {
        return;
    }
    let Some((start, end)) = loop_conjuncts(m, theta, &t).1 else {
        return;
    };
    // The step most reads share (ties: the smallest |s|, then positive).
    let mut steps: Vec<i64> = cands.iter().map(|c| c.1).collect();
    steps.sort_by_key(|s| (s.abs(), -s.signum()));
    steps.dedup();
    let mut best: Option<(i64, usize)> = None;
    for s in steps {
        let n = cands.iter().filter(|c| c.1 == s).count();
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((s, n));
        }
    }
    let Some((step, _)) = best else {
        return;
    };
    // aL = step · k + shift.
    let (shift, init, bounds) = match (&start, &end) {
        (IntSource::Const(s), e) => {
            let s = i64::from(*s);
            let e = match e {
                IntSource::Const(e) => Some(i64::from(*e)),
                _ => None,
            };
            let last = e.map(|e| (e - 1).max(s));
            // The smallest aL over the iterations is 0.
            let shift = match (step > 0, last) {
                (true, _) => -step * s,
                (false, Some(l)) => -step * l,
                // A decreasing aL with no known end: no lower bound.
                (false, None) => return,
            };
            let init = step * s + shift;
            if let Some(l) = last
                && !(0..=255).contains(&(step * l + shift))
            {
                return;
            }
            if !(0..=255).contains(&init) {
                return;
            }
            (shift, IntSource::Const(init as i32), e.map(|e| (s, e)))
        }
        (other, _) if step == 1 => (0, other.clone(), None),
        _ => return,
    };
    let mut any = false;
    for (r, s, c) in cands {
        if s != step {
            continue;
        }
        // Every element read is in the array (the reference clamps).
        if let Some((first, end)) = bounds
            && first < end
        {
            let last = end - 1;
            let ok = |k: i64| (0..r.len).contains(&(s * k + c));
            if !ok(first) || !ok(last) {
                continue;
            }
        }
        let n = r.base + c - shift;
        if !(0..=255).contains(&n) {
            continue;
        }
        plan.reads
            .insert(r.node, ArrayRead::Relative { theta, n: n as u8 });
        any = true;
    }
    if any {
        plan.loops.insert(
            theta,
            AlLoop {
                init,
                step: step as i32,
            },
        );
    }
}
