//! Shared by the code generator's tests: compiling the examples (kernels,
//! and reductions as their pass kernel) for the R700.

#![allow(dead_code)]

use ctm_backend_r700::Executable;
use ctm_backend_r700::codegen::{CodegenError, compile, optimize_for_r700};
use ctm_frontend::types::StreamType;
use ctm_frontend::{CheckOptions, Target};
use ctm_ir::passes::OptLevel;
use std::path::Path;

/// Every example.
pub const EXAMPLES: &[&str] = &[
    "black_scholes",
    "blend",
    "bounds",
    "cbrt",
    "collatz",
    "convolution",
    "grayscale",
    "hash",
    "mandelbrot",
    "matmul",
    "nbody",
    "normals",
    "polynomial",
    "ripple",
    "saxpy",
    "sum",
    "threshold",
    "tonemap",
    "transform",
    "transpose",
];

/// The checked program of `examples/{name}.ck` for the R700.
pub fn example_program(name: &str) -> ctm_frontend::tast::Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/{name}.ck"));
    let src = std::fs::read_to_string(path).expect("example");
    checked(&src).unwrap_or_else(|| panic!("{name} does not check"))
}

/// The checked program of `src` for the R700.
pub fn checked(src: &str) -> Option<ctm_frontend::tast::Program> {
    ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::R700,
        },
    )
    .program
}

/// The optimised, verified IR of the first kernel (or the first
/// reduction's pass over an f32 stream) of `program`.
pub fn module(program: &ctm_frontend::tast::Program, level: OptLevel) -> ctm_ir::verify::Verified {
    let mut m = match program.kernels.first() {
        Some(k) => ctm_ir::lower::lower_kernel(program, k),
        None => {
            let r = &program.reductions[0];
            let input = match r.ty {
                ctm_frontend::types::Type::Vec2 => StreamType::Vec2,
                ctm_frontend::types::Type::Vec4 => StreamType::Vec4,
                _ => StreamType::F32,
            };
            ctm_ir::lower::lower_reduction_pass(program, r, input)
        }
    };
    optimize_for_r700(&mut m, level).expect("optimises");
    ctm_ir::verify::verify(m, "test").expect("verifies")
}

/// Compiles the first kernel (or reduction pass) of `program`.
pub fn compile_program(
    program: &ctm_frontend::tast::Program,
    level: OptLevel,
) -> Result<Executable, CodegenError> {
    compile(&module(program, level), &Default::default())
}

/// The compiled example at -O2.
pub fn example(name: &str) -> Executable {
    compile_program(&example_program(name), OptLevel::O2).unwrap_or_else(|e| panic!("{name}: {e}"))
}
