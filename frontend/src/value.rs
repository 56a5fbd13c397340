//! Run-time and compile-time values of the language.

use crate::types::Type;
use std::fmt;

/// A value of a value type: what locals hold and expressions produce.
#[derive(Clone, Copy, PartialEq)]
pub enum Value {
    /// The value of statements.
    Unit,
    /// A `bool`.
    Bool(bool),
    /// An `i32`.
    I32(i32),
    /// An `f32` (`width` 1) or a `vecN` (`width` N); lanes at and above
    /// `width` are zero.
    Float {
        /// The lanes.
        lanes: [f32; 4],
        /// How many lanes are meaningful, 1..=4.
        width: u8,
    },
}

impl Value {
    /// An `f32`.
    pub fn f32(x: f32) -> Value {
        Value::Float {
            lanes: [x, 0.0, 0.0, 0.0],
            width: 1,
        }
    }

    /// A float value of `lanes.len()` lanes (1..=4).
    ///
    /// # Panics
    /// If `lanes` is empty or longer than 4.
    pub fn floats(lanes: &[f32]) -> Value {
        assert!(!lanes.is_empty() && lanes.len() <= 4);
        let mut l = [0.0; 4];
        l[..lanes.len()].copy_from_slice(lanes);
        Value::Float {
            lanes: l,
            width: lanes.len() as u8,
        }
    }

    /// The zero value of a value type (`false` for `bool`).
    pub fn zero(ty: Type) -> Value {
        match ty {
            Type::Bool => Value::Bool(false),
            Type::I32 => Value::I32(0),
            t => match t.float_width() {
                Some(w) => Value::Float {
                    lanes: [0.0; 4],
                    width: w,
                },
                None => Value::Unit,
            },
        }
    }

    /// The value's type.
    pub fn ty(&self) -> Type {
        match self {
            Value::Unit => Type::Unit,
            Value::Bool(_) => Type::Bool,
            Value::I32(_) => Type::I32,
            Value::Float { width, .. } => Type::float((*width).clamp(1, 4)),
        }
    }

    /// The meaningful lanes of a float value (empty for other values).
    pub fn lanes(&self) -> &[f32] {
        match self {
            Value::Float { lanes, width } => &lanes[..(*width as usize).min(4)],
            _ => &[],
        }
    }

    /// Lane 0 of a float value, 0.0 for others.
    pub fn as_f32(&self) -> f32 {
        match self {
            Value::Float { lanes, .. } => lanes[0],
            _ => 0.0,
        }
    }

    /// The `i32` held, 0 for other values.
    pub fn as_i32(&self) -> i32 {
        match self {
            Value::I32(v) => *v,
            _ => 0,
        }
    }

    /// The `bool` held, `false` for other values.
    pub fn as_bool(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// Bitwise identity (NaN payloads and the sign of zero included).
    pub fn bit_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (
                Value::Float {
                    lanes: a,
                    width: wa,
                },
                Value::Float {
                    lanes: b,
                    width: wb,
                },
            ) => {
                wa == wb
                    && a[..(*wa as usize).min(4)]
                        .iter()
                        .zip(&b[..(*wb as usize).min(4)])
                        .all(|(x, y)| x.to_bits() == y.to_bits())
            }
            _ => self == other,
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Prints a value as source would write it: `1.5`, `vec3(1.0, 2.0, 3.0)`,
/// `7`, `true`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unit => f.write_str("()"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::Float { lanes, width } => {
                let width = (*width).clamp(1, 4);
                if width == 1 {
                    return write!(f, "{}", FloatLit(lanes[0]));
                }
                write!(f, "vec{width}(")?;
                for (i, x) in lanes[..width as usize].iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", FloatLit(*x))?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Formats an f32 so that it reads back as the same value and always looks
/// like a float literal (`1.0`, not `1`).
pub struct FloatLit(pub f32);

impl fmt::Display for FloatLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x.is_nan() {
            f.write_str("NaN")
        } else if x.is_infinite() {
            f.write_str(if x > 0.0 { "inf" } else { "-inf" })
        } else {
            let s = format!("{x:?}");
            f.write_str(&s)
        }
    }
}
