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

/// How many alignment phases a layout can have: CDR aligns to at most 8 bytes, so where a
/// value's padding falls depends on its start position modulo 8 (see [`Shape::Phased`]).
pub const ALIGN_PHASES: usize = 8;

/// The alignment phase of position `pos`: an index into [`Shape::phase_sizes`].
#[inline(always)]
pub const fn phase(pos: usize) -> usize {
    pos % ALIGN_PHASES
}

/// The end position of a value of `shape` starting at `pos`, when its layout is fixed for
/// each phase (`None` otherwise). A [`Shape::Fixed`] one is a padding and a constant, with no
/// table load (a sizing pass over many values chains one end into the next); a
/// [`Shape::Phased`] one reads its size for `pos`'s phase from the table.
#[inline(always)]
pub const fn layout_end(shape: Shape, pos: usize) -> Option<usize> {
    match shape {
        Shape::Fixed { align, size } if align <= ALIGN_PHASES => {
            Some(crate::align_up(pos, align) + size)
        }
        Shape::Phased { sizes } => Some(pos + sizes[phase(pos)]),
        _ => None,
    }
}

/// Whether a `max_len` bound fits a CDR length (an `unsigned long`); the derive asserts it
/// for every `max_len` field.
pub const fn max_len_fits(max: usize) -> bool {
    max as u64 <= u32::MAX as u64
}

/// The type a union switches on when its enum names none (`#[marshal(discriminant = T)]`):
/// a `long`.
pub type DefaultDiscriminant = i32;

/// The types a CDR union may switch on (`#[marshal(discriminant = T)]`): CORBA's integer
/// types, `char` (`i8`), `boolean`, and enums (a C-like enum that derives `Marshal`
/// implements it).
#[diagnostic::on_unimplemented(
    message = "a CDR union cannot switch on `{Self}`",
    label = "use i16, u16, i32, u32, u8, i8, bool or a C-like enum that derives Marshal"
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

    /// The wire size (for error offsets and `Decode::MIN`).
    const WIDTH: usize = <Self as Decode<'static>>::MIN;

    /// End position of a discriminant starting at `pos`.
    #[inline(always)]
    fn end(pos: usize) -> usize {
        pos + crate::pad(pos, Self::WIDTH) + Self::WIDTH
    }

    /// Appends the discriminant.
    #[inline(always)]
    fn put(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        self.encode(w, order)
    }

    /// Reads a discriminant.
    #[inline(always)]
    fn take(r: &mut Reader<'_>, order: ByteOrder) -> Result<Self, Error> {
        Self::decode(r, order)
    }

    /// The error for a discriminant just read that matches no arm (a union with neither
    /// `default` nor `no_member`).
    #[cold]
    fn unknown(&self, r: &Reader<'_>, type_name: &'static str) -> Error {
        unknown_discriminant(r, Self::WIDTH, self.to_i64(), type_name)
    }

    /// The error for a `default` or `no_member` arm holding another variant's discriminant.
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
discriminant!(i16, u16, i32, u32, u8, i8);

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

/// The type a C-like enum travels as: CORBA encodes an enum as its position (ordinal), an
/// `unsigned long`.
pub type Ordinal = u32;

/// The shape of a C-like enum: its ordinal's.
pub const ENUM_SHAPE: Shape = <Ordinal as Encode>::SHAPE;

/// The wire size of a C-like enum: its ordinal's.
pub const ENUM_MIN: usize = <Ordinal as Decode<'static>>::MIN;

/// Where a C-like enum starting at `pos` ends.
#[inline(always)]
pub fn enum_end(pos: usize, depth: u32) -> Result<usize, Error> {
    let any: Ordinal = 0;
    any.end(pos, depth)
}

/// Appends a C-like enum's ordinal.
#[inline(always)]
pub fn put_ordinal(w: &mut Writer<'_>, ordinal: Ordinal, order: ByteOrder) -> Result<(), Error> {
    ordinal.encode(w, order)
}

/// Reads a C-like enum's ordinal.
#[inline(always)]
pub fn take_ordinal(r: &mut Reader<'_>, order: ByteOrder) -> Result<Ordinal, Error> {
    Ordinal::decode(r, order)
}

/// The error for an ordinal just read that names no variant.
#[cold]
pub fn unknown_ordinal(r: &Reader<'_>, value: Ordinal, type_name: &'static str) -> Error {
    unknown_discriminant(
        r,
        core::mem::size_of::<Ordinal>(),
        i64::from(value),
        type_name,
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_indexes_phase_sizes() {
        let sizes = Shape::fixed(1, 1)
            .then(Shape::fixed(8, 8))
            .phase_sizes()
            .unwrap();
        assert_eq!(sizes.len(), ALIGN_PHASES);
        assert_eq!(phase(13), 5);
        // An octet then a double, from position 13: the double starts at 16.
        assert_eq!(13 + sizes[phase(13)], 24);
    }

    #[test]
    fn layout_ends_agree_with_the_phase_tables() {
        let shapes = [
            Shape::fixed(4, 136),
            Shape::fixed(8, 8),
            Shape::fixed(1, 3),
            Shape::fixed(2, 6),
            Shape::fixed(1, 1).then(Shape::fixed(8, 8)),
        ];
        for shape in shapes {
            let sizes = shape.phase_sizes().unwrap();
            for pos in 0..40 {
                assert_eq!(
                    layout_end(shape, pos),
                    Some(pos + sizes[phase(pos)]),
                    "{shape:?} at {pos}"
                );
            }
        }
        assert_eq!(layout_end(Shape::Shallow, 3), None);
        assert_eq!(layout_end(Shape::fixed(16, 16), 3), None);
    }

    #[test]
    fn discriminants_and_enums() {
        assert_eq!(<DefaultDiscriminant as Discriminant>::WIDTH, 4);
        assert_eq!(<u8 as Discriminant>::end(3), 4);
        assert_eq!(<i16 as Discriminant>::end(3), 6);
        assert_eq!(<bool as Discriminant>::WIDTH, 1);
        assert_eq!(ENUM_MIN, 4);
        assert_eq!(enum_end(1, 0).unwrap(), 8);
        assert!(!max_len_fits(u32::MAX as usize + 1));
    }
}
