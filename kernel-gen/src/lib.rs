//! A generator of random well-typed `.ck` kernels, and of arguments to run
//! them: the engine of the project's differential tests (reference
//! interpreter against the IR interpreter after every pass, and against
//! the simulated machine code of both GPUs).
//!
//! [`generate`] builds a program by type — every expression is drawn as a
//! value of the type its context needs (`expr_of(ty, depth)`), never
//! generated and then filtered — as an [`ast::File`], and prints it as
//! formatted source. The program checks without errors for
//! [`GenOptions::target`]: x1k's integer-operator, output-count and
//! scatter rules, every `Out` assigned before any `return` (defaults come
//! first), every loop bounded. [`NumericsMode`] decides how wild values may
//! be. [`random_args`] makes inputs and uniforms for a run.
//!
//! Everything is a function of the seed and the options: the same seed
//! gives the same text on every platform (the generator has its own
//! SplitMix64, [`Rng`], and uses no platform-dependent arithmetic). To
//! reproduce a failing case, call [`generate`] with the seed and options
//! the failure names; `docs/generator.md` has the details.
//!
//! This crate is test support (issue 8): it was `ctm_frontend::r#gen`, and is
//! used as a dev-dependency by the tests that need it.
//!
//! ```
//! use ctm_kernel_gen::{generate, random_args, GenOptions, NumericsMode};
//! use ctm_frontend::interp::{run_kernel, RunOptions};
//! use ctm_frontend::{compile, CheckOptions, Target};
//!
//! let options = GenOptions::new(Target::R700, NumericsMode::Robust);
//! let kernel = generate(7, &options);
//! let compiled = compile(&kernel.source, &CheckOptions { target: Target::R700 });
//! assert!(!ctm_frontend::diag::has_errors(&compiled.diagnostics));
//! let program = compiled.program.unwrap();
//! let k = program.kernel(&kernel.kernel_name).unwrap();
//! let args = random_args(k, (4, 3), 7, NumericsMode::Robust);
//! let run = run_kernel(&program, k, &args, &RunOptions::default()).unwrap();
//! // Compare another implementation's outputs with `kernel.tolerance()`.
//! assert!(!run.outputs.is_empty());
//! ```

mod args;
mod build;
mod builtin;
mod ctx;
pub mod examples;
mod expr;
mod items;
mod loops;
mod options;
mod print;
mod range;
mod rng;
mod scalar;
mod stmt;

pub use args::{ArgOptions, random_args, random_args_with};
pub use options::{Features, GenOptions, NumericsMode};
pub use range::{
    INT_MAG, LOOP_BOUND_MAX, MAX_DOMAIN, ROBUST_FLOAT, ROBUST_INT, ROBUST_MAG, ROBUST_MAT,
    ROBUST_U16,
};
pub use rng::Rng;

use ctm_frontend::ast;
use ctm_frontend::types::Target;
use ctx::Gen;
use print::{LiteralForms, print_file};
use range::OUT_ERR_TRANSCENDENTAL;

/// Salt of the random stream that chooses literal spellings, so that
/// printing never shifts the program's own choices.
const PRINT_SALT: u64 = 0x0070_7269_6E74;

/// A generated program and what is known about it.
#[derive(Clone, Debug)]
pub struct GeneratedKernel {
    /// The program as formatted source, starting with a comment naming
    /// the seed, target and mode.
    pub source: String,
    /// The name of its (only) kernel.
    pub kernel_name: String,
    /// The program as a syntax tree: what `source` parses to, up to spans,
    /// the spelling of literals, and a block's final `if` statement, which
    /// the parser reads as the block's tail (`docs/syntax.md` §3).
    pub file: ast::File,
    /// The seed it was generated from.
    pub seed: u64,
    /// The target it checks for.
    pub target: Target,
    /// Its numerics mode.
    pub numerics: NumericsMode,
    /// It calls a transcendental built-in (in the kernel or a helper).
    pub transcendental: bool,
}

impl GeneratedKernel {
    /// The relative tolerance of spec §7 for comparing this kernel's
    /// outputs with the reference: `2e-3` if it uses transcendentals,
    /// else `1e-5`. A robust kernel uses an approximate operation (a
    /// division included) only if it also calls a transcendental built-in,
    /// so comparisons must use this, not a scan of the optimized code.
    pub fn tolerance(&self) -> f32 {
        if self.transcendental { 2e-3 } else { 1e-5 }
    }
}

/// Generates the program of `seed` under `options`.
///
/// Never panics; options out of range are brought into range (see
/// [`GenOptions`]).
pub fn generate(seed: u64, options: &GenOptions) -> GeneratedKernel {
    let o = options.normalized();
    let mut rng = Rng::new(seed);
    let robust = o.numerics == NumericsMode::Robust;
    let out_err = if !robust {
        f64::INFINITY
    } else if o.features.transcendentals && rng.percent(70) {
        OUT_ERR_TRANSCENDENTAL
    } else {
        0.0
    };
    let kernel_name = format!("gen_{seed:x}");
    let mut g = Gen::new(rng, &o, robust, out_err);
    let consts = g.const_items();
    let helpers = g.helper_items();
    let (mut kernel, marker) = g.kernel_item(&kernel_name);
    let helper_bodies = helpers.iter().filter_map(|h| match h {
        ast::Item::Fn(f) => Some(&f.body),
        _ => None,
    });
    let mut transcendental = helper_bodies.clone().any(items::calls_transcendental);
    if marker {
        // The kernel starts with a marker `let _t = sin(..);`; keep it only
        // if nothing else makes the kernel transcendental.
        let rest = ast::Block {
            stmts: kernel.body.stmts[1..].to_vec(),
            ..kernel.body.clone()
        };
        if transcendental || items::calls_transcendental(&rest) {
            kernel.body.stmts.remove(0);
        }
        transcendental = true;
    } else {
        transcendental = transcendental || items::calls_transcendental(&kernel.body);
    }
    let mut items_list: Vec<ast::Item> = consts;
    items_list.extend(helpers);
    items_list.push(ast::Item::Kernel(kernel));
    if g.rng.percent(15) {
        // Items may come in any order (spec §2).
        g.rng.shuffle(&mut items_list);
    }
    let file = ast::File { items: items_list };
    let header = vec![
        format!(
            "generated by ctm_frontend::gen: seed {seed:#x}, target {}, {}",
            o.target,
            o.numerics.name()
        ),
        "reproduce with ctm_frontend::gen::generate(seed, &options); see docs/generator.md"
            .to_string(),
    ];
    let forms = LiteralForms(
        o.features
            .literal_forms
            .then(|| Rng::derived(seed, PRINT_SALT)),
    );
    let source = print_file(&file, &header, forms);
    GeneratedKernel {
        source,
        kernel_name,
        file,
        seed,
        target: o.target,
        numerics: o.numerics,
        transcendental,
    }
}
