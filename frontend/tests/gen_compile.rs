//! The generator's contract with the front end and the reference
//! interpreter: for every target and numerics mode, a thousand seeds give
//! programs that check without errors (warnings are fine), whose kernel
//! runs on `random_args` without a runtime error (no runaway loop, no
//! argument mismatch).
//!
//! `generated_source_compiles_and_runs` goes through the text and the
//! parser (`ctm_frontend::compile`); `generated_trees_check` checks the
//! generated syntax tree directly (so that a parser bug and a generator bug
//! look different); `generated_source_parses_to_the_tree` checks that the
//! text is exactly the tree. Set `GEN_SEEDS=N` to run N seeds.

use ctm_frontend::ast::{Block, Expr, ExprKind, File, Item, StmtKind};
use ctm_frontend::interp::{RunOptions, run_kernel};
use ctm_frontend::tast::Program;
use ctm_frontend::{CheckOptions, Diagnostic, Severity, Target, compile};
use ctm_kernel_gen::{GenOptions, GeneratedKernel, NumericsMode, generate, random_args};

/// The front end under test: a generated kernel to its checked program
/// and diagnostics.
type Front = dyn Fn(&GeneratedKernel) -> (Option<Program>, Vec<Diagnostic>) + Sync;

/// Whether to run the kernel after checking it.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    Yes,
    No,
}

const TARGETS: [Target; 3] = [Target::X1k, Target::R700, Target::Ref];
const MODES: [NumericsMode; 2] = [NumericsMode::Exact, NumericsMode::Robust];

fn seeds() -> u64 {
    std::env::var("GEN_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000)
}

fn errors(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// Checks one seed through `front` (tree or text) and runs its kernel.
fn one(
    seed: u64,
    target: Target,
    mode: NumericsMode,
    front: &Front,
    run: Run,
) -> Result<(), String> {
    let o = GenOptions::new(target, mode);
    let k = generate(seed, &o);
    let (program, diags) = front(&k);
    let errs = errors(&diags);
    if !errs.is_empty() {
        return Err(format!(
            "seed {seed} {target} {mode:?}: {}\n{}",
            errs.join("; "),
            k.source
        ));
    }
    let program = program.ok_or(format!("seed {seed} {target} {mode:?}: no program"))?;
    let kernel = program
        .kernel(&k.kernel_name)
        .ok_or(format!("seed {seed}: no kernel {}", k.kernel_name))?;
    if run == Run::No {
        return Ok(());
    }
    // Domains of a few shapes, one of them a single row.
    let domain = [(4, 3), (5, 1), (3, 4)][(seed % 3) as usize];
    let args = random_args(kernel, domain, seed, mode);
    run_kernel(&program, kernel, &args, &RunOptions::default())
        .map(|_| ())
        .map_err(|e| format!("seed {seed} {target} {mode:?}: {e}\n{}", k.source))
}

/// Runs every target, mode and seed on all cores; returns the failures.
fn all(front: &Front, run: Run) -> Vec<String> {
    let n = seeds();
    let threads = std::thread::available_parallelism().map_or(2, |p| p.get());
    let jobs: Vec<(Target, NumericsMode)> = TARGETS
        .iter()
        .flat_map(|&t| MODES.iter().map(move |&m| (t, m)))
        .collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|part| {
                let jobs = &jobs;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for &(target, mode) in jobs {
                        for seed in (part..n).step_by(threads) {
                            if let Err(e) = one(seed, target, mode, front, run) {
                                failures.push(e);
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec!["a worker panicked".into()])
            })
            .collect()
    })
}

#[test]
fn generated_trees_check() {
    let failures = all(
        &|k| ctm_frontend::check::check(&k.file, &CheckOptions { target: k.target }),
        Run::No,
    );
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}

/// Through the text: every generated source compiles without errors, and
/// its kernel runs on `random_args` without a runtime error.
#[test]
fn generated_source_compiles_and_runs() {
    let failures = all(
        &|k| {
            let c = compile(&k.source, &CheckOptions { target: k.target });
            (c.program, c.diagnostics)
        },
        Run::Yes,
    );
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}

/// Folds a final `if` statement of every block into the block's tail, as
/// the parser reads it (`docs/syntax.md` §3.1), so that trees compare.
fn fold_final_if(b: &mut Block) {
    fn expr(e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                expr(lhs);
                expr(rhs);
            }
            ExprKind::Call { args, .. } => args.iter_mut().for_each(expr),
            ExprKind::Field { base, .. } => expr(base),
            ExprKind::Index { base, index } => {
                expr(base);
                expr(index);
            }
            ExprKind::If { cond, then, else_ } => {
                expr(cond);
                fold_final_if(then);
                if let Some(x) = else_ {
                    expr(x);
                }
            }
            ExprKind::Block(b) => fold_final_if(b),
            _ => {}
        }
    }
    for s in &mut b.stmts {
        match &mut s.kind {
            StmtKind::Let { init: Some(e), .. } | StmtKind::Expr(e) | StmtKind::Return(Some(e)) => {
                expr(e)
            }
            StmtKind::Assign { target, value, .. } => {
                expr(target);
                expr(value);
            }
            StmtKind::For {
                start, end, body, ..
            } => {
                expr(start);
                expr(end);
                fold_final_if(body);
            }
            StmtKind::While { cond, body } => {
                expr(cond);
                fold_final_if(body);
            }
            StmtKind::Loop { body } => fold_final_if(body),
            _ => {}
        }
    }
    if let Some(t) = &mut b.tail {
        expr(t);
    }
    let final_if = matches!(
        b.stmts.last().map(|s| &s.kind),
        Some(StmtKind::Expr(Expr {
            kind: ExprKind::If { .. } | ExprKind::Block(_),
            ..
        }))
    );
    if b.tail.is_none()
        && final_if
        && let Some(StmtKind::Expr(e)) = b.stmts.pop().map(|s| s.kind)
    {
        b.tail = Some(Box::new(e));
    }
}

fn canonical(mut f: File) -> String {
    for item in &mut f.items {
        match item {
            Item::Fn(f) => fold_final_if(&mut f.body),
            Item::Kernel(k) => fold_final_if(&mut k.body),
            _ => {}
        }
    }
    ctm_frontend::print::print_file(&f)
}

/// The printed text means exactly the generated tree: parsing it gives
/// the same tree (compared through the front end's canonical printer).
#[test]
fn generated_source_parses_to_the_tree() {
    let mut failures = Vec::new();
    for target in TARGETS {
        for mode in MODES {
            let o = GenOptions::new(target, mode);
            for seed in 0..seeds() / 4 {
                let k = generate(seed, &o);
                let (parsed, diags) = ctm_frontend::parser::parse(&k.source);
                let Some(parsed) = parsed else {
                    failures.push(format!("seed {seed}: does not parse: {diags:?}"));
                    continue;
                };
                let (want, got) = (canonical(k.file.clone()), canonical(parsed));
                if want != got {
                    let line = want
                        .lines()
                        .zip(got.lines())
                        .find(|(a, b)| a != b)
                        .map_or(String::new(), |(a, b)| {
                            format!("\n  tree:   {a}\n  parsed: {b}")
                        });
                    failures.push(format!(
                        "seed {seed} {target} {mode:?}:{line}\n{}",
                        k.source
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures; the first:\n{}",
        failures.len(),
        failures.first().map_or("", String::as_str)
    );
}
