//! `ctm-ir`: the structured, regionalized dataflow graph IR of ctm.
//!
//! # Semantics
//!
//! A [`Module`] is one kernel. Its body is a tree of [`graph::Region`]s,
//! each an acyclic dataflow graph of [`op::Op`] nodes (stored in a
//! [`dfg::Dfg`]). A node's inputs are ordered by port; it computes its
//! outputs from its inputs only, so any order consistent with the edges
//! gives the same values. There is no other control flow than:
//!
//! - **gamma** ([`op::Gamma`]): runs one of two regions, chosen by a `bool`
//!   predicate, on the gamma's entry values; the region's results become the
//!   gamma's outputs;
//! - **theta** ([`op::Theta`]): runs its body region at least once, feeding
//!   each iteration's results to the next iteration's arguments while the
//!   body's first result (the continue predicate) is true.
//!
//! Values cross into a region only as arguments and out only as results, so
//! scoping (and thus dominance) holds by construction. The only side effect
//! is a scatter write; scatters are ordered by a state token (type
//! [`Ty::State`]) that they consume and produce, threaded through gammas
//! and thetas like any other value. Output streams are not effects: the
//! root region returns each output's final value, a `discarded` flag and the
//! final state. `break`, `continue`, `return` and `discard` are lowered to
//! flags and gammas ([`lower`]).
//!
//! # Crate map
//!
//! [`types`] and [`op`] define values and operations; [`graph`] the
//! regions and [`dfg`] their storage; [`lower`] builds modules from the typed AST; [`passes`] holds
//! the optimisations and [`passes::optimize`] the pipeline; [`verify`] the
//! verifier; [`interp`] the IR interpreter; [`print`] the text and
//! Graphviz printers; [`cost`] the if-conversion cost model that targets
//! implement; [`analysis`] the target-neutral analyses that code
//! generators build on; [`fasthash`] the hasher of the compiler's internal maps.

pub mod analysis;
pub mod cost;
pub mod dfg;
pub mod edit;
pub mod fasthash;
pub mod graph;
pub mod interp;
pub mod launch;
pub mod lower;
pub mod op;
pub mod passes;
pub mod print;
pub mod types;
pub mod verify;

pub use graph::{Module, NodeId, RegionId, Value};
pub use op::Op;
pub use types::Ty;
