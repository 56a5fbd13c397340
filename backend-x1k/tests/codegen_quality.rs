//! A wider quality table for work on the code generator: the static
//! metrics of every example (`stats::static_metrics`), a lower bound on its ALU
//! instructions (unit operations / 2), and the simulated cycles per element
//! on a 64 × 64 domain with the differential tests' inputs (the DPP cycle
//! model, `docs/sim-x1k.md` §3), sorted by size. Run with
//! `cargo test --release -p ctm-backend-x1k --test codegen_quality -- --ignored --nocapture`.
//! The table of `docs/quality.md` is generated (and kept current) by
//! `tests/x1k_quality.rs` in the root crate.

mod codegen_common;

use codegen_common::{CASES, args_for, example, example_program, simulate};
use ctm_backend_x1k::isa::{AlphaOp, AluSource, Inst, RgbOp};
use ctm_backend_x1k::stats::static_metrics as stats;

/// Unit operations of an ALU instruction: its RGB half and its alpha half
/// count when they do anything.
fn units(p: &ctm_backend_x1k::Program) -> usize {
    p.insts
        .iter()
        .map(|i| match i {
            Inst::Alu(a) => {
                let rgb = a.rgb.op != RgbOp::Mad
                    || !a.rgb.write_mask.is_empty()
                    || a.rgb.sources != [AluSource::UNUSED; 3];
                let alpha = a.alpha.write_mask.is_on()
                    || a.alpha.op != AlphaOp::Mad
                    || a.alpha.sources != [AluSource::UNUSED; 3];
                usize::from(rgb) + usize::from(alpha)
            }
            _ => 0,
        })
        .sum()
}

#[test]
#[ignore = "prints a table for code-generator work; docs/quality.md is checked by tests/x1k_quality.rs"]
fn quality_table() {
    println!(
        "| example | instructions | ALU | TEX | FC | co-issued | temps | consts | ALU lower bound | cycles/element |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for &(name, _, _, ranges) in CASES {
        let p = example(name);
        let s = stats(&p);
        let program = example_program(name);
        let k = &program.kernels[0];
        let args = args_for(k, (64, 64), 0, ranges);
        let run = simulate(&p, k, &args).expect("runs");
        rows.push((
            s.instructions,
            format!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
                s.instructions,
                s.alu,
                s.tex,
                s.fc,
                s.coissued,
                s.temps,
                s.consts,
                units(&p).div_ceil(2),
                run.stats.cycles_per_element
            ),
        ));
    }
    rows.sort_by_key(|r| r.0);
    for (_, r) in rows {
        println!("{r}");
    }
}
