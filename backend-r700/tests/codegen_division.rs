//! Float division (`docs/backend-r700.md` §"Division"): the default
//! `a · RECIP_IEEE(b)` with huge divisors scaled is bit for bit the model
//! `--check` uses (`ctm_ir::interp::rcp_division`), and the backend option
//! `Options::exact_division` gives the correctly rounded quotient; the cost
//! of the option over the examples is printed (`--nocapture`).

mod codegen_common;

use codegen_common::{EXAMPLES, Rng, checked, example_program, module, simulate};
use ctm_backend_r700::codegen::{Options, compile, compile_kernel};
use ctm_backend_r700::stats::static_metrics;
use ctm_frontend::data::{KernelArgs, ParamData, StreamBuffer, StreamData};
use ctm_ir::passes::OptLevel;
use ctm_sim::r700::ExportKind;

const W: usize = 256;
const H: usize = 64;

/// Pairs over many magnitudes, with special values and huge divisors.
fn pairs() -> (Vec<f32>, Vec<f32>) {
    let mut rng = Rng::new(3);
    let specials = [
        0.0,
        -0.0,
        1.0,
        3e38,
        -3e38,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        2f32.powi(126),
        1.5 * 2f32.powi(126),
        1e-37,
    ];
    let value = |rng: &mut Rng| {
        let k = rng.next_u64();
        if k.is_multiple_of(16) {
            specials[(k >> 8) as usize % specials.len()]
        } else {
            let e = ((k >> 16) % 120) as i32 - 60;
            rng.float(-1.0, 1.0) * 2f32.powi(e)
        }
    };
    (0..W * H)
        .map(|_| (value(&mut rng), value(&mut rng)))
        .unzip()
}

/// `r = x / y` compiled with `options`, run on the simulator over
/// [`pairs`]: the inputs and the quotients.
fn quotients(options: &Options) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    quotients_of("x / y", options)
}

/// `r = EXPR` of `x` and `y`, as [`quotients`].
fn quotients_of(expr: &str, options: &Options) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let source = format!("kernel d(x: In<f32>, y: In<f32>, r: Out<f32>) {{\n    r = {expr};\n}}\n");
    let program = checked(&source).expect("checks");
    let kernel = &program.kernels[0];
    let exe = compile_kernel(&program, kernel, OptLevel::O2, options).expect("compiles");
    let (xs, ys) = pairs();
    let stream = |v: &Vec<f32>| {
        ParamData::Input(StreamData {
            width: W,
            height: H,
            channels: 1,
            buffer: StreamBuffer::F32(v.clone()),
        })
    };
    let args = KernelArgs {
        domain: (W, H),
        params: vec![stream(&xs), stream(&ys), ParamData::Output],
    };
    let run = simulate(&exe, kernel, &args).expect("runs");
    let out = run.export_f32(ExportKind::Pixel, exe.bindings.outputs[0].export);
    let q = out.iter().map(|v| v[0]).collect();
    (xs, ys, q)
}

#[test]
fn default_division_is_the_check_model_bit_for_bit() {
    let (xs, ys, q) = quotients(&Options::default());
    let mut inexact = 0;
    for k in 0..xs.len() {
        let model = ctm_ir::interp::rcp_division(xs[k], ys[k], true);
        assert_eq!(q[k].to_bits(), model.to_bits(), "{} / {}", xs[k], ys[k]);
        if q[k].to_bits() != ctm_frontend::numerics::div(xs[k], ys[k]).to_bits() {
            inexact += 1;
        }
    }
    // Two roundings: some quotients are not the IEEE ones.
    assert!(inexact > 0);
}

/// Numerators of magnitude at most 1 and the domain's lanes skip the
/// scaling; the results are still the model's bit for bit.
#[test]
fn unscaled_divisions_are_the_model_too() {
    for (expr, numerator) in [
        ("1.0 / y", 1.0f32),
        ("-0.75 / y", -0.75),
        ("-1.0 / y", -1.0),
    ] {
        let (_, ys, q) = quotients_of(expr, &Options::default());
        for k in 0..ys.len() {
            let model = ctm_ir::interp::rcp_division(numerator, ys[k], true);
            let same = q[k].to_bits() == model.to_bits() || (q[k].is_nan() && model.is_nan());
            assert!(same, "{expr}: y = {}: {} not {model}", ys[k], q[k]);
        }
    }
    let (xs, _, q) = quotients_of("x / domain().x", &Options::default());
    for k in 0..xs.len() {
        let model = ctm_ir::interp::rcp_division(xs[k], W as f32, true);
        assert_eq!(q[k].to_bits(), model.to_bits(), "x = {}", xs[k]);
    }
}

#[test]
fn exact_division_option_is_correctly_rounded() {
    let options = Options {
        exact_division: true,
    };
    let (xs, ys, q) = quotients(&options);
    for k in 0..xs.len() {
        let want = ctm_frontend::numerics::div(xs[k], ys[k]);
        let tiny = |v: f32| v != 0.0 && v.abs() < 2f32.powi(-100);
        if q[k].to_bits() == want.to_bits() || (want.is_nan() && q[k].is_nan()) {
            continue;
        }
        // Near the flush limit the estimate is kept (flushed partial
        // products), within about an ulp.
        assert!(
            tiny(xs[k]) || tiny(ys[k]) || tiny(want),
            "{} / {}: {} not {want}",
            xs[k],
            ys[k],
            q[k]
        );
        let ulp = 2f32.powi(-22) * want.abs();
        assert!((q[k] - want).abs() <= ulp, "{} / {}", xs[k], ys[k]);
    }
}

/// The option's cost in ALU groups over the examples that divide.
#[test]
fn exact_division_costs_groups_and_never_saves_any() {
    let exact = Options {
        exact_division: true,
    };
    let (mut fast_total, mut exact_total) = (0, 0);
    for name in EXAMPLES {
        let m = module(&example_program(name), OptLevel::O2);
        let fast = static_metrics(&compile(&m, &Options::default()).expect("compiles"));
        let slow = static_metrics(&compile(&m, &exact).expect("compiles"));
        assert!(slow.alu_groups >= fast.alu_groups, "{name}");
        if slow.alu_groups != fast.alu_groups {
            println!(
                "{name}: {} groups, {} with exact_division",
                fast.alu_groups, slow.alu_groups
            );
        }
        fast_total += fast.alu_groups;
        exact_total += slow.alu_groups;
    }
    println!("all examples: {fast_total} groups, {exact_total} with exact_division");
    assert!(exact_total > fast_total);
}
