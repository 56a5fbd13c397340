//! The built-in functions of spec §6: one table naming each, its arity and
//! the shape of its signature. The checker types calls from this table; the
//! evaluators in [`crate::numerics`] give each its meaning.

/// A built-in function. Vector constructors (`vec2` ..) are not here: they
/// are [`crate::tast::ExprKind::Construct`] / `Splat`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub enum Builtin {
    Abs,
    Min,
    Max,
    Clamp,
    Saturate,
    Sign,
    Floor,
    Ceil,
    Fract,
    Trunc,
    Round,
    Step,
    Mix,
    Smoothstep,
    Select,
    Sqrt,
    Rsqrt,
    Rcp,
    Exp2,
    Log2,
    Exp,
    Log,
    Pow,
    Sin,
    Cos,
    Tan,
    Dot,
    Cross,
    Length,
    Distance,
    Normalize,
    /// `index() -> vec2`: (i, j) of the current element, kernels only.
    Index,
    /// `domain() -> vec2`: (width, height), kernels only.
    Domain,
}

/// How a built-in's argument and result types relate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Signature {
    /// Per-lane on floats: every argument is `f32` or `vecN` of one common
    /// width N (scalars broadcast); the result has width N.
    FloatLanes,
    /// As `FloatLanes`, or every argument `i32` with an `i32` result.
    FloatOrIntLanes,
    /// `(vecN, vecN) -> f32` (also `(f32, f32)`): `dot`, `distance`.
    PairToScalar,
    /// `vecN -> f32` (also `f32`): `length`.
    ToScalar,
    /// `(vec3, vec3) -> vec3`.
    Cross,
    /// `(bool, T, T) -> T` for any value type `T`.
    Select,
    /// `() -> vec2`, kernels only.
    Position,
}

/// One row of the built-in table.
#[derive(Clone, Copy, Debug)]
pub struct BuiltinInfo {
    /// The function.
    pub func: Builtin,
    /// Its name in source.
    pub name: &'static str,
    /// Number of arguments.
    pub arity: usize,
    /// Signature shape.
    pub signature: Signature,
    /// Uses a transcendental unit (decides the spec §7 test tolerance).
    pub transcendental: bool,
}

macro_rules! builtin_table {
    ($($func:ident $name:literal $arity:literal $sig:ident $trans:literal;)*) => {
        /// Every built-in, one row each.
        pub const BUILTINS: &[BuiltinInfo] = &[
            $(BuiltinInfo {
                func: Builtin::$func,
                name: $name,
                arity: $arity,
                signature: Signature::$sig,
                transcendental: $trans,
            },)*
        ];
    };
}

builtin_table! {
    Abs "abs" 1 FloatOrIntLanes false;
    Min "min" 2 FloatOrIntLanes false;
    Max "max" 2 FloatOrIntLanes false;
    Clamp "clamp" 3 FloatOrIntLanes false;
    Saturate "saturate" 1 FloatLanes false;
    Sign "sign" 1 FloatOrIntLanes false;
    Floor "floor" 1 FloatLanes false;
    Ceil "ceil" 1 FloatLanes false;
    Fract "fract" 1 FloatLanes false;
    Trunc "trunc" 1 FloatLanes false;
    Round "round" 1 FloatLanes false;
    Step "step" 2 FloatLanes false;
    Mix "mix" 3 FloatLanes false;
    Smoothstep "smoothstep" 3 FloatLanes true;
    Select "select" 3 Select false;
    Sqrt "sqrt" 1 FloatLanes true;
    Rsqrt "rsqrt" 1 FloatLanes true;
    Rcp "rcp" 1 FloatLanes true;
    Exp2 "exp2" 1 FloatLanes true;
    Log2 "log2" 1 FloatLanes true;
    Exp "exp" 1 FloatLanes true;
    Log "log" 1 FloatLanes true;
    Pow "pow" 2 FloatLanes true;
    Sin "sin" 1 FloatLanes true;
    Cos "cos" 1 FloatLanes true;
    Tan "tan" 1 FloatLanes true;
    Dot "dot" 2 PairToScalar false;
    Cross "cross" 2 Cross false;
    Length "length" 1 ToScalar true;
    Distance "distance" 2 PairToScalar true;
    Normalize "normalize" 1 FloatLanes true;
    Index "index" 0 Position false;
    Domain "domain" 0 Position false;
}

impl Builtin {
    /// Looks a built-in up by its source name.
    pub fn from_name(name: &str) -> Option<Builtin> {
        BUILTINS.iter().find(|b| b.name == name).map(|b| b.func)
    }

    /// This built-in's table row.
    pub fn info(self) -> &'static BuiltinInfo {
        // The table lists the variants in declaration order.
        &BUILTINS[self as usize]
    }

    /// Its name in source.
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_declaration_order() {
        for (i, row) in BUILTINS.iter().enumerate() {
            assert_eq!(row.func as usize, i, "row {} ({})", i, row.name);
            assert_eq!(Builtin::from_name(row.name), Some(row.func));
        }
        assert_eq!(BUILTINS.len(), Builtin::Domain as usize + 1);
    }
}
