//! Items generated code uses (through `marshal::__private::iiop`). Not a public API.

pub use marshal_core::flat::{flat_struct, width_of, FieldLayout};
pub use marshal_core::{descend, ArmDiscriminant, Error, ErrorKind, Flat, Reader, VarLen, Writer};

pub use marshal_core::list::in_node;
pub use marshal_core::place::FieldGuard;

pub use crate::traits::{
    decode_by_place, decode_flat_into, decode_phased, encode_phased, phased_chunk, phased_segment,
};
pub use crate::{ByteOrder, Decode, Encode, Shape};

/// Encodes a `max_len` field: longer data is an error.
#[inline]
pub fn encode_max<T: VarLen + Encode + ?Sized>(
    v: &T,
    max: usize,
    w: &mut Writer<'_>,
    order: ByteOrder,
) -> Result<(), Error> {
    let len = v.var_len();
    if len > max {
        return Err(w.error(ErrorKind::LengthTooLarge {
            len: len as u64,
            max: max as u64,
        }));
    }
    v.encode(w, order)
}

/// Decodes a `max_len` field: a longer length is an error raised before anything is read or
/// allocated. A string's bound (`string<N>`) counts characters, not the NUL its wire length
/// includes: [`VarLen::TEXT`] says which lengths count one.
#[inline]
pub fn decode_max<'de, T: Decode<'de> + VarLen>(
    r: &mut Reader<'de>,
    max: usize,
    order: ByteOrder,
) -> Result<T, Error> {
    marshal_core::place::by_place(r, move |r, out| {
        T::decode_max_into(r, out, max, T::TEXT, order)
    })
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
    order: ByteOrder,
) -> Result<FieldGuard<'a, T>, Error> {
    // SAFETY: the caller upholds `place::field`'s contract (this function's own).
    unsafe { marshal_core::place::field(r, place, move |r, out| T::decode_into(r, out, order)) }
}

/// Decodes `max_len` field `T` in place at `place` (see [`decode_field`] and [`decode_max`]).
///
/// # Safety
/// As for [`marshal_core::place::field`].
#[inline(always)]
pub unsafe fn decode_field_max<'a, 'de, T: Decode<'de> + VarLen>(
    r: &mut Reader<'de>,
    place: *mut T,
    max: usize,
    order: ByteOrder,
) -> Result<FieldGuard<'a, T>, Error> {
    // SAFETY: the caller upholds `place::field`'s contract (this function's own).
    unsafe {
        marshal_core::place::field(r, place, move |r, out| {
            T::decode_max_into(r, out, max, T::TEXT, order)
        })
    }
}

/// The integer types a union may switch on (`#[marshal(discriminant = T)]`), and `bool`.
#[diagnostic::on_unimplemented(
    message = "a CDR union cannot switch on `{Self}`",
    label = "use i16, u16, i32, u32, u8 or bool"
)]
pub trait Discriminant: Encode + for<'de> Decode<'de> + Copy {
    /// Smallest value.
    const MIN: i64;
    /// Largest value.
    const MAX: i64;
    /// The value as an `i64`.
    fn to_i64(self) -> i64;
    /// The discriminant for `v`, which the caller checked is within `MIN..=MAX`.
    fn from_i64(v: i64) -> Self;
}

macro_rules! discriminant {
    ($($t:ty),*) => {$(
        impl Discriminant for $t {
            const MIN: i64 = <$t>::MIN as i64;
            const MAX: i64 = <$t>::MAX as i64;
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
    )*};
}
discriminant!(i16, u16, i32, u32, u8);

impl Discriminant for bool {
    const MIN: i64 = 0;
    const MAX: i64 = 1;
    #[inline(always)]
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    #[inline(always)]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

/// Whether a variant's tag fits the union's discriminant type (checked at compile time).
pub const fn tag_fits<D: Discriminant>(tag: i64) -> bool {
    <D as Discriminant>::MIN <= tag && tag <= <D as Discriminant>::MAX
}

/// Appends a union discriminant given as an `i64` known to fit `D`.
#[inline(always)]
pub fn put_discriminant<D: Discriminant>(
    w: &mut Writer<'_>,
    d: i64,
    order: ByteOrder,
) -> Result<(), Error> {
    D::from_i64(d).encode(w, order)
}

/// Appends the discriminant a `default` arm holds, failing if `D` cannot represent it.
#[inline]
pub fn put_default_discriminant<D: Discriminant>(
    w: &mut Writer<'_>,
    d: i32,
    order: ByteOrder,
) -> Result<(), Error> {
    let v = i64::from(d);
    if !tag_fits::<D>(v) {
        return Err(w.error(ErrorKind::OutOfRange {
            value: v,
            type_name: core::any::type_name::<D>(),
        }));
    }
    put_discriminant::<D>(w, v, order)
}

/// Reads a union discriminant as an `i64`.
#[inline(always)]
pub fn take_discriminant<D: Discriminant>(
    r: &mut Reader<'_>,
    order: ByteOrder,
) -> Result<i64, Error> {
    Ok(D::decode(r, order)?.to_i64())
}

/// The `i32` a `default` arm keeps for a discriminant just read.
#[inline]
pub fn default_discriminant(r: &Reader<'_>, d: i64) -> Result<i32, Error> {
    i32::try_from(d).map_err(|_| {
        r.error(ErrorKind::OutOfRange {
            value: d,
            type_name: "i32",
        })
    })
}

/// Appends a C-like enum's ordinal (CORBA encodes an enum as its position, an `unsigned long`).
#[inline(always)]
pub fn put_ordinal(w: &mut Writer<'_>, ordinal: u32, order: ByteOrder) -> Result<(), Error> {
    ordinal.encode(w, order)
}

/// Reads a C-like enum's ordinal.
#[inline(always)]
pub fn take_ordinal(r: &mut Reader<'_>, order: ByteOrder) -> Result<u32, Error> {
    u32::decode(r, order)
}

/// The error for a discriminant or ordinal just read (`width` bytes) that matches no variant.
#[cold]
pub fn unknown_discriminant(
    r: &Reader<'_>,
    width: usize,
    value: i64,
    type_name: &'static str,
) -> Error {
    r.error_back(width, ErrorKind::UnknownDiscriminant { value, type_name })
}

/// The wire size of discriminant type `D` (for error offsets).
pub const fn disc_width<D: Discriminant>() -> usize {
    core::mem::size_of::<D>()
}

/// The error for a `default` arm holding another variant's discriminant.
#[cold]
pub fn discriminant_taken(w: &Writer<'_>, value: i32, variant: &'static str) -> Error {
    w.error(ErrorKind::DiscriminantTaken {
        value: i64::from(value),
        variant,
    })
}

/// End position of discriminant type `D` starting at `pos`.
#[inline(always)]
pub const fn disc_end<D: Discriminant>(pos: usize) -> usize {
    let w = core::mem::size_of::<D>();
    pos + crate::pad(pos, w) + w
}

/// Where the link of an optional-data list node ends, from `pos`: `Option<T>` is
/// `sequence<T, 1>`, so the link is its length, an aligned `unsigned long`.
#[inline(always)]
pub fn flag_end(pos: usize, depth: u32) -> Result<usize, Error> {
    0u32.end(pos, depth)
}

/// Appends the link of an optional-data list node: the length (0 or 1) of its
/// `sequence<T, 1>`.
#[inline(always)]
pub fn put_flag(w: &mut Writer<'_>, present: bool, order: ByteOrder) -> Result<(), Error> {
    crate::string::put_len(w, usize::from(present), order)
}

/// Reads the link of an optional-data list node: whether another node follows. A length
/// above 1 is an error, as for any `Option`.
#[inline(always)]
pub fn take_flag(r: &mut Reader<'_>, order: ByteOrder) -> Result<bool, Error> {
    match crate::string::take_len(r, order)? {
        0 => Ok(false),
        1 => Ok(true),
        n => Err(r.error_back(
            4,
            ErrorKind::LengthTooLarge {
                len: n as u64,
                max: 1,
            },
        )),
    }
}
