//! `Reader`: a bounds-checked cursor over the input that decoders borrow from.
//!
//! A fixed segment is read through [`Reader::chunk`]: one length check, then a sub-reader of
//! constant length whose reads need no further checks once inlined.

use core::mem::MaybeUninit;

use bytes::Bytes;

use crate::arriving::Refill;
use crate::bytes_str::BytesStr;
use crate::depth::Depth;
use crate::error::{Error, ErrorKind};
use crate::flat::{uninit_bytes_of, Flat};
use crate::swap;

/// Largest number of zero-size elements a sequence may claim (they consume no input, so the
/// input cannot justify the count).
pub const MAX_EMPTY_ELEMS: usize = 1 << 16;

/// Bytes of memory that values taking no bytes on the wire (elements of a sequence, the
/// contents of a `Box`) may take in one decode, counting one byte for each zero-sized element
/// so that loops over them stay bounded too: the input cannot justify them, so a fixed
/// allowance does. Every other allocation is paid for by the bytes it is decoded from.
pub const EMPTY_BUDGET: usize = 1 << 16;

// The budget left is kept in a `u32` beside the depth, so that the owner fits in the 64 bytes
// a reader took before it had one.
const _: () = assert!(EMPTY_BUDGET <= u32::MAX as usize);

/// Cursor over the input.
#[derive(Debug, Clone)]
pub struct Reader<'de> {
    /// The input, or, while a message arrives, the part of it that has arrived.
    buf: &'de [u8],
    pos: usize,
    /// Offset of `buf[0]` in the whole message.
    base: usize,
    depth: Depth,
    /// What is left of [`EMPTY_BUDGET`] in this decode. Segments (fixed-size values, which
    /// allocate nothing) take a copy and give nothing back.
    empty: u32,
    /// Where the rest of an arriving message comes from (`buf` then ends where the arrived
    /// bytes end). Only readers over a message's own offsets have one, never segments.
    more: Option<&'de dyn Refill>,
    /// The shared buffer `buf` lies in, if the input is one ([`Reader::with_owner`]):
    /// [`Reader::share`] then slices it instead of copying. Segments inherit it.
    owner: Option<&'de Bytes>,
}

impl<'de> Reader<'de> {
    /// A reader over `buf`, which sits at `base` in the message.
    pub fn new(buf: &'de [u8], base: usize) -> Self {
        Reader {
            buf,
            pos: 0,
            base,
            depth: Depth::default(),
            empty: EMPTY_BUDGET as u32,
            more: None,
            owner: None,
        }
    }

    /// A reader over all of `bytes`, which sits at `base` in the message, that decodes
    /// `Bytes` and [`BytesStr`] values as slices of `bytes` (see [`Reader::share`]) rather
    /// than copies.
    ///
    /// ```
    /// use bytes::Bytes;
    /// let input = Bytes::from(vec![1, 2, 3, 4]);
    /// let mut r = marshal_core::Reader::with_owner(&input, 0);
    /// let data = r.take(2)?;
    /// assert_eq!(r.share(data).as_ptr(), input.as_ptr()); // no copy
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    pub fn with_owner(bytes: &'de Bytes, base: usize) -> Self {
        Reader {
            owner: Some(bytes),
            ..Reader::new(bytes, base)
        }
    }

    /// A reader over an arriving message, from offset `base` of it: it reads what has
    /// arrived and waits for more only when a value runs past it (see
    /// [`arriving`](crate::arriving)).
    pub fn arriving(more: &'de dyn Refill, base: usize) -> Self {
        let arrived = more.arrived();
        Reader {
            buf: arrived.get(base..).unwrap_or(&[]),
            pos: 0,
            base,
            depth: Depth::default(),
            empty: EMPTY_BUDGET as u32,
            more: Some(more),
            owner: None,
        }
    }

    /// Offset of the next byte in the whole message.
    #[inline(always)]
    pub fn position(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes left (of an arriving message, those still to come included).
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        if self.more.is_none() {
            self.buf.len() - self.pos
        } else {
            remaining_arriving(self.more, self.position())
        }
    }

    /// The bytes left, without consuming them (of an arriving message, those that have
    /// arrived: call [`Reader::arrive_all`] first for all of them).
    #[inline(always)]
    pub fn rest(&self) -> &'de [u8] {
        &self.buf[self.pos..]
    }

    /// Waits for the rest of an arriving message (nothing to do for other readers), so that
    /// [`Reader::rest`] is all of it.
    pub fn arrive_all(&mut self) -> Result<(), Error> {
        if let Some(more) = self.more {
            let n = more.message_len().saturating_sub(self.position());
            self.buf = self.arrived_for(n).ok_or_else(|| self.eof(n))?;
        }
        Ok(())
    }

    /// Waits until at least `n` more bytes have arrived (an arriving message) and returns the
    /// longer `buf`; `None` if they cannot come (no more input, the message ends first, or
    /// the source failed: [`Reader::eof`] says which). It returns the new `buf` in registers
    /// rather than storing it, and like every cold path here it hands the out-of-line part
    /// the fields it needs by value, not the reader's address: an address taken on the hot
    /// paths' cold branches would keep readers in memory and grow every inlined length check.
    #[inline(always)]
    fn arrived_for(&self, n: usize) -> Option<&'de [u8]> {
        arrived_for(self.more, self.base, self.pos, n)
    }

    /// An error of `kind` at the current position.
    #[inline(always)]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.position())
    }

    /// An error of `kind` at `back` bytes before the current position (the start of a value
    /// just read).
    #[inline(always)]
    pub fn error_back(&self, back: usize, kind: ErrorKind) -> Error {
        Error::new(kind, self.position().saturating_sub(back))
    }

    /// Why `needed` more bytes are not there: the input ends, or an arriving message stopped.
    #[inline(always)]
    fn eof(&self, needed: usize) -> Error {
        eof(
            self.more,
            self.position(),
            self.buf.len() - self.pos,
            needed,
        )
    }

    /// The next `n` bytes, borrowed from the input.
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Result<&'de [u8], Error> {
        // Runs at most twice: `arrived_for` returns a `buf` with the `n` bytes or nothing.
        loop {
            // Two comparisons, which also settle the slicing's bounds: `pos <= buf.len()`
            // (always true) and the room itself. (Slicing `[pos..pos + n]` would check
            // `pos + n` twice more.)
            let (pos, len) = (self.pos, self.buf.len());
            if pos <= len && n <= len - pos {
                let s = &self.buf[pos..][..n];
                self.pos += n;
                return Ok(s);
            }
            match self.arrived_for(n) {
                Some(buf) => self.buf = buf,
                None => return Err(self.eof(n)),
            }
        }
    }

    /// The next `N` bytes as an array (one primitive).
    #[inline(always)]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let s = self.take(N)?;
        Ok(s.try_into().expect("take(N) has length N"))
    }

    /// Skips `pad` bytes of any value, then reads the next `N` (an aligned CDR value): one
    /// length check for both.
    #[inline(always)]
    pub fn padded_array<const N: usize>(&mut self, pad: usize) -> Result<[u8; N], Error> {
        let s = self.take(pad + N)?;
        Ok(s[pad..]
            .try_into()
            .expect("take(pad + N) has N bytes after the pad"))
    }

    /// The next `N` bytes without consuming them.
    #[inline(always)]
    pub fn peek_array<const N: usize>(&self) -> Result<[u8; N], Error> {
        match self.buf.get(self.pos..self.pos + N) {
            Some(s) => Ok(s.try_into().expect("length N")),
            None => self.peek_arriving(),
        }
    }

    /// `peek_array` when the bytes have not all arrived (or are not there at all).
    #[inline(always)]
    fn peek_arriving<const N: usize>(&self) -> Result<[u8; N], Error> {
        peek_arriving(self.more, self.base, self.pos, self.buf.len() - self.pos)
    }

    /// Skips `n` bytes that must all be zero (padding).
    #[inline]
    pub fn zeros(&mut self, n: usize) -> Result<(), Error> {
        let s = self.take(n)?;
        if s.iter().any(|&b| b != 0) {
            return Err(self.error_back(n, ErrorKind::NonZeroPadding));
        }
        Ok(())
    }

    /// Runs `f` on a sub-reader over exactly the next `n` bytes (a fixed segment): one length
    /// check here, none inside once inlined. Consumes what `f` consumed.
    #[inline(always)]
    pub fn chunk<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut Reader<'de>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let base = self.position();
        let buf = self.take(n)?;
        let mut sub = Reader {
            buf,
            pos: 0,
            base,
            depth: self.depth,
            empty: self.empty,
            more: None,
            owner: self.owner,
        };
        let r = f(&mut sub)?;
        // Give back what the segment did not consume (none, for a real fixed segment).
        self.pos -= n - sub.pos;
        Ok(r)
    }

    /// Consumes the next `n` bytes (a fixed segment) and returns a reader over exactly them:
    /// one length check here; reads from the segment at constant offsets fold their checks
    /// away once the segment's length is a constant.
    #[inline(always)]
    pub fn segment(&mut self, n: usize) -> Result<Reader<'de>, Error> {
        let base = self.position();
        let buf = self.take(n)?;
        Ok(Reader {
            buf,
            pos: 0,
            base,
            depth: self.depth,
            empty: self.empty,
            more: None,
            owner: self.owner,
        })
    }

    /// Skips `skip` bytes of any value (padding), consumes the next `n` (a fixed segment) and
    /// returns a reader over exactly them whose positions count from their first byte, and
    /// that byte's position in the message: one length check for both. Reads at constant
    /// offsets fold their checks away, and so does alignment relative to the segment when its
    /// first byte is aligned at least as much as anything inside it (CDR). An error raised
    /// through the segment reader carries an offset relative to it: add the position
    /// (`Error::shifted`).
    #[inline(always)]
    pub fn detached_segment(
        &mut self,
        skip: usize,
        n: usize,
    ) -> Result<(Reader<'de>, usize), Error> {
        let Some(len) = skip.checked_add(n) else {
            return Err(self.eof(n));
        };
        let s = self.take(len)?;
        let seg = Reader {
            buf: &s[skip..],
            pos: 0,
            base: 0,
            depth: self.depth,
            empty: self.empty,
            more: None,
            owner: self.owner,
        };
        Ok((seg, self.position() - n))
    }

    /// Takes the next `n` bytes as a reader whose positions count from `base` (one length
    /// check), and the offset to add to the errors it raises (`Error::shifted`) to make them
    /// the message's. A CDR segment whose layout depends on its start modulo 8 is read with
    /// `base` equal to that phase, a constant in the code for each phase, so that alignment
    /// inside it folds as in a detached segment. `base` must not exceed the position.
    #[inline(always)]
    pub fn rebased_segment(
        &mut self,
        n: usize,
        base: usize,
    ) -> Result<(Reader<'de>, usize), Error> {
        let start = self.position();
        let s = self.take(n)?;
        let seg = Reader {
            buf: s,
            pos: 0,
            base,
            depth: self.depth,
            empty: self.empty,
            more: None,
            owner: self.owner,
        };
        Ok((seg, start.saturating_sub(base)))
    }

    /// Checks a sequence's element count against the input before anything is allocated:
    /// each element takes at least `min_elem` bytes, so the remaining input bounds the count.
    /// Elements that take no bytes (`min_elem == 0`) are paid for from this decode's
    /// [`EMPTY_BUDGET`]: `elem_size` bytes of memory each (one for a zero-sized type), so
    /// neither the memory nor the loop they cost grows with a count the input does not back.
    /// Returns the capacity to reserve.
    #[inline]
    pub fn check_count(
        &mut self,
        n: usize,
        min_elem: usize,
        elem_size: usize,
    ) -> Result<usize, Error> {
        if min_elem == 0 {
            return self.charge_empty(n, elem_size).map(|()| n);
        }
        if n > self.remaining() / min_elem {
            return Err(self.error(ErrorKind::LengthExceedsInput {
                len: n as u64,
                remaining: self.remaining(),
            }));
        }
        Ok(n)
    }

    /// Takes `n` values of `size` bytes (one each when zero-sized) that the input does not pay
    /// for (they take no bytes on the wire) from this decode's [`EMPTY_BUDGET`], before they
    /// are allocated.
    #[inline]
    pub fn charge_empty(&mut self, n: usize, size: usize) -> Result<(), Error> {
        match n.checked_mul(size.max(1)) {
            Some(bytes) if bytes <= self.empty as usize => {
                // `bytes <= self.empty`, a `u32`.
                self.empty -= bytes as u32;
                Ok(())
            }
            bytes => Err(self.empty_error(n, size, bytes)),
        }
    }

    #[inline(always)]
    fn empty_error(&self, n: usize, size: usize, bytes: Option<usize>) -> Error {
        empty_error(self.empty, self.position(), n, size, bytes)
    }

    /// Reads `n` flat values: one copy when `swap` is false, else one pass that reverses the
    /// bytes of every word. Fails before allocating if the input does not hold them.
    #[inline]
    pub fn flat_vec<T>(&mut self, n: usize, proof: Flat<T>, swap: bool) -> Result<Vec<T>, Error> {
        if n == 0 {
            // Nothing to check, allocate or copy.
            return Ok(Vec::new());
        }
        let bytes = match n.checked_mul(core::mem::size_of::<T>()) {
            Some(b) if b <= self.remaining() => b,
            _ => {
                return Err(self.error(ErrorKind::LengthExceedsInput {
                    len: n as u64,
                    remaining: self.remaining(),
                }))
            }
        };
        if bytes > self.buf.len() - self.pos && self.more.is_some() {
            // A copy of the reader goes out of line and comes back, so that this one's address
            // is not taken.
            let (v, r) = self.clone().flat_vec_arriving(n, proof, swap)?;
            *self = r;
            return Ok(v);
        }
        let src = self.take(bytes)?;
        let mut v: Vec<T> = Vec::with_capacity(n);
        fill_flat(&mut v.spare_capacity_mut()[..n], src, proof, swap);
        // SAFETY: `n <= capacity`, and `fill_flat` initialised all `n` elements: it wrote every
        // one of their `size_of::<T>() * n` bytes, and `Flat<T>` proves any bytes form a valid T.
        unsafe { v.set_len(n) };
        Ok(v)
    }

    /// `flat_vec` of an arriving message whose `n` values have not all arrived: the values
    /// are copied (or swapped) a piece at a time, each piece as soon as it has arrived.
    /// `flat_vec` has checked that the message's length holds them, and an `Arriving`
    /// message already has a buffer that long, so the vector is at most as large as memory
    /// the input has justified.
    #[inline(never)]
    fn flat_vec_arriving<T>(
        mut self,
        n: usize,
        proof: Flat<T>,
        swap: bool,
    ) -> Result<(Vec<T>, Self), Error> {
        let size = core::mem::size_of::<T>();
        let mut v: Vec<T> = Vec::with_capacity(n);
        let mut done = 0;
        while done < n {
            if self.buf.len() - self.pos < size {
                self.buf = self.arrived_for(size).ok_or_else(|| self.eof(size))?;
            }
            let k = ((self.buf.len() - self.pos) / size).min(n - done);
            let src = self.take(k * size)?;
            fill_flat(
                &mut v.spare_capacity_mut()[done..done + k],
                src,
                proof,
                swap,
            );
            done += k;
        }
        // SAFETY: `n <= capacity`, and the pieces filled elements `[0, n)` one after another,
        // each with every one of its bytes; `Flat<T>` proves any bytes form a valid T.
        unsafe { v.set_len(n) };
        Ok((v, self))
    }

    /// Reads `N` flat values into an array (same rules as [`Reader::flat_vec`]).
    #[inline]
    pub fn flat_array<T, const N: usize>(
        &mut self,
        proof: Flat<T>,
        swap: bool,
    ) -> Result<[T; N], Error> {
        let mut arr = MaybeUninit::<[T; N]>::uninit();
        // SAFETY: `[T; N]` is flat words of `T`'s width when `T` is (`Flat::cast`'s contract:
        // same words, same order, no padding between elements).
        let proof = unsafe { proof.cast::<[T; N]>() };
        self.flat_into(&mut arr, proof, swap)?;
        // SAFETY: `flat_into` returned `Ok`, so it initialised `arr`.
        Ok(unsafe { arr.assume_init() })
    }

    /// Reads one flat value straight into `out` (same rules as [`Reader::flat_vec`]): a
    /// struct's array field is filled where it lives, with no move afterwards. Always inlined,
    /// so that a fixed-size value's length check folds into its segment's and its copy is a
    /// few moves.
    #[inline(always)]
    pub fn flat_into<'a, T>(
        &mut self,
        out: &'a mut MaybeUninit<T>,
        proof: Flat<T>,
        swap: bool,
    ) -> Result<&'a mut T, Error> {
        let src = self.take(core::mem::size_of::<T>())?;
        fill_flat(core::slice::from_mut(out), src, proof, swap);
        // SAFETY: `fill_flat` wrote every byte of `out`, and `Flat<T>` proves any bytes form a
        // valid `T`.
        Ok(unsafe { out.assume_init_mut() })
    }

    /// `data`, bytes this reader returned, as `Bytes`: a slice of the shared input
    /// ([`Reader::with_owner`]) when the reader has one and `data` lies in it (a reference
    /// count, no copy), else a copy.
    ///
    /// ```
    /// let mut r = marshal_core::Reader::new(&[7, 8], 0);
    /// let data = r.take(2)?;
    /// assert_eq!(&r.share(data)[..], [7, 8]); // a copy: this reader has no owner
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    #[inline]
    pub fn share(&self, data: &[u8]) -> Bytes {
        match self
            .owner
            .and_then(|owner| Some((owner, offset_in(owner, data)?)))
        {
            // The range is checked: `slice_ref`'s own checks would be made twice.
            Some((owner, at)) => owner.slice(at..at + data.len()),
            None => Bytes::copy_from_slice(data),
        }
    }

    /// A string this reader returned as a [`BytesStr`], shared or copied as
    /// [`Reader::share`] does; its UTF-8 is not checked again.
    ///
    /// ```
    /// let input = bytes::Bytes::from_static(b"abc");
    /// let mut r = marshal_core::Reader::with_owner(&input, 0);
    /// let s = core::str::from_utf8(r.take(3)?).unwrap();
    /// let shared = r.share_str(s);
    /// assert_eq!((shared.as_ptr(), &*shared), (input.as_ptr(), "abc"));
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    #[inline]
    pub fn share_str(&self, s: &str) -> BytesStr {
        let bytes = self.share(s.as_bytes());
        // SAFETY: `share` returns the bytes of `s` (the same bytes, sliced from the owner, or
        // a copy of them), and those are UTF-8.
        unsafe { BytesStr::from_utf8_unchecked(bytes) }
    }

    /// Enters one level of nesting (recursive types), failing beyond the limit.
    #[inline]
    pub fn enter(&mut self) -> Result<(), Error> {
        let at = self.position();
        self.depth.enter(at)
    }

    /// Leaves one level of nesting.
    #[inline]
    pub fn leave(&mut self) {
        self.depth.leave();
    }

    /// Fails if any input is left.
    #[inline]
    pub fn finish(&self) -> Result<(), Error> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(self.error(ErrorKind::TrailingBytes { count })),
        }
    }
}

/// [`Reader::remaining`] of an arriving message at `position`.
#[cold]
#[inline(never)]
fn remaining_arriving(more: Option<&dyn Refill>, position: usize) -> usize {
    more.map_or(0, |more| more.message_len().saturating_sub(position))
}

/// [`Reader::arrived_for`] of a reader over `more` from `base`, at `pos` in its `buf`.
#[cold]
#[inline(never)]
fn arrived_for(more: Option<&dyn Refill>, base: usize, pos: usize, n: usize) -> Option<&[u8]> {
    let more = more?;
    let end = base.checked_add(pos)?.checked_add(n)?;
    if end > more.message_len() {
        return None;
    }
    let buf = more.fill(end).ok()?.get(base..)?;
    (n <= buf.len().saturating_sub(pos)).then_some(buf)
}

/// [`Reader::eof`] at `position`, with `rest` bytes left in the reader's `buf`.
#[cold]
#[inline(never)]
fn eof(more: Option<&dyn Refill>, position: usize, rest: usize, needed: usize) -> Error {
    if let Some(more) = more {
        let arrived = more.arrived().len();
        if position.saturating_add(needed) <= more.message_len() {
            let what = format!(
                "the message stopped arriving after {arrived} of its {} bytes \
                 ({needed} more needed here)",
                more.message_len()
            );
            return match more.io_error() {
                Some(io) => Error::io(what, io, Some(position)),
                None => Error::new(ErrorKind::Custom(what), position),
            };
        }
    }
    let remaining = match more {
        None => rest,
        Some(_) => remaining_arriving(more, position),
    };
    Error::new(ErrorKind::UnexpectedEnd { needed, remaining }, position)
}

/// [`Reader::peek_arriving`] of a reader over `more` from `base`, at `pos` in its `buf`
/// with `rest` bytes left there.
#[cold]
#[inline(never)]
fn peek_arriving<const N: usize>(
    more: Option<&dyn Refill>,
    base: usize,
    pos: usize,
    rest: usize,
) -> Result<[u8; N], Error> {
    let s = arrived_for(more, base, pos, N)
        .and_then(|buf| buf.get(pos..pos + N))
        .ok_or_else(|| eof(more, base + pos, rest, N))?;
    Ok(s.try_into().expect("length N"))
}

/// [`Reader::charge_empty`]'s error with `empty` bytes of the allowance left, at `position`.
#[cold]
#[inline(never)]
fn empty_error(empty: u32, position: usize, n: usize, size: usize, bytes: Option<usize>) -> Error {
    if size == 0 {
        // Zero-sized elements: what is bounded is their number.
        let kind = ErrorKind::TooManyElements {
            count: n as u64,
            limit: empty as u64,
        };
        return Error::new(kind, position);
    }
    let kind = ErrorKind::TooMuchMemory {
        needed: bytes.map_or(u64::MAX, |b| b as u64),
        limit: empty as u64,
    };
    Error::new(kind, position)
}

/// Where `data` starts in `owner`'s bytes, if it lies within them (so that slicing `owner`
/// there is a slice of it rather than a panic).
#[inline(always)]
fn offset_in(owner: &Bytes, data: &[u8]) -> Option<usize> {
    let at = (data.as_ptr() as usize).checked_sub(owner.as_ptr() as usize)?;
    (at <= owner.len() && data.len() <= owner.len() - at).then_some(at)
}

/// Fills `dst` from `src` (`src.len()` is `dst`'s size in bytes), swapping words if asked.
#[inline(always)]
fn fill_flat<T>(dst: &mut [MaybeUninit<T>], src: &[u8], proof: Flat<T>, swap: bool) {
    let d = uninit_bytes_of(dst, proof);
    match (swap, proof.width()) {
        (false, _) | (true, 1) => swap::copy(d, src),
        (true, 2) => swap::copy_swap2(d, src),
        (true, 4) => swap::copy_swap4(d, src),
        (true, _) => swap::copy_swap8(d, src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_errors_with_offsets() {
        let data = [0, 0, 0, 5, 1, 2, 3, 4, 0, 1];
        let mut r = Reader::new(&data, 100);
        assert_eq!(r.array::<4>().unwrap(), [0, 0, 0, 5]);
        let v = r
            .chunk(4, |c| Ok((c.array::<2>()?, c.array::<2>()?)))
            .unwrap();
        assert_eq!(v, ([1, 2], [3, 4]));
        assert_eq!(r.position(), 108);
        let e = r.take(3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unexpected end of input: needed 3 bytes, 2 remain at offset 108"
        );
        let e = r.zeros(2).unwrap_err();
        assert_eq!(e.offset(), Some(108));
        let e = r.take(3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unexpected end of input: needed 3 bytes, 0 remain at offset 110"
        );
        assert!(r.finish().is_ok());
        assert!(Reader::new(&[1], 0).finish().is_err());
    }

    #[test]
    fn detached_segments_count_from_their_first_byte() {
        let data = [9, 9, 1, 2, 3, 4];
        let mut r = Reader::new(&data, 100);
        let (mut seg, at) = r.detached_segment(2, 3).unwrap();
        assert_eq!((at, seg.position(), r.position()), (102, 0, 105));
        assert_eq!(seg.array::<2>().unwrap(), [1, 2]);
        let e = seg.array::<2>().unwrap_err().shifted(at);
        assert_eq!(
            e.to_string(),
            "unexpected end of input: needed 2 bytes, 1 remain at offset 104"
        );
        assert!(r.detached_segment(0, 2).is_err());
        assert!(r.detached_segment(usize::MAX, 2).is_err());
    }

    #[test]
    fn rebased_segments_keep_the_phase() {
        let data = [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let mut r = Reader::new(&data, 0);
        r.take(5).unwrap();
        let (mut seg, shift) = r.rebased_segment(4, 5).unwrap();
        assert_eq!((seg.position(), shift, r.position()), (5, 0, 9));
        assert_eq!(seg.array::<3>().unwrap(), [5, 6, 7]);
        let e = seg.array::<2>().unwrap_err().shifted(shift);
        assert!(e.to_string().ends_with("at offset 8"), "{e}");
        let mut r = Reader::new(&data, 16);
        let (seg, shift) = r.rebased_segment(2, 0).unwrap();
        assert_eq!((seg.position(), shift), (0, 16));
        assert!(r.rebased_segment(11, 2).is_err());
    }

    #[test]
    fn flat_paths() {
        let data = [0u8, 0, 0, 1, 0, 0, 0, 2, 9];
        let mut r = Reader::new(&data, 0);
        let v: Vec<u32> = r
            .flat_vec(2, Flat::<u32>::PRIMITIVE, cfg!(target_endian = "little"))
            .unwrap();
        assert_eq!(v, [1, 2]);
        let mut r = Reader::new(&data, 0);
        let a: [u32; 2] = r
            .flat_array(Flat::<u32>::PRIMITIVE, cfg!(target_endian = "little"))
            .unwrap();
        assert_eq!(a, [1, 2]);
        // No elements: nothing read, nothing allocated.
        let mut r = Reader::new(&data, 0);
        let v: Vec<u32> = r.flat_vec(0, Flat::<u32>::PRIMITIVE, true).unwrap();
        assert_eq!((v.len(), v.capacity(), r.position()), (0, 0, 0));
        // A huge count fails before allocating.
        let mut r = Reader::new(&data, 0);
        assert!(r
            .flat_vec::<u64>(usize::MAX / 4, Flat::<u64>::PRIMITIVE, true)
            .is_err());
        assert!(r.flat_vec::<u64>(2, Flat::<u64>::PRIMITIVE, true).is_err());
    }

    #[test]
    fn an_owner_is_sliced_not_copied_and_fits_the_old_size() {
        assert!(core::mem::size_of::<Reader<'_>>() <= 64);
        let input = Bytes::from((0u8..32).collect::<Vec<_>>());
        let mut r = Reader::with_owner(&input, 0);
        r.take(4).unwrap();
        // Segments keep the owner.
        let mut seg = r.segment(8).unwrap();
        let data = seg.take(8).unwrap();
        let b = seg.share(data);
        assert_eq!((b.as_ptr(), &b[..]), (input[4..].as_ptr(), &input[4..12]));
        let (mut seg, _) = r.detached_segment(1, 4).unwrap();
        let data = seg.take(4).unwrap();
        assert_eq!(seg.share(data).as_ptr(), input[13..].as_ptr());
        let s = r.share_str(core::str::from_utf8(&input[0..0]).unwrap());
        assert!(s.is_empty());
        // Bytes from elsewhere are copied, not sliced (nor a panic).
        let other = [1u8, 2, 3];
        let b = r.share(&other);
        assert_eq!((&b[..], b.as_ptr() == other.as_ptr()), (&other[..], false));
        let straddling = &input[28..];
        let head = input.slice(..30);
        let mut r = Reader::with_owner(&head, 0);
        r.take(30).unwrap();
        let b = r.share(straddling);
        assert_eq!(&b[..], &input[28..]);
        assert_ne!(b.as_ptr(), straddling.as_ptr());
        // No owner: a copy.
        let mut r = Reader::new(&input, 0);
        let data = r.take(3).unwrap();
        assert_ne!(r.share(data).as_ptr(), data.as_ptr());
        let s = core::str::from_utf8(r.take(0).unwrap()).unwrap();
        assert_eq!(r.share_str(s), "");
    }

    #[test]
    fn depth() {
        let mut r = Reader::new(&[], 0);
        for _ in 0..crate::DEFAULT_MAX_DEPTH {
            r.enter().unwrap();
        }
        assert!(r.enter().is_err());
        r.leave();
        assert!(r.enter().is_ok());
    }
}
