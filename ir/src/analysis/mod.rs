//! Target-neutral analyses of a [`Module`](crate::Module) that code
//! generators build on: they compute facts about the graph and never
//! change it. Each file is one analysis; results are answered per query
//! or returned in side tables keyed by [`NodeId`](crate::NodeId) (style.md
//! §2), never stored in nodes.
//!
//! - [`origin`]: the value a value stands for through region arguments and
//!   pass-through ports, and which theta arguments a body passes through
//!   unchanged (loop invariance).
//! - [`effects`]: whether a region (or one nested in it) has effects.
//! - [`deps`]: the nodes of a region that a value depends on.
//! - [`for_loop`]: the shape of a lowered `for` loop: its counter test and
//!   bounds, the `start < end` entry guard around it, and which continue
//!   conjuncts may leave the loop early.
//! - [`affine`]: integer values as affine functions of `for` counters, and
//!   their ranges.

pub mod affine;
pub mod deps;
pub mod effects;
pub mod for_loop;
pub mod origin;
