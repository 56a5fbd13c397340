//! The verifier rejects broken modules, one test per invariant, and accepts
//! every lowered example.

use ctm_frontend::tast::{ParamId, ParamKind};
use ctm_frontend::types::{OutputType, Type};
use ctm_frontend::value::Value as Constant;
use ctm_ir::graph::{Module, Param};
use ctm_ir::op::{BinOp, Op, ParamInfo};
use ctm_ir::types::Ty;
use ctm_ir::verify;

/// A valid module: `r = 1.0 + 2.0` with the root results in place.
fn valid() -> Module {
    let mut m = Module::new(
        "k",
        vec![Param {
            name: "r".into(),
            info: ParamInfo::Output(Ty::F32),
            kind: ParamKind::Output(OutputType::F32),
        }],
    );
    let r = m.root;
    let a = m.op(r, Op::Const(Constant::f32(1.0)), &[]);
    let b = m.op(r, Op::Const(Constant::f32(2.0)), &[]);
    let s = m.op(r, Op::Binary(BinOp::FAdd), &[a, b]);
    let f = m.op(r, Op::Const(Constant::Bool(false)), &[]);
    m.add_result(r, s);
    m.add_result(r, f);
    let st = m.argument(r, 0);
    m.add_result(r, st);
    m
}

fn errors(m: &Module) -> String {
    match verify::check(m, "test") {
        Ok(()) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_valid_module_verifies() {
    assert_eq!(errors(&valid()), "");
}

#[test]
fn a_type_error_is_reported() {
    let mut m = valid();
    let r = m.root;
    let i = m.op(r, Op::Const(Constant::I32(1)), &[]);
    let f = m.op(r, Op::Const(Constant::f32(1.0)), &[]);
    let _bad = m.op(r, Op::Binary(BinOp::FAdd), &[i, f]);
    assert!(errors(&m).contains("fadd"), "{}", errors(&m));
}

#[test]
fn a_cross_region_edge_is_reported() {
    let mut m = valid();
    let inner = m.new_region(&[]);
    let outer_value = m.result(m.root, 0);
    m.add_result(inner, outer_value);
    let e = errors(&m);
    assert!(e.contains("crosses regions"), "{e}");
}

#[test]
fn wrong_root_results_are_reported() {
    let mut m = valid();
    let r = m.root;
    let extra = m.op(r, Op::Const(Constant::f32(0.0)), &[]);
    m.add_result(r, extra);
    assert!(errors(&m).contains("root results"));
}

#[test]
fn an_unowned_region_is_reported() {
    let mut m = valid();
    m.new_region(&[Ty::F32]);
    assert!(errors(&m).contains("no node owns this region"));
}

#[test]
fn a_cycle_is_reported() {
    let mut m = valid();
    let r = m.root;
    let a = m.op(r, Op::Const(Constant::f32(1.0)), &[]);
    let x = m.op(r, Op::Binary(BinOp::FAdd), &[a, a]);
    let y = m.op(r, Op::Binary(BinOp::FAdd), &[x, a]);
    m.set_input(x.node, 1, y);
    assert!(errors(&m).contains("cycle"), "{}", errors(&m));
}

#[test]
fn a_duplicated_state_is_reported() {
    let mut m = Module::new(
        "k",
        vec![Param {
            name: "s".into(),
            info: ParamInfo::Scatter,
            kind: ParamKind::Scatter,
        }],
    );
    let r = m.root;
    let st = m.argument(r, 0);
    let p = m.op(r, Op::Const(Constant::floats(&[0.0, 0.0])), &[]);
    let v = m.op(r, Op::Const(Constant::f32(1.0)), &[]);
    let s1 = m.op(r, Op::Scatter(ParamId(0)), &[st, p, v]);
    let _s2 = m.op(r, Op::Scatter(ParamId(0)), &[st, p, v]);
    let f = m.op(r, Op::Const(Constant::Bool(false)), &[]);
    m.add_result(r, f);
    m.add_result(r, s1);
    assert!(errors(&m).contains("one chain"), "{}", errors(&m));
}

#[test]
fn a_gamma_with_mismatched_branches_is_reported() {
    let mut m = valid();
    let r = m.root;
    let c = m.op(r, Op::Const(Constant::Bool(true)), &[]);
    let x = m.op(r, Op::Const(Constant::f32(1.0)), &[]);
    let t = m.new_region(&[Ty::F32]);
    let e = m.new_region(&[Ty::F32]);
    let ta = m.argument(t, 0);
    m.add_result(t, ta);
    let ei = m.op(e, Op::Const(Constant::I32(3)), &[]);
    m.add_result(e, ei);
    m.add_gamma(r, c, &[x], [t, e]);
    assert!(errors(&m).contains("results"), "{}", errors(&m));
}

#[test]
fn a_uniform_of_the_wrong_kind_is_reported() {
    let mut m = Module::new(
        "k",
        vec![Param {
            name: "m".into(),
            info: ParamInfo::Array(Ty::Float(4), 4),
            kind: ParamKind::Uniform(Type::Mat4),
        }],
    );
    let r = m.root;
    let _u = m.op(r, Op::Uniform(ParamId(0)), &[]);
    let f = m.op(r, Op::Const(Constant::Bool(false)), &[]);
    m.add_result(r, f);
    let st = m.argument(r, 0);
    m.add_result(r, st);
    assert!(errors(&m).contains("not a value uniform"), "{}", errors(&m));
}
