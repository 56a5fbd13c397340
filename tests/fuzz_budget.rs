//! A short budget of the fuzz harnesses (`fuzz/harness/mod.rs`,
//! `docs/fuzzing.md`) in the normal test suite: every committed corpus
//! file and regression, then proptest cases of random bytes and of
//! corpus files with bytes flipped, inserted or cut. Any panic fails.

#[path = "../fuzz/harness/mod.rs"]
mod harness;

use proptest::prelude::*;
use std::path::Path;

/// The files of `fuzz/{dir}/{target}/`, sorted.
fn files(dir: &str, target: &str) -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(dir)
        .join(target);
    let mut paths: Vec<_> = std::fs::read_dir(&path)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

type Harness = fn(&[u8]);

const TARGETS: [(&str, Harness); 4] = [
    ("source", harness::source),
    ("elf", harness::elf),
    ("raw_words", harness::raw_words),
    ("npy", harness::npy),
];

#[test]
fn corpora_and_regressions_run_cleanly() {
    for (name, h) in TARGETS {
        let corpus = files("corpus", name);
        assert!(!corpus.is_empty(), "fuzz/corpus/{name} is empty");
        for data in corpus.iter().chain(&files("regressions", name)) {
            h(data);
        }
    }
}

/// A corpus file of `target` changed by `edits` (position, byte, kind).
fn mutate(target: &str, pick: usize, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let corpus = files("corpus", target);
    let mut data = corpus
        .get(pick % corpus.len().max(1))
        .cloned()
        .unwrap_or_default();
    for &(at, byte, kind) in edits {
        let at = if data.is_empty() { 0 } else { at % data.len() };
        match kind % 4 {
            0 if !data.is_empty() => data[at] = byte,
            1 if !data.is_empty() => data[at] ^= 1 << (byte % 8),
            2 => data.insert(at, byte),
            _ if !data.is_empty() => {
                data.truncate(at);
            }
            _ => {}
        }
    }
    data
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn source_survives(pick in any::<usize>(), e in edits()) {
        harness::source(&mutate("source", pick, &e));
    }

    #[test]
    fn elf_survives(pick in any::<usize>(), e in edits()) {
        harness::elf(&mutate("elf", pick, &e));
    }

    #[test]
    fn raw_words_survive(pick in any::<usize>(), e in edits()) {
        harness::raw_words(&mutate("raw_words", pick, &e));
    }

    #[test]
    fn npy_survives(pick in any::<usize>(), e in edits()) {
        harness::npy(&mutate("npy", pick, &e));
    }

    #[test]
    fn random_bytes_survive(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        for (_, h) in TARGETS {
            h(&data);
        }
    }
}
