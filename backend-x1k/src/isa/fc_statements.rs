//! The common flow-control statements of the CTM guide §3.5.4 (IF, ELSE,
//! ENDIF, LOOP, ENDLOOP, REP, ENDREP, BREAK, CONTINUE, CALL, RETURN) as
//! [`FcInst`] constructors, and the reverse classification that the
//! disassembler uses to annotate FC instructions.
//!
//! Each statement is a row of the CTM §3.5.4 table (field values for
//! `JUMP_FUNC`, `JUMP_ANY`, `OP`, `A_OP`, `B_OP0`, `B_OP1`, `B_POP_CNT`,
//! `B_ELSE`); `x1k-encoding.md` §8.3 lists the resulting `US_FC_INST` words,
//! which the tests below check. The jump target is the caller's: CTM gives
//! ELSE+1, ENDIF+1, ENDLOOP+1 (for LOOP), LOOP+1 (for ENDLOOP), and so on.
//! `TEX_SEM_WAIT`, `ALU_WAIT`, `IGNORE_UNCOVERED` and `JUMP_GLOBAL` are not
//! part of a statement's identity (Mesa sets `ALU_WAIT` on every FC and
//! `IGNORE_UNCOVERED` on IF/LOOP/BREAK/CONTINUE/ENDLOOP; CTM §3.7 needs
//! `TEX_SEM_WAIT` on some); set them on the returned instruction.

use std::fmt;

use super::enums::{AddrStackOp, BranchOp, FcOp};
use super::inst::{FcInst, FcPredicate, JumpAddressing};
use super::operand::{BoolConstId, BranchPopCount, IntConstId, SlotIndex};

/// A jump condition (CTM §3.5.4 "b", "p", "c").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FcCondition {
    /// A boolean constant ("b"): static, the same for every pixel.
    Bool(BoolConstId),
    /// A predicate bit ("p").
    Predicate(FcPredicate),
    /// The ALU result of the previous ALU instruction ("c").
    AluResult,
}

/// A dynamic (per-pixel) condition: what a masking IF needs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DynamicCondition {
    /// A predicate bit ("p").
    Predicate(FcPredicate),
    /// The ALU result ("c").
    AluResult,
}

/// Whether a dynamic IF has an ELSE (it decides `B_OP1`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ElseBranch {
    /// IF … ELSE … ENDIF.
    Present,
    /// IF … ENDIF.
    Absent,
}

/// The innermost loop around a BREAK (BREAKLOOP vs BREAKREP, CTM §3.5.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LoopKind {
    /// A LOOP/ENDLOOP loop (with aL).
    Loop,
    /// A REP/ENDREP loop.
    Rep,
}

/// One row of the CTM §3.5.4 table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum FcStatement {
    /// `IF b`: jump to ELSE+1 (or ENDIF) iff the boolean is false.
    IfStatic(BoolConstId),
    /// `ELSE` of a static IF: an unconditional jump to ENDIF (also a plain goto).
    ElseStatic,
    /// `IF p` / `IF c`: masks failing pixels; jump to ELSE+1 or ENDIF+1.
    If {
        /// The condition.
        condition: DynamicCondition,
        /// With or without an ELSE.
        else_branch: ElseBranch,
    },
    /// `ELSE` of a dynamic IF: jump to ENDIF+1.
    Else,
    /// `ENDIF` of a dynamic IF, closing `frames` conditional blocks (1
    /// normally; more when merging ENDIFs, CTM §3.5.5).
    EndIf {
        /// `B_POP_CNT`.
        frames: BranchPopCount,
    },
    /// `LOOP`: jump to ENDLOOP+1.
    Loop(IntConstId),
    /// `ENDLOOP`: jump to LOOP+1.
    EndLoop(IntConstId),
    /// `REP`: jump to ENDREP+1.
    Rep(IntConstId),
    /// `ENDREP`: jump to REP+1.
    EndRep(IntConstId),
    /// `BREAK [b|p|c]`: jump to END+1.
    Break {
        /// `None` for an unconditional break.
        condition: Option<FcCondition>,
        /// The innermost loop.
        innermost: LoopKind,
        /// Branch frames inside the loop (`B_POP_CNT`).
        frames: BranchPopCount,
    },
    /// `CONTINUE`: jump to END (the ENDLOOP/ENDREP).
    Continue {
        /// Branch frames inside the loop (`B_POP_CNT`).
        frames: BranchPopCount,
    },
    /// `CALL [b|p|c]`: jump to the subroutine, pushing the return address.
    Call {
        /// `None` for an unconditional call.
        condition: Option<FcCondition>,
    },
    /// `RETURN`: jump to the popped address.
    Return,
}

/// `JUMP_FUNC` values of CTM §3.5.3.
const ALWAYS: u8 = 0xFF;
const NEVER: u8 = 0x00;

/// `(JUMP_FUNC, BOOL_ADDR, predicate)` that jump iff `condition` is true.
fn when_true(condition: Option<FcCondition>) -> (u8, BoolConstId, Option<FcPredicate>) {
    match condition {
        None => (ALWAYS, BoolConstId::default(), None),
        Some(FcCondition::Bool(b)) => (0xAA, b, None),
        Some(FcCondition::Predicate(p)) => (0xCC, BoolConstId::default(), Some(p)),
        Some(FcCondition::AluResult) => (0xF0, BoolConstId::default(), None),
    }
}

impl FcStatement {
    /// The FC instruction for this statement, jumping to `jump_addr`
    /// (relative, no waits; see the module doc).
    pub fn inst(self, jump_addr: SlotIndex) -> FcInst {
        let base = FcInst {
            jump_addr,
            ..FcInst::default()
        };
        let one = BranchPopCount::new(1).unwrap_or_default();
        match self {
            FcStatement::IfStatic(b) => FcInst {
                jump_func: 0x55,
                bool_addr: b,
                ..base
            },
            FcStatement::ElseStatic => FcInst {
                jump_func: ALWAYS,
                ..base
            },
            FcStatement::If {
                condition,
                else_branch,
            } => {
                let (jump_func, predicate) = match condition {
                    DynamicCondition::Predicate(p) => (0x33, Some(p)),
                    DynamicCondition::AluResult => (0x0F, None),
                };
                let b_op1 = match else_branch {
                    ElseBranch::Present => BranchOp::Incr,
                    ElseBranch::Absent => BranchOp::None,
                };
                FcInst {
                    jump_func,
                    predicate,
                    b_op0: BranchOp::Incr,
                    b_op1,
                    ..base
                }
            }
            FcStatement::Else => FcInst {
                jump_func: NEVER,
                b_op1: BranchOp::Decr,
                b_pop_cnt: one,
                b_else: true,
                ..base
            },
            FcStatement::EndIf { frames } => FcInst {
                jump_func: NEVER,
                jump_any: true,
                b_op0: BranchOp::Decr,
                b_pop_cnt: frames,
                ..base
            },
            FcStatement::Loop(i) => FcInst {
                op: FcOp::Loop,
                jump_func: NEVER,
                int_addr: i,
                ..base
            },
            FcStatement::EndLoop(i) => FcInst {
                op: FcOp::EndLoop,
                jump_func: ALWAYS,
                jump_any: true,
                int_addr: i,
                ..base
            },
            FcStatement::Rep(i) => FcInst {
                op: FcOp::Rep,
                jump_func: NEVER,
                int_addr: i,
                ..base
            },
            FcStatement::EndRep(i) => FcInst {
                op: FcOp::EndRep,
                jump_func: ALWAYS,
                jump_any: true,
                int_addr: i,
                ..base
            },
            FcStatement::Break {
                condition,
                innermost,
                frames,
            } => {
                let (jump_func, bool_addr, predicate) = when_true(condition);
                let op = match innermost {
                    LoopKind::Loop => FcOp::BreakLoop,
                    LoopKind::Rep => FcOp::BreakRep,
                };
                FcInst {
                    op,
                    jump_func,
                    bool_addr,
                    predicate,
                    b_op1: BranchOp::Decr,
                    b_pop_cnt: frames,
                    ..base
                }
            }
            FcStatement::Continue { frames } => FcInst {
                op: FcOp::Continue,
                jump_func: ALWAYS,
                b_op1: BranchOp::Decr,
                b_pop_cnt: frames,
                ..base
            },
            FcStatement::Call { condition } => {
                let (jump_func, bool_addr, predicate) = when_true(condition);
                FcInst {
                    jump_func,
                    bool_addr,
                    predicate,
                    jump_any: true,
                    a_op: AddrStackOp::Push,
                    b_op1: BranchOp::Incr,
                    ..base
                }
            }
            FcStatement::Return => FcInst {
                jump_func: ALWAYS,
                a_op: AddrStackOp::Pop,
                b_op1: BranchOp::Decr,
                b_pop_cnt: one,
                ..base
            },
        }
    }

    /// The statement `inst` is, if it is exactly one of the CTM §3.5.4 rows
    /// (ignoring the jump target, waits, `IGNORE_UNCOVERED`, `JUMP_GLOBAL`).
    pub fn classify(inst: &FcInst) -> Option<FcStatement> {
        let normalized = FcInst {
            sem_wait: false,
            alu_wait: false,
            ignore_uncovered: false,
            jump_addressing: JumpAddressing::Relative,
            ..*inst
        };
        let condition = match inst.jump_func {
            0xAA | 0x55 => Some(FcCondition::Bool(inst.bool_addr)),
            0xCC | 0x33 => inst.predicate.map(FcCondition::Predicate),
            0xF0 | 0x0F => Some(FcCondition::AluResult),
            _ => None,
        };
        let dynamic = match condition {
            Some(FcCondition::Predicate(p)) => Some(DynamicCondition::Predicate(p)),
            Some(FcCondition::AluResult) => Some(DynamicCondition::AluResult),
            _ => None,
        };
        let frames = inst.b_pop_cnt;
        let mut candidates: Vec<FcStatement> = vec![
            FcStatement::IfStatic(inst.bool_addr),
            FcStatement::ElseStatic,
            FcStatement::Else,
            FcStatement::EndIf { frames },
            FcStatement::Loop(inst.int_addr),
            FcStatement::EndLoop(inst.int_addr),
            FcStatement::Rep(inst.int_addr),
            FcStatement::EndRep(inst.int_addr),
            FcStatement::Continue { frames },
            FcStatement::Return,
        ];
        if let Some(condition) = dynamic {
            for else_branch in [ElseBranch::Present, ElseBranch::Absent] {
                candidates.push(FcStatement::If {
                    condition,
                    else_branch,
                });
            }
        }
        for condition in [None, condition] {
            candidates.push(FcStatement::Call { condition });
            for innermost in [LoopKind::Loop, LoopKind::Rep] {
                candidates.push(FcStatement::Break {
                    condition,
                    innermost,
                    frames,
                });
            }
        }
        candidates
            .into_iter()
            .find(|s| s.inst(inst.jump_addr) == normalized)
    }
}

impl fmt::Display for FcCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FcCondition::Bool(b) => write!(f, "{b}"),
            FcCondition::Predicate(p) => {
                write!(
                    f,
                    "{}p.{}",
                    if p.invert { "!" } else { "" },
                    p.channel.mnemonic()
                )
            }
            FcCondition::AluResult => f.write_str("alu"),
        }
    }
}

impl fmt::Display for FcStatement {
    /// CTM-style name, e.g. `if p.r (else)`, `break b3 (1 frame)`, `call`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dynamic = |c: DynamicCondition| match c {
            DynamicCondition::Predicate(p) => FcCondition::Predicate(p),
            DynamicCondition::AluResult => FcCondition::AluResult,
        };
        let cond = |c: Option<FcCondition>| c.map(|c| format!(" {c}")).unwrap_or_default();
        match self {
            FcStatement::IfStatic(b) => write!(f, "if {b}"),
            FcStatement::ElseStatic => f.write_str("else (static) / goto"),
            FcStatement::If {
                condition,
                else_branch,
            } => write!(
                f,
                "if {}{}",
                dynamic(*condition),
                if *else_branch == ElseBranch::Present {
                    " (with else)"
                } else {
                    ""
                }
            ),
            FcStatement::Else => f.write_str("else"),
            FcStatement::EndIf { frames } if frames.get() == 1 => f.write_str("endif"),
            FcStatement::EndIf { frames } => write!(f, "endif ({} frames)", frames.get()),
            FcStatement::Loop(i) => write!(f, "loop {i}"),
            FcStatement::EndLoop(i) => write!(f, "endloop {i}"),
            FcStatement::Rep(i) => write!(f, "rep {i}"),
            FcStatement::EndRep(i) => write!(f, "endrep {i}"),
            FcStatement::Break {
                condition, frames, ..
            } => {
                write!(f, "break{} ({} frames)", cond(*condition), frames.get())
            }
            FcStatement::Continue { frames } => write!(f, "continue ({} frames)", frames.get()),
            FcStatement::Call { condition } => write!(f, "call{}", cond(*condition)),
            FcStatement::Return => f.write_str("return"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::encode::encode;
    use crate::isa::enums::Channel;
    use crate::isa::inst::Inst;

    fn fc_inst_word(s: FcStatement) -> u32 {
        encode(&Inst::Fc(s.inst(SlotIndex::default())))[2]
    }

    #[test]
    fn fact_sheet_8_3_values() {
        let p = FcPredicate {
            channel: Channel::R,
            invert: false,
        };
        let b0 = BoolConstId::default();
        let n = |k| BranchPopCount::new(k).unwrap();
        let cases = [
            (FcStatement::IfStatic(b0), 0x0000_5500),
            (FcStatement::ElseStatic, 0x0000_FF00),
            (
                FcStatement::If {
                    condition: DynamicCondition::Predicate(p),
                    else_branch: ElseBranch::Present,
                },
                0x0A00_3300,
            ),
            (
                FcStatement::If {
                    condition: DynamicCondition::AluResult,
                    else_branch: ElseBranch::Present,
                },
                0x0A00_0F00,
            ),
            (
                FcStatement::If {
                    condition: DynamicCondition::Predicate(p),
                    else_branch: ElseBranch::Absent,
                },
                0x0200_3300,
            ),
            (
                FcStatement::If {
                    condition: DynamicCondition::AluResult,
                    else_branch: ElseBranch::Absent,
                },
                0x0200_0F00,
            ),
            (FcStatement::Else, 0x0401_0010),
            (FcStatement::EndIf { frames: n(1) }, 0x0101_0020),
            (FcStatement::Loop(IntConstId::default()), 0x0000_0001),
            (FcStatement::EndLoop(IntConstId::default()), 0x0000_FF22),
            (FcStatement::Rep(IntConstId::default()), 0x0000_0003),
            (FcStatement::EndRep(IntConstId::default()), 0x0000_FF24),
            (
                FcStatement::Break {
                    condition: None,
                    innermost: LoopKind::Loop,
                    frames: n(2),
                },
                0x0400_FF05 | 2 << 16,
            ),
            (
                FcStatement::Break {
                    condition: None,
                    innermost: LoopKind::Rep,
                    frames: n(0),
                },
                0x0400_FF06,
            ),
            (
                FcStatement::Continue { frames: n(3) },
                0x0400_FF07 | 3 << 16,
            ),
            (FcStatement::Call { condition: None }, 0x0800_FFA0),
            (FcStatement::Return, 0x0401_FF40),
            (
                FcStatement::Call {
                    condition: Some(FcCondition::Bool(b0)),
                },
                0x0800_AAA0,
            ),
            (
                FcStatement::Break {
                    condition: Some(FcCondition::AluResult),
                    innermost: LoopKind::Loop,
                    frames: n(0),
                },
                0x0400_F005,
            ),
        ];
        for (statement, word) in cases {
            assert_eq!(fc_inst_word(statement), word, "{statement}");
            let inst = statement.inst(SlotIndex::new(9).unwrap());
            assert_eq!(FcStatement::classify(&inst), Some(statement), "{statement}");
        }
    }

    #[test]
    fn classification_ignores_waits_but_not_odd_fields() {
        let mut inst = FcStatement::Return.inst(SlotIndex::default());
        inst.alu_wait = true;
        inst.sem_wait = true;
        assert_eq!(FcStatement::classify(&inst), Some(FcStatement::Return));
        inst.bool_addr = BoolConstId::new(3).unwrap();
        assert_eq!(FcStatement::classify(&inst), None);
        let odd = FcInst {
            jump_func: 0x3C,
            ..FcInst::default()
        };
        assert_eq!(FcStatement::classify(&odd), None);
    }
}
