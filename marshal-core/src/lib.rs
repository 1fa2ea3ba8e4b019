//! Core of the `marshal` framework: what every wire format shares.
//!
//! - [`SizeClass`]: compile-time size classes (Flick §3.1);
//! - [`Error`]: one error type with field path and byte offset (and the I/O error behind it,
//!   if one was);
//! - [`Writer`] / [`Reader`]: cursors with one capacity or length check per fixed segment;
//! - [`Flat`]: proof that a type is plain words, enabling one-copy and one-swap-pass arrays;
//! - [`VarLen`]: the types a `max_len` bound applies to;
//! - [`BytesStr`]: a string held in `bytes::Bytes`, which decoders slice from a shared input;
//! - [`layout`]: layout-annotated records (USC): whole-record conversion, views, in place.
//!
//! Applications use the `marshal` facade crate; this crate is for wire-format crates. Its
//! hidden modules (byte-order kernels, decoding in place, arriving messages, …) serve the
//! wire crates and the derive's output, and change without notice.

#![cfg_attr(docsrs, feature(doc_cfg))]

#[doc(hidden)]
pub mod array;
#[doc(hidden)]
pub mod arriving;
mod bytes_str;
#[doc(hidden)]
pub mod cpu;
mod default_arm;
mod depth;
mod error;
#[doc(hidden)]
pub mod flat;
pub mod layout;
#[doc(hidden)]
pub mod list;
#[doc(hidden)]
pub mod place;
#[doc(hidden)]
pub mod reader;
#[doc(hidden)]
pub mod short_copy;
#[doc(hidden)]
pub mod size_class;
#[doc(hidden)]
pub mod swap;
#[doc(hidden)]
pub mod text;
#[doc(hidden)]
pub mod var_len;
#[doc(hidden)]
pub mod vectored;
#[doc(hidden)]
pub mod wide;
#[doc(hidden)]
pub mod writer;

pub use bytes_str::BytesStr;
#[doc(hidden)]
pub use default_arm::ArmDiscriminant;
#[doc(hidden)]
pub use depth::descend;
pub use depth::DEFAULT_MAX_DEPTH;
pub use error::{Error, ErrorKind, Segment};
pub use flat::Flat;
pub use reader::Reader;
pub use size_class::SizeClass;
pub use var_len::VarLen;
pub use writer::Writer;
