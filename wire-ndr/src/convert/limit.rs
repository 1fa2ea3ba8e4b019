//! The one limit on what converting a hostile message may produce, shared by the interpreter
//! (and so compiled code, which hands variable parts to it) and by dynamic records.
//!
//! A body of `n` bytes may convert to at most its local fixed part plus [`EXPANSION`] × `n`
//! plus [`SLACK`]: bytes of output for a plan, values and string bytes for a dynamic record.
//! The factor is fixed here, not derived from element sizes the sender chooses (a 1-byte
//! incoming element of a 4 KiB local record would otherwise let 64 KB of message become
//! 267 MB), and slots may overlap, so this is what keeps a message from making a conversion
//! allocate more than its size justifies.

/// How much bigger than the incoming body a conversion's output may grow, at least (widening
/// `i8` to `i64` is 8×).
pub const EXPANSION: usize = 16;

/// What any conversion may produce beyond [`EXPANSION`] times the body, whatever its size.
pub const SLACK: usize = 4096;

/// The most a conversion of a `src_len`-byte body may produce in all: the local fixed part of
/// `fixed` bytes, [`EXPANSION`] times the body and [`SLACK`], and never more than `max_output`.
#[inline]
pub fn output_limit(fixed: usize, src_len: usize, max_output: usize) -> usize {
    src_len
        .saturating_mul(EXPANSION)
        .saturating_add(fixed)
        .saturating_add(SLACK)
        .min(max_output)
}
