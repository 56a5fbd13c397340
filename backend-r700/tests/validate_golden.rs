//! The validator on real compiler output: every LLVM 14 rv770 program in
//! `tests/fixtures/llvm/` validates cleanly, except where a real llc
//! program breaks a rule of the manual (documented in
//! `docs/validator-r700.md`).

use ctm_backend_r700::isa::decode_program;
use ctm_backend_r700::validate::{Config, Rule, validate, validate_with};

fn hex_bytes(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/llvm/{name}.hex",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

const CLEAN: &[&str] = &[
    "alu_literal",
    "flow_loop",
    "kcache_vtx",
    "tex_sample",
    "trans_ops",
];

#[test]
fn llc_programs_validate() {
    for name in CLEAN {
        let p = decode_program(&hex_bytes(name)).expect("decodes");
        if let Err(v) = validate(&p) {
            let text: Vec<String> = v.iter().map(ToString::to_string).collect();
            panic!("{name}:\n{}", text.join("\n"));
        }
    }
}

// `mova_int` is not here: LLVM 14 encodes MOVA_INT with the Evergreen
// opcode 204, which the decoder rejects (`isa_llvm_golden.rs`).

/// `tex_many` has a TEX clause of 9 instructions: over the manual's limit
/// of 8 (Table 3.2), within the 16 LLVM assumes for R700 (digest R34).
#[test]
fn tex_many_exceeds_the_manual_fetch_limit_only() {
    let p = decode_program(&hex_bytes("tex_many")).expect("decodes");
    let v = validate(&p).expect_err("9-instruction TEX clause");
    assert!(v.iter().all(|v| v.rule == Rule::FetchClauseSize), "{v:?}");
    let config = Config {
        fetch_clause_limit: 16,
        ..Config::default()
    };
    assert_eq!(validate_with(&p, &config), Ok(()));
}
