//! Identity recognition of reduction bodies (`ctm_ir::lower::reduction_edges`):
//! one test per recognised form, the forms it must refuse, and the pass
//! kernels each decision lowers to.

use ctm_frontend::CheckOptions;
use ctm_frontend::Target;
use ctm_frontend::tast::Program;
use ctm_frontend::types::StreamType;
use ctm_ir::lower::{
    Lane, LaneMap, LaneOp, PassEdges, lane_ops, lanes, lower_reduction_pass, pass_edges,
};
use ctm_ir::print::to_text;

fn program(src: &str) -> Program {
    ctm_frontend::compile(
        src,
        &CheckOptions {
            target: Target::X1k,
        },
    )
    .program
    .unwrap_or_else(|| panic!("{src} does not check"))
}

fn edges(src: &str) -> (Option<Vec<LaneOp>>, PassEdges) {
    let p = program(src);
    let r = &p.reductions[0];
    (lane_ops(r), pass_edges(r))
}

#[test]
fn a_sum_pads_with_zero() {
    let (ops, e) = edges("reduce s(a: f32, b: f32) -> f32 { a + b }");
    assert_eq!(ops, Some(vec![LaneOp::Add]));
    assert_eq!(e, PassEdges::Padded([0.0; 4]));
    assert_eq!(LaneOp::Add.identity(), 0.0);
    // Either operand order, any vector width.
    let (_, e) = edges("reduce s(a: vec2, b: vec2) -> vec2 { b + a }");
    assert_eq!(e, PassEdges::Padded([0.0; 4]));
}

#[test]
fn a_product_pads_with_one() {
    let (ops, e) = edges("reduce p(a: vec4, b: vec4) -> vec4 { a * b }");
    assert_eq!(ops, Some(vec![LaneOp::Mul; 4]));
    assert_eq!(e, PassEdges::Padded([1.0; 4]));
    let (_, e) = edges("reduce p(a: vec2, b: vec2) -> vec2 { a * b }");
    assert_eq!(e, PassEdges::Padded([1.0, 1.0, 0.0, 0.0]));
}

#[test]
fn min_and_max_have_infinite_identities_and_clamp() {
    let (ops, e) = edges("reduce m(a: f32, b: f32) -> f32 { min(a, b) }");
    assert_eq!(ops, Some(vec![LaneOp::Min]));
    assert_eq!(LaneOp::Min.identity(), f32::INFINITY);
    assert_eq!(e, PassEdges::Clamped);
    let (ops, e) = edges("reduce m(a: vec4, b: vec4) -> vec4 { max(b, a) }");
    assert_eq!(ops, Some(vec![LaneOp::Max; 4]));
    assert_eq!(LaneOp::Max.identity(), f32::NEG_INFINITY);
    assert_eq!(e, PassEdges::Clamped);
}

#[test]
fn lane_wise_forms_are_recognised_per_lane() {
    let (ops, e) =
        edges("reduce bounds(a: vec4, b: vec4) -> vec4 { vec4(min(a.xy, b.xy), max(a.zw, b.zw)) }");
    use LaneOp::*;
    assert_eq!(ops, Some(vec![Min, Min, Max, Max]));
    assert_eq!(e, PassEdges::Clamped);
    let (ops, e) =
        edges("reduce s(a: vec4, b: vec4) -> vec4 { { vec4(a.xy + b.xy, a.zw * b.zw) } }");
    assert_eq!(ops, Some(vec![Add, Add, Mul, Mul]));
    assert_eq!(e, PassEdges::Padded([0.0, 0.0, 1.0, 1.0]));
}

#[test]
fn min_and_max_of_an_idempotent_map_clamp() {
    use LaneMap::*;
    use LaneOp::*;
    let lane = |op, map| Lane { op, map };
    let p = program("reduce m(a: f32, b: f32) -> f32 { max(abs(a), abs(b)) }");
    assert_eq!(lanes(&p.reductions[0]), Some(vec![lane(Max, Abs)]));
    assert_eq!(lane_ops(&p.reductions[0]), Some(vec![Max]));
    assert_eq!(pass_edges(&p.reductions[0]), PassEdges::Clamped);
    // Either order, swizzles inside or outside the map, per lane.
    let p = program("reduce m(a: vec2, b: vec2) -> vec2 { min(saturate(b.xy), saturate(a.xy)) }");
    assert_eq!(lanes(&p.reductions[0]), Some(vec![lane(Min, Saturate); 2]));
    let p = program(
        "reduce m(a: vec4, b: vec4) -> vec4 { vec4(max(abs(a).xy, abs(b).xy), min(a.z, b.z), max(saturate(a.w), saturate(b.w))) }",
    );
    assert_eq!(
        lanes(&p.reductions[0]),
        Some(vec![
            lane(Max, Abs),
            lane(Max, Abs),
            lane(Min, Identity),
            lane(Max, Saturate)
        ])
    );
    assert_eq!(pass_edges(&p.reductions[0]), PassEdges::Clamped);
}

#[test]
fn maps_that_differ_or_do_not_serve_keep_their_guards() {
    for src in [
        // One operand mapped, or each through another map.
        "reduce m(a: f32, b: f32) -> f32 { max(abs(a), b) }",
        "reduce m(a: f32, b: f32) -> f32 { max(abs(a), saturate(b)) }",
        // A map under `+`/`*`: padding with the identity would not be
        // exact through it (abs(x) + 0 for a block of one gives |x|).
        "reduce m(a: f32, b: f32) -> f32 { abs(a) + abs(b) }",
        "reduce m(a: f32, b: f32) -> f32 { saturate(a) * saturate(b) }",
        // Maps that are not idempotent, or applied to the result.
        "reduce m(a: f32, b: f32) -> f32 { max(-a, -b) }",
        "reduce m(a: f32, b: f32) -> f32 { max(floor(a), floor(b)) * 2.0 }",
        "reduce m(a: f32, b: f32) -> f32 { abs(max(a, b)) }",
        // One parameter twice.
        "reduce m(a: f32, b: f32) -> f32 { max(abs(a), abs(a)) }",
        // Lanes that move.
        "reduce m(a: vec2, b: vec2) -> vec2 { max(abs(a).yx, abs(b).yx) }",
    ] {
        assert_eq!(edges(src).1, PassEdges::Guarded, "{src}");
    }
}

#[test]
fn unrecognised_and_mixed_bodies_keep_their_guards() {
    for src in [
        // Recognised lanes of both kinds: no one padding serves both.
        "reduce m(a: vec2, b: vec2) -> vec2 { vec2(a.x + b.x, min(a.y, b.y)) }",
        // Lanes that do not land where they read.
        "reduce m(a: vec2, b: vec2) -> vec2 { vec2(a.y + b.y, a.x + b.x) }",
        "reduce m(a: vec2, b: vec2) -> vec2 { vec2(a.x + b.y, a.y + b.x) }",
        // One parameter twice, other operators, extra terms, statements.
        "reduce m(a: f32, b: f32) -> f32 { a + a }",
        "reduce m(a: f32, b: f32) -> f32 { a - b }",
        "reduce m(a: f32, b: f32) -> f32 { a + b + 0.0 }",
        "reduce m(a: f32, b: f32) -> f32 { max(a, b) * 1.0 }",
        "reduce m(a: f32, b: f32) -> f32 { let c = a + b; c }",
        "reduce m(a: f32, b: f32) -> f32 { if a < b { a } else { b } }",
    ] {
        assert_eq!(edges(src).1, PassEdges::Guarded, "{src}");
    }
}

#[test]
fn the_pass_kernel_follows_the_decision() {
    for (src, guarded, padded) in [
        ("reduce s(a: f32, b: f32) -> f32 { a + b }", false, true),
        (
            "reduce m(a: f32, b: f32) -> f32 { min(a, b) }",
            false,
            false,
        ),
        ("reduce m(a: f32, b: f32) -> f32 { a - b }", true, false),
    ] {
        let p = program(src);
        let m = lower_reduction_pass(&p, &p.reductions[0], StreamType::F32);
        let text = to_text(&m);
        assert_eq!(text.contains("select"), guarded, "{src}:\n{text}");
        assert_eq!(
            text.matches("cmp.lt").count(),
            if guarded { 8 } else { 0 },
            "{src}:\n{text}"
        );
        assert_eq!(m.input_padding.is_some(), padded, "{src}");
        assert_eq!(
            text.contains("input padded with (0, 0, 0, 0)"),
            padded,
            "{src}"
        );
    }
}
