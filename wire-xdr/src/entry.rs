//! The entry points.

use bytes::Bytes;
use marshal_core::writer::{append_to_vec, write_to_buf_mut};
use marshal_core::{Error, Reader, SizeClass, DEFAULT_MAX_DEPTH};

use crate::{Decode, Encode};

/// Encodes `value` into a new vector, allocated once at its exact size.
///
/// ```
/// assert_eq!(wire_xdr::to_vec(&(1u32, true)).unwrap(), [0, 0, 0, 1, 0, 0, 0, 1]);
/// ```
pub fn to_vec<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let len = value.encoded_len(DEFAULT_MAX_DEPTH)?;
    let mut out = Vec::new();
    append_to_vec(&mut out, len, |w| value.encode(w))?;
    Ok(out)
}

/// Encodes `value` into `buf` with one capacity check (`chunk_mut`) and one `advance_mut`
/// when the buffer's current chunk has room; otherwise through one `put_slice`. On error
/// nothing is written.
///
/// ```
/// let mut buf = bytes::BytesMut::with_capacity(64);
/// wire_xdr::encode_into(&-2i32, &mut buf).unwrap();
/// assert_eq!(&buf[..], [0xff, 0xff, 0xff, 0xfe]);
/// ```
pub fn encode_into<T: Encode + ?Sized, B: bytes::BufMut + ?Sized>(
    value: &T,
    buf: &mut B,
) -> Result<(), Error> {
    let len = value.encoded_len(DEFAULT_MAX_DEPTH)?;
    write_to_buf_mut(buf, len, |w| value.encode(w))
}

/// Decodes a `T` that must take all of `bytes`. Strings and opaques may borrow from `bytes`.
///
/// ```
/// let v: Vec<u32> = wire_xdr::from_slice(&[0, 0, 0, 1, 0, 0, 0, 9]).unwrap();
/// assert_eq!(v, [9]);
/// assert!(wire_xdr::from_slice::<u32>(&[0, 0, 0, 1, 0]).is_err()); // trailing byte
/// ```
pub fn from_slice<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut r = Reader::new(bytes, 0);
    let v = T::decode(&mut r)?;
    r.finish()?;
    Ok(v)
}

/// Decodes a `T` that must take all of `bytes`, as [`from_slice`] does (the same checks and
/// errors), but every `bytes::Bytes` and [`BytesStr`](marshal_core::BytesStr) in the value is
/// a slice of `bytes` (a reference count, no copy): the value owns what it holds and outlives
/// the call, with no copy of its payloads.
///
/// ```
/// use bytes::Bytes;
/// use marshal_core::BytesStr;
/// let input = Bytes::from(vec![0, 0, 0, 3, b'a', b'b', b'c', 0]);
/// let name: BytesStr = wire_xdr::from_bytes(input.clone()).unwrap();
/// assert_eq!(name, "abc");
/// assert_eq!(name.as_ptr(), input[4..].as_ptr()); // in the input's buffer
/// ```
pub fn from_bytes<T: for<'de> Decode<'de>>(bytes: Bytes) -> Result<T, Error> {
    let mut r = Reader::with_owner(&bytes, 0);
    let v = T::decode(&mut r)?;
    r.finish()?;
    Ok(v)
}

/// The XDR size class of `T`, usable in constant context.
///
/// ```
/// use wire_xdr::{SizeClass, size_class};
/// const S: SizeClass = size_class::<[u32; 4]>();
/// assert_eq!(S, SizeClass::Fixed(16));
/// ```
pub const fn size_class<T: Encode + ?Sized>() -> SizeClass {
    T::SIZE
}
