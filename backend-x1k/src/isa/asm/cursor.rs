//! The assembler's cursor over one line: lexical helpers and operand
//! parsers shared by the instruction parsers ([`super::parse`],
//! [`super::parse_alu`]). Hand-written, no separate lexer: swizzles such as
//! `s0.0h1` need context.

use smallvec::SmallVec;

use crate::isa::enums::{Channel, CompareOp, InputModifier, InputSelect, PredSel, Swizzle};
use crate::isa::inline_const::InlineConst;
use crate::isa::inst::Predicate;
use crate::isa::operand::{Addressing, AluSource, ConstAddr, ConstReg, TempAddr, TempReg};

use super::{AsmError, AsmErrorKind};

pub(super) type PResult<T> = Result<T, AsmError>;

/// An ALU input as written: a source slot, or a register/constant to allocate.
#[derive(Clone, Copy)]
pub(super) enum InputRef {
    Slot(InputSelect),
    Direct(AluSource),
}

/// One parsed ALU input, before source allocation.
#[derive(Clone, Copy)]
pub(super) struct ParsedInput {
    pub(super) reference: InputRef,
    pub(super) swizzle: [Swizzle; 3],
    pub(super) modifier: InputModifier,
    pub(super) pos: usize,
}

/// Which ALU unit an input or destination belongs to.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Unit {
    Rgb,
    Alpha,
}

/// A position in one line of assembly.
pub(super) struct Cursor<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
    pub(super) line: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str, line: usize) -> Self {
        Cursor { text, pos: 0, line }
    }

    pub(super) fn err_at(&self, pos: usize, kind: AsmErrorKind) -> AsmError {
        let column = self.text[..pos.min(self.text.len())].chars().count() + 1;
        AsmError {
            line: self.line,
            column,
            kind,
        }
    }

    pub(super) fn err(&self, kind: AsmErrorKind) -> AsmError {
        self.err_at(self.pos, kind)
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub(super) fn ws(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\t', '\r']);
        self.pos = self.text.len() - trimmed.len();
    }

    pub(super) fn peek(&mut self) -> Option<char> {
        self.ws();
        self.rest().chars().next()
    }

    /// The next character without skipping whitespace.
    pub(super) fn peek_raw(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(super) fn at_end(&mut self) -> bool {
        matches!(self.peek(), None | Some('#'))
    }

    pub(super) fn end(&mut self) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err(AsmErrorKind::Expected("end of line")))
        }
    }

    pub(super) fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, s: &str, what: &'static str) -> PResult<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.err(AsmErrorKind::Expected(what)))
        }
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`, after whitespace.
    pub(super) fn ident(&mut self) -> Option<&'a str> {
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

    pub(super) fn expect_ident(&mut self, what: &'static str) -> PResult<(usize, &'a str)> {
        self.ws();
        let pos = self.pos;
        self.ident()
            .map(|id| (pos, id))
            .ok_or_else(|| self.err(AsmErrorKind::Expected(what)))
    }

    /// A run of characters from `set`, without skipping whitespace first.
    pub(super) fn run(&mut self, set: &str) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|ch: char| !set.contains(ch))
            .unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    /// A decimal or `0x` hexadecimal integer, if one starts here.
    pub(super) fn try_uint(&mut self) -> Option<u64> {
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

    pub(super) fn uint(&mut self, what: &'static str, max: u64) -> PResult<u64> {
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

    pub(super) fn mnemonic<T>(
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
    pub(super) fn register_index(
        &mut self,
        what: &'static str,
        max: u64,
    ) -> PResult<(u32, Addressing)> {
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
    pub(super) fn temp_addr(&mut self) -> PResult<TempAddr> {
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
    pub(super) fn alu_source(&mut self) -> PResult<AluSource> {
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

    pub(super) fn swizzle_char(ch: char) -> Option<Swizzle> {
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

    pub(super) fn channel_char(ch: char) -> Option<Channel> {
        Some(match ch {
            'r' | 'x' => Channel::R,
            'g' | 'y' => Channel::G,
            'b' | 'z' => Channel::B,
            'a' | 'w' => Channel::A,
            _ => return None,
        })
    }

    /// `.SWZ` for an ALU input: 3 selects (RGB; 1 is replicated) or 1 (alpha).
    pub(super) fn alu_swizzle(&mut self, unit: Unit) -> PResult<[Swizzle; 3]> {
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
    pub(super) fn channels4(&mut self) -> PResult<[Channel; 4]> {
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

    pub(super) fn alu_input(&mut self, unit: Unit) -> PResult<ParsedInput> {
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
    pub(super) fn predicate(&mut self) -> PResult<Predicate> {
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

    pub(super) fn compare(&mut self) -> PResult<CompareOp> {
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
    pub(super) fn write_mask(&mut self, unit: Unit) -> PResult<u32> {
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
}
