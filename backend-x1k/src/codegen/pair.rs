//! Two vec2 ops in one vec4 op: an RGB-unit op computing two lanes leaves
//! the third RGB channel and the alpha unit idle, so two such ops of the
//! same operation whose operands differ only in their lanes become one
//! op over both units (lanes x0 y0 x1 on the RGB unit, y1 on the alpha
//! unit, CTM §3.3), into an RGBA register whose lanes 2, 3 the second
//! op's readers read (a texture coordinate through the source swizzle
//! `.ba`, CTM §3.4.1). Gather coordinates (`p + offset`) are the typical
//! case: a 3×3 convolution computes its nine in five ops instead of nine.
//!
//! Runs on the MIR before scheduling; ops merge within one block, the
//! merged op taking the first one's place, when nothing between them
//! redefines what the second reads. Two source-less operands with
//! different modifiers (`p + (1, 0)` and `p − (1, 0)`) become one literal
//! operand (`(1, 0, −1, 0)`: swizzle and inline constants where exact,
//! else a pooled constant register, [`ConstTable::literal`]).

use super::consts::ConstTable;
use super::mir::{AluKind, Lane, Mir, MirOp, OpId, Operand, RegClass, Special, Src, Unit, VReg};
use crate::isa::InputModifier;

/// Merges pairs of vec2 ops in every block of `mir`.
pub fn run(mir: &mut Mir, consts: &mut ConstTable) {
    let mut defs = vec![0u32; mir.vregs.len()];
    for op in &mir.ops {
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
    }
    // moved[v] = (m, shift): lanes of v now live at lanes + shift of m.
    let mut moved: Vec<Option<(VReg, u8)>> = vec![None; mir.vregs.len()];
    mir.each_block(|mir, ops| block(mir, ops, &defs, &mut moved, consts));
    if moved.iter().any(Option::is_some) {
        for op in &mut mir.ops {
            for a in op.args.iter_mut() {
                rename(a, &moved);
            }
            if let Some((_, a, b)) = &mut op.presub {
                // `srcp`'s lanes are those of the register source the
                // emitter names its channels after (src1, else src0): they
                // move with it (random seed 999714: a `CMP` presubtracting
                // `5 − (x + in1)` read channel r after `x + in1` moved to
                // lane 2, b).
                let named = [*b, *a].into_iter().find(|o| matches!(o.src, Src::Reg(_)));
                let shift = named.and_then(|o| match o.src {
                    Src::Reg(v) => moved.get(v.0 as usize).copied().flatten(),
                    _ => None,
                });
                rename(a, &moved);
                rename(b, &moved);
                if let Some((_, shift)) = shift {
                    for arg in op.args.iter_mut().filter(|o| o.src == Src::Presub) {
                        for l in arg.lanes.iter_mut() {
                            if let Lane::Of(k) = l {
                                *k += shift;
                            }
                        }
                    }
                }
            }
        }
    }
}

fn rename(o: &mut Operand, moved: &[Option<(VReg, u8)>]) {
    if let Src::Reg(v) = o.src
        && let Some((m, shift)) = moved.get(v.0 as usize).copied().flatten()
    {
        o.src = Src::Reg(m);
        for l in o.lanes.iter_mut() {
            if let Lane::Of(k) = l {
                *k += shift;
            }
        }
    }
}

/// Whether `op` can be half of a pair: a plain two-lane RGB op without
/// presubtract, the only writer of its whole two-lane register.
fn candidate(mir: &Mir, op: &MirOp, defs: &[u32]) -> bool {
    let Some((v, 0)) = op.dest else { return false };
    let info = mir.vreg(v);
    matches!(
        op.alu,
        Some(AluKind::Mad | AluKind::Min | AluKind::Max | AluKind::Cmp | AluKind::Frc)
    ) && op.unit == Unit::Rgb
        && op.width == 2
        && op.presub.is_none()
        && op.special == Special::None
        && info.width == 2
        && info.class == RegClass::Rgb
        && info.fixed.is_none()
        && defs[v.0 as usize] == 1
}

/// Whether [`combine`] can merge `a` and `b` (short of running out of
/// constant registers).
fn combinable(a: &Operand, b: &Operand) -> bool {
    let constant =
        |o: &Operand| o.src == Src::None && o.lanes[..2].iter().all(|l| !matches!(l, Lane::Of(_)));
    if a.modifier != b.modifier {
        return constant(a) && constant(b);
    }
    match (a.src, b.src) {
        (Src::Presub, _) | (_, Src::Presub) => false,
        (x, y) => x == y || x == Src::None || y == Src::None,
    }
}

/// The operand reading `a`'s lanes then `b`'s, if one source serves both
/// (a source-less operand's lanes are swizzle constants, valid with any
/// source).
fn combine(a: &Operand, b: &Operand, consts: &mut ConstTable) -> Option<Operand> {
    if a.modifier != b.modifier {
        if a.src != Src::None || b.src != Src::None {
            return None;
        }
        let value = |o: &Operand, l: Lane| {
            let x = match l {
                Lane::Zero => 0.0f32,
                Lane::Half => 0.5,
                Lane::One => 1.0,
                Lane::Of(_) => return None,
            };
            Some(match o.modifier {
                InputModifier::None => x,
                InputModifier::Neg => -x,
                InputModifier::Abs => x.abs(),
                InputModifier::NegAbs => -x.abs(),
            })
        };
        let values = [
            value(a, a.lanes[0])?,
            value(a, a.lanes[1])?,
            value(b, b.lanes[0])?,
            value(b, b.lanes[1])?,
        ];
        return consts.literal(&values).ok();
    }
    let src = match (a.src, b.src) {
        (x, y) if x == y => x,
        (Src::None, y) => y,
        (x, Src::None) => x,
        _ => return None,
    };
    if matches!(src, Src::Presub) {
        return None;
    }
    Some(Operand {
        src,
        lanes: [a.lanes[0], a.lanes[1], b.lanes[0], b.lanes[1]],
        modifier: a.modifier,
    })
}

/// How many ops after a candidate are searched for its partner.
const WINDOW: usize = 48;

/// The register `v`'s lanes live in now.
fn current(moved: &[Option<(VReg, u8)>], v: VReg) -> VReg {
    moved
        .get(v.0 as usize)
        .copied()
        .flatten()
        .map_or(v, |(m, _)| m)
}

fn block(
    mir: &mut Mir,
    ops: &mut Vec<OpId>,
    defs: &[u32],
    moved: &mut [Option<(VReg, u8)>],
    consts: &mut ConstTable,
) {
    let n = ops.len();
    let mut gone = vec![false; n];
    for i in 0..n {
        if gone[i] || !candidate(mir, mir.op(ops[i]), defs) {
            continue;
        }
        // A bounded window keeps the pass linear in the block's length
        // (issue 13: thousands of candidates made it quadratic, the
        // clobber scan cubic); pairs worth merging sit close together.
        for j in i + 1..n.min(i + 1 + WINDOW) {
            if gone[j] {
                continue;
            }
            let (x, y) = (mir.op(ops[i]), mir.op(ops[j]));
            if !candidate(mir, y, defs)
                || x.alu != y.alu
                || x.omod_off != y.omod_off
                || x.clamp != y.clamp
                || x.args.len() != y.args.len()
            {
                continue;
            }
            // y moves up to x: nothing from x to y may write what y reads.
            // Names are compared as merged (`moved`): ops past the window
            // are renamed only at the end of the pass.
            let reads: Vec<VReg> = y.reads().map(|r| current(moved, r)).collect();
            // Nor read y's result (a value of the previous iteration).
            let vy = y.dest.map(|(v, _)| v);
            let clobbered = ops[i..j].iter().any(|&o| {
                let op = mir.op(o);
                op.dest
                    .is_some_and(|(d, _)| reads.contains(&current(moved, d)))
                    || op.reads().any(|r| Some(current(moved, r)) == vy)
            });
            if clobbered {
                continue;
            }
            // Check every operand first: a literal is placed only for a
            // pair that merges.
            if !x.args.iter().zip(&y.args).all(|(a, b)| combinable(a, b)) {
                continue;
            }
            let args: Option<smallvec::SmallVec<[Operand; 3]>> = x
                .args
                .iter()
                .zip(&y.args)
                .map(|(a, b)| combine(a, b, consts))
                .collect();
            let Some(args) = args else { continue };
            let (Some((vx, _)), Some((vy, _))) = (x.dest, y.dest) else {
                continue;
            };
            let m = mir.new_vreg(4, RegClass::Rgba);
            let op = mir.op_mut(ops[i]);
            op.args = args;
            op.width = 4;
            op.unit = Unit::Both;
            op.dest = Some((m, 0));
            moved[vx.0 as usize] = Some((m, 0));
            moved[vy.0 as usize] = Some((m, 2));
            gone[j] = true;
            // Later ops of the window read the new register (the rest are
            // renamed at the end of the pass).
            for &o in &ops[i + 1..n.min(i + 1 + 2 * WINDOW)] {
                let op = mir.op_mut(o);
                for a in op.args.iter_mut() {
                    rename(a, moved);
                }
                if let Some((_, a, b)) = &mut op.presub {
                    rename(a, moved);
                    rename(b, moved);
                }
            }
            break;
        }
    }
    let mut k = 0;
    ops.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
}
