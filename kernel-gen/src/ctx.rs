//! The generator's state: what is in scope (locals with their ranges,
//! kernel parameters, helpers, constants), the enclosing loops and
//! control flow, and the budgets left.

use super::options::GenOptions;
use super::range::{APPROX_MAG, FUSED, INT_MAG, ROBUST_MAG, Range};
use super::rng::Rng;
use ctm_frontend::ast;
use ctm_frontend::types::{OutputType, StreamType, Type};

/// What a generated expression must satisfy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Req {
    /// Maximum height of the expression tree (at least 1).
    pub depth: u32,
    /// Maximum magnitude of the value (robust mode).
    pub mag: f64,
    /// Maximum error against the reference (robust mode; 0 = exact class).
    pub err: f64,
}

impl Req {
    /// The same bounds, `levels` less deep.
    pub fn down(self, levels: u32) -> Req {
        Req {
            depth: self.depth.saturating_sub(levels).max(1),
            ..self
        }
    }

    /// The same, but exact class.
    pub fn exact(self) -> Req {
        Req { err: 0.0, ..self }
    }

    /// The same with magnitude bound `mag`.
    pub fn mag(self, mag: f64) -> Req {
        Req { mag, ..self }
    }

    /// The same with error bound `err`.
    pub fn err(self, err: f64) -> Req {
        Req { err, ..self }
    }
}

/// A generated expression with its bookkeeping.
#[derive(Clone, Debug)]
pub struct Ex {
    /// The expression.
    pub e: ast::Expr,
    /// Its value range and error (robust mode; loose in exact mode).
    pub r: Range,
    /// Its height.
    pub h: u32,
}

impl Ex {
    /// An expression of height `h`.
    pub fn new(e: ast::Expr, r: Range, h: u32) -> Ex {
        Ex { e, r, h }
    }
}

/// How a local came to be; decides whether the generator may assign it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A `let` (assignable if `mut`).
    Local,
    /// A helper parameter (assignable if `mut`).
    Param,
    /// A `for` loop variable (read-only).
    ForCounter,
    /// The counter bounding a `while`/`loop` (assigned only by its loop).
    Counter,
}

/// A local in scope.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Declared `mut` and assignable by the generator.
    pub mutable: bool,
    /// How it was introduced.
    pub role: Role,
    /// Bounds of every value it may hold (what reads see).
    pub range: Range,
    /// Bounds a plain assignment must keep (robust mode).
    pub base: Range,
    /// Magnitude that additive updates (`+=`, `-=`) may still add in
    /// total over the rest of the variable's life.
    pub reserve_mag: f64,
    /// Error that additive and rounding updates may still add in total.
    pub reserve_err: f64,
    /// Number of enclosing loops where it was declared.
    pub loop_level: usize,
    /// Times it was read.
    pub uses: u32,
}

/// A uniform parameter.
#[derive(Clone, Debug)]
pub struct Uniform {
    /// Its name.
    pub name: String,
    /// Its type (value type, `mat4` or array).
    pub ty: Type,
}

/// A kernel's parameters, as the body sees them.
#[derive(Clone, Debug, Default)]
pub struct KernelEnv {
    /// Uniforms.
    pub uniforms: Vec<Uniform>,
    /// Input streams.
    pub inputs: Vec<(String, StreamType)>,
    /// `Out` streams.
    pub outputs: Vec<(String, OutputType)>,
    /// `Scatter` streams, with the position every write uses in robust
    /// mode (an injective function of `index()`, so that no two elements
    /// write the same place and the hardware's write order cannot matter).
    pub scatters: Vec<(String, ast::Expr)>,
}

/// A helper function's signature and what calling it costs.
#[derive(Clone, Debug)]
pub struct Helper {
    /// Its name.
    pub name: String,
    /// Parameters: name, type, and the range every argument must keep
    /// (robust mode).
    pub params: Vec<(String, Type, Range)>,
    /// Result type.
    pub ret: Type,
    /// Range of every result, given arguments in their ranges.
    pub ret_range: Range,
    /// Control-flow nesting of its body when inlined (callees included).
    pub nesting: u32,
    /// Loop nesting of its body (callees included).
    pub loop_nesting: u32,
    /// Iterations of its innermost loop body (1 without loops).
    pub trips: u64,
    /// Calls generated so far.
    pub calls: u32,
}

/// A `const` item.
#[derive(Clone, Debug)]
pub struct Const {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Its value as a range (a point for scalars).
    pub range: Range,
    /// Its value, for `i32` constants.
    pub int_value: Option<i64>,
}

/// An enclosing loop.
#[derive(Clone, Copy, Debug)]
pub struct LoopFrame {
    /// Maximum iterations of its body per entry.
    pub trips: u64,
}

/// The body being generated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyKind {
    /// A kernel body.
    Kernel,
    /// A helper returning values of this type within `Req`.
    Helper(Type, Req),
}

/// The whole generator state.
pub struct Gen<'o> {
    /// Random numbers.
    pub rng: Rng,
    /// The options (normalized).
    pub o: &'o GenOptions,
    /// Robust numerics.
    pub robust: bool,
    /// Error allowed in an output (0: no approximate operation may be
    /// used; exact mode: infinite).
    pub out_err: f64,
    /// Counter for fresh names.
    pub names: u32,
    /// `const` items, in order.
    pub consts: Vec<Const>,
    /// Helpers generated so far; all of them are callable.
    pub helpers: Vec<Helper>,
    /// The kernel's parameters (`None` inside a helper).
    pub env: Option<KernelEnv>,
    /// Locals in scope, innermost last.
    pub vars: Vec<Var>,
    /// Scope starts in `vars`.
    pub marks: Vec<usize>,
    /// Enclosing loops, innermost last.
    pub loops: Vec<LoopFrame>,
    /// Enclosing control flow (branches and loops).
    pub nesting: u32,
    /// Deepest `nesting` reached in the current body.
    pub nesting_seen: u32,
    /// Deepest loop nesting reached in the current body.
    pub loop_nesting_seen: u32,
    /// Most iterations of an innermost loop body in the current body.
    pub trips_seen: u64,
    /// Statements left in the current body.
    pub budget: u32,
    /// What is being generated.
    pub body: BodyKind,
    /// Union of the ranges a helper body returns.
    pub ret_range: Option<Range>,
    /// A local that leaves should pick if they can (see `sink`).
    pub focus: Option<String>,
    /// `discard;` and `return;` statements left for this kernel: more
    /// would leave few elements that reach the end.
    pub exits_left: u32,
}

impl<'o> Gen<'o> {
    /// A generator for `o` (normalized) drawing from `rng`.
    pub fn new(rng: Rng, o: &'o GenOptions, robust: bool, out_err: f64) -> Gen<'o> {
        Gen {
            rng,
            o,
            robust,
            out_err,
            names: 0,
            consts: Vec::new(),
            helpers: Vec::new(),
            env: None,
            vars: Vec::new(),
            marks: Vec::new(),
            loops: Vec::new(),
            nesting: 0,
            nesting_seen: 0,
            loop_nesting_seen: 0,
            trips_seen: 1,
            budget: 0,
            body: BodyKind::Kernel,
            ret_range: None,
            focus: None,
            exits_left: 2,
        }
    }

    /// A fresh name `prefix` + number.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names - 1)
    }

    /// The name prefix of locals of type `ty`.
    pub fn prefix(ty: Type) -> &'static str {
        match ty {
            Type::F32 => "x",
            Type::Vec2 => "p",
            Type::Vec3 => "c",
            Type::Vec4 => "q",
            Type::I32 => "n",
            Type::Bool => "b",
            _ => "t",
        }
    }

    /// `true` inside a kernel body (streams, `index()`, `discard`).
    pub fn in_kernel(&self) -> bool {
        self.env.is_some()
    }

    /// Opens a scope.
    pub fn push_scope(&mut self) {
        self.marks.push(self.vars.len());
    }

    /// Closes the innermost scope.
    pub fn pop_scope(&mut self) {
        let mark = self.marks.pop().unwrap_or(0);
        self.vars.truncate(mark);
    }

    /// Declares a local; returns its index in `vars`.
    pub fn declare(&mut self, var: Var) -> usize {
        self.vars.push(var);
        self.vars.len() - 1
    }

    /// A plain read-only or mutable local of exactly the range `r`.
    pub fn simple_var(&self, name: String, ty: Type, mutable: bool, role: Role, r: Range) -> Var {
        Var {
            name,
            ty,
            mutable,
            role,
            range: r,
            base: r,
            reserve_mag: 0.0,
            reserve_err: 0.0,
            loop_level: self.loops.len(),
            uses: 0,
        }
    }

    /// Iterations of the current point per execution of the scope at loop
    /// level `level` (the product of the trips of the loops entered since).
    pub fn multiplicity(&self, level: usize) -> u64 {
        self.loops
            .iter()
            .skip(level)
            .fold(1u64, |acc, l| acc.saturating_mul(l.trips.max(1)))
    }

    /// Iterations of the current point per element.
    pub fn total_trips(&self) -> u64 {
        self.multiplicity(0)
    }

    /// The largest magnitude robust values of `ty` may reach.
    pub fn mag_cap(ty: Type) -> f64 {
        if ty == Type::I32 { INT_MAG } else { ROBUST_MAG }
    }

    /// The top-level requirement for a value of type `ty` written to an
    /// output or returned: full depth, robust magnitude cap, `err`.
    pub fn top_req(&self, ty: Type, err: f64) -> Req {
        if self.robust {
            Req {
                depth: self.o.max_expr_depth,
                mag: if err > 0.0 {
                    APPROX_MAG
                } else {
                    Self::mag_cap(ty)
                },
                err,
            }
        } else {
            Req {
                depth: self.o.max_expr_depth,
                mag: f64::INFINITY,
                err: f64::INFINITY,
            }
        }
    }

    /// The requirement of a value written to an output (or scattered):
    /// approximate within the output budget (and [`APPROX_MAG`]) or, as
    /// often, exact class of any robust magnitude.
    pub fn out_req(&mut self, ty: Type) -> Req {
        let focus_approx = self
            .focus
            .as_ref()
            .is_some_and(|f| self.vars.iter().any(|v| &v.name == f && v.range.err > 0.0));
        let err = if self.out_err > 0.0
            && self.out_err.is_finite()
            && !focus_approx
            && self.rng.percent(40)
        {
            0.0
        } else {
            self.out_err
        };
        self.top_req(ty, err)
    }

    /// `true` if `r` satisfies `req` (always in exact mode).
    /// `true` where a product may round differently from the reference:
    /// robust kernels for the X1K, whose MAD and DP round once (the IR
    /// forms MAD from any product whose users are additions; CTM guide,
    /// `docs/sim-x1k.md` §2.2). A product there is approximate (its own
    /// error [`FUSED`] relative), so no discontinuity sees a value that a
    /// fused rounding could move (`docs/generator.md`).
    pub fn fused(&self) -> bool {
        self.robust && self.o.target == ctm_frontend::Target::X1k
    }

    /// The range of a product (or sum of `terms` products) `r` under
    /// [`Gen::fused`]: with the fused rounding's own error.
    pub fn fused_range(&self, r: Range, terms: f64) -> Range {
        if self.fused() {
            r.with_err(r.err + terms * FUSED * r.mag())
        } else {
            r
        }
    }

    pub fn fits(&self, r: Range, req: Req) -> bool {
        !self.robust || (r.mag() <= req.mag && r.err <= req.err)
    }

    /// Enters a branch or loop body.
    pub fn enter(&mut self) {
        self.nesting += 1;
        self.nesting_seen = self.nesting_seen.max(self.nesting);
    }

    /// Leaves a branch or loop body.
    pub fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    /// Can another level of control flow be opened here?
    pub fn can_nest(&self) -> bool {
        self.nesting < self.o.max_nesting
    }
}
