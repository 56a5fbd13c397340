//! The regionalized dataflow graph: [`Module`], [`Region`], nodes and
//! edges, and the operations that build and edit them.
//!
//! A module is one kernel. Its regions live in an arena indexed by
//! [`RegionId`]; each region is a [`Dfg`] whose nodes are
//! operations and whose edges are operands, each edge recording which
//! output of its source feeds which input port of its target. Edges never
//! leave a region: a value enters a nested region only as an input of the
//! gamma or theta that owns it, arriving as an argument. Nodes are named by
//! [`NodeId`], which carries its region, so an id used in the wrong region
//! is caught by the verifier instead of silently naming another node.

pub use crate::dfg::NodeIndex;
use crate::dfg::{Dfg, Direction};
use crate::op::{Gamma, LoopInfo, Op, ParamInfo, Theta};
use crate::types::Ty;
use ctm_frontend::tast::ParamId;
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::fmt;

/// A region of a [`Module`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionId(pub u32);

impl RegionId {
    /// Index into the module's region arena.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for RegionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

impl fmt::Display for RegionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A node: its region and its index in that region's graph.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    /// The region holding the node.
    pub region: RegionId,
    /// Its index in the region's graph.
    pub index: NodeIndex,
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.n{}", self.region, self.index.index())
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.index.index())
    }
}

/// An SSA value: output `port` of `node`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value {
    /// The producing node.
    pub node: NodeId,
    /// Which of its outputs.
    pub port: u16,
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.node)?;
        if self.port != 0 {
            write!(f, ".{}", self.port)?;
        }
        Ok(())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.node)?;
        if self.port != 0 {
            write!(f, ".{}", self.port)?;
        }
        Ok(())
    }
}

/// A node's payload: its operation and the types of its outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The operation.
    pub op: Op,
    /// One type per output.
    pub outputs: SmallVec<[Ty; 1]>,
}

/// An edge's payload: which output of the source feeds which input port of
/// the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Output index of the source node.
    pub from_port: u16,
    /// Input index of the target node.
    pub to_port: u16,
}

/// A region: a dataflow graph with numbered arguments and results.
#[derive(Clone, Debug)]
pub struct Region {
    /// The nodes and operand edges.
    pub graph: Dfg<Node, Edge>,
    /// The `Argument(i)` nodes, by `i`.
    pub arguments: Vec<NodeIndex>,
    /// The `Result(i)` nodes, by `i`.
    pub results: Vec<NodeIndex>,
    /// The gamma or theta owning this region; `None` for the root (and for
    /// a region under construction).
    pub owner: Option<NodeId>,
}

/// A kernel parameter as the IR sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name (for printing).
    pub name: String,
    /// What the operations see: value types.
    pub info: ParamInfo,
    /// The parameter as declared (stream element formats for the
    /// backends' fetches and the runtime's buffers).
    pub kind: ctm_frontend::tast::ParamKind,
}

impl Param {
    /// The type of a value uniform as the language writes it (`f32`,
    /// `vec3`, ...); empty for other parameters.
    pub fn kind_type_name(&self) -> String {
        match self.info {
            ParamInfo::Uniform(t) => t.to_string(),
            _ => String::new(),
        }
    }
}

/// One kernel in IR form.
///
/// The root region has one argument, the initial state, and results: one
/// per `Out` parameter in parameter order (the final values), then the
/// `discarded` flag (`bool`), then the final state.
#[derive(Clone, Debug)]
pub struct Module {
    /// The kernel's name.
    pub name: String,
    /// The kernel's parameters, indexed by [`ParamId`].
    pub params: Vec<Param>,
    /// The region arena; `None` marks a removed region.
    pub regions: Vec<Option<Region>>,
    /// The kernel body.
    pub root: RegionId,
    /// Annotations printed with nodes (e.g. if-conversion decisions).
    pub notes: BTreeMap<NodeId, String>,
    /// Type errors found while building; the verifier reports them.
    pub build_errors: Vec<String>,
    /// A reduction pass kernel without boundary guards that relies on its
    /// input being padded to whole blocks with this value per channel
    /// (`lower::reduction_edges`); code generators record it in the
    /// program's bindings for the loader. `None` for every other module.
    pub input_padding: Option<[f32; 4]>,
    /// Hidden value uniforms the loader computes at each launch from the
    /// user's uniforms ([`crate::launch`], made by
    /// [`crate::passes::launch_const`]); their parameters are the last
    /// entries of [`Module::params`]. Empty before that pass.
    pub launch_constants: Vec<crate::launch::LaunchConstant>,
}

impl Module {
    /// An empty module with the given parameters and an empty root region
    /// taking the state.
    pub fn new(name: impl Into<String>, params: Vec<Param>) -> Module {
        let mut m = Module {
            name: name.into(),
            params,
            regions: Vec::new(),
            root: RegionId(0),
            notes: BTreeMap::new(),
            build_errors: Vec::new(),
            input_padding: None,
            launch_constants: Vec::new(),
        };
        m.root = m.new_region(&[Ty::State]);
        m
    }

    /// The launch constant held by parameter `p`, if `p` is one.
    pub fn launch_constant(&self, p: ParamId) -> Option<&crate::launch::LaunchConstant> {
        self.launch_constants.iter().find(|c| c.param == p)
    }

    /// Information about parameter `p`.
    pub fn param(&self, p: ParamId) -> Option<ParamInfo> {
        self.params.get(p.index()).map(|p| p.info)
    }

    /// Creates a detached region whose arguments have the given types.
    pub fn new_region(&mut self, args: &[Ty]) -> RegionId {
        let id = RegionId(self.regions.len() as u32);
        let mut region = Region {
            graph: Dfg::new(),
            arguments: Vec::new(),
            results: Vec::new(),
            owner: None,
        };
        for (i, &t) in args.iter().enumerate() {
            let n = region.graph.add_node(Node {
                op: Op::Argument(i as u32),
                outputs: SmallVec::from_slice(&[t]),
            });
            region.arguments.push(n);
        }
        self.regions.push(Some(region));
        id
    }

    /// The region `r`.
    ///
    /// # Panics
    /// If `r` was removed or never existed (an internal error).
    pub fn region(&self, r: RegionId) -> &Region {
        self.regions[r.index()].as_ref().expect("removed region")
    }

    /// The region `r`, mutably.
    ///
    /// # Panics
    /// As [`Module::region`].
    pub fn region_mut(&mut self, r: RegionId) -> &mut Region {
        self.regions[r.index()].as_mut().expect("removed region")
    }

    /// Ids of the live regions.
    pub fn region_ids(&self) -> impl Iterator<Item = RegionId> + '_ {
        self.regions
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_some())
            .map(|(i, _)| RegionId(i as u32))
    }

    /// The node `n`.
    ///
    /// # Panics
    /// If `n` does not exist (an internal error).
    pub fn node(&self, n: NodeId) -> &Node {
        &self.region(n.region).graph[n.index]
    }

    /// The node `n`, mutably.
    pub fn node_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.region_mut(n.region).graph[n.index]
    }

    /// `true` if `n` exists.
    pub fn contains(&self, n: NodeId) -> bool {
        self.regions
            .get(n.region.index())
            .and_then(|r| r.as_ref())
            .is_some_and(|r| r.graph.contains_node(n.index))
    }

    /// The type of value `v`.
    pub fn ty(&self, v: Value) -> Ty {
        self.node(v.node).outputs[v.port as usize]
    }

    /// The visits made so far by the graph primitives of the live regions
    /// ([`crate::dfg::Dfg::work`]): a machine-independent measure of the
    /// work the passes did, which the scaling tests compare across input
    /// sizes instead of timing anything.
    pub fn work(&self) -> u64 {
        self.regions.iter().flatten().map(|r| r.graph.work()).sum()
    }

    /// The ids of region `r`'s nodes.
    pub fn nodes(&self, r: RegionId) -> Vec<NodeId> {
        self.region(r)
            .graph
            .node_indices()
            .map(|index| NodeId { region: r, index })
            .collect()
    }

    /// Argument `i` of region `r`.
    pub fn argument(&self, r: RegionId, i: usize) -> Value {
        Value {
            node: NodeId {
                region: r,
                index: self.region(r).arguments[i],
            },
            port: 0,
        }
    }

    /// All arguments of region `r`.
    pub fn arguments(&self, r: RegionId) -> Vec<Value> {
        (0..self.region(r).arguments.len())
            .map(|i| self.argument(r, i))
            .collect()
    }

    /// The value feeding result `i` of region `r`.
    pub fn result(&self, r: RegionId, i: usize) -> Value {
        let n = NodeId {
            region: r,
            index: self.region(r).results[i],
        };
        // A result node has one input: no need to collect and sort.
        let g = &self.region(r).graph;
        let mut edges = g.incoming(n.index);
        match (edges.next(), edges.next()) {
            (Some(e), None) if e.weight().to_port == 0 => Value {
                node: NodeId {
                    region: r,
                    index: e.source(),
                },
                port: e.weight().from_port,
            },
            _ => self.inputs(n)[0],
        }
    }

    /// The values feeding every result of region `r`.
    pub fn results(&self, r: RegionId) -> Vec<Value> {
        (0..self.region(r).results.len())
            .map(|i| self.result(r, i))
            .collect()
    }

    /// Appends a result fed by `v` to region `r`.
    pub fn add_result(&mut self, r: RegionId, v: Value) {
        let i = self.region(r).results.len() as u32;
        let n = self.add_node(r, Op::Result(i), &[v], &[]);
        self.region_mut(r).results.push(n.index);
    }

    /// Adds a node with explicit output types and connects its inputs.
    pub fn add_node(&mut self, r: RegionId, op: Op, inputs: &[Value], outputs: &[Ty]) -> NodeId {
        let region = self.region_mut(r);
        let index = region.graph.add_node(Node {
            op,
            outputs: SmallVec::from_slice(outputs),
        });
        let id = NodeId { region: r, index };
        for (port, v) in inputs.iter().enumerate() {
            self.connect(*v, id, port as u16);
        }
        id
    }

    /// Adds a simple operation, inferring its result type; returns its
    /// value. A type error is recorded in [`Module::build_errors`] (the
    /// verifier reports it) and the value gets the first input's type.
    pub fn op(&mut self, r: RegionId, op: Op, inputs: &[Value]) -> Value {
        let types: SmallVec<[Ty; 4]> = inputs.iter().map(|v| self.ty(*v)).collect();
        let params = &self.params;
        let ty = match op.result_type(&types, |p| params.get(p.index()).map(|p| p.info)) {
            Ok(Some(t)) => t,
            Ok(None) => Ty::State,
            Err(e) => {
                self.build_errors.push(format!("{}: {e}", op.name()));
                types.first().copied().unwrap_or(Ty::F32)
            }
        };
        let n = self.add_node(r, op, inputs, &[ty]);
        Value { node: n, port: 0 }
    }

    /// Connects `from` to input `port` of `to` (same region).
    pub fn connect(&mut self, from: Value, to: NodeId, port: u16) {
        if from.node.region != to.region {
            self.build_errors.push(format!(
                "edge from {:?} to {:?} crosses regions",
                from.node, to
            ));
            return;
        }
        self.region_mut(to.region).graph.add_edge(
            from.node.index,
            to.index,
            Edge {
                from_port: from.port,
                to_port: port,
            },
        );
    }

    /// The inputs of `n`, in port order.
    pub fn inputs(&self, n: NodeId) -> SmallVec<[Value; 4]> {
        let g = &self.region(n.region).graph;
        let mut edges: SmallVec<[(u16, Value); 4]> = SmallVec::new();
        for e in g.incoming(n.index) {
            edges.push((
                e.weight().to_port,
                Value {
                    node: NodeId {
                        region: n.region,
                        index: e.source(),
                    },
                    port: e.weight().from_port,
                },
            ));
        }
        // Edges come oldest first, usually in ascending port order.
        if !edges.windows(2).all(|w| w[0].0 < w[1].0) {
            edges.sort_by_key(|(p, _)| *p);
        }
        edges.into_iter().map(|(_, v)| v).collect()
    }

    /// The uses of value `v`: (user node, input port).
    pub fn users(&self, v: Value) -> Vec<(NodeId, u16)> {
        let g = &self.region(v.node.region).graph;
        g.edges_directed(v.node.index, Direction::Outgoing)
            .filter(|e| e.weight().from_port == v.port)
            .map(|e| {
                (
                    NodeId {
                        region: v.node.region,
                        index: e.target(),
                    },
                    e.weight().to_port,
                )
            })
            .collect()
    }

    /// `true` if any output of `n` is used.
    pub fn has_users(&self, n: NodeId) -> bool {
        self.region(n.region).graph.out_degree(n.index) > 0
    }

    /// Makes every use of `old` use `new` instead (same region).
    pub fn replace_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        for (user, port) in self.users(old) {
            self.set_input(user, port, new);
        }
    }

    /// Replaces input `port` of `n` with `v`.
    pub fn set_input(&mut self, n: NodeId, port: u16, v: Value) {
        let g = &mut self.region_mut(n.region).graph;
        let old: SmallVec<[_; 2]> = g
            .incoming(n.index)
            .filter(|e| e.weight().to_port == port)
            .map(|e| e.id())
            .collect();
        for e in old {
            g.remove_edge(e);
        }
        self.connect(v, n, port);
    }

    /// Removes node `n` with its edges and, recursively, the regions it owns.
    pub fn remove_node(&mut self, n: NodeId) {
        let op = self.node(n).op.clone();
        for r in op.regions() {
            self.remove_region(r);
        }
        self.notes.remove(&n);
        self.region_mut(n.region).graph.remove_node(n.index);
    }

    /// Removes region `r` and every region nested in it.
    pub fn remove_region(&mut self, r: RegionId) {
        let nested: Vec<RegionId> = self
            .region(r)
            .graph
            .node_weights()
            .flat_map(|n| n.op.regions())
            .collect();
        for inner in nested {
            self.remove_region(inner);
        }
        self.regions[r.index()] = None;
    }

    /// Adds a gamma node in region `r` over the two (detached, filled)
    /// branch regions, whose arguments match `entries` and whose results
    /// give the gamma's outputs. Returns the gamma node.
    pub fn add_gamma(
        &mut self,
        r: RegionId,
        predicate: Value,
        entries: &[Value],
        branches: [RegionId; 2],
    ) -> NodeId {
        let outputs: SmallVec<[Ty; 4]> = self
            .results(branches[0])
            .iter()
            .map(|v| self.ty(*v))
            .collect();
        let mut inputs = vec![predicate];
        inputs.extend_from_slice(entries);
        let n = self.add_node(r, Op::Gamma(Gamma { branches }), &inputs, &outputs);
        for b in branches {
            self.region_mut(b).owner = Some(n);
        }
        n
    }

    /// Adds a theta node in region `r` over the (detached, filled) body,
    /// whose arguments match `inits` and whose results are the continue
    /// predicate and the next values. Returns the theta node.
    pub fn add_theta(
        &mut self,
        r: RegionId,
        inits: &[Value],
        body: RegionId,
        info: LoopInfo,
    ) -> NodeId {
        let outputs: SmallVec<[Ty; 4]> = inits.iter().map(|v| self.ty(*v)).collect();
        let n = self.add_node(r, Op::Theta(Theta { body, info }), inits, &outputs);
        self.region_mut(body).owner = Some(n);
        n
    }

    /// Output `port` of node `n` as a value.
    pub fn output(&self, n: NodeId, port: usize) -> Value {
        Value {
            node: n,
            port: port as u16,
        }
    }

    /// The nodes of region `r` in an order where every node comes after
    /// the nodes feeding it (ties broken by node index, so the order is
    /// deterministic). `None` if the region has a cycle.
    pub fn topo_order(&self, r: RegionId) -> Option<Vec<NodeId>> {
        use std::cmp::Reverse;
        let g = &self.region(r).graph;
        // In-degrees by node index (`usize::MAX`: a vacant index).
        let mut indegree = vec![usize::MAX; g.node_bound()];
        let mut count = 0;
        for n in g.node_indices() {
            indegree[n.index()] = 0;
            count += 1;
        }
        for e in g.edge_references() {
            indegree[e.target().index()] += 1;
        }
        // Ready nodes, smallest index first.
        let mut ready: std::collections::BinaryHeap<Reverse<u32>> = indegree
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == 0)
            .map(|(i, _)| Reverse(i as u32))
            .collect();
        let mut order = Vec::with_capacity(count);
        while let Some(Reverse(i)) = ready.pop() {
            let n = NodeIndex::new(i as usize);
            order.push(NodeId {
                region: r,
                index: n,
            });
            for e in g.outgoing(n) {
                let d = indegree.get_mut(e.target().index())?;
                *d -= 1;
                if *d == 0 {
                    ready.push(Reverse(e.target().index() as u32));
                }
            }
        }
        (order.len() == count).then_some(order)
    }

    /// The nearest enclosing loop body of region `r`, if any (used by loop
    /// passes).
    pub fn parent_region(&self, r: RegionId) -> Option<RegionId> {
        self.region(r).owner.map(|n| n.region)
    }
}
