//! The typed ALU instruction, instruction group and clause.
//!
//! An [`AluInst`] is one 64-bit slot (`ALU_WORD0` + `ALU_WORD1_OP2` or
//! `_OP3`, digest §2.4). Its `LAST` bit is not a field here: it is implied by
//! the instruction's position in its [`AluGroup`] (set on the last one), so a
//! group cannot be mis-terminated. A group carries its literal dwords; how
//! many there must be follows from the sources (digest §2.0): none if no
//! source field selects ALU_SRC_LITERAL, four if one of them reads Z or W,
//! else two. Every source *field* counts, also those an opcode does not read
//! (the hardware fetches the literal whenever a field names it, L1465).

use smallvec::SmallVec;

use super::enums::{BankSwizzle, Chan, IndexMode, Omod, PredSel};
use super::opcodes::{Op2, Op3, UnitClass};
use super::operand::{AluSrc, AluSrcSel, Gpr};

/// The most instructions in a group: X, Y, Z, W, Trans (digest §2.0).
pub const MAX_GROUP_INSTS: usize = 5;
/// The most literal dwords after a group (two 64-bit slots).
pub const MAX_LITERALS: usize = 4;

/// One ALU instruction (a 64-bit slot).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AluInst {
    /// The OP2 or OP3 part: opcode, sources and format-specific fields.
    pub form: AluForm,
    /// `DST_GPR`, `DST_REL`, `DST_ELEM`.
    pub dst: AluDst,
    /// `CLAMP`: clamp the result to [0, 1].
    pub clamp: bool,
    /// `BANK_SWIZZLE`: on which cycles the GPR sources are read.
    pub bank_swizzle: BankSwizzle,
    /// `INDEX_MODE`: the index added to relative sources and destination.
    pub index_mode: IndexMode,
    /// `PRED_SEL`.
    pub pred_sel: PredSel,
}

/// The two encodings of `ALU_WORD1`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluForm {
    /// `ALU_WORD1_OP2`: up to two sources.
    Op2(Op2Form),
    /// `ALU_WORD1_OP3`: three sources.
    Op3(Op3Form),
}

/// The OP2-only part of an ALU instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Op2Form {
    /// `ALU_INST`.
    pub op: Op2,
    /// `SRC0_*`, `SRC1_*` (both fields exist even for unary opcodes).
    pub src: [AluSrc; 2],
    /// `SRC0_ABS`, `SRC1_ABS` (applied before NEG).
    pub abs: [bool; 2],
    /// `WRITE_MASK`: write the GPR (PV/PS are written regardless).
    pub write_mask: bool,
    /// `UPDATE_PRED`: store the predicate this instruction computes.
    pub update_pred: bool,
    /// `UPDATE_EXECUTE_MASK`: send it to the active mask.
    pub update_exec_mask: bool,
    /// `OMOD`.
    pub omod: Omod,
}

/// The OP3-only part of an ALU instruction (no ABS, no write mask, no OMOD).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Op3Form {
    /// `ALU_INST`.
    pub op: Op3,
    /// `SRC0_*`, `SRC1_*`, `SRC2_*`.
    pub src: [AluSrc; 3],
}

/// The destination of an ALU instruction.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct AluDst {
    /// `DST_GPR`.
    pub gpr: Gpr,
    /// `DST_REL`: add the INDEX_MODE index.
    pub rel: bool,
    /// `DST_ELEM`.
    pub chan: Chan,
}

impl AluInst {
    /// An OP2 instruction writing `dst` (WRITE_MASK set), all else default.
    pub fn op2(op: Op2, dst: AluDst, src: [AluSrc; 2]) -> Self {
        AluInst::new(AluForm::Op2(Op2Form {
            op,
            src,
            abs: [false; 2],
            write_mask: true,
            update_pred: false,
            update_exec_mask: false,
            omod: Omod::Off,
        }))
        .with_dst(dst)
    }

    /// An OP3 instruction writing `dst`, all else default.
    pub fn op3(op: Op3, dst: AluDst, src: [AluSrc; 3]) -> Self {
        AluInst::new(AluForm::Op3(Op3Form { op, src })).with_dst(dst)
    }

    fn new(form: AluForm) -> Self {
        AluInst {
            form,
            dst: AluDst::default(),
            clamp: false,
            bank_swizzle: BankSwizzle::Vec012,
            index_mode: IndexMode::ArX,
            pred_sel: PredSel::Off,
        }
    }

    fn with_dst(mut self, dst: AluDst) -> Self {
        self.dst = dst;
        self
    }

    /// The opcode's mnemonic.
    pub const fn mnemonic(&self) -> &'static str {
        match &self.form {
            AluForm::Op2(f) => f.op.mnemonic(),
            AluForm::Op3(f) => f.op.mnemonic(),
        }
    }

    /// Whether the opcode is one of the `PRED_SET*` family (OP2, manual
    /// §4.9, L7984-8112), the instructions the stack-pushing ALU clause
    /// variants count ([`crate::isa::CfAluOp::pushes`]).
    pub fn is_pred_set(&self) -> bool {
        self.mnemonic().starts_with("PRED_SET")
    }

    /// The units the opcode may run on.
    pub const fn unit_class(&self) -> UnitClass {
        match &self.form {
            AluForm::Op2(f) => f.op.unit_class(),
            AluForm::Op3(f) => f.op.unit_class(),
        }
    }

    /// How many sources the opcode reads.
    pub const fn src_count(&self) -> usize {
        match &self.form {
            AluForm::Op2(f) => f.op.src_count(),
            AluForm::Op3(f) => f.op.src_count(),
        }
    }

    /// Every source *field* of the encoding (2 for OP2, 3 for OP3), whether
    /// or not the opcode reads it.
    pub fn source_fields(&self) -> &[AluSrc] {
        match &self.form {
            AluForm::Op2(f) => &f.src,
            AluForm::Op3(f) => &f.src,
        }
    }

    /// Whether the result is written to the GPR (`WRITE_MASK` for OP2;
    /// always for OP3, whose writes are suppressed by address, R32).
    pub const fn writes_gpr(&self) -> bool {
        match &self.form {
            AluForm::Op2(f) => f.write_mask,
            AluForm::Op3(_) => true,
        }
    }

    /// The number of literal dwords this instruction's source fields need:
    /// 0, 2 (X/Y) or 4 (Z/W).
    pub fn literal_dwords_needed(&self) -> usize {
        self.source_fields()
            .iter()
            .filter(|s| s.sel == AluSrcSel::Literal)
            .map(|s| if s.chan.index() >= 2 { 4 } else { 2 })
            .max()
            .unwrap_or(0)
    }
}

/// An instruction group: 1..=5 instructions and 0, 2 or 4 literal dwords.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AluGroup {
    /// The instructions in slot order; `LAST` is set on the final one.
    pub insts: SmallVec<[AluInst; MAX_GROUP_INSTS]>,
    /// The literal dwords X, Y[, Z, W], exactly
    /// [`AluGroup::literal_dwords_needed`] of them.
    pub literals: SmallVec<[u32; MAX_LITERALS]>,
}

impl AluGroup {
    /// A group of `insts` with the literals it needs taken from `literals`
    /// (missing dwords are zero).
    pub fn with_literals(insts: &[AluInst], literals: &[u32]) -> Self {
        let mut group = AluGroup {
            insts: insts.iter().copied().collect(),
            literals: SmallVec::new(),
        };
        let needed = group.literal_dwords_needed();
        group.literals = (0..needed)
            .map(|i| literals.get(i).copied().unwrap_or(0))
            .collect();
        group
    }

    /// The literal dwords the group's source fields require (0, 2 or 4).
    pub fn literal_dwords_needed(&self) -> usize {
        self.insts
            .iter()
            .map(AluInst::literal_dwords_needed)
            .max()
            .unwrap_or(0)
    }

    /// The group's size in 64-bit slots (instructions plus literal slots).
    pub fn slots(&self) -> usize {
        self.insts.len() + self.literals.len() / 2
    }

    /// Literal dword `chan`, if present.
    pub fn literal(&self, chan: Chan) -> Option<u32> {
        self.literals.get(chan.index()).copied()
    }
}

/// An ALU clause: its groups in order.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AluClause {
    /// The instruction groups.
    pub groups: Vec<AluGroup>,
}

impl AluClause {
    /// The clause size in 64-bit slots (what `CF_ALU_WORD1.COUNT` + 1 must be).
    pub fn slots(&self) -> usize {
        self.groups.iter().map(AluGroup::slots).sum()
    }

    /// How many `PRED_SET*` instructions the clause holds (what
    /// `ALU_ELSE_AFTER` pushes for, [`crate::isa::CfAluOp::pushes`]).
    pub fn pred_set_count(&self) -> usize {
        self.groups
            .iter()
            .flat_map(|g| &g.insts)
            .filter(|i| i.is_pred_set())
            .count()
    }
}

/// An ALU execution unit.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Unit {
    /// ALU.X, .Y, .Z or .W.
    Vector(Chan),
    /// ALU.Trans.
    Trans,
}

/// `SQ_CONFIG.ALU_INST_PREFER_VECTOR`, which decides where an ambiguous last
/// instruction goes (digest R3, §7.2 #7).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PreferVector {
    /// Bit clear: an `Any` instruction in the last slot whose element unit is
    /// free goes to Trans.
    No,
    /// Bit set (Mesa's setting, and what LLVM's output assumes): it goes to
    /// the vector unit.
    Yes,
}

/// Assign each instruction of a group to a unit by the manual's algorithm
/// (digest R3, L1255-1282). `None` for an instruction whose unit is
/// already taken (an invalid group).
pub fn assign_units(insts: &[AluInst], prefer_vector: PreferVector) -> Vec<Option<Unit>> {
    let mut taken_vector = [false; 4];
    let mut taken_trans = false;
    let last = insts.len().saturating_sub(1);
    insts
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let elem = inst.dst.chan;
            let unit = match inst.unit_class() {
                UnitClass::Trans => Unit::Trans,
                UnitClass::Vector
                | UnitClass::Reduction
                | UnitClass::DoublePair
                | UnitClass::DoubleQuad => Unit::Vector(elem),
                UnitClass::Any => {
                    if taken_vector[elem.index()]
                        || (prefer_vector == PreferVector::No && i == last)
                    {
                        Unit::Trans
                    } else {
                        Unit::Vector(elem)
                    }
                }
            };
            let slot = match unit {
                Unit::Vector(c) => &mut taken_vector[c.index()],
                Unit::Trans => &mut taken_trans,
            };
            if *slot {
                None
            } else {
                *slot = true;
                Some(unit)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::enums::InlineConst;

    fn dst(chan: Chan) -> AluDst {
        AluDst {
            gpr: Gpr::R0,
            rel: false,
            chan,
        }
    }

    #[test]
    fn literal_slots_follow_the_highest_literal_element() {
        let x = AluInst::op2(
            Op2::Add,
            dst(Chan::X),
            [AluSrc::literal(Chan::Y), AluSrc::default()],
        );
        let w = AluInst::op3(
            Op3::Muladd,
            dst(Chan::Y),
            [
                AluSrc::default(),
                AluSrc::inline(InlineConst::One),
                AluSrc::literal(Chan::W),
            ],
        );
        assert_eq!(
            AluGroup::with_literals(&[x], &[7]).literals.as_slice(),
            &[7, 0]
        );
        let group = AluGroup::with_literals(&[x, w], &[]);
        assert_eq!(group.literals.len(), 4);
        assert_eq!(group.slots(), 4);
    }

    #[test]
    fn units_follow_r3() {
        let add = |c| AluInst::op2(Op2::Add, dst(c), [AluSrc::default(); 2]);
        let recip = AluInst::op2(Op2::RecipIeee, dst(Chan::X), [AluSrc::default(); 2]);
        let units = assign_units(&[add(Chan::W), add(Chan::W)], PreferVector::Yes);
        assert_eq!(units, [Some(Unit::Vector(Chan::W)), Some(Unit::Trans)]);
        let units = assign_units(&[add(Chan::X), add(Chan::Y)], PreferVector::No);
        assert_eq!(units, [Some(Unit::Vector(Chan::X)), Some(Unit::Trans)]);
        let units = assign_units(&[add(Chan::X), recip, add(Chan::X)], PreferVector::Yes);
        assert_eq!(
            units,
            [Some(Unit::Vector(Chan::X)), Some(Unit::Trans), None]
        );
    }
}
