//! The assembler: one line of assembly → [`Inst`], and programs with slot
//! labels and comments. Errors carry a 1-based line and column.
//!
//! The parser is a hand-written recursive descent over one line (a cursor,
//! no separate lexer: swizzles such as `s0.0h1` need context).

use smallvec::SmallVec;

use crate::isa::enums::{AddrStackOp, BranchOp, Channel, FcOp, PredSel, TexOpcode};
use crate::isa::inst::{FcInst, FcPredicate, Inst, JumpAddressing, TexInst, TexOp, TexOperand};
use crate::isa::operand::{
    AlphaMask, BoolConstId, BranchPopCount, IntConstId, RgbMask, SlotIndex, TexId,
};

use super::{AsmError, AsmErrorKind, IDENTITY_DST_SWIZZLE, jump_func_from_name};

use super::cursor::{Cursor, PResult};

/// Parse one instruction (no slot label). Text after `#` is a comment.
///
/// # Errors
/// An [`AsmError`] with line 1 and the column of the problem.
pub fn parse_inst(text: &str) -> Result<Inst, AsmError> {
    let mut c = Cursor::new(text, 1);
    let inst = c.inst()?;
    c.end()?;
    Ok(inst)
}

/// Parse a program: one instruction per line, optionally labelled with its
/// slot number (`  3: alu ...`, checked), `#` comments and blank lines.
///
/// # Errors
/// The first [`AsmError`], with its line and column.
pub fn parse_program(text: &str) -> Result<Vec<Inst>, AsmError> {
    let mut insts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut c = Cursor::new(line, i + 1);
        if c.at_end() {
            continue;
        }
        let save = c.pos;
        if let Some(label) = c.try_uint() {
            if c.eat(":") {
                if label != insts.len() as u64 {
                    return Err(c.err_at(
                        save,
                        AsmErrorKind::SlotMismatch {
                            expected: insts.len(),
                            found: label as usize,
                        },
                    ));
                }
            } else {
                c.pos = save;
            }
        }
        insts.push(c.inst()?);
        c.end()?;
    }
    Ok(insts)
}

impl<'a> Cursor<'a> {
    // ---- instructions ---------------------------------------------------

    fn inst(&mut self) -> PResult<Inst> {
        let (pos, kind) = self.expect_ident("an instruction type (`alu`, `out`, `fc`, `tex`)")?;
        match kind {
            "alu" => self.alu(false).map(Inst::Alu),
            "out" => self.alu(true).map(Inst::Alu),
            "fc" => self.fc().map(Inst::Fc),
            "tex" => self.tex().map(Inst::Tex),
            other => Err(self.err_at(
                pos,
                AsmErrorKind::Unknown {
                    what: "instruction type",
                    found: other.to_string(),
                },
            )),
        }
    }
    fn fc(&mut self) -> PResult<FcInst> {
        let mut f = FcInst {
            op: self.mnemonic("flow-control op", FcOp::from_mnemonic)?,
            ..FcInst::default()
        };
        f.jump_addr =
            SlotIndex::from_field(self.uint("jump slot", u64::from(SlotIndex::MAX))? as u32);
        let mut seen: SmallVec<[&str; 8]> = SmallVec::new();
        while !self.at_end() {
            let (pos, word) = self.expect_ident("a flow-control item")?;
            if seen.contains(&word) {
                return Err(self.err_at(pos, AsmErrorKind::Duplicate("flow-control item")));
            }
            seen.push(word);
            match word {
                "func" => {
                    self.expect("=", "`=`")?;
                    self.ws();
                    let vpos = self.pos;
                    f.jump_func = if self.peek_raw().is_some_and(|c| c.is_ascii_digit()) {
                        self.uint("JUMP_FUNC", 0xFF)? as u8
                    } else {
                        let name = self.run("!abcdefghijklmnopqrstuvwxyz");
                        jump_func_from_name(name).ok_or_else(|| {
                            self.err_at(
                                vpos,
                                AsmErrorKind::Unknown {
                                    what: "jump function",
                                    found: name.to_string(),
                                },
                            )
                        })?
                    };
                }
                "global" => f.jump_addressing = JumpAddressing::Global,
                "pred" => {
                    self.expect("=", "`=`")?;
                    self.ws();
                    let ppos = self.pos;
                    let p = self.predicate()?;
                    let channel = match p.sel {
                        PredSel::Rgba => {
                            return Err(self.err_at(
                                ppos,
                                AsmErrorKind::NotAllowed {
                                    what: "the per-channel select `p.rgba`",
                                    context: "flow control (CTM §3.5.1)",
                                },
                            ));
                        }
                        PredSel::Rrrr => Channel::R,
                        PredSel::Gggg => Channel::G,
                        PredSel::Bbbb => Channel::B,
                        PredSel::Aaaa => Channel::A,
                    };
                    f.predicate = Some(FcPredicate {
                        channel,
                        invert: p.invert,
                    });
                }
                "jump_any" => f.jump_any = true,
                "b_else" => f.b_else = true,
                "a_op" => {
                    self.expect("=", "`=`")?;
                    f.a_op = self.mnemonic("address-stack op", AddrStackOp::from_mnemonic)?;
                }
                "b_op0" | "b_op1" => {
                    self.expect("=", "`=`")?;
                    let op = self.mnemonic("branch-counter op", BranchOp::from_mnemonic)?;
                    if word == "b_op0" {
                        f.b_op0 = op
                    } else {
                        f.b_op1 = op
                    }
                }
                "b_pop_cnt" => {
                    self.expect("=", "`=`")?;
                    f.b_pop_cnt = BranchPopCount::from_field(self.uint("B_POP_CNT", 31)? as u32);
                }
                "bool" => {
                    self.expect("=", "`=`")?;
                    self.expect("b", "`bN`")?;
                    f.bool_addr =
                        BoolConstId::from_field(self.uint("boolean constant", 31)? as u32);
                }
                "int" => {
                    self.expect("=", "`=`")?;
                    self.expect("i", "`iN`")?;
                    f.int_addr = IntConstId::from_field(self.uint("integer constant", 31)? as u32);
                }
                "ignore_uncovered" => f.ignore_uncovered = true,
                "sem_wait" => f.sem_wait = true,
                "alu_wait" => f.alu_wait = true,
                other => {
                    return Err(self.err_at(
                        pos,
                        AsmErrorKind::Unknown {
                            what: "flow-control item",
                            found: other.to_string(),
                        },
                    ));
                }
            }
        }
        Ok(f)
    }

    fn tex_operand(&mut self) -> PResult<TexOperand> {
        let addr = self.temp_addr()?;
        let swizzle = self.channels4()?;
        Ok(TexOperand { addr, swizzle })
    }

    fn tex(&mut self) -> PResult<TexInst> {
        let mut t = TexInst::default();
        self.ws();
        if self.rest().starts_with('_') && !self.rest()[1..].starts_with('.') {
            self.pos += 1;
        } else {
            t.dst = self.temp_addr()?;
            self.expect(".", "`.` and a write mask")?;
            let pos = self.pos;
            if self.peek_raw() == Some('_') {
                self.pos += 1;
            } else {
                let text = self.run("rgbaxyzw");
                let mut last = None;
                let mut bits = 0u32;
                for ch in text.chars() {
                    let i = Self::channel_char(ch).map_or(0, |c| c.code());
                    if last.is_some_and(|l| l >= i) {
                        return Err(self.err_at(
                            pos,
                            AsmErrorKind::Expected("write-mask letters in r, g, b, a order"),
                        ));
                    }
                    last = Some(i);
                    bits |= 1 << i;
                }
                if text.is_empty() {
                    return Err(self.err_at(pos, AsmErrorKind::Expected("a write mask")));
                }
                t.rgb_write_mask = RgbMask::from_field(bits & 7);
                t.alpha_write_mask = AlphaMask::from_bit(bits >> 3);
            }
        }
        self.expect("=", "`=`")?;
        let opcode = self.mnemonic("texture op", TexOpcode::from_mnemonic)?;
        self.expect("(", "`(`")?;
        self.ws();
        self.expect("t", "a texture `tN`")?;
        t.tex_id = TexId::from_field(self.uint("texture id", u64::from(TexId::MAX))? as u32);
        self.expect(",", "`,` and the coordinates")?;
        t.src = self.tex_operand()?;
        t.op = match opcode {
            TexOpcode::Nop => TexOp::Nop,
            TexOpcode::Ld => TexOp::Ld,
            TexOpcode::TexKill => TexOp::TexKill,
            TexOpcode::Proj => TexOp::Proj,
            TexOpcode::LodBias => TexOp::LodBias,
            TexOpcode::Lod => TexOp::Lod,
            TexOpcode::LdUncached => TexOp::LdUncached,
            TexOpcode::Dxdy => {
                self.expect(",", "`,` and the d/dx operand")?;
                let dx = self.tex_operand()?;
                self.expect(",", "`,` and the d/dy operand")?;
                let dy = self.tex_operand()?;
                TexOp::Dxdy { dx, dy }
            }
        };
        self.expect(")", "`)`")?;
        t.dst_swizzle = if self.peek_raw() == Some('.') {
            self.channels4()?
        } else {
            IDENTITY_DST_SWIZZLE
        };
        let mut seen: SmallVec<[&str; 8]> = SmallVec::new();
        while !self.at_end() {
            let (pos, word) = self.expect_ident("a texture item")?;
            if seen.contains(&word) {
                return Err(self.err_at(pos, AsmErrorKind::Duplicate("texture item")));
            }
            seen.push(word);
            match word {
                "rgb_pred" | "alpha_pred" => {
                    self.expect("=", "`=`")?;
                    let p = Some(self.predicate()?);
                    if word == "rgb_pred" {
                        t.rgb_predicate = p
                    } else {
                        t.alpha_predicate = p
                    }
                }
                "acquire" => t.sem_acquire = true,
                "sem_wait" => t.sem_wait = true,
                "alu_wait" => t.alu_wait = true,
                "write_inactive" => t.write_inactive = true,
                "ignore_uncovered" => t.ignore_uncovered = true,
                "unscaled" => t.unscaled = true,
                other => {
                    return Err(self.err_at(
                        pos,
                        AsmErrorKind::Unknown {
                            what: "texture item",
                            found: other.to_string(),
                        },
                    ));
                }
            }
        }
        Ok(t)
    }
}
