//! Range-limited operand numbers: [`bounded!`](macro@crate::bounded) (a value
//! `0..=MAX`) and [`count!`](macro@crate::count) (a count `1..=MAX` stored in its
//! field as `count − 1`). A type made here can only hold what its field
//! encodes, so encoding never fails and never truncates.

/// Defines unsigned newtypes limited to `0..=MAX`.
///
/// A row is `Name(repr) max MAX;` or `Name(repr) max MAX, prefix "r";`.
/// With a prefix, `Display` and `Debug` print `r5`; without, `Display`
/// prints `5` and `Debug` prints `Name(5)`. Generated: `MAX`, `new` (`None`
/// above `MAX`), `get`, and the crate-private `from_field` (masks to `MAX`:
/// only for fields exactly `MAX + 1` values wide).
///
/// ```
/// ctm_isa_kit::bounded! {
///     /// A register `r0..r127`.
///     Reg(u8) max 127, prefix "r";
///     /// A bank 0..=15.
///     Bank(u8) max 15;
/// }
/// assert_eq!(Reg::new(127).map(|r| r.to_string()), Some("r127".to_string()));
/// assert_eq!(Reg::new(128), None);
/// assert_eq!(format!("{:?}", Bank::new(3).unwrap()), "Bank(3)");
/// ```
#[macro_export]
macro_rules! bounded {
    ($(
        $(#[$doc:meta])*
        $name:ident($repr:ty) max $max:literal $(, prefix $prefix:literal)?;
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name($repr);

        impl $name {
            /// The largest valid value.
            pub const MAX: $repr = $max;

            /// `Some` if `value <= MAX`.
            pub const fn new(value: u32) -> ::core::option::Option<Self> {
                if value <= $max as u32 {
                    ::core::option::Option::Some($name(value as $repr))
                } else {
                    ::core::option::Option::None
                }
            }

            /// Build from a raw field value, masking to `MAX`. Only for
            /// fields exactly `MAX + 1` values wide.
            #[allow(dead_code)]
            pub(crate) const fn from_field(value: u32) -> Self {
                $name((value & $max as u32) as $repr)
            }

            /// The value.
            pub const fn get(self) -> u32 {
                self.0 as u32
            }
        }

        $crate::bounded!(@fmt $name $(, $prefix)?);
    )*};
    (@fmt $name:ident, $prefix:literal) => {
        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
    (@fmt $name:ident) => {
        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0).finish()
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

/// Defines count newtypes stored as the real count `1..=MAX` and encoded
/// as `count − 1` (clause sizes, burst counts). `MAX` must be a power of
/// two (the field is exactly `MAX` values wide).
///
/// ```
/// ctm_isa_kit::count! {
///     /// 1..=16 things.
///     Things max 16;
/// }
/// assert_eq!(Things::new(16).map(Things::field), Some(15));
/// assert_eq!(Things::new(0), None);
/// assert_eq!(Things::default(), Things::ONE);
/// ```
#[macro_export]
macro_rules! count {
    ($(
        $(#[$doc:meta])*
        $name:ident max $max:literal;
    )*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(u8);

        impl $name {
            /// The largest valid count.
            pub const MAX: u32 = $max;
            /// A count of one.
            pub const ONE: $name = $name(1);

            /// `Some` if `1 <= count <= MAX`.
            pub const fn new(count: u32) -> ::core::option::Option<Self> {
                if count >= 1 && count <= $max {
                    ::core::option::Option::Some($name(count as u8))
                } else {
                    ::core::option::Option::None
                }
            }

            /// From the field value (`count − 1`), masked to the field width.
            #[allow(dead_code)]
            pub(crate) const fn from_field(value: u32) -> Self {
                $name(((value & ($max - 1)) + 1) as u8)
            }

            /// The count.
            pub const fn get(self) -> u32 {
                self.0 as u32
            }

            /// The field value, `count − 1`.
            pub const fn field(self) -> u32 {
                self.0 as u32 - 1
            }
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                Self::ONE
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    )*};
}

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    crate::bounded! {
        /// Prefixed.
        Reg(u8) max 127, prefix "r";
        /// Wide.
        Slot(u16) max 511;
    }
    crate::count! {
        /// A count.
        Burst max 16;
    }

    #[test]
    fn bounded_edges() {
        assert_eq!(Reg::new(127).map(Reg::get), Some(127));
        assert_eq!(Reg::new(128), None);
        assert_eq!(Reg::new(u32::MAX), None);
        assert_eq!(Slot::new(511).map(Slot::get), Some(511));
        assert_eq!(Slot::new(512), None);
        assert_eq!(Reg::from_field(0xff).get(), 127);
        assert_eq!(
            format!("{:?} {}", Reg::new(5).unwrap(), Reg::new(5).unwrap()),
            "r5 r5"
        );
        assert_eq!(
            format!("{:?} {}", Slot::new(7).unwrap(), Slot::new(7).unwrap()),
            "Slot(7) 7"
        );
    }

    #[test]
    fn count_edges() {
        assert_eq!(Burst::new(0), None);
        assert_eq!(Burst::new(17), None);
        assert_eq!(Burst::new(1), Some(Burst::ONE));
        assert_eq!(Burst::new(16).map(Burst::field), Some(15));
        assert_eq!(Burst::from_field(15).get(), 16);
        assert_eq!(Burst::from_field(16).get(), 1);
    }
}
