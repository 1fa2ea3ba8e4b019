//! Core of the `marshal` framework: what every wire format shares.
//!
//! - [`SizeClass`]: compile-time size classes (Flick §3.1);
//! - [`Error`]: one error type with field path and byte offset;
//! - [`Writer`] / [`Reader`]: cursors with one capacity or length check per fixed segment;
//! - [`Flat`]: proof that a type is plain words, enabling one-copy and one-swap-pass arrays;
//! - [`swap`]: bulk byte-order kernels chosen at run time (AVX2 / SSSE3 / portable);
//! - [`place`]: decoding values straight into their final place (no moves), with drop guards;
//! - [`text`]: the word-wise ASCII checks that keep string decoding cheap;
//! - [`VarLen`]: the types a `max_len` bound applies to;
//! - [`layout`]: layout-annotated records (USC): whole-record conversion, views, in place.
//!
//! Applications use the `marshal` facade crate; this crate is for wire-format crates.

pub mod array;
pub mod arriving;
mod default_arm;
mod depth;
pub mod error;
pub mod flat;
pub mod layout;
pub mod list;
pub mod place;
pub mod reader;
pub mod size_class;

pub mod swap;
pub mod text;
pub mod var_len;
pub mod vectored;
pub mod writer;

pub use default_arm::ArmDiscriminant;
pub use depth::{descend, DEFAULT_MAX_DEPTH};
pub use error::{Error, ErrorKind, Segment};
pub use flat::Flat;
pub use reader::Reader;
pub use size_class::SizeClass;
pub use var_len::VarLen;
pub use writer::Writer;
