//! Predication inside ALU clauses (manual §4.9.3-4.9.4, L1998-2026): an
//! `if` whose parts are small runs of plain ALU operations becomes
//! straight-line code in the clause around it instead of
//! `ALU_PUSH_BEFORE`/`JUMP`/`ELSE`/`POP` (chapter 3).
//!
//! The `PRED_SETNE_INT c, 0` that selection put before the `if` loses its
//! `UPDATE_EXEC_MASK` and keeps `UPDATE_PRED` ([`Role::PredSet`]): the
//! clause-local predicate bit, which "takes effect on the next ALU
//! instruction group" (L2002) and "does not persist past the end of an ALU
//! clause" (L2014). The then part's operations get `PRED_SEL_ONE`
//! ([`Role::IfTrue`]), the else part's `PRED_SEL_ZERO` ([`Role::IfFalse`]):
//! "if an instruction is disabled by the predicate bit, then no GPR value
//! is written, the PV and PS registers are not updated" (L2022). So the
//! merge registers need no select: each part writes its own lanes. A
//! part's copy into a merge register of a value only that copy reads is
//! removed, the value's definition writing the merge register directly.
//!
//! Where the scheduler stretched a predicate's range over a clause
//! boundary, the clause builder reports
//! [`super::clause::PREDICATE_CROSSES_CLAUSE`] and `compile` redoes the
//! kernel without this pass.
//!
//! The scheduler keeps the predicate's order (`sched.rs`: predicated ops
//! after their `PRED_SET`, the next `PRED_SET` after them, never two
//! `PRED_SET*` in one group, L1874), the clause builder keeps a
//! predicate's users in its clause and never puts an in-clause
//! `PRED_SET` in an `ALU_PUSH_BEFORE` clause (which pushes "before each
//! PRED_SET*", L1185, L7757), and PV/PS forwarding skips predicated
//! writes (`clause.rs`).
//!
//! When: both parts only plain ALU operations (no fetch, export, nested
//! flow control, `MOVA`, `DOT4`, `KILL`), at most [`MAX_OPS`] of them in
//! all (so the predicate's whole range fits one 128-slot clause with its
//! literals, Table 3.2), and predication no dearer than the branch by the
//! cost model's measure (`cost.rs`): the operations of both parts run
//! (Trans-only ones a group each) against a branch's CF instructions and
//! clause switches plus its dearer part.

use std::collections::HashMap;

use super::cost::R700Cost;
use super::mir::{Block, Item, Mir, Opc, Role, VReg};
use crate::isa::{Op2, UnitClass};
use ctm_ir::cost::CostModel;

/// The most operations (both parts, copies included) an `if` may have to
/// be predicated: with the `PRED_SET` and at most two literal slots per
/// group, 1 + 3 · 40 = 121 ≤ 128 slots, one clause (Table 3.2, L816).
pub const MAX_OPS: usize = 40;

/// Predicates every `if` of `mir` that qualifies, innermost first.
/// Returns how many were predicated.
pub fn run(mir: &mut Mir) -> usize {
    let mut body = std::mem::take(&mut mir.body);
    let mut uses = HashMap::new();
    count_uses(&body, &mut uses);
    let n = block(&mut body, mir, &uses);
    mir.body = body;
    n
}

fn count_uses(block: &Block, uses: &mut HashMap<VReg, u32>) {
    for item in block {
        match item {
            Item::Alu(op) => {
                for v in op.srcs.iter().filter_map(|s| s.vreg()) {
                    *uses.entry(v).or_insert(0) += 1;
                }
            }
            Item::Fetch(f) => {
                for v in f.coord {
                    *uses.entry(v).or_insert(0) += 1;
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
                count_uses(then, uses);
                count_uses(els, uses);
            }
            Item::Loop { body } => count_uses(body, uses),
        }
    }
}

/// The cost of a part in the cost model's slots: one per operation, a
/// group (5) per Trans-only one. `None` when the part cannot be
/// predicated.
fn part_cost(part: &Block) -> Option<u32> {
    part.iter()
        .map(|item| match item {
            Item::Alu(op) if op.role == Role::Plain => {
                Some(if op.opc.unit_class() == UnitClass::Trans {
                    5
                } else {
                    1
                })
            }
            _ => None,
        })
        .sum()
}

fn block(b: &mut Block, mir: &mut Mir, uses: &HashMap<VReg, u32>) -> usize {
    let mut n = 0;
    for item in b.iter_mut() {
        match item {
            Item::If { then, els } => {
                n += block(then, mir, uses);
                n += block(els, mir, uses);
            }
            Item::Loop { body } => n += block(body, mir, uses),
            _ => {}
        }
    }
    let mut k = 1;
    while k < b.len() {
        if qualifies(b, k) {
            let Item::If { then, els } = std::mem::replace(&mut b[k], Item::Loop { body: vec![] })
            else {
                k += 1;
                continue;
            };
            if let Item::Alu(p) = &mut b[k - 1] {
                p.role = Role::PredSet;
            }
            // The parts write disjoint elements, so either order is right;
            // the shorter first (its copies overlap the longer part
            // instead of following its writes of the same merge
            // registers).
            let (then, els) = (
                part(then, Role::IfTrue, mir, uses),
                part(els, Role::IfFalse, mir, uses),
            );
            let mut flat: Block = Vec::with_capacity(then.len() + els.len());
            if els.len() < then.len() {
                flat.extend(els);
                flat.extend(then);
            } else {
                flat.extend(then);
                flat.extend(els);
            }
            let len = flat.len();
            b.splice(k..=k, flat);
            n += 1;
            k += len.max(1);
        } else {
            k += 1;
        }
    }
    n
}

/// Whether `b[k]` is an `if` (after its branch `PRED_SET`) to predicate.
fn qualifies(b: &Block, k: usize) -> bool {
    let (Item::Alu(p), Item::If { then, els }) = (&b[k - 1], &b[k]) else {
        return false;
    };
    if p.role != Role::Predicate || p.opc != Opc::Op2(Op2::PredSetneInt) {
        return false;
    }
    let (Some(t), Some(e)) = (part_cost(then), part_cost(els)) else {
        return false;
    };
    if then.len() + els.len() > MAX_OPS || then.len() + els.len() == 0 {
        return false;
    }
    // Predicated, both parts and the PRED_SET run; branching costs the CF
    // instructions and clause switches plus the dearer part (the IR's
    // comparison, with the PRED_SET for the selects).
    let pred_set = 1;
    t + e + pred_set <= R700Cost.branch_cost() + t.max(e)
}

/// The ops of a part, predicated with `role`; a copy into a merge
/// register of a value defined in the part and read only by the copy is
/// removed, the definition writing the merge register.
fn part(mut ops: Block, role: Role, mir: &Mir, uses: &HashMap<VReg, u32>) -> Block {
    let mut k = 0;
    while k < ops.len() {
        let fold = match &ops[k] {
            Item::Alu(mv)
                if mv.opc == Opc::Op2(Op2::Mov)
                    && !mv.clamp
                    && mv.srcs.len() == 1
                    && !mv.srcs[0].modified() =>
            {
                match (mv.dst, mv.srcs[0].vreg()) {
                    (Some(m), Some(v))
                        if mir.regs[m.0 as usize].merge
                            && uses.get(&v) == Some(&1)
                            && mir.regs[v.0 as usize] == Default::default() =>
                    {
                        ops[..k]
                            .iter()
                            .position(|it| matches!(it, Item::Alu(d) if d.dst == Some(v)))
                            .map(|d| (d, m))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match fold {
            Some((d, m)) => {
                if let Item::Alu(def) = &mut ops[d] {
                    def.dst = Some(m);
                }
                ops.remove(k);
            }
            None => k += 1,
        }
    }
    for it in &mut ops {
        if let Item::Alu(op) = it {
            op.role = role;
        }
    }
    ops
}
