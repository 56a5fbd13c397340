//! The fuzz harnesses of ctm (issue 13, `docs/fuzzing.md`), one function
//! per input surface. Each takes arbitrary bytes and must return without
//! panicking, in bounded time and memory: every failure is a typed error.
//!
//! This file is shared: the cargo-fuzz targets in `fuzz/fuzz_targets/`
//! include it, and so does `tests/fuzz_budget.rs`, which runs the same
//! harnesses for a short proptest budget in the normal test suite.

#![allow(dead_code)]

use ctm::CompileOptions;
use ctm::target::x1k::raw;
use ctm::target::{RawRun, RegInit};
use ctm_sim::x1k::dpp::DppOptions;

/// Backward jumps (loop iterations) one element may take in a fuzzed run:
/// with at most 512 slots between two of them, a group executes at most
/// about 2^16 instructions (the simulator's limit counts iterations per
/// element since branch `spec-left`; it counted instructions per group).
pub const STEP_LIMIT: u64 = 1 << 7;

/// Largest input a harness looks at (bigger inputs are cut): keeps one
/// iteration fast; the size limits themselves have their own tests.
pub const MAX_INPUT_BYTES: usize = 1 << 20;

fn cut(data: &[u8]) -> &[u8] {
    &data[..data.len().min(MAX_INPUT_BYTES)]
}

/// Source text → diagnostics (rendered), and for a program that checks,
/// the x1k pipeline to the ELF and its listing at one level chosen by the
/// first byte.
pub fn source(data: &[u8]) {
    let data = cut(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for target in [ctm::Target::Ref, ctm::Target::X1k] {
        let options = CompileOptions {
            target,
            ..Default::default()
        };
        match ctm::compile(text, &options) {
            Ok(compilation) => {
                if target == ctm::Target::X1k {
                    for kind in [ctm::compile::EmitKind::Ir, ctm::compile::EmitKind::Asm] {
                        let _ = ctm::emit(text, &compilation, kind);
                    }
                }
            }
            Err(ctm::compile::CompileError::Source(diags)) => {
                let rendered = ctm_frontend::diag::render(&diags, "fuzz.ck", text, false);
                assert!(rendered.contains("[CK"), "a diagnostic without a code");
            }
            Err(_) => {}
        }
    }
}

/// The options of a fuzzed run: few elements, a step limit.
fn raw_run(data: &[u8]) -> RawRun {
    RawRun {
        elements: 1 + u32::from(data.first().copied().unwrap_or(0) % 8),
        regs: vec![
            (0, RegInit::Seq),
            (1, RegInit::Value([0.5, -1.0, 2.0, 0.0])),
        ],
        consts: vec![(0, [1.0, 2.0, 3.0, 4.0])],
        options: ctm::SimulateOptions {
            models: ctm::MachineModels {
                x1k: DppOptions {
                    step_limit: STEP_LIMIT,
                    ..Default::default()
                },
                ..Default::default()
            },
            ..Default::default()
        },
    }
}

/// ELF image → listing, program read (notes and code) and a bare run.
pub fn elf(data: &[u8]) {
    let data = cut(data);
    let _ = ctm_backend_x1k::elf::listing::listing_elf(data);
    let _ = ctm_backend_x1k::elf::read(data);
    if let Ok(p) = raw::from_elf("fuzz", data) {
        let _ = raw::run_raw(&p, &raw_run(data));
    }
}

/// Raw instruction words → disassembly, decoding with validation, and a
/// bare run.
pub fn raw_words(data: &[u8]) {
    let data = cut(data);
    let _ = ctm_backend_x1k::elf::listing::listing_bin(data);
    if let Ok(p) = raw::from_words("fuzz", data) {
        let _ = raw::run_raw(&p, &raw_run(data));
    }
}

/// `.npy` bytes → array → every stream type it could feed.
pub fn npy(data: &[u8]) {
    let data = cut(data);
    if let Ok(array) = ctm::io::parse_npy(data) {
        use ctm_frontend::types::StreamType;
        for ty in [
            StreamType::F32,
            StreamType::Vec2,
            StreamType::Vec4,
            StreamType::Unorm8x4,
            StreamType::U16,
        ] {
            let _ = ctm::io::array_to_stream(&array, ty);
        }
    }
}
