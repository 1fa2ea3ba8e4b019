//! ONC RPC record marking over a byte stream (RFC 5531 §11) as a codec: whole records out,
//! records framed as fragments in.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};
use wire_xdr::rpc::{FragmentHeader, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD, MAX_FRAGMENT_LEN};

use super::error::{too_large, CodecError};
use super::growth::reserve_for;

/// Where the decoder is inside the current record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a fragment header at `pos`.
    Header,
    /// Inside a fragment with `left` bytes to come; `last` if it ends the record.
    Data { left: usize, last: bool },
}

/// Record marking for ONC RPC over TCP: decodes whole records (the fragments of a record are
/// reassembled in the read buffer, each byte moved at most once and a one-fragment record
/// not at all) and encodes a record body as fragments of at most
/// [`fragment_size`](RecordCodec::fragment_size) bytes (by default one fragment).
///
/// The caps on the record size and on the fragments of a record are checked on every
/// fragment header, with [`FragmentHeader::check`], before anything is reserved for it; the
/// buffer then grows with the data that arrives.
///
/// ```
/// use bytes::{Bytes, BytesMut};
/// use tokio_util::codec::{Decoder, Encoder};
/// use transports::codec::RecordCodec;
///
/// let mut codec = RecordCodec::new().fragment_size(2);
/// let mut wire = BytesMut::new();
/// codec.encode(Bytes::from_static(b"abc"), &mut wire)?;
/// assert_eq!(&wire[..], b"\0\0\0\x02ab\x80\0\0\x01c");
///
/// let mut input = BytesMut::from(&wire[..5]);
/// assert_eq!(codec.decode(&mut input)?, None); // incomplete: wait for more
/// input.extend_from_slice(&wire[5..]);
/// assert_eq!(codec.decode(&mut input)?.unwrap(), &b"abc"[..]);
/// # Ok::<(), transports::codec::CodecError>(())
/// ```
///
/// Over TCP, `Framed::new(stream, RecordCodec::new())` is a `Stream` of records and a `Sink`
/// of record bodies.
#[derive(Debug, Clone)]
pub struct RecordCodec {
    max_record: usize,
    max_fragments: usize,
    fragment_size: usize,
    state: State,
    /// The current record's data so far lies at `src[..assembled]`.
    assembled: usize,
    /// Next unparsed byte of `src` (a header, or fragment data still to move down).
    pos: usize,
    /// Fragments of the current record seen so far.
    fragments: usize,
}

impl Default for RecordCodec {
    fn default() -> Self {
        RecordCodec::new()
    }
}

impl RecordCodec {
    /// A codec with the blocking transports' caps ([`DEFAULT_MAX_RECORD`],
    /// [`DEFAULT_MAX_FRAGMENTS`]) that sends each record as one fragment.
    pub fn new() -> Self {
        RecordCodec {
            max_record: DEFAULT_MAX_RECORD,
            max_fragments: DEFAULT_MAX_FRAGMENTS,
            fragment_size: MAX_FRAGMENT_LEN,
            state: State::Header,
            assembled: 0,
            pos: 0,
            fragments: 0,
        }
    }

    /// Caps the size of a record, received or sent.
    pub fn max_record(mut self, max: usize) -> Self {
        self.max_record = max;
        self
    }

    /// Caps the fragments of a record, received or sent (at least 1).
    pub fn max_fragments(mut self, max: usize) -> Self {
        self.max_fragments = max.max(1);
        self
    }

    /// Sends records as fragments of at most `size` bytes (clamped to
    /// `1..=`[`MAX_FRAGMENT_LEN`]).
    pub fn fragment_size(mut self, size: usize) -> Self {
        self.fragment_size = size.clamp(1, MAX_FRAGMENT_LEN);
        self
    }

    /// Whether no part of a record has been parsed (what is buffered, if anything, starts at
    /// a record boundary).
    pub fn is_idle(&self) -> bool {
        self.state == State::Header && self.fragments == 0
    }

    fn reset(&mut self) {
        self.state = State::Header;
        self.assembled = 0;
        self.pos = 0;
        self.fragments = 0;
    }
}

impl Decoder for RecordCodec {
    type Item = Bytes;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        if self.pos > src.len() {
            // Not the buffer the record began in (a caller's mistake, not the peer's).
            self.reset();
            return Err(CodecError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the read buffer lost the start of a record: feed a RecordCodec one buffer",
            )));
        }
        loop {
            match self.state {
                State::Header => {
                    let Some(head) = src.get(self.pos..self.pos + 4) else {
                        return Ok(None);
                    };
                    let h = FragmentHeader::parse(head.try_into().expect("four bytes"));
                    self.fragments += 1;
                    if let Err(e) = h.check(
                        self.fragments,
                        self.assembled,
                        self.max_record,
                        self.max_fragments,
                    ) {
                        self.reset();
                        return Err(CodecError::TooLarge(e));
                    }
                    if self.pos == 0 {
                        // The record's first data: drop the header, nothing moves.
                        src.advance(4);
                    } else {
                        self.pos += 4;
                    }
                    self.state = State::Data {
                        left: h.len,
                        last: h.last,
                    };
                }
                State::Data { left, last } => {
                    let take = left.min(src.len() - self.pos);
                    if take > 0 && self.assembled != self.pos {
                        src.copy_within(self.pos..self.pos + take, self.assembled);
                    }
                    self.pos += take;
                    self.assembled += take;
                    let left = left - take;
                    if left > 0 {
                        self.state = State::Data { left, last };
                        reserve_for(src, left);
                        return Ok(None);
                    }
                    if !last {
                        self.state = State::Header;
                        continue;
                    }
                    let mut record = src.split_to(self.pos);
                    record.truncate(self.assembled);
                    self.reset();
                    return Ok(Some(record.freeze()));
                }
            }
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        match self.decode(src)? {
            Some(record) => Ok(Some(record)),
            None if src.is_empty() && self.is_idle() => Ok(None),
            None => Err(CodecError::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "the stream ended inside a record ({} bytes of it received)",
                    self.assembled
                ),
            ))),
        }
    }
}

impl Encoder<Bytes> for RecordCodec {
    type Error = CodecError;

    fn encode(&mut self, record: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&record[..], dst)
    }
}

/// Encodes a record body held elsewhere (copied into the write buffer).
impl Encoder<&[u8]> for RecordCodec {
    type Error = CodecError;

    fn encode(&mut self, record: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        let len = record.len();
        if len > self.max_record {
            return Err(too_large(len as u64, self.max_record, 0, "record"));
        }
        let fragments = len.div_ceil(self.fragment_size).max(1);
        if fragments > self.max_fragments {
            return Err(CodecError::TooLarge(
                marshal_core::Error::new(
                    marshal_core::ErrorKind::TooManyElements {
                        count: fragments as u64,
                        limit: self.max_fragments as u64,
                    },
                    0,
                )
                .in_field("fragments"),
            ));
        }
        dst.reserve(len + 4 * fragments);
        let mut chunks = record.chunks(self.fragment_size).peekable();
        if chunks.peek().is_none() {
            dst.put_slice(
                &FragmentHeader { len: 0, last: true }
                    .to_bytes()
                    .expect("0 fits"),
            );
        }
        while let Some(chunk) = chunks.next() {
            let h = FragmentHeader {
                len: chunk.len(),
                last: chunks.peek().is_none(),
            };
            dst.put_slice(&h.to_bytes().map_err(CodecError::TooLarge)?);
            dst.put_slice(chunk);
        }
        Ok(())
    }
}
