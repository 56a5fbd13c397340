//! The R700 target: code generation through `ctm-backend-r700`, launches on
//! the simulated RV770 (`ctm_sim::r700`, loaded as `docs/abi-r700.md`
//! says: [`launch`]), what runs report ([`profile`]), and bare runs of any
//! R700 machine code, behind the driver's [`MachineTarget`] interface.

pub mod launch;
pub mod profile;

use crate::simulate::SimulateOptions;
use crate::target::entry::{Interface, entry_of};
use crate::target::launch_const::{self, HiddenUniform};
use crate::target::{
    CodegenFailure, ElfEntry, EmbeddedSource, InternalError, MachineProgram, MachineTarget,
    RawError, RawOutcome, RawRun, RegInit, Session,
};
use ctm_backend_r700::Executable;
use ctm_backend_r700::abi::Bindings;
use ctm_backend_r700::codegen::{self, CodegenError, cost::R700Cost};
use ctm_backend_r700::isa::Gpr;
use ctm_frontend::Target;
use ctm_frontend::diag::Diagnostic;
use ctm_ir::cost::CostModel;
use ctm_ir::verify::Verified;
use ctm_sim::r700::{Launch, Machine};
use serde_json::{Map, Value};
use std::any::Any;

/// `e_machine` of an R700 CAL image (`docs/abi-r700.md` §1).
pub const EM_R700: u16 = 125;

/// The R700 target object.
pub struct R700Target;

/// The R700, as [`crate::target::machine`] gives it.
pub static R700: R700Target = R700Target;

/// A compiled R700 executable that passed the hardware validator (the code
/// generator validates every program it returns; [`MachineTarget::read_elf`]
/// validates what it reads).
#[derive(Clone, Debug, PartialEq)]
pub struct R700Program {
    exe: Executable,
}

impl R700Program {
    /// Validates `exe` (`ctm_backend_r700::validate`).
    ///
    /// # Errors
    /// The violations, as a sentence listing at most ten.
    pub fn validate(exe: Executable) -> Result<R700Program, String> {
        ctm_backend_r700::validate::validate(&exe.program).map_err(|violations| {
            let mut text = format!("its code breaks {} hardware rule(s):", violations.len());
            for v in violations.iter().take(10) {
                text.push_str(&format!("\n  {v}"));
            }
            text
        })?;
        Ok(R700Program { exe })
    }

    /// The executable.
    pub fn executable(&self) -> &Executable {
        &self.exe
    }
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
                .with_label(format!("`{kernel}` does not fit the r700"))
                .with_help("simplify the kernel or split it into several"),
        )),
        CodegenError::Internal { rule, detail } => {
            CodegenFailure::Internal(InternalError::Codegen {
                target: Target::R700,
                rule: rule.into_owned(),
                detail,
            })
        }
        CodegenError::Verify(errors) => CodegenFailure::Internal(InternalError::IrVerify {
            stage: "r700 code generation".into(),
            errors,
        }),
    }
}

/// The parameters the bindings note names (`docs/abi-r700.md` §3).
pub fn interface(b: &Bindings) -> Interface {
    // Launch constants are the loader's, not the user's.
    let hidden = |name: &str| b.launch_constants.iter().any(|c| c.param == name);
    Interface {
        kernel: b.kernel.clone(),
        inputs: b
            .inputs
            .iter()
            .map(|i| (i.param.clone(), i.format.clone()))
            .collect(),
        uniforms: b
            .uniforms
            .iter()
            .filter(|u| !hidden(&u.param))
            .map(|u| (u.param.clone(), u.ty.clone()))
            .collect(),
        outputs: b
            .outputs
            .iter()
            .map(|o| (o.param.clone(), o.format.clone()))
            .collect(),
        scatters: b.scatters.iter().map(|s| s.param.clone()).collect(),
    }
}

impl MachineProgram for R700Program {
    fn target(&self) -> Target {
        Target::R700
    }

    fn kernel(&self) -> &str {
        &self.exe.bindings.kernel
    }

    fn elf(&self) -> Result<Vec<u8>, InternalError> {
        ctm_backend_r700::elf::write(&self.exe).map_err(elf_write_error)
    }

    fn elf_with_source(&self, source: &EmbeddedSource) -> Result<Vec<u8>, InternalError> {
        ctm_backend_r700::elf::write_with_source(&self.exe, &source.to_bytes())
            .map_err(elf_write_error)
    }

    fn listing(&self) -> Result<String, InternalError> {
        ctm_backend_r700::elf::listing(&self.elf()?).map_err(|e| InternalError::ElfReadBack {
            target: Target::R700,
            kernel: self.kernel().to_string(),
            detail: e.to_string(),
        })
    }

    fn static_metrics(&self) -> Map<String, Value> {
        let text = ctm_backend_r700::stats::static_metrics(&self.exe).to_json();
        match serde_json::from_str(&text) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        }
    }

    fn entry(&self) -> Result<ElfEntry, String> {
        entry_of(&interface(&self.exe.bindings))
    }

    fn input_padding(&self) -> Option<[f32; 4]> {
        self.exe
            .bindings
            .input_padding_bits
            .map(|bits| bits.map(f32::from_bits))
    }

    fn launch_constants(&self) -> Result<Vec<HiddenUniform>, String> {
        let b = &self.exe.bindings;
        let bound: Vec<&str> = b.uniforms.iter().map(|u| u.param.as_str()).collect();
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

impl MachineTarget for R700Target {
    fn target(&self) -> Target {
        Target::R700
    }

    fn elf_machine(&self) -> u16 {
        EM_R700
    }

    fn fused_mad(&self) -> bool {
        // MULADD_IEEE rounds the product before the add (manual §9:
        // "(src0 * src1) + src2"; the simulator computes it so).
        false
    }

    fn cost_model(&self) -> &'static dyn CostModel {
        &R700Cost
    }

    fn compile(&self, ir: &Verified) -> Result<Box<dyn MachineProgram>, CodegenFailure> {
        let exe = codegen::compile(ir, &codegen::Options::default()).map_err(failure)?;
        Ok(Box::new(R700Program { exe }))
    }

    fn read_elf(&self, bytes: &[u8]) -> Result<Box<dyn MachineProgram>, String> {
        let exe = ctm_backend_r700::elf::read(bytes).map_err(|e| e.to_string())?;
        if exe.bindings.kernel.is_empty() && exe.bindings.outputs.is_empty() {
            return Err("it has no \"ctm\" bindings note".into());
        }
        let program = R700Program::validate(exe)?;
        program.launch_constants()?;
        Ok(Box::new(program))
    }

    fn listing_elf(&self, bytes: &[u8]) -> Result<String, String> {
        ctm_backend_r700::elf::listing(bytes).map_err(|e| e.to_string())
    }

    fn listing_raw(&self, bytes: &[u8]) -> Result<String, String> {
        ctm_backend_r700::elf::listing::listing_raw(bytes)
            .map_err(|e| format!("not a valid r700 program: {e}"))
    }

    fn constant_slots(&self) -> u32 {
        ctm_sim::r700::MAX_CONST_ELEMENTS
    }

    fn max_raw_elements(&self) -> u32 {
        1 << 20
    }

    fn run_raw(&self, name: &str, bytes: &[u8], run: &RawRun) -> Result<RawOutcome, RawError> {
        let (name, program, resources) = if bytes.starts_with(b"\x7fELF") {
            let image = ctm_backend_r700::elf::read_image(bytes)
                .map_err(|e| RawError::Unfit(format!("not a valid r700 ELF: {e}")))?;
            let name = image
                .bindings
                .as_ref()
                .map_or_else(|| name.to_string(), |b| b.kernel.clone());
            let has_resources = image
                .register(ctm_backend_r700::elf::reg::SQ_PGM_RESOURCES_PS)
                .is_some();
            let resources = has_resources.then(|| image.resources());
            (name, image.program, resources)
        } else {
            let program = ctm_backend_r700::isa::decode_program(bytes)
                .map_err(|e| RawError::Fault(format!("illegal program: {e}")))?;
            (name.to_string(), program, None)
        };
        let regs = run
            .regs
            .iter()
            .filter_map(|(r, init)| {
                let gpr = Gpr::new(u32::from(*r))?;
                Some((
                    gpr,
                    match init {
                        RegInit::Seq => ctm_sim::r700::RegInit::Seq,
                        RegInit::Value(v) => ctm_sim::r700::RegInit::Const(v.map(f32::to_bits)),
                    },
                ))
            })
            .collect();
        let consts: Vec<(u32, [u32; 4])> = run
            .consts
            .iter()
            .map(|(i, v)| (*i, v.map(f32::to_bits)))
            .collect();
        let mut launch = Launch::raw(program, run.elements, regs, &consts);
        // Registers not given hold what the ABI loads (`docs/abi-r700.md`):
        // R0 = the position (k, 0, 0, 0), as on the x1k, where a bare run
        // starts with r0 = (i, j, 0, 0); a `--reg R0=...` is applied after it.
        launch.position = Some(Gpr::R0);
        // A bare run has no inputs (spec §10); as on the x1k, where texture
        // lookups of a bare run read zeros, every texture resource is one
        // texel of zeros, so that a stream program (ctmc's own ELF, or
        // another compiler's shader) runs instead of faulting at its first
        // fetch (`docs/cli.md`, "ctmc run FILE --raw").
        for id in 0..=u8::MAX {
            launch
                .textures
                .entry(id)
                .or_insert_with(|| ctm_sim::r700::Texture {
                    width: 1,
                    height: 1,
                    format: ctm_sim::r700::TexFormat::Rgba32Float,
                    data: vec![0; 16],
                });
        }
        if let Some(res) = resources {
            launch.num_gprs = (res.num_gprs > 0).then_some(res.num_gprs);
            launch.stack_size = Some(res.stack_size);
        }
        let machine = Machine::new(run.options.models.r700.clone());
        let result = machine.run(&launch);
        if let Some(fault) = result.first_fault() {
            return Err(RawError::Fault(fault.to_string()));
        }
        let stats = profile::stats(&name, std::slice::from_ref(&result.stats), None);
        Ok(RawOutcome {
            name,
            outputs: ctm_sim::r700::raw_outputs_json(&result),
            stats,
        })
    }

    fn session(&self, options: &SimulateOptions) -> Box<dyn Session> {
        Box::new(launch::R700Session::new(options.models.r700.clone()))
    }
}

/// A failure of the ELF writer (a clause layout the encoder rejects): a
/// bug of the code generator.
fn elf_write_error(e: ctm_backend_r700::elf::ElfError) -> InternalError {
    InternalError::Codegen {
        target: Target::R700,
        rule: "elf-write".into(),
        detail: e.to_string(),
    }
}
