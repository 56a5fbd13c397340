//! cargo-fuzz target `source`: see `harness::source` and `docs/fuzzing.md`.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::source(data));
