//! Shared helpers for the processor-array tests: assemble a program, run it,
//! read results. Expected values in the tests come from the CTM guide or
//! are computed independently (plain f32/f64 arithmetic), never from the
//! simulator.
//!
//! Every run through these helpers ([`run_checked`]) executes the program
//! on both engines, fast and reference, and asserts that they agree bit
//! for bit (results, statistics, batches, warnings, or the fault): each
//! test program is also an equivalence test of the fast engine.
#![allow(dead_code)]

use ctm_backend_x1k::isa::parse_program;
use ctm_sim::x1k::dpp::{
    DppFault, DppOptions, DppRun, Engine, HazardPolicy, TableMemory, run_program,
};
use ctm_sim::x1k::interface::{ElementResult, Program};

/// An element result with every float as its bits, for exact comparison.
pub type ResultBits = (
    (u32, u32, bool),
    [Option<([u32; 4], u8)>; 4],
    Option<u32>,
    Vec<(u8, u32, u32, u32)>,
);

/// The bits of an element result.
pub fn result_bits(r: &ElementResult) -> ResultBits {
    (
        (r.i, r.j, r.killed),
        r.targets
            .map(|t| t.map(|w| (w.value.map(f32::to_bits), w.mask))),
        r.conditional_value.map(f32::to_bits),
        r.umrt
            .iter()
            .map(|u| (u.target, u.x.to_bits(), u.y.to_bits(), u.value.to_bits()))
            .collect(),
    )
}

/// Assert that two runs agree bit for bit: every output value, kill bit,
/// conditional value and UMRT write, the statistics, the batch timings and
/// the warnings — or the same fault.
pub fn assert_same_run(
    fast: &Result<DppRun, DppFault>,
    reference: &Result<DppRun, DppFault>,
    what: &str,
) {
    match (fast, reference) {
        (Ok(f), Ok(r)) => {
            assert_eq!(f.results.len(), r.results.len(), "{what}: result count");
            for (k, (a, b)) in f.results.iter().zip(&r.results).enumerate() {
                assert_eq!(result_bits(a), result_bits(b), "{what}: element {k}");
            }
            assert_eq!(
                format!("{:?}", f.stats),
                format!("{:?}", r.stats),
                "{what}: stats"
            );
            assert_eq!(f.batches, r.batches, "{what}: batches");
            assert_eq!(f.warnings, r.warnings, "{what}: warnings");
        }
        (Err(f), Err(r)) => assert_eq!(format!("{f:?}"), format!("{r:?}"), "{what}: fault"),
        (f, r) => panic!(
            "{what}: engines disagree: fast {:?}, reference {:?}",
            f.as_ref().err(),
            r.as_ref().err()
        ),
    }
}

/// Run on the fast engine and on the reference engine, assert they agree
/// bit for bit, and return the fast engine's run.
pub fn run_checked(
    prog: &Program,
    elements: &[(u32, u32)],
    mem: &TableMemory,
    options: &DppOptions,
) -> Result<DppRun, DppFault> {
    let fast = run_program(
        prog,
        elements,
        mem,
        &DppOptions {
            engine: Engine::Fast,
            ..options.clone()
        },
    );
    let reference = run_program(
        prog,
        elements,
        mem,
        &DppOptions {
            engine: Engine::Reference,
            ..options.clone()
        },
    );
    assert_same_run(&fast, &reference, "fast vs reference");
    fast
}

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
    run_checked(prog, elements, mem, &DppOptions::default())
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
    run_checked(prog, elements, mem, &options)
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
    run_checked(prog, elements, mem, &options)
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
