//! Structural invariants: region ownership, arguments and results,
//! acyclicity.

use super::Report;
use crate::graph::{Module, NodeId, RegionId};
use crate::op::Op;
use crate::types::Ty;
use std::collections::HashMap;

/// Returns `false` if the structure is too broken for the other checks.
pub(super) fn check(m: &Module, report: &mut Report) -> bool {
    let before = report.errors.len();
    if m.regions
        .get(m.root.index())
        .and_then(|r| r.as_ref())
        .is_none()
    {
        report.error(m.root, "the root region does not exist");
        return false;
    }
    // Who owns each region, from the structured nodes.
    let mut owners: HashMap<RegionId, NodeId> = HashMap::new();
    for r in m.region_ids() {
        for n in m.nodes(r) {
            for inner in m.node(n).op.regions() {
                if m.regions
                    .get(inner.index())
                    .and_then(|x| x.as_ref())
                    .is_none()
                {
                    report.error(n, format!("names missing region {inner}"));
                    continue;
                }
                if inner == m.root {
                    report.error(n, "names the root region");
                }
                if let Some(prev) = owners.insert(inner, n) {
                    report.error(n, format!("region {inner} is also owned by {prev:?}"));
                }
            }
        }
    }
    for r in m.region_ids() {
        let region = m.region(r);
        if r == m.root {
            if region.owner.is_some() {
                report.error(r, "the root region has an owner");
            }
            let args: Vec<Ty> = m.arguments(r).iter().map(|a| m.ty(*a)).collect();
            if args != [Ty::State] {
                report.error(r, "the root region must take exactly the state");
            }
        } else {
            match (region.owner, owners.get(&r)) {
                (Some(o), Some(&real)) if o == real => {}
                (Some(o), Some(real)) => {
                    report.error(r, format!("owner is {o:?} but {real:?} names it"))
                }
                (_, None) => report.error(r, "no node owns this region"),
                (None, Some(real)) => report.error(r, format!("owner not set, {real:?} names it")),
            }
        }
        let mut arg_count = 0;
        let mut result_count = 0;
        for n in m.nodes(r) {
            match m.node(n).op {
                Op::Argument(i) => {
                    arg_count += 1;
                    if region.arguments.get(i as usize) != Some(&n.index) {
                        report.error(n, format!("argument {i} is not listed as argument {i}"));
                    }
                }
                Op::Result(i) => {
                    result_count += 1;
                    if region.results.get(i as usize) != Some(&n.index) {
                        report.error(n, format!("result {i} is not listed as result {i}"));
                    }
                    if m.has_users(n) {
                        report.error(n, "a result has users");
                    }
                }
                _ => {}
            }
        }
        if arg_count != region.arguments.len() {
            report.error(r, "argument list and argument nodes differ");
        }
        if result_count != region.results.len() {
            report.error(r, "result list and result nodes differ");
        }
        if m.topo_order(r).is_none() {
            report.error(r, "the region has a cycle");
        }
    }
    report.errors.len() == before
}
