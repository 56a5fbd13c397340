//! The Graphviz form of a module, printed by `ctmc --emit dot`: every region
//! is a cluster (nested inside the cluster of the region holding its gamma
//! or theta), nodes are labelled with their operation and type, operand
//! edges are solid and run from producer to consumer, and dashed edges tie
//! a gamma or theta to its regions.

use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;
use std::fmt::Write;

/// The module as a Graphviz `digraph`.
pub fn to_dot(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&m.name));
    let _ = writeln!(out, "  compound=true;");
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    cluster(m, m.root, 1, &mut out);
    for r in m.region_ids() {
        for n in m.nodes(r) {
            for (port, v) in m.inputs(n).iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {} -> {} [label=\"{port}\", fontsize=8];",
                    id(v.node),
                    id(n)
                );
            }
        }
    }
    let _ = writeln!(out, "}}");
    out
}

fn id(n: NodeId) -> String {
    format!("r{}n{}", n.region.0, n.index.index())
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn cluster(m: &Module, r: RegionId, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let _ = writeln!(out, "{pad}subgraph cluster_r{} {{", r.0);
    let _ = writeln!(out, "{pad}  label=\"{r}\"; style=rounded;");
    for n in m.nodes(r) {
        let data = m.node(n);
        let types: Vec<String> = data.outputs.iter().map(|t| t.to_string()).collect();
        let label = match &data.op {
            Op::Const(c) => format!("const {c}"),
            op => op.name(),
        };
        let shape = match data.op {
            Op::Argument(_) | Op::Result(_) => ", shape=ellipse",
            Op::Gamma(_) | Op::Theta(_) => ", shape=box3d",
            _ => "",
        };
        let _ = writeln!(
            out,
            "{pad}  {} [label=\"n{} {}\\n{}\"{shape}];",
            id(n),
            n.index.index(),
            escape(&label),
            types.join(", ")
        );
        for inner in data.op.regions() {
            cluster(m, inner, depth + 1, out);
            if let Some(first) = m.region(inner).graph.node_indices().next() {
                let _ = writeln!(
                    out,
                    "{pad}  {} -> {} [style=dashed, lhead=cluster_r{}];",
                    id(n),
                    id(NodeId {
                        region: inner,
                        index: first
                    }),
                    inner.0
                );
            }
        }
    }
    let _ = writeln!(out, "{pad}}}");
}
