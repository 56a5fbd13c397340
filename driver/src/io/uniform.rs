//! Uniform values from the command line (`--uniform NAME=VALUE`, spec §9).
//!
//! - `f32`: a number (`2.5`, `2`, `-1e-3`, `inf`, `nan`); a finite number
//!   beyond the `f32` range is an error.
//! - `vec2`..`vec4`: exactly that many comma-separated numbers.
//! - `mat4`: 16 numbers, column-major (the order of the `mat4` memory).
//! - `[T; N]`: N elements' numbers in a row (`[vec4; 2]` takes 8).
//! - `i32`: decimal, `0x..`, `0o..` or `0b..` with optional sign and `_`
//!   separators; like source literals, a hexadecimal, octal or binary value
//!   up to `0xFFFFFFFF` is a two's-complement bit pattern. `2.0` is an
//!   error (no implicit conversions, as in the language).
//! - `bool`: `true` or `false`.
//!
//! Spaces around the commas are allowed, and the list may be enclosed in
//! `[..]` or `(..)`.

use ctm_frontend::data::UniformValue;
use ctm_frontend::types::{ScalarOrVector, Type};
use ctm_frontend::value::Value;

/// A `VALUE` that the uniform's type cannot take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum UniformError {
    /// No value at all.
    #[error("the value is empty; a `{ty}` needs {}", needs(*ty))]
    Empty {
        /// The uniform's type.
        ty: Type,
    },
    /// The wrong number of comma-separated values.
    #[error("a `{ty}` needs {}, found {found} value(s)", needs(*ty))]
    Count {
        /// The uniform's type.
        ty: Type,
        /// Values given.
        found: usize,
    },
    /// Not a float.
    #[error("`{text}` is not a number")]
    NotAFloat {
        /// The offending value.
        text: String,
    },
    /// A finite float beyond the range of `f32`.
    #[error("`{text}` is beyond the range of f32")]
    FloatRange {
        /// The offending value.
        text: String,
    },
    /// Not an integer.
    #[error("`{text}` is not an i32 (write an integer such as 7, -3 or 0x1F)")]
    NotAnInt {
        /// The offending value.
        text: String,
    },
    /// An integer that does not fit 32 bits.
    #[error("`{text}` does not fit an i32")]
    IntRange {
        /// The offending value.
        text: String,
    },
    /// Not `true`/`false`.
    #[error("`{text}` is not a bool (write true or false)")]
    NotABool {
        /// The offending value.
        text: String,
    },
    /// A type that uniforms cannot have.
    #[error("a uniform cannot have type `{ty}`")]
    Unsupported {
        /// The type.
        ty: Type,
    },
}

fn needs(ty: Type) -> String {
    match ty {
        Type::Bool => "true or false".into(),
        Type::I32 => "an integer".into(),
        Type::F32 => "a number".into(),
        Type::Vec2 | Type::Vec3 | Type::Vec4 => {
            format!("{} comma-separated numbers", ty.float_width().unwrap_or(0))
        }
        Type::Mat4 => "16 comma-separated numbers (column-major)".into(),
        Type::Array(a) => {
            let (per, what) = element_shape(a.elem);
            format!("{} comma-separated {what}", per * a.len as usize)
        }
        Type::Unit => "nothing".into(),
    }
}

/// Values per array element, and what they are called.
fn element_shape(elem: ScalarOrVector) -> (usize, &'static str) {
    match elem {
        ScalarOrVector::F32 => (1, "numbers"),
        ScalarOrVector::Vec2 => (2, "numbers"),
        ScalarOrVector::Vec4 => (4, "numbers"),
        ScalarOrVector::I32 => (1, "integers"),
    }
}

/// Parses one `f32`.
///
/// # Errors
/// [`UniformError::NotAFloat`] or [`UniformError::FloatRange`].
pub fn parse_f32(text: &str) -> Result<f32, UniformError> {
    let t = text.trim();
    let x: f32 = t.parse().map_err(|_| UniformError::NotAFloat {
        text: t.to_string(),
    })?;
    if x.is_infinite() && !spells_infinity(t) {
        return Err(UniformError::FloatRange {
            text: t.to_string(),
        });
    }
    Ok(x)
}

/// Whether `text` names an infinity (`inf`, `-infinity`, ...) rather than
/// a number too large for the type (`1e39`, `1e99999`: errors, issue 13).
pub fn spells_infinity(text: &str) -> bool {
    let t = text.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    t.eq_ignore_ascii_case("inf") || t.eq_ignore_ascii_case("infinity")
}

/// Parses one `i32` (see the module doc).
///
/// # Errors
/// [`UniformError::NotAnInt`] or [`UniformError::IntRange`].
pub fn parse_i32(text: &str) -> Result<i32, UniformError> {
    let t = text.trim();
    let not_int = || UniformError::NotAnInt {
        text: t.to_string(),
    };
    let range = || UniformError::IntRange {
        text: t.to_string(),
    };
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else {
        (10, lower.as_str())
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(not_int());
    }
    let magnitude = u64::from_str_radix(&digits, radix).map_err(|_| range())?;
    let value: i64 = if radix != 10 && !negative && magnitude <= u64::from(u32::MAX) {
        // A bit pattern, as hexadecimal source literals are.
        i64::from(magnitude as u32 as i32)
    } else if negative {
        -(i64::try_from(magnitude).map_err(|_| range())?)
    } else {
        i64::try_from(magnitude).map_err(|_| range())?
    };
    i32::try_from(value).map_err(|_| range())
}

/// Parses a `bool`.
///
/// # Errors
/// [`UniformError::NotABool`].
pub fn parse_bool(text: &str) -> Result<bool, UniformError> {
    match text.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        t => Err(UniformError::NotABool {
            text: t.to_string(),
        }),
    }
}

/// Splits a list on commas, after removing one pair of enclosing brackets.
fn split_list(text: &str) -> Vec<&str> {
    let t = text.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| t.strip_prefix('(').and_then(|r| r.strip_suffix(')')))
        .unwrap_or(t);
    t.split(',').map(str::trim).collect()
}

/// Parses `VALUE` for a uniform of type `ty`.
///
/// # Errors
/// [`UniformError`] saying what the type needs.
pub fn parse_uniform(ty: Type, text: &str) -> Result<UniformValue, UniformError> {
    if text.trim().is_empty() {
        return Err(UniformError::Empty { ty });
    }
    let parts = split_list(text);
    let count = |n: usize| {
        if parts.len() == n {
            Ok(())
        } else {
            Err(UniformError::Count {
                ty,
                found: parts.len(),
            })
        }
    };
    let floats = |parts: &[&str]| {
        parts
            .iter()
            .map(|p| parse_f32(p))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match ty {
        Type::Bool => {
            count(1)?;
            UniformValue::Value(Value::Bool(parse_bool(parts[0])?))
        }
        Type::I32 => {
            count(1)?;
            UniformValue::Value(Value::I32(parse_i32(parts[0])?))
        }
        Type::F32 | Type::Vec2 | Type::Vec3 | Type::Vec4 => {
            let width = ty.float_width().map_or(1, usize::from);
            count(width)?;
            UniformValue::Value(Value::floats(&floats(&parts)?))
        }
        Type::Mat4 => {
            count(16)?;
            let mut m = [0.0; 16];
            m.copy_from_slice(&floats(&parts)?);
            UniformValue::Mat4(m)
        }
        Type::Array(a) => {
            let (per, _) = element_shape(a.elem);
            count(per * a.len as usize)?;
            let elems = if a.elem == ScalarOrVector::I32 {
                parts
                    .iter()
                    .map(|p| parse_i32(p).map(Value::I32))
                    .collect::<Result<Vec<_>, _>>()?
            } else {
                floats(&parts)?.chunks(per).map(Value::floats).collect()
            };
            UniformValue::Array(elems)
        }
        Type::Unit => return Err(UniformError::Unsupported { ty }),
    })
}

/// The value of a uniform not given on the command line: zero, `false`,
/// zero vectors and matrices, arrays of zeros (spec §9).
pub fn zero_uniform(ty: Type) -> UniformValue {
    match ty {
        Type::Mat4 => UniformValue::Mat4([0.0; 16]),
        Type::Array(a) => UniformValue::Array(vec![Value::zero(a.elem.ty()); a.len as usize]),
        t => UniformValue::Value(Value::zero(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctm_frontend::types::ArrayType;

    fn value(ty: Type, text: &str) -> Value {
        match parse_uniform(ty, text).unwrap() {
            UniformValue::Value(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn scalars() {
        assert_eq!(value(Type::F32, "2.5"), Value::f32(2.5));
        assert_eq!(value(Type::F32, "2"), Value::f32(2.0));
        assert_eq!(value(Type::F32, " -1e-3 "), Value::f32(-1e-3));
        assert!(value(Type::F32, "nan").as_f32().is_nan());
        assert_eq!(value(Type::F32, "-inf"), Value::f32(f32::NEG_INFINITY));
        assert_eq!(value(Type::I32, "7"), Value::I32(7));
        assert_eq!(value(Type::I32, "-2147483648"), Value::I32(i32::MIN));
        assert_eq!(value(Type::I32, "0x1F"), Value::I32(31));
        assert_eq!(value(Type::I32, "0xFFFFFFFF"), Value::I32(-1));
        assert_eq!(value(Type::I32, "-0x10"), Value::I32(-16));
        assert_eq!(value(Type::I32, "0b101"), Value::I32(5));
        assert_eq!(value(Type::I32, "1_000"), Value::I32(1000));
        assert_eq!(value(Type::Bool, "true"), Value::Bool(true));
        assert_eq!(value(Type::Bool, "false"), Value::Bool(false));
    }

    #[test]
    fn scalar_errors() {
        let err = |ty, t| parse_uniform(ty, t).unwrap_err();
        assert!(matches!(
            err(Type::F32, "abc"),
            UniformError::NotAFloat { .. }
        ));
        for t in ["1e39", "1e99999", "-1e99999", "3.5e38"] {
            assert!(
                matches!(err(Type::F32, t), UniformError::FloatRange { .. }),
                "{t}"
            );
        }
        assert!(matches!(err(Type::F32, ""), UniformError::Empty { .. }));
        assert!(matches!(
            err(Type::F32, "1,2"),
            UniformError::Count { found: 2, .. }
        ));
        assert!(matches!(
            err(Type::I32, "2.0"),
            UniformError::NotAnInt { .. }
        ));
        assert!(matches!(
            err(Type::I32, "0x"),
            UniformError::NotAnInt { .. }
        ));
        assert!(matches!(
            err(Type::I32, "2147483648"),
            UniformError::IntRange { .. }
        ));
        assert!(matches!(
            err(Type::I32, "0x100000000"),
            UniformError::IntRange { .. }
        ));
        assert!(matches!(
            err(Type::I32, "-2147483649"),
            UniformError::IntRange { .. }
        ));
        assert!(matches!(
            err(Type::I32, "99999999999999999999999"),
            UniformError::IntRange { .. }
        ));
        assert!(matches!(
            err(Type::Bool, "1"),
            UniformError::NotABool { .. }
        ));
        assert!(matches!(
            err(Type::Bool, "True"),
            UniformError::NotABool { .. }
        ));
        assert!(matches!(
            err(Type::Unit, "1"),
            UniformError::Unsupported { .. }
        ));
    }

    #[test]
    fn vectors_matrices_arrays() {
        assert_eq!(
            value(Type::Vec4, "1,2,3,4"),
            Value::floats(&[1.0, 2.0, 3.0, 4.0])
        );
        assert_eq!(
            value(Type::Vec3, "[1, 2, 3]"),
            Value::floats(&[1.0, 2.0, 3.0])
        );
        assert_eq!(value(Type::Vec2, "(0.5,-1)"), Value::floats(&[0.5, -1.0]));
        let e = parse_uniform(Type::Vec4, "1,2,3").unwrap_err();
        assert_eq!(
            e,
            UniformError::Count {
                ty: Type::Vec4,
                found: 3
            }
        );
        assert!(e.to_string().contains("4 comma-separated numbers"), "{e}");
        let text: Vec<String> = (0..16).map(|x| x.to_string()).collect();
        let UniformValue::Mat4(m) = parse_uniform(Type::Mat4, &text.join(",")).unwrap() else {
            panic!()
        };
        assert_eq!(m[4], 4.0);
        assert!(parse_uniform(Type::Mat4, "1,2,3,4").is_err());
        let arr = |elem, len| Type::Array(ArrayType { elem, len });
        assert_eq!(
            parse_uniform(arr(ScalarOrVector::Vec4, 2), "1,2,3,4,5,6,7,8").unwrap(),
            UniformValue::Array(vec![
                Value::floats(&[1.0, 2.0, 3.0, 4.0]),
                Value::floats(&[5.0, 6.0, 7.0, 8.0])
            ])
        );
        assert_eq!(
            parse_uniform(arr(ScalarOrVector::I32, 3), "1,0x2,-3").unwrap(),
            UniformValue::Array(vec![Value::I32(1), Value::I32(2), Value::I32(-3)])
        );
        assert_eq!(
            parse_uniform(arr(ScalarOrVector::F32, 2), "1,2").unwrap(),
            UniformValue::Array(vec![Value::f32(1.0), Value::f32(2.0)])
        );
        let e = parse_uniform(arr(ScalarOrVector::Vec2, 3), "1,2").unwrap_err();
        assert!(e.to_string().contains("6 comma-separated"), "{e}");
        assert!(parse_uniform(arr(ScalarOrVector::I32, 1), "1.5").is_err());
    }

    #[test]
    fn zeros() {
        assert_eq!(
            zero_uniform(Type::Bool),
            UniformValue::Value(Value::Bool(false))
        );
        assert_eq!(
            zero_uniform(Type::Vec4),
            UniformValue::Value(Value::zero(Type::Vec4))
        );
        assert_eq!(zero_uniform(Type::Mat4), UniformValue::Mat4([0.0; 16]));
        let a = Type::Array(ArrayType {
            elem: ScalarOrVector::Vec2,
            len: 3,
        });
        assert_eq!(
            zero_uniform(a),
            UniformValue::Array(vec![Value::zero(Type::Vec2); 3])
        );
    }

    proptest::proptest! {
        #[test]
        fn any_text_never_panics(text in ".{0,40}") {
            for ty in [Type::F32, Type::I32, Type::Bool, Type::Vec4, Type::Mat4] {
                let _ = parse_uniform(ty, &text);
            }
        }

        #[test]
        fn i32_decimal_round_trips(x in proptest::num::i32::ANY) {
            proptest::prop_assert_eq!(parse_i32(&x.to_string()), Ok(x));
            proptest::prop_assert_eq!(parse_i32(&format!("{:#x}", x as u32)), Ok(x));
        }
    }
}
