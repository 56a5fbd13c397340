//! Enumerated field values: the [`isa_enum!`](macro@crate::isa_enum) table macro
//! and the [`UnknownCode`] error every generated `TryFrom<u32>` returns.

/// A field held a code that names no value of its enumeration.
#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
#[error("{value} is not a defined {enumeration} code")]
pub struct UnknownCode {
    /// The Rust enumeration, e.g. `"RgbOp"`.
    pub enumeration: &'static str,
    /// The code found.
    pub value: u32,
}

/// Generates field enumerations from one row per value:
/// `Variant = code => "spelling"`.
///
/// Per enumeration: a `#[repr(u8)]` enum with the codes as discriminants,
/// `ALL` (every defined value in code order, for golden tests and proptest
/// strategies), `COUNT`, `code()`, `mnemonic()`, `from_mnemonic()` (exact
/// spelling), `Display` (the spelling) and `TryFrom<u32>` whose error for an
/// undefined code is [`UnknownCode`] (style §3: "an unknown value is a
/// decode error, never a default").
///
/// ```
/// ctm_isa_kit::isa_enum! {
///     /// A two-value field.
///     pub enum Mode {
///         /// Off.
///         Off = 0 => "off",
///         /// On.
///         On = 2 => "on",
///     }
/// }
/// assert_eq!(Mode::try_from(2), Ok(Mode::On));
/// assert!(Mode::try_from(1).is_err());
/// assert_eq!(Mode::ALL, &[Mode::Off, Mode::On]);
/// assert_eq!(Mode::from_mnemonic("on"), Some(Mode::On));
/// assert_eq!(Mode::On.to_string(), "on");
/// ```
#[macro_export]
macro_rules! isa_enum {
    ($(
        $(#[$doc:meta])*
        pub enum $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident = $code:literal => $mnem:literal ),* $(,)?
        }
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vdoc])* $variant = $code, )*
        }

        impl $name {
            /// Every defined value, in code order.
            pub const ALL: &'static [$name] = &[$( $name::$variant, )*];
            /// Number of defined values.
            pub const COUNT: usize = Self::ALL.len();

            /// The numeric code written to the field.
            pub const fn code(self) -> u32 {
                self as u32
            }

            /// The assembly spelling.
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $( $name::$variant => $mnem, )*
                }
            }

            /// Parse the assembly spelling (exact).
            pub fn from_mnemonic(text: &str) -> ::core::option::Option<Self> {
                match text {
                    $( $mnem => ::core::option::Option::Some($name::$variant), )*
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::convert::TryFrom<u32> for $name {
            type Error = $crate::UnknownCode;
            fn try_from(value: u32) -> ::core::result::Result<Self, $crate::UnknownCode> {
                match value {
                    $( $code => ::core::result::Result::Ok($name::$variant), )*
                    _ => ::core::result::Result::Err($crate::UnknownCode {
                        enumeration: stringify!($name),
                        value,
                    }),
                }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.mnemonic())
            }
        }
    )*};
}

/// Generates an opcode enumeration (through [`isa_enum!`](macro@crate::isa_enum))
/// whose rows also carry the opcode's static facts, as a struct literal of
/// the named facts type: `Variant = code => "spelling" { field: value, ... }`.
///
/// Besides everything `isa_enum!` generates, `facts()` returns the row's
/// facts (a `&'static` constant), so every consumer (encoder, decoder,
/// disassembler, validator, simulator) reads one definition (style §3).
///
/// ```
/// pub struct OpFacts {
///     /// Inputs read.
///     pub inputs: u8,
/// }
/// ctm_isa_kit::isa_ops! {
///     /// Demo opcodes.
///     pub enum Op facts OpFacts {
///         /// Negate.
///         Neg = 0 => "neg" { inputs: 1 },
///         /// Add.
///         Add = 1 => "add" { inputs: 2 },
///     }
/// }
/// assert_eq!(Op::Add.facts().inputs, 2);
/// assert_eq!(Op::try_from(0), Ok(Op::Neg));
/// ```
#[macro_export]
macro_rules! isa_ops {
    (
        $(#[$doc:meta])*
        pub enum $name:ident facts $facts:ident {
            $(
                $(#[$vdoc:meta])*
                $variant:ident = $code:literal => $mnem:literal {
                    $( $fact:ident : $value:expr ),* $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $crate::isa_enum! {
            $(#[$doc])*
            pub enum $name {
                $( $(#[$vdoc])* $variant = $code => $mnem, )*
            }
        }

        impl $name {
            /// The opcode's static facts (its row of the opcode table).
            pub const fn facts(self) -> &'static $facts {
                match self {
                    $( $name::$variant => const { &$facts { $( $fact: $value, )* } }, )*
                }
            }
        }
    };
}

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    crate::isa_enum! {
        /// Test enumeration with a gap.
        pub enum Gap {
            /// Zero.
            A = 0 => "a",
            /// Three.
            B = 3 => "b",
        }
    }

    #[test]
    fn undefined_codes_are_errors_naming_the_enumeration() {
        for code in [1, 2, 4, 255, 256, u32::MAX] {
            assert_eq!(
                Gap::try_from(code),
                Err(crate::UnknownCode {
                    enumeration: "Gap",
                    value: code
                })
            );
        }
        assert_eq!(
            Gap::try_from(7).unwrap_err().to_string(),
            "7 is not a defined Gap code"
        );
    }

    #[test]
    fn every_value_round_trips() {
        assert_eq!(Gap::COUNT, 2);
        for v in Gap::ALL {
            assert_eq!(Gap::try_from(v.code()), Ok(*v));
            assert_eq!(Gap::from_mnemonic(v.mnemonic()), Some(*v));
            assert_eq!(v.to_string(), v.mnemonic());
        }
        assert_eq!(Gap::from_mnemonic("A"), None);
    }
}
