//! Conversion ("receiver makes right"): plans from an incoming format to a local type, the
//! interpreter that runs them, the JIT back end that compiles them, and records read by field
//! name with no local type.

pub(crate) mod dynamic;
pub mod interp;
#[cfg(feature = "jit")]
pub mod jit;
pub(crate) mod limit;
pub mod plan;
pub(crate) mod word;
