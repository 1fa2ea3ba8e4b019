//! Layout-annotated records (USC): the traits `#[derive(Marshal)]` implements for a struct
//! with `#[marshal(layout(size = N, align = N))]`, and the few helpers its code calls.
//!
//! The generated code indexes a `&[u8; N]` at constant offsets through [`word`] and
//! [`word_mut`], so after the one length check that makes the array no access can fail and
//! none needs a bounds check.

use crate::error::{Error, ErrorKind};

/// A struct whose bytes follow an annotated layout: each field at a declared offset, width,
/// byte order and bit range. Implemented by `#[derive(Marshal)]` with
/// `#[marshal(layout(size = N, align = N))]`, which also adds the same methods as inherent
/// methods (so the trait need not be imported).
pub trait Layout: Sized {
    /// The layout's total bytes.
    const SIZE: usize;
    /// The alignment the user guarantees for buffers holding the record. On targets where
    /// unaligned access is slow, the generated code's words stay within it; elsewhere they
    /// are up to 8 bytes.
    const ALIGN: usize;
    /// A view over `&[u8]`: a getter per field.
    type View<'a>;
    /// A view over `&mut [u8]`: a getter and a setter per field.
    type ViewMut<'a>;

    /// Reads the record from the first [`SIZE`](Self::SIZE) bytes of `bytes`.
    fn read_from(bytes: &[u8]) -> Result<Self, Error>;
    /// Reads the record from the first [`SIZE`](Self::SIZE) bytes of `bytes` into `self`,
    /// changing nothing if `bytes` is too short. The generated code stores each field as
    /// soon as it is loaded, so converting into memory that already holds a record (a slot
    /// of an array, a reused struct) is faster than assigning what `read_from` returns.
    fn read_into(&mut self, bytes: &[u8]) -> Result<(), Error> {
        *self = Self::read_from(bytes)?;
        Ok(())
    }
    /// Writes the record into the first [`SIZE`](Self::SIZE) bytes of `bytes`, with zeros
    /// in bytes no field covers.
    fn write_to(&self, bytes: &mut [u8]) -> Result<(), Error>;
    /// A view of the record at the start of `bytes`.
    fn view(bytes: &[u8]) -> Result<Self::View<'_>, Error>;
    /// A mutable view of the record at the start of `bytes`.
    fn view_mut(bytes: &mut [u8]) -> Result<Self::ViewMut<'_>, Error>;

    /// `read_from` as compiled for targets where unaligned access is slow (an `in_place`
    /// record's swap in words within the guaranteed alignment; other records read the same
    /// way everywhere), so tests on any target can check it. Not a public API.
    #[doc(hidden)]
    fn __read_aligned(bytes: &[u8]) -> Result<Self, Error> {
        Self::read_from(bytes)
    }

    /// `write_to` as compiled for targets where unaligned access is slow. Not a public API.
    #[doc(hidden)]
    fn __write_aligned(&self, bytes: &mut [u8]) -> Result<(), Error> {
        self.write_to(bytes)
    }
}

/// Conversion in place, for a `#[repr(C)]` record whose own memory is its layout but for
/// byte order: `#[marshal(layout(size = N, align = N, in_place))]`.
pub trait InPlace: Layout + PlainBytes {
    /// Converts the layout at the start of `bytes` into the struct's memory, in place, and
    /// returns it as the struct. Fails, changing nothing, if `bytes` is too short or not
    /// aligned for `Self`.
    fn from_wire_in_place(bytes: &mut [u8]) -> Result<&mut Self, Error>;
    /// Converts the struct's memory into its layout, in place, returning those bytes.
    fn to_wire_in_place(&mut self) -> &mut [u8];
}

/// Types with no padding bytes for which every bit pattern is a valid value: plain integers,
/// floats and byte arrays, and `in_place` layout records made of them.
///
/// # Safety
/// An implementor must have no padding bytes (every byte of its memory is initialised once it
/// is a value), and every bit pattern of `size_of::<Self>()` bytes must be a valid `Self`.
pub unsafe trait PlainBytes {}

macro_rules! plain {
    ($($t:ty),*) => { $(
        // SAFETY: primitive integers and floats have no padding and are valid for any bits.
        unsafe impl PlainBytes for $t {}
    )* };
}
plain!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

// SAFETY: an array of `u8` has no padding and every byte value is a valid `u8`.
unsafe impl<const N: usize> PlainBytes for [u8; N] {}

/// The first `N` bytes of `bytes` as an array, or an error naming `record` and the lengths.
#[inline]
pub fn prefix<'a, const N: usize>(
    bytes: &'a [u8],
    record: &'static str,
) -> Result<&'a [u8; N], Error> {
    match bytes.first_chunk::<N>() {
        Some(b) => Ok(b),
        None => Err(too_short(N, bytes.len(), record)),
    }
}

/// The first `N` bytes of `bytes` as a mutable array, or an error naming `record`.
#[inline]
pub fn prefix_mut<'a, const N: usize>(
    bytes: &'a mut [u8],
    record: &'static str,
) -> Result<&'a mut [u8; N], Error> {
    let len = bytes.len();
    match bytes.first_chunk_mut::<N>() {
        Some(b) => Ok(b),
        None => Err(too_short(N, len, record)),
    }
}

#[cold]
fn too_short(needed: usize, remaining: usize, record: &'static str) -> Error {
    Error::new(ErrorKind::UnexpectedEnd { needed, remaining }, 0).in_field(record)
}

/// Bytes `AT..AT + W` of a record of `N` bytes; `AT + W <= N` is checked at compile time.
#[inline(always)]
pub fn word<const AT: usize, const W: usize, const N: usize>(b: &[u8; N]) -> &[u8; W] {
    const { assert!(AT + W <= N) };
    // SAFETY: `AT <= AT + W <= N` (asserted at compile time above): the offset stays inside
    // the array `b` points to.
    let p = unsafe { b.as_ptr().add(AT) };
    // SAFETY: the `W` bytes from `p` lie inside `b` (`AT + W <= N`) and are initialised;
    // `[u8; W]` has alignment 1; the result borrows `b` for its lifetime.
    unsafe { &*p.cast::<[u8; W]>() }
}

/// Bytes `AT..AT + W` of a record of `N` bytes, to write; `AT + W <= N` is checked at compile
/// time.
#[inline(always)]
pub fn word_mut<const AT: usize, const W: usize, const N: usize>(b: &mut [u8; N]) -> &mut [u8; W] {
    const { assert!(AT + W <= N) };
    // SAFETY: `AT <= AT + W <= N` (asserted at compile time above): the offset stays inside
    // the array `b` points to.
    let p = unsafe { b.as_mut_ptr().add(AT) };
    // SAFETY: the `W` bytes from `p` lie inside `b` and are initialised; `[u8; W]` has
    // alignment 1; the result borrows `b` mutably for its lifetime, so it is the only access
    // to those bytes.
    unsafe { &mut *p.cast::<[u8; W]>() }
}

/// Refuses a buffer not aligned for `T`.
#[inline]
pub fn check_aligned<T>(b: &[u8], record: &'static str) -> Result<(), Error> {
    if b.as_ptr().cast::<T>().is_aligned() {
        Ok(())
    } else {
        Err(misaligned(
            b.as_ptr() as usize,
            core::mem::align_of::<T>(),
            record,
        ))
    }
}

#[cold]
fn misaligned(addr: usize, align: usize, record: &'static str) -> Error {
    Error::without_offset(ErrorKind::Custom(format!(
        "buffer at address {addr:#x} is not aligned to {align} bytes, as converting in place needs"
    )))
    .in_field(record)
}

/// The bytes `b` as a `T`, or an error naming `record` if `b` is not aligned for `T`.
///
/// `N` must be `size_of::<T>()` (checked at compile time).
#[inline]
pub fn cast_mut<'a, T: PlainBytes, const N: usize>(
    b: &'a mut [u8; N],
    record: &'static str,
) -> Result<&'a mut T, Error> {
    const { assert!(core::mem::size_of::<T>() == N) };
    check_aligned::<T>(b, record)?;
    // SAFETY: `b` is `size_of::<T>()` bytes (asserted at compile time), aligned for `T`
    // (checked just above), initialised, and borrowed mutably for the result's lifetime;
    // every bit pattern of those bytes is a valid `T` (`T: PlainBytes`).
    Ok(unsafe { &mut *b.as_mut_ptr().cast::<T>() })
}

/// The memory of `value` as bytes. `N` must be `size_of::<T>()` (checked at compile time).
#[inline]
pub fn bytes_of_mut<T: PlainBytes, const N: usize>(value: &mut T) -> &mut [u8; N] {
    const { assert!(core::mem::size_of::<T>() == N) };
    // SAFETY: `T` has no padding (`T: PlainBytes`), so its `N == size_of::<T>()` bytes are
    // all initialised; `[u8; N]` has alignment 1; any bytes written through the result leave a
    // valid `T` (every bit pattern is one); the borrow of `value` lasts as long as the result.
    unsafe { &mut *(value as *mut T).cast::<[u8; N]>() }
}

/// The value whose memory is `b`. `N` must be `size_of::<T>()` (checked at compile time).
#[inline(always)]
pub fn from_plain_bytes<T: PlainBytes, const N: usize>(b: [u8; N]) -> T {
    const { assert!(core::mem::size_of::<T>() == N) };
    // SAFETY: `b` is `size_of::<T>()` initialised bytes (asserted at compile time), every bit
    // pattern of which is a valid `T` (`T: PlainBytes`); `read_unaligned` needs no alignment.
    unsafe { core::ptr::read_unaligned(b.as_ptr().cast::<T>()) }
}

/// The memory of `value`. `N` must be `size_of::<T>()` (checked at compile time).
#[inline(always)]
pub fn to_plain_bytes<T: PlainBytes, const N: usize>(value: &T) -> [u8; N] {
    const { assert!(core::mem::size_of::<T>() == N) };
    // SAFETY: `T` has no padding (`T: PlainBytes`), so its `N == size_of::<T>()` bytes are all
    // initialised and readable as `[u8; N]`, which has alignment 1 (`read_unaligned` needs
    // none anyway).
    unsafe { core::ptr::read_unaligned((value as *const T).cast::<[u8; N]>()) }
}

/// A bit-field value wider than its bits: refused by `write_to`.
#[cold]
pub fn too_wide(value: u64, target: &'static str, offset: usize) -> Error {
    Error::new(
        ErrorKind::DoesNotFit {
            value: value.to_string(),
            target,
        },
        offset,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_bytes_at_their_offsets() {
        let mut b = [0u8, 1, 2, 3, 4, 5, 6, 7];
        assert_eq!(word::<2, 4, 8>(&b), &[2, 3, 4, 5]);
        assert_eq!(word::<0, 8, 8>(&b), &[0, 1, 2, 3, 4, 5, 6, 7]);
        *word_mut::<6, 2, 8>(&mut b) = [9, 9];
        assert_eq!(b, [0, 1, 2, 3, 4, 5, 9, 9]);
    }

    #[test]
    fn prefix_checks_the_length() {
        let b = [1u8; 5];
        assert_eq!(prefix::<4>(&b, "R").unwrap(), &[1; 4]);
        let e = prefix::<8>(&b, "R").unwrap_err();
        assert_eq!(
            e.to_string(),
            "R: unexpected end of input: needed 8 bytes, 5 remain at offset 0"
        );
        let mut m = [0u8; 3];
        assert!(prefix_mut::<4>(&mut m, "R").is_err());
        assert!(prefix_mut::<3>(&mut m, "R").is_ok());
    }

    #[test]
    fn cast_and_bytes_of_round_trip() {
        #[repr(align(4))]
        struct Aligned([u8; 8]);
        let mut a = Aligned([0; 8]);
        check_aligned::<u32>(&a.0, "R").unwrap();
        let w: &mut [u8; 4] = word_mut::<0, 4, 8>(&mut a.0);
        let v: &mut u32 = cast_mut::<u32, 4>(w, "R").unwrap();
        *v = 0x0102_0304;
        let mut x = 7u32;
        assert_eq!(bytes_of_mut::<u32, 4>(&mut x), &7u32.to_ne_bytes());
        assert_eq!(a.0[..4], 0x0102_0304u32.to_ne_bytes());
        assert_eq!(from_plain_bytes::<u32, 4>(7u32.to_ne_bytes()), 7);
        assert_eq!(to_plain_bytes::<u16, 2>(&0x0102), 0x0102u16.to_ne_bytes());
        let e = check_aligned::<u32>(&a.0[1..], "R").unwrap_err();
        let odd: &mut [u8; 4] = word_mut::<1, 4, 8>(&mut a.0);
        assert!(cast_mut::<u32, 4>(odd, "R").is_err());
        assert!(e.to_string().contains("not aligned to 4 bytes"), "{e}");
    }
}
