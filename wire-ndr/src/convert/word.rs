//! Integers, floats and slots of 1 to 8 bytes in a given byte order: the one reader the
//! interpreter and dynamic records share.

/// An unsigned integer of `b.len()` (1 to 8) bytes, most significant first when `big`.
#[inline]
pub(crate) fn uint(b: &[u8], big: bool) -> u64 {
    let fold = |v: u64, &x: &u8| (v << 8) | u64::from(x);
    if big {
        b.iter().fold(0, fold)
    } else {
        b.iter().rev().fold(0, fold)
    }
}

/// A two's-complement integer of `b.len()` (1 to 8) bytes, sign-extended.
#[inline]
pub(crate) fn int(b: &[u8], big: bool) -> i64 {
    let shift = 64 - 8 * b.len() as u32;
    ((uint(b, big) << shift) as i64) >> shift
}

/// An IEEE 754 float of 4 or 8 bytes, as `f64` (a 4-byte one widened exactly).
#[inline]
pub(crate) fn float(b: &[u8], big: bool) -> f64 {
    let bits = uint(b, big);
    if b.len() == 4 {
        f64::from(f32::from_bits(bits as u32))
    } else {
        f64::from_bits(bits)
    }
}

/// A slot in `b[..8]`: the data's offset from the body's start, and its length (each word is
/// 4 bytes, so it fits `usize`).
#[inline]
pub(crate) fn slot(b: &[u8], big: bool) -> (usize, usize) {
    (uint(&b[..4], big) as usize, uint(&b[4..8], big) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_in_both_orders() {
        assert_eq!(uint(&[1, 2], true), 0x0102);
        assert_eq!(uint(&[1, 2], false), 0x0201);
        assert_eq!(int(&[0xff, 0xfe], true), -2);
        assert_eq!(int(&(-5i64).to_le_bytes(), false), -5);
        assert_eq!(float(&1.5f32.to_be_bytes(), true), 1.5);
        assert_eq!(float(&(-0.25f64).to_le_bytes(), false), -0.25);
        let mut s = 7u32.to_be_bytes().to_vec();
        s.extend_from_slice(&9u32.to_be_bytes());
        assert_eq!(slot(&s, true), (7, 9));
    }
}
