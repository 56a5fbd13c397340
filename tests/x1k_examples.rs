//! Every example in `examples/` on the X1K target, through the command
//! line:
//!
//! - `--emit asm` is an insta snapshot (`tests/snapshots/`), so any change
//!   of the generated code shows up in review; for an example the x1k
//!   refuses (hash: CK0060) the diagnostic is the snapshot instead;
//! - the ELF `ctmc` writes reads back, passes the validator (every
//!   hardware rule, and the notes and code range of the image), and
//!   `ctmc disasm` prints exactly what `--emit asm` printed, which
//!   assembles back to the ELF's instructions.
//!
//! After a deliberate change of the code generator, review the new
//! listings with `cargo insta review`, or accept them all with
//! `INSTA_UPDATE=always cargo test --release --test x1k_examples`
//! (and regenerate `docs/quality.md`, see `tests/x1k_quality.rs`).

mod common;

use common::Work;
use ctm_backend_x1k::{elf, isa, validate};

/// The examples the x1k refuses, with the diagnostic code it gives.
const REFUSED: &[(&str, &str)] = &[("hash", "error[CK0060]")];

#[test]
fn every_example_listing_elf_and_disassembly() {
    let w = Work::new();
    for name in common::example_names() {
        // Run from a copy in the work directory, so that diagnostics name
        // the file the same way on every machine.
        let file = format!("{name}.ck");
        w.file(&file, common::example_source(&name));
        let asm = w.ctmc(&[&file, "--emit", "asm"]);
        if let Some((_, code)) = REFUSED.iter().find(|(n, _)| *n == name) {
            asm.expect(1).stderr_has(code);
            assert!(asm.stdout.is_empty(), "{name}: {asm:#?}");
            insta::assert_snapshot!(format!("x1k_refused_{name}"), asm.stderr);
            w.ctmc(&[&file]).expect(1).stderr_has(code);
            assert!(!w.path(&format!("{name}.x1k.elf")).exists(), "{name}");
            continue;
        }
        asm.expect(0);
        insta::assert_snapshot!(format!("x1k_asm_{name}"), asm.stdout);

        let elf_path = format!("{name}.elf");
        w.ctmc(&[&file, "-o", &elf_path]).expect(0);
        let bytes = std::fs::read(w.path(&elf_path)).expect("the ELF");
        let image = elf::read_image(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(violations) = validate::validate_image(&image) {
            panic!("{name}: the ELF breaks hardware rules: {violations:#?}");
        }
        let program = elf::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(validate::validate(&program).is_ok(), "{name}");

        let disasm = w.ctmc(&["disasm", &elf_path]);
        disasm.expect(0);
        assert_eq!(
            disasm.stdout, asm.stdout,
            "{name}: disasm differs from --emit asm"
        );
        let insts = isa::parse_program(&asm.stdout).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            insts, program.insts,
            "{name}: the listing does not assemble back"
        );
    }
}

/// The refused list names real examples (so a renamed one is noticed).
#[test]
fn refused_examples_exist() {
    let names = common::example_names();
    for (name, _) in REFUSED {
        assert!(names.iter().any(|n| n == name), "{name}");
    }
}
