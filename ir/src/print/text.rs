//! The text form of a module, printed by `ctmc --emit ir`.
//!
//! ```text
//! kernel saxpy
//!   p0 a: uniform f32
//!   p1 x: input f32
//! r0(a0: state) {
//!   n2: f32 = uniform p0
//!   n3: f32 = mad n2, n4, n5
//!   results(n3, n6, a0)
//! }
//! ```
//!
//! Values are named `nN` (output 0 of node N), `nN.k` (output k) or `aI`
//! (argument I of the enclosing region). Nodes are listed in dependency
//! order; gammas and thetas print their regions indented under them, and
//! notes (such as if-conversion decisions) follow `;`.

use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::{Op, ParamInfo};
use ctm_frontend::value::Value as Constant;
use std::fmt::Write;

/// The module as text.
pub fn to_text(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "kernel {}", m.name);
    for (i, p) in m.params.iter().enumerate() {
        let what = match p.info {
            ParamInfo::Uniform(t) => format!("uniform {t}"),
            ParamInfo::Array(t, n) => format!("uniform [{t}; {n}]"),
            ParamInfo::Input(t) => format!("input {t}"),
            ParamInfo::Output(t) => format!("output {t}"),
            ParamInfo::Scatter => "scatter f32".to_string(),
        };
        match m.launch_constant(ctm_frontend::tast::ParamId(i as u32)) {
            Some(c) => {
                let _ = writeln!(
                    out,
                    "  p{i} {}: {what} = launch constant {}",
                    p.name,
                    c.expr.to_text()
                );
            }
            None => {
                let _ = writeln!(out, "  p{i} {}: {what}", p.name);
            }
        }
    }
    if let Some(v) = m.input_padding {
        let _ = writeln!(
            out,
            "  input padded with ({}, {}, {}, {})",
            v[0], v[1], v[2], v[3]
        );
    }
    region(m, m.root, 0, &mut out);
    out
}

/// How a value is written in the text.
pub fn value_name(m: &Module, v: Value) -> String {
    match m.node(v.node).op {
        Op::Argument(i) => format!("a{i}"),
        _ if v.port == 0 => format!("n{}", v.node.index.index()),
        _ => format!("n{}.{}", v.node.index.index(), v.port),
    }
}

fn constant(c: &Constant) -> String {
    c.to_string()
}

fn region(m: &Module, r: RegionId, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let args: Vec<String> = m
        .arguments(r)
        .iter()
        .enumerate()
        .map(|(i, a)| format!("a{i}: {}", m.ty(*a)))
        .collect();
    let _ = writeln!(out, "{pad}{r}({}) {{", args.join(", "));
    let order = m.topo_order(r).unwrap_or_else(|| m.nodes(r));
    for n in order {
        node(m, n, depth + 1, out);
    }
    let results: Vec<String> = m.results(r).iter().map(|v| value_name(m, *v)).collect();
    let _ = writeln!(out, "{pad}  results({})", results.join(", "));
    let _ = writeln!(out, "{pad}}}");
}

fn node(m: &Module, n: NodeId, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let data = m.node(n);
    if matches!(data.op, Op::Argument(_) | Op::Result(_)) {
        return;
    }
    let defs: Vec<String> = data
        .outputs
        .iter()
        .enumerate()
        .map(|(p, t)| {
            format!(
                "{}: {t}",
                value_name(
                    m,
                    Value {
                        node: n,
                        port: p as u16
                    }
                )
            )
        })
        .collect();
    let inputs: Vec<String> = m.inputs(n).iter().map(|v| value_name(m, *v)).collect();
    let note = m
        .notes
        .get(&n)
        .map(|s| format!("  ; {s}"))
        .unwrap_or_default();
    match &data.op {
        Op::Const(c) => {
            let _ = writeln!(
                out,
                "{pad}{} = const {}{note}",
                defs.join(", "),
                constant(c)
            );
        }
        Op::Gamma(g) => {
            let _ = writeln!(
                out,
                "{pad}{} = gamma {} ({}){note}",
                defs.join(", "),
                inputs.first().cloned().unwrap_or_default(),
                inputs.get(1..).unwrap_or_default().join(", ")
            );
            let _ = writeln!(out, "{pad}  then:");
            region(m, g.branches[0], depth + 2, out);
            let _ = writeln!(out, "{pad}  else:");
            region(m, g.branches[1], depth + 2, out);
        }
        Op::Theta(t) => {
            let mut facts = Vec::new();
            if let Some(n) = t.info.exact_trips {
                facts.push(format!("trips={n}"));
            } else if let Some(n) = t.info.max_trips {
                facts.push(format!("trips<={n}"));
            }
            if let Some(c) = t.info.counter {
                facts.push(format!("counter=a{c}"));
            }
            let facts = if facts.is_empty() {
                String::new()
            } else {
                format!(" [{}]", facts.join(" "))
            };
            let _ = writeln!(
                out,
                "{pad}{} = theta ({}){facts}{note}",
                defs.join(", "),
                inputs.join(", ")
            );
            region(m, t.body, depth + 1, out);
        }
        op => {
            let _ = writeln!(
                out,
                "{pad}{} = {} {}{note}",
                defs.join(", "),
                op.name(),
                inputs.join(", ")
            );
        }
    }
}
