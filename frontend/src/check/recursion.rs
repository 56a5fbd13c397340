//! Rejects recursion among helper functions (spec §2): helpers are
//! inlined, so the call graph must be acyclic.

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::tast::{self, ExprKind, FuncId, Program};

/// Reports every cycle of the call graph once, at a call inside it.
pub fn check(program: &Program, diags: &mut Vec<Diagnostic>) {
    let calls: Vec<Vec<(FuncId, Span)>> = program
        .functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            tast::walk_block(&f.body, &mut |e| {
                if let ExprKind::Call { func, .. } = e.kind {
                    out.push((func, e.span));
                }
            });
            out
        })
        .collect();
    // Iterative depth-first search with colours: 0 new, 1 on stack, 2 done.
    let n = calls.len();
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        colour[root] = 1;
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if let Some(&(callee, span)) = calls[f].get(*next) {
                *next += 1;
                let c = callee.index();
                match colour.get(c) {
                    Some(0) => {
                        colour[c] = 1;
                        stack.push((c, 0));
                    }
                    Some(1) => {
                        let start = stack.iter().position(|&(g, _)| g == c).unwrap_or(0);
                        let chain: Vec<&str> = stack[start..]
                            .iter()
                            .map(|&(g, _)| program.functions[g].name.as_str())
                            .chain(std::iter::once(program.functions[c].name.as_str()))
                            .collect();
                        let message = if chain.len() == 2 {
                            format!("function `{}` calls itself", chain[0])
                        } else {
                            format!("recursive functions: {}", chain.join(" -> "))
                        };
                        diags.push(
                            Diagnostic::new(Code::Recursion, span, message)
                                .with_label("recursive call")
                                .with_secondary(program.functions[c].span, "this function")
                                .with_help(
                                    "helpers are inlined, so recursion is not allowed: use a loop",
                                ),
                        );
                    }
                    _ => {}
                }
            } else {
                colour[f] = 2;
                stack.pop();
            }
        }
    }
}
