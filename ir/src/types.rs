//! Types of IR values.

use std::fmt;

/// The type of an IR value: a value type of the language, or the state
/// token that orders side effects.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `f32` (width 1) or `vecN` (width N).
    Float(u8),
    /// The state token threaded through side effects (scatter writes).
    State,
}

impl Ty {
    /// `f32`.
    pub const F32: Ty = Ty::Float(1);

    /// Lanes of a float type.
    pub fn width(self) -> Option<u8> {
        match self {
            Ty::Float(w) => Some(w),
            _ => None,
        }
    }

    /// `true` for `f32` and vectors.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::Float(_))
    }

    /// The IR type of a language value type (`None` for `()`, `mat4`,
    /// arrays).
    pub fn from_type(t: ctm_frontend::types::Type) -> Option<Ty> {
        use ctm_frontend::types::Type;
        Some(match t {
            Type::Bool => Ty::Bool,
            Type::I32 => Ty::I32,
            t => Ty::Float(t.float_width()?),
        })
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bool => f.write_str("bool"),
            Ty::I32 => f.write_str("i32"),
            Ty::Float(1) => f.write_str("f32"),
            Ty::Float(w) => write!(f, "vec{w}"),
            Ty::State => f.write_str("state"),
        }
    }
}
