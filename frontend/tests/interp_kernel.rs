//! Reference interpreter: kernel semantics (spec §3–§7) on hand-built typed
//! programs. Every expected value is worked out by hand in the comments.

mod interp_builder;

use ctm_frontend::data::{ParamData, StreamBuffer, StreamData, UniformValue};
use ctm_frontend::tast::{BinaryOp, Builtin, LoopBound};
use ctm_frontend::types::{ArrayType, OutputType, ScalarOrVector, StreamType, Type};
use ctm_frontend::value::Value;
use interp_builder::*;

#[test]
fn broadcast_arithmetic_and_its_operation_counts() {
    // kernel k(a: f32, x: In<vec4>, r: Out<vec4>) { r = a * x + vec4(1, 2, 3, 4); }
    let mut k = KernelBuilder::new("k");
    let a = k.uniform("a", Type::F32);
    let x = k.input("x", StreamType::Vec4);
    let r = k.output("r", OutputType::Vec4);
    let kernel = k.build(vec![out(
        r,
        add(
            mul(splat(uniform(a), 4), input(x)),
            vecl(&[1.0, 2.0, 3.0, 4.0]),
        ),
    )]);
    let xs = floats(2, 1, 4, vec![1.0, 2.0, 3.0, 4.0, 0.5, -1.0, 8.0, 0.0]);
    let run = run_kernel(
        vec![],
        kernel,
        (2, 1),
        vec![value(Value::f32(3.0)), stream(xs), ParamData::Output],
    )
    .unwrap();
    // 3 * (1, 2, 3, 4) + (1, 2, 3, 4) and 3 * (0.5, -1, 8, 0) + (1, 2, 3, 4).
    assert_eq!(
        output(&run, "r"),
        &[4.0, 8.0, 12.0, 16.0, 2.5, -1.0, 27.0, 4.0]
    );
    assert_eq!(run.outputs.len(), 1);
    assert_eq!(run.outputs[0].data.channels, 4);
    assert_eq!(
        (run.outputs[0].data.width, run.outputs[0].data.height),
        (2, 1)
    );
    // Per element: uniform, splat, input, mul, add, output.
    assert_eq!(run.stats.elements, 2);
    assert_eq!(run.stats.discarded, 0);
    assert_eq!(run.stats.operations, 12);
    let kinds: Vec<(&str, u64)> = run.stats.by_kind.iter().map(|(k, n)| (*k, *n)).collect();
    assert_eq!(
        kinds,
        [
            ("add", 2),
            ("input", 2),
            ("mul", 2),
            ("output", 2),
            ("splat", 2),
            ("uniform", 2)
        ]
    );
}

#[test]
fn integer_operations_wrap_and_divide_by_zero_to_zero() {
    // r = vec4((MAX + 1) as f32, (7 / 0) as f32, (-7 % 2) as f32, (-8 >> 1) as f32)
    let mut k = KernelBuilder::new("k");
    let r = k.output("r", OutputType::Vec4);
    let as_f = |e| cast(e, Type::F32);
    let kernel = k.build(vec![out(
        r,
        construct(vec![
            as_f(add(i(i32::MAX), i(1))),
            as_f(bin(BinaryOp::Div, i(7), i(0))),
            as_f(rem(i(-7), i(2))),
            as_f(bin(BinaryOp::Shr, i(-8), i(1))),
        ]),
    )]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[-2147483648.0, 0.0, -1.0, -4.0]);
    assert_eq!(run.stats.by_kind["cast"], 4);
    assert_eq!(run.stats.by_kind["construct"], 1);
}

#[test]
fn swizzle_reads_and_writes() {
    // let mut v = vec4(1, 2, 3, 4); v.zx = v.xy * 10.0; let w: vec3 = v.wzy;
    // v = (20, 2, 10, 4); r = vec4(w, v.x) = (4, 10, 2, 20)
    let mut k = KernelBuilder::new("k");
    let r = k.output("r", OutputType::Vec4);
    let v = k.var("v", Type::Vec4);
    let w = k.var("w", Type::Vec3);
    let kernel = k.build(vec![
        let_(v, vecl(&[1.0, 2.0, 3.0, 4.0])),
        assign_lanes(v, "zx", mul(swz(v.get(), "xy"), splat(f(10.0), 2))),
        let_(w, swz(v.get(), "wzy")),
        out(r, construct(vec![w.get(), swz(v.get(), "x")])),
    ]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[4.0, 10.0, 2.0, 20.0]);
    assert_eq!(run.stats.by_kind["swizzle"], 3);
}

#[test]
fn helper_calls_return_early_and_keep_frames_apart() {
    // fn f(x: f32) -> f32 { if x < 0.0 { return -x * 100.0; } x + 1.0 }
    let mut fb = FunctionBuilder::new("f", Type::F32);
    let fx = fb.param("x", Type::F32);
    let f_fn = fb.build(valued(
        vec![if_(
            lt(fx.get(), f(0.0)),
            vec![ret_val(mul(neg(fx.get()), f(100.0)))],
        )],
        add(fx.get(), f(1.0)),
    ));
    // fn g(y: f32) -> f32 { let t = y * 2.0; f(t) + t }
    let mut gb = FunctionBuilder::new("g", Type::F32);
    let gy = gb.param("y", Type::F32);
    let gt = gb.var("t", Type::F32);
    let g_fn = gb.build(valued(
        vec![let_(gt, mul(gy.get(), f(2.0)))],
        add(call(0, vec![gt.get()], Type::F32), gt.get()),
    ));
    // kernel k(x: In<f32>, r: Out<f32>) { let k = 5.0; let u = 7.0; r = g(x) + k + u; }
    let mut k = KernelBuilder::new("k");
    let x = k.input("x", StreamType::F32);
    let r = k.output("r", OutputType::F32);
    let kv = k.var("k", Type::F32);
    let uv = k.var("u", Type::F32);
    let kernel = k.build(vec![
        let_(kv, f(5.0)),
        let_(uv, f(7.0)),
        out(
            r,
            add(add(call(1, vec![input(x)], Type::F32), kv.get()), uv.get()),
        ),
    ]);
    // x = -2: t = -4, f(-4) = 400, g = 396, + 12 = 408.
    // x = 3:  t = 6,  f(6) = 7,    g = 13,  + 12 = 25.
    let run = run_kernel(
        vec![f_fn, g_fn],
        kernel,
        (2, 1),
        vec![stream(floats(2, 1, 1, vec![-2.0, 3.0])), ParamData::Output],
    )
    .unwrap();
    assert_eq!(output(&run, "r"), &[408.0, 25.0]);
    assert_eq!(run.stats.by_kind["call"], 4);
}

#[test]
fn if_expressions_choose_one_block() {
    // r = if x > 5.0 { 1.0 } else if x > 1.0 { 2.0 } else { let t = 1.5; t * 2.0 }
    let mut k = KernelBuilder::new("k");
    let x = k.input("x", StreamType::F32);
    let r = k.output("r", OutputType::F32);
    let t = k.var("t", Type::F32);
    let inner = if_expr(
        gt(input(x), f(1.0)),
        valued(vec![], f(2.0)),
        valued(vec![let_(t, f(1.5))], mul(t.get(), f(2.0))),
    );
    let kernel = k.build(vec![out(
        r,
        if_expr(
            gt(input(x), f(5.0)),
            valued(vec![], f(1.0)),
            valued(vec![], inner),
        ),
    )]);
    let run = run_kernel(
        vec![],
        kernel,
        (3, 1),
        vec![
            stream(floats(3, 1, 1, vec![0.0, 2.0, 7.0])),
            ParamData::Output,
        ],
    )
    .unwrap();
    assert_eq!(output(&run, "r"), &[3.0, 2.0, 1.0]);
    // x = 0 takes the inner else (one mul), the others none.
    assert_eq!(run.stats.by_kind["mul"], 1);
    assert_eq!(run.stats.by_kind["gt"], 5);
}

#[test]
fn for_loops_with_constant_bounds() {
    // s = 0; for k in 2..6 { s += k as f32 }; for k in 5..5 { s += 100 }; for k in 6..2 { s += 100 }
    // for k in MAX-2..MAX { c += 1 }; r = vec2(s, c) = (14, 2)
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::Vec2);
    let s = kb.var("s", Type::F32);
    let c = kb.var("c", Type::F32);
    let k = kb.var("k", Type::I32);
    let kernel = kb.build(vec![
        let_(s, f(0.0)),
        let_(c, f(0.0)),
        for_(
            k,
            LoopBound::Const(2),
            LoopBound::Const(6),
            vec![add_assign(s, cast(k.get(), Type::F32))],
        ),
        for_(
            k,
            LoopBound::Const(5),
            LoopBound::Const(5),
            vec![add_assign(s, f(100.0))],
        ),
        for_(
            k,
            LoopBound::Const(6),
            LoopBound::Const(2),
            vec![add_assign(s, f(100.0))],
        ),
        for_(
            k,
            LoopBound::Const(i32::MAX - 2),
            LoopBound::Const(i32::MAX),
            vec![add_assign(c, f(1.0))],
        ),
        out(r, construct(vec![s.get(), c.get()])),
    ]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[14.0, 2.0]);
}

#[test]
fn for_loops_with_uniform_bounds() {
    // kernel k(n: i32, m: i32, r: Out<f32>) { s = 0; for k in n..m { s += k as f32 } r = s }
    let mut kb = KernelBuilder::new("k");
    let n = kb.uniform("n", Type::I32);
    let m = kb.uniform("m", Type::I32);
    let r = kb.output("r", OutputType::F32);
    let s = kb.var("s", Type::F32);
    let k = kb.var("k", Type::I32);
    let kernel = kb.build(vec![
        let_(s, f(0.0)),
        for_(
            k,
            LoopBound::Uniform(n.id),
            LoopBound::Uniform(m.id),
            vec![add_assign(s, cast(k.get(), Type::F32))],
        ),
        out(r, s.get()),
    ]);
    let p = program(vec![], vec![kernel], vec![]);
    for (lo, hi, expected) in [(3, 7, 18.0), (7, 3, 0.0), (-2, 2, -2.0), (0, 0, 0.0)] {
        let run = run(
            &p,
            (1, 1),
            vec![
                value(Value::I32(lo)),
                value(Value::I32(hi)),
                ParamData::Output,
            ],
        )
        .unwrap();
        assert_eq!(output(&run, "r"), &[expected], "{lo}..{hi}");
    }
}

#[test]
fn while_with_break_and_continue() {
    // k = 0; s = 0; while k < 10 { k += 1; if k % 2 == 0 { continue; } if k > 7 { break; } s += k }
    // Odd k up to 7 are summed: s = 16; the loop breaks at k = 9.
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::Vec2);
    let k = kb.var("k", Type::I32);
    let s = kb.var("s", Type::I32);
    let kernel = kb.build(vec![
        let_(k, i(0)),
        let_(s, i(0)),
        while_(
            lt(k.get(), i(10)),
            vec![
                add_assign(k, i(1)),
                if_(eq(rem(k.get(), i(2)), i(0)), vec![cont()]),
                if_(gt(k.get(), i(7)), vec![brk()]),
                add_assign(s, k.get()),
            ],
        ),
        out(
            r,
            construct(vec![cast(s.get(), Type::F32), cast(k.get(), Type::F32)]),
        ),
    ]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[16.0, 9.0]);
}

#[test]
fn loop_and_break_leave_only_the_innermost_loop() {
    // k = 0; loop { k += 1; if k >= 5 { break; } }
    // c = 0; for a in 0..3 { loop { c += 1; break; } c += 10 }   -> c = 33
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::Vec2);
    let k = kb.var("k", Type::F32);
    let c = kb.var("c", Type::F32);
    let a = kb.var("a", Type::I32);
    let kernel = kb.build(vec![
        let_(k, f(0.0)),
        loop_(vec![
            add_assign(k, f(1.0)),
            if_(ge(k.get(), f(5.0)), vec![brk()]),
        ]),
        let_(c, f(0.0)),
        for_(
            a,
            LoopBound::Const(0),
            LoopBound::Const(3),
            vec![
                loop_(vec![add_assign(c, f(1.0)), brk()]),
                add_assign(c, f(10.0)),
            ],
        ),
        out(r, construct(vec![k.get(), c.get()])),
    ]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[5.0, 33.0]);
}

#[test]
fn kernel_return_ends_the_element_keeping_outputs() {
    // r = 1; if index().x == 0 { return; } r = 2;
    // Also inside a loop: q = 0; loop { q += 1; if q >= 3 { return; } }  (never after)
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let q = kb.output("q", OutputType::F32);
    let n = kb.var("n", Type::F32);
    let kernel = kb.build(vec![
        out(r, f(1.0)),
        out(q, f(-1.0)),
        if_(eq(swz(index(), "x"), f(0.0)), vec![ret()]),
        out(r, f(2.0)),
        let_(n, f(0.0)),
        loop_(vec![
            add_assign(n, f(1.0)),
            out(q, n.get()),
            if_(ge(n.get(), f(3.0)), vec![ret()]),
        ]),
        out(q, f(99.0)),
    ]);
    let run = run_kernel(
        vec![],
        kernel,
        (3, 1),
        vec![ParamData::Output, ParamData::Output],
    )
    .unwrap();
    assert_eq!(output(&run, "r"), &[1.0, 2.0, 2.0]);
    assert_eq!(output(&run, "q"), &[-1.0, 3.0, 3.0]);
    assert_eq!(run.stats.discarded, 0);
}

#[test]
fn discard_drops_outputs_but_keeps_earlier_scatter_writes() {
    // kernel k(s: Scatter<f32>, r: Out<f32>) {
    //   s[index()] = 7; r = 5; if index().x == 1 { discard; } r = 6; s[index()] = 8; }
    let mut kb = KernelBuilder::new("k");
    let s = kb.scatter("s");
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![
        scatter(s, index(), f(7.0)),
        out(r, f(5.0)),
        if_(eq(swz(index(), "x"), f(1.0)), vec![discard()]),
        out(r, f(6.0)),
        scatter(s, index(), f(8.0)),
    ]);
    let run = run_kernel(
        vec![],
        kernel,
        (3, 1),
        vec![ParamData::Output, ParamData::Output],
    )
    .unwrap();
    assert_eq!(output(&run, "r"), &[6.0, 0.0, 6.0]);
    assert_eq!(output(&run, "s"), &[8.0, 7.0, 8.0]);
    assert_eq!(run.stats.elements, 3);
    assert_eq!(run.stats.discarded, 1);
    // Outputs come in parameter order.
    assert_eq!(run.outputs[0].name, "s");
    assert_eq!(run.outputs[1].name, "r");
}

#[test]
fn overlapping_scatter_writes_are_deterministic_last_wins() {
    // Every element: s[index()] = -1; s[(0,0)] = n; s[(1,0)] = n; s[(1,0)] = n + 0.5,
    // n = i + j * W its row-major number. The last element (n = W*H - 1)
    // wins both shared cells, and its second write wins (1, 0).
    let (w, h) = (300usize, 200usize);
    let mut kb = KernelBuilder::new("k");
    let s = kb.scatter("s");
    let n = kb.var("n", Type::F32);
    let kernel = kb.build(vec![
        let_(
            n,
            add(
                swz(index(), "x"),
                mul(swz(index(), "y"), swz(domain(), "x")),
            ),
        ),
        scatter(s, index(), f(-1.0)),
        scatter(s, vecl(&[0.0, 0.0]), n.get()),
        scatter(s, vecl(&[1.0, 0.0]), n.get()),
        scatter(s, vecl(&[1.0, 0.0]), add(n.get(), f(0.5))),
    ]);
    let p = program(vec![], vec![kernel], vec![]);
    let last = (w * h - 1) as f32;
    let first = run(&p, (w, h), vec![ParamData::Output]).unwrap();
    let s_out = output(&first, "s");
    assert_eq!(s_out[0], last);
    assert_eq!(s_out[1], last + 0.5);
    assert!(s_out[2..].iter().all(|&v| v == -1.0));
    for _ in 0..3 {
        assert_eq!(run(&p, (w, h), vec![ParamData::Output]).unwrap(), first);
    }
    // The same on a single thread.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let single = pool.install(|| run(&p, (w, h), vec![ParamData::Output]).unwrap());
    assert_eq!(single, first);
}

#[test]
fn scatter_outside_the_domain_is_dropped() {
    // Element (0, 0) of a 4x2 domain scatters to many positions; only
    // (3.99, 1.5) -> (3, 1) and (-denormal, 0) -> (0, 0) land.
    let tiny_neg = -f32::from_bits(1);
    let positions = [
        (-1.0, 0.0),
        (4.0, 0.0),
        (0.0, 2.0),
        (f32::NAN, 0.0),
        (0.0, f32::NAN),
        (f32::INFINITY, 0.0),
        (f32::NEG_INFINITY, 1.0),
        (-0.5, 1.0),
        (1e30, 0.0),
        (0.0, -1e30),
        (3.99, 1.5),
        (tiny_neg, 0.0),
    ];
    let mut kb = KernelBuilder::new("k");
    let s = kb.scatter("s");
    let mut writes = Vec::new();
    for (k, &(x, y)) in positions.iter().enumerate() {
        writes.push(scatter(s, vecl(&[x, y]), f(k as f32 + 1.0)));
    }
    let only_first = eq(swz(index(), "x"), f(0.0));
    let kernel = kb.build(vec![if_(
        bin(BinaryOp::And, only_first, eq(swz(index(), "y"), f(0.0))),
        writes,
    )]);
    let run = run_kernel(vec![], kernel, (4, 2), vec![ParamData::Output]).unwrap();
    // (3, 1) gets write 11, (0, 0) write 12.
    assert_eq!(
        output(&run, "s"),
        &[12.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 11.0]
    );
    assert_eq!(run.stats.by_kind["scatter"], 12);
}

#[test]
fn gather_rounds_down_and_clamps_to_the_stream() {
    // src is 3x2 with src(i, j) = 10 j + i; the domain is 10x1 and each
    // element gathers at its own position from `pos`.
    let src = floats(3, 2, 1, vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    let cases: [((f32, f32), f32); 10] = [
        ((1.7, 0.2), 1.0),
        ((2.0, 1.0), 12.0),
        ((-0.5, 0.0), 0.0),
        ((f32::NAN, 1.0), 10.0),
        ((f32::INFINITY, f32::NEG_INFINITY), 2.0),
        ((1e30, 5.0), 12.0),
        ((-f32::from_bits(1), 1.99), 10.0),
        ((f32::NEG_INFINITY, f32::NAN), 0.0),
        ((2.999, 0.999), 2.0),
        ((0.999, 1.0), 10.0),
    ];
    let pos: Vec<f32> = cases.iter().flat_map(|((x, y), _)| [*x, *y]).collect();
    let mut kb = KernelBuilder::new("k");
    let srcp = kb.input("src", StreamType::F32);
    let posp = kb.input("pos", StreamType::Vec2);
    let r = kb.output("r", OutputType::F32);
    let own = kb.output("own", OutputType::F32);
    let kernel = kb.build(vec![
        out(r, gather(srcp, input(posp))),
        out(own, input(srcp)),
    ]);
    let run = run_kernel(
        vec![],
        kernel,
        (10, 1),
        vec![
            stream(src),
            stream(floats(10, 1, 2, pos)),
            ParamData::Output,
            ParamData::Output,
        ],
    )
    .unwrap();
    let expected: Vec<f32> = cases.iter().map(|(_, v)| *v).collect();
    assert_eq!(output(&run, "r"), expected.as_slice());
    // Reading at the own position clamps too: i >= 3 reads column 2 of row 0.
    assert_eq!(
        output(&run, "own"),
        &[0.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    );
    assert_eq!(run.stats.by_kind["gather"], 10);
    assert_eq!(run.stats.by_kind["input"], 20);
}

#[test]
fn unorm8x4_and_u16_inputs_convert() {
    // kernel k(c: In<unorm8x4>, n: In<u16>, r: Out<vec4>, m: Out<f32>) { r = c; m = n + 0.5; }
    let mut kb = KernelBuilder::new("k");
    let c = kb.input("c", StreamType::Unorm8x4);
    let n = kb.input("n", StreamType::U16);
    let r = kb.output("r", OutputType::Vec4);
    let m = kb.output("m", OutputType::F32);
    let kernel = kb.build(vec![out(r, input(c)), out(m, add(input(n), f(0.5)))]);
    let bytes = StreamData {
        width: 2,
        height: 1,
        channels: 4,
        buffer: StreamBuffer::U8(vec![0, 255, 51, 128, 1, 2, 3, 4]),
    };
    let shorts = StreamData {
        width: 2,
        height: 1,
        channels: 1,
        buffer: StreamBuffer::U16(vec![65535, 1234]),
    };
    let run = run_kernel(
        vec![],
        kernel,
        (2, 1),
        vec![
            stream(bytes),
            stream(shorts),
            ParamData::Output,
            ParamData::Output,
        ],
    )
    .unwrap();
    let expected = [
        0.0,
        1.0,
        0.2,
        128.0 / 255.0,
        1.0 / 255.0,
        2.0 / 255.0,
        3.0 / 255.0,
        4.0 / 255.0,
    ];
    for (got, want) in output(&run, "r").iter().zip(expected) {
        assert!((got - want).abs() <= 1e-7, "{got} vs {want}");
    }
    assert_eq!(output(&run, "m"), &[65535.5, 1234.5]);
}

#[test]
fn uniform_array_indices_clamp() {
    // kernel k(arr: [f32; 3], v: [vec2; 2], x: In<f32>, r: Out<f32>, q: Out<vec2>) {
    //   r = arr[x as i32]; q = v[x as i32]; }
    let mut kb = KernelBuilder::new("k");
    let arr_ty = Type::Array(ArrayType {
        elem: ScalarOrVector::F32,
        len: 3,
    });
    let vec_ty = Type::Array(ArrayType {
        elem: ScalarOrVector::Vec2,
        len: 2,
    });
    let arr = kb.uniform("arr", arr_ty);
    let vs = kb.uniform("v", vec_ty);
    let x = kb.input("x", StreamType::F32);
    let r = kb.output("r", OutputType::F32);
    let q = kb.output("q", OutputType::Vec2);
    let idx = || cast(input(x), Type::I32);
    let kernel = kb.build(vec![
        out(r, element(arr, idx(), Type::F32)),
        out(q, element(vs, idx(), Type::Vec2)),
    ]);
    let xs = vec![-5.0, 0.0, 1.0, 2.0, 3.0, 99.0, -3e9, 3e9];
    let run = run_kernel(
        vec![],
        kernel,
        (8, 1),
        vec![
            ParamData::Uniform(UniformValue::Array(vec![
                Value::f32(10.0),
                Value::f32(20.0),
                Value::f32(30.0),
            ])),
            ParamData::Uniform(UniformValue::Array(vec![
                Value::floats(&[1.0, 2.0]),
                Value::floats(&[3.0, 4.0]),
            ])),
            stream(floats(8, 1, 1, xs)),
            ParamData::Output,
            ParamData::Output,
        ],
    )
    .unwrap();
    assert_eq!(
        output(&run, "r"),
        &[10.0, 10.0, 20.0, 30.0, 30.0, 30.0, 10.0, 30.0]
    );
    assert_eq!(
        output(&run, "q"),
        &[
            1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0
        ]
    );
}

#[test]
fn mat4_times_vec4_both_ways() {
    // m[4c + r] = 4c + r + 1 (columns (1,2,3,4), (5,6,7,8), ...), v = (1, 2, 3, 4).
    // (m * v)[r] = sum_c (4c + r + 1)(c + 1) = 10 r + 90.
    // (v * m)[c] = sum_r (r + 1)(4c + r + 1) = 40 c + 30.
    let mut kb = KernelBuilder::new("k");
    let m = kb.uniform("m", Type::Mat4);
    let a = kb.output("a", OutputType::Vec4);
    let b = kb.output("b", OutputType::Vec4);
    let v = || vecl(&[1.0, 2.0, 3.0, 4.0]);
    let kernel = kb.build(vec![out(a, mat_vec(m, v())), out(b, vec_mat(v(), m))]);
    let mut mat = [0.0f32; 16];
    for (k, x) in mat.iter_mut().enumerate() {
        *x = k as f32 + 1.0;
    }
    let run = run_kernel(
        vec![],
        kernel,
        (1, 1),
        vec![
            ParamData::Uniform(UniformValue::Mat4(mat)),
            ParamData::Output,
            ParamData::Output,
        ],
    )
    .unwrap();
    assert_eq!(output(&run, "a"), &[90.0, 100.0, 110.0, 120.0]);
    assert_eq!(output(&run, "b"), &[30.0, 70.0, 110.0, 150.0]);
    assert_eq!(run.stats.by_kind["mat_vec"], 1);
    assert_eq!(run.stats.by_kind["vec_mat"], 1);
}

#[test]
fn index_and_domain_give_exact_positions() {
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::Vec4);
    let kernel = kb.build(vec![out(r, construct(vec![index(), domain()]))]);
    let run = run_kernel(vec![], kernel, (3, 2), vec![ParamData::Output]).unwrap();
    let mut expected = Vec::new();
    for j in 0..2 {
        for i in 0..3 {
            expected.extend([i as f32, j as f32, 3.0, 2.0]);
        }
    }
    assert_eq!(output(&run, "r"), expected.as_slice());
    assert_eq!(run.stats.by_kind["index"], 6);
    assert_eq!(run.stats.by_kind["domain"], 6);
}

#[test]
fn logic_operators_short_circuit() {
    // fn h(x) -> bool { c is counted by the `call` kind } :
    // r = if x > 0 && h(x) { 1 } else { 0 }; q = if x > 0 || h(x) { 1 } else { 0 }
    // with h(x) = x > 2.
    let mut hb = FunctionBuilder::new("h", Type::Bool);
    let hx = hb.param("x", Type::F32);
    let h = hb.build(valued(vec![], gt(hx.get(), f(2.0))));
    let mut kb = KernelBuilder::new("k");
    let x = kb.input("x", StreamType::F32);
    let r = kb.output("r", OutputType::F32);
    let q = kb.output("q", OutputType::F32);
    let choose = |c| if_expr(c, valued(vec![], f(1.0)), valued(vec![], f(0.0)));
    let h_call = || call(0, vec![input(x)], Type::Bool);
    let kernel = kb.build(vec![
        out(
            r,
            choose(bin(BinaryOp::And, gt(input(x), f(0.0)), h_call())),
        ),
        out(q, choose(bin(BinaryOp::Or, gt(input(x), f(0.0)), h_call()))),
    ]);
    // x = -1: `&&` stops (no call), `||` calls h(-1) = false.
    // x = 1: `&&` calls h(1) = false, `||` stops.
    // x = 3: `&&` calls h(3) = true, `||` stops.
    let run = run_kernel(
        vec![h],
        kernel,
        (3, 1),
        vec![
            stream(floats(3, 1, 1, vec![-1.0, 1.0, 3.0])),
            ParamData::Output,
            ParamData::Output,
        ],
    )
    .unwrap();
    assert_eq!(output(&run, "r"), &[0.0, 0.0, 1.0]);
    assert_eq!(output(&run, "q"), &[0.0, 1.0, 1.0]);
    assert_eq!(run.stats.by_kind["call"], 3);
    assert_eq!(run.stats.by_kind["logic_and"], 3);
    assert_eq!(run.stats.by_kind["logic_or"], 3);
}

#[test]
fn builtins_go_through_the_numerics() {
    // r = vec4(select(x > 0, sqrt(x), 0), dot(v, v), max(x, 2), floor(-x))
    // with v = vec3(x, 1, 2).
    let mut kb = KernelBuilder::new("k");
    let x = kb.input("x", StreamType::F32);
    let r = kb.output("r", OutputType::Vec4);
    let v = kb.var("v", Type::Vec3);
    let kernel = kb.build(vec![
        let_(v, construct(vec![input(x), f(1.0), f(2.0)])),
        out(
            r,
            construct(vec![
                builtin(
                    Builtin::Select,
                    vec![
                        gt(input(x), f(0.0)),
                        builtin(Builtin::Sqrt, vec![input(x)]),
                        f(0.0),
                    ],
                ),
                builtin(Builtin::Dot, vec![v.get(), v.get()]),
                builtin(Builtin::Max, vec![input(x), f(2.0)]),
                builtin(Builtin::Floor, vec![neg(input(x))]),
            ]),
        ),
    ]);
    // x = 9: (3, 81 + 1 + 4, 9, -9); x = -2.5: (0, 6.25 + 5, 2, 2).
    let run = run_kernel(
        vec![],
        kernel,
        (2, 1),
        vec![stream(floats(2, 1, 1, vec![9.0, -2.5])), ParamData::Output],
    )
    .unwrap();
    assert_eq!(
        output(&run, "r"),
        &[3.0, 86.0, 9.0, -9.0, 0.0, 11.25, 2.0, 2.0]
    );
    for kind in ["select", "sqrt", "dot", "max", "floor"] {
        assert_eq!(run.stats.by_kind[kind], 2, "{kind}");
    }
}

#[test]
fn block_expressions_and_denormals_flush() {
    // r = vec2({ let t = 2.0; t * 3.0 }, 1e-20 * 1e-20 + 0.0)
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::Vec2);
    let t = kb.var("t", Type::F32);
    let blk = expr(
        ctm_frontend::tast::ExprKind::Block(valued(vec![let_(t, f(2.0))], mul(t.get(), f(3.0)))),
        Type::F32,
    );
    let kernel = kb.build(vec![out(r, construct(vec![blk, mul(f(-1e-20), f(1e-20))]))]);
    let run = run_kernel(vec![], kernel, (1, 1), vec![ParamData::Output]).unwrap();
    let got = output(&run, "r");
    assert_eq!(got[0], 6.0);
    // The product underflows to a denormal and flushes to -0.
    assert_eq!(got[1].to_bits(), (-0.0f32).to_bits());
}

#[test]
fn an_empty_domain_runs_nothing() {
    let mut kb = KernelBuilder::new("k");
    let r = kb.output("r", OutputType::F32);
    let kernel = kb.build(vec![out(r, f(1.0))]);
    let run = run_kernel(vec![], kernel, (0, 5), vec![ParamData::Output]).unwrap();
    assert_eq!(output(&run, "r"), &[] as &[f32]);
    assert_eq!(run.stats.elements, 0);
}
