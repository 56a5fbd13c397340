//! Whole-program size limits that keep every later stage bounded
//! (issue 13): the depth of helper-call chains (CK0053, every target) and
//! the size of a kernel once its helpers are inlined (CK0054, the targets
//! that inline: x1k and r700). Both are computed from each helper's own
//! size in one pass over the acyclic call graph, without inlining, so a
//! program of exponential inlined size is refused in time linear in its
//! source. `docs/diagnostics.md` documents both bounds.

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, Block, ExprKind, Program};
use crate::types::Target;

/// The deepest chain of helper calls (a kernel calling `f1` calling `f2`
/// ... is depth 2 at `f2`'s call). Lowering, the IR passes and the
/// interpreters recurse once per level, and each level may add up to
/// [`crate::parser::MAX_NESTING`] of expression nesting.
pub const MAX_CALL_DEPTH: u32 = 64;

/// The most expression nodes a kernel may have once every helper call is
/// inlined. No target holds a program near this size (x1k: 512 slots), and
/// it is the cheap early check that keeps the compiler's later passes from
/// spending minutes on a program that cannot fit (issue 13: 100,000
/// chained `let`s, about 500,000 nodes, took 8 minutes to reach CK0072).
pub const MAX_INLINED_NODES: u64 = 100_000;

/// A body's own expression count and the calls it makes.
struct FnInfo {
    own: u64,
    calls: Vec<(usize, Span)>,
}

/// Expression count of `body` and the calls in it.
fn info(body: &Block) -> FnInfo {
    let mut own = 0u64;
    let mut calls = Vec::new();
    tast::walk_block(body, &mut |e| {
        own += 1;
        if let ExprKind::Call { func, .. } = e.kind {
            calls.push((func.index(), e.span));
        }
    });
    FnInfo { own, calls }
}

/// Inlined size and depth of every helper, callees first (the call graph
/// is acyclic: the caller checked for recursion).
fn measure(program: &Program) -> (Vec<u64>, Vec<u32>) {
    let infos: Vec<FnInfo> = program.functions.iter().map(|f| info(&f.body)).collect();
    let n = infos.len();
    let mut size: Vec<Option<u64>> = vec![None; n];
    let mut depth = vec![0u32; n];
    for root in 0..n {
        // Iterative post-order.
        let mut stack = vec![(root, 0usize)];
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if size[f].is_some() {
                stack.pop();
                continue;
            }
            if let Some(&(c, _)) = infos[f].calls.get(*next) {
                *next += 1;
                if c < n && size[c].is_none() && stack.len() <= n {
                    stack.push((c, 0));
                }
            } else {
                let mut s = infos[f].own;
                let mut d = 0;
                for &(c, _) in &infos[f].calls {
                    s = s.saturating_add(size.get(c).copied().flatten().unwrap_or(0));
                    d = d.max(depth.get(c).copied().unwrap_or(0).saturating_add(1));
                }
                size[f] = Some(s);
                depth[f] = d;
                stack.pop();
            }
        }
    }
    let size = size.into_iter().map(|s| s.unwrap_or(0)).collect();
    (size, depth)
}

/// Checks call depth (all targets) and inlined size (x1k, r700) of every
/// kernel and reduction. Call only when there is no recursion.
pub fn check(program: &Program, target: Target, diags: &mut Vec<Diagnostic>) {
    let (size, depth) = measure(program);
    // Depth: the first entry call that starts a chain deeper than the
    // bound (helpers no entry calls are never inlined nor run).
    let kernel_calls = |body: &Block| info(body).calls;
    let entry_deep = || {
        program
            .kernels
            .iter()
            .map(|k| (&k.name, kernel_calls(&k.body)))
            .chain(
                program
                    .reductions
                    .iter()
                    .map(|r| (&r.name, kernel_calls(&r.body))),
            )
            .find_map(|(name, calls)| {
                calls
                    .into_iter()
                    .find(|&(c, _)| depth.get(c).is_some_and(|&d| d + 1 > MAX_CALL_DEPTH))
                    .map(|(c, span)| (name.clone(), c, span))
            })
    };
    if let Some((_, callee, span)) = entry_deep() {
        diags.push(depth_error(program, callee, depth[callee] + 1, span));
        return;
    }
    if target == Target::Ref {
        return;
    }
    let entries = program
        .kernels
        .iter()
        .map(|k| (&k.name, &k.body, k.span))
        .chain(
            program
                .reductions
                .iter()
                .map(|r| (&r.name, &r.body, r.span)),
        );
    for (name, body, span) in entries {
        let own = info(body);
        let total = own.calls.iter().fold(own.own, |s, &(c, _)| {
            s.saturating_add(size.get(c).copied().unwrap_or(0))
        });
        if total > MAX_INLINED_NODES {
            diags.push(
                Diagnostic::new(
                    Code::InlineBudget,
                    span,
                    format!(
                        "`{name}` would have {} expression nodes once its helpers are inlined; \
                         the compiler allows {MAX_INLINED_NODES}",
                        fmt_size(total)
                    ),
                )
                .with_label("this kernel")
                .with_help(
                    "helpers are inlined at every call: a helper that calls another twice \
                     doubles the size; compute shared values once and pass them in",
                ),
            );
        }
    }
}

/// `n`, or "more than 10^18" when the count saturated.
fn fmt_size(n: u64) -> String {
    if n == u64::MAX {
        "more than 10^18".to_string()
    } else {
        n.to_string()
    }
}

fn depth_error(program: &Program, callee: usize, depth: u32, span: Span) -> Diagnostic {
    let name = program
        .functions
        .get(callee)
        .map_or("?", |f| f.name.as_str());
    Diagnostic::new(
        Code::CallsTooDeep,
        span,
        format!(
            "this call of `{name}` starts a chain of {depth} nested helper calls; \
             the compiler allows {MAX_CALL_DEPTH}"
        ),
    )
    .with_label("call chain too deep")
    .with_help("helpers are inlined: flatten the chain, or use a loop")
}
