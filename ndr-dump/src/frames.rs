//! Reading an NDR stream frame by frame. Each frame's first 8 bytes give its kind and length;
//! the length is checked against [`MAX_FRAME`] before anything is allocated, and the buffer
//! grows only as bytes arrive, so a short stream claiming a long frame costs what it holds.

use std::fmt;
use std::io::{self, Read};

use wire_ndr::{frame_len, Error, FRAME_HEAD_LEN};

/// Longest frame accepted: 256 MiB.
pub const MAX_FRAME: usize = 256 << 20;

/// Where a frame is in its stream: its index (from 0) and its first byte's offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub index: usize,
    pub start: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {} at byte {}", self.index, self.start)
    }
}

/// What is wrong with the stream, at which frame.
#[derive(Debug)]
pub struct StreamError {
    pub at: Position,
    pub what: String,
}

impl StreamError {
    pub fn new(at: Position, what: impl Into<String>) -> StreamError {
        StreamError {
            at,
            what: what.into(),
        }
    }

    /// A decoding error inside the frame at `at`, its offset (counted from the frame's start)
    /// turned into a stream offset.
    pub fn wire(at: Position, e: &Error) -> StreamError {
        let path = e.path();
        let mut what = if path.is_empty() {
            e.kind().to_string()
        } else {
            format!("{path}: {}", e.kind())
        };
        if let Some(o) = e.offset() {
            what.push_str(&format!(" (stream byte {})", at.start + o as u64));
        }
        StreamError::new(at, what)
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.what)
    }
}

/// The frames of a stream, in order.
#[derive(Debug)]
pub struct Frames<R> {
    input: R,
    next: Position,
}

impl<R: Read> Frames<R> {
    pub fn new(input: R) -> Frames<R> {
        Frames {
            input,
            next: Position { index: 0, start: 0 },
        }
    }

    /// The next whole frame (head included) and where it is; `None` when the stream ends
    /// between frames.
    pub fn next_frame(&mut self) -> Result<Option<(Position, Vec<u8>)>, StreamError> {
        let at = self.next;
        let read_error = |e: io::Error| StreamError::new(at, format!("cannot read: {e}"));
        let mut head = [0u8; FRAME_HEAD_LEN];
        let got = read_full(&mut self.input, &mut head).map_err(read_error)?;
        if got == 0 {
            return Ok(None);
        }
        if got < FRAME_HEAD_LEN {
            return Err(StreamError::new(
                at,
                format!("the stream ends {got} bytes into the frame's {FRAME_HEAD_LEN}-byte head"),
            ));
        }
        let len = frame_len(&head).map_err(|e| StreamError::wire(at, &e))?;
        if len > MAX_FRAME {
            return Err(StreamError::new(
                at,
                format!("frame length {len} exceeds the limit of {MAX_FRAME} bytes"),
            ));
        }
        let mut frame = Vec::with_capacity(len.min(1 << 16));
        frame.extend_from_slice(&head);
        (&mut self.input)
            .take((len - FRAME_HEAD_LEN) as u64)
            .read_to_end(&mut frame)
            .map_err(read_error)?;
        if frame.len() < len {
            return Err(StreamError::new(
                at,
                format!(
                    "the stream ends {} bytes into the frame's {len}",
                    frame.len()
                ),
            ));
        }
        self.next = Position {
            index: at.index + 1,
            start: at.start + len as u64,
        };
        Ok(Some((at, frame)))
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8]) -> Result<Vec<(Position, usize)>, String> {
        let mut f = Frames::new(bytes);
        let mut out = Vec::new();
        loop {
            match f.next_frame() {
                Ok(Some((at, b))) => out.push((at, b.len())),
                Ok(None) => return Ok(out),
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    fn head(magic: &[u8; 4], len: u32) -> Vec<u8> {
        let mut h = magic.to_vec();
        h.extend_from_slice(&len.to_be_bytes());
        h
    }

    #[test]
    fn splits_frames_and_says_where_the_stream_breaks() {
        let mut s = head(b"NDRr", 24);
        s.resize(24, 7);
        s.extend_from_slice(&head(b"NDRr", 30));
        s.resize(54, 7);
        assert_eq!(
            frames(&s).unwrap(),
            [
                (Position { index: 0, start: 0 }, 24),
                (
                    Position {
                        index: 1,
                        start: 24
                    },
                    30
                )
            ]
        );
        assert_eq!(frames(&[]).unwrap(), []);
        assert_eq!(
            frames(&s[..50]).unwrap_err(),
            "frame 1 at byte 24: the stream ends 26 bytes into the frame's 30"
        );
        assert_eq!(
            frames(&s[..27]).unwrap_err(),
            "frame 1 at byte 24: the stream ends 3 bytes into the frame's 8-byte head"
        );
        let mut bad = s.clone();
        bad[24..28].copy_from_slice(b"XXXX");
        assert!(frames(&bad)
            .unwrap_err()
            .starts_with("frame 1 at byte 24: not an NDR frame"));
        assert_eq!(
            frames(&head(b"NDRr", 10)).unwrap_err(),
            "frame 0 at byte 0: frame length 10 is shorter than its header (stream byte 4)"
        );
    }

    #[test]
    fn a_frame_over_the_cap_is_refused_before_reading_it() {
        let s = head(b"NDRf", u32::MAX);
        assert_eq!(
            frames(&s).unwrap_err(),
            format!(
                "frame 0 at byte 0: frame length 4294967295 exceeds the limit of {MAX_FRAME} bytes"
            )
        );
    }
}
