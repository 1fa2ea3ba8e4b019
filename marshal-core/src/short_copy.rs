//! Copies of short byte strings that must also be checked for NUL bytes (a CDR string may
//! not hold one): the smallest byte is kept in a vector as the words pass (`pminub`), so the
//! check costs no second read of the string. From 32 to 256 bytes on a CPU with AVX2 the
//! words are a few overlapping 32-byte vectors from both ends, which inline into a loop
//! compiled for AVX2 ([`crate::wide`]); otherwise 16-byte words, every store but the first
//! and the last aligned on the destination.
//!
//! A plain copy, with nothing to learn of the bytes, is [`crate::swap::copy_slice`].

use core::mem::MaybeUninit;

use crate::cpu::Known;

/// One 16-byte word.
type Word = [u8; 16];

/// Lane-wise minimum; LLVM makes it one `pminub` (SSE2) or `umin` (NEON).
#[inline(always)]
fn min16(a: Word, b: Word) -> Word {
    core::array::from_fn(|i| a[i].min(b[i]))
}

/// Copies `src` into `dst` and returns the smallest byte of `src` (`u8::MAX` when it is
/// empty): 0 exactly when `src` holds a NUL.
///
/// After return every byte of `dst` is initialised. Meant for short inputs (a few hundred
/// bytes at most); [`crate::swap::copy`] is faster for long ones.
///
/// # Panics
///
/// If `dst.len() != src.len()`.
///
/// ```
/// use core::mem::MaybeUninit;
/// use marshal_core::short_copy::copy_min;
/// let mut dst = [MaybeUninit::<u8>::uninit(); 20];
/// assert_eq!(copy_min(&mut dst, b"file-0001-name-x.txt"), b'-');
/// assert_eq!(copy_min(&mut dst[..3], b"a\0b"), 0);
/// ```
#[inline]
#[track_caller]
pub fn copy_min(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u8 {
    copy_min_in(Known::NOTHING, dst, src)
}

/// [`copy_min`] by code that `known` tells what the CPU has.
#[inline(always)]
#[track_caller]
fn copy_min_in(known: Known, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u8 {
    let n = src.len();
    assert_eq!(dst.len(), n, "short_copy::copy_min: lengths differ");
    if n < 16 {
        return copy_min_under_16(dst, src);
    }
    #[cfg(target_arch = "x86_64")]
    if crate::swap::short_avx2(known, n) {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which `short_avx2` found known or detected
        // at run time just above; everything else is enforced by its safe signature.
        return unsafe { copy_min_avx2(dst, src) };
    }
    // The first word, then the words at the destination's 16-byte boundaries strictly
    // inside, then the last word (overlapping the one before it, with the same bytes). The
    // loop's bound `k + 16 <= n` settles the chunks' bounds checks.
    let (Some(&first), Some(&last)) = (src.first_chunk::<16>(), src.last_chunk::<16>()) else {
        unreachable!("n >= 16");
    };
    put(dst, 0, first);
    let mut min = min16(first, last);
    let mut k = 16 - dst.as_ptr().addr() % 16;
    while k + 16 <= n {
        if let Some(&w) = src[k..].first_chunk::<16>() {
            put(dst, k, w);
            min = min16(min, w);
        }
        k += 16;
    }
    put(dst, n - 16, last);
    min.into_iter().fold(u8::MAX, u8::min)
}

/// Copies `src` into the start of `dst`, fills the rest of `dst` with zeros (a CDR string's
/// NUL), and returns whether `src` holds a NUL byte, found by [`copy_min`] in the same pass.
/// Up to 8 zeros are one 8-byte store.
///
/// After return every byte of `dst` is initialised.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// use core::mem::MaybeUninit;
/// use marshal_core::short_copy::copy_pad;
/// let mut dst = [MaybeUninit::<u8>::uninit(); 8];
/// assert!(!copy_pad(&mut dst, b"abcde"));
/// // SAFETY: `copy_pad` initialised every byte of `dst`.
/// assert_eq!(dst.map(|b| unsafe { b.assume_init() }), *b"abcde\0\0\0");
/// assert!(copy_pad(&mut dst[..4], b"a\0c"));
/// ```
#[inline]
#[track_caller]
pub fn copy_pad(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> bool {
    copy_pad_in(Known::NOTHING, dst, src)
}

/// [`copy_pad`] by code that `known` tells what the CPU has.
#[inline(always)]
#[track_caller]
pub(crate) fn copy_pad_in(known: Known, dst: &mut [MaybeUninit<u8>], src: &[u8]) -> bool {
    assert!(
        dst.len() >= src.len(),
        "short_copy::copy_pad: destination too short"
    );
    // Up to 8 zeros are one 8-byte store over the end, before the copy writes over its
    // start, rather than a call to `memset`.
    let zeros = dst.len() - src.len();
    match dst.last_chunk_mut::<8>() {
        Some(end) if zeros <= 8 => *end = [MaybeUninit::new(0); 8],
        _ => dst[src.len()..].fill(MaybeUninit::new(0)),
    }
    let (dst, n) = (&mut dst[..src.len()], src.len());
    #[cfg(target_arch = "x86_64")]
    if crate::swap::short_avx2(known, n) {
        // SAFETY: the only precondition of calling this `#[target_feature(enable = "avx2")]`
        // function is that the CPU supports AVX2, which `short_avx2` found known or detected
        // at run time just above; everything else is enforced by its safe signature.
        return unsafe { copy_has_nul_avx2(dst, src) };
    }
    copy_min_in(known, dst, src) == 0
}

/// Stores `w` at `dst[at..at + 16]` (which callers keep in bounds).
#[inline(always)]
fn put(dst: &mut [MaybeUninit<u8>], at: usize, w: Word) {
    if let Some(d) = dst[at..].first_chunk_mut::<16>() {
        *d = w.map(MaybeUninit::new);
    }
}

/// [`copy_min`] of fewer than 16 bytes: two overlapping 8- or 4-byte words, or bytes.
#[inline(always)]
fn copy_min_under_16(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u8 {
    /// Copies the first and the last `W` bytes (overlapping when `n < 2 W`).
    #[inline(always)]
    fn ends<const W: usize>(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u8 {
        let n = src.len();
        let (Some(a), Some(b)) = (src.first_chunk::<W>(), src.last_chunk::<W>()) else {
            unreachable!("callers pass at least W bytes");
        };
        let (a, b) = (*a, *b);
        if let Some(da) = dst.first_chunk_mut::<W>() {
            *da = a.map(MaybeUninit::new);
        }
        if let Some(db) = dst[..n].last_chunk_mut::<W>() {
            *db = b.map(MaybeUninit::new);
        }
        let m: [u8; W] = core::array::from_fn(|i| a[i].min(b[i]));
        m.into_iter().fold(u8::MAX, u8::min)
    }
    match src.len() {
        8.. => ends::<8>(dst, src),
        4.. => ends::<4>(dst, src),
        _ => {
            let mut min = u8::MAX;
            for (d, &b) in dst.iter_mut().zip(src) {
                *d = MaybeUninit::new(b);
                min = min.min(b);
            }
            min
        }
    }
}

/// Copies 32 to 256 bytes as [`copy_min_avx2`] does and returns whether they hold a NUL: the
/// lane-wise minimum compared with zero and its mask tested, three instructions where the
/// reduction to the smallest byte takes six.
///
/// Requires AVX2 (hence `unsafe` to call from code without that feature).
///
/// # Panics
///
/// If `dst.len() != src.len()`, or the length is outside `32..=256`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn copy_has_nul_avx2(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> bool {
    use core::arch::x86_64::*;
    let m = crate::swap::x86::copy_short_avx2(dst, src);
    _mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256())) != 0
}

/// [`copy_min`] of 32 to 256 bytes: the short copy of [`crate::swap::copy_slice`], whose
/// vectors' lane-wise minimum is then reduced to one byte. Inlines into loops compiled for
/// AVX2 (see [`crate::wide`]).
///
/// Requires AVX2 (hence `unsafe` to call from code without that feature).
///
/// # Panics
///
/// If `dst.len() != src.len()`, or the length is outside `32..=256`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn copy_min_avx2(dst: &mut [MaybeUninit<u8>], src: &[u8]) -> u8 {
    use core::arch::x86_64::*;
    let m = crate::swap::x86::copy_short_avx2(dst, src);
    // The smallest of the 32 bytes: halves, then byte pairs into 16-bit lanes (the high byte
    // of each becomes 0), then `phminposuw` over the eight lanes.
    let m = _mm_min_epu8(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
    let m = _mm_min_epu8(m, _mm_srli_epi16::<8>(m));
    _mm_cvtsi128_si32(_mm_minpos_epu16(m)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_pad` at lengths up to 256 with up to 9 zeros, every destination phase mod 64,
    /// over stale bytes: exact copy and zeros, nothing touched outside, NUL found.
    #[test]
    fn pads_exactly_and_finds_a_nul() {
        for len in (0..200usize)
            .step_by(3)
            .chain([63, 64, 65, 127, 128, 129, 255, 256])
        {
            for zeros in [0usize, 1, 3, 9] {
                for phase in 0..64usize {
                    let src: Vec<u8> = (0..len).map(|i| 1 + (i * 13 % 250) as u8).collect();
                    let mut buf = [MaybeUninit::new(0xAAu8); 340];
                    let got = copy_pad(&mut buf[phase..phase + len + zeros], &src);
                    // SAFETY: every byte of `buf` was initialised.
                    let out: Vec<u8> = buf.iter().map(|b| unsafe { b.assume_init() }).collect();
                    let at = format!("len {len} zeros {zeros} phase {phase}");
                    assert!(!got, "{at}: no NUL");
                    assert_eq!(&out[phase..phase + len], &src[..], "{at}");
                    assert!(
                        out[phase + len..phase + len + zeros]
                            .iter()
                            .all(|&b| b == 0),
                        "{at}"
                    );
                    assert!(out[..phase].iter().all(|&b| b == 0xAA), "{at}: before");
                    assert!(
                        out[phase + len + zeros..].iter().all(|&b| b == 0xAA),
                        "{at}: after"
                    );
                    if len > 0 {
                        let mut with_nul = src.clone();
                        with_nul[(phase * 7) % len] = 0;
                        assert!(
                            copy_pad(&mut buf[phase..phase + len + zeros], &with_nul),
                            "{at}: NUL"
                        );
                    }
                }
            }
        }
    }

    /// Every length up to 300 at every destination phase mod 16, over stale bytes: the copy
    /// is exact, touches nothing past the end, and the minimum is right wherever the
    /// smallest byte sits.
    #[test]
    fn copies_exactly_and_finds_the_minimum() {
        for len in 0..300usize {
            for phase in 0..16usize {
                let src: Vec<u8> = (0..len).map(|i| 0x20 + (i * 7 % 90) as u8).collect();
                let mut buf = [MaybeUninit::new(0xAAu8); 320];
                let got = copy_min(&mut buf[phase..phase + len], &src);
                let out: Vec<u8> = buf
                    .iter()
                    // SAFETY: every byte of `buf` was initialised (0xAA, then the copy).
                    .map(|b| unsafe { b.assume_init() })
                    .collect();
                assert_eq!(
                    &out[phase..phase + len],
                    &src[..],
                    "len {len} phase {phase}"
                );
                assert!(
                    out[..phase].iter().all(|&b| b == 0xAA),
                    "before: {len}/{phase}"
                );
                assert!(
                    out[phase + len..].iter().all(|&b| b == 0xAA),
                    "after: {len}/{phase}"
                );
                assert_eq!(got, src.iter().copied().min().unwrap_or(u8::MAX));
                // The smallest byte anywhere, NUL or not (every lane of the reduction).
                for at in 0..len {
                    for low in [0, 0x11] {
                        let mut with_low = src.clone();
                        with_low[at] = low;
                        let got = copy_min(&mut buf[phase..phase + len], &with_low);
                        assert_eq!(got, low, "{low:#x} at {at} of {len}, phase {phase}");
                    }
                }
            }
        }
    }
}
