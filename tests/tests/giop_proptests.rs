//! Property tests of the GIOP messages and IORs: request and reply headers round-trip in every
//! version and byte order; arbitrary or mutated bytes never make the message, header, IOR or
//! reassembly code panic; reassembly never holds more than its cap and rejects streams that
//! exceed it.

use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, Ior, Message, MessageHeader, MessageKind, MsgType, Reassembler, ReplyHeader,
    ReplyStatus, RequestHeader, ServiceContext, TargetAddress, Version, HEADER_LEN,
};
use proptest::collection::vec;
use proptest::prelude::*;

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
