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
