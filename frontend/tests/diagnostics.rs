//! The diagnostics corpus: every `tests/diagnostics/*.ck` file is a bad
//! program whose first lines say which error codes it must produce:
//!
//! ```text
//! // target: x1k            (optional; default ref)
//! // expect: CK0010 CK0021  (exactly these errors, in any order)
//! // warn: CK0067           (optional; these warnings must appear too)
//! ```
//!
//! A file whose program checks cleanly is also run through entry-point
//! selection, whose errors (no kernel, ...) count too.

use ctm_frontend::{CheckOptions, Severity, Target, compile, select_entry};
use std::path::Path;

fn header(source: &str, key: &str) -> Vec<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .filter_map(|l| l.trim_start_matches("//").trim().strip_prefix(key))
        .flat_map(|rest| {
            rest.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn run_case(path: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let target = match header(&source, "target:").first().map(String::as_str) {
        Some("x1k") => Target::X1k,
        Some("r700") => Target::R700,
        _ => Target::Ref,
    };
    let mut expected = header(&source, "expect:");
    expected.sort();
    let warnings = header(&source, "warn:");
    let compiled = compile(&source, &CheckOptions { target });
    let mut diags = compiled.diagnostics.clone();
    if let Some(program) = &compiled.program
        && let Err(d) = select_entry(program, None)
    {
        diags.push(d);
    }
    let mut errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| d.code.to_string())
        .collect();
    errors.sort();
    let rendered = ctm_frontend::diag::render(&diags, "case.ck", &source, false);
    if errors != expected {
        return Err(format!(
            "expected errors {expected:?}, got {errors:?}\n{rendered}"
        ));
    }
    for w in warnings {
        if !diags.iter().any(|d| d.code.to_string() == w) {
            return Err(format!("expected warning {w}\n{rendered}"));
        }
    }
    // Every diagnostic renders with its code, a message and the source line.
    for d in &diags {
        if !rendered.contains(&format!("[{}]", d.code)) {
            return Err(format!("{} missing from the rendering\n{rendered}", d.code));
        }
    }
    Ok(())
}

#[test]
fn every_bad_program_gives_its_codes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ck"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 30,
        "the corpus has only {} programs",
        paths.len()
    );
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            run_case(p)
                .err()
                .map(|e| format!("--- {}:\n{e}", p.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}

#[test]
fn every_code_in_the_corpus_is_documented() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics.md"),
    )
    .expect("docs/diagnostics.md");
    for code in ctm_frontend::Code::ALL {
        let name = code.to_string();
        assert!(
            doc.contains(&format!("## {name}")),
            "docs/diagnostics.md does not describe {name}"
        );
    }
}
