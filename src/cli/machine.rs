//! `ctmc disasm` and `ctmc run` (spec §9, §10): machine code that ctmc did
//! not necessarily compile.
//!
//! Both forms parse and check all of their options now; the work itself
//! needs the backends' instruction sets and the simulator, which are not
//! built yet, so each ends with "... is not built yet" (exit 2). When they
//! land, the `not_built` calls are where they plug in.

use super::build::{data_options, run_error};
use super::opts::{DisasmCli, RunCli, parse_stats, split_pair};
use super::{Console, Exit};
use ctm::Target;
use ctm::compile::{Missing, parse_target};
use ctm::io::uniform::{parse_f32, parse_i32};
use ctm::simulate::SimulateError;
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
    std::fs::read(path)
        .map_err(|e| usage(console, format!("cannot read `{}`: {e}", path.display())))
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
    let step = || -> Step<Exit> {
        let bytes = read(console, &cli.file)?;
        let target = cli
            .target
            .as_deref()
            .map(|t| machine_target(console, t))
            .transpose()?;
        if bytes.starts_with(ELF_MAGIC) {
            // The ELF header names the target; until the backends define
            // their ELF ABI, both are missing.
            return Ok(not_built(
                console,
                Missing::Backend(target.unwrap_or(Target::X1k)),
            ));
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
        Ok(not_built(console, Missing::Backend(target)))
    };
    step().unwrap_or_else(|exit| exit)
}

/// Checks `--reg NAME=V0,V1,V2,V3` / `NAME=seq`.
fn check_reg(console: &Console, text: &str) -> Step<()> {
    let (name, value) = split_pair("--reg", text, "R0..R127=V0,V1,V2,V3 or R0..R127=seq")
        .map_err(|e| usage(console, e))?;
    let index = name
        .strip_prefix(['R', 'r'])
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n < REGISTERS && !name[1..].starts_with('+'));
    if index.is_none() {
        return Err(usage(
            console,
            format!("--reg {name}: expected a register R0..R127"),
        ));
    }
    if value != "seq" {
        four_floats(console, "--reg", name, value)?;
    }
    Ok(())
}

fn four_floats(console: &Console, flag: &str, name: &str, value: &str) -> Step<()> {
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
    for p in parts {
        parse_f32(p).map_err(|e| usage(console, format!("{flag} {name}: {e}")))?;
    }
    Ok(())
}

/// Checks `--const N=V0,V1,V2,V3`.
fn check_const(console: &Console, text: &str, target: Target) -> Step<()> {
    let (index, value) = text
        .split_once('=')
        .ok_or_else(|| usage(console, format!("--const `{text}`: expected N=V0,V1,V2,V3")))?;
    let slots = constant_slots(target);
    let n = parse_i32(index)
        .ok()
        .filter(|&n| n >= 0 && (n as u32) < slots);
    if n.is_none() {
        return Err(usage(
            console,
            format!(
                "--const {index}: expected a constant number 0..{} for {target}",
                slots - 1
            ),
        ));
    }
    four_floats(console, "--const", index, value)
}

/// `ctmc run FILE`.
pub fn run(cli: &RunCli, console: &mut Console) -> Exit {
    let step = || -> Step<Exit> {
        let bytes = read(console, &cli.file)?;
        let stats = parse_stats(cli.sim.stats.as_deref()).map_err(|e| usage(console, e))?;
        let _ = stats;
        let target = cli
            .target
            .as_deref()
            .map(|t| machine_target(console, t))
            .transpose()?;
        if cli.raw {
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
            for r in &cli.regs {
                check_reg(console, r)?;
            }
            for c in &cli.consts {
                check_const(console, c, target)?;
            }
            if let Some(n) = &cli.elements {
                let ok = n.parse::<u32>().is_ok_and(|n| n > 0);
                if !ok {
                    return Err(usage(
                        console,
                        format!("--elements `{n}`: expected a positive integer"),
                    ));
                }
            }
            check_raw_words(console, &cli.file, &bytes)?;
            return Ok(not_built(console, Missing::Backend(target)));
        }
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
        data_options(&cli.sim, console)?;
        if !bytes.starts_with(ELF_MAGIC) {
            return Err(usage(
                console,
                format!(
                    "`{}` is not an ELF file; run raw instruction words with --raw --target x1k|r700",
                    cli.file.display()
                ),
            ));
        }
        Ok(not_built(
            console,
            Missing::Backend(target.unwrap_or(Target::X1k)),
        ))
    };
    step().unwrap_or_else(|exit| exit)
}
