//! `bytes::Bytes` (`opaque<>`) and [`BytesStr`] (`string<>`): owned values that, decoded from
//! a shared input ([`from_bytes`](crate::from_bytes)), are slices of it (a reference count, no
//! copy), and copies of the bytes otherwise ([`from_slice`](crate::from_slice)). Checks and
//! errors are those of `&[u8]` and `&str`.

use bytes::Bytes;
use marshal_core::{BytesStr, Error, Reader, SizeClass, Writer};

use crate::opaque::{opaque_len, put_counted_opaque, take_len, take_opaque, take_str};
use crate::{Decode, Encode};

impl Encode for Bytes {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        opaque_len(self.len())
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        put_counted_opaque(w, self)
    }
}

impl<'de> Decode<'de> for Bytes {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let n = take_len(r)?;
        let data = take_opaque(r, n)?;
        Ok(r.share(data))
    }
}

impl Encode for BytesStr {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        self.as_str().encoded_len(depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        self.as_str().encode(w)
    }
}

impl<'de> Decode<'de> for BytesStr {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let s = take_str(r)?;
        Ok(r.share_str(s))
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use marshal_core::BytesStr;

    use crate::{from_bytes, from_slice, to_vec, Error};

    /// Whether `inner` lies within `outer`'s buffer.
    fn inside(outer: &[u8], inner: &[u8]) -> bool {
        outer.as_ptr_range().start <= inner.as_ptr()
            && inner.as_ptr_range().end <= outer.as_ptr_range().end
    }

    #[test]
    fn shared_input_is_sliced_and_other_input_copied() {
        let wire = to_vec(&(Bytes::from_static(b"opaque"), BytesStr::from("string"))).unwrap();
        assert_eq!(wire, b"\0\0\0\x06opaque\0\0\0\0\0\x06string\0\0");
        let input = Bytes::from(wire.clone());
        let (b, s): (Bytes, BytesStr) = from_bytes(input.clone()).unwrap();
        assert_eq!((&b[..], &*s), (&b"opaque"[..], "string"));
        assert_eq!(b.as_ptr(), input[4..].as_ptr());
        assert_eq!(s.as_ptr(), input[16..].as_ptr());
        let (b, s): (Bytes, BytesStr) = from_slice(&wire).unwrap();
        assert_eq!((&b[..], &*s), (&b"opaque"[..], "string"));
        assert!(!inside(&wire, &b) && !inside(&wire, s.as_bytes()));
        // Empty values.
        let e: (Bytes, BytesStr) = from_bytes(Bytes::from_static(&[0; 8])).unwrap();
        assert!(e.0.is_empty() && e.1.is_empty());
    }

    #[test]
    fn errors_are_those_of_from_slice() {
        let cases: [&[u8]; 6] = [
            b"\0\0\0\x01a\0\x01\0",      // non-zero padding
            b"\0\0\0\x02\xff\xfe\0\0",   // not UTF-8 (only for the string)
            b"\0\0\0\x05abc",            // truncated
            b"\xff\xff\xff\xf0\0\0\0\0", // huge length
            b"\0\0\0\x01a\0\0\0\0",      // trailing byte
            b"\0\0",                     // no length
        ];
        for wire in cases {
            let owned = Bytes::copy_from_slice(wire);
            let text = |r: Result<BytesStr, Error>| r.map(|s| s.to_string());
            assert_eq!(
                text(from_bytes(owned.clone())).map_err(|e| e.to_string()),
                from_slice::<String>(wire).map_err(|e| e.to_string()),
            );
            assert_eq!(
                from_bytes::<Bytes>(owned).map_err(|e| e.to_string()),
                from_slice::<Bytes>(wire).map_err(|e| e.to_string()),
            );
            assert_eq!(
                from_slice::<Bytes>(wire)
                    .map(|b| b.to_vec())
                    .map_err(|e| e.to_string()),
                from_slice::<Vec<u8>>(wire).map_err(|e| e.to_string()),
            );
        }
    }
}
