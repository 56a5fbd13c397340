//! Output modifiers on the MIR, between pairing and scheduling: a
//! multiplication by a power of two, `u = t · 2^k` (k in −3..=3, a MAD
//! with a zero addend), whose operand `t` is computed by an earlier op
//! `P` of the same block and read by nothing else, becomes `P`'s output
//! modifier (CTM §3.3.5: `OMOD_U2/U4/U8`, `OMOD_D2/D4/D8` scale every
//! ALU result before the clamp); `u` is removed and its readers read `t`.
//! A negative factor (`t · −0.25`) is read back with NEG; a clamp on `u`
//! moves to `P` (the clamp follows the output modifier), but not with a
//! negative factor (the readers would negate the clamped value). Likewise
//! `saturate(t)` (`MAX(t, t)` with the clamp) becomes `P`'s clamp when
//! selection could not fold it (its operand was not the op just
//! selected).
//!
//! Exactness: scaling by a power of two is exact in f32 except where the
//! scaled value overflows or becomes denormal. The transcendentals round
//! first (CTM "X1K FP": no extra precision), so for them the result is the
//! reference's; the other operations keep extra range until the output
//! modifier, so a MAD whose product overflows f32 but whose scaled result
//! does not is finite where the reference gives an infinity, and a
//! denormal product scaled up is not flushed (`docs/backend-x1k.md` §3).
//!
//! Likewise a factor: `u = (c·x)·y` with `c = ±2^j`, where `c·x` is an
//! earlier op read only by `u`, becomes `u = x·y` scaled by 2^j and the
//! earlier op goes (reassociation by a power of two, exact in the same
//! range; `u` may write an output, whose value is the modified result,
//! CTM §3.3.8).
//!
//! A `u` writing a render target instead of a register: `P` writes the
//! target itself, with the modifier (CTM §3.3.8: any ALU instruction may
//! be an output; its value is the modified result), when `P`'s unit can
//! write the target's channels, no fetch lies between them and no other
//! op of the block writes that target. And a `t` with other readers:
//! when every reader of `u` is a later product of the block (a MAD with
//! a zero addend reading `u` in one factor), each reads `t` and takes the
//! modifier (`(t·2^k)·y = (t·y)·2^k`, exact in the same range) and `u`
//! goes.
//!
//! Otherwise only plain ops take part: `u` and `P` write no output,
//! predicate or ALU result, each is the only writer of its whole
//! register, `P` has no output modifier of its own beyond what fits (the
//! scales add), and nothing between `P` and `u` reads `u`'s register (a
//! value of the previous iteration in a loop).

use std::collections::HashMap;

use super::consts::ConstTable;
use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Operand, Special, Src, Unit, VReg};
use crate::isa::InputModifier;

/// Runs the fold over every block of `mir`.
pub fn run(mir: &mut Mir, consts: &ConstTable) {
    let n = mir.vregs.len();
    let mut defs = vec![0u32; n];
    let mut reads = vec![0u32; n];
    // Ops still in a block: value numbering and pairing leave the ops
    // they removed in the arena.
    for id in mir.live_ops() {
        let op = mir.op(id);
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
        // Readers, not reads: `MAX(t, t)` is one reader of `t`.
        let mut seen: smallvec::SmallVec<[VReg; 5]> = smallvec::SmallVec::new();
        for v in op.reads() {
            if !seen.contains(&v) {
                seen.push(v);
                reads[v.0 as usize] += 1;
            }
        }
    }
    let mut state = Fold {
        defs,
        reads,
        negatable: super::vn::negatable_reads(mir),
        repl: vec![None; n],
        changed: false,
    };
    mir.each_block(|mir, ops| block(mir, consts, ops, &mut state));
    if state.changed {
        for op in &mut mir.ops {
            super::vn::rename(op, &state.repl);
        }
    }
}

/// The pass's state: definitions and reads per register, which registers
/// may be read negated, and the replacements made.
struct Fold {
    defs: Vec<u32>,
    reads: Vec<u32>,
    negatable: Vec<bool>,
    repl: Vec<Option<(VReg, bool)>>,
    changed: bool,
}

fn block(mir: &mut Mir, consts: &ConstTable, ops: &mut Vec<OpId>, state: &mut Fold) {
    // Position (in `keep`) of the op defining each register defined here.
    let mut def_at: HashMap<VReg, usize> = HashMap::new();
    let mut keep: Vec<OpId> = Vec::with_capacity(ops.len());
    // Ops whose scale moved into their only reader.
    let mut gone: Vec<OpId> = Vec::new();
    for (at, &id) in ops.iter().enumerate() {
        super::vn::rename(mir.op_mut(id), &state.repl);
        if let Some((i, k, unit)) = output_fold(mir, consts, &def_at, &keep, ops, state, id) {
            let (clamp, special) = (mir.op(id).clamp, mir.op(id).special);
            let p = mir.op_mut(keep[i]);
            p.scale += k;
            p.clamp |= clamp;
            p.dest = None;
            p.special = special;
            p.unit = unit;
            continue;
        }
        if let Some((u_reg, t, neg, k)) = scaled(mir, consts, mir.op(id))
            && k != 0
            && !mir.op(id).clamp
            && state.reads[t.0 as usize] > 1
            && forward(mir, &ops[at + 1..], state, u_reg, t, neg, k)
        {
            continue;
        }
        if let Some((u_reg, t, neg, k)) = scaled(mir, consts, mir.op(id))
            && let Some(&i) = def_at.get(&t)
            && state.defs[t.0 as usize] == 1
            && state.reads[t.0 as usize] == 1
            && state.defs[u_reg.0 as usize] == 1
            && state.negatable[u_reg.0 as usize]
            && producer(mir, mir.op(keep[i]), t, mir.op(id).width, k)
            && !keep[i + 1..]
                .iter()
                .any(|&o| mir.op(o).reads().any(|r| r == u_reg))
        {
            let clamp = mir.op(id).clamp;
            // A clamp on `−t·2^k` cannot move to `t`'s op: the readers
            // would negate the clamped value (random seed 732246).
            if clamp && neg {
                if let Some((d, _)) = mir.op(id).dest {
                    def_at.insert(d, keep.len());
                }
                keep.push(id);
                continue;
            }
            let p = mir.op_mut(keep[i]);
            p.scale += k;
            p.clamp |= clamp;
            state.repl[u_reg.0 as usize] = Some((t, neg));
            state.reads[t.0 as usize] = state.reads[u_reg.0 as usize];
            state.changed = true;
            continue;
        }
        if let Some((slot, i, x, j)) = scaled_factor(mir, consts, &def_at, &keep, state, id) {
            let u = mir.op_mut(id);
            u.args[slot] = x;
            u.scale += j;
            gone.push(keep[i]);
            state.changed = true;
        }
        if let Some((d, _)) = mir.op(id).dest {
            def_at.insert(d, keep.len());
        }
        keep.push(id);
    }
    keep.retain(|id| !gone.contains(id));
    *ops = keep;
}

/// `u = (c·x)·y` with `c = ±2^j` computed by an earlier op `P` of the
/// block whose result only `u` reads, `u` a MAD with a zero addend: `u`
/// may read `x` (negated for a negative `c`) and scale by 2^j itself,
/// and `P` goes (`(0.5·σ)·σ` is `σ·σ d2`). Returns the operand slot of
/// `u`, `P`'s position in `keep`, the new operand and j.
fn scaled_factor(
    mir: &Mir,
    consts: &ConstTable,
    def_at: &HashMap<VReg, usize>,
    keep: &[OpId],
    state: &Fold,
    id: OpId,
) -> Option<(usize, usize, Operand, i8)> {
    let u = mir.op(id);
    let plain_mad = |o: &MirOp| {
        o.alu == Some(AluKind::Mad)
            && o.presub.is_none()
            && !o.omod_off
            && o.args.len() == 3
            && zero(&o.args[2], o.width)
    };
    if !plain_mad(u) || !matches!(u.special, Special::None | Special::Output(..)) {
        return None;
    }
    for slot in 0..2 {
        let a = u.args[slot];
        let Src::Reg(t) = a.src else { continue };
        if !matches!(a.modifier, InputModifier::None | InputModifier::Neg)
            || u.args[1 - slot].src == Src::Reg(t)
            || state.defs[t.0 as usize] != 1
            || state.reads[t.0 as usize] != 1
        {
            continue;
        }
        let Some(&i) = def_at.get(&t) else { continue };
        let p = mir.op(keep[i]);
        if !plain_mad(p)
            || p.clamp
            || p.scale != 0
            || p.special != Special::None
            || p.dest != Some((t, 0))
            || mir.vreg(t).width != p.width
        {
            continue;
        }
        for (c, x) in [(0, 1), (1, 0)] {
            let Some(value) = constant(consts, &p.args[c], p.width as usize) else {
                continue;
            };
            let Some((neg_c, j)) = power_of_two(value) else {
                continue;
            };
            if !(-3..=3).contains(&(u.scale + j)) {
                continue;
            }
            let x = p.args[x];
            if x.src == Src::Presub {
                continue;
            }
            // x is read later than P did: nothing in between may write it.
            if let Src::Reg(xv) = x.src
                && keep[i + 1..]
                    .iter()
                    .any(|&o| mir.op(o).dest.is_some_and(|(d, _)| d == xv))
            {
                continue;
            }
            // u's lane l read lane k of t = c · x.lanes[k].
            let mut y = x;
            for (l, lane) in a.lanes.iter().enumerate() {
                y.lanes[l] = match *lane {
                    Lane::Of(k) if k < p.width => x.lanes[k as usize],
                    Lane::Of(_) if l < u.width as usize => return None,
                    Lane::Of(_) => Lane::Zero,
                    other => other,
                };
            }
            if (a.modifier == InputModifier::Neg) != neg_c {
                y = y.negated();
            }
            return Some((slot, i, y, j));
        }
    }
    None
}

/// `u = t · c` with `c = ±2^k`, or `u = saturate(t)` (k = 0, the clamp
/// on `u`): (`u`'s register, `t`, whether `u = −t·2^k`, k). `u` must be a
/// plain MAD with a zero addend writing the whole of a register no one
/// else writes, reading all of `t` lane for lane.
fn scaled(mir: &Mir, consts: &ConstTable, u: &MirOp) -> Option<(VReg, VReg, bool, i8)> {
    let (d, 0) = u.dest? else { return None };
    let info = mir.vreg(d);
    // `saturate(t)` as selected: `MAX(t, t)` with the clamp.
    if u.alu == Some(AluKind::Max)
        && u.clamp
        && !u.omod_off
        && u.scale == 0
        && u.presub.is_none()
        && u.special == Special::None
        && u.width == info.width
        && info.fixed.is_none()
        && u.args.len() >= 2
        && u.args[0] == u.args[1]
        && u.args[0].modifier == InputModifier::None
        && let Src::Reg(t) = u.args[0].src
        && mir.vreg(t).width == u.width
        && u.args[0].lanes[..u.width as usize]
            .iter()
            .enumerate()
            .all(|(i, l)| *l == Lane::Of(i as u8))
    {
        return Some((d, t, false, 0));
    }
    if u.alu != Some(AluKind::Mad)
        || u.presub.is_some()
        || u.args.len() != 3
        || u.special != Special::None
        || u.omod_off
        || u.scale != 0
        || u.width != info.width
        || info.fixed.is_some()
        || !zero(&u.args[2], u.width)
    {
        return None;
    }
    let (t, neg_t, neg_c, k) = power_of_two_factors(mir, consts, u).next()?;
    Some((d, t, neg_t != neg_c, k))
}

/// The factors of a zero-addend MAD `u = x · c` that [`scaled`] and
/// [`output_fold`] fold, in both orders: `x` a register `t` read whole,
/// lane for lane, without a modifier or with NEG, and `c` a constant
/// ±2^k in every lane `u` computes: (`t`, whether `x` is negated, whether
/// `c` is negative, k).
fn power_of_two_factors<'a>(
    mir: &'a Mir,
    consts: &'a ConstTable,
    u: &'a MirOp,
) -> impl Iterator<Item = (VReg, bool, bool, i8)> + 'a {
    let w = u.width as usize;
    [(0, 1), (1, 0)].into_iter().filter_map(move |(x, c)| {
        let (x, c) = (u.args.get(x)?, u.args.get(c)?);
        let Src::Reg(t) = x.src else { return None };
        let neg_t = match x.modifier {
            InputModifier::None => false,
            InputModifier::Neg => true,
            _ => return None,
        };
        let whole = mir.vreg(t).width == u.width
            && x.lanes[..w]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == Lane::Of(i as u8));
        if !whole {
            return None;
        }
        let (neg_c, k) = power_of_two(constant(consts, c, w)?)?;
        Some((t, neg_t, neg_c, k))
    })
}

/// Whether every lane the op reads of `o` is 0.
fn zero(o: &Operand, w: u8) -> bool {
    o.src == Src::None && o.lanes[..w as usize].iter().all(|l| *l == Lane::Zero)
}

/// The value every lane of a constant operand reads, modifier applied.
fn constant(consts: &ConstTable, o: &Operand, w: usize) -> Option<f32> {
    let lanes = &o.lanes[..w];
    let v = match o.src {
        Src::None if lanes.iter().all(|l| *l == Lane::Half) => 0.5,
        Src::Inline(code) if lanes.iter().all(|l| matches!(l, Lane::Of(_))) => {
            crate::isa::inline_constant_value(code)
        }
        Src::Const {
            index,
            relative: false,
        } => {
            let mut value = None;
            for l in lanes {
                let Lane::Of(ch) = *l else { return None };
                let x = consts.literal_value(index, ch)?;
                if value.is_some_and(|y: f32| y.to_bits() != x.to_bits()) {
                    return None;
                }
                value = Some(x);
            }
            value?
        }
        _ => return None,
    };
    Some(match o.modifier {
        InputModifier::None => v,
        InputModifier::Neg => -v,
        InputModifier::Abs => v.abs(),
        InputModifier::NegAbs => -v.abs(),
    })
}

/// `(negative, k)` when `v = ±2^k` with k in −3..=3, k ≠ 0 (the output
/// modifier's scales, CTM §3.3.5).
fn power_of_two(v: f32) -> Option<(bool, i8)> {
    let a = v.abs();
    let k = [-3i8, -2, -1, 1, 2, 3]
        .into_iter()
        .find(|&k| a == 2f32.powi(i32::from(k)))?;
    Some((v < 0.0, k))
}

/// Whether `p` may take `u`'s factor 2^k as its output modifier: a plain
/// ALU op writing all of `t` (and only `t`), of `u`'s width, whose output
/// modifier is enabled and unclamped (a clamp comes after the scale), and
/// not a transcendental copied to RGB by `SOP` (its copy is another half's
/// result).
fn producer(mir: &Mir, p: &MirOp, t: VReg, width: u8, k: i8) -> bool {
    let Some(kind) = p.alu else { return false };
    p.dest == Some((t, 0))
        && p.width == width
        && mir.vreg(t).width == width
        && mir.vreg(t).fixed.is_none()
        && p.tex.is_none()
        && p.special == Special::None
        && !p.omod_off
        && !p.clamp
        && (-3..=3).contains(&(p.scale + k))
        && !(matches!(kind, AluKind::Trans(_)) && p.unit == Unit::Both)
}

/// `u = t · 2^k` writing an output (a plain MAD with a zero addend, `t`
/// read whole, lane for lane, with a positive result sign) where `t` is
/// computed by an earlier op `P` of the block that nothing else reads:
/// `P` may write the output itself with the output modifier (CTM §3.3.5;
/// CTM §3.3.8: any ALU instruction may be an output, its value the
/// modified result). Returns `P`'s position in `keep`, k and `P`'s unit.
/// `P` must be able to write the target's channels from its unit, no
/// fetch may lie between `P` and `u` (outputs follow the block's
/// fetches) and no other op of the block may write the same target (the
/// last write of a channel is the one sent out).
fn output_fold(
    mir: &Mir,
    consts: &ConstTable,
    def_at: &HashMap<VReg, usize>,
    keep: &[OpId],
    block: &[OpId],
    state: &Fold,
    id: OpId,
) -> Option<(usize, i8, Unit)> {
    let u = mir.op(id);
    let Special::Output(target, _) = u.special else {
        return None;
    };
    if u.alu != Some(AluKind::Mad)
        || u.dest.is_some()
        || u.presub.is_some()
        || u.args.len() != 3
        || u.omod_off
        || u.scale != 0
        || !zero(&u.args[2], u.width)
    {
        return None;
    }
    for (t, neg_t, neg_c, k) in power_of_two_factors(mir, consts, u) {
        if state.defs[t.0 as usize] != 1 || state.reads[t.0 as usize] != 1 {
            continue;
        }
        // The output gets P's result: no NEG can follow it.
        if neg_t != neg_c {
            return None;
        }
        let &i = def_at.get(&t)?;
        let p = mir.op(keep[i]);
        if !producer(mir, p, t, u.width, k) {
            return None;
        }
        // P's unit must write the channels u writes.
        let unit = match (p.unit, u.unit) {
            (a, b) if a == b => a,
            (Unit::Any, b @ (Unit::Rgb | Unit::Alpha)) => b,
            _ => return None,
        };
        if keep[i + 1..].iter().any(|&o| mir.op(o).unit == Unit::Tex) {
            return None;
        }
        let same_target = block
            .iter()
            .filter(|&&o| matches!(mir.op(o).special, Special::Output(tg, _) if tg == target));
        if same_target.count() != 1 {
            return None;
        }
        return Some((i, k, unit));
    }
    None
}

/// `u = ±t · 2^k` where `t` has other readers: when every reader of `u`
/// is a later product of the block (a plain MAD with a zero addend
/// reading `u` in one factor), each reads `t` instead and scales its
/// own result by 2^k (`(t·2^k)·y = (t·y)·2^k`, exact where no
/// intermediate overflows, like the fold above), and `u` goes. `t` must
/// not be redefined before the readers. Returns whether it did.
fn forward(
    mir: &mut Mir,
    later: &[OpId],
    state: &mut Fold,
    u_reg: VReg,
    t: VReg,
    neg: bool,
    k: i8,
) -> bool {
    let want = state.reads[u_reg.0 as usize];
    if want == 0 || state.defs[u_reg.0 as usize] != 1 || !state.negatable[u_reg.0 as usize] {
        return false;
    }
    let mut readers: smallvec::SmallVec<[(OpId, usize); 4]> = smallvec::SmallVec::new();
    for &o in later {
        let q = mir.op(o);
        if q.reads().any(|r| r == u_reg) {
            let plain = q.alu == Some(AluKind::Mad)
                && q.presub.is_none()
                && !q.omod_off
                && q.args.len() == 3
                && zero(&q.args[2], q.width)
                && matches!(q.special, Special::None | Special::Output(..))
                && (-3..=3).contains(&(q.scale + k));
            if !plain {
                return false;
            }
            let slots: smallvec::SmallVec<[usize; 2]> = (0..2)
                .filter(|&s| q.args[s].src == Src::Reg(u_reg))
                .collect();
            if slots.len() != 1 {
                return false;
            }
            readers.push((o, slots[0]));
            if readers.len() as u32 == want {
                break;
            }
        }
        if q.dest.is_some_and(|(d, _)| d == t || d == u_reg) {
            return false;
        }
    }
    if readers.len() as u32 != want {
        return false;
    }
    for (o, slot) in readers {
        let q = mir.op_mut(o);
        q.args[slot].src = Src::Reg(t);
        if neg {
            q.args[slot] = q.args[slot].negated();
        }
        q.scale += k;
    }
    state.reads[t.0 as usize] += want - 1;
    state.reads[u_reg.0 as usize] = 0;
    true
}
