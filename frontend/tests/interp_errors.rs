//! Reference interpreter: the step limit, argument checking and malformed
//! programs. Every failure must be an error value, never a panic.

mod interp_builder;

use ctm_frontend::data::{ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::interp::{self, RunOptions, RuntimeError};
use ctm_frontend::tast::{Builtin, ExprKind, LoopBound, ParamId};
use ctm_frontend::types::{ArrayType, OutputType, ScalarOrVector, StreamType, Type};
use ctm_frontend::value::Value;
use interp_builder::*;

fn limit(n: u64) -> RunOptions {
    RunOptions {
        max_steps_per_element: n,
    }
}

#[test]
fn a_runaway_element_hits_the_step_limit() {
    // if index().x == 2 && index().y == 1 { loop {} } r = 1;
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let at = |x: f32, y: f32| {
        bin(
            ctm_frontend::tast::BinaryOp::And,
            eq(swz(index(), "x"), f(x)),
            eq(swz(index(), "y"), f(y)),
        )
    };
    let kernel = kb.build(vec![if_(at(2.0, 1.0), vec![loop_(vec![])]), out(r, f(1.0))]);
    let p = program(vec![], vec![kernel], vec![]);
    let err = run_with(&p, (4, 3), vec![ParamData::Output], &limit(1000)).unwrap_err();
    assert_eq!(
        err,
        RuntimeError::StepLimit {
            i: 2,
            j: 1,
            limit: 1000
        }
    );
}

#[test]
fn the_earliest_runaway_element_is_reported() {
    // Elements with j >= 100 and (i + j) % 97 == 50 loop forever; the first
    // in row-major order is j = 100, i = 47 (147 = 97 + 50).
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let sum = add(swz(index(), "x"), swz(index(), "y"));
    let runaway = bin(
        ctm_frontend::tast::BinaryOp::And,
        ge(swz(index(), "y"), f(100.0)),
        eq(rem(sum, f(97.0)), f(50.0)),
    );
    let kernel = kb.build(vec![if_(runaway, vec![loop_(vec![])]), out(r, f(1.0))]);
    let p = program(vec![], vec![kernel], vec![]);
    for _ in 0..3 {
        let err = run_with(&p, (300, 300), vec![ParamData::Output], &limit(200)).unwrap_err();
        assert_eq!(
            err,
            RuntimeError::StepLimit {
                i: 47,
                j: 100,
                limit: 200
            }
        );
    }
}

#[test]
fn steps_count_statements_and_iterations() {
    // let s = 0; for k in 0..10 { s = s + 1; } r = s;
    // = 1 (let) + 1 (for) + 10 iterations * (1 + 1 statement) + 1 (out) = 23.
    // fn f() { let a = 1; let b = 2; a + b } called from `let t = f();`
    // adds 1 (let t) + 1 (the call) + 2 (f's statements) = 4 more: 27 in
    // all. (A call is a step: issue 13.)
    let mut fb = FunctionBuilder::new("f", Type::F32);
    let fa = fb.var("a", Type::F32);
    let fbv = fb.var("b", Type::F32);
    let fun = fb.build(valued(
        vec![let_(fa, f(1.0)), let_(fbv, f(2.0))],
        add(fa.get(), fbv.get()),
    ));
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let s = kb.var("s", Type::F32);
    let k = kb.var("k", Type::I32);
    let t = kb.var("t", Type::F32);
    let kernel = kb.build(vec![
        let_(s, f(0.0)),
        for_(
            k,
            LoopBound::Const(0),
            LoopBound::Const(10),
            vec![add_assign(s, f(1.0))],
        ),
        let_(t, call(0, vec![], Type::F32)),
        out(r, add(s.get(), t.get())),
    ]);
    let p = program(vec![fun], vec![kernel], vec![]);
    let ok = run_with(&p, (2, 1), vec![ParamData::Output], &limit(27)).unwrap();
    assert_eq!(output(&ok, "r"), &[13.0, 13.0]);
    let err = run_with(&p, (2, 1), vec![ParamData::Output], &limit(26)).unwrap_err();
    assert_eq!(
        err,
        RuntimeError::StepLimit {
            i: 0,
            j: 0,
            limit: 26
        }
    );
}

#[test]
fn while_steps_count_iterations_not_condition_checks() {
    // let k = 0; while k < 3 { k += 1 } -> 1 + 1 + 3 * 2 = 8 steps.
    let mut kb = KernelBuilder::new("k");
    let k = kb.var("k", Type::I32);
    let kernel = kb.build(vec![
        let_(k, i(0)),
        while_(lt(k.get(), i(3)), vec![add_assign(k, i(1))]),
    ]);
    let p = program(vec![], vec![kernel], vec![]);
    assert!(run_with(&p, (1, 1), vec![], &limit(8)).is_ok());
    assert!(run_with(&p, (1, 1), vec![], &limit(7)).is_err());
}

fn bad_args_kernel() -> ctm_frontend::tast::Program {
    // kernel k(a: f32, v: vec3, n: i32, m: mat4, arr: [vec4; 2],
    //          x: In<f32>, c: In<unorm8x4>, r: Out<f32>, s: Scatter<f32>)
    let mut kb = KernelBuilder::new("k");
    kb.uniform("a", Type::F32);
    kb.uniform("v", Type::Vec3);
    kb.uniform("n", Type::I32);
    kb.uniform("m", Type::Mat4);
    kb.uniform(
        "arr",
        Type::Array(ArrayType {
            elem: ScalarOrVector::Vec4,
            len: 2,
        }),
    );
    kb.input("x", StreamType::F32);
    kb.input("c", StreamType::Unorm8x4);
    let r = kb.output("r", OutputType::F32);
    kb.scatter("s");
    let kernel = kb.build(vec![out(r, f(1.0))]);
    program(vec![], vec![kernel], vec![])
}

fn good_args() -> Vec<ParamData> {
    vec![
        value(Value::f32(1.0)),
        value(Value::floats(&[1.0, 2.0, 3.0])),
        value(Value::I32(4)),
        ParamData::Uniform(UniformValue::Mat4([0.0; 16])),
        ParamData::Uniform(UniformValue::Array(vec![
            Value::floats(&[0.0; 4]),
            Value::floats(&[1.0; 4]),
        ])),
        stream(floats(2, 2, 1, vec![0.0; 4])),
        stream(StreamData {
            width: 1,
            height: 1,
            channels: 4,
            buffer: StreamBuffer::U8(vec![1, 2, 3, 4]),
        }),
        ParamData::Output,
        ParamData::Output,
    ]
}

#[test]
fn arguments_that_fit_are_accepted() {
    let p = bad_args_kernel();
    let run = run(&p, (2, 2), good_args()).unwrap();
    assert_eq!(output(&run, "r"), &[1.0; 4]);
    assert_eq!(output(&run, "s"), &[0.0; 4]);
}

#[test]
fn bad_arguments_name_the_parameter() {
    let p = bad_args_kernel();
    let with = |k: usize, data: ParamData| {
        let mut args = good_args();
        args[k] = data;
        args
    };
    let cases: Vec<(&str, Vec<ParamData>)> = vec![
        ("9 parameters, 8 arguments", good_args()[..8].to_vec()),
        ("`a`", with(0, value(Value::I32(1)))),
        ("`a`", with(0, stream(floats(1, 1, 1, vec![0.0])))),
        ("`v`", with(1, value(Value::floats(&[1.0, 2.0])))),
        (
            "`v`",
            with(
                1,
                value(Value::Float {
                    lanes: [0.0; 4],
                    width: 7,
                }),
            ),
        ),
        ("`n`", with(2, value(Value::Bool(true)))),
        ("`m`", with(3, value(Value::f32(1.0)))),
        (
            "`arr`",
            with(
                4,
                ParamData::Uniform(UniformValue::Array(vec![Value::floats(&[0.0; 4])])),
            ),
        ),
        (
            "`arr`",
            with(
                4,
                ParamData::Uniform(UniformValue::Array(vec![
                    Value::floats(&[0.0; 4]),
                    Value::f32(1.0),
                ])),
            ),
        ),
        ("`x`", with(5, stream(floats(2, 2, 2, vec![0.0; 8])))),
        ("`x`", with(5, stream(floats(2, 2, 1, vec![0.0; 3])))),
        ("`x`", with(5, stream(floats(0, 2, 1, vec![])))),
        (
            "`x`",
            with(
                5,
                stream(StreamData {
                    width: 2,
                    height: 2,
                    channels: 1,
                    buffer: StreamBuffer::U16(vec![0; 4]),
                }),
            ),
        ),
        ("`c`", with(6, stream(floats(1, 1, 4, vec![0.0; 4])))),
        ("`r`", with(7, value(Value::f32(0.0)))),
        ("`s`", with(8, stream(floats(1, 1, 1, vec![0.0])))),
    ];
    for (needle, args) in cases {
        match run(&p, (2, 2), args) {
            Err(RuntimeError::BadArguments(message)) => {
                assert!(message.contains(needle), "`{message}` lacks {needle}");
            }
            other => panic!("expected bad arguments naming {needle}, got {other:?}"),
        }
    }
}

#[test]
fn a_domain_too_large_to_address_is_rejected() {
    let mut kb = KernelBuilder::new("k");
    kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![]);
    let err = run_kernel(vec![], kernel, (usize::MAX, 2), vec![ParamData::Output]).unwrap_err();
    assert!(matches!(err, RuntimeError::BadArguments(m) if m.contains("too large")));
}

fn assert_invalid(p: &ctm_frontend::tast::Program, needle: &str) {
    match run(p, (1, 1), vec![ParamData::Output]) {
        Err(RuntimeError::InvalidProgram(message)) => {
            assert!(message.contains(needle), "`{message}` lacks `{needle}`");
        }
        other => panic!("expected an invalid program ({needle}), got {other:?}"),
    }
}

#[test]
fn malformed_programs_are_errors_not_panics() {
    let one_kernel = |stmts| {
        let mut kb = KernelBuilder::new("k");
        kb.output("r", OutputType::F32);
        kb.var("only", Type::F32);
        program(vec![], vec![kb.build(stmts)], vec![])
    };
    let r = Param {
        id: ParamId(0),
        ty: Type::F32,
    };
    let ghost = Var {
        id: ctm_frontend::tast::LocalId(5),
        ty: Type::F32,
    };
    assert_invalid(
        &one_kernel(vec![out(r, ghost.get())]),
        "local l5 out of range",
    );
    assert_invalid(&one_kernel(vec![brk()]), "outside a loop");
    assert_invalid(
        &one_kernel(vec![out(r, input(r))]),
        "used as an input stream",
    );
    let far = Param {
        id: ParamId(9),
        ty: Type::F32,
    };
    assert_invalid(&one_kernel(vec![out(far, f(1.0))]), "p9 out of range");
    assert_invalid(
        &one_kernel(vec![out(r, builtin(Builtin::Sqrt, vec![]))]),
        "`sqrt` takes 1 arguments, got 0",
    );
    assert_invalid(
        &one_kernel(vec![out(r, call(3, vec![], Type::F32))]),
        "unknown function",
    );
    let bad_literal = expr(
        ExprKind::Literal(Value::Float {
            lanes: [0.0; 4],
            width: 9,
        }),
        Type::F32,
    );
    assert_invalid(&one_kernel(vec![out(r, bad_literal)]), "literal");

    // fn f(x) -> f32 { g(x) }  fn g(x) -> f32 { f(x) }
    let mut fb = FunctionBuilder::new("f", Type::F32);
    let fx = fb.param("x", Type::F32);
    let f_fn = fb.build(valued(vec![], call(1, vec![fx.get()], Type::F32)));
    let mut gb = FunctionBuilder::new("g", Type::F32);
    let gx = gb.param("x", Type::F32);
    let g_fn = gb.build(valued(vec![], call(0, vec![gx.get()], Type::F32)));
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![out(r, call(0, vec![f(1.0)], Type::F32))]);
    assert_invalid(
        &program(vec![f_fn, g_fn], vec![kernel], vec![]),
        "recursive",
    );

    // A helper that reads a kernel parameter.
    let mut hb = FunctionBuilder::new("h", Type::F32);
    hb.param("x", Type::F32);
    let h = hb.build(valued(vec![], uniform(r)));
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![out(r, call(0, vec![f(1.0)], Type::F32))]);
    assert_invalid(
        &program(vec![h], vec![kernel], vec![]),
        "outside a kernel body",
    );
}

/// Runs `f` on a thread with a large stack (deep expression trees need one
/// to be built and dropped).
fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// `((x + 1) + 1) ... + 1`, `n` additions deep.
fn deep_sum(n: usize) -> ctm_frontend::tast::Program {
    let mut kb = KernelBuilder::new("k");
    let x = kb.input("x", StreamType::F32);
    let r = kb.output("r", OutputType::F32);
    let mut e = input(x);
    for _ in 0..n {
        e = add(e, f(1.0));
    }
    program(vec![], vec![kb.build(vec![out(r, e)])], vec![])
}

#[test]
fn deeply_nested_programs_run_on_a_large_stack() {
    with_big_stack(|| {
        let p = deep_sum(5000);
        let run = run(
            &p,
            (3, 1),
            vec![
                stream(floats(3, 1, 1, vec![0.0, 1.0, -5000.0])),
                ParamData::Output,
            ],
        )
        .unwrap();
        assert_eq!(output(&run, "r"), &[5000.0, 5001.0, 0.0]);
        assert_eq!(run.stats.by_kind["add"], 15000);
    });
}

/// `f_k(x) = { let t = x; if t > -1 { f_{k-1}(t) + 1 } else { t } }`,
/// `f_0(x) = { let t = x; t }`, and `r = f_{n-1}(x)`: calls nested `n` deep.
fn deep_call_chain(n: usize) -> ctm_frontend::tast::Program {
    let mut functions = Vec::new();
    for k in 0..n {
        let mut fb = FunctionBuilder::new(&format!("f{k}"), Type::F32);
        let x = fb.param("x", Type::F32);
        let t = fb.var("t", Type::F32);
        let inner = if k == 0 {
            t.get()
        } else {
            add(call(k as u32 - 1, vec![t.get()], Type::F32), f(1.0))
        };
        functions.push(fb.build(valued(
            vec![let_(t, x.get())],
            if_expr(
                gt(t.get(), f(-1.0)),
                valued(vec![], inner),
                valued(vec![], t.get()),
            ),
        )));
    }
    let mut kb = KernelBuilder::new("k");
    let x = kb.input("x", StreamType::F32);
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![out(r, call(n as u32 - 1, vec![input(x)], Type::F32))]);
    program(functions, vec![kernel], vec![])
}

#[test]
fn deep_call_chains_run_on_a_large_stack() {
    // Each level adds 1 while the argument stays above -1.
    for n in [30, 400] {
        let p = deep_call_chain(n);
        let run = run(
            &p,
            (2, 1),
            vec![stream(floats(2, 1, 1, vec![0.0, -7.0])), ParamData::Output],
        )
        .unwrap();
        assert_eq!(output(&run, "r"), &[(n - 1) as f32, -7.0], "n = {n}");
    }
}

#[test]
fn nesting_beyond_the_maximum_is_an_error() {
    with_big_stack(|| {
        let p = deep_sum(interp::MAX_NESTING + 10);
        let err = run(
            &p,
            (1, 1),
            vec![stream(floats(1, 1, 1, vec![0.0])), ParamData::Output],
        )
        .unwrap_err();
        assert!(matches!(err, RuntimeError::InvalidProgram(m) if m.contains("nesting deeper")));
    });
}

#[test]
fn reductions_reject_kernel_only_constructs() {
    let r = reduction("r", Type::F32, |a, _| valued(vec![discard()], a.get()));
    let p = program(vec![], vec![], vec![r]);
    let err = interp::run_reduction(
        &p,
        &p.reductions[0],
        &floats(2, 1, 1, vec![1.0, 2.0]),
        &RunOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidProgram(m) if m.contains("`discard` in a reduction"))
    );

    let r = reduction("r", Type::Vec2, |_, _| valued(vec![], index()));
    let p = program(vec![], vec![], vec![r]);
    let err = interp::run_reduction(
        &p,
        &p.reductions[0],
        &floats(2, 1, 2, vec![1.0; 4]),
        &RunOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, RuntimeError::InvalidProgram(m) if m.contains("index in a reduction")));
}
