//! The Conditional Operation Unit's settings and test (CTM §2.1.3,
//! §2.2.3).
//!
//! The CO evaluates `v op b` for a client's conditional value `v` and the
//! conditional buffer's value `b` at the client's (i, j); if the test passes
//! it also writes `v` to the buffer (subject to `set_cond_out_mask`).
//! `set_cond_loc` chooses the client whose requests are tested: the PE
//! (conditional execution: a failing pair is never scheduled) or the DPP
//! (conditional output: a failing element's output writes are dropped).
//! Requests from the other client are answered "true" without a test, and
//! so, in this model, without a buffer access (`docs/ctm-device.md` §6).
//!
//! Values: the conditional buffer element is read through the MC like any
//! other (its data format), and `b` is its channel 0; `v` is an f32 (the
//! `set_cond_val` word's bits, or the value a program exports with
//! `W_OMASK`). The comparisons are IEEE: with a NaN operand every test but
//! `NotEqual` (and `Always`) fails.

use std::fmt;

/// The test condition (`set_cond_test` parameter bits 2:0, CTM §2.2.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum CondTest {
    /// 0 - Never (always false).
    Never,
    /// 1 - Less (true if client value is less than buffer value).
    Less,
    /// 2 - Less or Equal.
    LessEqual,
    /// 3 - Equal.
    Equal,
    /// 4 - Greater or Equal.
    GreaterEqual,
    /// 5 - Greater.
    Greater,
    /// 6 - Not Equal.
    NotEqual,
    /// 7 - Always (always true).
    #[default]
    Always,
}

impl CondTest {
    /// Every test, in code order.
    pub const ALL: [CondTest; 8] = [
        CondTest::Never,
        CondTest::Less,
        CondTest::LessEqual,
        CondTest::Equal,
        CondTest::GreaterEqual,
        CondTest::Greater,
        CondTest::NotEqual,
        CondTest::Always,
    ];

    /// The 3-bit code.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The test of a 3-bit code (all eight are defined).
    pub const fn from_code(code: u32) -> Self {
        Self::ALL[(code & 7) as usize]
    }

    /// Whether the test compares against the conditional buffer (so the CO
    /// must read it).
    pub const fn reads_buffer(self) -> bool {
        !matches!(self, CondTest::Never | CondTest::Always)
    }

    /// `v op b`.
    pub fn evaluate(self, v: f32, b: f32) -> bool {
        match self {
            CondTest::Never => false,
            CondTest::Less => v < b,
            CondTest::LessEqual => v <= b,
            CondTest::Equal => v == b,
            CondTest::GreaterEqual => v >= b,
            CondTest::Greater => v > b,
            CondTest::NotEqual => v != b,
            CondTest::Always => true,
        }
    }
}

impl fmt::Display for CondTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CondTest::Never => "never",
            CondTest::Less => "less",
            CondTest::LessEqual => "less_equal",
            CondTest::Equal => "equal",
            CondTest::GreaterEqual => "greater_equal",
            CondTest::Greater => "greater",
            CondTest::NotEqual => "not_equal",
            CondTest::Always => "always",
        })
    }
}

/// Where the conditional test is performed (`set_cond_loc` bit 0, CTM §2.2.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum CondLocation {
    /// 0 - DPP: conditional output.
    #[default]
    Dpp,
    /// 1 - PE: conditional execution.
    Pe,
}

impl CondLocation {
    /// The 1-bit code.
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The location of a 1-bit code.
    pub const fn from_code(code: u32) -> Self {
        if code & 1 == 0 {
            CondLocation::Dpp
        } else {
            CondLocation::Pe
        }
    }
}

/// Whether the CO writes passing values to the conditional buffer
/// (`set_cond_out_mask` bit 0, CTM §2.2.2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum CondWrite {
    /// 0: the buffer is not written.
    #[default]
    Disabled,
    /// 1: a passing test writes the client value.
    Enabled,
}

/// The CO's state.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct ConditionalUnit {
    /// The current test (reset: `Always`).
    pub test: CondTest,
    /// The current location (reset: DPP).
    pub location: CondLocation,
    /// The PE's conditional value, `set_cond_val`'s word (reset: 0).
    pub value_bits: u32,
}

impl ConditionalUnit {
    /// The PE's conditional value as an f32.
    pub fn pe_value(&self) -> f32 {
        f32::from_bits(self.value_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for t in CondTest::ALL {
            assert_eq!(CondTest::from_code(t.code()), t);
        }
        assert_eq!(CondTest::from_code(6), CondTest::NotEqual);
        assert_eq!(CondLocation::from_code(1), CondLocation::Pe);
    }

    #[test]
    fn nan_fails_ordered_tests() {
        for t in CondTest::ALL {
            let expect = matches!(t, CondTest::NotEqual | CondTest::Always);
            assert_eq!(t.evaluate(f32::NAN, 1.0), expect, "{t}");
        }
    }
}
