//! Every example compiles for x1k (or gives its documented diagnostic), and
//! the programs have the properties the hardware requires and the code
//! quality we claim. Skips (saying so) while the parser is a stub on main.

use ctm_backend_x1k::codegen::compile_kernel;
use ctm_backend_x1k::isa::{self, AluWrites, FcOp, Inst, TexOp};
use ctm_backend_x1k::stats::static_metrics as stats;
use ctm_frontend::{CheckOptions, Code, Target, compile};
use ctm_ir::passes::OptLevel;
use std::path::Path;

fn example(name: &str) -> Option<ctm_backend_x1k::Program> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/{name}.ck"));
    let src = std::fs::read_to_string(path).expect("example");
    let c = compile(
        &src,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = c.program?;
    let k = program.kernels.first()?;
    Some(compile_kernel(&program, k, OptLevel::O2, &Default::default()).expect("compiles"))
}

fn parser_ready() -> bool {
    let c = compile(
        "kernel k(r: Out<f32>) { r = 1.0; }",
        &CheckOptions {
            target: Target::X1k,
        },
    );
    if c.program.is_none() {
        eprintln!("skipped: the parser is a stub on this branch");
    }
    c.program.is_some()
}

const EXAMPLES: &[&str] = &[
    "black_scholes",
    "blend",
    "cbrt",
    "collatz",
    "convolution",
    "grayscale",
    "mandelbrot",
    "matmul",
    "nbody",
    "normals",
    "polynomial",
    "ripple",
    "saxpy",
    "threshold",
    "tonemap",
    "transform",
    "transpose",
];

#[test]
fn every_example_compiles_and_ends_with_a_waiting_out() {
    if !parser_ready() {
        return;
    }
    for name in EXAMPLES {
        let p = example(name).unwrap_or_else(|| panic!("{name} does not check"));
        assert!(p.insts.len() <= 512, "{name}");
        match p.insts.last() {
            Some(Inst::Alu(a)) => {
                assert!(
                    matches!(a.writes, AluWrites::Output(_)),
                    "{name}: last is not OUT"
                );
                assert!(a.sem_wait, "{name}: last OUT does not wait");
            }
            other => panic!("{name}: last instruction {other:?}"),
        }
        // Encodes and decodes to the same program.
        let words = isa::encode_program(&p.insts);
        assert_eq!(
            isa::decode_program(&words).expect("decodes"),
            p.insts,
            "{name}"
        );
        // Every jump lands inside the program; acquires wait.
        for i in &p.insts {
            match i {
                Inst::Fc(fc) => assert!((fc.jump_addr.get() as usize) <= p.insts.len(), "{name}"),
                Inst::Tex(t) => assert!(!t.sem_acquire || t.sem_wait, "{name}"),
                Inst::Alu(_) => {}
            }
        }
        assert!(p.us_pixsize < 128);
    }
}

#[test]
fn hash_needs_native_integers() {
    if !parser_ready() {
        return;
    }
    let src =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hash.ck"))
            .expect("hash");
    let c = compile(
        &src,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    assert!(c.program.is_none());
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.code == Code::X1kIntegerOperator)
    );
}

#[test]
fn saxpy_is_two_fetches_and_one_out() {
    if !parser_ready() {
        return;
    }
    let p = example("saxpy").expect("saxpy");
    let s = stats(&p);
    assert_eq!(
        (s.instructions, s.tex, s.alu),
        (3, 2, 1),
        "{}",
        isa::format_program(&p.insts)
    );
    assert_eq!(p.us_fc_ctrl, 0, "no flow control: partial mode");
}

#[test]
fn loops_use_rep_and_a_conditional_break_in_full_mode() {
    if !parser_ready() {
        return;
    }
    let p = example("mandelbrot").expect("mandelbrot");
    let ops: Vec<FcOp> = p
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Fc(f) => Some(f.op),
            _ => None,
        })
        .collect();
    assert!(
        ops.contains(&FcOp::Rep) && ops.contains(&FcOp::EndRep) && ops.contains(&FcOp::BreakRep)
    );
    assert_eq!(p.us_fc_ctrl, 1 << 31);
    assert_eq!(p.bindings.int_constants.len(), 1);
    // The 64-iteration counter is the hardware count: no counter register.
    assert_eq!(
        p.bindings.int_constants[0].count,
        ctm_backend_x1k::abi::IntSource::Const(64)
    );
}

#[test]
fn discard_kills_and_scatter_is_uncached() {
    if !parser_ready() {
        return;
    }
    let p = example("threshold").expect("threshold");
    assert!(
        p.insts
            .iter()
            .any(|i| matches!(i, Inst::Tex(t) if t.op == TexOp::TexKill))
    );
    let p = example("transpose").expect("transpose");
    assert_eq!(p.us_config & 1, 1);
    assert_eq!(p.bindings.scatter.as_deref(), Some("dst"));
}

#[test]
fn vector_and_scalar_work_pairs() {
    if !parser_ready() {
        return;
    }
    let p = example("black_scholes").expect("black_scholes");
    let s = stats(&p);
    assert!(s.coissued * 2 > s.alu, "{s:?}");
}

#[test]
fn compile_time_is_about_a_millisecond() {
    if !parser_ready() {
        return;
    }
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/black_scholes.ck"),
    )
    .expect("ex");
    let program = compile(
        &src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .expect("checks");
    let k = &program.kernels[0];
    let t = std::time::Instant::now();
    let n = 20;
    for _ in 0..n {
        compile_kernel(&program, k, OptLevel::O2, &Default::default()).expect("compiles");
    }
    eprintln!(
        "black_scholes: {:?} per compile (lower + optimise + codegen)",
        t.elapsed() / n
    );
}
