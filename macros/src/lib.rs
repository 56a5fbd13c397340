//! `ctm-macros`: the `ctm_kernel!` proc-macro (`docs/host-api.md`).
//!
//! It turns its input back into `.ck` source text (module `source`), compiles
//! every entry point at Rust build time for every machine target through
//! the driver's pipeline — the one `ctmc` runs, so the embedded ELF files
//! are byte-identical to `ctmc`'s — and generates one module per entry
//! point with a typed `launch` (or `reduce`) (module `expand`). Errors in the
//! source become `compile_error!`s on the offending tokens.

mod expand;
mod source;

use proc_macro::TokenStream;

/// Compiles `.ck` items (kernels, reductions, helper functions, consts)
/// at build time and generates, per entry point, a module with the ELF
/// file of every machine target and a typed `launch` (kernels) or
/// `reduce` (reductions). Use it through `ctm::ctm_kernel!`; see the
/// `ctm` crate's `docs/host-api.md` for the expansion.
#[proc_macro]
pub fn ctm_kernel(input: TokenStream) -> TokenStream {
    expand::expand(input).into()
}
