//! The X1K code generator: verified graph IR to a [`Program`].
//!
//! The pipeline ([`compile`]) reads as a list:
//!
//! 1. [`isel`]: instruction selection to [`mir`] (virtual registers, a
//!    tree of blocks, branches and loops; constants laid out by
//!    [`consts`]);
//!    [`texcoord`]: gather coordinates read in place (no lane copies);
//!    [`vn`]: local value numbering (equal ops computed once); [`pair`]:
//!    two vec2 ops as one vec4 op; [`omod`]: multiplications by powers of
//!    two as output modifiers; [`presub`]: `1 − x` read through the
//!    presubtract; [`copies`]: values only copied computed by their
//!    copies; [`branch_out`]: outputs of an `if` written in its branches;
//!    [`dot2`]: `x1·y1 + x2·y2` as one `D2A`;
//!    [`out_reg`]: a value written to an output and read again is written
//!    to both by its op (no copy-out);
//! 2. [`sched`]: list scheduling of each block into instruction slots,
//!    pairing RGB and alpha operations;
//! 3. [`regalloc`]: channel-wise register allocation;
//! 4. [`emit`]: typed instructions with flow control; [`hazards`]:
//!    semaphores, waits, `NOP`s and the final `OUT`;
//! 5. the program registers and the ABI bindings.
//!
//! [`cost`] is the X1K cost model the IR pipeline
//! ([`ctm_ir::passes::pipeline`]) gives if-conversion. `docs/backend-x1k.md` describes each stage.

pub mod branch_out;
pub mod checker;
pub mod consts;
pub mod copies;
pub mod cost;
pub mod dot2;
pub mod emit;
pub mod hazards;
pub mod isel;
pub mod mir;
pub mod omod;
pub mod out_reg;
pub mod pair;
pub mod presub;
pub mod regalloc;
pub mod sched;
pub mod texcoord;
pub mod vn;

use crate::Program;
use crate::abi::{Bindings, BoolUniformBinding, InputBinding, OutputBinding, UniformBinding};
use crate::validate::ValidProgram;
use ctm_frontend::Code;
use ctm_frontend::tast::ParamKind;
use ctm_ir::passes::OptLevel;
use ctm_ir::verify::Verified;
use std::borrow::Cow;

/// Code generation options.
#[derive(Clone, Debug, Default)]
pub struct Options {}

/// Why code generation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// The kernel exceeds a hardware limit (a user error with a code).
    #[error("error[{}]: {message}", code_text(*code))]
    Limit {
        /// The diagnostic code (CK0065, CK0070–CK0073, ...).
        code: Code,
        /// The kernel.
        kernel: String,
        /// What was exceeded, with the limit.
        message: String,
    },
    /// A rule the code generator broke (a compiler bug): one of its own
    /// invariants, or a hardware rule the validator found broken (then
    /// named as `validate::Rule::name`, e.g. `presubtract-nop`).
    #[error("internal error: x1k code generation broke rule `{rule}`: {detail}")]
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

    /// The diagnostic code of a user-facing limit.
    pub fn code(&self) -> Option<Code> {
        match self {
            CodegenError::Limit { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// The deepest nest of thetas (loops) in `m`.
fn theta_depth(m: &ctm_ir::Module) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(m.root, 0usize)];
    while let Some((r, d)) = stack.pop() {
        deepest = deepest.max(d);
        for n in m.nodes(r) {
            let op = &m.node(n).op;
            let inner = d + usize::from(matches!(op, ctm_ir::Op::Theta(_)));
            stack.extend(op.regions().into_iter().map(|b| (b, inner)));
        }
    }
    deepest
}

/// A lower bound on the instruction slots (CTM §3.1: 512 of them) of the
/// blocks under `nodes`: the scheduler puts every op of a block in one
/// part of a [`sched::Bundle`] (RGB, alpha or texture: at most three ops a
/// bundle), every bundle becomes one instruction, and flow control and
/// hazard NOPs only add to that.
fn min_slots(nodes: &[mir::Node]) -> usize {
    let mut total = 0usize;
    let mut stack: Vec<&[mir::Node]> = vec![nodes];
    while let Some(list) = stack.pop() {
        for n in list {
            match n {
                mir::Node::Block(ops) => total += ops.len().div_ceil(3),
                mir::Node::If { then, else_, .. } => {
                    stack.push(then);
                    stack.push(else_);
                }
                mir::Node::Loop { body, .. } => stack.push(body),
                mir::Node::Break { .. } => {}
            }
        }
    }
    total
}

/// Compiles a verified module to an X1K program.
///
/// # Errors
/// [`CodegenError::Limit`] when the kernel exceeds a hardware limit,
/// [`CodegenError::Internal`] when the generator broke a rule.
pub fn compile(module: &Verified, _options: &Options) -> Result<ValidProgram, CodegenError> {
    let m = module.module();
    // Every theta becomes at least one hardware loop level (`isel::flow`),
    // so a deeper nest of thetas is refused before selection, whose cost
    // grows faster than linearly with the depth (issue 13).
    let theta_depth = theta_depth(m);
    if theta_depth > 4 {
        let kernel = &m.name;
        return Err(CodegenError::Limit {
            code: Code::FlowControlTooDeep,
            kernel: kernel.clone(),
            message: format!(
                "`{kernel}` nests at least {theta_depth} loops; the x1k allows 4 loops and 32 branches"
            ),
        });
    }
    let (mut mir, mut consts, depths) = isel::Selector::new(m)?.run()?;
    let kernel = m.name.clone();
    if depths.loops > 4 || depths.ifs > 32 {
        return Err(CodegenError::Limit {
            code: Code::FlowControlTooDeep,
            kernel: kernel.clone(),
            message: format!(
                "`{kernel}` nests {} loops and {} branches; the x1k allows 4 loops and 32 branches",
                depths.loops, depths.ifs
            ),
        });
    }
    texcoord::run(&mut mir);
    vn::run(&mut mir);
    texcoord::share(&mut mir, &mut consts);
    pair::run(&mut mir, &mut consts);
    omod::run(&mut mir, &consts);
    presub::run(&mut mir);
    copies::run(&mut mir);
    branch_out::run(&mut mir);
    dot2::run(&mut mir);
    out_reg::run(&mut mir);
    // A lower bound on the length before scheduling, which costs more than
    // linear time in a block's size: a program that cannot fit is refused
    // in time linear in its size (issue 13).
    let at_least = min_slots(&mir.body);
    if at_least > crate::isa::MAX_SLOTS {
        return Err(CodegenError::Limit {
            code: Code::TooManyInstructions,
            kernel: kernel.clone(),
            message: format!(
                "`{kernel}` needs at least {at_least} instruction slots; the x1k has 512"
            ),
        });
    }
    let mut blocks = sched::schedule(&mut mir)?;
    let alloc = regalloc::allocate(&mir, &blocks, &kernel)?;
    regalloc::drop_identity_copies(&mut mir, &alloc, &mut blocks);
    let (mut insts, origin) = emit::emit(&mir, &alloc, &blocks)?;
    hazards::apply(&mut insts);
    // First the length: past 512 slots jump addresses cannot be encoded
    // (the checker would follow truncated ones).
    if insts.len() > crate::isa::MAX_SLOTS {
        return Err(CodegenError::Limit {
            code: Code::TooManyInstructions,
            kernel: kernel.clone(),
            message: format!(
                "`{kernel}` needs {} instruction slots; the x1k has 512",
                insts.len()
            ),
        });
    }
    checker::check(&mir, &alloc, &origin, &insts).map_err(|e| match e {
        CodegenError::Internal { rule, detail } => CodegenError::Internal {
            rule,
            detail: format!("{detail}\n{}", crate::isa::format_program(&insts)),
        },
        e => e,
    })?;
    let full = depths.loops > 0 || depths.ifs > 4;
    let scatter = m
        .params
        .iter()
        .position(|p| matches!(p.kind, ParamKind::Scatter));
    let program = Program {
        insts,
        us_config: u32::from(scatter.is_some()),
        us_pixsize: alloc.max_reg as u32,
        us_fc_ctrl: if full { 1 << 31 } else { 0 },
        bindings: bindings(m, &consts, scatter),
    };
    // No program leaves without passing the hardware validator (style
    // §5): a violation is a compiler bug naming the broken rule.
    match crate::validate::validate(&program) {
        Ok(report) => Ok(ValidProgram::from_report(program, report)),
        Err(violations) => {
            let first = &violations[0];
            Err(CodegenError::Internal {
                rule: Cow::Owned(first.rule.name()),
                detail: format!(
                    "{first} ({} violation(s))\n{}",
                    violations.len(),
                    crate::isa::format_program(&program.insts)
                ),
            })
        }
    }
}

/// The ABI bindings (`docs/abi-x1k.md` §3).
fn bindings(m: &ctm_ir::Module, consts: &consts::ConstTable, scatter: Option<usize>) -> Bindings {
    let mut b = Bindings {
        kernel: m.name.clone(),
        scatter: scatter.map(|i| m.params[i].name.clone()),
        domain_constant: consts.domain,
        literals: consts.literal_bindings(),
        int_constants: consts.ints.clone(),
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
    let (mut ins, mut outs) = (0u8, 0u8);
    for (i, p) in m.params.iter().enumerate() {
        match p.kind {
            ParamKind::Input(s) => {
                b.inputs.push(InputBinding {
                    param: p.name.clone(),
                    input: ins,
                    format: match s {
                        ctm_frontend::types::StreamType::F32 => "f32",
                        ctm_frontend::types::StreamType::Vec2 => "vec2",
                        ctm_frontend::types::StreamType::Vec4 => "vec4",
                        ctm_frontend::types::StreamType::Unorm8x4 => "unorm8x4",
                        ctm_frontend::types::StreamType::U16 => "u16",
                    }
                    .to_string(),
                });
                ins += 1;
            }
            ParamKind::Output(o) => {
                b.outputs.push(OutputBinding {
                    param: p.name.clone(),
                    output: outs,
                    format: o.value_type().to_string(),
                });
                outs += 1;
            }
            ParamKind::Uniform(ctm_frontend::types::Type::Bool) => {
                b.bool_uniforms.push(BoolUniformBinding {
                    param: p.name.clone(),
                    bool_constant: consts.bool_const[i].unwrap_or(0),
                    float_constant: consts.bool_float[i],
                });
            }
            ParamKind::Uniform(t) => {
                if let Some(c) = consts.uniform_base[i] {
                    b.uniforms.push(UniformBinding {
                        param: p.name.clone(),
                        ty: t.to_string(),
                        float_constant: c,
                    });
                }
            }
            ParamKind::Scatter => {}
        }
    }
    b
}

/// Lowers a checked kernel of `program`, runs the IR pipeline
/// ([`ctm_ir::passes::pipeline`]) with [`cost::X1kCost`] and compiles it —
/// what the driver does for `--target x1k`, for this crate's tests and
/// benches; the program is returned without its validation proof.
///
/// # Errors
/// As [`compile`]; an IR verification failure is
/// [`CodegenError::Verify`].
pub fn compile_kernel(
    program: &ctm_frontend::tast::Program,
    kernel: &ctm_frontend::tast::Kernel,
    level: OptLevel,
    options: &Options,
) -> Result<Program, CodegenError> {
    let m = ctm_ir::lower::lower_kernel(program, kernel);
    let v = ctm_ir::passes::pipeline(m, level, &cost::X1kCost)
        .map_err(|e| CodegenError::Verify(e.to_string()))?;
    compile(&v, options).map(ValidProgram::into_program)
}
