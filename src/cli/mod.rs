//! The `ctmc` command line (spec §9, §10; every decision is in
//! `docs/cli.md`).
//!
//! [`main`] dispatches on the first argument: `disasm` and `run` are their
//! own forms ([`machine`]); anything else is `ctmc FILE.ck [options]`
//! ([`build`]). A file literally named `run` is given as `./run`.
//!
//! Exit codes are [`Exit`]: 0 success; 1 a compile error, a failed
//! `--check` or a runtime fault; 2 a usage or I/O error. An internal error
//! (a bug, including a panic) prints `internal error: ...` and exits with 2
//! as well, so that scripts never mistake it for a verdict on the program.

mod build;
mod machine;
mod opts;
mod progress;
mod report;

use clap::Parser;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// The process exit code.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exit {
    /// 0: success.
    Success,
    /// 1: the program is wrong (compile error, failed `--check`, runtime
    /// fault).
    Failure,
    /// 2: the command line or a file is wrong (usage or I/O error), or
    /// ctmc itself failed (internal error).
    Usage,
}

impl Exit {
    fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
        }
    }
}

/// Where output goes. Standard output is collected and written at the end
/// (so a closed pipe cannot interrupt a run, and `--stats=json` is surely
/// the last line); standard error is written at once.
pub struct Console {
    out: Vec<u8>,
    /// Whether standard output carries an output stream's `.npy` bytes
    /// (`--output NAME=-`): text that would follow goes to stderr.
    binary: bool,
    color: bool,
}

impl Console {
    fn new() -> Console {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Console {
            out: Vec::new(),
            binary: false,
            color: std::io::stderr().is_terminal() && !no_color,
        }
    }

    /// Appends a line to standard output (to standard error once
    /// standard output carries binary data, [`Console::out_bytes`]).
    pub fn out_line(&mut self, line: &str) {
        if line.ends_with('\n') {
            self.out_text(line);
        } else {
            self.out_text(&format!("{line}\n"));
        }
    }

    /// Appends text to standard output as it is (to standard error once
    /// standard output carries binary data).
    pub fn out_text(&mut self, text: &str) {
        if self.binary {
            self.err_text(text);
        } else {
            self.out.extend_from_slice(text.as_bytes());
        }
    }

    /// Appends binary data (an output stream's `.npy` file,
    /// `--output NAME=-`) to standard output; the text printed after it
    /// goes to standard error, so that the bytes stay a valid file
    /// (`docs/cli.md`, "--output").
    pub fn out_bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
        self.binary = true;
    }

    /// Writes text to standard error (errors writing it are ignored: there
    /// is nowhere left to report them).
    pub fn err_text(&self, text: &str) {
        let _ = std::io::stderr().write_all(text.as_bytes());
    }

    /// Writes `error: message` to standard error.
    pub fn error(&self, message: &str) {
        self.err_text(&format!("{}: {message}\n", self.paint("error", "1;31")));
    }

    /// Writes `internal error: message` to standard error.
    pub fn internal(&self, message: &str) {
        self.err_text(&format!(
            "{}: {message}\nThis is a bug in ctmc; please report it.\n",
            self.paint("internal error", "1;31")
        ));
    }

    /// Whether diagnostics are coloured.
    pub fn color(&self) -> bool {
        self.color
    }

    fn paint(&self, text: &str, sgr: &str) -> String {
        if self.color {
            format!("\u{1b}[{sgr}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    /// Writes the collected standard output. A closed pipe (`ctmc ... |
    /// head`) is not an error of the run; any other failure (a full disk:
    /// `ctmc ... > /dev/full`) is returned, so that lost output does not
    /// exit 0.
    fn flush(&mut self) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        let written = stdout.write_all(&self.out).and_then(|()| stdout.flush());
        self.out.clear();
        match written {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e),
            _ => Ok(()),
        }
    }
}

/// Runs `ctmc` with the process's arguments.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // Report a panic as an internal error, once, without the default
    // message's noise.
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let _ = writeln!(
            std::io::stderr(),
            "internal error: {message}{place}\nThis is a bug in ctmc; please report it."
        );
    }));
    let mut console = Console::new();
    let exit = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dispatch(&args, &mut console)
    }))
    .unwrap_or(Exit::Usage);
    let exit = match console.flush() {
        Err(e) => {
            console.error(&format!("cannot write standard output: {e}"));
            if exit == Exit::Success {
                Exit::Usage
            } else {
                exit
            }
        }
        Ok(()) => exit,
    };
    ExitCode::from(exit.code())
}

/// Chooses the form by the first argument.
fn dispatch(args: &[OsString], console: &mut Console) -> Exit {
    match args.get(1).and_then(|a| a.to_str()) {
        Some("disasm") => match opts::DisasmCli::try_parse_from(&args[1..]) {
            Ok(cli) => machine::disasm(&cli, console),
            Err(e) => clap_error(&e, console),
        },
        Some("run") => match opts::RunCli::try_parse_from(&args[1..]) {
            Ok(cli) => machine::run(&cli, console),
            Err(e) => clap_error(&e, console),
        },
        _ => match opts::CompileCli::try_parse_from(args) {
            Ok(cli) => build::run(&cli, console),
            Err(e) => match e.kind() {
                clap::error::ErrorKind::DisplayHelp
                | clap::error::ErrorKind::DisplayVersion
                | clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    clap_error(&e, console)
                }
                // Source is checked first (spec §9), even when the command
                // line does not parse.
                _ => match build::check_source_of(args, console) {
                    Some(exit) => exit,
                    None => clap_error(&e, console),
                },
            },
        },
    }
}

/// Prints clap's message (help and version to stdout, errors to stderr)
/// and gives its exit code.
fn clap_error(e: &clap::Error, console: &mut Console) -> Exit {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            console.out_text(&e.render().to_string());
            Exit::Success
        }
        _ => {
            let text = if console.color() {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            console.err_text(&text);
            Exit::Usage
        }
    }
}
