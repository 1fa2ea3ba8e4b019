//! `giop_message`: GIOP messages (1.0–1.2, both byte orders, every message type) read from a
//! byte stream as a connection reads them, parsed whole and as they arrive, with fragments
//! reassembled.
//!
//! Input: `[flags][messages...]`. Flags bits 0–1 choose the reassembler's caps; bits 2–7 seed
//! how the arriving copy trickles in. The stream is cut into messages by their headers, as
//! `transports`' connection does; each message is
//! - parsed with `Message::parse` and with `Message::parse_arriving` (part of it already
//!   there, the rest read a few bytes at a time): both must agree, on the headers and on the
//!   bodies decoded as a few types;
//! - when it parses, its header re-encoded with `encode_message` (empty body) and parsed again:
//!   the same header;
//! - pushed into a `Reassembler`, whose reassembled messages must have a valid, unfragmented
//!   header of the right size and are checked as above, and whose held bytes never exceed
//!   its cap.

use std::cell::Cell;

use marshal::arriving::Arriving;
use marshal::cdr::{ByteOrder, Decode};
use marshal::giop::{
    encode_message, Body, CloseConnection, Ior, LocateStatus, Message, MessageError, MessageHeader,
    MessageKind, MsgType, Reassembler, ReplyStatus, SystemException, DEFAULT_MAX_FRAGMENTS,
    DEFAULT_MAX_MESSAGE, HEADER_LEN,
};

use crate::util::Trickle;

/// At most this many messages per input, so that every input runs in bounded time.
const MAX_MESSAGES: usize = 1024;

/// The target.
pub fn run(data: &[u8]) {
    let Some((&flags, mut rest)) = data.split_first() else {
        return;
    };
    let (max_message, max_fragments) = match flags & 3 {
        0 => (DEFAULT_MAX_MESSAGE, DEFAULT_MAX_FRAGMENTS),
        1 => (256, 4),
        2 => (1 << 16, 2),
        _ => (64, 1 << 16),
    };
    let seed = flags >> 2;
    let mut reassembler = Reassembler::with_caps(max_message, max_fragments);
    for _ in 0..MAX_MESSAGES {
        let Some(head) = rest.first_chunk::<HEADER_LEN>() else {
            let _ = Message::parse(rest);
            break;
        };
        let Ok(h) = MessageHeader::parse(head) else {
            let _ = Message::parse(rest);
            break;
        };
        let len = HEADER_LEN + h.size as usize;
        if rest.len() < len {
            // A connection would wait for the rest; as a whole message it is too short.
            let _ = Message::parse(rest);
            break;
        }
        let (msg, tail) = rest.split_at(len);
        rest = tail;
        check_message(msg, seed);
        if let Ok(Some(whole)) = reassembler.push(msg.to_vec()) {
            let head: &[u8; HEADER_LEN] = whole[..HEADER_LEN].try_into().expect("a header");
            let h = MessageHeader::parse(head).expect("a reassembled message has a valid header");
            assert!(
                !h.more_fragments,
                "a reassembled message says more fragments follow"
            );
            assert_ne!(h.msg_type, MsgType::Fragment, "a Fragment came out whole");
            assert_eq!(
                whole.len(),
                HEADER_LEN + h.size as usize,
                "reassembled size"
            );
            if whole != msg {
                check_message(&whole, seed);
            }
        }
        assert!(
            reassembler.pending() <= max_message,
            "the reassembler holds {} bytes, over its cap of {max_message}",
            reassembler.pending()
        );
    }
}

/// Parses `msg` whole and arriving; they must agree. Re-encodes the header of a message that
/// parses.
fn check_message(msg: &[u8], seed: u8) {
    let whole = Message::parse(msg);

    let mut buf = msg.to_vec();
    let arrived = (usize::from(seed) * 7) % (msg.len() + 1);
    buf[arrived..].fill(0);
    let filled = Cell::new(arrived);
    let more = Arriving::new(&mut buf, &filled, Trickle::new(&msg[arrived..], seed));
    let arriving = Message::parse_arriving(&more);
    match (&whole, &arriving) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.header, b.header, "parse and parse_arriving: headers");
            assert_eq!(a.kind, b.kind, "parse and parse_arriving: message headers");
            assert_eq!(a.body().position(), b.body().position(), "body positions");
            compare_bodies(&a.kind, a.body(), b.body());
            b.body()
                .arrive_all()
                .expect("a message whose bytes are all there arrives");
        }
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("parse_arriving fails where parse succeeds: {e}"),
        (Err(e), Ok(_)) => panic!("parse fails where parse_arriving succeeds: {e}"),
    }
    drop(arriving);
    assert_eq!(
        more.fill_all().expect("the rest arrives"),
        msg,
        "the arrived bytes"
    );
    if let Ok(m) = whole {
        reencode_header(&m);
    }
}

/// Decodes both bodies as the types the message kind suggests, plus a few generic ones:
/// whole and arriving decoding must agree.
fn compare_bodies(kind: &MessageKind<'_>, a: Body<'_>, b: Body<'_>) {
    /// Values are compared by their `Debug` text: a NaN is not equal to itself.
    fn same<'x, T: Decode<'x> + core::fmt::Debug>(a: Body<'x>, b: Body<'x>) {
        let text = |r: &Result<T, marshal::Error>| match r {
            Ok(v) => Ok(format!("{v:?}")),
            Err(_) => Err(()),
        };
        let (x, y) = (a.decode::<T>(), b.decode::<T>());
        assert_eq!(
            text(&x),
            text(&y),
            "whole and arriving bodies decode differently"
        );
        // A prefix, read with the body's own reader.
        let (mut ra, mut rb) = (a.reader(), b.reader());
        let x = T::decode(&mut ra, a.order());
        let y = T::decode(&mut rb, b.order());
        assert_eq!(
            text(&x),
            text(&y),
            "whole and arriving prefixes decode differently"
        );
        if x.is_ok() {
            assert_eq!(ra.position(), rb.position(), "prefix ends");
        }
    }
    match kind {
        MessageKind::Reply(h) => match h.status {
            ReplyStatus::SystemException => same::<SystemException>(a, b),
            ReplyStatus::LocationForward | ReplyStatus::LocationForwardPerm => same::<Ior>(a, b),
            ReplyStatus::NeedsAddressingMode => same::<i16>(a, b),
            ReplyStatus::UserException => same::<(String, i32)>(a, b),
            ReplyStatus::NoException => same::<(i32, String)>(a, b),
        },
        MessageKind::LocateReply(h) => match h.status {
            LocateStatus::ObjectForward | LocateStatus::ObjectForwardPerm => same::<Ior>(a, b),
            LocateStatus::LocSystemException => same::<SystemException>(a, b),
            _ => same::<i16>(a, b),
        },
        _ => {}
    }
    same::<(u32, String, Vec<u8>)>(a, b);
    same::<Vec<(u16, f64)>>(a, b);
    same::<Ior>(a, b);
}

/// Writes the header of `m` again (with an empty body) and parses that: the same header.
fn reencode_header(m: &Message<'_>) {
    let (v, o): (_, ByteOrder) = (m.header.version, m.header.order);
    let mut out = Vec::new();
    let r = match &m.kind {
        MessageKind::Request(h) => encode_message(&mut out, v, o, h, &()),
        MessageKind::Reply(h) => encode_message(&mut out, v, o, h, &()),
        MessageKind::CancelRequest(h) => encode_message(&mut out, v, o, h, &()),
        MessageKind::LocateRequest(h) => encode_message(&mut out, v, o, h, &()),
        MessageKind::LocateReply(h) => encode_message(&mut out, v, o, h, &()),
        MessageKind::CloseConnection => {
            encode_message(&mut out, v, o, &CloseConnection::default(), &())
        }
        MessageKind::MessageError => encode_message(&mut out, v, o, &MessageError::default(), &()),
        MessageKind::Fragment { .. } => return,
    };
    r.expect("a parsed header re-encodes");
    let back = Message::parse(&out).expect("a re-encoded header parses");
    assert_eq!(back.kind, m.kind, "re-encoded message header");
    assert_eq!(back.header.version, v);
    assert_eq!(back.header.order, o);
    assert_eq!(back.header.msg_type, m.header.msg_type);
}
