//! Tiering: which plans a receiver compiles, and the cache that owns their code.
//!
//! Every (incoming format, local type) pair starts in the interpreter. Periodically, between
//! messages, the receiver solves a 0-1 knapsack ([`knapsack::greedy`]): each plan is an item
//! of profit `f × (t_interp − t_jit)` ([`cost::estimate`]) and weight its code bytes (the
//! estimate until it has been compiled once, then the measured size), the capacity the code
//! budget. The frequency `f` (runs of the plan per message) starts from the static estimate
//! for the formats the receiver knows ([`frequency::from_formats`], an even prior over them)
//! and gives way to the observed counts as messages arrive: `f = (seen + P·static) /
//! (total + P)` with `P` = [`PRIOR`] messages. Chosen plans not yet compiled are queued, best
//! profit per byte first, and compiled one per message (so no decode waits for more than one
//! compile); compiled plans that were not chosen are evicted, which frees their code.
//!
//! With [`Engine::Jit`](crate::Engine::Jit) every plan is compiled when first used, and the
//! least used are evicted when the code passes the budget.

use std::collections::HashMap;
use std::sync::Arc;

use super::engine::Stats;
use super::{cost, frequency, knapsack};
use crate::convert::jit::{Compiled, Jit};
use crate::convert::plan::{Key, Plan};
use crate::format::description::Format;
use crate::format::format_id::FormatId;

/// How many messages the static frequency estimate counts for.
pub const PRIOR: f64 = 32.0;
/// Conversions between two knapsack solutions.
pub const REPLAN_EVERY: u64 = 64;

/// Compile everything on first use, or tier under a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Always,
    Tiered,
}

#[derive(Debug)]
struct Slot {
    plan: Arc<Plan>,
    code: Option<Arc<Compiled>>,
    /// Conversions counted so far.
    seen: u64,
    estimate: cost::Estimate,
    /// The code's size once compiled (it stays known after an eviction).
    measured: Option<usize>,
    /// The compiler refused the plan: it stays interpreted.
    failed: bool,
}

impl Slot {
    fn weight(&self) -> usize {
        self.measured.unwrap_or(self.estimate.code_bytes)
    }
}

/// The tiering state and code cache of one receiver.
pub(crate) struct Tier {
    mode: Mode,
    budget: usize,
    jit: Option<Jit>,
    slots: HashMap<Key, Slot>,
    /// Plans to compile, the next last.
    queue: Vec<Key>,
    code_bytes: usize,
    /// Bumped whenever some plan's code appears or goes: a receiver's cached "last" entry
    /// is stale when its generation differs.
    generation: u64,
    /// Static frequency by format id, recomputed when formats are added.
    statics: HashMap<FormatId, f64>,
    statics_dirty: bool,
    /// Conversions since the last knapsack.
    since: u64,
}

impl core::fmt::Debug for Tier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tier")
            .field("mode", &self.mode)
            .field("budget", &self.budget)
            .field("plans", &self.slots.len())
            .field("code_bytes", &self.code_bytes)
            .finish_non_exhaustive()
    }
}

impl Tier {
    pub(crate) fn new(mode: Mode, budget: usize) -> Tier {
        Tier {
            mode,
            budget,
            jit: None,
            slots: HashMap::new(),
            queue: Vec::new(),
            code_bytes: 0,
            generation: 0,
            statics: HashMap::new(),
            statics_dirty: true,
            since: 0,
        }
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The code for `key`, if compiled.
    pub(crate) fn code(&self, key: &Key) -> Option<Arc<Compiled>> {
        self.slots.get(key).and_then(|s| s.code.clone())
    }

    /// Counts one conversion (by any plan) towards the next knapsack.
    pub(crate) fn converted(&mut self) {
        self.since += 1;
    }

    /// Whether the receiver should call [`Tier::between`]: work is queued, or a knapsack is
    /// due.
    pub(crate) fn due(&self) -> bool {
        self.mode == Mode::Tiered && (!self.queue.is_empty() || self.since >= REPLAN_EVERY)
    }

    /// A plan is in use for the first time (or again after `forget`). With `Mode::Always` it
    /// is compiled now.
    pub(crate) fn add(&mut self, key: Key, plan: &Arc<Plan>, stats: &mut Stats) {
        if self.slots.contains_key(&key) || plan.is_identical() {
            return;
        }
        self.slots.insert(
            key,
            Slot {
                plan: plan.clone(),
                code: None,
                seen: 0,
                estimate: cost::estimate(plan),
                measured: None,
                failed: false,
            },
        );
        self.statics_dirty = true;
        match self.mode {
            Mode::Always => {
                self.compile(key, stats);
                self.evict_least_used(key, stats);
            }
            // A new plan: solve again at the next message.
            Mode::Tiered => self.since = REPLAN_EVERY,
        }
    }

    /// Counts `*pending` conversions by the plan `key`, and clears `pending`.
    pub(crate) fn seen(&mut self, key: &Key, pending: &mut u64) {
        if let Some(s) = self.slots.get_mut(key) {
            s.seen += core::mem::take(pending);
        }
    }

    /// Work between messages (tiered mode): solve the knapsack when due, then compile at most
    /// one queued plan. `formats` are the formats the receiver knows, for the static estimate.
    pub(crate) fn between(&mut self, formats: &dyn Fn() -> Vec<Arc<Format>>, stats: &mut Stats) {
        if self.since >= REPLAN_EVERY {
            self.since = 0;
            self.replan(formats, stats);
        }
        if let Some(key) = self.queue.pop() {
            self.compile(key, stats);
            if self.code_bytes > self.budget {
                // Bigger than estimated: give it back; its measured size is known now.
                self.evict(&key, stats);
            }
        }
    }

    /// Solves the knapsack over every plan and updates the queue and the cache.
    fn replan(&mut self, formats: &dyn Fn() -> Vec<Arc<Format>>, stats: &mut Stats) {
        if self.statics_dirty {
            let fs = formats();
            let refs: Vec<&Format> = fs.iter().map(|f| &**f).collect();
            // Runs per message (saving_ns counts a plan's nested steps); no prior on failure.
            let freq =
                frequency::from_formats(&refs, &frequency::Params::default()).unwrap_or_default();
            self.statics = fs
                .iter()
                .map(|f| f.id())
                .zip(freq.iter().map(|p| p.runs))
                .collect();
            self.statics_dirty = false;
        }
        let total: u64 = self.slots.values().map(|s| s.seen).sum();
        let mut keys: Vec<Key> = self.slots.keys().copied().collect();
        keys.sort_unstable();
        let items: Vec<knapsack::Item> = keys
            .iter()
            .map(|k| {
                let s = &self.slots[k];
                let stat = self.statics.get(&k.0).copied().unwrap_or(0.0);
                let f = (s.seen as f64 + PRIOR * stat) / (total as f64 + PRIOR);
                knapsack::Item {
                    profit: if s.failed {
                        0.0
                    } else {
                        f * s.estimate.saving_ns()
                    },
                    weight: s.weight(),
                }
            })
            .collect();
        let chosen = knapsack::greedy(&items, self.budget);
        let mut keep = vec![false; keys.len()];
        for &i in &chosen {
            keep[i] = true;
        }
        for (i, k) in keys.iter().enumerate() {
            if !keep[i] && self.slots[k].code.is_some() {
                self.evict(k, stats);
            }
        }
        let mut todo: Vec<usize> = chosen
            .into_iter()
            .filter(|&i| self.slots[&keys[i]].code.is_none())
            .collect();
        // Best profit per byte last: the queue pops from the end.
        let ratio = |i: usize| items[i].profit / items[i].weight.max(1) as f64;
        todo.sort_by(|&a, &b| ratio(a).total_cmp(&ratio(b)));
        self.queue = todo.into_iter().map(|i| keys[i]).collect();
    }

    fn compile(&mut self, key: Key, stats: &mut Stats) {
        let Some(slot) = self.slots.get_mut(&key) else {
            return;
        };
        if slot.code.is_some() || slot.failed {
            return;
        }
        let jit = match &mut self.jit {
            Some(j) => j,
            None => match Jit::new() {
                Ok(j) => self.jit.insert(j),
                Err(_) => {
                    slot.failed = true;
                    return;
                }
            },
        };
        match jit.compile(slot.plan.clone()) {
            Ok(code) => {
                stats.compiled_plans += 1;
                stats.compile_nanos += code.compile_nanos();
                slot.measured = Some(code.code_bytes());
                self.code_bytes += code.code_bytes();
                slot.code = Some(Arc::new(code));
                self.generation += 1;
            }
            Err(_) => slot.failed = true,
        }
        stats.code_bytes = self.code_bytes as u64;
    }

    fn evict(&mut self, key: &Key, stats: &mut Stats) {
        if let Some(code) = self.slots.get_mut(key).and_then(|s| s.code.take()) {
            self.code_bytes -= code.code_bytes();
            stats.evicted_plans += 1;
            stats.code_bytes = self.code_bytes as u64;
            self.generation += 1;
        }
    }

    /// `Mode::Always`: evicts the least used compiled plans other than `keep` until the code
    /// fits the budget.
    fn evict_least_used(&mut self, keep: Key, stats: &mut Stats) {
        while self.code_bytes > self.budget {
            let victim = self
                .slots
                .iter()
                .filter(|(k, s)| **k != keep && s.code.is_some())
                .min_by_key(|(k, s)| (s.seen, **k))
                .map(|(k, _)| *k);
            match victim {
                Some(k) => self.evict(&k, stats),
                None => break,
            }
        }
    }

    /// Drops everything kept for format `id` (its plans and their code).
    pub(crate) fn forget(&mut self, id: FormatId, stats: &mut Stats) {
        let keys: Vec<Key> = self.slots.keys().filter(|k| k.0 == id).copied().collect();
        for k in &keys {
            self.evict(k, stats);
            self.slots.remove(k);
        }
        self.queue.retain(|k| k.0 != id);
        self.statics_dirty = true;
    }
}
