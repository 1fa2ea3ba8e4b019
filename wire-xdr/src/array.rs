//! Fixed-length arrays, variable-length arrays (RFC 4506 §4.12–4.13), and pointers that are
//! transparent on the wire (`Box<T>`, `&T`).

use core::mem::MaybeUninit;

use marshal_core::{Error, Flat, Reader, SizeClass, Writer};

use crate::opaque::take_len;
use crate::{Decode, Encode, SWAP};

impl<T: Encode, const N: usize> Encode for [T; N] {
    const SIZE: SizeClass = T::ELEM.repeat(N).pad_to(4);
    const FLAT: Option<Flat<Self>> = match T::FLAT {
        // SAFETY: `[T; N]` is `N` consecutive `T`s with no padding between them, so it is flat
        // words of the same width, valid for any bit pattern, with the same word order.
        Some(f) => Some(unsafe { f.cast::<[T; N]>() }),
        None => None,
    };
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        match Self::SIZE {
            SizeClass::Fixed(n) => Ok(n),
            _ => T::elems_len(self, depth),
        }
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        if let Some(proof) = Self::FLAT {
            // One swap pass compiled for this array's size.
            return w.put_flat_one(self, proof, SWAP);
        }
        match Self::SIZE {
            SizeClass::Fixed(n) => w.chunk(n, |w| T::encode_elems(self, w)),
            _ => T::encode_elems(self, w),
        }
    }
}

impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N] {
    const SIZE: SizeClass = T::ELEM.repeat(N).pad_to(4);
    const FLAT: Option<Flat<Self>> = match T::FLAT {
        // SAFETY: as for `Encode::FLAT` above.
        Some(f) => Some(unsafe { f.cast::<[T; N]>() }),
        None => None,
    };
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        match Self::SIZE {
            SizeClass::Fixed(n) => r.chunk(n, |r| T::decode_array::<N>(r)),
            _ => T::decode_array::<N>(r),
        }
    }
    #[inline]
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
    ) -> Result<&'a mut Self, Error> {
        match Self::FLAT {
            // One copy or swap pass straight into the destination.
            Some(proof) => r.flat_into(out, proof, SWAP),
            None => Ok(out.write(Self::decode(r)?)),
        }
    }
}

impl<T: Encode> Encode for [T] {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        Ok(4 + T::elems_len(self, depth)?)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        if T::ELEM.max_len() == Some(0) && self.len() > marshal_core::reader::MAX_EMPTY_ELEMS {
            return Err(w.error(marshal_core::ErrorKind::TooManyElements {
                count: self.len() as u64,
                limit: marshal_core::reader::MAX_EMPTY_ELEMS as u64,
            }));
        }
        T::encode_counted(self, w)
    }
}

impl<T: Encode> Encode for Vec<T> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        self.as_slice().encoded_len(depth)
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        self.as_slice().encode(w)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Vec<T> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let n = take_len(r)?;
        T::decode_vec(r, n)
    }
}

// `Box` is how types recurse, so its class is `Unbounded` whatever `T` is: that breaks every
// cycle in the size-class constants without the derive having to detect recursion.
impl<T: Encode + ?Sized> Encode for Box<T> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline(always)]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        (**self).encoded_len(depth)
    }
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        (**self).encode(w)
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Box<T> {
    const SIZE: SizeClass = SizeClass::Unbounded;
    #[inline(always)]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let start = r.position();
        let v = T::decode(r)?;
        if r.position() == start {
            // A value that took no bytes on the wire: the input does not pay for the box (nor
            // for the place that holds it), so this decode's allowance for such values does.
            r.charge_empty(1, core::mem::size_of::<Self>() + core::mem::size_of::<T>())?;
        }
        Ok(Box::new(v))
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    const SIZE: SizeClass = T::SIZE;
    #[inline(always)]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        (**self).encoded_len(depth)
    }
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        (**self).encode(w)
    }
}

#[cfg(test)]
mod tests {
    use crate::{from_slice, size_class, to_vec, Decode, Encode, SizeClass};

    #[test]
    fn arrays() {
        assert_eq!(to_vec(&[1i32, 2]).unwrap(), [0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!(
            to_vec(&vec![1u32, 2]).unwrap(),
            [0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]
        );
        assert_eq!(to_vec(&vec![true]).unwrap(), [0, 0, 0, 1, 0, 0, 0, 1]);
        assert_eq!(to_vec(&vec![1u16]).unwrap(), [0, 0, 0, 1, 0, 0, 0, 1]);
        let v: Vec<u64> = from_slice(&to_vec(&vec![7u64, u64::MAX]).unwrap()).unwrap();
        assert_eq!(v, [7, u64::MAX]);
        let v: Vec<String> =
            from_slice(&to_vec(&vec!["a".to_string(), "bc".into()]).unwrap()).unwrap();
        assert_eq!(v, ["a", "bc"]);
        let a: [[i16; 2]; 2] = from_slice(&to_vec(&[[1i16, -2], [3, 4]]).unwrap()).unwrap();
        assert_eq!(a, [[1, -2], [3, 4]]);
        let b: Box<u32> = from_slice(&[0, 0, 0, 5]).unwrap();
        assert_eq!(*b, 5);
    }

    #[test]
    fn size_classes_agree() {
        assert_eq!(size_class::<[u8; 5]>(), SizeClass::Fixed(8));
        assert_eq!(<[u8; 5] as Decode<'_>>::SIZE, SizeClass::Fixed(8));
        assert_eq!(size_class::<[i8; 5]>(), SizeClass::Fixed(20));
        assert_eq!(<[i8; 5] as Decode<'_>>::SIZE, SizeClass::Fixed(20));
        assert_eq!(size_class::<[[u8; 3]; 2]>(), SizeClass::Fixed(8));
        assert_eq!(<[[u8; 3]; 2] as Decode<'_>>::SIZE, SizeClass::Fixed(8));
        assert_eq!(size_class::<Vec<u32>>(), SizeClass::Unbounded);
        assert!(<[u32; 3] as Encode>::FLAT.is_some());
        assert!(<[bool; 3] as Encode>::FLAT.is_none());
    }

    #[test]
    fn hostile_counts() {
        // 0xFFFF_FFF0 elements with 8 bytes left: fails at once, before allocating.
        let e =
            from_slice::<Vec<u32>>(&[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert!(
            e.to_string().starts_with("length 4294967280 exceeds"),
            "{e}"
        );
        let e = from_slice::<Vec<String>>(&[0xff, 0xff, 0xff, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0])
            .unwrap_err();
        assert!(
            e.to_string().starts_with("length 4294967280 exceeds"),
            "{e}"
        );
        let e = from_slice::<Vec<()>>(&[0xff, 0xff, 0xff, 0xf0]).unwrap_err();
        assert!(e.to_string().contains("exceed the limit"), "{e}");
        let e = from_slice::<Vec<String>>(&[0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 0])
            .unwrap_err();
        assert_eq!(e.to_string(), "[1]: string is not valid UTF-8 at offset 12");
    }
}
