//! The storage of one region's dataflow graph: nodes in an arena, each
//! with its list of input edges and its list of uses, every edge knowing
//! its place in its source's use list, so that adding or removing an edge
//! costs O(1) on the source side whatever the source's number of users
//! (issue 13: petgraph's `StableGraph` keeps a node's edges in a singly
//! linked list, so removing one use of a value with n users walked up to n
//! edges and straight-line code compiled in quadratic time).
//!
//! The interface follows the part of petgraph's `StableGraph` the IR used,
//! with the same index discipline: a removed node's index is reused by the
//! next added node, most recently freed first, so node numbering (and so
//! the printed IR and the code generators' tie-breaking by index) is the
//! same as it was with petgraph. Iterating a node's edges visits the most
//! recently added first, as petgraph did.
//!
//! Every primitive that visits nodes or edges adds the number it visited
//! to a work counter ([`Dfg::work`]); the scaling regression tests compare
//! the work of the whole pipeline on inputs of growing size.

use smallvec::SmallVec;
use std::ops::{Index, IndexMut};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// A count of visits, shared-reference friendly (the IR interpreter reads
/// modules from several threads).
#[derive(Debug, Default)]
struct WorkCounter(AtomicU64);

impl Clone for WorkCounter {
    fn clone(&self) -> Self {
        WorkCounter(AtomicU64::new(self.0.load(Relaxed)))
    }
}

/// A node's index in its region's graph.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct NodeIndex(u32);

impl NodeIndex {
    /// The index `i`.
    pub fn new(i: usize) -> NodeIndex {
        NodeIndex(i as u32)
    }

    /// As a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An edge's index in its region's graph (reused after removal).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct EdgeIndex(u32);

/// Which edges of a node: those entering it or those leaving it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Direction {
    /// Edges whose target is the node (its inputs).
    Incoming,
    /// Edges whose source is the node (its uses).
    Outgoing,
}

/// One edge as iteration yields it.
#[derive(Clone, Copy, Debug)]
pub struct EdgeRef<'g, E> {
    id: EdgeIndex,
    source: NodeIndex,
    target: NodeIndex,
    weight: &'g E,
}

impl<'g, E> EdgeRef<'g, E> {
    /// The edge's index.
    pub fn id(&self) -> EdgeIndex {
        self.id
    }

    /// The node the edge leaves.
    pub fn source(&self) -> NodeIndex {
        self.source
    }

    /// The node the edge enters.
    pub fn target(&self) -> NodeIndex {
        self.target
    }

    /// The edge's payload.
    pub fn weight(&self) -> &'g E {
        self.weight
    }
}

#[derive(Clone, Debug)]
struct Slot<N> {
    weight: Option<N>,
    /// Edges entering the node, oldest first.
    inputs: SmallVec<[u32; 4]>,
    /// Edges leaving the node, in no particular order.
    uses: Vec<u32>,
}

#[derive(Clone, Debug)]
struct EdgeData<E> {
    source: u32,
    target: u32,
    weight: E,
    /// When the edge was added (iteration visits newest first).
    seq: u64,
    /// Its position in its source's `uses`.
    use_pos: u32,
}

/// A directed multigraph with stable node indices and O(1) edge removal
/// on the source side (O(in-degree) on the target side).
#[derive(Clone, Debug)]
pub struct Dfg<N, E> {
    nodes: Vec<Slot<N>>,
    free_nodes: Vec<u32>,
    edges: Vec<Option<EdgeData<E>>>,
    free_edges: Vec<u32>,
    next_seq: u64,
    node_count: usize,
    work: WorkCounter,
}

impl<N, E> Default for Dfg<N, E> {
    fn default() -> Self {
        Dfg::new()
    }
}

impl<N, E> Dfg<N, E> {
    /// An empty graph.
    pub fn new() -> Dfg<N, E> {
        Dfg {
            nodes: Vec::new(),
            free_nodes: Vec::new(),
            edges: Vec::new(),
            free_edges: Vec::new(),
            next_seq: 0,
            node_count: 0,
            work: WorkCounter::default(),
        }
    }

    /// The number of node and edge visits made by the graph's primitives so
    /// far (a measure of work for the scaling tests, not a time).
    pub fn work(&self) -> u64 {
        self.work.0.load(Relaxed)
    }

    /// Counts `k` visits.
    pub fn charge(&self, k: usize) {
        self.work.0.fetch_add(k as u64, Relaxed);
    }

    /// Adds a node; reuses the most recently freed index if any.
    pub fn add_node(&mut self, weight: N) -> NodeIndex {
        self.node_count += 1;
        if let Some(i) = self.free_nodes.pop() {
            self.nodes[i as usize].weight = Some(weight);
            return NodeIndex(i);
        }
        self.nodes.push(Slot {
            weight: Some(weight),
            inputs: SmallVec::new(),
            uses: Vec::new(),
        });
        NodeIndex((self.nodes.len() - 1) as u32)
    }

    /// `true` if `n` is a live node.
    pub fn contains_node(&self, n: NodeIndex) -> bool {
        self.nodes
            .get(n.index())
            .is_some_and(|s| s.weight.is_some())
    }

    /// The node's payload, if it exists.
    pub fn node_weight(&self, n: NodeIndex) -> Option<&N> {
        self.nodes.get(n.index()).and_then(|s| s.weight.as_ref())
    }

    /// The number of live nodes.
    pub fn node_count(&self) -> usize {
        self.node_count
    }

    /// One more than the largest index ever used.
    pub fn node_bound(&self) -> usize {
        self.nodes.len()
    }

    /// The live nodes, by increasing index.
    pub fn node_indices(&self) -> impl Iterator<Item = NodeIndex> + '_ {
        self.charge(self.nodes.len());
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.weight.is_some())
            .map(|(i, _)| NodeIndex(i as u32))
    }

    /// The live nodes' payloads, by increasing index.
    pub fn node_weights(&self) -> impl Iterator<Item = &N> + '_ {
        self.charge(self.nodes.len());
        self.nodes.iter().filter_map(|s| s.weight.as_ref())
    }

    /// Removes node `n` and its edges; `None` if it did not exist. Costs
    /// O(its edges + the in-degree of each user).
    pub fn remove_node(&mut self, n: NodeIndex) -> Option<N> {
        let weight = self.nodes.get_mut(n.index())?.weight.take()?;
        while let Some(&e) = self.nodes[n.index()].inputs.last() {
            self.remove_edge(EdgeIndex(e));
        }
        while let Some(&e) = self.nodes[n.index()].uses.last() {
            self.remove_edge(EdgeIndex(e));
        }
        self.free_nodes.push(n.0);
        self.node_count -= 1;
        Some(weight)
    }

    /// Adds an edge from `a` to `b`.
    ///
    /// # Panics
    /// If either node does not exist (an internal error, as with petgraph).
    pub fn add_edge(&mut self, a: NodeIndex, b: NodeIndex, weight: E) -> EdgeIndex {
        assert!(
            self.contains_node(a) && self.contains_node(b),
            "edge between missing nodes"
        );
        let use_pos = self.nodes[a.index()].uses.len() as u32;
        let data = EdgeData {
            source: a.0,
            target: b.0,
            weight,
            seq: self.next_seq,
            use_pos,
        };
        self.next_seq += 1;
        let e = match self.free_edges.pop() {
            Some(e) => {
                self.edges[e as usize] = Some(data);
                e
            }
            None => {
                self.edges.push(Some(data));
                (self.edges.len() - 1) as u32
            }
        };
        self.nodes[a.index()].uses.push(e);
        self.nodes[b.index()].inputs.push(e);
        EdgeIndex(e)
    }

    /// Removes edge `e`; `None` if it did not exist. O(1) on the source's
    /// side, O(in-degree) on the target's.
    pub fn remove_edge(&mut self, e: EdgeIndex) -> Option<E> {
        let data = self.edges.get_mut(e.0 as usize)?.take()?;
        let inputs = &mut self.nodes[data.target as usize].inputs;
        self.work.0.fetch_add(inputs.len() as u64, Relaxed);
        if let Some(p) = inputs.iter().position(|&x| x == e.0) {
            inputs.remove(p);
        }
        let uses = &mut self.nodes[data.source as usize].uses;
        let pos = data.use_pos as usize;
        uses.swap_remove(pos);
        if let Some(&moved) = uses.get(pos)
            && let Some(m) = self.edges[moved as usize].as_mut()
        {
            m.use_pos = pos as u32;
        }
        self.free_edges.push(e.0);
        Some(data.weight)
    }

    /// The payload of edge `e`, mutably.
    pub fn edge_weight_mut(&mut self, e: EdgeIndex) -> Option<&mut E> {
        self.edges
            .get_mut(e.0 as usize)
            .and_then(|d| d.as_mut())
            .map(|d| &mut d.weight)
    }

    fn edge_ref(&self, e: u32) -> EdgeRef<'_, E> {
        let d = self.edges[e as usize]
            .as_ref()
            .expect("a node lists a removed edge");
        EdgeRef {
            id: EdgeIndex(e),
            source: NodeIndex(d.source),
            target: NodeIndex(d.target),
            weight: &d.weight,
        }
    }

    /// The edges entering (`Incoming`) or leaving (`Outgoing`) `n`, most
    /// recently added first. Empty for a missing node.
    pub fn edges_directed(
        &self,
        n: NodeIndex,
        dir: Direction,
    ) -> std::vec::IntoIter<EdgeRef<'_, E>> {
        let Some(slot) = self.nodes.get(n.index()) else {
            return Vec::new().into_iter();
        };
        let mut out: Vec<EdgeRef<'_, E>> = match dir {
            Direction::Incoming => slot
                .inputs
                .iter()
                .rev()
                .map(|&e| self.edge_ref(e))
                .collect(),
            Direction::Outgoing => {
                let mut v: Vec<(u64, u32)> = slot
                    .uses
                    .iter()
                    .map(|&e| (self.edges[e as usize].as_ref().map_or(0, |d| d.seq), e))
                    .collect();
                v.sort_unstable_by_key(|&(seq, _)| std::cmp::Reverse(seq));
                v.into_iter().map(|(_, e)| self.edge_ref(e)).collect()
            }
        };
        self.charge(out.len());
        out.shrink_to_fit();
        out.into_iter()
    }

    /// The edges entering `n`, in no particular order, without allocating.
    pub fn incoming(&self, n: NodeIndex) -> impl Iterator<Item = EdgeRef<'_, E>> + '_ {
        let inputs: &[u32] = self.nodes.get(n.index()).map_or(&[], |s| &s.inputs[..]);
        self.charge(inputs.len());
        inputs.iter().map(|&e| self.edge_ref(e))
    }

    /// The edges leaving `n`, in no particular order, without allocating.
    pub fn outgoing(&self, n: NodeIndex) -> impl Iterator<Item = EdgeRef<'_, E>> + '_ {
        let uses: &[u32] = self.nodes.get(n.index()).map_or(&[], |s| &s.uses[..]);
        self.charge(uses.len());
        uses.iter().map(|&e| self.edge_ref(e))
    }

    /// The number of edges leaving `n`.
    pub fn out_degree(&self, n: NodeIndex) -> usize {
        self.nodes.get(n.index()).map_or(0, |s| s.uses.len())
    }

    /// Every edge, in index order.
    pub fn edge_references(&self) -> impl Iterator<Item = EdgeRef<'_, E>> + '_ {
        self.charge(self.edges.len());
        self.edges.iter().enumerate().filter_map(|(i, d)| {
            d.as_ref().map(|d| EdgeRef {
                id: EdgeIndex(i as u32),
                source: NodeIndex(d.source),
                target: NodeIndex(d.target),
                weight: &d.weight,
            })
        })
    }
}

impl<N, E> Index<NodeIndex> for Dfg<N, E> {
    type Output = N;

    /// # Panics
    /// If `n` does not exist (an internal error, as with petgraph).
    fn index(&self, n: NodeIndex) -> &N {
        self.nodes[n.index()].weight.as_ref().expect("removed node")
    }
}

impl<N, E> IndexMut<NodeIndex> for Dfg<N, E> {
    fn index_mut(&mut self, n: NodeIndex) -> &mut N {
        self.nodes[n.index()].weight.as_mut().expect("removed node")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removal_keeps_the_other_edges_and_reuses_the_latest_freed_index() {
        let mut g: Dfg<u32, u16> = Dfg::new();
        let a = g.add_node(0);
        let users: Vec<NodeIndex> = (1..=5).map(|i| g.add_node(i)).collect();
        for (k, &u) in users.iter().enumerate() {
            g.add_edge(a, u, k as u16);
        }
        assert_eq!(g.remove_node(users[1]), Some(2));
        assert_eq!(g.remove_node(users[3]), Some(4));
        let left: Vec<u16> = g
            .edges_directed(a, Direction::Outgoing)
            .map(|e| *e.weight())
            .collect();
        assert_eq!(left, vec![4, 2, 0], "newest first, removed ones gone");
        for e in g.outgoing(a) {
            assert_eq!(e.source(), a);
            assert!(g.contains_node(e.target()));
        }
        assert_eq!(g.add_node(9), users[3]);
        assert_eq!(g.add_node(10), users[1]);
        assert_eq!(g.node_count(), 6);
        assert_eq!(g.remove_node(users[1]), Some(10));
        assert_eq!(g.remove_node(users[1]), None);
    }

    #[test]
    fn removing_every_use_of_a_wide_value_costs_linear_work() {
        let work = |n: usize| {
            let mut g: Dfg<(), u16> = Dfg::new();
            let a = g.add_node(());
            let users: Vec<NodeIndex> = (0..n).map(|_| g.add_node(())).collect();
            for &u in &users {
                g.add_edge(a, u, 0);
            }
            let before = g.work();
            // Oldest first: the worst order for a singly linked use list.
            for &u in &users {
                g.remove_node(u);
            }
            assert_eq!(g.out_degree(a), 0);
            g.work() - before
        };
        assert!(work(10_000) <= 12 * work(1_000));
    }
}
