//! Common-subexpression elimination by hash-consing: within each region,
//! two simple nodes with the same operation and the same inputs (in any
//! order for commutative operations) are one node. Scatters, structured
//! nodes, arguments and results are never merged. Regions are processed
//! recursively; values are never shared across regions (scoping).

use crate::fasthash::FastMap;
use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::Op;
use smallvec::SmallVec;
use std::collections::hash_map::Entry;

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

/// The identity of an operation for hashing: the operation with its
/// parameters, constants by type and bits (so `-0.0` and `0.0` differ and
/// equal NaNs merge).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    Float { width: u8, bits: [u32; 4] },
    I32(i32),
    Bool(bool),
    Other(String),
    Uniform(u32),
    UniformElement(u32),
    Input(u32),
    Gather(u32),
    Index,
    Domain,
    Unary(crate::op::UnOp),
    Binary(crate::op::BinOp),
    Mad,
    Dot,
    Compare(crate::op::CmpOp),
    Select,
    LaneSelect(crate::op::LaneCond),
    Splat(u8),
    Swizzle(ctm_frontend::tast::Swizzle),
    Construct,
}

fn key(op: &Op) -> Option<Key> {
    use ctm_frontend::value::Value as C;
    Some(match op {
        Op::Argument(_) | Op::Result(_) | Op::Scatter(_) | Op::Gamma(_) | Op::Theta(_) => {
            return None;
        }
        Op::Const(C::Float { lanes, width }) => {
            let mut bits = [0u32; 4];
            for (b, x) in bits.iter_mut().zip(&lanes[..(*width as usize).min(4)]) {
                *b = x.to_bits();
            }
            Key::Float {
                width: *width,
                bits,
            }
        }
        Op::Const(C::I32(i)) => Key::I32(*i),
        Op::Const(C::Bool(b)) => Key::Bool(*b),
        Op::Const(c) => Key::Other(format!("{c:?}")),
        Op::Uniform(p) => Key::Uniform(p.0),
        Op::UniformElement(p) => Key::UniformElement(p.0),
        Op::Input(p) => Key::Input(p.0),
        Op::Gather(p) => Key::Gather(p.0),
        Op::Index => Key::Index,
        Op::Domain => Key::Domain,
        Op::Unary(u) => Key::Unary(*u),
        Op::Binary(b) => Key::Binary(*b),
        Op::Mad => Key::Mad,
        Op::Dot => Key::Dot,
        Op::Compare(c) => Key::Compare(*c),
        Op::Select => Key::Select,
        Op::LaneSelect(c) => Key::LaneSelect(*c),
        Op::Splat(n) => Key::Splat(*n),
        Op::Swizzle(s) => Key::Swizzle(*s),
        Op::Construct => Key::Construct,
    })
}

fn region(m: &mut Module, r: RegionId) -> bool {
    let Some(order) = m.topo_order(r) else {
        return false;
    };
    let mut seen: FastMap<(Key, SmallVec<[Value; 4]>), NodeId> =
        FastMap::with_capacity_and_hasher(order.len(), Default::default());
    let mut changed = false;
    for n in order {
        let Some(k) = key(&m.node(n).op) else {
            continue;
        };
        let mut inputs = m.inputs(n);
        if m.node(n).op.is_commutative() && inputs.len() == 2 && inputs[1] < inputs[0] {
            inputs.swap(0, 1);
        }
        match seen.entry((k, inputs)) {
            Entry::Occupied(prev) => {
                let prev = *prev.get();
                m.replace_uses(m.output(n, 0), m.output(prev, 0));
                m.remove_node(n);
                changed = true;
            }
            Entry::Vacant(e) => {
                e.insert(n);
            }
        }
    }
    changed
}
