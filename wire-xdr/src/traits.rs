//! The two traits the derive implements.

use core::mem::MaybeUninit;

use marshal_core::{place, wide, Error, Flat, Reader, SizeClass, Writer};

use crate::SWAP;

/// Types with an XDR encoding.
///
/// Implemented by `#[derive(Marshal)]`; usable as a bound:
/// ```
/// fn bytes_of<T: wire_xdr::Encode>(v: &T) -> Vec<u8> {
///     wire_xdr::to_vec(v).expect("encodable")
/// }
/// assert_eq!(bytes_of(&7u32), [0, 0, 0, 7]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no XDR encoding",
    label = "this type cannot be marshalled as XDR",
    note = "derive `Marshal` for it, or use a supported type (integers, floats, bool, String, Vec, arrays, Option, Box, Bytes)"
)]
pub trait Encode {
    /// The wire size class, evaluated at compile time.
    const SIZE: SizeClass;

    /// The wire size of one element inside an array of this type (`u8` arrays are opaque:
    /// one byte each, padded once at the end).
    #[doc(hidden)]
    const ELEM: SizeClass = Self::SIZE;

    /// Proof that the type is flat words whose memory image, word for word, is the XDR
    /// encoding up to byte order: arrays of it are one byte-swap pass.
    #[doc(hidden)]
    const FLAT: Option<Flat<Self>> = None;

    /// The exact number of bytes [`Encode::encode`] writes. `depth` is the nesting still
    /// allowed; recursive types fail with `DepthLimit` at zero.
    fn encoded_len(&self, depth: u32) -> Result<usize, Error>;

    /// Appends the encoding.
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error>;

    /// Encoded length of the elements of an array (without its length prefix).
    #[doc(hidden)]
    #[inline]
    fn elems_len(items: &[Self], depth: u32) -> Result<usize, Error>
    where
        Self: Sized,
    {
        match Self::ELEM {
            SizeClass::Fixed(n) => Ok(n * items.len()),
            _ => items.iter().enumerate().try_fold(0usize, |acc, (i, it)| {
                Ok(acc + it.encoded_len(depth).map_err(|e| e.at_index(i))?)
            }),
        }
    }

    /// Appends the elements of an array (without its length prefix).
    #[doc(hidden)]
    #[inline]
    fn encode_elems(items: &[Self], w: &mut Writer<'_>) -> Result<(), Error>
    where
        Self: Sized,
    {
        if let Some(proof) = Self::FLAT {
            return w.put_flat(items, proof, SWAP);
        }
        // The loop is compiled for the CPU's vector width, so the short copies and swaps
        // of each element inline into it.
        let each = |w: &mut Writer<'_>| wide::encode_each(items, w, Self::encode);
        match Self::SIZE {
            // One reservation for the whole array of fixed-size elements.
            SizeClass::Fixed(n) => w.chunk(n * items.len(), each),
            _ => each(w),
        }
    }

    /// Appends an array's length prefix and then its elements (`[T]`'s encoding, after its
    /// element-count check): flat elements go in with the length, under one capacity check.
    #[doc(hidden)]
    #[inline]
    fn encode_counted(items: &[Self], w: &mut Writer<'_>) -> Result<(), Error>
    where
        Self: Sized,
    {
        let head = crate::len_word(w, items.len())?;
        if let Some(proof) = Self::FLAT {
            return w.put_head_flat(head, items, proof, SWAP);
        }
        w.put(head)?;
        Self::encode_elems(items, w)
    }
}

/// Types that can be decoded from XDR, possibly borrowing from the input (`'de`).
///
/// ```
/// let name: &str = wire_xdr::from_slice(b"\0\0\0\x03abc\0").unwrap();
/// assert_eq!(name, "abc");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no XDR decoding",
    label = "this type cannot be unmarshalled from XDR",
    note = "derive `Marshal` for it, or use a supported type (integers, floats, bool, String, Vec, arrays, Option, Box, Bytes)"
)]
pub trait Decode<'de>: Sized {
    /// The wire size class, evaluated at compile time.
    const SIZE: SizeClass;

    /// See [`Encode::ELEM`].
    #[doc(hidden)]
    const ELEM: SizeClass = Self::SIZE;

    /// See [`Encode::FLAT`].
    #[doc(hidden)]
    const FLAT: Option<Flat<Self>> = None;

    /// Reads one value.
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error>;

    /// Reads one value straight into `out` (the derive builds structs field by field in their
    /// final place, so no value is moved). Returns `out` itself, initialised: callers that
    /// rely on that check the returned address (see [`place::fill`]), which a safe
    /// implementation can only produce by initialising `out`.
    #[doc(hidden)]
    #[inline]
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
    ) -> Result<&'a mut Self, Error> {
        Ok(out.write(Self::decode(r)?))
    }

    /// Reads `n` array elements (after their length prefix). Never allocates more than the
    /// remaining input can fill.
    #[doc(hidden)]
    #[inline]
    fn decode_vec(r: &mut Reader<'de>, n: usize) -> Result<Vec<Self>, Error> {
        if let Some(proof) = Self::FLAT {
            return r.flat_vec(n, proof, SWAP);
        }
        // Every non-fixed XDR item takes at least four bytes (a length, a discriminant or a
        // flag), but for a `Box` (unbounded, to break the cycle of recursive types) of a value
        // that takes none: such a box pays for its memory when it decodes, and `fill_vec`
        // reserves no more than the input pays for.
        let min = match Self::SIZE {
            SizeClass::Fixed(k) => k,
            _ => 4,
        };
        let n = r.check_count(n, min, core::mem::size_of::<Self>())?;
        // Each element is decoded in the vector's spare capacity: no moves.
        let each = |r: &mut Reader<'de>| place::fill_vec(r, n, Self::decode_into);
        match Self::SIZE {
            // One length check for the whole array of fixed-size elements.
            SizeClass::Fixed(k) => r.chunk(k * n, each),
            _ => each(r),
        }
    }

    /// Reads a fixed-length array.
    #[doc(hidden)]
    #[inline]
    fn decode_array<const N: usize>(r: &mut Reader<'de>) -> Result<[Self; N], Error> {
        if let Some(proof) = Self::FLAT {
            return r.flat_array(proof, SWAP);
        }
        marshal_core::array::try_from_fn(|i| Self::decode(r).map_err(|e| e.at_index(i)))
    }
}

/// [`Decode::decode`] through [`Decode::decode_into`]: what derived structs use, so there is
/// one body for both.
#[inline(always)]
pub fn decode_by_place<'de, T: Decode<'de>>(r: &mut Reader<'de>) -> Result<T, Error> {
    place::by_place(r, T::decode_into)
}
