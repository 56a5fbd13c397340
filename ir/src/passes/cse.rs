//! Common-subexpression elimination by hash-consing: within each region,
//! two simple nodes with the same operation and the same inputs (in any
//! order for commutative operations) are one node. Scatters, structured
//! nodes, arguments and results are never merged. Regions are processed
//! recursively; values are never shared across regions (scoping).

use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::Op;
use std::collections::HashMap;

/// Runs CSE over the whole module. Returns `true` if anything changed.
pub fn run(m: &mut Module) -> bool {
    let regions: Vec<RegionId> = m.region_ids().collect();
    let mut changed = false;
    for r in regions {
        if m.regions[r.index()].is_some() {
            changed |= region(m, r);
        }
    }
    changed
}

/// The identity of an operation for hashing (constants by their bits).
fn key(op: &Op) -> Option<String> {
    match op {
        Op::Argument(_) | Op::Result(_) | Op::Scatter(_) | Op::Gamma(_) | Op::Theta(_) => None,
        Op::Const(c) => {
            let bits: Vec<String> = match c {
                ctm_frontend::value::Value::Float { lanes, width } => lanes[..*width as usize]
                    .iter()
                    .map(|x| format!("{:08x}", x.to_bits()))
                    .collect(),
                other => vec![format!("{other:?}")],
            };
            Some(format!("const {} {}", c.ty(), bits.join(",")))
        }
        op => Some(op.name()),
    }
}

fn region(m: &mut Module, r: RegionId) -> bool {
    let Some(order) = m.topo_order(r) else {
        return false;
    };
    let mut seen: HashMap<(String, Vec<Value>), NodeId> = HashMap::new();
    let mut changed = false;
    for n in order {
        let Some(k) = key(&m.node(n).op) else {
            continue;
        };
        let mut inputs: Vec<Value> = m.inputs(n).to_vec();
        if m.node(n).op.is_commutative() && inputs.len() == 2 && inputs[1] < inputs[0] {
            inputs.swap(0, 1);
        }
        match seen.get(&(k.clone(), inputs.clone())) {
            Some(&prev) => {
                m.replace_uses(m.output(n, 0), m.output(prev, 0));
                m.remove_node(n);
                changed = true;
            }
            None => {
                seen.insert((k, inputs), n);
            }
        }
    }
    changed
}
