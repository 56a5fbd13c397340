//! One test group per pass: each runs a small kernel through the pass (after
//! lowering) and checks what the pass did to the graph, and that the IR
//! interpreter still agrees with the reference interpreter.

mod common;

use common::{assert_same, lowered, random_args};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_ir::graph::Module;
use ctm_ir::op::{BinOp, Op};
use ctm_ir::passes::{self, OptLevel, Options, VerifyEach};
use ctm_ir::verify;

/// Counts nodes (in every region) satisfying `pred`.
fn count(m: &Module, pred: impl Fn(&Op) -> bool) -> usize {
    m.region_ids()
        .flat_map(|r| m.nodes(r))
        .filter(|&n| pred(&m.node(n).op))
        .count()
}

/// Runs `pass` to a fixpoint (with DCE between runs), verifying each step,
/// and checks the result against the reference on random arguments.
fn run_pass(src: &str, pass: impl Fn(&mut Module) -> bool) -> Module {
    let (program, mut m) = lowered(src);
    for _ in 0..8 {
        let changed = pass(&mut m);
        verify::check(&m, "pass").unwrap_or_else(|e| panic!("{e}\n{}", ctm_ir::print::to_text(&m)));
        passes::dce::run(&mut m);
        verify::check(&m, "dce").expect("dce keeps the IR valid");
        if !changed {
            break;
        }
    }
    let kernel = &program.kernels[0];
    for seed in 0..4 {
        let args = random_args(kernel, (9, 5), seed);
        let want = run_kernel(&program, kernel, &args, &RunOptions::default()).expect("reference");
        let got = ctm_ir::interp::run(&m, &args, &RunOptions::default()).expect("IR");
        assert_same(&got, &want, "pass result", &m);
    }
    m
}

#[test]
fn fold_computes_constants_and_takes_constant_branches() {
    let m = run_pass(
        "const K: f32 = 2.0; kernel k(x: In<f32>, r: Out<f32>) { let a = K * 3.0 + 1.0; r = if a > 5.0 { x * a } else { x }; }",
        passes::fold::run,
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Gamma(_))),
        0,
        "{}",
        ctm_ir::print::to_text(&m)
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FAdd))), 0);
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))), 1);
}

#[test]
fn fold_runs_a_loop_whose_predicate_is_false_once() {
    let m = run_pass(
        "kernel k(x: In<f32>, r: Out<f32>) { let mut a = x; loop { a = a * 2.0; break; } r = a; }",
        passes::fold::run,
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Theta(_))),
        0,
        "{}",
        ctm_ir::print::to_text(&m)
    );
}

#[test]
fn simplify_removes_exact_identities_only() {
    let m = run_pass(
        "kernel k(x: In<f32>, r: Out<f32>, s: Out<f32>) { r = -(-(x * 1.0 - 0.0)); s = x + 0.0; }",
        passes::simplify::run,
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))), 0);
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FSub))), 0);
    assert_eq!(
        count(&m, |o| matches!(o, Op::Unary(ctm_ir::op::UnOp::FNeg))),
        0
    );
    // x + 0.0 is not x for x = -0.0: it stays.
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FAdd))), 1);
}

#[test]
fn simplify_folds_signs_and_clamps_to_saturate() {
    use ctm_ir::op::UnOp;
    let m = run_pass(
        "kernel k(x: In<f32>, y: In<f32>, r: Out<f32>, s: Out<f32>, t: Out<f32>) { \
         r = abs(-x) + (-x) * (-y) + (-x) / (-y); \
         s = clamp(x * y, 0.0, 1.0) + saturate(saturate(y)); \
         t = clamp(y, 0.0, 2.0) + max(0.0, x); }",
        passes::simplify::run,
    );
    let text = ctm_ir::print::to_text(&m);
    assert_eq!(
        count(&m, |o| matches!(o, Op::Unary(UnOp::FNeg))),
        0,
        "{text}"
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Unary(UnOp::FAbs))),
        1,
        "{text}"
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Unary(UnOp::FSaturate))),
        2,
        "{text}"
    );
    // The clamp to [0, 2] and max(0, x) (whose -0.0 result differs from
    // saturate's) stay.
    assert_eq!(
        count(&m, |o| matches!(o, Op::Binary(BinOp::FMax))),
        2,
        "{text}"
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Binary(BinOp::FMin))),
        1,
        "{text}"
    );
}

#[test]
fn simplify_composes_swizzles() {
    let m = run_pass(
        "kernel k(v: In<vec4>, r: Out<vec2>) { r = v.wzyx.yx; }",
        passes::simplify::run,
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Swizzle(_))),
        1,
        "{}",
        ctm_ir::print::to_text(&m)
    );
}

#[test]
fn cse_merges_equal_expressions() {
    let m = run_pass(
        "kernel k(x: In<f32>, y: In<f32>, r: Out<f32>) { r = x * y + y * x; }",
        passes::cse::run,
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))),
        1,
        "{}",
        ctm_ir::print::to_text(&m)
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Input(_))), 2);
}

#[test]
fn dce_removes_unused_values_and_loop_variables() {
    let m = run_pass(
        "kernel k(n: i32, x: In<f32>, r: Out<f32>) { let unused = x * 7.0; let mut a = x; let mut b = 0.0; for i in 0..n { a = a + 1.0; b = b + a; } r = a; }",
        passes::dce::run,
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))),
        0,
        "{}",
        ctm_ir::print::to_text(&m)
    );
    // Only `a` and the counter (and the end bound) stay in the loop.
    let theta_outputs: Vec<usize> = m
        .region_ids()
        .flat_map(|r| m.nodes(r))
        .filter(|&n| matches!(m.node(n).op, Op::Theta(_)))
        .map(|n| m.node(n).outputs.len())
        .collect();
    assert_eq!(theta_outputs, vec![3], "{}", ctm_ir::print::to_text(&m));
}

#[test]
fn unroll_replaces_small_constant_loops_and_respects_the_budget() {
    let src = "kernel k(w: [f32; 4], x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 0..4 { a += w[i] * x; } r = a; }";
    let m = run_pass(src, |m| passes::fold::run(m) | passes::unroll::run(m, 512));
    assert_eq!(
        count(&m, |o| matches!(o, Op::Theta(_))),
        0,
        "{}",
        ctm_ir::print::to_text(&m)
    );
    assert_eq!(count(&m, |o| matches!(o, Op::UniformElement(_))), 4);
    let m = run_pass(src, |m| passes::fold::run(m) | passes::unroll::run(m, 8));
    assert_eq!(
        count(&m, |o| matches!(o, Op::Theta(_))),
        1,
        "a budget of 8 nodes keeps the loop"
    );
}

#[test]
fn licm_hoists_invariant_reads_and_arithmetic() {
    let m = run_pass(
        "kernel k(n: i32, s: f32, x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 0..n { a = a + x * s; } r = a; }",
        passes::licm::run,
    );
    let body_muls: usize = m
        .region_ids()
        .filter(|&r| {
            m.region(r)
                .owner
                .is_some_and(|o| matches!(m.node(o).op, Op::Theta(_)))
        })
        .map(|r| {
            m.nodes(r)
                .iter()
                .filter(|&&n| matches!(m.node(n).op, Op::Binary(BinOp::FMul)))
                .count()
        })
        .sum();
    assert_eq!(body_muls, 0, "{}", ctm_ir::print::to_text(&m));
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))), 1);
}

#[test]
fn if_conversion_turns_cheap_branches_into_selects_and_keeps_dear_ones() {
    let cost = ctm_ir::cost::DefaultCost;
    let m = run_pass(
        "kernel k(x: In<f32>, r: Out<f32>) { r = if x > 0.5 { x * 2.0 } else { x + 1.0 }; }",
        |m| passes::if_convert::run(m, &cost),
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Gamma(_))), 0);
    assert_eq!(count(&m, |o| matches!(o, Op::Select)), 1);
    assert!(ctm_ir::print::to_text(&m).contains("if-converted"));
    let m = run_pass(
        "kernel k(x: In<f32>, r: Out<f32>) { let mut a = x; if x > 0.5 { a = sin(a); a = sin(a); a = sin(a); a = sin(a); a = sin(a); a = sin(a); a = sin(a); a = sin(a); } else { a = cos(a); a = cos(a); a = cos(a); a = cos(a); a = cos(a); a = cos(a); a = cos(a); a = cos(a); } r = a; }",
        |m| passes::if_convert::run(m, &cost),
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Gamma(_))), 1);
    assert!(ctm_ir::print::to_text(&m).contains("kept: if-conversion costs"));
}

/// A target that predicates every gamma at a fixed cost (`CostModel::
/// predicated_cost`).
struct Predicating(u32);

impl ctm_ir::cost::CostModel for Predicating {
    fn node_cost(&self, m: &Module, n: ctm_ir::graph::NodeId) -> u32 {
        ctm_ir::cost::DefaultCost.node_cost(m, n)
    }
    fn branch_cost(&self) -> u32 {
        ctm_ir::cost::DefaultCost.branch_cost()
    }
    fn select_cost(&self, lanes: u8) -> u32 {
        ctm_ir::cost::DefaultCost.select_cost(lanes)
    }
    fn predicated_cost(
        &self,
        _m: &Module,
        _g: ctm_ir::graph::NodeId,
        _branches: [ctm_ir::graph::RegionId; 2],
    ) -> Option<u32> {
        Some(self.0)
    }
}

#[test]
fn if_conversion_keeps_gammas_the_target_predicates_more_cheaply() {
    let src = "kernel k(x: In<f32>, r: Out<f32>) { r = if x > 0.5 { x * 2.0 } else { x + 1.0 }; }";
    // Cheaper than the selects (and the branch): kept, with a note.
    let m = run_pass(src, |m| passes::if_convert::run(m, &Predicating(0)));
    assert_eq!(count(&m, |o| matches!(o, Op::Gamma(_))), 1);
    assert!(ctm_ir::print::to_text(&m).contains("kept for predication"));
    // No cheaper than the selects: converted as without the hook.
    let m = run_pass(src, |m| passes::if_convert::run(m, &Predicating(1000)));
    assert_eq!(count(&m, |o| matches!(o, Op::Gamma(_))), 0);
    assert_eq!(count(&m, |o| matches!(o, Op::Select)), 1);
}

#[test]
fn if_conversion_leaves_scatters_in_branches() {
    let cost = ctm_ir::cost::DefaultCost;
    let m = run_pass(
        "kernel k(x: In<f32>, s: Scatter<f32>) { if x > 0.5 { s[index()] = x; } }",
        |m| passes::if_convert::run(m, &cost),
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Gamma(_))), 1);
}

#[test]
fn mad_formation_fuses_single_use_multiplies() {
    let m = run_pass(
        "kernel k(a: In<f32>, b: In<f32>, c: In<f32>, r: Out<f32>, s: Out<f32>) { r = a * b + c; s = c - a * b; }",
        |m| passes::cse::run(m) | passes::mad::run(m),
    );
    assert_eq!(
        count(&m, |o| matches!(o, Op::Mad)),
        2,
        "the shared a*b feeds two mads: {}",
        ctm_ir::print::to_text(&m)
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))), 0);
    let m = run_pass(
        "kernel k(a: In<f32>, b: In<f32>, c: In<f32>, r: Out<f32>) { r = c - a * b; }",
        passes::mad::run,
    );
    assert_eq!(count(&m, |o| matches!(o, Op::Mad)), 1);
    assert_eq!(count(&m, |o| matches!(o, Op::Binary(_))), 0);
}

#[test]
fn levels_differ_as_documented() {
    let src = "kernel k(x: In<f32>, r: Out<f32>) { let a = 2.0 * 3.0; r = x * a + 1.0; }";
    let (_, base) = lowered(src);
    for (level, fmuls, mads) in [
        (OptLevel::O0, 2, 0),
        (OptLevel::O1, 1, 0),
        (OptLevel::O2, 0, 1),
    ] {
        let mut m = base.clone();
        let mut o = Options::new(level);
        o.verify_each = VerifyEach::Yes;
        passes::optimize(&mut m, &o).expect("optimize");
        assert_eq!(
            count(&m, |o| matches!(o, Op::Binary(BinOp::FMul))),
            fmuls,
            "{level:?}"
        );
        assert_eq!(count(&m, |o| matches!(o, Op::Mad)), mads, "{level:?}");
    }
}
