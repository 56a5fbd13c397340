//! Operands and range-limited numbers of the X1K instruction words: register
//! indices, source addresses, write masks, texture ids, slot indices.
//!
//! Every type here can only hold values its field can encode (constructors
//! check ranges), so [`crate::isa::encode()`] never fails and never truncates.

use std::fmt;

use super::inline_const::InlineConst;

use ctm_isa_kit::bounded;

bounded! {
    /// A temporary register `r0..r127` (7-bit address, CTM §3.3.1).
    TempReg(u8) max 127, prefix "r";
    /// A float constant register `c0..c255` (8-bit address, CTM §3.3.1).
    ConstReg(u8) max 255, prefix "c";
    /// A sampler / CTM program input `t0..t15` (`TEX_ID`, §8.4).
    TexId(u8) max 15, prefix "t";
    /// An instruction slot `0..511` (9-bit `JUMP_ADDR`, §1.1).
    SlotIndex(u16) max 511, prefix "";
    /// A boolean constant `b0..b31` (`BOOL_ADDR`, §8.2).
    BoolConstId(u8) max 31, prefix "b";
    /// An integer (loop) constant `i0..i31` (`INT_ADDR`, §8.2).
    IntConstId(u8) max 31, prefix "i";
    /// `B_POP_CNT`, 0..31 (§8.1).
    BranchPopCount(u8) max 31, prefix "";
}

/// Whether the loop register aL is added to an address (`*_REL` bits).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Addressing {
    /// The address as written.
    #[default]
    Absolute,
    /// The address plus aL (CTM §3.3.1, §3.3.7, §3.4).
    LoopRelative,
}

impl Addressing {
    /// The `*_REL` bit.
    pub const fn bit(self) -> u32 {
        match self {
            Addressing::Absolute => 0,
            Addressing::LoopRelative => 1,
        }
    }

    /// From a `*_REL` bit (only bit 0 is looked at).
    pub const fn from_bit(bit: u32) -> Self {
        if bit & 1 == 0 {
            Addressing::Absolute
        } else {
            Addressing::LoopRelative
        }
    }
}

/// A temporary-register address, possibly aL-relative: ALU destinations and
/// all TEX addresses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TempAddr {
    /// The register (base address).
    pub reg: TempReg,
    /// Whether aL is added.
    pub addressing: Addressing,
}

impl TempAddr {
    /// `rN`, absolute. `None` if `n > 127`.
    pub const fn absolute(n: u32) -> Option<Self> {
        match TempReg::new(n) {
            Some(reg) => Some(TempAddr {
                reg,
                addressing: Addressing::Absolute,
            }),
            None => None,
        }
    }

    /// `r[N+aL]`. `None` if `n > 127`.
    pub const fn relative(n: u32) -> Option<Self> {
        match TempReg::new(n) {
            Some(reg) => Some(TempAddr {
                reg,
                addressing: Addressing::LoopRelative,
            }),
            None => None,
        }
    }
}

impl fmt::Display for TempAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.addressing {
            Addressing::Absolute => write!(f, "r{}", self.reg.get()),
            Addressing::LoopRelative => write!(f, "r[{}+aL]", self.reg.get()),
        }
    }
}

/// A constant-register address, possibly aL-relative.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConstAddr {
    /// The register (base address).
    pub reg: ConstReg,
    /// Whether aL is added.
    pub addressing: Addressing,
}

impl fmt::Display for ConstAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.addressing {
            Addressing::Absolute => write!(f, "c{}", self.reg.get()),
            Addressing::LoopRelative => write!(f, "c[{}+aL]", self.reg.get()),
        }
    }
}

/// One ALU source address (`ADDRn`, `ADDRn_CONST`, `ADDRn_REL`), encoded per
/// `x1k-encoding.md` §3.1 / CTM §3.3.1.
///
/// There is no separate "unused" variant: an unused source is encoded as
/// inline constant code 0 (`ADDRn` = 0x80, Mesa and the hardware-verified
/// binaries do this), which is also a real value (2^-10). A distinct variant
/// would make two values encode to the same bits and break
/// `decode(encode(x)) == x`; [`AluSource::UNUSED`] names the convention.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluSource {
    /// A temporary register (bit 7 of `ADDRn` = 0, `CONST` = 0).
    Temp(TempAddr),
    /// A constant register (`CONST` = 1, `ADDRn` = index).
    Const(ConstAddr),
    /// An inline constant (bit 7 = 1, `CONST` = 0, `REL` = 0: aL may not be
    /// added to an inline constant, CTM §3.3.1).
    Inline(InlineConst),
}

impl AluSource {
    /// The encoding of an unused source: inline code 0.
    pub const UNUSED: AluSource = AluSource::Inline(InlineConst::CODE_0);

    /// `(ADDRn, ADDRn_CONST, ADDRn_REL)` for this source.
    pub const fn fields(self) -> (u32, u32, u32) {
        match self {
            AluSource::Temp(t) => (t.reg.get(), 0, t.addressing.bit()),
            AluSource::Const(c) => (c.reg.get(), 1, c.addressing.bit()),
            AluSource::Inline(k) => (0x80 | k.code() as u32, 0, 0),
        }
    }

    /// Decode `(ADDRn, ADDRn_CONST, ADDRn_REL)`. `None` for the one invalid
    /// combination: an inline constant with `REL` set (CTM §3.3.1).
    pub const fn from_fields(addr: u32, is_const: u32, rel: u32) -> Option<Self> {
        let addressing = Addressing::from_bit(rel);
        if is_const & 1 == 1 {
            Some(AluSource::Const(ConstAddr {
                reg: ConstReg::from_field(addr),
                addressing,
            }))
        } else if addr & 0x80 == 0 {
            Some(AluSource::Temp(TempAddr {
                reg: TempReg::from_field(addr),
                addressing,
            }))
        } else if rel & 1 == 0 {
            Some(AluSource::Inline(InlineConst::from_code_masked(addr)))
        } else {
            None
        }
    }
}

impl Default for AluSource {
    fn default() -> Self {
        AluSource::UNUSED
    }
}

/// A 3-bit R/G/B write or output mask (`RGB_WMASK`, `RGB_OMASK`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RgbMask(u8);

impl RgbMask {
    /// No channel.
    pub const NONE: RgbMask = RgbMask(0);
    /// R, G and B.
    pub const RGB: RgbMask = RgbMask(7);

    /// From the field value; `None` if `bits > 7`.
    pub const fn new(bits: u32) -> Option<Self> {
        if bits <= 7 {
            Some(RgbMask(bits as u8))
        } else {
            None
        }
    }

    pub(crate) const fn from_field(bits: u32) -> Self {
        RgbMask((bits & 7) as u8)
    }

    /// The field value (bit 0 = R, bit 1 = G, bit 2 = B).
    pub const fn bits(self) -> u32 {
        self.0 as u32
    }

    /// Whether channel `i` (0 = R, 1 = G, 2 = B) is set.
    pub const fn has(self, i: usize) -> bool {
        i < 3 && self.0 & (1 << i) != 0
    }

    /// Whether no channel is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for RgbMask {
    /// `rgb`, `rg`, `b`, ... or `_` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("_");
        }
        for (i, c) in ['r', 'g', 'b'].into_iter().enumerate() {
            if self.has(i) {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for RgbMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RgbMask({self})")
    }
}

/// A 1-bit alpha write or output mask (`ALPHA_WMASK`, `ALPHA_OMASK`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum AlphaMask {
    /// Alpha not written.
    #[default]
    Off,
    /// Alpha written.
    On,
}

impl AlphaMask {
    /// The field bit.
    pub const fn bit(self) -> u32 {
        match self {
            AlphaMask::Off => 0,
            AlphaMask::On => 1,
        }
    }

    /// From the field bit (only bit 0 is looked at).
    pub const fn from_bit(bit: u32) -> Self {
        if bit & 1 == 0 {
            AlphaMask::Off
        } else {
            AlphaMask::On
        }
    }

    /// Whether alpha is written.
    pub const fn is_on(self) -> bool {
        matches!(self, AlphaMask::On)
    }
}
