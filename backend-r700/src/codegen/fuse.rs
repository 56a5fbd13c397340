//! Multiply-add formation on the selected lanes: a `MUL_IEEE` whose every
//! read is an `ADD` of the same block becomes part of each of them
//! (`MULADD_IEEE a, b, c`), so the product is no longer a group of its own
//! on the path (the multiply is left dead for `coalesce` to remove).
//!
//! The IR's pass (`ctm_ir::passes::mad`) forms `mad` where the graph shows
//! it; this one sees what selection makes of the lanes, e.g. a scalar
//! product splatted into a vector sum (`uv + bend * 0.01` in
//! `examples/ripple.ck`). `MULADD_IEEE` rounds the product and then the
//! sum (manual §9 MULADD_IEEE; digest §5.6), as the separate `MUL_IEEE`
//! and `ADD` do, so a result changes only where the product is a
//! denormal the separate multiply would have flushed (the simulator's
//! MULADD keeps it for the addition).

use std::collections::{BTreeMap, HashMap};

use super::mir::{AluOp, Block, Item, Mir, Opc, Operand, RegInfo, Role, Src, VReg};
use crate::isa::{Op2, Op3};

/// Runs the formation over the whole kernel.
pub fn run(mir: &mut Mir) {
    let mut uses = HashMap::new();
    count(&mir.body, &mut uses);
    let mut body = std::mem::take(&mut mir.body);
    block(&mut body, &uses, &mir.regs);
    mir.body = body;
}

/// Reads of every register (operands, coordinates, exports).
fn count(b: &Block, uses: &mut HashMap<VReg, u32>) {
    for item in b {
        let mut regs: Vec<VReg> = Vec::new();
        match item {
            Item::Alu(op) => regs.extend(op.srcs.iter().filter_map(|s| s.vreg())),
            Item::Fetch(f) => regs.extend(f.coord),
            Item::Export { lanes, .. } => regs.extend(lanes.iter().filter_map(|l| l.vreg())),
            Item::MemExport { value, index } => regs.extend([*value, *index]),
            Item::If { then, els } => {
                count(then, uses);
                count(els, uses);
            }
            Item::Loop { body } => count(body, uses),
        }
        for v in regs {
            *uses.entry(v).or_insert(0) += 1;
        }
    }
}

/// A multiply that may be fused: no CLAMP, no ABS on a source (OP3 has no
/// ABS, digest §2.4), no AR-relative read (it would move past a later
/// MOVA), no merge register read (a later write could come between), and
/// a fresh single-write result.
fn fusable_mul(op: &AluOp, regs: &[RegInfo]) -> Option<VReg> {
    if op.opc != Opc::Op2(Op2::MulIeee) || op.clamp || op.role != Role::Plain {
        return None;
    }
    let d = op.dst?;
    let info = regs.get(d.0 as usize)?;
    if info.merge || info.tuple.is_some() || info.gpr.is_some() {
        return None;
    }
    for s in &op.srcs {
        if s.abs || matches!(s.src, Src::ConstRel { .. }) {
            return None;
        }
        if let Some(v) = s.vreg()
            && regs.get(v.0 as usize).is_none_or(|i| i.merge)
        {
            return None;
        }
    }
    Some(d)
}

/// The source index of an `ADD` that reads `v` once, without ABS.
fn add_reading(op: &AluOp, v: VReg) -> Option<usize> {
    if op.opc != Opc::Op2(Op2::Add) || op.role != Role::Plain || op.srcs.len() != 2 {
        return None;
    }
    let hits: Vec<usize> = (0..2).filter(|&k| op.srcs[k].vreg() == Some(v)).collect();
    match hits[..] {
        [k] if !op.srcs[k].abs => Some(k),
        _ => None,
    }
}

/// Distinct constant-file address/element pairs of an op's sources: a
/// group reads at most two (manual §4.7.5, digest R11).
pub(super) fn const_pairs(srcs: &[Operand]) -> usize {
    let mut pairs: Vec<(u8, u8)> = Vec::new();
    for s in srcs {
        if let Src::Const { elem, chan } = s.src
            && !pairs.contains(&(elem, chan / 2))
        {
            pairs.push((elem, chan / 2));
        }
    }
    pairs.len()
}

fn block(b: &mut Block, uses: &HashMap<VReg, u32>, regs: &[RegInfo]) {
    for item in b.iter_mut() {
        match item {
            Item::If { then, els } => {
                block(then, uses, regs);
                block(els, uses, regs);
            }
            Item::Loop { body } => block(body, uses, regs),
            _ => {}
        }
    }
    // The fusable multiplies of this block, then their ADD readers here.
    let mut muls: HashMap<VReg, usize> = HashMap::new();
    for (i, item) in b.iter().enumerate() {
        if let Item::Alu(op) = item
            && let Some(d) = fusable_mul(op, regs)
        {
            muls.insert(d, i);
        }
    }
    if muls.is_empty() {
        return;
    }
    // In register order (the order decides which product an ADD of two
    // products takes): the output must not depend on hashing.
    let mut readers: BTreeMap<VReg, Vec<(usize, usize)>> = BTreeMap::new();
    for (i, item) in b.iter().enumerate() {
        if let Item::Alu(op) = item {
            for s in &op.srcs {
                let Some(v) = s.vreg() else { continue };
                if let (Some(&at), Some(k)) = (muls.get(&v), add_reading(op, v))
                    && at < i
                {
                    readers.entry(v).or_default().push((i, k));
                }
            }
        }
    }
    for (v, adds) in readers {
        if uses.get(&v).copied() != Some(adds.len() as u32) {
            continue;
        }
        let Item::Alu(mul) = &b[muls[&v]] else {
            continue;
        };
        let (x, y) = (mul.srcs[0], mul.srcs[1]);
        let fused: Vec<(usize, AluOp)> = adds
            .iter()
            .filter_map(|&(i, _)| {
                // Read again: an ADD of two products may have been fused
                // with the other one already.
                let Item::Alu(add) = &b[i] else { return None };
                let k = add_reading(add, v)?;
                let read = add.srcs[k];
                let other = add.srcs[1 - k];
                let x = if read.neg { x.negated() } else { x };
                let srcs = [x, y, other];
                // OP3 has no ABS for the addend either (digest §2.4).
                (!other.abs && const_pairs(&srcs) <= 2).then(|| {
                    (
                        i,
                        AluOp {
                            opc: Opc::Op3(Op3::MuladdIeee),
                            dst: add.dst,
                            srcs: srcs.into_iter().collect(),
                            clamp: add.clamp,
                            role: Role::Plain,
                        },
                    )
                })
            })
            .collect();
        // All or none: a multiply some ADD still reads stays, and fusing
        // the others would only add work.
        if fused.len() == adds.len() {
            for (i, op) in fused {
                b[i] = Item::Alu(op);
            }
        }
    }
}
