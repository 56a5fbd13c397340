//! The bundle scheduler: list scheduling of each straight-line run of ALU
//! operations (a *segment*) into instruction groups of up to five slots
//! X, Y, Z, W, Trans (manual §4.3-4.4), and, after register allocation,
//! the BANK_SWIZZLE search that makes every group meet the read-port
//! rules (manual §4.7.4-4.7.9), splitting a group when no assignment
//! exists.
//!
//! Before allocation a group is built under the rules that do not depend
//! on register numbers: one op per unit, Trans-only ops in Trans and
//! vector-only ops in X..W (Tables 4.4-4.6), a result's element is its
//! vector slot (the Trans slot writes any element), at most four literal
//! dwords (§4.6.4, digest R12), at most two constant-file address/element
//! pairs (§4.7.5, digest R11), Trans reading at most two constants (R10),
//! at most three distinct registers read per element (§4.7.4), MOVA
//! before its relative reads and not in their group (§4.6.1), and the
//! `PRED_SET`/`KILL` last (§4.8).

use smallvec::SmallVec;

use super::CodegenError;
use super::mir::{AluOp, Mir, Role, Src, VReg};
use crate::isa::{AluGroup, BankSwizzle, Op2, UnitClass};

/// A unit of a group.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Slot {
    /// A vector unit (0 = X .. 3 = W).
    Vec(u8),
    /// The Trans unit.
    Trans,
}

/// A scheduled group: (op index in the segment, unit), in unit order.
pub type Group = SmallVec<[(usize, Slot); 5]>;

/// A scheduled segment.
#[derive(Clone, Debug, Default)]
pub struct Segment {
    /// The operations in program order.
    pub ops: Vec<AluOp>,
    /// The groups, each a list of ops with units.
    pub groups: Vec<Group>,
}

/// The channel each register's writes use, shared by all segments.
#[derive(Clone, Debug)]
pub struct Channels {
    /// Per register.
    pub chan: Vec<Option<u8>>,
    load: [u32; 4],
}

impl Channels {
    /// Channels of `mir`'s registers: the fixed ones now, the rest as the
    /// scheduler places their definitions.
    pub fn new(mir: &Mir) -> Channels {
        Channels {
            chan: mir.regs.iter().map(|r| r.chan).collect(),
            load: [0; 4],
        }
    }

    fn of(&self, v: VReg) -> Option<u8> {
        self.chan.get(v.0 as usize).copied().flatten()
    }
}

struct Dep {
    pred: usize,
    dist: usize,
}

/// The dependences of a segment's ops, each on earlier ops (`dist` 1: a
/// later group; 0: the same group or later). Found through per-register
/// indexes in time linear in the segment (issue 13), not by testing every
/// pair: an op depends on the last writer of each register it reads or
/// writes (earlier writers come before that one through the same rule), a
/// write of a merge register on the reads of it since its last write, a
/// MOVA or relative read on the last MOVA and a MOVA on the relative reads
/// since it. Edges implied by others are left out; they never change a
/// schedule (every chain of them has at least the same distance).
fn dependencies(ops: &[AluOp], mir: &Mir) -> Vec<Vec<Dep>> {
    let mut deps: Vec<Vec<Dep>> = (0..ops.len()).map(|_| Vec::new()).collect();
    let regs = mir.regs.len();
    let mut last_writer: Vec<Option<usize>> = vec![None; regs];
    let mut merge_reads: std::collections::HashMap<u32, Vec<usize>> =
        std::collections::HashMap::new();
    let mut last_mova: Option<usize> = None;
    let mut rel_since_mova: Vec<usize> = Vec::new();
    let mut last_pred_set: Option<usize> = None;
    let mut predicated_since: Vec<usize> = Vec::new();
    let writer = |v: VReg, lw: &[Option<usize>]| lw.get(v.0 as usize).copied().flatten();
    for i in 0..ops.len() {
        let op = &ops[i];
        let reads: SmallVec<[VReg; 3]> = op.srcs.iter().filter_map(|s| s.vreg()).collect();
        let rel = op
            .srcs
            .iter()
            .any(|s| matches!(s.src, Src::ConstRel { .. }));
        let d = &mut deps[i];
        // RAW and WAW.
        for &v in reads.iter().chain(op.dst.iter()) {
            if let Some(j) = writer(v, &last_writer) {
                d.push(Dep { pred: j, dist: 1 });
            }
        }
        // WAR: a merge register written after a read keeps the read
        // first (same group is fine: reads precede writes).
        if let Some(w) = op.dst
            && mir.regs.get(w.0 as usize).is_some_and(|r| r.merge)
            && let Some(readers) = merge_reads.get(&w.0)
        {
            d.extend(readers.iter().map(|&j| Dep { pred: j, dist: 0 }));
        }
        // AR: MOVA before relative reads; the next MOVA after them.
        if (rel || op.role == Role::Mova)
            && let Some(j) = last_mova
        {
            d.push(Dep { pred: j, dist: 1 });
        }
        if op.role == Role::Mova {
            d.extend(rel_since_mova.iter().map(|&j| Dep { pred: j, dist: 1 }));
        }
        // PRED_SET and KILL close the segment.
        if matches!(op.role, Role::Predicate | Role::Kill) {
            d.extend((0..i).map(|j| Dep { pred: j, dist: 0 }));
        }
        // In-clause predication: a new predicate takes effect on the next
        // group (§4.9.3, L2002), so predicated ops follow their PRED_SET
        // and the next PRED_SET* follows them; no two PRED_SET* and no
        // PRED_SET with a KILL in one group (L1874).
        let predicated = matches!(op.role, Role::IfTrue | Role::IfFalse);
        if (predicated || matches!(op.role, Role::PredSet | Role::Predicate | Role::Kill))
            && let Some(j) = last_pred_set
        {
            d.push(Dep { pred: j, dist: 1 });
        }
        if matches!(op.role, Role::PredSet | Role::Predicate) {
            d.extend(predicated_since.iter().map(|&j| Dep { pred: j, dist: 1 }));
        }
        // Update the indexes.
        for &v in &reads {
            if mir.regs.get(v.0 as usize).is_some_and(|r| r.merge) {
                merge_reads.entry(v.0).or_default().push(i);
            }
        }
        if let Some(w) = op.dst {
            if let Some(slot) = last_writer.get_mut(w.0 as usize) {
                *slot = Some(i);
            }
            merge_reads.remove(&w.0);
        }
        if op.role == Role::Mova {
            last_mova = Some(i);
            rel_since_mova.clear();
        }
        if rel {
            rel_since_mova.push(i);
        }
        if op.role == Role::PredSet {
            last_pred_set = Some(i);
            predicated_since.clear();
        }
        if predicated {
            predicated_since.push(i);
        }
    }
    deps
}

fn allowed_slots(op: &AluOp, chans: &Channels) -> SmallVec<[Slot; 5]> {
    let class = op.opc.unit_class();
    // MOVA* writes the AR element of its destination element; relative
    // constant reads use AR.x (INDEX_MODE AR_X, manual §4.6.1).
    if matches!(op.role, Role::Mova | Role::Dot4) {
        return SmallVec::from_slice(&[Slot::Vec(0)]);
    }
    let fixed = op.dst.and_then(|d| chans.of(d));
    let mut out = SmallVec::new();
    let vector_ok = matches!(class, UnitClass::Any | UnitClass::Vector);
    let trans_ok = matches!(class, UnitClass::Any | UnitClass::Trans);
    if vector_ok {
        match fixed {
            Some(c) => out.push(Slot::Vec(c)),
            None => out.extend((0..4).map(Slot::Vec)),
        }
    }
    if trans_ok {
        out.push(Slot::Trans);
    }
    out
}

/// Group-wide resources checked while filling a group.
#[derive(Default, Clone)]
struct Fill {
    used: [bool; 5],
    literals: SmallVec<[u32; 4]>,
    cpairs: SmallVec<[(u8, u8, bool); 2]>,
    /// Per element: (register, read cycles it needs).
    reads: [SmallVec<[(VReg, u8); 4]>; 4],
    has_mova: bool,
    has_rel: bool,
}

fn try_add(fill: &Fill, op: &AluOp, slot: Slot, chans: &Channels) -> Option<Fill> {
    let mut f = fill.clone();
    if op.role == Role::Dot4 {
        if f.used[..4].iter().any(|&u| u) {
            return None;
        }
        f.used[..4].fill(true);
        return add_sources(f, op, slot, chans, true);
    }
    let ix = match slot {
        Slot::Vec(c) => c as usize,
        Slot::Trans => 4,
    };
    if f.used[ix] {
        return None;
    }
    f.used[ix] = true;
    add_sources(f, op, slot, chans, false)
}

fn add_sources(mut f: Fill, op: &AluOp, slot: Slot, chans: &Channels, dot4: bool) -> Option<Fill> {
    let mut consts = 0;
    for s in &op.srcs {
        match s.src {
            Src::Lit(x) => {
                consts += 1;
                if !f.literals.contains(&x) {
                    f.literals.push(x);
                }
            }
            Src::Const { elem, chan } => {
                consts += 1;
                let key = (elem, chan / 2, false);
                if !f.cpairs.contains(&key) {
                    f.cpairs.push(key);
                }
            }
            Src::ConstRel { base, chan } => {
                consts += 1;
                let key = (base, chan / 2, true);
                if !f.cpairs.contains(&key) {
                    f.cpairs.push(key);
                }
            }
            Src::Inline(_) => consts += 1,
            Src::Reg(_) => {}
        }
    }
    // GPR reads: a register read by several source positions of one op
    // needs that many cycles of its element's bank (only src1 = src0 is
    // shared, manual §4.7.7); the bank has three cycles.
    let units: SmallVec<[&[super::mir::Operand]; 4]> = if dot4 {
        op.srcs.chunks(2).collect()
    } else {
        SmallVec::from_slice(&[&op.srcs[..]])
    };
    for srcs in units {
        for (k, s) in srcs.iter().enumerate() {
            let Some(v) = s.vreg() else { continue };
            if k == 1 && srcs[0].vreg() == Some(v) {
                continue;
            }
            let need = srcs
                .iter()
                .enumerate()
                .filter(|&(m, o)| o.vreg() == Some(v) && !(m == 1 && srcs[0].vreg() == Some(v)))
                .count() as u8;
            let c = chans.of(v).unwrap_or(0) as usize;
            match f.reads[c].iter_mut().find(|(r, _)| *r == v) {
                Some((_, n)) => *n = (*n).max(need),
                None => f.reads[c].push((v, need)),
            }
        }
    }
    let over = f
        .reads
        .iter()
        .any(|r| r.iter().map(|&(_, n)| u32::from(n)).sum::<u32>() > 3);
    if f.literals.len() > 4 || f.cpairs.len() > 2 || over {
        return None;
    }
    if dot4
        && op
            .srcs
            .chunks(2)
            .any(|p| p.iter().filter(|o| o.is_const()).count() > 2)
    {
        return None;
    }
    if slot == Slot::Trans && consts > 2 {
        return None;
    }
    let rel = op
        .srcs
        .iter()
        .any(|s| matches!(s.src, Src::ConstRel { .. }));
    if op.role == Role::Mova {
        if f.has_rel || f.has_mova {
            return None;
        }
        f.has_mova = true;
    }
    if rel {
        if f.has_mova {
            return None;
        }
        f.has_rel = true;
    }
    Some(f)
}

/// The segment's lower bound on groups. With `depth` (longest chain of
/// read-after-write dependences ending at an op, the op included) and
/// `height` (the longest starting there), every op of depth ≥ d sits in
/// group d − 1 or later, and every op of height ≥ h in group L − h or
/// earlier, so for each such set S the segment needs d − 1 (or h − 1)
/// groups more than S alone: max(T, ⌈V / 4⌉, ⌈(slots) / 5⌉) for its
/// Trans-only ops T (one Trans unit per group, Table 4.6), vector-only
/// slots V (four vector units, Table 4.5; a `DOT4` takes four) and all its
/// slots. d = h = 1 is max(⌈slots / 5⌉, Trans-only ops, vector-only
/// slots / 4); the largest d is the critical path. Ops competing for the
/// one Trans unit at the same depth (hash's two `FLT_TO_INT`s on its
/// longest path) or many ops after a short chain (a reduction's
/// coordinates: two `MUL`s, then eight `ADD`s) count here.
pub fn lower_bound(ops: &[AluOp], mir: &Mir) -> usize {
    let n = ops.len();
    if n == 0 {
        return 0;
    }
    let fixed = |op: &AluOp| -> Option<usize> {
        if matches!(op.role, Role::Mova | Role::Dot4) || op.opc.unit_class() == UnitClass::Trans {
            return None;
        }
        op.dst
            .and_then(|d| mir.regs.get(d.0 as usize))
            .and_then(|r| r.chan)
            .map(usize::from)
    };
    // Read-after-write edges: each read depends on the last writer so far
    // of its register (kept per register, so linear in the segment).
    let mut last_write: std::collections::HashMap<VReg, usize> = std::collections::HashMap::new();
    let mut preds: Vec<SmallVec<[usize; 3]>> = vec![SmallVec::new(); n];
    for (i, op) in ops.iter().enumerate() {
        for s in op.srcs.iter() {
            if let Some(v) = s.vreg()
                && let Some(&w) = last_write.get(&v)
                && !preds[i].contains(&w)
            {
                preds[i].push(w);
            }
        }
        if let Some(d) = op.dst {
            last_write.insert(d, i);
        }
    }
    let mut depth = vec![1usize; n];
    for i in 0..n {
        for &p in &preds[i] {
            depth[i] = depth[i].max(depth[p] + 1);
        }
    }
    let mut height = vec![1usize; n];
    for i in (0..n).rev() {
        for &p in &preds[i] {
            height[p] = height[p].max(height[i] + 1);
        }
    }
    let crit = depth.iter().copied().max().unwrap_or(1);
    // (Trans-only ops, vector-only slots, slots) per depth and per height.
    let mut by_depth = vec![(0usize, 0usize, 0usize); crit + 1];
    let mut by_height = vec![(0usize, 0usize, 0usize); crit + 1];
    let class: Vec<(usize, usize, usize)> = ops
        .iter()
        .map(|op| {
            let slots = if op.role == Role::Dot4 { 4 } else { 1 };
            match op.opc.unit_class() {
                UnitClass::Trans => (1, 0, slots),
                UnitClass::Vector => (0, slots, slots),
                _ if matches!(op.role, Role::Dot4 | Role::Mova) => (0, slots, slots),
                _ => (0, 0, slots),
            }
        })
        .collect();
    for i in 0..n {
        for (table, k) in [(&mut by_depth, depth[i]), (&mut by_height, height[i])] {
            let e = &mut table[k];
            e.0 += class[i].0;
            e.1 += class[i].1;
            e.2 += class[i].2;
        }
    }
    let need = |(t, v, s): (usize, usize, usize)| t.max(v.div_ceil(4)).max(s.div_ceil(5));
    let mut best = crit;
    // Both sides at once for short windows: the ops of depth ≥ d and
    // height ≥ h sit in groups d − 1 ..= L − h. Those with
    // d + h ≥ crit + 1 − WINDOW_SLACK (off the critical path by at most
    // WINDOW_SLACK) are found through the depth buckets d ..= crit + 1 − h
    // (an op there has depth ≤ crit + 1 − its height), so this stays
    // linear for long chains. ripple's `cos` with its reciprocal and the
    // `sin` beside them: three Trans-only ops in two groups of the path.
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); crit + 1];
    let slack = |i: usize| crit + 1 - depth[i] - height[i];
    for i in 0..n {
        if slack(i) <= WINDOW_SLACK {
            buckets[depth[i]].push(i);
        }
    }
    // Every window of slack ≤ WINDOW_SLACK with d one of those ops'
    // depths: at most WINDOW_SLACK + 1 heights per depth, each scanning at
    // most WINDOW_SLACK + 1 buckets, so O(ops) in all. The depth and the
    // height may come from different ops: tonemap's three LOGs (the
    // depth) and three EXPs (the height) of `pow`, six Trans-only ops in
    // one window.
    for d in 1..=crit {
        if buckets[d].is_empty() {
            continue;
        }
        for h in (crit + 1 - d).saturating_sub(WINDOW_SLACK).max(1)..=crit + 1 - d {
            let mut acc = (0usize, 0usize, 0usize);
            for bucket in &buckets[d..=crit + 1 - h] {
                for &j in bucket {
                    if height[j] >= h {
                        let c = class[j];
                        acc = (acc.0 + c.0, acc.1 + c.1, acc.2 + c.2);
                    }
                }
            }
            best = best.max(d - 1 + h - 1 + need(acc));
        }
    }
    // Results whose element is fixed before scheduling (tuples, merge
    // registers) use that element's vector unit or Trans: in g groups at
    // most g per element, the rest in the Trans slots the Trans-only ops
    // leave (matmul's loop set-up: five copies into x, y, z, y, z).
    let mut per_elem = [(0usize, 0usize); 4];
    for op in ops {
        if let Some(c) = fixed(op) {
            let e = &mut per_elem[c & 3];
            if op.opc.unit_class() == UnitClass::Vector {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    let trans_total: usize = class.iter().map(|c| c.0).sum();
    let mut g = best.max(need(
        class
            .iter()
            .fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2)),
    ));
    while per_elem.iter().any(|&(v, _)| v > g)
        || trans_total
            + per_elem
                .iter()
                .map(|&(v, a)| (v + a).saturating_sub(g))
                .sum::<usize>()
            > g
    {
        g += 1;
    }
    best = best.max(g);
    for table in [&by_depth, &by_height] {
        // Suffix sums: the ops of depth (height) ≥ k.
        let (mut t, mut v, mut s) = (0usize, 0usize, 0usize);
        for k in (1..=crit).rev() {
            t += table[k].0;
            v += table[k].1;
            s += table[k].2;
            best = best.max(k - 1 + need((t, v, s)));
        }
    }
    best
}

/// How far off the critical path (in groups) an op may be for the
/// two-sided windows of [`lower_bound`] to count it.
const WINDOW_SLACK: usize = 3;

/// Schedules one segment into groups, fixing the channel of every result
/// whose channel was free.
///
/// # Errors
/// An internal error if an operation fits no empty group (a selection bug).
pub fn schedule(
    mut ops: Vec<AluOp>,
    mir: &mut Mir,
    chans: &mut Channels,
) -> Result<Segment, CodegenError> {
    close_last(&mut ops);
    let snapshot = (chans.chan.clone(), chans.load);
    loop {
        match schedule_once(&ops, mir, chans) {
            Ok(groups) => return Ok(Segment { ops, groups }),
            Err(Retry::Expand(i)) => {
                // A DOT4 whose operands fit no group (four registers in
                // one bank, too many constants): four MULs and three ADDs.
                chans.chan.clone_from(&snapshot.0);
                chans.load = snapshot.1;
                expand_dot4(&mut ops, i, mir);
                chans.chan.resize(mir.regs.len(), None);
            }
            Err(Retry::Fail(e)) => return Err(e),
        }
    }
}

/// Moves the `KILL*`/`PRED_SET*` that closes the segment after the ops
/// that follow it (copies into an export tuple after a `discard`), which
/// otherwise could land in a later group than it (§4.8 L1872: the KILL is
/// in the clause's last group). Left in place when one of them writes a
/// register it reads; it then never joins a group early (`schedule_once`).
fn close_last(ops: &mut Vec<AluOp>) {
    let Some(k) = ops
        .iter()
        .position(|o| matches!(o.role, Role::Kill | Role::Predicate))
    else {
        return;
    };
    let reads: SmallVec<[VReg; 3]> = ops[k].srcs.iter().filter_map(|s| s.vreg()).collect();
    let clobbered = ops[k + 1..]
        .iter()
        .any(|o| o.dst.is_some_and(|d| reads.contains(&d)));
    if !clobbered {
        let op = ops.remove(k);
        ops.push(op);
    }
}

enum Retry {
    Expand(usize),
    Fail(CodegenError),
}

fn expand_dot4(ops: &mut Vec<AluOp>, i: usize, mir: &mut Mir) {
    let op = ops.remove(i);
    let mk = |opc: Op2, dst: VReg, srcs: &[super::mir::Operand]| AluOp {
        opc: super::mir::Opc::Op2(opc),
        dst: Some(dst),
        srcs: srcs.iter().copied().collect(),
        clamp: false,
        role: Role::Plain,
    };
    let t: Vec<VReg> = (0..6).map(|_| mir.new_reg()).collect();
    let r = super::mir::Operand::reg;
    let d = op.dst.unwrap_or(t[5]);
    let new = [
        mk(Op2::MulIeee, t[0], &op.srcs[0..2]),
        mk(Op2::MulIeee, t[1], &op.srcs[2..4]),
        mk(Op2::MulIeee, t[2], &op.srcs[4..6]),
        mk(Op2::MulIeee, t[3], &op.srcs[6..8]),
        mk(Op2::Add, t[4], &[r(t[0]), r(t[1])]),
        mk(Op2::Add, t[5], &[r(t[2]), r(t[3])]),
        mk(Op2::Add, d, &[r(t[4]), r(t[5])]),
    ];
    for (k, o) in new.into_iter().enumerate() {
        ops.insert(i + k, o);
    }
}

/// How many ready ops, best first, the scheduler tries for one group once
/// the group holds something. Only segments with more ready ops than this
/// at once (none of the examples) schedule differently from a full scan.
const SCAN_LIMIT: usize = 256;

fn schedule_once(ops: &[AluOp], mir: &Mir, chans: &mut Channels) -> Result<Vec<Group>, Retry> {
    let n = ops.len();
    let deps = dependencies(ops, mir);
    // Priority: longest path to the end.
    let mut height = vec![1usize; n];
    for i in (0..n).rev() {
        for d in &deps[i] {
            let h = height[i] + d.dist;
            if h > height[d.pred] {
                height[d.pred] = h;
            }
        }
    }
    // The ready set, kept as dependences are met instead of found by
    // scanning every op for every group (issue 13). An op is ready for a
    // group when all its predecessors are in earlier groups; `dist` is at
    // most 1, so an op whose predecessors are all placed before a group
    // starts is ready for it. An op whose predecessors in the group being
    // filled are all `dist` 0 ones (a closing `PRED_SET`/`KILL`, a merge
    // register written after its reads) may join that group afterwards.
    let mut succs: Vec<SmallVec<[usize; 4]>> = vec![SmallVec::new(); n];
    let mut unmet: Vec<usize> = vec![0; n];
    for (i, ds) in deps.iter().enumerate() {
        unmet[i] = ds.len();
        for d in ds {
            succs[d.pred].push(i);
        }
    }
    let key = |i: usize| (std::cmp::Reverse(height[i]), i);
    let mut pool: std::collections::BTreeSet<(std::cmp::Reverse<usize>, usize)> =
        (0..n).filter(|&i| unmet[i] == 0).map(key).collect();
    let trans_only = |i: usize| ops[i].opc.unit_class() == UnitClass::Trans;
    // Trans-only ops in the pool.
    let mut pool_trans = pool.iter().filter(|&&(_, k)| trans_only(k)).count();
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    let mut groups: Vec<Group> = Vec::new();
    let mut done = 0;
    while done < n {
        let g = groups.len();
        let mut fill = Fill::default();
        let mut group: Group = SmallVec::new();
        // Trans-only ready ops not yet placed in this group.
        let mut trans_waiting = pool_trans;
        // Per element: ready ops whose result's element is fixed to it (a
        // tuple, a merge register) and so can use only its vector unit
        // (or Trans); an op free to pick its element avoids those units
        // (matmul's loop set-up: five copies in one group instead of two).
        let mut demand = [0u32; 4];
        for &(_, i) in pool.iter().take(SCAN_LIMIT) {
            if let Some(c) = fixed_unit(&ops[i], chans) {
                demand[c] += 1;
            }
        }
        // Pass 1: ops that can only use one kind of unit first, so a
        // flexible op does not take the only unit a rigid one can use.
        for (tried, &(_, i)) in pool.iter().enumerate() {
            if fill.used.iter().all(|&u| u) {
                // Full: no op can join (`try_add` needs a free unit).
                break;
            }
            if tried >= SCAN_LIMIT && !group.is_empty() {
                // A group that the best SCAN_LIMIT ready ops did not fill
                // closes, so a segment with thousands of ready ops (wide
                // code) is not scanned whole for every group.
                break;
            }
            let fixed = fixed_unit(&ops[i], chans);
            if let Some(c) = fixed {
                demand[c] -= 1;
            }
            if place(i, ops, chans, &mut fill, &mut group, trans_waiting, &demand) {
                group_of[i] = Some(g);
                done += 1;
                if trans_only(i) {
                    trans_waiting -= 1;
                }
            }
        }
        if group.is_empty() {
            if let Some(&(_, i)) = pool.iter().find(|&&(_, i)| ops[i].role == Role::Dot4) {
                return Err(Retry::Expand(i));
            }
            return Err(Retry::Fail(CodegenError::internal(
                "group-size",
                format!(
                    "no ready operation fits an empty group ({} ready)",
                    pool.len()
                ),
            )));
        }
        // Pass 2: successors through `dist` 0 edges of the group's ops
        // whose other predecessors are in earlier groups (threshold's KILL
        // beside the select it follows: 3 → 2 groups).
        let mut k = 0;
        while k < group.len() && !fill.used.iter().all(|&u| u) {
            let (i, _) = group[k];
            k += 1;
            for &j in &succs[i] {
                if group_of[j].is_some() || pool.contains(&key(j)) {
                    continue;
                }
                // A closing KILL/PRED_SET with ops after it (`close_last`
                // could not move it) waits, as they might not fit here.
                let closing_early =
                    matches!(ops[j].role, Role::Kill | Role::Predicate) && j + 1 < n;
                let joins = !closing_early
                    && deps[j].iter().all(|d| match group_of[d.pred] {
                        Some(p) => p < g || d.dist == 0,
                        None => false,
                    });
                if joins && place(j, ops, chans, &mut fill, &mut group, trans_waiting, &[0; 4]) {
                    group_of[j] = Some(g);
                    done += 1;
                }
            }
        }
        // The group's ops leave the pool; their successors whose
        // predecessors are now all placed join it for the next group.
        let mut members: SmallVec<[usize; 5]> = group.iter().map(|&(i, _)| i).collect();
        members.dedup();
        for i in members {
            if pool.remove(&key(i)) {
                pool_trans -= usize::from(trans_only(i));
            }
            for &j in &succs[i] {
                unmet[j] -= 1;
                if unmet[j] == 0 && group_of[j].is_none() {
                    pool.insert(key(j));
                    pool_trans += usize::from(trans_only(j));
                }
            }
        }
        // The hardware's unit assignment (manual §4.4, PREFER_VECTOR) puts
        // an any-unit op on its element's vector unit when that is free;
        // place it there so the listed order is the assigned one.
        for k in 0..group.len() {
            let (i, s) = group[k];
            if s == Slot::Trans && ops[i].opc.unit_class() == UnitClass::Any {
                let c = ops[i].dst.and_then(|d| chans.of(d)).unwrap_or(0);
                if !group.iter().any(|&(_, t)| t == Slot::Vec(c)) {
                    group[k].1 = Slot::Vec(c);
                }
            }
        }
        group.sort_by_key(|&(_, s)| s);
        groups.push(group);
    }
    Ok(groups)
}

/// The one vector unit op `i` can use when its result's element is
/// fixed (it may still take Trans), `None` when it can choose.
fn fixed_unit(op: &AluOp, chans: &Channels) -> Option<usize> {
    if matches!(op.role, Role::Mova | Role::Dot4) || op.opc.unit_class() == UnitClass::Trans {
        return None;
    }
    op.dst.and_then(|d| chans.of(d)).map(usize::from)
}

/// Places op `i` in the group being filled if some unit takes it under
/// every rule (`try_add`, then the exact read-port check), fixing its
/// result's element when that was free. `trans_waiting` Trans-only ready
/// ops are still to be placed: an any-unit op leaves Trans to them;
/// `demand` counts per element the ready ops still to be placed that
/// need that element's vector unit.
fn place(
    i: usize,
    ops: &[AluOp],
    chans: &mut Channels,
    fill: &mut Fill,
    group: &mut Group,
    trans_waiting: usize,
    demand: &[u32; 4],
) -> bool {
    let slots = allowed_slots(&ops[i], chans);
    // Prefer a vector unit no waiting op needs, then one whose element is
    // least loaded; Trans last.
    let mut order: SmallVec<[Slot; 5]> = slots.clone();
    order.sort_by_key(|s| match s {
        Slot::Vec(c) => (0u32, demand[*c as usize], chans.load[*c as usize]),
        Slot::Trans => (1, 0, 0),
    });
    if ops[i].opc.unit_class() == UnitClass::Any && slots.len() == 5 && trans_waiting > 0 {
        // leave Trans for a Trans-only op
        order.retain(|s| *s != Slot::Trans);
    }
    for s in order {
        let Some(f) = try_add(fill, &ops[i], s, chans) else {
            continue;
        };
        // The exact read-port check (the swizzle search on the group with
        // one pseudo-GPR per register: values read together are live
        // together, so they get distinct GPRs whatever the allocation).
        if !group.is_empty() {
            let mut trial = group.clone();
            if ops[i].role == Role::Dot4 {
                trial.extend((0..4).map(|c| (i, Slot::Vec(c))));
            } else {
                trial.push((i, s));
            }
            if !ports_ok(&trial, ops, chans) {
                continue;
            }
        }
        // A same-group reader of this op's result is impossible (dist ≥ 1),
        // so placing it is safe.
        *fill = f;
        if ops[i].role == Role::Dot4 {
            group.extend((1..4).map(|c| (i, Slot::Vec(c))));
        }
        group.push((i, s));
        if let Some(d) = ops[i].dst
            && chans.of(d).is_none()
        {
            let c = match s {
                Slot::Vec(c) if ops[i].role != Role::Dot4 => c,
                _ => (0..4u8)
                    .min_by_key(|&c| chans.load[c as usize])
                    .unwrap_or(0),
            };
            chans.chan[d.0 as usize] = Some(c);
        }
        if let Some(d) = ops[i].dst
            && let Some(c) = chans.of(d)
        {
            chans.load[c as usize] += 1;
        }
        return true;
    }
    false
}

/// Whether `members` have a legal bank-swizzle assignment, with each
/// register read as its own pseudo-GPR in its element.
fn ports_ok(members: &[(usize, Slot)], ops: &[AluOp], chans: &Channels) -> bool {
    use crate::isa::{AluDst, AluInst, AluSrc, AluSrcSel, Chan, Gpr};
    let chan = |c: u8| [Chan::X, Chan::Y, Chan::Z, Chan::W][(c & 3) as usize];
    let mut sorted: SmallVec<[(usize, Slot); 5]> = members.iter().copied().collect();
    // Any-unit ops in Trans whose element's vector unit is free run there
    // (as the placement normalises them).
    let predicted = (0..4u8)
        .min_by_key(|&c| chans.load[c as usize])
        .unwrap_or(0);
    let dst_chan = |i: usize, s: Slot| -> u8 {
        match s {
            Slot::Vec(c) => c,
            Slot::Trans => ops[i].dst.and_then(|d| chans.of(d)).unwrap_or(predicted),
        }
    };
    for k in 0..sorted.len() {
        let (i, s) = sorted[k];
        if s == Slot::Trans && ops[i].opc.unit_class() == UnitClass::Any {
            let c = dst_chan(i, s);
            if !sorted.iter().any(|&(_, t)| t == Slot::Vec(c)) {
                sorted[k].1 = Slot::Vec(c);
            }
        }
    }
    sorted.sort_by_key(|&(_, s)| s);
    let mut ids: SmallVec<[VReg; 16]> = SmallVec::new();
    let mut lits: SmallVec<[u32; 4]> = SmallVec::new();
    let mut insts: SmallVec<[AluInst; 5]> = SmallVec::new();
    for &(i, s) in &sorted {
        let op = &ops[i];
        let operands: &[super::mir::Operand] = match (op.role, s) {
            (Role::Dot4, Slot::Vec(k)) => &op.srcs[2 * k as usize..2 * k as usize + 2],
            _ => &op.srcs,
        };
        let mut srcs: SmallVec<[AluSrc; 3]> = SmallVec::new();
        for o in operands {
            let mut a = match o.src {
                Src::Reg(v) => {
                    let id = match ids.iter().position(|&x| x == v) {
                        Some(p) => p,
                        None => {
                            ids.push(v);
                            ids.len() - 1
                        }
                    };
                    AluSrc::new(
                        AluSrcSel::Gpr(Gpr::new(id as u32).unwrap_or_default()),
                        chan(chans.of(v).unwrap_or(0)),
                    )
                }
                Src::Const { elem, chan: c } => AluSrc::new(AluSrcSel::Cfile(elem), chan(c)),
                Src::ConstRel { base, chan: c } => {
                    let mut a = AluSrc::new(AluSrcSel::Cfile(base), chan(c));
                    a.rel = true;
                    a
                }
                Src::Lit(x) => {
                    let p = match lits.iter().position(|&l| l == x) {
                        Some(p) => p,
                        None => {
                            lits.push(x);
                            lits.len() - 1
                        }
                    };
                    AluSrc::new(AluSrcSel::Literal, chan(p as u8))
                }
                Src::Inline(c) => AluSrc::new(AluSrcSel::Inline(c), Chan::X),
            };
            a.neg = o.neg;
            srcs.push(a);
        }
        let unused = AluSrc::new(AluSrcSel::Gpr(Gpr::default()), Chan::X);
        let dst = AluDst {
            gpr: Gpr::new(127).unwrap_or_default(),
            rel: false,
            chan: chan(dst_chan(i, s)),
        };
        let inst = match op.opc {
            super::mir::Opc::Op2(o) => AluInst::op2(
                o,
                dst,
                [
                    srcs.first().copied().unwrap_or(unused),
                    srcs.get(1).copied().unwrap_or(unused),
                ],
            ),
            super::mir::Opc::Op3(o) => AluInst::op3(
                o,
                dst,
                [
                    srcs.first().copied().unwrap_or(unused),
                    srcs.get(1).copied().unwrap_or(unused),
                    srcs.get(2).copied().unwrap_or(unused),
                ],
            ),
        };
        insts.push(inst);
    }
    if ids.len() > 120 {
        return true;
    }
    let mut g = AluGroup::with_literals(&insts, &lits);
    assign_bank_swizzles(&mut g)
}

/// Finds bank swizzles for the instructions of `group` (already encoded
/// with registers) so that the read-port rules hold. Returns `false` when
/// no assignment exists.
pub fn assign_bank_swizzles(group: &mut AluGroup) -> bool {
    use crate::validate::group_port_violations;
    if group_port_violations(group).is_empty() {
        return true;
    }
    let units = crate::isa::assign_units(&group.insts, crate::isa::PreferVector::Yes);
    let options: Vec<&[BankSwizzle]> = units
        .iter()
        .map(|u| match u {
            Some(crate::isa::Unit::Trans) => &TRANS_SWIZZLES[..],
            _ => BankSwizzle::ALL,
        })
        .collect();
    // Depth-first over the instructions in order: a prefix that already
    // breaks a read port cannot be completed (reservations only grow), so
    // it is pruned; the prefixes keep the full group's unit assignment
    // (Trans is listed last).
    fn dfs(group: &mut AluGroup, k: usize, options: &[&[BankSwizzle]]) -> bool {
        if k == group.insts.len() {
            return true;
        }
        for &sw in options[k] {
            group.insts[k].bank_swizzle = sw;
            let prefix = AluGroup {
                insts: group.insts[..=k].iter().copied().collect(),
                literals: group.literals.clone(),
            };
            if group_port_violations(&prefix).is_empty() && dfs(group, k + 1, options) {
                return true;
            }
        }
        false
    }
    dfs(group, 0, &options)
}

/// The swizzles the Trans slot accepts (Table 4.3: SCL_210, SCL_122,
/// SCL_212, SCL_221).
const TRANS_SWIZZLES: [BankSwizzle; 4] = [
    BankSwizzle::Vec012,
    BankSwizzle::Vec021,
    BankSwizzle::Vec120,
    BankSwizzle::Vec102,
];
