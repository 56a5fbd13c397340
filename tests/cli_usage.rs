//! `ctmc` usage and I/O errors that need no front end: help, missing
//! files, malformed command lines, and the `disasm`/`run` forms (whose
//! r700 backend is not built yet; only its disassembler is).

mod common;
use common::Work;

#[test]
fn help_and_version_exit_0() {
    let w = Work::new();
    w.ctmc(&["--help"]).expect(0).stdout_has("Usage: ctmc");
    w.ctmc(&["--help"])
        .stdout_has("--simulate")
        .stdout_has("Exit codes");
    w.ctmc(&["-h"]).expect(0);
    w.ctmc(&["--version"]).expect(0).stdout_has("ctmc");
    w.ctmc(&["disasm", "--help"])
        .expect(0)
        .stdout_has("--target");
    w.ctmc(&["run", "--help"]).expect(0).stdout_has("--raw");
}

#[test]
fn no_arguments_is_a_usage_error() {
    Work::new().ctmc(&[]).expect(2).stderr_has("FILE.ck");
}

#[test]
fn missing_source_file_exits_2() {
    let w = Work::new();
    w.ctmc(&["nothere.ck"])
        .expect(2)
        .stderr_has("cannot read `nothere.ck`");
    w.ctmc(&["nothere.ck", "--target", "ref", "--simulate"])
        .expect(2);
    // A directory is not a source file either.
    w.ctmc(&["."]).expect(2).stderr_has("cannot read");
}

#[test]
fn non_utf8_source_exits_2() {
    let w = Work::new();
    let f = w.file("latin1.ck", b"kernel k() { \xe9 }");
    w.ctmc(&[&f]).expect(2).stderr_has("not UTF-8");
}

#[test]
fn unknown_flag_exits_2() {
    let w = Work::new();
    w.ctmc(&["nothere.ck", "--frobnicate"])
        .expect(2)
        .stderr_has("--frobnicate");
    w.ctmc(&["--frobnicate"]).expect(2);
    // --stats takes its value only with `=`.
    w.ctmc(&["nothere.ck", "--stats", "json"]).expect(2);
    // Two source files.
    w.ctmc(&["a.ck", "b.ck"]).expect(2);
}

#[test]
fn flags_missing_their_values_exit_2() {
    let w = Work::new();
    for flag in [
        "--target", "--kernel", "--emit", "--domain", "--input", "-o",
    ] {
        w.ctmc(&["nothere.ck", flag]).expect(2);
    }
}

#[test]
fn disasm_errors() {
    let w = Work::new();
    w.ctmc(&["disasm"]).expect(2);
    w.ctmc(&["disasm", "missing.elf"])
        .expect(2)
        .stderr_has("cannot read");
    let bin = w.file("code.bin", [0u8; 16]);
    w.ctmc(&["disasm", &bin])
        .expect(2)
        .stderr_has("need --target");
    w.ctmc(&["disasm", &bin, "--target", "ref"])
        .expect(2)
        .stderr_has("no machine code");
    w.ctmc(&["disasm", &bin, "--target", "r600"])
        .expect(2)
        .stderr_has("expected x1k or r700");
    let odd = w.file("odd.bin", [0u8; 6]);
    w.ctmc(&["disasm", &odd, "--target", "x1k"])
        .expect(2)
        .stderr_has("32-bit instruction words");
    // 16 bytes are words, but not whole 24-byte x1k slots.
    w.ctmc(&["disasm", &bin, "--target", "x1k"])
        .expect(2)
        .stderr_has("24 bytes");
    // 12 bytes are words, but not whole 8-byte R700 CF instructions.
    let twelve = w.file("twelve.bin", [0u8; 12]);
    w.ctmc(&["disasm", &twelve, "--target", "r700"])
        .expect(2)
        .stderr_has("not a valid r700 program");
    let elf = w.file("prog.elf", b"\x7fELF\x01\x01\x01\0\0\0\0\0\0\0\0\0");
    w.ctmc(&["disasm", &elf])
        .expect(2)
        .stderr_has("too short to be an ELF");
}

#[test]
fn run_errors() {
    let w = Work::new();
    let bin = w.file("code.bin", [0u8; 16]);
    let elf = w.file("prog.elf", b"\x7fELF\x01\x01\x01\0\0\0\0\0\0\0\0\0");
    w.ctmc(&["run"]).expect(2);
    w.ctmc(&["run", "missing.elf", "--simulate"])
        .expect(2)
        .stderr_has("cannot read");
    w.ctmc(&["run", &bin, "--simulate"])
        .expect(2)
        .stderr_has("not an ELF file");
    w.ctmc(&["run", &bin, "--raw"])
        .expect(2)
        .stderr_has("--raw needs --target");
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "x1k",
        "--reg",
        "R128=1,2,3,4",
    ])
    .expect(2)
    .stderr_has("R0..R127");
    w.ctmc(&["run", &bin, "--raw", "--target", "x1k", "--reg", "R1=1,2,3"])
        .expect(2)
        .stderr_has("4 comma-separated numbers");
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "x1k",
        "--reg",
        "R1=a,b,c,d",
    ])
    .expect(2)
    .stderr_has("not a number");
    w.ctmc(&["run", &bin, "--raw", "--target", "x1k", "--elements", "0"])
        .expect(2)
        .stderr_has("positive integer");
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "x1k",
        "--const",
        "256=1,2,3,4",
    ])
    .expect(2)
    .stderr_has("0..255");
    w.ctmc(&["run", &bin, "--raw", "--target", "r700", "--stats=yaml"])
        .expect(2)
        .stderr_has("--stats");
    w.ctmc(&["run", &bin, "--raw", "--target", "x1k", "--input", "x=seq"])
        .expect(2)
        .stderr_has("not an option of --raw");
    w.ctmc(&["run", &elf, "--reg", "R0=seq"])
        .expect(2)
        .stderr_has("--reg needs --raw");
    w.ctmc(&["run", &elf, "--simulate", "--domain", "0x5"])
        .expect(2)
        .stderr_has("--domain");
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "x1k",
        "--reg",
        "R1=seq",
        "--reg",
        "r1=1,2,3,4",
    ])
    .expect(2)
    .stderr_has("given twice");
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "x1k",
        "--elements",
        "99999999",
    ])
    .expect(2)
    .stderr_has("positive integer");
    // 16 bytes are not whole x1k slots.
    w.ctmc(&["run", &bin, "--raw", "--target", "x1k"])
        .expect(2)
        .stderr_has("slots of 24 bytes");
    // Everything well-formed: the r700 runs the two CF NOPs and faults
    // past the end of the CF program (no END_OF_PROGRAM).
    w.ctmc(&[
        "run",
        &bin,
        "--raw",
        "--target",
        "r700",
        "--reg",
        "R0=seq",
        "--reg",
        "r5=1,2,3,4",
        "--const",
        "7=0.5,1,2,3",
        "--elements",
        "128",
        "--dump-outputs",
        "--stats=json",
    ])
    .expect(1)
    .stderr_has("no END_OF_PROGRAM");
    w.ctmc(&["run", &elf, "--simulate", "--stats"])
        .expect(2)
        .stderr_has("too short to be an ELF");
    w.ctmc(&["run", &elf, "--check"])
        .expect(2)
        .stderr_has("too short to be an ELF");
}

#[test]
fn a_file_named_like_a_form_is_given_with_a_path() {
    let w = Work::new();
    // `./run` is a source file, not the `run` form.
    w.ctmc(&["./run"])
        .expect(2)
        .stderr_has("cannot read `./run`");
}

#[test]
fn disasm_reads_raw_r700_programs() {
    // llc -march=r600 -mcpu=rv770: an ALU clause with a literal, then an
    // export (backend-r700/tests/fixtures/llvm/alu_literal.*).
    let words: [u32; 14] = [
        0x0000_0004,
        0xa008_0000,
        0xc000_8000,
        0x9420_0688,
        0x0000_0000,
        0x8020_0000,
        0,
        0,
        0x8080_0001,
        0x6000_0010,
        0x801f_acfe,
        0x4020_0110,
        0x4060_0000,
        0,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let w = Work::new();
    let bin = w.file("alu_literal.bin", bytes);
    w.ctmc(&["disasm", &bin, "--target", "r700"])
        .expect(0)
        .stdout_has("EXPORT_DONE PIXEL0 R1.xyzw")
        .stdout_has("MUL_IEEE R1.z, PV.w, L.x")
        .stdout_has("0x40600000 (3.5f)");
}
