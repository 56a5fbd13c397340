//! How a reduction's pass kernel treats the reads of a block that fall
//! past the grid's edge (issue 12): recognise, from the structure of the
//! body alone, a per-lane combining operator and decide whether the pass
//! needs its boundary guards.
//!
//! The pass kernel reads the four elements of its block unconditionally;
//! reads past the right or bottom edge of a W×H grid clamp to the edge
//! (spec §4, both targets' texture addressing). Three cases:
//!
//! - [`PassEdges::Clamped`]: every lane is `min` or `max` of the same lane
//!   of `a` and `b`. Such a body is idempotent (`f(x, x) = x`, exactly,
//!   NaN included: `numerics::min`), so a clamped read, which repeats an
//!   existing element of the block, leaves the result bit for bit what the
//!   reference's `f(f(e0, e1), f(e2, e3))` over the existing elements
//!   gives (`f(f(e0, e1), f(e0, e1)) = f(e0, e1)`, `f(f(e0, e1), f(e2, e2))
//!   = f(f(e0, e1), e2)`, ...). No guard, no padding. The same holds when
//!   both operands of a lane pass through one idempotent map `h` first
//!   ([`LaneMap`]: `abs`, `saturate`; `max(abs(a), abs(b))`): `f(x, y) =
//!   op(h(x), h(y))` depends on its operands only through `h`, and its
//!   value is a fixed point of `h` (`op` returns one of its operands'
//!   bits), so the clamped passes compute the plain `op` reduction of the
//!   `h`-mapped stream, which is what the guarded ones compute too
//!   (`docs/language-decisions.md` "Pass kernels without boundary guards"
//!   has the proof, NaN, −0 and denormals included). Its intermediate
//!   passes may differ (a block of one element gives `h(e0)`, not `e0`),
//!   never the value of a reduction of two or more elements.
//! - [`PassEdges::Padded`]: every lane is `+` or `*` of the same lane of
//!   `a` and `b`; the identity (0 or 1 per lane) is exact (`x + 0 = x`,
//!   `x * 1 = x`, NaN and infinities included; only the sign of a zero sum
//!   may change, which the spec's tolerance accepts). The loader pads the
//!   pass's input to a multiple of the block with it (the bindings'
//!   `input_padding`, `docs/abi-x1k.md` §4, `docs/abi-r700.md` §3.5), so a
//!   read past the edge returns the identity.
//! - [`PassEdges::Guarded`]: anything else, including bodies that mix the
//!   two kinds across lanes (a `min` lane has the identity +inf, but
//!   padding with it would turn a block of NaNs into +inf: `min(NaN, +inf)
//!   = +inf`, where the reference keeps NaN): the pass compares each read
//!   position with the grid's size and selects (`reduction.rs`).
//!
//! Recognised forms, `a` and `b` the two parameters in either order: `a +
//! b`, `a * b`, `min(a, b)`, `max(a, b)`, the same over equal swizzles
//! (`min(a.xy, b.xy)`), `min`/`max` of the same map of both
//! (`max(abs(a), abs(b))`, `min(saturate(b.x), saturate(a.x))`,
//! `max(abs(a).xy, abs(b).xy)`), and `vecN(..)` of such parts whose lanes
//! land in the lane they read (`vec4(min(a.xy, b.xy), max(a.zw, b.zw))`),
//! inside any number of blocks without statements.

use ctm_frontend::builtins::Builtin;
use ctm_frontend::tast::BinaryOp;
use ctm_frontend::tast::{Block, Expr, ExprKind, LocalId, Reduction};

/// The combining operator of one lane of a reduction's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneOp {
    /// `a + b`: identity 0.
    Add,
    /// `a * b`: identity 1.
    Mul,
    /// `min(a, b)`: identity +inf; idempotent.
    Min,
    /// `max(a, b)`: identity −inf; idempotent.
    Max,
}

impl LaneOp {
    /// The identity `e` with `op(x, e) = x` for every `x` but NaN (for
    /// `min`/`max`, `op(NaN, e) = e`: `numerics::min`).
    pub fn identity(self) -> f32 {
        match self {
            LaneOp::Add => 0.0,
            LaneOp::Mul => 1.0,
            LaneOp::Min => f32::INFINITY,
            LaneOp::Max => f32::NEG_INFINITY,
        }
    }

    /// Whether `op(x, x) = x` exactly for every `x`.
    pub fn idempotent(self) -> bool {
        matches!(self, LaneOp::Min | LaneOp::Max)
    }
}

/// How a pass kernel handles the reads of a block past the grid's edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PassEdges {
    /// Compares every read position with the grid's size and selects.
    Guarded,
    /// Reads unconditionally; the clamped repeats of edge elements do not
    /// change an idempotent body's result.
    Clamped,
    /// Reads unconditionally; the loader pads the input with this value
    /// (the body's identity per lane; lanes beyond the type's width 0).
    Padded([f32; 4]),
}

impl PassEdges {
    /// Whether the pass kernel carries the compares and selects.
    pub fn guarded(self) -> bool {
        matches!(self, PassEdges::Guarded)
    }

    /// The value the loader must pad the pass's input with, if any.
    pub fn padding(self) -> Option<[f32; 4]> {
        match self {
            PassEdges::Padded(v) => Some(v),
            _ => None,
        }
    }
}

/// A map both operands of a `min`/`max` lane pass through before they
/// are combined: lane `k` is `op(h(a[k]), h(b[k]))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneMap {
    /// The operands themselves.
    Identity,
    /// `abs`: clears the sign bit (NaN, zeros and infinities included).
    Abs,
    /// `saturate`: clamps to [0, 1], NaN to 0.
    Saturate,
}

/// One lane of a recognised body: `op(h(a[k]), h(b[k]))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The combining operator.
    pub op: LaneOp,
    /// The map of both operands; [`LaneMap::Identity`] for `+` and `*`.
    pub map: LaneMap,
}

/// The lanes of `reduction`'s body, lane `k` being `op(h(a[k]),
/// h(b[k]))`, when the body has one of the recognised forms (module doc);
/// `None` otherwise.
pub fn lanes(reduction: &Reduction) -> Option<Vec<Lane>> {
    let width = usize::from(reduction.ty.float_width()?);
    let [a, b] = reduction.params;
    let parts = block_parts(&reduction.body, a, b)?;
    (parts.len() == width
        && parts
            .iter()
            .enumerate()
            .all(|(k, &(_, l))| usize::from(l) == k))
    .then(|| parts.into_iter().map(|(lane, _)| lane).collect())
}

/// The per-lane combining operators of `reduction`'s body ([`lanes`]
/// without their maps).
pub fn lane_ops(reduction: &Reduction) -> Option<Vec<LaneOp>> {
    Some(lanes(reduction)?.into_iter().map(|l| l.op).collect())
}

/// How the pass kernel of `reduction` treats reads past the edge.
pub fn pass_edges(reduction: &Reduction) -> PassEdges {
    let Some(ops) = lane_ops(reduction) else {
        return PassEdges::Guarded;
    };
    if ops.iter().all(|op| op.idempotent()) {
        PassEdges::Clamped
    } else if ops.iter().all(|op| matches!(op, LaneOp::Add | LaneOp::Mul)) {
        let mut value = [0.0; 4];
        for (v, op) in value.iter_mut().zip(&ops) {
            *v = op.identity();
        }
        PassEdges::Padded(value)
    } else {
        PassEdges::Guarded
    }
}

/// The result lanes of a block without statements: (lane, lane of `a`
/// and `b` it reads).
fn block_parts(block: &Block, a: LocalId, b: LocalId) -> Option<Vec<(Lane, u8)>> {
    if !block.stmts.is_empty() {
        return None;
    }
    expr_parts(block.tail.as_ref()?, a, b)
}

fn expr_parts(e: &Expr, a: LocalId, b: LocalId) -> Option<Vec<(Lane, u8)>> {
    match &e.kind {
        ExprKind::Block(block) => block_parts(block, a, b),
        ExprKind::Binary { op, lhs, rhs } => {
            let op = match op {
                BinaryOp::Add => LaneOp::Add,
                BinaryOp::Mul => LaneOp::Mul,
                _ => return None,
            };
            pair(op, lhs, rhs, a, b)
        }
        ExprKind::Builtin { func, args } => {
            let op = match func {
                Builtin::Min => LaneOp::Min,
                Builtin::Max => LaneOp::Max,
                _ => return None,
            };
            match args.as_slice() {
                [x, y] => pair(op, x, y, a, b),
                _ => None,
            }
        }
        ExprKind::Construct(parts) => {
            let mut lanes = Vec::new();
            for p in parts {
                lanes.extend(expr_parts(p, a, b)?);
            }
            Some(lanes)
        }
        _ => None,
    }
}

/// `op(h(x), h(y))` where `x` and `y` read the same lanes, one of `a` and
/// the other of `b`, through the same map `h`; a map other than the
/// identity only under an idempotent `op`.
fn pair(op: LaneOp, x: &Expr, y: &Expr, a: LocalId, b: LocalId) -> Option<Vec<(Lane, u8)>> {
    let (xm, xs, xl) = mapped_operand(x)?;
    let (ym, ys, yl) = mapped_operand(y)?;
    let crossed = (xs == a && ys == b) || (xs == b && ys == a);
    let map_ok = xm == ym && (xm == LaneMap::Identity || op.idempotent());
    (crossed && a != b && xl == yl && map_ok)
        .then(|| xl.into_iter().map(|l| (Lane { op, map: xm }, l)).collect())
}

/// A parameter read whole or through a swizzle, possibly through `abs` or
/// `saturate` (`abs(a.xy)`, `abs(a).xy`): (map, local, lanes read).
fn mapped_operand(e: &Expr) -> Option<(LaneMap, LocalId, Vec<u8>)> {
    if let Some((map, inner)) = map_of(e) {
        let (l, lanes) = operand(inner)?;
        return Some((map, l, lanes));
    }
    if let ExprKind::Swizzle { base, lanes } = &e.kind
        && let Some((map, inner)) = map_of(base)
        && let ExprKind::Local(l) = &inner.kind
    {
        return Some((map, *l, lanes.lanes().to_vec()));
    }
    let (l, lanes) = operand(e)?;
    Some((LaneMap::Identity, l, lanes))
}

/// `h(x)` for a [`LaneMap`] `h` other than the identity: (h, x).
fn map_of(e: &Expr) -> Option<(LaneMap, &Expr)> {
    match &e.kind {
        ExprKind::Builtin { func, args } if args.len() == 1 => match func {
            Builtin::Abs => Some((LaneMap::Abs, &args[0])),
            Builtin::Saturate => Some((LaneMap::Saturate, &args[0])),
            _ => None,
        },
        _ => None,
    }
}

/// A parameter read whole or through a swizzle: (local, lanes read).
fn operand(e: &Expr) -> Option<(LocalId, Vec<u8>)> {
    match &e.kind {
        ExprKind::Local(l) => {
            let width = e.ty.float_width()?;
            Some((*l, (0..width).collect()))
        }
        ExprKind::Swizzle { base, lanes } => match &base.kind {
            ExprKind::Local(l) => Some((*l, lanes.lanes().to_vec())),
            _ => None,
        },
        _ => None,
    }
}
