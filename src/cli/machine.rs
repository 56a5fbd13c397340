//! `ctmc disasm` and `ctmc run` (spec §9, §10): machine code that ctmc did
//! not necessarily compile.
//!
//! - `disasm FILE.elf` takes the target from `e_machine` (122: x1k,
//!   125: r700); `disasm FILE.bin --target x1k` reads raw 24-byte slots,
//!   `--target r700` a raw R700 program (CF program, then its clauses).
//! - `run FILE.elf [--simulate] [options]` launches an ELF with ctm's
//!   bindings note on the target's simulated device, binding data by the
//!   parameter names the note gives.
//! - `run FILE --raw --target T` runs bare code on the target's machine.
//!
//! Every arm goes through the target layer (`ctm::target`).

use super::build::{check_outputs, data_options, print_stats, run_error, write_results};
use super::opts::{DisasmCli, RunCli, StatsFormat, parse_stats, split_pair};
use super::{Console, Exit};
use ctm::Target;
use ctm::args::{RunData, bind_inputs, check_output_names};
use ctm::compile::{Compilation, CompileError, CompileOptions, parse_target};
use ctm::io::uniform::{parse_f32, parse_i32};
use ctm::simulate::{SimulateError, run_kernel, run_reduction};
use ctm::target::{
    ElfEntry, EmbeddedSource, MachineTarget, RawError, RawRun, RegInit, by_elf_machine,
    elf_machine, machine,
};
use std::path::Path;

/// The ELF magic.
const ELF_MAGIC: &[u8] = b"\x7fELF";

/// Registers of both targets: R0..R127.
const REGISTERS: u32 = 128;

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
fn machine_target(console: &Console, text: &str) -> Step<&'static dyn MachineTarget> {
    match parse_target(text) {
        Some(Target::Ref) => Err(usage(
            console,
            "--target ref has no machine code: expected x1k or r700",
        )),
        Some(t) => machine(t).ok_or_else(|| usage(console, format!("no machine target {t}"))),
        None => Err(usage(
            console,
            format!("invalid value `{text}` for --target: expected x1k or r700"),
        )),
    }
}

/// The target of an ELF file, from `e_machine`; a `--target` that says
/// otherwise is a usage error.
fn elf_target(
    console: &Console,
    path: &Path,
    bytes: &[u8],
    given: Option<&'static dyn MachineTarget>,
) -> Step<&'static dyn MachineTarget> {
    let target = match elf_machine(bytes) {
        Some(m) => by_elf_machine(m).ok_or_else(|| {
            usage(
                console,
                format!(
                    "`{}` is an ELF file for machine {m}, not an x1k (e_machine 122) or r700 (e_machine 125) program",
                    path.display()
                ),
            )
        })?,
        None => {
            return Err(usage(
                console,
                format!("`{}` is too short to be an ELF file", path.display()),
            ));
        }
    };
    match given {
        Some(t) if t.target() != target.target() => Err(usage(
            console,
            format!(
                "`{}` is an {} ELF file (e_machine {}), not {}",
                path.display(),
                target.target(),
                target.elf_machine(),
                t.target()
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
            let target = elf_target(console, &cli.file, &bytes, target)?;
            let listing = target.listing_elf(&bytes).map_err(|e| {
                usage(
                    console,
                    format!(
                        "`{}` is not a valid {} ELF: {e}",
                        cli.file.display(),
                        target.target()
                    ),
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
        let listing = target
            .listing_raw(&bytes)
            .map_err(|e| usage(console, format!("`{}`: {e}", cli.file.display())))?;
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
fn parse_const(console: &Console, text: &str, target: &dyn MachineTarget) -> Step<(u32, [f32; 4])> {
    let (index, value) = text
        .split_once('=')
        .ok_or_else(|| usage(console, format!("--const `{text}`: expected N=V0,V1,V2,V3")))?;
    let slots = target.constant_slots();
    let n = parse_i32(index)
        .ok()
        .filter(|&n| n >= 0 && (n as u32) < slots);
    let Some(n) = n else {
        return Err(usage(
            console,
            format!(
                "--const {index}: expected a constant number 0..{} for {}",
                slots - 1,
                target.target()
            ),
        ));
    };
    Ok((n as u32, four_floats(console, "--const", index, value)?))
}

/// The options of a raw run, checked.
struct RawOptions {
    target: &'static dyn MachineTarget,
    regs: Vec<(u8, RegInit)>,
    consts: Vec<(u32, [f32; 4])>,
    elements: u32,
    stats: Option<StatsFormat>,
}

fn raw_options(
    cli: &RunCli,
    console: &Console,
    target: Option<&'static dyn MachineTarget>,
) -> Step<RawOptions> {
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
    let max_elements = target.max_raw_elements();
    let elements = match &cli.elements {
        None => 64,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0 && n <= max_elements)
            .ok_or_else(|| {
                usage(
                    console,
                    format!("--elements `{n}`: expected a positive integer up to {max_elements}"),
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
fn run_raw(
    cli: &RunCli,
    console: &mut Console,
    bytes: &[u8],
    target: Option<&'static dyn MachineTarget>,
) -> Step<()> {
    let o = raw_options(cli, console, target)?;
    if bytes.starts_with(ELF_MAGIC) {
        elf_target(console, &cli.file, bytes, Some(o.target))?;
    } else {
        check_raw_words(console, &cli.file, bytes)?;
    }
    let name = cli
        .file
        .file_stem()
        .map_or_else(|| "raw".to_string(), |s| s.to_string_lossy().into_owned());
    let run = RawRun {
        elements: o.elements,
        regs: o.regs,
        consts: o.consts,
        options: cli.sim.options(),
    };
    let outcome = o
        .target
        .run_raw(&name, bytes, &run)
        .map_err(|e| raw_error(console, &e))?;
    if cli.dump_outputs {
        console.out_line(&outcome.outputs.to_string());
    } else if o.stats.is_none() {
        console.out_line(&format!(
            "ran `{}` on {} element(s) on {} in {} cycles (--dump-outputs prints what each element wrote)",
            outcome.name,
            o.elements,
            o.target.target(),
            outcome.stats.cycles
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
fn run_elf(
    cli: &RunCli,
    console: &mut Console,
    bytes: &[u8],
    target: Option<&'static dyn MachineTarget>,
) -> Step<()> {
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
    let target = elf_target(console, &cli.file, bytes, target)?;
    let reference = if cli.sim.check {
        Some(embedded_compilation(console, &cli.file, bytes, target)?)
    } else {
        None
    };
    let program = target.read_elf(bytes).map_err(|e| {
        usage(
            console,
            format!(
                "`{}` cannot be launched: {e} (an ELF without ctm's bindings note runs with --raw --target {})",
                cli.file.display(),
                target.target()
            ),
        )
    })?;
    let mut entry = program.entry().map_err(|e| {
        usage(
            console,
            format!("`{}`: the bindings note: {e}", cli.file.display()),
        )
    })?;
    // Spec §9: a reduction reads its one input as `--input A=SRC`, A its
    // first parameter's name. The pass program's bindings do not record
    // that name (its input is `src`), so the one input is taken under the
    // name given, or else under the first parameter's name in the source
    // the ELF carries: `random` is seeded by the name, so the run reads
    // the data the source run (and `--check`'s reference) reads
    // (`docs/cli.md`, "ctmc run FILE.elf").
    if let ElfEntry::Reduction(r) = &mut entry
        && let Some(name) = match inputs.inputs.first() {
            Some((name, _)) => Some(name.clone()),
            None => reduction_input_name(reference.as_ref(), bytes, target.target()),
        }
        && let Some(local) = r.locals.get_mut(r.params[0].index())
    {
        local.name = name;
    }
    check_output_names(entry.entry(), outputs.iter().map(|(n, _)| n.as_str()))
        .map_err(|e| usage(console, e))?;
    let data = bind_inputs(entry.entry(), &inputs).map_err(|e| usage(console, e))?;
    // `--check`: the reference binds the same data by name against the
    // source's entry point (`random` is seeded by the name, so it reads
    // the same values), before anything runs.
    let reference_data = match reference {
        Some(compilation) => {
            let data = bind_inputs(compilation.entry(), &inputs).map_err(|e| {
                usage(
                    console,
                    format!(
                        "--check: for the source `{}` carries, {e}",
                        cli.file.display()
                    ),
                )
            })?;
            Some((compilation, data))
        }
        None => None,
    };
    let mut options = cli.sim.options();
    options.models.r700.trace = cli.sim.trace.is_some();
    options.models.x1k.trace = cli.sim.trace.is_some();
    let run = match (&entry, &data) {
        (ElfEntry::Kernel(k), RunData::Kernel(args)) => {
            run_kernel(target, program.as_ref(), &k.params, args, &options)
        }
        (ElfEntry::Reduction(r), RunData::Reduction(input)) => {
            let mut read_again = |_| {
                target.read_elf(bytes).map_err(|e| {
                    SimulateError::Internal(ctm::InternalError::Driver(format!(
                        "the ELF no longer reads: {e}"
                    )))
                })
            };
            run_reduction(target, &r.name, r.ty, &mut read_again, input, &options)
        }
        _ => Err(SimulateError::Internal(ctm::InternalError::Driver(
            "the data bound to the ELF's entry point is of another kind".into(),
        ))),
    }
    .map_err(|e| run_error(console, &e))?;
    write_results(
        console,
        &run,
        &outputs,
        cli.sim.trace.as_deref(),
        &format!("ctmc {}", target.target()),
    )?;
    let mut verdict = Ok(());
    if let Some((compilation, data)) = &reference_data {
        verdict = check_outputs(console, compilation, data, &run.outputs, &options);
    }
    print_stats(console, &run, stats);
    verdict
}

/// The compilation of the source an ELF carries (`.ctm.source`,
/// `ctm::target::EmbeddedSource`), for `ctmc run FILE.elf --check`; an
/// ELF without it (written by another tool) is a usage error.
/// The first parameter's name of the reduction in the source an ELF
/// carries: from `--check`'s compilation of it, else read from the
/// `.ctm.source` section (`None` without one, or when it does not check).
fn reduction_input_name(
    compilation: Option<&Compilation>,
    bytes: &[u8],
    target: Target,
) -> Option<String> {
    let first = |entry: ctm_frontend::Entry<'_>| match entry {
        ctm_frontend::Entry::Reduction(r) => {
            r.locals.get(r.params[0].index()).map(|l| l.name.clone())
        }
        ctm_frontend::Entry::Kernel(_) => None,
    };
    if let Some(c) = compilation {
        return first(c.entry());
    }
    let embedded = EmbeddedSource::of_elf(bytes).ok()??;
    let program = ctm::check_source(&embedded.source, target).ok()?.program;
    first(ctm_frontend::Entry::Reduction(
        program.reduction(&embedded.entry)?,
    ))
}

fn embedded_compilation(
    console: &Console,
    path: &Path,
    bytes: &[u8],
    target: &dyn MachineTarget,
) -> Step<Compilation> {
    let file = path.display();
    let embedded = EmbeddedSource::of_elf(bytes)
        .map_err(|e| usage(console, format!("`{file}`: {e}")))?
        .ok_or_else(|| {
            usage(
                console,
                format!(
                    "--check needs the kernel's source, and `{file}` carries none (no .ctm.source section: an ELF that ctmc did not write); check the source instead: ctmc FILE.ck --target {} --simulate --check",
                    target.target()
                ),
            )
        })?;
    let broken = |why: String| {
        usage(
            console,
            format!("--check: the source `{file}` carries does not compile: {why}"),
        )
    };
    let checked = match ctm::check_source(&embedded.source, target.target()) {
        Ok(checked) => checked,
        Err(CompileError::Source(diags)) => {
            let first = diags
                .iter()
                .find(|d| d.is_error())
                .map_or_else(String::new, |d| d.message.clone());
            return Err(broken(first));
        }
        Err(e) => return Err(broken(e.to_string())),
    };
    let options = CompileOptions {
        target: target.target(),
        kernel: Some(embedded.entry),
        opt_level: embedded.opt_level,
    };
    Compilation::new(checked, options).map_err(|d| broken(d.message.clone()))
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
