//! CDR, the Common Data Representation of CORBA GIOP (CORBA 3, chapter 9), for the `marshal`
//! framework.
//!
//! Every primitive is aligned to its size relative to the stream's *origin* (the start of a
//! message body or of an encapsulation), in either byte order, chosen at run time by the
//! sender ([`ByteOrder`]). `#[derive(Marshal)]` implements [`Encode`] and [`Decode`] for your
//! types; this crate implements them for the standard ones and gives the entry points
//! ([`to_vec`], [`from_slice`], [`from_bytes`], [`to_encapsulation`],
//! [`from_encapsulation`]). Module [`giop`] has the GIOP 1.0–1.2 messages and object
//! references ([`giop::Ior`]: `IOR:` strings and `corbaloc:` URLs).
//!
//! Encoding is two passes, as in XDR: [`Encode::end`] computes the exact end position from
//! the start position (alignment makes the size depend on it), then one reservation and
//! [`Encode::encode`]. Sequences and arrays of primitives and of flat structs (such as a
//! `Rect` of four `long`s) are one alignment step and then one copy in the host's byte order,
//! or one vectorised byte-swap pass in the other.
//!
//! ```
//! use wire_iiop::{to_vec, from_slice, ByteOrder};
//! // A `long` then a `double`: four bytes of padding align the double to 8.
//! let bytes = to_vec(&(7i32, 1.5f64), ByteOrder::Big).unwrap();
//! assert_eq!(bytes, [0, 0, 0, 7, 0, 0, 0, 0, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
//! assert_eq!(from_slice::<(i32, f64)>(&bytes, ByteOrder::Big).unwrap(), (7, 1.5));
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

mod entry;
pub mod giop;
mod order;
mod prim;
mod sequence;
mod shape;
mod shared;
mod string;
mod traits;
mod tuple;

#[doc(hidden)]
pub mod __private;

pub use entry::{
    encode_into, from_bytes, from_encapsulation, from_slice, to_encapsulation, to_vec,
};
pub use marshal_core::{BytesStr, Error, ErrorKind, Reader, Writer};
pub use order::ByteOrder;
pub use shape::Shape;
pub use traits::{Decode, Encode};

/// Bytes of padding that align position `pos` to `align` (a power of two).
#[inline(always)]
pub(crate) const fn pad(pos: usize, align: usize) -> usize {
    pos.wrapping_neg() & (align - 1)
}

/// Position `pos` rounded up to `align` (a power of two): `pos + pad(pos, align)`, computed
/// as add-and-mask, one operation shorter where sizing passes chain one end into the next.
#[inline(always)]
pub(crate) const fn align_up(pos: usize, align: usize) -> usize {
    (pos + (align - 1)) & !(align - 1)
}
