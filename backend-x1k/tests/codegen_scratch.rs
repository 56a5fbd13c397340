mod codegen_common;
use ctm_frontend::r#gen::{GenOptions, NumericsMode, generate};
use ctm_frontend::{CheckOptions, Target};
#[test]
fn scratch() {
    let (program, name) = if let Ok(ex) = std::env::var("EXAMPLE") {
        (codegen_common::example_program(&ex), None)
    } else {
        let seed: u64 = std::env::var("SEED").unwrap().parse().unwrap();
        let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
        let g = generate(seed, &options);
        eprintln!("{}", g.source);
        let (program, _) = ctm_frontend::check::check(
            &g.file,
            &CheckOptions {
                target: Target::X1k,
            },
        );
        (program.unwrap(), Some(g.kernel_name))
    };
    let k = program
        .kernels
        .iter()
        .find(|k| name.as_ref().is_none_or(|n| &k.name == n))
        .unwrap();
    let mut m = ctm_ir::lower::lower_kernel(&program, k);
    ctm_backend_x1k::codegen::optimize_for_x1k(&mut m, ctm_ir::passes::OptLevel::O2).unwrap();
    eprintln!("{}", ctm_ir::print::to_text(&m));
    let v = ctm_ir::verify::verify(m, "x").unwrap();
    match ctm_backend_x1k::codegen::compile(&v, &Default::default()) {
        Ok(p) => eprintln!("{}", ctm_backend_x1k::isa::format_program(&p.insts)),
        Err(e) => eprintln!("{e}"),
    }
}
