//! The target-neutral analyses of `ctm_ir::analysis`, each on small
//! lowered kernels whose answer is known by construction.

mod common;

use ctm_ir::analysis::affine::{self, Affine};
use ctm_ir::analysis::for_loop::{self, Bound};
use ctm_ir::analysis::{deps, effects, origin};
use ctm_ir::graph::{Module, NodeId, Value};
use ctm_ir::op::{BinOp, CmpOp, Op};

fn lowered(src: &str) -> Module {
    common::lowered(src).1
}

/// Every node (in every region) whose op satisfies `pred`.
fn find(m: &Module, pred: impl Fn(&Op) -> bool) -> Vec<NodeId> {
    m.region_ids()
        .flat_map(|r| m.nodes(r))
        .filter(|&n| pred(&m.node(n).op))
        .collect()
}

fn one(m: &Module, pred: impl Fn(&Op) -> bool) -> NodeId {
    let v = find(m, pred);
    assert_eq!(v.len(), 1, "{}", ctm_ir::print::to_text(m));
    v[0]
}

const LOOP: &str = "kernel k(n: i32, s: f32, x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 0..n { a = a + x * s; } r = a; }";

#[test]
fn origin_sees_through_branch_and_loop_arguments() {
    let m = lowered(LOOP);
    // The counter test `i + 1 < n` in the loop body reads `n` as an
    // argument of the theta, itself under the `for`'s guard gamma.
    let uniform_n = one(&m, |o| matches!(o, Op::Uniform(p) if p.index() == 0));
    let test = find(&m, |o| *o == Op::Compare(CmpOp::Lt))
        .into_iter()
        .find(|n| n.region != m.root)
        .expect("a counter test in the body");
    let end = m.inputs(test)[1];
    assert!(matches!(m.node(end.node).op, Op::Argument(_)));
    let n = Value {
        node: uniform_n,
        port: 0,
    };
    assert_eq!(origin::origin(&m, end), n);
    // Inside its own region an argument stands for itself.
    assert_eq!(origin::local_origin(&m, end), end);
    // Past the gamma and the theta: their outputs for `n` are `n` itself.
    let gamma = one(&m, |o| matches!(o, Op::Gamma(_)));
    let port = (0..m.node(gamma).outputs.len())
        .find(|&k| m.inputs(gamma)[k + 1] == n)
        .expect("n enters the gamma");
    assert_eq!(origin::local_origin(&m, m.output(gamma, port)), n);
    // A value that is not an argument is its own origin.
    let mul = one(&m, |o| *o == Op::Binary(BinOp::FMul));
    let out = Value { node: mul, port: 0 };
    assert_eq!(origin::origin(&m, out), out);
    // A loop-carried value is not seen through: `a`'s output stays.
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let outs: Vec<Value> = (0..m.node(theta).outputs.len())
        .map(|k| m.output(theta, k))
        .collect();
    assert!(outs.iter().any(|&v| origin::local_origin(&m, v) == v));
}

#[test]
fn invariance_tells_passed_through_loop_arguments_from_carried_ones() {
    let m = lowered(LOOP);
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let Op::Theta(t) = m.node(theta).op else {
        unreachable!()
    };
    let args = m.inputs(theta).len();
    let invariant: Vec<bool> = (0..args)
        .map(|i| origin::invariant_argument(&m, t.body, i))
        .collect();
    let counter = t.info.counter.expect("a for counter") as usize;
    assert!(!invariant[counter], "the counter changes: {invariant:?}");
    // `a` changes; `x`, `s` and `n` pass through.
    assert_eq!(
        invariant.iter().filter(|&&b| !b).count(),
        2,
        "{invariant:?}"
    );
    assert!(
        invariant.iter().filter(|&&b| b).count() >= 2,
        "{invariant:?}"
    );
}

#[test]
fn effects_are_scatters_in_any_nested_region() {
    let m = lowered(LOOP);
    assert!(!effects::has_effects(&m, m.root));
    let m = lowered(
        "kernel k(n: i32, x: In<f32>, s: Scatter<f32>) { for i in 0..n { if x > 0.5 { s[index()] = x; } } }",
    );
    assert!(effects::has_effects(&m, m.root));
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let Op::Theta(t) = m.node(theta).op else {
        unreachable!()
    };
    assert!(effects::has_effects(&m, t.body));
}

#[test]
fn dependencies_are_the_region_nodes_a_value_reads_in_order() {
    let m = lowered(
        "kernel k(s: f32, t: f32, x: In<f32>, r: Out<f32>, q: Out<f32>) { r = x * s; q = x + t; }",
    );
    let mul = one(&m, |o| *o == Op::Binary(BinOp::FMul));
    let add = one(&m, |o| *o == Op::Binary(BinOp::FAdd));
    let d = deps::dependencies(&m, m.root, Value { node: mul, port: 0 });
    assert_eq!(d.last(), Some(&mul), "the value's node comes last");
    assert!(!d.contains(&add));
    assert!(
        d.iter()
            .any(|&n| matches!(m.node(n).op, Op::Uniform(p) if p.index() == 0))
    );
    assert!(
        !d.iter()
            .any(|&n| matches!(m.node(n).op, Op::Uniform(p) if p.index() == 1))
    );
    // Topological: every input of a listed node that is listed comes first.
    for (k, &n) in d.iter().enumerate() {
        for i in m.inputs(n) {
            if let Some(j) = d.iter().position(|&x| x == i.node) {
                assert!(j < k);
            }
        }
    }
}

#[test]
fn for_loops_give_their_bounds_and_guard() {
    let m = lowered(LOOP);
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let n = m.params.iter().position(|p| p.name == "n").expect("n");
    let Some((Bound::Const(0), Bound::Uniform(p))) = for_loop::counter_bounds(&m, theta) else {
        panic!("{:?}", for_loop::counter_bounds(&m, theta));
    };
    assert_eq!(p.index(), n);
    assert_eq!(for_loop::const_bounds(&m, theta), None);
    let gamma = one(&m, |o| matches!(o, Op::Gamma(_)));
    assert_eq!(for_loop::entry_guard(&m, gamma, &|_| true), Some(theta));

    let m = lowered(
        "kernel k(x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 2..7 { a = a + x; } r = a; }",
    );
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    assert_eq!(for_loop::const_bounds(&m, theta), Some((2, 7)));

    // A gamma that is an `if`, not a guard.
    let m = lowered(
        "kernel k(x: In<f32>, r: Out<f32>) { let mut a = 0.0; if x > 0.5 { a = x; } r = a; }",
    );
    let gamma = one(&m, |o| matches!(o, Op::Gamma(_)));
    assert_eq!(for_loop::entry_guard(&m, gamma, &|_| true), None);
}

#[test]
fn early_exit_needs_live_values_kept_from_the_iteration_start() {
    let m = lowered(LOOP);
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let Op::Theta(t) = m.node(theta).op else {
        unreachable!()
    };
    let c = m.result(t.body, 0);
    // `a` changes unconditionally: leaving early would lose its update.
    assert!(!for_loop::early_exit_ok(&m, theta, &t, c, &|_| true));
    // With no value live after the loop, any exit is fine.
    assert!(for_loop::early_exit_ok(&m, theta, &t, c, &|_| false));
}

#[test]
fn affine_indices_over_counters() {
    let m = lowered(
        "kernel k(w: [f32; 16], x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 0..4 { a += w[2 * i + 1] * x; } r = a; }",
    );
    let theta = one(&m, |o| matches!(o, Op::Theta(_)));
    let read = one(&m, |o| matches!(o, Op::UniformElement(_)));
    let index = m.inputs(read)[0];
    assert!(affine::counter_derived(&m, index));
    let a = affine::affine(&m, index).expect("affine");
    assert_eq!(a.terms.as_slice(), &[(theta, 2)]);
    assert_eq!(a.c, 1);
    assert_eq!(a.range(&|t| for_loop::const_bounds(&m, t)), Some((1, 7)));
    assert_eq!(a.range(&|_| None), None);
}

#[test]
fn loop_carried_and_huge_indices_are_not_affine() {
    let m = lowered(
        "kernel k(w: [f32; 16], x: In<f32>, r: Out<f32>) { let mut a = 0.0; let mut j = 0; for i in 0..4 { j = j + 3; a += w[j] * x; } r = a; }",
    );
    let read = one(&m, |o| matches!(o, Op::UniformElement(_)));
    let index = m.inputs(read)[0];
    assert!(!affine::counter_derived(&m, index));
    assert_eq!(affine::affine(&m, index), None);
    // Coefficients stay below 2^24.
    let big = Affine::constant(1 << 23);
    assert_eq!(big.clone().scaled(2), None);
    assert_eq!(big.clone().plus(Affine::constant(1 << 23)), None);
    assert_eq!(big.scaled(-1).map(|a| a.c), Some(-(1 << 23)));
}

#[test]
fn affine_sums_cancel_terms() {
    let m = lowered(
        "kernel k(w: [f32; 16], x: In<f32>, r: Out<f32>) { let mut a = 0.0; for i in 0..4 { a += w[i + 5 - i] * x; } r = a; }",
    );
    let read = one(&m, |o| matches!(o, Op::UniformElement(_)));
    let a = affine::affine(&m, m.inputs(read)[0]).expect("affine");
    assert!(a.terms.is_empty());
    assert_eq!(a.c, 5);
}

/// `a` at counter value `k` for every term.
fn eval(a: &Affine, k: i64) -> i64 {
    a.c + a.terms.iter().map(|(_, s)| s * k).sum::<i64>()
}

proptest::proptest! {
    /// Sums and scalings agree with the arithmetic they stand for, keep no
    /// zero term, and refuse exactly the results past the magnitude bound.
    #[test]
    fn affine_arithmetic_is_exact_or_refused(
        k1 in -(1i64 << 25)..(1 << 25),
        c1 in -(1i64 << 25)..(1 << 25),
        k2 in -(1i64 << 25)..(1 << 25),
        c2 in -(1i64 << 25)..(1 << 25),
        s in -70_000i64..70_000,
        at in -100i64..100,
    ) {
        let m = lowered(LOOP);
        let theta = one(&m, |o| matches!(o, Op::Theta(_)));
        let mk = |k: i64, c: i64| Affine {
            terms: if k == 0 { Default::default() } else { smallvec::smallvec![(theta, k)] },
            c,
        };
        let (a, b) = (mk(k1, c1), mk(k2, c2));
        let fits = |v: i64| v.abs() < affine::MAG;
        match a.clone().plus(b.clone()) {
            Some(sum) => {
                proptest::prop_assert_eq!(eval(&sum, at), eval(&a, at) + eval(&b, at));
                proptest::prop_assert!(sum.terms.iter().all(|(_, k)| *k != 0));
            }
            None => proptest::prop_assert!(!fits(k1 + k2) || !fits(c1 + c2)),
        }
        match a.clone().scaled(s) {
            Some(p) => proptest::prop_assert_eq!(eval(&p, at), eval(&a, at) * s),
            None => proptest::prop_assert!(!fits(k1 * s) || !fits(c1 * s)),
        }
    }
}
