//! `ctmc`: the command line of ctm (spec §9, §10; `docs/cli.md`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
