//! `ctmc run FILE --raw --target x1k` (spec §10): bare runs of X1K machine
//! code that ctmc did not necessarily compile.
//!
//! The program (raw 24-byte slots, or an ELF) runs on the processor array
//! directly ([`ctm_sim::x1k::dpp::run_program`]) with a [`TableMemory`]:
//! no device, no inputs (lookups read zeros), the float constants given by
//! `--const`, on elements (k, 0) for k in 0..N, so that `r0` starts as
//! (k, 0, 0, 0) — the ABI's r0 = (i, j, 0, 0), which is what `R0=seq`
//! says.
//!
//! **Initial registers.** The array starts every temporary at 0 except
//! r0. A `--reg` that asks for anything else (`R0=1,2,3,4`, `R5=seq`, ...)
//! is realised by a *preamble*: one ALU instruction per such register,
//! inserted before the program's start slot, copying a free float
//! constant (or r0, for `seq`) bit for bit (`MAX` with `OMOD_DISABLED`),
//! then one flow-control instruction that never jumps but carries
//! `ALU_WAIT`, so that the program may read the registers at once.
//! Jump targets at or after the start slot move with the code, and fault
//! slots are given back in the program's own numbering. Registers the
//! program never references need no preamble; `US_PIXSIZE` grows to cover
//! the registers loaded. The preamble's instructions and cycles are part
//! of the statistics (per batch: one ALU instruction per register, and one
//! FC instruction).
//!
//! **Raw words** carry no program registers: they run with `US_CONFIG` 0
//! (cached outputs), `US_FC_CTRL` in full mode when the program needs it
//! (loops, calls, deep nesting) and `US_PIXSIZE` covering the highest
//! temporary referenced. An ELF brings its own (and its code range).

use super::profile::{self, LaunchStats};
use crate::stats::Stats;
use crate::target::{RawError, RawRun, RegInit};
use ctm_backend_x1k::Program as BackendProgram;
use ctm_backend_x1k::isa::program_regs::FcMode;
use ctm_backend_x1k::isa::{self, Inst, MAX_SLOTS, SlotIndex};
use ctm_sim::x1k::dpp::{DppFault, TableMemory, run_program};
use ctm_sim::x1k::interface::{ElementResult, Program};
use serde_json::{Value, json};

/// Elements a bare run may have (each keeps its outputs until printed).
pub const MAX_ELEMENTS: u32 = 1 << 20;

/// A bare program: what the array runs, and its name for reports.
#[derive(Clone, Debug, PartialEq)]
pub struct RawProgram {
    /// The name (the ELF's kernel, or the file's).
    pub name: String,
    /// The instructions and program registers.
    pub program: Program,
}

/// The start slot (bits 15:0) and end slot (bits 31:16) of `US_CODE_ADDR`.
fn code_range(code_addr: u32) -> (u32, u32) {
    (code_addr & 0xFFFF, code_addr >> 16)
}

/// Raw little-endian words, 24 bytes a slot.
///
/// # Errors
/// [`RawError::Unfit`] for a length that is not whole slots (or no slot,
/// or more than 512), [`RawError::Fault`] naming the first slot that does
/// not decode (an illegal instruction).
pub fn from_words(name: &str, bytes: &[u8]) -> Result<RawProgram, RawError> {
    let per_slot = 4 * isa::WORDS_PER_SLOT;
    let slots = bytes.len() / per_slot;
    if bytes.is_empty() || !bytes.len().is_multiple_of(per_slot) || slots > MAX_SLOTS {
        return Err(RawError::Unfit(format!(
            "{} bytes are not 1 to {MAX_SLOTS} x1k instruction slots of {per_slot} bytes",
            bytes.len()
        )));
    }
    let insts = isa::decode_program_bytes(bytes).map_err(|e| match e {
        isa::ProgramDecodeError::Slot { slot, source } => {
            RawError::Fault(format!("slot {slot}: illegal instruction: {source}"))
        }
        other => RawError::Unfit(other.to_string()),
    })?;
    let facts = ctm_backend_x1k::validate::facts(&BackendProgram {
        insts: insts.clone(),
        us_config: 0,
        us_pixsize: 0,
        us_fc_ctrl: 0,
        bindings: Default::default(),
    });
    let full = facts.fc_mode_needed == FcMode::Full;
    Ok(RawProgram {
        name: name.to_string(),
        program: Program {
            us_config: 0,
            us_pixsize: facts.max_temp().map_or(0, u32::from),
            us_fc_ctrl: if full { 1 << 31 } else { 0 },
            us_code_addr: (insts.len() as u32 - 1) << 16,
            insts,
        },
    })
}

/// An X1K ELF (ctm's or any CTM executable; the `"ctm"` note is not
/// needed).
///
/// # Errors
/// [`RawError::Fault`] when a `.text` slot does not decode,
/// [`RawError::Unfit`] for any other deviation from the CTM ELF layout.
pub fn from_elf(name: &str, bytes: &[u8]) -> Result<RawProgram, RawError> {
    use ctm_backend_x1k::elf::{ElfError, read_image};
    let image = read_image(bytes).map_err(|e| match e {
        ElfError::TextDecode(isa::ProgramDecodeError::Slot { slot, source }) => {
            RawError::Fault(format!("slot {slot}: illegal instruction: {source}"))
        }
        other => RawError::Unfit(format!("not a valid x1k ELF: {other}")),
    })?;
    let name = image
        .bindings
        .as_ref()
        .map_or_else(|| name.to_string(), |b| b.kernel.clone());
    Ok(RawProgram {
        name,
        program: Program {
            insts: image.insts,
            us_config: image.proginfo.us_config,
            us_pixsize: image.proginfo.us_pixsize,
            us_fc_ctrl: image.proginfo.us_fc_ctrl,
            us_code_addr: image.proginfo.us_code_addr,
        },
    })
}

/// What a bare run of the array produced.
#[derive(Clone, Debug)]
pub struct ArrayOutcome {
    /// One result per element, in order.
    pub results: Vec<ElementResult>,
    /// The statistics (as for `--simulate`).
    pub stats: Stats,
}

/// The program with the preamble that loads `loads` (register, source
/// operand) inserted before its start slot; the preamble's length.
fn with_preamble(program: &Program, loads: &[(u8, String)]) -> Result<(Program, u32), RawError> {
    if loads.is_empty() {
        return Ok((program.clone(), 0));
    }
    // The loads, then an FC that never jumps but waits for them (a TEX or
    // FC reading an ALU result needs ALU_WAIT, CTM §3.2.1).
    let m = loads.len() as u32 + 1;
    if program.insts.len() + m as usize > MAX_SLOTS {
        return Err(RawError::Unfit(format!(
            "--reg needs {m} preamble slot(s) before the program, and the program already has {} of the {MAX_SLOTS} slots",
            program.insts.len()
        )));
    }
    let (start, end) = code_range(program.us_code_addr);
    let mut text: Vec<String> = loads
        .iter()
        .map(|(r, src)| {
            format!(
                "alu r{r}.rgb = max(s0.rgb, s0.rgb) omod_off ; r{r}.a = max(s0.a, s0.a) omod_off ; s0={src}"
            )
        })
        .collect();
    text.push(format!("fc jump {} func=never alu_wait", start + m));
    let preamble = isa::parse_program(&text.join("\n"))
        .map_err(|e| RawError::Unfit(format!("the --reg preamble does not assemble: {e}")))?;
    let at = (start as usize).min(program.insts.len());
    let mut insts: Vec<Inst> = program.insts.clone();
    for inst in &mut insts {
        if let Inst::Fc(fc) = inst
            && fc.jump_addr.get() >= start
        {
            fc.jump_addr = SlotIndex::new(fc.jump_addr.get() + m).ok_or_else(|| {
                RawError::Unfit("a jump target moves past slot 511 with the --reg preamble".into())
            })?;
        }
    }
    insts.splice(at..at, preamble);
    let highest = loads.iter().map(|(r, _)| u32::from(*r)).max().unwrap_or(0);
    Ok((
        Program {
            insts,
            us_pixsize: program.us_pixsize.max(highest),
            us_code_addr: start | ((end + m) << 16),
            ..program.clone()
        },
        m,
    ))
}

/// A fault's slot in the program's own numbering.
fn unshift(mut fault: DppFault, start: u32, m: u32) -> String {
    let slot = u32::from(fault.slot);
    if m > 0 && slot >= start {
        if slot < start + m {
            return format!("{fault} (in the --reg preamble before slot {start})");
        }
        fault.slot = (slot - m) as u16;
    }
    fault.to_string()
}

/// Runs `raw` as `run` says.
///
/// # Errors
/// [`RawError::Fault`] when the program faults (the slot and the CTM
/// rule), [`RawError::Unfit`] when the options cannot be realised (no free
/// constant for a `--reg` value, no room for the preamble).
pub fn run_raw(raw: &RawProgram, run: &RawRun) -> Result<ArrayOutcome, RawError> {
    let backend = BackendProgram {
        insts: raw.program.insts.clone(),
        us_config: raw.program.us_config,
        us_pixsize: raw.program.us_pixsize,
        us_fc_ctrl: raw.program.us_fc_ctrl,
        bindings: Default::default(),
    };
    let facts = ctm_backend_x1k::validate::facts(&backend);
    let mut memory = TableMemory::default();
    let mut given: Vec<u8> = Vec::new();
    for (index, value) in &run.consts {
        let index = u8::try_from(*index).map_err(|_| {
            RawError::Unfit(format!(
                "--const {index}: the x1k has float constants 0..255"
            ))
        })?;
        memory.set_constant(index, *value);
        given.push(index);
    }
    let mut free = (0..=255u8)
        .filter(|c| !facts.float_constants.contains(c) && !given.contains(c))
        .collect::<Vec<_>>()
        .into_iter();
    // Copies of r0 first (it still holds (k, 0, 0, 0)), then values.
    let referenced = |r: u8| facts.temps.contains(&r) || facts.relative_temps;
    let mut loads: Vec<(u8, String)> = Vec::new();
    for (r, init) in &run.regs {
        if *r != 0 && *init == RegInit::Seq && referenced(*r) {
            loads.push((*r, "r0".into()));
        }
    }
    for (r, init) in &run.regs {
        if let RegInit::Value(v) = init
            && referenced(*r)
        {
            let c = free.next().ok_or_else(|| {
                RawError::Unfit(format!(
                    "--reg R{r}: no float constant is free to hold the value (the program reads all 256)"
                ))
            })?;
            memory.set_constant(c, *v);
            loads.push((*r, format!("c{c}")));
        }
    }
    let (program, m) = with_preamble(&raw.program, &loads)?;
    let elements: Vec<(u32, u32)> = (0..run.elements).map(|k| (k, 0)).collect();
    let (start, _) = code_range(raw.program.us_code_addr);
    let dpp = run_program(&program, &elements, &memory, &run.options.models.x1k)
        .map_err(|f| RawError::Fault(unshift(f, start, m)))?;
    let stats = profile::stats(
        &raw.name,
        &[LaunchStats {
            dpp: dpp.stats,
            perf: None,
        }],
        None,
    );
    Ok(ArrayOutcome {
        results: dpp.results,
        stats,
    })
}

/// A float for JSON. JSON has no NaN or infinities: they are spelled
/// `"nan"`, `"inf"` and `"-inf"`, as the r700's bare runs spell them
/// (`ctm_sim::r700::raw_outputs_json`), so that both targets' dumps compare
/// on equal terms (spec §10).
fn number(x: f32) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        json!("nan")
    } else if x > 0.0 {
        json!("inf")
    } else {
        json!("-inf")
    }
}

/// What every element wrote, as spec §10 prints it:
/// `{"outputs": [{"kind": "target", "index": I, "values": [[x, y, z, w], ...]}]}`
/// with one entry per render target any element wrote (one value per
/// element; channels not written and killed elements read 0), then
/// `"conditional"` (index 0, the conditional value in x) if any element
/// wrote it, then `"memory"` per UMRT target, whose values are the writes
/// in element order as `[x, y, value, element]`.
pub fn outputs_json(results: &[ElementResult]) -> Value {
    let mut outputs = Vec::new();
    for t in 0..4 {
        if !results
            .iter()
            .any(|r| r.targets[t].is_some_and(|w| w.mask != 0))
        {
            continue;
        }
        let values: Vec<Value> = results
            .iter()
            .map(|r| {
                let mut v = [0.0f32; 4];
                if let Some(w) = r.targets[t].filter(|_| !r.killed) {
                    for (c, x) in v.iter_mut().enumerate() {
                        if w.mask & (1 << c) != 0 {
                            *x = w.value[c];
                        }
                    }
                }
                Value::Array(v.iter().map(|&x| number(x)).collect())
            })
            .collect();
        outputs.push(json!({"kind": "target", "index": t, "values": values}));
    }
    if results.iter().any(|r| r.conditional_value.is_some()) {
        let values: Vec<Value> = results
            .iter()
            .map(|r| {
                let x = r.conditional_value.filter(|_| !r.killed).unwrap_or(0.0);
                json!([number(x), 0.0, 0.0, 0.0])
            })
            .collect();
        outputs.push(json!({"kind": "conditional", "index": 0, "values": values}));
    }
    let mut targets: Vec<u8> = results
        .iter()
        .flat_map(|r| r.umrt.iter().map(|w| w.target))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    for t in targets {
        let values: Vec<Value> = results
            .iter()
            .enumerate()
            .flat_map(|(k, r)| {
                r.umrt
                    .iter()
                    .filter(move |w| w.target == t)
                    .map(move |w| json!([number(w.x), number(w.y), number(w.value), k]))
            })
            .collect();
        outputs.push(json!({"kind": "memory", "index": t, "values": values}));
    }
    json!({ "outputs": outputs })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawProgram {
        let insts = isa::parse_program(text).expect("assembles");
        let bytes = isa::encode_program_bytes(&insts);
        from_words("test", &bytes).expect("decodes")
    }

    fn run(raw: &RawProgram, regs: Vec<(u8, RegInit)>, consts: Vec<(u32, [f32; 4])>) -> Value {
        let outcome = run_raw(
            raw,
            &RawRun {
                elements: 5,
                regs,
                consts,
                options: Default::default(),
            },
        )
        .expect("runs");
        outputs_json(&outcome.results)
    }

    #[test]
    fn r0_is_the_element_number() {
        let p = raw("out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r0 sem_wait");
        let v = run(&p, vec![], vec![]);
        let out = &v["outputs"][0];
        assert_eq!(out["kind"], "target");
        assert_eq!(out["index"], 0);
        assert_eq!(out["values"][3], json!([3.0, 0.0, 0.0, 0.0]));
        // R0=seq is the default.
        assert_eq!(run(&p, vec![(0, RegInit::Seq)], vec![]), v);
    }

    #[test]
    fn registers_are_loaded_by_a_preamble() {
        let p = raw(
            "alu r1.rgb = mad(r1.rgb, c0.rgb, r2.rgb) ; r1.a = mad(r1.a, c0.a, r2.a)
             out o1.rgb = max(s0.rgb, s0.rgb) ; o1.a = max(s0.a, s0.a) ; s0=r1 sem_wait",
        );
        let v = run(
            &p,
            vec![
                (2, RegInit::Seq),
                (1, RegInit::Value([1.0, 2.0, 3.0, f32::NAN])),
                (9, RegInit::Value([7.0; 4])),
            ],
            vec![(0, [2.0, 2.0, 2.0, 2.0])],
        );
        let out = &v["outputs"][0];
        assert_eq!(out["index"], 1);
        // r1 * 2 + (k, 0, 0, 0); NaN stays NaN (printed as "nan").
        assert_eq!(out["values"][4], json!([6.0, 4.0, 6.0, "nan"]));
    }

    #[test]
    fn faults_name_the_slot_of_the_program() {
        // Slot 1 is not the end, slot 1 is not OUT: the last slot must be.
        let p = raw("alu r1.rgb = mad(r0.rgb, r0.rgb, r0.rgb) ; _
             alu r1.rgb = mad(r0.rgb, r0.rgb, r0.rgb) ; _");
        for regs in [vec![], vec![(1, RegInit::Value([1.0; 4]))]] {
            let e = run_raw(
                &p,
                &RawRun {
                    elements: 1,
                    regs,
                    consts: vec![],
                    options: Default::default(),
                },
            )
            .unwrap_err();
            assert!(
                matches!(&e, RawError::Fault(m) if m.starts_with("slot 1:")),
                "{e}"
            );
        }
    }

    #[test]
    fn bad_words() {
        assert!(matches!(from_words("x", &[0; 10]), Err(RawError::Unfit(_))));
        assert!(matches!(from_words("x", &[]), Err(RawError::Unfit(_))));
    }
}
