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
//! says.

use super::flow::loop_conjuncts;
use crate::abi::IntSource;
use ctm_frontend::tast::ParamKind;
use ctm_frontend::value::Value as Constant;
use ctm_ir::fasthash::FastMap as HashMap;
use ctm_ir::graph::{Module, NodeId, RegionId, Value};
use ctm_ir::op::{BinOp, Op, UnOp};
use ctm_ir::types::Ty;
use smallvec::SmallVec;

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

/// `Σ coeff · counter + c`.
#[derive(Clone, Debug, PartialEq)]
struct Affine {
    terms: SmallVec<[(NodeId, i64); 2]>,
    c: i64,
}

/// Bound on the magnitude of affine coefficients and constants (indices
/// are exact in f32 below 2^24).
const MAG: i64 = 1 << 24;

impl Affine {
    fn constant(c: i64) -> Affine {
        Affine {
            terms: SmallVec::new(),
            c,
        }
    }

    fn scaled(mut self, s: i64) -> Option<Affine> {
        for (_, k) in &mut self.terms {
            *k = k.checked_mul(s).filter(|v| v.abs() < MAG)?;
        }
        self.c = self.c.checked_mul(s).filter(|v| v.abs() < MAG)?;
        self.terms.retain(|(_, k)| *k != 0);
        Some(self)
    }

    fn plus(mut self, other: Affine) -> Option<Affine> {
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
}

/// The `for` loop whose counter `v` (after [`super::loops::origin`]) is.
fn counter_of(m: &Module, v: Value) -> Option<NodeId> {
    let Op::Argument(i) = m.node(v.node).op else {
        return None;
    };
    let owner = m.region(v.node.region).owner?;
    match m.node(owner).op {
        Op::Theta(t) if t.info.counter == Some(i) => Some(owner),
        _ => None,
    }
}

/// `v` as an affine function of loop counters.
fn affine(m: &Module, v: Value, depth: u32) -> Option<Affine> {
    if depth > 32 {
        return None;
    }
    let v = super::loops::origin(m, v);
    if let Some(t) = counter_of(m, v) {
        return Some(Affine {
            terms: smallvec::smallvec![(t, 1)],
            c: 0,
        });
    }
    let ins = m.inputs(v.node);
    match m.node(v.node).op {
        Op::Const(Constant::I32(c)) => Some(Affine::constant(i64::from(c))),
        Op::Unary(UnOp::INeg) => affine(m, ins[0], depth + 1)?.scaled(-1),
        Op::Binary(BinOp::IAdd) => {
            affine(m, ins[0], depth + 1)?.plus(affine(m, ins[1], depth + 1)?)
        }
        Op::Binary(BinOp::ISub) => {
            affine(m, ins[0], depth + 1)?.plus(affine(m, ins[1], depth + 1)?.scaled(-1)?)
        }
        Op::Binary(BinOp::IMul) => {
            let (a, b) = (affine(m, ins[0], depth + 1)?, affine(m, ins[1], depth + 1)?);
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
fn counter_derived(m: &Module, v: Value, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    let v = super::loops::origin(m, v);
    if counter_of(m, v).is_some() {
        return true;
    }
    match m.node(v.node).op {
        Op::Const(Constant::I32(_)) => true,
        Op::Unary(UnOp::INeg | UnOp::IAbs) | Op::Binary(_) if m.ty(v) == Ty::I32 => m
            .inputs(v.node)
            .iter()
            .all(|&i| m.ty(i) == Ty::I32 && counter_derived(m, i, depth + 1)),
        _ => false,
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

/// The values `a` takes (`None`: unknown).
fn range(m: &Module, a: &Affine) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (a.c, a.c);
    for &(t, k) in &a.terms {
        let (s, e) = const_bounds(m, t)?;
        let (first, last) = (s, (e - 1).max(s));
        let (x, y) = (k * first, k * last);
        lo += x.min(y);
        hi += x.max(y);
    }
    Some((lo, hi))
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
            if matches!(m.node(origin.node).op, Op::Const(_)) || !counter_derived(m, index, 0) {
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
                affine: affine(m, index, 0),
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
