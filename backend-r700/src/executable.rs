//! A complete R700 executable as ctm builds and loads it: the program (CF
//! program and clauses), the hardware resources the host must program
//! (`SQ_PGM_RESOURCES_PS`, the kill enable) and the parameter bindings.
//! What [`crate::elf::write`] packages and [`crate::elf::read`] returns.

use crate::abi::Bindings;
use crate::isa::Program;

/// A program with everything a loader needs.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Executable {
    /// The CF program and its clauses.
    pub program: Program,
    /// The resources the host registers must give it.
    pub resources: Resources,
    /// What each kernel parameter is bound to.
    pub bindings: Bindings,
}

/// The per-program host register values (`docs/abi-r700.md` §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Resources {
    /// `SQ_PGM_RESOURCES_PS.NUM_GPRS`: GPRs per thread (R0 included).
    pub num_gprs: u32,
    /// `SQ_PGM_RESOURCES_PS.STACK_SIZE`: stack entries (manual §3.6.5).
    pub stack_size: u32,
    /// `DB_SHADER_CONTROL.KILL_ENABLE`: the program may kill pixels.
    pub kill: bool,
    /// Pixel exports written (`SQ_PGM_EXPORTS_PS` colour exports).
    pub color_exports: u32,
    /// `SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS`: clause temporaries
    /// (GPR 128 − N..127) the program uses; 0 when it uses none.
    pub clause_temps: u32,
}
