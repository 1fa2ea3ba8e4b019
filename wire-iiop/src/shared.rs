//! `bytes::Bytes` (`sequence<octet>`) and [`BytesStr`] (`string`): owned values that, decoded
//! from a shared input ([`from_bytes`](crate::from_bytes)), are slices of it (a reference
//! count, no copy), and copies of the bytes otherwise ([`from_slice`](crate::from_slice)).
//! Checks and errors are those of `&[u8]` and `&str` (`BytesStr` follows `String`'s rules:
//! the length counts the NUL, which must end the string and appear nowhere else).

use core::mem::MaybeUninit;

use bytes::Bytes;
use marshal_core::{BytesStr, Error, Reader, Writer};

use crate::string::take_str;
use crate::{ByteOrder, Decode, Encode, Shape};

impl Encode for Bytes {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.as_ref().end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.as_ref().encode(w, order)
    }
}

impl<'de> Decode<'de> for Bytes {
    const MIN: usize = 4;
    const SHAPE: Shape = Shape::Shallow;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let data = <&[u8]>::decode(r, order)?;
        Ok(r.share(data))
    }
}

impl Encode for BytesStr {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.as_str().end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.as_str().encode(w, order)
    }
}

/// As `String` decodes (see `string`), the length read once for a `max_len` bound.
impl<'de> Decode<'de> for BytesStr {
    const MIN: usize = 5;
    const SHAPE: Shape = Shape::Shallow;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let s = take_str(r, order, usize::MAX)?;
        Ok(r.share_str(s))
    }
    #[inline]
    fn decode_max_into<'o>(
        r: &mut Reader<'de>,
        out: &'o mut MaybeUninit<Self>,
        max: usize,
        _nul: bool,
        order: ByteOrder,
    ) -> Result<&'o mut Self, Error> {
        let s = take_str(r, order, max)?;
        Ok(out.write(r.share_str(s)))
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use marshal_core::BytesStr;

    use crate::{from_bytes, from_slice, to_vec, ByteOrder, Error};

    /// Whether `inner` lies within `outer`'s buffer.
    fn inside(outer: &[u8], inner: &[u8]) -> bool {
        let (o, i) = (outer.as_ptr_range(), inner.as_ptr_range());
        o.start <= i.start && i.end <= o.end
    }

    #[test]
    fn shared_input_is_sliced_and_other_input_copied() {
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let v = (7u8, BytesStr::from("string"), Bytes::from_static(b"seq"));
            let wire = to_vec(&v, order).unwrap();
            assert_eq!(wire.len(), 4 + 4 + 7 + 1 + 4 + 3);
            let input = Bytes::from(wire.clone());
            let back: (u8, BytesStr, Bytes) = from_bytes(input.clone(), order).unwrap();
            assert_eq!(back, v);
            assert_eq!(back.1.as_ptr(), input[8..].as_ptr());
            assert_eq!(back.2.as_ptr(), input[20..].as_ptr());
            let copied: (u8, BytesStr, Bytes) = from_slice(&wire, order).unwrap();
            assert_eq!(copied, v);
            assert!(!inside(&wire, copied.1.as_bytes()) && !inside(&wire, &copied.2));
        }
    }

    #[test]
    fn errors_are_those_of_from_slice() {
        let cases: [&[u8]; 7] = [
            &[0, 0, 0, 0],                   // no NUL (length 0)
            &[0, 0, 0, 2, b'a', b'b'],       // no NUL at the end
            &[0, 0, 0, 3, 0, b'b', 0],       // NUL inside
            &[0, 0, 0, 2, 0xff, 0],          // not UTF-8
            &[0, 0, 0, 9, b'a', 0],          // truncated
            &[0xff, 0xff, 0xff, 0xf0, 0, 0], // huge length
            &[0, 0, 0, 2, b'a', 0, 0],       // trailing byte
        ];
        let text = |r: Result<BytesStr, Error>| r.map(|s| s.to_string()).map_err(|e| e.to_string());
        for wire in cases {
            let owned = Bytes::copy_from_slice(wire);
            let order = ByteOrder::Big;
            assert_eq!(
                text(from_bytes(owned.clone(), order)),
                from_slice::<String>(wire, order).map_err(|e| e.to_string()),
            );
            assert_eq!(
                from_bytes::<Bytes>(owned, order).map_err(|e| e.to_string()),
                from_slice::<Bytes>(wire, order).map_err(|e| e.to_string()),
            );
        }
    }
}
