//! The R700 code generator: verified graph IR to an [`Executable`].
//!
//! The pipeline ([`compile`]) reads as a list (`docs/backend-r700.md`):
//!
//! 1. [`isel`]: selection into [`mir`] (scalar ops on virtual registers,
//!    fetches, exports, structured control flow);
//! 2. [`coalesce`]: fetches hoisted into shared TEX clauses, copies into
//!    tuples removed;
//! 3. [`predicate`]: small `if`s predicated inside their clause;
//! 4. [`sched`]: each straight-line run of ALU ops is list-scheduled into
//!    instruction groups of up to five units, which fixes the element of
//!    every result;
//! 5. [`regalloc`]: per-element GPR allocation by linear scan;
//! 6. [`clause`]: bank swizzles (searched; a group without a legal
//!    assignment is split), ALU and TEX clauses, the CF program, the
//!    stack size;
//! 7. the hardware validator: a violation is an internal error naming
//!    the rule, never output.
//!
//! [`cost::R700Cost`] is the cost model [`optimize_for_r700`] gives the
//! IR's if-conversion.

pub mod clause;
pub mod coalesce;
pub mod cost;
pub mod fuse;
pub mod isel;
pub mod mir;
pub mod predicate;
pub mod regalloc;
pub mod sched;
pub mod share;

use std::borrow::Cow;

use ctm_frontend::Code;
use ctm_frontend::tast::ParamKind;
use ctm_ir::passes::{OptLevel, VerifyEach};
use ctm_ir::verify::Verified;

use crate::abi::{Bindings, InputBinding, OutputBinding, ScatterBinding, UniformBinding};
use crate::{Executable, Resources};
use mir::{Block, Item, Mir};
use regalloc::SItem;
use sched::Channels;

/// Code generation options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Float `/` correctly rounded (about 27 more ALU ops per division,
    /// `docs/backend-r700.md` §"Division") instead of the default
    /// `a · RECIP_IEEE(b)`. The driver does not set it: its `--check`
    /// model (`Numerics::R700`) is the default's arithmetic.
    pub exact_division: bool,
}

/// Why code generation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// The kernel exceeds a hardware limit (a user error with a code).
    #[error("error[{}]: {message}", code_text(*code))]
    Limit {
        /// The diagnostic code.
        code: Code,
        /// The kernel.
        kernel: String,
        /// What was exceeded, with the limit.
        message: String,
    },
    /// A rule the code generator broke (a compiler bug), named as the
    /// validator names it (`validate::Rule::name`) or as the generator's
    /// own invariant.
    #[error("internal error: r700 code generation broke rule `{rule}`: {detail}")]
    Internal {
        /// The rule.
        rule: Cow<'static, str>,
        /// What happened.
        detail: String,
    },
    /// The IR verifier rejected the optimised module.
    #[error("{0}")]
    Verify(String),
}

fn code_text(c: Code) -> String {
    format!("CK{:04}", c as u32)
}

impl CodegenError {
    /// An internal error naming the broken rule.
    pub fn internal(rule: &'static str, detail: impl Into<String>) -> CodegenError {
        CodegenError::Internal {
            rule: Cow::Borrowed(rule),
            detail: detail.into(),
        }
    }

    /// A hardware limit exceeded by the kernel.
    pub fn limit(code: Code, kernel: &str, message: impl Into<String>) -> CodegenError {
        CodegenError::Limit {
            code,
            kernel: kernel.to_string(),
            message: message.into(),
        }
    }

    /// The diagnostic code of a user-facing limit.
    pub fn code(&self) -> Option<Code> {
        match self {
            CodegenError::Limit { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// Schedules every segment of `block`.
fn schedule_block(
    block: &Block,
    mir: &mut Mir,
    chans: &mut Channels,
) -> Result<Vec<SItem>, CodegenError> {
    let mut out = Vec::new();
    let mut run = Vec::new();
    let flush = |run: &mut Vec<mir::AluOp>,
                 out: &mut Vec<SItem>,
                 mir: &mut Mir,
                 chans: &mut Channels|
     -> Result<(), CodegenError> {
        if !run.is_empty() {
            let seg = sched::schedule(std::mem::take(run), mir, chans)?;
            out.push(SItem::Seg(seg));
        }
        Ok(())
    };
    for item in block {
        match item {
            Item::Alu(op) => run.push(op.clone()),
            Item::If { then, els } => {
                flush(&mut run, &mut out, mir, chans)?;
                let t = schedule_block(then, mir, chans)?;
                let e = schedule_block(els, mir, chans)?;
                out.push(SItem::If(t, e));
            }
            Item::Loop { body } => {
                flush(&mut run, &mut out, mir, chans)?;
                let b = schedule_block(body, mir, chans)?;
                out.push(SItem::Loop(b));
            }
            other => {
                flush(&mut run, &mut out, mir, chans)?;
                out.push(SItem::Other(other.clone()));
            }
        }
    }
    flush(&mut run, &mut out, mir, chans)?;
    Ok(out)
}

/// Compiles a verified module to an R700 executable.
///
/// # Errors
/// [`CodegenError::Limit`] when the kernel exceeds a hardware limit,
/// [`CodegenError::Internal`] when the generator broke a rule (the
/// validator's rule name when it was the validator that found it).
pub fn compile(module: &Verified, options: &Options) -> Result<Executable, CodegenError> {
    compile_with_report(module, options).map(|(e, _)| e)
}

/// What the code generator measured besides the program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The lower bound on ALU groups: per straight-line segment at least
    /// max(⌈ops / 5⌉, Trans-only ops, critical path in groups), refined
    /// by the unit counts of the ops each depth, height or short window of
    /// the path confines (`sched::lower_bound`), summed.
    pub lower_bound: usize,
}

/// [`compile`], also returning the [`Report`].
///
/// # Errors
/// As [`compile`].
pub fn compile_with_report(
    module: &Verified,
    options: &Options,
) -> Result<(Executable, Report), CodegenError> {
    let m = module.module();
    let kernel = m.name.clone();
    let (mut mir, layout) = isel::Selector::new(m)?
        .exact_division(options.exact_division)
        .run()?;
    coalesce::run(&mut mir);
    let branched = mir.clone();
    let predicated = predicate::run(&mut mir) > 0;
    let (mir, items, alloc, (program, stack)) = match back_end(mir, &kernel) {
        // A predicate whose range the scheduler stretched past what one
        // clause holds: the same kernel with its `if`s branched instead.
        Err(CodegenError::Internal { rule, .. })
            if predicated && rule == clause::PREDICATE_CROSSES_CLAUSE =>
        {
            back_end(branched, &kernel)?
        }
        other => other?,
    };
    let report = Report {
        lower_bound: lower_bound(&items, &mir),
    };
    if stack > 32 {
        return Err(CodegenError::limit(
            Code::FlowControlTooDeep,
            &kernel,
            format!("`{kernel}` nests flow control {stack} stack entries deep; ctm allows 32"),
        ));
    }
    let config = crate::validate::Config {
        stack_size: stack as usize,
        clause_temps: alloc.clause_temps as usize,
        ..crate::validate::Config::default()
    };
    if let Err(violations) = crate::validate::validate_with(&program, &config) {
        let first = &violations[0];
        return Err(CodegenError::Internal {
            rule: Cow::Owned(first.rule.name()),
            detail: format!(
                "{first} ({} violation(s))\n{}",
                violations.len(),
                crate::isa::format_program(&program)
            ),
        });
    }
    let bindings = bindings(m, &layout);
    let color_exports = bindings.outputs.len() as u32;
    Ok((
        Executable {
            program,
            resources: Resources {
                num_gprs: alloc.num_gprs,
                stack_size: stack,
                kill: mir.kills,
                color_exports,
                clause_temps: alloc.clause_temps,
            },
            bindings,
        },
        report,
    ))
}

/// What a scheduled, allocated and emitted kernel consists of.
type BackEnd = (
    Mir,
    Vec<SItem>,
    regalloc::Allocation,
    (crate::isa::Program, u32),
);

/// Scheduling, allocation and clauses of the selected kernel `mir`.
fn back_end(mut mir: Mir, kernel: &str) -> Result<BackEnd, CodegenError> {
    let mut chans = Channels::new(&mir);
    let body = std::mem::take(&mut mir.body);
    let items = schedule_block(&body, &mut mir, &mut chans)?;
    mir.body = body;
    let alloc = regalloc::allocate(&mir, &chans, &items, kernel, regalloc::Temps::No)?;
    let (emitted, layout) = clause::emit_mapped(&items, &alloc, &chans)?;
    // Clause temporaries for values whose live range stays inside one ALU
    // clause (regalloc.rs), kept where they lower NUM_GPRS and the
    // validator finds every one written earlier in its clause. Allocation
    // precedes clause formation and temporaries can move the cuts (a
    // group split by the swizzle search): a second try also avoids the
    // cuts the first one's clauses made.
    let mut layouts = vec![layout];
    for _ in 0..2 {
        let Ok(with) = regalloc::allocate(
            &mir,
            &chans,
            &items,
            kernel,
            regalloc::Temps::InClauses(&layouts),
        ) else {
            break;
        };
        if with.clause_temps == 0
            || with.num_gprs >= alloc.num_gprs
            || with.num_gprs > regalloc::MAX_GPRS_WITH_TEMPS
        {
            break;
        }
        let Ok((e, layout)) = clause::emit_mapped(&items, &with, &chans) else {
            break;
        };
        if crate::validate::clause_temp_violations(&e.0, with.clause_temps as usize).is_empty() {
            return Ok((mir, items, with, e));
        }
        if layouts.contains(&layout) {
            break;
        }
        layouts.push(layout);
    }
    Ok((mir, items, alloc, emitted))
}

fn lower_bound(items: &[SItem], mir: &Mir) -> usize {
    items
        .iter()
        .map(|it| match it {
            SItem::Seg(s) => sched::lower_bound(&s.ops, mir),
            SItem::If(t, e) => lower_bound(t, mir) + lower_bound(e, mir),
            SItem::Loop(b) => lower_bound(b, mir),
            SItem::Other(_) => 0,
        })
        .sum()
}

/// The ABI bindings (`docs/abi-r700.md` §3).
fn bindings(m: &ctm_ir::Module, layout: &isel::Layout) -> Bindings {
    let mut b = Bindings {
        kernel: m.name.clone(),
        domain_element: layout.domain,
        cb0_elements: layout.cb0_elements,
        input_padding_bits: m.input_padding.map(|v| v.map(f32::to_bits)),
        launch_constants: m
            .launch_constants
            .iter()
            .map(|c| {
                let (param, ty, expr) = c.binding(m);
                crate::abi::LaunchConstantBinding { param, ty, expr }
            })
            .collect(),
        ..Bindings::default()
    };
    for (i, p) in m.params.iter().enumerate() {
        match p.kind {
            ParamKind::Input(s) => b.inputs.push(InputBinding {
                param: p.name.clone(),
                resource: layout.resource[i].unwrap_or(0),
                format: match s {
                    ctm_frontend::types::StreamType::F32 => "f32",
                    ctm_frontend::types::StreamType::Vec2 => "vec2",
                    ctm_frontend::types::StreamType::Vec4 => "vec4",
                    ctm_frontend::types::StreamType::Unorm8x4 => "unorm8x4",
                    ctm_frontend::types::StreamType::U16 => "u16",
                }
                .to_string(),
            }),
            ParamKind::Output(o) => b.outputs.push(OutputBinding {
                param: p.name.clone(),
                export: layout.export[i].unwrap_or(0),
                format: o.value_type().to_string(),
            }),
            ParamKind::Uniform(t) => b.uniforms.push(UniformBinding {
                param: p.name.clone(),
                ty: t.to_string(),
                element: layout.uniform_base[i].unwrap_or(0),
                elements: layout.uniform_elems[i],
            }),
            ParamKind::Scatter => b.scatters.push(ScatterBinding {
                param: p.name.clone(),
                slot: layout.scatter[i].unwrap_or(0),
            }),
        }
    }
    b
}

/// Lowers, optimises (with [`cost::R700Cost`]), verifies and compiles a
/// checked kernel for the R700.
///
/// # Errors
/// As [`compile`]; an IR verification failure is [`CodegenError::Verify`].
pub fn compile_kernel(
    program: &ctm_frontend::tast::Program,
    kernel: &ctm_frontend::tast::Kernel,
    level: OptLevel,
    options: &Options,
) -> Result<Executable, CodegenError> {
    let mut m = ctm_ir::lower::lower_kernel(program, kernel);
    optimize_for_r700(&mut m, level)?;
    let v = ctm_ir::verify::verify(m, "r700 pipeline")
        .map_err(|e| CodegenError::Verify(e.to_string()))?;
    compile(&v, options)
}

/// Runs the IR pipeline at `level` with the R700 cost model.
///
/// # Errors
/// A verifier failure after some pass.
pub fn optimize_for_r700(m: &mut ctm_ir::Module, level: OptLevel) -> Result<(), CodegenError> {
    let mut o = ctm_ir::passes::Options::new(level);
    o.cost = &cost::R700Cost;
    o.verify_each = if cfg!(debug_assertions) {
        VerifyEach::Yes
    } else {
        VerifyEach::No
    };
    ctm_ir::passes::optimize(m, &o).map_err(|e| CodegenError::Verify(e.to_string()))
}
