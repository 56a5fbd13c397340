//! Whole-program limits and diagnostics at scale (issue 13): helper call
//! depth (CK0053), inlined size (CK0054), and the cap on rendered
//! diagnostics.

use ctm_frontend::check::limits::{MAX_CALL_DEPTH, MAX_INLINED_NODES};
use ctm_frontend::diag::{Code, MAX_RENDERED, render};
use ctm_frontend::{CheckOptions, Target, compile};

/// Helpers `f0`..`f{n-1}`, each calling the one before once (`twice`:
/// twice), and a kernel calling the last.
fn chain(n: usize, twice: bool) -> String {
    let mut s = String::from("fn f0(x: f32) -> f32 { x * 1.5 + 1.0 }\n");
    for i in 1..n {
        let call = if twice {
            format!("f{0}(x) + f{0}(x + 1.0)", i - 1)
        } else {
            format!("f{}(x) + 1.0", i - 1)
        };
        s.push_str(&format!("fn f{i}(x: f32) -> f32 {{ {call} }}\n"));
    }
    s.push_str(&format!(
        "kernel k(x: In<f32>, r: Out<f32>) {{ r = f{}(x); }}\n",
        n - 1
    ));
    s
}

fn codes(src: &str, target: Target) -> Vec<Code> {
    compile(src, &CheckOptions { target })
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn call_depth_at_and_past_the_limit() {
    let limit = MAX_CALL_DEPTH as usize;
    for target in [Target::Ref, Target::X1k, Target::R700] {
        assert!(codes(&chain(limit, false), target).is_empty(), "{target:?}");
        assert_eq!(
            codes(&chain(limit + 1, false), target),
            [Code::CallsTooDeep],
            "{target:?}"
        );
    }
    // The reproducer: 4,500 chained helpers (a stack overflow in
    // lowering before).
    let compiled = compile(
        &chain(4500, false),
        &CheckOptions {
            target: Target::X1k,
        },
    );
    assert_eq!(compiled.diagnostics.len(), 1);
    assert!(
        compiled.diagnostics[0].message.contains("4500 nested"),
        "{}",
        compiled.diagnostics[0].message
    );
}

#[test]
fn inlined_size_is_budgeted_for_hardware_targets() {
    // 2^k calls of f0 once inlined: 12 levels fit, 64 levels are about
    // 2^64 nodes and are refused without inlining anything.
    assert!(codes(&chain(12, true), Target::X1k).is_empty());
    for n in [22, 64] {
        for target in [Target::X1k, Target::R700] {
            let c = compile(&chain(n, true), &CheckOptions { target });
            assert_eq!(
                c.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
                [Code::InlineBudget]
            );
            assert!(
                c.diagnostics[0]
                    .message
                    .contains(&MAX_INLINED_NODES.to_string())
            );
        }
        // The reference interpreter does not inline.
        assert!(codes(&chain(n, true), Target::Ref).is_empty());
    }
}

#[test]
fn the_reference_step_limit_counts_calls() {
    use ctm_frontend::data::ParamData;
    use ctm_frontend::interp::{RunOptions, RuntimeError, run_kernel};
    let c = compile(
        &chain(64, true),
        &CheckOptions {
            target: Target::Ref,
        },
    );
    let program = c.program.expect("checks for ref");
    let k = &program.kernels[0];
    let args = ctm_frontend::data::KernelArgs {
        domain: (1, 1),
        params: vec![
            ParamData::Input(ctm_frontend::data::StreamData::zeros(1, 1, 1)),
            ParamData::Output,
        ],
    };
    let e = run_kernel(
        &program,
        k,
        &args,
        &RunOptions {
            max_steps_per_element: 10_000,
        },
    )
    .unwrap_err();
    assert!(matches!(e, RuntimeError::StepLimit { .. }), "{e:?}");
}

/// A kernel with `n` unused locals (one warning each) and, when `error`,
/// one error after them.
fn warnings(n: usize, error: bool) -> String {
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n");
    for i in 0..n {
        s.push_str(&format!("    let v{i} = x;\n"));
    }
    if error {
        s.push_str("    let bad: f32 = 1;\n");
    }
    s.push_str("    r = x;\n}\n");
    s
}

#[test]
fn rendering_is_capped_with_a_count() {
    let src = warnings(2000, true);
    let c = compile(
        &src,
        &CheckOptions {
            target: Target::Ref,
        },
    );
    assert_eq!(c.diagnostics.len(), 2001);
    let text = render(&c.diagnostics, "k.ck", &src, false);
    let shown = text.matches("warning[CK").count() + text.matches("error[CK").count();
    assert_eq!(shown, MAX_RENDERED);
    // The error is shown even though 2000 warnings come first.
    assert!(
        text.contains("error[CK0021]"),
        "{}",
        &text[text.len() - 400..]
    );
    assert!(
        text.ends_with(
            "note: 1901 more warnings not shown (ctmc shows the first 100 diagnostics)\n"
        ),
        "{}",
        &text[text.len() - 200..]
    );
    // Small sets are rendered whole, with no note.
    let few = warnings(3, false);
    let c = compile(
        &few,
        &CheckOptions {
            target: Target::Ref,
        },
    );
    let text = render(&c.diagnostics, "k.ck", &few, false);
    assert_eq!(text.matches("warning[CK0052]").count(), 3);
    assert!(!text.contains("not shown"));
}

#[test]
fn straight_line_code_past_the_budget_is_refused_early() {
    // 100,000 chained `let`s (about 500,000 nodes): CK0054 from the front
    // end instead of minutes in the passes before CK0072.
    let mut s = String::from("kernel k(x: In<f32>, r: Out<f32>) {\n    let v0 = x;\n");
    for i in 1..=100_000 {
        s.push_str(&format!("    let v{i} = v{} * 1.5 + x;\n", i - 1));
    }
    s.push_str("    r = v100000;\n}\n");
    assert_eq!(codes(&s, Target::X1k), [Code::InlineBudget]);
    assert!(codes(&s, Target::Ref).is_empty());
}
