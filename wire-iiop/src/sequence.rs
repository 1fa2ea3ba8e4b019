//! Sequences (`sequence<T>`, `sequence<T, N>`), arrays (`T[N]`), and pointers that are
//! transparent on the wire (`Box<T>`, `&T`). `sequence<octet>` and octet arrays are one copy;
//! sequences and arrays of other primitives and of flat structs are one alignment step, then
//! one copy in the host's byte order or one byte-swap pass in the other.

use core::mem::MaybeUninit;

use marshal_core::{Error, Flat, Reader, Writer};

use crate::string::{put_len, take_len};
use crate::traits::{decode_flat_into, swaps};
use crate::{pad, ByteOrder, Decode, Encode, Shape};

impl<T: Encode, const N: usize> Encode for [T; N] {
    const FLAT: Option<Flat<Self>> = match T::FLAT {
        // SAFETY: `[T; N]` is `N` consecutive `T`s with no padding between them, so it is flat
        // words of `T`'s width whenever `T` is, in the same order.
        Some(f) => Some(unsafe { f.cast::<[T; N]>() }),
        None => None,
    };
    const SHAPE: Shape = T::SHAPE.repeat(N);
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        T::elems_end(self, pos, depth)
    }
    // Always inlined: a call per array costs as much as a short array's copy.
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        match Self::FLAT {
            // Aligned to the word width (unless empty), then one copy or one swap pass
            // compiled for this array's size.
            Some(proof) if N > 0 => {
                w.put_zeros(pad(w.position(), proof.width()))?;
                w.put_flat_one(self, proof, swaps(order, proof))
            }
            _ => T::encode_elems(self, w, order),
        }
    }
}

impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N] {
    const FLAT: Option<Flat<Self>> = match T::FLAT {
        // SAFETY: as for `Encode::FLAT` above.
        Some(f) => Some(unsafe { f.cast::<[T; N]>() }),
        None => None,
    };
    const MIN: usize = T::MIN * N;
    const SHAPE: Shape = T::SHAPE.repeat(N);
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        T::decode_array::<N>(r, order)
    }
    // Always inlined: a fixed-size array in a fixed segment then has no length check of its
    // own, and its copy is a few moves.
    #[inline(always)]
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
        order: ByteOrder,
    ) -> Result<&'a mut Self, Error> {
        match Self::FLAT {
            // One copy or swap pass straight into the destination.
            Some(proof) => decode_flat_into(r, out, proof, order),
            None => Ok(out.write(Self::decode(r, order)?)),
        }
    }
}

impl<T: Encode> Encode for [T] {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        let pos = 0u32.end(pos, depth)?;
        T::elems_end(self, pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        put_len(w, self.len(), order)?;
        T::encode_elems(self, w, order)
    }
}

impl<T: Encode> Encode for Vec<T> {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.as_slice().end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.as_slice().encode(w, order)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    const MIN: usize = 4;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let n = take_len(r, order)?;
        T::decode_vec(r, n, order)
    }
}

/// `sequence<octet>` borrowed from the input.
impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    const MIN: usize = 4;
    const SHAPE: Shape = Shape::Shallow;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        let n = take_len(r, order)?;
        r.take(n)
    }
}

/// `sequence<octet>` that borrows from the input when decoded, and may own its bytes when
/// encoded.
impl<'de: 'a, 'a> Decode<'de> for std::borrow::Cow<'a, [u8]> {
    const MIN: usize = 4;
    const SHAPE: Shape = Shape::Shallow;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        <&'a [u8]>::decode(r, order).map(std::borrow::Cow::Borrowed)
    }
}

/// `Option<T>` is `sequence<T, 1>`, the usual IDL idiom for an optional value (CDR has no
/// optional type); a length above 1 is a decode error.
impl<T: Encode> Encode for Option<T> {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        self.as_slice().end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.as_slice().encode(w, order)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    const MIN: usize = 4;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        if crate::__private::take_flag(r, order)? {
            T::decode(r, order).map(Some)
        } else {
            Ok(None)
        }
    }
}

/// `Box<T>` is `T` on the wire (for recursive types and large values).
impl<T: Encode + ?Sized> Encode for Box<T> {
    #[inline]
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
        (**self).end(pos, depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        (**self).encode(w, order)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    const MIN: usize = T::MIN;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        T::decode(r, order).map(Box::new)
    }
}

impl<T: Encode + ?Sized> Encode for &T {
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
    fn sequences_align_their_elements_only_when_there_are_some() {
        let b = to_vec(&(1u8, Vec::<f64>::new()), ByteOrder::Big).unwrap();
        assert_eq!(b, [1, 0, 0, 0, 0, 0, 0, 0]);
        let b = to_vec(&vec![1.0f64], ByteOrder::Little).unwrap();
        assert_eq!(b, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
        assert_eq!(
            from_slice::<Vec<f64>>(&b, ByteOrder::Little).unwrap(),
            [1.0]
        );
        let b = to_vec(&vec![1i16, -2], ByteOrder::Big).unwrap();
        assert_eq!(b, [0, 0, 0, 2, 0, 1, 0xff, 0xfe]);
        // Octet arrays have no padding after them.
        let b = to_vec(&([1u8, 2, 3], 4u8), ByteOrder::Big).unwrap();
        assert_eq!(b, [1, 2, 3, 4]);
        let v: &[u8] = from_slice(&[0, 0, 0, 2, 7, 8], ByteOrder::Big).unwrap();
        assert_eq!(v, [7, 8]);
    }

    #[test]
    fn huge_lengths_fail_before_allocating() {
        let e = from_slice::<Vec<u64>>(&[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0], ByteOrder::Big)
            .unwrap_err();
        assert!(e.to_string().contains("exceeds"), "{e}");
        let e = from_slice::<Vec<String>>(&[0x0f, 0xff, 0xff, 0xf0, 0, 0, 0, 0], ByteOrder::Big)
            .unwrap_err();
        assert!(e.to_string().contains("exceeds"), "{e}");
    }
}
