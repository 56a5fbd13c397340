//! Per-target rules and limits (spec §3–§4): x1k's integer operators and
//! output kinds, output/input counts, constant budgets, and the x1k loop
//! counter warning.

use crate::diag::{Code, Diagnostic};
use crate::tast::{self, ExprKind, Kernel, ParamKind, Program, StmtKind, UnaryOp};
use crate::types::{Target, Type};

/// Float constant registers available to uniforms on both targets.
const FLOAT_CONSTANTS: u32 = 256;
/// Boolean constants on both targets.
const BOOL_CONSTANTS: usize = 32;

/// Checks `kernel` (and, for x1k, the helpers it calls) against the rules
/// of `target`.
pub fn check_kernel(
    program: &Program,
    kernel: &Kernel,
    target: Target,
    diags: &mut Vec<Diagnostic>,
) {
    let count =
        |f: &dyn Fn(&ParamKind) -> bool| kernel.params.iter().filter(|p| f(&p.kind)).count();
    let outputs: Vec<&tast::KernelParam> = kernel
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Output(_) | ParamKind::Scatter))
        .collect();
    let max_out = target.max_outputs();
    if outputs.len() > max_out {
        diags.push(
            Diagnostic::new(
                Code::TooManyOutputs,
                outputs[max_out].span,
                format!(
                    "kernel `{}` has {} outputs; {} allows at most {max_out}",
                    kernel.name,
                    outputs.len(),
                    target
                ),
            )
            .with_label("one too many")
            .with_help("split the kernel into several kernels"),
        );
    }
    let inputs: Vec<&tast::KernelParam> = kernel
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Input(_)))
        .collect();
    let max_in = target.max_inputs();
    if inputs.len() > max_in {
        diags.push(
            Diagnostic::new(
                Code::TooManyInputs,
                inputs[max_in].span,
                format!(
                    "kernel `{}` has {} input streams; at most {max_in} are allowed",
                    kernel.name,
                    inputs.len()
                ),
            )
            .with_label("one too many")
            .with_help("pack streams into vec4 streams, or split the kernel"),
        );
    }
    let slots: u32 = kernel
        .params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Uniform(Type::Bool) => 0,
            ParamKind::Uniform(t) => t.constant_slots(),
            _ => 0,
        })
        .sum();
    if slots > FLOAT_CONSTANTS {
        diags.push(
            Diagnostic::new(
                Code::TooManyConstants,
                kernel.params.first().map_or(kernel.span, |p| p.span),
                format!("the uniforms of `{}` need {slots} float constants; there are {FLOAT_CONSTANTS}", kernel.name),
            )
            .with_label("uniforms start here")
            .with_help("each f32/vector/i32 uniform takes one constant, a mat4 four, an array one per element"),
        );
    }
    let bools = count(&|k| matches!(k, ParamKind::Uniform(Type::Bool)));
    if bools > BOOL_CONSTANTS {
        diags.push(
            Diagnostic::new(
                Code::TooManyBoolConstants,
                kernel.span,
                format!("kernel `{}` has {bools} bool uniforms; there are {BOOL_CONSTANTS} boolean constants", kernel.name),
            )
            .with_help("pack flags into an i32 uniform or f32 values"),
        );
    }
    if target != Target::X1k {
        return;
    }
    let scatter = kernel.params.iter().find(|p| p.kind == ParamKind::Scatter);
    let out = kernel
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Output(_)));
    if let (Some(s), Some(o)) = (scatter, out) {
        diags.push(
            Diagnostic::new(
                Code::X1kScatterWithOutputs,
                s.span,
                "x1k cannot mix `Scatter` and `Out` streams in one kernel",
            )
            .with_label("scatter output")
            .with_secondary(o.span, "`Out` stream")
            .with_help("x1k writes either render targets or uncached memory (UMRT) in one program: split the kernel, or use --target r700"),
        );
    }
    let scatters: Vec<&tast::KernelParam> = kernel
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Scatter)
        .collect();
    if scatters.len() > 1 {
        diags.push(
            Diagnostic::new(
                Code::TooManyOutputs,
                scatters[1].span,
                format!("kernel `{}` has {} scatter streams; x1k has one uncached output", kernel.name, scatters.len()),
            )
            .with_label("a second scatter stream")
            .with_help("x1k's uncached (UMRT) writes all go to one buffer: merge the scatters, split the kernel, or use --target r700"),
        );
    }
    check_x1k_block(&kernel.body, diags);
    // Helpers are checked once per program, not per kernel.
    if std::ptr::eq(kernel, program.kernels.first().unwrap_or(kernel)) {
        for f in &program.functions {
            check_x1k_block(&f.body, diags);
        }
        for r in &program.reductions {
            check_x1k_block(&r.body, diags);
        }
    }
}

/// x1k emulates `i32` in f32 (spec §3): no `/ % & | ^ << >> !` on `i32`;
/// and its loop counter stops at 255 iterations.
fn check_x1k_block(block: &tast::Block, diags: &mut Vec<Diagnostic>) {
    tast::walk_block(block, &mut |e| {
        let bad = match &e.kind {
            ExprKind::Binary { op, lhs, .. }
                if lhs.ty == Type::I32 && op.is_integer_only_on_r700() =>
            {
                Some(op.symbol())
            }
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } if operand.ty == Type::I32 => Some("!"),
            _ => None,
        };
        if let Some(sym) = bad {
            diags.push(
                Diagnostic::new(Code::X1kIntegerOperator, e.span, format!("`{sym}` on i32 is not supported on x1k"))
                    .with_label("integer operator")
                    .with_help("x1k emulates i32 in f32 (exact below 2^24) and has no integer division, remainder, bitwise or shift operators; compute in f32, or use --target r700"),
            );
        }
    });
    tast::walk_stmts(block, &mut |s| {
        if matches!(s.kind, StmtKind::While { .. } | StmtKind::Loop { .. }) {
            diags.push(
                Diagnostic::new(
                    Code::X1kUnboundedLoop,
                    s.span,
                    "this loop may run more than 255 iterations on x1k",
                )
                .with_label("bound not known at compile time")
                .with_note(
                    "x1k's hardware loop counter stops a loop after 255 iterations per entry",
                )
                .with_help(
                    "use `for k in 0..N` with N <= 255 and `break` to make the bound explicit",
                ),
            );
        }
    });
}
