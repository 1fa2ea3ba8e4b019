//! `Writer`: a cursor over uninitialised output whose safe API can only initialise.
//!
//! Encoding is two passes: the exact encoded length is computed first (constant for fixed
//! types), the output reserved **once**, then the value written. Every write appends, so the
//! bytes `[0, pos)` are always initialised and a sink may expose exactly `pos` bytes.
//!
//! A fixed segment (Flick §3.1) is written through [`Writer::chunk`]: one capacity check, then a
//! sub-writer whose length is a compile-time constant, so after inlining every per-field check
//! inside it folds away and the fields land at constant offsets.

use core::mem::MaybeUninit;

use crate::cpu::Known;
use crate::depth::Depth;
use crate::error::{Error, ErrorKind};
use crate::flat::{bytes_of, Flat};
use crate::{short_copy, swap};

/// Where a writer hands large slices instead of copying them (vectored writes): IDL4's
/// "indirect strings", a socket's `writev` straight from the caller's memory.
pub trait Spill {
    /// Slices at least this long are spilled.
    fn threshold(&self) -> usize;
    /// Takes, in order, the bytes written since the last spill and then one large slice
    /// (empty for the final flush). Both are only borrowed for the call.
    fn spill(&mut self, head: &[u8], large: &[u8]) -> Result<(), Error>;
}

impl core::fmt::Debug for dyn Spill + '_ {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Spill")
            .field("threshold", &self.threshold())
            .finish()
    }
}

/// How many zeros [`Writer::put_zeros`] and [`Writer::put_slice_zeros`] write with one 8-byte
/// store: alignment padding, XDR's padding and a CDR string's NUL are all shorter.
const SHORT_ZEROS: usize = 8;

/// Slices shorter than this (with up to `SHORT_ZEROS` zeros after them) that must hold no
/// NUL are copied and checked in one pass by [`short_copy::copy_pad`]; longer ones are
/// checked, then copied by `memcpy`.
const SHORT_COPY_MAX: usize = 256;

/// How far ahead of the position [`Writer::prefetch`] asks for the output's cache lines.
const PREFETCH_AHEAD: usize = 768;

/// The bytes of output one prefetch asks for (a cache line).
const PREFETCH_LINE: usize = 64;

/// The lines [`Writer::prefetch`] asks for at a time.
const PREFETCH_BATCH: usize = 8;

/// Asks the CPU to bring the cache line holding address `p` into its cache: a hint, with no
/// effect on what the program computes.
#[inline(always)]
fn prefetch_line(p: *const MaybeUninit<u8>) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` requires SSE, which every x86-64 CPU has (it is part of the
    // target's baseline); a prefetch reads nothing the program can observe and cannot fault,
    // whatever the address, so `p` need not point at anything.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Append-only cursor over an output region.
#[derive(Debug)]
pub struct Writer<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    /// Bytes `[0, pos)` of `buf` are initialised.
    pos: usize,
    /// Offset of `buf[0]` in the whole message (error offsets, stream-relative alignment).
    base: usize,
    depth: Depth,
    /// Large slices go here instead of into `buf` (then `buf` restarts at its beginning).
    spill: Option<&'a mut dyn Spill>,
    /// `spill`'s threshold (`usize::MAX` without one), read once.
    spill_min: usize,
    /// Offset in `buf` up to which [`Writer::prefetch`] has asked for the cache lines.
    fetched: usize,
    /// What the kernels may assume of the CPU without asking (see [`Writer::local`]).
    known: Known,
}

/// Where a [`Writer::local`] copy left off, for the writer it was made from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resume {
    pos: usize,
    base: usize,
    depth: Depth,
    fetched: usize,
}

impl<'a> Writer<'a> {
    /// A writer over `buf`, positioned at its start, which sits at `base` in the message.
    pub fn new(buf: &'a mut [MaybeUninit<u8>], base: usize) -> Self {
        Writer {
            buf,
            pos: 0,
            base,
            depth: Depth::default(),
            spill: None,
            spill_min: usize::MAX,
            fetched: 0,
            known: Known::NOTHING,
        }
    }

    /// A copy of this writer for a loop to run on, told what `known` says of the CPU; what
    /// it writes is this writer's once [`Writer::resume`] is given its [`Writer::end_local`].
    ///
    /// A loop over `&mut` of a local (rather than of a writer behind a pointer) lets LLVM keep
    /// the position, the buffer and what is known in registers: no store to the output can
    /// change them, because no address of the local escapes (the writer's cold paths take its
    /// fields' values, not its address). A constant `known` then folds each kernel's CPU check.
    #[inline(always)]
    pub(crate) fn local(&mut self, known: Known) -> Writer<'_> {
        Writer {
            buf: &mut *self.buf,
            pos: self.pos,
            base: self.base,
            depth: self.depth,
            spill: match &mut self.spill {
                Some(s) => Some(&mut **s),
                None => None,
            },
            spill_min: self.spill_min,
            fetched: self.fetched,
            known: self.known.or(known),
        }
    }

    /// Where this local copy left off (see [`Writer::local`]).
    #[inline(always)]
    pub(crate) fn end_local(self) -> Resume {
        Resume {
            pos: self.pos,
            base: self.base,
            depth: self.depth,
            fetched: self.fetched,
        }
    }

    /// Continues from where a local copy of this writer left off: it wrote into the same
    /// buffer (and spill), so its position is this writer's.
    #[inline(always)]
    pub(crate) fn resume(&mut self, r: Resume) {
        self.pos = r.pos;
        self.base = r.base;
        self.depth = r.depth;
        self.fetched = r.fetched;
    }

    /// Hands the bytes written so far and then `large` to the spill, and restarts the buffer.
    /// The work is out of line and sees the writer's fields, not its address (see
    /// [`Writer::local`]).
    #[inline(always)]
    fn spill_out(&mut self, large: &[u8]) -> Result<(), Error> {
        // SAFETY: `buf[..pos]` is initialised (the invariant of `pos`), `MaybeUninit<u8>` has
        // the layout of `u8`, and the shared view lives only for this call, during which
        // nothing writes `buf`.
        let head = unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), self.pos) };
        spill_to(self.spill.as_deref_mut(), head, large, self.base)?;
        self.base += self.pos + large.len();
        self.pos = 0;
        self.fetched = 0;
        Ok(())
    }

    /// Offset of the next byte in the whole message.
    #[inline(always)]
    pub fn position(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes written so far by this writer.
    #[inline(always)]
    pub fn written(&self) -> usize {
        self.pos
    }

    /// Room left.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The error for `needed` bytes more than there is room for.
    #[inline(always)]
    fn overflow(&self, needed: usize) -> Error {
        overflow(self.base, self.buf.len(), self.pos, needed)
    }

    /// An error of `kind` at the current position.
    #[inline(always)]
    pub fn error(&self, kind: ErrorKind) -> Error {
        error_at(kind, self.position())
    }

    /// The next `n` bytes of room, or an error if there is not enough.
    #[inline(always)]
    fn room(&mut self, n: usize) -> Result<&mut [MaybeUninit<u8>], Error> {
        // Two comparisons, which also settle the slicing's bounds: `pos <= buf.len()` (always
        // true) and the room itself. (Slicing `[pos..pos + n]` would check `pos + n` again.)
        let (pos, len) = (self.pos, self.buf.len());
        if pos > len || n > len - pos {
            return Err(self.overflow(n));
        }
        Ok(&mut self.buf[pos..][..n])
    }

    /// Appends a fixed-size byte array (one primitive).
    #[inline(always)]
    pub fn put<const N: usize>(&mut self, bytes: [u8; N]) -> Result<(), Error> {
        let dst: &mut [MaybeUninit<u8>; N] =
            self.room(N)?.try_into().expect("room(N) has length N");
        *dst = bytes.map(MaybeUninit::new);
        self.pos += N;
        Ok(())
    }

    /// Appends `pad` zero bytes and then a primitive (an aligned CDR value): one capacity
    /// check for both.
    #[inline(always)]
    pub fn put_padded<const N: usize>(&mut self, pad: usize, bytes: [u8; N]) -> Result<(), Error> {
        let dst = self.room(pad + N)?;
        match dst.first_chunk_mut::<N>() {
            // Alignment padding is shorter than the value it aligns: one store of N zeros
            // covers it (the value then overwrites the rest), where a fill of a variable
            // length would be a call to `memset`.
            Some(head) if pad < N => *head = [MaybeUninit::new(0); N],
            _ => dst[..pad].fill(MaybeUninit::new(0)),
        }
        let tail: &mut [MaybeUninit<u8>; N] = (&mut dst[pad..]).try_into().expect("length N");
        *tail = bytes.map(MaybeUninit::new);
        self.pos += pad + N;
        Ok(())
    }

    /// Appends `src` (one copy).
    #[inline]
    pub fn put_slice(&mut self, src: &[u8]) -> Result<(), Error> {
        if src.len() >= self.spill_min {
            return self.spill_out(src);
        }
        swap::copy_slice_in(self.known, self.room(src.len())?, src);
        self.pos += src.len();
        Ok(())
    }

    /// Appends `src` and then `zeros` zero bytes (XDR's padding, a CDR string's NUL) with one
    /// capacity check. Up to 8 zeros are one 8-byte store over the end
    /// of the region, made before `src` is copied over its start, rather than a call to
    /// `memset`.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// marshal_core::writer::append_to_vec(&mut out, 8, |w| w.put_slice_zeros(b"abcde", 3))?;
    /// assert_eq!(out, b"abcde\0\0\0");
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    #[inline(always)]
    pub fn put_slice_zeros(&mut self, src: &[u8], zeros: usize) -> Result<(), Error> {
        self.put_head_slice_zeros([], src, zeros)
    }

    /// Appends `head` (a length prefix), then `src`, then `zeros` zero bytes (XDR's counted
    /// opaque data): [`put`](Self::put) and [`put_slice_zeros`](Self::put_slice_zeros) one
    /// after the other, with one capacity check for all three. A `src` that is spilled goes
    /// out after `head` as [`put_slice`](Self::put_slice) would send it.
    ///
    /// ```
    /// let mut out = Vec::new();
    /// marshal_core::writer::append_to_vec(&mut out, 12, |w| {
    ///     w.put_head_slice_zeros(5u32.to_be_bytes(), b"abcde", 3)
    /// })?;
    /// assert_eq!(out, b"\0\0\0\x05abcde\0\0\0");
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    #[inline(always)]
    pub fn put_head_slice_zeros<const H: usize>(
        &mut self,
        head: [u8; H],
        src: &[u8],
        zeros: usize,
    ) -> Result<(), Error> {
        if src.len() >= self.spill_min {
            self.put(head)?;
            self.spill_out(src)?;
            return self.put_zeros(zeros);
        }
        let n = src
            .len()
            .checked_add(zeros)
            .and_then(|n| n.checked_add(H))
            .ok_or_else(|| self.overflow(usize::MAX))?;
        let known = self.known;
        let dst = self.room(n)?;
        // The zeros first: up to 8 of them are one 8-byte store over the end of the region,
        // which the head and `src` then overwrite where it reaches into them.
        match dst.last_chunk_mut::<SHORT_ZEROS>() {
            _ if zeros == 0 => {}
            Some(tail) if zeros <= SHORT_ZEROS => *tail = [MaybeUninit::new(0); SHORT_ZEROS],
            _ => dst[n - zeros..].fill(MaybeUninit::new(0)),
        }
        let (first, rest) = dst.split_at_mut(H);
        let first: &mut [MaybeUninit<u8>; H] = first.try_into().expect("length H");
        *first = head.map(MaybeUninit::new);
        swap::copy_slice_in(known, &mut rest[..src.len()], src);
        self.pos += n;
        Ok(())
    }

    /// [`put_slice_zeros`](Self::put_slice_zeros) of a `src` that may not hold a NUL byte
    /// (a CDR string): if it does, the result is `nul()` and nothing is committed. A short
    /// `src` with a few zeros is checked while it is copied ([`short_copy::copy_pad`]), with
    /// no second read; any other (long, or one that would spill) is checked first, so that no
    /// byte of it goes out, then written by `put_slice_zeros`.
    ///
    /// ```
    /// use marshal_core::{Error, ErrorKind};
    /// let nul = || Error::new(ErrorKind::InteriorNul, 0);
    /// let mut out = Vec::new();
    /// marshal_core::writer::append_to_vec(&mut out, 4, |w| w.put_slice_zeros_without_nul(b"abc", 1, nul))?;
    /// assert_eq!(out, b"abc\0");
    /// let r = marshal_core::writer::append_to_vec(&mut Vec::new(), 4, |w| {
    ///     w.put_slice_zeros_without_nul(b"a\0c", 1, nul)
    /// });
    /// assert_eq!(r.unwrap_err().kind(), &ErrorKind::InteriorNul);
    /// # Ok::<(), Error>(())
    /// ```
    #[inline(always)]
    pub fn put_slice_zeros_without_nul(
        &mut self,
        src: &[u8],
        zeros: usize,
        nul: impl FnOnce() -> Error,
    ) -> Result<(), Error> {
        if src.len() < SHORT_COPY_MAX.min(self.spill_min) && zeros <= SHORT_ZEROS {
            // Both short: their sum cannot overflow.
            let n = src.len() + zeros;
            if short_copy::copy_pad_in(self.known, self.room(n)?, src) {
                return Err(nul());
            }
            self.pos += n;
            return Ok(());
        }
        if crate::text::has_nul(src) {
            return Err(nul());
        }
        self.put_slice_zeros(src, zeros)
    }

    /// Appends `n` zero bytes. Up to 8 of them (alignment padding) are
    /// one 8-byte store when there is room for it, rather than a call to `memset`: the bytes
    /// stored past the `n` are room no byte of the output has been written to yet, and the
    /// writes after this one overwrite them.
    #[inline]
    pub fn put_zeros(&mut self, n: usize) -> Result<(), Error> {
        if n <= SHORT_ZEROS {
            if let Some(dst) = self.buf[self.pos..].first_chunk_mut::<SHORT_ZEROS>() {
                *dst = [MaybeUninit::new(0); SHORT_ZEROS];
                self.pos += n;
                return Ok(());
            }
        }
        self.room(n)?.fill(MaybeUninit::new(0));
        self.pos += n;
        Ok(())
    }

    /// Appends flat values: one copy when `swap` is false, else one pass that reverses the
    /// bytes of every word.
    #[inline]
    pub fn put_flat<T>(&mut self, items: &[T], proof: Flat<T>, swap: bool) -> Result<(), Error> {
        self.put_head_flat([], items, proof, swap)
    }

    /// Appends `head` (an array's length prefix) and then flat values as
    /// [`put_flat`](Self::put_flat) does, with one capacity check for both. Values that are
    /// spilled go out after `head` as `put_flat` would send them.
    ///
    /// ```
    /// use marshal_core::Flat;
    /// let mut out = Vec::new();
    /// let items = [1u16, 2];
    /// marshal_core::writer::append_to_vec(&mut out, 6, |w| {
    ///     w.put_head_flat(2u16.to_be_bytes(), &items, Flat::<u16>::PRIMITIVE, cfg!(target_endian = "little"))
    /// })?;
    /// assert_eq!(out, [0, 2, 0, 1, 0, 2]);
    /// # Ok::<(), marshal_core::Error>(())
    /// ```
    #[inline]
    pub fn put_head_flat<const H: usize, T>(
        &mut self,
        head: [u8; H],
        items: &[T],
        proof: Flat<T>,
        swap: bool,
    ) -> Result<(), Error> {
        let src = bytes_of(items, proof);
        if src.len() >= self.spill_min && (!swap || proof.width() == 1) {
            self.put(head)?;
            return self.spill_out(src);
        }
        // Both lengths are of objects in memory, so at most `isize::MAX` each: no overflow.
        let n = H + src.len();
        let dst = self.room(n)?;
        let (first, dst) = dst.split_at_mut(H);
        let first: &mut [MaybeUninit<u8>; H] = first.try_into().expect("length H");
        *first = head.map(MaybeUninit::new);
        match (swap, proof.width()) {
            (false, _) | (true, 1) => swap::copy(dst, src),
            (true, 2) => swap::copy_swap2(dst, src),
            (true, 4) => swap::copy_swap4(dst, src),
            (true, _) => swap::copy_swap8(dst, src),
        }
        self.pos += n;
        Ok(())
    }

    /// Appends one flat value (a fixed-size array of words) as [`Writer::put_flat`] does, with
    /// the byte swap compiled for its size: for an array of a few dozen words the swap
    /// kernel's loop and tail, decided at run time for a slice, cost as much as the swap.
    #[inline]
    pub fn put_flat_one<A>(&mut self, item: &A, proof: Flat<A>, swap: bool) -> Result<(), Error> {
        let src = bytes_of(core::slice::from_ref(item), proof);
        if src.len() >= self.spill_min && (!swap || proof.width() == 1) {
            return self.spill_out(src);
        }
        let known = self.known;
        let dst = self.room(src.len())?;
        match (swap, proof.width()) {
            (false, _) | (true, 1) => swap::copy(dst, src),
            (true, width) => swap::copy_swap_sized_in::<A>(known, width, dst, src),
        }
        self.pos += src.len();
        Ok(())
    }

    /// Asks for the cache lines of the output from where earlier calls stopped to a few
    /// hundred bytes past the position (each line once). Called between the elements of an
    /// array whose elements are written in several pieces (a directory entry's length, name,
    /// padding and fixed tail) on CPUs where [`cpu::prefetch_output`](crate::cpu::prefetch_output)
    /// says it pays: there, without it, every store to a line not yet in cache waits for the
    /// line, and an encoder that writes small pieces spends most of its time there, where one
    /// large copy of the same bytes does not.
    ///
    /// The lines are asked for `PREFETCH_BATCH` at a time, unrolled: an element of a few
    /// lines then costs a comparison, and every few elements one batch, where a loop over each
    /// element's own lines cost a fifth of a directory entry's instructions.
    #[inline(always)]
    pub fn prefetch(&mut self) {
        // No overflow: `pos <= buf.len() <= isize::MAX`.
        let want = (self.pos + PREFETCH_AHEAD).min(self.buf.len());
        if self.fetched < want {
            let base = self.buf.as_ptr();
            let mut at = self.fetched;
            while at < want {
                for line in 0..PREFETCH_BATCH {
                    prefetch_line(base.wrapping_add(at + line * PREFETCH_LINE));
                }
                at += PREFETCH_BATCH * PREFETCH_LINE;
            }
            self.fetched = at;
        }
    }

    /// Runs `f` on a sub-writer of exactly `n` bytes of room (a fixed segment): one capacity
    /// check here, then `f`'s writes need none once inlined, because the sub-writer's length is
    /// the constant `n`. The bytes `f` writes are committed to `self`.
    #[inline(always)]
    pub fn chunk<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut Writer<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let base = self.position();
        self.rebased_chunk(n, base, f)
    }

    /// [`Writer::chunk`] with the sub-writer's positions counting from `base` instead of the
    /// real position: a CDR segment whose layout depends on its start modulo 8 is written with
    /// `base` equal to that phase, a constant in the code for each phase, so alignment inside
    /// folds. Errors `f` raises are shifted back to the message's offsets (an overflow's
    /// lengths still count from `base`). `base` must not exceed the position.
    #[inline(always)]
    pub fn rebased_chunk<R>(
        &mut self,
        n: usize,
        base: usize,
        f: impl FnOnce(&mut Writer<'_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let shift = self.position().saturating_sub(base);
        let (depth, known) = (self.depth, self.known);
        let mut sub = Writer {
            buf: self.room(n)?,
            pos: 0,
            base,
            depth,
            spill: None,
            spill_min: usize::MAX,
            fetched: 0,
            known,
        };
        let r = f(&mut sub).map_err(|e| e.shifted(shift))?;
        // The sub-writer initialised `sub.pos` bytes right at `self.pos`.
        self.pos += sub.pos;
        Ok(r)
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
}

/// [`Writer::overflow`]'s error, out of line: the writer's fields, not its address.
#[cold]
#[inline(never)]
fn overflow(base: usize, len: usize, pos: usize, needed: usize) -> Error {
    Error::new(
        ErrorKind::LengthMismatch {
            announced: base + len,
            written: (base + pos).saturating_add(needed),
        },
        base + pos,
    )
}

/// [`Writer::error`], out of line.
#[cold]
#[inline(never)]
fn error_at(kind: ErrorKind, at: usize) -> Error {
    Error::new(kind, at)
}

/// [`Writer::spill_out`]'s call of the spill (`head` is the buffer's `pos` bytes, which
/// start at `base` in the message), out of line.
#[inline(never)]
fn spill_to(
    spill: Option<&mut (dyn Spill + '_)>,
    head: &[u8],
    large: &[u8],
    base: usize,
) -> Result<(), Error> {
    let Some(spill) = spill else {
        unreachable!("spill_min is usize::MAX without a spill");
    };
    spill.spill(head, large).map_err(|e| {
        if e.offset().is_none() {
            Error::new(e.kind().clone(), base + head.len())
        } else {
            e
        }
    })
}

/// Appends an encoding of exactly `len` bytes to `out`: reserves once, lets `f` write, checks
/// that `f` wrote exactly `len` bytes, and only then makes them part of `out`. On error `out`
/// is left as it was.
#[inline]
pub fn append_to_vec(
    out: &mut Vec<u8>,
    len: usize,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    out.reserve(len);
    let start = out.len();
    let spare = &mut out.spare_capacity_mut()[..len];
    let mut w = Writer::new(spare, 0);
    f(&mut w)?;
    if w.pos != len {
        return Err(Error::without_offset(ErrorKind::LengthMismatch {
            announced: len,
            written: w.pos,
        }));
    }
    // SAFETY: `len <= capacity - start` (reserved above). The writer only ever advances `pos`
    // over bytes it has written (every `Writer` method initialises before it advances, and a
    // chunk commits only what its sub-writer initialised), and `pos == len`, so the `len`
    // bytes after `start` are initialised.
    unsafe { out.set_len(start + len) };
    Ok(())
}

/// Appends an encoding to `out` in one pass, without measuring it, when it fits in the first
/// `limit` bytes of `out`'s spare capacity: `f` writes there, and on success what it wrote
/// becomes part of `out` and its length is returned. When `f` fails (too little room, or any
/// other error) `out` is left as it was and `None` is returned: the caller measures, which
/// gives the exact length to reserve or the genuine error. Nothing is allocated here.
///
/// ```
/// use marshal_core::writer::append_in_place;
/// let mut out = Vec::with_capacity(8);
/// assert_eq!(append_in_place(&mut out, 64, |w| w.put([1, 2, 3])), Some(3));
/// assert_eq!(out, [1, 2, 3]);
/// // No room (at most 5 more bytes may be written here): nothing changes.
/// assert_eq!(append_in_place(&mut out, 64, |w| w.put([9; 6])), None);
/// assert_eq!(append_in_place(&mut out, 2, |w| w.put([9; 3])), None);
/// assert_eq!(out, [1, 2, 3]);
/// ```
#[inline]
pub fn append_in_place(
    out: &mut Vec<u8>,
    limit: usize,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Option<usize> {
    let start = out.len();
    let spare = out.spare_capacity_mut();
    let room = spare.len().min(limit);
    let mut w = Writer::new(&mut spare[..room], 0);
    f(&mut w).ok()?;
    let len = w.pos;
    // SAFETY: `len <= room <= capacity - start`: the writer never advances `pos` past its
    // buffer, which is the first `room` bytes of the spare capacity. It only ever advances
    // `pos` over bytes it has written (see `append_to_vec`), so the `len` bytes after `start`
    // are initialised.
    unsafe { out.set_len(start + len) };
    Some(len)
}

/// Writes an encoding of exactly `len` bytes through `spill`: slices of at least
/// `spill.threshold()` bytes (octet sequences, arrays in the host byte order) are handed to
/// it where they lie in the value being encoded, the rest is gathered in `scratch` between
/// them, so a socket can send everything with vectored writes and no copy of the large parts.
/// `spill` sees the whole encoding, in order, ending with a call whose large slice is empty.
///
/// ```
/// use marshal_core::{writer::{write_spilling, Spill}, Error};
/// struct Parts(Vec<Vec<u8>>);
/// impl Spill for Parts {
///     fn threshold(&self) -> usize { 4 }
///     fn spill(&mut self, head: &[u8], large: &[u8]) -> Result<(), Error> {
///         self.0.push(head.to_vec());
///         self.0.push(large.to_vec());
///         Ok(())
///     }
/// }
/// let mut parts = Parts(Vec::new());
/// write_spilling(&mut Vec::new(), 8, &mut parts, |w| {
///     w.put([1])?;
///     w.put_slice(&[2, 3, 4, 5])?; // long enough: spilled, not copied
///     w.put([6, 7, 8])
/// })
/// .unwrap();
/// assert_eq!(parts.0, [vec![1], vec![2, 3, 4, 5], vec![6, 7, 8], vec![]]);
/// ```
pub fn write_spilling(
    scratch: &mut Vec<u8>,
    len: usize,
    spill: &mut dyn Spill,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    scratch.clear();
    scratch.reserve(len);
    let spill_min = spill.threshold().max(1);
    let mut w = Writer {
        buf: &mut scratch.spare_capacity_mut()[..len],
        pos: 0,
        base: 0,
        depth: Depth::default(),
        spill: Some(spill),
        spill_min,
        fetched: 0,
        known: Known::NOTHING,
    };
    f(&mut w)?;
    if w.position() != len {
        return Err(Error::without_offset(ErrorKind::LengthMismatch {
            announced: len,
            written: w.position(),
        }));
    }
    w.spill_out(&[])
}

/// Writes an encoding of exactly `len` bytes into a `BufMut`: one `chunk_mut` call; if that
/// chunk is large enough the bytes are written in place and committed with one `advance_mut`,
/// otherwise they are encoded into a temporary vector and handed over with one `put_slice`.
pub fn write_to_buf_mut<B: bytes::BufMut + ?Sized>(
    buf: &mut B,
    len: usize,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    if buf.remaining_mut() < len {
        return Err(no_room(buf.remaining_mut(), len));
    }
    let chunk = buf.chunk_mut();
    if chunk.len() >= len {
        // SAFETY: `as_uninit_slice_mut` requires that we never write uninitialised bytes into
        // the slice; the `Writer` writes only initialised values.
        let spare = unsafe { chunk.as_uninit_slice_mut() };
        let mut w = Writer::new(&mut spare[..len], 0);
        f(&mut w)?;
        if w.pos != len {
            return Err(Error::without_offset(ErrorKind::LengthMismatch {
                announced: len,
                written: w.pos,
            }));
        }
        // SAFETY: the first `len` bytes of the current chunk were initialised by the writer
        // (see `append_to_vec`), and `len <= chunk.len()`.
        unsafe { buf.advance_mut(len) };
        Ok(())
    } else {
        hand_over(buf, len, f)
    }
}

/// Writes an encoding into a `BufMut` without measuring it first when the buffer's current
/// chunk has room: one `chunk_mut`, one pass of `f` over the value, one `advance_mut`. When `f`
/// fails there (the chunk was too short, or any other error), nothing is committed (the
/// chunk's bytes may have been written: they are the buffer's spare room), `measure` gives the
/// exact length (or the genuine error), and the encoding is handed over with one `put_slice`.
/// The value is read once instead of twice whenever the buffer has room, and once more
/// otherwise; use [`write_to_buf_mut`] when the length is known for free.
///
/// ```
/// use marshal_core::writer::write_to_buf_mut_unmeasured;
/// let mut buf = Vec::with_capacity(8);
/// write_to_buf_mut_unmeasured(&mut buf, || Ok(3), |w| w.put([1, 2, 3]))?;
/// assert_eq!(buf, [1, 2, 3]);
/// // Longer than the chunk (a `Vec` offers its spare capacity): measured, then handed over.
/// write_to_buf_mut_unmeasured(&mut buf, || Ok(4096), |w| w.put([7; 4096]))?;
/// assert_eq!(buf.len(), 3 + 4096);
/// # Ok::<(), marshal_core::Error>(())
/// ```
#[inline]
pub fn write_to_buf_mut_unmeasured<B: bytes::BufMut + ?Sized>(
    buf: &mut B,
    measure: impl FnOnce() -> Result<usize, Error>,
    f: impl Fn(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let chunk = buf.chunk_mut();
    // SAFETY: `as_uninit_slice_mut` requires that we never write uninitialised bytes into
    // the slice; the `Writer` writes only initialised values.
    let spare = unsafe { chunk.as_uninit_slice_mut() };
    let mut w = Writer::new(spare, 0);
    if f(&mut w).is_ok() {
        let len = w.pos;
        // SAFETY: the writer only ever advances `pos` over bytes it has written (see
        // `append_to_vec`), within the chunk it was given, so the first `len` bytes of the
        // current chunk are initialised and `len <= chunk.len()`.
        unsafe { buf.advance_mut(len) };
        return Ok(());
    }
    let len = measure()?;
    if buf.remaining_mut() < len {
        return Err(no_room(buf.remaining_mut(), len));
    }
    hand_over(buf, len, f)
}

/// An encoding of exactly `len` bytes, for a buffer whose current chunk is too short for it:
/// encoded into a temporary vector and handed over with one `put_slice`. Out of line.
#[cold]
#[inline(never)]
fn hand_over<B: bytes::BufMut + ?Sized>(
    buf: &mut B,
    len: usize,
    f: impl FnOnce(&mut Writer<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut tmp = Vec::with_capacity(len);
    append_to_vec(&mut tmp, len, f)?;
    buf.put_slice(&tmp);
    Ok(())
}

/// The error of a buffer with room for `room` bytes given an encoding of `len`.
fn no_room(room: usize, len: usize) -> Error {
    Error::without_offset(ErrorKind::Custom(format!(
        "output buffer has room for {room} bytes, the encoding needs {len}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what a spilling writer hands over.
    struct Collect(Vec<u8>, Vec<usize>);
    impl Spill for Collect {
        fn threshold(&self) -> usize {
            4
        }
        fn spill(&mut self, head: &[u8], large: &[u8]) -> Result<(), Error> {
            self.0.extend_from_slice(head);
            self.0.extend_from_slice(large);
            self.1.push(large.len());
            Ok(())
        }
    }

    #[test]
    fn spills_large_slices_and_host_order_arrays_in_order() {
        let mut c = Collect(Vec::new(), Vec::new());
        let words = [0x0102_0304u32, 0x0506_0708];
        write_spilling(&mut Vec::new(), 1 + 4 + 8 + 8 + 2, &mut c, |w| {
            w.put([0xaa])?;
            w.put_slice(&[1, 2, 3, 4])?;
            w.put_flat(&words, Flat::<u32>::PRIMITIVE, false)?;
            // Swapped arrays are converted into the buffer, never spilled.
            w.put_flat(&words, Flat::<u32>::PRIMITIVE, true)?;
            w.chunk(2, |c| c.put([7, 7]))
        })
        .unwrap();
        let mut want = vec![0xaa, 1, 2, 3, 4];
        want.extend(words.iter().flat_map(|x| x.to_ne_bytes()));
        want.extend(words.iter().flat_map(|x| x.swap_bytes().to_ne_bytes()));
        want.extend([7, 7]);
        assert_eq!(c.0, want);
        assert_eq!(c.1, [4, 8, 0]);
        // A wrong announced length is an error, as for `append_to_vec`.
        let e = write_spilling(&mut Vec::new(), 9, &mut c, |w| w.put_slice(&[0; 8])).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { .. }), "{e}");
    }

    #[test]
    fn rebased_chunks_count_from_their_base_and_shift_errors() {
        let mut out = Vec::new();
        append_to_vec(&mut out, 7, |w| {
            w.put([1, 2, 3])?;
            w.rebased_chunk(4, 3, |c| {
                assert_eq!(c.position(), 3);
                c.put([4, 5])?;
                assert_eq!(c.position(), 5);
                c.put([6, 7])
            })
        })
        .unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7]);
        // An overflow inside is reported at the message's offset (the lengths it names are the
        // segment's end, counted from `base`).
        let e = append_to_vec(&mut Vec::new(), 13, |w| {
            w.put_zeros(11)?;
            w.rebased_chunk(2, 3, |c| c.put([0; 3]))
        })
        .unwrap_err();
        let e2 = append_to_vec(&mut Vec::new(), 13, |w| {
            w.put_zeros(11)?;
            w.chunk(2, |c| c.put([0; 3]))
        })
        .unwrap_err();
        assert_eq!((e.offset(), e2.offset()), (Some(11), Some(11)));
    }

    #[test]
    fn writes_and_commits_exactly() {
        let mut out = vec![9u8];
        append_to_vec(&mut out, 10, |w| {
            w.put([1, 2])?;
            w.chunk(4, |c| {
                c.put([3])?;
                c.put_zeros(3)
            })?;
            w.put_slice(&[4, 5])?;
            w.put_flat(
                &[0x0607u16],
                Flat::<u16>::PRIMITIVE,
                cfg!(target_endian = "little"),
            )
        })
        .unwrap();
        assert_eq!(out, [9, 1, 2, 3, 0, 0, 0, 4, 5, 6, 7]);
    }

    /// Runs `f` on a writer over exactly `room` bytes of memory that holds stale 0xAA bytes
    /// (a vector's spare capacity), fills what `f` left of the room with 7s, and returns the
    /// whole region.
    fn over_stale(room: usize, f: impl FnOnce(&mut Writer<'_>)) -> Vec<u8> {
        let mut out = vec![0xaa_u8; room];
        out.clear();
        append_to_vec(&mut out, room, |w| {
            f(w);
            let rest = w.remaining();
            w.put_slice(&vec![7; rest])
        })
        .unwrap();
        out
    }

    #[test]
    fn short_zeros_leave_no_stale_byte_whatever_the_room() {
        // The one-store path (room for 8 or more after the position) and the filling one.
        for room in 0..20 {
            for n in 0..=room.min(11) {
                let out = over_stale(room, |w| {
                    w.put_zeros(n).unwrap();
                    assert_eq!(w.written(), n);
                    assert_eq!(w.remaining(), room - n);
                });
                assert_eq!(out[..n], vec![0; n][..], "room {room}, {n} zeros");
                assert!(out[n..].iter().all(|&b| b == 7), "room {room}, {n} zeros");
            }
        }
    }

    #[test]
    fn slices_then_zeros_are_exact_in_every_branch() {
        // zeros 0 (a plain copy), 1..=8 with a region of 8 bytes or more (the store over the
        // end, then the copy), a region under 8 bytes, and more zeros than one store covers.
        for len in 0..40 {
            let src: Vec<u8> = (1..=len as u8).collect();
            for zeros in 0..12 {
                for extra in [0, 1, 9] {
                    let out = over_stale(len + zeros + extra, |w| {
                        w.put_slice_zeros(&src, zeros).unwrap();
                        assert_eq!(w.written(), len + zeros);
                    });
                    let mut want = src.clone();
                    want.resize(len + zeros, 0);
                    want.resize(len + zeros + extra, 7);
                    assert_eq!(out, want, "len {len}, zeros {zeros}, extra room {extra}");
                }
                // One byte short: an error, and nothing is committed.
                if len + zeros > 0 {
                    let out = over_stale(len + zeros - 1, |w| {
                        assert!(w.put_slice_zeros(&src, zeros).is_err());
                        assert_eq!(w.written(), 0);
                    });
                    assert!(out.iter().all(|&b| b == 7));
                }
            }
        }
    }

    /// `put_head_slice_zeros` writes what `put` and then `put_slice_zeros` write, in every
    /// branch of the zeros (none; a store over the end that also reaches over the head, when
    /// the region is 8 to 11 bytes; a region under 8 bytes; more zeros than one store covers),
    /// over stale bytes; one byte short of the head, the slice and the zeros together, it
    /// fails with nothing written.
    #[test]
    fn head_slice_and_zeros_are_those_of_put_then_put_slice_zeros() {
        let head = [0xa0, 0xa1, 0xa2, 0xa3];
        for len in 0..40 {
            let src: Vec<u8> = (1..=len as u8).collect();
            for zeros in 0..12 {
                let n = 4 + len + zeros;
                for extra in [0, 1, 9] {
                    let one = over_stale(n + extra, |w| {
                        w.put_head_slice_zeros(head, &src, zeros).unwrap();
                        assert_eq!(w.written(), n);
                    });
                    let two = over_stale(n + extra, |w| {
                        w.put(head).unwrap();
                        w.put_slice_zeros(&src, zeros).unwrap();
                    });
                    assert_eq!(one, two, "len {len}, zeros {zeros}, extra room {extra}");
                }
                let out = over_stale(n - 1, |w| {
                    assert!(w.put_head_slice_zeros(head, &src, zeros).is_err());
                    assert_eq!(w.written(), 0);
                });
                assert!(out.iter().all(|&b| b == 7), "len {len}, zeros {zeros}");
            }
        }
    }

    /// `put_head_flat` writes what `put` and then `put_flat` write, copied or swapped at every
    /// width, over stale bytes; one byte short it fails with nothing written; spilled, the head
    /// goes out before the values, which still leave from where they lie.
    #[test]
    fn head_and_flat_values_are_those_of_put_then_put_flat() {
        fn check<T>(items: &[T], proof: Flat<T>) {
            let head = [0xa0, 0xa1, 0xa2, 0xa3];
            let n = 4 + core::mem::size_of_val(items);
            for swap in [false, true] {
                let one = over_stale(n + 3, |w| {
                    w.put_head_flat(head, items, proof, swap).unwrap();
                    assert_eq!(w.written(), n);
                });
                let two = over_stale(n + 3, |w| {
                    w.put(head).unwrap();
                    w.put_flat(items, proof, swap).unwrap();
                });
                assert_eq!(one, two, "{} items, swap {swap}", items.len());
                let out = over_stale(n - 1, |w| {
                    assert!(w.put_head_flat(head, items, proof, swap).is_err());
                    assert_eq!(w.written(), 0);
                });
                assert!(out.iter().all(|&b| b == 7));
            }
        }
        let words: Vec<u64> = (0..70)
            .map(|i| 0x0102_0304_0506_0708_u64 << (i % 8))
            .collect();
        for k in [0, 1, 3, 8, 33, 70] {
            check(&words[..k], Flat::<u64>::PRIMITIVE);
            let w4: Vec<u32> = words[..k]
                .iter()
                .map(|&x| x as u32 ^ (x >> 32) as u32)
                .collect();
            check(&w4, Flat::<u32>::PRIMITIVE);
            let w2: Vec<u16> = w4.iter().map(|&x| x as u16).collect();
            check(&w2, Flat::<u16>::PRIMITIVE);
            let w1: Vec<u8> = w4.iter().map(|&x| x as u8).collect();
            check(&w1, Flat::<u8>::PRIMITIVE);
        }
        let mut c = Collect(Vec::new(), Vec::new());
        let p = Flat::<u16>::PRIMITIVE;
        write_spilling(&mut Vec::new(), 2 + 4 + 2 + 4, &mut c, |w| {
            w.put_head_flat([1, 2], &[0x0304u16, 0x0506], p, false)?; // spilled after its head
            w.put_head_flat([7, 8], &[0x090a_u16, 0x0b0c], p, true) // swapped: gathered
        })
        .unwrap();
        let mut want = vec![1, 2];
        want.extend([0x0304u16, 0x0506].iter().flat_map(|x| x.to_ne_bytes()));
        want.extend([7, 8]);
        want.extend(
            [0x090a_u16, 0x0b0c]
                .iter()
                .flat_map(|x| x.swap_bytes().to_ne_bytes()),
        );
        assert_eq!(c.0, want);
        assert_eq!(c.1, [4, 0]);
    }

    /// A string that may hold no NUL, after 0–63 bytes (every destination phase the short
    /// copy distinguishes), of lengths around and across the short copy's bound, with 0–9
    /// zeros, over stale bytes: exact bytes and zeros; with a NUL (at a place that moves
    /// with the phase), the error and nothing committed.
    #[test]
    fn nul_free_slices_are_exact_and_a_nul_commits_nothing() {
        let nul = || Error::new(ErrorKind::InteriorNul, 0);
        let lens = (0..200usize).step_by(3).chain([63, 64, 65, 255, 256, 300]);
        for len in lens {
            let src: Vec<u8> = (0..len).map(|i| 1 + (i * 13 % 250) as u8).collect();
            for zeros in [0usize, 1, 3, 9] {
                for phase in 0..64usize {
                    let at = format!("len {len}, zeros {zeros}, after {phase}");
                    let out = over_stale(phase + len + zeros + 9, |w| {
                        w.put_slice(&vec![5; phase]).unwrap();
                        w.put_slice_zeros_without_nul(&src, zeros, nul).unwrap();
                        assert_eq!(w.written(), phase + len + zeros, "{at}");
                    });
                    let mut want = vec![5; phase];
                    want.extend_from_slice(&src);
                    want.resize(phase + len + zeros, 0);
                    want.resize(phase + len + zeros + 9, 7);
                    assert_eq!(out, want, "{at}");
                    if len > 0 {
                        let mut with_nul = src.clone();
                        with_nul[(phase * 7) % len] = 0;
                        over_stale(phase + len + zeros, |w| {
                            w.put_slice(&vec![5; phase]).unwrap();
                            let e = w.put_slice_zeros_without_nul(&with_nul, zeros, nul);
                            assert_eq!(e.unwrap_err().kind(), &ErrorKind::InteriorNul, "{at}");
                            assert_eq!(w.written(), phase, "{at}: nothing committed");
                        });
                    }
                }
            }
        }
    }

    #[test]
    fn padded_primitives_zero_their_padding() {
        for pad in 0..10 {
            for extra in [0, 5] {
                let out = over_stale(pad + 4 + extra, |w| {
                    w.put_padded(pad, [1, 2, 3, 4]).unwrap();
                    assert_eq!(w.written(), pad + 4);
                });
                let mut want = vec![0; pad];
                want.extend([1, 2, 3, 4]);
                want.resize(pad + 4 + extra, 7);
                assert_eq!(out, want, "pad {pad}");
            }
            let out = over_stale(pad + 8, |w| w.put_padded(pad, [9u8; 8]).unwrap());
            assert_eq!(out[..pad], vec![0; pad][..]);
            assert_eq!(out[pad..], [9; 8]);
        }
    }

    #[test]
    fn spilled_slices_keep_their_zeros_in_order() {
        let mut c = Collect(Vec::new(), Vec::new());
        write_spilling(&mut Vec::new(), 16, &mut c, |w| {
            w.put_slice_zeros(&[1, 2], 2)?; // short: gathered
            w.put_slice_zeros(&[3, 4, 5, 6, 7], 3)?; // long: spilled, then its zeros
            w.put_slice_zeros(&[8, 9, 10], 1)
        })
        .unwrap();
        assert_eq!(c.0, [1, 2, 0, 0, 3, 4, 5, 6, 7, 0, 0, 0, 8, 9, 10, 0]);
        assert_eq!(c.1, [5, 0]);
        // With a head: it goes out before the spilled slice, and the zeros after it.
        let mut c = Collect(Vec::new(), Vec::new());
        write_spilling(&mut Vec::new(), 2 + 5 + 3 + 2 + 1 + 3, &mut c, |w| {
            w.put_head_slice_zeros([0xa, 0xb], &[3, 4, 5, 6, 7], 3)?; // spilled
            w.put_head_slice_zeros([0xc, 0xd], &[8], 3) // gathered
        })
        .unwrap();
        assert_eq!(
            c.0,
            [0xa, 0xb, 3, 4, 5, 6, 7, 0, 0, 0, 0xc, 0xd, 8, 0, 0, 0]
        );
        assert_eq!(c.1, [5, 0]);
    }

    #[test]
    fn one_flat_value_is_copied_swapped_or_spilled() {
        let x = 0x0102_0304_0506_0708_u64;
        let p = Flat::<u64>::PRIMITIVE;
        let out = over_stale(16, |w| {
            w.put_flat_one(&x, p, false).unwrap();
            w.put_flat_one(&x, p, true).unwrap();
        });
        assert_eq!(out[..8], x.to_ne_bytes());
        assert_eq!(out[8..], x.swap_bytes().to_ne_bytes());
        // In the host's order a value at the threshold is spilled; swapped, it is converted.
        let mut c = Collect(Vec::new(), Vec::new());
        write_spilling(&mut Vec::new(), 16, &mut c, |w| {
            w.put_flat_one(&x, p, false)?;
            w.put_flat_one(&x, p, true)
        })
        .unwrap();
        assert_eq!(c.0, out);
        assert_eq!(c.1, [8, 0]);
        // A value long enough for the swap's run-time kernel (536 bytes): the same bytes.
        let big: [u64; 67] = core::array::from_fn(|i| x.rotate_left(i as u32));
        // SAFETY: an array of `u64` is a whole number of `u64`s, the same bytes meaning the
        // same words, and valid for every bit pattern.
        let pb = unsafe { p.cast::<[u64; 67]>() };
        let n = core::mem::size_of_val(&big);
        let out = over_stale(2 * n, |w| {
            w.put_flat_one(&big, pb, false).unwrap();
            w.put_flat_one(&big, pb, true).unwrap();
        });
        let want: Vec<u8> = big
            .iter()
            .map(|v| v.to_ne_bytes())
            .chain(big.iter().map(|v| v.swap_bytes().to_ne_bytes()))
            .flatten()
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn prefetching_asks_for_each_line_ahead_once_and_changes_no_byte() {
        for room in [0usize, 1, 63, 64, 700, 5000] {
            let out = over_stale(room, |w| {
                let mut last = 0;
                while w.remaining() > 0 {
                    w.prefetch();
                    let want = (w.written() + PREFETCH_AHEAD).min(room);
                    assert!(
                        w.fetched >= want
                            && w.fetched < want.max(last) + PREFETCH_BATCH * PREFETCH_LINE
                    );
                    assert!(w.fetched >= last, "the watermark only rises");
                    last = w.fetched;
                    let n = w.remaining().min(37);
                    w.put_slice(&vec![3; n]).unwrap();
                }
                w.prefetch();
            });
            assert!(out.iter().all(|&b| b == 3), "room {room}");
        }
    }

    #[test]
    fn short_or_long_writes_are_errors_not_exposure() {
        let mut out = Vec::new();
        let e = append_to_vec(&mut out, 4, |w| w.put([1, 2])).unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::LengthMismatch {
                announced: 4,
                written: 2
            }
        ));
        assert!(out.is_empty());
        let e = append_to_vec(&mut out, 1, |w| w.put([1, 2])).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { .. }));
        let e = append_to_vec(&mut out, 2, |w| w.chunk(3, |_| Ok(()))).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { .. }));
        assert!(out.is_empty());
    }

    #[test]
    fn depth_limit() {
        let mut out = Vec::new();
        let e = append_to_vec(&mut out, 0, |w| {
            for _ in 0..=crate::DEFAULT_MAX_DEPTH {
                w.enter()?;
            }
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::DepthLimit { .. }));
    }

    #[test]
    fn buf_mut_in_place_and_fallback() {
        // In place: a Vec with room gives one chunk large enough.
        let mut v: Vec<u8> = Vec::with_capacity(64);
        write_to_buf_mut(&mut v, 3, |w| w.put([1, 2, 3])).unwrap();
        assert_eq!(v, [1, 2, 3]);
        // Fallback: a chunk smaller than the encoding.
        let mut v: Vec<u8> = Vec::new();
        write_to_buf_mut(&mut v, 200, |w| w.put_zeros(200)).unwrap();
        assert_eq!(v.len(), 200);
        // A limited BufMut without room.
        let mut arr = [0u8; 2];
        let mut s: &mut [u8] = &mut arr;
        assert!(write_to_buf_mut(&mut s, 3, |w| w.put([1, 2, 3])).is_err());
    }

    #[test]
    fn in_place_appends_only_what_fits_and_succeeds() {
        let bytes: Vec<u8> = (0..100).collect();
        let mut v: Vec<u8> = Vec::with_capacity(16);
        v.extend_from_slice(&[7, 8]);
        let room = v.capacity() - 2;
        // Exactly the room: appended after what was there.
        assert_eq!(
            append_in_place(&mut v, usize::MAX, |w| w.put_slice(&bytes[..room])),
            Some(room)
        );
        assert_eq!(v[..2], [7, 8]);
        assert_eq!(v[2..], bytes[..room]);
        let before = v.clone();
        v.reserve(32);
        let room = v.capacity() - v.len();
        // One byte more than the room, or than the limit: nothing is committed, even though
        // the first segment was written into the spare capacity.
        let two = |n: usize| {
            let bytes = &bytes;
            move |w: &mut Writer<'_>| {
                w.put([1])?;
                w.put_slice(&bytes[..n - 1])
            }
        };
        assert_eq!(append_in_place(&mut v, usize::MAX, two(room + 1)), None);
        assert_eq!(append_in_place(&mut v, 10, two(11)), None);
        assert_eq!(v, before);
        assert_eq!(append_in_place(&mut v, 10, two(10)), Some(10));
        assert_eq!(v.len(), before.len() + 10);
        // An error of the encoder's own: nothing committed either.
        let failing = |w: &mut Writer<'_>| {
            w.put([1, 2, 3])?;
            Err(w.error(ErrorKind::Custom("no".into())))
        };
        let len = v.len();
        assert_eq!(append_in_place(&mut v, usize::MAX, failing), None);
        assert_eq!(v.len(), len);
        // No spare capacity at all: nothing is allocated, and an empty encoding still fits.
        let mut empty = Vec::new();
        assert_eq!(
            append_in_place(&mut empty, usize::MAX, |w| w.put([1])),
            None
        );
        assert_eq!(append_in_place(&mut empty, usize::MAX, |_| Ok(())), Some(0));
        assert_eq!(empty.capacity(), 0);
    }

    #[test]
    fn unmeasured_in_place_measures_only_when_it_falls_short() {
        use std::cell::Cell;
        let measured = Cell::new(0);
        let measure = |n: usize| {
            let measured = &measured;
            move || {
                measured.set(measured.get() + 1);
                Ok(n)
            }
        };
        let bytes: Vec<u8> = (0..200).collect();
        let put = |n: usize| {
            let bytes = &bytes;
            move |w: &mut Writer<'_>| w.put_slice(&bytes[..n])
        };

        // Room in the chunk: one pass, no measuring, appended after what was there.
        let mut v: Vec<u8> = Vec::with_capacity(64);
        v.push(9);
        write_to_buf_mut_unmeasured(&mut v, measure(3), put(3)).unwrap();
        assert_eq!((v.as_slice(), measured.get()), (&[9, 0, 1, 2][..], 0));

        // A chunk too short: measured once, then handed over whole.
        let mut v: Vec<u8> = Vec::with_capacity(16);
        v.push(9);
        write_to_buf_mut_unmeasured(&mut v, measure(200), put(200)).unwrap();
        assert_eq!(v[0], 9);
        assert_eq!(v[1..], bytes[..]);
        assert_eq!(measured.get(), 1);

        // A slice: room exactly, in place; one byte short, an error and nothing committed
        // (the slice still starts where it did).
        let mut arr = [0u8; 5];
        let mut s: &mut [u8] = &mut arr;
        write_to_buf_mut_unmeasured(&mut s, measure(5), put(5)).unwrap();
        assert!(s.is_empty());
        assert_eq!(arr, [0, 1, 2, 3, 4]);
        let mut arr = [0u8; 4];
        let mut s: &mut [u8] = &mut arr;
        let e = write_to_buf_mut_unmeasured(&mut s, measure(5), put(5)).unwrap_err();
        assert!(e.to_string().contains("room for 4 bytes"), "{e}");
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn unmeasured_errors_are_those_of_the_measured_path() {
        // The encoder fails with room to spare: the measure's error is returned when it has
        // one, else the encoder's own from the second pass; nothing is committed.
        let mut v: Vec<u8> = Vec::with_capacity(64);
        v.push(9);
        let fail = |w: &mut Writer<'_>| {
            w.put([1, 2])?;
            Err(Error::new(
                ErrorKind::Custom("bad value".into()),
                w.position(),
            ))
        };
        let e = write_to_buf_mut_unmeasured(
            &mut v,
            || Err(Error::without_offset(ErrorKind::Custom("too long".into()))),
            fail,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "too long");
        let e = write_to_buf_mut_unmeasured(&mut v, || Ok(2), fail).unwrap_err();
        assert_eq!(e.to_string(), "bad value at offset 2");
        // A measure that disagrees with what is written is a length mismatch, as for
        // `write_to_buf_mut`.
        let e = write_to_buf_mut_unmeasured(&mut v, || Ok(3), |w| w.put([0; 100])).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { .. }), "{e}");
        assert_eq!(v, [9]);
        // The depth limit holds in the one pass: nesting beyond it fails even with room.
        let deep = |w: &mut Writer<'_>| {
            for _ in 0..=crate::DEFAULT_MAX_DEPTH {
                w.enter()?;
            }
            Ok(())
        };
        let e = write_to_buf_mut_unmeasured(&mut v, || Ok(0), deep).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::DepthLimit { .. }), "{e}");
        assert_eq!(v, [9]);
    }
}
