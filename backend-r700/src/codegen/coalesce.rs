//! Machine-IR clean-ups between selection and scheduling:
//!
//! * **Fetch hoisting**: in each straight-line run of ALU ops and
//!   fetches, the ops that compute fetch coordinates go first, then the
//!   fetches, level by level, so independent fetches share one TEX clause
//!   (up to 8, Table 3.2) and stay in flight together, and the ALU work
//!   around them packs into fewer clauses (a clause switch costs a CF
//!   round trip, manual §3.1). The order stays a topological order: a
//!   write to a merge register stays after the reads of its old value,
//!   `MOVA_INT` after the relative reads of the previous one, the closing
//!   `PRED_SET`/`KILL` last.
//! * **Dead code**: plain ALU ops whose result nothing reads (a `SET*`
//!   whose only use became a `CND*`) are removed.
//! * **Copy coalescing**: a `MOV` into a tuple register (fetch
//!   coordinates, exported values, scatter operands) from a register
//!   with one definition and no other use is removed, the definition
//!   writing the tuple register directly; also where the source has other
//!   uses, if the tuple register has no other definition: those uses then
//!   read the tuple register; and from a merge register (an `if`'s or a
//!   loop's result) whose only use is the copy: every path then writes
//!   the tuple register (saving, after an `if` around a loop, the clause
//!   and CF instruction of the copy before an export); and an `if`'s
//!   result copied into another merge register (a loop variable) with
//!   nothing touching that register in between: the `if` writes it
//!   directly, and the part that passed it through copies nothing.
//! * **Exports last**: ALU ops between the pixel exports of a block move
//!   before the first of them (grayscale's copy of alpha into the second
//!   output: an ALU clause, its CF instruction and a group saved), in
//!   order, while none writes a register an export it passes reads.

use std::collections::HashMap;

use super::mir::{Block, Item, Lane, Mir, Opc, Role, Src, VReg};
use crate::isa::Op2;

/// Runs both clean-ups on `mir`.
pub fn run(mir: &mut Mir) {
    let mut body = std::mem::take(&mut mir.body);
    dead_code(&mut body);
    hoist(&mut body, mir);
    coalesce(&mut body, mir);
    merge_copies(&mut body, mir);
    exports_last(&mut body);
    mir.body = body;
}

/// Moves the ALU ops that follow a pixel export in a run of ALU ops and
/// exports before the run's first export, keeping their order, until one
/// cannot move: it writes a register an export it would pass reads, or is
/// a `KILL`/`PRED_SET`/predicated op (whose place relative to the exports
/// matters). Nothing moves where the exports follow a `KILL`, which must
/// stay its segment's last op.
fn exports_last(block: &mut Block) {
    for item in block.iter_mut() {
        match item {
            Item::If { then, els } => {
                exports_last(then);
                exports_last(els);
            }
            Item::Loop { body } => exports_last(body),
            _ => {}
        }
    }
    let mut i = 0;
    while i < block.len() {
        if !matches!(block[i], Item::Export { .. }) {
            i += 1;
            continue;
        }
        // block[i] is the first export of a run; `at` where the next moved
        // op goes (after the ones already moved, before the exports). Not
        // after a closing `KILL` (§4.8 L1872: last in its clause).
        if i > 0 && matches!(&block[i - 1], Item::Alu(op) if op.role != Role::Plain) {
            i += 1;
            continue;
        }
        let mut at = i;
        let mut j = i;
        let mut read: Vec<VReg> = Vec::new();
        while j < block.len() {
            match &block[j] {
                Item::Export { lanes, .. } => {
                    read.extend(lanes.iter().filter_map(|l| match l {
                        Lane::Reg(v) => Some(*v),
                        _ => None,
                    }));
                    j += 1;
                }
                Item::Alu(op)
                    if op.role == Role::Plain && op.dst.is_none_or(|d| !read.contains(&d)) =>
                {
                    let moved = block.remove(j);
                    block.insert(at, moved);
                    at += 1;
                    j += 1;
                }
                _ => break,
            }
        }
        i = j.max(i + 1);
    }
}

/// Whether `item` (nested blocks included) reads or writes `v`.
fn touches(item: &Item, v: VReg) -> bool {
    match item {
        Item::Alu(op) => op.dst == Some(v) || op.srcs.iter().any(|s| s.vreg() == Some(v)),
        Item::Fetch(f) => f.coord.contains(&v) || f.dst.contains(&Some(v)),
        Item::Export { lanes, .. } => lanes.iter().any(|l| l.vreg() == Some(v)),
        Item::MemExport { value, index } => *value == v || *index == v,
        Item::If { then, els } => then.iter().chain(els).any(|i| touches(i, v)),
        Item::Loop { body } => body.iter().any(|i| touches(i, v)),
    }
}

/// Whether `part` writes `m` only in its trailing run of plain ALU ops, and
/// that run does not touch `v` (so writing `v` there instead of `m` is
/// what the copy after the `if` would have done).
fn trailing_writes(part: &Block, m: VReg, v: VReg) -> bool {
    let first = part.iter().position(|i| touches(i, m));
    first.is_none_or(|f| {
        part[f..].iter().all(|i| match i {
            Item::Alu(op) => {
                let pass_through =
                    op.dst == Some(m) && op.srcs.len() == 1 && op.srcs[0].vreg() == Some(v);
                op.role == Role::Plain
                    && !op.srcs.iter().any(|s| s.vreg() == Some(m))
                    && (pass_through || !touches(i, v))
            }
            _ => false,
        })
    })
}

/// Copies between merge registers: an `if`'s result `m` whose only use is
/// a later `MOV v, m` into another merge register `v` (a loop variable, or
/// an outer `if`'s result), with nothing in between touching `v`: the
/// `if`'s parts write `v` directly, and a part's `MOV m, v` (the value
/// passed through) disappears. A loop guarded by an `if` inside a loop
/// body had two copies and two one-`MOV` clauses per level.
fn merge_copies(block: &mut Block, mir: &mut Mir) {
    for item in block.iter_mut() {
        match item {
            Item::If { then, els } => {
                merge_copies(then, mir);
                merge_copies(els, mir);
            }
            Item::Loop { body } => merge_copies(body, mir),
            _ => {}
        }
    }
    let mut uses = HashMap::new();
    let mut defs = HashMap::new();
    count(block, &mut uses, &mut defs);
    let mut j = 0;
    while j < block.len() {
        let copy = match &block[j] {
            Item::Alu(op)
                if op.opc == Opc::Op2(Op2::Mov)
                    && op.role == Role::Plain
                    && !op.clamp
                    && op.srcs.len() == 1
                    && !op.srcs[0].modified() =>
            {
                op.dst.zip(op.srcs[0].vreg())
            }
            _ => None,
        };
        let Some((v, m)) = copy else {
            j += 1;
            continue;
        };
        let (mi, vi) = (mir.regs[m.0 as usize], mir.regs[v.0 as usize]);
        let ok_regs = m != v
            && mi.merge
            && vi.merge
            && mi.tuple.is_none()
            && vi.tuple.is_none()
            && mi.gpr.is_none()
            && vi.gpr.is_none()
            && uses.get(&m) == Some(&1);
        // The `if` writing `m`: the nearest item before the copy touching
        // `m`, holding all of `m`'s definitions; nothing between touches `v`.
        let at = ok_regs
            .then(|| (0..j).rev().find(|&i| touches(&block[i], m)))
            .flatten();
        let fits = at.is_some_and(|i| {
            let Item::If { then, els } = &block[i] else {
                return false;
            };
            let mut inner = (HashMap::new(), HashMap::new());
            count(then, &mut inner.0, &mut inner.1);
            count(els, &mut inner.0, &mut inner.1);
            inner.1.get(&m) == defs.get(&m)
                && block[i + 1..j].iter().all(|it| !touches(it, v))
                && block[..i].iter().all(|it| !touches(it, m))
                && trailing_writes(then, m, v)
                && trailing_writes(els, m, v)
        });
        match (fits, at) {
            (true, Some(i)) => {
                if let Item::If { then, els } = &mut block[i] {
                    for part in [then, els] {
                        rename_writes(part, m, v);
                        part.retain(|it| {
                            !matches!(it, Item::Alu(op) if op.opc == Opc::Op2(Op2::Mov)
                                && op.dst == Some(v) && op.srcs.len() == 1
                                && op.srcs[0].vreg() == Some(v) && !op.srcs[0].modified()
                                && !op.clamp)
                        });
                    }
                }
                block.remove(j);
            }
            _ => j += 1,
        }
    }
}

fn rename_writes(part: &mut Block, m: VReg, v: VReg) {
    for it in part.iter_mut() {
        if let Item::Alu(op) = it
            && op.dst == Some(m)
        {
            op.dst = Some(v);
        }
    }
}

fn hoist(block: &mut Block, mir: &Mir) {
    for item in block.iter_mut() {
        match item {
            Item::If { then, els } => {
                hoist(then, mir);
                hoist(els, mir);
            }
            Item::Loop { body } => hoist(body, mir),
            _ => {}
        }
    }
    let mut start = 0;
    while start < block.len() {
        let mut end = start;
        while end < block.len() && matches!(block[end], Item::Alu(_) | Item::Fetch(_)) {
            end += 1;
        }
        if end > start + 1
            && block[start..end]
                .iter()
                .any(|i| matches!(i, Item::Fetch(_)))
        {
            sort_run(&mut block[start..end], mir);
        }
        start = end.max(start + 1);
    }
}

fn sort_run(run: &mut [Item], mir: &Mir) {
    let n = run.len();
    // Dependencies on earlier items: RAW, a merge register's write after
    // its earlier reads and writes, MOVA after relative reads and MOVAs,
    // relative reads after their MOVA.
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut def_of: HashMap<VReg, usize> = HashMap::new();
    let mut readers: HashMap<VReg, Vec<usize>> = HashMap::new();
    let (mut last_mova, mut rel_readers): (Option<usize>, Vec<usize>) = (None, Vec::new());
    for (i, item) in run.iter().enumerate() {
        let (reads, writes): (Vec<VReg>, Vec<VReg>) = match item {
            Item::Alu(op) => (
                op.srcs.iter().filter_map(|s| s.vreg()).collect(),
                op.dst.into_iter().collect(),
            ),
            Item::Fetch(f) => (f.coord.to_vec(), f.dst.iter().flatten().copied().collect()),
            _ => (Vec::new(), Vec::new()),
        };
        for v in &reads {
            if let Some(&d) = def_of.get(v) {
                deps[i].push(d);
            }
        }
        for w in &writes {
            if mir.regs[w.0 as usize].merge {
                deps[i].extend(readers.get(w).into_iter().flatten().copied());
                if let Some(&d) = def_of.get(w) {
                    deps[i].push(d);
                }
            }
        }
        if let Item::Alu(op) = item {
            let rel = op
                .srcs
                .iter()
                .any(|s| matches!(s.src, Src::ConstRel { .. }));
            if rel {
                deps[i].extend(last_mova);
                rel_readers.push(i);
            }
            if op.role == Role::Mova {
                deps[i].append(&mut rel_readers);
                deps[i].extend(last_mova);
                last_mova = Some(i);
            }
        }
        for v in reads {
            readers.entry(v).or_default().push(i);
        }
        for w in writes {
            def_of.insert(w, i);
        }
    }
    // Fetch levels: how many fetches lie on the longest chain into an item.
    let mut level = vec![0u32; n];
    for i in 0..n {
        let l = deps[i]
            .iter()
            .map(|&d| level[d] + u32::from(matches!(run[d], Item::Fetch(_))))
            .max()
            .unwrap_or(0);
        level[i] = l;
    }
    let top = (0..n)
        .filter(|&i| matches!(run[i], Item::Fetch(_)))
        .map(|i| level[i] + 1)
        .max()
        .unwrap_or(0);
    // Items a fetch needs must precede it; the rest wait for the last
    // fetch, so they share the clauses after it.
    let mut feeds = vec![false; n];
    for i in (0..n).rev() {
        if matches!(run[i], Item::Fetch(_)) || feeds[i] {
            for &d in &deps[i] {
                feeds[d] = true;
            }
        }
    }
    let mut key = vec![0u32; n];
    for i in 0..n {
        let base = match &run[i] {
            Item::Fetch(_) => 2 * level[i] + 1,
            Item::Alu(op) if matches!(op.role, Role::Predicate | Role::Kill) => u32::MAX,
            _ if feeds[i] => 2 * level[i],
            _ => 2 * top,
        };
        key[i] = deps[i].iter().map(|&d| key[d]).fold(base, u32::max);
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (key[i], i));
    let items: Vec<Item> = order.iter().map(|&i| run[i].clone()).collect();
    for (slot, item) in run.iter_mut().zip(items) {
        *slot = item;
    }
}

/// Removes plain ALU ops whose result nothing reads, to a fixed point.
fn dead_code(block: &mut Block) {
    loop {
        let (mut uses, mut defs) = (HashMap::new(), HashMap::new());
        count(block, &mut uses, &mut defs);
        if !remove_dead(block, &uses) {
            return;
        }
    }
}

fn remove_dead(block: &mut Block, uses: &HashMap<VReg, u32>) -> bool {
    let before = block.len();
    block.retain(|item| match item {
        Item::Alu(op) => {
            !(op.role == Role::Plain && op.dst.is_some_and(|d| !uses.contains_key(&d)))
        }
        _ => true,
    });
    let mut changed = block.len() != before;
    for item in block.iter_mut() {
        match item {
            Item::If { then, els } => {
                changed |= remove_dead(then, uses);
                changed |= remove_dead(els, uses);
            }
            Item::Loop { body } => changed |= remove_dead(body, uses),
            _ => {}
        }
    }
    changed
}

fn count(block: &Block, uses: &mut HashMap<VReg, u32>, defs: &mut HashMap<VReg, u32>) {
    for item in block {
        match item {
            Item::Alu(op) => {
                for v in op.srcs.iter().filter_map(|s| s.vreg()) {
                    *uses.entry(v).or_insert(0) += 1;
                }
                if let Some(d) = op.dst {
                    *defs.entry(d).or_insert(0) += 1;
                }
            }
            Item::Fetch(f) => {
                for v in f.coord {
                    *uses.entry(v).or_insert(0) += 1;
                }
                for v in f.dst.iter().flatten() {
                    *defs.entry(*v).or_insert(0) += 1;
                }
            }
            Item::Export { lanes, .. } => {
                for v in lanes.iter().filter_map(|l| l.vreg()) {
                    *uses.entry(v).or_insert(0) += 1;
                }
            }
            Item::MemExport { value, index } => {
                *uses.entry(*value).or_insert(0) += 1;
                *uses.entry(*index).or_insert(0) += 1;
            }
            Item::If { then, els } => {
                count(then, uses, defs);
                count(els, uses, defs);
            }
            Item::Loop { body } => count(body, uses, defs),
        }
    }
}

fn find_moves(
    block: &Block,
    mir: &Mir,
    uses: &HashMap<VReg, u32>,
    defs: &HashMap<VReg, u32>,
    alu_defined: &std::collections::HashSet<VReg>,
    out: &mut HashMap<VReg, VReg>,
) {
    for item in block {
        match item {
            Item::Alu(op) => {
                let (Some(t), [s]) = (op.dst, op.srcs.as_slice()) else {
                    continue;
                };
                let Some(v) = s.vreg() else { continue };
                let ti = &mir.regs[t.0 as usize];
                let vi = &mir.regs[v.0 as usize];
                if op.opc == Opc::Op2(Op2::Mov)
                    && !op.clamp
                    && op.role == Role::Plain
                    && !s.modified()
                    && ti.tuple.is_some()
                    && ti.gpr.is_none()
                    && vi.tuple.is_none()
                    && vi.gpr.is_none()
                    && alu_defined.contains(&v)
                    && !out.contains_key(&v)
                {
                    let single = vi.chan.is_none()
                        && !vi.merge
                        && (uses.get(&v) == Some(&1) || (defs.get(&t) == Some(&1) && !ti.merge))
                        && defs.get(&v) == Some(&1);
                    // A merge register (an `if`'s or loop's result, its
                    // element chosen freely by selection) read only by
                    // this copy: its writes on every path write the
                    // tuple register instead, which then is a merge
                    // register in the tuple's element.
                    let merged = vi.merge
                        && !ti.merge
                        && uses.get(&v) == Some(&1)
                        && defs.get(&t) == Some(&1);
                    if single || merged {
                        out.insert(v, t);
                    }
                }
            }
            Item::If { then, els } => {
                find_moves(then, mir, uses, defs, alu_defined, out);
                find_moves(els, mir, uses, defs, alu_defined, out);
            }
            Item::Loop { body } => find_moves(body, mir, uses, defs, alu_defined, out),
            _ => {}
        }
    }
}

fn alu_defs(block: &Block, out: &mut std::collections::HashSet<VReg>) {
    for item in block {
        match item {
            Item::Alu(op) => {
                if let Some(d) = op.dst {
                    out.insert(d);
                }
            }
            Item::If { then, els } => {
                alu_defs(then, out);
                alu_defs(els, out);
            }
            Item::Loop { body } => alu_defs(body, out),
            _ => {}
        }
    }
}

fn rewrite(block: &mut Block, map: &HashMap<VReg, VReg>) {
    block.retain(|item| match item {
        Item::Alu(op) => {
            !(op.opc == Opc::Op2(Op2::Mov)
                && op.srcs.len() == 1
                && op.srcs[0]
                    .vreg()
                    .is_some_and(|v| map.get(&v) == op.dst.as_ref()))
        }
        _ => true,
    });
    let renamed = |v: &mut VReg| {
        if let Some(&t) = map.get(v) {
            *v = t;
        }
    };
    for item in block.iter_mut() {
        match item {
            Item::Alu(op) => {
                if let Some(d) = op.dst
                    && let Some(&t) = map.get(&d)
                {
                    op.dst = Some(t);
                }
                // Other reads of a source with several uses read the
                // tuple register, which (one definition) holds the same
                // value from the same point on.
                for src in op.srcs.iter_mut() {
                    if let Src::Reg(v) = &mut src.src {
                        renamed(v);
                    }
                }
            }
            Item::Fetch(f) => {
                for v in f.coord.iter_mut() {
                    renamed(v);
                }
            }
            Item::Export { lanes, .. } => {
                for l in lanes.iter_mut() {
                    if let Lane::Reg(v) = l {
                        renamed(v);
                    }
                }
            }
            Item::MemExport { value, index } => {
                renamed(value);
                renamed(index);
            }
            Item::If { then, els } => {
                rewrite(then, map);
                rewrite(els, map);
            }
            Item::Loop { body } => rewrite(body, map),
        }
    }
}

fn coalesce(block: &mut Block, mir: &mut Mir) {
    let (mut uses, mut defs) = (HashMap::new(), HashMap::new());
    count(block, &mut uses, &mut defs);
    let mut alu_defined = std::collections::HashSet::new();
    alu_defs(block, &mut alu_defined);
    let mut map = HashMap::new();
    find_moves(block, mir, &uses, &defs, &alu_defined, &mut map);
    // A definition without a unit for the tuple's element (MOVA has no
    // result) never appears: only ops with a result define registers.
    if !map.is_empty() {
        for (v, t) in &map {
            if mir.regs[v.0 as usize].merge {
                mir.regs[t.0 as usize].merge = true;
            }
        }
        rewrite(block, &map);
    }
}
