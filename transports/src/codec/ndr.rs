//! NDR stream framing as a codec: whole frames (format descriptions and records).

use bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};
use wire_ndr::{frame_len, DEFAULT_MAX_FRAME, FRAME_HEAD_LEN};

use super::error::{too_large, CodecError};
use super::growth::reserve_for;

/// NDR stream framing, as [`NdrWriter`](crate::ndr::NdrWriter) writes and
/// [`NdrReader`](crate::ndr::NdrReader) reads it: each frame is a format description
/// (`NDRf`) or a record message (`NDRr`), behind an 8-byte head that gives the frame's
/// whole length ([`frame_len`]), capped before anything is reserved (by default at
/// [`DEFAULT_MAX_FRAME`]). Frames come out whole, for [`wire_ndr::parse_frame`]: register
/// each [`Frame::Format`](wire_ndr::Frame::Format) with a
/// [`Receiver`](wire_ndr::Receiver) and decode each record with it.
///
/// ```
/// use bytes::BytesMut;
/// use tokio_util::codec::{Decoder, Encoder};
/// use transports::codec::NdrCodec;
/// use wire_ndr::{format_frame, message_from_body, parse_frame, ByteOrder, Format, Frame, IOField};
///
/// let f = Format::from_fields("tick", ByteOrder::Big, 8, &[IOField::new("seq", "integer", 8, 0)], &[])?;
/// let mut codec = NdrCodec::new();
/// let mut wire = BytesMut::new();
/// codec.encode(&format_frame(&f)[..], &mut wire)?;
/// codec.encode(&message_from_body(f.id(), &7u64.to_be_bytes())?[..], &mut wire)?;
///
/// let first = codec.decode(&mut wire)?.unwrap();
/// assert!(matches!(parse_frame(&first)?, Frame::Format(g) if g == f));
/// let second = codec.decode(&mut wire)?.unwrap();
/// assert!(matches!(parse_frame(&second)?, Frame::Record(_)));
/// assert_eq!(codec.decode(&mut wire)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NdrCodec {
    max_frame: usize,
}

impl Default for NdrCodec {
    fn default() -> Self {
        NdrCodec::new()
    }
}

impl NdrCodec {
    /// A codec with the cap [`DEFAULT_MAX_FRAME`].
    pub fn new() -> Self {
        NdrCodec {
            max_frame: DEFAULT_MAX_FRAME,
        }
    }

    /// Caps the size of a frame (its head included), received or sent.
    pub fn max_frame(mut self, max: usize) -> Self {
        self.max_frame = max;
        self
    }

    /// The length of the frame that starts `bytes` (whose head has come), under the cap.
    fn frame_len(&self, head: &[u8; FRAME_HEAD_LEN]) -> Result<usize, CodecError> {
        let len = frame_len(head).map_err(CodecError::Malformed)?;
        if len > self.max_frame {
            return Err(too_large(len as u64, self.max_frame, 4, "frame"));
        }
        Ok(len)
    }
}

impl Decoder for NdrCodec {
    type Item = Bytes;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        let Some(head) = src.first_chunk::<FRAME_HEAD_LEN>() else {
            return Ok(None);
        };
        let len = self.frame_len(head)?;
        if src.len() < len {
            reserve_for(src, len - src.len());
            return Ok(None);
        }
        Ok(Some(src.split_to(len).freeze()))
    }
}

impl Encoder<Bytes> for NdrCodec {
    type Error = CodecError;

    fn encode(&mut self, frame: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&frame[..], dst)
    }
}

/// Sends one whole frame ([`format_frame`](wire_ndr::format_frame),
/// [`message_from_body`](wire_ndr::message_from_body), [`to_message`](wire_ndr::to_message)),
/// checked first: its head must give its length, under the cap.
impl Encoder<&[u8]> for NdrCodec {
    type Error = CodecError;

    fn encode(&mut self, frame: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        let head = frame.first_chunk::<FRAME_HEAD_LEN>().ok_or_else(|| {
            CodecError::Malformed(marshal_core::Error::new(
                marshal_core::ErrorKind::UnexpectedEnd {
                    needed: FRAME_HEAD_LEN,
                    remaining: frame.len(),
                },
                0,
            ))
        })?;
        let len = self.frame_len(head)?;
        if len != frame.len() {
            return Err(CodecError::Malformed(marshal_core::Error::new(
                marshal_core::ErrorKind::Custom(format!(
                    "frame length {len} differs from the {} bytes given",
                    frame.len()
                )),
                4,
            )));
        }
        dst.reserve(frame.len());
        dst.put_slice(frame);
        Ok(())
    }
}
