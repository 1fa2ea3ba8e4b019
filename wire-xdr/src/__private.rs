//! Items generated code uses (through `marshal::__private::xdr`). Not a public API.

pub use marshal_core::flat::{flat_struct, width_of, FieldLayout};
pub use marshal_core::{
    descend, ArmDiscriminant, Error, ErrorKind, Flat, Reader, SizeClass, VarLen, Writer,
};

pub use marshal_core::list::in_node;
pub use marshal_core::place::FieldGuard;

pub use crate::traits::decode_by_place;
pub use crate::{Decode, Encode};

/// Size class of a `T<max>` / `string<max>` / `opaque<max>` field.
pub const fn bounded_size<T: VarLen + ?Sized>(max: usize) -> SizeClass
where
    T::Elem: Encode,
{
    SizeClass::Fixed(4).then(<T::Elem as Encode>::ELEM.repeat_up_to(max).pad_to(4))
}

/// Encodes a `max_len` field: longer data is an error.
#[inline]
pub fn encode_max<T: VarLen + Encode + ?Sized>(
    v: &T,
    max: usize,
    w: &mut Writer<'_>,
) -> Result<(), Error> {
    let len = v.var_len();
    if len > max {
        return Err(w.error(ErrorKind::LengthTooLarge {
            len: len as u64,
            max: max as u64,
        }));
    }
    v.encode(w)
}

/// Decodes a `max_len` field: a longer length is an error raised before anything is read or
/// allocated.
#[inline]
pub fn decode_max<'de, T: Decode<'de> + VarLen>(
    r: &mut Reader<'de>,
    max: usize,
) -> Result<T, Error> {
    check_max::<T>(r, max)?;
    T::decode(r)
}

/// Checks the length prefix of a `max_len` field against `max` without consuming it.
#[inline]
pub fn check_max<T: VarLen + ?Sized>(r: &Reader<'_>, max: usize) -> Result<(), Error> {
    let len = u32::from_be_bytes(r.peek_array::<4>()?) as usize;
    if len > max {
        return Err(r.error(ErrorKind::LengthTooLarge {
            len: len as u64,
            max: max as u64,
        }));
    }
    Ok(())
}

/// Decodes field `T` in place at `place` (see [`Decode::decode_into`] and
/// [`marshal_core::place::field`]).
///
/// # Safety
/// As for [`marshal_core::place::field`].
#[inline(always)]
pub unsafe fn decode_field<'a, 'de, T: Decode<'de>>(
    r: &mut Reader<'de>,
    place: *mut T,
) -> Result<FieldGuard<'a, T>, Error> {
    // SAFETY: the caller upholds `place::field`'s contract (this function's own).
    unsafe { marshal_core::place::field(r, place, T::decode_into) }
}

/// The type a C-like enum's value and a union's discriminant travel as (an XDR `int`).
pub type Discriminant = i32;

/// The wire size of an enum value or union discriminant.
pub const DISCRIMINANT_SIZE: usize = core::mem::size_of::<Discriminant>();

/// The size class of an enum value or union discriminant.
pub const DISCRIMINANT_CLASS: SizeClass = SizeClass::Fixed(DISCRIMINANT_SIZE);

/// The wire size of the optional-data flag of a list link (a `bool`, itself an `int`).
pub const FLAG_SIZE: usize = 4;

/// Whether a C-like enum's value (widened to `i128`) fits an XDR enum: a 32-bit `int`, or the
/// bit pattern of an `unsigned int` (as C enums with large constants are sent).
pub const fn enum_value_fits(v: i128) -> bool {
    v >= i32::MIN as i128 && v <= u32::MAX as i128
}

/// Whether a `max_len` bound fits an XDR length (an `unsigned int`); the derive asserts it
/// for every `max_len` field.
pub const fn max_len_fits(max: usize) -> bool {
    max as u64 <= u32::MAX as u64
}

/// Appends a union discriminant or enum value.
#[inline(always)]
pub fn put_discriminant(w: &mut Writer<'_>, d: Discriminant) -> Result<(), Error> {
    w.put(d.to_be_bytes())
}

/// Reads a union discriminant or enum value.
#[inline(always)]
pub fn take_discriminant(r: &mut Reader<'_>) -> Result<Discriminant, Error> {
    Ok(Discriminant::from_be_bytes(r.array::<DISCRIMINANT_SIZE>()?))
}

/// The error for a discriminant just read that matches no variant.
#[cold]
pub fn unknown_discriminant(r: &Reader<'_>, value: Discriminant, type_name: &'static str) -> Error {
    r.error_back(
        DISCRIMINANT_SIZE,
        ErrorKind::UnknownDiscriminant {
            value: i64::from(value),
            type_name,
        },
    )
}

/// The error for a `default` arm holding another variant's discriminant.
#[cold]
pub fn discriminant_taken(w: &Writer<'_>, value: i32, variant: &'static str) -> Error {
    w.error(ErrorKind::DiscriminantTaken {
        value: i64::from(value),
        variant,
    })
}

/// Reads the optional-data flag of a list link.
#[inline(always)]
pub fn take_flag(r: &mut Reader<'_>) -> Result<bool, Error> {
    <bool as Decode<'_>>::decode(r)
}

/// Appends the optional-data flag of a list link.
#[inline(always)]
pub fn put_flag(w: &mut Writer<'_>, present: bool) -> Result<(), Error> {
    w.put(u32::from(present).to_be_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_values_span_int_and_unsigned_int() {
        assert!(enum_value_fits(i128::from(i32::MIN)));
        assert!(enum_value_fits(i128::from(u32::MAX)));
        assert!(!enum_value_fits(i128::from(i32::MIN) - 1));
        assert!(!enum_value_fits(i128::from(u32::MAX) + 1));
    }

    #[test]
    fn sizes_are_those_of_an_int() {
        assert_eq!(DISCRIMINANT_SIZE, 4);
        assert_eq!(DISCRIMINANT_CLASS, <i32 as Encode>::SIZE);
        assert_eq!(SizeClass::Fixed(FLAG_SIZE), <bool as Encode>::SIZE);
        assert!(max_len_fits(u32::MAX as usize));
        assert!(!max_len_fits(u32::MAX as usize + 1));
    }
}
