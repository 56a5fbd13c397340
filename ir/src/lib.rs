//! `ctm-ir`: the structured, regionalized dataflow graph IR of ctm.
//!
//! It will own lowering from the typed AST of `ctm-frontend`, the
//! target-independent passes (folding, CSE, DCE, unrolling, if-conversion),
//! the verifier, the IR interpreter and the text and Graphviz printers.
//! See `docs/architecture.md`.
