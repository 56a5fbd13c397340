//! The naming plumbing of hardware-rule validators: the
//! [`rules!`](crate::rules) table macro (one row per rule with the manual
//! section it comes from) and [`kebab_case`], which turns a rule's variant
//! name into the name printed in internal errors (`PresubtractNop` →
//! `presubtract-nop`).

/// The kebab-case spelling of a Rust identifier in CamelCase:
/// `GprReadPort` → `gpr-read-port`.
pub fn kebab_case(ident: &str) -> String {
    let mut out = String::with_capacity(ident.len() + 4);
    for (i, c) in ident.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Generates a validator's rule enumeration from one row per rule:
/// `Variant => "manual section"`, each row documented with what the rule
/// says.
///
/// Generated: the enum (`Copy`, `Eq`, `Hash`, `Ord`, `Debug`), `ALL` (every
/// rule in declaration order), `section()` (the manual section),
/// `name()` (kebab case, [`kebab_case`](crate::kebab_case)) and `Display`
/// (`name (section)`).
///
/// ```
/// ctm_isa_kit::rules! {
///     /// Demo rules.
///     pub enum Rule {
///         /// §1: at most one thing.
///         OneThing => "§1",
///         /// §2: things in order.
///         ThingOrder => "§2",
///     }
/// }
/// assert_eq!(Rule::ALL.len(), 2);
/// assert_eq!(Rule::ThingOrder.to_string(), "thing-order (§2)");
/// ```
#[macro_export]
macro_rules! rules {
    (
        $(#[$doc:meta])*
        pub enum $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident => $section:literal ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vdoc])* $variant, )*
        }

        impl $name {
            /// Every rule, in declaration order.
            pub const ALL: &'static [$name] = &[$( $name::$variant, )*];

            /// The manual section the rule comes from.
            pub const fn section(self) -> &'static str {
                match self {
                    $( $name::$variant => $section, )*
                }
            }

            /// The rule's name in kebab case (`presubtract-nop`).
            pub fn name(self) -> ::std::string::String {
                $crate::kebab_case(match self {
                    $( $name::$variant => stringify!($variant), )*
                })
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{} ({})", self.name(), self.section())
            }
        }
    };
}

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    use super::kebab_case;

    crate::rules! {
        /// Test rules.
        pub enum Demo {
            /// First.
            PresubtractNop => "CTM §3.3.2",
            /// Second.
            A => "x",
        }
    }

    #[test]
    fn names() {
        assert_eq!(kebab_case("GprReadPort"), "gpr-read-port");
        assert_eq!(kebab_case("A"), "a");
        assert_eq!(kebab_case("already-kebab"), "already-kebab");
        assert_eq!(Demo::PresubtractNop.name(), "presubtract-nop");
        assert_eq!(Demo::ALL, &[Demo::PresubtractNop, Demo::A]);
        assert_eq!(
            Demo::PresubtractNop.to_string(),
            "presubtract-nop (CTM §3.3.2)"
        );
        assert_eq!(Demo::A.section(), "x");
    }
}
