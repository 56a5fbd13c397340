//! Products shared again where the constant file limits a group: the
//! reverse of [`super::fuse`] for `MULADD_IEEE`s of one block that share
//! their product and each read two constant-file pairs (manual §4.7.5,
//! digest R11). Run after `fuse`, which would otherwise merge them back.

use super::fuse::const_pairs;
use super::mir::{AluOp, Block, Item, Mir, Opc, Operand, Role, Src};
use crate::isa::{Op2, Op3};

/// Shares the products of constant-bound multiply-adds: `MULADD_IEEE`s of
/// one block sharing their product `a · b` (the IR's `mad` formation
/// copies a product into each of its sums) and each reading two
/// constant-file pairs, so that at most the ones with the same pairs fit
/// a group (manual §4.7.5, digest R11), become one `MUL_IEEE` and an
/// `ADD` each: the ADDs read one pair each, four of them fit a group
/// (the fetch coordinates of the reduction passes: 4 groups → 3). Same
/// roundings (the product is rounded either way).
pub fn run(mir: &mut Mir) {
    let mut body = std::mem::take(&mut mir.body);
    share_block(&mut body, mir);
    mir.body = body;
}

fn share_block(b: &mut Block, mir: &mut Mir) {
    for item in b.iter_mut() {
        match item {
            Item::If { then, els } => {
                share_block(then, mir);
                share_block(els, mir);
            }
            Item::Loop { body } => share_block(body, mir),
            _ => {}
        }
    }
    // Candidates by product, in block order.
    let mut by_product: Vec<((Operand, Operand), Vec<usize>)> = Vec::new();
    for (i, item) in b.iter().enumerate() {
        let Item::Alu(op) = item else { continue };
        if op.opc != Opc::Op3(Op3::MuladdIeee) || op.role != Role::Plain || op.srcs.len() != 3 {
            continue;
        }
        let (x, y) = (op.srcs[0], op.srcs[1]);
        let plain = |o: Operand| !o.modified() && !matches!(o.src, Src::ConstRel { .. });
        let merge = |o: Operand| o.vreg().is_some_and(|v| mir.regs[v.0 as usize].merge);
        if !plain(x) || !plain(y) || merge(x) || merge(y) || const_pairs(&op.srcs) < 2 {
            continue;
        }
        match by_product.iter_mut().find(|(k, _)| *k == (x, y)) {
            Some((_, v)) => v.push(i),
            None => by_product.push(((x, y), vec![i])),
        }
    }
    let mut inserts: Vec<(usize, AluOp)> = Vec::new();
    for ((x, y), users) in by_product {
        if users.len() < 3 {
            continue;
        }
        let p = mir.new_reg();
        inserts.push((
            users[0],
            AluOp {
                opc: Opc::Op2(Op2::MulIeee),
                dst: Some(p),
                srcs: [x, y].into_iter().collect(),
                clamp: false,
                role: Role::Plain,
            },
        ));
        for i in users {
            if let Item::Alu(op) = &mut b[i] {
                let c = op.srcs[2];
                op.opc = Opc::Op2(Op2::Add);
                op.srcs = [Operand::reg(p), c].into_iter().collect();
            }
        }
    }
    // Each product goes right before its first sum (later positions
    // first, so earlier indexes stay valid).
    inserts.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    for (i, op) in inserts {
        b.insert(i, Item::Alu(op));
    }
}
