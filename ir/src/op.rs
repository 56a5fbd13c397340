//! The operations of the IR, each declared once with its static
//! properties (name, operand and result typing, commutativity, effects).
//!
//! Per-lane float operations work on `f32` and `vecN` alike; integer and
//! bool operations are scalar. Compound built-ins of the language
//! (`smoothstep`, `pow`, `normalize`, ...) do not exist here: lowering
//! expands them once, for both targets (`crate::lower::builtins`).

use crate::graph::RegionId;
use crate::types::Ty;
use ctm_frontend::tast::{ParamId, Swizzle};
use ctm_frontend::value::Value;
use smallvec::{SmallVec, smallvec};
use std::fmt;

macro_rules! op_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// Every variant.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name used by the printers.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

op_enum! {
    /// One-operand operations; the result has the operand's type except for
    /// the conversions.
    UnOp {
        /// `-x` (float, per lane).
        FNeg = "fneg",
        /// `|x|`.
        FAbs = "fabs",
        /// Round toward -inf.
        FFloor = "floor",
        /// Round toward +inf.
        FCeil = "ceil",
        /// Round toward zero.
        FTrunc = "trunc",
        /// Round half away from zero.
        FRound = "round",
        /// `x - floor(x)`.
        FFract = "fract",
        /// Square root.
        FSqrt = "sqrt",
        /// `1 / sqrt(x)`.
        FRsqrt = "rsqrt",
        /// `1 / x`.
        FRcp = "rcp",
        /// `2^x`.
        FExp2 = "exp2",
        /// `log2(x)`.
        FLog2 = "log2",
        /// Sine, radians.
        FSin = "sin",
        /// Cosine, radians.
        FCos = "cos",
        /// `clamp(x, 0, 1)`, NaN to 0.
        FSaturate = "saturate",
        /// Wrapping `-x` on `i32`.
        INeg = "ineg",
        /// Wrapping `|x|` on `i32`.
        IAbs = "iabs",
        /// Bitwise not on `i32`.
        INot = "inot",
        /// Logical not.
        BNot = "not",
        /// `f32 as i32` (truncating, saturating, NaN to 0).
        F2I = "f2i",
        /// `i32 as f32`.
        I2F = "i2f",
        /// `bool as i32`.
        B2I = "b2i",
    }
}

op_enum! {
    /// Two-operand operations on equal operand types.
    BinOp {
        /// Float addition (per lane).
        FAdd = "fadd",
        /// Float subtraction.
        FSub = "fsub",
        /// Float multiplication.
        FMul = "fmul",
        /// Float division (IEEE).
        FDiv = "fdiv",
        /// Float minimum (the non-NaN operand).
        FMin = "fmin",
        /// Float maximum (the non-NaN operand).
        FMax = "fmax",
        /// `step(edge, x)`: 1.0 where `x >= edge`, else 0.0 (NaN: 0.0), per lane.
        FStep = "step",
        /// Wrapping `i32` addition.
        IAdd = "iadd",
        /// Wrapping subtraction.
        ISub = "isub",
        /// Wrapping multiplication.
        IMul = "imul",
        /// Division, 0 for a zero divisor.
        IDiv = "idiv",
        /// Remainder, 0 for a zero divisor.
        IRem = "irem",
        /// Shift left, amount modulo 32.
        IShl = "ishl",
        /// Arithmetic shift right, amount modulo 32.
        IShr = "ishr",
        /// Bitwise and.
        IAnd = "iand",
        /// Bitwise or.
        IOr = "ior",
        /// Bitwise xor.
        IXor = "ixor",
        /// Minimum.
        IMin = "imin",
        /// Maximum.
        IMax = "imax",
        /// Logical and.
        BAnd = "and",
        /// Logical or.
        BOr = "or",
    }
}

op_enum! {
    /// Scalar comparisons giving a `bool`.
    CmpOp {
        /// `==`
        Eq = "eq",
        /// `!=`
        Ne = "ne",
        /// `<`
        Lt = "lt",
        /// `<=`
        Le = "le",
        /// `>`
        Gt = "gt",
        /// `>=`
        Ge = "ge",
    }
}

op_enum! {
    /// The per-lane test of [`Op::LaneSelect`]: which lanes of `c` choose `a`.
    LaneCond {
        /// `c >= 0` (x1k `CMP`, r700 `CNDGE`).
        Ge0 = "ge0",
        /// `c > 0` (r700 `CNDGT`).
        Gt0 = "gt0",
        /// `c == 0` (r700 `CNDE`).
        Eq0 = "eq0",
    }
}

impl BinOp {
    /// `a op b == b op a`.
    pub fn is_commutative(self) -> bool {
        use BinOp::*;
        matches!(
            self,
            FAdd | FMul | FMin | FMax | IAdd | IMul | IAnd | IOr | IXor | IMin | IMax | BAnd | BOr
        )
    }

    /// The operand type class: `Some(true)` float, `Some(false)` i32, `None` bool.
    fn class(self) -> OperandClass {
        use BinOp::*;
        match self {
            FAdd | FSub | FMul | FDiv | FMin | FMax | FStep => OperandClass::Float,
            BAnd | BOr => OperandClass::Bool,
            _ => OperandClass::Int,
        }
    }
}

impl UnOp {
    fn signature(self) -> (OperandClass, Option<Ty>) {
        use UnOp::*;
        match self {
            INeg | IAbs | INot => (OperandClass::Int, None),
            BNot => (OperandClass::Bool, None),
            F2I => (OperandClass::Scalar32, Some(Ty::I32)),
            I2F => (OperandClass::Int, Some(Ty::F32)),
            B2I => (OperandClass::Bool, Some(Ty::I32)),
            _ => (OperandClass::Float, None),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OperandClass {
    Float,
    Int,
    Bool,
    /// `f32` exactly.
    Scalar32,
}

impl OperandClass {
    fn accepts(self, t: Ty) -> bool {
        match self {
            OperandClass::Float => t.is_float(),
            OperandClass::Int => t == Ty::I32,
            OperandClass::Bool => t == Ty::Bool,
            OperandClass::Scalar32 => t == Ty::F32,
        }
    }
}

/// A gamma node: `if`/`else` with a region per branch.
///
/// Inputs: the predicate (`bool`), then the entry values, which become the
/// arguments of both branch regions. Both regions have results of the
/// gamma's output types; the gamma's outputs are the results of the branch
/// taken.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Gamma {
    /// Region run when the predicate is true, then when it is false.
    pub branches: [RegionId; 2],
}

/// A theta node: a tail-controlled loop.
///
/// Inputs: the initial loop values, which are the body's arguments in the
/// first iteration. The body's results are the continue predicate
/// (`bool`) followed by the next loop values (the arguments of the next
/// iteration). The theta's outputs are the loop values after the last
/// iteration. The body runs at least once.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Theta {
    /// The loop body.
    pub body: RegionId,
    /// What is known about the iterations.
    pub info: LoopInfo,
}

/// Facts about a loop, established by lowering and kept up to date by the
/// passes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct LoopInfo {
    /// The loop runs exactly this many times (no early exit possible).
    pub exact_trips: Option<u32>,
    /// The loop runs at most this many times.
    pub max_trips: Option<u32>,
    /// Argument index of a `for` loop's counter (an `i32` that starts at
    /// the `for`'s start and grows by 1 each iteration).
    pub counter: Option<u32>,
}

/// An IR operation. Operands are the node's inputs, in port order.
#[derive(Clone, PartialEq, Debug)]
pub enum Op {
    /// Argument `n` of the enclosing region (no inputs).
    Argument(u32),
    /// Result `n` of the enclosing region (one input, no outputs).
    Result(u32),
    /// A constant.
    Const(Value),
    /// A value-type uniform.
    Uniform(ParamId),
    /// Element of a uniform array, or column of a `mat4` uniform; input:
    /// the `i32` index, clamped to the array.
    UniformElement(ParamId),
    /// An input stream's element at the current position.
    Input(ParamId),
    /// An input stream's element at a position (input: `vec2`).
    Gather(ParamId),
    /// `index()`: the element's (i, j).
    Index,
    /// `domain()`: (width, height).
    Domain,
    /// A one-operand operation.
    Unary(UnOp),
    /// A two-operand operation.
    Binary(BinOp),
    /// `a * b + c` per lane, rounded twice.
    Mad,
    /// Dot product of two float values of equal width, giving an `f32`.
    Dot,
    /// Scalar comparison giving a `bool`.
    Compare(CmpOp),
    /// `c ? a : b` for a `bool` `c` and any equal types `a`, `b`.
    Select,
    /// Per lane: `cond(c) ? a : b` for float `c`, `a`, `b` of equal types.
    LaneSelect(LaneCond),
    /// An `f32` repeated into `n` lanes.
    Splat(u8),
    /// Lanes of a float value.
    Swizzle(Swizzle),
    /// Lanes of the float inputs concatenated.
    Construct,
    /// A scatter write; inputs `(state, pos: vec2, value: f32)`, output the
    /// new state.
    Scatter(ParamId),
    /// `if`/`else`.
    Gamma(Gamma),
    /// A loop.
    Theta(Theta),
}

impl Op {
    /// The name the printers use.
    pub fn name(&self) -> String {
        match self {
            Op::Argument(n) => format!("arg{n}"),
            Op::Result(n) => format!("result{n}"),
            Op::Const(_) => "const".into(),
            Op::Uniform(p) => format!("uniform {p}"),
            Op::UniformElement(p) => format!("uniform_element {p}"),
            Op::Input(p) => format!("input {p}"),
            Op::Gather(p) => format!("gather {p}"),
            Op::Index => "index".into(),
            Op::Domain => "domain".into(),
            Op::Unary(u) => u.name().into(),
            Op::Binary(b) => b.name().into(),
            Op::Mad => "mad".into(),
            Op::Dot => "dot".into(),
            Op::Compare(c) => format!("cmp.{c}"),
            Op::Select => "select".into(),
            Op::LaneSelect(c) => format!("lane_select.{c}"),
            Op::Splat(n) => format!("splat{n}"),
            Op::Swizzle(s) => format!("swizzle.{s}"),
            Op::Construct => "construct".into(),
            Op::Scatter(p) => format!("scatter {p}"),
            Op::Gamma(_) => "gamma".into(),
            Op::Theta(_) => "theta".into(),
        }
    }

    /// `true` for operations that must not be removed, duplicated,
    /// reordered across each other or executed speculatively: scatter
    /// writes (and region results, which are the region's interface).
    pub fn has_effect(&self) -> bool {
        matches!(self, Op::Scatter(_) | Op::Result(_))
    }

    /// `true` for the structured nodes that own regions.
    pub fn is_structured(&self) -> bool {
        matches!(self, Op::Gamma(_) | Op::Theta(_))
    }

    /// The regions this node owns.
    pub fn regions(&self) -> SmallVec<[RegionId; 2]> {
        match self {
            Op::Gamma(g) => SmallVec::from_slice(&g.branches),
            Op::Theta(t) => smallvec![t.body],
            _ => SmallVec::new(),
        }
    }

    /// `true` if swapping the two inputs keeps the result.
    pub fn is_commutative(&self) -> bool {
        match self {
            Op::Binary(b) => b.is_commutative(),
            Op::Dot => true,
            Op::Compare(CmpOp::Eq | CmpOp::Ne) => true,
            _ => false,
        }
    }

    /// The result types of a simple (non-structured, non-argument) op
    /// applied to inputs of types `inputs`; an error message if the inputs
    /// do not fit. Arguments, results and structured nodes are typed by
    /// their regions and are checked by the verifier instead.
    pub fn result_type(
        &self,
        inputs: &[Ty],
        param: impl Fn(ParamId) -> Option<ParamInfo>,
    ) -> Result<Option<Ty>, String> {
        let arity = |n: usize| {
            if inputs.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "{} takes {n} inputs, has {}",
                    self.name(),
                    inputs.len()
                ))
            }
        };
        let same = |a: Ty, b: Ty| {
            if a == b {
                Ok(())
            } else {
                Err(format!("{} operands differ: {a} and {b}", self.name()))
            }
        };
        match self {
            Op::Const(v) => {
                arity(0)?;
                Ty::from_type(v.ty())
                    .map(Some)
                    .ok_or_else(|| "constant of no value type".to_string())
            }
            Op::Uniform(p) => {
                arity(0)?;
                match param(*p) {
                    Some(ParamInfo::Uniform(t)) => Ok(Some(t)),
                    _ => Err(format!("{p} is not a value uniform")),
                }
            }
            Op::UniformElement(p) => {
                arity(1)?;
                if inputs[0] != Ty::I32 {
                    return Err("uniform_element index must be i32".into());
                }
                match param(*p) {
                    Some(ParamInfo::Array(t, _)) => Ok(Some(t)),
                    _ => Err(format!("{p} is not an array or mat4 uniform")),
                }
            }
            Op::Input(p) => {
                arity(0)?;
                match param(*p) {
                    Some(ParamInfo::Input(t)) => Ok(Some(t)),
                    _ => Err(format!("{p} is not an input stream")),
                }
            }
            Op::Gather(p) => {
                arity(1)?;
                if inputs[0] != Ty::Float(2) {
                    return Err("gather position must be vec2".into());
                }
                match param(*p) {
                    Some(ParamInfo::Input(t)) => Ok(Some(t)),
                    _ => Err(format!("{p} is not an input stream")),
                }
            }
            Op::Index | Op::Domain => {
                arity(0)?;
                Ok(Some(Ty::Float(2)))
            }
            Op::Unary(u) => {
                arity(1)?;
                let (class, result) = u.signature();
                if !class.accepts(inputs[0]) {
                    return Err(format!("{u} does not accept {}", inputs[0]));
                }
                Ok(Some(result.unwrap_or(inputs[0])))
            }
            Op::Binary(b) => {
                arity(2)?;
                same(inputs[0], inputs[1])?;
                let ok = match b.class() {
                    OperandClass::Float => inputs[0].is_float(),
                    OperandClass::Int => inputs[0] == Ty::I32,
                    OperandClass::Bool => inputs[0] == Ty::Bool,
                    OperandClass::Scalar32 => inputs[0] == Ty::F32,
                };
                if !ok {
                    return Err(format!("{b} does not accept {}", inputs[0]));
                }
                Ok(Some(inputs[0]))
            }
            Op::Mad => {
                arity(3)?;
                same(inputs[0], inputs[1])?;
                same(inputs[0], inputs[2])?;
                if !inputs[0].is_float() {
                    return Err("mad needs floats".into());
                }
                Ok(Some(inputs[0]))
            }
            Op::Dot => {
                arity(2)?;
                same(inputs[0], inputs[1])?;
                if !inputs[0].is_float() {
                    return Err("dot needs floats".into());
                }
                Ok(Some(Ty::F32))
            }
            Op::Compare(c) => {
                arity(2)?;
                same(inputs[0], inputs[1])?;
                let ok = match inputs[0] {
                    Ty::F32 | Ty::I32 => true,
                    Ty::Bool => matches!(c, CmpOp::Eq | CmpOp::Ne),
                    _ => false,
                };
                if !ok {
                    return Err(format!("cannot compare {} with {c}", inputs[0]));
                }
                Ok(Some(Ty::Bool))
            }
            Op::Select => {
                arity(3)?;
                if inputs[0] != Ty::Bool {
                    return Err("select condition must be bool".into());
                }
                same(inputs[1], inputs[2])?;
                if inputs[1] == Ty::State {
                    return Err("cannot select a state".into());
                }
                Ok(Some(inputs[1]))
            }
            Op::LaneSelect(_) => {
                arity(3)?;
                same(inputs[0], inputs[1])?;
                same(inputs[0], inputs[2])?;
                if !inputs[0].is_float() {
                    return Err("lane_select needs floats".into());
                }
                Ok(Some(inputs[0]))
            }
            Op::Splat(n) => {
                arity(1)?;
                if inputs[0] != Ty::F32 || !(2..=4).contains(n) {
                    return Err("splat takes an f32 into 2 to 4 lanes".into());
                }
                Ok(Some(Ty::Float(*n)))
            }
            Op::Swizzle(s) => {
                arity(1)?;
                let w = inputs[0].width().ok_or("swizzle of a non-float")?;
                if s.lanes().iter().any(|&l| l >= w) {
                    return Err(format!("swizzle .{s} out of range for {}", inputs[0]));
                }
                Ok(Some(Ty::Float(s.len() as u8)))
            }
            Op::Construct => {
                let mut lanes = 0;
                for t in inputs {
                    lanes += t.width().ok_or("construct of a non-float")?;
                }
                if !(2..=4).contains(&lanes) || inputs.len() < 2 {
                    return Err(format!(
                        "construct of {lanes} lanes from {} inputs",
                        inputs.len()
                    ));
                }
                Ok(Some(Ty::Float(lanes)))
            }
            Op::Scatter(p) => {
                arity(3)?;
                if inputs != [Ty::State, Ty::Float(2), Ty::F32] {
                    return Err("scatter takes (state, vec2, f32)".into());
                }
                match param(*p) {
                    Some(ParamInfo::Scatter) => Ok(Some(Ty::State)),
                    _ => Err(format!("{p} is not a scatter stream")),
                }
            }
            Op::Argument(_) | Op::Result(_) | Op::Gamma(_) | Op::Theta(_) => {
                Err(format!("{} is typed by its region", self.name()))
            }
        }
    }
}

/// What an operation needs to know about a kernel parameter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamInfo {
    /// A value uniform of this type.
    Uniform(Ty),
    /// An array uniform with elements of this type and this length (a
    /// `mat4` is 4 `vec4` columns).
    Array(Ty, u16),
    /// An input stream reading as this type.
    Input(Ty),
    /// An `Out` stream of this type.
    Output(Ty),
    /// A `Scatter<f32>` stream.
    Scatter,
}
