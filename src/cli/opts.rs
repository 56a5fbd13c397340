//! The three command forms as clap definitions, and the checks of option
//! values that clap does not do.
//!
//! Option values are taken as strings and validated after the source has
//! been compiled (spec §9: "source is checked first"), so a bad value
//! cannot hide the source's errors.

use clap::{Args, Parser};
use std::path::PathBuf;

/// Text of `--help` after the options: the other forms and exit codes.
const AFTER_HELP: &str = "\
Other forms:
  ctmc disasm FILE.elf                      disassemble (target from the ELF header)
  ctmc disasm FILE.bin --target x1k|r700    disassemble raw little-endian words
  ctmc run FILE.elf --simulate [simulate options]
  ctmc run FILE --raw --target x1k|r700 [--reg NAME=V0,V1,V2,V3]... [--elements N]
           [--const N=V0,V1,V2,V3]... [--dump-outputs] [--stats[=json]]

Input sources (--input NAME=SRC): FILE.npy, FILE.f32 (raw, needs --domain), random, seq, const:V[,V..]

Exit codes: 0 success; 1 compile error, failed --check or runtime fault;
2 usage or I/O error (and internal errors). See docs/cli.md.";

/// `ctmc FILE.ck [options]`: compile, and optionally simulate.
#[derive(Parser, Debug)]
#[command(
    name = "ctmc",
    version,
    about = "Compile .ck stream kernels for ATI X1K and R700 GPUs, and simulate them",
    after_help = AFTER_HELP,
    max_term_width = 100
)]
pub struct CompileCli {
    /// The kernel source file (.ck).
    #[arg(value_name = "FILE.ck")]
    pub file: PathBuf,
    /// Target: x1k, r700, or ref (the reference interpreter).
    #[arg(long, value_name = "x1k|r700|ref", default_value = "x1k")]
    pub target: String,
    /// The kernel or reduction to compile (default: the file's only one).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// Where to write the artifact (default for elf: FILE.TARGET.elf; for text: stdout; `-` is stdout).
    #[arg(short = 'o', value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// What to produce: elf, asm, ir, dot, ast or stats.
    #[arg(long, value_name = "elf|asm|ir|dot|ast|stats")]
    pub emit: Option<String>,
    /// Optimisation level: -O0, -O1 or -O2 (the last one given wins).
    #[arg(
        short = 'O',
        value_name = "LEVEL",
        default_value = "2",
        overrides_with = "opt"
    )]
    pub opt: String,
    /// Run the program on the target's simulator (ref: the reference interpreter).
    #[arg(long)]
    pub simulate: bool,
    /// Data and reporting options of --simulate.
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// The options of `--simulate` (shared by `ctmc FILE.ck` and `ctmc run`).
#[derive(Args, Debug, Default)]
pub struct SimulateArgs {
    /// Print the run's statistics; --stats=json prints one JSON object as the last line of stdout.
    #[arg(
        long,
        value_name = "json",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "text"
    )]
    pub stats: Option<String>,
    /// Write a Chrome trace-event JSON file of the run.
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<PathBuf>,
    /// The domain, e.g. 640x480 (default: the shape of the first .npy input, else 256x256).
    #[arg(long, value_name = "WxH")]
    pub domain: Option<String>,
    /// Data of an input stream: FILE.npy, FILE.f32, random, seq or const:V (default: random).
    #[arg(long = "input", value_name = "NAME=SRC")]
    pub inputs: Vec<String>,
    /// Value of a uniform: 2.5, 1,2,3,4, 7, 0x1F, true (default: zero).
    #[arg(long = "uniform", value_name = "NAME=VALUE")]
    pub uniforms: Vec<String>,
    /// Write an output stream (or a reduction's result) to a .npy (or raw .f32) file.
    #[arg(long = "output", value_name = "NAME=PATH")]
    pub outputs: Vec<String>,
    /// Also run the reference interpreter and fail (exit 1) if any output differs beyond the spec's tolerance.
    #[arg(long)]
    pub check: bool,
    /// Step limit per element on every path: the reference's statements and loop iterations, the simulators' loop iterations (default 16777216 = 2^24).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: Option<u64>,
}

impl SimulateArgs {
    /// The run's options: the defaults, with `--max-steps` applied to
    /// every path (`docs/cli.md`, "Runtime faults").
    pub fn options(&self) -> ctm::simulate::SimulateOptions {
        let mut options = ctm::simulate::SimulateOptions::default();
        if let Some(steps) = self.max_steps {
            options.set_max_steps(steps);
        }
        options
    }

    /// The options given, by their flag, for "needs --simulate" messages.
    pub fn given_flags(&self) -> Vec<&'static str> {
        let mut flags = Vec::new();
        if self.stats.is_some() {
            flags.push("--stats");
        }
        if self.trace.is_some() {
            flags.push("--trace");
        }
        if self.domain.is_some() {
            flags.push("--domain");
        }
        if !self.inputs.is_empty() {
            flags.push("--input");
        }
        if !self.uniforms.is_empty() {
            flags.push("--uniform");
        }
        if !self.outputs.is_empty() {
            flags.push("--output");
        }
        if self.check {
            flags.push("--check");
        }
        if self.max_steps.is_some() {
            flags.push("--max-steps");
        }
        flags
    }
}

/// `ctmc disasm FILE`.
#[derive(Parser, Debug)]
#[command(
    name = "ctmc disasm",
    version,
    about = "Disassemble an ELF program, or raw instruction words with --target"
)]
pub struct DisasmCli {
    /// An ELF file, or raw little-endian instruction words.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The target of raw instruction words: x1k or r700.
    #[arg(long, value_name = "x1k|r700")]
    pub target: Option<String>,
}

/// `ctmc run FILE`.
#[derive(Parser, Debug)]
#[command(
    name = "ctmc run",
    version,
    about = "Run machine code that ctmc did not compile: an ELF, or raw words with --raw"
)]
pub struct RunCli {
    /// An ELF file, or raw little-endian instruction words with --raw.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The file holds raw instruction words (needs --target).
    #[arg(long)]
    pub raw: bool,
    /// The target of raw words: x1k or r700.
    #[arg(long, value_name = "x1k|r700")]
    pub target: Option<String>,
    /// Run the ELF on the simulator (implied: running is what `run` does).
    #[arg(long)]
    pub simulate: bool,
    /// Initial register value of every element: R0..R127 = four numbers, or `seq` for (k, 0, 0, 0) (default: R0 = seq, others 0).
    #[arg(long = "reg", value_name = "NAME=V0,V1,V2,V3")]
    pub regs: Vec<String>,
    /// Number of elements of a raw run (default 64).
    #[arg(long, value_name = "N")]
    pub elements: Option<String>,
    /// A constant: x1k float constant N, or r700 element N of constant buffer 0.
    #[arg(long = "const", value_name = "N=V0,V1,V2,V3")]
    pub consts: Vec<String>,
    /// Print what every element wrote, as one JSON object.
    #[arg(long)]
    pub dump_outputs: bool,
    /// Data and reporting options, as for `ctmc FILE.ck --simulate`.
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// A `NAME=VALUE` option value that is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{flag} `{text}`: expected {expected}")]
pub struct PairError {
    /// The option.
    pub flag: &'static str,
    /// The value as given.
    pub text: String,
    /// What it should look like.
    pub expected: &'static str,
}

/// Splits `NAME=VALUE` at the first `=`; the name must be an identifier.
pub fn split_pair<'t>(
    flag: &'static str,
    text: &'t str,
    expected: &'static str,
) -> Result<(&'t str, &'t str), PairError> {
    let error = || PairError {
        flag,
        text: text.to_string(),
        expected,
    };
    let (name, value) = text.split_once('=').ok_or_else(error)?;
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(error());
    }
    Ok((name, value))
}

/// How `--stats` reports.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StatsFormat {
    /// The human-readable report.
    Text,
    /// One JSON object, the last line of stdout.
    Json,
}

/// Parses the value of `--stats` (`text` stands for no value).
pub fn parse_stats(value: Option<&str>) -> Result<Option<StatsFormat>, String> {
    match value {
        None => Ok(None),
        Some("text") => Ok(Some(StatsFormat::Text)),
        Some("json") => Ok(Some(StatsFormat::Json)),
        Some(other) => Err(format!(
            "invalid value `{other}` for --stats: write --stats or --stats=json"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        CompileCli::command().debug_assert();
        DisasmCli::command().debug_assert();
        RunCli::command().debug_assert();
    }

    fn parse(args: &[&str]) -> Result<CompileCli, clap::Error> {
        CompileCli::try_parse_from(std::iter::once("ctmc").chain(args.iter().copied()))
    }

    #[test]
    fn defaults_and_spellings() {
        let c = parse(&["k.ck"]).unwrap();
        assert_eq!(c.target, "x1k");
        assert_eq!(c.opt, "2");
        assert!(!c.simulate && c.sim.stats.is_none());
        let c = parse(&["k.ck", "-O0", "-O1", "--stats", "--simulate"]).unwrap();
        assert_eq!(c.opt, "1");
        assert_eq!(c.sim.stats.as_deref(), Some("text"));
        let c = parse(&["--stats=json", "k.ck", "--simulate"]).unwrap();
        assert_eq!(c.sim.stats.as_deref(), Some("json"));
        let c = parse(&[
            "k.ck",
            "--input",
            "x=a.npy",
            "--input=y=seq",
            "--uniform",
            "a=1,2",
            "--output",
            "r=o.npy",
        ])
        .unwrap();
        assert_eq!(c.sim.inputs, ["x=a.npy", "y=seq"]);
        assert_eq!(c.sim.uniforms, ["a=1,2"]);
        assert_eq!(c.sim.given_flags(), ["--input", "--uniform", "--output"]);
        // `--stats json`: json is not the value of --stats.
        assert!(parse(&["k.ck", "--stats", "json"]).is_err());
        assert!(parse(&["k.ck", "--frobnicate"]).is_err());
        assert!(parse(&[]).is_err());
    }

    #[test]
    fn pairs() {
        assert_eq!(
            split_pair("--input", "x=a=b.npy", "NAME=SRC"),
            Ok(("x", "a=b.npy"))
        );
        assert_eq!(
            split_pair("--uniform", "_a1=", "NAME=VALUE"),
            Ok(("_a1", ""))
        );
        for bad in ["x", "=1", "1a=2", "a b=1", "é=1"] {
            assert!(split_pair("--input", bad, "NAME=SRC").is_err(), "{bad}");
        }
        assert_eq!(parse_stats(Some("json")), Ok(Some(StatsFormat::Json)));
        assert!(parse_stats(Some("xml")).is_err());
    }

    #[test]
    fn other_forms() {
        let d = DisasmCli::try_parse_from(["ctmc disasm", "a.bin", "--target", "r700"]).unwrap();
        assert_eq!(d.target.as_deref(), Some("r700"));
        let r = RunCli::try_parse_from([
            "ctmc run",
            "a.bin",
            "--raw",
            "--target",
            "x1k",
            "--reg",
            "R0=seq",
            "--elements",
            "8",
            "--const",
            "0=1,2,3,4",
            "--dump-outputs",
            "--stats=json",
        ])
        .unwrap();
        assert!(r.raw && r.dump_outputs);
        assert_eq!(r.regs, ["R0=seq"]);
        assert_eq!(r.sim.stats.as_deref(), Some("json"));
    }
}
