//! cargo-fuzz target `raw_words`: see `harness::raw_words` and `docs/fuzzing.md`.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::raw_words(data));
