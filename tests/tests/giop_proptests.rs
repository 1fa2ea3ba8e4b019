//! Property tests of the GIOP messages and IORs: request and reply headers round-trip in every
//! version and byte order; arbitrary or mutated bytes never make the message, header, IOR or
//! reassembly code panic; reassembly never holds more than its cap and rejects streams that
//! exceed it; a message decoded as it arrives, in pieces of any size, decodes (or fails) as the
//! whole message does.

use marshal::arriving::Arriving;
use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, Ior, Message, MessageHeader, MessageKind, MsgType, Reassembler, ReplyHeader,
    ReplyStatus, RequestHeader, ServiceContext, TargetAddress, Version, HEADER_LEN,
};
use proptest::collection::vec;
use proptest::prelude::*;
use std::cell::Cell;
use workloads::{DirEntry, DirEntryRef, Point, Rect, Stat};

/// Delivers bytes in reads whose sizes cycle through `steps` (each at least 1).
struct Trickle<'d> {
    data: &'d [u8],
    steps: Vec<usize>,
    next: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let step = self.steps[self.next % self.steps.len()];
        self.next += 1;
        let n = buf.len().min(self.data.len()).min(step);
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A request body with sequences of every kind: flat (`long`, octet, `Rect`), strings inside
/// structs, and a string.
type Args = (Vec<i32>, Vec<DirEntry>, Vec<u8>, String, Vec<Rect>);

fn request_body() -> impl Strategy<Value = Args> {
    (
        vec(any::<i32>(), 0..3000),
        vec(
            ("[a-z]{0,40}", any::<[u8; 16]>(), any::<i32>()).prop_map(|(name, chars, i)| {
                DirEntry {
                    name,
                    st: Stat {
                        ints: [i; 30],
                        chars,
                    },
                }
            }),
            0..20,
        ),
        vec(any::<u8>(), 0..5000),
        "[a-z ]{0,30}",
        vec(any::<[i32; 4]>(), 0..200).prop_map(|v| {
            v.into_iter()
                .map(|[a, b, c, d]| Rect {
                    a: Point { x: a, y: b },
                    b: Point { x: c, y: d },
                })
                .collect()
        }),
    )
}

/// Parses `bytes` as it arrives in reads of `steps` bytes, the first `already` bytes having
/// come with the header, and hands the body to `decode`: the result, or the parse error, as
/// text.
fn decode_arriving(
    bytes: &[u8],
    already: usize,
    steps: Vec<usize>,
    decode: impl FnOnce(marshal::giop::Body<'_>) -> String,
) -> String {
    let mut buf = vec![0u8; bytes.len()];
    let already = already.min(bytes.len());
    buf[..already].copy_from_slice(&bytes[..already]);
    let filled = Cell::new(already);
    let source = Trickle {
        data: &bytes[already..],
        steps,
        next: 0,
    };
    let arriving = Arriving::new(&mut buf, &filled, source);
    match Message::parse_arriving(&arriving) {
        Ok(m) => decode(m.body()),
        Err(e) => format!("{:?}", Err::<(), _>(e)),
    }
}

/// The body decoded as `Args`, as text.
fn args(body: marshal::giop::Body<'_>) -> String {
    format!("{:?}", body.decode::<Args>())
}

/// The body decoded borrowing (names point into the message), as text.
fn borrowed(body: marshal::giop::Body<'_>) -> String {
    format!("{:?}", body.decode::<(Vec<i32>, Vec<DirEntryRef<'_>>)>())
}

fn order() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Big), Just(ByteOrder::Little)]
}

fn version() -> impl Strategy<Value = Version> {
    (0u8..=2).prop_map(|minor| Version { major: 1, minor })
}

fn contexts() -> impl Strategy<Value = Vec<(u32, Vec<u8>)>> {
    vec((any::<u32>(), vec(any::<u8>(), 0..20)), 0..4)
}

/// A valid message of some kind, as bytes.
fn message() -> impl Strategy<Value = Vec<u8>> {
    (
        version(),
        order(),
        any::<u32>(),
        vec(any::<u8>(), 0..12),
        "[a-z_]{0,12}",
        contexts(),
        vec(any::<i64>(), 0..6),
        any::<bool>(),
    )
        .prop_map(|(v, o, id, key, op, sc, body, is_request)| {
            let service_contexts: Vec<ServiceContext<'_>> = sc
                .iter()
                .map(|(id, d)| ServiceContext {
                    id: *id,
                    data: d.as_slice().into(),
                })
                .collect();
            let mut out = Vec::new();
            if is_request {
                let head = RequestHeader {
                    request_id: id,
                    response_flags: 3,
                    target: TargetAddress::Key(&key),
                    operation: op.as_bytes(),
                    service_contexts,
                    principal: &[],
                };
                encode_message(&mut out, v, o, &head, &body).unwrap();
            } else {
                let head = ReplyHeader {
                    request_id: id,
                    status: ReplyStatus::NoException,
                    service_contexts,
                };
                encode_message(&mut out, v, o, &head, &body).unwrap();
            }
            out
        })
}

proptest! {
    #[test]
    fn request_headers_round_trip(
        v in version(),
        o in order(),
        id in any::<u32>(),
        oneway in any::<bool>(),
        key in vec(any::<u8>(), 0..40),
        op in "[a-zA-Z_][a-zA-Z0-9_]{0,30}",
        sc in contexts(),
        principal in vec(any::<u8>(), 0..8),
        body in (any::<u8>(), proptest::num::f64::NORMAL, "[^\\x00]{0,10}"),
    ) {
        let principal = if v >= Version::V1_2 { Vec::new() } else { principal };
        let head = RequestHeader {
            request_id: id,
            response_flags: if oneway { 0 } else { 3 },
            target: TargetAddress::Key(&key),
            operation: op.as_bytes(),
            service_contexts: sc.iter().map(|(id, d)| ServiceContext { id: *id, data: d.as_slice().into() }).collect(),
            principal: &principal,
        };
        let mut out = Vec::new();
        encode_message(&mut out, v, o, &head, &body).unwrap();
        let m = Message::parse(&out).unwrap();
        prop_assert_eq!(m.header.version, v);
        prop_assert_eq!(m.header.order, o);
        prop_assert_eq!(m.header.size as usize, out.len() - HEADER_LEN);
        if v >= Version::V1_2 {
            prop_assert_eq!(m.body().position() % 8, 0, "1.2 bodies are 8-aligned");
        }
        prop_assert_eq!(&m.kind, &MessageKind::Request(head.clone()));
        prop_assert_eq!(m.body().decode::<(u8, f64, String)>().unwrap(), body);
    }

    #[test]
    fn reply_headers_round_trip(v in version(), o in order(), id in any::<u32>(), sc in contexts(), status in 0usize..6) {
        let statuses = [
            ReplyStatus::NoException, ReplyStatus::UserException, ReplyStatus::SystemException,
            ReplyStatus::LocationForward, ReplyStatus::LocationForwardPerm, ReplyStatus::NeedsAddressingMode,
        ];
        let head = ReplyHeader {
            request_id: id,
            status: statuses[status],
            service_contexts: sc.iter().map(|(id, d)| ServiceContext { id: *id, data: d.as_slice().into() }).collect(),
        };
        let mut out = Vec::new();
        encode_message(&mut out, v, o, &head, &()).unwrap();
        let m = Message::parse(&out).unwrap();
        prop_assert_eq!(&m.kind, &MessageKind::Reply(head));
        prop_assert!(m.body().bytes().is_empty());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..200)) {
        let _ = Message::parse(&bytes);
        if let Some(h) = bytes.get(..HEADER_LEN) {
            let _ = MessageHeader::parse(h.try_into().unwrap());
        }
        let _ = marshal::cdr::from_slice::<Ior>(&bytes, ByteOrder::Big);
        let _ = Ior::from_encapsulation(&bytes);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = Ior::parse(&format!("IOR:{hex}"));
        let _ = Ior::parse(&String::from_utf8_lossy(&bytes));
        let _ = Ior::parse(&format!("corbaloc::{}", String::from_utf8_lossy(&bytes)));
        let mut r = Reassembler::with_caps(1 << 10, 8);
        let _ = r.push(bytes);
    }

    /// A request decoded as it arrives, in reads of any sizes, decodes to what the whole
    /// message decodes to, owned or borrowing; with bytes flipped after the header it fails
    /// (or not) exactly as the whole message does.
    #[test]
    fn arriving_messages_decode_as_whole_ones(
        v in version(),
        o in order(),
        body in request_body(),
        steps in vec(1usize..3000, 1..8),
        already in 12usize..200,
        flips in vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        let head = RequestHeader {
            request_id: 7,
            response_flags: 3,
            target: TargetAddress::Key(b"key"),
            operation: b"op",
            service_contexts: vec![],
            principal: &[],
        };
        let mut bytes = Vec::new();
        encode_message(&mut bytes, v, o, &head, &body).unwrap();
        let whole = Message::parse(&bytes).unwrap().body().decode::<Args>().unwrap();
        prop_assert_eq!(&whole, &body);
        let ok = format!("{:?}", Ok::<_, marshal::Error>(&body));
        prop_assert_eq!(decode_arriving(&bytes, already, steps.clone(), args), ok);
        let whole_borrowed = borrowed(Message::parse(&bytes).unwrap().body());
        prop_assert_eq!(decode_arriving(&bytes, already, steps.clone(), borrowed), whole_borrowed);
        for (at, x) in &flips {
            let n = bytes.len() - HEADER_LEN;
            bytes[HEADER_LEN + at % n] ^= x | 1;
        }
        let whole = match Message::parse(&bytes) {
            Ok(m) => args(m.body()),
            Err(e) => format!("{:?}", Err::<(), _>(e)),
        };
        prop_assert_eq!(decode_arriving(&bytes, already, steps, args), whole);
    }

    /// Valid messages with a GIOP-looking header over random bytes: parse must not panic.
    #[test]
    fn mutated_messages_never_panic(m in message(), flips in vec((any::<usize>(), any::<u8>()), 1..6)) {
        let mut m = m;
        let n = m.len();
        for (at, x) in flips {
            m[at % n] ^= x | 1;
        }
        if let Ok(msg) = Message::parse(&m) {
            let _ = msg.body().decode::<Vec<i64>>();
        }
    }

    /// A stream of arbitrary fragments never makes the reassembler hold more than its cap, and
    /// whatever it completes is a whole, parseable-sized message.
    #[test]
    fn reassembly_stays_within_its_caps(
        parts in vec((prop_oneof![Just(MsgType::Request), Just(MsgType::Reply), Just(MsgType::Fragment)],
                      any::<bool>(), 0u32..4, vec(any::<u8>(), 0..300)), 1..40),
        v in 1u8..=2,
    ) {
        let cap = 1024;
        let mut r = Reassembler::with_caps(cap, 5);
        for (t, more, id, data) in parts {
            let mut h = MessageHeader::new(Version { major: 1, minor: v }, ByteOrder::Little, t, 0);
            h.more_fragments = more;
            let mut body = id.to_le_bytes().to_vec();
            body.extend(data);
            h.size = body.len() as u32;
            let mut msg = h.to_bytes().to_vec();
            msg.extend(body);
            if let Ok(Some(whole)) = r.push(msg) {
                let h = MessageHeader::parse(whole[..HEADER_LEN].try_into().unwrap()).unwrap();
                prop_assert_eq!(h.size as usize + HEADER_LEN, whole.len());
                prop_assert!(!h.more_fragments);
            }
            prop_assert!(r.pending() <= cap);
        }
    }
}

#[test]
fn reassembly_rejects_streams_beyond_its_caps() {
    let frag = |more: bool, n: usize| {
        let mut h = MessageHeader::new(Version::V1_2, ByteOrder::Big, MsgType::Fragment, 0);
        h.more_fragments = more;
        h.size = (4 + n) as u32;
        let mut m = h.to_bytes().to_vec();
        m.extend(7u32.to_be_bytes());
        m.extend(vec![0u8; n]);
        m
    };
    let mut first = MessageHeader::new(Version::V1_2, ByteOrder::Big, MsgType::Request, 8);
    first.more_fragments = true;
    let mut start = first.to_bytes().to_vec();
    start.extend(7u32.to_be_bytes());
    start.extend([0u8; 4]);

    // Too many fragments.
    let mut r = Reassembler::with_caps(1 << 20, 10);
    r.push(start.clone()).unwrap();
    let mut err = None;
    for _ in 0..20 {
        if let Err(e) = r.push(frag(true, 8)) {
            err = Some(e);
            break;
        }
    }
    assert!(err
        .expect("the cap bites")
        .to_string()
        .contains("more than 10 fragments"));
    // Too many bytes.
    let mut r = Reassembler::with_caps(4096, 1000);
    r.push(start).unwrap();
    let mut err = None;
    for _ in 0..20 {
        if let Err(e) = r.push(frag(true, 1000)) {
            err = Some(e);
            break;
        }
    }
    assert!(err
        .expect("the cap bites")
        .to_string()
        .contains("more than 4096 bytes"));
    assert_eq!(r.pending(), 0);
}
