//! The compiler pipeline, built in one place: lower the entry point to the
//! graph IR, verify, optimise with the target's cost model, verify, and
//! hand the [`Verified`] module to the target's code generator.
//!
//! `--emit ir` and `--emit dot` print [`optimized_ir`]'s module, which is
//! exactly what [`compile_entry`] gives the code generator of the same
//! target (`--target ref` uses the target-neutral cost model). A reduction
//! compiles its pass kernel (`ir::lower::lower_reduction_pass`) for the
//! stream type the pass reads.

use crate::compile::{Compilation, name_span};
use crate::target::{CodegenFailure, InternalError, MachineProgram, MachineTarget};
use ctm_frontend::Entry;
use ctm_frontend::types::{StreamType, Type};
use ctm_ir::cost::{CostModel, DefaultCost};
use ctm_ir::passes;
use ctm_ir::verify::Verified;

/// The stream type a reduction's passes after the first read: the
/// reduction's own value type.
pub fn reduction_stream_type(ty: Type) -> StreamType {
    match ty {
        Type::Vec2 => StreamType::Vec2,
        Type::Vec4 => StreamType::Vec4,
        _ => StreamType::F32,
    }
}

/// The cost model of `target` (`None`: the reference interpreter's
/// target-neutral one).
pub fn cost_model(target: Option<&dyn MachineTarget>) -> &'static dyn CostModel {
    match target {
        Some(t) => t.cost_model(),
        None => &DefaultCost,
    }
}

/// The entry point of `compilation` in graph IR, optimised at the
/// compilation's level with `cost` and verified
/// ([`ctm_ir::passes::pipeline`]). A reduction is its pass kernel reading
/// a stream of `input` (`None`: the reduction's own type).
///
/// # Errors
/// [`InternalError::IrVerify`] when verification fails (a compiler bug).
pub fn optimized_ir(
    compilation: &Compilation,
    cost: &dyn CostModel,
    input: Option<StreamType>,
) -> Result<Verified, InternalError> {
    let program = compilation.program();
    let module = match compilation.entry() {
        Entry::Kernel(k) => ctm_ir::lower::lower_kernel(program, k),
        Entry::Reduction(r) => {
            let input = input.unwrap_or_else(|| reduction_stream_type(r.ty));
            ctm_ir::lower::lower_reduction_pass(program, r, input)
        }
    };
    passes::pipeline(module, compilation.options().opt_level, cost).map_err(|e| {
        InternalError::IrVerify {
            stage: e.stage,
            errors: e.errors.to_string(),
        }
    })
}

/// Compiles the entry point of `compilation` for `target`: the pipeline
/// with its cost model, then its code generator (whose program has passed
/// its hardware validator). A reduction compiles its pass kernel reading
/// a stream of `input` (`None`: the reduction's own type).
///
/// # Errors
/// [`CodegenFailure::Limit`] (its span narrowed to the entry point's
/// name) for a kernel beyond a hardware limit, [`CodegenFailure::Internal`]
/// for a bug.
pub fn compile_entry(
    source: Option<&str>,
    compilation: &Compilation,
    target: &dyn MachineTarget,
    input: Option<StreamType>,
) -> Result<Box<dyn MachineProgram>, CodegenFailure> {
    let ir = optimized_ir(compilation, target.cost_model(), input)?;
    target.compile(&ir).map_err(|e| match e {
        CodegenFailure::Limit(mut d) => {
            let entry = compilation.entry();
            let item = match entry {
                Entry::Kernel(k) => k.span,
                Entry::Reduction(r) => r.span,
            };
            d.span = match source {
                Some(source) => name_span(source, item, entry.name()),
                None => item,
            };
            CodegenFailure::Limit(d)
        }
        e => e,
    })
}
