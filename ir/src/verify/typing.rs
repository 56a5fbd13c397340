//! Edge and type invariants.

use super::Report;
use crate::graph::{Module, NodeId};
use crate::op::{Op, ParamInfo};
use crate::types::Ty;

pub(super) fn check(m: &Module, report: &mut Report) {
    for r in m.region_ids() {
        for n in m.nodes(r) {
            if ports_ok(m, n, report) {
                node_types(m, n, report);
            }
        }
    }
    root_interface(m, report);
}

/// Every input port 0..k connected exactly once, from an existing output.
fn ports_ok(m: &Module, n: NodeId, report: &mut Report) -> bool {
    let g = &m.region(n.region).graph;
    let mut ports: Vec<u16> = Vec::new();
    let mut ok = true;
    for e in g.incoming(n.index) {
        let src = &g[e.source()];
        if e.weight().from_port as usize >= src.outputs.len() {
            report.error(
                n,
                format!(
                    "input {} reads output {} of a node with {}",
                    e.weight().to_port,
                    e.weight().from_port,
                    src.outputs.len()
                ),
            );
            ok = false;
        }
        ports.push(e.weight().to_port);
    }
    ports.sort_unstable();
    for (i, p) in ports.iter().enumerate() {
        if *p as usize != i {
            report.error(
                n,
                format!("input ports {ports:?} are not 0..{}", ports.len()),
            );
            return false;
        }
    }
    ok
}

fn types_of(m: &Module, values: &[crate::graph::Value]) -> Vec<Ty> {
    values.iter().map(|v| m.ty(*v)).collect()
}

fn node_types(m: &Module, n: NodeId, report: &mut Report) {
    let node = m.node(n);
    let inputs = types_of(m, &m.inputs(n));
    match &node.op {
        Op::Argument(_) => {
            if !inputs.is_empty() || node.outputs.len() != 1 {
                report.error(n, "an argument has inputs or not one output");
            }
        }
        Op::Result(_) => {
            if inputs.len() != 1 || !node.outputs.is_empty() {
                report.error(n, "a result must have one input and no outputs");
            }
        }
        Op::Gamma(g) => {
            if inputs.first() != Some(&Ty::Bool) {
                report.error(n, "gamma predicate is not a bool");
                return;
            }
            for b in g.branches {
                let args = types_of(m, &m.arguments(b));
                if args[..] != inputs[1..] {
                    report.error(
                        n,
                        format!(
                            "branch {b} arguments {args:?} differ from entries {:?}",
                            &inputs[1..]
                        ),
                    );
                }
                let results = types_of(m, &m.results(b));
                if results[..] != node.outputs[..] {
                    report.error(
                        n,
                        format!(
                            "branch {b} results {results:?} differ from outputs {:?}",
                            node.outputs
                        ),
                    );
                }
            }
        }
        Op::Theta(t) => {
            let args = types_of(m, &m.arguments(t.body));
            let results = types_of(m, &m.results(t.body));
            if args != inputs || node.outputs[..] != inputs[..] {
                report.error(
                    n,
                    format!(
                        "theta inputs {inputs:?}, outputs {:?} and body arguments {args:?} differ",
                        node.outputs
                    ),
                );
            }
            if results.first() != Some(&Ty::Bool) || results[1..] != args[..] {
                report.error(
                    n,
                    format!("theta body results {results:?} are not bool followed by {args:?}"),
                );
            }
            if let Some(c) = t.info.counter
                && args.get(c as usize) != Some(&Ty::I32)
            {
                report.error(n, format!("loop counter a{c} is not an i32 argument"));
            }
        }
        op => {
            let params = &m.params;
            match op.result_type(&inputs, |p| params.get(p.index()).map(|p| p.info)) {
                Ok(Some(t)) if node.outputs[..] == [t] => {}
                Ok(t) => report.error(
                    n,
                    format!(
                        "{} gives {t:?} for {inputs:?} but the node says {:?}",
                        op.name(),
                        node.outputs
                    ),
                ),
                Err(e) => report.error(n, e),
            }
        }
    }
}

fn root_interface(m: &Module, report: &mut Report) {
    let mut expected: Vec<Ty> = m
        .params
        .iter()
        .filter_map(|p| match p.info {
            ParamInfo::Output(t) => Some(t),
            _ => None,
        })
        .collect();
    expected.push(Ty::Bool);
    expected.push(Ty::State);
    let results = types_of(m, &m.results(m.root));
    if results != expected {
        report.error(
            m.root,
            format!(
                "root results {results:?}, expected outputs, discard flag and state {expected:?}"
            ),
        );
    }
}
