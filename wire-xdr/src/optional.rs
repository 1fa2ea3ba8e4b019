//! Optional-data (RFC 4506 §4.19) and tuples (structs without names).

use marshal_core::{Error, Reader, SizeClass, Writer};

use crate::{Decode, Encode};

impl<T: Encode> Encode for Option<T> {
    const SIZE: SizeClass = SizeClass::Fixed(4).then(SizeClass::Fixed(0).or(T::SIZE));
    #[inline]
    fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
        match self {
            None => Ok(4),
            Some(v) => Ok(4 + v.encoded_len(depth)?),
        }
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        match self {
            None => w.put(0u32.to_be_bytes()),
            Some(v) => {
                w.put(1u32.to_be_bytes())?;
                v.encode(w)
            }
        }
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    const SIZE: SizeClass = SizeClass::Fixed(4).then(SizeClass::Fixed(0).or(T::SIZE));
    #[inline]
    fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
        if bool::decode(r)? {
            T::decode(r).map(Some)
        } else {
            Ok(None)
        }
    }
}

macro_rules! tuple {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: Encode),+> Encode for ($($name,)+) {
            const SIZE: SizeClass = SizeClass::Fixed(0)$(.then($name::SIZE))+;
            #[inline]
            fn encoded_len(&self, depth: u32) -> Result<usize, Error> {
                match Self::SIZE {
                    SizeClass::Fixed(n) => Ok(n),
                    _ => Ok(0 $(+ self.$idx.encoded_len(depth)?)+),
                }
            }
            #[inline(always)]
            fn encode(&self, w: &mut Writer<'_>) -> Result<(), Error> {
                let fields = |w: &mut Writer<'_>| {
                    $(self.$idx.encode(w).map_err(|e| e.in_field(stringify!($idx)))?;)+
                    Ok(())
                };
                // The leading run of fixed-size fields (`k` of them, `n` bytes) goes in as
                // one segment, with one capacity check, when it holds more than one field.
                let (k, n) = const { SizeClass::fixed_prefix(&[$($name::SIZE),+]) };
                match Self::SIZE {
                    SizeClass::Fixed(n) => w.chunk(n, fields),
                    _ if k > 1 => {
                        w.chunk(n, |w| {
                            $(if $idx < k {
                                self.$idx.encode(w).map_err(|e| e.in_field(stringify!($idx)))?;
                            })+
                            Ok(())
                        })?;
                        $(if $idx >= k {
                            self.$idx.encode(w).map_err(|e| e.in_field(stringify!($idx)))?;
                        })+
                        Ok(())
                    }
                    _ => fields(w),
                }
            }
        }
        impl<'de, $($name: Decode<'de>),+> Decode<'de> for ($($name,)+) {
            const SIZE: SizeClass = SizeClass::Fixed(0)$(.then($name::SIZE))+;
            #[inline]
            fn decode(r: &mut Reader<'de>) -> Result<Self, Error> {
                let fields = |r: &mut Reader<'de>| {
                    Ok(($($name::decode(r).map_err(|e| e.in_field(stringify!($idx)))?,)+))
                };
                match Self::SIZE {
                    SizeClass::Fixed(n) => r.chunk(n, fields),
                    _ => fields(r),
                }
            }
        }
    };
}
tuple!(A.0);
tuple!(A.0, B.1);
tuple!(A.0, B.1, C.2);
tuple!(A.0, B.1, C.2, D.3);
tuple!(A.0, B.1, C.2, D.3, E.4);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10);
tuple!(A.0, B.1, C.2, D.3, E.4, F.5, G.6, H.7, I.8, J.9, K.10, L.11);

#[cfg(test)]
mod tests {
    use crate::{from_slice, size_class, to_vec, SizeClass};

    #[test]
    fn optional_data_and_tuples() {
        assert_eq!(to_vec(&Some(3u32)).unwrap(), [0, 0, 0, 1, 0, 0, 0, 3]);
        assert_eq!(to_vec(&None::<u32>).unwrap(), [0, 0, 0, 0]);
        assert_eq!(size_class::<Option<u64>>(), SizeClass::Bounded(12));
        assert_eq!(size_class::<(u32, i64)>(), SizeClass::Fixed(12));
        let t: (u32, String, bool) =
            from_slice(&to_vec(&(1u32, "x".to_string(), true)).unwrap()).unwrap();
        assert_eq!(t, (1, "x".into(), true));
        assert!(from_slice::<Option<u32>>(&[0, 0, 0, 2, 0, 0, 0, 0]).is_err());
        let e = from_slice::<(u32, bool)>(&[0, 0, 0, 1, 0, 0, 0, 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1: invalid boolean 2 (expected 0 or 1) at offset 4"
        );
    }

    #[test]
    fn leading_fixed_fields_encode_as_one_segment_with_the_same_bytes() {
        // Three fixed fields (16 bytes, one segment), then an array and a fixed field after it.
        let t = (3i32, 7u64, true, [1u32, 2].as_slice(), 9u32);
        let bytes = to_vec(&t).unwrap();
        let mut want = Vec::new();
        for part in [
            to_vec(&3i32).unwrap(),
            to_vec(&7u64).unwrap(),
            to_vec(&true).unwrap(),
            to_vec(&[1u32, 2].as_slice()).unwrap(),
            to_vec(&9u32).unwrap(),
        ] {
            want.extend(part);
        }
        assert_eq!(bytes, want);
        let back: (i32, u64, bool, Vec<u32>, u32) = from_slice(&bytes).unwrap();
        assert_eq!(back, (3, 7, true, vec![1, 2], 9));
    }
}
