//! The X1K target: code generation through `ctm-backend-x1k`, launches on
//! the simulated CTM device ([`launch`]), what runs report ([`profile`]),
//! and bare runs of any machine code on the processor array ([`raw`]),
//! behind the driver's [`MachineTarget`] interface.
//!
//! The backend and the simulator (`ctm-sim`) are used through their public
//! APIs only; `docs/cli.md` says what each command does with them.

pub mod launch;
pub mod profile;
pub mod raw;

use crate::simulate::SimulateOptions;
use crate::target::entry::{Interface, entry_of};
use crate::target::launch_const::{self, HiddenUniform};
use crate::target::{
    CodegenFailure, ElfEntry, EmbeddedSource, InternalError, Launch, LaunchError, MachineProgram,
    MachineTarget, Measured, RawError, RawOutcome, RawRun, Session, launch_label, program_of,
};
use ctm_backend_x1k::abi::{Bindings, IntSource, UnreadUniform};
use ctm_backend_x1k::codegen::{self, CodegenError, cost::X1kCost};
use ctm_backend_x1k::validate::ValidProgram;
use ctm_frontend::Target;
use ctm_frontend::data::StreamData;
use ctm_frontend::diag::Diagnostic;
use ctm_ir::cost::CostModel;
use ctm_ir::verify::Verified;
use ctm_sim::x1k::dpp::DppOptions;
use profile::{LaunchStats, TraceBuilder};
use serde_json::{Map, Value};
use std::any::Any;

/// `e_machine` of an X1K (R5xx) executable, `EM_ATI_R5XX`.
pub const EM_X1K: u16 = ctm_backend_x1k::elf::EM_ATI_R5XX;

/// The X1K target object.
pub struct X1kTarget;

/// The X1K, as [`crate::target::machine`] gives it.
pub static X1K: X1kTarget = X1kTarget;

/// A validated X1K program.
#[derive(Clone, Debug, PartialEq)]
pub struct X1kProgram {
    program: ValidProgram,
}

impl X1kProgram {
    /// The backend's program.
    pub fn program(&self) -> &ctm_backend_x1k::Program {
        self.program.program()
    }
}

/// The float constants a uniform of type `ty` (as the bindings write it)
/// occupies.
fn uniform_constants(ty: &str) -> u32 {
    match crate::target::entry::parse_type(ty) {
        Some(ctm_frontend::types::Type::Mat4) => 4,
        Some(ctm_frontend::types::Type::Array(a)) => u32::from(a.len),
        _ => 1,
    }
}

/// `program` with the uniforms whose float constants the code never reads
/// (a parameter the kernel ignores, or one the optimiser removed) moved
/// from their constant bindings to `unread_uniforms` (name and type, no
/// constant). The code generator binds every uniform, but the image rules
/// (`validate::load_elf`, `docs/validator-x1k.md` §5) refuse a uniform on
/// a constant the code does not read, so without this `ctmc run` refused
/// the ELF that `ctmc` had just written (found by branch `spec-audit`);
/// keeping the name lets `ctmc run` accept a value for it, as the source
/// run and the r700's ELF do (branch `spec-left`). A uniform that a loop
/// count reads through an integer constant keeps its binding.
fn without_unread_uniforms(program: ValidProgram) -> ValidProgram {
    let b = &program.program().bindings;
    let facts = ctm_backend_x1k::validate::facts(program.program());
    let mut loop_uniforms: Vec<&str> = Vec::new();
    fn names<'a>(s: &'a IntSource, out: &mut Vec<&'a str>) {
        match s {
            IntSource::Const(_) => {}
            IntSource::Uniform(name) => out.push(name),
            IntSource::UniformRange(a, b) => {
                names(a, out);
                names(b, out);
            }
        }
    }
    for ic in &b.int_constants {
        names(&ic.count, &mut loop_uniforms);
        names(&ic.init, &mut loop_uniforms);
    }
    let keep: Vec<bool> = b
        .uniforms
        .iter()
        .map(|u| {
            let first = u32::from(u.float_constant);
            loop_uniforms.contains(&u.param.as_str())
                || (first..first + uniform_constants(&u.ty))
                    .any(|c| u8::try_from(c).is_ok_and(|c| facts.float_constants.contains(&c)))
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return program;
    }
    let mut trimmed = program.program().clone();
    let bindings = &mut trimmed.bindings;
    let (kept, unread): (Vec<_>, Vec<_>) = std::mem::take(&mut bindings.uniforms)
        .into_iter()
        .zip(keep)
        .partition(|(_, keep)| *keep);
    bindings.uniforms = kept.into_iter().map(|(u, _)| u).collect();
    bindings.unread_uniforms = unread
        .into_iter()
        .map(|(u, _)| UnreadUniform {
            param: u.param,
            ty: u.ty,
        })
        .collect();
    // Removing bindings changes no instruction, so the program stays valid;
    // should it not, the untrimmed one is kept.
    ValidProgram::new(trimmed).unwrap_or(program)
}

/// A code generator's error as the driver reports it.
fn failure(e: CodegenError) -> CodegenFailure {
    match e {
        CodegenError::Limit {
            code,
            kernel,
            message,
        } => CodegenFailure::Limit(Box::new(
            Diagnostic::new(code, ctm_frontend::Span::default(), message)
                .with_label(format!("`{kernel}` does not fit the x1k"))
                .with_help("simplify the kernel or split it into several, or use --target r700"),
        )),
        CodegenError::Internal { rule, detail } => {
            CodegenFailure::Internal(InternalError::Codegen {
                target: Target::X1k,
                rule: rule.into_owned(),
                detail,
            })
        }
        CodegenError::Verify(errors) => CodegenFailure::Internal(InternalError::IrVerify {
            stage: "x1k code generation".into(),
            errors,
        }),
    }
}

/// The loop-bound uniforms a loop recipe names.
fn loop_uniforms<'b>(s: &'b IntSource, out: &mut Vec<&'b str>) {
    match s {
        IntSource::Const(_) => {}
        IntSource::Uniform(name) => out.push(name),
        IntSource::UniformRange(a, b) => {
            loop_uniforms(a, out);
            loop_uniforms(b, out);
        }
    }
}

/// The parameters the bindings note names (`docs/abi-x1k.md` §3): float
/// uniforms, boolean uniforms, then the `i32` loop bounds the note names
/// only in its loop recipes.
pub fn interface(b: &Bindings) -> Interface {
    // Launch constants are the loader's, not the user's.
    let hidden = |name: &str| b.launch_constants.iter().any(|c| c.param == name);
    let mut uniforms: Vec<(String, String)> = b
        .uniforms
        .iter()
        .filter(|u| !hidden(&u.param))
        .map(|u| (u.param.clone(), u.ty.clone()))
        .collect();
    uniforms.extend(
        b.unread_uniforms
            .iter()
            .filter(|u| !hidden(&u.param))
            .map(|u| (u.param.clone(), u.ty.clone())),
    );
    uniforms.extend(
        b.bool_uniforms
            .iter()
            .map(|u| (u.param.clone(), "bool".to_string())),
    );
    let mut bounds = Vec::new();
    for ic in &b.int_constants {
        loop_uniforms(&ic.count, &mut bounds);
        loop_uniforms(&ic.init, &mut bounds);
    }
    for name in bounds {
        let known =
            uniforms.iter().any(|(u, _)| u == name) || b.inputs.iter().any(|i| i.param == name);
        if !known {
            uniforms.push((name.to_string(), "i32".to_string()));
        }
    }
    Interface {
        kernel: b.kernel.clone(),
        inputs: b
            .inputs
            .iter()
            .map(|i| (i.param.clone(), i.format.clone()))
            .collect(),
        uniforms,
        outputs: b
            .outputs
            .iter()
            .map(|o| (o.param.clone(), o.format.clone()))
            .collect(),
        scatters: b.scatter.iter().cloned().collect(),
    }
}

impl MachineProgram for X1kProgram {
    fn target(&self) -> Target {
        Target::X1k
    }

    fn kernel(&self) -> &str {
        &self.program.bindings.kernel
    }

    fn elf(&self) -> Result<Vec<u8>, InternalError> {
        Ok(ctm_backend_x1k::elf::write(&self.program))
    }

    fn elf_with_source(&self, source: &EmbeddedSource) -> Result<Vec<u8>, InternalError> {
        Ok(ctm_backend_x1k::elf::write_with_source(
            &self.program,
            &source.to_bytes(),
        ))
    }

    fn listing(&self) -> Result<String, InternalError> {
        ctm_backend_x1k::elf::listing::listing_elf(&self.elf()?).map_err(|e| {
            InternalError::ElfReadBack {
                target: Target::X1k,
                kernel: self.kernel().to_string(),
                detail: e.to_string(),
            }
        })
    }

    fn static_metrics(&self) -> Map<String, Value> {
        match serde_json::to_value(ctm_backend_x1k::stats::static_metrics(&self.program)) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    fn entry(&self) -> Result<ElfEntry, String> {
        entry_of(&interface(&self.program.bindings))
    }

    fn input_padding(&self) -> Option<[f32; 4]> {
        self.program
            .bindings
            .input_padding_bits
            .map(|bits| bits.map(f32::from_bits))
    }

    fn launch_constants(&self) -> Result<Vec<HiddenUniform>, String> {
        let b = &self.program.program().bindings;
        let bound: Vec<&str> = b
            .uniforms
            .iter()
            .map(|u| u.param.as_str())
            .chain(b.unread_uniforms.iter().map(|u| u.param.as_str()))
            .collect();
        launch_const::parse(
            b.launch_constants
                .iter()
                .map(|c| (c.param.as_str(), c.ty.as_str(), c.expr.as_str())),
            &bound,
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl MachineTarget for X1kTarget {
    fn target(&self) -> Target {
        Target::X1k
    }

    fn elf_machine(&self) -> u16 {
        EM_X1K
    }

    fn fused_mad(&self) -> bool {
        true
    }

    fn cost_model(&self) -> &'static dyn CostModel {
        &X1kCost
    }

    fn compile(&self, ir: &Verified) -> Result<Box<dyn MachineProgram>, CodegenFailure> {
        let program = codegen::compile(ir, &codegen::Options::default()).map_err(failure)?;
        Ok(Box::new(X1kProgram {
            program: without_unread_uniforms(program),
        }))
    }

    fn read_elf(&self, bytes: &[u8]) -> Result<Box<dyn MachineProgram>, String> {
        // The container, the hardware rules, the notes and the bindings
        // against the code (`validate::load_elf`), then the proof.
        let program = ctm_backend_x1k::validate::load_elf(bytes).map_err(|e| e.to_string())?;
        let program = ValidProgram::new(program).map_err(|violations| {
            let mut text = format!("its code breaks {} hardware rule(s):", violations.len());
            for v in violations.iter().take(10) {
                text.push_str(&format!("\n  {v}"));
            }
            text
        })?;
        let program = X1kProgram { program };
        program.launch_constants()?;
        Ok(Box::new(program))
    }

    fn listing_elf(&self, bytes: &[u8]) -> Result<String, String> {
        ctm_backend_x1k::elf::listing::listing_elf(bytes).map_err(|e| e.to_string())
    }

    fn listing_raw(&self, bytes: &[u8]) -> Result<String, String> {
        ctm_backend_x1k::elf::listing::listing_bin(bytes)
            .map_err(|e| format!("{e} (an x1k instruction slot is 6 words, 24 bytes)"))
    }

    fn constant_slots(&self) -> u32 {
        256
    }

    fn max_raw_elements(&self) -> u32 {
        raw::MAX_ELEMENTS
    }

    fn run_raw(&self, name: &str, bytes: &[u8], run: &RawRun) -> Result<RawOutcome, RawError> {
        let program = if bytes.starts_with(b"\x7fELF") {
            raw::from_elf(name, bytes)
        } else {
            raw::from_words(name, bytes)
        }?;
        let outcome = raw::run_raw(&program, run)?;
        Ok(RawOutcome {
            name: program.name,
            outputs: raw::outputs_json(&outcome.results),
            stats: outcome.stats,
        })
    }

    fn session(&self, options: &SimulateOptions) -> Box<dyn Session> {
        Box::new(X1kSession {
            options: options.models.x1k.clone(),
            launches: Vec::new(),
            trace: TraceBuilder::new(),
        })
    }
}

/// Launches on one simulated CTM device.
struct X1kSession {
    options: DppOptions,
    launches: Vec<LaunchStats>,
    trace: TraceBuilder,
}

impl Session for X1kSession {
    fn launch_bound(
        &mut self,
        program: &dyn MachineProgram,
        launch: &Launch<'_>,
    ) -> Result<Vec<(String, StreamData)>, LaunchError> {
        let program: &X1kProgram = program_of(program, Target::X1k)?;
        let program = program.program();
        let image = launch::program_image(program)?;
        let run = launch::launch(program, image, launch, &self.options)?;
        let label = launch_label(&program.bindings.kernel, self.launches.len());
        // Per-batch events only for `--trace` (about a kilobyte per batch:
        // 440 MB for 4096x4096 elements otherwise, issue 13).
        let batches: &[_] = if self.options.trace {
            &run.record.batches
        } else {
            &[]
        };
        self.trace.launch_counted(
            &label,
            run.record.stats.cycles,
            run.record.stats.elements,
            run.record.batches.len(),
            batches,
        );
        self.launches.push(LaunchStats {
            dpp: run.record.stats,
            perf: run.perf,
        });
        Ok(run.outputs)
    }

    fn finish(self: Box<Self>, entry: &str, passes: Option<u32>) -> Measured {
        let stats = profile::stats(entry, &self.launches, passes);
        let (trace_tracks, trace) = self.trace.finish();
        Measured {
            stats,
            trace,
            trace_tracks,
        }
    }
}
