//! The entry points.

use bytes::Bytes;
use marshal_core::writer::{append_to_vec, write_to_buf_mut, write_to_buf_mut_unmeasured};
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

/// Encodes `value` into `buf`. When the buffer's current chunk (`chunk_mut`) has room, in one
/// pass over the value and one `advance_mut`; otherwise the value is measured, and the
/// encoding goes in with one `put_slice`. A value of fixed size is measured first (for free),
/// and written in place when the chunk has room. On error nothing is committed (the buffer's
/// length is unchanged; its spare room may have been written).
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
    // A fixed size is known without reading the value: measuring costs nothing.
    if T::SIZE.fixed_len().is_none() {
        return write_to_buf_mut_unmeasured(
            buf,
            || value.encoded_len(DEFAULT_MAX_DEPTH),
            |w| value.encode(w),
        );
    }
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
