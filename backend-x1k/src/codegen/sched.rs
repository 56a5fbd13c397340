//! List scheduling of each straight-line block into instruction slots.
//!
//! An X1K ALU instruction runs an RGB (vec3) operation and an independent
//! alpha (scalar) operation side by side (CTM §3.3); texture and
//! flow-control instructions stand alone. The scheduler orders a block's
//! ops by their dependences (read-after-write in a later slot; write-after-
//! read in the same slot or later, since an instruction reads before it
//! writes; overlapping writes in order; UMRT writes in program order and
//! before a `KILL`), highest critical path first, with fetches issued as
//! soon as they are ready and their consumers as late as the path allows
//! (texture latency, CTM §3.4.2). Each ALU slot pairs an RGB op with an
//! alpha op when their sources fit the six source addresses (three RGB,
//! three alpha, shared by both halves: [`fit`]). A scalar op that may run
//! on either unit takes whichever half is free, which decides its
//! register's channel class.
//!
//! Source addresses are physical registers, so two RGB-class values the
//! allocator puts into one register (distinct channels) take one RGB
//! address. When an op and its partner fit the six addresses only that
//! way, the scheduler groups two of the values they read ([`Mir::groups`],
//! at most three RGB lanes together) and the allocator places each group
//! in one register: two scalar differences of four fetched values
//! co-issue (normals' `hx`, `hy`).

use super::CodegenError;
use super::mir::{AluKind, Lane, Mir, MirOp, Node, OpId, RegClass, Special, Src, Unit, VReg};
use smallvec::SmallVec;

/// One instruction slot's worth of ops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bundle {
    /// The op on the RGB unit (the same as `alpha` for two-unit ops).
    pub rgb: Option<OpId>,
    /// The op on the alpha unit.
    pub alpha: Option<OpId>,
    /// A texture op (alone in its slot).
    pub tex: Option<OpId>,
}

/// Schedules every block, in the control tree's depth-first order.
///
/// Records in [`Mir::groups`] the registers it decided must share a
/// physical register.
pub fn schedule(mir: &mut Mir) -> Result<Vec<Vec<Bundle>>, CodegenError> {
    let mut blocks = Vec::new();
    let body = std::mem::take(&mut mir.body);
    let mut share = Share::new(mir);
    walk(mir, &body, &mut blocks, &mut share)?;
    mir.body = body;
    mir.groups = share.groups();
    Ok(blocks)
}

fn walk(
    mir: &mut Mir,
    nodes: &[Node],
    out: &mut Vec<Vec<Bundle>>,
    share: &mut Share,
) -> Result<(), CodegenError> {
    for n in nodes {
        match n {
            Node::Block(ops) => out.push(block(mir, ops, share)?),
            Node::If { then, else_, .. } => {
                walk(mir, then, out, share)?;
                walk(mir, else_, out, share)?;
            }
            Node::Loop { body, .. } => walk(mir, body, out, share)?,
            Node::Break { .. } => {}
        }
    }
    Ok(())
}

/// Pairs of groups to join (at most two).
type Joins = SmallVec<[(VReg, VReg); 2]>;

/// Registers grouped into one physical register: a union-find over the
/// virtual registers, with each group's RGB lanes.
struct Share {
    /// The parent of each register (itself for a group's root).
    parent: Vec<u32>,
    /// RGB lanes of the group rooted here.
    lanes: Vec<u8>,
}

impl Share {
    fn new(mir: &Mir) -> Share {
        Share {
            parent: (0..mir.vregs.len() as u32).collect(),
            lanes: mir.vregs.iter().map(|v| v.width).collect(),
        }
    }

    fn find(&self, v: VReg) -> VReg {
        let mut r = v.0;
        while let Some(&p) = self.parent.get(r as usize) {
            if p == r {
                break;
            }
            r = p;
        }
        VReg(r)
    }

    /// Joins the groups of `a` and `b`.
    fn union(&mut self, a: VReg, b: VReg) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[rb.0 as usize] = ra.0;
            self.lanes[ra.0 as usize] += self.lanes[rb.0 as usize];
        }
    }

    /// Whether the group rooted at `r` may join another: an RGB-class
    /// register (every member: the root stands for its group, whose
    /// members were checked when they joined) not fixed in place and
    /// without pinned channels.
    fn groupable(&self, mir: &Mir, r: VReg) -> bool {
        let info = mir.vreg(r);
        info.class == RegClass::Rgb && info.fixed.is_none() && info.channels.is_none()
    }

    /// Maps the temporaries of `needs` to their groups' roots.
    fn canon(&self, needs: &mut [Need<VReg>]) {
        let map = |k: &mut Option<Key<VReg>>| {
            if let Some(Key::Temp(v)) = k {
                *v = self.find(*v);
            }
        };
        for nd in needs.iter_mut() {
            map(&mut nd.rgb);
            map(&mut nd.alpha);
        }
    }

    /// Joins of groups read through RGB addresses in `needs` (canonical)
    /// that make the needs fit, if any: one join, else two (each group at
    /// most three RGB lanes). Six or more RGB values need two joins to
    /// fit three addresses.
    fn joining(&self, mir: &Mir, needs: &[Need<VReg>]) -> Option<Joins> {
        let mut roots: SmallVec<[(VReg, u8); 6]> = SmallVec::new();
        for nd in needs {
            if let Some(Key::Temp(r)) = nd.rgb
                && !roots.iter().any(|&(x, _)| x == r)
                && self.groupable(mir, r)
            {
                roots.push((r, self.lanes[r.0 as usize]));
            }
        }
        let mut joins = SmallVec::new();
        join_search(needs, &roots, 2, &mut joins).then_some(joins)
    }

    /// The groups of more than one register, each in register order.
    fn groups(&self) -> Vec<Vec<VReg>> {
        let mut by_root: Vec<Vec<VReg>> = vec![Vec::new(); self.parent.len()];
        for v in 0..self.parent.len() as u32 {
            by_root[self.find(VReg(v)).0 as usize].push(VReg(v));
        }
        by_root.into_iter().filter(|g| g.len() > 1).collect()
    }
}

/// Dependence kinds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dep {
    /// The successor goes in a later slot.
    Strict,
    /// The successor may share the slot (write after read).
    Same,
}

/// Lanes `dest` writes.
fn written(op: &MirOp) -> Option<(VReg, u8, u8)> {
    op.dest.map(|(v, l)| (v, l, l + op.width))
}

/// The dependences of a block's ops: for each op, the ops that must come
/// before it and how.
fn dependences(mir: &Mir, ops: &[OpId]) -> Vec<Vec<(usize, Dep)>> {
    let n = ops.len();
    let mut preds: Vec<Vec<(usize, Dep)>> = vec![Vec::new(); n];
    /// What the pair test needs of one op.
    struct Facts {
        written: Option<(VReg, u8, u8)>,
        reads: SmallVec<[VReg; 5]>,
        umrt: bool,
        tex: bool,
        kill: bool,
        output: bool,
    }
    let facts: Vec<Facts> = ops
        .iter()
        .map(|&id| {
            let o = mir.op(id);
            Facts {
                written: written(o),
                reads: o.reads().collect(),
                umrt: o.special == Special::Umrt,
                tex: o.unit == Unit::Tex,
                kill: o.tex == Some(super::mir::TexKind::Kill),
                output: matches!(o.special, Special::Output(..)),
            }
        })
        .collect();
    for j in 0..n {
        let fj = &facts[j];
        for i in 0..j {
            let fi = &facts[i];
            let raw = fi.written.is_some_and(|(v, _, _)| fj.reads.contains(&v));
            let waw = match (fi.written, fj.written) {
                (Some((a, l0, h0)), Some((b, l1, h1))) => a == b && l0 < h1 && l1 < h0,
                _ => false,
            };
            // UMRT writes keep their order, and happen before a later
            // KILL or fetch (a killed processor makes no UMRT write).
            let chain = fi.umrt && (fj.umrt || fj.tex);
            // Outputs come after the block's fetches and KILLs.
            let out_after_tex = fi.tex && fj.output;
            let war = fj.written.is_some_and(|(v, _, _)| fi.reads.contains(&v));
            if raw || waw || chain || out_after_tex {
                preds[j].push((i, Dep::Strict));
            } else if war {
                let kind = if fi.tex || fj.tex {
                    Dep::Strict
                } else {
                    Dep::Same
                };
                preds[j].push((i, kind));
            }
            // An output fused into an op selected before the KILL still
            // goes after it, so the final OUT does the work.
            if fi.output && fj.kill {
                preds[i].push((j, Dep::Strict));
            }
        }
    }
    preds
}

/// For each op, the ops that depend on it (transitively), as bit sets.
fn descendants(preds: &[Vec<(usize, Dep)>]) -> Vec<Vec<u64>> {
    let n = preds.len();
    let words = n.div_ceil(64);
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, ps) in preds.iter().enumerate() {
        for &(i, _) in ps {
            succs[i].push(j);
        }
    }
    let mut desc: Vec<Option<Vec<u64>>> = vec![None; n];
    // Iterative post-order (the graph is acyclic).
    for root in 0..n {
        let mut stack = vec![(root, 0usize)];
        while let Some((v, k)) = stack.pop() {
            if desc[v].is_some() {
                continue;
            }
            if k < succs[v].len() {
                stack.push((v, k + 1));
                let w = succs[v][k];
                if desc[w].is_none() {
                    stack.push((w, 0));
                }
                continue;
            }
            let mut set = vec![0u64; words];
            for &w in &succs[v] {
                set[w / 64] |= 1 << (w % 64);
                if let Some(d) = &desc[w] {
                    for (a, b) in set.iter_mut().zip(d) {
                        *a |= b;
                    }
                }
            }
            desc[v] = Some(set);
        }
    }
    desc.into_iter().map(Option::unwrap_or_default).collect()
}

/// The unit an op will take: its own, or its register's class decides.
fn effective_unit(mir: &Mir, op: &MirOp) -> Unit {
    match (op.unit, op.dest.map(|(v, _)| mir.vreg(v).class)) {
        (Unit::Any, Some(RegClass::Alpha)) => Unit::Alpha,
        (Unit::Any, Some(RegClass::Rgb)) => Unit::Rgb,
        (u, _) => u,
    }
}

/// Schedules one block (see the module doc): coordinates of fetches
/// first, fetches as soon as ready, consumers of fetched values after the
/// block's other fetches (one semaphore wait for all) and after
/// independent work, everything else by critical path; each ALU slot
/// pairs an RGB op with an alpha op whose sources fit.
fn block(mir: &mut Mir, ops: &[OpId], share: &mut Share) -> Result<Vec<Bundle>, CodegenError> {
    let n = ops.len();
    let preds = dependences(mir, ops);
    let desc = descendants(&preds);
    let loads: Vec<bool> = ops
        .iter()
        .map(|&o| matches!(mir.op(o).tex, Some(super::mir::TexKind::Load { .. })))
        .collect();
    let is_load = |i: usize| loads[i];
    // Critical path to the block end (texture results weigh more).
    let mut prio = vec![0u32; n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, ps) in preds.iter().enumerate() {
        for &(i, _) in ps {
            succs[i].push(j);
        }
    }
    // Longest path to the block end, to a fixpoint (preds may point
    // forward: an output after a later KILL). Successors mostly come
    // later, so sweeping from the end converges in one or two rounds.
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let lat = if mir.op(ops[i]).unit == Unit::Tex {
                16
            } else {
                1
            };
            let p = lat + succs[i].iter().map(|&j| prio[j]).max().unwrap_or(0);
            if p != prio[i] {
                prio[i] = p;
                changed = true;
            }
        }
    }
    let mut load_mask = vec![0u64; n.div_ceil(64)];
    for t in (0..n).filter(|&t| is_load(t)) {
        load_mask[t / 64] |= 1 << (t % 64);
    }
    let feeds_load: Vec<bool> = (0..n)
        .map(|i| desc[i].iter().zip(&load_mask).any(|(d, l)| d & l != 0))
        .collect();
    // The fetches each op does not feed (what a consumer of a fetched
    // value waits for).
    let independent_loads: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&t| is_load(t) && desc[i][t / 64] & (1 << (t % 64)) == 0)
                .collect()
        })
        .collect();
    // Unscheduled ops, in index order.
    let mut remaining: Vec<usize> = (0..n).collect();
    let consumes_load: Vec<bool> = (0..n)
        .map(|j| {
            preds[j]
                .iter()
                .any(|&(i, d)| d == Dep::Strict && is_load(i))
        })
        .collect();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    let mut bundles: Vec<Bundle> = Vec::new();
    let mut left = n;
    while left > 0 {
        let cur = bundles.len();
        let deps_met = |i: usize, slot: &[Option<usize>], partner: Option<usize>| {
            slot[i].is_none()
                && preds[i].iter().all(|&(k, d)| match slot[k] {
                    Some(s) => s < cur || (d == Dep::Same && s == cur),
                    None => d == Dep::Same && Some(k) == partner,
                })
        };
        // A consumer of a fetched value waits for the block's fetches that
        // do not depend on it, so one semaphore wait covers them all.
        let deferred = |i: usize, slot: &[Option<usize>]| {
            consumes_load[i] && independent_loads[i].iter().any(|&t| slot[t].is_none())
        };
        let ready: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| deps_met(i, &slot, None))
            .collect();
        let mut cands: Vec<usize> = ready
            .iter()
            .copied()
            .filter(|&i| !deferred(i, &slot))
            .collect();
        let defer = !cands.is_empty();
        if !defer {
            cands = ready;
        }
        if cands.is_empty() {
            return Err(CodegenError::internal(
                "schedule-progress",
                "no op is ready in a block (cyclic dependences)",
            ));
        }
        let key = |i: usize| (feeds_load[i], prio[i], std::cmp::Reverse(i));
        // Fetches as soon as ready, but after the ready coordinate
        // computations of other fetches: then one ALU_WAIT covers them
        // all (CTM §3.2.1).
        let coords_ready = cands
            .iter()
            .any(|&i| feeds_load[i] && mir.op(ops[i]).unit != Unit::Tex);
        if let Some(&t) = cands
            .iter()
            .filter(|&&i| mir.op(ops[i]).unit == Unit::Tex && !coords_ready)
            .max_by_key(|&&i| key(i))
        {
            slot[t] = Some(cur);
            left -= 1;
            remaining.retain(|&i| i != t);
            bundles.push(Bundle {
                tex: Some(ops[t]),
                ..Bundle::default()
            });
            continue;
        }
        let Some(&best) = cands
            .iter()
            .filter(|&&i| mir.op(ops[i]).unit != Unit::Tex)
            .max_by_key(|&&i| key(i))
        else {
            return Err(CodegenError::internal(
                "schedule-progress",
                "only fetches are ready but none was issued",
            ));
        };
        let a = ops[best];
        let unit_a = effective_unit(mir, mir.op(a));
        let mut bundle = Bundle::default();
        slot[best] = Some(cur);
        left -= 1;
        remaining.retain(|&k| k != best);
        if unit_a == Unit::Both {
            bundle.rgb = Some(a);
            bundle.alpha = Some(a);
        } else {
            // Find a partner for the other half.
            // (index, a on rgb, two groups to join for the sources to fit)
            let mut choice: Option<(usize, bool, Option<Joins>)> = None;
            let mut order: Vec<usize> = remaining
                .iter()
                .copied()
                .filter(|&i| i != best && deps_met(i, &slot, Some(best)))
                .filter(|&i| !defer || !deferred(i, &slot))
                .filter(|&i| !matches!(mir.op(ops[i]).unit, Unit::Tex | Unit::Both))
                .collect();
            order.sort_by_key(|&i| std::cmp::Reverse(key(i)));
            // `a`'s needs on either half, once for all candidates.
            let mut a_needs: [SmallVec<[Need<VReg>; 12]>; 2] = Default::default();
            needs_of(mir, mir.op(a), false, &mut a_needs[0]);
            needs_of(mir, mir.op(a), true, &mut a_needs[1]);
            'search: for i in order {
                let ub = effective_unit(mir, mir.op(ops[i]));
                let options: &[bool] = match (unit_a, ub) {
                    (Unit::Rgb, Unit::Alpha | Unit::Any) => &[true],
                    (Unit::Alpha, Unit::Rgb | Unit::Any) => &[false],
                    (Unit::Any, Unit::Rgb) => &[false],
                    (Unit::Any, Unit::Alpha) => &[true],
                    (Unit::Any, Unit::Any) => &[true, false],
                    _ => &[],
                };
                // OUT instructions set neither predicate bits nor the ALU
                // result (CTM §3.1).
                let sets =
                    |o: &MirOp| matches!(o.special, Special::Predicate(_) | Special::AluResult(_));
                let outs = |o: &MirOp| matches!(o.special, Special::Output(..) | Special::Umrt);
                let (oa, ob) = (mir.op(a), mir.op(ops[i]));
                if (sets(oa) && outs(ob)) || (outs(oa) && sets(ob)) {
                    continue;
                }
                for &a_rgb in options {
                    // As `fits_pair`: the RGB op's needs, then the alpha op's.
                    let mut needs: SmallVec<[Need<VReg>; 12]> = SmallVec::new();
                    if a_rgb {
                        needs.extend_from_slice(&a_needs[0]);
                        needs_of(mir, ob, true, &mut needs);
                    } else {
                        needs_of(mir, ob, false, &mut needs);
                        needs.extend_from_slice(&a_needs[1]);
                    }
                    share.canon(&mut needs);
                    if fits(&needs) {
                        choice = Some((i, a_rgb, None));
                        break 'search;
                    }
                    if let Some(join) = share.joining(mir, &needs) {
                        choice = Some((i, a_rgb, Some(join)));
                        break 'search;
                    }
                }
            }
            match choice {
                Some((i, a_rgb, join)) => {
                    for (x, y) in join.into_iter().flatten() {
                        share.union(x, y);
                    }
                    slot[i] = Some(cur);
                    left -= 1;
                    remaining.retain(|&k| k != i);
                    let (r, al) = if a_rgb { (a, ops[i]) } else { (ops[i], a) };
                    bundle.rgb = Some(r);
                    bundle.alpha = Some(al);
                }
                None => match unit_a {
                    Unit::Alpha => bundle.alpha = Some(a),
                    _ => bundle.rgb = Some(a),
                },
            }
        }
        for (half_rgb, id) in [(true, bundle.rgb), (false, bundle.alpha)] {
            if let Some(id) = id {
                resolve(mir, id, half_rgb);
            }
        }
        if !fits_shared(mir, bundle.rgb, bundle.alpha, Some(share)) {
            return Err(CodegenError::internal(
                "source-slots",
                format!("op {a:?} does not fit three source slots"),
            ));
        }
        bundles.push(bundle);
    }
    Ok(bundles)
}

/// Searches up to `depth` joins of two of `roots` (register, RGB lanes)
/// after which `needs` fit; records them in `joins`.
fn join_search(
    needs: &[Need<VReg>],
    roots: &[(VReg, u8)],
    depth: usize,
    joins: &mut Joins,
) -> bool {
    if depth == 0 {
        return false;
    }
    for (i, &(a, la)) in roots.iter().enumerate() {
        for (j, &(b, lb)) in roots.iter().enumerate().skip(i + 1) {
            if la + lb > 3 {
                continue;
            }
            let mut joined: SmallVec<[Need<VReg>; 12]> = SmallVec::from_slice(needs);
            for nd in joined.iter_mut() {
                if nd.rgb == Some(Key::Temp(b)) {
                    nd.rgb = Some(Key::Temp(a));
                }
            }
            joins.push((a, b));
            if fits(&joined) {
                return true;
            }
            let mut rest: SmallVec<[(VReg, u8); 6]> = SmallVec::from_slice(roots);
            rest[i].1 = la + lb;
            rest.remove(j);
            if join_search(&joined, &rest, depth - 1, joins) {
                return true;
            }
            joins.pop();
        }
    }
    false
}

/// Fixes the unit of an op placed on a half, and its register's class.
fn resolve(mir: &mut Mir, id: OpId, rgb: bool) {
    let op = mir.op_mut(id);
    if op.unit == Unit::Any {
        op.unit = if rgb { Unit::Rgb } else { Unit::Alpha };
        if let Some((v, _)) = op.dest {
            let class = if rgb { RegClass::Rgb } else { RegClass::Alpha };
            let info = &mut mir.vregs[v.0 as usize];
            if info.class == RegClass::Undecided {
                info.class = class;
            }
        }
    }
}

/// A source a half reads: a register part (RGB channels or alpha channel)
/// of a temporary, constant or inline constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Key<R: Copy + Eq> {
    /// A temporary.
    Temp(R),
    /// A float constant (index, aL-relative).
    Const(u8, bool),
    /// An inline constant code.
    Inline(u8),
}

/// What one input select needs from its source slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Need<R: Copy + Eq> {
    /// The slot's RGB address must be this.
    pub rgb: Option<Key<R>>,
    /// The slot's alpha address must be this.
    pub alpha: Option<Key<R>>,
    /// A presubtract source pinned to slot 0 or 1.
    pub pinned: Option<u8>,
}

/// The RGB and alpha addresses held by each of the three source slots.
pub type SlotKeys<R> = [(Option<Key<R>>, Option<Key<R>>); 3];

/// Assigns each need a source slot (0..3) so that every slot holds one
/// RGB and one alpha address (CTM §3.3.1, §3.3.3); presubtract sources go
/// to slots 0 and 1 (CTM §3.3.2). `None` if they do not fit.
pub fn fit<R: Copy + Eq>(needs: &[Need<R>]) -> Option<(Vec<u8>, SlotKeys<R>)> {
    let mut slots: SlotKeys<R> = [(None, None); 3];
    // Pinned needs first.
    let mut order: SmallVec<[usize; 12]> = (0..needs.len()).collect();
    order.sort_by_key(|&i| needs[i].pinned.is_none());
    let sorted: SmallVec<[Need<R>; 12]> = order.iter().map(|&i| needs[i]).collect();
    let mut sorted_out: SmallVec<[u8; 12]> = SmallVec::from_elem(0, needs.len());
    if !place(&sorted, 0, &mut slots, &mut sorted_out) {
        return None;
    }
    let mut out = vec![0u8; needs.len()];
    for (k, &i) in order.iter().enumerate() {
        out[i] = sorted_out[k];
    }
    Some((out, slots))
}

/// Whether `needs` fit the source slots ([`fit`] without the assignment).
fn fits<R: Copy + Eq>(needs: &[Need<R>]) -> bool {
    let mut slots: SlotKeys<R> = [(None, None); 3];
    let mut sorted: SmallVec<[Need<R>; 12]> = SmallVec::new();
    sorted.extend(needs.iter().copied().filter(|n| n.pinned.is_some()));
    sorted.extend(needs.iter().copied().filter(|n| n.pinned.is_none()));
    let mut out: SmallVec<[u8; 12]> = SmallVec::from_elem(0, needs.len());
    place(&sorted, 0, &mut slots, &mut out)
}

/// Places needs `k..` into `slots` by backtracking, recording each slot in
/// `out`.
fn place<R: Copy + Eq>(
    needs: &[Need<R>],
    k: usize,
    slots: &mut SlotKeys<R>,
    out: &mut [u8],
) -> bool {
    if k == needs.len() {
        return true;
    }
    let nd = needs[k];
    let range = match nd.pinned {
        Some(p) => p as usize..p as usize + 1,
        None => 0..3,
    };
    for s in range {
        let ok = |have: Option<Key<R>>, want: Option<Key<R>>| match (have, want) {
            (_, None) => true,
            (None, Some(_)) => true,
            (Some(h), Some(w)) => h == w,
        };
        if ok(slots[s].0, nd.rgb) && ok(slots[s].1, nd.alpha) {
            let saved = slots[s];
            if nd.rgb.is_some() {
                slots[s].0 = nd.rgb;
            }
            if nd.alpha.is_some() {
                slots[s].1 = nd.alpha;
            }
            out[k] = s as u8;
            if place(needs, k + 1, slots, out) {
                return true;
            }
            slots[s] = saved;
        }
    }
    false
}

/// The part of a register a lane read needs: `true` for the alpha part.
pub fn lane_in_alpha(mir: &Mir, v: VReg, lane: u8) -> bool {
    let info = mir.vreg(v);
    match info.class {
        RegClass::Alpha => true,
        RegClass::Rgba => lane == 3,
        _ => false,
    }
}

/// The input lanes each half of `op` reads, as (operand index, lanes,
/// half is alpha).
pub fn half_reads(op: &MirOp, half_alpha: bool) -> SmallVec<[(usize, SmallVec<[Lane; 3]>); 3]> {
    let mut out = SmallVec::new();
    let Some(kind) = op.alu else {
        return out;
    };
    let arity = match kind {
        AluKind::Frc | AluKind::Trans(_) => 1,
        AluKind::Min | AluKind::Max | AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4 => 2,
        _ => 3,
    };
    let lanes: SmallVec<[usize; 3]> = match (op.unit, half_alpha, kind) {
        (_, false, AluKind::Trans(_)) => return out,
        (_, false, AluKind::Dp2) => SmallVec::from_slice(&[0, 1]),
        (_, false, AluKind::Dp3 | AluKind::Dp4) => SmallVec::from_slice(&[0, 1, 2]),
        (_, true, AluKind::Dp2 | AluKind::Dp3) => return out,
        (_, true, AluKind::Dp4) => SmallVec::from_slice(&[3]),
        (Unit::Both, true, _) if op.width == 4 => SmallVec::from_slice(&[3]),
        (Unit::Both, true, _) if op.special == Special::Umrt => return out,
        (_, true, _) => SmallVec::from_slice(&[0]),
        (_, false, _) => (0..op.width.min(3) as usize).collect(),
    };
    for (i, arg) in op.args.iter().enumerate().take(arity) {
        out.push((i, lanes.iter().map(|&l| arg.lanes[l]).collect()));
    }
    out
}

/// The needs of one half (virtual keys).
fn needs_of(mir: &Mir, op: &MirOp, half_alpha: bool, needs: &mut SmallVec<[Need<VReg>; 12]>) {
    for (i, lanes) in half_reads(op, half_alpha) {
        let arg = op.args[i];
        let mut nd = Need {
            rgb: None,
            alpha: None,
            pinned: None,
        };
        for l in lanes {
            let Lane::Of(l) = l else { continue };
            let (key, alpha) = match arg.src {
                Src::Reg(v) => (Key::Temp(v), lane_in_alpha(mir, v, l)),
                Src::Const { index, relative } => (Key::Const(index, relative), l == 3),
                Src::Inline(c) => (Key::Inline(c), half_alpha),
                Src::None | Src::Presub => continue,
            };
            if alpha {
                nd.alpha = Some(key);
            } else {
                nd.rgb = Some(key);
            }
        }
        if nd.rgb.is_some() || nd.alpha.is_some() {
            needs.push(nd);
        }
    }
    if let Some((_, s0, s1)) = &op.presub {
        for (pin, s) in [(0u8, s0), (1u8, s1)] {
            let key = match s.src {
                Src::Reg(v) => Key::Temp(v),
                Src::Const { index, relative } => Key::Const(index, relative),
                Src::Inline(c) => Key::Inline(c),
                _ => continue,
            };
            needs.push(Need {
                rgb: (!half_alpha).then_some(key),
                alpha: half_alpha.then_some(key),
                pinned: Some(pin),
            });
        }
    }
}

/// Whether an RGB op and an alpha op (either may be absent, or the same
/// two-unit op) fit one instruction's source slots.
pub fn fits_pair(mir: &Mir, rgb: Option<OpId>, alpha: Option<OpId>) -> bool {
    fits_shared(mir, rgb, alpha, None)
}

/// [`fits_pair`] with the registers of a group sharing their address.
fn fits_shared(mir: &Mir, rgb: Option<OpId>, alpha: Option<OpId>, share: Option<&Share>) -> bool {
    let mut needs: SmallVec<[Need<VReg>; 12]> = SmallVec::new();
    if let Some(r) = rgb {
        needs_of(mir, mir.op(r), false, &mut needs);
    }
    if let Some(a) = alpha {
        needs_of(mir, mir.op(a), true, &mut needs);
    }
    if let Some(share) = share {
        share.canon(&mut needs);
    }
    fits(&needs)
}
