//! Copy coalescing at selection time: instead of moving a freshly computed
//! value into the register that needs it (a phi at the end of a loop body
//! or branch, lanes of a constructed vector), the op computing it writes
//! there directly. An X1K op can write any lanes of any register from
//! either unit (RGB lanes by the RGB unit, alpha by the alpha unit, a
//! transcendental's result into RGB through `SOP`, CTM §3.3.4), so a copy
//! disappears whenever its source is defined once, in the current block,
//! and nothing after that definition still needs the old contents of the
//! destination.

use super::{Selector, Val};
use crate::codegen::mir::{AluKind, Lane, OpId, RegClass, Special, Src, Unit, VReg};
use crate::isa::InputModifier;

impl Selector<'_> {
    /// The position in the current block of the only op defining `v`
    /// (all its lanes, from lane 0), if there is one and no op outside
    /// the block defines it.
    fn sole_def(&self, v: VReg) -> Option<usize> {
        if self.mir.vreg(v).fixed.is_some() {
            return None;
        }
        let defs = self
            .mir
            .ops
            .iter()
            .filter(|o| o.dest.is_some_and(|(d, _)| d == v))
            .count();
        if defs != 1 {
            return None;
        }
        let pos = self
            .current_block()
            .iter()
            .position(|&id| self.mir.op(id).dest.is_some_and(|(d, _)| d == v))?;
        let op = self.mir.op(self.current_block()[pos]);
        let ok = op.alu.is_some()
            && op.special == Special::None
            && op.dest == Some((v, 0))
            && op.width == self.mir.vreg(v).width;
        ok.then_some(pos)
    }

    /// The unit an op defining lanes `lane..lane + width` of a register of
    /// class `class` must use, given its current unit; `None` if it cannot.
    fn unit_for(
        op_unit: Unit,
        kind: AluKind,
        class: RegClass,
        lane: u8,
        width: u8,
    ) -> Option<Unit> {
        // DP4 runs on both units, and either may write its result: the
        // RGB unit into r, g or b, the alpha unit into a (CTM §3.3.4).
        if kind == AluKind::Dp4 {
            return (width == 1).then_some(Unit::Both);
        }
        let trans = matches!(kind, AluKind::Trans(_));
        let in_alpha = match class {
            RegClass::Alpha => true,
            RegClass::Rgba => lane == 3,
            _ => false,
        };
        match (in_alpha, op_unit, width) {
            (true, Unit::Any | Unit::Alpha, 1) => Some(Unit::Alpha),
            (true, _, _) => None,
            (false, Unit::Both, 4) if class == RegClass::Rgba && lane == 0 && !trans => {
                Some(Unit::Both)
            }
            (false, _, _) if lane + width > 3 => None,
            (false, Unit::Any | Unit::Rgb, _) if !trans => Some(Unit::Rgb),
            // A scalar transcendental reaches RGB through SOP.
            (false, Unit::Alpha, 1) if trans => Some(Unit::Both),
            _ => None,
        }
    }

    /// Makes the only op defining `v` write lanes `lane..` of `dest`
    /// instead, when nothing after it in the current block reads `dest`;
    /// reads of `v` after it read `dest`. Returns whether it did.
    pub(super) fn retarget(&mut self, v: VReg, dest: VReg, lane: u8) -> bool {
        if v == dest {
            return false;
        }
        let Some(pos) = self.sole_def(v) else {
            return false;
        };
        let id = self.current_block()[pos];
        let later: Vec<OpId> = self.current_block()[pos + 1..].to_vec();
        if later
            .iter()
            .any(|&o| self.mir.op(o).reads().any(|r| r == dest))
        {
            return false;
        }
        let op = self.mir.op(id);
        let Some(kind) = op.alu else { return false };
        let dinfo = self.mir.vreg(dest);
        let class = match dinfo.class {
            RegClass::Undecided => return false,
            c => c,
        };
        if dinfo.fixed.is_some() || lane + op.width > dinfo.width {
            return false;
        }
        let Some(unit) = Self::unit_for(op.unit, kind, class, lane, op.width) else {
            return false;
        };
        // A presubtract reading `v` was placed on the unit of `v`'s
        // channels (RGB or alpha, CTM §3.3.2): the value must stay on that
        // side (a DP4's RGB result moved into an alpha lane would not).
        let presub_reads = later.iter().any(|&o| {
            self.mir
                .op(o)
                .presub
                .as_ref()
                .is_some_and(|(_, a, b)| a.vreg() == Some(v) || b.vreg() == Some(v))
        });
        let same_side = match (self.mir.vreg(v).class, class) {
            (RegClass::Rgb, RegClass::Rgb) | (RegClass::Alpha, RegClass::Alpha) => true,
            (RegClass::Rgb, RegClass::Rgba) => lane + op.width <= 3,
            (RegClass::Alpha, RegClass::Rgba) => lane == 3,
            (RegClass::Rgba, RegClass::Rgba) => lane == 0,
            _ => false,
        };
        if presub_reads && !same_side {
            return false;
        }
        let op = self.mir.op_mut(id);
        op.dest = Some((dest, lane));
        op.unit = unit;
        for o in later {
            let op = self.mir.op_mut(o);
            let rename = |s: &mut Src, lanes: &mut [Lane; 4]| {
                if *s == Src::Reg(v) {
                    *s = Src::Reg(dest);
                    for l in lanes.iter_mut() {
                        if let Lane::Of(k) = l {
                            *k += lane;
                        }
                    }
                }
            };
            for a in op.args.iter_mut() {
                rename(&mut a.src, &mut a.lanes);
            }
            if let Some((_, a, b)) = &mut op.presub {
                // `srcp`'s lanes are those of the register source the
                // emitter names its channels after (src1, else src0):
                // they move with it (as in `pair.rs`).
                let named = [b.src, a.src]
                    .into_iter()
                    .find(|s| matches!(s, Src::Reg(_)));
                rename(&mut a.src, &mut a.lanes);
                rename(&mut b.src, &mut b.lanes);
                if named == Some(Src::Reg(v)) {
                    for arg in op.args.iter_mut().filter(|o| o.src == Src::Presub) {
                        for l in arg.lanes.iter_mut() {
                            if let Lane::Of(k) = l {
                                *k += lane;
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// `val` read whole, unmodified, from a register: that register.
    pub(super) fn whole_register(val: &Val) -> Option<VReg> {
        match val {
            Val::View {
                src: Src::Reg(r),
                lanes,
                width,
                modifier: InputModifier::None,
            } if lanes[..*width as usize]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == Lane::Of(i as u8)) =>
            {
                Some(*r)
            }
            _ => None,
        }
    }
}
