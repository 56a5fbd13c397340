//! cargo-fuzz target `elf`: see `harness::elf` and `docs/fuzzing.md`.
#![no_main]

#[path = "../harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::elf(data));
