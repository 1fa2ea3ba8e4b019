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

/// The type a C-like enum's value travels as (an XDR `int`).
pub type EnumValue = i32;

/// The wire size of an enum value.
pub const DISCRIMINANT_SIZE: usize = core::mem::size_of::<EnumValue>();

/// The size class of an enum value.
pub const DISCRIMINANT_CLASS: SizeClass = SizeClass::Fixed(DISCRIMINANT_SIZE);

/// The wire size of the optional-data flag of a list link (a `bool`, itself an `int`).
pub const FLAG_SIZE: usize = 4;

/// The type a union switches on when its enum names none (`#[marshal(discriminant = T)]`):
/// an `int`.
pub type DefaultDiscriminant = i32;

/// The types an XDR union may switch on (`#[marshal(discriminant = T)]`): RFC 4506 allows
/// `int`, `unsigned int` and enums (`bool` is one). The narrower integers travel as an `int`
/// or `unsigned int` too, so a union a CDR peer switches on `short` or `octet` is still XDR.
/// A C-like enum that derives `Marshal` implements it.
#[diagnostic::on_unimplemented(
    message = "an XDR union cannot switch on `{Self}`",
    label = "use i32, u32, bool, a narrower integer or a C-like enum that derives Marshal"
)]
pub trait Discriminant: Encode + for<'de> Decode<'de> {
    /// The discriminant as an `i64`, for errors.
    fn to_i64(&self) -> i64;

    /// The smallest integer label (integer types only: other labels are typed constants).
    const LABEL_MIN: i128 = i128::MIN;
    /// The largest integer label.
    const LABEL_MAX: i128 = i128::MAX;

    // What generated code calls, all through this trait: a type that is not a discriminant
    // then fails one bound, reported once, rather than one per helper.

    /// The size class of the discriminant.
    const CLASS: SizeClass = <Self as Encode>::SIZE;

    /// The wire size of the discriminant.
    const WIDTH: usize = match <Self as Encode>::SIZE {
        SizeClass::Fixed(n) => n,
        _ => panic!("an XDR discriminant has a fixed size"),
    };

    /// Appends the discriminant.
    #[inline(always)]
    fn put(&self, w: &mut Writer<'_>) -> Result<(), Error> {
        self.encode(w)
    }

    /// Reads a discriminant.
    #[inline(always)]
    fn take(r: &mut Reader<'_>) -> Result<Self, Error> {
        Self::decode(r)
    }

    /// The error for a discriminant just read that matches no arm.
    #[cold]
    fn unknown(&self, r: &Reader<'_>, type_name: &'static str) -> Error {
        r.error_back(
            Self::WIDTH,
            ErrorKind::UnknownDiscriminant {
                value: self.to_i64(),
                type_name,
            },
        )
    }

    /// The error for a `default` arm holding another variant's discriminant.
    #[cold]
    fn taken(&self, w: &Writer<'_>, variant: &'static str) -> Error {
        w.error(ErrorKind::DiscriminantTaken {
            value: self.to_i64(),
            variant,
        })
    }

    /// The error for an arm with several labels holding a discriminant that is none of them.
    #[cold]
    fn not_a_label(&self, w: &Writer<'_>, variant: &'static str) -> Error {
        w.error(ErrorKind::NotALabel {
            value: self.to_i64(),
            variant,
        })
    }

    /// The error for a `no_member` arm, which XDR cannot encode: an XDR union without
    /// `default` has an arm for every discriminant it accepts.
    #[cold]
    fn no_member(&self, w: &Writer<'_>, type_name: &'static str) -> Error {
        w.error(ErrorKind::UnknownDiscriminant {
            value: self.to_i64(),
            type_name,
        })
    }
}

macro_rules! discriminant {
    ($($t:ty),*) => {$(
        impl Discriminant for $t {
            const LABEL_MIN: i128 = <$t>::MIN as i128;
            const LABEL_MAX: i128 = <$t>::MAX as i128;
            #[inline(always)]
            fn to_i64(&self) -> i64 {
                i64::from(*self)
            }
        }
    )*};
}
discriminant!(i32, u32, i16, u16, i8, u8);

impl Discriminant for bool {
    #[inline(always)]
    fn to_i64(&self) -> i64 {
        i64::from(*self)
    }
}

/// Whether an integer label fits the discriminant type `D` (asserted at compile time for
/// every integer `tag`).
pub const fn tag_fits<D: Discriminant>(tag: i128) -> bool {
    D::LABEL_MIN <= tag && tag <= D::LABEL_MAX
}

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

/// Appends a C-like enum's value.
#[inline(always)]
pub fn put_discriminant(w: &mut Writer<'_>, d: EnumValue) -> Result<(), Error> {
    w.put(d.to_be_bytes())
}

/// Reads a C-like enum's value.
#[inline(always)]
pub fn take_discriminant(r: &mut Reader<'_>) -> Result<EnumValue, Error> {
    Ok(EnumValue::from_be_bytes(r.array::<DISCRIMINANT_SIZE>()?))
}

/// The error for an enum value just read that matches no variant.
#[cold]
pub fn unknown_discriminant(r: &Reader<'_>, value: EnumValue, type_name: &'static str) -> Error {
    r.error_back(
        DISCRIMINANT_SIZE,
        ErrorKind::UnknownDiscriminant {
            value: i64::from(value),
            type_name,
        },
    )
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
        assert_eq!(<DefaultDiscriminant as Discriminant>::WIDTH, 4);
        assert_eq!(<bool as Discriminant>::CLASS, SizeClass::Fixed(4));
        assert_eq!(<u8 as Discriminant>::WIDTH, 4);
        assert_eq!(SizeClass::Fixed(FLAG_SIZE), <bool as Encode>::SIZE);
        assert!(max_len_fits(u32::MAX as usize));
        assert!(!max_len_fits(u32::MAX as usize + 1));
    }
}
