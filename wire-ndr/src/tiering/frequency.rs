//! Static estimates of how often conversion code runs, after Hoschka, "Compact and Efficient
//! Presentation Conversion Routines" (INRIA RR-3291, 1997), section 4.2, "Predicting Execution
//! Frequencies".
//!
//! **The model.** The *type reference graph* has one node per record type and an arc from a
//! type to each type one of its fields refers to, weighted by `v`, the expected number of times
//! the field occurs in one value of the referring type ([`Edge`]): 1 for a plain field, `n` for
//! an array of known length `n`, μ for an array of unknown length ([`Params::mu`]), λ for an
//! optional field ([`Params::lambda`]), `1/n` for one of the `n` arms of a union. Read as a
//! Markov model of the conversion code (Hoschka after Ramamoorthy, 1965), the expected visits
//! `f` of the nodes satisfy the linear equations `f = r + Mᵀ·f`, where `r` are the external
//! arrivals ([`TypeGraph::root`]) and `M[i][j]` is the summed weight of the arcs `i → j`.
//!
//! **Acyclic graphs.** NDR records nest by value and a format's id hashes the formats nested in
//! it, so the graph of NDR formats has no cycle, and `f = r + Mᵀ·f` is solved by one pass over
//! the nodes in topological order ([`TypeGraph::solve`]). A graph with a cycle (a recursive
//! type, which NDR cannot describe) is refused with [`FlowError::Cycle`].
//!
//! **Visits belong to plans.** Hoschka compiles a routine per type, so a type's visits are the
//! calls of its routine. Here code is compiled per *plan*, one per (top-level incoming format,
//! local type), and the records nested in a format are converted by steps of the enclosing
//! plan (`plan::Op::Records`, `plan::Op::Var`). So [`from_formats`] solves the model once per
//! plan, with the plan's format as the only arrival, and credits each visit to the plan whose
//! steps execute it ([`PlanFrequency::records`]). A format that arrives on its own and is also
//! nested in another is credited, at its own plan, only with its own arrivals. Summed over the
//! plans, `runs × records` is Hoschka's `f` per type.
//!
//! **What the tiering uses.** [`cost::estimate`](super::cost::estimate) counts a nested
//! record's steps once per element of a fixed array, and the elements of a variable-length
//! array run in the interpreter under either engine (compiled code calls it for them), so its
//! `saving_ns` is per run of the plan, nested visits included. The knapsack's profit is
//! therefore `runs × saving_ns` ([`PlanFrequency::runs`]), and `records` must not be multiplied
//! in again.

use std::collections::HashMap;
use std::fmt;

use crate::{Format, FormatId, Kind};

/// The expected number of times one value of the referring type visits the referenced type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// A plain field: once.
    Always,
    /// An array of known length `n`: `n` times.
    Array(usize),
    /// An array whose length is not known in advance: μ ([`Params::mu`]) times.
    UnknownArray,
    /// An optional field: λ ([`Params::lambda`]) times.
    Optional,
    /// One arm of a union of `arms` arms: `1/arms` times (a union of no arms is an error when
    /// solving).
    UnionArm {
        /// How many arms the union has.
        arms: usize,
    },
}

impl Edge {
    /// The expected visits `v` this edge stands for, under `params`.
    pub fn weight(self, params: &Params) -> f64 {
        match self {
            Edge::Always => 1.0,
            Edge::Array(n) => n as f64,
            Edge::UnknownArray => params.mu,
            Edge::Optional => params.lambda,
            Edge::UnionArm { arms } => 1.0 / arms as f64,
        }
    }
}

/// The two free parameters of Hoschka's heuristic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// λ, the probability that an optional field is present. Default ½, as in the paper's
    /// "optional heuristic" and its final evaluation. (NDR formats have no optional fields:
    /// λ only weighs [`Edge::Optional`] arcs of graphs built by hand.)
    pub lambda: f64,
    /// μ, the expected length of an array whose length is not known statically (an NDR
    /// variable-length array). Default 1, the value of the paper's final evaluation
    /// (section 5.3): its "array heuristic" with μ = 2 gave the least accurate frequencies of
    /// the three it compared (section 5.2).
    pub mu: f64,
}

impl Default for Params {
    /// λ = 0.5, μ = 1 (Hoschka, section 5.3).
    fn default() -> Params {
        Params {
            lambda: 0.5,
            mu: 1.0,
        }
    }
}

/// Why [`TypeGraph::solve`] or [`from_formats`] found no frequencies.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowError {
    /// The graph has a cycle (a recursive type). These nodes (ascending) have no place in a
    /// topological order: they are on a cycle or reached only through one.
    Cycle {
        /// The nodes left unordered.
        nodes: Vec<usize>,
    },
    /// An edge from `from` to `to`, or all of them together, weighs a negative or non-finite
    /// amount (a negative or NaN λ or μ, a union of no arms, …).
    BadEdge {
        /// The referring node.
        from: usize,
        /// The referenced node.
        to: usize,
        /// The summed weight.
        weight: f64,
    },
    /// The external arrivals at `node` are negative or not finite.
    BadRoot {
        /// The node.
        node: usize,
        /// Its summed root weight.
        weight: f64,
    },
    /// The expected visits of `node` are too large for an `f64` (long chains of huge arrays).
    Overflow {
        /// The first node found to overflow.
        node: usize,
    },
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::Cycle { nodes } => {
                let list: Vec<String> = nodes.iter().map(usize::to_string).collect();
                let noun = if nodes.len() == 1 { "node" } else { "nodes" };
                write!(
                    f,
                    "the type reference graph has a cycle: {noun} {} cannot be ordered",
                    list.join(", ")
                )
            }
            FlowError::BadEdge { from, to, weight } => write!(
                f,
                "the edges from node {from} to node {to} weigh {weight}, \
                 not a finite non-negative number"
            ),
            FlowError::BadRoot { node, weight } => write!(
                f,
                "the root weight of node {node} is {weight}, not a finite non-negative number"
            ),
            FlowError::Overflow { node } => {
                write!(f, "the expected visits of node {node} overflow an f64")
            }
        }
    }
}

impl std::error::Error for FlowError {}

/// A type reference graph: nodes are types (`0..nodes`), edges are references weighted by an
/// [`Edge`], roots are external arrivals.
#[derive(Debug, Clone, Default)]
pub struct TypeGraph {
    edges: Vec<(usize, usize, Edge)>,
    roots: Vec<f64>,
}

impl TypeGraph {
    /// A graph of `nodes` nodes, no edges and no arrivals.
    pub fn new(nodes: usize) -> TypeGraph {
        TypeGraph {
            edges: Vec::new(),
            roots: vec![0.0; nodes],
        }
    }

    /// How many nodes the graph has.
    pub fn nodes(&self) -> usize {
        self.roots.len()
    }

    /// Adds a reference from `from` to `to`. Several edges between the same nodes add up (a
    /// record with two fields of the same type).
    ///
    /// # Panics
    ///
    /// If either node is not in the graph: a programming error.
    pub fn edge(&mut self, from: usize, to: usize, edge: Edge) -> &mut TypeGraph {
        let n = self.nodes();
        assert!(
            from < n && to < n,
            "TypeGraph::edge({from}, {to}): the graph has {n} nodes"
        );
        self.edges.push((from, to, edge));
        self
    }

    /// Adds `weight` external arrivals at `node` (say, the share of messages whose top-level
    /// type it is). Repeated calls add up.
    ///
    /// # Panics
    ///
    /// If the node is not in the graph: a programming error.
    pub fn root(&mut self, node: usize, weight: f64) -> &mut TypeGraph {
        let n = self.nodes();
        assert!(
            node < n,
            "TypeGraph::root({node}, _): the graph has {n} nodes"
        );
        self.roots[node] += weight;
        self
    }

    /// The expected visits of every node, in the unit of the arrivals: the solution `f` of
    /// `f = r + Mᵀ·f`. Never panics; fails on a cycle, on negative or non-finite weights, and
    /// on overflow.
    pub fn solve(&self, params: &Params) -> Result<Vec<f64>, FlowError> {
        for (node, &weight) in self.roots.iter().enumerate() {
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(FlowError::BadRoot { node, weight });
            }
        }
        Ordered::new(self, params)?.flow(&self.roots)
    }
}

/// A graph's arcs with their weights summed per pair of nodes, and its nodes in a topological
/// order: what solving `f = r + Mᵀ·f` needs, for any arrivals `r`.
struct Ordered {
    out: Vec<Vec<(usize, f64)>>,
    order: Vec<usize>,
}

impl Ordered {
    fn new(graph: &TypeGraph, params: &Params) -> Result<Ordered, FlowError> {
        let out = weighted(graph, params)?;
        let n = out.len();
        // Kahn: a node is ordered once every arc into it has been.
        let mut into = vec![0usize; n];
        for arcs in &out {
            for &(to, _) in arcs {
                into[to] += 1;
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&v| into[v] == 0).collect();
        let mut next = 0;
        while let Some(&v) = order.get(next) {
            next += 1;
            for &(to, _) in &out[v] {
                into[to] -= 1;
                if into[to] == 0 {
                    order.push(to);
                }
            }
        }
        if order.len() < n {
            return Err(FlowError::Cycle {
                nodes: (0..n).filter(|&v| into[v] > 0).collect(),
            });
        }
        Ok(Ordered { out, order })
    }

    /// `f = r + Mᵀ·f` for the arrivals `roots` (checked by the caller): each node's visits are
    /// final once every node before it in the order has pushed its flow.
    fn flow(&self, roots: &[f64]) -> Result<Vec<f64>, FlowError> {
        let mut f = roots.to_vec();
        for &v in &self.order {
            let x = f[v];
            if !x.is_finite() {
                return Err(FlowError::Overflow { node: v });
            }
            for &(to, weight) in &self.out[v] {
                f[to] += x * weight;
            }
        }
        Ok(f)
    }
}

/// Per node, its successors with the summed weight of the edges to each, checked.
fn weighted(graph: &TypeGraph, params: &Params) -> Result<Vec<Vec<(usize, f64)>>, FlowError> {
    let ok = |weight: f64| weight.is_finite() && weight >= 0.0;
    let mut sorted = Vec::with_capacity(graph.edges.len());
    for &(from, to, e) in &graph.edges {
        let weight = e.weight(params);
        if !ok(weight) {
            return Err(FlowError::BadEdge { from, to, weight });
        }
        sorted.push((from, to, weight));
    }
    sorted.sort_by_key(|&(from, to, _)| (from, to));
    let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new(); graph.nodes()];
    for (from, to, weight) in sorted {
        match out[from].last_mut() {
            Some((last, sum)) if *last == to => *sum += weight,
            _ => out[from].push((to, weight)),
        }
    }
    for (from, arcs) in out.iter().enumerate() {
        for &(to, weight) in arcs {
            // Sums of finite weights can still overflow.
            if !ok(weight) {
                return Err(FlowError::BadEdge { from, to, weight });
            }
        }
    }
    Ok(out)
}

/// The static estimate for the plan of one top-level format ([`from_formats`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanFrequency {
    /// Expected runs of the format's plan per incoming message. Nothing static tells which
    /// format arrives more often, so this is a prior: each of the `k` distinct formats given to
    /// [`from_formats`] is equally likely to be a message's top-level format, `1/k`. It
    /// counts only the format's own arrivals, never its visits nested in other formats (those
    /// run in the enclosing plans). The tiering weighs it against the observed counts.
    pub runs: f64,
    /// Expected conversions of each record per run of the plan, by format id: Hoschka's visit
    /// counts with this format as the only arrival. The format itself comes first (1), then the
    /// records nested in it at any depth with positive expected visits, in topological order.
    pub records: Vec<(FormatId, f64)>,
}

impl PlanFrequency {
    /// Expected conversions of record `id` per run of the plan (0 for one it never converts).
    pub fn per_run(&self, id: FormatId) -> f64 {
        self.records
            .iter()
            .find(|(r, _)| *r == id)
            .map_or(0.0, |&(_, x)| x)
    }

    /// Expected conversions of record `id` by this plan per incoming message: `runs` times
    /// [`per_run`](PlanFrequency::per_run).
    pub fn per_message(&self, id: FormatId) -> f64 {
        self.runs * self.per_run(id)
    }
}

/// The static estimate for the plans of the top-level NDR `formats` a receiver knows, in their
/// order ([`PlanFrequency`]; the module documentation says what is credited to which plan).
///
/// The graph has one node per distinct record ([`Format::id`]): each given format, and each
/// record nested in it at any depth ([`Format::nested_format`]). Every field of record kind is
/// an edge to its record: [`Edge::Array`] of [`Field::elements`](crate::Field::elements) for a
/// fixed field (1 for a single record), [`Edge::UnknownArray`] (μ) for a variable-length
/// array. Only the given formats arrive; a record known only as nested in them never does. A
/// format given twice (same id) is one format, and both entries get its estimate.
///
/// Fails only on bad parameters (a negative or non-finite μ where a variable-length array of
/// records is); validated formats nest without cycles and cannot overflow.
pub fn from_formats(formats: &[&Format], params: &Params) -> Result<Vec<PlanFrequency>, FlowError> {
    let mut ids: HashMap<FormatId, usize> = HashMap::new();
    let mut nodes: Vec<&Format> = Vec::new();
    fn node_of<'a>(
        f: &'a Format,
        ids: &mut HashMap<FormatId, usize>,
        nodes: &mut Vec<&'a Format>,
    ) -> usize {
        *ids.entry(f.id()).or_insert_with(|| {
            nodes.push(f);
            nodes.len() - 1
        })
    }
    let tops: Vec<usize> = formats
        .iter()
        .map(|f| node_of(f, &mut ids, &mut nodes))
        .collect();
    // The distinct top-level formats are the first `distinct` nodes.
    let distinct = nodes.len();
    let mut edges = Vec::new();
    let mut i = 0;
    while let Some(&f) = nodes.get(i) {
        for field in f.fields() {
            if let Kind::Record(name) = field.kind() {
                if let Some(inner) = f.nested_format(name) {
                    let j = node_of(inner, &mut ids, &mut nodes);
                    let edge = if field.is_variable() {
                        Edge::UnknownArray
                    } else {
                        Edge::Array(field.elements())
                    };
                    edges.push((i, j, edge));
                }
            }
        }
        i += 1;
    }
    let mut graph = TypeGraph::new(nodes.len());
    for (from, to, edge) in edges {
        graph.edge(from, to, edge);
    }
    let ordered = Ordered::new(&graph, params)?;
    let runs = 1.0 / distinct as f64;
    let mut roots = vec![0.0; nodes.len()];
    let mut plans = Vec::with_capacity(distinct);
    for t in 0..distinct {
        roots[t] = 1.0;
        let f = ordered.flow(&roots)?;
        roots[t] = 0.0;
        let records = ordered
            .order
            .iter()
            .filter(|&&v| v == t || f[v] > 0.0)
            .map(|&v| (nodes[v].id(), f[v]))
            .collect();
        plans.push(PlanFrequency { runs, records });
    }
    Ok(tops.iter().map(|&t| plans[t].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ByteOrder, IOField};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(close(*g, *w), "{got:?} vs {want:?}");
        }
    }

    fn solve(g: &TypeGraph) -> Vec<f64> {
        g.solve(&Params::default()).unwrap()
    }

    #[test]
    fn defaults_follow_the_paper() {
        assert_eq!(
            Params::default(),
            Params {
                lambda: 0.5,
                mu: 1.0
            }
        );
    }

    #[test]
    fn empty_graph() {
        assert_eq!(solve(&TypeGraph::new(0)), Vec::<f64>::new());
        assert_eq!(solve(&TypeGraph::new(3)), vec![0.0; 3]);
    }

    #[test]
    fn chain() {
        let mut g = TypeGraph::new(4);
        g.edge(0, 1, Edge::Always)
            .edge(1, 2, Edge::Always)
            .edge(2, 3, Edge::Always)
            .root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 1.0, 1.0, 1.0]);
        // Listed out of order, with a second entry point.
        let mut g = TypeGraph::new(3);
        g.edge(2, 1, Edge::Always)
            .edge(1, 0, Edge::Always)
            .root(2, 0.5)
            .root(1, 0.25);
        assert_close(&solve(&g), &[0.75, 0.75, 0.5]);
    }

    #[test]
    fn known_length_arrays_multiply_and_parallel_edges_add() {
        let mut g = TypeGraph::new(3);
        g.edge(0, 1, Edge::Array(3))
            .edge(1, 2, Edge::Array(4))
            .edge(0, 2, Edge::Always)
            .edge(0, 2, Edge::Array(2))
            .root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 3.0, 12.0 + 3.0]);
        // An array of empty length never visits.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Array(0)).root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 0.0]);
    }

    #[test]
    fn union_arms_sum() {
        // A union of three arms; every arm holds a `leaf`, one arm holds two.
        let mut g = TypeGraph::new(5);
        g.root(0, 1.0);
        for arm in 1..=3 {
            g.edge(0, arm, Edge::UnionArm { arms: 3 });
            g.edge(arm, 4, Edge::Always);
        }
        g.edge(3, 4, Edge::Always);
        assert_close(
            &solve(&g),
            &[1.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 4.0 / 3.0],
        );
    }

    #[test]
    fn unknown_arrays_and_optionals_use_the_parameters() {
        let mut g = TypeGraph::new(3);
        g.edge(0, 1, Edge::UnknownArray)
            .edge(0, 2, Edge::Optional)
            .root(0, 2.0);
        assert_close(&solve(&g), &[2.0, 2.0, 1.0]);
        let p = Params {
            lambda: 0.25,
            mu: 8.0,
        };
        assert_close(&g.solve(&p).unwrap(), &[2.0, 16.0, 0.5]);
    }

    #[test]
    fn cycles_are_refused() {
        let cycle = |nodes: &[usize]| {
            Err::<Vec<f64>, _>(FlowError::Cycle {
                nodes: nodes.to_vec(),
            })
        };
        // An optional list: recursive, which NDR records cannot be.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always)
            .edge(1, 1, Edge::Optional)
            .root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), cycle(&[1]));
        // A two-node cycle, and a node reached only through it.
        let mut g = TypeGraph::new(4);
        g.edge(0, 1, Edge::Always)
            .edge(1, 2, Edge::Always)
            .edge(2, 1, Edge::Optional)
            .edge(2, 3, Edge::Always)
            .root(0, 1.0);
        let e = g.solve(&Params::default()).unwrap_err();
        assert_eq!(
            e,
            FlowError::Cycle {
                nodes: vec![1, 2, 3]
            }
        );
        assert!(e.to_string().contains("nodes 1, 2, 3"), "{e}");
        // A cycle nothing reaches is refused too.
        let mut g = TypeGraph::new(3);
        g.edge(1, 2, Edge::Array(0))
            .edge(2, 1, Edge::Always)
            .root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), cycle(&[1, 2]));
    }

    #[test]
    fn bad_weights_are_errors() {
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::UnionArm { arms: 0 }).root(0, 1.0);
        assert!(matches!(
            g.solve(&Params::default()),
            Err(FlowError::BadEdge { from: 0, to: 1, .. })
        ));
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Optional).root(0, 1.0);
        for lambda in [f64::NAN, -0.5, f64::INFINITY] {
            let e = g.solve(&Params { lambda, mu: 1.0 }).unwrap_err();
            assert!(
                matches!(e, FlowError::BadEdge { from: 0, to: 1, .. }),
                "{e}"
            );
            assert!(e.to_string().contains("node 0 to node 1"), "{e}");
        }
        // A negative weight cannot hide in a positive sum.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always)
            .edge(0, 1, Edge::Optional)
            .root(0, 1.0);
        let p = Params {
            lambda: -0.5,
            mu: 1.0,
        };
        assert_eq!(
            g.solve(&p),
            Err(FlowError::BadEdge {
                from: 0,
                to: 1,
                weight: -0.5
            })
        );
        // Nor can an overflowing sum.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::UnknownArray)
            .edge(0, 1, Edge::UnknownArray)
            .root(0, 1.0);
        let p = Params {
            lambda: 0.5,
            mu: f64::MAX,
        };
        assert!(matches!(
            g.solve(&p),
            Err(FlowError::BadEdge { from: 0, to: 1, weight }) if weight == f64::INFINITY
        ));
        // μ only matters where an unknown array is.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Optional).root(0, 1.0);
        let p = Params {
            lambda: 0.5,
            mu: f64::NAN,
        };
        assert!(g.solve(&p).is_ok());
        for weight in [f64::NAN, -1.0, f64::INFINITY] {
            let mut g = TypeGraph::new(2);
            g.root(1, weight);
            let e = g.solve(&Params::default()).unwrap_err();
            assert!(matches!(e, FlowError::BadRoot { node: 1, .. }), "{e}");
        }
    }

    #[test]
    fn overflow_is_an_error() {
        let mut g = TypeGraph::new(40);
        for i in 0..39 {
            g.edge(i, i + 1, Edge::Array(usize::MAX));
        }
        g.root(0, 1.0);
        let e = g.solve(&Params::default()).unwrap_err();
        assert!(matches!(e, FlowError::Overflow { .. }), "{e}");
    }

    #[test]
    fn long_chains_do_not_overflow_the_stack() {
        let n = 200_000;
        let mut g = TypeGraph::new(n);
        for i in 0..n - 1 {
            g.edge(i, i + 1, Edge::Always);
        }
        g.root(0, 1.0);
        assert!(solve(&g).iter().all(|&x| x == 1.0));
        g.edge(n - 1, 0, Edge::Optional);
        assert!(matches!(
            g.solve(&Params::default()),
            Err(FlowError::Cycle { nodes }) if nodes.len() == n
        ));
    }

    #[test]
    #[should_panic(expected = "TypeGraph::edge(0, 2): the graph has 2 nodes")]
    fn edge_out_of_range_panics() {
        TypeGraph::new(2).edge(0, 2, Edge::Always);
    }

    #[test]
    #[should_panic(expected = "TypeGraph::root(5, _): the graph has 2 nodes")]
    fn root_out_of_range_panics() {
        TypeGraph::new(2).root(5, 1.0);
    }

    use crate::tiering::knapsack::tests::Rng;

    /// Random acyclic graphs (arcs from earlier to later nodes of a random permutation) solve
    /// their equations; one arc back along the permutation closes a cycle, which is refused.
    #[test]
    fn random_graphs_solve_their_equations_or_refuse_a_cycle() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let n = 1 + rng.below(8);
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, rng.below(i as u64 + 1));
            }
            let mut g = TypeGraph::new(n);
            let mut arcs = Vec::new();
            for _ in 0..rng.below(12) {
                let (a, b) = (rng.below(n as u64), rng.below(n as u64));
                if a == b {
                    continue;
                }
                let (from, to) = (perm[a.min(b)], perm[a.max(b)]);
                let edge = match rng.below(5) {
                    0 => Edge::Always,
                    1 => Edge::Array(rng.below(4)),
                    2 => Edge::UnknownArray,
                    3 => Edge::Optional,
                    _ => Edge::UnionArm {
                        arms: 1 + rng.below(4),
                    },
                };
                g.edge(from, to, edge);
                arcs.push((from, to, edge));
            }
            let mut r = vec![0.0; n];
            for (node, x) in r.iter_mut().enumerate() {
                if rng.below(2) == 0 {
                    *x = rng.below(4) as f64 / 2.0;
                    g.root(node, *x);
                }
            }
            let p = Params {
                lambda: rng.below(5) as f64 / 4.0,
                mu: rng.below(5) as f64 / 2.0,
            };
            let f = g.solve(&p).unwrap();
            // f = r + Mᵀ·f, f ≥ 0.
            let mut rhs = r.clone();
            for &(from, to, e) in &arcs {
                rhs[to] += e.weight(&p) * f[from];
            }
            for (x, y) in f.iter().zip(&rhs) {
                assert!(*x >= 0.0 && x.is_finite());
                assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{f:?} {rhs:?}");
            }
            // Close a cycle: from the last node of the permutation back to the first.
            g.edge(perm[n - 1], perm[0], Edge::Optional);
            if n > 1 {
                g.edge(perm[0], perm[n - 1], Edge::Always);
            }
            match g.solve(&p) {
                Err(FlowError::Cycle { nodes }) => {
                    assert!(nodes.contains(&perm[0]) && nodes.contains(&perm[n - 1]))
                }
                other => panic!("a cycle solved: {other:?}"),
            }
        }
    }

    fn point_format(order: ByteOrder) -> Format {
        Format::from_fields(
            "point",
            order,
            8,
            &[
                IOField::new("x", "integer", 4, 0),
                IOField::new("y", "integer", 4, 4),
            ],
            &[],
        )
        .unwrap()
    }

    /// point, segment { point a, b }, path { int n; point pts[] }, mesh { segment edges[2][3] }.
    fn shapes() -> [Format; 4] {
        let order = ByteOrder::Little;
        let point = point_format(order);
        let segment = Format::from_fields(
            "segment",
            order,
            16,
            &[
                IOField::new("a", "point", 8, 0),
                IOField::new("b", "point", 8, 8),
            ],
            std::slice::from_ref(&point),
        )
        .unwrap();
        let path = Format::from_fields(
            "path",
            order,
            16,
            &[
                IOField::new("n", "integer", 4, 0),
                IOField::new("pts", "point[]", 8, 8),
            ],
            std::slice::from_ref(&point),
        )
        .unwrap();
        let mesh = Format::from_fields(
            "mesh",
            order,
            96,
            &[IOField::new("edges", "segment[2][3]", 16, 0)],
            std::slice::from_ref(&segment),
        )
        .unwrap();
        assert_eq!(segment.nested()[0].id(), point.id());
        [point, segment, path, mesh]
    }

    fn runs(plans: &[PlanFrequency]) -> Vec<f64> {
        plans.iter().map(|p| p.runs).collect()
    }

    /// Two formats nothing relates: the old estimate said [0.5, 0.5] "visits". Each is now a
    /// prior of ½ run per message, and each run converts its own record once (and segment's
    /// two points).
    #[test]
    fn unrelated_formats_are_each_an_even_prior() {
        let [point, segment, ..] = shapes();
        let big = point_format(ByteOrder::Big);
        let p = Params::default();
        let plans = from_formats(&[&segment, &big], &p).unwrap();
        assert_close(&runs(&plans), &[0.5, 0.5]);
        assert_eq!(
            plans[0].records,
            vec![(segment.id(), 1.0), (point.id(), 2.0)]
        );
        assert_eq!(plans[1].records, vec![(big.id(), 1.0)]);
        // A big-endian point is another format: segment's plan converts no big point.
        assert_eq!(plans[0].per_run(big.id()), 0.0);
        // Alone, a format's plan runs once per message.
        let plans = from_formats(&[&point], &p).unwrap();
        assert_eq!(plans[0].runs, 1.0);
        assert_eq!(plans[0].records, vec![(point.id(), 1.0)]);
        assert!(from_formats(&[], &p).unwrap().is_empty());
    }

    /// A format that arrives on its own and is also nested: with μ = 2 the old estimate gave
    /// [segment, point, path] = [0.33, 1.67, 0.33], crediting point's plan with the points
    /// converted inside segment's and path's plans. Now each plan runs ⅓ of the messages, and
    /// the 5/3 points per message are split over the plans that convert them.
    #[test]
    fn nested_visits_belong_to_the_enclosing_plan() {
        let [point, segment, path, _] = shapes();
        let p = Params {
            lambda: 0.5,
            mu: 2.0,
        };
        let plans = from_formats(&[&segment, &point, &path], &p).unwrap();
        assert_close(&runs(&plans), &[1.0 / 3.0; 3]);
        assert_eq!(
            plans[0].records,
            vec![(segment.id(), 1.0), (point.id(), 2.0)]
        );
        assert_eq!(plans[1].records, vec![(point.id(), 1.0)]);
        assert_eq!(plans[2].records, vec![(path.id(), 1.0), (point.id(), 2.0)]);
        let per_message: Vec<f64> = plans.iter().map(|q| q.per_message(point.id())).collect();
        assert_close(&per_message, &[2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0]);
        // Their sum is Hoschka's f for point, the old (misplaced) number.
        let all: f64 = per_message.iter().sum();
        assert!(close(all, 5.0 / 3.0), "{all}");
        // μ = 0: a path's plan converts no point.
        let p0 = Params {
            lambda: 0.5,
            mu: 0.0,
        };
        let plans = from_formats(&[&path], &p0).unwrap();
        assert_eq!(plans[0].records, vec![(path.id(), 1.0)]);
    }

    #[test]
    fn nested_arrays_multiply_through_levels() {
        let [point, segment, _, mesh] = shapes();
        let plans = from_formats(&[&mesh, &segment, &point], &Params::default()).unwrap();
        assert_close(&runs(&plans), &[1.0 / 3.0; 3]);
        // Each mesh holds 6 segments, so 12 points, all converted by mesh's plan.
        assert_eq!(
            plans[0].records,
            vec![(mesh.id(), 1.0), (segment.id(), 6.0), (point.id(), 12.0)]
        );
        assert_eq!(
            plans[1].records,
            vec![(segment.id(), 1.0), (point.id(), 2.0)]
        );
        assert_eq!(plans[2].records, vec![(point.id(), 1.0)]);
    }

    #[test]
    fn a_format_given_twice_is_one_format() {
        let [point, segment, ..] = shapes();
        let plans = from_formats(&[&point, &point, &segment], &Params::default()).unwrap();
        assert_close(&runs(&plans), &[0.5, 0.5, 0.5]);
        assert_eq!(plans[0], plans[1]);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let [point, segment, path, _] = shapes();
        let nan = Params {
            lambda: 0.5,
            mu: f64::NAN,
        };
        assert!(matches!(
            from_formats(&[&path, &point], &nan),
            Err(FlowError::BadEdge { .. })
        ));
        // No variable-length array of records: μ is not used.
        assert!(from_formats(&[&segment, &point], &nan).is_ok());
    }
}
