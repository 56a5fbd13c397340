//! `ctmc disasm` and `ctmc run` (spec §9, §10): machine code that ctmc did
//! not necessarily compile.
//!
//! - `disasm FILE.elf` takes the target from `e_machine` (122: x1k);
//!   `disasm FILE.bin --target x1k` reads raw 24-byte slots, `--target
//!   r700` a raw R700 program (CF program, then its clauses).
//! - `run FILE.elf [--simulate] [options]` launches an ELF with ctm's
//!   `"ctm"` bindings note on the simulated device, binding data by the
//!   parameter names the note gives.
//! - `run FILE --raw --target x1k` runs bare code on the processor array
//!   (`ctm::x1k::raw`).
//!
//! The r700 arms end with "the r700 backend is not built yet" (exit 2)
//! after checking every option.

use super::build::{data_options, print_stats, run_error, write_results};
use super::opts::{DisasmCli, RunCli, StatsFormat, parse_stats, split_pair};
use super::{Console, Exit};
use ctm::Target;
use ctm::args::{RunData, bind_inputs, check_output_names};
use ctm::compile::{Missing, parse_target};
use ctm::io::uniform::{parse_f32, parse_i32};
use ctm::simulate::{SimulateError, SimulateOptions};
use ctm::x1k::elf_entry::{ElfEntry, entry_of};
use ctm::x1k::raw::{self, MAX_ELEMENTS, RawError, RawProgram, RawRun, RegInit};
use ctm::x1k::{EM_X1K, elf_machine};
use std::path::Path;

/// The ELF magic.
const ELF_MAGIC: &[u8] = b"\x7fELF";

/// Registers of both targets: R0..R127.
const REGISTERS: u32 = 128;

/// Float constants an x1k program has; r700's constant buffer 0 holds 4096
/// vec4s (64 KiB).
fn constant_slots(target: Target) -> u32 {
    match target {
        Target::X1k => 256,
        _ => 4096,
    }
}

type Step<T> = Result<T, Exit>;

fn usage(console: &Console, message: impl std::fmt::Display) -> Exit {
    console.error(&message.to_string());
    Exit::Usage
}

fn read(console: &Console, path: &Path) -> Step<Vec<u8>> {
    ctm::io::read_bounded(path, ctm::io::MAX_PROGRAM_BYTES, "program file")
        .map_err(|e| usage(console, e))
}

/// A machine target named on the command line (`ref` has no machine code).
fn machine_target(console: &Console, text: &str) -> Step<Target> {
    match parse_target(text) {
        Some(t @ (Target::X1k | Target::R700)) => Ok(t),
        Some(Target::Ref) => Err(usage(
            console,
            "--target ref has no machine code: expected x1k or r700",
        )),
        None => Err(usage(
            console,
            format!("invalid value `{text}` for --target: expected x1k or r700"),
        )),
    }
}

/// The target of an ELF file, from `e_machine`; a `--target` that says
/// otherwise is a usage error.
fn elf_target(console: &Console, path: &Path, bytes: &[u8], given: Option<Target>) -> Step<Target> {
    let target = match elf_machine(bytes) {
        Some(EM_X1K) => Target::X1k,
        Some(m) => {
            return Err(usage(
                console,
                format!(
                    "`{}` is an ELF file for machine {m}, not an x1k program (e_machine {EM_X1K}); \
                     r700 ELF files are not supported yet",
                    path.display()
                ),
            ));
        }
        None => {
            return Err(usage(
                console,
                format!("`{}` is too short to be an ELF file", path.display()),
            ));
        }
    };
    match given {
        Some(t) if t != target => Err(usage(
            console,
            format!(
                "`{}` is an {target} ELF file (e_machine {EM_X1K}), not {t}",
                path.display()
            ),
        )),
        _ => Ok(target),
    }
}

/// Raw instruction words: a whole number of 32-bit words, not empty.
fn check_raw_words(console: &Console, path: &Path, bytes: &[u8]) -> Step<()> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(4) {
        return Err(usage(
            console,
            format!(
                "`{}` holds {} bytes, not a whole number of 32-bit instruction words",
                path.display(),
                bytes.len()
            ),
        ));
    }
    Ok(())
}

fn not_built(console: &Console, missing: Missing) -> Exit {
    run_error(console, &SimulateError::NotBuilt(missing))
}

/// `ctmc disasm FILE`.
pub fn disasm(cli: &DisasmCli, console: &mut Console) -> Exit {
    let mut step = || -> Step<Exit> {
        let bytes = read(console, &cli.file)?;
        let target = cli
            .target
            .as_deref()
            .map(|t| machine_target(console, t))
            .transpose()?;
        if bytes.starts_with(ELF_MAGIC) {
            elf_target(console, &cli.file, &bytes, target)?;
            let listing = ctm_backend_x1k::elf::listing::listing_elf(&bytes).map_err(|e| {
                usage(
                    console,
                    format!("`{}` is not a valid x1k ELF: {e}", cli.file.display()),
                )
            })?;
            console.out_text(&listing);
            return Ok(Exit::Success);
        }
        let Some(target) = target else {
            return Err(usage(
                console,
                format!(
                    "`{}` is not an ELF file; raw instruction words need --target x1k|r700",
                    cli.file.display()
                ),
            ));
        };
        check_raw_words(console, &cli.file, &bytes)?;
        if target == Target::R700 {
            let program = ctm_backend_r700::isa::program::decode_program(&bytes).map_err(|e| {
                usage(
                    console,
                    format!("`{}` is not a valid r700 program: {e}", cli.file.display()),
                )
            })?;
            console.out_text(&ctm_backend_r700::isa::asm::format_program(&program));
            return Ok(Exit::Success);
        }
        let listing = ctm_backend_x1k::elf::listing::listing_bin(&bytes).map_err(|e| {
            usage(
                console,
                format!(
                    "`{}`: {e} (an x1k instruction slot is 6 words, 24 bytes)",
                    cli.file.display()
                ),
            )
        })?;
        console.out_text(&listing);
        Ok(Exit::Success)
    };
    step().unwrap_or_else(|exit| exit)
}

/// Parses `--reg NAME=V0,V1,V2,V3` / `NAME=seq`.
fn parse_reg(console: &Console, text: &str) -> Step<(u8, RegInit)> {
    let (name, value) = split_pair("--reg", text, "R0..R127=V0,V1,V2,V3 or R0..R127=seq")
        .map_err(|e| usage(console, e))?;
    let index = name
        .strip_prefix(['R', 'r'])
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n < REGISTERS && !name[1..].starts_with('+'));
    let Some(index) = index else {
        return Err(usage(
            console,
            format!("--reg {name}: expected a register R0..R127"),
        ));
    };
    let init = if value == "seq" {
        RegInit::Seq
    } else {
        RegInit::Value(four_floats(console, "--reg", name, value)?)
    };
    Ok((index as u8, init))
}

fn four_floats(console: &Console, flag: &str, name: &str, value: &str) -> Step<[f32; 4]> {
    let parts: Vec<&str> = value.split(',').collect();
    if parts.len() != 4 {
        return Err(usage(
            console,
            format!(
                "{flag} {name}: expected 4 comma-separated numbers, found {}",
                parts.len()
            ),
        ));
    }
    let mut out = [0.0; 4];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = parse_f32(p).map_err(|e| usage(console, format!("{flag} {name}: {e}")))?;
    }
    Ok(out)
}

/// Parses `--const N=V0,V1,V2,V3`.
fn parse_const(console: &Console, text: &str, target: Target) -> Step<(u32, [f32; 4])> {
    let (index, value) = text
        .split_once('=')
        .ok_or_else(|| usage(console, format!("--const `{text}`: expected N=V0,V1,V2,V3")))?;
    let slots = constant_slots(target);
    let n = parse_i32(index)
        .ok()
        .filter(|&n| n >= 0 && (n as u32) < slots);
    let Some(n) = n else {
        return Err(usage(
            console,
            format!(
                "--const {index}: expected a constant number 0..{} for {target}",
                slots - 1
            ),
        ));
    };
    Ok((n as u32, four_floats(console, "--const", index, value)?))
}

/// The options of a raw run, checked.
struct RawOptions {
    target: Target,
    regs: Vec<(u8, RegInit)>,
    consts: Vec<(u32, [f32; 4])>,
    elements: u32,
    stats: Option<StatsFormat>,
}

fn raw_options(cli: &RunCli, console: &Console, target: Option<Target>) -> Step<RawOptions> {
    let stats = parse_stats(cli.sim.stats.as_deref()).map_err(|e| usage(console, e))?;
    let Some(target) = target else {
        return Err(usage(console, "--raw needs --target x1k|r700"));
    };
    for flag in [
        "--domain",
        "--input",
        "--uniform",
        "--output",
        "--check",
        "--trace",
    ] {
        if cli.sim.given_flags().contains(&flag) {
            return Err(usage(
                console,
                format!(
                    "{flag} is not an option of --raw runs (they take --reg, --const and --elements)"
                ),
            ));
        }
    }
    let mut regs: Vec<(u8, RegInit)> = Vec::new();
    for r in &cli.regs {
        let (index, init) = parse_reg(console, r)?;
        if regs.iter().any(|(i, _)| *i == index) {
            return Err(usage(console, format!("--reg R{index} is given twice")));
        }
        regs.push((index, init));
    }
    let mut consts: Vec<(u32, [f32; 4])> = Vec::new();
    for c in &cli.consts {
        let (index, value) = parse_const(console, c, target)?;
        if consts.iter().any(|(i, _)| *i == index) {
            return Err(usage(console, format!("--const {index} is given twice")));
        }
        consts.push((index, value));
    }
    let elements = match &cli.elements {
        None => 64,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0 && n <= MAX_ELEMENTS)
            .ok_or_else(|| {
                usage(
                    console,
                    format!("--elements `{n}`: expected a positive integer up to {MAX_ELEMENTS}"),
                )
            })?,
    };
    Ok(RawOptions {
        target,
        regs,
        consts,
        elements,
        stats,
    })
}

fn raw_error(console: &Console, e: &RawError) -> Exit {
    match e {
        RawError::Fault(_) => {
            console.error(&e.to_string());
            Exit::Failure
        }
        RawError::Unfit(_) => usage(console, e),
    }
}

/// `ctmc run FILE --raw`.
fn run_raw(cli: &RunCli, console: &mut Console, bytes: &[u8], target: Option<Target>) -> Step<()> {
    let o = raw_options(cli, console, target)?;
    let is_elf = bytes.starts_with(ELF_MAGIC);
    if is_elf {
        elf_target(console, &cli.file, bytes, Some(o.target))?;
    } else {
        check_raw_words(console, &cli.file, bytes)?;
    }
    if o.target == Target::R700 {
        return Err(not_built(console, Missing::Backend(o.target)));
    }
    let name = cli
        .file
        .file_stem()
        .map_or_else(|| "raw".to_string(), |s| s.to_string_lossy().into_owned());
    let program: RawProgram = if is_elf {
        raw::from_elf(&name, bytes)
    } else {
        raw::from_words(&name, bytes)
    }
    .map_err(|e| raw_error(console, &e))?;
    let run = RawRun {
        elements: o.elements,
        regs: o.regs,
        // x1k constants are 0..=255 (checked above).
        consts: o.consts.iter().map(|(i, v)| (*i as u8, *v)).collect(),
        options: SimulateOptions::default().x1k,
    };
    let outcome = raw::run_raw(&program, &run).map_err(|e| raw_error(console, &e))?;
    if cli.dump_outputs {
        console.out_line(&raw::outputs_json(&outcome.results).to_string());
    } else if o.stats.is_none() {
        console.out_line(&format!(
            "ran `{}` on {} element(s) on x1k in {} cycles (--dump-outputs prints what each element wrote)",
            program.name, o.elements, outcome.stats.cycles
        ));
    }
    match o.stats {
        Some(StatsFormat::Text) => console.out_text(&outcome.stats.render_text()),
        Some(StatsFormat::Json) => console.out_line(&outcome.stats.to_json_line()),
        None => {}
    }
    Ok(())
}

/// `ctmc run FILE.elf [--simulate]`: an ELF with ctm's bindings.
fn run_elf(cli: &RunCli, console: &mut Console, bytes: &[u8], target: Option<Target>) -> Step<()> {
    let stats = parse_stats(cli.sim.stats.as_deref()).map_err(|e| usage(console, e))?;
    for (flag, given) in [
        ("--reg", !cli.regs.is_empty()),
        ("--const", !cli.consts.is_empty()),
        ("--elements", cli.elements.is_some()),
        ("--dump-outputs", cli.dump_outputs),
    ] {
        if given {
            return Err(usage(console, format!("{flag} needs --raw")));
        }
    }
    let (inputs, outputs) = data_options(&cli.sim, console)?;
    super::build::check_paths(
        console,
        ("the program file", &cli.file),
        &inputs,
        &outputs,
        None,
        cli.sim.trace.as_deref(),
    )?;
    if !bytes.starts_with(ELF_MAGIC) {
        return Err(usage(
            console,
            format!(
                "`{}` is not an ELF file; run raw instruction words with --raw --target x1k|r700",
                cli.file.display()
            ),
        ));
    }
    if cli.sim.check {
        return Err(usage(
            console,
            "--check needs the source: an ELF has no reference to compare with (use `ctmc FILE.ck --simulate --check`)",
        ));
    }
    elf_target(console, &cli.file, bytes, target)?;
    let program = ctm_backend_x1k::elf::read(bytes).map_err(|e| {
        usage(
            console,
            format!(
                "`{}` cannot be launched: {e} (an ELF without ctm's bindings note runs with --raw --target x1k)",
                cli.file.display()
            ),
        )
    })?;
    let entry = entry_of(&program.bindings).map_err(|e| {
        usage(
            console,
            format!("`{}`: the bindings note: {e}", cli.file.display()),
        )
    })?;
    check_output_names(entry.entry(), outputs.iter().map(|(n, _)| n.as_str()))
        .map_err(|e| usage(console, e))?;
    let data = bind_inputs(entry.entry(), &inputs).map_err(|e| usage(console, e))?;
    let options = SimulateOptions::default();
    let run = match (&entry, &data) {
        (ElfEntry::Kernel(k), RunData::Kernel(args)) => {
            ctm::x1k::run_kernel(&program, &k.params, args, &options)
        }
        (ElfEntry::Reduction(r), RunData::Reduction(input)) => {
            let mut pass = |_| Ok(program.clone());
            ctm::x1k::run_reduction(&r.name, r.ty, &mut pass, input, &options)
        }
        _ => Err(SimulateError::Internal(
            "the data bound to the ELF's entry point is of another kind".into(),
        )),
    }
    .map_err(|e| run_error(console, &e))?;
    write_results(
        console,
        &run,
        &outputs,
        cli.sim.trace.as_deref(),
        "ctmc x1k",
    )?;
    print_stats(console, &run, stats);
    Ok(())
}

/// `ctmc run FILE`.
pub fn run(cli: &RunCli, console: &mut Console) -> Exit {
    match run_steps(cli, console) {
        Ok(()) => Exit::Success,
        Err(exit) => exit,
    }
}

fn run_steps(cli: &RunCli, console: &mut Console) -> Step<()> {
    let bytes = read(console, &cli.file)?;
    let target = cli
        .target
        .as_deref()
        .map(|t| machine_target(console, t))
        .transpose()?;
    if cli.raw {
        run_raw(cli, console, &bytes, target)
    } else {
        run_elf(cli, console, &bytes, target)
    }
}
