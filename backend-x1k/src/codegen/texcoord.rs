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
//! The copies must be the only writers of the coordinate register, in
//! the fetch's block before it, with the fetch their only reader, and
//! their sources must not be redefined in between. Merging `B` into `A`
//! needs every writer of `B` to be able to write an RGB lane (an RGB or
//! either-unit op, a transcendental through `SOP`, a `DP4`; not a fetch,
//! a presubtract source or an op writing an output or a flag).

use super::consts::ConstTable;
use super::mir::{
    AluKind, Lane, Mir, MirOp, Node, OpId, Operand, RegClass, Special, Src, Unit, VReg,
};
use crate::isa::InputModifier;

/// Runs the rewrite over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let mut blocks: Vec<Vec<OpId>> = Vec::new();
    collect(&mir.body, &mut blocks);
    let mut removed: Vec<OpId> = Vec::new();
    for ops in &blocks {
        for j in 0..ops.len() {
            if let Some(copies) = rewrite(mir, ops, j, &removed) {
                removed.extend(copies);
            }
        }
    }
    if !removed.is_empty() {
        removed.sort_unstable();
        drop_ops(&mut mir.body, &removed);
    }
}

/// The op lists of every block, in depth-first order.
fn collect(nodes: &[Node], out: &mut Vec<Vec<OpId>>) {
    for n in nodes {
        match n {
            Node::Block(ops) => out.push(ops.clone()),
            Node::If { then, else_, .. } => {
                collect(then, out);
                collect(else_, out);
            }
            Node::Loop { body, .. } => collect(body, out),
            Node::Break { .. } => {}
        }
    }
}

/// Removes the ops in `removed` (sorted) from every block.
fn drop_ops(nodes: &mut [Node], removed: &[OpId]) {
    for n in nodes {
        match n {
            Node::Block(ops) => ops.retain(|id| removed.binary_search(id).is_err()),
            Node::If { then, else_, .. } => {
                drop_ops(then, removed);
                drop_ops(else_, removed);
            }
            Node::Loop { body, .. } => drop_ops(body, removed),
            Node::Break { .. } => {}
        }
    }
}

/// `op` is a plain lane copy `MAX(v, v)` (OMOD off, no modifier, no
/// clamp) of register lanes: its source.
fn copy_source(op: &MirOp) -> Option<Operand> {
    op.copy_source().filter(|_| op.special == Special::None)
}

/// Makes the fetch at `ops[j]` read its coordinates in place when they
/// were assembled by lane copies; the copies it made dead.
fn rewrite(mir: &mut Mir, ops: &[OpId], j: usize, removed: &[OpId]) -> Option<Vec<OpId>> {
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
    let writers: Vec<OpId> = live
        .iter()
        .copied()
        .filter(|&id| mir.op(id).dest.is_some_and(|(d, _)| d == c))
        .collect();
    let readers = live
        .iter()
        .filter(|&&id| mir.op(id).reads().any(|r| r == c))
        .count();
    if readers != 1 || writers.is_empty() {
        return None;
    }
    let pos = |id: OpId| ops[..j].iter().position(|&o| o == id);
    let mut positions = Vec::with_capacity(writers.len());
    for &w in &writers {
        positions.push(pos(w)?);
        copy_source(mir.op(w))?;
    }
    // The source (register, lane) of coordinate lanes S and T.
    let mut src: [(VReg, u8); 2] = [(c, 0); 2];
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
        *s = (v, m);
    }
    if src[0].0 != src[1].0 {
        let (a, b) = (src[0].0, src[1].0);
        let (into, k) = match merge(mir, &live, b, a) {
            Some(k) => (a, k),
            None => (b, merge(mir, &live, a, b)?),
        };
        for s in src.iter_mut() {
            if s.0 != into {
                *s = (into, k);
            }
        }
    }
    let v = src[0].0;
    let t = mir.op_mut(ops[j]);
    t.args[0] = Operand {
        src: Src::Reg(v),
        lanes: [
            Lane::Of(src[0].1),
            Lane::Of(src[1].1),
            Lane::Of(src[1].1),
            Lane::Of(src[1].1),
        ],
        modifier: InputModifier::None,
    };
    Some(writers)
}

/// Gives scalar `b` the next free RGB lane of `a`: every writer of `b`
/// writes that lane of `a`, every reader reads it there. The lane, or
/// `None` (nothing changed) if it cannot.
fn merge(mir: &mut Mir, live: &[OpId], b: VReg, a: VReg) -> Option<u8> {
    let (ai, bi) = (mir.vreg(a), mir.vreg(b));
    if a == b || bi.fixed.is_some() || bi.width != 1 || ai.width > 2 {
        return None;
    }
    let k = ai.width;
    match (ai.class, ai.fixed) {
        (_, Some((_, chans))) if chans[k as usize] < 3 => {}
        (RegClass::Rgb, None) => {}
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
        let unit = match (o.alu, o.unit) {
            (None, _) => return None,
            (Some(AluKind::Dp4), Unit::Both) => Unit::Both,
            (Some(_), Unit::Any | Unit::Rgb) if !trans => Unit::Rgb,
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
    mir.vregs[a.0 as usize].width = k + 1;
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
    let mut blocks: Vec<Vec<OpId>> = Vec::new();
    collect(&mir.body, &mut blocks);
    let live = mir.live_ops();
    let mut writers = vec![0u32; mir.vregs.len()];
    for &id in &live {
        if let Some((v, _)) = mir.op(id).dest {
            writers[v.0 as usize] += 1;
        }
    }
    let mut removed: Vec<OpId> = Vec::new();
    for ops in &blocks {
        let found: Vec<(usize, Coord)> = ops
            .iter()
            .enumerate()
            .filter_map(|(i, &id)| coordinate(mir, consts, &live, &writers, id).map(|c| (i, c)))
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
fn coordinate(
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
