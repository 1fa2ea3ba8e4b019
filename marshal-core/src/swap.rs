//! Bulk byte-order kernels: copy an array of 2-, 4- or 8-byte words while reversing the bytes
//! of every word (host little-endian ⇄ wire big-endian), into possibly uninitialised memory.
//!
//! On x86-64 the word reversal is one `pshufb` per vector, chosen at run time: for copies an
//! AVX-512BW kernel (64-byte vectors, 128 bytes per iteration, stores aligned to the
//! destination's cache lines), then an AVX2 kernel (32-byte vectors, 64 bytes per iteration),
//! an SSSE3 kernel (16-byte vectors), else the portable scalar loop, which on the baseline
//! x86-64 target (SSE2, no `pshufb`) runs at well under memcpy speed. Inputs shorter than 32 bytes skip the dispatch and go straight to the
//! scalar loop. Other architectures use the portable loop only, which LLVM vectorises where a
//! vector byte-reverse exists (for example `rev32`/`rev64` on aarch64).
//!
//! [`copy_slice`] copies a slice of run-time length unchanged; from 32 to 256 bytes on a CPU
//! with AVX2 it is a few overlapping 32-byte vectors rather than a call to `memcpy`.
//!
//! The copying kernels finish with one *overlapping* vector that ends exactly at the end of the
//! buffer (it re-writes a few bytes with the same values), so they have no scalar tail. The
//! in-place kernels cannot re-read what they already swapped, so they finish with a scalar tail.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

use core::mem::MaybeUninit;

use crate::cpu::Known;

/// Inputs shorter than this many bytes use the scalar loop without run-time feature detection.
const SIMD_MIN: usize = 32;

/// [`copy_slice`] of `SIMD_MIN` to this many bytes is a few 32-byte loads and stores of our
/// own (AVX2, where the CPU has it) rather than a call to `memcpy`: inlined into a loop
/// compiled for AVX2 (see [`crate::wide`]) they cost no call, no dispatch and no register
/// spill, which for a name of a hundred bytes is most of the copy.
const SHORT_COPY_MAX: usize = 256;

/// Inputs shorter than this many bytes use the AVX2 kernel even where AVX-512BW is available:
/// on a few vectors' worth the 64-byte kernel's alignment prologue and overlapping last vector
/// cost more than its wider stores save (a directory entry's 120 bytes of ints decoded 8–10 %
/// slower through it). The kernels compiled for one size (`copy_swap*_sized`) hand values of
/// this size or more to the run-time kernel.
const AVX512_MIN: usize = 512;

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/// Copies `src` into `dst`, reversing the bytes of every 2-byte word.
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst.len() != src.len()` or `src.len()` is not a multiple of 2 (callers guarantee both).
#[inline]
#[track_caller]
pub fn copy_swap2(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap::<2>(dst, src);
}

/// Copies `src` into `dst`, reversing the bytes of every 4-byte word.
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst.len() != src.len()` or `src.len()` is not a multiple of 4 (callers guarantee both).
#[inline]
#[track_caller]
pub fn copy_swap4(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap::<4>(dst, src);
}

/// Copies `src` into `dst`, reversing the bytes of every 8-byte word.
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst.len() != src.len()` or `src.len()` is not a multiple of 8 (callers guarantee both).
#[inline]
#[track_caller]
pub fn copy_swap8(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap::<8>(dst, src);
}

/// Copies `src` into `dst` unchanged (a `memcpy`).
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst.len() != src.len()`.
#[inline]
#[track_caller]
pub fn copy(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    if dst.len() != src.len() {
        length_mismatch(dst.len(), src.len());
    }
    // `<[MaybeUninit<u8>]>::write_copy_of_slice` would make this safe, but it is only stable
    // since Rust 1.93 and the workspace's `rust-version` is 1.88.
    //
    // SAFETY: `src` is valid for reads of `src.len()` bytes (it is a live shared slice) and
    // `dst` for writes of `dst.len()` bytes (a live exclusive slice; `MaybeUninit<u8>` has the
    // size and alignment of `u8`, and writing to uninitialised memory is allowed); the lengths
    // were checked equal just above. `u8` has alignment 1, so both pointers are aligned. The
    // regions cannot overlap, because `dst` is borrowed exclusively while `src` is borrowed.
    unsafe {
        core::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len())
    };
}

/// [`copy`] for a slice whose length is known only at run time (a name, a string): from 32 to
/// 256 bytes it is a few 32-byte loads and stores of our own where the CPU has AVX2, which
/// inline into a loop compiled for AVX2 ([`crate::wide`]) with no call, dispatch or register
/// spill; other lengths, and other CPUs, go to `memcpy`. (A copy of a constant length stays
/// with [`copy`], which the compiler turns into moves of its own.)
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst.len() != src.len()`.
#[inline]
#[track_caller]
pub fn copy_slice(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_slice_in(Known::NOTHING, dst, src);
}

/// [`copy_slice`] by code that `known` tells what the CPU has.
#[inline(always)]
#[track_caller]
pub(crate) fn copy_slice_in(known: Known, dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if short_avx2(known, src.len()) {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which `short_avx2` found known or detected
        // at run time just above; everything else is enforced by its safe signature.
        unsafe { x86::copy_short_avx2_only(dst, src) };
        return;
    }
    copy(dst, src);
}

/// Whether a copy of `n` bytes goes to [`x86::copy_short_avx2`]: its lengths, on a CPU with
/// AVX2 (which `known` may say without asking).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn short_avx2(known: Known, n: usize) -> bool {
    (SIMD_MIN..=SHORT_COPY_MAX).contains(&n) && known.avx2()
}

/// [`copy_swap2`] for exactly `size_of::<A>()` bytes, the memory image of one value of type
/// `A` (a fixed-size array of 2-byte words): the vector kernel is compiled for that one
/// length, with no loop count or tail left to decide at run time, which is most of the cost
/// of swapping a short array.
///
/// # Panics
///
/// If `dst` or `src` is not `size_of::<A>()` bytes long, or that is not a multiple of 2.
#[inline]
#[track_caller]
pub fn copy_swap2_sized<A>(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap_sized::<A, 2>(Known::NOTHING, dst, src);
}

/// [`copy_swap4`] for exactly `size_of::<A>()` bytes (see [`copy_swap2_sized`]).
///
/// # Panics
///
/// If `dst` or `src` is not `size_of::<A>()` bytes long, or that is not a multiple of 4.
#[inline]
#[track_caller]
pub fn copy_swap4_sized<A>(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap_sized::<A, 4>(Known::NOTHING, dst, src);
}

/// [`copy_swap8`] for exactly `size_of::<A>()` bytes (see [`copy_swap2_sized`]).
///
/// # Panics
///
/// If `dst` or `src` is not `size_of::<A>()` bytes long, or that is not a multiple of 8.
#[inline]
#[track_caller]
pub fn copy_swap8_sized<A>(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    copy_swap_sized::<A, 8>(Known::NOTHING, dst, src);
}

/// Reverses, in place, the bytes of every 2-byte word of `buf`.
///
/// # Panics
///
/// If `buf.len()` is not a multiple of 2 (callers guarantee it).
#[inline]
#[track_caller]
pub fn swap2_in_place(buf: &mut [u8]) {
    swap_in_place::<2>(buf);
}

/// Reverses, in place, the bytes of every 4-byte word of `buf`.
///
/// # Panics
///
/// If `buf.len()` is not a multiple of 4 (callers guarantee it).
#[inline]
#[track_caller]
pub fn swap4_in_place(buf: &mut [u8]) {
    swap_in_place::<4>(buf);
}

/// Reverses, in place, the bytes of every 8-byte word of `buf`.
///
/// # Panics
///
/// If `buf.len()` is not a multiple of 8 (callers guarantee it).
#[inline]
#[track_caller]
pub fn swap8_in_place(buf: &mut [u8]) {
    swap_in_place::<8>(buf);
}

// ---------------------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------------------

#[cold]
#[inline(never)]
#[track_caller]
fn length_mismatch(dst: usize, src: usize) -> ! {
    panic!("swap: destination length {dst} != source length {src}");
}

#[cold]
#[inline(never)]
#[track_caller]
fn not_whole_words(len: usize, width: usize) -> ! {
    panic!("swap: length {len} is not a multiple of the word width {width}");
}

#[inline]
#[track_caller]
fn copy_swap<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
where
    Word: Swap<W>,
{
    if dst.len() != src.len() {
        length_mismatch(dst.len(), src.len());
    }
    if !src.len().is_multiple_of(W) {
        not_whole_words(src.len(), W);
    }
    #[cfg(target_arch = "x86_64")]
    if src.len() >= SIMD_MIN {
        return copy_swap_vector::<W>(dst, src);
    }
    scalar::copy_swap::<W>(dst, src);
}

/// The vector kernel this CPU has, chosen at run time. Out of line: at a call site with a
/// constant length (a fixed-size array), an inlined dispatch and scalar fallback would make
/// the caller look too big to inline, while short arrays still take the inlined scalar path.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn copy_swap_vector<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
where
    Word: Swap<W>,
{
    if src.len() >= AVX512_MIN && std::is_x86_feature_detected!("avx512bw") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx512bw")]`
        // function is that the CPU supports AVX-512BW, which was detected at run time just
        // above; everything else is enforced by its safe signature.
        unsafe { x86::copy_swap_avx512::<W>(dst, src) };
        return;
    }
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which was detected at run time just above;
        // everything else is enforced by its safe signature.
        unsafe { x86::copy_swap_avx2::<W>(dst, src) };
        return;
    }
    if std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "ssse3")]`
        // function is that the CPU supports SSSE3, which was detected at run time just above;
        // everything else is enforced by its safe signature.
        unsafe { x86::copy_swap_ssse3::<W>(dst, src) };
        return;
    }
    scalar::copy_swap::<W>(dst, src);
}

/// `copy_swap{width}_sized` by code that `known` tells what the CPU has: `width` is 2, 4 or
/// (anything else) 8, a flat type's word widths.
///
/// # Panics
///
/// As `copy_swap{width}_sized`.
#[inline(always)]
#[track_caller]
pub(crate) fn copy_swap_sized_in<A>(
    known: Known,
    width: usize,
    dst: &mut [MaybeUninit<u8>],
    src: &[u8],
) {
    match width {
        2 => copy_swap_sized::<A, 2>(known, dst, src),
        4 => copy_swap_sized::<A, 4>(known, dst, src),
        _ => copy_swap_sized::<A, 8>(known, dst, src),
    }
}

#[inline]
#[track_caller]
fn copy_swap_sized<A, const W: usize>(known: Known, dst: &mut [MaybeUninit<u8>], src: &[u8])
where
    Word: Swap<W>,
{
    let n = core::mem::size_of::<A>();
    if dst.len() != n || src.len() != n {
        length_mismatch(dst.len(), src.len());
    }
    if !n.is_multiple_of(W) {
        not_whole_words(n, W);
    }
    #[cfg(target_arch = "x86_64")]
    if n >= AVX512_MIN {
        // Long enough that the run-time kernel's loop costs nothing next to the swap, and it
        // has the widest vectors the CPU offers.
        return copy_swap_vector::<W>(dst, src);
    }
    #[cfg(target_arch = "x86_64")]
    if n >= SIMD_MIN {
        if known.avx2() {
            // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
            // function is that the CPU supports AVX2, which was known or detected at run time
            // just above; everything else is enforced by its safe signature. Called from here rather
            // than through `copy_swap_vector_sized` so that it inlines into code compiled for
            // AVX2 (see [`crate::wide`]).
            unsafe { x86::copy_swap_avx2_sized::<A, W>(dst, src) };
            return;
        }
        return copy_swap_vector_sized::<A, W>(dst, src);
    }
    scalar::copy_swap::<W>(dst, src);
}

/// [`copy_swap_vector`] compiled for one length, `size_of::<A>()` (the caller checked both
/// slices have it): each kernel is instantiated for `A` too, so its loops and tail fold.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn copy_swap_vector_sized<A, const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
where
    Word: Swap<W>,
{
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which was detected at run time just above;
        // everything else is enforced by its safe signature.
        unsafe { x86::copy_swap_avx2_sized::<A, W>(dst, src) };
        return;
    }
    if std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "ssse3")]`
        // function is that the CPU supports SSSE3, which was detected at run time just above;
        // everything else is enforced by its safe signature.
        unsafe { x86::copy_swap_ssse3_sized::<A, W>(dst, src) };
        return;
    }
    scalar::copy_swap::<W>(dst, src);
}

#[inline]
#[track_caller]
fn swap_in_place<const W: usize>(buf: &mut [u8])
where
    Word: Swap<W>,
{
    if !buf.len().is_multiple_of(W) {
        not_whole_words(buf.len(), W);
    }
    #[cfg(target_arch = "x86_64")]
    if buf.len() >= SIMD_MIN {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
            // function is that the CPU supports AVX2, which was detected at run time just above;
            // everything else is enforced by its safe signature.
            unsafe { x86::swap_in_place_avx2::<W>(buf) };
            return;
        }
        if std::is_x86_feature_detected!("ssse3") {
            // SAFETY: the only precondition of calling this `#[target_feature(enable = "ssse3")]`
            // function is that the CPU supports SSSE3, which was detected at run time just above;
            // everything else is enforced by its safe signature.
            unsafe { x86::swap_in_place_ssse3::<W>(buf) };
            return;
        }
    }
    scalar::swap_in_place::<W>(buf);
}

// ---------------------------------------------------------------------------------------------
// Portable scalar kernels
// ---------------------------------------------------------------------------------------------

/// Names the word widths this module supports (implemented by [`Word`] for 2, 4 and 8).
trait Swap<const W: usize> {
    /// `bytes` in reverse order.
    fn swap(bytes: [u8; W]) -> [u8; W];
}

/// Carrier of the [`Swap`] implementations.
enum Word {}

impl Swap<2> for Word {
    #[inline(always)]
    fn swap(bytes: [u8; 2]) -> [u8; 2] {
        u16::from_ne_bytes(bytes).swap_bytes().to_ne_bytes()
    }
}

impl Swap<4> for Word {
    #[inline(always)]
    fn swap(bytes: [u8; 4]) -> [u8; 4] {
        u32::from_ne_bytes(bytes).swap_bytes().to_ne_bytes()
    }
}

impl Swap<8> for Word {
    #[inline(always)]
    fn swap(bytes: [u8; 8]) -> [u8; 8] {
        u64::from_ne_bytes(bytes).swap_bytes().to_ne_bytes()
    }
}

mod scalar {
    use super::{Swap, Word};
    use core::mem::MaybeUninit;

    /// Portable copy-and-swap. Only whole words are processed: callers check
    /// `dst.len() == src.len()` and `src.len() % W == 0`.
    #[inline]
    pub(super) fn copy_swap<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        let (dst, _) = dst.as_chunks_mut::<W>();
        let (src, _) = src.as_chunks::<W>();
        for (d, s) in dst.iter_mut().zip(src) {
            *d = Word::swap(*s).map(MaybeUninit::new);
        }
    }

    /// Portable in-place swap of every whole word of `buf`.
    #[inline]
    pub(super) fn swap_in_place<const W: usize>(buf: &mut [u8])
    where
        Word: Swap<W>,
    {
        for w in buf.as_chunks_mut::<W>().0 {
            *w = Word::swap(*w);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// x86-64 vector kernels
// ---------------------------------------------------------------------------------------------

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    use super::{scalar, Swap, Word, SHORT_COPY_MAX, SIMD_MIN};
    use core::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm256_loadu_si256, _mm256_min_epu8, _mm256_set1_epi8,
        _mm256_set_epi64x, _mm256_shuffle_epi8, _mm256_storeu_si256, _mm512_loadu_si512,
        _mm512_set_epi64, _mm512_shuffle_epi8, _mm512_storeu_si512, _mm_loadu_si128,
        _mm_set_epi64x, _mm_shuffle_epi8, _mm_storeu_si128,
    };
    use core::mem::MaybeUninit;

    /// The low 8 bytes of the `pshufb` control that reverses every `w`-byte word of a 16-byte
    /// lane, as a little-endian `i64`: byte `i` selects source byte
    /// `i - i % w + (w - 1 - i % w)`. The high 8 bytes are this plus 8 in every byte.
    pub(super) const fn shuffle_lo(w: usize) -> i64 {
        let mut m = 0u64;
        let mut i = 0;
        while i < 8 {
            let sel = i - i % w + (w - 1 - i % w);
            m |= (sel as u64) << (8 * i);
            i += 1;
        }
        m as i64
    }

    /// `shuffle_lo(w)` for the high half of a lane: every selector plus 8 (no byte carries,
    /// because every selector is at most 7).
    pub(super) const fn shuffle_hi(w: usize) -> i64 {
        shuffle_lo(w) + 0x0808_0808_0808_0808
    }

    /// The `vpshufb` control reversing every `W`-byte word of both 16-byte lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn mask256<const W: usize>() -> __m256i {
        // Evaluated at compile time (a plain call is not reliably folded).
        let (lo, hi) = const { (shuffle_lo(W), shuffle_hi(W)) };
        _mm256_set_epi64x(hi, lo, hi, lo)
    }

    /// The `pshufb` control reversing every `W`-byte word of a 16-byte vector.
    #[target_feature(enable = "ssse3")]
    #[inline]
    fn mask128<const W: usize>() -> __m128i {
        let (lo, hi) = const { (shuffle_lo(W), shuffle_hi(W)) };
        _mm_set_epi64x(hi, lo)
    }

    /// The `vpshufb` control reversing every `W`-byte word of all four 16-byte lanes.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    fn mask512<const W: usize>() -> __m512i {
        let (lo, hi) = const { (shuffle_lo(W), shuffle_hi(W)) };
        _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo)
    }

    // -----------------------------------------------------------------------------------------
    // AVX-512
    // -----------------------------------------------------------------------------------------

    /// Copies `src` into `dst` reversing every `W`-byte word, 64 bytes per `vpshufb`, with the
    /// stores on 64-byte boundaries (one cache line each) wherever the destination's words
    /// allow: a store that straddles two lines costs about two, and an unaligned 64-byte store
    /// always straddles. Inputs shorter than 64 bytes go to the AVX2 kernel.
    ///
    /// Requires AVX-512BW (hence `unsafe` to call from code without that feature). Any length
    /// is sound; the result is only meaningful when `src.len() % W == 0`.
    ///
    /// # Panics
    ///
    /// If `dst.len() != src.len()`.
    #[target_feature(enable = "avx512bw")]
    pub(super) fn copy_swap_avx512<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        assert_eq!(dst.len(), src.len());
        let len = src.len();
        if len < 64 {
            // AVX-512BW implies AVX2, so this function may call the AVX2 one.
            copy_swap_avx2::<W>(dst, src);
            return;
        }
        let mask = mask512::<W>();
        // Bytes from `dst` to its next 64-byte boundary. The stores start there when that is a
        // whole number of words (so every later store also starts on a word), after one
        // unaligned vector that covers the bytes before it; else they stay unaligned from 0.
        let skew = dst.as_ptr().addr().wrapping_neg() % 64;
        let start = if skew.is_multiple_of(W) { skew } else { 0 };
        if start != 0 {
            copy_swap_one_avx512(&mut dst[..64], &src[..64], mask);
        }

        // Main loop: 128 bytes (two vectors) per iteration, from `start < 64 <= len`.
        let (s128, _) = src[start..].as_chunks::<128>();
        let (d128, _) = dst[start..].as_chunks_mut::<128>();
        for (d, s) in d128.iter_mut().zip(s128) {
            let s0 = s.as_ptr().cast::<__m512i>();
            let s1 = s.as_ptr().wrapping_add(64).cast::<__m512i>();
            let d0 = d.as_mut_ptr().cast::<__m512i>();
            let d1 = d.as_mut_ptr().wrapping_add(64).cast::<__m512i>();
            // SAFETY: `s` is a `&[u8; 128]`, so its bytes `0..64` are readable through `s0`;
            // the load is unaligned (no alignment requirement); AVX-512BW (and with it
            // AVX-512F) is enabled on this function.
            let a = unsafe { _mm512_loadu_si512(s0) };
            // SAFETY: bytes `64..128` of the 128-byte `s` are readable through `s1`
            // (`s.as_ptr() + 64`, in bounds); unaligned load; AVX-512F is enabled.
            let b = unsafe { _mm512_loadu_si512(s1) };
            let a = _mm512_shuffle_epi8(a, mask);
            let b = _mm512_shuffle_epi8(b, mask);
            // SAFETY: `d` is a `&mut [MaybeUninit<u8>; 128]`, so its bytes `0..64` are
            // writable through `d0` (uninitialised memory may be written); the store has no
            // alignment requirement; AVX-512F is enabled.
            unsafe { _mm512_storeu_si512(d0, a) };
            // SAFETY: bytes `64..128` of the 128-byte `d` are writable through `d1`
            // (`d.as_mut_ptr() + 64`, in bounds); unaligned store; AVX-512F is enabled.
            unsafe { _mm512_storeu_si512(d1, b) };
        }

        // At most one more whole vector, then one vector ending exactly at the end. The last
        // one starts at `len - 64`, a multiple of `W` when `len` is (64 is a multiple of `W`),
        // so it re-writes the overlap with the same swapped bytes.
        let mut done = start + s128.len() * 128;
        if len - done >= 64 {
            copy_swap_one_avx512(&mut dst[done..done + 64], &src[done..done + 64], mask);
            done += 64;
        }
        if done < len {
            let last = len - 64;
            copy_swap_one_avx512(&mut dst[last..], &src[last..], mask);
        }
    }

    /// Shuffles the first 64 bytes of `src` by `mask` into the first 64 bytes of `dst`.
    ///
    /// # Panics
    ///
    /// If either slice is shorter than 64 bytes.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    fn copy_swap_one_avx512(dst: &mut [MaybeUninit<u8>], src: &[u8], mask: __m512i) {
        let s: &[u8; 64] = src.first_chunk().expect("at least 64 source bytes");
        let d: &mut [MaybeUninit<u8>; 64] = dst
            .first_chunk_mut()
            .expect("at least 64 destination bytes");
        // SAFETY: `s` is a `&[u8; 64]`, so 64 bytes are readable from its start; unaligned
        // load; AVX-512BW (and with it AVX-512F) is enabled on this function.
        let v = unsafe { _mm512_loadu_si512(s.as_ptr().cast::<__m512i>()) };
        let v = _mm512_shuffle_epi8(v, mask);
        // SAFETY: `d` is a `&mut [MaybeUninit<u8>; 64]`, so 64 bytes are writable from its
        // start (uninitialised memory may be written); unaligned store; AVX-512F is enabled.
        unsafe { _mm512_storeu_si512(d.as_mut_ptr().cast::<__m512i>(), v) };
    }

    // -----------------------------------------------------------------------------------------
    // AVX2
    // -----------------------------------------------------------------------------------------

    /// Copies `src` into `dst` reversing every `W`-byte word, 32 bytes per `vpshufb`.
    ///
    /// Requires AVX2 (hence `unsafe` to call from code without that feature). Any length is
    /// sound; the result is only meaningful when `src.len() % W == 0`.
    ///
    /// # Panics
    ///
    /// If `dst.len() != src.len()`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn copy_swap_avx2<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        assert_eq!(dst.len(), src.len());
        if src.len() < 32 {
            scalar::copy_swap::<W>(dst, src);
            return;
        }
        let mask = mask256::<W>();

        // Main loop: 64 bytes (two vectors) per iteration.
        let (s64, _) = src.as_chunks::<64>();
        let (d64, _) = dst.as_chunks_mut::<64>();
        for (d, s) in d64.iter_mut().zip(s64) {
            let s0 = s.as_ptr().cast::<__m256i>();
            let s1 = s.as_ptr().wrapping_add(32).cast::<__m256i>();
            let d0 = d.as_mut_ptr().cast::<__m256i>();
            let d1 = d.as_mut_ptr().wrapping_add(32).cast::<__m256i>();
            // SAFETY: `s` is a `&[u8; 64]`, so its bytes `0..32` are readable through `s0`; the
            // load is unaligned (no alignment requirement); AVX2 is enabled on this function.
            let a = unsafe { _mm256_loadu_si256(s0) };
            // SAFETY: bytes `32..64` of the 64-byte `s` are readable through `s1` (which is
            // `s.as_ptr() + 32`, in bounds); unaligned load; AVX2 is enabled on this function.
            let b = unsafe { _mm256_loadu_si256(s1) };
            let a = _mm256_shuffle_epi8(a, mask);
            let b = _mm256_shuffle_epi8(b, mask);
            // SAFETY: `d` is a `&mut [MaybeUninit<u8>; 64]`, so its bytes `0..32` are writable
            // through `d0` (uninitialised memory may be written); unaligned store; AVX2 enabled.
            unsafe { _mm256_storeu_si256(d0, a) };
            // SAFETY: bytes `32..64` of the 64-byte `d` are writable through `d1`
            // (`d.as_mut_ptr() + 32`, in bounds); unaligned store; AVX2 is enabled.
            unsafe { _mm256_storeu_si256(d1, b) };
        }

        // At most one more whole vector, then one vector ending exactly at the end. The last one
        // starts at `len - 32`, a multiple of `W` when `len` is (32 is a multiple of `W`), so it
        // re-writes the overlap with the same swapped bytes.
        let done = s64.len() * 64;
        if src.len() - done >= 32 {
            copy_swap_one_avx2(&mut dst[done..done + 32], &src[done..done + 32], mask);
        }
        if !src.len().is_multiple_of(32) {
            let start = src.len() - 32;
            copy_swap_one_avx2(&mut dst[start..], &src[start..], mask);
        }
    }

    /// Shuffles the first 32 bytes of `src` by `mask` into the first 32 bytes of `dst`.
    ///
    /// # Panics
    ///
    /// If either slice is shorter than 32 bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn copy_swap_one_avx2(dst: &mut [MaybeUninit<u8>], src: &[u8], mask: __m256i) {
        let s: &[u8; 32] = src.first_chunk().expect("at least 32 source bytes");
        let d: &mut [MaybeUninit<u8>; 32] = dst
            .first_chunk_mut()
            .expect("at least 32 destination bytes");
        // SAFETY: `s` is a `&[u8; 32]`, so 32 bytes are readable from its start; unaligned
        // load; AVX2 is enabled on this function.
        let v = unsafe { _mm256_loadu_si256(s.as_ptr().cast::<__m256i>()) };
        let v = _mm256_shuffle_epi8(v, mask);
        // SAFETY: `d` is a `&mut [MaybeUninit<u8>; 32]`, so 32 bytes are writable from its
        // start (uninitialised memory may be written); unaligned store; AVX2 is enabled.
        unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast::<__m256i>(), v) };
    }

    /// Copies `src` (32 to 256 bytes) into `dst` as a few 32-byte loads and stores, the first
    /// ones from the start and the last ones ending exactly at the end (overlapping the
    /// others with the same bytes): no loop and no tail. Returns the lane-wise minimum of the
    /// vectors copied, which covers every byte (`short_copy::copy_min` reduces it; a caller
    /// that drops it pays nothing for it once inlined).
    ///
    /// Requires AVX2 (hence `unsafe` to call from code without that feature).
    ///
    /// # Panics
    ///
    /// If `dst.len() != src.len()`, or the length is outside `32..=256`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn copy_short_avx2(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> __m256i {
        let n = src.len();
        assert!(dst.len() == n && (SIMD_MIN..=SHORT_COPY_MAX).contains(&n));
        match n {
            0..=64 => copy_ends_avx2::<1>(dst, src),
            65..=128 => copy_ends_avx2::<2>(dst, src),
            _ => copy_ends_avx2::<4>(dst, src),
        }
    }

    /// [`copy_short_avx2`] for a caller that has no use for the minimum: returns nothing, so
    /// a caller compiled without AVX2, which calls it out of line, keeps no 32-byte aligned
    /// slot for a returned vector (and no stack realignment in its prologue).
    ///
    /// Requires AVX2 (hence `unsafe` to call from code without that feature).
    ///
    /// # Panics
    ///
    /// As [`copy_short_avx2`].
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn copy_short_avx2_only(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
        copy_short_avx2(dst, src);
    }

    /// Copies the first `V` and the last `V` 32-byte vectors of `src` into `dst` (which cover
    /// it when its length is at most `64 * V`) and returns their lane-wise minimum.
    ///
    /// # Panics
    ///
    /// If `dst.len() != src.len()` or either is shorter than `32 * V` bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn copy_ends_avx2<const V: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> __m256i {
        let n = src.len();
        assert!(dst.len() == n && n >= 32 * V);
        let mut min = _mm256_set1_epi8(-1);
        for i in 0..V {
            for at in [32 * i, n - 32 * (V - i)] {
                let s: &[u8; 32] = src[at..].first_chunk().expect("32 bytes in bounds");
                let d: &mut [MaybeUninit<u8>; 32] =
                    dst[at..].first_chunk_mut().expect("32 bytes in bounds");
                // SAFETY: `s` is a `&[u8; 32]`, so 32 bytes are readable from its start;
                // unaligned load; AVX2 is enabled on this function.
                let v = unsafe { _mm256_loadu_si256(s.as_ptr().cast::<__m256i>()) };
                // SAFETY: `d` is a `&mut [MaybeUninit<u8>; 32]`, so 32 bytes are writable from
                // its start (uninitialised memory may be written); unaligned store; AVX2 is
                // enabled on this function.
                unsafe { _mm256_storeu_si256(d.as_mut_ptr().cast::<__m256i>(), v) };
                min = _mm256_min_epu8(min, v);
            }
        }
        min
    }

    /// Reverses every `W`-byte word of `buf` in place, 32 bytes per `vpshufb`, with a scalar
    /// tail of fewer than 32 bytes.
    ///
    /// Requires AVX2 (hence `unsafe` to call from code without that feature). Any length is
    /// sound; the result is only meaningful when `buf.len() % W == 0`.
    #[target_feature(enable = "avx2")]
    pub(super) fn swap_in_place_avx2<const W: usize>(buf: &mut [u8])
    where
        Word: Swap<W>,
    {
        let mask = mask256::<W>();
        let (b64, rest) = buf.as_chunks_mut::<64>();
        for c in b64 {
            let p0 = c.as_mut_ptr().cast::<__m256i>();
            let p1 = c.as_mut_ptr().wrapping_add(32).cast::<__m256i>();
            // SAFETY: `c` is a `&mut [u8; 64]`, so its bytes `0..32` are readable through `p0`;
            // unaligned load; AVX2 is enabled on this function.
            let a = unsafe { _mm256_loadu_si256(p0) };
            // SAFETY: bytes `32..64` of the 64-byte `c` are readable through `p1`
            // (`c.as_mut_ptr() + 32`, in bounds); unaligned load; AVX2 is enabled.
            let b = unsafe { _mm256_loadu_si256(p1) };
            let a = _mm256_shuffle_epi8(a, mask);
            let b = _mm256_shuffle_epi8(b, mask);
            // SAFETY: bytes `0..32` of the exclusively borrowed 64-byte `c` are writable through
            // `p0`; unaligned store; AVX2 is enabled on this function.
            unsafe { _mm256_storeu_si256(p0, a) };
            // SAFETY: bytes `32..64` of the exclusively borrowed 64-byte `c` are writable through
            // `p1`; unaligned store; AVX2 is enabled on this function.
            unsafe { _mm256_storeu_si256(p1, b) };
        }
        let (b32, tail) = rest.as_chunks_mut::<32>();
        for c in b32 {
            let p = c.as_mut_ptr().cast::<__m256i>();
            // SAFETY: `c` is a `&mut [u8; 32]`, so 32 bytes are readable through `p`; unaligned
            // load; AVX2 is enabled on this function.
            let v = unsafe { _mm256_loadu_si256(p) };
            let v = _mm256_shuffle_epi8(v, mask);
            // SAFETY: the exclusively borrowed 32-byte `c` is writable through `p`; unaligned
            // store; AVX2 is enabled on this function.
            unsafe { _mm256_storeu_si256(p, v) };
        }
        scalar::swap_in_place::<W>(tail);
    }

    /// [`copy_swap_avx2`] for exactly `size_of::<A>()` bytes: the kernel inlined with a
    /// constant length. Requires AVX2.
    ///
    /// # Panics
    ///
    /// If `dst` or `src` is shorter than `size_of::<A>()`, or their lengths differ.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn copy_swap_avx2_sized<A, const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        assert_eq!(dst.len(), src.len());
        let n = core::mem::size_of::<A>();
        copy_swap_avx2::<W>(&mut dst[..n], &src[..n]);
    }

    /// [`copy_swap_ssse3`] for exactly `size_of::<A>()` bytes (see
    /// [`copy_swap_avx2_sized`]). Requires SSSE3.
    ///
    /// # Panics
    ///
    /// If `dst` or `src` is shorter than `size_of::<A>()`, or their lengths differ.
    #[target_feature(enable = "ssse3")]
    pub(super) fn copy_swap_ssse3_sized<A, const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        assert_eq!(dst.len(), src.len());
        let n = core::mem::size_of::<A>();
        copy_swap_ssse3::<W>(&mut dst[..n], &src[..n]);
    }

    // -----------------------------------------------------------------------------------------
    // SSSE3
    // -----------------------------------------------------------------------------------------

    /// Copies `src` into `dst` reversing every `W`-byte word, 16 bytes per `pshufb`.
    ///
    /// Requires SSSE3 (hence `unsafe` to call from code without that feature). Any length is
    /// sound; the result is only meaningful when `src.len() % W == 0`.
    ///
    /// # Panics
    ///
    /// If `dst.len() != src.len()`.
    #[target_feature(enable = "ssse3")]
    #[inline]
    pub(super) fn copy_swap_ssse3<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
    where
        Word: Swap<W>,
    {
        assert_eq!(dst.len(), src.len());
        if src.len() < 16 {
            scalar::copy_swap::<W>(dst, src);
            return;
        }
        let mask = mask128::<W>();

        // Main loop: 64 bytes (four vectors) per iteration.
        let (s64, _) = src.as_chunks::<64>();
        let (d64, _) = dst.as_chunks_mut::<64>();
        for (d, s) in d64.iter_mut().zip(s64) {
            let (s, d) = (s.as_ptr(), d.as_mut_ptr());
            let s0 = s.cast::<__m128i>();
            let s1 = s.wrapping_add(16).cast::<__m128i>();
            let s2 = s.wrapping_add(32).cast::<__m128i>();
            let s3 = s.wrapping_add(48).cast::<__m128i>();
            let d0 = d.cast::<__m128i>();
            let d1 = d.wrapping_add(16).cast::<__m128i>();
            let d2 = d.wrapping_add(32).cast::<__m128i>();
            let d3 = d.wrapping_add(48).cast::<__m128i>();
            // SAFETY: `s` points at a `[u8; 64]`, so bytes `0..16` are readable through `s0`;
            // unaligned load (SSE2, part of the x86-64 baseline).
            let a = unsafe { _mm_loadu_si128(s0) };
            // SAFETY: bytes `16..32` of the 64-byte source chunk are readable through `s1`.
            let b = unsafe { _mm_loadu_si128(s1) };
            // SAFETY: bytes `32..48` of the 64-byte source chunk are readable through `s2`.
            let c = unsafe { _mm_loadu_si128(s2) };
            // SAFETY: bytes `48..64` of the 64-byte source chunk are readable through `s3`.
            let e = unsafe { _mm_loadu_si128(s3) };
            let a = _mm_shuffle_epi8(a, mask);
            let b = _mm_shuffle_epi8(b, mask);
            let c = _mm_shuffle_epi8(c, mask);
            let e = _mm_shuffle_epi8(e, mask);
            // SAFETY: `d` points at an exclusively borrowed `[MaybeUninit<u8>; 64]`, so bytes
            // `0..16` are writable through `d0` (uninitialised memory may be written); unaligned.
            unsafe { _mm_storeu_si128(d0, a) };
            // SAFETY: bytes `16..32` of the 64-byte destination chunk are writable through `d1`.
            unsafe { _mm_storeu_si128(d1, b) };
            // SAFETY: bytes `32..48` of the 64-byte destination chunk are writable through `d2`.
            unsafe { _mm_storeu_si128(d2, c) };
            // SAFETY: bytes `48..64` of the 64-byte destination chunk are writable through `d3`.
            unsafe { _mm_storeu_si128(d3, e) };
        }

        // Whole vectors left (at most three), then one vector ending exactly at the end; it
        // starts at `len - 16`, a multiple of `W` when `len` is, so the overlap is re-written
        // with the same swapped bytes.
        let done = s64.len() * 64;
        let (s16, _) = src[done..].as_chunks::<16>();
        let (d16, _) = dst[done..].as_chunks_mut::<16>();
        for (d, s) in d16.iter_mut().zip(s16) {
            copy_swap_one_ssse3(d, s, mask);
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<16>(), src.last_chunk::<16>()) {
            if !src.len().is_multiple_of(16) {
                copy_swap_one_ssse3(d, s, mask);
            }
        }
    }

    /// Shuffles the 16 bytes of `src` by `mask` into `dst`.
    #[target_feature(enable = "ssse3")]
    #[inline]
    fn copy_swap_one_ssse3(dst: &mut [MaybeUninit<u8>; 16], src: &[u8; 16], mask: __m128i) {
        // SAFETY: `src` is a `&[u8; 16]`, so 16 bytes are readable from its start; unaligned
        // load (SSE2, part of the x86-64 baseline).
        let v = unsafe { _mm_loadu_si128(src.as_ptr().cast::<__m128i>()) };
        let v = _mm_shuffle_epi8(v, mask);
        // SAFETY: `dst` is a `&mut [MaybeUninit<u8>; 16]`, so 16 bytes are writable from its
        // start (uninitialised memory may be written); unaligned store (SSE2).
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), v) };
    }

    /// Reverses every `W`-byte word of `buf` in place, 16 bytes per `pshufb`, with a scalar
    /// tail of fewer than 16 bytes.
    ///
    /// Requires SSSE3 (hence `unsafe` to call from code without that feature). Any length is
    /// sound; the result is only meaningful when `buf.len() % W == 0`.
    #[target_feature(enable = "ssse3")]
    pub(super) fn swap_in_place_ssse3<const W: usize>(buf: &mut [u8])
    where
        Word: Swap<W>,
    {
        let mask = mask128::<W>();
        let (b16, tail) = buf.as_chunks_mut::<16>();
        for c in b16 {
            let p = c.as_mut_ptr().cast::<__m128i>();
            // SAFETY: `c` is a `&mut [u8; 16]`, so 16 bytes are readable through `p`; unaligned
            // load (SSE2, part of the x86-64 baseline).
            let v = unsafe { _mm_loadu_si128(p) };
            let v = _mm_shuffle_epi8(v, mask);
            // SAFETY: the exclusively borrowed 16-byte `c` is writable through `p`; unaligned
            // store (SSE2).
            unsafe { _mm_storeu_si128(p, v) };
        }
        scalar::swap_in_place::<W>(tail);
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes checked beyond the exhaustive `0..=300`.
    const LARGE: &[usize] = &[511, 512, 1000, 1023, 1024, 4096, 4099, 65536 + 40, 1 << 20];

    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i.wrapping_mul(131) ^ (i >> 8)) as u8)
            .collect()
    }

    fn reference(src: &[u8], w: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(src.len());
        for word in src.chunks(w) {
            out.extend(word.iter().rev());
        }
        out
    }

    fn lengths(w: usize) -> impl Iterator<Item = usize> {
        (0..=300)
            .chain(LARGE.iter().copied())
            .filter(move |n| n % w == 0)
    }

    type CopyFn = fn(&mut [MaybeUninit<u8>], &[u8]);
    type InPlaceFn = fn(&mut [u8]);

    /// Runs `f` for every length and source/destination offset 0..8 (0..3 for large sizes),
    /// checking the output and that bytes around the destination are untouched.
    fn check_copy(f: CopyFn, w: usize) {
        for len in lengths(w) {
            check_copy_len(f, w, len);
        }
    }

    /// [`check_copy`] for one length.
    fn check_copy_len(f: CopyFn, w: usize, len: usize) {
        const CANARY: u8 = 0xA5;
        let offsets: &[usize] = if len > 300 {
            &[0, 1, 3]
        } else {
            &[0, 1, 2, 3, 4, 5, 6, 7]
        };
        let backing = pattern(len + 16);
        for &so in offsets {
            let src = &backing[so..so + len];
            let want = reference(src, w);
            for &doff in offsets {
                let mut out: Vec<MaybeUninit<u8>> = vec![MaybeUninit::new(CANARY); len + 16];
                // Leave the destination itself uninitialised.
                out[doff..doff + len].fill(MaybeUninit::uninit());
                f(&mut out[doff..doff + len], src);
                // SAFETY: `f` initialised the destination range; the rest was
                // initialised with the canary above.
                let got: Vec<u8> = out.iter().map(|b| unsafe { b.assume_init() }).collect();
                assert_eq!(
                    &got[doff..doff + len],
                    &want[..],
                    "w={w} len={len} so={so} do={doff}"
                );
                assert!(
                    got[..doff].iter().all(|&b| b == CANARY),
                    "underrun w={w} len={len}"
                );
                assert!(
                    got[doff + len..].iter().all(|&b| b == CANARY),
                    "overrun w={w} len={len}"
                );
            }
        }
    }

    fn check_in_place(f: InPlaceFn, w: usize) {
        const CANARY: u8 = 0x5A;
        for len in lengths(w) {
            let offsets: &[usize] = if len > 300 {
                &[0, 1, 3]
            } else {
                &[0, 1, 2, 3, 4, 5, 6, 7]
            };
            for &off in offsets {
                let data = pattern(len);
                let want = reference(&data, w);
                let mut buf = vec![CANARY; len + 16];
                buf[off..off + len].copy_from_slice(&data);
                f(&mut buf[off..off + len]);
                assert_eq!(&buf[off..off + len], &want[..], "w={w} len={len} off={off}");
                assert!(
                    buf[..off].iter().all(|&b| b == CANARY),
                    "underrun w={w} len={len}"
                );
                assert!(
                    buf[off + len..].iter().all(|&b| b == CANARY),
                    "overrun w={w} len={len}"
                );
            }
        }
    }

    #[test]
    fn public_copy_swap() {
        check_copy(copy_swap2, 2);
        check_copy(copy_swap4, 4);
        check_copy(copy_swap8, 8);
    }

    /// The sized kernels at their one length, for arrays below the vector threshold, at it,
    /// with and without a partial last vector, with several loop iterations, and from the
    /// length on where they call the run-time kernel.
    #[test]
    fn public_copy_swap_sized() {
        check_copy_len(copy_swap2_sized::<[u16; 7]>, 2, 14);
        check_copy_len(copy_swap2_sized::<[u16; 17]>, 2, 34);
        check_copy_len(copy_swap4_sized::<[u32; 3]>, 4, 12);
        check_copy_len(copy_swap4_sized::<[u32; 8]>, 4, 32);
        check_copy_len(copy_swap4_sized::<[i32; 30]>, 4, 120);
        check_copy_len(copy_swap4_sized::<[f32; 67]>, 4, 268);
        check_copy_len(copy_swap8_sized::<[u64; 5]>, 8, 40);
        check_copy_len(copy_swap8_sized::<[[u64; 2]; 9]>, 8, 144);
        // Just below and at `AVX512_MIN`, where the run-time kernel takes over.
        check_copy_len(copy_swap4_sized::<[u32; 127]>, 4, 508);
        check_copy_len(copy_swap8_sized::<[u64; 64]>, 8, AVX512_MIN);
        check_copy_len(copy_swap2_sized::<[u16; 301]>, 2, 602);
    }

    #[test]
    #[should_panic(expected = "destination length")]
    fn sized_length_mismatch_panics() {
        copy_swap4_sized::<[u32; 4]>(&mut [MaybeUninit::uninit(); 12], &[0; 12]);
    }

    #[test]
    #[should_panic(expected = "not a multiple")]
    fn sized_partial_word_panics() {
        copy_swap8_sized::<[u32; 3]>(&mut [MaybeUninit::uninit(); 12], &[0; 12]);
    }

    #[test]
    fn public_copy() {
        check_copy(copy, 1);
        check_copy(copy_slice, 1);
    }

    #[test]
    fn public_in_place() {
        check_in_place(swap2_in_place, 2);
        check_in_place(swap4_in_place, 4);
        check_in_place(swap8_in_place, 8);
    }

    #[test]
    fn scalar_paths() {
        check_copy(scalar::copy_swap::<2>, 2);
        check_copy(scalar::copy_swap::<4>, 4);
        check_copy(scalar::copy_swap::<8>, 8);
        check_in_place(scalar::swap_in_place::<2>, 2);
        check_in_place(scalar::swap_in_place::<4>, 4);
        check_in_place(scalar::swap_in_place::<8>, 8);
    }

    #[test]
    fn typed_values() {
        let words: Vec<u32> = (0..100u32).map(|i| i.wrapping_mul(0x0102_0304)).collect();
        let src: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let mut dst = vec![MaybeUninit::uninit(); src.len()];
        copy_swap4(&mut dst, &src);
        for (w, d) in words.iter().zip(dst.chunks_exact(4)) {
            // SAFETY: `copy_swap4` initialised every byte of `dst`.
            let d: Vec<u8> = d.iter().map(|b| unsafe { b.assume_init() }).collect();
            assert_eq!(d, w.to_be_bytes());
        }
    }

    #[test]
    #[should_panic(expected = "destination length")]
    fn length_mismatch_panics() {
        copy_swap4(&mut [MaybeUninit::uninit(); 8], &[0; 4]);
    }

    #[test]
    #[should_panic(expected = "not a multiple")]
    fn partial_word_panics() {
        copy_swap8(&mut [MaybeUninit::uninit(); 12], &[0; 12]);
    }

    #[test]
    #[should_panic(expected = "not a multiple")]
    fn partial_word_in_place_panics() {
        swap2_in_place(&mut [0; 33]);
    }

    #[test]
    #[should_panic(expected = "destination length")]
    fn copy_length_mismatch_panics() {
        copy(&mut [MaybeUninit::uninit(); 3], &[0; 4]);
    }

    #[cfg(target_arch = "x86_64")]
    mod x86_paths {
        use super::super::x86;
        use super::*;

        #[test]
        fn shuffle_masks() {
            let m2 = 0x0607_0405_0203_0001_i64;
            let m4 = 0x0405_0607_0001_0203_i64;
            let m8 = 0x0001_0203_0405_0607_i64;
            assert_eq!(x86::shuffle_lo(2), m2);
            assert_eq!(x86::shuffle_lo(4), m4);
            assert_eq!(x86::shuffle_lo(8), m8);
            assert_eq!(x86::shuffle_hi(4), 0x0C0D_0E0F_0809_0A0B);
        }

        fn avx2_copy<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("avx2"));
            // SAFETY: AVX2 support was asserted at run time just above.
            unsafe { x86::copy_swap_avx2::<W>(dst, src) }
        }

        fn avx2_in_place<const W: usize>(buf: &mut [u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("avx2"));
            // SAFETY: AVX2 support was asserted at run time just above.
            unsafe { x86::swap_in_place_avx2::<W>(buf) }
        }

        fn ssse3_copy<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("ssse3"));
            // SAFETY: SSSE3 support was asserted at run time just above.
            unsafe { x86::copy_swap_ssse3::<W>(dst, src) }
        }

        fn ssse3_in_place<const W: usize>(buf: &mut [u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("ssse3"));
            // SAFETY: SSSE3 support was asserted at run time just above.
            unsafe { x86::swap_in_place_ssse3::<W>(buf) }
        }

        fn avx2_sized<A, const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("avx2"));
            // SAFETY: AVX2 support was asserted at run time just above.
            unsafe { x86::copy_swap_avx2_sized::<A, W>(dst, src) }
        }

        fn ssse3_sized<A, const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("ssse3"));
            // SAFETY: SSSE3 support was asserted at run time just above.
            unsafe { x86::copy_swap_ssse3_sized::<A, W>(dst, src) }
        }

        #[test]
        fn sized_paths() {
            if std::is_x86_feature_detected!("avx2") {
                check_copy_len(avx2_sized::<[u16; 17], 2>, 2, 34);
                check_copy_len(avx2_sized::<[i32; 30], 4>, 4, 120);
                check_copy_len(avx2_sized::<[u64; 5], 8>, 8, 40);
                check_copy_len(avx2_sized::<[u32; 64], 4>, 4, 256);
            } else {
                eprintln!("skipping the AVX2 kernels: CPU has no AVX2");
            }
            if std::is_x86_feature_detected!("ssse3") {
                check_copy_len(ssse3_sized::<[u16; 17], 2>, 2, 34);
                check_copy_len(ssse3_sized::<[i32; 30], 4>, 4, 120);
                check_copy_len(ssse3_sized::<[u64; 5], 8>, 8, 40);
                check_copy_len(ssse3_sized::<[u32; 64], 4>, 4, 256);
            } else {
                eprintln!("skipping the SSSE3 kernels: CPU has no SSSE3");
            }
        }

        #[test]
        fn avx2_paths() {
            if !std::is_x86_feature_detected!("avx2") {
                eprintln!("skipping: CPU has no AVX2");
                return;
            }
            check_copy(avx2_copy::<2>, 2);
            check_copy(avx2_copy::<4>, 4);
            check_copy(avx2_copy::<8>, 8);
            check_in_place(avx2_in_place::<2>, 2);
            check_in_place(avx2_in_place::<4>, 4);
            check_in_place(avx2_in_place::<8>, 8);
        }

        fn avx512_copy<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8])
        where
            Word: Swap<W>,
        {
            assert!(std::is_x86_feature_detected!("avx512bw"));
            // SAFETY: AVX-512BW support was asserted at run time just above.
            unsafe { x86::copy_swap_avx512::<W>(dst, src) }
        }

        #[test]
        fn avx512_paths() {
            if !std::is_x86_feature_detected!("avx512bw") {
                eprintln!("skipping: CPU has no AVX-512BW");
                return;
            }
            check_copy(avx512_copy::<2>, 2);
            check_copy(avx512_copy::<4>, 4);
            check_copy(avx512_copy::<8>, 8);
        }

        /// The AVX-512 kernel aligns its stores to the destination's next 64-byte boundary
        /// when that is a whole number of words: every skew of the destination against a
        /// cache line, lengths around one and two vectors and the 128-byte loop, the source
        /// at several offsets of its own.
        #[test]
        fn avx512_every_destination_skew() {
            if !std::is_x86_feature_detected!("avx512bw") {
                eprintln!("skipping: CPU has no AVX-512BW");
                return;
            }
            const CANARY: u8 = 0x3C;
            let lens = [
                64usize, 72, 120, 128, 136, 184, 192, 200, 256, 264, 1000, 4104,
            ];
            for (w, f) in [
                (2, avx512_copy::<2> as CopyFn),
                (4, avx512_copy::<4>),
                (8, avx512_copy::<8>),
            ] {
                for len in lens.iter().copied().filter(|n| n % w == 0) {
                    let backing = pattern(len + 64);
                    for so in [0, 5, 40] {
                        let src = &backing[so..so + len];
                        let want = reference(src, w);
                        for skew in 0..64 {
                            let mut out: Vec<MaybeUninit<u8>> =
                                vec![MaybeUninit::new(CANARY); len + 192];
                            // The first 64-byte boundary in `out`, then `skew` bytes on.
                            let base = out.as_ptr().addr().wrapping_neg() % 64;
                            let at = base + skew;
                            f(&mut out[at..at + len], src);
                            // SAFETY: `f` initialised `out[at..at + len]`; the rest holds the
                            // canary.
                            let got: Vec<u8> =
                                out.iter().map(|b| unsafe { b.assume_init() }).collect();
                            let ctx = format!("w={w} len={len} so={so} skew={skew}");
                            assert_eq!(&got[at..at + len], &want[..], "{ctx}");
                            assert!(got[..at].iter().all(|&b| b == CANARY), "underrun {ctx}");
                            assert!(
                                got[at + len..].iter().all(|&b| b == CANARY),
                                "overrun {ctx}"
                            );
                        }
                    }
                }
            }
        }

        #[test]
        fn ssse3_paths() {
            if !std::is_x86_feature_detected!("ssse3") {
                eprintln!("skipping: CPU has no SSSE3");
                return;
            }
            check_copy(ssse3_copy::<2>, 2);
            check_copy(ssse3_copy::<4>, 4);
            check_copy(ssse3_copy::<8>, 8);
            check_in_place(ssse3_in_place::<2>, 2);
            check_in_place(ssse3_in_place::<4>, 4);
            check_in_place(ssse3_in_place::<8>, 8);
        }
    }
}
