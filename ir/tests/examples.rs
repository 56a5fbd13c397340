//! Differential tests on the examples: every example kernel lowers to IR
//! that verifies, and the IR interpreter agrees bit for bit with the
//! reference interpreter, before optimisation and after every pass at
//! every level. Reductions run their pass kernels until one element is
//! left and must match the reference's reduction.

mod common;

use common::{assert_same, compile_example, example_paths, random_args, random_stream};
use ctm_frontend::data::StreamData;
use ctm_frontend::interp::{RunOptions, run_kernel, run_reduction};
use ctm_frontend::types::StreamType;
use ctm_ir::lower::{lower_kernel, lower_reduction_pass, pass_layout};
use ctm_ir::passes::{OptLevel, Options, VerifyEach, optimize};

#[test]
fn every_example_kernel_agrees_with_the_reference_at_every_level() {
    let mut checked = 0;
    for path in example_paths() {
        let program = compile_example(&path);
        for kernel in &program.kernels {
            for seed in 0..3u64 {
                let args = random_args(kernel, (13, 7), seed);
                let want = run_kernel(&program, kernel, &args, &RunOptions::default())
                    .unwrap_or_else(|e| panic!("{}: reference failed: {e}", path.display()));
                for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
                    let mut m = lower_kernel(&program, kernel);
                    ctm_ir::verify::check(&m, "lowering").unwrap_or_else(|e| {
                        panic!("{}: {e}\n{}", path.display(), ctm_ir::print::to_text(&m))
                    });
                    let mut options = Options::new(level);
                    options.verify_each = VerifyEach::Yes;
                    optimize(&mut m, &options)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let got = ctm_ir::interp::run(&m, &args, &RunOptions::default())
                        .unwrap_or_else(|e| {
                            panic!("{}: IR interpreter failed: {e}", path.display())
                        });
                    assert_same(
                        &got,
                        &want,
                        &format!("{} {} seed {seed} {level:?}", path.display(), kernel.name),
                        &m,
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} example kernels");
}

#[test]
fn reductions_agree_with_the_reference() {
    let mut checked = 0;
    for path in example_paths() {
        let program = compile_example(&path);
        for red in &program.reductions {
            let channels = red.ty.float_width().unwrap_or(1) as usize;
            let st = match channels {
                1 => StreamType::F32,
                2 => StreamType::Vec2,
                _ => StreamType::Vec4,
            };
            for (w, h, seed) in [
                (1, 1, 0),
                (7, 1, 1),
                (1, 9, 2),
                (5, 3, 3),
                (16, 16, 4),
                (33, 17, 5),
            ] {
                let input = random_stream(w, h, channels, seed);
                let want = run_reduction(&program, red, &input, &RunOptions::default())
                    .expect("reference");
                for level in [OptLevel::O0, OptLevel::O2] {
                    let mut m = lower_reduction_pass(&program, red, st);
                    let mut options = Options::new(level);
                    options.verify_each = VerifyEach::Yes;
                    optimize(&mut m, &options).expect("optimise");
                    let mut cur: StreamData = input.clone();
                    while let Some(layout) = pass_layout(cur.width, cur.height) {
                        // An unguarded `+`/`*` pass reads its input padded
                        // with the identity, as the loader gives it.
                        if let Some(padded) =
                            m.input_padding.and_then(|v| layout.pad_input(&cur, v))
                        {
                            cur = padded;
                        }
                        let params = vec![
                            uniform4(layout.uniforms[0]),
                            uniform4(layout.uniforms[1]),
                            uniform4(layout.uniforms[2]),
                            ctm_frontend::data::ParamData::Input(cur.clone()),
                            ctm_frontend::data::ParamData::Output,
                        ];
                        let args = ctm_frontend::data::KernelArgs {
                            domain: layout.domain,
                            params,
                        };
                        let run =
                            ctm_ir::interp::run(&m, &args, &RunOptions::default()).expect("pass");
                        cur = run.outputs[0].data.clone();
                    }
                    let got = cur.read(0, 0);
                    let want_lanes = want.value.lanes();
                    for c in 0..channels {
                        assert_eq!(
                            got[c].to_bits(),
                            want_lanes[c].to_bits(),
                            "{} {}x{} {level:?}: lane {c}: {} vs {}",
                            red.name,
                            w,
                            h,
                            got[c],
                            want_lanes[c]
                        );
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 2);
}

fn uniform4(v: [f32; 4]) -> ctm_frontend::data::ParamData {
    ctm_frontend::data::ParamData::Uniform(ctm_frontend::data::UniformValue::Value(
        ctm_frontend::value::Value::floats(&v),
    ))
}
