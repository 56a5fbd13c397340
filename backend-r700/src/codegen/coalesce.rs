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
//! * **Copy coalescing**: a `MOV` into a tuple register (fetch
//!   coordinates, exported values, scatter operands) from a register
//!   with one definition and no other use is removed, the definition
//!   writing the tuple register directly.

use std::collections::HashMap;

use super::mir::{Block, Item, Mir, Opc, Role, Src, VReg};
use crate::isa::Op2;

/// Runs both clean-ups on `mir`.
pub fn run(mir: &mut Mir) {
    let mut body = std::mem::take(&mut mir.body);
    hoist(&mut body, mir);
    coalesce(&mut body, mir);
    mir.body = body;
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
    let mut level: HashMap<VReg, u32> = HashMap::new();
    let mut readers_of: HashMap<VReg, u32> = HashMap::new();
    let (mut ar, mut rel_readers) = (0u32, 0u32);
    let mut keys = Vec::with_capacity(run.len());
    for item in run.iter() {
        let key = match item {
            Item::Alu(op) => {
                let mut l = op
                    .srcs
                    .iter()
                    .filter_map(|s| s.vreg())
                    .map(|v| level.get(&v).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                let rel = op
                    .srcs
                    .iter()
                    .any(|s| matches!(s.src, Src::ConstRel { .. }));
                if rel {
                    l = l.max(ar);
                }
                if op.role == Role::Mova {
                    l = l.max(rel_readers);
                }
                if let Some(d) = op.dst
                    && mir.regs[d.0 as usize].merge
                {
                    l = l.max(readers_of.get(&d).copied().unwrap_or(0));
                }
                let closing = matches!(op.role, Role::Predicate | Role::Kill);
                for v in op.srcs.iter().filter_map(|s| s.vreg()) {
                    let e = readers_of.entry(v).or_insert(0);
                    *e = (*e).max(l);
                }
                if rel {
                    rel_readers = rel_readers.max(l);
                }
                if op.role == Role::Mova {
                    ar = l;
                }
                if let Some(d) = op.dst {
                    level.insert(d, l);
                }
                if closing { u32::MAX } else { 2 * l }
            }
            Item::Fetch(f) => {
                let l = f
                    .coord
                    .iter()
                    .map(|v| level.get(v).copied().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                for v in f.coord {
                    let e = readers_of.entry(v).or_insert(0);
                    *e = (*e).max(l);
                }
                for v in f.dst.iter().flatten() {
                    level.insert(*v, l + 1);
                }
                2 * l + 1
            }
            _ => u32::MAX,
        };
        keys.push(key);
    }
    let mut order: Vec<usize> = (0..run.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    let items: Vec<Item> = order.iter().map(|&i| run[i].clone()).collect();
    for (slot, item) in run.iter_mut().zip(items) {
        *slot = item;
    }
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
                    && vi.chan.is_none()
                    && vi.tuple.is_none()
                    && vi.gpr.is_none()
                    && !vi.merge
                    && uses.get(&v) == Some(&1)
                    && defs.get(&v) == Some(&1)
                    && alu_defined.contains(&v)
                {
                    out.insert(v, t);
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
    for item in block.iter_mut() {
        match item {
            Item::Alu(op) => {
                if let Some(d) = op.dst
                    && let Some(&t) = map.get(&d)
                {
                    op.dst = Some(t);
                }
            }
            Item::If { then, els } => {
                rewrite(then, map);
                rewrite(els, map);
            }
            Item::Loop { body } => rewrite(body, map),
            _ => {}
        }
    }
}

fn coalesce(block: &mut Block, mir: &Mir) {
    let (mut uses, mut defs) = (HashMap::new(), HashMap::new());
    count(block, &mut uses, &mut defs);
    let mut alu_defined = std::collections::HashSet::new();
    alu_defs(block, &mut alu_defined);
    let mut map = HashMap::new();
    find_moves(block, mir, &uses, &defs, &alu_defined, &mut map);
    // A definition without a unit for the tuple's element (MOVA has no
    // result) never appears: only ops with a result define registers.
    if !map.is_empty() {
        rewrite(block, &map);
    }
}
