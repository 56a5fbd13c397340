//! Effect ordering: the state token is linear.

use super::Report;
use crate::graph::{Module, Value};
use crate::types::Ty;

pub(super) fn check(m: &Module, report: &mut Report) {
    for r in m.region_ids() {
        for n in m.nodes(r) {
            for (port, t) in m.node(n).outputs.iter().enumerate() {
                if *t == Ty::State {
                    let users = m.users(Value {
                        node: n,
                        port: port as u16,
                    });
                    if users.len() > 1 {
                        report.error(
                            n,
                            format!(
                                "state output {port} has {} users; effects must form one chain",
                                users.len()
                            ),
                        );
                    }
                }
            }
        }
    }
}
