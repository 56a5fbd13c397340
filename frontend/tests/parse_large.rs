//! Large inputs: a megabyte of kernels parses without a diagnostic, and a
//! megabyte of each kind of hostile text gives diagnostics, never a panic
//! or a stack overflow. (How fast: `cargo bench -p ctm-frontend --bench
//! frontend`.)

mod parse_support;

use parse_support::hostile::{hostile_cases, megabyte_of_kernels};

/// Parses on a thread with the stack `compile` uses; the diagnostic count.
fn diagnostics(source: String) -> usize {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || ctm_frontend::parser::parse(&source).1.len())
        .expect("thread")
        .join()
        .expect("the parser does not panic")
}

#[test]
fn one_megabyte_of_kernels_parses_cleanly() {
    assert_eq!(diagnostics(megabyte_of_kernels()), 0);
}

#[test]
fn one_megabyte_of_hostile_input_gives_diagnostics() {
    // (A chain of 400,000 additions is over the nesting bound: one CK0008.)
    for (name, source) in hostile_cases() {
        assert!(diagnostics(source) > 0, "{name}: no diagnostics");
    }
}
