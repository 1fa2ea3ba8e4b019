//! Groups a layout's units into words, as USC does: the widest aligned load or store the
//! record's guaranteed alignment allows (up to 8 bytes), holding whole units of one byte
//! order. Two adjacent big-endian `u16`s in a 4-aligned record become one `u32` operation;
//! an 8-aligned record moves up to 8 bytes at a time. A unit no aligned word can hold (a
//! `u32` at offset 2) is a word of its own. Byte arrays are copied, never part of a word; a
//! word may span their bytes, and those of gaps, since stores of words come first and the
//! arrays are written over them.

use super::{Order, Unit};

pub struct Word {
    pub at: usize,
    /// 1, 2, 4 or 8 bytes.
    pub width: usize,
    /// The order its multi-byte units share (big if it has none).
    pub order: Order,
    /// Indices of the units inside, by offset.
    pub units: Vec<usize>,
}

impl Word {
    /// The shift that brings a unit at `at` of `width` bytes to the low end of the word
    /// value, loaded in the word's order.
    pub fn shift(&self, at: usize, width: usize) -> u32 {
        let off = at - self.at;
        8 * match self.order {
            Order::Big => self.width - off - width,
            Order::Little => off,
        } as u32
    }
}

pub fn group(units: &[Unit], size: usize, align: usize) -> Vec<Word> {
    let widest = align.min(8);
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
                    order: u.order,
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

/// A word of `width` bytes at `at` if every unit it touches lies wholly inside, is not yet in
/// another word, and the multi-byte ones share one byte order.
fn try_word(units: &[Unit], taken: &[bool], at: usize, width: usize, size: usize) -> Option<Word> {
    let end = at + width;
    if end > size {
        return None;
    }
    let mut order = None;
    let mut inside = Vec::new();
    for (j, u) in units.iter().enumerate() {
        if u.end() <= at || u.at >= end || u.bytes {
            continue;
        }
        if u.at < at || u.end() > end || taken[j] {
            return None;
        }
        if u.width > 1 {
            match order {
                None => order = Some(u.order),
                Some(o) if o != u.order => return None,
                Some(_) => {}
            }
        }
        inside.push(j);
    }
    Some(Word {
        at,
        width,
        order: order.unwrap_or(Order::Big),
        units: inside,
    })
}
