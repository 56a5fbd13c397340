//! The kernel's source carried in an ELF that ctmc writes, so that
//! `ctmc run FILE.elf --check` can run the reference interpreter on it:
//! the non-allocated `.ctm.source` section (`ctm_isa_kit::elf`), which
//! loaders ignore, holding one JSON object (`docs/abi-x1k.md` §1.3,
//! `docs/abi-r700.md` §1.1):
//!
//! ```text
//! {"format": 1, "entry": "saxpy", "opt_level": 2, "source": "kernel saxpy(...) { ... }"}
//! ```
//!
//! `entry` is the kernel or reduction the ELF runs (`--kernel`),
//! `opt_level` the `-O` level it was compiled at (the `--check` model of
//! the target's arithmetic rebuilds the same IR), `source` the whole file.

use ctm_ir::passes::OptLevel;
use serde_json::{Value, json};

/// The payload's `format`.
const FORMAT: u64 = 1;

/// What an ELF carries for the reference interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedSource {
    /// The entry point's name.
    pub entry: String,
    /// The optimisation level of the code.
    pub opt_level: OptLevel,
    /// The source file's text.
    pub source: String,
}

impl EmbeddedSource {
    /// The section's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let level = match self.opt_level {
            OptLevel::O0 => 0,
            OptLevel::O1 => 1,
            OptLevel::O2 => 2,
        };
        json!({
            "format": FORMAT,
            "entry": self.entry,
            "opt_level": level,
            "source": self.source,
        })
        .to_string()
        .into_bytes()
    }

    /// The source an ELF file carries: `Ok(None)` without the section (an
    /// ELF another tool wrote), an error for a section that does not hold
    /// the object above.
    ///
    /// # Errors
    /// What is wrong with the section, as a sentence.
    pub fn of_elf(elf: &[u8]) -> Result<Option<EmbeddedSource>, String> {
        let Some(bytes) = ctm_isa_kit::elf::section_data(elf, ctm_isa_kit::elf::SOURCE_SECTION)
        else {
            return Ok(None);
        };
        let bad = |why: &str| format!("its .ctm.source section {why}");
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| bad(&format!("is not JSON: {e}")))?;
        if value.get("format").and_then(Value::as_u64) != Some(FORMAT) {
            return Err(bad(&format!("is not of format {FORMAT}")));
        }
        let text = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("has no string `{key}`")))
        };
        let opt_level = match value.get("opt_level").and_then(Value::as_u64) {
            Some(0) => OptLevel::O0,
            Some(1) => OptLevel::O1,
            Some(2) => OptLevel::O2,
            _ => return Err(bad("has no `opt_level` 0, 1 or 2")),
        };
        Ok(Some(EmbeddedSource {
            entry: text("entry")?,
            opt_level,
            source: text("source")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_reads_back_and_a_broken_one_is_refused() {
        let s = EmbeddedSource {
            entry: "k".into(),
            opt_level: OptLevel::O1,
            source: "kernel k(r: Out<f32>) {\n    r = 1.0;\n}\n".into(),
        };
        let bytes = s.to_bytes();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["entry"], "k");
        assert_eq!(value["opt_level"], 1);
        // Not an ELF at all: no section.
        assert_eq!(EmbeddedSource::of_elf(&bytes), Ok(None));
    }
}
