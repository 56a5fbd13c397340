//! Clause temporaries (`docs/backend-r700.md` §2, ABI §2): a kernel whose
//! ALU work is one clause keeps its clause-local values in T0..T3
//! (GPR 124..127) and needs fewer GPRs; the image carries
//! `SQ_GPR_RESOURCE_MGMT_1.NUM_CLAUSE_TEMP_GPRS`; the listing names them
//! `Tn`; the program relies on them (without the host setting its writes
//! to GPR 124..127 are dropped and the results change).

mod codegen_common;

use codegen_common::{
    CASES, TOL_TRANSCENDENTAL, args_for, check_at, example, example_program, launch,
};
use ctm_backend_r700::codegen::regalloc::CLAUSE_TEMPS;
use ctm_backend_r700::elf::{self, reg};
use ctm_backend_r700::validate::{Config, clause_temp_violations, validate_with};
use ctm_ir::passes::OptLevel;
use ctm_sim::r700::{ExportKind, Machine};

/// black_scholes is one TEX clause and one ALU clause; before clause
/// temporaries it needed 5 GPRs.
#[test]
fn a_one_clause_kernel_uses_temporaries_and_fewer_gprs() {
    let exe = example("black_scholes");
    let alu_clauses = exe
        .program
        .clauses
        .values()
        .filter(|c| matches!(c, ctm_backend_r700::isa::Clause::Alu(_)))
        .count();
    assert_eq!(alu_clauses, 1);
    assert_eq!(exe.resources.clause_temps, CLAUSE_TEMPS);
    assert!(exe.resources.num_gprs < 5, "{:?}", exe.resources);
    let config = Config {
        clause_temps: CLAUSE_TEMPS as usize,
        ..Config::default()
    };
    assert_eq!(validate_with(&exe.program, &config), Ok(()));
    assert!(clause_temp_violations(&exe.program, CLAUSE_TEMPS as usize).is_empty());

    let bytes = elf::write(&exe).expect("writes");
    let image = elf::read_image(&bytes).expect("reads");
    assert_eq!(
        image.register(reg::SQ_GPR_RESOURCE_MGMT_1),
        Some(CLAUSE_TEMPS << reg::NUM_CLAUSE_TEMP_GPRS_SHIFT)
    );
    assert_eq!(image.resources().clause_temps, CLAUSE_TEMPS);
    let listing = elf::listing(&bytes).expect("lists");
    assert!(listing.contains(" T0."), "{listing}");
    assert!(
        listing
            .lines()
            .filter(|l| !l.starts_with(';'))
            .all(|l| !l.contains("R124")),
        "{listing}"
    );
}

#[test]
fn the_program_depends_on_the_host_setting() {
    let program = example_program("black_scholes");
    let k = &program.kernels[0];
    let case = CASES.iter().find(|c| c.0 == "black_scholes").expect("case");
    let args = args_for(k, case.1, 1, case.3);
    check_at(&program, &args, TOL_TRANSCENDENTAL, OptLevel::O2).expect("agrees");
    let exe = example("black_scholes");
    let mut with = launch(&exe, k, &args);
    let good = Machine::default()
        .run(&with)
        .export_f32(ExportKind::Pixel, 0);
    with.clause_temps = Some(0);
    let bad = Machine::default()
        .run(&with)
        .export_f32(ExportKind::Pixel, 0);
    assert_ne!(good, bad);
}

/// A program without clause-local values keeps its image as before: no
/// `SQ_GPR_RESOURCE_MGMT_1` pair.
#[test]
fn no_temporaries_no_register_pair() {
    for name in codegen_common::EXAMPLES {
        if example_program(name).kernels.is_empty() {
            continue;
        }
        let exe = example(name);
        let image = elf::image_of(&exe);
        assert_eq!(
            image.register(reg::SQ_GPR_RESOURCE_MGMT_1).is_some(),
            exe.resources.clause_temps > 0,
            "{name}"
        );
        assert!(
            exe.resources.num_gprs + 2 * exe.resources.clause_temps <= 127
                || exe.resources.clause_temps == 0
        );
    }
}

/// `k` independent multiply-add chains of `len` links over two streams,
/// summed at the end: one straight-line segment of about `2·k·len`
/// slots, cut into several ALU clauses past 128 slots (Table 3.2), whose
/// links each live for a group or two.
fn chains(k: usize, len: usize) -> String {
    let mut s = String::from("kernel chains(x: In<f32>, y: In<f32>, r: Out<f32>) {\n");
    for c in 0..k {
        s.push_str(&format!("    let c{c}_0 = x * {}.25 + y;\n", c + 1));
        for i in 1..len {
            let op = if i % 2 == 0 { "+" } else { "-" };
            s.push_str(&format!(
                "    let c{c}_{i} = c{c}_{} * 0.75 {op} y * {}.5;\n",
                i - 1,
                (c + i) % 7
            ));
        }
    }
    let sum: Vec<String> = (0..k).map(|c| format!("c{c}_{}", len - 1)).collect();
    s.push_str(&format!("    r = {};\n}}\n", sum.join(" + ")));
    s
}

/// A segment cut into several ALU clauses keeps the clause temporaries
/// whose live range stays inside one clause (manual L1299, L1301:
/// temporaries are not preserved past the end of a clause): fewer GPRs
/// than without them, every temporary written earlier in the clause that
/// reads it (validator rule `clause-temp`), and the simulated program —
/// whose T0..T3 are poisoned at the end of every clause — agrees with the
/// reference.
#[test]
fn a_segment_cut_into_clauses_keeps_its_clause_local_temporaries() {
    // GPRs at -O2 with these temporaries; 6, 7 and 8 when a segment of
    // several clauses gave them all up (measured before the change).
    for (k, len, gprs) in [(6, 30, 5), (8, 40, 5), (12, 24, 7)] {
        let src = chains(k, len);
        let program = codegen_common::checked(&src).expect("checks");
        let kernel = &program.kernels[0];
        for level in [OptLevel::O0, OptLevel::O2] {
            let exe = codegen_common::compile_program(&program, level).expect("compiles");
            let alu_clauses = exe
                .program
                .clauses
                .values()
                .filter(|c| matches!(c, ctm_backend_r700::isa::Clause::Alu(_)))
                .count();
            eprintln!(
                "chains {k}x{len} {level:?}: {alu_clauses} ALU clauses, {} GPRs, {} temporaries",
                exe.resources.num_gprs, exe.resources.clause_temps
            );
            assert!(alu_clauses > 1, "{k}x{len}");
            assert_eq!(
                exe.resources.clause_temps, CLAUSE_TEMPS,
                "{k}x{len} {level:?}"
            );
            if level == OptLevel::O2 {
                assert!(exe.resources.num_gprs <= gprs, "{k}x{len}");
            }
            assert!(
                clause_temp_violations(&exe.program, CLAUSE_TEMPS as usize).is_empty(),
                "{k}x{len}"
            );
            let args = args_for(kernel, (9, 7), 3, |_| (-1.0, 1.0));
            check_at(&program, &args, 1e-4, level)
                .unwrap_or_else(|e| panic!("{k}x{len} {level:?}: {e}"));
        }
    }
}
