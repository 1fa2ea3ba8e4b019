//! Decoding in place: the part of every wire format's `decode_into` machinery that knows no
//! wire rule.
//!
//! A format's hidden `Decode::decode_into` writes a value straight into the caller's
//! `MaybeUninit` (a vector's spare capacity, a field of a struct under construction) and
//! returns it. The helpers here take that function as a closure (`decode_into`), so each
//! format wraps them in a line or two: [`fill`] checks that what came back is the slot itself,
//! [`by_place`] is `decode` through `decode_into`, [`field`] and [`FieldGuard`] build a struct
//! field by field and drop the fields already decoded when a later one fails, and [`fill_vec`]
//! decodes a sequence's elements where they will live.

use core::mem::MaybeUninit;

use crate::error::{Error, ErrorKind};
use crate::reader::Reader;

/// Decodes `T` into `slot` with `decode_into` (a format's `Decode::decode_into`) and confirms
/// that what it returned is `slot` itself. On `Ok`, `slot` is initialised; on `Err` it holds no
/// value that needs dropping.
#[inline(always)]
pub fn fill<'de, T>(
    r: &mut Reader<'de>,
    slot: &mut MaybeUninit<T>,
    decode_into: impl for<'a> FnOnce(
        &mut Reader<'de>,
        &'a mut MaybeUninit<T>,
    ) -> Result<&'a mut T, Error>,
) -> Result<(), Error> {
    let place: *mut T = slot.as_mut_ptr();
    let got: *mut T = decode_into(r, slot)?;
    // A safe `decode_into` can only return a reference into `slot` by writing it (`write`);
    // any other reference (e.g. a leaked one) is refused, and its value is not dropped here.
    if core::ptr::eq(got, place) {
        Ok(())
    } else {
        Err(another_place(r))
    }
}

#[cold]
#[inline(never)]
fn another_place(r: &Reader<'_>) -> Error {
    r.error(ErrorKind::Custom(
        "decode_into returned another place".into(),
    ))
}

/// `decode` through `decode_into`: what derived structs use, so there is one body for both.
#[inline(always)]
pub fn by_place<'de, T>(
    r: &mut Reader<'de>,
    decode_into: impl for<'a> FnOnce(
        &mut Reader<'de>,
        &'a mut MaybeUninit<T>,
    ) -> Result<&'a mut T, Error>,
) -> Result<T, Error> {
    let mut slot = MaybeUninit::uninit();
    fill(r, &mut slot, decode_into)?;
    // SAFETY: `fill` returned `Ok`: `slot` is initialised.
    Ok(unsafe { slot.assume_init() })
}

/// A field decoded in place inside a struct under construction: dropped again if a later
/// field fails (so nothing leaks), unless [`FieldGuard::keep`] hands it to the struct.
#[derive(Debug)]
pub struct FieldGuard<'a, T>(&'a mut T);

impl<T> FieldGuard<'_, T> {
    /// The field now belongs to the struct being built.
    #[inline(always)]
    pub fn keep(self) {
        core::mem::forget(self);
    }
}

impl<T> Drop for FieldGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the guard was made by `field`, whose caller promised that nothing else drops
        // or reads the field while the guard lives: this is the only drop of a value
        // `decode_into` initialised; afterwards the place is treated as uninitialised again
        // (the enclosing `MaybeUninit` is never assumed initialised on this path).
        unsafe { core::ptr::drop_in_place(self.0) }
    }
}

/// Decodes field `T` in place at `place` with `decode_into` (see [`fill`]).
///
/// # Safety
/// `place` must be valid for writes of a `T`, aligned, and lie inside a `MaybeUninit` that is
/// exclusively borrowed for `'a` by the caller; nothing may read it or drop its contents
/// while the returned guard lives, and the enclosing value may be assumed initialised only
/// after every one of its fields' guards was kept.
#[inline(always)]
pub unsafe fn field<'a, 'de, T>(
    r: &mut Reader<'de>,
    place: *mut T,
    decode_into: impl for<'b> FnOnce(
        &mut Reader<'de>,
        &'b mut MaybeUninit<T>,
    ) -> Result<&'b mut T, Error>,
) -> Result<FieldGuard<'a, T>, Error> {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout; the caller guarantees `place` is valid,
    // aligned and exclusively ours for `'a`.
    let slot = unsafe { &mut *place.cast::<MaybeUninit<T>>() };
    fill(r, slot, decode_into)?;
    // SAFETY: `fill` returned `Ok`: the place holds an initialised `T`, and we own it
    // exclusively for `'a` (caller's promise).
    Ok(FieldGuard(unsafe { &mut *place }))
}

/// Decodes `n` elements with `decode_into` (a function item or a closure over `Copy` values,
/// so that it is called directly and inlined), each straight into the spare capacity of a vector
/// allocated once for all of them: no element is moved. An error names the failing index; the
/// elements already decoded are dropped with the vector.
///
/// The caller has checked `n` against the input (`Reader::check_count`). The vector is
/// reserved whole when the input pays for it ([`prealloc`]); a count that only an element's
/// least wire size vouches for grows as elements arrive, so an element type much larger in
/// memory than on the wire cannot turn a length prefix into a large allocation before a
/// single element has decoded.
#[inline(always)]
pub fn fill_vec<'de, T>(
    r: &mut Reader<'de>,
    n: usize,
    decode_into: impl for<'a> FnOnce(&mut Reader<'de>, &'a mut MaybeUninit<T>) -> Result<&'a mut T, Error>
        + Copy,
) -> Result<Vec<T>, Error> {
    let mut v = Vec::with_capacity(prealloc::<T>(n, r.remaining()));
    for i in 0..n {
        if v.len() == v.capacity() {
            v.reserve(1);
        }
        // The first spare slot exists: `capacity > len == i`.
        fill(r, &mut v.spare_capacity_mut()[0], decode_into).map_err(|e| e.at_index(i))?;
        // SAFETY: `fill` returned `Ok`, so it initialised the first spare slot, which is at
        // index `len == i`, within capacity.
        unsafe { v.set_len(i + 1) };
    }
    Ok(v)
}

/// How many of `n` elements of `T` to reserve before decoding them, with `remaining` input
/// bytes left: all of them when they take at most 16 times the remaining input plus
/// [`EMPTY_BUDGET`](crate::reader::EMPTY_BUDGET) bytes of memory, else as many as do.
#[inline(always)]
pub fn prealloc<T>(n: usize, remaining: usize) -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 {
        return n;
    }
    let bytes = remaining
        .saturating_mul(16)
        .saturating_add(crate::reader::EMPTY_BUDGET);
    n.min(bytes / size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn byte<'a>(r: &mut Reader<'_>, out: &'a mut MaybeUninit<u8>) -> Result<&'a mut u8, Error> {
        let [b] = r.array::<1>()?;
        Ok(out.write(b))
    }

    #[test]
    fn fills_and_refuses_another_place() {
        let mut r = Reader::new(&[7, 8, 9], 0);
        assert_eq!(by_place(&mut r, byte).unwrap(), 7);
        assert_eq!(fill_vec(&mut r, 2, byte).unwrap(), [8, 9]);
        let e = fill_vec(&mut r, 1, byte).unwrap_err();
        assert!(e.to_string().starts_with("[0]: unexpected end"), "{e}");
        let mut r = Reader::new(&[1], 0);
        let e = by_place::<u8>(&mut r, |_, _| Ok(Box::leak(Box::new(1u8)))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "decode_into returned another place at offset 0"
        );
    }
}
