//! The semantic types of the language (spec §3, §4) and their printing.

use std::fmt;

/// The type of a value or of a uniform parameter.
///
/// `Mat4` and `Array` only ever name uniforms: they are not values that can
/// be stored in locals or passed around (spec §3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// The type of statements and of blocks without a tail expression.
    Unit,
    /// `bool`.
    Bool,
    /// `i32`, 32-bit two's complement, wrapping.
    I32,
    /// `f32`.
    F32,
    /// `vec2`.
    Vec2,
    /// `vec3`.
    Vec3,
    /// `vec4`.
    Vec4,
    /// `mat4`, a column-major 4x4 uniform.
    Mat4,
    /// `[T; N]`, a uniform array.
    Array(ArrayType),
}

/// `[T; N]` with `T` in `f32 vec2 vec4 i32` and `1 <= N <= 256`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ArrayType {
    /// Element type: `F32`, `Vec2`, `Vec4` or `I32`.
    pub elem: ScalarOrVector,
    /// Number of elements.
    pub len: u16,
}

/// The element types a uniform array may have (spec §3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ScalarOrVector {
    /// `f32`
    F32,
    /// `vec2`
    Vec2,
    /// `vec4`
    Vec4,
    /// `i32`
    I32,
}

impl ScalarOrVector {
    /// The value type of one element.
    pub fn ty(self) -> Type {
        match self {
            ScalarOrVector::F32 => Type::F32,
            ScalarOrVector::Vec2 => Type::Vec2,
            ScalarOrVector::Vec4 => Type::Vec4,
            ScalarOrVector::I32 => Type::I32,
        }
    }
}

impl Type {
    /// The float type with `width` lanes (1 = `f32`, 2..4 = `vecN`).
    ///
    /// # Panics
    /// If `width` is not in 1..=4.
    pub fn float(width: u8) -> Type {
        match width {
            1 => Type::F32,
            2 => Type::Vec2,
            3 => Type::Vec3,
            4 => Type::Vec4,
            _ => panic!("float width {width} out of range"),
        }
    }

    /// The number of f32 lanes of `f32` and `vecN`, `None` for other types.
    pub fn float_width(self) -> Option<u8> {
        match self {
            Type::F32 => Some(1),
            Type::Vec2 => Some(2),
            Type::Vec3 => Some(3),
            Type::Vec4 => Some(4),
            _ => None,
        }
    }

    /// `true` for `vec2`, `vec3` and `vec4`.
    pub fn is_vector(self) -> bool {
        matches!(self, Type::Vec2 | Type::Vec3 | Type::Vec4)
    }

    /// `true` for `f32` and the vectors.
    pub fn is_float(self) -> bool {
        self.float_width().is_some()
    }

    /// `true` for types that values (locals, expressions) can have.
    pub fn is_value(self) -> bool {
        !matches!(self, Type::Mat4 | Type::Array(_))
    }

    /// The number of 4-wide float constant registers a uniform of this type
    /// occupies (spec §4: `mat4` takes 4, an array one per element).
    pub fn constant_slots(self) -> u32 {
        match self {
            Type::Mat4 => 4,
            Type::Array(a) => a.len as u32,
            Type::Unit => 0,
            _ => 1,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Unit => f.write_str("()"),
            Type::Bool => f.write_str("bool"),
            Type::I32 => f.write_str("i32"),
            Type::F32 => f.write_str("f32"),
            Type::Vec2 => f.write_str("vec2"),
            Type::Vec3 => f.write_str("vec3"),
            Type::Vec4 => f.write_str("vec4"),
            Type::Mat4 => f.write_str("mat4"),
            Type::Array(a) => write!(f, "[{}; {}]", a.elem.ty(), a.len),
        }
    }
}

/// Element type of an input stream, `In<T>` (spec §4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum StreamType {
    /// `f32`, read as `f32`.
    F32,
    /// `vec2`, read as `vec2`.
    Vec2,
    /// `vec4`, read as `vec4`.
    Vec4,
    /// 4 bytes read as a `vec4` in [0, 1].
    Unorm8x4,
    /// 16-bit unsigned integer, read as an integer-valued `f32`.
    U16,
}

impl StreamType {
    /// The value type an element reads as.
    pub fn value_type(self) -> Type {
        match self {
            StreamType::F32 | StreamType::U16 => Type::F32,
            StreamType::Vec2 => Type::Vec2,
            StreamType::Vec4 | StreamType::Unorm8x4 => Type::Vec4,
        }
    }

    /// Channels per element in memory and in `.npy` files.
    pub fn channels(self) -> usize {
        match self {
            StreamType::F32 | StreamType::U16 => 1,
            StreamType::Vec2 => 2,
            StreamType::Vec4 | StreamType::Unorm8x4 => 4,
        }
    }

    /// Spelling in source.
    pub fn name(self) -> &'static str {
        match self {
            StreamType::F32 => "f32",
            StreamType::Vec2 => "vec2",
            StreamType::Vec4 => "vec4",
            StreamType::Unorm8x4 => "unorm8x4",
            StreamType::U16 => "u16",
        }
    }
}

/// Element type of an output stream, `Out<T>`; `Scatter` is always `f32`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum OutputType {
    /// `f32`
    F32,
    /// `vec2`
    Vec2,
    /// `vec4`
    Vec4,
}

impl OutputType {
    /// The value type written.
    pub fn value_type(self) -> Type {
        match self {
            OutputType::F32 => Type::F32,
            OutputType::Vec2 => Type::Vec2,
            OutputType::Vec4 => Type::Vec4,
        }
    }

    /// Channels per element.
    pub fn channels(self) -> usize {
        match self {
            OutputType::F32 => 1,
            OutputType::Vec2 => 2,
            OutputType::Vec4 => 4,
        }
    }
}

/// The compilation target, which decides the per-target rules and limits of
/// spec §3–§4.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Target {
    /// ATI X1K (R5xx) through CTM.
    X1k,
    /// ATI R700 (Radeon HD 4000).
    R700,
    /// The reference interpreter; accepts what any hardware target accepts
    /// and applies only the common limits (see `docs/language-decisions.md`).
    Ref,
}

impl Target {
    /// Name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::X1k => "x1k",
            Target::R700 => "r700",
            Target::Ref => "ref",
        }
    }

    /// Maximum number of `Out` streams (spec §4).
    pub fn max_outputs(self) -> usize {
        match self {
            Target::X1k => 4,
            Target::R700 | Target::Ref => 8,
        }
    }

    /// Maximum number of `In` streams (spec §4).
    pub fn max_inputs(self) -> usize {
        16
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
