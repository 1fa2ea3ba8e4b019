//! XDR (RFC 4506) for the `marshal` framework.
//!
//! Every item is a multiple of four bytes, big-endian. `#[derive(Marshal)]` implements
//! [`Encode`] and [`Decode`] for your types; this crate implements them for the standard ones
//! and gives the entry points ([`to_vec`], [`encode_into`], [`from_slice`], [`from_bytes`],
//! [`size_class`]).
//!
//! Encoding is two passes: [`Encode::encoded_len`] (a constant for fixed types), one
//! reservation, then [`Encode::encode`]. Fixed segments are written and read through one
//! capacity or length check each (Flick §3.1), and arrays of flat words are one copy or one
//! vectorised byte-swap pass.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod array;
mod entry;
mod number;
mod opaque;
mod optional;
pub mod rpc;
mod shared;
mod traits;

#[doc(hidden)]
pub mod __private;

pub use entry::{encode_into, from_bytes, from_slice, size_class, to_vec};
pub use marshal_core::{BytesStr, Error, ErrorKind, Reader, SizeClass, Writer};
pub use traits::{Decode, Encode};

/// Bytes of padding after `n` bytes of opaque data or string.
#[inline(always)]
pub(crate) const fn padding(n: usize) -> usize {
    (4 - (n & 3)) & 3
}

/// The 32-bit length prefix of `n` bytes or items, or `TooLong` at the writer's position.
#[inline(always)]
pub(crate) fn len_word(w: &Writer<'_>, n: usize) -> Result<[u8; 4], Error> {
    match u32::try_from(n) {
        Ok(n) => Ok(n.to_be_bytes()),
        Err(_) => Err(w.error(ErrorKind::TooLong { len: n })),
    }
}

/// XDR is big-endian: words are swapped on little-endian hosts.
pub(crate) const SWAP: bool = cfg!(target_endian = "little");
