//! Robust mode's promise, tested without a GPU: if every approximate
//! operation of a robust kernel is off by as much as spec §7 allows (the
//! primitive transcendentals by 2^-21 relative, `sin`/`cos` by 2^-20
//! absolute, derived functions by their expansion's error), its outputs
//! still match the reference within the kernel's tolerance.
//!
//! The test perturbs the generated syntax tree — `f(x)` becomes
//! `f(x) * (1.0 + r) + a` for each approximate call and float division,
//! with the signs of `r` and `a` drawn per call site — and compares the
//! reference interpreter's outputs on both programs. It also checks that
//! robust outputs are finite, and that exact-mode kernels do fail the same
//! comparison (so that the test can fail).

use ctm_frontend::ast::{AssignOp, BinaryOp, Block, Expr, ExprKind, File, Item, Stmt, StmtKind};
use ctm_frontend::interp::{KernelRun, RunOptions, run_kernel};
use ctm_frontend::{CheckOptions, Span, Target};
use ctm_kernel_gen::{GenOptions, NumericsMode, Rng, generate, random_args};

/// Relative and absolute error of each approximate built-in.
fn error_of(name: &str) -> Option<(f32, f32)> {
    const R21: f32 = 1.0 / 2_097_152.0;
    Some(match name {
        "sqrt" | "rsqrt" | "rcp" | "exp2" | "length" | "distance" => (R21, 0.0),
        "log2" | "log" => (R21, R21),
        "sin" | "cos" => (0.0, 2.0 * R21),
        "normalize" => (2.0 * R21, 0.0),
        "exp" | "pow" => (8.0 * R21, 0.0),
        "tan" => (0.0, 16.0 * R21),
        "smoothstep" => (0.0, 2.0 * R21),
        _ => return None,
    })
}

fn node(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    node(ExprKind::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    })
}

struct Perturb {
    rng: Rng,
    /// +1 or -1 for every site, or a random sign per site.
    sign: Option<f32>,
    /// Multiple of the spec's error bounds.
    scale: f32,
}

impl Perturb {
    fn sign(&mut self) -> f32 {
        self.sign
            .unwrap_or_else(|| if self.rng.percent(50) { 1.0 } else { -1.0 })
    }

    /// `e * (1 + s r) + s' a`.
    fn wrap(&mut self, e: Expr, (rel, abs): (f32, f32)) -> Expr {
        let s1 = self.sign() * self.scale;
        let s2 = self.sign() * self.scale;
        let scaled = bin(BinaryOp::Mul, e, node(ExprKind::Float(1.0 + s1 * rel)));
        if abs == 0.0 {
            scaled
        } else {
            bin(BinaryOp::Add, scaled, node(ExprKind::Float(s2 * abs)))
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => self.expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Call { args, .. } => args.iter_mut().for_each(|a| self.expr(a)),
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::Index { index, .. } => self.expr(index),
            ExprKind::If { cond, then, else_ } => {
                self.expr(cond);
                self.block(then);
                if let Some(x) = else_ {
                    self.expr(x);
                }
            }
            ExprKind::Block(b) => self.block(b),
            _ => {}
        }
        let err = match &e.kind {
            ExprKind::Call { callee, .. } => error_of(&callee.name),
            // Robust x1k kernels divide floats only (no integer `/`).
            ExprKind::Binary {
                op: BinaryOp::Div, ..
            } => Some((1.0 / 2_097_152.0, 0.0)),
            _ => None,
        };
        if let Some(err) = err {
            let inner = std::mem::replace(e, node(ExprKind::Bool(false)));
            *e = self.wrap(inner, err);
        }
    }

    fn block(&mut self, b: &mut Block) {
        for s in &mut b.stmts {
            self.stmt(s);
        }
        if let Some(t) = &mut b.tail {
            self.expr(t);
        }
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) | StmtKind::Return(Some(e)) => {
                self.expr(e)
            }
            StmtKind::Assign { target, op, value } => {
                self.expr(target);
                self.expr(value);
                if *op == AssignOp::Compound(BinaryOp::Div) {
                    // `v /= d` is `v = v / d`, perturbed as a division.
                    let quotient = bin(BinaryOp::Div, target.clone(), value.clone());
                    *value = self.wrap(quotient, (1.0 / 2_097_152.0, 0.0));
                    *op = AssignOp::Assign;
                }
            }
            StmtKind::For { body, .. } | StmtKind::Loop { body } => self.block(body),
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.block(body);
            }
            _ => {}
        }
    }

    fn file(&mut self, f: &mut File) {
        for item in &mut f.items {
            match item {
                Item::Fn(f) => self.block(&mut f.body),
                Item::Kernel(k) => self.block(&mut k.body),
                _ => {}
            }
        }
    }
}

fn run(file: &File, name: &str, seed: u64, mode: NumericsMode) -> Result<KernelRun, String> {
    let (program, diags) = ctm_frontend::check::check(
        file,
        &CheckOptions {
            target: Target::X1k,
        },
    );
    let program = program.ok_or_else(|| format!("does not check: {diags:?}"))?;
    let kernel = program.kernel(name).ok_or("no kernel")?;
    let args = random_args(kernel, (5, 4), seed, mode);
    run_kernel(&program, kernel, &args, &RunOptions::default()).map_err(|e| e.to_string())
}

/// The first output value of `b` that is not within `tol` of `a`'s.
fn mismatch(a: &KernelRun, b: &KernelRun, tol: f32) -> Option<String> {
    for (x, y) in a.outputs.iter().zip(&b.outputs) {
        let (xs, ys) = (x.data.as_f32()?, y.data.as_f32()?);
        for (i, (r, g)) in xs.iter().zip(ys).enumerate() {
            let same = (r.is_nan() && g.is_nan()) || (g - r).abs() <= tol * r.abs().max(1.0);
            if !same {
                return Some(format!("{}[{i}]: reference {r}, perturbed {g}", x.name));
            }
        }
    }
    None
}

/// Runs `seeds` kernels perturbed three ways; returns the failures.
fn failures(mode: NumericsMode, seeds: u64) -> Vec<String> {
    let o = GenOptions::new(Target::X1k, mode);
    let mut out = Vec::new();
    for seed in 0..seeds {
        let k = generate(seed, &o);
        let reference = match run(&k.file, &k.kernel_name, seed, mode) {
            Ok(r) => r,
            Err(e) => {
                out.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        if mode == NumericsMode::Robust {
            let finite = reference.outputs.iter().all(|o| {
                o.data
                    .as_f32()
                    .is_some_and(|v| v.iter().all(|x| x.is_finite()))
            });
            if !finite {
                out.push(format!("seed {seed}: non-finite output\n{}", k.source));
                continue;
            }
        }
        for sign in [Some(1.0), Some(-1.0), None] {
            let mut file = k.file.clone();
            Perturb {
                rng: Rng::new(seed),
                sign,
                scale: 1.0,
            }
            .file(&mut file);
            match run(&file, &k.kernel_name, seed, mode) {
                Ok(perturbed) => {
                    if let Some(m) = mismatch(&reference, &perturbed, k.tolerance()) {
                        out.push(format!("seed {seed} (signs {sign:?}): {m}\n{}", k.source));
                        break;
                    }
                }
                Err(e) => {
                    out.push(format!("seed {seed}: perturbed program: {e}"));
                    break;
                }
            }
        }
    }
    out
}

#[test]
fn robust_kernels_tolerate_spec_sized_errors() {
    let f = failures(NumericsMode::Robust, 400);
    assert!(
        f.is_empty(),
        "{} of 400 robust kernels fail; the first:\n{}",
        f.len(),
        f.first().map_or("", String::as_str)
    );
}

#[test]
fn exact_kernels_do_not_all_tolerate_them() {
    // Exact mode makes no such promise: the comparison must catch some.
    let f = failures(NumericsMode::Exact, 150);
    assert!(f.len() >= 3, "only {} exact kernels differ", f.len());
}

/// How robust kernels fare when every approximate operation is off by
/// `scale` times the spec's bound: (kernels whose outputs change at all,
/// kernels out of tolerance, worst error as a fraction of the tolerance).
fn margin(scale: f32, seeds: u64) -> (u32, u32, f32) {
    let o = GenOptions::new(Target::X1k, NumericsMode::Robust);
    let (mut differ, mut fail, mut worst) = (0, 0, 0.0f32);
    for seed in 0..seeds {
        let k = generate(seed, &o);
        let Ok(reference) = run(&k.file, &k.kernel_name, seed, NumericsMode::Robust) else {
            fail += 1;
            continue;
        };
        let mut file = k.file.clone();
        Perturb {
            rng: Rng::new(seed),
            sign: None,
            scale,
        }
        .file(&mut file);
        let Ok(perturbed) = run(&file, &k.kernel_name, seed, NumericsMode::Robust) else {
            fail += 1;
            continue;
        };
        let mut changed = false;
        for (x, y) in reference.outputs.iter().zip(&perturbed.outputs) {
            let (Some(xs), Some(ys)) = (x.data.as_f32(), y.data.as_f32()) else {
                continue;
            };
            for (r, g) in xs.iter().zip(ys) {
                changed |= r.to_bits() != g.to_bits();
                worst = worst.max((g - r).abs() / r.abs().max(1.0) / k.tolerance());
            }
        }
        differ += u32::from(changed);
        fail += u32::from(mismatch(&reference, &perturbed, k.tolerance()).is_some());
    }
    (differ, fail, worst)
}

/// The error model has room to spare, and approximations do reach the
/// outputs of a good share of robust kernels (not only dead code).
#[test]
fn robust_margin_and_liveness() {
    let seeds = 400;
    let (differ, fail, worst) = margin(16.0, seeds);
    println!(
        "16x the spec's errors: {differ} of {seeds} kernels change, {fail} fail, worst {worst} of the tolerance"
    );
    assert_eq!(fail, 0, "robust kernels fail at 16x the spec's errors");
    assert!(
        differ >= seeds as u32 / 5,
        "approximations reach the outputs of only {differ} kernels"
    );
    // Far beyond the model, failures must show up: the comparison works.
    let (_, fail, _) = margin(65536.0, 100);
    assert!(
        fail > 0,
        "even huge errors pass: the perturbation is not applied"
    );
}
