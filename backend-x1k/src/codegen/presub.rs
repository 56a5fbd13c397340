//! Presubtract on the MIR, between the output-modifier fold and
//! scheduling: an op computing `t = 1 − x` whose readers are all later ops
//! of its block is removed, and each reader reads `srcp` of the
//! presubtract `1 − src0` with `x` as source 0 instead (CTM §3.3.2:
//! `SRCP_OP_INV`, computed per channel from source slot 0 and selected as
//! input "srcp"; x1k-encoding §3.2). `cnd`'s `d < 0 ? 1 − w : w` in
//! Black-Scholes is one `CMP` this way.
//!
//! The presubtract is the same computation as the removed op (one
//! rounding of `1 − x`). What it costs: each reader pins `x` to source
//! slot 0 (the scheduler's `fit` keeps it there), and the RGB presubtract
//! works on r, g, b and the alpha one on a (CTM §3.3.2), so every reader
//! and `x` itself must be on one unit: a scalar whose unit was still open
//! is put on the unit its readers need (when free to choose, the groups
//! alternate between the units, alpha first). A reader already presubtracting, a two-unit reader (vec4 ops,
//! `DP4`, a transcendental copied by `SOP`) or a reader whose sources would
//! no longer fit three slots keeps `t`. `x` must not be redefined between
//! the op and its readers.
//!
//! Likewise a scalar sum or difference `t = x ± y` (`SRCP_OP_ADD`,
//! `SRCP_OP_SUB`: src1 ± src0, CTM §3.3.2), `x` and `y` one-lane
//! registers or inline constants read raw (the presubtract takes no
//! input modifier). It combines equal channels of its two sources, which
//! only channel a guarantees for any two scalars the allocator places, so
//! these groups run on the alpha unit, and at most one source whose unit
//! is still open is bound to it (binding both takes away the co-issue of
//! the two ops computing them). Their readers' other sources whose unit
//! is open are assumed to land in channel a when testing the fit.

use smallvec::SmallVec;

use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Operand, RegClass, Special, Src, Unit, VReg};
use crate::isa::{InputModifier, PresubOp};

/// Runs the fold over every block of `mir`.
pub fn run(mir: &mut Mir) {
    let n = mir.vregs.len();
    let mut defs = vec![0u32; n];
    let mut def_op: Vec<Option<OpId>> = vec![None; n];
    let mut readers = vec![0u32; n];
    // Ops still in a block (the arena keeps those earlier passes removed).
    for id in mir.live_ops() {
        let op = mir.op(id);
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
            def_op[v.0 as usize] = Some(id);
        }
        let mut seen: SmallVec<[VReg; 5]> = SmallVec::new();
        for v in op.reads() {
            if !seen.contains(&v) {
                seen.push(v);
                readers[v.0 as usize] += 1;
            }
        }
    }
    let facts = Facts {
        defs,
        def_op,
        readers,
    };
    mir.each_block(|mir, ops| block(mir, ops, &facts));
}

/// Definitions, the defining op and readers of each register (before the
/// pass; an op it removes was the only reader of nothing else).
struct Facts {
    defs: Vec<u32>,
    def_op: Vec<Option<OpId>>,
    readers: Vec<u32>,
}

fn block(mir: &mut Mir, ops: &mut Vec<OpId>, facts: &Facts) {
    let mut removed: Vec<usize> = Vec::new();
    // Groups free to choose their unit alternate between the units,
    // alpha first (each group binds its readers and x's producer to one
    // unit; putting them all on one unit lengthens the schedule:
    // black_scholes has 28 instructions with both groups on alpha, 30 on
    // RGB, 27 alternating).
    let mut alpha_next = true;
    for i in 0..ops.len() {
        let Some((t, pre)) = one_minus(mir, mir.op(ops[i]))
            .map(|(t, x)| (t, (PresubOp::Inv, x, Operand::splat_lane(Lane::Zero))))
            .or_else(|| sum_or_difference(mir, mir.op(ops[i])))
        else {
            continue;
        };
        if facts.defs[t.0 as usize] != 1 {
            continue;
        }
        let (_, x, y) = pre;
        let Some(xv) = x.vreg().or(y.vreg()) else {
            continue;
        };
        let yv = y.vreg();
        // The readers: later ops of this block, before any redefinition
        // of x.
        let mut readers: SmallVec<[OpId; 4]> = SmallVec::new();
        let mut complete = false;
        for &id in &ops[i + 1..] {
            let op = mir.op(id);
            if op.reads().any(|r| r == t) {
                readers.push(id);
            }
            if readers.len() as u32 == facts.readers[t.0 as usize] {
                complete = true;
                break;
            }
            if op.dest.is_some_and(|(d, _)| d == xv || Some(d) == yv) {
                break;
            }
        }
        if !complete || readers.is_empty() {
            continue;
        }
        let prefer = if alpha_next { Unit::Alpha } else { Unit::Rgb };
        if let Some(u) = rewrite(mir, facts, t, pre, &readers, prefer) {
            removed.push(i);
            if u == prefer {
                alpha_next = !alpha_next;
            }
        }
    }
    if !removed.is_empty() {
        let mut k = 0;
        ops.retain(|_| {
            let keep = !removed.contains(&k);
            k += 1;
            keep
        });
    }
}

/// `t` when `op` is a plain MAD (no presubtract, clamp, output modifier
/// or special write) computing all of `t`, a register not fixed in place:
/// what both presubtract forms below start from.
fn plain_mad(mir: &Mir, op: &MirOp) -> Option<VReg> {
    let (t, 0) = op.dest? else { return None };
    let ok = op.alu == Some(AluKind::Mad)
        && op.presub.is_none()
        && op.special == Special::None
        && !op.clamp
        && !op.omod_off
        && op.scale == 0
        && op.args.len() == 3
        && mir.vreg(t).width == op.width
        && mir.vreg(t).fixed.is_none();
    ok.then_some(t)
}

/// `(t, x)` when `op` is `t = 1 − x`: a plain MAD `1·1 + (−x)` writing all
/// of `t`, `x` a register read lane by lane without another modifier.
fn one_minus(mir: &Mir, op: &MirOp) -> Option<(VReg, Operand)> {
    let t = plain_mad(mir, op)?;
    let w = op.width as usize;
    let one = |o: &Operand| {
        o.src == Src::None
            && o.modifier == InputModifier::None
            && o.lanes[..w].iter().all(|l| *l == Lane::One)
    };
    if !one(&op.args[0]) || !one(&op.args[1]) {
        return None;
    }
    let c = op.args[2];
    if c.modifier != InputModifier::Neg
        || !matches!(c.src, Src::Reg(_))
        || !c.lanes[..w].iter().all(|l| matches!(l, Lane::Of(_)))
    {
        return None;
    }
    Some((
        t,
        Operand {
            modifier: InputModifier::None,
            ..c
        },
    ))
}

/// `(t, (op, src0, src1))` when `op` is `t = x + y` or a difference of
/// two scalars (`MAD(x, 1, ±y)`, either side negated but not both): the
/// presubtract `src1 ± src0` (`SRCP_OP_ADD`/`SRCP_OP_SUB`, CTM §3.3.2),
/// each source a one-lane register read at lane 0 or an inline constant
/// (read raw: the presubtract takes no input modifier), at least one a
/// register.
fn sum_or_difference(mir: &Mir, op: &MirOp) -> Option<(VReg, (PresubOp, Operand, Operand))> {
    let t = plain_mad(mir, op)?;
    let ok = op.width == 1
        && op.args[1].src == Src::None
        && op.args[1].modifier == InputModifier::None
        && op.args[1].lanes[0] == Lane::One;
    if !ok {
        return None;
    }
    // A source: (raw operand, negated).
    let source = |o: &Operand| -> Option<(Operand, bool)> {
        let neg = match o.modifier {
            InputModifier::None => false,
            InputModifier::Neg => true,
            _ => return None,
        };
        let raw = Operand {
            modifier: InputModifier::None,
            lanes: [Lane::Of(0); 4],
            ..*o
        };
        match o.src {
            Src::Reg(v) if o.lanes[0] == Lane::Of(0) && mir.vreg(v).width == 1 => Some((raw, neg)),
            Src::Inline(_) => Some((raw, neg)),
            _ => None,
        }
    };
    let (a, neg_a) = source(&op.args[0])?;
    let (c, neg_c) = source(&op.args[2])?;
    if a.vreg().is_none() && c.vreg().is_none() {
        return None;
    }
    let pre = match (neg_a, neg_c) {
        (false, false) => (PresubOp::Add, c, a),
        // a − c = src1 − src0.
        (false, true) => (PresubOp::Sub, c, a),
        (true, false) => (PresubOp::Sub, a, c),
        (true, true) => return None,
    };
    Some((t, pre))
}

/// The unit whose presubtract sees the channels of `x` the readers need:
/// `None` if the register's channels straddle both units.
fn unit_of(mir: &Mir, x: &Operand, w: usize) -> Option<Option<Unit>> {
    let Src::Reg(v) = x.src else { return None };
    let info = mir.vreg(v);
    if info.fixed.is_some() {
        return None;
    }
    let mut rgb = false;
    let mut alpha = false;
    for l in &x.lanes[..w] {
        let Lane::Of(l) = *l else { return None };
        match info.class {
            RegClass::Rgb => rgb = true,
            RegClass::Alpha => alpha = true,
            RegClass::Rgba if l < 3 => rgb = true,
            RegClass::Rgba => alpha = true,
            RegClass::Undecided => {}
        }
    }
    match (rgb, alpha) {
        (true, true) => None,
        (true, false) => Some(Some(Unit::Rgb)),
        (false, true) => Some(Some(Unit::Alpha)),
        (false, false) => Some(None),
    }
}

/// Makes every reader of `t` read `1 − x` through the presubtract, on
/// `prefer` if nothing decides the unit; the unit, or `None` (and nothing
/// changed) if a reader cannot.
fn rewrite(
    mir: &mut Mir,
    facts: &Facts,
    t: VReg,
    pre: (PresubOp, Operand, Operand),
    readers: &[OpId],
    prefer: Unit,
) -> Option<Unit> {
    let w = mir.vreg(t).width as usize;
    let (op, x, y) = pre;
    // The register source whose lanes the presubtract result has (the
    // emitter names srcp's channels after it).
    let (x, y) = if x.vreg().is_some() { (x, y) } else { (y, x) };
    let mut unit = unit_of(mir, &x, w)?;
    // Two sources: the presubtract combines equal channels of src0 and
    // src1 (CTM §3.3.2, `srcp`), which the allocator guarantees only for
    // scalars in channel a: the alpha unit.
    if op != PresubOp::Inv {
        if w != 1 || unit == Some(Unit::Rgb) {
            return None;
        }
        if let Some(yv) = y.vreg()
            && (mir.vreg(yv).fixed.is_some() || unit_of(mir, &y, w)? == Some(Unit::Rgb))
        {
            return None;
        }
        unit = Some(Unit::Alpha);
    }
    // The readers' units must agree with x's.
    for &r in readers {
        let op = mir.op(r);
        // A unit decides an output's channel and a predicate's bit: only
        // plain readers move.
        if op.presub.is_some() || op.alu.is_none() || op.special != Special::None {
            return None;
        }
        match op.unit {
            Unit::Any => {}
            u @ (Unit::Rgb | Unit::Alpha) => match unit {
                None => unit = Some(u),
                Some(have) if have == u => {}
                Some(_) => return None,
            },
            Unit::Both | Unit::Tex => return None,
        }
    }
    let xv = x.vreg()?;
    // A scalar source whose unit is open: its only producer takes the
    // unit.
    let mut producers: SmallVec<[(OpId, VReg); 2]> = SmallVec::new();
    for v in [Some(xv), y.vreg()].into_iter().flatten() {
        if mir.vreg(v).class != RegClass::Undecided || producers.iter().any(|&(_, u)| u == v) {
            continue;
        }
        match facts.def_op[v.0 as usize] {
            Some(p)
                if facts.defs[v.0 as usize] == 1
                    && mir.op(p).unit == Unit::Any
                    && mir.op(p).special == Special::None
                    && mir.op(p).dest == Some((v, 0)) =>
            {
                producers.push((p, v));
            }
            _ => return None,
        }
    }
    // Binding both sources of a sum or difference to the alpha unit
    // takes away their co-issue (two scalars computed side by side on
    // both units): measured on `(x − y)·c` of two products, the op saved
    // comes back as an instruction. Only one source may still be open.
    if op != PresubOp::Inv && producers.len() > 1 {
        return None;
    }
    let unit = unit.unwrap_or(prefer);
    if unit == Unit::Rgb && w > 3 || unit == Unit::Alpha && w != 1 {
        return None;
    }
    // Rewrite on copies; commit only if every reader still fits.
    let mut new_ops: SmallVec<[(OpId, MirOp); 4]> = SmallVec::new();
    for &r in readers {
        let mut op = mir.op(r).clone();
        for a in op.args.iter_mut() {
            if a.src == Src::Reg(t) {
                let mut lanes = a.lanes;
                for l in lanes.iter_mut() {
                    if let Lane::Of(k) = *l {
                        *l = x.lanes[(k as usize) & 3];
                    }
                }
                *a = Operand {
                    src: Src::Presub,
                    lanes,
                    modifier: a.modifier,
                };
            }
        }
        op.presub = Some(pre);
        op.unit = unit;
        new_ops.push((r, op));
    }
    // Commit, then check the sources of each reader alone; undo if one
    // does not fit.
    let saved: SmallVec<[(OpId, MirOp); 4]> =
        readers.iter().map(|&r| (r, mir.op(r).clone())).collect();
    let saved_class: SmallVec<[(VReg, RegClass); 5]> = readers
        .iter()
        .filter_map(|&r| mir.op(r).dest.map(|(d, _)| d))
        .chain([Some(xv), y.vreg()].into_iter().flatten())
        .map(|v| (v, mir.vreg(v).class))
        .collect();
    let saved_producers: SmallVec<[(OpId, Unit); 2]> = producers
        .iter()
        .map(|&(p, _)| (p, mir.op(p).unit))
        .collect();
    let class = if unit == Unit::Rgb {
        RegClass::Rgb
    } else {
        RegClass::Alpha
    };
    for (r, op) in new_ops {
        if let Some((d, _)) = op.dest
            && mir.vreg(d).class == RegClass::Undecided
        {
            mir.vregs[d.0 as usize].class = class;
        }
        *mir.op_mut(r) = op;
    }
    for &(p, v) in &producers {
        mir.op_mut(p).unit = unit;
        mir.vregs[v.0 as usize].class = class;
    }
    // Two alpha addresses go to the presubtract: a source whose unit the
    // scheduler has yet to decide may land in channel a and need a third
    // (black_scholes: a `CMP` reading two such values besides x − y), so
    // with two sources the test assumes they all do.
    let pessimist = op != PresubOp::Inv;
    let fits = readers.iter().all(|&r| {
        let (rgb, alpha) = match unit {
            Unit::Rgb => (Some(r), None),
            _ => (None, Some(r)),
        };
        with_undecided_in_alpha(mir, r, pessimist, |mir| {
            super::sched::fits_pair(mir, rgb, alpha)
        }) && dest_class_ok(mir, mir.op(r), unit)
    }) && (producers.is_empty() || {
        // A source put in channel a changes where every other reader of
        // it finds it (the alpha source address): each must still fit.
        let moved: SmallVec<[VReg; 2]> = producers.iter().map(|&(_, v)| v).collect();
        let others: Vec<OpId> = mir
            .live_ops()
            .into_iter()
            .filter(|&o| mir.op(o).reads().any(|r| moved.contains(&r)))
            .collect();
        others
            .into_iter()
            .all(|o| with_undecided_in_alpha(mir, o, pessimist, |mir| fits_alone(mir, o)))
    });
    if !fits {
        for (r, op) in saved {
            *mir.op_mut(r) = op;
        }
        for (v, c) in saved_class {
            mir.vregs[v.0 as usize].class = c;
        }
        for &(p, u) in &saved_producers {
            mir.op_mut(p).unit = u;
        }
        return None;
    }
    Some(unit)
}

/// `f(mir)` with every register `o` reads whose class is undecided put
/// in channel a for the test (when `on`), then restored.
fn with_undecided_in_alpha(mir: &mut Mir, o: OpId, on: bool, f: impl FnOnce(&Mir) -> bool) -> bool {
    if !on {
        return f(mir);
    }
    let open: SmallVec<[VReg; 6]> = mir
        .op(o)
        .reads()
        .filter(|&v| mir.vreg(v).class == RegClass::Undecided)
        .collect();
    for &v in &open {
        mir.vregs[v.0 as usize].class = RegClass::Alpha;
    }
    let ok = f(mir);
    for &v in &open {
        mir.vregs[v.0 as usize].class = RegClass::Undecided;
    }
    ok
}

/// Whether op `o` fits the source slots on its unit (on one of the two
/// when it may take either).
fn fits_alone(mir: &Mir, o: OpId) -> bool {
    use super::sched::fits_pair;
    match mir.op(o).unit {
        Unit::Rgb => fits_pair(mir, Some(o), None),
        Unit::Alpha => fits_pair(mir, None, Some(o)),
        Unit::Both => fits_pair(mir, Some(o), Some(o)),
        Unit::Any => fits_pair(mir, Some(o), None) || fits_pair(mir, None, Some(o)),
        Unit::Tex => true,
    }
}

/// Whether a reader on `unit` may write its destination register (its
/// class must be that unit's, or an RGBA register's lanes on it).
fn dest_class_ok(mir: &Mir, op: &MirOp, unit: Unit) -> bool {
    let Some((d, lane)) = op.dest else {
        return true;
    };
    match (mir.vreg(d).class, unit) {
        (RegClass::Rgb, Unit::Rgb) | (RegClass::Alpha, Unit::Alpha) => true,
        (RegClass::Rgba, Unit::Rgb) => lane + op.width <= 3,
        (RegClass::Rgba, Unit::Alpha) => lane == 3 && op.width == 1,
        _ => false,
    }
}
