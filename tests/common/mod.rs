//! Helpers of the `ctmc` integration tests: run the built binary in a
//! temporary directory and look at what it did.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A temporary working directory with files in it.
pub struct Work {
    pub dir: tempfile::TempDir,
}

impl Work {
    pub fn new() -> Work {
        Work {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file and returns its path as a string.
    pub fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> String {
        let path = self.path(name);
        std::fs::write(&path, contents).expect("write test file");
        path.to_string_lossy().into_owned()
    }

    /// Runs `ctmc` with `args` in the directory (no colour).
    pub fn ctmc(&self, args: &[&str]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_ctmc"))
            .args(args)
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("run ctmc");
        Run::from(output)
    }
}

/// What a run of `ctmc` did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            code: o.status.code(),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts the exit code, showing the run when it differs.
    #[track_caller]
    pub fn expect(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "unexpected exit code: {self:#?}");
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("internal error"),
            "ctmc failed internally: {self:#?}"
        );
        self
    }

    /// Asserts that stderr contains `text`.
    #[track_caller]
    pub fn stderr_has(&self, text: &str) -> &Run {
        assert!(
            self.stderr.contains(text),
            "stderr lacks {text:?}: {self:#?}"
        );
        self
    }

    /// Asserts that stdout contains `text`.
    #[track_caller]
    pub fn stdout_has(&self, text: &str) -> &Run {
        assert!(
            self.stdout.contains(text),
            "stdout lacks {text:?}: {self:#?}"
        );
        self
    }

    /// The last line of stdout parsed as JSON.
    #[track_caller]
    pub fn last_json(&self) -> serde_json::Value {
        let line = self.stdout.lines().last().expect("stdout is empty");
        serde_json::from_str(line).unwrap_or_else(|e| panic!("last line is not JSON ({e}): {line}"))
    }
}

/// Reads a `.npy` file written by ctmc.
pub fn read_npy(path: &Path) -> ctm::io::NpyArray {
    ctm::io::read_npy(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The `f32` values of an array.
pub fn f32s(array: &ctm::io::NpyArray) -> Vec<f32> {
    match &array.data {
        ctm::io::NpyData::F32(v) => v.clone(),
        other => panic!("expected <f4 data, found {:?}", other.dtype()),
    }
}

/// Writes an array as `.npy`.
pub fn write_npy(path: &Path, shape: &[usize], data: ctm::io::NpyData) {
    ctm::io::write_npy_file(
        path,
        &ctm::io::NpyArray {
            shape: shape.to_vec(),
            data,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// The names of the examples, `examples/NAME.ck`, sorted.
pub fn example_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("examples/")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "ck").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no examples in {}", dir.display());
    names
}

/// The source of `examples/NAME.ck`.
pub fn example_source(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.ck"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `r = a * x + y`.
pub const SAXPY: &str =
    "kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {\n    r = a * x + y;\n}\n";

/// A source with a compile error (CK0021, `2` in a float context).
pub const BAD: &str = "kernel bad(x: In<f32>, r: Out<f32>) {\n    r = x * 2;\n}\n";

/// The sum of a stream.
pub const SUM: &str = "reduce sum(a: f32, b: f32) -> f32 {\n    a + b\n}\n";
