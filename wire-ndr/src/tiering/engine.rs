//! Which engine runs a [`Receiver`](crate::Receiver)'s conversions, and what it reports.

/// How a [`Receiver`](crate::Receiver) runs conversion plans, chosen at construction
/// ([`Receiver::with_engine`](crate::Receiver::with_engine)).
///
/// Every (incoming format, local type) pair has a plan; a message in the local format itself
/// takes the same-layout fast path (a copy or a view), which counts as neither interpreted nor
/// compiled. The direction is always incoming → local: NDR senders send their own layout.
///
/// ```
/// use wire_ndr::{Engine, Receiver};
/// let rx = Receiver::with_engine(Engine::Interpreter);
/// assert_eq!(rx.stats().compiled_plans, 0);
/// ```
///
/// Which variants exist depends on the `jit` feature, so matches need a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// Every plan runs in the interpreter (the default without the `jit` feature).
    Interpreter,
    /// Every plan is compiled, synchronously, the first time it is used (feature `jit`).
    /// Compiled code is kept within [`Engine::JIT_BUDGET`] bytes; beyond it the least used
    /// plans are evicted and run in the interpreter.
    #[cfg(feature = "jit")]
    Jit,
    /// Plans start in the interpreter; those worth it are compiled, between messages, one
    /// compile at a time, choosing under a budget of `budget_bytes` of machine code as a 0-1
    /// knapsack after Hoschka (feature `jit`; the default with it, at
    /// [`Engine::DEFAULT_BUDGET`]). The choice follows the conversions the receiver counts:
    /// when the mix of incoming formats drifts, it is made again, and code that is no longer
    /// worth its bytes is dropped for code that is. A budget of 0 compiles nothing.
    #[cfg(feature = "jit")]
    Tiered {
        /// Bytes of machine code the receiver may hold.
        budget_bytes: usize,
    },
}

impl Engine {
    /// The code budget of `Engine::Tiered` (feature `jit`) in `Receiver::new()`: 256 KiB.
    pub const DEFAULT_BUDGET: usize = 256 << 10;
    /// The code budget of `Engine::Jit` (feature `jit`): 64 MiB.
    pub const JIT_BUDGET: usize = 64 << 20;
}

impl Default for Engine {
    /// `Engine::Tiered` with [`Engine::DEFAULT_BUDGET`] when the `jit` feature is on, else
    /// [`Engine::Interpreter`].
    fn default() -> Engine {
        #[cfg(feature = "jit")]
        {
            Engine::Tiered {
                budget_bytes: Engine::DEFAULT_BUDGET,
            }
        }
        #[cfg(not(feature = "jit"))]
        {
            Engine::Interpreter
        }
    }
}

/// What a [`Receiver`](crate::Receiver)'s engine has done ([`Receiver::stats`](crate::Receiver::stats)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Plans compiled so far (each compilation counts, a recompiled plan again).
    pub compiled_plans: u64,
    /// Bytes of machine code held now.
    pub code_bytes: u64,
    /// Conversions run by the interpreter.
    pub interpreted_conversions: u64,
    /// Conversions run by compiled code.
    pub compiled_conversions: u64,
    /// Time spent compiling, in nanoseconds.
    pub compile_nanos: u64,
    /// Compiled plans dropped to stay within the budget.
    pub evicted_plans: u64,
}
