//! The X1K launch path (`ctm::target::x1k`): a hand-assembled program with its
//! bindings goes through the ELF writer, the device's loader, the command
//! buffer and the simulated processors, and its outputs come back.

use ctm::target::x1k::launch::{launch, program_image};
use ctm::target::{Launch, LaunchError, LaunchValue};
use ctm_backend_x1k::Program;
use ctm_backend_x1k::abi::{
    Bindings, InputBinding, IntConstBinding, IntSource, OutputBinding, UniformBinding,
};
use ctm_backend_x1k::isa::parse_program;
use ctm_frontend::data::{StreamBuffer, StreamData, UniformValue};
use ctm_frontend::value::Value;
use ctm_sim::x1k::dpp::DppOptions;
use std::collections::HashMap;

fn stream(w: usize, h: usize, f: impl Fn(usize) -> f32) -> StreamData {
    StreamData {
        width: w,
        height: h,
        channels: 1,
        buffer: StreamBuffer::F32((0..w * h).map(f).collect()),
    }
}

/// r = a * x + y, written by hand: two unscaled lookups at r0 = (i, j), the
/// second acquiring the semaphore, and one OUT that waits for it.
fn saxpy() -> Program {
    let insts = parse_program(
        "tex r1.r = ld(t0, r0.rgaa) unscaled
         tex r2.r = ld(t1, r0.rgaa) acquire sem_wait unscaled
         out o0.r = mad(r1.rrr, c0.rrr, r2.rrr) ; _ ; sem_wait",
    )
    .expect("assembles");
    Program {
        insts,
        us_config: 0,
        us_pixsize: 2,
        us_fc_ctrl: 0,
        bindings: Bindings {
            kernel: "saxpy".into(),
            inputs: vec![
                InputBinding {
                    param: "x".into(),
                    input: 0,
                    format: "f32".into(),
                },
                InputBinding {
                    param: "y".into(),
                    input: 1,
                    format: "f32".into(),
                },
            ],
            outputs: vec![OutputBinding {
                param: "r".into(),
                output: 0,
                format: "f32".into(),
            }],
            uniforms: vec![UniformBinding {
                param: "a".into(),
                ty: "f32".into(),
                float_constant: 0,
            }],
            ..Bindings::default()
        },
    }
}

#[test]
fn a_hand_written_saxpy_runs_through_the_device() {
    let program = saxpy();
    ctm_backend_x1k::validate::validate(&program).expect("the program obeys the hardware rules");
    let (w, h) = (7, 5);
    let x = stream(w, h, |k| k as f32);
    let y = stream(w, h, |k| 100.0 - k as f32 * 0.5);
    let a = UniformValue::Value(Value::f32(2.5));
    let values = HashMap::from([
        ("x".to_string(), LaunchValue::Stream(&x)),
        ("y".to_string(), LaunchValue::Stream(&y)),
        ("a".to_string(), LaunchValue::Uniform(&a)),
    ]);
    let image = program_image(&program).expect("ELF round trip");
    let run = launch(
        &program,
        image,
        &Launch {
            domain: (w, h),
            values,
        },
        &DppOptions::default(),
    )
    .expect("runs");
    let r = run.outputs[0].1.as_f32().expect("f32");
    assert_eq!(r.len(), w * h);
    for (k, v) in r.iter().enumerate() {
        // 2.5 * k + (100 - k / 2) = 100 + 2k, exact in f32.
        assert_eq!(*v, 100.0 + 2.0 * k as f32, "element {k}");
    }
    assert_eq!(run.record.stats.elements, (w * h) as u64);
    assert!(run.record.stats.cycles > 0);
    let (total, active) = run.perf.expect("performance counters");
    assert!(total >= active && active > 0, "{total} {active}");
}

#[test]
fn loop_bounds_outside_the_hardware_counter_are_refused() {
    let mut program = saxpy();
    program.bindings.int_constants = vec![IntConstBinding {
        int_constant: 0,
        count: IntSource::UniformRange(
            Box::new(IntSource::Const(0)),
            Box::new(IntSource::Uniform("n".into())),
        ),
        init: IntSource::Const(0),
        step: 1,
    }];
    let x = stream(2, 1, |k| k as f32);
    let a = UniformValue::Value(Value::f32(1.0));
    let n = UniformValue::Value(Value::I32(300));
    let values = HashMap::from([
        ("x".to_string(), LaunchValue::Stream(&x)),
        ("y".to_string(), LaunchValue::Stream(&x)),
        ("a".to_string(), LaunchValue::Uniform(&a)),
        ("n".to_string(), LaunchValue::Uniform(&n)),
    ]);
    let image = program_image(&program).expect("image");
    let err = launch(
        &program,
        image,
        &Launch {
            domain: (2, 1),
            values,
        },
        &DppOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(&err, LaunchError::Unfit(m) if m.contains("0..255")),
        "{err}"
    );
}

#[test]
fn a_domain_beyond_the_ctm_limit_is_refused() {
    let program = saxpy();
    let x = stream(1, 1, |_| 0.0);
    let a = UniformValue::Value(Value::f32(1.0));
    let values = HashMap::from([
        ("x".to_string(), LaunchValue::Stream(&x)),
        ("y".to_string(), LaunchValue::Stream(&x)),
        ("a".to_string(), LaunchValue::Uniform(&a)),
    ]);
    let image = program_image(&program).expect("image");
    let err = launch(
        &program,
        image,
        &Launch {
            domain: (5000, 1),
            values,
        },
        &DppOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("4096"), "{err}");
}

/// A REP whose loop constant starts below zero (the code generator gives a
/// `for k in -2..1` loop that never reads aL its start as is): the start is
/// packed as 8-bit two's complement (`docs/abi-x1k.md` §3), not refused.
#[test]
fn a_negative_loop_start_is_packed_not_refused() {
    let insts = parse_program(
        "fc rep 3 int=i0 sem_wait
         alu r1.r = mad(s0.rrr, s1.111, s1.rrr) ; _ ; s0=r1 s1=1.0
         fc endrep 1 func=always jump_any int=i0 sem_wait
         out o0.r = max(s0.rrr, s0.rrr) ; _ ; s0=r1 sem_wait",
    )
    .expect("assembles");
    let program = Program {
        insts,
        us_config: 0,
        us_pixsize: 1,
        us_fc_ctrl: 1 << 31,
        bindings: Bindings {
            kernel: "count".into(),
            outputs: vec![OutputBinding {
                param: "r".into(),
                output: 0,
                format: "f32".into(),
            }],
            int_constants: vec![IntConstBinding {
                int_constant: 0,
                count: IntSource::Const(3),
                init: IntSource::Const(-2),
                step: 1,
            }],
            ..Bindings::default()
        },
    };
    ctm_backend_x1k::validate::validate(&program).expect("valid");
    let image = program_image(&program).expect("image");
    let run = launch(
        &program,
        image,
        &Launch {
            domain: (4, 2),
            values: HashMap::new(),
        },
        &DppOptions::default(),
    )
    .expect("launches");
    assert_eq!(run.outputs[0].1.as_f32().expect("f32"), [3.0; 8]);
}
