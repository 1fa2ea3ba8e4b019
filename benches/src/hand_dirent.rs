//! Directory entries encoded by hand, as a C programmer would write it for exactly this type:
//! one pass for the exact size, one reservation, then raw stores with no check, no error path
//! and no writer state left in memory. The floor of an encoder that sizes its output first, on
//! this workload (`xdr/encode/dirent/hand`, `cdr/encode/dirent/hand-le` and `-be`), printed
//! beside marshal's (whose `encode_into` skips the sizing pass when the buffer already has
//! room); not a codec: it trusts its input (a CDR name with a NUL in it goes out as it is,
//! where marshal refuses it).

use marshal::cdr::ByteOrder;
use workloads::DirEntry;

/// Bytes of an entry's fixed part: 30 ints and 16 opaque bytes.
const STAT: usize = 136;

/// `n` rounded up to a multiple of 4.
fn padded(n: usize) -> usize {
    n.next_multiple_of(4)
}

/// The entries' XDR encoding (`dirent<>`: a count, then each entry's name length, name,
/// padding, ints and opaque bytes), appended to `out`.
///
/// # Panics
///
/// If a name or the number of entries does not fit in a `u32`.
pub fn xdr(entries: &[DirEntry], out: &mut Vec<u8>) {
    encode(entries, out, 0, u32::to_be);
}

/// The entries' CDR encoding in `order` (a count, then each entry's length with the NUL,
/// name, NUL, padding to 4, ints and opaque bytes), appended to `out`; the message starts at
/// the count, so every entry starts 4-aligned.
///
/// # Panics
///
/// If a name or the number of entries does not fit in a `u32`.
pub fn cdr(entries: &[DirEntry], order: ByteOrder, out: &mut Vec<u8>) {
    let big = order == ByteOrder::Big;
    encode(
        entries,
        out,
        1,
        move |v| if big { v.to_be() } else { v.to_le() },
    );
}

/// Appends the count and then every entry, each word in the byte order `word` gives and each
/// name followed by `nul` zero bytes (CDR's NUL: 1; XDR: 0) and its padding to 4. One pass
/// adds up the entries' sizes, one reservation makes room for all, and the stores that follow
/// need no check: each entry's size is a function of the entry alone, the same in both
/// passes, as in a hand-written C encoder.
#[inline(always)]
fn encode(entries: &[DirEntry], out: &mut Vec<u8>, nul: usize, word: impl Fn(u32) -> u32) {
    let size = |e: &DirEntry| 4 + padded(e.name.len() + nul) + STAT;
    let len = 4 + entries.iter().map(size).sum::<usize>();
    out.reserve(len);
    out.extend_from_slice(&word(u32_len(entries.len())).to_ne_bytes());
    let start = out.len();
    // SAFETY: `start <= capacity`, so the pointer is within the allocation or one past it.
    let mut p = unsafe { out.as_mut_ptr().add(start) };
    for e in entries {
        let name = e.name.as_bytes();
        let n = name.len();
        let at = 4 + padded(n + nul);
        // Every store below is within the `size(e) = at + STAT` bytes at `p`: the entries
        // before this one and this one take at most `len - 4` bytes (the size pass added up
        // the same sizes), which `reserve` made room for after `start`. Nothing read overlaps
        // them: they are spare capacity of `out`. The zero word at `at - 4` lies after the
        // length word, or on it for XDR's empty name and is overwritten next; the name's `n`
        // bytes then overwrite its start, so what is left of it is the NUL and the padding.
        // SAFETY: `at - 4 + 4 <= size(e)`, see above.
        unsafe { put(p, at - 4, 0u32) };
        // SAFETY: `4 <= size(e)`.
        unsafe { put(p, 0, word(u32_len(n + nul))) };
        // SAFETY: `4 + n <= at <= size(e)`; `name` is not in the output.
        unsafe { std::ptr::copy_nonoverlapping(name.as_ptr(), p.wrapping_add(4), n) };
        let mut ints = [0u32; 30];
        for (w, i) in ints.iter_mut().zip(&e.st.ints) {
            *w = word(*i as u32);
        }
        // SAFETY: `at + 120 <= size(e)`.
        unsafe { put(p, at, ints) };
        // SAFETY: `at + 120 + 16 == size(e)`.
        unsafe { put(p, at + 120, e.st.chars) };
        // SAFETY: `p + size(e)` is within the room counted above, or one past it.
        p = unsafe { p.add(at + STAT) };
    }
    // SAFETY: the `len - 4` bytes after `start` are within the capacity, and every one was
    // written: each entry's stores cover its `size(e)` bytes, back to back, and the sizes add
    // up to `len - 4`.
    unsafe { out.set_len(start + len - 4) };
}

/// Stores `v` at `p + at`, unaligned.
///
/// # Safety
///
/// The `size_of::<T>()` bytes at `p + at` must be valid for writes.
#[inline(always)]
unsafe fn put<T>(p: *mut u8, at: usize, v: T) {
    // SAFETY: the caller's contract; `write_unaligned` needs no alignment.
    unsafe { p.wrapping_add(at).cast::<T>().write_unaligned(v) }
}

/// A length as the `u32` the wire carries.
fn u32_len(n: usize) -> u32 {
    u32::try_from(n).expect("a length of at most u32::MAX")
}

#[cfg(test)]
mod tests {
    use super::*;
    use workloads::Stat;

    /// Entries whose names take every length 0–255, so every padding occurs.
    fn entries() -> Vec<DirEntry> {
        (0..=255u32)
            .map(|n| DirEntry {
                name: (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect(),
                st: Stat {
                    ints: core::array::from_fn(|i| (n as i32) * 1_000_003 - i as i32),
                    chars: core::array::from_fn(|i| (n as u8).wrapping_mul(i as u8)),
                },
            })
            .collect()
    }

    #[test]
    fn xdr_writes_what_marshal_writes() {
        let v = entries();
        let mut out = vec![9, 9]; // appended after what is there
        xdr(&v, &mut out);
        assert_eq!(out[..2], [9, 9]);
        assert_eq!(out[2..], marshal::xdr::to_vec(&v).unwrap());
    }

    #[test]
    fn cdr_writes_what_marshal_writes_in_both_orders() {
        let v = entries();
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = Vec::new();
            cdr(&v, order, &mut out);
            assert_eq!(out, marshal::cdr::to_vec(&v, order).unwrap(), "{order:?}");
        }
    }

    #[test]
    fn no_entries_is_a_zero_count() {
        let mut out = Vec::new();
        xdr(&[], &mut out);
        assert_eq!(out, [0; 4]);
        cdr(&[], ByteOrder::Little, &mut out);
        assert_eq!(out, [0; 8]);
    }
}
