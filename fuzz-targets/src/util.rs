//! Helpers the targets share: slicing inputs into parts, and a reader that delivers its bytes
//! a few at a time, as a socket does.

use std::io::{self, Read};

use marshal::ndr::{Format, FormatId};

/// Splits `[len: u16 big-endian][len bytes][rest]`; `None` when the input is shorter.
pub(crate) fn split_u16(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = data.split_first_chunk::<2>()?;
    let len = usize::from(u16::from_be_bytes(*len));
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// Prepends `[len: u16 big-endian]` to `part` (inverse of [`split_u16`]).
pub(crate) fn join_u16(part: &[u8], rest: &[u8]) -> Vec<u8> {
    let len = u16::try_from(part.len()).expect("a part of at most 64 KiB");
    let mut out = len.to_be_bytes().to_vec();
    out.extend_from_slice(part);
    out.extend_from_slice(rest);
    out
}

/// The format whose canonical description (without the id) is `description`: the id is
/// computed here, so that mutated descriptions reach validation.
pub(crate) fn format_of_description(description: &[u8]) -> Result<Format, marshal::Error> {
    let mut bytes = FormatId::of_description(description).as_bytes().to_vec();
    bytes.extend_from_slice(description);
    Format::from_bytes(&bytes)
}

/// The canonical description of `f` without its id (what [`format_of_description`] takes).
pub(crate) fn description_of(f: &Format) -> Vec<u8> {
    f.to_bytes()[16..].to_vec()
}

/// Delivers `data` in reads whose sizes cycle through a pattern chosen by `seed`: one byte,
/// a few bytes, a few KiB; never more than asked for.
#[derive(Debug)]
pub(crate) struct Trickle<'a> {
    data: &'a [u8],
    steps: [usize; 4],
    i: usize,
}

impl<'a> Trickle<'a> {
    pub(crate) fn new(data: &'a [u8], seed: u8) -> Self {
        let s = usize::from(seed);
        Trickle {
            data,
            steps: [1 + s % 7, 1, 3 + s % 61, 1 + (s * 37) % 4099],
            i: 0,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let step = self.steps[self.i % self.steps.len()];
        self.i += 1;
        let n = step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_join_are_inverse() {
        let joined = join_u16(b"abc", b"de");
        assert_eq!(split_u16(&joined), Some((&b"abc"[..], &b"de"[..])));
        assert_eq!(split_u16(&[0, 5, 1]), None);
        assert_eq!(split_u16(&[0]), None);
    }

    #[test]
    fn trickle_delivers_everything_in_order() {
        let data: Vec<u8> = (0..=255).collect();
        for seed in [0, 1, 200, 255] {
            let mut out = Vec::new();
            Trickle::new(&data, seed).read_to_end(&mut out).unwrap();
            assert_eq!(out, data);
        }
    }
}
