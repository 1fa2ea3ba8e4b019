//! Groups a layout's units into words for writing and for the in-place swap (reads load unit
//! by unit: see `convert::read_body`), as USC does: the widest load or store (up to 8 bytes)
//! that starts at a multiple of its width from the record's start and holds whole units. USC
//! merges two adjacent 16-bit fields into one 32-bit operation; a 4-aligned UDP header is one
//! 8-byte word where unaligned access is cheap, two 4-byte words where it is not. A unit no
//! such word can hold (a `u32` at offset 2) is a word of its own. Byte arrays are copied,
//! never part of a word; a word may span their bytes and those of gaps, since stores of words
//! come first and the arrays are written over them.
//!
//! A word is always handled as a little-endian integer (a plain load on little-endian hosts):
//! a unit at byte `k` of the word is bits `8k..`, its bytes reversed in place if it is
//! big-endian ([`super::convert`]), so units of both byte orders can share a word.

use super::Unit;

pub struct Word {
    pub at: usize,
    /// 1, 2, 4 or 8 bytes.
    pub width: usize,
    /// Indices of the units inside, by offset.
    pub units: Vec<usize>,
}

impl Word {
    /// The shift of a unit at `at` within the word's little-endian value.
    pub fn shift(&self, at: usize) -> u32 {
        8 * (at - self.at) as u32
    }
}

/// Words of at most `widest` bytes (a power of two, at most 8).
pub fn group(units: &[Unit], size: usize, widest: usize) -> Vec<Word> {
    let mut taken = vec![false; units.len()];
    let mut words = Vec::new();
    for (i, u) in units.iter().enumerate() {
        if u.bytes || taken[i] {
            continue;
        }
        let mut w = widest;
        let word = loop {
            if w < u.width {
                // No aligned word holds it: a word of its own (an unaligned access).
                break Word {
                    at: u.at,
                    width: u.width,
                    units: vec![i],
                };
            }
            if let Some(word) = try_word(units, &taken, u.at - u.at % w, w, size) {
                break word;
            }
            w /= 2;
        };
        for &j in &word.units {
            taken[j] = true;
        }
        words.push(word);
    }
    words
}

/// A word of `width` bytes at `at` if every unit it touches lies wholly inside and is not yet
/// in another word.
fn try_word(units: &[Unit], taken: &[bool], at: usize, width: usize, size: usize) -> Option<Word> {
    let end = at + width;
    if end > size {
        return None;
    }
    let mut inside = Vec::new();
    for (j, u) in units.iter().enumerate() {
        if u.end() <= at || u.at >= end || u.bytes {
            continue;
        }
        if u.at < at || u.end() > end || taken[j] {
            return None;
        }
        inside.push(j);
    }
    Some(Word {
        at,
        width,
        units: inside,
    })
}
