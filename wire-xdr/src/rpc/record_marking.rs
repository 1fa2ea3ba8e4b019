//! Record marking (RFC 5531 §11): over a byte stream each message is a record sent as one or
//! more fragments, each behind a four-byte header whose top bit marks the last fragment and
//! whose other 31 bits give the fragment's length.
//!
//! [`RecordReader`] reassembles records in its own buffer, sans I/O: [`RecordReader::advance`]
//! either completes a record or says how many more bytes it needs ([`Progress::Incomplete`],
//! control flow, not an error), and the caller reads into [`RecordReader::read_buf`]. Fragment
//! data is moved down over the headers as it arrives, so a record is contiguous and every
//! byte moves at most once; a single-fragment record is not moved at all. Caps on the record
//! size and the fragment count are checked on each header, before anything is allocated for
//! it, and the buffer grows only as data arrives.

use std::io::{self, Read};

use marshal_core::{Error, ErrorKind};

/// The top bit of a fragment header: this is the record's last fragment.
pub const LAST_FRAGMENT: u32 = 1 << 31;
/// The longest fragment a header can announce.
pub const MAX_FRAGMENT_LEN: usize = (LAST_FRAGMENT - 1) as usize;
/// Default cap on a reassembled record: 64 MiB.
pub const DEFAULT_MAX_RECORD: usize = 64 << 20;
/// Default cap on the fragments of one record.
pub const DEFAULT_MAX_FRAGMENTS: usize = 1 << 16;

/// The header of a record sent as one fragment of `len` bytes.
///
/// ```
/// assert_eq!(wire_xdr::rpc::record_mark(5).unwrap(), [0x80, 0, 0, 5]);
/// assert!(wire_xdr::rpc::record_mark(1 << 31).is_err());
/// ```
#[inline]
pub fn record_mark(len: usize) -> Result<[u8; 4], Error> {
    FragmentHeader { len, last: true }.to_bytes()
}

/// A fragment header: the fragment's length and whether it ends its record. Any four bytes
/// are one; whether the fragment is acceptable is [`FragmentHeader::check`]'s question.
///
/// ```
/// use wire_xdr::rpc::FragmentHeader;
/// let h = FragmentHeader::parse([0, 0, 1, 0]);
/// assert_eq!(h, FragmentHeader { len: 256, last: false });
/// assert_eq!(h.to_bytes().unwrap(), [0, 0, 1, 0]);
/// // The third fragment of a record of which 100 bytes came, under a cap of 300 bytes.
/// assert!(h.check(3, 100, 300, 16).is_err());
/// assert!(h.check(3, 44, 300, 16).is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FragmentHeader {
    /// Bytes of data after the header.
    pub len: usize,
    /// This fragment ends the record.
    pub last: bool,
}

impl FragmentHeader {
    /// Decodes a header.
    pub fn parse(bytes: [u8; 4]) -> Self {
        let word = u32::from_be_bytes(bytes);
        FragmentHeader {
            len: (word & !LAST_FRAGMENT) as usize,
            last: word & LAST_FRAGMENT != 0,
        }
    }

    /// Encodes the header; a length beyond [`MAX_FRAGMENT_LEN`] is an error.
    #[inline]
    pub fn to_bytes(self) -> Result<[u8; 4], Error> {
        if self.len > MAX_FRAGMENT_LEN {
            return Err(Error::without_offset(ErrorKind::TooLong { len: self.len }));
        }
        let last = if self.last { LAST_FRAGMENT } else { 0 };
        Ok((last | self.len as u32).to_be_bytes())
    }

    /// Checks the caps before anything is reserved for this fragment, the `fragment`-th
    /// (counting from 1) of a record of which `assembled` bytes came before it: the record
    /// may not exceed `max_record` bytes nor `max_fragments` fragments. The error's offset is
    /// `assembled`, the place in the record where the fragment would start.
    pub fn check(
        self,
        fragment: usize,
        assembled: usize,
        max_record: usize,
        max_fragments: usize,
    ) -> Result<(), Error> {
        if fragment > max_fragments.max(1) {
            return Err(Error::new(
                ErrorKind::TooManyElements {
                    count: fragment as u64,
                    limit: max_fragments.max(1) as u64,
                },
                assembled,
            )
            .in_field("fragments"));
        }
        let total = assembled as u64 + self.len as u64;
        if total > max_record as u64 {
            return Err(Error::new(
                ErrorKind::LengthTooLarge {
                    len: total,
                    max: max_record as u64,
                },
                assembled,
            )
            .in_field("record"));
        }
        Ok(())
    }
}

/// What [`RecordReader::advance`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A whole record is ready: [`RecordReader::record`] returns it.
    Ready,
    /// At least this many more bytes must arrive.
    Incomplete(usize),
}

/// Where the parser is inside the current record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a fragment header at `pos`.
    Header,
    /// Inside a fragment with `left` bytes to come; `last` if it ends the record.
    Data { left: usize, last: bool },
    /// The record `[start, start + assembled)` is complete and not yet consumed.
    Ready,
}

/// Reassembles records from a byte stream.
///
/// ```
/// use wire_xdr::rpc::{Progress, RecordReader};
/// let mut rr = RecordReader::new();
/// // "ab" as a first fragment, then "c" as the last one.
/// let wire = [0, 0, 0, 2, b'a', b'b', 0x80, 0, 0, 1, b'c'];
/// let mut input = &wire[..];
/// assert_eq!(rr.read_record(&mut input).unwrap(), b"abc");
/// assert_eq!(rr.advance().unwrap(), Progress::Incomplete(4));
/// ```
#[derive(Debug)]
pub struct RecordReader {
    /// Storage: `[0, end)` holds received bytes.
    buf: Vec<u8>,
    end: usize,
    /// Start of the current record's data (contiguous: `[start, start + assembled)`).
    start: usize,
    assembled: usize,
    /// Next unparsed byte (a header, or fragment data still to move down).
    pos: usize,
    state: State,
    fragments: usize,
    max_record: usize,
    max_fragments: usize,
}

/// Why [`RecordReader::read_record`] returned no record.
#[derive(Debug)]
pub enum RecordError {
    /// The stream failed, or ended (`UnexpectedEof`; at a record boundary when
    /// [`RecordReader::is_idle`]).
    Io(io::Error),
    /// A header broke a cap: the stream cannot be trusted any further.
    Protocol(Error),
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RecordError::Io(e) => write!(f, "record stream: {e}"),
            RecordError::Protocol(e) => write!(f, "record marking: {e}"),
        }
    }
}

impl std::error::Error for RecordError {}

impl Default for RecordReader {
    fn default() -> Self {
        RecordReader::new()
    }
}

/// The least a read asks for, so that several small records arrive in one system call.
const MIN_READ: usize = 4096;
/// Reads may grow the buffer by this much before any data justifies more.
const FIRST_GROWTH: usize = 64 * 1024;
/// A buffer above this size is released when it holds no data.
const KEEP_MAX: usize = 16 << 20;

impl RecordReader {
    /// A reader with the default caps ([`DEFAULT_MAX_RECORD`], [`DEFAULT_MAX_FRAGMENTS`]).
    pub fn new() -> Self {
        RecordReader::with_caps(DEFAULT_MAX_RECORD, DEFAULT_MAX_FRAGMENTS)
    }

    /// A reader that refuses records longer than `max_record` bytes or made of more than
    /// `max_fragments` fragments.
    pub fn with_caps(max_record: usize, max_fragments: usize) -> Self {
        RecordReader {
            buf: Vec::new(),
            end: 0,
            start: 0,
            assembled: 0,
            pos: 0,
            state: State::Header,
            fragments: 0,
            max_record,
            max_fragments: max_fragments.max(1),
        }
    }

    /// Whether no part of a record is buffered: the stream sits at a record boundary.
    pub fn is_idle(&self) -> bool {
        self.state == State::Ready && self.pos == self.end
            || self.state == State::Header && self.assembled == 0 && self.pos == self.end
    }

    /// Bytes allocated for the buffer.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Parses what has arrived. Consumes the record returned last, if any.
    pub fn advance(&mut self) -> Result<Progress, Error> {
        if self.state == State::Ready {
            self.state = State::Header;
            self.start = self.pos;
            self.assembled = 0;
            self.fragments = 0;
        }
        loop {
            match self.state {
                State::Ready => return Ok(Progress::Ready),
                State::Header => {
                    let have = self.end - self.pos;
                    if have < 4 {
                        return Ok(Progress::Incomplete(4 - have));
                    }
                    let h = FragmentHeader::parse(
                        self.buf[self.pos..self.pos + 4]
                            .try_into()
                            .expect("four bytes"),
                    );
                    self.fragments += 1;
                    h.check(
                        self.fragments,
                        self.assembled,
                        self.max_record,
                        self.max_fragments,
                    )?;
                    self.pos += 4;
                    self.state = State::Data {
                        left: h.len,
                        last: h.last,
                    };
                }
                State::Data { left, last } => {
                    let take = left.min(self.end - self.pos);
                    let dst = self.start + self.assembled;
                    if take > 0 && dst != self.pos {
                        self.buf.copy_within(self.pos..self.pos + take, dst);
                    }
                    self.pos += take;
                    self.assembled += take;
                    let left = left - take;
                    self.state = match (left, last) {
                        (0, true) => State::Ready,
                        (0, false) => State::Header,
                        (left, _) => {
                            self.state = State::Data { left, last };
                            return Ok(Progress::Incomplete(left));
                        }
                    };
                }
            }
        }
    }

    /// The record [`advance`](RecordReader::advance) completed (empty if none is ready).
    pub fn record(&self) -> &[u8] {
        match self.state {
            State::Ready => &self.buf[self.start..self.start + self.assembled],
            _ => &[],
        }
    }

    /// Room to read into: at least `want` bytes where the caps and the data received so far
    /// justify it (growth at most doubles what the current record has received, beyond a
    /// first 64 KiB), and at least 4 KiB so small records arrive together. Call
    /// [`filled`](RecordReader::filled) with the number of bytes read.
    pub fn read_buf(&mut self, want: usize) -> &mut [u8] {
        if self.state == State::Ready {
            // The caller is done with it.
            self.state = State::Header;
            self.start = self.pos;
            self.assembled = 0;
            self.fragments = 0;
        }
        if self.start > 0 {
            // Move the partial record (and anything after it) to the front.
            self.buf.copy_within(self.start..self.end, 0);
            self.pos -= self.start;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == 0 && self.buf.len() > KEEP_MAX {
            self.buf = Vec::new();
        }
        let received = self.end;
        let target = want.max(MIN_READ).min(received.max(FIRST_GROWTH));
        if self.buf.len() - self.end < target {
            self.buf.resize(self.end + target, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Records that `n` bytes were read into [`read_buf`](RecordReader::read_buf).
    pub fn filled(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.len());
    }

    /// Reads from `input` until a whole record is there, and returns it. A stream that ends
    /// is `Io(UnexpectedEof)`.
    pub fn read_record(&mut self, input: &mut impl Read) -> Result<&[u8], RecordError> {
        loop {
            match self.advance().map_err(RecordError::Protocol)? {
                Progress::Ready => return Ok(self.record()),
                Progress::Incomplete(want) => {
                    let room = self.read_buf(want);
                    match input.read(room) {
                        Ok(0) => return Err(RecordError::Io(io::ErrorKind::UnexpectedEof.into())),
                        Ok(n) => self.filled(n),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(RecordError::Io(e)),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fragments(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let last = if i + 1 == parts.len() {
                LAST_FRAGMENT
            } else {
                0
            };
            out.extend_from_slice(&(last | p.len() as u32).to_be_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    /// Feeds `wire` in pieces of `step` bytes and collects the records.
    fn feed(rr: &mut RecordReader, wire: &[u8], step: usize) -> Result<Vec<Vec<u8>>, Error> {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            match rr.advance()? {
                Progress::Ready => out.push(rr.record().to_vec()),
                Progress::Incomplete(_) if at == wire.len() => return Ok(out),
                Progress::Incomplete(want) => {
                    let room = rr.read_buf(want);
                    let n = step.min(room.len()).min(wire.len() - at);
                    room[..n].copy_from_slice(&wire[at..at + n]);
                    rr.filled(n);
                    at += n;
                }
            }
        }
    }

    #[test]
    fn records_in_any_pieces() {
        let mut wire = fragments(&[b"hello", b"", b" world"]);
        wire.extend(fragments(&[b"x"]));
        wire.extend(fragments(&[b""]));
        wire.extend(fragments(&[&[7u8; 10_000], &[8u8; 3]]));
        let mut whole = vec![7u8; 10_000];
        whole.extend([8, 8, 8]);
        for step in [1, 3, 4, 5, 7, 4096, 1 << 20] {
            let mut rr = RecordReader::new();
            let got = feed(&mut rr, &wire, step).unwrap();
            assert_eq!(
                got,
                [
                    b"hello world".to_vec(),
                    b"x".to_vec(),
                    vec![],
                    whole.clone()
                ],
                "step {step}"
            );
            assert!(rr.is_idle());
        }
    }

    #[test]
    fn a_2_gib_header_is_refused_without_allocating() {
        let mut rr = RecordReader::new();
        let wire = (LAST_FRAGMENT | 0x7fff_ffff).to_be_bytes();
        let e = feed(&mut rr, &wire, 4).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::LengthTooLarge {
                    len: 0x7fff_ffff,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("record"), "{e}");
        assert!(rr.capacity() <= FIRST_GROWTH, "{}", rr.capacity());
    }

    #[test]
    fn growth_follows_the_data() {
        // A 60 MiB record (under the cap) of which 10 bytes arrive: little is held.
        let mut rr = RecordReader::new();
        let mut wire = (LAST_FRAGMENT | (60 << 20)).to_be_bytes().to_vec();
        wire.extend([0; 10]);
        assert!(feed(&mut rr, &wire, 1 << 20).unwrap().is_empty());
        assert!(rr.capacity() <= FIRST_GROWTH, "{}", rr.capacity());
        assert!(!rr.is_idle());
    }

    #[test]
    fn caps_on_size_and_fragments() {
        let mut rr = RecordReader::with_caps(8, 3);
        let e = feed(&mut rr, &fragments(&[b"12345", b"6789"]), 64).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::LengthTooLarge { len: 9, max: 8 }),
            "{e}"
        );
        assert_eq!(e.offset(), Some(5));
        let mut rr = RecordReader::with_caps(8, 3);
        let e = feed(&mut rr, &fragments(&[b"", b"", b"", b""]), 64).unwrap_err();
        assert!(e.to_string().contains("fragments"), "{e}");
        let mut rr = RecordReader::with_caps(8, 3);
        assert_eq!(
            feed(&mut rr, &fragments(&[b"", b"12345678", b""]), 64).unwrap(),
            [b"12345678".to_vec()]
        );
    }

    #[test]
    fn read_record_reports_eof_mid_record() {
        let wire = fragments(&[b"abc"]);
        let mut rr = RecordReader::new();
        let mut input = &wire[..5];
        assert!(matches!(
            rr.read_record(&mut input),
            Err(RecordError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof
        ));
        assert!(!rr.is_idle());
    }
}
