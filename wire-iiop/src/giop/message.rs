//! Whole messages: one pass that measures and writes the GIOP header, the message header and
//! the body (aligned to 8 in GIOP 1.2), and the parse of a received message into its header
//! and a body still to be decoded.

use marshal_core::arriving::Refill;
use marshal_core::{Error, ErrorKind, Reader, Writer, DEFAULT_MAX_DEPTH};

use super::headers::{
    CancelRequestHeader, LocateReplyHeader, LocateRequestHeader, MessageHead, ReplyHeader,
    RequestHeader,
};
use super::{MessageHeader, MsgType, Version, HEADER_LEN};
use crate::{pad, ByteOrder, Decode, Encode};

/// The layout of a message about to be written: where the body starts and where it all ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageLayout {
    /// Offset of the body from the start of the message (after any alignment padding).
    pub body_start: usize,
    /// Total length of the message, GIOP header included.
    pub len: usize,
}

/// Measures a message: `head` then `body`, which GIOP 1.2 aligns to 8 when it is not empty.
pub fn measure<'a, H: MessageHead<'a>, B: Encode + ?Sized>(
    version: Version,
    head: &H,
    body: &B,
) -> Result<MessageLayout, Error> {
    let head_end = head.end(version, HEADER_LEN)?;
    let body_start = if H::HAS_BODY && version >= Version::V1_2 {
        head_end + pad(head_end, 8)
    } else {
        head_end
    };
    let body_end = body.end(body_start, DEFAULT_MAX_DEPTH)?;
    let layout = if body_end == body_start {
        MessageLayout {
            body_start: head_end,
            len: head_end,
        }
    } else {
        MessageLayout {
            body_start,
            len: body_end,
        }
    };
    if u32::try_from(layout.len - HEADER_LEN).is_err() {
        return Err(Error::without_offset(ErrorKind::TooLong {
            len: layout.len,
        }));
    }
    Ok(layout)
}

/// Writes a message measured by [`measure`] into `w`, whose position must be 0 at the
/// message's first byte.
pub fn write<'a, H: MessageHead<'a>, B: Encode + ?Sized>(
    w: &mut Writer<'_>,
    layout: MessageLayout,
    version: Version,
    order: ByteOrder,
    head: &H,
    body: &B,
) -> Result<(), Error> {
    let size = (layout.len - HEADER_LEN) as u32;
    w.put(MessageHeader::new(version, order, H::TYPE, size).to_bytes())?;
    head.encode(version, w, order)?;
    w.put_zeros(layout.body_start - w.position())?;
    if layout.len > layout.body_start {
        body.encode(w, order)?;
    }
    Ok(())
}

/// Appends a whole message to `out`: measured, then written with one reservation.
///
/// ```
/// use wire_iiop::giop::{encode_message, Message, MessageKind, ReplyHeader, ReplyStatus, Version};
/// use wire_iiop::ByteOrder;
/// let head = ReplyHeader { request_id: 7, status: ReplyStatus::NoException, service_contexts: vec![] };
/// let mut out = Vec::new();
/// encode_message(&mut out, Version::V1_2, ByteOrder::Big, &head, &42i64).unwrap();
/// // 12 header + 12 reply header + 0 padding (24 is 8-aligned) + 8 body.
/// assert_eq!(out.len(), 32);
/// let m = Message::parse(&out).unwrap();
/// assert!(matches!(m.kind, MessageKind::Reply(ref h) if h.request_id == 7));
/// assert_eq!(m.body().decode::<i64>().unwrap(), 42);
/// ```
pub fn encode_message<'a, H: MessageHead<'a>, B: Encode + ?Sized>(
    out: &mut Vec<u8>,
    version: Version,
    order: ByteOrder,
    head: &H,
    body: &B,
) -> Result<(), Error> {
    let layout = measure(version, head, body)?;
    let start = out.len();
    marshal_core::writer::append_to_vec(out, layout.len, |w| {
        write(w, layout, version, order, head, body)
    })
    .map_err(|e| e.shifted(start))
}

/// What a received message is, with its decoded header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageKind<'a> {
    /// A call.
    Request(RequestHeader<'a>),
    /// A reply.
    Reply(ReplyHeader<'a>),
    /// A cancelled request.
    CancelRequest(CancelRequestHeader),
    /// A locate request.
    LocateRequest(LocateRequestHeader<'a>),
    /// A locate reply.
    LocateReply(LocateReplyHeader),
    /// The peer closes the connection.
    CloseConnection,
    /// The peer did not understand a message.
    MessageError,
    /// A continuation; `request_id` in GIOP 1.2. Reassemble with
    /// [`Reassembler`](super::Reassembler) before parsing.
    Fragment {
        /// The request the fragment continues (1.2).
        request_id: Option<u32>,
    },
}

/// A received message: its GIOP header, its own header, and its body.
#[derive(Debug, Clone)]
pub struct Message<'a> {
    /// The 12-byte header.
    pub header: MessageHeader,
    /// The message type and its header.
    pub kind: MessageKind<'a>,
    body: Body<'a>,
}

/// The body of a message, to be decoded with the sender's byte order and alignment relative
/// to the start of the message.
#[derive(Debug, Clone, Copy)]
pub struct Body<'a> {
    /// The body, or the part of it that has arrived (`more` then brings the rest).
    bytes: &'a [u8],
    pos: usize,
    order: ByteOrder,
    more: Option<&'a dyn Refill>,
}

impl<'a> Body<'a> {
    /// A body of `bytes` that sits at offset `pos` of a message in `order`.
    pub fn new(bytes: &'a [u8], pos: usize, order: ByteOrder) -> Self {
        Body {
            bytes,
            pos,
            order,
            more: None,
        }
    }
    /// Decodes a `T` that takes the whole body.
    pub fn decode<T: Decode<'a>>(&self) -> Result<T, Error> {
        let mut r = self.reader();
        let v = T::decode(&mut r, self.order)?;
        r.finish()?;
        Ok(v)
    }
    /// A reader over the body, positioned relative to the start of the message (decoding as
    /// it arrives, for a message from [`Message::parse_arriving`]).
    pub fn reader(&self) -> Reader<'a> {
        match self.more {
            None => Reader::new(self.bytes, self.pos),
            Some(more) => Reader::arriving(more, self.pos),
        }
    }
    /// Waits for the rest of an arriving body (nothing to do for others): what a server does
    /// before it answers a request whose arguments it did not read.
    pub fn arrive_all(&self) -> Result<(), Error> {
        self.reader().arrive_all()
    }
    /// The body's bytes (of an arriving message, those that had arrived when it was parsed).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// Offset of the body in its message.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// The sender's byte order.
    pub fn order(&self) -> ByteOrder {
        self.order
    }
}

/// Checks that a message of `len` bytes in all is as long as its header says.
fn check_size(header: &MessageHeader, len: usize) -> Result<(), Error> {
    let want = HEADER_LEN as u64 + u64::from(header.size);
    if len as u64 != want {
        return Err(Error::new(
            ErrorKind::Custom(format!(
                "message_size says {want} bytes in all, the message has {len}"
            )),
            8,
        ));
    }
    Ok(())
}

impl<'a> Message<'a> {
    /// Parses a whole message (its 12-byte header included; its size must match). A message
    /// whose "more fragments" flag is set parses as far as its header goes, but should be
    /// reassembled first.
    pub fn parse(bytes: &'a [u8]) -> Result<Message<'a>, Error> {
        let head: &[u8; HEADER_LEN] = bytes
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::UnexpectedEnd {
                        needed: HEADER_LEN,
                        remaining: bytes.len(),
                    },
                    0,
                )
            })?;
        let header = MessageHeader::parse(head)?;
        check_size(&header, bytes.len())?;
        Self::parse_after_header(header, Reader::new(&bytes[HEADER_LEN..], HEADER_LEN), None)
    }

    /// Parses a message that is still arriving through `more` (its first 12 bytes included;
    /// its size must be `more`'s length). The headers are read as they arrive; the body is
    /// decoded as it arrives when [`Body::reader`] or [`Body::decode`] reads it.
    pub fn parse_arriving(more: &'a dyn Refill) -> Result<Message<'a>, Error> {
        let mut r = Reader::arriving(more, 0);
        let head: [u8; HEADER_LEN] = r.array()?;
        let header = MessageHeader::parse(&head)?;
        check_size(&header, more.message_len())?;
        Self::parse_after_header(header, r, Some(more))
    }

    /// Parses the message's own header from `r` (just after the 12-byte header).
    fn parse_after_header(
        header: MessageHeader,
        mut r: Reader<'a>,
        more: Option<&'a dyn Refill>,
    ) -> Result<Message<'a>, Error> {
        let (v, o) = (header.version, header.order);
        let (kind, has_body) = match header.msg_type {
            MsgType::Request => (
                MessageKind::Request(RequestHeader::decode(v, &mut r, o)?),
                true,
            ),
            MsgType::Reply => (MessageKind::Reply(ReplyHeader::decode(v, &mut r, o)?), true),
            MsgType::CancelRequest => (
                MessageKind::CancelRequest(CancelRequestHeader::decode(v, &mut r, o)?),
                false,
            ),
            MsgType::LocateRequest => (
                MessageKind::LocateRequest(LocateRequestHeader::decode(v, &mut r, o)?),
                false,
            ),
            MsgType::LocateReply => (
                MessageKind::LocateReply(LocateReplyHeader::decode(v, &mut r, o)?),
                true,
            ),
            MsgType::CloseConnection => (MessageKind::CloseConnection, false),
            MsgType::MessageError => (MessageKind::MessageError, false),
            MsgType::Fragment => {
                let request_id = if v >= Version::V1_2 {
                    Some(u32::decode(&mut r, o)?)
                } else {
                    None
                };
                (MessageKind::Fragment { request_id }, false)
            }
        };
        if has_body && v >= Version::V1_2 && r.remaining() > 0 && !header.more_fragments {
            let n = pad(r.position(), 8);
            r.take(n).map_err(|e| e.in_field("body alignment"))?;
        }
        let body = Body {
            bytes: r.rest(),
            pos: r.position(),
            order: o,
            more,
        };
        Ok(Message { header, kind, body })
    }

    /// The body (empty for message types without one; the data of a fragment).
    pub fn body(&self) -> Body<'a> {
        self.body
    }
}
