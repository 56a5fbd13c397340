//! Loop analyses for selection, on top of the target-neutral ones in
//! `ctm_ir::analysis` (value origins, effects, dependencies, the `for`
//! shape): a `for` bound as an X1K integer-constant source, and the
//! `start < end` guard a REP does not need. (Which loops set aL for
//! uniform-array reads: `arrays`.)
//!
//! **The entry guard.** A `for` loop is a tail-controlled theta under a
//! gamma testing `start < end` (the theta runs at least once). `REP`/`LOOP`
//! with a zero count skip their body (CTM §3.5.3 special cases), so when
//! the gamma's other branch passes through exactly the loop's initial
//! values (`ctm_ir::analysis::for_loop::entry_guard`) and the loop is
//! selected as a counted loop, the gamma is dropped and the loop selected
//! unconditionally.

use crate::abi::IntSource;
use ctm_ir::analysis::for_loop::{self, Bound};
use ctm_ir::graph::{Module, NodeId, Value};
use ctm_ir::op::Op;

pub use ctm_ir::analysis::deps::dependencies;
pub use ctm_ir::analysis::effects::has_effects;
pub use ctm_ir::analysis::for_loop::early_exit_ok;
pub use ctm_ir::analysis::origin::origin;

/// A `for` bound: an integer constant or an `i32` uniform.
pub fn bound_source(m: &Module, v: Value) -> Option<IntSource> {
    int_source(m, for_loop::bound(m, v)?)
}

/// A [`Bound`] as the ABI names it.
fn int_source(m: &Module, b: Bound) -> Option<IntSource> {
    Some(match b {
        Bound::Const(c) => IntSource::Const(c),
        Bound::Uniform(p) => IntSource::Uniform(m.params.get(p.index())?.name.clone()),
    })
}

/// Whether gamma `gamma` only guards the `for` loop in its first branch
/// (`for_loop::entry_guard`) and that loop is counted in hardware (its
/// counter test is dropped for the bounds the guard tests).
pub fn guard_only(m: &Module, gamma: NodeId, needed: &dyn Fn(Value) -> bool) -> bool {
    let Some(theta) = for_loop::entry_guard(m, gamma, needed) else {
        return false;
    };
    let Op::Theta(t) = m.node(theta).op else {
        return false;
    };
    let Some((start, end)) = for_loop::counter_bounds(m, theta) else {
        return false;
    };
    let bounds = int_source(m, start).zip(int_source(m, end));
    bounds.is_some() && super::flow::loop_conjuncts(m, theta, &t).1 == bounds
}
