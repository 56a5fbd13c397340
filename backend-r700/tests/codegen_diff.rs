//! Differential tests of the examples on the R700 simulator: compile, run
//! (a fault — read port, stack, illegal group — is a code-generator bug)
//! and compare every output with the reference interpreter within spec
//! §7's tolerance, on several random input sets per example, at -O2 and at
//! -O0/-O1 (loops not unrolled, array indices computed at run time).

mod codegen_common;

use codegen_common::{CASES, args_for, check_at, example_program};
use ctm_ir::passes::OptLevel;

fn examples_agree(level: OptLevel, seeds: u64) {
    let mut failures = Vec::new();
    let mut runs = 0;
    for &(name, domain, tol, ranges) in CASES {
        let program = example_program(name);
        let k = &program.kernels[0];
        for seed in 0..seeds {
            let args = args_for(k, domain, seed, ranges);
            match check_at(&program, &args, tol, level) {
                Ok(_) => runs += 1,
                Err(e) => failures.push(format!("{name} seed {seed} {level:?}: {e}")),
            }
        }
    }
    eprintln!(
        "{} examples x {seeds} input sets at {level:?}: {runs} agree, {} differ",
        CASES.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn examples_agree_with_the_reference() {
    examples_agree(OptLevel::O2, 4);
}

#[test]
fn examples_agree_with_the_reference_at_o0_and_o1() {
    examples_agree(OptLevel::O0, 2);
    examples_agree(OptLevel::O1, 2);
}

#[test]
fn every_kernel_example_has_a_differential_case() {
    for name in codegen_common::EXAMPLES {
        if example_program(name).kernels.is_empty() {
            continue;
        }
        assert!(CASES.iter().any(|c| c.0 == *name), "{name}");
    }
}

/// An `if` closes with `ALU_POP_AFTER` (manual Table 3.7) where its last
/// CF instruction is a small ALU clause; the `ELSE` (or the `JUMP`) skips
/// to it, and it runs with no element active there. The programs agree
/// with the reference where some, all and no elements take the branch.
#[test]
fn if_regions_closed_by_alu_pop_after_agree() {
    let then_only = "kernel a(x: In<f32>, r: Out<f32>) {\n    let mut s = x;\n    \
                     if x > 0.5 {\n        s = x * 3.0 + 1.0;\n    }\n    r = s;\n}\n";
    let with_else = "kernel b(x: In<f32>, r: Out<f32>) {\n    let mut s = 0.0;\n    \
                     if x > 0.5 {\n        s = x * 3.0;\n    } else {\n        \
                     s = x - 7.0;\n    }\n    r = s;\n}\n";
    for src in [then_only, with_else] {
        let program = codegen_common::checked(src).expect("checks");
        let k = &program.kernels[0];
        let exe = codegen_common::compile_program(&program, OptLevel::O0).expect("compiles");
        let listing = ctm_backend_r700::isa::format_program(&exe.program);
        assert!(listing.contains("ALU_POP_AFTER"), "{listing}");
        assert!(!listing.contains(" POP "), "{listing}");
        for (lo, hi) in [(0.0, 1.0), (0.6, 1.0), (0.0, 0.4)] {
            let args = args_for(k, (16, 8), 1, |_| (0.0, 1.0));
            let args = ctm_frontend::data::KernelArgs {
                params: args
                    .params
                    .into_iter()
                    .map(|p| match p {
                        ctm_frontend::data::ParamData::Input(mut s) => {
                            if let ctm_frontend::data::StreamBuffer::F32(v) = &mut s.buffer {
                                for x in v.iter_mut() {
                                    *x = lo + (hi - lo) * *x;
                                }
                            }
                            ctm_frontend::data::ParamData::Input(s)
                        }
                        other => other,
                    })
                    .collect(),
                ..args
            };
            check_at(&program, &args, 1e-5, OptLevel::O0).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

/// `args` with every f32 input element `x` in [0, 1) moved to
/// `lo + (hi - lo) · x`.
fn scaled(
    args: ctm_frontend::data::KernelArgs,
    lo: f32,
    hi: f32,
) -> ctm_frontend::data::KernelArgs {
    use ctm_frontend::data::{ParamData, StreamBuffer};
    ctm_frontend::data::KernelArgs {
        params: args
            .params
            .into_iter()
            .map(|p| match p {
                ParamData::Input(mut s) => {
                    if let StreamBuffer::F32(v) = &mut s.buffer {
                        v.iter_mut().for_each(|x| *x = lo + (hi - lo) * *x);
                    }
                    ParamData::Input(s)
                }
                other => other,
            })
            .collect(),
        ..args
    }
}

/// Compiles `src` at `level`, checks its listing with `check`, and runs it
/// against the reference where some, all and no elements take its `if`s.
fn predicated_case(src: &str, level: OptLevel, check: impl Fn(&str) -> bool) {
    let program = codegen_common::checked(src).expect("checks");
    let k = &program.kernels[0];
    let exe = codegen_common::compile_program(&program, level).expect("compiles");
    let listing = ctm_backend_r700::isa::format_program(&exe.program);
    assert!(check(&listing), "{listing}");
    for (lo, hi) in [(0.0, 1.0), (0.8, 1.0), (0.0, 0.2)] {
        for seed in 0..2 {
            let args = scaled(args_for(k, (16, 8), seed, |_| (0.0, 1.0)), lo, hi);
            check_at(&program, &args, 1e-5, level).unwrap_or_else(|e| panic!("{e}\n{listing}"));
        }
    }
}

/// Predication inside the clause (manual §4.9.4): a small `if` of plain
/// ALU work is one clause — an in-clause `PRED_SET` (UPDATE_PRED only)
/// and `PRED_SEL` on the parts' instructions — instead of
/// `ALU_PUSH_BEFORE`/`JUMP`/`ELSE`/`POP`; at -O0 (no if-conversion) every
/// such `if` is predicated.
#[test]
fn predicated_ifs_agree() {
    let in_clause = |l: &str| {
        l.contains("update_pred\n")
            && !l.contains("update_exec")
            && !l.contains("JUMP")
            && !l.contains("ELSE")
            && !l.contains("POP")
    };
    let then_only = "kernel a(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n    \
                     if y > 0.5 {\n        s = y * 3.0 + 1.0;\n    }\n    r = s;\n}\n";
    predicated_case(then_only, OptLevel::O0, |l| {
        in_clause(l) && l.contains("pred:ONE")
    });
    let with_else = "kernel b(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = 0.0;\n    \
                     if y > 0.5 {\n        s = y * 3.0;\n    } else {\n        s = y - 7.0;\n    }\n    \
                     r = s;\n}\n";
    predicated_case(with_else, OptLevel::O0, |l| {
        in_clause(l) && l.contains("pred:ONE") && l.contains("pred:ZERO")
    });
    // Nested: the inner `if` is predicated inside the outer one's taken
    // part, and so is the outer one (`predicate.rs` `nest`: the inner
    // predicates AND the outer condition, which is set again after it).
    let nested = "kernel c(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n    \
                  if y > 0.25 {\n        s = y * 2.0;\n        if y > 0.75 {\n            \
                  s = s + 10.0;\n        }\n        s = s - 1.0;\n    }\n    r = s;\n}\n";
    predicated_case(nested, OptLevel::O0, |l| {
        in_clause(l)
            && !l.contains("ALU_PUSH_BEFORE")
            && l.contains("AND_INT")
            && l.matches("update_pred").count() == 4
    });
}

/// Nested predication (`predicate.rs` `nest`): inner `if`s with and
/// without an else part, two of them in one outer part, an inner `if`
/// inside an outer if/else, all in one ALU clause — no
/// `ALU_PUSH_BEFORE`, no `update_exec` — and agreeing with the reference
/// where elements split at both levels, all take both, and none takes
/// the outer one; three levels, the outer one a branch.
#[test]
fn nested_ifs_are_predicated_in_one_clause() {
    let shapes = [
        "kernel a(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n    \
         if y > 0.25 {\n        s = y * 2.0;\n        if y > 0.75 {\n            s = s + 10.0;\n        \
         } else {\n            s = s * 3.0;\n        }\n    }\n    r = s;\n}\n",
        "kernel b(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n    let mut t = 1.0;\n    \
         if y > 0.2 {\n        s = y * 2.0;\n        if y > 0.5 {\n            s = s + 10.0;\n        }\n        \
         t = s * s;\n        if y < 0.8 {\n            t = t - y;\n        } else {\n            \
         t = t + 4.0;\n        }\n    } else {\n        t = y - 5.0;\n    }\n    r = s + t;\n}\n",
        "kernel c(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = 0.0;\n    \
         if y > 0.4 {\n        if y > 0.6 {\n            s = y * y;\n        } else {\n            \
         s = y + 1.0;\n        }\n    } else {\n        s = y - 2.0;\n    }\n    r = s;\n}\n",
        // Three levels: the middle `if` is predicated with the innermost
        // one nested, and stays inside the outer `if`'s branch (an inner
        // part already holding a nested `if`'s `PRED_SETGT_INT` is not
        // nested again).
        "kernel d(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n    \
         if y > 0.2 {\n        s = s * 2.0;\n        if y > 0.4 {\n            s = s + 1.0;\n            \
         if y > 0.6 {\n                s = s * 3.0;\n            }\n            s = s - 0.5;\n        }\n        \
         s = s + y;\n    }\n    r = s;\n}\n",
    ];
    for src in shapes {
        let program = codegen_common::checked(src).expect("checks");
        let k = &program.kernels[0];
        for level in [OptLevel::O0, OptLevel::O1] {
            let exe = codegen_common::compile_program(&program, level).expect("compiles");
            let listing = ctm_backend_r700::isa::format_program(&exe.program);
            let levels = src.contains("kernel d");
            assert_eq!(
                listing.contains("update_exec"),
                levels,
                "{level:?}\n{listing}"
            );
            assert!(listing.contains("AND_INT"), "{level:?}\n{listing}");
            for (lo, hi) in [(0.0, 1.0), (0.3, 0.7), (0.9, 1.0), (0.0, 0.15)] {
                for seed in 0..2 {
                    let args = scaled(args_for(k, (16, 8), seed, |_| (0.0, 1.0)), lo, hi);
                    check_at(&program, &args, 1e-5, level)
                        .unwrap_or_else(|e| panic!("{level:?} [{lo}, {hi}): {e}\n{listing}"));
                }
            }
        }
    }
}

/// At -O2 the cost model keeps an `if` whose two vector results are
/// computed in both parts for predication (one `PRED_SET` instead of eight
/// `CNDE_INT`s, `cost.rs`): no flow control, fewer slots than the selects.
#[test]
fn vector_ifs_are_predicated_at_o2() {
    let src = "kernel p(x: In<vec4>, y: In<vec4>, u: Out<vec4>, v: Out<vec4>) {\n    \
               let a = x;\n    let b = y;\n    \
               let mut p = a;\n    let mut q = b;\n    if a.x > b.x {\n        p = a * 2.0 + b;\n        \
               q = b - a;\n    } else {\n        p = a - b * 0.5;\n        q = a + b;\n    }\n    \
               u = p;\n    v = q;\n}\n";
    predicated_case(src, OptLevel::O2, |l| {
        l.contains("pred:ONE")
            && l.contains("pred:ZERO")
            && !l.contains("CNDE")
            && !l.contains("JUMP")
            && !l.contains("update_exec")
    });
}

/// The predicate does not outlive its clause (manual §4.9.4, L2014) and an
/// in-clause `PRED_SET` never sits in an `ALU_PUSH_BEFORE` clause (L1185):
/// predicated `if`s after 128-slot runs of literal work (the clause limit,
/// Table 3.2) and inside a loop body, whose last clause is the exit test's
/// `ALU_PUSH_BEFORE`, agree with the reference.
#[test]
fn predicates_stay_in_their_clause() {
    // 30 ops between the `if`s: predicated, each range inside a clause;
    // 70: the scheduler computes each condition (and its PRED_SET) early,
    // so a range would span more than a clause — compiled as branches.
    for (chain, predicated) in [(30, true), (70, false)] {
        long_chain(chain, predicated);
    }
    let looped = "kernel e(x: In<f32>, n: i32, r: Out<f32>) {\n    let y = x;\n    let mut s = 0.0;\n    \
                  for i in 0..n {\n        if y > 0.5 {\n            s = s + y;\n        } else {\n            \
                  s = s - 1.0;\n        }\n    }\n    r = s;\n}\n";
    predicated_case(looped, OptLevel::O0, |l| {
        l.contains("pred:ONE")
            && l.contains("LOOP_START_DX10")
            && l.split("; ALU clause")
                .all(|c| !(c.contains("update_exec") && c.contains("update_pred\n")))
    });
}

fn long_chain(chain: usize, predicated: bool) {
    let mut long =
        String::from("kernel d(x: In<f32>, r: Out<f32>) {\n    let y = x;\n    let mut s = y;\n");
    for k in 0..3 {
        for j in 0..chain {
            long.push_str(&format!(
                "    s = s * 0.{} + {}.25;\n",
                j % 9 + 1,
                j + k + 1
            ));
        }
        long.push_str(&format!(
            "    if y > 0.{} {{\n        s = s * 0.5 + y;\n        s = s - 3.0;\n    }} else {{\n        s = s * 0.25;\n    }}\n",
            3 + 2 * k
        ));
    }
    long.push_str("    r = s;\n}\n");
    predicated_case(&long, OptLevel::O0, |l| {
        l.contains("pred:ONE") == predicated && l.contains("ALU_PUSH_BEFORE") != predicated
    });
}

/// Nested loops: each inner loop is guarded by an `if` whose result is
/// copied back into the outer loop's variable; `coalesce.rs` has the `if`
/// write the loop variable directly (no copy, no pass-through part), so
/// a guard whose result is only copied has no `ELSE`. Uniform trip
/// counts from -1 to 3 (guards skipping and entering) agree with the
/// reference.
#[test]
fn nested_loops_write_loop_variables_directly() {
    let src = "kernel n(x: In<f32>, a: i32, b: i32, c: i32, r: Out<f32>) {\n    let mut s = x;\n    \
               for i in 0..a {\n        for j in 0..b {\n            for k in 0..c {\n                \
               s = s * 0.5 + x;\n            }\n            s = s + 1.0;\n        }\n    }\n    r = s;\n}\n";
    let program = codegen_common::checked(src).expect("checks");
    let k = &program.kernels[0];
    for level in [OptLevel::O0, OptLevel::O2] {
        let exe = codegen_common::compile_program(&program, level).expect("compiles");
        let listing = ctm_backend_r700::isa::format_program(&exe.program);
        if level == OptLevel::O2 {
            // The outer `if` and the innermost one (whose result feeds
            // `s + 1.0`, not a copy) keep their `ELSE`; the middle one,
            // copied into `s`, has none (3 before).
            assert_eq!(listing.matches("ELSE").count(), 2, "{listing}");
        }
        for seed in 0..12 {
            let args = args_for(k, (8, 4), seed, |n| match n {
                "x" => (-2.0, 2.0),
                _ => (-1.0, 4.0),
            });
            check_at(&program, &args, 1e-5, level).unwrap_or_else(|e| panic!("{e}\n{listing}"));
        }
    }
}

/// `ALU_ELSE_AFTER` (manual L2306-2312, L7761; `docs/isa-r700.md` §6 #26):
/// where an `if`'s taken part ends in a plain ALU clause with no
/// `PRED_SET*` and the other part is cheap to run idle, that clause
/// becomes `ALU_ELSE_AFTER` (no push, then ELSE) in place of the `ELSE`.
/// Each shape is compiled at -O0 and -O1 (`dot` in a part keeps it a
/// branch; only the last case's inner `if` is predicated), its CF program
/// counted, and run where some, all and no elements take each branch.
#[test]
fn if_else_shapes_with_alu_else_after_agree() {
    struct Shape {
        src: &'static str,
        /// At -O0 and -O1.
        else_after: [usize; 2],
        elses: usize,
        cf: [usize; 2],
    }
    // `dot` keeps a part from being predicated (`predicate.rs`); the
    // stream is read once, before the `if`.
    let shapes = [
        // One if/else: ALU_PUSH_BEFORE, ALU_ELSE_AFTER, ALU_POP_AFTER.
        Shape {
            src: "kernel a(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = 0.0;\n    \
                  if q.x > 0.5 {\n        s = dot(q, q) * 3.0;\n    } else {\n        \
                  s = q.y - 7.0;\n    }\n    r = s;\n}\n",
            else_after: [1, 1],
            elses: 0,
            cf: [5, 5],
        },
        // Nested in the taken part, which goes on after the inner `if`:
        // both switch with ALU_ELSE_AFTER.
        Shape {
            src: "kernel b(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = 0.0;\n    \
                  if q.x > 0.25 {\n        s = q.y * 2.0;\n        if q.x > 0.75 {\n            \
                  s = s + dot(q, q);\n        } else {\n            s = s - q.z;\n        }\n        \
                  s = s * dot(q, q.wzyx);\n    } else {\n        s = q.w - 1.0;\n    }\n    r = s;\n}\n",
            else_after: [2, 2],
            elses: 0,
            cf: [9, 9],
        },
        // Nested in the other part: the outer part is not cheap to run
        // idle (flow control), so the outer ELSE stays and jumps over it;
        // the inner one switches with ALU_ELSE_AFTER.
        Shape {
            src: "kernel c(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = 0.0;\n    \
                  if q.x > 0.5 {\n        s = dot(q, q);\n    } else {\n        \
                  if q.x > 0.25 {\n            s = dot(q, q.yxwz) + 1.0;\n        } else {\n            \
                  s = q.z - 1.0;\n        }\n    }\n    r = s;\n}\n",
            else_after: [1, 1],
            elses: 1,
            cf: [9, 9],
        },
        // In a loop body (and, at -O0, the guard around the loop, whose
        // other part passes the value through; -O1 knows the loop runs).
        Shape {
            src: "kernel d(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = 0.0;\n    \
                  let mut i = 0.0;\n    while i < 4.0 {\n        if q.x > i * 0.25 {\n            \
                  s = s + dot(q, q);\n        } else {\n            s = s - q.y * 2.0;\n        }\n        \
                  i += 1.0;\n    }\n    r = s;\n}\n",
            else_after: [2, 1],
            elses: 0,
            cf: [13, 10],
        },
        // A JUMP skips the taken part (it holds a loop) and would land on
        // its last clause, too long (over 8 groups) to run idle: the
        // ELSE stays (the loop's guard inside switches with
        // ALU_ELSE_AFTER).
        Shape {
            src: "kernel f(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = 0.0;\n    \
                  if q.x > 0.5 {\n        let mut i = 0.0;\n        while i < q.y * 4.0 {\n            \
                  s = s + dot(q, q);\n            i += 1.0;\n        }\n        \
                  s = sqrt(sqrt(sqrt(sqrt(sqrt(sqrt(sqrt(sqrt(sqrt(s + 1.0)))))))));\n    } else {\n        \
                  s = q.z - 1.0;\n    }\n    r = s;\n}\n",
            else_after: [1, 1],
            elses: 1,
            cf: [0, 0],
        },
        // The taken part's last clause holds the predicated inner `if`'s
        // PRED_SET (which ALU_ELSE_AFTER would push for): the ELSE stays.
        Shape {
            src: "kernel e(v: In<vec4>, r: Out<f32>) {\n    let q = v;\n    let mut s = q.y;\n    \
                  if q.x > 0.25 {\n        s = dot(q, q);\n        if q.x > 0.75 {\n            \
                  s = s + 10.0;\n        }\n        s = s - 1.0;\n    } else {\n        \
                  s = q.z * q.w;\n    }\n    r = s;\n}\n",
            else_after: [0, 0],
            elses: 1,
            cf: [6, 6],
        },
    ];
    for shape in &shapes {
        let program = codegen_common::checked(shape.src).expect("checks");
        let k = &program.kernels[0];
        for (l, level) in [OptLevel::O0, OptLevel::O1].into_iter().enumerate() {
            let exe = codegen_common::compile_program(&program, level).expect("compiles");
            let listing = ctm_backend_r700::isa::format_program(&exe.program);
            let count = |op: &str| {
                listing
                    .lines()
                    .filter(|l| l.split_whitespace().nth(1) == Some(op))
                    .count()
            };
            {
                assert_eq!(count("ALU_ELSE_AFTER"), shape.else_after[l], "{listing}");
                assert_eq!(count("ELSE"), shape.elses, "{listing}");
                // A loop exits through its ALU_BREAK clause and LOOP_END.
                assert_eq!(count("LOOP_BREAK"), 0, "{listing}");
                assert_eq!(count("ALU_BREAK"), count("LOOP_END"), "{listing}");
                if shape.cf[l] > 0 {
                    assert_eq!(exe.program.cf.len(), shape.cf[l], "{listing}");
                }
            }
            eprintln!(
                "{level:?} {} CF instructions:\n{listing}",
                exe.program.cf.len()
            );
            for (lo, hi) in [(0.0, 1.0), (0.6, 1.0), (0.0, 0.2), (0.3, 0.7), (0.8, 1.0)] {
                let args = scaled(args_for(k, (16, 8), 1, |_| (0.0, 1.0)), lo, hi);
                check_at(&program, &args, 1e-5, level)
                    .unwrap_or_else(|e| panic!("{level:?} [{lo}, {hi}): {e}\n{listing}"));
            }
        }
    }
}
