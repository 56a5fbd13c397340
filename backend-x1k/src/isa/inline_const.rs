//! Inline constants: the 7-bit unsigned float a source address can hold
//! instead of a register (`x1k-encoding.md` §3.1, CTM guide §3.3.1).
//!
//! Format: exponent `e` = bits 6:3 (bias 7), mantissa `m` = bits 2:0.
//!
//! | e | value |
//! |---|---|
//! | 1..=15 | (1 + m/8) · 2^(e−7) — 2^-6 ..= 480 |
//! | 0, m > 0 | denormal m · 2^-9 (CTM: 0x01 = 2^-9, 0x02 = 2^-8, 0x04 = 2^-7) |
//! | 0, m = 0 | **2^-10**, not zero (CTM: "the bit pattern 0x0 represents 2^-10") |
//!
//! [`inline_constant_value`] decodes every code exactly per the CTM table
//! (the manual is the authority). [`inline_constant_code`], which the
//! compiler uses to *choose* an inline constant, only returns codes with
//! exponent field 1..=15: the exponent-0 codes are the one place where the
//! sources disagree (Mesa's converter treats e = 0 as a normal exponent and
//! would encode 2^-7 as 0x00, which the CTM guide says reads as 2^-10), no
//! hardware-verified binary uses them as values, and the values they stand
//! for (≤ 7·2^-9) are rare enough that a constant register costs nothing.
//! See `docs/isa-x1k.md` "Inline constants with exponent 0". The assembler
//! accepts all 128 codes ([`InlineConst::from_value`]).

use std::fmt;

/// A 7-bit inline-constant code (0..=127).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct InlineConst(u8);

impl InlineConst {
    /// Code 0: 2^-10, also the encoding of an unused source.
    pub const CODE_0: InlineConst = InlineConst(0);

    /// `Some` if `code <= 127`.
    pub const fn new(code: u32) -> Option<Self> {
        if code <= 127 {
            Some(InlineConst(code as u8))
        } else {
            None
        }
    }

    pub(crate) const fn from_code_masked(code: u32) -> Self {
        InlineConst((code & 0x7F) as u8)
    }

    /// The 7-bit code.
    pub const fn code(self) -> u8 {
        self.0
    }

    /// The value the hardware reads (CTM §3.3.1).
    pub fn value(self) -> f32 {
        inline_constant_value(self.0)
    }

    /// The code whose value is exactly `value`, among all 128 codes
    /// (exponent-0 codes included). This is the assembler's rule; compilers
    /// should use [`inline_constant_code`].
    pub fn from_value(value: f32) -> Option<Self> {
        (0u8..=127)
            .map(InlineConst)
            .find(|k| k.value().to_bits() == value.to_bits())
    }
}

impl fmt::Debug for InlineConst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "InlineConst({:#04x} = {})", self.0, self.value())
    }
}

impl fmt::Display for InlineConst {
    /// The value as an assembly literal: always with a `.` so it cannot be
    /// mistaken for an integer (`1.0`, `0.5`, `480.0`, `0.0009765625`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}", self.value());
        if text.contains('.') {
            f.write_str(&text)
        } else {
            write!(f, "{text}.0")
        }
    }
}

/// The value of inline-constant `code` (only bits 6:0 are looked at),
/// exactly per the CTM guide §3.3.1 table.
pub fn inline_constant_value(code: u8) -> f32 {
    let exponent = i32::from((code >> 3) & 0xF);
    let mantissa = f32::from(code & 0x7);
    match (exponent, code & 0x7) {
        // CTM §3.3.1: "the bit pattern 0x0 represents 2^-10, rather than zero".
        (0, 0) => 2f32.powi(-10),
        // Denormal: m · 2^-9 (0x01 = 2^-9, 0x02 = 2^-8, 0x04 = 2^-7).
        (0, _) => mantissa * 2f32.powi(-9),
        _ => (1.0 + mantissa / 8.0) * 2f32.powi(exponent - 7),
    }
}

/// The inline-constant code representing exactly `value`, if any, under
/// ctm's compiler rule: exponent field 1..=15 only (values 2^-6 ..= 480 with
/// at most 4 significant bits). Negative values, zero, NaN and infinities
/// have no code (negation and 0 come from input modifiers and swizzles).
pub fn inline_constant_code(value: f32) -> Option<u8> {
    if !(value.is_finite() && value > 0.0) {
        return None;
    }
    let bits = value.to_bits();
    let biased = (bits >> 23) & 0xFF;
    let fraction = bits & 0x007F_FFFF;
    // Only the top 3 fraction bits may be set.
    if fraction & 0x000F_FFFF != 0 {
        return None;
    }
    // IEEE exponent e - 127 must be in -6..=8, i.e. code exponent 1..=15.
    let code_exponent = biased as i32 - 127 + 7;
    if !(1..=15).contains(&code_exponent) {
        return None;
    }
    Some(((code_exponent as u8) << 3) | (fraction >> 20) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctm_table() {
        let cases: [(u8, f32); 12] = [
            (0x30, 0.5),
            (0x38, 1.0),
            (0x40, 2.0),
            (0x48, 4.0),
            (0x78, 256.0),
            (0x7F, 480.0),
            (0x08, 2f32.powi(-6)),
            (0x01, 2f32.powi(-9)),
            (0x02, 2f32.powi(-8)),
            (0x04, 2f32.powi(-7)),
            (0x00, 2f32.powi(-10)),
            (0x3C, 1.5),
        ];
        for (code, value) in cases {
            assert_eq!(inline_constant_value(code), value, "code {code:#04x}");
        }
    }

    #[test]
    fn all_values_distinct() {
        for a in 0..128u8 {
            for b in (a + 1)..128u8 {
                assert_ne!(inline_constant_value(a), inline_constant_value(b));
            }
        }
    }

    #[test]
    fn code_of_value_inverts_for_normal_codes() {
        for code in 0..128u8 {
            let v = inline_constant_value(code);
            if code >> 3 == 0 {
                assert_eq!(inline_constant_code(v), None, "exponent-0 code {code:#04x}");
            } else {
                assert_eq!(inline_constant_code(v), Some(code));
            }
            assert_eq!(
                InlineConst::from_value(v).map(InlineConst::code),
                Some(code)
            );
        }
    }

    #[test]
    fn values_without_codes() {
        for v in [
            0.0,
            -0.0,
            -1.0,
            3.3,
            512.0,
            496.0,
            f32::NAN,
            f32::INFINITY,
            1.0625,
            2f32.powi(-11),
        ] {
            assert_eq!(inline_constant_code(v), None, "{v}");
        }
    }

    #[test]
    fn display_is_a_float_literal() {
        assert_eq!(InlineConst(0x38).to_string(), "1.0");
        assert_eq!(InlineConst(0x7F).to_string(), "480.0");
        assert_eq!(InlineConst(0x30).to_string(), "0.5");
        assert_eq!(InlineConst(0).to_string(), "0.0009765625");
    }
}
