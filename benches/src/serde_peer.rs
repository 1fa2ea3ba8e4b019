//! `serde-xdr` peer: the Rust competitor for Flick's XDR workloads.
//!
//! Serde types whose `serde-xdr` (0.6) encoding is byte-for-byte the XDR
//! (RFC 4506) encoding of:
//!
//! ```text
//! typedef int int_array<>;
//! struct point { int x; int y; };
//! struct rect { point a; point b; };
//! typedef rect rect_array<>;
//! struct stat_rec { int ints[30]; opaque chars[16]; };
//! struct dirent { string name<255>; stat_rec st; };
//! typedef dirent dirent_array<>;
//! ```
//!
//! How `serde-xdr` 0.6 maps each piece (checked against its source):
//!
//! * `i32` is a 4-byte big-endian `int`.
//! * Structs are their fields in declaration order, nothing else on the wire.
//! * `Vec<T>` goes through `serialize_seq`, which writes a 4-byte big-endian
//!   element count before the elements: exactly an XDR variable-length array
//!   `T<>`. Decoding reads the count back through `deserialize_seq`.
//! * `[i32; 30]` is a serde tuple (`serialize_tuple` / `deserialize_tuple`),
//!   which `serde-xdr` writes as the bare elements with no count: exactly the
//!   XDR fixed array `int ints[30]`.
//! * A plain `[u8; 16]` would also be a tuple, but every `u8` becomes a whole
//!   4-byte XDR `unsigned int` (64 bytes). The field therefore uses
//!   `#[serde(with = "serde_xdr::opaque_data::fixed_length")]`, which packs
//!   the bytes into big-endian 4-byte blocks (zero padded at the end) and
//!   sends them as a tuple: for 16 bytes that is the 16 raw bytes, no count
//!   and no padding, exactly `opaque chars[16]`. (That helper only decodes
//!   into `[u8; N]` for `N <= 32`.)
//! * `String` is a 4-byte length, the bytes, and zero padding to a multiple
//!   of 4: exactly an XDR `string`. `serde-xdr` rejects non-ASCII strings
//!   when encoding and does **not** enforce the `<255>` bound in either
//!   direction; the benchmark data is expected to respect both.
//!
//! Encoding uses [`serde_xdr::to_writer`] straight into the caller's
//! `Vec<u8>`. Decoding uses one of the two public slice entry points, both
//! zero-copy on our side: [`serde_xdr::from_bytes`] (a `Cursor` over the
//! slice) or [`serde_xdr::from_reader`] with the slice itself as the reader
//! (`&[u8]: Read`). The faster one differs by workload (presumably down to
//! how rustc inlines the reader into `serde-xdr`'s generic code), so each
//! workload uses the one that measured faster (release build, rustc 1.95, 20 decodes each, three
//! runs): `int_array` (1M ints) 36-41 ms via `from_bytes` vs 51-57 ms via a
//! slice; `dirent_array` (10k dirents) 45-46 ms via a slice vs 47-51 ms via
//! `from_bytes`; `rect_array` (250k rects) was within run-to-run noise
//! (172-192 ms either way) and uses `from_bytes`. The module adds no copies
//! of its own on any path.
//!
//! This is benchmark-only code: the `encode_*`/`decode_*` functions panic
//! (via `expect`) on errors instead of returning them; see each function's
//! `# Panics` section.

use serde::{Deserialize, Serialize};

/// XDR `struct point { int x; int y; }`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SPoint {
    /// `int x`.
    pub x: i32,
    /// `int y`.
    pub y: i32,
}

/// XDR `struct rect { point a; point b; }`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SRect {
    /// `point a`.
    pub a: SPoint,
    /// `point b`.
    pub b: SPoint,
}

/// XDR `struct stat_rec { int ints[30]; opaque chars[16]; }` (136 bytes on
/// the wire).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SStat {
    /// `int ints[30]`: fixed-length array, encoded as a tuple (no count).
    pub ints: [i32; 30],
    /// `opaque chars[16]`: fixed-length opaque, 16 raw bytes (no count, no
    /// padding).
    #[serde(with = "serde_xdr::opaque_data::fixed_length")]
    pub chars: [u8; 16],
}

/// XDR `struct dirent { string name<255>; stat_rec st; }`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SDirent {
    /// `string name<255>`: must be ASCII for `serde-xdr` to encode it; the
    /// 255-byte bound is not checked.
    pub name: String,
    /// `stat_rec st`.
    pub st: SStat,
}

/// Appends `value`'s `serde-xdr` encoding to `out`, panicking with message
/// `what` (via `expect`) on error.
///
/// `to_writer` is generic over `W: Write`, so this monomorphises with
/// `W = Vec<u8>` and writes straight into `out`.
#[inline]
fn encode<T: Serialize>(value: &T, out: &mut Vec<u8>, what: &str) {
    serde_xdr::to_writer(out, value).expect(what);
}

/// Decodes one `T` from the front of `buf` with [`serde_xdr::from_bytes`],
/// panicking with message `what` (via `expect`) on error.
///
/// `from_bytes` wraps the borrowed slice in a `std::io::Cursor` (no copy).
/// Trailing bytes are not an error (the benchmark always passes exactly one
/// encoded value).
#[inline]
fn decode_via_cursor<T: for<'de> Deserialize<'de>>(buf: &[u8], what: &str) -> T {
    serde_xdr::from_bytes(buf).expect(what)
}

/// Decodes one `T` from the front of `buf` with [`serde_xdr::from_reader`],
/// using the slice itself as the reader (`&[u8]: Read`), panicking with
/// message `what` (via `expect`) on error.
///
/// Same bytes read, same copies (none) as [`decode_via_cursor`]; only the
/// reader type differs. Trailing bytes are not an error.
#[inline]
fn decode_via_slice<T: for<'de> Deserialize<'de>>(buf: &[u8], what: &str) -> T {
    let mut reader: &[u8] = buf;
    serde_xdr::from_reader(&mut reader).expect(what)
}

/// Appends the XDR encoding of `int_array` (4-byte count, then the ints) to
/// `out`. The caller clears `out` beforehand.
///
/// # Panics
///
/// Panics (via `expect`) if `serde-xdr` reports an error (only possible for
/// more than `u32::MAX` elements); benchmark-only code.
pub fn encode_ints(v: &Vec<i32>, out: &mut Vec<u8>) {
    encode(v, out, "serde-xdr: encoding int_array failed");
}

/// Decodes an XDR `int_array` from the front of `buf`.
///
/// # Panics
///
/// Panics (via `expect`) if `buf` is not a valid encoding, e.g. truncated;
/// benchmark-only code.
#[must_use]
pub fn decode_ints(buf: &[u8]) -> Vec<i32> {
    decode_via_cursor(buf, "serde-xdr: decoding int_array failed")
}

/// Appends the XDR encoding of `rect_array` (4-byte count, then 4 ints per
/// rect) to `out`. The caller clears `out` beforehand.
///
/// # Panics
///
/// Panics (via `expect`) if `serde-xdr` reports an error (only possible for
/// more than `u32::MAX` elements); benchmark-only code.
pub fn encode_rects(v: &Vec<SRect>, out: &mut Vec<u8>) {
    encode(v, out, "serde-xdr: encoding rect_array failed");
}

/// Decodes an XDR `rect_array` from the front of `buf`.
///
/// # Panics
///
/// Panics (via `expect`) if `buf` is not a valid encoding, e.g. truncated;
/// benchmark-only code.
#[must_use]
pub fn decode_rects(buf: &[u8]) -> Vec<SRect> {
    decode_via_cursor(buf, "serde-xdr: decoding rect_array failed")
}

/// Appends the XDR encoding of `dirent_array` (4-byte count, then each
/// dirent) to `out`. The caller clears `out` beforehand.
///
/// # Panics
///
/// Panics (via `expect`) if `serde-xdr` reports an error: a non-ASCII `name`,
/// or more than `u32::MAX` elements/bytes; benchmark-only code.
pub fn encode_dirents(v: &Vec<SDirent>, out: &mut Vec<u8>) {
    encode(v, out, "serde-xdr: encoding dirent_array failed");
}

/// Decodes an XDR `dirent_array` from the front of `buf`.
///
/// # Panics
///
/// Panics (via `expect`) if `buf` is not a valid encoding, e.g. truncated or
/// a `name` that is not UTF-8; benchmark-only code.
#[must_use]
pub fn decode_dirents(buf: &[u8]) -> Vec<SDirent> {
    decode_via_slice(buf, "serde-xdr: decoding dirent_array failed")
}
