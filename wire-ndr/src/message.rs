//! Messages: a 24-byte header, then a record's body.
//!
//! ```text
//! 0..4    b"NDRr"
//! 4..8    total length of the message, header included (u32, big-endian)
//! 8..24   the format id of the record
//! 24..    the body: the fixed part in the sender's layout and byte order, then variable parts
//! ```
//!
//! A stream interleaves these with format frames (`b"NDRf"`, the same length word, then
//! [`Format::to_bytes`]). Both kinds of frame begin with the magic and the length, so a reader
//! learns a frame's size from its first 8 bytes.

use std::io::{self, IoSlice, Write};

use marshal_core::vectored::write_all_vectored;

use crate::native::{as_bytes, write_body};
use crate::{Error, ErrorKind, Format, FormatId, Record};

/// Bytes before a record's body.
pub const HEADER_LEN: usize = 24;
/// Bytes that tell a frame's kind and length.
pub const FRAME_HEAD_LEN: usize = 8;
/// First bytes of a record message.
pub const RECORD_MAGIC: [u8; 4] = *b"NDRr";
/// First bytes of a format frame.
pub const FORMAT_MAGIC: [u8; 4] = *b"NDRf";
/// Largest frame a stream reader accepts unless told otherwise: 256 MiB. A frame head gives
/// up to 4 GiB; readers refuse a head above their cap before they reserve anything for it.
pub const DEFAULT_MAX_FRAME: usize = 256 << 20;

/// `value` as one message: header and body in one buffer. Padding bytes are zero.
pub fn to_message<T: Record>(value: &T) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(HEADER_LEN + core::mem::size_of::<T>());
    write_message(value, &mut out)?;
    Ok(out)
}

/// Appends `value` as one message to `out`.
pub fn write_message<T: Record>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    let start = out.len();
    out.extend_from_slice(&[0; HEADER_LEN]);
    write_body(value, out)?;
    let total = out.len() - start;
    let header = header(T::format().id(), total)?;
    out[start..start + HEADER_LEN].copy_from_slice(&header);
    Ok(())
}

fn header(id: FormatId, total: usize) -> Result<[u8; HEADER_LEN], Error> {
    let Ok(total32) = u32::try_from(total) else {
        return Err(Error::without_offset(ErrorKind::TooLong { len: total }));
    };
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(&RECORD_MAGIC);
    h[4..8].copy_from_slice(&total32.to_be_bytes());
    h[8..].copy_from_slice(id.as_bytes());
    Ok(h)
}

/// A message ready to send: a header and a body that is either the value's own bytes (a
/// padding-free, pointer-free record: no copy) or one copy with padding zeroed.
#[derive(Debug)]
pub struct Outgoing<'a> {
    header: [u8; HEADER_LEN],
    body: Body<'a>,
}

#[derive(Debug)]
enum Body<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

/// Prepares `value` for sending: with no copy when its type is
/// [zero-copy](Format::is_zero_copy), else copied once.
pub fn prepare<T: Record>(value: &T) -> Result<Outgoing<'_>, Error> {
    let body = if T::AS_BYTES {
        Body::Borrowed(as_bytes(value))
    } else {
        let mut b = Vec::with_capacity(core::mem::size_of::<T>());
        write_body(value, &mut b)?;
        Body::Owned(b)
    };
    let len = match &body {
        Body::Borrowed(b) => b.len(),
        Body::Owned(b) => b.len(),
    };
    Ok(Outgoing {
        header: header(T::format().id(), HEADER_LEN + len)?,
        body,
    })
}

impl Outgoing<'_> {
    /// Whether the body is the value's own memory.
    pub fn is_zero_copy(&self) -> bool {
        matches!(self.body, Body::Borrowed(_))
    }
    /// The header.
    pub fn header(&self) -> &[u8; HEADER_LEN] {
        &self.header
    }
    /// The body.
    pub fn body(&self) -> &[u8] {
        match &self.body {
            Body::Borrowed(b) => b,
            Body::Owned(b) => b,
        }
    }
    /// Total bytes.
    pub fn len(&self) -> usize {
        HEADER_LEN + self.body().len()
    }
    /// Never empty: there is always a header.
    pub fn is_empty(&self) -> bool {
        false
    }
    /// The two slices to hand to a vectored write.
    pub fn io_slices(&self) -> [IoSlice<'_>; 2] {
        [IoSlice::new(&self.header), IoSlice::new(self.body())]
    }
    /// Writes the whole message with vectored writes.
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        write_all_vectored(w, &mut self.io_slices())
    }
}

/// A parsed record message: its format id and body (borrowed).
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    /// The format the body is in.
    pub id: FormatId,
    /// The body.
    pub body: &'a [u8],
}

/// Parses a record message's header: the magic, the length (which must be the slice's), and
/// the id.
#[inline]
pub fn parse_message(msg: &[u8]) -> Result<Message<'_>, Error> {
    match msg.first_chunk::<HEADER_LEN>() {
        Some(h)
            if h[..4] == RECORD_MAGIC
                && u32::from_be_bytes([h[4], h[5], h[6], h[7]]) as usize == msg.len() =>
        {
            let mut id = [0u8; 16];
            id.copy_from_slice(&h[8..]);
            Ok(Message {
                id: FormatId::from_bytes(id),
                body: &msg[HEADER_LEN..],
            })
        }
        _ => Err(not_a_message(msg)),
    }
}

/// Why `msg` is not a record message, in words.
#[cold]
fn not_a_message(msg: &[u8]) -> Error {
    match parse_frame(msg) {
        Err(e) => e,
        Ok(_) => Error::new(
            ErrorKind::Custom("a format frame where a record message was expected".into()),
            0,
        ),
    }
}

/// A frame of an NDR stream.
#[derive(Debug, Clone)]
pub enum Frame<'a> {
    /// A format description (validated).
    Format(Format),
    /// A record message.
    Record(Message<'a>),
}

/// The length of the frame that begins with `head` (magic and length), header included.
pub fn frame_len(head: &[u8; FRAME_HEAD_LEN]) -> Result<usize, Error> {
    let len = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
    let min = match [head[0], head[1], head[2], head[3]] {
        RECORD_MAGIC => HEADER_LEN,
        FORMAT_MAGIC => FRAME_HEAD_LEN + 16,
        m => {
            return Err(Error::new(
                ErrorKind::Custom(format!("not an NDR frame: magic {m:02x?}")),
                0,
            ))
        }
    };
    if len < min {
        return Err(Error::new(
            ErrorKind::Custom(format!("frame length {len} is shorter than its header")),
            4,
        ));
    }
    Ok(len)
}

/// Parses one whole frame (`frame.len()` must be the length its head gives).
pub fn parse_frame(frame: &[u8]) -> Result<Frame<'_>, Error> {
    let Some(head) = frame.first_chunk::<FRAME_HEAD_LEN>() else {
        return Err(Error::new(
            ErrorKind::UnexpectedEnd {
                needed: FRAME_HEAD_LEN,
                remaining: frame.len(),
            },
            0,
        ));
    };
    let len = frame_len(head)?;
    if len != frame.len() {
        return Err(Error::new(
            ErrorKind::Custom(format!(
                "frame length {len} differs from the {} bytes given",
                frame.len()
            )),
            4,
        ));
    }
    if head[..4] == FORMAT_MAGIC {
        return Format::from_bytes(&frame[FRAME_HEAD_LEN..])
            .map(Frame::Format)
            .map_err(|e| e.shifted(FRAME_HEAD_LEN));
    }
    let mut id = [0u8; 16];
    id.copy_from_slice(&frame[8..HEADER_LEN]);
    Ok(Frame::Record(Message {
        id: FormatId::from_bytes(id),
        body: &frame[HEADER_LEN..],
    }))
}

/// A format frame: the magic, the length, then [`Format::to_bytes`].
pub fn format_frame(f: &Format) -> Vec<u8> {
    let bytes = f.to_bytes();
    let mut out = Vec::with_capacity(FRAME_HEAD_LEN + bytes.len());
    out.extend_from_slice(&FORMAT_MAGIC);
    // A valid description is far below 4 GiB (at most 4096 fields of bounded size per record).
    out.extend_from_slice(&((FRAME_HEAD_LEN + bytes.len()) as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    out
}

/// A message from a body already in some format's layout.
pub fn message_from_body(id: FormatId, body: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header(id, HEADER_LEN + body.len())?);
    out.extend_from_slice(body);
    Ok(out)
}
