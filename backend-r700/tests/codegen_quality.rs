//! Code quality of the examples (`docs/quality.md`, R700 section): the
//! static metrics of each example at -O2 against the lower bound
//! (max(⌈ALU ops / 5⌉, Trans-only ops, critical path in groups) refined by
//! depth, height and short windows of the path, `sched::lower_bound`),
//! summed over the straight-line segments. Prints the table (`--nocapture`) and
//! checks the targets that hold by construction.

mod codegen_common;

use codegen_common::{EXAMPLES, example_program, module};
use ctm_backend_r700::codegen::compile_with_report;
use ctm_backend_r700::stats::static_metrics;
use ctm_ir::passes::OptLevel;

#[test]
fn quality_table() {
    println!(
        "| example | ALU groups | ALU slots | slots/group | lower bound | GPRs | ALU clauses | fetch clauses | CF instructions |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let (mut groups, mut bound) = (0, 0);
    for name in EXAMPLES {
        let program = example_program(name);
        let (exe, report) =
            compile_with_report(&module(&program, OptLevel::O2), &Default::default())
                .expect("compiles");
        let m = static_metrics(&exe);
        println!(
            "| {name} | {} | {} | {:.2} | {} | {} | {} | {} | {} |",
            m.alu_groups,
            m.alu_slots,
            m.slots_per_group(),
            report.lower_bound,
            m.gprs,
            m.alu_clauses,
            m.fetch_clauses,
            m.cf_instructions
        );
        assert!(
            m.alu_groups >= report.lower_bound,
            "{name}: below the bound"
        );
        groups += m.alu_groups;
        bound += report.lower_bound;
    }
    println!("total groups {groups}, lower bound {bound}");
}
