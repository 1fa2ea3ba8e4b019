//! `string` (CORBA 3, §9.3.2.7): an `unsigned long` length that counts the terminating NUL,
//! the bytes, then the NUL. Rust strings are UTF-8, checked on decode; a NUL inside a string
//! cannot be carried and is an error both ways.

use core::mem::MaybeUninit;

use marshal_core::{text, Error, ErrorKind, Reader, Writer};

use crate::traits::too_long;
use crate::{align_up, ByteOrder, Decode, Encode, Shape};

/// The `unsigned long` length prefix of a string or sequence.
#[inline(always)]
pub(crate) fn put_len(w: &mut Writer<'_>, n: usize, order: ByteOrder) -> Result<(), Error> {
    let n = u32::try_from(n).map_err(|_| w.error(ErrorKind::TooLong { len: n }))?;
    n.encode(w, order)
}

/// Reads a string or sequence length.
#[inline(always)]
pub(crate) fn take_len(r: &mut Reader<'_>, order: ByteOrder) -> Result<usize, Error> {
    Ok(u32::decode(r, order)? as usize)
}

/// End position of a string of `n` bytes (plus its NUL) starting at `pos`.
#[inline(always)]
pub(crate) fn string_end(pos: usize, n: usize) -> usize {
    align_up(pos, 4) + 4 + n + 1
}

/// Appends a string.
#[inline]
pub(crate) fn put_str(w: &mut Writer<'_>, s: &[u8], order: ByteOrder) -> Result<(), Error> {
    let at = w.position();
    put_len(w, s.len() + 1, order)?;
    // The bytes and the terminating NUL: one capacity check, and the check for a NUL inside
    // made while copying.
    w.put_slice_zeros_without_nul(s, 1, || Error::new(ErrorKind::InteriorNul, at))
}

/// Reads a string, borrowed from the input: its length (aligned), then that many bytes of
/// which the last is the NUL, no other is NUL, and the rest is UTF-8 (checked in one
/// word-wise pass for the usual ASCII strings). A length above `max` (the NUL not counted) is
/// an error raised before the bytes are looked at.
#[inline(always)]
pub(crate) fn take_str<'de>(
    r: &mut Reader<'de>,
    order: ByteOrder,
    max: usize,
) -> Result<&'de str, Error> {
    let n = take_len(r, order)?;
    let body = r.position();
    if n.saturating_sub(1) > max {
        return Err(too_long(body - 4, n - 1, max));
    }
    if n > r.remaining() {
        return Err(r.error(ErrorKind::LengthExceedsInput {
            len: n as u64,
            remaining: r.remaining(),
        }));
    }
    match r.take(n)?.split_last() {
        Some((0, s)) => text::to_str_without_nul(s).map_err(|k| Error::new(k, body)),
        _ => Err(Error::new(ErrorKind::UnterminatedString, body - 4)),
    }
}

/// Reads a string's bytes (without the NUL), borrowed, with no UTF-8 check: for names a
/// server matches as bytes (GIOP operation names).
pub(crate) fn take_str_bytes<'de>(
    r: &mut Reader<'de>,
    order: ByteOrder,
) -> Result<&'de [u8], Error> {
    let n = take_len(r, order)?;
    let body = r.position();
    if n > r.remaining() {
        return Err(r.error(ErrorKind::LengthExceedsInput {
            len: n as u64,
            remaining: r.remaining(),
        }));
    }
    match r.take(n)?.split_last() {
        Some((0, s)) if !s.contains(&0) => Ok(s),
        Some((0, _)) => Err(Error::new(ErrorKind::InteriorNul, body)),
        _ => Err(Error::new(ErrorKind::UnterminatedString, body - 4)),
    }
}

impl Encode for str {
    #[inline]
    fn end(&self, pos: usize, _depth: u32) -> Result<usize, Error> {
        Ok(string_end(pos, self.len()))
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        put_str(w, self.as_bytes(), order)
    }
}

impl Encode for String {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.as_str().end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.as_str().encode(w, order)
    }
}

/// `Decode` for a string type (with the impl's generics in brackets) made from the borrowed
/// `&str` by `$from`.
macro_rules! string {
    ($([$($g:tt)*] $t:ty => $from:expr),*) => {$(
        impl<$($g)*> Decode<'de> for $t {
            const MIN: usize = 5;
            const SHAPE: Shape = Shape::Shallow;
            #[inline]
            fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
                take_str(r, order, usize::MAX).map($from)
            }
            #[inline]
            fn decode_max_into<'o>(
                r: &mut Reader<'de>,
                out: &'o mut MaybeUninit<Self>,
                max: usize,
                _nul: bool,
                order: ByteOrder,
            ) -> Result<&'o mut Self, Error> {
                Ok(out.write($from(take_str(r, order, max)?)))
            }
        }
    )*};
}
string!(
    ['de] String => String::from,
    ['de: 'a, 'a] &'a str => core::convert::identity,
    ['de: 'a, 'a] std::borrow::Cow<'a, str> => std::borrow::Cow::Borrowed
);

/// A string or a sequence that borrows from the input when decoded, and may own its data when
/// encoded: encoded as what it points to.
impl<T: Encode + ToOwned + ?Sized> Encode for std::borrow::Cow<'_, T> {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        (**self).end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        (**self).encode(w, order)
    }
}

#[cfg(test)]
mod tests {
    use crate::{from_slice, to_vec, ByteOrder};

    #[test]
    fn cows_borrow_when_decoded() {
        use std::borrow::Cow;
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let b = to_vec(&(1u8, "ab"), order).unwrap();
            let (_, s): (u8, Cow<'_, str>) = from_slice(&b, order).unwrap();
            assert!(matches!(s, Cow::Borrowed("ab")));
            assert_eq!(
                to_vec(&(1u8, Cow::<str>::Owned("ab".into())), order).unwrap(),
                b
            );
            let b = to_vec(&vec![7u8, 8], order).unwrap();
            let o: Cow<'_, [u8]> = from_slice(&b, order).unwrap();
            assert!(matches!(o, Cow::Borrowed([7, 8])));
            assert_eq!(to_vec(&o, order).unwrap(), b);
        }
    }

    #[test]
    fn length_counts_the_nul() {
        let b = to_vec(&(1u8, "ab"), ByteOrder::Big).unwrap();
        assert_eq!(b, [1, 0, 0, 0, 0, 0, 0, 3, b'a', b'b', 0]);
        let b = to_vec(&"", ByteOrder::Little).unwrap();
        assert_eq!(b, [1, 0, 0, 0, 0]);
        assert_eq!(from_slice::<String>(&b, ByteOrder::Little).unwrap(), "");
        assert_eq!(
            from_slice::<&str>(&[0, 0, 0, 2, b'z', 0], ByteOrder::Big).unwrap(),
            "z"
        );
    }

    #[test]
    fn rejects_missing_or_interior_nul_and_bad_utf8() {
        let e = from_slice::<String>(&[0, 0, 0, 0], ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string is not NUL-terminated at offset 0");
        let e = from_slice::<String>(&[0, 0, 0, 2, b'a', b'b'], ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string is not NUL-terminated at offset 0");
        let e = from_slice::<String>(&[0, 0, 0, 3, 0, b'b', 0], ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string contains a NUL byte at offset 4");
        let e = from_slice::<String>(&[0, 0, 0, 2, 0xff, 0], ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string is not valid UTF-8 at offset 4");
        // Strings of 16 bytes or more take the word-wise path.
        let mut long = vec![0, 0, 0, 21];
        long.extend_from_slice(b"twenty bytes of text\0");
        assert_eq!(
            from_slice::<String>(&long, ByteOrder::Big).unwrap(),
            "twenty bytes of text"
        );
        long[20] = 0;
        let e = from_slice::<String>(&long, ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string contains a NUL byte at offset 4");
        long[20] = 0xc3;
        let e = from_slice::<String>(&long, ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string is not valid UTF-8 at offset 4");
        long[21] = 0xa9;
        assert_eq!(
            from_slice::<String>(&long, ByteOrder::Big).unwrap(),
            "twenty bytes of \u{e9}xt"
        );
        let e = to_vec(&"a\0b", ByteOrder::Big).unwrap_err();
        assert_eq!(e.to_string(), "string contains a NUL byte at offset 0");
        let e = from_slice::<String>(&[0xff, 0xff, 0xff, 0xf0, 0, 0], ByteOrder::Big).unwrap_err();
        assert_eq!(
            e.to_string(),
            "length 4294967280 exceeds the 2 bytes that remain at offset 4"
        );
    }
}
