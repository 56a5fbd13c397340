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
//! Nested `if`s (innermost first): an outer `if` whose then part holds
//! `if`s this pass predicated is predicated too, the inner predicates
//! combined with the outer condition ([`nest`]).
//!
//! When: both parts only plain ALU operations (no fetch, export, nested
//! flow control but such inner `if`s in the then part, `MOVA`, `DOT4`,
//! `KILL`), at most [`MAX_OPS`] of them (with three per inner `if`) in
//! all (so the predicate's whole range fits one 128-slot clause with its
//! literals, Table 3.2), and predication no dearer than the branch by the
//! cost model's measure (`cost.rs`): the operations of both parts run
//! (Trans-only ones a group each) against a branch's CF instructions and
//! clause switches plus its dearer part.

use std::collections::HashMap;

use super::cost::R700Cost;
use smallvec::smallvec;

use super::mir::{AluOp, Block, Item, Mir, Opc, Operand, Role, VReg};
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
/// predicated. With `nested`, the part may hold `if`s predicated before
/// (an in-clause `PRED_SETNE_INT` and its ops, [`nest`]): their ops count
/// as plain ones, their `PRED_SET` a group and the two ops [`nest`] adds.
/// A part holding a `PRED_SETGT_INT` (an `if` nested before, with an
/// else run) is not predicated again: one level of nesting per `if`.
fn part_cost(part: &Block, nested: bool) -> Option<u32> {
    part.iter()
        .map(|item| match item {
            Item::Alu(op)
                if op.role == Role::Plain
                    || (nested && matches!(op.role, Role::IfTrue | Role::IfFalse)) =>
            {
                Some(if op.opc.unit_class() == UnitClass::Trans {
                    5
                } else {
                    1
                })
            }
            Item::Alu(op)
                if nested
                    && op.role == Role::PredSet
                    && op.opc == Opc::Op2(Op2::PredSetneInt)
                    && op.srcs.first().and_then(|s| s.vreg()).is_some() =>
            {
                Some(5 + 2)
            }
            _ => None,
        })
        .sum()
}

/// Extra operations [`nest`] adds per inner `if`: an `AND_INT`, a second
/// `PRED_SET` for the other part, one restoring the outer predicate.
const NEST_OPS: usize = 3;

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
            let mut cond = None;
            if let Item::Alu(p) = &mut b[k - 1] {
                p.role = Role::PredSet;
                cond = p.srcs.first().copied();
            }
            // The parts write disjoint elements, so either order is right;
            // the shorter first (its copies overlap the longer part
            // instead of following its writes of the same merge
            // registers).
            let nested = then
                .iter()
                .any(|it| matches!(it, Item::Alu(op) if op.role == Role::PredSet));
            let then = match cond {
                Some(c) if nested => nest(part(then, None, mir, uses), c, mir),
                _ => part(then, Some(Role::IfTrue), mir, uses),
            };
            let els = part(els, Some(Role::IfFalse), mir, uses);
            let mut flat: Block = Vec::with_capacity(then.len() + els.len());
            if nested || els.len() < then.len() {
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
    // Inner predicated `if`s only in the then part ([`nest`]), whose
    // condition must be a register.
    let nested = p.srcs.first().and_then(|s| s.vreg()).is_some();
    let (Some(t), Some(e)) = (part_cost(then, nested), part_cost(els, false)) else {
        return false;
    };
    let inner = then
        .iter()
        .filter(|it| matches!(it, Item::Alu(op) if op.role == Role::PredSet))
        .count();
    let ops = then.len() + els.len() + NEST_OPS * inner;
    if ops > MAX_OPS || then.len() + els.len() == 0 {
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
fn part(mut ops: Block, role: Option<Role>, mir: &Mir, uses: &HashMap<VReg, u32>) -> Block {
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
                            .filter(|&d| {
                                // Not across an inner predicated `if`.
                                mv.role == Role::Plain
                                    && matches!(&ops[d], Item::Alu(d) if d.role == Role::Plain)
                            })
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
    if let Some(role) = role {
        for it in &mut ops {
            if let Item::Alu(op) = it
                && op.role == Role::Plain
            {
                op.role = role;
            }
        }
    }
    ops
}

/// Nested predication (one predicate bit, §4.9.3-4.9.4): the outer then
/// part `ops` — its own ops plain, to run under the outer `PRED_SETNE_INT
/// cond, 0` with `PRED_SEL_ONE` — with each inner predicated `if` (its
/// `PRED_SETNE_INT c, 0` and its `IfTrue`/`IfFalse` runs) rewritten to
/// predicates that include the outer condition: an unpredicated
/// `AND_INT t, c, cond` (booleans are 0 or −1; `c` is garbage where the
/// outer part is off, its defining ops being predicated off there, and
/// the AND with `cond` = 0 clears it), then `PRED_SETNE_INT t, 0` before
/// an inner then run and `PRED_SETGT_INT t, cond` (t = 0 > cond = −1: the
/// outer part on and the inner condition false) before an inner else run,
/// every run `PRED_SEL_ONE`; `PRED_SETNE_INT cond, 0` restores the outer
/// predicate before the outer ops after the inner `if`. The caller puts
/// the outer else part first, so nothing after the then part needs the
/// outer predicate back.
fn nest(ops: Block, cond: Operand, mir: &mut Mir) -> Block {
    let pred_set = |op: Op2, a: Operand, b: Operand| {
        Item::Alu(AluOp {
            opc: Opc::Op2(op),
            dst: None,
            srcs: smallvec![a, b],
            clamp: false,
            role: Role::PredSet,
        })
    };
    let mut out = Vec::with_capacity(ops.len());
    // The inner condition `t` while inside an inner `if`, and the role of
    // the inner run being emitted.
    let mut inner: Option<VReg> = None;
    let mut run: Option<Role> = None;
    for item in ops {
        let Item::Alu(mut op) = item else {
            out.push(item);
            continue;
        };
        match (op.role, inner) {
            (Role::PredSet, _) => {
                let t = mir.new_reg();
                out.push(Item::Alu(AluOp {
                    opc: Opc::Op2(Op2::AndInt),
                    dst: Some(t),
                    srcs: smallvec![op.srcs[0], cond],
                    clamp: false,
                    role: Role::Plain,
                }));
                inner = Some(t);
                run = None;
            }
            (Role::IfTrue | Role::IfFalse, Some(t)) => {
                if run != Some(op.role) {
                    out.push(if op.role == Role::IfTrue {
                        pred_set(Op2::PredSetneInt, Operand::reg(t), Operand::i32(0))
                    } else {
                        pred_set(Op2::PredSetgtInt, Operand::reg(t), cond)
                    });
                    run = Some(op.role);
                }
                op.role = Role::IfTrue;
                out.push(Item::Alu(op));
            }
            _ => {
                if inner.take().is_some() {
                    out.push(pred_set(Op2::PredSetneInt, cond, Operand::i32(0)));
                }
                if op.role == Role::Plain {
                    op.role = Role::IfTrue;
                }
                out.push(Item::Alu(op));
            }
        }
    }
    out
}
