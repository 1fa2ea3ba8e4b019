//! Primitive types (CORBA 3, §9.3.1): each aligned to its own size.
//!
//! | Rust | IDL | bytes |
//! |---|---|---|
//! | `u8` / `i8` / `bool` | `octet` / `char` / `boolean` | 1 |
//! | `i16`, `u16` | `short`, `unsigned short` | 2 |
//! | `i32`, `u32`, `f32` | `long`, `unsigned long`, `float` | 4 |
//! | `i64`, `u64`, `f64` | `long long`, `unsigned long long`, `double` | 8 |

use core::marker::PhantomData;

use marshal_core::{Error, ErrorKind, Flat, Reader, Writer};

use crate::{pad, ByteOrder, Decode, Encode, Shape};

/// Numbers whose memory image is their CDR encoding in the host byte order.
macro_rules! number {
    ($($t:ty => $n:literal),* $(,)?) => {$(
        impl Encode for $t {
            const FLAT: Option<Flat<Self>> = Some(Flat::<$t>::PRIMITIVE);
            const SHAPE: Shape = Shape::fixed($n, $n);
            #[inline(always)]
            fn end(&self, pos: usize, _depth: u32) -> Result<usize, Error> {
                Ok(pos + pad(pos, $n) + $n)
            }
            #[inline(always)]
            fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
                w.put_padded(pad(w.position(), $n), match order {
                    ByteOrder::Big => self.to_be_bytes(),
                    ByteOrder::Little => self.to_le_bytes(),
                })
            }
        }
        impl<'de> Decode<'de> for $t {
            const FLAT: Option<Flat<Self>> = Some(Flat::<$t>::PRIMITIVE);
            const MIN: usize = $n;
            const SHAPE: Shape = Shape::fixed($n, $n);
            #[inline(always)]
            fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
                let b = r.padded_array::<$n>(pad(r.position(), $n))?;
                Ok(match order {
                    ByteOrder::Big => <$t>::from_be_bytes(b),
                    ByteOrder::Little => <$t>::from_le_bytes(b),
                })
            }
        }
    )*};
}
number!(
    u8 => 1, i8 => 1,
    i16 => 2, u16 => 2,
    i32 => 4, u32 => 4, f32 => 4,
    i64 => 8, u64 => 8, f64 => 8,
);

/// `boolean`: one octet, 0 or 1 (anything else is a decode error).
impl Encode for bool {
    const SHAPE: Shape = Shape::fixed(1, 1);
    #[inline(always)]
    fn end(&self, pos: usize, _depth: u32) -> Result<usize, Error> {
        Ok(pos + 1)
    }
    #[inline(always)]
    fn encode(&self, w: &mut Writer<'_>, _order: ByteOrder) -> Result<(), Error> {
        w.put([u8::from(*self)])
    }
}

impl<'de> Decode<'de> for bool {
    const MIN: usize = 1;
    const SHAPE: Shape = Shape::fixed(1, 1);
    #[inline(always)]
    fn decode(r: &mut Reader<'de>, _order: ByteOrder) -> Result<Self, Error> {
        match r.array::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(r.error_back(1, ErrorKind::InvalidBool(u32::from(b)))),
        }
    }
}

/// `()` and `PhantomData` take no bytes (an operation with no parameters or no result).
macro_rules! empty {
    ($($t:ty $(, $p:ident)?);*) => {$(
        impl<$($p: ?Sized)?> Encode for $t {
            const SHAPE: Shape = Shape::EMPTY;
            #[inline(always)]
            fn end(&self, pos: usize, _depth: u32) -> Result<usize, Error> {
                Ok(pos)
            }
            #[inline(always)]
            fn encode(&self, _w: &mut Writer<'_>, _order: ByteOrder) -> Result<(), Error> {
                Ok(())
            }
        }
        impl<'de $(, $p: ?Sized)?> Decode<'de> for $t {
            const SHAPE: Shape = Shape::EMPTY;
            #[inline(always)]
            fn decode(_r: &mut Reader<'de>, _order: ByteOrder) -> Result<Self, Error> {
                Ok(Default::default())
            }
        }
    )*};
}
empty!((); PhantomData<T>, T);

#[cfg(test)]
mod tests {
    use crate::{from_slice, to_vec, ByteOrder};

    #[test]
    fn aligned_to_their_size_in_both_orders() {
        let v = (1u8, 2i16, 3u32, 4i64, 5.0f32, 6.0f64, true);
        let be = to_vec(&v, ByteOrder::Big).unwrap();
        assert_eq!(
            be,
            [
                1, 0, 0, 2, // octet, pad, short
                0, 0, 0, 3, // long
                0, 0, 0, 0, 0, 0, 0, 4, // long long at 8
                0x40, 0xa0, 0, 0, // float at 16
                0, 0, 0, 0, // pad to 24
                0x40, 0x18, 0, 0, 0, 0, 0, 0, // double at 24
                1, // boolean
            ]
        );
        let le = to_vec(&v, ByteOrder::Little).unwrap();
        assert_eq!(&le[..8], [1, 0, 2, 0, 3, 0, 0, 0]);
        assert_eq!(
            from_slice::<(u8, i16, u32, i64, f32, f64, bool)>(&be, ByteOrder::Big).unwrap(),
            v
        );
        assert_eq!(
            from_slice::<(u8, i16, u32, i64, f32, f64, bool)>(&le, ByteOrder::Little).unwrap(),
            v
        );
    }

    #[test]
    fn decoders_accept_any_padding_and_reject_bad_bools() {
        // omniORB leaves stale bytes in padding.
        let v: (u8, u32) = from_slice(&[9, 0xaa, 0xbb, 0xcc, 0, 0, 0, 5], ByteOrder::Big).unwrap();
        assert_eq!(v, (9, 5));
        let e = from_slice::<bool>(&[2], ByteOrder::Big).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid boolean 2 (expected 0 or 1) at offset 0"
        );
        let e = from_slice::<u32>(&[0, 0, 1], ByteOrder::Big).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unexpected end of input: needed 4 bytes, 3 remain at offset 0"
        );
    }
}
