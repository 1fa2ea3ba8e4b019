//! `GiopCodec`: GIOP messages, fragments reassembled.

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use proptest::prelude::*;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, Framed};
use transports::codec::{CodecError, GiopCodec};
use transports::giop::{Call, Client, Server};
use wire_iiop::giop::{
    encode_message, Ior, Message, MessageHeader, MessageKind, MsgType, ReplyHeader, ReplyStatus,
    RequestHeader, TargetAddress, Version, HEADER_LEN, RESPONSE_EXPECTED,
};
use wire_iiop::ByteOrder;

use crate::feed::{capacity_bound, cuts, feed};
use crate::runtime::block_on;

const VERSIONS: [Version; 3] = [Version::V1_0, Version::V1_1, Version::V1_2];
const TYPES: [MsgType; 7] = [
    MsgType::Request,
    MsgType::Reply,
    MsgType::CancelRequest,
    MsgType::LocateRequest,
    MsgType::LocateReply,
    MsgType::CloseConnection,
    MsgType::MessageError,
];

fn message(v: Version, order: ByteOrder, t: MsgType, more: bool, body: &[u8]) -> Vec<u8> {
    let mut h = MessageHeader::new(v, order, t, body.len() as u32);
    h.more_fragments = more;
    let mut m = h.to_bytes().to_vec();
    m.extend_from_slice(body);
    m
}

fn id_bytes(id: u32, order: ByteOrder) -> [u8; 4] {
    match order {
        ByteOrder::Big => id.to_be_bytes(),
        ByteOrder::Little => id.to_le_bytes(),
    }
}

/// One message as sent (whole, or as a first message and its fragments, the body cut at
/// `chunks`) and as it must come out of the codec. In 1.2 the request id (`id`) leads the
/// body and every fragment.
fn sent_and_whole(
    v: Version,
    order: ByteOrder,
    t: MsgType,
    id: u32,
    body: &[u8],
    chunks: &[usize],
) -> (Vec<u8>, Vec<u8>) {
    if v == Version::V1_0 || chunks.is_empty() {
        let m = message(v, order, t, false, body);
        return (m.clone(), m);
    }
    let t = if t == MsgType::Reply {
        MsgType::Reply
    } else {
        MsgType::Request
    };
    let id = (v == Version::V1_2).then(|| id_bytes(id, order));
    let prefix = id.as_ref().map_or(&[][..], |b| &b[..]);
    let mut cuts: Vec<usize> = chunks.iter().map(|c| c % (body.len() + 1)).collect();
    cuts.push(0);
    cuts.push(body.len());
    cuts.sort_unstable();
    let parts: Vec<&[u8]> = cuts.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    let mut sent = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let more = i + 1 < parts.len();
        let kind = if i == 0 { t } else { MsgType::Fragment };
        sent.extend(message(v, order, kind, more, &[prefix, part].concat()));
    }
    (sent, message(v, order, t, false, &[prefix, body].concat()))
}

/// A message to send: indexes into [`VERSIONS`] and [`TYPES`], big-endian or not, its body,
/// and where to cut it into fragments (none: sent whole).
type Spec = (usize, bool, usize, Vec<u8>, Vec<usize>);

fn messages() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (
            0usize..3,
            any::<bool>(),
            0usize..7,
            prop::collection::vec(any::<u8>(), 0..200),
            prop::collection::vec(any::<usize>(), 0..4),
        ),
        0..8,
    )
}

proptest! {
    #[test]
    fn any_split_of_messages_and_fragments_decodes_to_the_messages(
        msgs in messages(),
        cuts in cuts(),
    ) {
        let (mut wire, mut want) = (Vec::new(), Vec::new());
        for (i, (v, big, t, body, chunks)) in msgs.iter().enumerate() {
            let order = if *big { ByteOrder::Big } else { ByteOrder::Little };
            let (sent, whole) = sent_and_whole(VERSIONS[*v], order, TYPES[*t], i as u32, body, chunks);
            wire.extend(sent);
            want.push(whole);
        }
        let mut codec = GiopCodec::new();
        let fed = feed(&mut codec, &wire, &cuts);
        prop_assert!(fed.error.is_none(), "{:?}", fed.error);
        prop_assert_eq!(fed.frames, want);
        prop_assert_eq!(codec.pending(), 0);
    }

    #[test]
    fn arbitrary_bytes_never_panic_nor_outgrow_the_cap(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        cuts in cuts(),
    ) {
        let fed = feed(&mut GiopCodec::with_caps(1024, 8), &bytes, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, HEADER_LEN, fed.max_piece));
    }

    /// GIOP headers of any version, flags and type, sizes near the cap, lying about the
    /// data that follows.
    #[test]
    fn hostile_headers_never_panic_nor_outgrow_the_cap(
        parts in prop::collection::vec(
            (0u8..4, 0u8..4, 0u8..9, 0u32..3000, prop::collection::vec(any::<u8>(), 0..200)),
            0..24,
        ),
        cuts in cuts(),
    ) {
        let mut wire = Vec::new();
        for (minor, flags, t, size, data) in &parts {
            wire.extend(b"GIOP");
            wire.extend([1, *minor, *flags, *t]);
            wire.extend(if flags & 1 == 0 { size.to_be_bytes() } else { size.to_le_bytes() });
            wire.extend(data);
        }
        let mut codec = GiopCodec::with_caps(1024, 8);
        let fed = feed(&mut codec, &wire, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, HEADER_LEN, fed.max_piece));
        prop_assert!(codec.pending() <= 1024);
        for f in &fed.frames {
            prop_assert!(f.len() <= HEADER_LEN + 1024);
        }
    }
}

#[test]
fn a_2_gib_header_is_refused_at_once() {
    for head in [
        *b"GIOP\x01\x02\x00\x00\x80\0\0\0",
        *b"GIOP\x01\x02\x01\x01\0\0\0\x80",
        *b"GIOP\x01\x00\x00\x00\xff\xff\xff\xff",
    ] {
        let mut src = BytesMut::from(&head[..]);
        let e = GiopCodec::new().decode(&mut src).unwrap_err();
        assert!(matches!(e, CodecError::TooLarge(_)), "{e}");
        assert!(e.is_message_error());
        assert!(e.to_string().contains("message_size"), "{e}");
        assert!(src.capacity() < 64, "{}", src.capacity());
    }
}

#[test]
fn what_is_not_giop_is_malformed() {
    for (head, what) in [
        (*b"GIOX\x01\x00\x00\x00\0\0\0\0", "magic"),
        (*b"GIOP\x01\x03\x00\x00\0\0\0\0", "version 1.3"),
        (*b"GIOP\x02\x00\x00\x00\0\0\0\0", "version 2.0"),
        (*b"GIOP\x01\x02\x00\x09\0\0\0\0", "message type 9"),
    ] {
        let e = GiopCodec::new()
            .decode(&mut BytesMut::from(&head[..]))
            .unwrap_err();
        assert!(matches!(e, CodecError::Malformed(_)), "{e}");
        assert!(e.is_message_error());
        assert!(e.to_string().contains(what), "{e}");
    }
    // A fragment that continues nothing.
    let orphan = message(
        Version::V1_1,
        ByteOrder::Big,
        MsgType::Fragment,
        false,
        b"x",
    );
    let e = GiopCodec::new()
        .decode(&mut BytesMut::from(&orphan[..]))
        .unwrap_err();
    assert!(matches!(e, CodecError::Fragment(_)), "{e}");
    // The encoder checks what it sends.
    let mut out = BytesMut::new();
    let mut lying = message(
        Version::V1_2,
        ByteOrder::Big,
        MsgType::Reply,
        false,
        b"1234",
    );
    lying.push(0);
    assert!(GiopCodec::new().encode(&lying[..], &mut out).is_err());
    assert!(GiopCodec::new().encode(&b"GIOP"[..], &mut out).is_err());
    assert!(out.is_empty());
    // The end of the stream inside a message, or between its fragments.
    let mut src = BytesMut::from(&lying[..10]);
    assert!(matches!(
        GiopCodec::new().decode_eof(&mut src),
        Err(CodecError::Io(_))
    ));
    let first = message(Version::V1_1, ByteOrder::Big, MsgType::Request, true, b"x");
    let mut codec = GiopCodec::new();
    let mut src = BytesMut::from(&first[..]);
    assert_eq!(codec.decode(&mut src).unwrap(), None);
    assert!(src.is_empty());
    let e = codec.decode_eof(&mut src).unwrap_err();
    assert!(
        e.to_string()
            .contains("13 held in messages whose fragments"),
        "{e}"
    );
}

fn request(v: Version, order: ByteOrder, id: u32, args: &(i32, i32)) -> Vec<u8> {
    let head = RequestHeader {
        request_id: id,
        response_flags: RESPONSE_EXPECTED,
        target: TargetAddress::Key(b"Adder"),
        operation: b"add",
        service_contexts: Vec::new(),
        principal: b"",
    };
    let mut out = Vec::new();
    encode_message(&mut out, v, order, &head, args).unwrap();
    out
}

#[test]
fn messages_built_by_wire_iiop_decode() {
    let mut wire = Vec::new();
    for v in VERSIONS {
        for order in [ByteOrder::Big, ByteOrder::Little] {
            wire.extend(request(v, order, 9, &(1, 2)));
        }
    }
    let fed = feed(&mut GiopCodec::new(), &wire, &[1, 13, 100]);
    assert!(fed.error.is_none());
    assert_eq!(fed.frames.len(), 6);
    for frame in &fed.frames {
        let msg = Message::parse(frame).unwrap();
        let MessageKind::Request(h) = &msg.kind else {
            panic!("not a request")
        };
        assert_eq!((h.request_id, h.operation), (9, &b"add"[..]));
        assert_eq!(msg.body().decode::<(i32, i32)>().unwrap(), (1, 2));
    }
}

fn adder() -> Server {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Adder", |call: &mut Call<'_>| match call.operation() {
        b"add" => {
            let (a, b): (i32, i32) = call.args()?;
            call.reply(&a.wrapping_add(b))
        }
        _ => call.bad_operation(),
    });
    server
}

#[test]
fn an_async_client_calls_the_blocking_server_in_fragments() {
    let server = adder().spawn().unwrap();
    let addr = server.local_addr();
    block_on(async {
        let stream = TcpStream::connect(addr).await.unwrap();
        let mut framed = Framed::new(stream, GiopCodec::new());
        for (id, order) in [(1u32, ByteOrder::Big), (2, ByteOrder::Little)] {
            let whole = request(Version::V1_2, order, id, &(40, id as i32));
            // As a 1.2 first fragment (header, request id, a few bytes) and a Fragment.
            let (head_and_id, rest) = whole[HEADER_LEN..].split_at(4 + 6);
            let first = message(Version::V1_2, order, MsgType::Request, true, head_and_id);
            let second = message(
                Version::V1_2,
                order,
                MsgType::Fragment,
                false,
                &[&id_bytes(id, order)[..], rest].concat(),
            );
            framed.send(Bytes::from(first)).await.unwrap();
            framed.send(Bytes::from(second)).await.unwrap();
            let reply = framed.next().await.unwrap().unwrap();
            let msg = Message::parse(&reply).unwrap();
            let MessageKind::Reply(h) = &msg.kind else {
                panic!("not a reply: {:?}", msg.kind)
            };
            assert_eq!((h.request_id, h.status), (id, ReplyStatus::NoException));
            assert_eq!(msg.body().decode::<i32>().unwrap(), 40 + id as i32);
        }
    });
    server.shutdown();
}

#[test]
fn the_blocking_client_calls_an_async_server() {
    block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = std::thread::spawn(move || {
            let mut client =
                Client::connect(&Ior::new("IDL:Adder:1.0", "127.0.0.1", port, b"Adder")).unwrap();
            let sums: Vec<i32> = (0..3)
                .map(|i| client.invoke::<(i32, i32), i32>("add", &(i, 100)).unwrap())
                .collect();
            sums
        });
        let (stream, _) = listener.accept().await.unwrap();
        let mut framed = Framed::new(stream, GiopCodec::new());
        while let Some(frame) = framed.next().await {
            let frame = frame.unwrap();
            let msg = Message::parse(&frame).unwrap();
            let MessageKind::Request(h) = &msg.kind else {
                break;
            };
            let (a, b): (i32, i32) = msg.body().decode().unwrap();
            let reply = ReplyHeader {
                request_id: h.request_id,
                status: ReplyStatus::NoException,
                service_contexts: Vec::new(),
            };
            let mut out = Vec::new();
            encode_message(
                &mut out,
                msg.header.version,
                msg.header.order,
                &reply,
                &(a + b),
            )
            .unwrap();
            framed.send(Bytes::from(out)).await.unwrap();
        }
        assert_eq!(client.join().unwrap(), [100, 101, 102]);
    });
}

#[test]
fn messages_cross_a_tokio_tcp_loopback() {
    block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut framed = Framed::new(stream, GiopCodec::new());
            while let Some(msg) = framed.next().await {
                framed.send(msg.unwrap()).await.unwrap();
            }
        });
        let stream = TcpStream::connect(addr).await.unwrap();
        let mut framed = Framed::new(stream, GiopCodec::new());
        for (i, len) in [0usize, 1, 100, 300_000].into_iter().enumerate() {
            let body: Vec<u8> = (0..len).map(|b| b as u8).collect();
            // Sent as 1.1 fragments of 64 KiB; echoed whole.
            let chunks: Vec<usize> = (1..len / 65536 + 1).map(|k| k * 65536).collect();
            let (sent, whole) = sent_and_whole(
                Version::V1_1,
                ByteOrder::Little,
                MsgType::Request,
                i as u32,
                &body,
                &chunks,
            );
            let mut at = 0;
            while at < sent.len() {
                let h =
                    MessageHeader::parse(sent[at..at + HEADER_LEN].try_into().unwrap()).unwrap();
                let end = at + HEADER_LEN + h.size as usize;
                framed
                    .send(Bytes::copy_from_slice(&sent[at..end]))
                    .await
                    .unwrap();
                at = end;
            }
            assert_eq!(framed.next().await.unwrap().unwrap(), whole, "len {len}");
        }
        drop(framed);
        server.await.unwrap();
    });
}
