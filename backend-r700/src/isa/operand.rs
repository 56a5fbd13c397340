//! Operands and range-limited numbers of the R700 microcode words: GPRs,
//! ALU source selects, kcache and constant indices, clause sizes, offsets.
//!
//! Every type here can only hold values its field can encode (constructors
//! check ranges), so encoding an instruction never fails and never
//! truncates. Fields stored "minus one" (clause sizes, burst counts) are
//! held as the real count, so `FetchCount::new(1)` is the field value 0.

use std::fmt;

use super::enums::{Chan, InlineConst, UnknownCode};

use ctm_isa_kit::bounded;

bounded! {
    /// A GPR address 0..=127 (7-bit `*_GPR` fields). Addresses
    /// 128−N..=127 are the clause temporaries when N are configured.
    Gpr(u8) max 127;
    /// A constant index 0..=31 within a kcache set (SRC_SEL 128-159, 160-191).
    KcacheIndex(u8) max 31;
    /// A constant buffer 0..=15 (`KCACHE_BANK0/1`).
    KcacheBank(u8) max 15;
    /// A CF constant index 0..=31 (`CF_CONST`).
    CfConst(u8) max 31;
    /// Stack entries to pop, 0..=7 (`POP_COUNT`).
    PopCount(u8) max 7;
    /// Call-nesting increment 0..=63 (`CALL_COUNT`; the manual uses 0..=31).
    CallCount(u8) max 63;
    /// An ALU clause address in qwords, 22 bits (`CF_ALU_WORD0.ADDR`).
    AluClauseAddr(u32) max 0x3F_FFFF;
    /// `ARRAY_BASE`, 13 bits.
    ArrayBase(u16) max 8191;
    /// `ARRAY_SIZE`, 12 bits.
    ArraySize(u16) max 4095;
    /// `ELEM_SIZE`: dwords per element minus one, 0..=3 (2 is "not supported").
    ElemSize(u8) max 3;
    /// A component write mask, X = bit 0 (`COMP_MASK`).
    CompMask(u8) max 15;
    /// `SAMPLER_ID`, 5 bits (the manual uses 0..=17).
    SamplerId(u8) max 31;
    /// `MEGA_FETCH_COUNT`, the raw 6-bit field (bytes − 1; docs §6).
    MegaFetchCount(u8) max 63;
}

impl Gpr {
    /// `R0`.
    pub const R0: Gpr = Gpr(0);
}

impl fmt::Display for AluSrcSel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AluSrcSel::Gpr(g) => write!(f, "R{g}"),
            AluSrcSel::Kcache0(i) => write!(f, "KC0[{i}]"),
            AluSrcSel::Kcache1(i) => write!(f, "KC1[{i}]"),
            AluSrcSel::Cfile(c) => write!(f, "C{c}"),
            AluSrcSel::Inline(c) => f.write_str(c.mnemonic()),
            AluSrcSel::Literal => f.write_str("L"),
            AluSrcSel::Pv => f.write_str("PV"),
            AluSrcSel::Ps => f.write_str("PS"),
        }
    }
}

use ctm_isa_kit::count;

count! {
    /// Instructions in a TEX/VTX clause, 1..=16 (`COUNT` + `COUNT_3`).
    FetchCount max 16;
    /// Slots in an ALU clause including literal slots, 1..=128.
    AluSlotCount max 128;
    /// Exports or elements of an ALLOC_EXPORT instruction, 1..=16 (`BURST_COUNT`).
    BurstCount max 16;
}

/// A 5-bit two's-complement texel offset, −16..=15 (`OFFSET_X/Y/Z`; the
/// manual gives the range [−8, 8), docs §6).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct TexOffset(i8);

impl TexOffset {
    /// `Some` if `-16 <= value <= 15`.
    pub const fn new(value: i32) -> Option<Self> {
        if value >= -16 && value <= 15 {
            Some(TexOffset(value as i8))
        } else {
            None
        }
    }

    /// From the 5-bit field.
    pub(crate) const fn from_field(value: u32) -> Self {
        TexOffset((((value & 0x1F) << 3) as u8 as i8) >> 3)
    }

    /// The 5-bit field value.
    pub const fn field(self) -> u32 {
        (self.0 as u8 as u32) & 0x1F
    }

    /// The offset.
    pub const fn get(self) -> i32 {
        self.0 as i32
    }
}

/// `TEX_WORD1.LOD_BIAS`: 7-bit two's-complement S3.4, raw −64..=63
/// (value = raw / 16, range [−4, 4)).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct LodBias(i8);

impl LodBias {
    /// `Some` if `-64 <= raw <= 63`.
    pub const fn new(raw: i32) -> Option<Self> {
        if raw >= -64 && raw <= 63 {
            Some(LodBias(raw as i8))
        } else {
            None
        }
    }

    /// From the 7-bit field.
    pub(crate) const fn from_field(value: u32) -> Self {
        LodBias((((value & 0x7F) << 1) as u8 as i8) >> 1)
    }

    /// The 7-bit field value.
    pub const fn field(self) -> u32 {
        (self.0 as u8 as u32) & 0x7F
    }

    /// The raw fixed-point value (sixteenths).
    pub const fn raw(self) -> i32 {
        self.0 as i32
    }

    /// The bias as a float.
    pub fn value(self) -> f32 {
        f32::from(self.0) / 16.0
    }
}

/// What an ALU source field (`SRC0/1/2_SEL`, 9 bits) selects (digest §3.4,
/// manual L7917).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum AluSrcSel {
    /// GPR 0..=127 (SEL 0..=127).
    Gpr(Gpr),
    /// Kcache set 0, constant 0..=31 (SEL 128..=159).
    Kcache0(KcacheIndex),
    /// Kcache set 1, constant 0..=31 (SEL 160..=191; 160, not 144: digest §7.2 #5).
    Kcache1(KcacheIndex),
    /// An inline constant (SEL 244..=252).
    Inline(InlineConst),
    /// The group's literal; CHAN picks the dword (SEL 253).
    Literal,
    /// The previous group's vector result; CHAN picks the element (SEL 254).
    Pv,
    /// The previous group's Trans result (SEL 255).
    Ps,
    /// Constant file c0..=c255 (SEL 256..=511).
    Cfile(u8),
}

/// `SRC*_SEL` of ALU_SRC_LITERAL.
pub const SEL_LITERAL: u32 = 253;

impl AluSrcSel {
    /// The 9-bit field value.
    pub const fn code(self) -> u32 {
        match self {
            AluSrcSel::Gpr(g) => g.get(),
            AluSrcSel::Kcache0(i) => 128 + i.get(),
            AluSrcSel::Kcache1(i) => 160 + i.get(),
            AluSrcSel::Inline(c) => c.code(),
            AluSrcSel::Literal => SEL_LITERAL,
            AluSrcSel::Pv => 254,
            AluSrcSel::Ps => 255,
            AluSrcSel::Cfile(c) => 256 + c as u32,
        }
    }

    /// Decode a 9-bit field value; 192..=243 are not defined (digest §3.4).
    pub fn from_code(code: u32) -> Result<Self, UnknownCode> {
        Ok(match code {
            0..=127 => AluSrcSel::Gpr(Gpr::from_field(code)),
            128..=159 => AluSrcSel::Kcache0(KcacheIndex::from_field(code - 128)),
            160..=191 => AluSrcSel::Kcache1(KcacheIndex::from_field(code - 160)),
            253 => AluSrcSel::Literal,
            254 => AluSrcSel::Pv,
            255 => AluSrcSel::Ps,
            256..=511 => AluSrcSel::Cfile((code - 256) as u8),
            _ => AluSrcSel::Inline(InlineConst::try_from(code).map_err(|_| UnknownCode {
                enumeration: "AluSrcSel",
                value: code,
            })?),
        })
    }
}

/// One ALU source operand: select, element, relative flag, negation.
/// OP2 sources also have ABS, held by the OP2 form (`super::alu::Op2Form`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AluSrc {
    /// What is read (`SRC*_SEL`).
    pub sel: AluSrcSel,
    /// Which element (`SRC*_CHAN`); for a literal, which dword.
    pub chan: Chan,
    /// Add the instruction's INDEX_MODE index to the address (`SRC*_REL`).
    pub rel: bool,
    /// Negate (`SRC*_NEG`), float only.
    pub neg: bool,
}

impl AluSrc {
    /// `sel.chan`, absolute, not negated.
    pub const fn new(sel: AluSrcSel, chan: Chan) -> Self {
        AluSrc {
            sel,
            chan,
            rel: false,
            neg: false,
        }
    }

    /// `R{gpr}.{chan}`.
    pub const fn gpr(gpr: Gpr, chan: Chan) -> Self {
        AluSrc::new(AluSrcSel::Gpr(gpr), chan)
    }

    /// An inline constant.
    pub const fn inline(c: InlineConst) -> Self {
        AluSrc::new(AluSrcSel::Inline(c), Chan::X)
    }

    /// Literal dword `chan` of the group.
    pub const fn literal(chan: Chan) -> Self {
        AluSrc::new(AluSrcSel::Literal, chan)
    }
}

impl Default for AluSrc {
    /// The all-zero encoding: `R0.x`.
    fn default() -> Self {
        AluSrc::gpr(Gpr::R0, Chan::X)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_fields_round_trip() {
        for raw in 0..32 {
            assert_eq!(TexOffset::from_field(raw).field(), raw);
        }
        assert_eq!(TexOffset::from_field(0x1E).get(), -2);
        for raw in 0..128 {
            assert_eq!(LodBias::from_field(raw).field(), raw);
        }
        assert_eq!(LodBias::from_field(0x40).raw(), -64);
        assert_eq!(LodBias::new(-16).map(LodBias::value), Some(-1.0));
    }

    #[test]
    fn counts_are_stored_minus_one() {
        assert_eq!(FetchCount::from_field(0).get(), 1);
        assert_eq!(FetchCount::from_field(15).get(), 16);
        assert_eq!(AluSlotCount::from_field(127).get(), 128);
        assert_eq!(BurstCount::new(3).map(BurstCount::field), Some(2));
        assert!(FetchCount::new(0).is_none() && FetchCount::new(17).is_none());
    }

    #[test]
    fn source_selects_round_trip() {
        for code in 0..512 {
            match AluSrcSel::from_code(code) {
                Ok(sel) => assert_eq!(sel.code(), code),
                Err(_) => assert!((192..244).contains(&code), "{code}"),
            }
        }
    }
}
