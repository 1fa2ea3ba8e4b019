//! Checks on string bytes that every wire format makes.

use crate::error::ErrorKind;

/// `b` as a string if it is UTF-8 (else `InvalidUtf8`): the word-wise ASCII check first
/// ([`is_ascii`]), full validation only when that fails.
///
/// ```
/// assert_eq!(marshal_core::text::to_str(b"abc"), Ok("abc"));
/// assert!(marshal_core::text::to_str(b"\xff").is_err());
/// ```
#[inline]
pub fn to_str(b: &[u8]) -> Result<&str, ErrorKind> {
    if is_ascii(b) {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { core::str::from_utf8_unchecked(b) });
    }
    core::str::from_utf8(b).map_err(|_| ErrorKind::InvalidUtf8)
}

/// `b` as a string if it holds no NUL (else `InteriorNul`) and is UTF-8 (else `InvalidUtf8`),
/// as a CDR string must: one word-wise pass ([`is_ascii_without_nul`]) for the common case.
///
/// ```
/// use marshal_core::{text::to_str_without_nul, ErrorKind};
/// assert_eq!(to_str_without_nul(b"abc"), Ok("abc"));
/// assert_eq!(to_str_without_nul(b"a\0\xff"), Err(ErrorKind::InteriorNul));
/// assert_eq!(to_str_without_nul(b"a\xff"), Err(ErrorKind::InvalidUtf8));
/// ```
// Always inlined, like `is_ascii_without_nul`: it is the whole per-string cost of a decoder.
#[inline(always)]
pub fn to_str_without_nul(b: &[u8]) -> Result<&str, ErrorKind> {
    if is_ascii_without_nul(b) {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { core::str::from_utf8_unchecked(b) });
    }
    not_ascii(b)
}

/// The rest of [`to_str_without_nul`], out of line.
#[cold]
#[inline(never)]
fn not_ascii(b: &[u8]) -> Result<&str, ErrorKind> {
    if b.contains(&0) {
        return Err(ErrorKind::InteriorNul);
    }
    core::str::from_utf8(b).map_err(|_| ErrorKind::InvalidUtf8)
}

/// Whether every byte of `b` is ASCII (below 0x80), so `b` is UTF-8 as it is.
///
/// Most strings on the wire are ASCII, and for the short strings messages carry this is much
/// cheaper than full UTF-8 validation or `<[u8]>::is_ascii` (a byte loop at these lengths): an
/// OR over 16-byte words and one test at the end, with no per-byte branch (measured with
/// callgrind on 116-byte names: ~0.5 instructions per byte against ~2.3).
///
/// ```
/// assert!(marshal_core::text::is_ascii(b"plain text, 26 bytes long"));
/// assert!(!marshal_core::text::is_ascii("caf\u{e9}".as_bytes()));
/// ```
#[inline]
pub fn is_ascii(b: &[u8]) -> bool {
    const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;
    let word = |s: &[u8]| u128::from_ne_bytes(s.try_into().expect("16-byte chunk"));
    if b.len() < 16 {
        return b.iter().fold(0, |acc, &x| acc | x) < 0x80;
    }
    // The last word overlaps the final partial chunk, if any.
    let mut acc = word(&b[b.len() - 16..]);
    for c in b.chunks_exact(16) {
        acc |= word(c);
    }
    acc & HIGH == 0
}

/// Whether every byte of `b` is ASCII and none is NUL, as a CDR string must be, in one pass:
/// a byte is in `1..=0x7f` exactly when one less (wrapping) is below `0x7f`, so the test is
/// the maximum of `byte - 1` over all bytes, kept per lane of a 16-byte word (two vector
/// operations a word; ~0.75 instructions per byte on 116-byte names, where `memchr` for the
/// NUL and `from_utf8` take ~2.4).
///
/// ```
/// assert!(marshal_core::text::is_ascii_without_nul(b"file-0001"));
/// assert!(!marshal_core::text::is_ascii_without_nul(b"file\0"));
/// ```
#[inline(always)]
pub fn is_ascii_without_nul(b: &[u8]) -> bool {
    let below = |max: u8, x: u8| max.max(x.wrapping_sub(1));
    if b.len() < 16 {
        return b.iter().fold(0, |m, &x| below(m, x)) < 0x7f;
    }
    let mut max = [0u8; 16];
    let mut step = |c: &[u8]| {
        let c: &[u8; 16] = c.try_into().expect("16-byte chunk");
        for j in 0..16 {
            max[j] = below(max[j], c[j]);
        }
    };
    for c in b.chunks_exact(16) {
        step(c);
    }
    // The last word overlaps the final partial chunk, if any.
    step(&b[b.len() - 16..]);
    max.iter().fold(0, |acc, &x| acc.max(x)) < 0x7f
}

/// Whether `b` holds a NUL byte, as a CDR string must not: the minimum byte kept per lane of
/// a 16-byte word (one vector operation a word) and one test at the end, with no per-byte
/// branch, where `memchr` walks the bytes a machine word at a time.
///
/// ```
/// assert!(!marshal_core::text::has_nul(b"file-0001"));
/// assert!(marshal_core::text::has_nul(b"file\0"));
/// ```
#[inline]
pub fn has_nul(b: &[u8]) -> bool {
    if b.len() < 16 {
        return b.iter().fold(u8::MAX, |m, &x| m.min(x)) == 0;
    }
    let mut min = [u8::MAX; 16];
    let mut step = |c: &[u8]| {
        let c: &[u8; 16] = c.try_into().expect("16-byte chunk");
        for j in 0..16 {
            min[j] = min[j].min(c[j]);
        }
    };
    for c in b.chunks_exact(16) {
        step(c);
    }
    // The last word overlaps the final partial chunk, if any.
    step(&b[b.len() - 16..]);
    min.iter().fold(u8::MAX, |m, &x| m.min(x)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_every_byte() {
        for len in 0..70 {
            let mut v = vec![b'a'; len];
            assert!(is_ascii(&v), "len {len}");
            assert!(is_ascii_without_nul(&v), "len {len}");
            assert!(!has_nul(&v), "len {len}");
            for i in 0..len {
                v[i] = 0x80;
                assert!(!is_ascii(&v), "len {len}, high byte at {i}");
                assert!(!is_ascii_without_nul(&v), "len {len}, high byte at {i}");
                assert!(!has_nul(&v), "len {len}, high byte at {i}");
                v[i] = 0;
                assert!(has_nul(&v), "len {len}, NUL at {i}");
                assert!(is_ascii(&v), "len {len}, NUL at {i}");
                assert!(!is_ascii_without_nul(&v), "len {len}, NUL at {i}");
                v[i] = b'a';
            }
        }
    }
}
