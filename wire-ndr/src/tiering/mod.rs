//! Tiering after Hoschka: which engine runs a receiver's plans, and with the `jit` feature
//! which plans to compile under a code budget (cost model, static frequency estimate,
//! knapsack).

#[cfg(feature = "jit")]
pub mod cost;
pub(crate) mod engine;
#[cfg(feature = "jit")]
pub mod frequency;
#[cfg(feature = "jit")]
pub mod knapsack;
#[cfg(feature = "jit")]
pub(crate) mod tier;
