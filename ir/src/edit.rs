//! Structural edits used by the passes: copying a region's nodes into
//! another region (inlining a branch, unrolling a loop), and removing
//! inputs and outputs of gammas and thetas.

use crate::fasthash::FastMap as HashMap;
use crate::graph::{Module, NodeId, RegionId, Value};
use crate::op::{Gamma, Op, Theta};

/// Copies the nodes of region `src` into region `dst`, with `src`'s
/// arguments replaced by `args` (values of `dst`); nested regions are
/// copied too. Returns the values of `dst` that correspond to `src`'s
/// results. `src` itself is left unchanged.
pub fn copy_region_into(
    m: &mut Module,
    src: RegionId,
    dst: RegionId,
    args: &[Value],
) -> Vec<Value> {
    let order = m.topo_order(src).unwrap_or_else(|| m.nodes(src));
    let mut map: HashMap<NodeId, NodeId> = HashMap::default();
    let mut arg_values: HashMap<NodeId, Value> = HashMap::default();
    for (i, &a) in m.region(src).arguments.clone().iter().enumerate() {
        arg_values.insert(
            NodeId {
                region: src,
                index: a,
            },
            args[i],
        );
    }
    let translate =
        |map: &HashMap<NodeId, NodeId>, arg_values: &HashMap<NodeId, Value>, v: Value| -> Value {
            match arg_values.get(&v.node) {
                Some(a) => *a,
                None => Value {
                    node: map[&v.node],
                    port: v.port,
                },
            }
        };
    for id in order {
        let node = m.node(id).clone();
        if matches!(node.op, Op::Argument(_) | Op::Result(_)) {
            continue;
        }
        let inputs: Vec<Value> = m
            .inputs(id)
            .iter()
            .map(|v| translate(&map, &arg_values, *v))
            .collect();
        let op = match node.op {
            Op::Gamma(g) => Op::Gamma(Gamma {
                branches: [
                    clone_region(m, g.branches[0]),
                    clone_region(m, g.branches[1]),
                ],
            }),
            Op::Theta(t) => Op::Theta(Theta {
                body: clone_region(m, t.body),
                info: t.info,
            }),
            op => op,
        };
        let regions = op.regions();
        let new = m.add_node(dst, op, &inputs, &node.outputs);
        for r in regions {
            m.region_mut(r).owner = Some(new);
        }
        if let Some(note) = m.notes.get(&id).cloned() {
            m.notes.insert(new, note);
        }
        map.insert(id, new);
    }
    m.results(src)
        .into_iter()
        .map(|v| translate(&map, &arg_values, v))
        .collect()
}

/// A detached deep copy of region `r` (owner unset).
pub fn clone_region(m: &mut Module, r: RegionId) -> RegionId {
    let types: Vec<_> = m.arguments(r).iter().map(|a| m.ty(*a)).collect();
    let copy = m.new_region(&types);
    let args = m.arguments(copy);
    let results = copy_region_into(m, r, copy, &args);
    for v in results {
        m.add_result(copy, v);
    }
    copy
}

/// Replaces the structured node `n` by the contents of its region `r`
/// (run on the node's inputs `args`): each output `k` of `n` becomes
/// `r`'s result `k + skip`. Removes `n` and its regions.
pub fn inline_structured(m: &mut Module, n: NodeId, r: RegionId, args: &[Value], skip: usize) {
    let results = copy_region_into(m, r, n.region, args);
    for (k, v) in results.iter().skip(skip).enumerate() {
        m.replace_uses(m.output(n, k), *v);
    }
    m.remove_node(n);
}

/// Renumbers `Argument` nodes of `r` after removing argument `k`.
fn remove_argument(m: &mut Module, r: RegionId, k: usize) {
    let arg = NodeId {
        region: r,
        index: m.region(r).arguments[k],
    };
    m.region_mut(r).graph.remove_node(arg.index);
    m.region_mut(r).arguments.remove(k);
    let args = m.region(r).arguments.clone();
    for (i, a) in args.iter().enumerate() {
        m.region_mut(r).graph[*a].op = Op::Argument(i as u32);
    }
}

/// Removes result `k` of `r`, renumbering the others.
fn remove_result(m: &mut Module, r: RegionId, k: usize) {
    let res = m.region(r).results[k];
    m.region_mut(r).graph.remove_node(res);
    m.region_mut(r).results.remove(k);
    let results = m.region(r).results.clone();
    for (i, n) in results.iter().enumerate() {
        m.region_mut(r).graph[*n].op = Op::Result(i as u32);
    }
}

/// Shifts the ports of `n`'s input edges above `port` down by one, after
/// that input was removed.
fn remove_input_port(m: &mut Module, n: NodeId, port: u16) {
    let g = &mut m.region_mut(n.region).graph;
    let edges: Vec<_> = g
        .incoming(n.index)
        .map(|e| (e.id(), e.weight().to_port))
        .collect();
    for (id, p) in edges {
        if p == port {
            g.remove_edge(id);
        } else if p > port
            && let Some(w) = g.edge_weight_mut(id)
        {
            w.to_port -= 1;
        }
    }
}

/// Shifts the ports of `n`'s output edges above `port` down by one, after
/// that output (which must be unused) was removed.
fn remove_output_port(m: &mut Module, n: NodeId, port: u16) {
    let g = &mut m.region_mut(n.region).graph;
    let edges: Vec<_> = g
        .outgoing(n.index)
        .map(|e| (e.id(), e.weight().from_port))
        .collect();
    for (id, p) in edges {
        if p > port
            && let Some(w) = g.edge_weight_mut(id)
        {
            w.from_port -= 1;
        }
    }
    g[n.index].outputs.remove(port as usize);
}

/// Removes the unused output `k` of gamma `g` (and the matching results of
/// both branches).
pub fn remove_gamma_output(m: &mut Module, g: NodeId, k: usize) {
    let Op::Gamma(gamma) = m.node(g).op else {
        return;
    };
    for b in gamma.branches {
        remove_result(m, b, k);
    }
    remove_output_port(m, g, k as u16);
}

/// Removes entry `k` of gamma `g` (input `k + 1`), whose argument must be
/// unused in both branches.
pub fn remove_gamma_entry(m: &mut Module, g: NodeId, k: usize) {
    let Op::Gamma(gamma) = m.node(g).op else {
        return;
    };
    for b in gamma.branches {
        remove_argument(m, b, k);
    }
    remove_input_port(m, g, k as u16 + 1);
}

/// Removes loop variable `k` of theta `t`: its input, output, body argument
/// and body result. The output must be unused and the argument used at most
/// by the matching result.
pub fn remove_theta_var(m: &mut Module, t: NodeId, k: usize) {
    let Op::Theta(theta) = m.node(t).op else {
        return;
    };
    remove_result(m, theta.body, k + 1);
    remove_argument(m, theta.body, k);
    remove_input_port(m, t, k as u16);
    remove_output_port(m, t, k as u16);
    if let Op::Theta(th) = &mut m.node_mut(t).op {
        th.info.counter = match th.info.counter {
            Some(c) if c as usize == k => None,
            Some(c) if c as usize > k => Some(c - 1),
            other => other,
        };
    }
}

/// Adds a loop variable to theta `t` that enters as `init` and never
/// changes; returns its argument in the body.
pub fn add_invariant_theta_var(m: &mut Module, t: NodeId, init: Value) -> Value {
    let Op::Theta(th) = m.node(t).op else {
        return init;
    };
    let k = m.node(t).outputs.len();
    let ty = m.ty(init);
    let body = th.body;
    let arg = m.region_mut(body).graph.add_node(crate::graph::Node {
        op: Op::Argument(k as u32),
        outputs: smallvec::smallvec![ty],
    });
    m.region_mut(body).arguments.push(arg);
    let arg_value = Value {
        node: NodeId {
            region: body,
            index: arg,
        },
        port: 0,
    };
    m.add_result(body, arg_value);
    m.node_mut(t).outputs.push(ty);
    m.connect(init, t, k as u16);
    arg_value
}
