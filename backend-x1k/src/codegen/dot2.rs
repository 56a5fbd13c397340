//! Two scalar products summed, `x1·y1 + x2·y2`, as one `D2A` (CTM
//! §3.3.4: `A.r·B.r + A.g·B.g + C.b` on the RGB unit), on the MIR after
//! [`super::branch_out`].
//!
//! The IR forms `MAD(x1, y1, t)` with `t = x2·y2` (a MAD with a zero
//! addend). When `x1` and `x2` are lanes of one source (or swizzle
//! constants) read with the same input modifier, and `y1`, `y2` likewise,
//! the two ops are one `D2A` whose A input reads `(x1, x2)` and B input
//! `(y1, y2)` through their swizzles: `cmul`'s `a.x·b.y + a.y·b.x` is
//! `D2A(a.xy, b.yx)`. One op goes.
//!
//! Numerics: the X1K's dot products are fused (the products are exact,
//! one rounding of the sum: "fused operations", ctm-guide-x1k.txt "X1K
//! FP"; the simulator's `dot_sum`), as its MAD rounds its product once:
//! `RN(x1·y1 + x2·y2)` instead of `RN(x1·y1 + RN(x2·y2))`. The reference
//! rounds each product; the difference is of the class `dot()` already
//! has (`docs/backend-x1k.md` §3), within an ulp of the larger product.
//!
//! Conditions: `t` is a one-lane register written once (by `T`, a plain
//! MAD with a zero addend, in the block before the sum) and read once (by
//! the sum, as its addend, without a modifier); nothing in between writes
//! what `T` reads; the sum is a plain one-lane MAD (an output modifier,
//! clamp or an output write stay with it, CTM §3.3.5) that can run on the
//! RGB unit: an RGB register lane or an RGB target channel (a register
//! whose class is open becomes RGB when the sum is its only writer).

use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Operand, RegClass, Special, Src, Unit, VReg};

/// Forms the `D2A`s of every block of `mir`.
pub fn run(mir: &mut Mir) {
    let n = mir.vregs.len();
    let mut defs = vec![0u32; n];
    let mut reads = vec![0u32; n];
    // Registers a presubtract reads (gathered here: `each_block` takes
    // the control tree while it runs).
    let mut presub_read = vec![false; n];
    let mut readers: Vec<smallvec::SmallVec<[OpId; 2]>> = vec![smallvec::SmallVec::new(); n];
    for id in mir.live_ops() {
        let op = mir.op(id);
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
        for v in op.reads() {
            reads[v.0 as usize] += 1;
            if !readers[v.0 as usize].contains(&id) {
                readers[v.0 as usize].push(id);
            }
        }
        if let Some((_, s0, s1)) = &op.presub {
            for v in [s0.vreg(), s1.vreg()].into_iter().flatten() {
                presub_read[v.0 as usize] = true;
            }
        }
    }
    mir.each_block(|mir, ops| {
        let mut si = 0;
        while si < ops.len() {
            let counts = Counts {
                defs: &defs,
                reads: &reads,
                presub_read: &presub_read,
                readers: &readers,
            };
            match fuse(mir, ops, si, &counts) {
                Some(ti) => {
                    ops.remove(ti);
                }
                None => si += 1,
            }
        }
    });
}

/// A count of `v` (registers made by this pass have none recorded: the
/// largest count, which no condition accepts).
fn at(counts: &[u32], v: VReg) -> u32 {
    counts.get(v.0 as usize).copied().unwrap_or(u32::MAX)
}

/// Whether `o` reads 0 in lane 0 (the addend of a plain product).
fn zero(o: &Operand) -> bool {
    o.src == Src::None && o.lanes[0] == Lane::Zero
}

/// The operand reading lane 0 of `a` and lane 0 of `b` in lanes 0 and 1,
/// when one input can: the same source (or a swizzle constant beside a
/// source) and the same modifier.
fn merge(a: &Operand, b: &Operand) -> Option<Operand> {
    if a.modifier != b.modifier || matches!(a.src, Src::Presub) || matches!(b.src, Src::Presub) {
        return None;
    }
    // An inline constant reads its value in every lane: it does not sit
    // beside a swizzle constant or another source's lane.
    let src = match (a.src, b.src) {
        (x, y) if x == y => x,
        (Src::None, y) if !matches!(y, Src::Inline(_)) => y,
        (x, Src::None) if !matches!(x, Src::Inline(_)) => x,
        _ => return None,
    };
    Some(Operand {
        src,
        lanes: [a.lanes[0], b.lanes[0], Lane::Zero, Lane::Zero],
        modifier: a.modifier,
    })
}

/// Whether `op` is a plain one-lane MAD (no presubtract, special write,
/// modifier or clamp unless `outer`).
fn plain_mad(op: &MirOp, outer: bool) -> bool {
    op.alu == Some(AluKind::Mad)
        && op.width == 1
        && op.args.len() == 3
        && op.presub.is_none()
        && !op.omod_off
        && (outer || (op.scale == 0 && !op.clamp && op.special == Special::None))
        && matches!(op.unit, Unit::Rgb | Unit::Alpha | Unit::Any)
}

/// Fuses the sum at `ops[si]` with its product, if allowed; returns the
/// position of the product, which the caller removes.
/// What [`run`] counted over the program before rewriting it.
struct Counts<'a> {
    /// Writers of each register.
    defs: &'a [u32],
    /// Reads of each register (one per operand).
    reads: &'a [u32],
    /// Whether a presubtract reads it.
    presub_read: &'a [bool],
    /// The ops reading it.
    readers: &'a [smallvec::SmallVec<[OpId; 2]>],
}

fn fuse(mir: &mut Mir, ops: &[OpId], si: usize, counts: &Counts) -> Option<usize> {
    let (defs, reads, presub_read) = (counts.defs, counts.reads, counts.presub_read);
    let s = mir.op(ops[si]);
    if !plain_mad(s, true) || !matches!(s.special, Special::None | Special::Output(..)) {
        return None;
    }
    let c = s.args[2];
    let Src::Reg(t) = c.src else { return None };
    let ti_info = mir.vreg(t);
    if c.modifier != crate::isa::InputModifier::None
        || c.lanes[0] != Lane::Of(0)
        || at(defs, t) != 1
        || at(reads, t) != 1
        || ti_info.width != 1
        || ti_info.fixed.is_some()
    {
        return None;
    }
    let ti = (0..si)
        .rev()
        .find(|&i| mir.op(ops[i]).dest == Some((t, 0)))?;
    let p = mir.op(ops[ti]);
    if !plain_mad(p, false) || !zero(&p.args[2]) {
        return None;
    }
    // Nothing between the product and the sum writes what it reads.
    let read: smallvec::SmallVec<[VReg; 4]> = p.reads().collect();
    if ops[ti + 1..si]
        .iter()
        .any(|&o| mir.op(o).dest.is_some_and(|(d, _)| read.contains(&d)))
    {
        return None;
    }
    let (x1, y1, x2, y2) = (s.args[0], s.args[1], p.args[0], p.args[1]);
    let pairs = |x1: &Operand, y1: &Operand, x2: &Operand, y2: &Operand| {
        merge(x1, x2)
            .zip(merge(y1, y2))
            .or_else(|| merge(x1, y2).zip(merge(y1, x2)))
    };
    // Two scalars of two registers: one RGBA register holds both (lanes
    // r and a), when their writers can write there.
    let (mut a, mut b, co) = match pairs(&x1, &y1, &x2, &y2) {
        Some((a, b)) => (a, b, None),
        None => {
            let co = [(x1, x2), (x1, y2), (y1, x2), (y1, y2)]
                .into_iter()
                .filter_map(|(u, v)| Some((u.vreg()?, v.vreg()?)))
                .flat_map(|(u, v)| [(u, v), (v, u)])
                .find(|&(r, al)| {
                    coalescible(mir, &ops[..si], r, al, defs, presub_read).is_some() && {
                        let g = VReg(u32::MAX);
                        let re = |o: &Operand| renamed(o, r, al, g);
                        pairs(&re(&x1), &re(&y1), &re(&x2), &re(&y2)).is_some()
                    }
                })?;
            let g = VReg(u32::MAX);
            let re = |o: &Operand| renamed(o, co.0, co.1, g);
            let (a, b) = pairs(&re(&x1), &re(&y1), &re(&x2), &re(&y2))?;
            (a, b, Some(co))
        }
    };
    // The sum must be able to run on the RGB unit.
    let class = match (s.special, s.dest) {
        (Special::Output(_, first), None) if first < 3 => None,
        (Special::Output(..), _) => return None,
        (_, Some((d, dl))) => match mir.vreg(d).class {
            RegClass::Rgb => None,
            RegClass::Rgba if dl < 3 => None,
            RegClass::Undecided if at(defs, d) == 1 && mir.vreg(d).fixed.is_none() => {
                Some((d, RegClass::Rgb))
            }
            _ => return None,
        },
        (_, None) => return None,
    };
    if s.unit == Unit::Alpha {
        return None;
    }
    if let Some((d, k)) = class {
        mir.vregs[d.0 as usize].class = k;
    }
    if let Some((r, al)) = co {
        let (wr, wa) = coalescible(mir, &ops[..si], r, al, defs, presub_read)?;
        let g = mir.new_vreg(4, RegClass::Rgba);
        for o in [&mut a, &mut b] {
            if o.src == Src::Reg(VReg(u32::MAX)) {
                o.src = Src::Reg(g);
            }
        }
        let both = [r, al].map(|v| counts.readers.get(v.0 as usize));
        for &o in both.into_iter().flatten().flatten() {
            for arg in mir.op_mut(o).args.iter_mut() {
                *arg = renamed(arg, r, al, g);
            }
        }
        let w = mir.op_mut(wr);
        w.dest = Some((g, 0));
        w.unit = if w.unit == Unit::Any {
            Unit::Rgb
        } else {
            w.unit
        };
        let w = mir.op_mut(wa);
        w.dest = Some((g, 3));
        w.unit = if w.unit == Unit::Any {
            Unit::Alpha
        } else {
            w.unit
        };
    }
    let s = mir.op_mut(ops[si]);
    s.alu = Some(AluKind::Dp2);
    s.unit = Unit::Rgb;
    s.args = smallvec::smallvec![a, b];
    Some(ti)
}

/// `o` with lane 0 of `r` read as lane 0 of `g` and lane 0 of `al` as lane
/// 3 of `g`.
fn renamed(o: &Operand, r: VReg, al: VReg, g: VReg) -> Operand {
    let to = match o.src {
        Src::Reg(v) if v == r => 0,
        Src::Reg(v) if v == al => 3,
        _ => return *o,
    };
    let mut out = *o;
    out.src = Src::Reg(g);
    for l in out.lanes.iter_mut() {
        if *l == Lane::Of(0) {
            *l = Lane::Of(to);
        }
    }
    out
}

/// The writers of the scalars `r` (to go to channel r of an RGBA
/// register, by the RGB unit) and `al` (to channel a, by the alpha unit),
/// when both are one-lane registers written once, in `before` (the block
/// before the sum), by plain ops that can take those units, and no
/// presubtract reads them (it combines equal channels of its sources,
/// `presub.rs`).
fn coalescible(
    mir: &Mir,
    before: &[OpId],
    r: VReg,
    al: VReg,
    defs: &[u32],
    presub_read: &[bool],
) -> Option<(OpId, OpId)> {
    if r == al {
        return None;
    }
    for v in [r, al] {
        let info = mir.vreg(v);
        if info.width != 1 || info.fixed.is_some() || at(defs, v) != 1 {
            return None;
        }
    }
    if [r, al]
        .iter()
        .any(|v| presub_read.get(v.0 as usize).is_none_or(|&p| p))
    {
        return None;
    }
    let writer = |v: VReg| {
        before
            .iter()
            .copied()
            .find(|&o| mir.op(o).dest == Some((v, 0)))
    };
    let (wr, wa) = (writer(r)?, writer(al)?);
    let plain = |o: &MirOp| {
        o.width == 1 && o.special == Special::None && o.presub.is_none() && o.tex.is_none()
    };
    let select = |k: Option<AluKind>| k.is_some_and(AluKind::on_both_units);
    let (or, oa) = (mir.op(wr), mir.op(wa));
    let rgb_ok = plain(or)
        && matches!(mir.vreg(r).class, RegClass::Rgb | RegClass::Undecided)
        && ((select(or.alu) && matches!(or.unit, Unit::Rgb | Unit::Any))
            || (matches!(or.alu, Some(AluKind::Dp2 | AluKind::Dp3)) && or.unit == Unit::Rgb));
    let alpha_ok = plain(oa)
        && matches!(mir.vreg(al).class, RegClass::Alpha | RegClass::Undecided)
        && ((select(oa.alu) && matches!(oa.unit, Unit::Alpha | Unit::Any))
            || (matches!(oa.alu, Some(AluKind::Trans(_))) && oa.unit == Unit::Alpha));
    (rgb_ok && alpha_ok).then_some((wr, wa))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::Node;
    use smallvec::smallvec;

    fn lane(v: VReg, l: u8) -> Operand {
        Operand {
            src: Src::Reg(v),
            lanes: [Lane::Of(l); 4],
            modifier: crate::isa::InputModifier::None,
        }
    }

    fn mad(dest: VReg, a: Operand, b: Operand, c: Operand) -> MirOp {
        MirOp {
            alu: Some(AluKind::Mad),
            tex: None,
            unit: Unit::Any,
            dest: Some((dest, 0)),
            width: 1,
            args: smallvec![a, b, c],
            presub: None,
            omod_off: false,
            scale: 0,
            clamp: false,
            special: Special::None,
        }
    }

    /// `t = p.x·q.y; [between]; s = p.z·q.x + t` in one block.
    fn sum(between: Option<fn(VReg, VReg) -> MirOp>) -> (Mir, OpId, VReg) {
        let mut mir = Mir::default();
        let p = mir.new_vreg(4, RegClass::Rgba);
        let q = mir.new_vreg(2, RegClass::Rgb);
        let t = mir.new_vreg(1, RegClass::Undecided);
        let s = mir.new_vreg(1, RegClass::Undecided);
        let zero = Operand::splat_lane(Lane::Zero);
        let mut ops = vec![mir.push(mad(t, lane(p, 0), lane(q, 1), zero))];
        if let Some(f) = between {
            ops.push(mir.push(f(p, q)));
        }
        let so = mir.push(mad(s, lane(p, 2), lane(q, 0), lane(t, 0)));
        ops.push(so);
        mir.body = vec![Node::Block(ops)];
        (mir, so, s)
    }

    fn ops(mir: &Mir) -> usize {
        mir.live_ops().len()
    }

    #[test]
    fn a_sum_of_products_of_two_sources_is_one_d2a() {
        let (mut mir, so, s) = sum(None);
        run(&mut mir);
        assert_eq!(ops(&mir), 1);
        let op = mir.op(so);
        assert_eq!(op.alu, Some(AluKind::Dp2));
        assert_eq!(op.unit, Unit::Rgb);
        assert_eq!(mir.vreg(s).class, RegClass::Rgb);
        assert_eq!(&op.args[0].lanes[..2], &[Lane::Of(2), Lane::Of(0)]);
        assert_eq!(&op.args[1].lanes[..2], &[Lane::Of(0), Lane::Of(1)]);
    }

    #[test]
    fn a_write_between_keeps_both() {
        let (mut mir, so, _) = sum(Some(|p, _| {
            let zero = Operand::splat_lane(Lane::Zero);
            let mut o = mad(p, lane(p, 1), lane(p, 1), zero);
            o.dest = Some((p, 0));
            o
        }));
        run(&mut mir);
        assert_eq!(ops(&mir), 3);
        assert_eq!(mir.op(so).alu, Some(AluKind::Mad));
    }

    #[test]
    fn a_negated_addend_keeps_both() {
        let (mut mir, so, _) = sum(None);
        mir.op_mut(so).args[2] = mir.op(so).args[2].negated();
        run(&mut mir);
        assert_eq!(ops(&mir), 2);
    }

    #[test]
    fn an_alpha_result_keeps_both() {
        let (mut mir, _, s) = sum(None);
        mir.vregs[s.0 as usize].class = RegClass::Alpha;
        run(&mut mir);
        assert_eq!(ops(&mir), 2);
    }
    /// `x = p.x·p.y; y = p.z·p.w; s = x·x + y·y` (+ a presubtract of `y`
    /// read by one more op, when `presub_reader`).
    fn squares(presub_reader: bool) -> (Mir, [OpId; 3], OpId) {
        let mut mir = Mir::default();
        let p = mir.new_vreg(4, RegClass::Rgba);
        let [x, y, t, s] = [0; 4].map(|_| mir.new_vreg(1, RegClass::Undecided));
        let zero = Operand::splat_lane(Lane::Zero);
        let wx = mir.push(mad(x, lane(p, 0), lane(p, 1), zero));
        let wy = mir.push(mad(y, lane(p, 2), lane(p, 3), zero));
        let pt = mir.push(mad(t, lane(y, 0), lane(y, 0), zero));
        let so = mir.push(mad(s, lane(x, 0), lane(x, 0), lane(t, 0)));
        let mut ops = vec![wx, wy, pt, so];
        if presub_reader {
            let u = mir.new_vreg(1, RegClass::Undecided);
            let mut o = mad(u, Operand::splat_lane(Lane::One), zero, zero);
            o.args[0].src = Src::Presub;
            o.presub = Some((crate::isa::PresubOp::Inv, lane(y, 0), lane(y, 0)));
            ops.push(mir.push(o));
        }
        mir.body = vec![Node::Block(ops)];
        (mir, [wx, wy, pt], so)
    }

    #[test]
    fn two_scalars_share_an_rgba_register_for_a_d2a() {
        let (mut mir, [wx, wy, _], so) = squares(false);
        run(&mut mir);
        assert_eq!(ops(&mir), 3);
        let (g, 0) = mir.op(wx).dest.expect("x written") else {
            panic!("x in lane 0")
        };
        assert_eq!(mir.op(wy).dest, Some((g, 3)));
        assert_eq!(mir.vreg(g).class, RegClass::Rgba);
        assert_eq!((mir.op(wx).unit, mir.op(wy).unit), (Unit::Rgb, Unit::Alpha));
        let op = mir.op(so);
        assert_eq!(op.alu, Some(AluKind::Dp2));
        assert_eq!(op.args[0].src, Src::Reg(g));
        assert_eq!(&op.args[0].lanes[..2], &[Lane::Of(0), Lane::Of(3)]);
    }

    #[test]
    fn a_presubtracted_scalar_keeps_its_register() {
        let (mut mir, [_, wy, _], so) = squares(true);
        run(&mut mir);
        assert_eq!(ops(&mir), 5);
        assert_eq!(mir.op(so).alu, Some(AluKind::Mad));
        assert_eq!(mir.op(wy).unit, Unit::Any);
    }
}
