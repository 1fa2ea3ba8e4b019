//! The entry points.

use bytes::Bytes;
use marshal_core::writer::{append_to_vec, write_to_buf_mut, write_to_buf_mut_unmeasured};
use marshal_core::{Error, ErrorKind, Reader, DEFAULT_MAX_DEPTH};

use crate::{ByteOrder, Decode, Encode, Shape};

/// Encodes `value` with its origin at offset 0 (as a GIOP message body is aligned), into a new
/// vector allocated once at its exact size.
///
/// ```
/// use wire_iiop::{to_vec, ByteOrder};
/// assert_eq!(to_vec(&(1u8, 2u32), ByteOrder::Little).unwrap(), [1, 0, 0, 0, 2, 0, 0, 0]);
/// ```
pub fn to_vec<T: Encode + ?Sized>(value: &T, order: ByteOrder) -> Result<Vec<u8>, Error> {
    let len = value.end(0, DEFAULT_MAX_DEPTH)?;
    let mut out = Vec::new();
    append_to_vec(&mut out, len, |w| value.encode(w, order))?;
    Ok(out)
}

/// Encodes `value` into `buf`, its origin at the first byte written. When the buffer's current
/// chunk (`chunk_mut`) has room, in one pass over the value and one `advance_mut`; otherwise
/// the value is measured, and the encoding goes in with one `put_slice`. A value of fixed
/// layout is measured first (for free), and written in place when the chunk has room. On error
/// nothing is committed (the buffer's length is unchanged; its spare room may have been
/// written).
///
/// ```
/// use wire_iiop::{encode_into, ByteOrder};
/// let mut buf = Vec::new();
/// encode_into(&(1u8, -2i16), ByteOrder::Big, &mut buf).unwrap();
/// assert_eq!(buf, [1, 0, 0xff, 0xfe]);
/// ```
pub fn encode_into<T: Encode + ?Sized, B: bytes::BufMut + ?Sized>(
    value: &T,
    order: ByteOrder,
    buf: &mut B,
) -> Result<(), Error> {
    // A fixed layout is known without reading the value: measuring costs nothing.
    let fixed = matches!(T::SHAPE, Shape::Fixed { .. } | Shape::Phased { .. });
    if !fixed {
        return write_to_buf_mut_unmeasured(
            buf,
            || value.end(0, DEFAULT_MAX_DEPTH),
            |w| value.encode(w, order),
        );
    }
    let len = value.end(0, DEFAULT_MAX_DEPTH)?;
    write_to_buf_mut(buf, len, |w| value.encode(w, order))
}

/// Decodes a `T` (origin at offset 0) that must take all of `bytes`. Strings and octet
/// sequences may borrow from `bytes`.
///
/// ```
/// use wire_iiop::{from_slice, ByteOrder};
/// let v: Vec<u16> = from_slice(&[0, 0, 0, 1, 0, 9], ByteOrder::Big).unwrap();
/// assert_eq!(v, [9]);
/// assert!(from_slice::<u16>(&[0, 9, 0], ByteOrder::Big).is_err()); // trailing byte
/// ```
#[inline]
pub fn from_slice<'de, T: Decode<'de>>(bytes: &'de [u8], order: ByteOrder) -> Result<T, Error> {
    let mut r = Reader::new(bytes, 0);
    let v = T::decode(&mut r, order)?;
    r.finish()?;
    Ok(v)
}

/// Decodes a `T` (origin at offset 0) that must take all of `bytes`, as [`from_slice`] does
/// (the same checks and errors), but every `bytes::Bytes` (`sequence<octet>`) and
/// [`BytesStr`](marshal_core::BytesStr) (`string`) in the value is a slice of `bytes` (a
/// reference count, no copy): the value owns what it holds and outlives the call, with no copy
/// of its payloads.
///
/// ```
/// use bytes::Bytes;
/// use marshal_core::BytesStr;
/// use wire_iiop::{from_bytes, ByteOrder};
/// let input = Bytes::from(vec![4, 0, 0, 0, b'a', b'b', b'c', 0]);
/// let name: BytesStr = from_bytes(input.clone(), ByteOrder::Little).unwrap();
/// assert_eq!(name, "abc");
/// assert_eq!(name.as_ptr(), input[4..].as_ptr()); // in the input's buffer
/// ```
pub fn from_bytes<T: for<'de> Decode<'de>>(bytes: Bytes, order: ByteOrder) -> Result<T, Error> {
    let mut r = Reader::with_owner(&bytes, 0);
    let v = T::decode(&mut r, order)?;
    r.finish()?;
    Ok(v)
}

/// Encodes `value` as a CDR encapsulation: the byte-order flag octet, then the body, aligned
/// relative to the flag (the encapsulation's own origin). There is no length prefix; put the
/// result in an octet sequence to embed it in a message.
///
/// ```
/// use wire_iiop::{to_encapsulation, ByteOrder};
/// assert_eq!(to_encapsulation(&7u32, ByteOrder::Big).unwrap(), [0, 0, 0, 0, 0, 0, 0, 7]);
/// ```
pub fn to_encapsulation<T: Encode + ?Sized>(value: &T, order: ByteOrder) -> Result<Vec<u8>, Error> {
    let len = value.end(1, DEFAULT_MAX_DEPTH)?;
    let mut out = Vec::new();
    append_to_vec(&mut out, len, |w| {
        w.put([order.flag()])?;
        value.encode(w, order)
    })?;
    Ok(out)
}

/// Decodes a CDR encapsulation: the byte order comes from its first octet. Padding bytes are
/// accepted whatever their value; the body must take all of the remaining bytes.
///
/// ```
/// use wire_iiop::from_encapsulation;
/// assert_eq!(from_encapsulation::<u32>(&[1, 0xee, 0xee, 0xee, 7, 0, 0, 0]).unwrap(), 7);
/// ```
pub fn from_encapsulation<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut r = Reader::new(bytes, 0);
    let [flag] = r.array::<1>()?;
    let order = ByteOrder::from_flag(flag)
        .ok_or_else(|| r.error_back(1, ErrorKind::InvalidByteOrder(flag)))?;
    let v = T::decode(&mut r, order)?;
    r.finish()?;
    Ok(v)
}
