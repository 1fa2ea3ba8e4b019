//! Static estimates of how often each record type is converted, after Hoschka, "Automatic
//! generation of optimized code for marshalling routines" (section 4.2, "Predicting Execution
//! Frequencies").
//!
//! The model: the *type reference graph* has one node per record type and an arc from a type
//! to each type one of its fields refers to, weighted by `v`, the expected number of times
//! the field occurs in one value of the referring type ([`Edge`]):
//!
//! - a plain field: 1;
//! - an array of known length `n`: `n`;
//! - an array of unknown length: μ ([`Params::mu`]);
//! - an optional field: λ ([`Params::lambda`]);
//! - one of the `n` arms of a union: `1/n`.
//!
//! Read as a Markov model of the conversion code (Hoschka after Ramamoorthy, 1965), the
//! expected number of visits `f` of the nodes satisfies `f = r + Mᵀ·f`, where `r` are the
//! external arrivals (each top-level message type, [`TypeGraph::root`]) and `M[i][j]` is the
//! sum of the weights of the arcs `i → j`. [`TypeGraph::solve`] solves `(I − Mᵀ)·f = r`.
//!
//! Recursion is fine as long as the flow around every cycle is below 1 (a list node whose
//! `next` is optional with λ = ½ is visited 1 + ½ + ¼ + … = 2 times per list). A cycle whose
//! flow is 1 or more would describe values nested without end: no finite, non-negative `f`
//! exists, and `solve` says so with [`FlowError::Unbounded`] rather than returning nonsense.
//!
//! The graph is solved one strongly connected component at a time, sources first: an acyclic
//! part is a plain forward pass, and each cycle becomes a small dense system solved by
//! Gaussian elimination with partial pivoting. A cycle is accepted exactly when its flow (the
//! spectral radius of its part of `M`) is below 1: a flow of exactly 1 makes the system
//! singular, which elimination sees as a pivot that is zero within its rounding error
//! (tracked per coefficient, so that badly scaled weights are no false alarm); a flow above 1
//! is caught by solving the cycle once more for arrivals of 1 on every node, a solution that
//! is positive if and only if the flow is below 1 (Perron–Frobenius). That test does not
//! depend on the actual arrivals, so a divergent cycle is refused even when nothing reaches it.
//!
//! [`from_formats`] builds the graph of the NDR formats a receiver knows. NDR records nest by
//! value, so their graph has no cycles; the cycle handling serves graphs built by hand.

use std::collections::HashMap;
use std::fmt;

use crate::{Format, FormatId, Kind};

/// Most nodes on one cycle (one strongly connected component) that [`TypeGraph::solve`]
/// takes: such a component is solved as a dense system of this many unknowns.
pub const MAX_CYCLE_NODES: usize = 1024;

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
    /// "optional heuristic" and its final evaluation.
    pub lambda: f64,
    /// μ, the expected length of an array whose length is not known statically (an NDR
    /// variable-length array). Default 1, the value of the paper's final evaluation
    /// (section 5.3): its "array heuristic" with μ = 2 gave the least accurate frequencies of
    /// the three it compared (section 5.2), ranking a rarely used type among the most frequent.
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

/// Why [`TypeGraph::solve`] found no frequencies.
#[derive(Debug, Clone, PartialEq)]
pub enum FlowError {
    /// The flow around a cycle through these nodes (ascending) is 1 or more: values would
    /// nest without end, and no finite, non-negative visit counts exist.
    Unbounded {
        /// The nodes of the strongly connected component holding the cycle.
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
    /// A strongly connected component has more nodes than [`MAX_CYCLE_NODES`].
    TooLarge {
        /// How many nodes it has.
        nodes: usize,
    },
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::Unbounded { nodes } => {
                let list: Vec<String> = nodes.iter().map(usize::to_string).collect();
                let noun = if nodes.len() == 1 { "node" } else { "nodes" };
                write!(
                    f,
                    "the flow around the cycle through {noun} {} is 1 or more: \
                     values would nest without end",
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
            FlowError::TooLarge { nodes } => write!(
                f,
                "a cycle through {nodes} nodes is more than the {MAX_CYCLE_NODES} the solver takes"
            ),
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

    /// The expected visits of every node: the solution `f` of `f = r + Mᵀ·f`. Never panics;
    /// fails when a cycle's flow is 1 or more (even on a cycle no arrival reaches), on
    /// negative or non-finite weights, on overflow, and on a cycle of more than
    /// [`MAX_CYCLE_NODES`] nodes.
    pub fn solve(&self, params: &Params) -> Result<Vec<f64>, FlowError> {
        let n = self.nodes();
        for (node, &weight) in self.roots.iter().enumerate() {
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(FlowError::BadRoot { node, weight });
            }
        }
        let out = self.weighted(params)?;
        let succ: Vec<Vec<usize>> = out
            .iter()
            .map(|arcs| arcs.iter().map(|&(to, _)| to).collect())
            .collect();
        let mut components = strongly_connected(&succ);
        // Tarjan's algorithm finishes a component after every component it reaches.
        components.reverse();

        let mut f = vec![0.0; n];
        let mut inflow = self.roots.clone();
        let mut pos = vec![usize::MAX; n];
        for comp in &components {
            let values = solve_component(comp, &out, &inflow, &mut pos)?;
            for (&v, &x) in comp.iter().zip(&values) {
                if !x.is_finite() {
                    return Err(FlowError::Overflow { node: v });
                }
                f[v] = x;
            }
            // Push the flow out of the component, to components later in the order.
            for &v in comp {
                for &(w, weight) in &out[v] {
                    if pos[w] == usize::MAX {
                        inflow[w] += f[v] * weight;
                    }
                }
            }
            for &v in comp {
                pos[v] = usize::MAX;
            }
        }
        Ok(f)
    }

    /// Per node, its successors with the summed weight of the edges to each, checked.
    fn weighted(&self, params: &Params) -> Result<Vec<Vec<(usize, f64)>>, FlowError> {
        let ok = |weight: f64| weight.is_finite() && weight >= 0.0;
        let mut sorted = Vec::with_capacity(self.edges.len());
        for &(from, to, e) in &self.edges {
            let weight = e.weight(params);
            if !ok(weight) {
                return Err(FlowError::BadEdge { from, to, weight });
            }
            sorted.push((from, to, weight));
        }
        sorted.sort_by_key(|&(from, to, _)| (from, to));
        let mut out: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.nodes()];
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
}

/// Strongly connected components (Tarjan, iterative so that long chains cannot overflow the
/// stack), each finished after every component it reaches.
fn strongly_connected(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();
    // (node, how many of its successors have been looked at)
    let mut calls: Vec<(usize, usize)> = Vec::new();
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        calls.push((start, 0));
        while let Some(top) = calls.len().checked_sub(1) {
            let (v, i) = calls[top];
            if let Some(&w) = succ[v].get(i) {
                calls[top].1 += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                components.push(comp);
            }
        }
    }
    components
}

/// Solves `(I − M_Cᵀ)·x = inflow_C` on one strongly connected component `comp`, and checks
/// that the component's flow is below 1. Leaves `pos[v]` = v's place in `comp` for its nodes.
fn solve_component(
    comp: &[usize],
    out: &[Vec<(usize, f64)>],
    inflow: &[f64],
    pos: &mut [usize],
) -> Result<Vec<f64>, FlowError> {
    let k = comp.len();
    for (i, &v) in comp.iter().enumerate() {
        pos[v] = i;
    }
    let self_loop = k == 1 && out[comp[0]].iter().any(|&(w, _)| w == comp[0]);
    if k == 1 && !self_loop {
        return Ok(vec![inflow[comp[0]]]);
    }
    if k > MAX_CYCLE_NODES {
        return Err(FlowError::TooLarge { nodes: k });
    }
    let unbounded = || FlowError::Unbounded {
        nodes: comp.to_vec(),
    };
    // Row i: x_i − Σ_j M[comp_j][comp_i]·x_j, then two right-hand sides: the inflow, and the
    // probe of all ones that decides whether the component's spectral radius is below 1.
    let width = k + 2;
    let mut a = vec![0.0; k * width];
    // Beside each coefficient, the sum of the magnitudes of the terms that made it: its
    // rounding error is within a few ulps of that, whatever the scale of the weights. A
    // pivot that small is zero (1 − 10 × 0.1 is 1.1e-16 in floating point, a cycle of flow 1).
    let mut mag = vec![0.0; k * k];
    for i in 0..k {
        a[i * width + i] = 1.0;
        a[i * width + k] = inflow[comp[i]];
        a[i * width + k + 1] = 1.0;
        mag[i * k + i] = 1.0;
    }
    for (j, &v) in comp.iter().enumerate() {
        for &(w, weight) in &out[v] {
            let i = pos[w];
            if i != usize::MAX {
                a[i * width + j] -= weight;
                mag[i * k + j] += weight;
            }
        }
    }
    let slack = 8.0 * (k + 1) as f64 * f64::EPSILON;

    // Forward elimination with partial pivoting, among the entries that are not zero within
    // their rounding error.
    for col in 0..k {
        let mut best: Option<usize> = None;
        for row in col..k {
            let x = a[row * width + col].abs();
            let reliable = x > slack * mag[row * k + col];
            if reliable && best.is_none_or(|b| x > a[b * width + col].abs()) {
                best = Some(row);
            }
        }
        // Singular: the component's matrix has the eigenvalue 1.
        let Some(best) = best else {
            return Err(unbounded());
        };
        if best != col {
            for c in 0..width {
                a.swap(best * width + c, col * width + c);
            }
            for c in 0..k {
                mag.swap(best * k + c, col * k + c);
            }
        }
        let pivot = a[col * width + col];
        for row in col + 1..k {
            let factor = a[row * width + col] / pivot;
            if factor != 0.0 {
                for c in col..width {
                    a[row * width + c] -= factor * a[col * width + c];
                }
                for c in col..k {
                    mag[row * k + c] += factor.abs() * mag[col * k + c];
                }
            }
        }
    }
    // Back substitution, both right-hand sides.
    let mut x = vec![0.0; k];
    let mut probe = vec![0.0; k];
    for row in (0..k).rev() {
        let (mut s, mut p) = (a[row * width + k], a[row * width + k + 1]);
        for c in row + 1..k {
            s -= a[row * width + c] * x[c];
            p -= a[row * width + c] * probe[c];
        }
        let d = a[row * width + row];
        x[row] = s / d;
        probe[row] = p / d;
    }
    // With a radius below 1 the probe is Σ (M_Cᵀ)^k·1 ≥ 1; with 1 or more no non-negative
    // solution exists (Perron–Frobenius).
    if !probe.iter().all(|&p| p.is_finite() && p > 0.0) {
        return Err(unbounded());
    }
    // The true solution is then non-negative: only rounding can make it dip below zero.
    Ok(x.into_iter().map(|v| v.max(0.0)).collect())
}

/// Estimated conversion frequencies of the NDR `formats` a receiver knows, in their order:
/// the expected visits of each, per message, when every format is equally likely to arrive.
///
/// The graph has one node per distinct record ([`Format::id`]): each given format, and each
/// record nested in it, at any depth ([`Format::nested_format`]). Each given format is a root
/// of weight `1/k` for `k` formats, and every field of record kind is an edge to its record:
/// [`Edge::Array`] of [`Field::elements`](crate::Field::elements) for a fixed field (1 for a
/// single record), [`Edge::UnknownArray`] for a variable-length array. A given format that is
/// also nested in another (same id) is one node, and so is counted for both. Should solving
/// fail (it cannot for valid formats, which nest without cycles), each gets `1/k`.
pub fn from_formats(formats: &[&Format], params: &Params) -> Vec<f64> {
    let k = formats.len();
    if k == 0 {
        return Vec::new();
    }
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
    let share = 1.0 / k as f64;
    for &t in &tops {
        graph.root(t, share);
    }
    match graph.solve(params) {
        Ok(f) => tops.iter().map(|&t| f[t]).collect(),
        Err(_) => vec![share; k],
    }
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
        // Two arms of the same type: all of it.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::UnionArm { arms: 2 })
            .edge(0, 1, Edge::UnionArm { arms: 2 })
            .root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 1.0]);
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
    fn optional_list_is_a_geometric_series() {
        // struct holder { list *head; }  struct list { int v; list *next /* optional */; }
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always)
            .edge(1, 1, Edge::Optional)
            .root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 2.0]);
        // λ = 0.9: 1 / (1 − 0.9) = 10 nodes per list.
        let p = Params {
            lambda: 0.9,
            mu: 1.0,
        };
        assert_close(&g.solve(&p).unwrap(), &[1.0, 10.0]);
    }

    #[test]
    fn mutual_recursion_below_one() {
        // tree → optional forest → array of trees (μ = 1): flow ½ around the cycle.
        let mut g = TypeGraph::new(3);
        g.edge(0, 1, Edge::Always)
            .edge(1, 2, Edge::Optional)
            .edge(2, 1, Edge::UnknownArray)
            .edge(2, 0, Edge::Array(0))
            .root(0, 1.0);
        assert_close(&solve(&g), &[1.0, 2.0, 1.0]);
    }

    #[test]
    fn flow_of_one_or_more_is_an_error() {
        let unbounded = |nodes: &[usize]| {
            Err::<Vec<f64>, _>(FlowError::Unbounded {
                nodes: nodes.to_vec(),
            })
        };
        // A record that always contains itself.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always)
            .edge(1, 1, Edge::Always)
            .root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[1]));
        // A two-record cycle of flow exactly 1 (a singular system).
        let mut g = TypeGraph::new(3);
        g.edge(0, 1, Edge::Always)
            .edge(1, 2, Edge::Always)
            .edge(2, 1, Edge::Always)
            .root(0, 1.0);
        let e = g.solve(&Params::default()).unwrap_err();
        assert_eq!(e, FlowError::Unbounded { nodes: vec![1, 2] });
        assert!(e.to_string().contains("nodes 1, 2"), "{e}");
        // Flow 2 (a regular system whose solution is negative).
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always)
            .edge(1, 1, Edge::Array(2))
            .root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[1]));
        // A list of unknown-length arrays of lists with μ = 1: flow exactly 1.
        let mut g = TypeGraph::new(1);
        g.edge(0, 0, Edge::UnknownArray).root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[0]));
        // λ = 1 on an optional list.
        let p = Params {
            lambda: 1.0,
            mu: 1.0,
        };
        let mut g = TypeGraph::new(1);
        g.edge(0, 0, Edge::Optional).root(0, 1.0);
        assert_eq!(g.solve(&p), unbounded(&[0]));
        // Three arms of a union that all recurse: 1/3 + 1/3 + 1/3 is not exactly 1 in
        // floating point, and must still be refused.
        let mut g = TypeGraph::new(1);
        for _ in 0..3 {
            g.edge(0, 0, Edge::UnionArm { arms: 3 });
        }
        g.root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[0]));
        // Ten arms: 10 × 0.1 is 0.9999999999999999 in floating point, still a flow of 1.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Always);
        for _ in 0..9 {
            g.edge(1, 1, Edge::UnionArm { arms: 10 });
        }
        g.edge(1, 0, Edge::UnionArm { arms: 10 }).root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[0, 1]));
        // A divergent cycle that nothing reaches is refused too.
        let mut g = TypeGraph::new(3);
        g.edge(1, 2, Edge::Array(3))
            .edge(2, 1, Edge::Always)
            .root(0, 1.0);
        assert_eq!(g.solve(&Params::default()), unbounded(&[1, 2]));
        // A cycle of flow just under 1 is fine.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::UnionArm { arms: 2 })
            .edge(1, 0, Edge::Optional)
            .edge(1, 1, Edge::UnionArm { arms: 2 })
            .root(0, 1.0);
        // f0 = 1 + ½·f1 and f1 = ½·f0 + ½·f1, so f1 = f0 = 2.
        assert_close(&solve(&g), &[2.0, 2.0]);
    }

    #[test]
    fn badly_scaled_cycles_are_no_false_alarm() {
        // A huge array around a very unlikely optional: flow 1e19 × 1e-25 = 1e-6.
        let p = Params {
            lambda: 1e-25,
            mu: 1.0,
        };
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Array(10_000_000_000_000_000_000))
            .edge(1, 0, Edge::Optional)
            .root(0, 1.0);
        let f0 = 1.0 / (1.0 - 1e-6);
        assert_close(&g.solve(&p).unwrap(), &[f0, 1e19 * f0]);
        // The same flow, upside down.
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Optional)
            .edge(1, 0, Edge::Array(10_000_000_000_000_000_000))
            .root(0, 1.0);
        assert_close(&g.solve(&p).unwrap(), &[f0, 1e-25 * f0]);
        // And a flow of 1e19 × 1e-19 = 1 is still refused, up to rounding.
        let p = Params {
            lambda: 1e-19,
            mu: 1.0,
        };
        assert!(matches!(g.solve(&p), Err(FlowError::Unbounded { .. })));
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
        let mut g = TypeGraph::new(2);
        g.edge(0, 1, Edge::Optional).root(0, 1.0);
        // μ only matters where an unknown array is.
        assert!(g
            .solve(&Params {
                lambda: 0.5,
                mu: f64::NAN
            })
            .is_ok());
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
        g.edge(n - 1, 0, Edge::Optional).root(0, 1.0);
        let err = g.solve(&Params::default()).unwrap_err();
        assert_eq!(err, FlowError::TooLarge { nodes: n });
        let mut g = TypeGraph::new(n);
        for i in 0..n - 1 {
            g.edge(i, i + 1, Edge::Always);
        }
        g.root(0, 1.0);
        assert!(solve(&g).iter().all(|&x| x == 1.0));
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

    #[test]
    fn random_graphs_solve_their_equations_or_fail_cleanly() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut ok, mut failed) = (0, 0);
        for _ in 0..3000 {
            let n = 1 + rng.below(8);
            let mut g = TypeGraph::new(n);
            let mut arcs = Vec::new();
            for _ in 0..rng.below(12) {
                let (from, to) = (rng.below(n as u64), rng.below(n as u64));
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
            match g.solve(&p) {
                Ok(f) => {
                    ok += 1;
                    // f = r + Mᵀ·f, f ≥ 0.
                    let mut rhs = r.clone();
                    for &(from, to, e) in &arcs {
                        rhs[to] += e.weight(&p) * f[from];
                    }
                    for (x, y) in f.iter().zip(&rhs) {
                        assert!(*x >= 0.0 && x.is_finite());
                        assert!((x - y).abs() <= 1e-6 * y.abs().max(1.0), "{f:?} {rhs:?}");
                    }
                }
                Err(e) => {
                    failed += 1;
                    assert!(matches!(e, FlowError::Unbounded { .. }), "{e}");
                }
            }
        }
        assert!(ok > 100 && failed > 100, "{ok} solved, {failed} refused");
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

    #[test]
    fn formats_share_nested_records_by_id() {
        let order = ByteOrder::Little;
        let point = point_format(order);
        // A nested record used twice: two fields of it.
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
        // A variable-length array of it.
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
        // A fixed array of segments: points two levels down.
        let mesh = Format::from_fields(
            "mesh",
            order,
            96,
            &[IOField::new("edges", "segment[2][3]", 16, 0)],
            std::slice::from_ref(&segment),
        )
        .unwrap();
        assert_eq!(segment.nested()[0].id(), point.id());

        let p = Params::default();
        // Alone, a format is visited once per message.
        assert_close(&from_formats(&[&point], &p), &[1.0]);
        // k = 3: a third each, plus what the others bring to `point`: 2 from each segment and
        // μ from each path.
        let f = from_formats(&[&segment, &path, &point], &p);
        assert_close(&f, &[1.0 / 3.0, 1.0 / 3.0, (1.0 + 2.0 + 1.0) / 3.0]);
        let p4 = Params {
            lambda: 0.5,
            mu: 4.0,
        };
        let f = from_formats(&[&segment, &path, &point], &p4);
        assert_close(&f, &[1.0 / 3.0, 1.0 / 3.0, (1.0 + 2.0 + 4.0) / 3.0]);
        // Through two levels: each mesh holds 6 segments, so 12 points.
        let f = from_formats(&[&mesh, &segment, &point], &p);
        assert_close(&f, &[1.0 / 3.0, (1.0 + 6.0) / 3.0, (1.0 + 2.0 * 7.0) / 3.0]);
        // A point of the other byte order is another format: nothing nests it.
        let big = point_format(ByteOrder::Big);
        let f = from_formats(&[&segment, &big], &p);
        assert_close(&f, &[0.5, 0.5]);
        // The same format twice is one node, with both shares.
        let f = from_formats(&[&point, &point, &segment], &p);
        assert_close(&f, &[(2.0 + 2.0) / 3.0, (2.0 + 2.0) / 3.0, 1.0 / 3.0]);
        assert!(from_formats(&[], &p).is_empty());
    }

    #[test]
    fn formats_fall_back_to_equal_shares() {
        let order = ByteOrder::Little;
        let point = point_format(order);
        let path = Format::from_fields(
            "path",
            order,
            8,
            &[IOField::new("pts", "point[]", 8, 0)],
            std::slice::from_ref(&point),
        )
        .unwrap();
        let nan = Params {
            lambda: 0.5,
            mu: f64::NAN,
        };
        assert_close(&from_formats(&[&path, &point], &nan), &[0.5, 0.5]);
    }
}
