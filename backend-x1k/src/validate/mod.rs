//! The X1K hardware validator: checks every rule of the CTM guide chapter 3
//! (and the ELF rules of chapter 4) on any program — ctm's own output or
//! one decoded from someone else's ELF — and reports each broken rule as a
//! [`Violation`] naming the [`Rule`], the slot and what is wrong. A program
//! that passes gets a [`ValidationReport`] with the [`Facts`] the ELF
//! writer turns into notes. A violation in ctm's own output is an internal
//! compiler error (style §5, §6).
//!
//! The rules, by concern (each [`Rule`] variant cites its manual section;
//! `docs/validator-x1k.md` is the full specification):
//!
//! * **Program** (`local.rs`): 1..=512 slots; the registers decode; the
//!   last instruction is OUT with `TEX_SEM_WAIT`; `US_PIXSIZE` covers the
//!   highest temporary.
//! * **ALU/OUT instructions** (`local.rs`): OUT does not write the ALU
//!   result; `OMOD_DISABLED` only with MIN/MAX/CND/CMP and without clamp;
//!   SOP with a transcendental alpha op, alpha DP with an RGB dot product;
//!   DP4's alpha-half inputs; no undefined swizzle; no MDH/MDV; presubtract
//!   NOP hazard; UMRT writes all-or-nothing, alpha zero, no W.
//! * **Flow control** (`flow.rs`): jump targets; partial mode has no loops
//!   or calls; branch depth ≤ 4 / 32, loop and address stacks ≤ 4;
//!   IF/ELSE/ENDIF, LOOP/ENDLOOP, REP/ENDREP, BREAK/CONTINUE (`B_POP_CNT`)
//!   and CALL/RETURN balanced along every path; aL only inside a LOOP.
//! * **Synchronisation** (`sync.rs`): `ALU_WAIT` on TEX/FC that use ALU
//!   results; the ALU result consumed by the next FC; FC predicates
//!   selected; texture semaphore discipline; uncached read-after-write;
//!   the semaphore not held at the end; the FC errata.
//! * **ELF image** (`image.rs`, via [`validate_image`]): the proginfo code
//!   range and the notes match the code.
//! * **Bindings** (`bindings.rs`, via [`load_elf`]): the `"ctm"` note binds
//!   exactly the inputs, outputs and constants the code uses, within the
//!   hardware's counts, and its loop counts name existing `i32` uniforms.
//!
//! ```
//! use ctm_backend_x1k::{Program, abi::Bindings, isa, validate};
//! let insts = isa::parse_program(
//!     "tex r0.rgba = ld(t0, r0.rgaa) acquire sem_wait
//!      out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r0 sem_wait",
//! ).unwrap();
//! let p = Program { insts, us_config: 0, us_pixsize: 0, us_fc_ctrl: 0, bindings: Bindings::default() };
//! let report = validate::validate(&p).expect("valid");
//! assert_eq!(report.facts().inputs.len(), 1);
//! ```

mod bindings;
mod facts;
mod flow;
mod image;
mod local;
mod reads;
mod rule;
mod sync;

pub use bindings::BindingError;
pub use facts::Facts;
pub use rule::{Rule, Violation};

use crate::Program;
use crate::elf::{ElfError, ElfImage};
use crate::isa::program_regs::FcMode;

/// Proof that a program passed the validator, with what it uses.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ValidationReport {
    facts: Facts,
}

impl ValidationReport {
    /// What the program uses (registers, constants, inputs, outputs, mode,
    /// nesting).
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// The flow-control mode the program needs.
    pub fn fc_mode_needed(&self) -> FcMode {
        self.facts.fc_mode_needed
    }
}

/// A program that passed the validator, with its report: what the code
/// generator returns, so that no unvalidated program reaches the ELF
/// writer or the device through the driver (style §5: verification
/// returns something the next stage requires). It derefs to the
/// [`Program`].
#[derive(Clone, PartialEq, Debug)]
pub struct ValidProgram {
    program: Program,
    report: ValidationReport,
}

impl ValidProgram {
    /// Validates `program`.
    ///
    /// # Errors
    /// Every [`Violation`] found, as [`validate`] gives them.
    pub fn new(program: Program) -> Result<ValidProgram, Vec<Violation>> {
        let report = validate(&program)?;
        Ok(ValidProgram { program, report })
    }

    /// A program with the report [`validate`] gave for it (the code
    /// generator validates once and keeps the report).
    #[cfg(feature = "codegen")]
    pub(crate) fn from_report(program: Program, report: ValidationReport) -> ValidProgram {
        ValidProgram { program, report }
    }

    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// What the validator found the program uses.
    pub fn report(&self) -> &ValidationReport {
        &self.report
    }

    /// The program, giving up the proof.
    pub fn into_program(self) -> Program {
        self.program
    }
}

impl std::ops::Deref for ValidProgram {
    type Target = Program;

    fn deref(&self) -> &Program {
        &self.program
    }
}

/// Check every hardware rule on `program`.
///
/// # Errors
/// Every [`Violation`] found, program-level ones first, then by slot.
pub fn validate(program: &Program) -> Result<ValidationReport, Vec<Violation>> {
    let (facts, violations) = analyze(program);
    if violations.is_empty() {
        Ok(ValidationReport { facts })
    } else {
        Err(violations)
    }
}

/// Check a read ELF image: the program's hardware rules plus the proginfo
/// and notes against the code (CTM §4.1.4).
///
/// # Errors
/// Every [`Violation`] found.
pub fn validate_image(image: &ElfImage) -> Result<ValidationReport, Vec<Violation>> {
    let program = image.program();
    let (facts, mut violations) = analyze(&program);
    image::check(image, &facts, &mut violations);
    finish(&mut violations);
    if violations.is_empty() {
        Ok(ValidationReport { facts })
    } else {
        Err(violations)
    }
}

/// Why an ELF image may not run (issue 13): the file is not a ctm X1K
/// executable, its program breaks a hardware rule or disagrees with its
/// ATI notes, or its bindings disagree with the code. Every variant is a
/// fault of the file, never of the compiler: the driver reports it as an
/// unusable input (exit 2).
#[derive(Clone, PartialEq, Debug, thiserror::Error)]
pub enum ImageError {
    /// The container: `crate::elf::read`'s checks.
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// Hardware rules broken, or notes that disagree with the code.
    #[error("the program is not valid: {}", join(.0))]
    Rules(Vec<Violation>),
    /// The bindings note disagrees with the code, the notes or the hardware.
    #[error("the bindings note disagrees with the code: {}", join(.0))]
    Bindings(Vec<BindingError>),
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Read a ctm X1K executable and validate it completely before it may
/// run: the container ([`crate::elf::read`]), the hardware rules and the
/// notes against the code ([`validate_image`]), and the bindings against
/// the code, the notes and the hardware ([`BindingError`]).
///
/// # Errors
/// [`ImageError`]: the first of the three stages that fails, with every
/// problem that stage found.
pub fn load_elf(bytes: &[u8]) -> Result<Program, ImageError> {
    let program = crate::elf::read(bytes)?;
    let image = crate::elf::read_image(bytes)?;
    let report = validate_image(&image).map_err(ImageError::Rules)?;
    let mut problems = Vec::new();
    bindings::check(&program.bindings, report.facts(), &mut problems);
    if problems.is_empty() {
        Ok(program)
    } else {
        Err(ImageError::Bindings(problems))
    }
}

/// What `program` uses, whether or not it is valid (the ELF writer's
/// notes).
pub fn facts(program: &Program) -> Facts {
    analyze(program).0
}

fn analyze(p: &Program) -> (Facts, Vec<Violation>) {
    let mut out = Vec::new();
    let regs = local::registers(p, &mut out);
    let mode = regs.fc_ctrl.map_or(FcMode::Partial, |r| r.mode);
    let flow = flow::analyze(&p.insts, mode, &mut out);
    let facts = facts::collect(p, regs.umrt(), &flow);
    local::check_program(p, &regs, facts.max_temp(), &mut out);
    for slot in 0..p.insts.len() {
        local::check_inst(&p.insts, slot, &regs, &mut out);
    }
    sync::check(&p.insts, &flow, regs.umrt(), &mut out);
    finish(&mut out);
    (facts, out)
}

/// Sort (program-level first, then by slot and rule) and keep one
/// violation per (rule, slot).
fn finish(v: &mut Vec<Violation>) {
    v.sort_by_key(|x| (x.slot, x.rule));
    v.dedup_by_key(|x| (x.slot, x.rule));
}
