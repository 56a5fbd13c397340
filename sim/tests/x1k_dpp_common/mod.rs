//! Shared helpers for the processor-array tests: assemble a program, run it,
//! read results. Expected values in the tests come from the CTM guide or
//! are computed independently (plain f32/f64 arithmetic), never from the
//! simulator.
#![allow(dead_code)]

use ctm_backend_x1k::isa::parse_program;
use ctm_sim::x1k::dpp::{DppFault, DppOptions, DppRun, HazardPolicy, TableMemory, run_program};
use ctm_sim::x1k::interface::{ElementResult, Program};

/// Flow-control mode of a test program.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Partial,
    Full,
}

/// Assemble `text` into a program: all 128 temporaries, cached outputs,
/// `US_CODE_ADDR` = 0 .. last slot.
pub fn program(text: &str, mode: Mode) -> Program {
    let insts = parse_program(text).unwrap_or_else(|e| panic!("assembly error {e}\n{text}"));
    let end = insts.len() as u32 - 1;
    Program {
        insts,
        us_config: 0,
        us_pixsize: 127,
        us_fc_ctrl: if mode == Mode::Full { 0x8000_0000 } else { 0 },
        us_code_addr: end << 16,
    }
}

/// Run with default options (group 48, faults on hazards).
pub fn run(prog: &Program, elements: &[(u32, u32)], mem: &TableMemory) -> Result<DppRun, DppFault> {
    run_program(prog, elements, mem, &DppOptions::default())
}

/// Run with a given group size.
pub fn run_grouped(
    prog: &Program,
    elements: &[(u32, u32)],
    mem: &TableMemory,
    group_size: usize,
) -> Result<DppRun, DppFault> {
    let options = DppOptions {
        group_size,
        ..DppOptions::default()
    };
    run_program(prog, elements, mem, &options)
}

/// Run under the warn policy.
pub fn run_warn(
    prog: &Program,
    elements: &[(u32, u32)],
    mem: &TableMemory,
) -> Result<DppRun, DppFault> {
    let options = DppOptions {
        hazards: HazardPolicy::Warn,
        ..DppOptions::default()
    };
    run_program(prog, elements, mem, &options)
}

/// Run one element (0, 0) of a full-mode program.
pub fn run1(text: &str, mem: &TableMemory) -> ElementResult {
    let prog = program(text, Mode::Full);
    run(&prog, &[(0, 0)], mem).unwrap().results.remove(0)
}

/// Target `t` of an element as four values (unwritten channels NaN-free 0).
pub fn target(r: &ElementResult, t: usize) -> [f32; 4] {
    r.targets[t].map(|w| w.value).unwrap_or([0.0; 4])
}

/// The bits of target `t`.
pub fn target_bits(r: &ElementResult, t: usize) -> [u32; 4] {
    target(r, t).map(f32::to_bits)
}

/// Memory with float constants c0.. set.
pub fn consts(values: &[[f32; 4]]) -> TableMemory {
    let mut mem = TableMemory::default();
    for (i, v) in values.iter().enumerate() {
        mem.set_constant(i as u8, *v);
    }
    mem
}

/// A bit-exact OUT of r`reg` to o0 (MAX with OMOD_DISABLED, CTM §3.3.5).
pub fn out_reg(reg: u32) -> String {
    format!(
        "out o0.rgb = max(s0.rgb, s0.rgb) omod_off ; o0.a = max(s0.a, s0.a) omod_off ; s0=r{reg} sem_wait"
    )
}
