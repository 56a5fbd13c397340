//! What the generator may produce: the target, the numerics mode, size
//! limits and feature switches ([`GenOptions`]).

use ctm_frontend::types::Target;

/// How the generated values must behave numerically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumericsMode {
    /// Anything type-correct: unguarded division, `sqrt` of negatives,
    /// overflow to infinity, NaN, wrapping integers, tiny and huge values.
    /// For comparisons that must agree bit for bit (reference interpreter
    /// against the IR interpreter after every pass).
    Exact,
    /// Values stay where the GPUs' approximate reciprocal, square root,
    /// exponential, logarithm and trigonometry keep every output within the
    /// tolerance of spec §7 of the reference: guarded denominators and
    /// arguments, bounded magnitudes, no discontinuous operation (branch,
    /// `floor`, cast, gather position...) on an approximate value, integers
    /// below 2^24 in magnitude. Holds for arguments made by
    /// [`crate::random_args`] in the same mode (see
    /// `docs/generator.md` for the ranges it assumes).
    Robust,
}

impl NumericsMode {
    /// Name for messages and file names: `exact` or `robust`.
    pub fn name(self) -> &'static str {
        match self {
            NumericsMode::Exact => "exact",
            NumericsMode::Robust => "robust",
        }
    }
}

/// Feature switches: a disabled feature never appears in the output.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Features {
    /// `for` loops (constant bounds, `const` bounds and `i32` uniform
    /// bounds).
    pub for_loops: bool,
    /// `while` and `loop` with a counter that bounds them, and `break` and
    /// `continue` under conditions.
    pub while_loops: bool,
    /// Gathers `x[p]` from input streams.
    pub gathers: bool,
    /// `Scatter<f32>` outputs and scatter writes.
    pub scatters: bool,
    /// Conditional `discard;` and early `return;` in the kernel.
    pub discard_return: bool,
    /// Helper functions (pure, possibly calling each other, possibly with
    /// an early `return`).
    pub helpers: bool,
    /// `const` items.
    pub consts: bool,
    /// Uniform arrays `[T; N]`.
    pub uniform_arrays: bool,
    /// `mat4` uniforms and `m * v`, `v * m`.
    pub mat4: bool,
    /// `sqrt rsqrt rcp exp2 log2 exp log pow sin cos tan smoothstep length
    /// distance normalize`.
    pub transcendentals: bool,
    /// `i32` values and operators (integer locals, casts, loop-counter
    /// arithmetic beyond plain indices).
    pub integers: bool,
    /// `bool` values beyond plain comparisons: bool locals and uniforms,
    /// `&& || !`, `bool as i32`.
    pub bools: bool,
    /// Swizzle writes such as `v.xz = e;` and `v.y += e;`.
    pub swizzle_writes: bool,
    /// `if` expressions and `select`.
    pub if_expressions: bool,
    /// Input streams of `unorm8x4` and `u16` elements.
    pub packed_inputs: bool,
    /// Literals written in unusual ways: hexadecimal, binary, `_`
    /// separators, `f32`/`i32` suffixes, exponents.
    pub literal_forms: bool,
}

impl Features {
    /// Every feature enabled.
    pub fn all() -> Features {
        Features {
            for_loops: true,
            while_loops: true,
            gathers: true,
            scatters: true,
            discard_return: true,
            helpers: true,
            consts: true,
            uniform_arrays: true,
            mat4: true,
            transcendentals: true,
            integers: true,
            bools: true,
            swizzle_writes: true,
            if_expressions: true,
            packed_inputs: true,
            literal_forms: true,
        }
    }

    /// Every feature disabled: straight-line float arithmetic on streams
    /// and uniforms, with `if` statements and comparisons.
    pub fn none() -> Features {
        Features {
            for_loops: false,
            while_loops: false,
            gathers: false,
            scatters: false,
            discard_return: false,
            helpers: false,
            consts: false,
            uniform_arrays: false,
            mat4: false,
            transcendentals: false,
            integers: false,
            bools: false,
            swizzle_writes: false,
            if_expressions: false,
            packed_inputs: false,
            literal_forms: false,
        }
    }
}

/// Options of [`crate::generate`]. Start from [`GenOptions::new`] and
/// change fields.
///
/// Every limit is an upper bound; the generator draws actual sizes below
/// it. Limits that make no sense (0 outputs, an expression depth below 2)
/// are raised to the smallest sensible value.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// The generated program checks without errors for this target.
    pub target: Target,
    /// Numerics mode.
    pub numerics: NumericsMode,
    /// Maximum height of any expression tree (a name or literal has height
    /// 1, `a + b` one more than its higher operand; at least 2).
    pub max_expr_depth: u32,
    /// Maximum number of statements in the kernel body, counted at every
    /// nesting level (loop counters and their updates included), but at
    /// least one per output for the defaults assigned first.
    pub max_statements: u32,
    /// Maximum number of statements in a helper function's body.
    pub max_helper_statements: u32,
    /// Maximum nesting of loops.
    pub max_loop_nesting: u32,
    /// Maximum nesting of control flow (`if` branches and loops together,
    /// helpers counted where they are inlined). x1k allows 4 levels of
    /// branches without loops (spec §4).
    pub max_nesting: u32,
    /// Maximum iterations of one loop.
    pub max_loop_trips: u32,
    /// Maximum iterations of the innermost body of nested loops, per
    /// element (the product of the trips of the enclosing loops).
    pub max_total_trips: u32,
    /// Maximum number of helper functions (up to 3 are generated).
    pub max_helpers: u32,
    /// Maximum number of `const` items.
    pub max_consts: u32,
    /// Maximum number of uniform parameters.
    pub max_uniforms: u32,
    /// Maximum number of input streams (at most 16, spec §4).
    pub max_inputs: u32,
    /// Maximum number of `Out` plus `Scatter` parameters (at most the
    /// target's limit, spec §4).
    pub max_outputs: u32,
    /// Features that may appear.
    pub features: Features,
}

impl GenOptions {
    /// Defaults for `target` in `numerics` mode: every feature, kernels of
    /// a few dozen lines.
    pub fn new(target: Target, numerics: NumericsMode) -> GenOptions {
        GenOptions {
            target,
            numerics,
            max_expr_depth: 5,
            max_statements: 24,
            max_helper_statements: 4,
            max_loop_nesting: 2,
            max_nesting: 4,
            max_loop_trips: 8,
            max_total_trips: 48,
            max_helpers: 3,
            max_consts: 2,
            max_uniforms: 6,
            max_inputs: 4,
            max_outputs: 3,
            features: Features::all(),
        }
    }

    /// The options with every limit raised to its smallest sensible value
    /// and lowered to what the target allows.
    pub(crate) fn normalized(&self) -> GenOptions {
        let mut o = self.clone();
        o.max_expr_depth = o.max_expr_depth.clamp(2, 64);
        o.max_statements = o.max_statements.clamp(1, 100_000);
        o.max_helper_statements = o.max_helper_statements.min(10_000);
        o.max_loop_trips = o.max_loop_trips.clamp(1, 255);
        o.max_total_trips = o.max_total_trips.clamp(1, 1 << 20);
        o.max_helpers = o.max_helpers.min(3);
        o.max_consts = o.max_consts.min(16);
        o.max_uniforms = o.max_uniforms.min(24);
        o.max_inputs = o.max_inputs.clamp(0, o.target.max_inputs() as u32);
        o.max_outputs = o.max_outputs.clamp(1, o.target.max_outputs() as u32);
        o.max_nesting = o.max_nesting.min(32);
        o.max_loop_nesting = o.max_loop_nesting.min(o.max_nesting);
        o
    }
}
