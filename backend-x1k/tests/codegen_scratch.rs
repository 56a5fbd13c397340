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

#[test]
fn scratch_mir() {
    use ctm_backend_x1k::codegen::*;
    let Ok(seed) = std::env::var("SEED") else {
        return;
    };
    let seed: u64 = seed.parse().unwrap();
    let options = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let g = generate(seed, &options);
    let (program, _) = ctm_frontend::check::check(
        &g.file,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = program.unwrap();
    let k = program
        .kernels
        .iter()
        .find(|k| k.name == g.kernel_name)
        .unwrap();
    let mut m = ctm_ir::lower::lower_kernel(&program, k);
    optimize_for_x1k(&mut m, ctm_ir::passes::OptLevel::O2).unwrap();
    let v = ctm_ir::verify::verify(m, "x").unwrap();
    let (mut mir, _c, _d) = isel::Selector::new(v.module()).unwrap().run().unwrap();
    let blocks = sched::schedule(&mut mir).unwrap();
    let alloc = regalloc::allocate(&mir, &blocks, "k").unwrap();
    let watch: Vec<u32> = std::env::var("WATCH")
        .unwrap_or_default()
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect();
    for (bi, b) in blocks.iter().enumerate() {
        for (si, bu) in b.iter().enumerate() {
            for id in [bu.rgb, bu.alpha, bu.tex].into_iter().flatten() {
                let op = mir.op(id);
                let touches = op.dest.is_some_and(|(d, _)| watch.contains(&d.0))
                    || op.reads().any(|r| watch.contains(&r.0));
                if touches {
                    eprintln!("block {bi} slot {si} {id:?}: {op:?}");
                }
            }
        }
    }
    for w in watch {
        eprintln!(
            "v{w}: {:?} {:?}",
            mir.vregs[w as usize],
            alloc.of(mir::VReg(w))
        );
    }
    eprintln!(
        "{:#?}",
        mir.body
            .iter()
            .map(|n| match n {
                mir::Node::Block(o) => format!("block {}", o.len()),
                mir::Node::If { .. } => "if".into(),
                mir::Node::Loop { .. } => "loop".into(),
                mir::Node::Break { .. } => "break".into(),
            })
            .collect::<Vec<_>>()
    );
}
