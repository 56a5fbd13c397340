//! `ctmc FILE.ck [options]`: compile, emit, simulate.
//!
//! The order is fixed by spec §9's "source is checked first": read the
//! file, compile it (with the rules of `--target`, or of `ref` when the
//! target is not a valid name, since `ref` accepts what every target
//! accepts), report errors (exit 1); only then validate the options, choose
//! the entry point, emit, and run.

use super::opts::{CompileCli, SimulateArgs, StatsFormat, parse_stats, split_pair};
use super::{Console, Exit, report};
use ctm::args::{Domain, RunData, RunInputs, bind_inputs, check_output_names};
use ctm::compile::{
    Checked, Compilation, CompileError, EmitError, EmitKind, Emitted, name_span, parse_target,
};
use ctm::io::{self, parse_input_source};
use ctm::simulate::{
    SimulateError, SimulateOptions, Simulation, check_against_reference, simulate,
};
use ctm::{CompileOptions, OptLevel, Target};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A failure of a step: what to print has been printed; the exit code.
type Step<T> = Result<T, Exit>;

/// Prints `error: message` and gives exit code 2.
fn usage(console: &Console, message: impl std::fmt::Display) -> Exit {
    console.error(&message.to_string());
    Exit::Usage
}

/// The source file's text, or exit 2.
fn read_source(console: &Console, path: &Path) -> Step<String> {
    let bytes = ctm::io::read_bounded(path, ctm::io::MAX_SOURCE_BYTES, "kernel source")
        .map_err(|e| usage(console, e))?;
    String::from_utf8(bytes)
        .map_err(|_| usage(console, format!("`{}` is not UTF-8 text", path.display())))
}

/// Compiles `source`, printing every diagnostic; exit 1 on errors.
fn check(console: &Console, file: &Path, source: &str, target: Target) -> Step<Checked> {
    let name = file.display().to_string();
    match ctm::check_source(source, target) {
        Ok(checked) => {
            // A file with no kernel and no reduction (an empty file
            // included) is a compile error, exit 1 (spec §9,
            // `docs/diagnostics.md` CK0017), whatever the options.
            if let Some(none) = no_entry_point(&checked) {
                let mut all = checked.warnings.clone();
                all.push(none);
                return Err(source_errors(console, &name, source, &all));
            }
            report::diagnostics(console, &checked.warnings, &name, source);
            Ok(checked)
        }
        Err(CompileError::Source(diags)) => Err(source_errors(console, &name, source, &diags)),
        Err(e) => {
            console.internal(&e.to_string());
            Err(Exit::Usage)
        }
    }
}

/// CK0017 if `checked` defines no kernel and no reduction.
fn no_entry_point(checked: &Checked) -> Option<ctm_frontend::Diagnostic> {
    let p = &checked.program;
    if p.kernels.is_empty() && p.reductions.is_empty() {
        ctm_frontend::select_entry(p, None).err()
    } else {
        None
    }
}

/// Prints the diagnostics of a source with errors; exit code 1.
fn source_errors(
    console: &Console,
    name: &str,
    source: &str,
    diags: &[ctm_frontend::Diagnostic],
) -> Exit {
    report::diagnostics(console, diags, name, source);
    let n = diags.iter().filter(|d| d.is_error()).count();
    console.error(&format!(
        "could not compile `{name}` due to {n} previous error{}",
        if n == 1 { "" } else { "s" }
    ));
    Exit::Failure
}

/// When clap rejects the command line: if a `.ck` file among the
/// arguments has compile errors, report them and exit 1 (spec §9: "source
/// is checked first"); `None` if there is no such file or it compiles.
pub fn check_source_of(args: &[OsString], console: &Console) -> Option<Exit> {
    let strings: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let file = strings
        .iter()
        .find(|a| !a.starts_with('-') && a.to_ascii_lowercase().ends_with(".ck"))?;
    let target = strings
        .iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix("--target") {
            Some("") => strings.get(i + 1).copied(),
            Some(rest) => rest.strip_prefix('='),
            None => None,
        })
        .and_then(parse_target)
        .unwrap_or(Target::Ref);
    let bytes = ctm::io::read_bounded(Path::new(file), ctm::io::MAX_SOURCE_BYTES, "kernel source");
    let source = String::from_utf8(bytes.ok()?).ok()?;
    match ctm::check_source(&source, target) {
        Err(CompileError::Source(diags)) => Some(source_errors(console, file, &source, &diags)),
        Ok(checked) => {
            let none = no_entry_point(&checked)?;
            let mut all = checked.warnings;
            all.push(none);
            Some(source_errors(console, file, &source, &all))
        }
        _ => None,
    }
}

/// Every option value, validated.
struct Plan {
    target: Target,
    opt_level: OptLevel,
    emit: Option<EmitKind>,
    stats: Option<StatsFormat>,
    inputs: RunInputs,
    outputs: Vec<(String, PathBuf)>,
}

/// Validates the option values (after the source compiled).
fn plan(cli: &CompileCli, console: &Console) -> Step<Plan> {
    let target = parse_target(&cli.target).ok_or_else(|| {
        usage(
            console,
            format!(
                "invalid value `{}` for --target: expected x1k, r700 or ref",
                cli.target
            ),
        )
    })?;
    let opt_level = ctm::compile::parse_opt_level(&cli.opt).ok_or_else(|| {
        usage(
            console,
            format!(
                "invalid optimisation level `-O{}`: expected -O0, -O1 or -O2",
                cli.opt
            ),
        )
    })?;
    let emit = match &cli.emit {
        None => None,
        Some(text) => Some(EmitKind::parse(text).ok_or_else(|| {
            usage(
                console,
                format!(
                    "invalid value `{text}` for --emit: expected elf, asm, ir, dot, ast or stats"
                ),
            )
        })?),
    };
    if !cli.simulate
        && let Some(flag) = cli.sim.given_flags().first()
    {
        return Err(usage(
            console,
            format!("{flag} is an option of --simulate; add --simulate"),
        ));
    }
    let stats = parse_stats(cli.sim.stats.as_deref()).map_err(|e| usage(console, e))?;
    let (inputs, outputs) = data_options(&cli.sim, console)?;
    let emit_to_stdout = emit.is_some_and(|k| k != EmitKind::Elf)
        && cli.out.as_deref().is_none_or(|p| p == Path::new("-"));
    if emit_to_stdout && let Some((name, _)) = outputs.iter().find(|(_, p)| p == Path::new("-")) {
        return Err(usage(
            console,
            format!(
                "--emit prints on standard output, which --output {name}=- takes for the .npy bytes: give -o a file"
            ),
        ));
    }
    let out = cli.out.as_deref().map(|p| ("-o".to_string(), p));
    check_paths(
        console,
        ("the source file", &cli.file),
        &inputs,
        &outputs,
        out,
        cli.sim.trace.as_deref(),
    )?;
    if cli.out.is_some() && target == Target::Ref && emit.is_none() {
        return Err(usage(
            console,
            "-o has nothing to write: --target ref produces no machine code (use --emit ast, or --output NAME=PATH with --simulate)",
        ));
    }
    Ok(Plan {
        target,
        opt_level,
        emit,
        stats,
        inputs,
        outputs,
    })
}

/// Refuses outputs (`-o`, `--output`, `--trace`) that would overwrite the
/// program file, an input file or each other (exit 2).
pub fn check_paths(
    console: &Console,
    program: (&str, &Path),
    inputs: &RunInputs,
    outputs: &[(String, PathBuf)],
    out: Option<(String, &Path)>,
    trace: Option<&Path>,
) -> Step<()> {
    let mut reads = vec![(program.0.to_string(), program.1)];
    for (name, src) in &inputs.inputs {
        if let Some(p) = src.path() {
            reads.push((format!("the file of --input {name}"), p));
        }
    }
    let mut writes: Vec<(String, &Path)> = out.into_iter().collect();
    writes.extend(
        outputs
            .iter()
            .map(|(name, p)| (format!("--output {name}"), p.as_path())),
    );
    writes.extend(trace.map(|p| ("--trace".to_string(), p)));
    ctm::args::check_distinct_paths(&reads, &writes).map_err(|e| usage(console, e))
}

/// Parses `--domain`, `--input`, `--uniform` and `--output` (their syntax
/// only; names are checked against the entry point later).
pub fn data_options(
    sim: &SimulateArgs,
    console: &Console,
) -> Step<(RunInputs, Vec<(String, PathBuf)>)> {
    let domain = match &sim.domain {
        Some(text) => {
            Some(Domain::parse(text).map_err(|e| usage(console, format!("--domain: {e}")))?)
        }
        None => None,
    };
    let mut inputs = Vec::new();
    for text in &sim.inputs {
        let (name, src) = split_pair("--input", text, "NAME=SRC").map_err(|e| usage(console, e))?;
        let source =
            parse_input_source(src).map_err(|e| usage(console, format!("--input {name}: {e}")))?;
        inputs.push((name.to_string(), source));
    }
    let mut uniforms = Vec::new();
    for text in &sim.uniforms {
        let (name, value) =
            split_pair("--uniform", text, "NAME=VALUE").map_err(|e| usage(console, e))?;
        uniforms.push((name.to_string(), value.to_string()));
    }
    let mut outputs = Vec::new();
    for text in &sim.outputs {
        let (name, path) =
            split_pair("--output", text, "NAME=PATH").map_err(|e| usage(console, e))?;
        if path.is_empty() {
            return Err(usage(
                console,
                format!("--output {name}: the path is empty"),
            ));
        }
        if path == "-"
            && let Some((first, _)) = outputs.iter().find(|(_, p)| p == Path::new("-"))
        {
            return Err(usage(
                console,
                format!(
                    "--output {name}=-: standard output already carries `{first}` (`-` is standard output, for one output)"
                ),
            ));
        }
        outputs.push((name.to_string(), PathBuf::from(path)));
    }
    // `-` is standard output (`docs/cli.md`, "--output"): what else prints
    // there by contract (the statistics, the last line) cannot share it.
    if let Some((name, _)) = outputs.iter().find(|(_, p)| p == Path::new("-"))
        && sim.stats.is_some()
    {
        return Err(usage(
            console,
            format!(
                "--stats prints on standard output, which --output {name}=- takes for the .npy bytes: write `{name}` to a file"
            ),
        ));
    }
    Ok((
        RunInputs {
            domain,
            inputs,
            uniforms,
        },
        outputs,
    ))
}

/// `FILE.TARGET.elf` beside the source: `dir/saxpy.ck` → `dir/saxpy.x1k.elf`.
pub fn default_elf_path(file: &Path, target: Target) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
    file.with_file_name(format!("{stem}.{}.elf", target.name()))
}

/// Runs `ctmc FILE.ck [options]`.
pub fn run(cli: &CompileCli, console: &mut Console) -> Exit {
    match run_steps(cli, console) {
        Ok(()) => Exit::Success,
        Err(exit) => exit,
    }
}

fn run_steps(cli: &CompileCli, console: &mut Console) -> Step<()> {
    let source = read_source(console, &cli.file)?;
    // Compile with the target's rules; an invalid target name is reported
    // after the source, which is checked with the rules every target shares.
    let check_target = parse_target(&cli.target).unwrap_or(Target::Ref);
    let checked = check(console, &cli.file, &source, check_target)?;
    let plan = plan(cli, console)?;
    let only_checking = plan.target == Target::Ref && plan.emit.is_none() && !cli.simulate;
    if only_checking && cli.kernel.is_none() {
        // Nothing needs an entry point: a file of several kernels is fine.
        return Ok(());
    }
    let options = CompileOptions {
        target: plan.target,
        kernel: cli.kernel.clone(),
        opt_level: plan.opt_level,
    };
    let compilation = Compilation::new(checked, options).map_err(|d| {
        report::plain_diagnostic(console, &d);
        Exit::Usage
    })?;
    if only_checking {
        return Ok(());
    }
    // The artifact: what --emit asks for; for a machine target without
    // --emit and without --simulate, the ELF.
    let artifact = match plan.emit {
        Some(kind) => Some(kind),
        None if plan.target != Target::Ref && (!cli.simulate || cli.out.is_some()) => {
            Some(EmitKind::Elf)
        }
        None => None,
    };
    if let Some(kind) = artifact {
        emit(cli, console, &source, &compilation, kind)?;
    }
    if cli.simulate {
        simulate_and_report(cli, console, &source, &compilation, &plan)?;
    }
    Ok(())
}

/// Produces one artifact and writes it where `-o` says.
fn emit(
    cli: &CompileCli,
    console: &mut Console,
    source: &str,
    compilation: &Compilation,
    kind: EmitKind,
) -> Step<()> {
    let emitted = ctm::emit(source, compilation, kind).map_err(|e| match e {
        EmitError::Compile(d) => {
            source_errors(console, &cli.file.display().to_string(), source, &[*d])
        }
        EmitError::Internal(why) => {
            console.internal(&why.to_string());
            Exit::Usage
        }
        other => usage(console, other),
    })?;
    let to_stdout = cli.out.as_deref().is_none_or(|p| p == Path::new("-"));
    match emitted {
        Emitted::Text(text) if to_stdout => console.out_text(&text),
        Emitted::Text(text) => write_file(console, cli.out.as_deref(), text.as_bytes())?,
        Emitted::Binary(bytes) => {
            let path = match cli.out.as_deref() {
                Some(p) if p != Path::new("-") => p.to_path_buf(),
                Some(_) => {
                    return Err(usage(console, "an ELF is binary: give -o a file, not `-`"));
                }
                None => default_elf_path(&cli.file, compilation.options().target),
            };
            write_file(console, Some(&path), &bytes)?;
        }
    }
    Ok(())
}

fn write_file(console: &Console, path: Option<&Path>, bytes: &[u8]) -> Step<()> {
    let path = path.unwrap_or(Path::new("-"));
    std::fs::write(path, bytes)
        .map_err(|e| usage(console, format!("cannot write `{}`: {e}", path.display())))
}

/// `--simulate` with its data, checking and reporting options.
fn simulate_and_report(
    cli: &CompileCli,
    console: &mut Console,
    source: &str,
    compilation: &Compilation,
    plan: &Plan,
) -> Step<()> {
    let entry = compilation.entry();
    check_output_names(entry, plan.outputs.iter().map(|(n, _)| n.as_str()))
        .map_err(|e| usage(console, e))?;
    // A domain the target cannot run is refused before any stream is made
    // (issue 13: 8192x8192 allocated 517 MB first). x1k: 4096 per side
    // (`docs/cli.md`, x1k runs).
    if let Some(d) = plan.inputs.domain
        && plan.target == Target::X1k
        && (d.width > 4096 || d.height > 4096)
    {
        return Err(usage(
            console,
            format!(
                "the domain {d} is larger than the CTM limit of 4096x4096: `{}` cannot run on the x1k",
                entry.name()
            ),
        ));
    }
    let data = bind_inputs(entry, &plan.inputs).map_err(|e| usage(console, e))?;
    let mut options = cli.sim.options();
    // The R700 records its per-SIMD trace only when it is asked for (it
    // costs about a fifth of a run).
    options.models.r700.trace = cli.sim.trace.is_some();
    options.models.x1k.trace = cli.sim.trace.is_some();
    // A bar on a terminal for x1k runs over a second (`docs/cli.md`,
    // "Progress"); nothing when standard error is not a terminal.
    let bar = {
        use std::io::IsTerminal;
        let total = match &data {
            RunData::Kernel(args) => Some(args.domain.0 as u64 * args.domain.1 as u64),
            RunData::Reduction(_) => None,
        };
        let terminal = plan.target == Target::X1k && std::io::stderr().is_terminal();
        options.models.x1k.progress = ctm::simulate::Progress::new();
        super::progress::Bar::start(&options.models.x1k.progress, total, terminal)
    };
    let run = simulate(compilation, &data, &options);
    bar.finish();
    let run = run.map_err(|e| match e {
        SimulateError::Compile(mut d) => {
            d.span = name_span(source, d.span, compilation.entry().name());
            source_errors(console, &cli.file.display().to_string(), source, &[*d])
        }
        e => run_error(console, &e),
    })?;
    let process = format!("ctmc {}", compilation.options().target);
    write_results(
        console,
        &run,
        &plan.outputs,
        cli.sim.trace.as_deref(),
        &process,
    )?;
    let mut verdict = Ok(());
    if cli.sim.check {
        verdict = check_outputs(console, compilation, &data, &run.outputs, &options);
    }
    print_stats(console, &run, plan.stats);
    verdict
}

/// Writes the outputs given by `--output`, previews the others on stdout,
/// and writes the `--trace` file.
pub fn write_results(
    console: &mut Console,
    run: &Simulation,
    outputs: &[(String, PathBuf)],
    trace: Option<&Path>,
    process: &str,
) -> Step<()> {
    for (name, path) in outputs {
        let Some(output) = run.outputs.iter().find(|o| &o.name == name) else {
            console.internal(&format!("the run produced no output `{name}`"));
            return Err(Exit::Usage);
        };
        let extension = |x: &str| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(x));
        if extension("png") {
            // An image: `docs/cli.md`, "--output" (scaling and clamping).
            let image = match output.shape {
                ctm::simulate::OutputShape::Stream => io::write_png_file(path, &output.data),
                ctm::simulate::OutputShape::Value => Err(io::PngError::OneValue),
            };
            image.map_err(|e| {
                usage(
                    console,
                    format!("cannot write `{name}` as `{}`: {e}", path.display()),
                )
            })?;
            continue;
        }
        if path == Path::new("-") {
            // `--output NAME=-`: the `.npy` bytes on standard output.
            let mut bytes = Vec::new();
            io::write_npy(&mut bytes, &output.to_array())
                .map_err(|e| usage(console, format!("cannot write `{name}`: {e}")))?;
            console.out_bytes(&bytes);
            continue;
        }
        let written = if extension("f32") {
            io::write_raw_file(path, &output.values())
        } else {
            io::write_npy_file(path, &output.to_array())
        };
        written.map_err(|e| usage(console, e))?;
    }
    for output in &run.outputs {
        if !outputs.iter().any(|(n, _)| n == &output.name) {
            console.out_line(&report::preview(output));
        }
    }
    if let Some(path) = trace {
        let json = ctm::trace::chrome_trace(process, &run.trace_tracks, &run.trace).to_string();
        std::fs::write(path, json)
            .map_err(|e| usage(console, format!("cannot write `{}`: {e}", path.display())))?;
    }
    Ok(())
}

/// Prints the statistics as `--stats` asks (the JSON form as the last
/// line).
pub fn print_stats(console: &mut Console, run: &Simulation, format: Option<StatsFormat>) {
    match format {
        Some(StatsFormat::Text) => console.out_text(&run.stats.render_text()),
        Some(StatsFormat::Json) => console.out_line(&run.stats.to_json_line()),
        None => {}
    }
}

/// Runs `--check` against the reference; exit 1 if it fails.
pub fn check_outputs(
    console: &mut Console,
    compilation: &Compilation,
    data: &RunData,
    outputs: &[ctm::RunOutput],
    options: &SimulateOptions,
) -> Step<()> {
    let report = check_against_reference(compilation, data, outputs, options)
        .map_err(|e| run_error(console, &e))?;
    report::check(console, &report);
    if report.passed() {
        Ok(())
    } else {
        Err(Exit::Failure)
    }
}

/// Prints a run's failure; its exit code.
pub fn run_error(console: &Console, e: &SimulateError) -> Exit {
    match e {
        SimulateError::Fault(_) | SimulateError::MachineFault(_) => {
            console.error(&e.to_string());
            Exit::Failure
        }
        SimulateError::Compile(d) => {
            report::plain_diagnostic(console, d);
            Exit::Failure
        }
        SimulateError::Unfit(_) => usage(console, e),
        SimulateError::Internal(message) => {
            console.internal(&message.to_string());
            Exit::Usage
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elf_path_sits_beside_the_source() {
        assert_eq!(
            default_elf_path(Path::new("examples/saxpy.ck"), Target::X1k),
            PathBuf::from("examples/saxpy.x1k.elf")
        );
        assert_eq!(
            default_elf_path(Path::new("k.ck"), Target::R700),
            PathBuf::from("k.r700.elf")
        );
        assert_eq!(
            default_elf_path(Path::new("noext"), Target::R700),
            PathBuf::from("noext.r700.elf")
        );
    }
}
