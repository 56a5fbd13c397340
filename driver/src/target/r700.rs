//! The R700 target: code generation through `ctm-backend-r700` and runs on
//! the simulated RV770 (`ctm-sim`'s `r700`), behind the driver's
//! [`MachineTarget`] interface.
//!
//! Disassembly of raw programs works; code generation and simulation are
//! being written, and until they land each says so with an internal error
//! naming the missing part (exit code 2).

use crate::simulate::SimulateOptions;
use crate::target::{
    CodegenFailure, Launch, LaunchError, MachineProgram, MachineTarget, Measured, RawError,
    RawOutcome, RawRun, Session,
};
use ctm_frontend::Target;
use ctm_frontend::data::StreamData;
use ctm_ir::cost::{CostModel, DefaultCost};
use ctm_ir::verify::Verified;

/// `e_machine` of an R700 CAL image.
pub const EM_R700: u16 = 125;

/// The R700 target object.
pub struct R700Target;

/// The R700, as [`crate::target::machine`] gives it.
pub static R700: R700Target = R700Target;

/// What the parts still missing say.
const NOT_BUILT: &str = "the r700 backend is not built yet";

impl MachineTarget for R700Target {
    fn target(&self) -> Target {
        Target::R700
    }

    fn elf_machine(&self) -> u16 {
        EM_R700
    }

    fn cost_model(&self) -> &'static dyn CostModel {
        &DefaultCost
    }

    fn compile(&self, _ir: &Verified) -> Result<Box<dyn MachineProgram>, CodegenFailure> {
        Err(CodegenFailure::Unavailable(NOT_BUILT.into()))
    }

    fn read_elf(&self, _bytes: &[u8]) -> Result<Box<dyn MachineProgram>, String> {
        Err("r700 ELF files are not supported yet".into())
    }

    fn listing_elf(&self, _bytes: &[u8]) -> Result<String, String> {
        Err("r700 ELF files are not supported yet".into())
    }

    fn listing_raw(&self, bytes: &[u8]) -> Result<String, String> {
        let program = ctm_backend_r700::isa::program::decode_program(bytes)
            .map_err(|e| format!("not a valid r700 program: {e}"))?;
        Ok(ctm_backend_r700::isa::asm::format_program(&program))
    }

    fn constant_slots(&self) -> u32 {
        4096
    }

    fn max_raw_elements(&self) -> u32 {
        1 << 20
    }

    fn run_raw(&self, _name: &str, _bytes: &[u8], _run: &RawRun) -> Result<RawOutcome, RawError> {
        Err(RawError::Unfit(NOT_BUILT.into()))
    }

    fn session(&self, _options: &SimulateOptions) -> Box<dyn Session> {
        Box::new(R700Session)
    }
}

struct R700Session;

impl Session for R700Session {
    fn launch(
        &mut self,
        _program: &dyn MachineProgram,
        _launch: &Launch<'_>,
    ) -> Result<Vec<(String, StreamData)>, LaunchError> {
        Err(LaunchError::Unfit(NOT_BUILT.into()))
    }

    fn finish(self: Box<Self>, entry: &str, passes: Option<u32>) -> Measured {
        let mut stats = crate::stats::Stats::new(Target::R700, entry);
        stats.passes = passes;
        Measured {
            stats,
            trace: Vec::new(),
            trace_tracks: Vec::new(),
        }
    }
}
