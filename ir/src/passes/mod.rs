//! Target-independent optimisation passes, one per file, and the pipeline
//! [`optimize`] that runs them per optimisation level.

pub mod cse;
pub mod dce;
pub mod fold;
pub mod if_convert;
pub mod launch_const;
pub mod licm;
pub mod mad;
pub mod simplify;
pub mod unroll;

use crate::cost::CostModel;
use crate::graph::Module;
use crate::verify::{self, Verified, VerifyErrors};

/// Optimisation level (`-O0`, `-O1`, `-O2`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord, Default)]
pub enum OptLevel {
    /// No passes: the IR as lowered.
    O0,
    /// Cheap cleanups: folding, simplification, CSE, DCE; then launch
    /// constants.
    O1,
    /// Everything: also unrolling, loop-invariant code motion,
    /// if-conversion, launch constants and multiply-add formation.
    #[default]
    O2,
}

/// When to run the verifier between passes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VerifyEach {
    /// After every pass (debug builds and tests).
    Yes,
    /// Only at the end.
    No,
}

/// Options of the pipeline.
pub struct Options<'c> {
    /// The level.
    pub level: OptLevel,
    /// Fully unroll a loop with a known trip count when trips × body nodes
    /// stays within this many nodes.
    pub unroll_budget: usize,
    /// The target's costs for if-conversion.
    pub cost: &'c dyn CostModel,
    /// Verify after each pass.
    pub verify_each: VerifyEach,
}

impl Options<'_> {
    /// The default options for `level` with the default cost model.
    pub fn new(level: OptLevel) -> Options<'static> {
        Options {
            level,
            unroll_budget: 512,
            cost: &crate::cost::DefaultCost,
            verify_each: if cfg!(debug_assertions) {
                VerifyEach::Yes
            } else {
                VerifyEach::No
            },
        }
    }
}

/// Applies `rewrite` to every node of every region, in dependency order
/// within each region (nodes a rewrite removes are skipped). Returns
/// `true` if any call reported a change. The driver of the node-local
/// passes ([`simplify`], [`mad`]).
fn rewrite_nodes(
    m: &mut Module,
    mut rewrite: impl FnMut(&mut Module, crate::graph::NodeId) -> bool,
) -> bool {
    let regions: Vec<crate::graph::RegionId> = m.region_ids().collect();
    let mut changed = false;
    for r in regions {
        if m.regions[r.index()].is_none() {
            continue;
        }
        let Some(order) = m.topo_order(r) else {
            continue;
        };
        for n in order {
            if m.contains(n) {
                changed |= rewrite(m, n);
            }
        }
    }
    changed
}

/// One pass: its name (for messages) and its entry point, which returns
/// whether it changed anything.
type Pass = (&'static str, fn(&mut Module, &Options) -> bool);

/// Runs the pipeline of `options.level` on `m`, to a fixpoint (bounded).
///
/// # Errors
/// A verifier failure after some pass (an internal error naming the pass).
pub fn optimize(m: &mut Module, options: &Options) -> Result<(), VerifyErrors> {
    let passes: &[Pass] = match options.level {
        OptLevel::O0 => &[],
        OptLevel::O1 => &[
            ("fold", |m, _| fold::run(m)),
            ("simplify", |m, _| simplify::run(m)),
            ("cse", |m, _| cse::run(m)),
            ("dce", |m, _| dce::run(m)),
        ],
        OptLevel::O2 => &[
            ("fold", |m, _| fold::run(m)),
            ("simplify", |m, _| simplify::run(m)),
            ("cse", |m, _| cse::run(m)),
            ("dce", |m, _| dce::run(m)),
            ("unroll", |m, o| unroll::run(m, o.unroll_budget)),
            ("licm", |m, _| licm::run(m)),
            ("if-convert", |m, o| if_convert::run(m, o.cost)),
        ],
    };
    for _round in 0..8 {
        let mut changed = false;
        for (name, pass) in passes {
            changed |= pass(m, options);
            if options.verify_each == VerifyEach::Yes {
                verify::check(m, name)?;
            }
        }
        if !changed {
            break;
        }
    }
    // Launch constants once the cleanups and LICM have settled (so that
    // CSE has merged equal subexpressions and loop-invariant uniform work
    // sits outside its loop), and before multiply-add formation (so that a
    // uniform-only product is not fused into a per-element MAD first, and
    // the expressions hold only the plain operations).
    if options.level >= OptLevel::O1 && launch_const::run(m) {
        cse::run(m);
        dce::run(m);
        if options.verify_each == VerifyEach::Yes {
            verify::check(m, "launch-const")?;
        }
    }
    // Multiply-adds last, so that folding and simplification see the
    // plain operations.
    if options.level == OptLevel::O2 {
        mad::run(m);
        fold::run(m);
        cse::run(m);
        dce::run(m);
        if options.verify_each == VerifyEach::Yes {
            verify::check(m, "mad")?;
        }
    }
    Ok(())
}

/// Why [`pipeline`] failed: the verifier's errors after a stage (a
/// compiler bug).
#[derive(Clone, Debug, thiserror::Error)]
#[error("the IR failed verification after {stage}: {errors}")]
pub struct PipelineError {
    /// The stage: `lowering` or `optimisation` (or a pass's name when
    /// every pass is verified).
    pub stage: String,
    /// The verifier's errors.
    pub errors: VerifyErrors,
}

/// The IR pipeline, defined once for the driver, the code generators'
/// tests and the benches: verify the lowered module, optimise it at
/// `level` with the target's `cost` model (verifying after every pass in
/// debug builds), and verify the result. What it returns is exactly what
/// a target's code generator receives, and what `--emit ir` prints.
///
/// # Errors
/// [`PipelineError`] naming the stage after which verification failed.
pub fn pipeline(
    module: Module,
    level: OptLevel,
    cost: &dyn CostModel,
) -> Result<Verified, PipelineError> {
    let failed = |stage: &str, errors: VerifyErrors| PipelineError {
        stage: stage.to_string(),
        errors,
    };
    verify::check(&module, "lowering").map_err(|e| failed("lowering", e))?;
    let mut module = module;
    let mut options = Options::new(level);
    options.cost = cost;
    optimize(&mut module, &options).map_err(|e| failed("optimisation", e))?;
    verify::verify(module, "optimisation").map_err(|e| failed("optimisation", e))
}
