//! The assembler: one line of assembly → [`Inst`], and programs with slot
//! labels and comments. Errors carry a 1-based line and column.
//!
//! The parser is a hand-written recursive descent over one line (a cursor,
//! no separate lexer: swizzles such as `s0.0h1` need context).

use smallvec::SmallVec;

use crate::isa::enums::{
    AddrStackOp, AlphaOp, AluResultSel, BranchOp, Channel, CompareOp, FcOp, InputModifier,
    InputSelect, OutputModifier, PredSel, PresubOp, RenderTarget, RgbOp, Swizzle, TexOpcode,
};
use crate::isa::inline_const::InlineConst;
use crate::isa::inst::{
    AlphaHalf, AlphaInput, AluInst, AluResult, AluWrites, FcInst, FcPredicate, Inst,
    JumpAddressing, OutputWrites, Predicate, PredicateWrites, RgbHalf, RgbInput, TexInst, TexOp,
    TexOperand,
};
use crate::isa::operand::{
    Addressing, AlphaMask, AluSource, BoolConstId, BranchPopCount, ConstAddr, ConstReg, IntConstId,
    RgbMask, SlotIndex, TempAddr, TempReg, TexId,
};

use super::{
    AsmError, AsmErrorKind, IDENTITY_DST_SWIZZLE, alpha_arity, jump_func_from_name, rgb_arity,
};

type PResult<T> = Result<T, AsmError>;

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

/// An ALU input as written: a source slot, or a register/constant to allocate.
#[derive(Clone, Copy)]
enum InputRef {
    Slot(InputSelect),
    Direct(AluSource),
}

#[derive(Clone, Copy)]
struct ParsedInput {
    reference: InputRef,
    swizzle: [Swizzle; 3],
    modifier: InputModifier,
    pos: usize,
}

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

#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Rgb,
    Alpha,
}

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, line: usize) -> Self {
        Cursor { text, pos: 0, line }
    }

    fn err_at(&self, pos: usize, kind: AsmErrorKind) -> AsmError {
        let column = self.text[..pos.min(self.text.len())].chars().count() + 1;
        AsmError {
            line: self.line,
            column,
            kind,
        }
    }

    fn err(&self, kind: AsmErrorKind) -> AsmError {
        self.err_at(self.pos, kind)
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn ws(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\t', '\r']);
        self.pos = self.text.len() - trimmed.len();
    }

    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.rest().chars().next()
    }

    /// The next character without skipping whitespace.
    fn peek_raw(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn at_end(&mut self) -> bool {
        matches!(self.peek(), None | Some('#'))
    }

    fn end(&mut self) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err(AsmErrorKind::Expected("end of line")))
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str, what: &'static str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.err(AsmErrorKind::Expected(what)))
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, after whitespace.
    fn ident(&mut self) -> Option<&'a str> {
        self.ws();
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, ch)) if ch.is_ascii_alphabetic() || ch == '_' => {}
            _ => return None,
        }
        let len = chars
            .find(|(_, ch)| !(ch.is_ascii_alphanumeric() || *ch == '_'))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += len;
        Some(&rest[..len])
    }

    fn expect_ident(&mut self, what: &'static str) -> PResult<(usize, &'a str)> {
        self.ws();
        let pos = self.pos;
        self.ident()
            .map(|id| (pos, id))
            .ok_or_else(|| self.err(AsmErrorKind::Expected(what)))
    }

    /// A run of characters from `set`, without skipping whitespace first.
    fn run(&mut self, set: &str) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|ch: char| !set.contains(ch))
            .unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    /// A decimal or `0x` hexadecimal integer, if one starts here.
    fn try_uint(&mut self) -> Option<u64> {
        self.ws();
        let rest = self.rest();
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let len = hex
                .find(|ch: char| !ch.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            let value = u64::from_str_radix(&hex[..len], 16).ok()?;
            self.pos += 2 + len;
            return Some(value);
        }
        let len = rest
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(rest.len());
        let value = rest[..len].parse().ok()?;
        self.pos += len;
        Some(value)
    }

    fn uint(&mut self, what: &'static str, max: u64) -> PResult<u64> {
        self.ws();
        let pos = self.pos;
        let value = self
            .try_uint()
            .ok_or_else(|| self.err(AsmErrorKind::Expected(what)))?;
        if value > max {
            return Err(self.err_at(pos, AsmErrorKind::OutOfRange { what, value, max }));
        }
        Ok(value)
    }

    fn mnemonic<T>(
        &mut self,
        what: &'static str,
        lookup: impl Fn(&str) -> Option<T>,
    ) -> PResult<T> {
        let (pos, id) = self.expect_ident(what)?;
        lookup(id).ok_or_else(|| {
            self.err_at(
                pos,
                AsmErrorKind::Unknown {
                    what,
                    found: id.to_string(),
                },
            )
        })
    }

    // ---- operands -------------------------------------------------------

    /// `N` or `[N+aL]` after a register letter; returns (index, addressing).
    fn register_index(&mut self, what: &'static str, max: u64) -> PResult<(u32, Addressing)> {
        if self.peek_raw() == Some('[') {
            self.pos += 1;
            let n = self.uint(what, max)?;
            self.expect("+", "`+aL]`")?;
            self.expect("aL", "`aL`")?;
            self.expect("]", "`]`")?;
            Ok((n as u32, Addressing::LoopRelative))
        } else {
            let n = self.uint(what, max)?;
            Ok((n as u32, Addressing::Absolute))
        }
    }

    /// `rN` or `r[N+aL]`, after whitespace.
    fn temp_addr(&mut self) -> PResult<TempAddr> {
        self.ws();
        if !self.rest().starts_with('r') {
            return Err(self.err(AsmErrorKind::Expected("a temporary `rN` or `r[N+aL]`")));
        }
        self.pos += 1;
        let (n, addressing) = self.register_index("temporary register", u64::from(TempReg::MAX))?;
        Ok(TempAddr {
            reg: TempReg::from_field(n),
            addressing,
        })
    }

    /// A source address: `_`, `rN`, `r[N+aL]`, `cN`, `c[N+aL]` or a float literal.
    fn alu_source(&mut self) -> PResult<AluSource> {
        self.ws();
        let pos = self.pos;
        match self.peek_raw() {
            Some('_') => {
                self.pos += 1;
                Ok(AluSource::UNUSED)
            }
            Some('r') => self.temp_addr().map(AluSource::Temp),
            Some('c') => {
                self.pos += 1;
                let (n, addressing) =
                    self.register_index("constant register", u64::from(ConstReg::MAX))?;
                Ok(AluSource::Const(ConstAddr {
                    reg: ConstReg::from_field(n),
                    addressing,
                }))
            }
            Some(ch) if ch.is_ascii_digit() => {
                let text = self.run("0123456789.eE+-");
                let value: f64 = text
                    .parse()
                    .map_err(|_| self.err_at(pos, AsmErrorKind::Expected("a number")))?;
                InlineConst::from_value(value as f32)
                    .filter(|k| f64::from(k.value()) == value)
                    .map(AluSource::Inline)
                    .ok_or_else(|| self.err_at(pos, AsmErrorKind::NotInlineConstant(value)))
            }
            _ => Err(self.err(AsmErrorKind::Expected(
                "a source (`rN`, `cN`, an inline constant or `_`)",
            ))),
        }
    }

    fn swizzle_char(ch: char) -> Option<Swizzle> {
        Some(match ch {
            'r' | 'x' => Swizzle::R,
            'g' | 'y' => Swizzle::G,
            'b' | 'z' => Swizzle::B,
            'a' | 'w' => Swizzle::A,
            '0' => Swizzle::Zero,
            'h' => Swizzle::Half,
            '1' => Swizzle::One,
            '_' => Swizzle::Unused,
            _ => return None,
        })
    }

    fn channel_char(ch: char) -> Option<Channel> {
        Some(match ch {
            'r' | 'x' => Channel::R,
            'g' | 'y' => Channel::G,
            'b' | 'z' => Channel::B,
            'a' | 'w' => Channel::A,
            _ => return None,
        })
    }

    /// `.SWZ` for an ALU input: 3 selects (RGB; 1 is replicated) or 1 (alpha).
    fn alu_swizzle(&mut self, unit: Unit) -> PResult<[Swizzle; 3]> {
        let pos = self.pos;
        let text = self.run("rgbaxyzw01h_");
        let swz: SmallVec<[Swizzle; 3]> = text.chars().filter_map(Self::swizzle_char).collect();
        match (unit, swz.len()) {
            (Unit::Rgb, 3) => Ok([swz[0], swz[1], swz[2]]),
            (_, 1) => Ok([swz[0]; 3]),
            (Unit::Rgb, _) => Err(self.err_at(
                pos,
                AsmErrorKind::Expected("a 3-letter swizzle from `rgba0h1_`"),
            )),
            (Unit::Alpha, _) => Err(self.err_at(
                pos,
                AsmErrorKind::Expected("a 1-letter swizzle from `rgba0h1_`"),
            )),
        }
    }

    /// `.ssss` for a TEX operand.
    fn channels4(&mut self) -> PResult<[Channel; 4]> {
        self.expect(".", "`.` and a 4-letter swizzle")?;
        let pos = self.pos;
        let text = self.run("rgbaxyzw");
        let ch: SmallVec<[Channel; 4]> = text.chars().filter_map(Self::channel_char).collect();
        if ch.len() != 4 {
            return Err(self.err_at(
                pos,
                AsmErrorKind::Expected("a 4-letter swizzle from `rgba`"),
            ));
        }
        Ok([ch[0], ch[1], ch[2], ch[3]])
    }

    fn alu_input(&mut self, unit: Unit) -> PResult<ParsedInput> {
        self.ws();
        let pos = self.pos;
        let negate = self.eat("-");
        let abs = self.eat("|");
        let modifier = match (negate, abs) {
            (false, false) => InputModifier::None,
            (true, false) => InputModifier::Neg,
            (false, true) => InputModifier::Abs,
            (true, true) => InputModifier::NegAbs,
        };
        self.ws();
        let select = ["s0", "s1", "s2", "sp"].iter().position(|s| {
            self.rest().starts_with(s)
                && !self.rest()[2..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_')
        });
        let (reference, has_swizzle) = match select {
            Some(i) => {
                self.pos += 2;
                let sel = InputSelect::ALL[i];
                self.expect(".", "`.` and a swizzle")?;
                (InputRef::Slot(sel), true)
            }
            None => {
                let src = self.alu_source()?;
                let has = self.peek_raw() == Some('.') && !matches!(src, AluSource::Inline(_));
                if has {
                    self.pos += 1;
                }
                (InputRef::Direct(src), has)
            }
        };
        let swizzle = if has_swizzle {
            self.alu_swizzle(unit)?
        } else {
            match unit {
                Unit::Rgb => [Swizzle::R, Swizzle::G, Swizzle::B],
                Unit::Alpha => [Swizzle::A; 3],
            }
        };
        if abs {
            self.expect("|", "closing `|`")?;
        }
        Ok(ParsedInput {
            reference,
            swizzle,
            modifier,
            pos,
        })
    }

    /// `[!]p.SEL`.
    fn predicate(&mut self) -> PResult<Predicate> {
        let invert = self.eat("!");
        self.ws();
        let pos = self.pos;
        let text = self.run("p.rgba");
        PredSel::from_mnemonic(text)
            .map(|sel| Predicate { sel, invert })
            .ok_or_else(|| {
                self.err_at(
                    pos,
                    AsmErrorKind::Unknown {
                        what: "predicate select",
                        found: text.to_string(),
                    },
                )
            })
    }

    fn compare(&mut self) -> PResult<CompareOp> {
        self.ws();
        for op in CompareOp::ALL {
            if self.eat(op.mnemonic()) {
                return Ok(*op);
            }
        }
        Err(self.err(AsmErrorKind::Expected(
            "a comparison `==0`, `<0`, `>=0` or `!=0`",
        )))
    }

    /// Mask after `.`: RGB letters in order (or `_`), or `a`/`_` for alpha.
    fn write_mask(&mut self, unit: Unit) -> PResult<u32> {
        self.expect(".", "`.` and a write mask")?;
        let pos = self.pos;
        if self.peek_raw() == Some('_') {
            self.pos += 1;
            return Ok(0);
        }
        let text = self.run("rgbaxyzw");
        let mut bits = 0u32;
        let mut last = None;
        for ch in text.chars() {
            let i = match (unit, ch) {
                (Unit::Rgb, 'r' | 'x') => 0,
                (Unit::Rgb, 'g' | 'y') => 1,
                (Unit::Rgb, 'b' | 'z') => 2,
                (Unit::Alpha, 'a' | 'w') => 0,
                _ => {
                    return Err(self.err_at(
                        pos,
                        AsmErrorKind::Expected(
                            "a write mask (`rgb` letters in order, `a`, or `_`)",
                        ),
                    ));
                }
            };
            if last.is_some_and(|l| l >= i) {
                return Err(self.err_at(
                    pos,
                    AsmErrorKind::Expected("write-mask letters in r, g, b order, once each"),
                ));
            }
            last = Some(i);
            bits |= 1 << i;
        }
        if text.is_empty() {
            return Err(self.err_at(pos, AsmErrorKind::Expected("a write mask")));
        }
        Ok(bits)
    }

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

    fn alu(&mut self, is_out: bool) -> PResult<AluInst> {
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
    ) -> PResult<([[AluSource; 3]; 2], SmallVec<[InputSelect; 6]>)> {
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
                swz.iter().any(|s| *s == Swizzle::A),
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
