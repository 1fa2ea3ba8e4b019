//! GIOP framing as a codec: whole messages out (fragments reassembled), whole messages in.

use bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};
use wire_iiop::giop::{
    MessageHeader, MsgType, Reassembler, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_MESSAGE, HEADER_LEN,
};

use super::error::{too_large, CodecError};
use super::growth::reserve_for;

/// GIOP 1.0–1.2 framing: each frame is one whole message, its 12-byte header included. The
/// header is checked ([`MessageHeader::parse`]: the magic, a version of 1.0–1.2, the flags,
/// the message type) and its size, read in the byte order its flag gives, is capped before
/// anything is reserved. 1.1 and 1.2 fragments are reassembled by wire-iiop's
/// [`Reassembler`] (1.2 fragments of several requests may interleave) and come out as one
/// message whose header is that of the whole.
///
/// A header that is not GIOP is [`CodecError::Malformed`]: a server answers it with a
/// `MessageError` and closes the connection.
///
/// ```
/// use bytes::BytesMut;
/// use tokio_util::codec::Decoder;
/// use transports::codec::{CodecError, GiopCodec};
/// use wire_iiop::giop::{MessageHeader, MsgType, Version};
/// use wire_iiop::ByteOrder;
///
/// let mut codec = GiopCodec::new();
/// let mut wire = BytesMut::new();
/// wire.extend_from_slice(&MessageHeader::new(Version::V1_2, ByteOrder::Little, MsgType::Reply, 4).to_bytes());
/// assert_eq!(codec.decode(&mut wire)?, None); // the body has not come
/// wire.extend_from_slice(&[7, 0, 0, 0]);
/// assert_eq!(codec.decode(&mut wire)?.unwrap().len(), 16);
///
/// let mut junk = BytesMut::from(&b"HTTP/1.1 200 OK\r\n"[..]);
/// let e = codec.decode(&mut junk).unwrap_err();
/// assert!(matches!(e, CodecError::Malformed(_)));
/// // The answer: a MessageError in the newest version both speak.
/// let answer = MessageHeader::new(Version::V1_2, ByteOrder::Big, MsgType::MessageError, 0);
/// assert_eq!(answer.to_bytes(), *b"GIOP\x01\x02\x00\x06\0\0\0\0");
/// # Ok::<(), CodecError>(())
/// ```
#[derive(Debug)]
pub struct GiopCodec {
    max_message: usize,
    reassembler: Reassembler,
}

impl Default for GiopCodec {
    fn default() -> Self {
        GiopCodec::new()
    }
}

impl GiopCodec {
    /// A codec with the caps of the blocking transports ([`DEFAULT_MAX_MESSAGE`] bytes per
    /// message and for all partial messages together, [`DEFAULT_MAX_FRAGMENTS`] fragments
    /// per message).
    pub fn new() -> Self {
        GiopCodec::with_caps(DEFAULT_MAX_MESSAGE, DEFAULT_MAX_FRAGMENTS)
    }

    /// A codec that refuses messages (and partial messages together) beyond `max_message`
    /// bytes after their headers, and messages of more than `max_fragments` fragments.
    pub fn with_caps(max_message: usize, max_fragments: usize) -> Self {
        GiopCodec {
            max_message,
            reassembler: Reassembler::with_caps(max_message, max_fragments),
        }
    }

    /// Bytes held in messages whose fragments are still arriving.
    pub fn pending(&self) -> usize {
        self.reassembler.pending()
    }

    /// The header of `msg` if it is a whole message under the cap.
    fn check(&self, msg: &[u8]) -> Result<MessageHeader, CodecError> {
        let head: &[u8; HEADER_LEN] = msg.first_chunk().ok_or_else(|| {
            CodecError::Malformed(marshal_core::Error::new(
                marshal_core::ErrorKind::UnexpectedEnd {
                    needed: HEADER_LEN,
                    remaining: msg.len(),
                },
                0,
            ))
        })?;
        let h = MessageHeader::parse(head).map_err(CodecError::Malformed)?;
        if h.size as usize > self.max_message {
            return Err(too_large(
                h.size.into(),
                self.max_message,
                8,
                "message_size",
            ));
        }
        Ok(h)
    }
}

impl Decoder for GiopCodec {
    type Item = Bytes;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        loop {
            if src.len() < HEADER_LEN {
                return Ok(None);
            }
            let h = self.check(src)?;
            let len = HEADER_LEN + h.size as usize;
            if src.len() < len {
                reserve_for(src, len - src.len());
                return Ok(None);
            }
            let msg = src.split_to(len);
            if !h.more_fragments && h.msg_type != MsgType::Fragment {
                return Ok(Some(msg.freeze()));
            }
            if let Some(whole) = self
                .reassembler
                .push(msg.into())
                .map_err(CodecError::Fragment)?
            {
                return Ok(Some(whole.into()));
            }
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        match self.decode(src)? {
            Some(msg) => Ok(Some(msg)),
            None if src.is_empty() && self.pending() == 0 => Ok(None),
            None => Err(CodecError::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "the stream ended inside a GIOP message ({} bytes buffered, {} held in \
                     messages whose fragments had not all come)",
                    src.len(),
                    self.pending()
                ),
            ))),
        }
    }
}

impl Encoder<Bytes> for GiopCodec {
    type Error = CodecError;

    fn encode(&mut self, msg: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&msg[..], dst)
    }
}

/// Sends one whole GIOP message (as [`encode_message`](wire_iiop::giop::encode_message)
/// builds them), checked first: its header must parse and give its length, under the cap.
impl Encoder<&[u8]> for GiopCodec {
    type Error = CodecError;

    fn encode(&mut self, msg: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        let h = self.check(msg)?;
        if HEADER_LEN as u64 + u64::from(h.size) != msg.len() as u64 {
            return Err(CodecError::Malformed(marshal_core::Error::new(
                marshal_core::ErrorKind::Custom(format!(
                    "message_size {} does not match the {} bytes after the header",
                    h.size,
                    msg.len() - HEADER_LEN
                )),
                8,
            )));
        }
        dst.reserve(msg.len());
        dst.put_slice(msg);
        Ok(())
    }
}
