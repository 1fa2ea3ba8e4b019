//! `Flat<T>`: a proof, unforgeable without `unsafe`, that `T` is plain words in memory.
//!
//! Bulk paths (one copy or one byte-swap pass for a whole array, Flick's "memcpy of atomic
//! arrays") reinterpret `&[T]` as bytes and fill a `Vec<T>` from bytes. That is sound only for
//! types with no padding and no invalid bit patterns. A wire format's traits carry an
//! `Option<Flat<Self>>` constant; only code that has proved the layout (the derive, from
//! `size_of` and `offset_of!` checked at compile time) can construct one.

use core::marker::PhantomData;
use core::mem::{size_of, MaybeUninit};

/// Proof that `T` is a sequence of `width`-byte native-endian words: every byte of every value
/// is initialised (no padding), and every bit pattern of `size_of::<T>()` bytes is a valid `T`.
pub struct Flat<T: ?Sized> {
    width: u8,
    _t: PhantomData<fn(*const T)>,
}

impl<T: ?Sized> Clone for Flat<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Flat<T> {}

impl<T: ?Sized> core::fmt::Debug for Flat<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Flat(width = {})", self.width)
    }
}

impl<T: ?Sized> Flat<T> {
    /// Asserts the proof.
    ///
    /// # Safety
    /// `T` must be `Sized` with `size_of::<T>()` a multiple of `width` (1, 2, 4 or 8); no byte of
    /// any `T` value may be padding (uninitialised); every bit pattern must be a valid `T`
    /// (integers, floats, and arrays or padding-free structs of them qualify; `bool`, `char`,
    /// enums, references and pointers do not).
    pub const unsafe fn new_unchecked(width: u8) -> Self {
        Flat {
            width,
            _t: PhantomData,
        }
    }

    /// The word width in bytes.
    pub const fn width(self) -> usize {
        self.width as usize
    }

    /// The proof for a type that is another flat type's exact memory image (an array of `T`,
    /// a struct whose one field is `T`).
    ///
    /// # Safety
    /// `U` must have the same size as a whole number of `T`s, with the same bytes meaning the
    /// same words, and be valid for every bit pattern.
    pub const unsafe fn cast<U>(self) -> Flat<U> {
        Flat {
            width: self.width,
            _t: PhantomData,
        }
    }
}

/// The bytes of a slice of flat values.
pub fn bytes_of<T>(items: &[T], _proof: Flat<T>) -> &[u8] {
    // SAFETY: `Flat<T>` proves every byte of a `T` is initialised, so the `size_of_val(items)`
    // bytes starting at `items.as_ptr()` are initialised `u8`s; `u8` has alignment 1; the
    // returned slice borrows `items`, so it cannot outlive or alias a mutable borrow of them.
    unsafe {
        core::slice::from_raw_parts(items.as_ptr().cast::<u8>(), core::mem::size_of_val(items))
    }
}

/// The bytes of uninitialised storage for flat values, to be filled byte-wise.
pub fn uninit_bytes_of<T>(items: &mut [MaybeUninit<T>], _proof: Flat<T>) -> &mut [MaybeUninit<u8>] {
    // SAFETY: the region is `size_of::<T>() * items.len()` bytes of `items`, exclusively
    // borrowed for the returned lifetime; `MaybeUninit<u8>` has alignment 1 and accepts any
    // (even uninitialised) content, so viewing it byte-wise is valid. Writing arbitrary bytes
    // into it is sound because `Flat<T>` proves every bit pattern is a valid `T`.
    unsafe {
        core::slice::from_raw_parts_mut(
            items.as_mut_ptr().cast::<MaybeUninit<u8>>(),
            size_of::<T>() * items.len(),
        )
    }
}

/// The proof for the primitive number types.
macro_rules! primitive_flat {
    ($($t:ty),*) => {$(
        impl Flat<$t> {
            /// The proof for this primitive.
            pub const PRIMITIVE: Flat<$t> = {
                // SAFETY: a primitive integer or float of size n has no padding and every bit
                // pattern is valid; its width is its size.
                unsafe { Flat::new_unchecked(size_of::<$t>() as u8) }
            };
        }
    )*};
}
primitive_flat!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// One field's layout facts, for [`flat_struct`].
#[derive(Debug, Clone, Copy)]
pub struct FieldLayout {
    /// Word width of the field's type if it is flat (`Flat::width`), else 0.
    pub width: usize,
    /// `size_of` of the field's type.
    pub size: usize,
    /// `offset_of!` the field in the struct.
    pub offset: usize,
}

/// The width of a flat type, or 0.
pub const fn width_of<T: ?Sized>(flat: Option<Flat<T>>) -> usize {
    match flat {
        Some(f) => f.width(),
        None => 0,
    }
}

/// Decides whether a struct is flat: every field flat with one common width, laid out in
/// declaration order with no gaps, and nothing after the last field.
///
/// # Safety
/// `fields` must list every field of `T` in declaration order with its type's true
/// `Flat` width, `size_of` and `offset_of!`; `size` must be `size_of::<T>()`; `T` must be a
/// struct (not an enum or union).
pub const unsafe fn flat_struct<T>(size: usize, fields: &[FieldLayout]) -> Option<Flat<T>> {
    if fields.is_empty() {
        return None;
    }
    let width = fields[0].width;
    let mut at = 0;
    let mut i = 0;
    while i < fields.len() {
        let f = fields[i];
        if f.width == 0 || f.width != width || f.offset != at {
            return None;
        }
        at += f.size;
        i += 1;
    }
    if at != size {
        return None;
    }
    // SAFETY: each field is flat words of `width` bytes (valid for any bits, no padding), the
    // fields tile `[0, size)` without gaps (offsets are running sums of sizes, ending at
    // `size_of::<T>()`), so `T` has no padding, is valid for any bits, and its size is a
    // multiple of `width`; the caller guarantees the facts are true and complete.
    Some(unsafe { Flat::new_unchecked(width as u8) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views() {
        let v = [1u32, 2];
        let b = bytes_of(&v, Flat::<u32>::PRIMITIVE);
        assert_eq!(b.len(), 8);
        assert_eq!(&b[..4], &1u32.to_ne_bytes());
        let mut dst = [MaybeUninit::<u16>::uninit(); 2];
        let bytes = uninit_bytes_of(&mut dst, Flat::<u16>::PRIMITIVE);
        assert_eq!(bytes.len(), 4);
        for (i, b) in bytes.iter_mut().enumerate() {
            b.write(i as u8);
        }
        // SAFETY: all four bytes, so both elements, were written just above.
        let first = unsafe { dst[0].assume_init() };
        assert_eq!(first, u16::from_ne_bytes([0, 1]));
        assert_eq!(Flat::<u64>::PRIMITIVE.width(), 8);
    }
}
