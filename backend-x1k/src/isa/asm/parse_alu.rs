//! Parsing `alu`/`out` lines: the two halves, the items, and the
//! allocation of directly written operands to source slots.

use smallvec::SmallVec;

use crate::isa::enums::{
    AlphaOp, AluResultSel, CompareOp, InputSelect, OutputModifier, PresubOp, RenderTarget, RgbOp,
    Swizzle,
};
use crate::isa::inst::{
    AlphaHalf, AlphaInput, AluInst, AluResult, AluWrites, OutputWrites, Predicate, PredicateWrites,
    RgbHalf, RgbInput,
};
use crate::isa::operand::{AlphaMask, AluSource, RgbMask, TempAddr};

use super::{AsmErrorKind, alpha_arity, rgb_arity};

use super::cursor::{Cursor, InputRef, PResult, ParsedInput, Unit};

/// The result of source allocation: the RGB and alpha address words'
/// sources, and the select of every input (RGB inputs first, then alpha).
type Allocation = ([[AluSource; 3]; 2], SmallVec<[InputSelect; 6]>);

/// What the halves of an ALU line write besides temporaries.
#[derive(Default)]
struct HalfDests {
    temp: Option<(TempAddr, u32)>,
    output: Option<(RenderTarget, u32)>,
    predicate: Option<(u32, CompareOp)>,
    w: bool,
}

struct HalfText {
    dests: HalfDests,
    /// Where the opcode is; `None` for a bare `_` half.
    op_pos: Option<usize>,
    inputs: SmallVec<[ParsedInput; 3]>,
    omod: OutputModifier,
    clamp: bool,
    presub: PresubOp,
    predicate: Option<Predicate>,
}

impl<'a> Cursor<'a> {
    fn half_dests(&mut self, unit: Unit, is_out: bool) -> PResult<HalfDests> {
        let mut d = HalfDests::default();
        self.ws();
        if self.rest().starts_with('_') && !self.rest()[1..].starts_with('.') {
            self.pos += 1;
            return Ok(d);
        }
        let context = if is_out {
            "an `out` instruction"
        } else {
            "an `alu` instruction"
        };
        loop {
            self.ws();
            let pos = self.pos;
            let dup = |what| AsmErrorKind::Duplicate(what);
            match self.peek_raw() {
                Some('r') => {
                    let addr = self.temp_addr()?;
                    let mask = self.write_mask(unit)?;
                    if d.temp.replace((addr, mask)).is_some() {
                        return Err(self.err_at(pos, dup("temporary destination")));
                    }
                }
                Some('o') => {
                    if !is_out {
                        return Err(self.err_at(
                            pos,
                            AsmErrorKind::NotAllowed {
                                what: "an output destination",
                                context,
                            },
                        ));
                    }
                    self.pos += 1;
                    let n = self.uint("render target", 3)?;
                    let mask = self.write_mask(unit)?;
                    if d.output
                        .replace((RenderTarget::ALL[n as usize], mask))
                        .is_some()
                    {
                        return Err(self.err_at(pos, dup("output destination")));
                    }
                }
                Some('p') => {
                    if is_out {
                        return Err(self.err_at(
                            pos,
                            AsmErrorKind::NotAllowed {
                                what: "a predicate destination",
                                context,
                            },
                        ));
                    }
                    self.pos += 1;
                    let mask = self.write_mask(unit)?;
                    let op = self.compare()?;
                    if d.predicate.replace((mask, op)).is_some() {
                        return Err(self.err_at(pos, dup("predicate destination")));
                    }
                }
                Some('w') => {
                    if !is_out || unit == Unit::Rgb {
                        return Err(self.err_at(
                            pos,
                            AsmErrorKind::NotAllowed {
                                what: "`w`",
                                context: "this half",
                            },
                        ));
                    }
                    self.pos += 1;
                    if std::mem::replace(&mut d.w, true) {
                        return Err(self.err_at(pos, dup("`w`")));
                    }
                }
                _ => {
                    return Err(self.err(AsmErrorKind::Expected(
                        "a destination (`rN.mask`, `oN.mask`, `p.mask<0`, `w` or `_`)",
                    )));
                }
            }
            if !self.eat(",") {
                return Ok(d);
            }
        }
    }

    fn half(&mut self, unit: Unit, is_out: bool) -> PResult<HalfText> {
        let mut h = HalfText {
            dests: HalfDests::default(),
            op_pos: None,
            inputs: SmallVec::new(),
            omod: OutputModifier::Mul1,
            clamp: false,
            presub: PresubOp::Bias,
            predicate: None,
        };
        // A bare `_`: the all-default half (MAD of default inputs, no writes).
        self.ws();
        let save = self.pos;
        if self.eat("_") && matches!(self.peek(), None | Some(';') | Some('#')) {
            return Ok(h);
        }
        self.pos = save;
        h.dests = self.half_dests(unit, is_out)?;
        self.expect("=", "`=`")?;
        self.ws();
        h.op_pos = Some(self.pos);
        self.ident()
            .ok_or_else(|| self.err(AsmErrorKind::Expected("an opcode")))?;
        self.expect("(", "`(`")?;
        if !self.eat(")") {
            loop {
                if h.inputs.len() == 3 {
                    return Err(self.err(AsmErrorKind::Expected("`)` (at most 3 inputs)")));
                }
                h.inputs.push(self.alu_input(unit)?);
                if self.eat(")") {
                    break;
                }
                self.expect(",", "`,` or `)`")?;
            }
        }
        let (mut seen_omod, mut seen_presub) = (false, false);
        while !matches!(self.peek(), None | Some(';') | Some('#')) {
            let (pos, word) =
                self.expect_ident("`;`, an output modifier, `sat`, `srcp=` or `pred=`")?;
            if let Some(omod) = OutputModifier::from_mnemonic(word) {
                if std::mem::replace(&mut seen_omod, true) {
                    return Err(self.err_at(pos, AsmErrorKind::Duplicate("output modifier")));
                }
                h.omod = omod;
            } else if word == "sat" {
                if std::mem::replace(&mut h.clamp, true) {
                    return Err(self.err_at(pos, AsmErrorKind::Duplicate("`sat`")));
                }
            } else if word == "srcp" {
                self.expect("=", "`=`")?;
                if std::mem::replace(&mut seen_presub, true) {
                    return Err(self.err_at(pos, AsmErrorKind::Duplicate("`srcp`")));
                }
                h.presub = self.mnemonic("presubtract op", PresubOp::from_mnemonic)?;
            } else if word == "pred" {
                self.expect("=", "`=`")?;
                if h.predicate.replace(self.predicate()?).is_some() {
                    return Err(self.err_at(pos, AsmErrorKind::Duplicate("`pred`")));
                }
            } else {
                return Err(self.err_at(
                    pos,
                    AsmErrorKind::Unknown {
                        what: "ALU half attribute",
                        found: word.to_string(),
                    },
                ));
            }
        }
        Ok(h)
    }

    fn op_name(&self, pos: usize) -> &'a str {
        let rest = &self.text[pos..];
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(rest.len());
        &rest[..len]
    }

    pub(super) fn alu(&mut self, is_out: bool) -> PResult<AluInst> {
        let rgb_text = self.half(Unit::Rgb, is_out)?;
        self.expect(";", "`;` and the alpha half")?;
        let alpha_text = self.half(Unit::Alpha, is_out)?;

        // Items: sources, ALU result, flags.
        let mut explicit: [[Option<AluSource>; 2]; 3] = [[None; 2]; 3];
        let mut inst = AluInst::default();
        if self.eat(";") {
            while !self.at_end() {
                let (pos, word) = self.expect_ident("an item")?;
                if let Some(slot) = ["s0", "s1", "s2"].iter().position(|s| *s == word) {
                    self.expect("=", "`=`")?;
                    if explicit[slot][0].is_some() {
                        return Err(self.err_at(pos, AsmErrorKind::Duplicate("source")));
                    }
                    let rgb = self.alu_source()?;
                    let alpha = if self.peek_raw() == Some('|') {
                        self.pos += 1;
                        self.alu_source()?
                    } else {
                        rgb
                    };
                    explicit[slot] = [Some(rgb), Some(alpha)];
                } else if word == "alu_result" {
                    self.expect("=", "`=`")?;
                    let sel = self.mnemonic("ALU result channel (`r` or `a`)", |s| {
                        // `r<0`: the ident run stops before the comparison.
                        AluResultSel::from_mnemonic(s)
                    })?;
                    let op = self.compare()?;
                    if inst.alu_result.replace(AluResult { sel, op }).is_some() {
                        return Err(self.err_at(pos, AsmErrorKind::Duplicate("`alu_result`")));
                    }
                } else if let Some(f) = alu_flag(&mut inst, word) {
                    if std::mem::replace(f, true) {
                        return Err(self.err_at(pos, AsmErrorKind::Duplicate("flag")));
                    }
                } else {
                    return Err(self.err_at(
                        pos,
                        AsmErrorKind::Unknown {
                            what: "ALU item",
                            found: word.to_string(),
                        },
                    ));
                }
            }
        }

        let ([rgb_sources, alpha_sources], selects) =
            self.allocate_sources(explicit, &rgb_text.inputs, &alpha_text.inputs)?;
        let (rgb_selects, alpha_selects) = selects.split_at(rgb_text.inputs.len());
        inst.rgb = self.rgb_half(&rgb_text, rgb_sources, rgb_selects)?;
        inst.alpha = self.alpha_half(&alpha_text, alpha_sources, alpha_selects)?;

        let (rd, ad) = (&rgb_text.dests, &alpha_text.dests);
        inst.writes = if is_out {
            let (rgb_target, rgb_mask) = rd.output.unwrap_or((RenderTarget::A, 0));
            let (alpha_target, alpha_mask) = ad.output.unwrap_or((RenderTarget::A, 0));
            AluWrites::Output(OutputWrites {
                rgb_mask: RgbMask::from_field(rgb_mask),
                rgb_target,
                alpha_mask: AlphaMask::from_bit(alpha_mask),
                alpha_target,
                w: AlphaMask::from_bit(u32::from(ad.w)),
            })
        } else {
            let (rgb_mask, rgb_op) = rd.predicate.unwrap_or((0, CompareOp::Eq));
            let (alpha_mask, alpha_op) = ad.predicate.unwrap_or((0, CompareOp::Eq));
            AluWrites::Predicate(PredicateWrites {
                rgb_mask: RgbMask::from_field(rgb_mask),
                rgb_op,
                alpha_mask: AlphaMask::from_bit(alpha_mask),
                alpha_op,
            })
        };
        Ok(inst)
    }

    /// Place directly written operands into source slots: reuse a slot that
    /// already holds the operand in the needed address word(s), else take the
    /// lowest slot whose needed word(s) are free. RGB swizzle letters need
    /// the RGB address, `a` the alpha address (CTM §3.3.3). Returns the two
    /// address words' sources and the select of every input (RGB inputs
    /// first, then alpha).
    fn allocate_sources(
        &self,
        explicit: [[Option<AluSource>; 2]; 3],
        rgb_inputs: &[ParsedInput],
        alpha_inputs: &[ParsedInput],
    ) -> PResult<Allocation> {
        let mut words: [[Option<AluSource>; 3]; 2] = [[None; 3]; 2];
        for (slot, parts) in explicit.iter().enumerate() {
            words[0][slot] = parts[0];
            words[1][slot] = parts[1];
        }
        let mut selects = SmallVec::new();
        for (index, input) in rgb_inputs.iter().chain(alpha_inputs).enumerate() {
            let src = match input.reference {
                InputRef::Slot(sel) => {
                    selects.push(sel);
                    continue;
                }
                InputRef::Direct(src) => src,
            };
            let n = if index < rgb_inputs.len() { 3 } else { 1 };
            let swz = &input.swizzle[..n];
            let needs = [
                swz.iter()
                    .any(|s| matches!(s, Swizzle::R | Swizzle::G | Swizzle::B)),
                swz.contains(&Swizzle::A),
            ];
            let fits = |slot: usize, exact: bool| {
                (0..2).all(|w| {
                    !needs[w] || words[w][slot] == Some(src) || (!exact && words[w][slot].is_none())
                })
            };
            let slot = (0..3)
                .find(|&s| fits(s, true))
                .or_else(|| (0..3).find(|&s| fits(s, false)))
                .ok_or_else(|| {
                    self.err_at(
                        input.pos,
                        AsmErrorKind::NoFreeSource(self.operand_text(input.pos)),
                    )
                })?;
            for w in 0..2 {
                if needs[w] {
                    words[w][slot] = Some(src);
                }
            }
            selects.push(InputSelect::ALL[slot]);
        }
        Ok((
            words.map(|w| w.map(|s| s.unwrap_or(AluSource::UNUSED))),
            selects,
        ))
    }

    /// The operand text starting at `pos`, for error messages.
    fn operand_text(&self, pos: usize) -> String {
        let rest = &self.text[pos..];
        let len = rest.find([',', ')', ' ']).unwrap_or(rest.len());
        rest[..len].to_string()
    }

    fn check_arity(&self, pos: usize, op: &'static str, found: usize, arity: usize) -> PResult<()> {
        if found < arity {
            return Err(self.err_at(
                pos,
                AsmErrorKind::InputCount {
                    op,
                    found,
                    min: arity,
                    max: 3,
                },
            ));
        }
        Ok(())
    }

    fn rgb_half(
        &self,
        t: &HalfText,
        sources: [AluSource; 3],
        selects: &[InputSelect],
    ) -> PResult<RgbHalf> {
        let op = match t.op_pos {
            None => RgbOp::Mad,
            Some(pos) => {
                let name = self.op_name(pos);
                let op = RgbOp::from_mnemonic(name).ok_or_else(|| {
                    self.err_at(
                        pos,
                        AsmErrorKind::Unknown {
                            what: "RGB opcode",
                            found: name.to_string(),
                        },
                    )
                })?;
                self.check_arity(pos, op.mnemonic(), t.inputs.len(), rgb_arity(op))?;
                op
            }
        };
        let mut inputs = [RgbInput::default(); 3];
        for ((slot, p), sel) in inputs.iter_mut().zip(&t.inputs).zip(selects) {
            *slot = RgbInput {
                sel: *sel,
                swizzle: p.swizzle,
                modifier: p.modifier,
            };
        }
        let (dest, mask) = t.dests.temp.unwrap_or((TempAddr::default(), 0));
        Ok(RgbHalf {
            op,
            inputs,
            sources,
            presub: t.presub,
            dest,
            write_mask: RgbMask::from_field(mask),
            omod: t.omod,
            clamp: t.clamp,
            predicate: t.predicate,
        })
    }

    fn alpha_half(
        &self,
        t: &HalfText,
        sources: [AluSource; 3],
        selects: &[InputSelect],
    ) -> PResult<AlphaHalf> {
        let op = match t.op_pos {
            None => AlphaOp::Mad,
            Some(pos) => {
                let name = self.op_name(pos);
                let op = AlphaOp::from_mnemonic(name).ok_or_else(|| {
                    self.err_at(
                        pos,
                        AsmErrorKind::Unknown {
                            what: "alpha opcode",
                            found: name.to_string(),
                        },
                    )
                })?;
                self.check_arity(pos, op.mnemonic(), t.inputs.len(), alpha_arity(op))?;
                op
            }
        };
        let mut inputs = [AlphaInput::default(); 3];
        for ((slot, p), sel) in inputs.iter_mut().zip(&t.inputs).zip(selects) {
            *slot = AlphaInput {
                sel: *sel,
                swizzle: p.swizzle[0],
                modifier: p.modifier,
            };
        }
        let (dest, mask) = t.dests.temp.unwrap_or((TempAddr::default(), 0));
        Ok(AlphaHalf {
            op,
            inputs,
            sources,
            presub: t.presub,
            dest,
            write_mask: AlphaMask::from_bit(mask),
            omod: t.omod,
            clamp: t.clamp,
            predicate: t.predicate,
        })
    }
}

/// The boolean flag of an ALU line named `word`.
fn alu_flag<'i>(inst: &'i mut AluInst, word: &str) -> Option<&'i mut bool> {
    Some(match word {
        "sem_wait" => &mut inst.sem_wait,
        "write_inactive" => &mut inst.write_inactive,
        "last" => &mut inst.last,
        "nop" => &mut inst.nop,
        _ => return None,
    })
}
