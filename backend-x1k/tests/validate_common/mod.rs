//! Helpers shared by the validator tests: programs written in the assembly
//! syntax, and the (rule, slot) pairs a program violates.
#![allow(dead_code)]

use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::Bindings;
use ctm_backend_x1k::isa::parse_program;
use ctm_backend_x1k::validate::{Rule, validate};

/// `US_FC_CTRL` with full flow control.
pub const FULL: u32 = 0x8000_0000;
/// `US_CONFIG` with uncached (UMRT) output.
pub const UMRT: u32 = 1;

/// A cached, partial-mode program with `US_PIXSIZE` 127.
pub fn prog(asm: &str) -> Program {
    Program {
        insts: parse_program(asm).unwrap_or_else(|e| panic!("{e}\n{asm}")),
        us_config: 0,
        us_pixsize: 127,
        us_fc_ctrl: 0,
        bindings: Bindings::default(),
    }
}

/// The same in full flow-control mode.
pub fn full(asm: &str) -> Program {
    Program {
        us_fc_ctrl: FULL,
        ..prog(asm)
    }
}

/// The same as a UMRT program.
pub fn umrt(asm: &str) -> Program {
    Program {
        us_config: UMRT,
        ..prog(asm)
    }
}

/// The (rule, slot) pairs `p` violates (empty if it is valid).
pub fn violations(p: &Program) -> Vec<(Rule, Option<u16>)> {
    match validate(p) {
        Ok(_) => Vec::new(),
        Err(v) => v.iter().map(|v| (v.rule, v.slot)).collect(),
    }
}

/// Assert that `p` is valid, printing the violations if not.
pub fn assert_valid(p: &Program) {
    if let Err(v) = validate(p) {
        let text: Vec<String> = v.iter().map(ToString::to_string).collect();
        panic!("expected a valid program, got:\n{}", text.join("\n"));
    }
}

/// Assert that `p` violates exactly `rule` at `slot` and nothing else.
pub fn assert_only(p: &Program, rule: Rule, slot: Option<u16>) {
    let found = violations(p);
    let text: Vec<String> = validate(p)
        .err()
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found, vec![(rule, slot)], "{}", text.join("\n"));
}
