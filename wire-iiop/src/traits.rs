//! The two traits the derive implements.

use core::mem::MaybeUninit;

use marshal_core::{place, wide, Error, ErrorKind, Flat, Reader, Writer};

use crate::{pad, ByteOrder, Shape};

/// Types with a CDR encoding.
///
/// Implemented by `#[derive(Marshal)]` (feature `iiop` of `marshal`); usable as a bound:
/// ```
/// use wire_iiop::{ByteOrder, Encode};
/// fn bytes_of<T: Encode>(v: &T) -> Vec<u8> {
///     wire_iiop::to_vec(v, ByteOrder::Little).expect("encodable")
/// }
/// assert_eq!(bytes_of(&7u16), [7, 0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no CDR encoding",
    label = "this type cannot be marshalled as CDR",
    note = "derive `Marshal` for it, or use a supported type (integers, floats, bool, String, Vec, arrays, Box, Bytes, tuples)"
)]
pub trait Encode {
    /// Proof that the type is flat words whose memory image is its CDR encoding in the host's
    /// byte order whenever it starts aligned to the word width: arrays of it are one copy or
    /// one byte-swap pass.
    #[doc(hidden)]
    const FLAT: Option<Flat<Self>> = None;

    /// What is known of the encoding at compile time (see [`Decode::SHAPE`]): a value of
    /// `Fixed` or `Phased` shape is written into one segment, with one capacity check. A
    /// hand-written implementation keeps the default (`Deep`) unless its encoding truly has the
    /// shape it claims: a wrong claim makes encoding fail (never write stale bytes).
    #[doc(hidden)]
    const SHAPE: Shape = Shape::Deep;

    /// Appends the encoding of a value of `Fixed` or `Phased` shape that starts at a position
    /// congruent to `K` modulo 8, into one segment laid out for that phase (see
    /// [`encode_phased`]). The derive implements it; other types never see it called.
    #[doc(hidden)]
    #[inline]
    fn encode_phase<const K: usize>(
        &self,
        w: &mut Writer<'_>,
        order: ByteOrder,
    ) -> Result<(), Error> {
        self.encode(w, order)
    }

    /// The position (relative to the stream's origin) just after this value when its encoding
    /// starts at `pos`: alignment makes the size depend on where the value starts. `depth` is
    /// the nesting still allowed; recursive types fail with `DepthLimit` at zero.
    fn end(&self, pos: usize, depth: u32) -> Result<usize, Error>;

    /// Appends the encoding (the writer's position is relative to the origin).
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error>;

    /// End position of the elements of a sequence or array (without its length).
    #[doc(hidden)]
    #[inline]
    fn elems_end(items: &[Self], pos: usize, depth: u32) -> Result<usize, Error>
    where
        Self: Sized,
    {
        if let Some(proof) = Self::FLAT {
            if items.is_empty() {
                return Ok(pos);
            }
            return Ok(pos + pad(pos, proof.width()) + core::mem::size_of_val(items));
        }
        items.iter().enumerate().try_fold(pos, |p, (i, it)| {
            it.end(p, depth).map_err(|e| e.at_index(i))
        })
    }

    /// Appends the elements of a sequence or array (without its length).
    #[doc(hidden)]
    #[inline]
    fn encode_elems(items: &[Self], w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error>
    where
        Self: Sized,
    {
        if let Some(proof) = Self::FLAT {
            if items.is_empty() {
                return Ok(());
            }
            w.put_zeros(pad(w.position(), proof.width()))?;
            return w.put_flat(items, proof, swaps(order, proof));
        }
        // The loop is compiled for the CPU's vector width, so the short copies and swaps
        // of each element inline into it.
        wide::encode_each(items, w, move |it, w| it.encode(w, order))
    }
}

/// Types that can be decoded from CDR, possibly borrowing from the input (`'de`).
///
/// ```
/// use wire_iiop::{ByteOrder, from_slice};
/// // string: length 4 including the NUL, "abc", NUL.
/// let s: &str = from_slice(b"\0\0\0\x04abc\0", ByteOrder::Big).unwrap();
/// assert_eq!(s, "abc");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no CDR decoding",
    label = "this type cannot be unmarshalled from CDR",
    note = "derive `Marshal` for it, or use a supported type (integers, floats, bool, String, Vec, arrays, Box, Bytes, tuples)"
)]
pub trait Decode<'de>: Sized {
    /// See [`Encode::FLAT`].
    #[doc(hidden)]
    const FLAT: Option<Flat<Self>> = None;

    /// The fewest bytes an encoding of this type takes (alignment aside): bounds how many
    /// elements a sequence length may claim before anything is allocated.
    #[doc(hidden)]
    const MIN: usize = 0;

    /// What is known of the encoding at compile time: a fixed segment is read with one length
    /// check, and only a type that may contain itself takes a depth level. A hand-written
    /// implementation keeps the default (`Deep`) unless its encoding truly has the shape it
    /// claims: a wrong `Fixed` decodes the wrong bytes (never unsoundly), a wrong `Shallow`
    /// lets recursion through it escape the depth limit.
    #[doc(hidden)]
    const SHAPE: Shape = Shape::Deep;

    /// Reads one value (the reader's position is relative to the origin).
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error>;

    /// Reads one value straight into `out` (the derive builds structs field by field in their
    /// final place, so no value is moved). Returns `out` itself, initialised: callers that
    /// rely on that check the returned address (see [`place::fill`]), which a safe
    /// implementation can only produce by initialising `out`.
    #[doc(hidden)]
    #[inline]
    fn decode_into<'a>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
        order: ByteOrder,
    ) -> Result<&'a mut Self, Error> {
        Ok(out.write(Self::decode(r, order)?))
    }

    /// Reads a value of `Fixed` or `Phased` [`Shape`] that starts at a position congruent to
    /// `K` modulo 8 into `out` (see [`Decode::decode_into`]): the derive implements it with
    /// that phase's constant layout, and `decode_into` selects the phase at run time
    /// ([`decode_phased`]). Other types never see it called.
    #[doc(hidden)]
    #[inline]
    fn decode_phase<'a, const K: usize>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
        order: ByteOrder,
    ) -> Result<&'a mut Self, Error> {
        Self::decode_into(r, out, order)
    }

    /// Reads a `max_len` value into `out` (see [`Decode::decode_into`]): a length above `max`
    /// (not counting a string's NUL, when `nul`) is an error raised before anything is read
    /// or allocated. Strings override this to read their length once.
    #[doc(hidden)]
    #[inline]
    fn decode_max_into<'a>(
        r: &mut Reader<'de>,
        out: &'a mut MaybeUninit<Self>,
        max: usize,
        nul: bool,
        order: ByteOrder,
    ) -> Result<&'a mut Self, Error> {
        check_len(r, max, nul, order)?;
        Self::decode_into(r, out, order)
    }

    /// Reads `n` sequence elements (after their length). Never allocates more than the
    /// remaining input can fill.
    #[doc(hidden)]
    #[inline]
    fn decode_vec(r: &mut Reader<'de>, n: usize, order: ByteOrder) -> Result<Vec<Self>, Error> {
        if let Some(proof) = Self::FLAT {
            if n == 0 {
                return Ok(Vec::new());
            }
            skip_pad(r, proof.width())?;
            return r.flat_vec(n, proof, swaps(order, proof));
        }
        let n = r.check_count(n, Self::MIN, core::mem::size_of::<Self>())?;
        // Each element is decoded in the vector's spare capacity: no moves.
        place::fill_vec(r, n, move |r, out| Self::decode_into(r, out, order))
    }

    /// Reads a fixed-length array.
    #[doc(hidden)]
    #[inline]
    fn decode_array<const N: usize>(
        r: &mut Reader<'de>,
        order: ByteOrder,
    ) -> Result<[Self; N], Error> {
        if let Some(proof) = Self::FLAT {
            if N > 0 {
                skip_pad(r, proof.width())?;
            }
            return r.flat_array(proof, swaps(order, proof));
        }
        marshal_core::array::try_from_fn(|i| Self::decode(r, order).map_err(|e| e.at_index(i)))
    }
}

/// Checks the length of a `max_len` value against `max` without consuming it: skips the
/// padding before the length (which the value's decoder would skip) and reads it in place.
/// `nul`: the wire length counts a string's terminating NUL, which `max` does not.
#[inline]
pub(crate) fn check_len(
    r: &mut Reader<'_>,
    max: usize,
    nul: bool,
    order: ByteOrder,
) -> Result<(), Error> {
    skip_pad(r, 4)?;
    let b = r.peek_array::<4>()?;
    let wire = match order {
        ByteOrder::Big => u32::from_be_bytes(b),
        ByteOrder::Little => u32::from_le_bytes(b),
    } as usize;
    let len = if nul { wire.saturating_sub(1) } else { wire };
    if len > max {
        return Err(too_long(r.position(), len, max));
    }
    Ok(())
}

/// The error for a `max_len` value whose length (at `at`) is `len`.
#[cold]
pub(crate) fn too_long(at: usize, len: usize, max: usize) -> Error {
    Error::new(
        ErrorKind::LengthTooLarge {
            len: len as u64,
            max: max as u64,
        },
        at,
    )
}

/// Reads one flat value (after the padding to its word width, unless it has no bytes)
/// straight into `out`: one copy, or one byte-swap pass in the other byte order.
#[inline(always)]
pub fn decode_flat_into<'a, T>(
    r: &mut Reader<'_>,
    out: &'a mut MaybeUninit<T>,
    proof: Flat<T>,
    order: ByteOrder,
) -> Result<&'a mut T, Error> {
    if core::mem::size_of::<T>() > 0 {
        skip_pad(r, proof.width())?;
    }
    r.flat_into(out, proof, swaps(order, proof))
}

/// `v.encode_phase` for the phase of the writer's position (its offset modulo 8): the run-time
/// selection among the eight layouts of a `Phased` type. A `Fixed` type has one layout after
/// its leading padding (its alignments inside divide its first byte's), so it is always phase
/// 0: one copy of its code, not eight.
#[inline(always)]
pub fn encode_phased<T: Encode + ?Sized>(
    v: &T,
    w: &mut Writer<'_>,
    order: ByteOrder,
) -> Result<(), Error> {
    if let Shape::Fixed { .. } = T::SHAPE {
        return v.encode_phase::<0>(w, order);
    }
    match w.position() % 8 {
        0 => v.encode_phase::<0>(w, order),
        1 => v.encode_phase::<1>(w, order),
        2 => v.encode_phase::<2>(w, order),
        3 => v.encode_phase::<3>(w, order),
        4 => v.encode_phase::<4>(w, order),
        5 => v.encode_phase::<5>(w, order),
        6 => v.encode_phase::<6>(w, order),
        _ => v.encode_phase::<7>(w, order),
    }
}

/// Runs `f` on the segment of a value of `shape` at phase `K` (see [`encode_phased`]): one
/// capacity check, then a writer whose positions count from `K` (a `Phased` value, whose
/// padding is inside) or from 0 after the padding (a `Fixed` one), so that alignment inside
/// folds to constants.
#[inline(always)]
pub fn phased_chunk<const K: usize>(
    w: &mut Writer<'_>,
    shape: Shape,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    match shape {
        Shape::Fixed { align, size } => {
            w.put_zeros(pad(w.position(), align))?;
            w.rebased_chunk(size, 0, f)
        }
        Shape::Phased { sizes } => w.rebased_chunk(sizes[K % 8], K % 8, f),
        // Not reached: only fixed shapes select a phase.
        Shape::Shallow | Shape::Deep => f(w),
    }
}

/// `T::decode_phase` for the phase of the reader's position: the decoding twin of
/// [`encode_phased`] (a `Fixed` type is always phase 0).
#[inline(always)]
pub fn decode_phased<'a, 'de, T: Decode<'de>>(
    r: &mut Reader<'de>,
    out: &'a mut MaybeUninit<T>,
    order: ByteOrder,
) -> Result<&'a mut T, Error> {
    if let Shape::Fixed { .. } = T::SHAPE {
        return T::decode_phase::<0>(r, out, order);
    }
    match r.position() % 8 {
        0 => T::decode_phase::<0>(r, out, order),
        1 => T::decode_phase::<1>(r, out, order),
        2 => T::decode_phase::<2>(r, out, order),
        3 => T::decode_phase::<3>(r, out, order),
        4 => T::decode_phase::<4>(r, out, order),
        5 => T::decode_phase::<5>(r, out, order),
        6 => T::decode_phase::<6>(r, out, order),
        _ => T::decode_phase::<7>(r, out, order),
    }
}

/// The segment of a value of `shape` at phase `K` (see [`phased_chunk`]): one length check for
/// it and, for a `Fixed` value, its leading padding; then a reader whose positions count from
/// `K`, or from 0 after the padding (`Reader::detached_segment`), and the shift that makes its
/// errors' offsets the message's.
#[inline(always)]
pub fn phased_segment<'de, const K: usize>(
    r: &mut Reader<'de>,
    shape: Shape,
) -> Result<(Reader<'de>, usize), Error> {
    match shape {
        Shape::Fixed { align, size } => r.detached_segment(pad(r.position(), align), size),
        Shape::Phased { sizes } => r.rebased_segment(sizes[K % 8], K % 8),
        // Not reached: only fixed shapes select a phase. Reading nothing makes a wrong claim
        // fail on its first field rather than read the wrong bytes.
        Shape::Shallow | Shape::Deep => r.rebased_segment(0, 0),
    }
}

/// Skips the padding that aligns the reader to `align`. Decoders accept any padding bytes:
/// omniORB, for one, does not clear them.
#[inline(always)]
pub(crate) fn skip_pad(r: &mut Reader<'_>, align: usize) -> Result<(), Error> {
    let n = pad(r.position(), align);
    r.take(n).map(|_| ())
}

/// Whether flat words in `order` are byte-swapped on the way in or out (octets never are).
#[inline(always)]
pub(crate) fn swaps<T>(order: ByteOrder, proof: Flat<T>) -> bool {
    order.swaps() && proof.width() > 1
}

/// [`Decode::decode`] through [`Decode::decode_into`]: what derived structs use, so there is
/// one body for both.
#[inline(always)]
pub fn decode_by_place<'de, T: Decode<'de>>(
    r: &mut Reader<'de>,
    order: ByteOrder,
) -> Result<T, Error> {
    place::by_place(r, move |r, out| T::decode_into(r, out, order))
}
