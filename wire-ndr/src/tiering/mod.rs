//! Tiering after Hoschka: which engine runs a receiver's plans, and with the `jit` feature
//! which plans to compile under a code budget: a cost model and the count of the
//! interpreter's dispatches per plan (`cost`), a static frequency estimate over the
//! type-reference graph (`frequency`), a 0-1 knapsack (`knapsack`) and the tier that applies
//! them, refines the estimate with the conversions it counts, solves again when the mix
//! drifts, and owns the compiled code (`tier`).
//!
//! The receiver talks only to a `Runner`: it hands it the plan for each message and asks it
//! to run it, and tells it when a message is done. Whether code is compiled, and which, is
//! decided here; the `jit` feature is visible nowhere else in the receiver.

#[cfg(feature = "jit")]
pub mod cost;
pub(crate) mod engine;
#[cfg(feature = "jit")]
pub mod frequency;
#[cfg(feature = "jit")]
pub mod knapsack;
#[cfg(feature = "jit")]
pub(crate) mod tier;

use std::sync::Arc;

use marshal_core::Error;

use crate::convert::interp;
#[cfg(feature = "jit")]
use crate::convert::jit::Compiled;
use crate::convert::plan::{Key, Plan};
use crate::format::description::Format;
use crate::format::format_id::FormatId;
use engine::{Engine, Stats};
#[cfg(feature = "jit")]
use tier::{Mode, Tier};

/// A receiver's engine at work: the [`Engine`] chosen, what it has done ([`Stats`]), and with
/// the `jit` feature the tier that compiles plans and owns their code.
pub(crate) struct Runner {
    engine: Engine,
    stats: Stats,
    #[cfg(feature = "jit")]
    tier: Option<Tier>,
}

/// The plan in use, with its compiled code when it has some. A receiver keeps the one it used
/// last, so that a stream of one kind of record skips the map of plans.
pub(crate) struct Active {
    /// (incoming format, local type).
    pub(crate) key: Key,
    pub(crate) plan: Arc<Plan>,
    #[cfg(feature = "jit")]
    code: Option<Arc<Compiled>>,
    /// The tier's generation `code` was read at.
    #[cfg(feature = "jit")]
    generation: u64,
    /// Conversions not yet counted in the tier.
    #[cfg(feature = "jit")]
    pending: u64,
}

impl Runner {
    /// The runner of `engine`, which has done nothing yet.
    pub(crate) fn new(engine: Engine) -> Runner {
        #[cfg(feature = "jit")]
        let tier = match engine {
            Engine::Interpreter => None,
            Engine::Jit => Some(Tier::new(Mode::Always, Engine::JIT_BUDGET)),
            Engine::Tiered { budget_bytes } => Some(Tier::new(Mode::Tiered, budget_bytes)),
        };
        Runner {
            engine,
            stats: Stats::default(),
            #[cfg(feature = "jit")]
            tier,
        }
    }

    /// The engine chosen at construction.
    #[inline]
    pub(crate) fn engine(&self) -> Engine {
        self.engine
    }

    /// What the engine has done.
    #[inline]
    pub(crate) fn stats(&self) -> Stats {
        self.stats
    }

    /// Whether the plan `key` is compiled now.
    #[inline]
    pub(crate) fn is_compiled(&self, key: &Key) -> bool {
        #[cfg(feature = "jit")]
        if let Some(t) = &self.tier {
            return t.code(key).is_some();
        }
        let _ = key;
        false
    }

    /// Drops the code of every plan from the format `id`.
    pub(crate) fn forget(&mut self, id: FormatId) {
        #[cfg(feature = "jit")]
        if let Some(t) = &mut self.tier {
            t.forget(id, &mut self.stats);
        }
        let _ = id;
    }

    /// Makes `plan` (for `key`) the active one, after `previous`: the tier counts what
    /// `previous` converted, learns of `plan` (with [`Engine::Jit`], compiles it now) and
    /// hands over its code when it has some.
    pub(crate) fn activate(
        &mut self,
        key: Key,
        plan: Arc<Plan>,
        previous: Option<&mut Active>,
    ) -> Active {
        #[cfg(feature = "jit")]
        let (code, generation) = match &mut self.tier {
            Some(tier) => {
                if let Some(p) = previous {
                    tier.seen(&p.key, &mut p.pending);
                }
                tier.add(key, &plan, &mut self.stats);
                (tier.code(&key), tier.generation())
            }
            None => (None, 0),
        };
        #[cfg(not(feature = "jit"))]
        let _ = previous;
        Active {
            key,
            plan,
            #[cfg(feature = "jit")]
            code,
            #[cfg(feature = "jit")]
            generation,
            #[cfg(feature = "jit")]
            pending: 0,
        }
    }

    /// Runs the active plan (not the identical one) on `body`: into `fixed` when given (a
    /// plan without variable parts, into a value's own bytes), else into `scratch`, held to
    /// `max_output` bytes. Compiled code runs it when the tier has compiled it, else the
    /// interpreter.
    #[inline]
    pub(crate) fn run(
        &mut self,
        active: &mut Active,
        body: &[u8],
        fixed: Option<&mut [u8]>,
        scratch: &mut Vec<u8>,
        max_output: usize,
    ) -> Result<(), Error> {
        #[cfg(feature = "jit")]
        if let Some(tier) = &mut self.tier {
            active.pending = active.pending.saturating_add(1);
            tier.converted();
            if active.generation != tier.generation() {
                active.code = tier.code(&active.key);
                active.generation = tier.generation();
            }
            if let Some(code) = &active.code {
                self.stats.compiled_conversions = self.stats.compiled_conversions.saturating_add(1);
                return match fixed {
                    Some(dst) => code.run_fixed(body, dst),
                    None => code.run_within(body, scratch, max_output),
                };
            }
        }
        self.stats.interpreted_conversions = self.stats.interpreted_conversions.saturating_add(1);
        match fixed {
            Some(dst) => interp::run_fixed(&active.plan, body, dst),
            None => interp::run_within(&active.plan, body, scratch, max_output),
        }
    }

    /// Between two messages: lets a tiered engine count, choose and compile (at most one plan
    /// per message). `formats` lists the formats the receiver knows, for the static
    /// frequency estimate; it is called only when the tier solves its knapsack again.
    #[inline]
    pub(crate) fn between_messages(
        &mut self,
        active: Option<&mut Active>,
        formats: &dyn Fn() -> Vec<Arc<Format>>,
    ) {
        #[cfg(feature = "jit")]
        if let Some(tier) = &mut self.tier {
            if tier.due() {
                if let Some(a) = active {
                    tier.seen(&a.key, &mut a.pending);
                }
                tier.between(formats, &mut self.stats);
            }
        }
        #[cfg(not(feature = "jit"))]
        let _ = (active, formats);
    }
}
