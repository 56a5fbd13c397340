//! Gather coordinates read in place, on the MIR right after selection,
//! and gather coordinates sharing a component computed into one register
//! ([`share`], after value numbering).
//!
//! A texture fetch reads its coordinates from one temporary through a
//! source swizzle: `SRC_S_SWIZ` and `SRC_T_SWIZ` pick any channel (R, G,
//! B, A) of `SRC_ADDR` as S and T (CTM §3.4: "texture source addresses
//! allow arbitrary swizzles from RGBA to STRQ"; x1k-encoding §8.5).
//! Selection assembles a coordinate `vec2(x, y)` whose parts live in
//! different virtual registers by lane copies
//! (`MAX(v, v)` with OMOD off) into a new register. This pass removes
//! such copies when the fetch can read the lanes where they already are:
//!
//! - both lanes copied from one register: the fetch reads that register
//!   with the swizzle of the copied lanes;
//! - lanes copied from two registers `A` and `B` where `B` is a scalar
//!   and `A` has a free RGB lane: `B` is given that lane of `A` (every op
//!   writing `B` writes the lane instead, every reader reads it there), so
//!   the fetch reads `A` alone. matmul's `a[vec2(t, p.y)]` and
//!   `b[vec2(p.x, t)]` read the loop counter from the lane beside
//!   `index()` in `r0` (`ld(t0, r0.bggg)`, `ld(t1, r0.rbbb)`): four moves
//!   fewer per iteration.
//!
//! - one lane copied from a scalar register `B`, the other a literal
//!   (`vec2(k, 0.0)`: texture swizzles cannot select 0, 0.5 or 1, CTM
//!   §3.4): `B` is given the copied lane of the coordinate register
//!   itself, and inside a loop the literal's move goes before the
//!   innermost loop around the fetch (nothing else writes that lane).
//!   nbody's counter lives beside its 0.0: two moves fewer per iteration.
//!
//! The copies must be the only writers of the coordinate register, in
//! the fetch's block before it, with the fetch their only reader, and
//! their sources must not be redefined in between. Merging `B` into `A`
//! needs every writer of `B` to be able to write an RGB lane (an RGB or
//! either-unit op, a transcendental through `SOP`, a `DP4`; not a fetch,
//! a presubtract source or an op writing an output or a flag).

use super::consts::ConstTable;
use super::mir::{
    AluKind, Lane, Mir, MirOp, Node, OpId, Operand, RegClass, Special, Src, Unit, VReg,
    for_each_block,
};
use crate::isa::InputModifier;

/// Runs the rewrite over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let mut blocks: Vec<(Vec<OpId>, bool)> = Vec::new();
    collect(&mir.body, false, &mut blocks);
    let mut removed: Vec<OpId> = Vec::new();
    let mut hoisted: Vec<(OpId, OpId)> = Vec::new();
    for (ops, in_loop) in &blocks {
        for j in 0..ops.len() {
            if let Some((copies, literal)) = rewrite(mir, ops, j, &removed, *in_loop) {
                removed.extend(copies);
                hoisted.extend(literal.map(|l| (l, ops[j])));
            }
        }
    }
    if removed.is_empty() {
        return;
    }
    removed.extend(hoisted.iter().map(|&(l, _)| l));
    removed.sort_unstable();
    drop_ops(&mut mir.body, &removed);
    for (literal, fetch) in hoisted {
        // The fetch's block was found in a loop, so the move is placed.
        let _ = hoist(&mut mir.body, fetch, literal);
        fuse(mir, literal);
    }
}

/// Joins the hoisted literal move `lit` with a move of swizzle constants
/// into the neighbouring lane of its register in the same block (nbody's
/// counter starts at 0 beside the coordinate's 0.0): one op writes both
/// lanes (the RGB unit writes up to three, CTM §3.3). The other move may
/// sit anywhere in the block: the lane `lit` writes is read only inside
/// the loop after the block.
fn fuse(mir: &mut Mir, lit: OpId) {
    let mut blocks: Vec<(Vec<OpId>, bool)> = Vec::new();
    collect(&mir.body, false, &mut blocks);
    let Some((ops, _)) = blocks.iter().find(|(ops, _)| ops.contains(&lit)) else {
        return;
    };
    let Some((c, kl)) = mir.op(lit).dest else {
        return;
    };
    let other = ops.iter().copied().find(|&id| {
        let o = mir.op(id);
        id != lit
            && literal_move(o)
            && o.unit == Unit::Rgb
            && o.dest
                .is_some_and(|(d, k)| d == c && (k + 1 == kl || kl + 1 == k))
    });
    let Some(other) = other else { return };
    let (first, second) = match mir.op(other).dest {
        Some((_, k)) if k < kl => (other, lit),
        _ => (lit, other),
    };
    let lane = |id: OpId| mir.op(id).args[0].lanes[0];
    let (a, b) = (lane(first), lane(second));
    let Some((_, k0)) = mir.op(first).dest else {
        return;
    };
    let o = mir.op_mut(other);
    o.dest = Some((c, k0));
    o.width = 2;
    for arg in o.args.iter_mut() {
        arg.lanes = [a, b, b, b];
    }
    drop_ops(&mut mir.body, &[lit]);
}

/// The op lists of every block, in depth-first order, each with whether
/// it is inside a loop.
fn collect(nodes: &[Node], in_loop: bool, out: &mut Vec<(Vec<OpId>, bool)>) {
    for n in nodes {
        match n {
            Node::Block(ops) => out.push((ops.clone(), in_loop)),
            Node::If { then, else_, .. } => {
                collect(then, in_loop, out);
                collect(else_, in_loop, out);
            }
            Node::Loop { body, .. } => collect(body, true, out),
            Node::Break { .. } => {}
        }
    }
}

/// Where [`hoist`] found the fetch.
#[derive(PartialEq)]
enum Found {
    /// Not in this list.
    No,
    /// In this list, outside its loops.
    Here,
    /// The move is placed.
    Placed,
}

/// Puts the literal move `op` (already out of its block) before the
/// innermost loop around `fetch`: at the end of the block before that
/// loop, or in a new block there. The move reads no register, and
/// nothing else writes its lane, so the lane holds the literal wherever
/// the fetch runs.
fn hoist(nodes: &mut Vec<Node>, fetch: OpId, op: OpId) -> Found {
    for i in 0..nodes.len() {
        let found = match &mut nodes[i] {
            Node::Block(ops) if ops.contains(&fetch) => return Found::Here,
            Node::Block(_) | Node::Break { .. } => Found::No,
            Node::If { then, else_, .. } => match hoist(then, fetch, op) {
                Found::No => hoist(else_, fetch, op),
                f => f,
            },
            Node::Loop { body, .. } => match hoist(body, fetch, op) {
                Found::Here => {
                    match i.checked_sub(1).map(|p| &mut nodes[p]) {
                        Some(Node::Block(ops)) => ops.push(op),
                        _ => nodes.insert(i, Node::Block(vec![op])),
                    }
                    Found::Placed
                }
                f => f,
            },
        };
        if found != Found::No {
            return found;
        }
    }
    Found::No
}

/// Removes the ops in `removed` (sorted) from every block.
fn drop_ops(nodes: &mut [Node], removed: &[OpId]) {
    for_each_block(nodes, &mut |ops| {
        ops.retain(|id| removed.binary_search(id).is_err())
    });
}

/// `op` is a plain lane copy `MAX(v, v)` (OMOD off, no modifier, no
/// clamp) of register lanes: its source.
fn copy_source(op: &MirOp) -> Option<Operand> {
    op.copy_source().filter(|_| op.special == Special::None)
}

/// `op` moves one swizzle constant (0, 0.5, 1) into one lane: `MAX(l,
/// l)` with OMOD off and no source register.
fn literal_move(op: &MirOp) -> bool {
    op.alu == Some(AluKind::Max)
        && op.omod_off
        && !op.clamp
        && op.scale == 0
        && op.presub.is_none()
        && op.special == Special::None
        && op.width == 1
        && op.args.len() == 2
        && op.args[0] == op.args[1]
        && op.args[0].src == Src::None
}

/// Where a coordinate lane comes from.
#[derive(Clone, Copy)]
enum Part {
    /// Lane `.1` of register `.0`.
    Reg(VReg, u8),
    /// Moved in by literal move `.0` (into lane `.1` of the coordinate).
    Literal(OpId, u8),
}

/// Makes the fetch at `ops[j]` read its coordinates in place when they
/// were assembled by lane copies: the copies it made dead, and a literal
/// move to place before the loop around the fetch (`in_loop`).
fn rewrite(
    mir: &mut Mir,
    ops: &[OpId],
    j: usize,
    removed: &[OpId],
    in_loop: bool,
) -> Option<(Vec<OpId>, Option<OpId>)> {
    let t = mir.op(ops[j]);
    if !matches!(t.tex, Some(super::mir::TexKind::Load { .. })) {
        return None;
    }
    let coord = *t.args.first()?;
    let Src::Reg(c) = coord.src else { return None };
    if coord.modifier != InputModifier::None || mir.vreg(c).fixed.is_some() {
        return None;
    }
    // Every writer and reader of `c` in the program.
    let live: Vec<OpId> = mir
        .live_ops()
        .into_iter()
        .filter(|id| !removed.contains(id))
        .collect();
    let (writers, readers) = mir.writers_and_readers(&live, c);
    if readers != 1 || writers.is_empty() {
        return None;
    }
    let pos = |id: OpId| ops[..j].iter().position(|&o| o == id);
    let mut positions = Vec::with_capacity(writers.len());
    for &w in &writers {
        positions.push(pos(w)?);
        let o = mir.op(w);
        if copy_source(o).is_none() && !literal_move(o) {
            return None;
        }
    }
    // The source of coordinate lanes S and T.
    let mut src: [Part; 2] = [Part::Reg(c, 0); 2];
    for (q, s) in src.iter_mut().enumerate() {
        let Lane::Of(k) = coord.lanes[q] else {
            return None;
        };
        // The last copy before the fetch writing lane k.
        let (at, w) = positions
            .iter()
            .zip(&writers)
            .filter(|&(_, &w)| {
                let o = mir.op(w);
                o.dest.is_some_and(|(_, l)| l <= k && k < l + o.width)
            })
            .max_by_key(|(p, _)| **p)?;
        let o = mir.op(*w);
        if literal_move(o) {
            *s = Part::Literal(*w, k);
            continue;
        }
        let (_, l) = o.dest?;
        let a = copy_source(o)?;
        let Lane::Of(m) = a.lanes[(k - l) as usize & 3] else {
            return None;
        };
        let Src::Reg(v) = a.src else { return None };
        // Not redefined between the copy and the fetch.
        if ops[at + 1..j]
            .iter()
            .any(|&id| mir.op(id).dest.is_some_and(|(d, _)| d == v))
        {
            return None;
        }
        *s = Part::Reg(v, m);
    }
    let only_copies = writers.iter().all(|&w| !literal_move(mir.op(w)));
    let (v, lanes) = match src {
        [Part::Reg(a, ka), Part::Reg(b, kb)] if a == b && only_copies => (a, [ka, kb]),
        [Part::Reg(a, ka), Part::Reg(b, kb)] if only_copies => {
            match merge(mir, &live, b, a, None) {
                Some(k) => (a, [ka, k]),
                None => {
                    let k = merge(mir, &live, a, b, None)?;
                    (b, [k, kb])
                }
            }
        }
        // `vec2(k, 0.0)`: `B` moves into the coordinate register, in the
        // lane it was copied to; the literal stays in its lane.
        [Part::Reg(b, _), Part::Literal(lit, kl)] | [Part::Literal(lit, kl), Part::Reg(b, _)]
            if writers.len() == 2 =>
        {
            let copy = *writers.iter().find(|&&w| w != lit)?;
            let (_, kb) = mir.op(copy).dest?;
            if mir.op(copy).width != 1 || kb == kl {
                return None;
            }
            merge(mir, &live, b, c, Some(kb))?;
            let lanes = match src {
                [Part::Reg(..), _] => [kb, kl],
                _ => [kl, kb],
            };
            let t = mir.op_mut(ops[j]);
            t.args[0] = coordinate(c, lanes);
            return Some((vec![copy], in_loop.then_some(lit)));
        }
        _ => return None,
    };
    let t = mir.op_mut(ops[j]);
    t.args[0] = coordinate(v, lanes);
    Some((writers, None))
}

/// Lanes S and T of `v` as a fetch's coordinate operand.
fn coordinate(v: VReg, [s, t]: [u8; 2]) -> Operand {
    Operand {
        src: Src::Reg(v),
        lanes: [Lane::Of(s), Lane::Of(t), Lane::Of(t), Lane::Of(t)],
        modifier: InputModifier::None,
    }
}

/// Gives scalar `b` a lane of `a`: `lane`, which nothing else writes, or
/// else the next free RGB lane. Every writer of `b` writes that lane of
/// `a`, every reader reads it there. The lane, or `None` (nothing
/// changed) if it cannot.
fn merge(mir: &mut Mir, live: &[OpId], b: VReg, a: VReg, lane: Option<u8>) -> Option<u8> {
    let (ai, bi) = (mir.vreg(a), mir.vreg(b));
    if a == b || bi.fixed.is_some() || bi.width != 1 || ai.width > 2 {
        return None;
    }
    let k = lane.unwrap_or(ai.width);
    match (ai.class, ai.fixed, lane) {
        (RegClass::Rgb, None, Some(l)) if l < ai.width => {}
        (_, Some((_, chans)), None) if chans[k as usize] < 3 => {}
        (RegClass::Rgb, None, None) => {}
        _ => return None,
    }
    // Writers of b: each must be able to write an RGB lane.
    let mut units: Vec<(OpId, Unit)> = Vec::new();
    for &id in live {
        let o = mir.op(id);
        if o.presub
            .is_some_and(|(_, x, y)| x.vreg() == Some(b) || y.vreg() == Some(b))
        {
            return None;
        }
        if o.dest.is_none_or(|(d, _)| d != b) {
            continue;
        }
        if o.dest != Some((b, 0)) || o.width != 1 || o.special != Special::None {
            return None;
        }
        let trans = matches!(o.alu, Some(AluKind::Trans(_)));
        // The ops both units have (CTM §3.3.4) move from alpha to RGB.
        let both = o.alu.is_some_and(AluKind::on_both_units) && o.presub.is_none();
        let unit = match (o.alu, o.unit) {
            (None, _) => return None,
            (Some(AluKind::Dp4), Unit::Both) => Unit::Both,
            (Some(_), Unit::Any | Unit::Rgb) if !trans => Unit::Rgb,
            (Some(_), Unit::Alpha) if both && lane.is_some() => Unit::Rgb,
            (Some(_), Unit::Alpha | Unit::Both) if trans => Unit::Both,
            _ => return None,
        };
        units.push((id, unit));
    }
    if units.is_empty() {
        return None;
    }
    for (id, unit) in units {
        let o = mir.op_mut(id);
        o.dest = Some((a, k));
        o.unit = unit;
    }
    for &id in live {
        let o = mir.op_mut(id);
        for arg in o.args.iter_mut() {
            if arg.src == Src::Reg(b) {
                arg.src = Src::Reg(a);
                // `b` has one lane: every register lane read is it.
                for l in arg.lanes.iter_mut() {
                    if let Lane::Of(_) = l {
                        *l = Lane::Of(k);
                    }
                }
            }
        }
    }
    if lane.is_none() {
        mir.vregs[a.0 as usize].width = k + 1;
    }
    Some(k)
}

/// Gather coordinates `base + (cx, cy)` that share a component, computed
/// into one register (after value numbering, before [`super::pair`]).
///
/// Each such coordinate is a two-lane `MAD(base, 1, (cx, cy))` read only
/// by fetches. Up to three of them with the same `base` lanes and the
/// same `cy` become one op computing `(x + cx1, y + cy, x + cx2, x +
/// cx3)`, read as `.rggg`, `.bggg`, `.aggg` through the TEX source
/// swizzle (CTM §3.4: "texture source addresses allow arbitrary swizzles
/// from RGBA to STRQ"); the rest, up to three with the same `cx`, as `(x
/// + cx, y + cy1, y + cy2, y + cy3)` read as `.rggg`, `.rbbb`, `.raaa`.
/// Three coordinates take one instruction (both units), two an RGB op
/// of three lanes (the alpha unit stays free), where pairing vec2 ops
/// gives two per instruction: `fir`'s eight `(x + k, y)` take three
/// instructions instead of six. Every lane is the same `MAD` of the same
/// values as before, so the coordinates are bit for bit unchanged, but
/// for the shared lane's zero offset: `y + 0` and `y − 0` are grouped
/// alike and differ only for `y = −0`, where one gives −0 and the other
/// +0, which address the same texel (CTM §3.4: the coordinate's floor,
/// clamped to the edge; `sim` `texel_index`).
pub fn share(mir: &mut Mir, consts: &mut ConstTable) {
    let mut blocks: Vec<(Vec<OpId>, bool)> = Vec::new();
    collect(&mir.body, false, &mut blocks);
    let live = mir.live_ops();
    let mut writers = vec![0u32; mir.vregs.len()];
    for &id in &live {
        if let Some((v, _)) = mir.op(id).dest {
            writers[v.0 as usize] += 1;
        }
    }
    let mut removed: Vec<OpId> = Vec::new();
    for (ops, _) in &blocks {
        let found: Vec<(usize, Coord)> = ops
            .iter()
            .enumerate()
            .filter_map(|(i, &id)| {
                gather_coordinate(mir, consts, &live, &writers, id).map(|c| (i, c))
            })
            .collect();
        let mut taken = vec![false; found.len()];
        for shared in [Shared::T, Shared::S] {
            for g in groups(&found, &taken, shared) {
                if pack(mir, consts, ops, &found, &g, shared, &mut removed) {
                    for k in g {
                        taken[k] = true;
                    }
                }
            }
        }
    }
    if !removed.is_empty() {
        removed.sort_unstable();
        drop_ops(&mut mir.body, &removed);
    }
}

/// Which coordinate component the members of a group share.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shared {
    /// T (`y + cy`): lanes `(x1, y, x2, x3)`.
    T,
    /// S (`x + cx`): lanes `(x, y1, y2, y3)`.
    S,
}

/// A gather coordinate `(base[bx] + cx, base[by] + cy)`.
#[derive(Clone, Copy)]
struct Coord {
    /// The op computing it.
    op: OpId,
    /// Its register (read only by fetches).
    reg: VReg,
    /// The register and lanes it adds to.
    base: VReg,
    lanes: [u8; 2],
    /// The constants added.
    offset: [f32; 2],
}

/// `id` as a coordinate: a plain two-lane `MAD(base.xy, 1, constant)` (or
/// `MAD(constant, 1, base.xy)`), the only writer of its register, whose
/// every reader is a fetch reading its lanes 0 and 1 as S and T or T and
/// S.
fn gather_coordinate(
    mir: &Mir,
    consts: &ConstTable,
    live: &[OpId],
    writers: &[u32],
    id: OpId,
) -> Option<Coord> {
    let o = mir.op(id);
    let (reg, 0) = o.dest? else { return None };
    let info = mir.vreg(reg);
    let plain = o.alu == Some(AluKind::Mad)
        && o.unit == Unit::Rgb
        && o.width == 2
        && o.args.len() == 3
        && o.presub.is_none()
        && o.special == Special::None
        && !o.omod_off
        && !o.clamp
        && o.scale == 0
        && info.width == 2
        && info.class == RegClass::Rgb
        && info.fixed.is_none()
        && writers[reg.0 as usize] == 1;
    if !plain || o.args[1].lanes[..2] != [Lane::One; 2] || o.args[1].modifier != InputModifier::None
    {
        return None;
    }
    let (b, c) = match (o.args[0].src, o.args[2].src) {
        (Src::Reg(_), _) => (o.args[0], o.args[2]),
        (_, Src::Reg(_)) => (o.args[2], o.args[0]),
        _ => return None,
    };
    let Src::Reg(base) = b.src else { return None };
    let [Lane::Of(bx), Lane::Of(by), ..] = b.lanes else {
        return None;
    };
    if b.modifier != InputModifier::None || base == reg {
        return None;
    }
    let offset = [
        constant(consts, &c, c.lanes[0])?,
        constant(consts, &c, c.lanes[1])?,
    ];
    // Every reader a fetch reading lanes 0 and 1 as its S and T.
    for &r in live {
        let op = mir.op(r);
        if op.dest.is_some_and(|(d, _)| d == reg && r != id) {
            return None;
        }
        if !op.reads().any(|v| v == reg) {
            continue;
        }
        let fetch = matches!(op.tex, Some(super::mir::TexKind::Load { .. }));
        let coord = op.args.first()?;
        let reads_once =
            op.args.iter().skip(1).all(|a| a.vreg() != Some(reg)) && op.presub.is_none();
        let st = matches!(
            coord.lanes[..2],
            [Lane::Of(0), Lane::Of(1)] | [Lane::Of(1), Lane::Of(0)]
        );
        if !fetch
            || !reads_once
            || !st
            || coord.src != Src::Reg(reg)
            || coord.modifier != InputModifier::None
        {
            return None;
        }
    }
    Some(Coord {
        op: id,
        reg,
        base,
        lanes: [bx, by],
        offset,
    })
}

/// The value lane `l` of constant operand `c` reads (swizzle constants,
/// an inline constant, a literal register), its modifier applied.
fn constant(consts: &ConstTable, c: &Operand, l: Lane) -> Option<f32> {
    let v = match (l, c.src) {
        (Lane::Zero, _) => 0.0,
        (Lane::Half, _) => 0.5,
        (Lane::One, _) => 1.0,
        (Lane::Of(_), Src::Inline(code)) => crate::isa::inline_constant_value(code),
        (
            Lane::Of(ch),
            Src::Const {
                index,
                relative: false,
            },
        ) => consts.literal_value(index, ch)?,
        _ => return None,
    };
    Some(match c.modifier {
        InputModifier::None => v,
        InputModifier::Neg => -v,
        InputModifier::Abs => v.abs(),
        InputModifier::NegAbs => -v.abs(),
    })
}

/// Groups (indices into `found`) of two or three untaken coordinates
/// with the same base lanes and the same shared constant, in program
/// order.
fn groups(found: &[(usize, Coord)], taken: &[bool], shared: Shared) -> Vec<Vec<usize>> {
    let key = |c: &Coord| {
        let k = if shared == Shared::T { 1 } else { 0 };
        // Zeros of either sign alike (`+ 0.0` turns −0 into +0): they
        // change a coordinate only from −0 to +0 or back, the same texel.
        (c.base, c.lanes, (c.offset[k] + 0.0).to_bits())
    };
    let mut open: Vec<Vec<usize>> = Vec::new();
    let mut out = Vec::new();
    for (k, (_, c)) in found.iter().enumerate() {
        if taken[k] {
            continue;
        }
        match open.iter_mut().position(|g| key(&found[g[0]].1) == key(c)) {
            Some(p) => {
                open[p].push(k);
                if open[p].len() == 3 {
                    out.push(open.remove(p));
                }
            }
            None => open.push(vec![k]),
        }
    }
    out.extend(open.into_iter().filter(|g| g.len() >= 2));
    out.sort_unstable();
    out
}

/// Computes the coordinates of group `g` with one op in the first one's
/// place and makes their fetches read it; `false` (nothing changed) when
/// the base is redefined among them or no constant register is left.
fn pack(
    mir: &mut Mir,
    consts: &mut ConstTable,
    ops: &[OpId],
    found: &[(usize, Coord)],
    g: &[usize],
    shared: Shared,
    removed: &mut Vec<OpId>,
) -> bool {
    let first = found[g[0]].0;
    let last = found[g[g.len() - 1]].0;
    let c0 = found[g[0]].1;
    if ops[first..last]
        .iter()
        .any(|&id| mir.op(id).dest.is_some_and(|(d, _)| d == c0.base))
    {
        return false;
    }
    // Lane of the new register holding each member's (S, T).
    let (mut reads, mut values) = (Vec::new(), Vec::new());
    let mut base_lanes = Vec::new();
    for (k, &m) in g.iter().enumerate() {
        let c = found[m].1;
        let k = k as u8;
        let at = if k == 0 { 0 } else { k + 1 };
        match shared {
            Shared::T => {
                if k == 0 {
                    values.extend([c.offset[0], c.offset[1]]);
                    base_lanes.extend([c.lanes[0], c.lanes[1]]);
                } else {
                    values.push(c.offset[0]);
                    base_lanes.push(c.lanes[0]);
                }
                reads.push([at, 1]);
            }
            Shared::S => {
                if k == 0 {
                    values.extend([c.offset[0], c.offset[1]]);
                    base_lanes.extend([c.lanes[0], c.lanes[1]]);
                } else {
                    values.push(c.offset[1]);
                    base_lanes.push(c.lanes[1]);
                }
                reads.push([0, k + 1]);
            }
        }
    }
    let Ok(offset) = consts.literal(&values) else {
        return false;
    };
    let width = values.len() as u8;
    let (class, unit) = if width == 4 {
        (RegClass::Rgba, Unit::Both)
    } else {
        (RegClass::Rgb, Unit::Rgb)
    };
    let reg = mir.new_vreg(width, class);
    let mut lanes = [Lane::Zero; 4];
    for (l, &b) in lanes.iter_mut().zip(&base_lanes) {
        *l = Lane::Of(b);
    }
    let base = Operand {
        src: Src::Reg(c0.base),
        lanes,
        modifier: InputModifier::None,
    };
    let op = mir.op_mut(c0.op);
    op.args = smallvec::smallvec![base, Operand::splat_lane(Lane::One), offset];
    op.width = width;
    op.unit = unit;
    op.dest = Some((reg, 0));
    // The fetches read the new register.
    let members: Vec<(VReg, [u8; 2])> = g
        .iter()
        .zip(&reads)
        .map(|(&m, &r)| (found[m].1.reg, r))
        .collect();
    for id in mir.live_ops() {
        let o = mir.op_mut(id);
        let Some(coord) = o.args.first_mut() else {
            continue;
        };
        let Src::Reg(v) = coord.src else { continue };
        let Some(&(_, [s, t])) = members.iter().find(|(r, _)| *r == v) else {
            continue;
        };
        let pick = |l: Lane| match l {
            Lane::Of(0) => Lane::Of(s),
            _ => Lane::Of(t),
        };
        let (ls, lt) = (pick(coord.lanes[0]), pick(coord.lanes[1]));
        coord.src = Src::Reg(reg);
        coord.lanes = [ls, lt, lt, lt];
    }
    removed.extend(g[1..].iter().map(|&m| found[m].1.op));
    true
}
