//! Launch-constant hoisting ("preshaders"): a subexpression that depends
//! only on uniforms and literals has the same value in every element, so
//! the loader computes it once per launch ([`crate::launch`]) and the
//! element code reads it as a hidden uniform.
//!
//! A node is *uniform-only* if it is a constant, a read of a user's value
//! uniform, a read of an array or `mat4` uniform at a constant index, or
//! a simple operation [`LaunchExpr::allows`] whose inputs are all
//! uniform-only. In every region, each uniform-only node of a float type
//! (`f32`, `vec2..4`) whose value the element still needs — a user that is
//! not uniform-only (a per-element operation, a region result, a gamma or
//! theta), or a uniform-only user that stays in the element code (a
//! comparison, or a free operation) — is replaced by a new hidden uniform
//! `launch.N`, **provided its subgraph costs at least one instruction**:
//! constants, uniform reads, swizzles, splats, `construct`, `fneg` and
//! `fabs` are free (source swizzles, modifiers and constant reads on both
//! targets: `x1k-encoding.md` §7.2 swizzles, §7.3 input modifiers, §3.1
//! constant sources; `r700-digest.md` §2.4 `SRC*_NEG`/`SRC*_ABS`, §3.4
//! constant-file sources), so
//! hoisting only those would spend a constant for nothing. Equal
//! expressions share one hidden uniform. The nodes left without users are
//! left for DCE.
//!
//! Region arguments are not uniform-only, even when a gamma or theta passes
//! a uniform-only value in: lowering reads uniforms where they are used and
//! LICM carries loop-invariant work out first, so the subexpressions that
//! matter are visible in the region that computes them (see the tests).
//!
//! Assumes a valid module whose hidden parameters, if any, are the last
//! ones; keeps both. At most [`MAX_LAUNCH_CONSTANTS`] are made.

use crate::fasthash::{FastMap, FastSet};
use crate::graph::{Module, NodeId, Param, RegionId, Value};
use crate::launch::{ExprNode, HIDDEN_PREFIX, LaunchConstant, LaunchExpr};
use crate::op::{Op, ParamInfo, UnOp};
use crate::types::Ty;
use ctm_frontend::tast::{ParamId, ParamKind};
use ctm_frontend::types::Type;
use smallvec::SmallVec;

/// At most this many launch constants per module (each takes one float
/// constant register; the x1k has 256, spec §4).
pub const MAX_LAUNCH_CONSTANTS: usize = 64;

/// Hoists every costly uniform-only float subexpression into a launch
/// constant. Returns `true` if anything was hoisted.
pub fn run(m: &mut Module) -> bool {
    let regions: Vec<RegionId> = m.region_ids().collect();
    let mut by_text: FastMap<String, ParamId> = m
        .launch_constants
        .iter()
        .map(|c| (c.expr.to_text(), c.param))
        .collect();
    let mut replacements: Vec<(Value, ParamId)> = Vec::new();
    for r in regions {
        for (root, expr) in hoistable(m, r) {
            let text = expr.to_text();
            let param = match by_text.get(&text) {
                Some(&p) => p,
                None => {
                    if m.launch_constants.len() >= MAX_LAUNCH_CONSTANTS {
                        continue;
                    }
                    let p = add_hidden(m, m.ty(root), expr);
                    by_text.insert(text, p);
                    p
                }
            };
            replacements.push((root, param));
        }
    }
    let changed = !replacements.is_empty();
    for (root, param) in replacements {
        let uniform = m.op(root.node.region, Op::Uniform(param), &[]);
        m.replace_uses(root, uniform);
    }
    if changed {
        read_where_used(m);
    }
    changed
}

/// Makes the nested regions that receive a hidden uniform as a gamma entry
/// or an unchanging theta variable read it themselves, as lowering does
/// for the user's uniforms: a constant is an operand anywhere, while a
/// value carried into a loop takes a register (and a copy) on both
/// targets. (LICM had carried the uniform-only computation out of the
/// loop; once it is a uniform there is nothing left to carry.) The unused
/// ports are left for DCE.
fn read_where_used(m: &mut Module) {
    let hidden = |m: &Module, v: Value| match m.node(v.node).op {
        Op::Uniform(p) if m.launch_constant(p).is_some() => Some(p),
        _ => None,
    };
    // Each round reaches one level deeper; nesting is bounded by the
    // lowering (and by the number of regions).
    for _ in 0..m.regions.len() {
        let mut changed = false;
        for r in m.region_ids().collect::<Vec<_>>() {
            for n in m.nodes(r) {
                let (op, inputs) = (m.node(n).op.clone(), m.inputs(n));
                let entries: Vec<(RegionId, usize, ParamId)> = match op {
                    Op::Gamma(g) => inputs
                        .iter()
                        .enumerate()
                        .skip(1)
                        .filter_map(|(k, &v)| hidden(m, v).map(|p| (k - 1, p)))
                        .flat_map(|(k, p)| g.branches.map(|b| (b, k, p)))
                        .collect(),
                    Op::Theta(t) => inputs
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| m.result(t.body, k + 1) == m.argument(t.body, k))
                        .filter_map(|(k, &v)| hidden(m, v).map(|p| (t.body, k, p)))
                        .collect(),
                    _ => Vec::new(),
                };
                for (region, k, p) in entries {
                    let arg = m.argument(region, k);
                    let users: Vec<(NodeId, u16)> = m
                        .users(arg)
                        .into_iter()
                        .filter(|&(u, _)| !matches!(m.node(u).op, Op::Result(_)))
                        .collect();
                    if users.is_empty() {
                        continue;
                    }
                    let uniform = m.op(region, Op::Uniform(p), &[]);
                    for (u, port) in users {
                        m.set_input(u, port, uniform);
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// A new hidden uniform of type `ty` holding `expr`.
fn add_hidden(m: &mut Module, ty: Ty, expr: LaunchExpr) -> ParamId {
    let index = m.params.len();
    let name = format!("{HIDDEN_PREFIX}{}", m.launch_constants.len());
    let width = ty.width().unwrap_or(1);
    m.params.push(Param {
        name,
        info: ParamInfo::Uniform(ty),
        kind: ParamKind::Uniform(Type::float(width.clamp(1, 4))),
    });
    let param = ParamId(index as u32);
    m.launch_constants.push(LaunchConstant { param, expr });
    param
}

/// `true` for the uniform-only operations that cost no instruction.
fn is_free(op: &Op) -> bool {
    matches!(
        op,
        Op::Const(_)
            | Op::Uniform(_)
            | Op::UniformElement(_)
            | Op::Swizzle(_)
            | Op::Splat(_)
            | Op::Construct
            | Op::Unary(UnOp::FNeg | UnOp::FAbs)
    )
}

/// The roots to hoist in region `r`, each with its expression.
fn hoistable(m: &Module, r: RegionId) -> Vec<(Value, LaunchExpr)> {
    let Some(order) = m.topo_order(r) else {
        return Vec::new();
    };
    let mut uniform_only: FastSet<NodeId> = FastSet::default();
    let mut costly: FastSet<NodeId> = FastSet::default();
    for &n in &order {
        let op = &m.node(n).op;
        let inputs = m.inputs(n);
        let only = match op {
            Op::Const(_) => true,
            Op::Uniform(p) => {
                matches!(m.param(*p), Some(ParamInfo::Uniform(_)))
                    && m.launch_constant(*p).is_none()
            }
            Op::UniformElement(p) => {
                m.launch_constant(*p).is_none()
                    && inputs.len() == 1
                    && matches!(m.node(inputs[0].node).op, Op::Const(_))
            }
            op if LaunchExpr::allows(op) => {
                m.node(n).outputs.len() == 1
                    && inputs.iter().all(|v| uniform_only.contains(&v.node))
            }
            _ => false,
        };
        if only {
            uniform_only.insert(n);
            if !is_free(op) || inputs.iter().any(|v| costly.contains(&v.node)) {
                costly.insert(n);
            }
        }
    }
    let hoisted = |n: NodeId| costly.contains(&n) && m.node(n).outputs[0].is_float();
    // Which uniform-only nodes the element code still needs, users first.
    let mut needed: FastSet<NodeId> = FastSet::default();
    let mut roots = Vec::new();
    for &n in order.iter().rev() {
        if !uniform_only.contains(&n) {
            continue;
        }
        let v = m.output(n, 0);
        let is_needed = m
            .users(v)
            .iter()
            .any(|&(u, _)| !uniform_only.contains(&u) || (needed.contains(&u) && !hoisted(u)));
        if is_needed {
            needed.insert(n);
            if hoisted(n) {
                roots.push(v);
            }
        }
    }
    roots.reverse();
    roots
        .into_iter()
        .map(|root| (root, expression(m, root)))
        .collect()
}

/// The expression computing uniform-only `root`, its operands first.
fn expression(m: &Module, root: Value) -> LaunchExpr {
    let mut index: FastMap<NodeId, u32> = FastMap::default();
    let mut nodes: Vec<ExprNode> = Vec::new();
    // Iterative post-order (an unrolled loop can make a deep cone).
    let mut stack: Vec<(NodeId, bool)> = vec![(root.node, false)];
    while let Some((n, expanded)) = stack.pop() {
        if index.contains_key(&n) {
            continue;
        }
        let inputs = m.inputs(n);
        if !expanded {
            stack.push((n, true));
            // An element read names its constant index itself.
            if matches!(m.node(n).op, Op::UniformElement(_)) {
                continue;
            }
            for v in inputs.iter().rev() {
                if !index.contains_key(&v.node) {
                    stack.push((v.node, false));
                }
            }
            continue;
        }
        let name = |p: ParamId| {
            m.params
                .get(p.index())
                .map(|p| p.name.clone())
                .unwrap_or_default()
        };
        let node = match &m.node(n).op {
            Op::Const(c) => ExprNode::Const(*c),
            Op::Uniform(p) => ExprNode::Uniform(name(*p)),
            Op::UniformElement(p) => {
                let k = match inputs.first().map(|v| &m.node(v.node).op) {
                    Some(Op::Const(c)) => c.as_i32(),
                    _ => 0,
                };
                ExprNode::UniformElement(name(*p), k)
            }
            op => ExprNode::Apply(
                op.clone(),
                inputs
                    .iter()
                    .map(|v| index.get(&v.node).copied().unwrap_or(0))
                    .collect::<SmallVec<[u32; 3]>>(),
            ),
        };
        index.insert(n, nodes.len() as u32);
        nodes.push(node);
    }
    LaunchExpr { nodes }
}
