//! Golden tests against a real compiler: LLVM 14's R600 backend for rv770.
//!
//! `tests/fixtures/llvm/` holds, per kernel, the `.ll` source, the `.text`
//! bytes llc produced (`NAME.hex`) and llc's own listing with every
//! instruction's encoding (`NAME.s`); `regen.sh` there rebuilds them (llc is
//! not needed at test time). Each program is checked four ways:
//!
//! 1. the listing's encodings, concatenated, are exactly the `.text` bytes
//!    (so the listing describes these bytes, qword by qword);
//! 2. our decoder accepts the bytes and re-encodes them byte-identically;
//! 3. every instruction we decode has the opcode LLVM's listing names for
//!    the same qword (an independent check of opcode numbers, formats and
//!    clause boundaries);
//! 4. the disassembly is pinned by an insta snapshot (reviewed by hand
//!    against the listing's operands).

use std::collections::BTreeMap;

use ctm_backend_r700::isa::{
    AluClause, CfInst, Clause, DecodeError, FetchClause, Program, ProgramDecodeError,
    VtxClauseInst, decode_program, encode_program, fields::AluWord1Op2, format_program,
};

fn fixture(name: &str, ext: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/llvm/{name}.{ext}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `.hex` file: hex bytes, `#` comments.
fn hex_bytes(name: &str) -> Vec<u8> {
    fixture(name, "hex")
        .lines()
        .map(|line| line.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

/// One encoded line of llc's listing.
struct Listed {
    /// The first token: LLVM's mnemonic, or a literal's value.
    mnemonic: String,
    /// The line's bytes.
    bytes: Vec<u8>,
}

/// The instruction lines of the `.s` listing (those with a non-empty
/// `; encoding: [...]`), in order.
fn listing(name: &str) -> Vec<Listed> {
    fixture(name, "s")
        .lines()
        .filter_map(|line| {
            let (code, enc) = line.split_once("; encoding: [")?;
            let enc = enc.trim_end().trim_end_matches(']');
            if enc.is_empty() {
                return None;
            }
            let bytes = enc
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
                .collect();
            let mnemonic = code.split_whitespace().next()?.to_string();
            Some(Listed { mnemonic, bytes })
        })
        .collect()
}

/// What our decoder calls the instruction LLVM lists as `llvm`, given the
/// qword it sits at. LLVM prints EXPORT for both EXPORT and EXPORT_DONE,
/// CF_END and PAD for CF NOPs, and its own names for a few ops.
fn expected_mnemonic(llvm: &str, ours: &str) -> String {
    match llvm {
        "CF_END" | "PAD" => "NOP".into(),
        "EXPORT" if ours == "EXPORT_DONE" => "EXPORT_DONE".into(),
        "END_LOOP" => "LOOP_END".into(),
        "LSHL" => "LSHL_INT".into(),
        "LSHR" => "LSHR_INT".into(),
        "ASHR" => "ASHR_INT".into(),
        "VTX_READ_eg" => "FETCH".into(),
        t if t.starts_with("TEX_") => t.trim_start_matches("TEX_").into(),
        t => t.into(),
    }
}

/// Our mnemonic for each qword that starts an instruction; literal slots
/// are `"literal"`.
fn our_mnemonics(program: &Program) -> BTreeMap<u64, String> {
    let mut at = BTreeMap::new();
    for (i, inst) in program.cf.iter().enumerate() {
        at.insert(i as u64, inst.mnemonic().to_string());
    }
    for (&addr, clause) in &program.clauses {
        let mut q = u64::from(addr);
        match clause {
            Clause::Alu(AluClause { groups }) => {
                for group in groups {
                    for inst in &group.insts {
                        at.insert(q, inst.mnemonic().to_string());
                        q += 1;
                    }
                    for _ in 0..group.literals.len() / 2 {
                        at.insert(q, "literal".to_string());
                        q += 1;
                    }
                }
            }
            Clause::Fetch(FetchClause::Tex(insts)) => {
                for inst in insts {
                    at.insert(q, inst.op.mnemonic().to_string());
                    q += 2;
                }
            }
            Clause::Fetch(FetchClause::Vtx(insts)) => {
                for inst in insts {
                    let name = match inst {
                        VtxClauseInst::Fetch(_) => "FETCH".to_string(),
                        VtxClauseInst::MemRead(m) => format!("MEM_RD_{}", m.op),
                    };
                    at.insert(q, name);
                    q += 2;
                }
            }
        }
    }
    at
}

fn check_listing_matches_bytes(name: &str, bytes: &[u8]) {
    let listed: Vec<u8> = listing(name).into_iter().flat_map(|l| l.bytes).collect();
    assert_eq!(listed, bytes, "{name}: listing and .text disagree");
}

fn check_program(name: &str) -> Program {
    let bytes = hex_bytes(name);
    check_listing_matches_bytes(name, &bytes);
    let program = decode_program(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        encode_program(&program).as_deref(),
        Ok(&bytes[..]),
        "{name}: re-encoding differs"
    );
    let ours = our_mnemonics(&program);
    let mut qword = 0u64;
    for line in listing(name) {
        let found = ours
            .get(&qword)
            .unwrap_or_else(|| panic!("{name}: no instruction of ours at qword {qword}"));
        let is_literal = line.mnemonic.contains('(');
        if is_literal {
            assert_eq!(found, "literal", "{name} qword {qword}");
        } else {
            assert_eq!(
                *found,
                expected_mnemonic(&line.mnemonic, found),
                "{name} qword {qword}: LLVM lists {}",
                line.mnemonic
            );
        }
        qword += line.bytes.len() as u64 / 8;
    }
    program
}

macro_rules! golden {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        fn $name() {
            let program = check_program(stringify!($name));
            insta::assert_snapshot!(stringify!($name), format_program(&program));
        }
    )*};
}

golden!(
    alu_literal,
    tex_sample,
    flow_loop,
    kcache_vtx,
    trans_ops,
    tex_many
);

/// LLVM 14 encodes MOVA_INT for rv770 with the Evergreen opcode 204
/// (0xCC); R700's MOVA_INT is 24 (manual L8010, Mesa's r600 table). The
/// decoder must reject that word rather than misread it.
#[test]
fn mova_int_with_evergreen_opcode_is_rejected() {
    let bytes = hex_bytes("mova_int");
    check_listing_matches_bytes("mova_int", &bytes);
    let err = decode_program(&bytes).unwrap_err();
    let ProgramDecodeError::Alu {
        addr,
        error: DecodeError::UndefinedValue { field, value },
    } = err
    else {
        panic!("unexpected error {err}");
    };
    assert_eq!((field, value), (AluWord1Op2::ALU_INST.info(), 204));
    // The listing names the instruction at that qword MOVA_INT.
    let mut qword = 0;
    for line in listing("mova_int") {
        if qword == addr {
            assert_eq!(line.mnemonic, "MOVA_INT");
        }
        qword += line.bytes.len() as u64 / 8;
    }
}

/// Every CF program LLVM emits ends with an END_OF_PROGRAM instruction
/// followed only by padding NOPs.
#[test]
fn llvm_programs_end_with_eop() {
    for name in [
        "alu_literal",
        "tex_sample",
        "flow_loop",
        "kcache_vtx",
        "trans_ops",
        "tex_many",
    ] {
        let program = decode_program(&hex_bytes(name)).unwrap();
        let last_eop = program.cf.iter().rposition(CfInst::end_of_program);
        let last_eop = last_eop.unwrap_or_else(|| panic!("{name}: no EOP"));
        assert!(
            program.cf[last_eop + 1..]
                .iter()
                .all(|i| *i == CfInst::nop()),
            "{name}"
        );
    }
}
