//! Reference interpreter: reductions (spec §8) — results against a plain
//! fold, the pass structure, and the exact combination order.

mod interp_builder;

use ctm_frontend::data::{StreamBuffer, StreamData};
use ctm_frontend::interp::{RunOptions, RuntimeError, run_reduction};
use ctm_frontend::tast::{Builtin, Program, Reduction};
use ctm_frontend::types::Type;
use ctm_frontend::value::Value;
use interp_builder::*;
use proptest::prelude::*;

fn reduce(
    r: Reduction,
    input: &StreamData,
) -> Result<ctm_frontend::interp::ReductionRun, RuntimeError> {
    let p: Program = program(vec![], vec![], vec![r]);
    run_reduction(&p, &p.reductions[0], input, &RunOptions::default())
}

/// `reduce sum(a: f32, b: f32) -> f32 { a + b }`
fn sum() -> Reduction {
    reduction("sum", Type::F32, |a, b| {
        valued(vec![], add(a.get(), b.get()))
    })
}

/// `reduce maxv(a: f32, b: f32) -> f32 { max(a, b) }`
fn max_f32() -> Reduction {
    reduction("maxv", Type::F32, |a, b| {
        valued(vec![], builtin(Builtin::Max, vec![a.get(), b.get()]))
    })
}

/// `reduce order(a: f32, b: f32) -> f32 { a * 10 + b }`: neither
/// commutative nor associative, so the result spells the tree.
fn order() -> Reduction {
    reduction("order", Type::F32, |a, b| {
        valued(vec![], add(mul(a.get(), f(10.0)), b.get()))
    })
}

/// Small integers in [-11, 11], different from element to element.
fn small_ints(n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| ((k * 7919 + 3) % 23) as f32 - 11.0)
        .collect()
}

/// The number of passes, worked out from the block rule.
fn expected_passes(mut w: usize, mut h: usize) -> (u32, u64) {
    let (mut passes, mut elements) = (0, 0);
    while w > 1 || h > 1 {
        if h == 1 {
            w = w.div_ceil(4);
        } else if w == 1 {
            h = h.div_ceil(4);
        } else {
            w = w.div_ceil(2);
            h = h.div_ceil(2);
        }
        passes += 1;
        elements += (w * h) as u64;
    }
    (passes, elements)
}

#[test]
fn sums_and_maxima_match_a_plain_fold() {
    // (width, height, passes, elements over all passes), worked out by hand:
    // 1x7 -> 1x2 -> 1x1; 7x1 -> 2x1 -> 1x1; 3x5 -> 2x3 -> 1x2 -> 1x1;
    // 16x16 -> 8x8 -> 4x4 -> 2x2 -> 1x1.
    let shapes = [
        (1, 1, 0, 0),
        (1, 7, 2, 3),
        (7, 1, 2, 3),
        (3, 5, 3, 9),
        (16, 16, 4, 85),
    ];
    for (w, h, passes, elements) in shapes {
        assert_eq!(expected_passes(w, h), (passes, elements), "{w}x{h}");
        let values = small_ints(w * h);
        let input = floats(w, h, 1, values.clone());
        let s = reduce(sum(), &input).unwrap();
        let total: f32 = values.iter().sum();
        assert_eq!(s.value, Value::f32(total), "sum over {w}x{h}");
        assert_eq!(s.passes, passes, "{w}x{h}");
        assert_eq!(s.stats.elements, elements, "{w}x{h}");
        let m = reduce(max_f32(), &input).unwrap();
        let biggest = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(m.value, Value::f32(biggest), "max over {w}x{h}");
    }
}

#[test]
fn the_combination_order_is_the_documented_tree() {
    let cases: [(usize, usize, Vec<f32>, f32); 7] = [
        // One element: no combination.
        (1, 1, vec![7.0], 7.0),
        // Three in a column or a row: f(f(e0, e1), e2) = (1*10 + 2)*10 + 3.
        (1, 3, vec![1.0, 2.0, 3.0], 123.0),
        (3, 1, vec![1.0, 2.0, 3.0], 123.0),
        // Four: f(f(e0, e1), f(e2, e3)) = 12*10 + 34.
        (4, 1, vec![1.0, 2.0, 3.0, 4.0], 154.0),
        // 2x2 row-major: e0..e3 = 1, 2 (row 0), 3, 4 (row 1).
        (2, 2, vec![1.0, 2.0, 3.0, 4.0], 154.0),
        // 5x1: (4, 1) blocks give 154 and 5, then f(154, 5) = 1545.
        (5, 1, vec![1.0, 2.0, 3.0, 4.0, 5.0], 1545.0),
        // 3x2 = rows (1 2 3), (4 5 6): block 0 holds 1, 2, 4, 5 -> 12*10 + 45
        // = 165; block 1 holds 3, 6 -> 36; then f(165, 36) = 1686.
        (3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 1686.0),
    ];
    for (w, h, values, expected) in cases {
        let run = reduce(order(), &floats(w, h, 1, values)).unwrap();
        assert_eq!(run.value, Value::f32(expected), "{w}x{h}");
    }
}

#[test]
fn vector_reductions_over_converted_inputs() {
    // reduce maxv(a: vec4, b: vec4) -> vec4 { max(a, b) } over unorm8x4 bytes.
    let maxv = reduction("maxv", Type::Vec4, |a, b| {
        valued(vec![], builtin(Builtin::Max, vec![a.get(), b.get()]))
    });
    let bytes = StreamData {
        width: 3,
        height: 1,
        channels: 4,
        buffer: StreamBuffer::U8(vec![0, 255, 10, 0, 255, 0, 20, 0, 51, 0, 5, 0]),
    };
    let run = reduce(maxv, &bytes).unwrap();
    assert_eq!(run.value, Value::floats(&[1.0, 1.0, 20.0 / 255.0, 0.0]));

    // reduce sum2(a: vec2, b: vec2) -> vec2 { a + b } over 2x2 vec2 floats.
    let sum2 = reduction("sum2", Type::Vec2, |a, b| {
        valued(vec![], add(a.get(), b.get()))
    });
    let run = reduce(
        sum2,
        &floats(2, 2, 2, vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0]),
    )
    .unwrap();
    assert_eq!(run.value, Value::floats(&[10.0, 100.0]));

    // An f32 sum over u16 integers.
    let shorts = StreamData {
        width: 2,
        height: 1,
        channels: 1,
        buffer: StreamBuffer::U16(vec![65535, 1]),
    };
    assert_eq!(reduce(sum(), &shorts).unwrap().value, Value::f32(65536.0));
}

#[test]
fn bodies_with_returns_and_helpers_work() {
    // fn pick(a, b) -> f32 { if a > b { return a; } b }
    // reduce m(a, b) -> f32 { let t = pick(a, b); t }
    let mut fb = FunctionBuilder::new("pick", Type::F32);
    let a = fb.param("a", Type::F32);
    let b = fb.param("b", Type::F32);
    let pick = fb.build(valued(
        vec![if_(gt(a.get(), b.get()), vec![ret_val(a.get())])],
        b.get(),
    ));
    let mut r = reduction("m", Type::F32, |a, b| {
        valued(vec![], call(0, vec![a.get(), b.get()], Type::F32))
    });
    let t = Var {
        id: ctm_frontend::tast::LocalId(2),
        ty: Type::F32,
    };
    r.locals.push(r.locals[0].clone());
    let tail = r.body.tail.take().unwrap();
    r.body = valued(vec![let_(t, *tail)], t.get());
    let p = program(vec![pick], vec![], vec![r]);
    let input = floats(5, 3, 1, small_ints(15));
    let run = run_reduction(&p, &p.reductions[0], &input, &RunOptions::default()).unwrap();
    let biggest = small_ints(15).into_iter().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(run.value, Value::f32(biggest));
}

#[test]
fn statistics_cover_every_pass() {
    // A 4x1 sum: one pass of one element reading 4 values, 3 additions, one write.
    let run = reduce(sum(), &floats(4, 1, 1, vec![1.0, 2.0, 3.0, 4.0])).unwrap();
    assert_eq!(run.value, Value::f32(10.0));
    assert_eq!(run.passes, 1);
    assert_eq!(run.stats.elements, 1);
    assert_eq!(run.stats.operations, 8);
    assert_eq!(run.stats.by_kind["add"], 3);
    assert_eq!(run.stats.by_kind["input"], 4);
    assert_eq!(run.stats.by_kind["output"], 1);
    // 3x5: passes of 6, 2 and 1 elements; 14 additions combine 15 values.
    let run = reduce(sum(), &floats(3, 5, 1, small_ints(15))).unwrap();
    assert_eq!(run.stats.elements, 9);
    assert_eq!(run.stats.by_kind["add"], 14);
    assert_eq!(run.stats.by_kind["input"], 15 + 6 + 2);
    assert_eq!(run.stats.discarded, 0);
    // 1x1: nothing runs.
    let run = reduce(sum(), &floats(1, 1, 1, vec![5.0])).unwrap();
    assert_eq!(
        (run.passes, run.stats.elements, run.stats.operations),
        (0, 0, 0)
    );
}

#[test]
fn bad_inputs_are_rejected() {
    let cases = [
        (floats(0, 3, 1, vec![]), "empty"),
        (floats(2, 2, 1, vec![1.0; 3]), "buffer holds 3"),
        (floats(2, 1, 4, vec![1.0; 8]), "reads as vec4"),
        (floats(2, 1, 3, vec![1.0; 6]), "no stream type"),
    ];
    for (input, needle) in cases {
        match reduce(sum(), &input) {
            Err(RuntimeError::BadArguments(m)) => {
                assert!(m.contains(needle), "`{m}` lacks {needle}")
            }
            other => panic!("expected bad arguments ({needle}), got {other:?}"),
        }
    }
}

#[test]
fn a_runaway_combination_hits_the_step_limit() {
    // reduce r(a, b) -> f32 { while b > 100.0 { } a + b } over 1x8 = [1, 2, 3, 4, 5, 6, 200, 8]:
    // pass 1 has two (4, 1) blocks; the second, output element (1, 0),
    // meets 200 and never ends.
    let r = reduction("r", Type::F32, |a, b| {
        valued(
            vec![while_(gt(b.get(), f(100.0)), vec![])],
            add(a.get(), b.get()),
        )
    });
    let input = floats(8, 1, 1, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 200.0, 8.0]);
    let p = program(vec![], vec![], vec![r]);
    let options = RunOptions {
        max_steps_per_element: 1000,
    };
    let err = run_reduction(&p, &p.reductions[0], &input, &options).unwrap_err();
    assert_eq!(
        err,
        RuntimeError::StepLimit {
            i: 1,
            j: 0,
            limit: 1000
        }
    );
}

#[test]
fn large_reductions_are_exact_and_deterministic() {
    // 1000x700 ones: every partial sum is an integer below 2^24.
    let input = floats(1000, 700, 1, vec![1.0; 700_000]);
    let first = reduce(sum(), &input).unwrap();
    assert_eq!(first.value, Value::f32(700_000.0));
    assert_eq!(first.passes, 10);
    assert_eq!(reduce(sum(), &input).unwrap(), first);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_shape_sums_like_a_fold(w in 1usize..40, h in 1usize..40, seed in 0usize..1000) {
        let values: Vec<f32> = (0..w * h)
            .map(|k| ((k * 7919 + seed * 31) % 17) as f32 - 8.0)
            .collect();
        let input = floats(w, h, 1, values.clone());
        let run = reduce(sum(), &input).unwrap();
        prop_assert_eq!(run.value, Value::f32(values.iter().sum()));
        let (passes, elements) = expected_passes(w, h);
        prop_assert_eq!(run.passes, passes);
        prop_assert_eq!(run.stats.elements, elements);
        let m = reduce(max_f32(), &input).unwrap();
        prop_assert_eq!(m.value, Value::f32(values.iter().copied().fold(f32::NEG_INFINITY, f32::max)));
    }
}
