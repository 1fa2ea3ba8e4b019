//! Opaque data and strings (RFC 4506 §4.9–4.11): a length, the bytes, zero padding to four.
//! (`Bytes` and `BytesStr`, which may share the input, are in `shared`.)

use std::borrow::Cow;

use marshal_core::{Error, ErrorKind, Reader, SizeClass, Writer};

use crate::{len_word, padding, Decode, Encode};

/// Reads a 32-bit length prefix.
#[inline(always)]
pub(crate) fn take_len(r: &mut Reader<'_>) -> Result<usize, Error> {
    Ok(u32::from_be_bytes(r.array::<4>()?) as usize)
}

/// Appends opaque bytes and their zero padding (one capacity check, one copy).
#[inline]
pub(crate) fn put_opaque(w: &mut Writer<'_>, data: &[u8]) -> Result<(), Error> {
    w.put_slice_zeros(data, padding(data.len()))
}

/// Appends variable-length opaque data: its length, the bytes and their zero padding (one
/// capacity check, one copy).
#[inline]
pub(crate) fn put_counted_opaque(w: &mut Writer<'_>, data: &[u8]) -> Result<(), Error> {
    w.put_head_slice_zeros(len_word(w, data.len())?, data, padding(data.len()))
}

/// Borrows `n` opaque bytes and checks their padding is zero. A length beyond the input fails
/// before anything is allocated.
#[inline(always)]
pub(crate) fn take_opaque<'de>(r: &mut Reader<'de>, n: usize) -> Result<&'de [u8], Error> {
    if n > r.remaining() {
        return Err(r.error(ErrorKind::LengthExceedsInput {
            len: n as u64,
            remaining: r.remaining(),
        }));
    }
    let data = r.take(n)?;
    r.zeros(padding(n))?;
    Ok(data)
}

#[inline]
pub(crate) fn opaque_len(n: usize) -> Result<usize, Error> {
    Ok(4 + n + padding(n))
}

/// Borrows a length-prefixed string and checks it is UTF-8.
#[inline]
pub(crate) fn take_str<'de>(r: &mut Reader<'de>) -> Result<&'de str, Error> {
    let n = take_len(r)?;
    let start = r.position();
    let data = take_opaque(r, n)?;
    marshal_core::text::to_str(data).map_err(|k| Error::new(k, start))
}

impl Encode for str {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        opaque_len(self.len())
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        put_counted_opaque(w, self.as_bytes())
    }
}

impl Encode for String {
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

impl<'de> Decode<'de> for String {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        take_str(r).map(String::from)
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a str {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        take_str(r)
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let n = take_len(r)?;
        take_opaque(r, n)
    }
}

/// A string or opaque data that borrows from the input when decoded, and may own its bytes
/// when encoded: encoded as what it points to.
impl<T: Encode + ToOwned + ?Sized> Encode for Cow<'_, T> {
    const SIZE: SizeClass = T::SIZE;
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        (**self).encoded_len(depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        (**self).encode(w)
    }
}

impl<'de: 'a, 'a> Decode<'de> for Cow<'a, str> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        take_str(r).map(Cow::Borrowed)
    }
}

impl<'de: 'a, 'a> Decode<'de> for Cow<'a, [u8]> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        <&'a [u8]>::decode(r).map(Cow::Borrowed)
    }
}

#[cfg(test)]
mod tests {
    use crate::{from_slice, to_vec};
    use bytes::Bytes;

    #[test]
    fn cows_borrow_when_decoded() {
        use std::borrow::Cow;
        let bytes = to_vec("abcde").unwrap();
        let s: Cow<'_, str> = from_slice(&bytes).unwrap();
        assert!(matches!(s, Cow::Borrowed("abcde")));
        assert_eq!(to_vec(&Cow::<str>::Owned("abcde".into())).unwrap(), bytes);
        let bytes = to_vec(&vec![1u8, 2]).unwrap();
        let o: Cow<'_, [u8]> = from_slice(&bytes).unwrap();
        assert!(matches!(o, Cow::Borrowed([1, 2])));
        assert_eq!(to_vec(&o).unwrap(), bytes);
    }

    #[test]
    fn strings_and_opaques() {
        assert_eq!(to_vec("abcde").unwrap(), b"\0\0\0\x05abcde\0\0\0");
        assert_eq!(to_vec(&String::new()).unwrap(), [0; 4]);
        assert_eq!(to_vec(&vec![1u8, 2]).unwrap(), [0, 0, 0, 2, 1, 2, 0, 0]);
        assert_eq!(to_vec(&[1u8, 2, 3]).unwrap(), [1, 2, 3, 0]);
        assert_eq!(
            to_vec(&Bytes::from_static(b"abcd")).unwrap(),
            b"\0\0\0\x04abcd"
        );
        let s: &str = from_slice(b"\0\0\0\x05abcde\0\0\0").unwrap();
        assert_eq!(s, "abcde");
        let o: &[u8] = from_slice(&[0, 0, 0, 1, 7, 0, 0, 0]).unwrap();
        assert_eq!(o, [7]);
        let b: Bytes = from_slice(&[0, 0, 0, 1, 7, 0, 0, 0]).unwrap();
        assert_eq!(&b[..], [7]);
        let a: [u8; 3] = from_slice(&[1, 2, 3, 0]).unwrap();
        assert_eq!(a, [1, 2, 3]);
    }

    #[test]
    fn rejects_bad_padding_utf8_and_huge_lengths() {
        let e = from_slice::<String>(b"\0\0\0\x01a\0\x01\0").unwrap_err();
        assert_eq!(e.to_string(), "non-zero padding at offset 5");
        let e = from_slice::<String>(b"\0\0\0\x02\xff\xfe\0\0").unwrap_err();
        assert_eq!(e.to_string(), "string is not valid UTF-8 at offset 4");
        let e =
            from_slice::<Vec<u8>>(&[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "length 4294967280 exceeds the 8 bytes that remain at offset 4"
        );
        assert!(from_slice::<[u8; 3]>(&[1, 2, 3, 4]).is_err());
    }
}
