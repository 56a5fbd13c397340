//! One instruction writes a register and an output, on the MIR after
//! [`super::branch_out`] (the last pass before scheduling).
//!
//! A value that is written to a render target *and* read again by later
//! ops is computed into a register and copied to the target later
//! (`MAX(t, t)` with the output modifier off, CTM §3.3.5). An OUT
//! instruction has the temporary write masks as well as the output masks
//! (CTM §3.2's per-type field table marks `RGB_WMASK`/`ALPHA_WMASK` and
//! `RGB_OMASK`/`ALPHA_OMASK` effective for OUTPUT; §3.3.6 lists them as
//! separate masks; Mesa's R500 emitter sets both from a pair instruction's
//! `WriteMask` and `OutputWriteMask`), so the op computing `t` writes the
//! target too and the copy goes: four_outputs' `a = p`, yuv's `y`.
//!
//! Conditions, for a copy `C` writing target channels `first..first + w`
//! from lanes `L..L + w` of `t` and the op `X` of `C`'s block that last
//! writes those lanes before it:
//!
//! - `X` writes exactly lanes `L..L + w` of `t`, is an ALU op with no
//!   other special write (an OUT sets neither predicate bits nor the ALU
//!   result, CTM §3.1), and nothing in between writes those lanes (`X`
//!   is the last writer); `X` in `C`'s block, so a copy after a loop of a
//!   value carried by it never moves into the loop;
//! - `C`'s target channels are written by no other op of the program, so
//!   moving their write earlier cannot change which write is last (CTM
//!   §3.3.8: a channel written twice keeps the last value);
//! - the unit of `X` can write both: RGB channels by the RGB unit (a
//!   transcendental through `SOP`, CTM §3.3.4, which makes an alpha-unit
//!   transcendental take both units; a `DP3`/`D2A` or `DP4` result is in
//!   every RGB channel), channel a by the alpha unit (a transcendental or
//!   `DP4` on both units writes a from its alpha half); a scalar op free
//!   to take either unit is bound to the one the target's channel needs;
//! - one instruction computes one value per channel (CTM §3.3.3): a
//!   scalar may sit in any register channel, but an RGB register of two
//!   or three lanes gets its lanes pinned to the target's channels
//!   ([`super::mir::VRegInfo::channels`], honoured by the allocator), and
//!   an RGBA register's lanes must already be there;
//! - no `KILL` follows `X` in the block (the scheduler keeps outputs after
//!   a block's `KILL`, which would otherwise wait on `X`'s own value).

use super::mir::{AluKind, Lane, Mir, MirOp, OpId, RegClass, Special, Src, TexKind, Unit, VReg};

/// Runs the rewrite over every block of `mir`.
pub fn run(mir: &mut Mir) {
    // How many ops of the program write each (target, channel).
    let mut writers = [[0u32; 4]; 4];
    let mut defs = vec![0u32; mir.vregs.len()];
    for id in mir.live_ops() {
        let op = mir.op(id);
        if let Some((k, chans)) = output_channels(op) {
            for c in chans {
                writers[k as usize & 3][c as usize & 3] += 1;
            }
        }
        if let Some((v, _)) = op.dest {
            defs[v.0 as usize] += 1;
        }
    }
    mir.each_block(|mir, ops| {
        let mut ci = 0;
        while ci < ops.len() {
            if rewrite(mir, ops, ci, &writers, &defs) {
                ops.remove(ci);
            } else {
                ci += 1;
            }
        }
    });
}

/// The target and channels an output op writes.
fn output_channels(op: &MirOp) -> Option<(u8, std::ops::Range<u8>)> {
    match op.special {
        Special::Output(k, first) => Some((k, first..(first + op.width).min(4))),
        _ => None,
    }
}

/// The unit of an op, with its register's class deciding an open scalar.
fn effective_unit(mir: &Mir, op: &MirOp) -> Unit {
    match (op.unit, op.dest.map(|(v, _)| mir.vreg(v).class)) {
        (Unit::Any, Some(RegClass::Alpha)) => Unit::Alpha,
        (Unit::Any, Some(RegClass::Rgb)) => Unit::Rgb,
        (u, _) => u,
    }
}

/// How `X` is changed to write the target too.
struct Plan {
    /// Its unit from now on.
    unit: Unit,
    /// Its register's class, when `X` decides it.
    class: Option<RegClass>,
    /// Channels pinned for its register.
    pin: Option<[u8; 4]>,
}

/// Rewrites the copy at `ops[ci]` into its value's op, if allowed; `true`
/// if done (the caller removes the copy).
fn rewrite(mir: &mut Mir, ops: &[OpId], ci: usize, writers: &[[u32; 4]; 4], defs: &[u32]) -> bool {
    let Some((t, first, lane, w, xi)) = copy_and_writer(mir, ops, ci, writers) else {
        return false;
    };
    let x = ops[xi];
    let Some(plan) = plan(mir, mir.op(x), t, first, lane, w, defs) else {
        return false;
    };
    // A KILL after X: outputs are scheduled after their block's KILL.
    if ops[xi + 1..]
        .iter()
        .any(|&o| mir.op(o).tex == Some(TexKind::Kill))
    {
        return false;
    }
    let Special::Output(k, _) = mir.op(ops[ci]).special else {
        return false;
    };
    if let Some(c) = plan.class {
        mir.vregs[t.0 as usize].class = c;
    }
    if plan.pin.is_some() {
        mir.vregs[t.0 as usize].channels = plan.pin;
    }
    let op = mir.op_mut(x);
    op.unit = plan.unit;
    op.special = Special::Output(k, first);
    true
}

/// The copy at `ops[ci]`: the register `t` it copies, its first target
/// channel, the first lane of `t` it reads, its width, and the position
/// of the op that last writes those lanes before it.
fn copy_and_writer(
    mir: &Mir,
    ops: &[OpId],
    ci: usize,
    writers: &[[u32; 4]; 4],
) -> Option<(VReg, u8, u8, u8, usize)> {
    let c = mir.op(ops[ci]);
    let (k, chans) = output_channels(c)?;
    let a = c.copy_source()?;
    let Src::Reg(t) = a.src else { return None };
    if c.dest.is_some()
        || chans
            .clone()
            .any(|ch| writers[k as usize & 3][ch as usize] != 1)
    {
        return None;
    }
    let w = c.width;
    let Lane::Of(lane) = a.lanes[0] else {
        return None;
    };
    if (0..w).any(|i| a.lanes[i as usize] != Lane::Of(lane + i)) {
        return None;
    }
    let (first, end) = (chans.start, chans.end);
    if end - first != w {
        return None;
    }
    // The last writer of any copied lane before the copy.
    let xi = (0..ci).rev().find(|&i| {
        mir.op(ops[i])
            .dest
            .is_some_and(|(d, dl)| d == t && dl < lane + w && lane < dl + mir.op(ops[i]).width)
    })?;
    let x = mir.op(ops[xi]);
    (x.dest == Some((t, lane)) && x.width == w).then_some((t, first, lane, w, xi))
}

/// How `x` (writing lanes `lane..lane + w` of `t`) can also write target
/// channels `first..first + w`, if it can.
fn plan(mir: &Mir, x: &MirOp, t: VReg, first: u8, lane: u8, w: u8, defs: &[u32]) -> Option<Plan> {
    let kind = x.alu?;
    if x.special != Special::None || x.tex.is_some() {
        return None;
    }
    let info = mir.vreg(t);
    let rgb_target = first + w <= 3;
    let alpha_target = first == 3 && w == 1;
    let vec4 = first == 0 && w == 4;
    let sole = defs[t.0 as usize] == 1;
    let mut plan = Plan {
        unit: x.unit,
        class: None,
        pin: None,
    };
    match (kind, effective_unit(mir, x)) {
        // Through SOP (RGB channels) or from the alpha half (channel a):
        // either way one channel, wherever the register lane lives.
        (AluKind::Trans(_), Unit::Alpha | Unit::Both) if w == 1 => {
            if rgb_target {
                plan.unit = Unit::Both;
            } else if !alpha_target {
                return None;
            }
        }
        // The dot product is in every RGB channel (DP4's also in a).
        (AluKind::Dp2 | AluKind::Dp3, Unit::Rgb) if w == 1 && rgb_target => {}
        (AluKind::Dp4, Unit::Both) if w == 1 => {}
        (AluKind::Trans(_) | AluKind::Dp2 | AluKind::Dp3 | AluKind::Dp4, _) => return None,
        (_, Unit::Both) if vec4 => {
            if info.class != RegClass::Rgba || lane != 0 {
                return None;
            }
        }
        (_, Unit::Rgb) if rgb_target => {
            if w > 1 {
                plan.pin = pin(mir, t, first, lane, w)?;
            }
        }
        (_, Unit::Alpha) if alpha_target => {}
        // An open scalar takes the unit of the target's channel; its
        // register's class goes with it (only when X is its one writer).
        (_, Unit::Any) if w == 1 && sole && info.class == RegClass::Undecided => {
            if x.presub.is_some() {
                return None;
            }
            let (unit, class) = if alpha_target {
                (Unit::Alpha, RegClass::Alpha)
            } else {
                (Unit::Rgb, RegClass::Rgb)
            };
            plan.unit = unit;
            plan.class = Some(class);
        }
        _ => return None,
    }
    Some(plan)
}

/// The channel pin (if one is needed) that puts lanes `lane..lane + w` of
/// `t` into channels `first..first + w`; `None` when they cannot be there.
fn pin(mir: &Mir, t: VReg, first: u8, lane: u8, w: u8) -> Option<Option<[u8; 4]>> {
    let info = mir.vreg(t);
    if info.fixed.is_some() {
        return None;
    }
    match info.class {
        RegClass::Rgba => (lane == first).then_some(None),
        RegClass::Rgb if lane == 0 && info.width == w => {
            let mut chans = [0u8; 4];
            for (i, c) in chans.iter_mut().enumerate().take(w as usize) {
                *c = first + i as u8;
            }
            match info.channels {
                None => Some(Some(chans)),
                Some(have) if have[..w as usize] == chans[..w as usize] => Some(None),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{Node, Operand, Transcendental};
    use smallvec::smallvec;

    /// A plain op of `kind` on `unit` computing `width` lanes of `dest`
    /// from `arg` (read twice, a third time as MAD's addend).
    fn op(kind: AluKind, unit: Unit, dest: Option<(VReg, u8)>, width: u8, arg: VReg) -> MirOp {
        MirOp {
            alu: Some(kind),
            tex: None,
            unit,
            dest,
            width,
            args: smallvec![Operand::reg(arg), Operand::reg(arg), Operand::reg(arg)],
            presub: None,
            omod_off: false,
            scale: 0,
            clamp: false,
            special: Special::None,
        }
    }

    /// A bit-exact copy of lanes `lanes` of `t` to target 0 from channel
    /// `first`.
    fn copy(t: VReg, lanes: &[u8], first: u8, unit: Unit) -> MirOp {
        let mut a = Operand::reg(t);
        for (i, &l) in lanes.iter().enumerate() {
            a.lanes[i] = Lane::Of(l);
        }
        MirOp {
            alu: Some(AluKind::Max),
            tex: None,
            unit,
            dest: None,
            width: lanes.len() as u8,
            args: smallvec![a, a],
            presub: None,
            omod_off: true,
            scale: 0,
            clamp: false,
            special: Special::Output(0, first),
        }
    }

    /// A MIR of one block: `x` writes `t` (`width` lanes of `class`), a
    /// MAD reads it, `more` ops follow, then `c` copies it to target 0.
    fn one_block(
        class: RegClass,
        width: u8,
        x: impl FnOnce(VReg, VReg) -> MirOp,
        more: impl FnOnce(&mut Mir, VReg, VReg) -> Vec<MirOp>,
        c: impl FnOnce(VReg) -> MirOp,
    ) -> (Mir, OpId, VReg) {
        let mut mir = Mir::default();
        let input = mir.new_vreg(4, RegClass::Rgba);
        let t = mir.new_vreg(width, class);
        let u = mir.new_vreg(1, RegClass::Alpha);
        let xo = mir.push(x(t, input));
        let mut ops = vec![xo];
        ops.push(mir.push(op(AluKind::Mad, Unit::Alpha, Some((u, 0)), 1, t)));
        for o in more(&mut mir, t, input) {
            ops.push(mir.push(o));
        }
        ops.push(mir.push(c(t)));
        mir.body = vec![Node::Block(ops)];
        (mir, xo, t)
    }

    fn block_len(mir: &Mir) -> usize {
        match &mir.body[0] {
            Node::Block(ops) => ops.len(),
            _ => 0,
        }
    }

    #[test]
    fn an_rgb_value_writes_its_target_and_pins_its_channels() {
        let (mut mir, x, t) = one_block(
            RegClass::Rgb,
            2,
            |t, i| op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 2, i),
            |_, _, _| vec![],
            |t| copy(t, &[0, 1], 1, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 2, "the copy goes");
        assert_eq!(mir.op(x).special, Special::Output(0, 1));
        assert_eq!(mir.op(x).dest, Some((t, 0)), "X still writes its register");
        assert_eq!(mir.vreg(t).channels.map(|c| [c[0], c[1]]), Some([1, 2]));
    }

    #[test]
    fn another_writer_of_the_channel_keeps_the_copy() {
        let (mut mir, x, _) = one_block(
            RegClass::Rgb,
            2,
            |t, i| op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 2, i),
            |_, _, i| {
                let mut other = op(AluKind::Mad, Unit::Rgb, None, 1, i);
                other.special = Special::Output(0, 2);
                vec![other]
            },
            |t| copy(t, &[0, 1], 1, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 4);
        assert_eq!(mir.op(x).special, Special::None);
    }

    #[test]
    fn a_kill_after_the_writer_keeps_the_copy() {
        let (mut mir, x, _) = one_block(
            RegClass::Rgb,
            1,
            |t, i| op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 1, i),
            |_, t, _| {
                let mut kill = op(AluKind::Mad, Unit::Tex, None, 1, t);
                kill.alu = None;
                kill.tex = Some(TexKind::Kill);
                vec![kill]
            },
            |t| copy(t, &[0], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 4);
        assert_eq!(mir.op(x).special, Special::None);
    }

    #[test]
    fn swapped_lanes_keep_the_copy() {
        let (mut mir, x, _) = one_block(
            RegClass::Rgb,
            2,
            |t, i| op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 2, i),
            |_, _, _| vec![],
            |t| copy(t, &[1, 0], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 3);
        assert_eq!(mir.op(x).special, Special::None);
    }

    #[test]
    fn a_later_partial_writer_keeps_the_copy() {
        let (mut mir, x, _) = one_block(
            RegClass::Rgb,
            3,
            |t, i| op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 3, i),
            |_, t, i| vec![op(AluKind::Mad, Unit::Rgb, Some((t, 1)), 1, i)],
            |t| copy(t, &[0, 1, 2], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 4);
        assert_eq!(mir.op(x).special, Special::None);
    }

    #[test]
    fn an_alpha_op_cannot_write_an_rgb_channel() {
        let (mut mir, x, _) = one_block(
            RegClass::Alpha,
            1,
            |t, i| op(AluKind::Mad, Unit::Alpha, Some((t, 0)), 1, i),
            |_, _, _| vec![],
            |t| copy(t, &[0], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 3);
        assert_eq!(mir.op(x).special, Special::None);
    }

    #[test]
    fn a_writer_setting_the_alu_result_keeps_the_copy() {
        let (mut mir, x, _) = one_block(
            RegClass::Rgb,
            1,
            |t, i| {
                let mut o = op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 1, i);
                o.special = Special::AluResult(crate::isa::CompareOp::Lt);
                o
            },
            |_, _, _| vec![],
            |t| copy(t, &[0], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 3);
        assert!(matches!(mir.op(x).special, Special::AluResult(_)));
    }

    #[test]
    fn a_transcendental_writes_an_rgb_target_through_sop() {
        let (mut mir, x, _) = one_block(
            RegClass::Alpha,
            1,
            |t, i| {
                op(
                    AluKind::Trans(Transcendental::Rcp),
                    Unit::Alpha,
                    Some((t, 0)),
                    1,
                    i,
                )
            },
            |_, _, _| vec![],
            |t| copy(t, &[0], 0, Unit::Rgb),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 2);
        assert_eq!(mir.op(x).unit, Unit::Both);
        assert_eq!(mir.op(x).special, Special::Output(0, 0));
    }

    #[test]
    fn an_open_scalar_takes_the_unit_of_the_channel() {
        let (mut mir, x, t) = one_block(
            RegClass::Undecided,
            1,
            |t, i| op(AluKind::Mad, Unit::Any, Some((t, 0)), 1, i),
            |_, _, _| vec![],
            |t| copy(t, &[0], 3, Unit::Alpha),
        );
        run(&mut mir);
        assert_eq!(block_len(&mir), 2);
        assert_eq!(mir.op(x).unit, Unit::Alpha);
        assert_eq!(mir.vreg(t).class, RegClass::Alpha);
    }

    #[test]
    fn a_copy_in_another_block_keeps_its_place() {
        let mut mir = Mir::default();
        let input = mir.new_vreg(4, RegClass::Rgba);
        let t = mir.new_vreg(1, RegClass::Rgb);
        let x = mir.push(op(AluKind::Mad, Unit::Rgb, Some((t, 0)), 1, input));
        let c = mir.push(copy(t, &[0], 0, Unit::Rgb));
        mir.body = vec![
            Node::Loop {
                count: crate::codegen::mir::LoopCount::Rep(4),
                body: vec![Node::Block(vec![x])],
            },
            Node::Block(vec![c]),
        ];
        run(&mut mir);
        assert_eq!(mir.live_ops().len(), 2);
        assert_eq!(mir.op(x).special, Special::None);
    }
}
