//! `ctm-macros`: the `ctm_kernel!` proc-macro.
//!
//! It will compile `.ck` kernels written inside Rust source at build time,
//! mapping diagnostics back to spans inside the macro input.
