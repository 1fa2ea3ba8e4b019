//! Integers, hyper integers, floats, booleans (RFC 4506 §4.1–4.7), and `()`.

use core::marker::PhantomData;

use marshal_core::{Error, ErrorKind, Flat, Reader, SizeClass, Writer};

use crate::{Decode, Encode};

/// Types whose memory image is one XDR word (4 or 8 bytes) in native byte order.
macro_rules! word {
    ($($t:ty => $n:literal),* $(,)?) => {$(
        impl Encode for $t {
            const SIZE: SizeClass = SizeClass::Fixed($n);
            const FLAT: Option<Flat<Self>> = Some(Flat::<$t>::PRIMITIVE);
            #[inline(always)]
            fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
                Ok($n)
            }
            #[inline(always)]
            fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
                w.put(self.to_be_bytes())
            }
        }
        impl<'de> Decode<'de> for $t {
            const SIZE: SizeClass = SizeClass::Fixed($n);
            const FLAT: Option<Flat<Self>> = Some(Flat::<$t>::PRIMITIVE);
            #[inline(always)]
            fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
                Ok(<$t>::from_be_bytes(r.array::<$n>()?))
            }
        }
    )*};
}
word!(i32 => 4, u32 => 4, f32 => 4, i64 => 8, u64 => 8, f64 => 8);

/// Narrow integers: four bytes on the wire (as rpcgen does); out of range on decode is an error.
macro_rules! narrow {
    ($($t:ty as $wide:ty),* $(,)?) => {$(
        impl Encode for $t {
            const SIZE: SizeClass = SizeClass::Fixed(4);
            #[inline(always)]
            fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
                Ok(4)
            }
            #[inline(always)]
            fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
                w.put(<$wide>::from(*self).to_be_bytes())
            }
        }
        impl<'de> Decode<'de> for $t {
            const SIZE: SizeClass = SizeClass::Fixed(4);
            #[inline(always)]
            fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
                let v = <$wide>::from_be_bytes(r.array::<4>()?);
                <$t>::try_from(v).map_err(|_| {
                    r.error_back(4, ErrorKind::OutOfRange { value: i64::from(v), type_name: stringify!($t) })
                })
            }
        }
    )*};
}
narrow!(i8 as i32, i16 as i32, u16 as u32);

// `u8` alone is a four-byte unsigned int; arrays of it are opaque data (see `opaque.rs`).
impl Encode for u8 {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    const ELEM: SizeClass = SizeClass::Fixed(1);
    #[inline(always)]
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(4)
    }
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        w.put(u32::from(*self).to_be_bytes())
    }
    #[inline]
    fn elems_len(items: &[Self], _depth: u32) -> Result<usize, Error> {
        Ok(items.len() + crate::padding(items.len()))
    }
    #[inline]
    fn encode_elems(items: &[Self], w: &mut Writer<'_>) -> Result<(), Error> {
        crate::opaque::put_opaque(w, items)
    }
    #[inline]
    fn encode_counted(items: &[Self], w: &mut Writer<'_>) -> Result<(), Error> {
        crate::opaque::put_counted_opaque(w, items)
    }
}

impl<'de> Decode<'de> for u8 {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    const ELEM: SizeClass = SizeClass::Fixed(1);
    #[inline(always)]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        let v = u32::from_be_bytes(r.array::<4>()?);
        u8::try_from(v).map_err(|_| {
            r.error_back(
                4,
                ErrorKind::OutOfRange {
                    value: i64::from(v),
                    type_name: "u8",
                },
            )
        })
    }
    #[inline]
    fn decode_vec(r: &mut Reader<'de>, n: usize) -> Result<Vec<Self>, Error> {
        Ok(crate::opaque::take_opaque(r, n)?.to_vec())
    }
    #[inline]
    fn decode_array<const N: usize>(r: &mut Reader<'de>) -> Result<[Self; N], Error> {
        let s = crate::opaque::take_opaque(r, N)?;
        Ok(s.try_into().expect("take_opaque(N) has length N"))
    }
}

impl Encode for bool {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    #[inline(always)]
    fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
        Ok(4)
    }
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        w.put(u32::from(*self).to_be_bytes())
    }
}

impl<'de> Decode<'de> for bool {
    const SIZE: SizeClass = SizeClass::Fixed(4);
    #[inline(always)]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        match u32::from_be_bytes(r.array::<4>()?) {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(r.error_back(4, ErrorKind::InvalidBool(v))),
        }
    }
}

/// `void`: nothing on the wire.
macro_rules! void {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> Encode for $t {
            const SIZE: SizeClass = SizeClass::Fixed(0);
            #[inline(always)]
            fn encoded_len(&self, _depth: u32) -> Result<usize, Error> {
                Ok(0)
            }
            #[inline(always)]
            fn encode(&self, _w: &mut Writer<'_>) -> Result<(), Error> {
                Ok(())
            }
        }
        impl<'de, $($g)*> Decode<'de> for $t {
            const SIZE: SizeClass = SizeClass::Fixed(0);
            #[inline(always)]
            fn decode(_r: &mut Reader<'de>) -> Result<Self, Error> {
                Ok(Default::default())
            }
        }
    )*};
}
void!([] (), [T: ?Sized] PhantomData<T>);

#[cfg(test)]
mod tests {
    use crate::{from_slice, to_vec};

    #[test]
    fn rfc4506_numbers() {
        assert_eq!(to_vec(&-1i32).unwrap(), [0xff; 4]);
        assert_eq!(
            to_vec(&0x0102_0304_0506_0708u64).unwrap(),
            [1, 2, 3, 4, 5, 6, 7, 8]
        );
        assert_eq!(to_vec(&1.0f32).unwrap(), [0x3f, 0x80, 0, 0]);
        assert_eq!(to_vec(&true).unwrap(), [0, 0, 0, 1]);
        assert_eq!(to_vec(&-3i8).unwrap(), (-3i32).to_be_bytes());
        assert_eq!(to_vec(&200u8).unwrap(), [0, 0, 0, 200]);
        assert_eq!(from_slice::<f64>(&2.5f64.to_be_bytes()).unwrap(), 2.5);
        assert_eq!(to_vec(&()).unwrap(), []);
    }

    #[test]
    fn out_of_range_and_bad_bool() {
        let e = from_slice::<u8>(&[0, 0, 1, 0]).unwrap_err();
        assert_eq!(e.to_string(), "value 256 out of range for u8 at offset 0");
        assert!(from_slice::<i8>(&(-129i32).to_be_bytes()).is_err());
        assert_eq!(from_slice::<i16>(&(-129i32).to_be_bytes()).unwrap(), -129);
        assert!(from_slice::<u16>(&[0, 1, 0, 0]).is_err());
        let e = from_slice::<bool>(&[0, 0, 0, 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid boolean 2 (expected 0 or 1) at offset 0"
        );
    }
}
