//! [`Uniform`]: a uniform argument of a runtime launch, checked against
//! its parameter's type and converted to the driver's [`UniformValue`].

use super::Error;
use ctm_frontend::data::UniformValue;
use ctm_frontend::types::{ScalarOrVector, Type};
use ctm_frontend::value::Value;

/// The value of a uniform, by shape; [`Program::launch`](super::Program::launch)
/// checks it against the parameter's type (spec §3): `f32`, `i32`,
/// `bool`; `[f32; 2..=4]` for `vec2..vec4`, `[f32; 16]` for `mat4`
/// (column-major) and `[f32; N]` for `[f32; N]`; `[i32; N]`;
/// `[[f32; K]; N]` for `[vecK; N]`.
///
/// ```
/// use ctm::Uniform;
/// assert_eq!(Uniform::from(2.0f32), Uniform::F32(2.0));
/// assert_eq!(Uniform::from([1.0f32, 2.0]), Uniform::Floats(vec![1.0, 2.0]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Uniform {
    /// An `f32`.
    F32(f32),
    /// An `i32`.
    I32(i32),
    /// A `bool`.
    Bool(bool),
    /// Floats: a vector, a `mat4` or an `[f32; N]` array.
    Floats(Vec<f32>),
    /// An `[i32; N]` array.
    Ints(Vec<i32>),
    /// An array of `width`-lane vectors, flattened.
    Vectors {
        /// Lanes per element (2 or 4).
        width: usize,
        /// The lanes, element after element.
        data: Vec<f32>,
    },
}

impl From<f32> for Uniform {
    fn from(x: f32) -> Uniform {
        Uniform::F32(x)
    }
}
impl From<i32> for Uniform {
    fn from(x: i32) -> Uniform {
        Uniform::I32(x)
    }
}
impl From<bool> for Uniform {
    fn from(x: bool) -> Uniform {
        Uniform::Bool(x)
    }
}
impl<const N: usize> From<[f32; N]> for Uniform {
    fn from(x: [f32; N]) -> Uniform {
        Uniform::Floats(x.to_vec())
    }
}
impl<const N: usize> From<[i32; N]> for Uniform {
    fn from(x: [i32; N]) -> Uniform {
        Uniform::Ints(x.to_vec())
    }
}
impl<const K: usize, const N: usize> From<[[f32; K]; N]> for Uniform {
    fn from(x: [[f32; K]; N]) -> Uniform {
        Uniform::Vectors {
            width: K,
            data: x.iter().flatten().copied().collect(),
        }
    }
}

impl Uniform {
    fn describe(&self) -> String {
        match self {
            Uniform::F32(_) => "f32".into(),
            Uniform::I32(_) => "i32".into(),
            Uniform::Bool(_) => "bool".into(),
            Uniform::Floats(v) => format!("[f32; {}]", v.len()),
            Uniform::Ints(v) => format!("[i32; {}]", v.len()),
            Uniform::Vectors { width, data } => {
                format!("[[f32; {width}]; {}]", data.len() / (*width).max(1))
            }
        }
    }

    /// The value for a parameter `name` of type `ty`.
    ///
    /// # Errors
    /// [`Error::ArgumentType`] when the shapes differ.
    pub(crate) fn to_value(&self, name: &str, ty: Type) -> Result<UniformValue, Error> {
        let value = match (self, ty) {
            (Uniform::F32(x), Type::F32) => Some(UniformValue::Value(Value::f32(*x))),
            (Uniform::I32(x), Type::I32) => Some(UniformValue::Value(Value::I32(*x))),
            (Uniform::Bool(x), Type::Bool) => Some(UniformValue::Value(Value::Bool(*x))),
            (Uniform::Floats(v), Type::Vec2 | Type::Vec3 | Type::Vec4)
                if Some(v.len() as u8) == ty.float_width() =>
            {
                Some(UniformValue::Value(Value::floats(v)))
            }
            (Uniform::Floats(v), Type::Mat4) => <[f32; 16]>::try_from(v.as_slice())
                .ok()
                .map(UniformValue::Mat4),
            (Uniform::Floats(v), Type::Array(a))
                if a.elem == ScalarOrVector::F32 && v.len() == a.len as usize =>
            {
                Some(UniformValue::Array(
                    v.iter().map(|x| Value::f32(*x)).collect(),
                ))
            }
            (Uniform::Ints(v), Type::Array(a))
                if a.elem == ScalarOrVector::I32 && v.len() == a.len as usize =>
            {
                Some(UniformValue::Array(
                    v.iter().map(|x| Value::I32(*x)).collect(),
                ))
            }
            (Uniform::Vectors { width, data }, Type::Array(a)) => {
                let lanes = match a.elem {
                    ScalarOrVector::Vec2 => 2,
                    ScalarOrVector::Vec4 => 4,
                    _ => 0,
                };
                (lanes == *width && data.len() == lanes * a.len as usize).then(|| {
                    UniformValue::Array(data.chunks_exact(lanes).map(Value::floats).collect())
                })
            }
            _ => None,
        };
        value.ok_or_else(|| Error::ArgumentType {
            name: name.to_string(),
            expected: ty.to_string(),
            found: self.describe(),
        })
    }
}
