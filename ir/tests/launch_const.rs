//! Launch constants: what `passes::launch_const` hoists and what it leaves,
//! the interpreter's evaluation of the hidden uniforms (bit for bit the
//! reference's, since both use the language's numerics), and the text form
//! of launch expressions (round trip and robustness, proptest).

mod common;

use common::{assert_same, lowered, random_args};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_ir::graph::Module;
use ctm_ir::launch::{ExprNode, LaunchExpr};
use ctm_ir::op::{BinOp, CmpOp, LaneCond, Op, ParamInfo, UnOp};
use ctm_ir::passes::{self, OptLevel, Options};
use ctm_ir::verify;
use proptest::prelude::*;
use smallvec::SmallVec;

/// Runs the launch-constant pass (then DCE) on the lowered kernel and
/// checks the IR interpreter, given only the user's arguments, against
/// the reference bit for bit.
fn hoisted(src: &str) -> Module {
    let (program, mut m) = lowered(src);
    passes::launch_const::run(&mut m);
    verify::check(&m, "launch-const").unwrap_or_else(|e| panic!("{e}"));
    passes::dce::run(&mut m);
    verify::check(&m, "dce").expect("valid");
    // A second run finds nothing new.
    assert!(!passes::launch_const::run(&mut m), "{}", text(&m));
    assert_matches_reference(&program, &m);
    m
}

/// The IR interpreter on `m`, given only the user's arguments, agrees with
/// the reference on `program`'s kernel bit for bit (four random inputs).
fn assert_matches_reference(program: &ctm_frontend::tast::Program, m: &Module) {
    let kernel = &program.kernels[0];
    for seed in 0..4 {
        let args = random_args(kernel, (7, 5), seed);
        let want = run_kernel(program, kernel, &args, &RunOptions::default()).expect("reference");
        let got = ctm_ir::interp::run(m, &args, &RunOptions::default()).expect("IR");
        assert_same(&got, &want, "launch constants", m);
    }
}

/// [`optimised`], with the IR interpreter (given only the user's
/// arguments) checked against the reference bit for bit.
fn optimised_checked(src: &str, level: OptLevel) -> Module {
    let (program, _) = lowered(src);
    let m = optimised(src, level);
    assert_matches_reference(&program, &m);
    m
}

/// The module after the whole pipeline at `level`.
fn optimised(src: &str, level: OptLevel) -> Module {
    let (_, mut m) = lowered(src);
    passes::optimize(&mut m, &Options::new(level)).expect("optimise");
    verify::check(&m, "pipeline").expect("valid");
    m
}

fn text(m: &Module) -> String {
    ctm_ir::print::to_text(m)
}

fn exprs(m: &Module) -> Vec<String> {
    m.launch_constants
        .iter()
        .map(|c| c.expr.to_text())
        .collect()
}

#[test]
fn lighting_hoists_both_normalisations_of_the_uniform() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/kernels/lighting.ck"
    ))
    .expect("lighting.ck");
    let m = optimised_checked(&src, OptLevel::O1);
    assert_eq!(
        exprs(&m),
        [
            "uniform light; dot %0 %0; rsqrt %1; splat3 %2; fmul %0 %3",
            "uniform light; dot %0 %0; rsqrt %1; splat3 %2; fmul %0 %3; \
             const vec3 0x00000000,0x00000000,0x3f800000; fadd %4 %5; dot %6 %6; \
             rsqrt %7; splat3 %8; fmul %6 %9",
        ],
        "{}",
        text(&m)
    );
    // Hidden parameters: last, value uniforms, names no identifier has.
    let user = m.params.len() - 2;
    for (k, c) in m.launch_constants.iter().enumerate() {
        assert_eq!(c.param.index(), user + k);
        assert_eq!(m.params[c.param.index()].name, format!("launch.{k}"));
        assert_eq!(
            m.params[c.param.index()].info,
            ParamInfo::Uniform(ctm_ir::Ty::Float(3))
        );
    }
    // The element code no longer reads `light`.
    let reads_light = m
        .region_ids()
        .flat_map(|r| m.nodes(r))
        .any(|n| matches!(m.node(n).op, Op::Uniform(p) if p.index() == 0));
    assert!(!reads_light, "{}", text(&m));
    // `--emit ir` shows them.
    assert!(text(&m).contains("p4 launch.0: uniform vec3 = launch constant uniform light;"));
}

#[test]
fn free_only_subgraphs_stay() {
    // Negation, abs, swizzles, splats and construction are source
    // modifiers and constant reads: nothing to gain.
    let m = hoisted(
        "kernel k(a: vec3, s: f32, x: In<f32>, r: Out<vec4>) { \
         r = vec4(-abs(a.zyx), s) * vec4(x) + vec4(s); }",
    );
    assert!(m.launch_constants.is_empty(), "{}", text(&m));
}

#[test]
fn element_dependent_operations_stay_and_their_uniform_operands_go() {
    let m = hoisted("kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { r = a * x + b; }");
    assert!(m.launch_constants.is_empty(), "{}", text(&m));
    let m = hoisted(
        "kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { r = (a - b) * x + 1.0 / (a + b); }",
    );
    assert_eq!(
        exprs(&m),
        [
            "uniform a; uniform b; fsub %0 %1",
            "const f32 0x3f800000; uniform a; uniform b; fadd %1 %2; fdiv %0 %3"
        ],
        "{}",
        text(&m)
    );
}

#[test]
fn non_float_results_stay_but_their_costly_float_operands_go() {
    // A uniform comparison stays (a bool has no constant register to live
    // in); the difference it compares is hoisted.
    let m = hoisted(
        "kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { \
         r = if a - b > 0.5 { x } else { -x }; }",
    );
    assert_eq!(
        exprs(&m),
        ["uniform a; uniform b; fsub %0 %1"],
        "{}",
        text(&m)
    );
    let still_compares = m
        .region_ids()
        .flat_map(|r| m.nodes(r))
        .any(|n| matches!(m.node(n).op, Op::Compare(CmpOp::Gt)));
    assert!(still_compares);
    // Integer arithmetic inside a float result is part of the expression.
    let m = hoisted("kernel k(n: i32, x: In<f32>, r: Out<f32>) { r = x * ((n * 3) as f32); }");
    assert_eq!(
        exprs(&m),
        ["uniform n; const i32 3; imul %0 %1; i2f %2"],
        "{}",
        text(&m)
    );
    // An integer result alone is not hoisted.
    let m = hoisted(
        "kernel k(n: i32, x: In<f32>, r: Out<f32>) { r = if n * 3 > 4 { x } else { 0.0 }; }",
    );
    assert!(m.launch_constants.is_empty(), "{}", text(&m));
}

#[test]
fn arrays_need_a_constant_index() {
    let m = hoisted("kernel k(w: [f32; 4], x: In<f32>, r: Out<f32>) { r = x * (w[1] * w[2]); }");
    assert_eq!(
        exprs(&m),
        ["uniform_element w 1; uniform_element w 2; fmul %0 %1"],
        "{}",
        text(&m)
    );
    let m =
        hoisted("kernel k(w: [f32; 4], x: In<f32>, r: Out<f32>) { r = w[x as i32] * w[2] * 2.0; }");
    assert!(m.launch_constants.is_empty(), "{}", text(&m));
}

#[test]
fn matrices_by_column() {
    let m = hoisted("kernel k(m: mat4, v: vec4, x: In<f32>, r: Out<vec4>) { r = (m * v) * x; }");
    assert_eq!(m.launch_constants.len(), 1, "{}", text(&m));
    assert!(
        exprs(&m)[0].starts_with("uniform_element m 0;"),
        "{}",
        text(&m)
    );
}

#[test]
fn not_at_o0_but_at_o1_and_o2() {
    let src = "kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { r = x / (a - b); }";
    assert!(optimised(src, OptLevel::O0).launch_constants.is_empty());
    for level in [OptLevel::O1, OptLevel::O2] {
        let m = optimised(src, level);
        assert_eq!(exprs(&m), ["uniform a; uniform b; fsub %0 %1"], "{level:?}");
    }
}

#[test]
fn inside_branches_and_loops() {
    // In a branch the pass finds it where it is.
    let m = hoisted(
        "kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { \
         if x > 0.5 { r = x * (a * b); } else { r = x + sqrt(a); } }",
    );
    assert_eq!(
        exprs(&m),
        ["uniform a; uniform b; fmul %0 %1", "uniform a; sqrt %0"],
        "{}",
        text(&m)
    );
    // In a loop with a uniform bound (not unrolled), LICM carries the
    // product out first and the pass hoists it there; the loop body keeps
    // no uniform-only multiply.
    let src = "kernel k(a: f32, b: f32, n: i32, x: In<f32>, r: Out<f32>) { \
               let mut acc = 0.0; for i in 0..n { acc += x * (a * b); } r = acc; }";
    let m = optimised(src, OptLevel::O2);
    assert_eq!(
        exprs(&m),
        ["uniform a; uniform b; fmul %0 %1"],
        "{}",
        text(&m)
    );
    // Equal expressions in different regions share one constant.
    let m = hoisted(
        "kernel k(a: f32, b: f32, x: In<f32>, r: Out<f32>) { \
         if x > 0.5 { r = x * (a * b); } else { r = x + a * b; } }",
    );
    assert_eq!(m.launch_constants.len(), 1, "{}", text(&m));
}

#[test]
fn the_interpreter_accepts_all_parameters_too_and_recomputes_the_hidden_ones() {
    let (program, _) = lowered("kernel k(a: f32, x: In<f32>, r: Out<f32>) { r = x * sqrt(a); }");
    let m = hoisted("kernel k(a: f32, x: In<f32>, r: Out<f32>) { r = x * sqrt(a); }");
    let kernel = &program.kernels[0];
    let mut args = random_args(kernel, (3, 2), 7);
    let want = ctm_ir::interp::run(&m, &args, &RunOptions::default()).expect("user args");
    // A value given for the hidden uniform is ignored.
    args.params.push(ctm_frontend::data::ParamData::Uniform(
        ctm_frontend::data::UniformValue::Value(ctm_frontend::value::Value::f32(99.0)),
    ));
    let got = ctm_ir::interp::run(&m, &args, &RunOptions::default()).expect("all args");
    assert_same(&got, &want, "hidden value ignored", &m);
    args.params.pop();
    args.params.pop();
    assert!(ctm_ir::interp::run(&m, &args, &RunOptions::default()).is_err());
}

/// Every operation a launch expression may apply.
fn ops() -> Vec<Op> {
    let mut v: Vec<Op> = Vec::new();
    v.extend(UnOp::ALL.iter().map(|&u| Op::Unary(u)));
    v.extend(BinOp::ALL.iter().map(|&b| Op::Binary(b)));
    v.extend(CmpOp::ALL.iter().map(|&c| Op::Compare(c)));
    v.extend(LaneCond::ALL.iter().map(|&c| Op::LaneSelect(c)));
    v.extend([Op::Mad, Op::Dot, Op::Select, Op::Construct, Op::Splat(3)]);
    v.push(Op::Swizzle(ctm_frontend::tast::Swizzle::new(&[3, 0, 0])));
    v
}

fn node(k: usize) -> impl Strategy<Value = ExprNode> {
    let name = "[a-z_][a-z0-9_]{0,6}";
    let float = prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        Just(f32::NAN),
        Just(-0.0f32),
        Just(f32::NEG_INFINITY),
    ];
    let constant = prop_oneof![
        proptest::collection::vec(float, 1..=4)
            .prop_map(|l| ctm_frontend::value::Value::floats(&l)),
        any::<i32>().prop_map(ctm_frontend::value::Value::I32),
        any::<bool>().prop_map(ctm_frontend::value::Value::Bool),
    ];
    let leaf = prop_oneof![
        constant.prop_map(ExprNode::Const),
        name.prop_map(ExprNode::Uniform),
        (name, any::<i32>()).prop_map(|(n, i)| ExprNode::UniformElement(n, i)),
    ];
    if k == 0 {
        leaf.boxed()
    } else {
        let table = ops();
        prop_oneof![
            leaf,
            (0..table.len(), proptest::collection::vec(0..k as u32, 0..4)).prop_map(
                move |(o, args)| ExprNode::Apply(table[o].clone(), SmallVec::from_vec(args))
            ),
        ]
        .boxed()
    }
}

fn expr() -> impl Strategy<Value = LaunchExpr> {
    (1usize..12)
        .prop_flat_map(|len| (0..len).map(node).collect::<Vec<_>>())
        .prop_map(|nodes| LaunchExpr { nodes })
}

proptest! {
    #[test]
    fn text_round_trips(e in expr()) {
        let text = e.to_text();
        let back = LaunchExpr::parse(&text).expect("parses");
        // Text equality is bit equality of the constants (NaN included).
        prop_assert_eq!(back.to_text(), text);
        prop_assert_eq!(back.nodes.len(), e.nodes.len());
    }

    #[test]
    fn any_text_parses_or_fails_without_panicking(s in "\\PC{0,60}") {
        if let Ok(e) = LaunchExpr::parse(&s) {
            // Whatever parses evaluates without panicking, too.
            let _ = e.evaluate(&|_| None);
        }
    }

    #[test]
    fn mutated_text_fails_cleanly(e in expr(), cut in 0usize..200, junk in "[%;a-z0-9 .]{0,4}") {
        let mut text = e.to_text();
        let at = text.char_indices().map(|(i, _)| i).nth(cut % text.chars().count().max(1)).unwrap_or(0);
        text.insert_str(at, &junk);
        let _ = LaunchExpr::parse(&text).map(|e| e.evaluate(&|_| None));
    }
}

/// The verifier's launch-constant rules (`verify/launch.rs`): each broken
/// form of a valid module is reported, naming what is wrong.
#[test]
fn the_verifier_checks_launch_constants() {
    let src =
        "kernel k(light: vec3, n: In<vec4>, r: Out<f32>) { r = dot(n.xyz, normalize(light)); }";
    let good = optimised(src, OptLevel::O2);
    assert!(!good.launch_constants.is_empty(), "{}", text(&good));
    let message = |m: &Module| match verify::check(m, "test") {
        Ok(()) => String::new(),
        Err(e) => e.to_string(),
    };
    // A hidden parameter without its expression.
    let mut m = good.clone();
    m.launch_constants.clear();
    assert!(
        message(&m).contains("has no launch constant"),
        "{}",
        message(&m)
    );
    // An expression reading a uniform the kernel does not have.
    let mut m = good.clone();
    m.launch_constants[0].expr.nodes[0] = ExprNode::Uniform("shade".into());
    assert!(message(&m).contains("reads `shade`"), "{}", message(&m));
    // A launch constant naming a user's parameter.
    let mut m = good.clone();
    let hidden = m.launch_constants[0].param.index();
    m.params[hidden].name = "light2".into();
    assert!(
        message(&m).contains("not a hidden parameter"),
        "{}",
        message(&m)
    );
    // Two launch constants for one parameter.
    let mut m = good.clone();
    let first = m.launch_constants[0].clone();
    m.launch_constants.push(first);
    assert!(
        message(&m).contains("named by two launch constants"),
        "{}",
        message(&m)
    );
    // An empty expression.
    let mut m = good;
    m.launch_constants[0].expr.nodes.clear();
    assert!(message(&m).contains("empty expression"), "{}", message(&m));
}
