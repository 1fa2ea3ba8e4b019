//! The Rust GIOP server and client against each other and against hand-made messages:
//! locate requests, unknown objects and operations, undecodable arguments, garbage,
//! fragmented and big-endian requests, oneway calls, LOCATION_FORWARD, CloseConnection on
//! shutdown, concurrent clients, and large octet sequences (sent with vectored writes).

use std::io::{Read, Write};
use std::net::TcpStream;

use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, CallError, Client, Completion, LocateRequestHeader, LocateStatus, Message,
    MessageHeader, MessageKind, MsgType, ReplyStatus, RequestHeader, Server, ServerHandle,
    TargetAddress, Version, HEADER_LEN, RESPONSE_EXPECTED,
};
use workloads::bench_object::{self, BENCH_ID};

fn bench_server() -> ServerHandle {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Bench", bench_object::servant());
    server.spawn().unwrap()
}

/// Reads one whole message from a raw socket.
fn read_message(s: &mut TcpStream) -> Vec<u8> {
    let mut head = [0u8; HEADER_LEN];
    s.read_exact(&mut head).unwrap();
    let h = MessageHeader::parse(&head).unwrap();
    let mut m = head.to_vec();
    m.resize(HEADER_LEN + h.size as usize, 0);
    s.read_exact(&mut m[HEADER_LEN..]).unwrap();
    m
}

/// Appends the GIOP 1.2 request `whole` (request id `id`) to `out` as two messages: its first
/// 40 bytes (8-aligned, inside the body) flagged as having more fragments, then a Fragment
/// message with the rest.
fn push_in_two_fragments(out: &mut Vec<u8>, whole: &[u8], order: ByteOrder, id: u32) {
    let cut = 40;
    let mut first = MessageHeader::parse(whole[..HEADER_LEN].try_into().unwrap()).unwrap();
    first.more_fragments = true;
    first.size = (cut - HEADER_LEN) as u32;
    out.extend(first.to_bytes());
    out.extend(&whole[HEADER_LEN..cut]);
    let mut frag = MessageHeader::new(Version::V1_2, order, MsgType::Fragment, 0);
    frag.size = (4 + whole.len() - cut) as u32;
    out.extend(frag.to_bytes());
    out.extend(match order {
        ByteOrder::Big => id.to_be_bytes(),
        ByteOrder::Little => id.to_le_bytes(),
    });
    out.extend(&whole[cut..]);
}

fn request<'a>(id: u32, key: &'a [u8], op: &'a str, flags: u8) -> RequestHeader<'a> {
    RequestHeader {
        request_id: id,
        response_flags: flags,
        target: TargetAddress::Key(key),
        operation: op.as_bytes(),
        service_contexts: vec![],
        principal: &[],
    }
}

#[test]
fn locate_requests_are_answered() {
    let server = bench_server();
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    for (v, key, want) in [
        (Version::V1_2, &b"Bench"[..], LocateStatus::ObjectHere),
        (Version::V1_0, &b"Bench"[..], LocateStatus::ObjectHere),
        (Version::V1_1, &b"Nope"[..], LocateStatus::UnknownObject),
    ] {
        let mut out = Vec::new();
        let head = LocateRequestHeader {
            request_id: 9,
            target: TargetAddress::Key(key),
        };
        encode_message(&mut out, v, ByteOrder::Big, &head, &()).unwrap();
        s.write_all(&out).unwrap();
        let reply = read_message(&mut s);
        let m = Message::parse(&reply).unwrap();
        match m.kind {
            MessageKind::LocateReply(h) => {
                assert_eq!((h.request_id, h.status), (9, want), "{v}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(m.header.version, v);
    }
}

#[test]
fn unknown_objects_and_operations_and_bad_arguments_are_system_exceptions() {
    let server = bench_server();
    let mut client = Client::connect(&server.ior(BENCH_ID, b"Elsewhere")).unwrap();
    match client.invoke::<(), ()>("echo_ints", &()) {
        Err(CallError::SystemException {
            repository_id,
            completed,
            ..
        }) => {
            assert_eq!(repository_id, "IDL:omg.org/CORBA/OBJECT_NOT_EXIST:1.0");
            assert_eq!(completed, Completion::No);
        }
        other => panic!("{other:?}"),
    }
    let mut client = Client::connect(&server.ior(BENCH_ID, b"Bench")).unwrap();
    let e = client.invoke::<(), ()>("launch", &()).unwrap_err();
    assert!(e.to_string().contains("BAD_OPERATION"), "{e}");
    // Arguments that do not decode (a sequence length beyond the body): MARSHAL, and the
    // connection goes on.
    let e = client
        .invoke::<u32, Vec<i32>>("echo_ints", &1000)
        .unwrap_err();
    assert!(e.to_string().contains("MARSHAL"), "{e}");
    let v: Vec<i32> = client.invoke("echo_ints", &vec![1, 2, 3]).unwrap();
    assert_eq!(v, [1, 2, 3]);
}

#[test]
fn garbage_gets_message_error_and_the_server_goes_on() {
    let server = bench_server();
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    s.write_all(b"GIOP\x01\x02\x00\x09\0\0\0\0").unwrap(); // message type 9
    let reply = read_message(&mut s);
    assert_eq!(
        Message::parse(&reply).unwrap().kind,
        MessageKind::MessageError
    );
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty(), "the server closes after MessageError");
    // A request whose header is cut short by its size field.
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    s.write_all(b"GIOP\x01\x02\x00\x00\0\0\0\x02\x01\x02")
        .unwrap();
    assert_eq!(
        Message::parse(&read_message(&mut s)).unwrap().kind,
        MessageKind::MessageError
    );
    let mut client = Client::connect(&server.ior(BENCH_ID, b"Bench")).unwrap();
    assert_eq!(client.invoke::<i32, ()>("fail", &0).unwrap(), ());
}

#[test]
fn fragmented_big_endian_and_oneway_requests() {
    let server = bench_server();
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    // A oneway call gets no reply; the next call's reply is the next message.
    let mut out = Vec::new();
    encode_message(
        &mut out,
        Version::V1_2,
        ByteOrder::Big,
        &request(1, b"Bench", "fail", 0),
        &0i32,
    )
    .unwrap();
    // echo_ints([7, 8, 9]), big-endian, split into a first fragment and a Fragment message.
    let mut whole = Vec::new();
    let v = vec![7i32, 8, 9];
    encode_message(
        &mut whole,
        Version::V1_2,
        ByteOrder::Big,
        &request(2, b"Bench", "echo_ints", RESPONSE_EXPECTED),
        &v,
    )
    .unwrap();
    push_in_two_fragments(&mut out, &whole, ByteOrder::Big, 2);
    s.write_all(&out).unwrap();
    let reply = read_message(&mut s);
    let m = Message::parse(&reply).unwrap();
    assert_eq!(
        m.header.order,
        ByteOrder::Big,
        "replies use the request's byte order"
    );
    match &m.kind {
        MessageKind::Reply(h) => {
            assert_eq!((h.request_id, h.status), (2, ReplyStatus::NoException))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.body().decode::<Vec<i32>>().unwrap(), v);
}

#[test]
fn location_forward_is_followed() {
    let target = bench_server();
    let there = target.ior(BENCH_ID, b"Bench");
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Old", move |call: &mut marshal::giop::Call<'_>| {
        call.forward(&there)
    });
    let forwarder = server.spawn().unwrap();
    let mut client = Client::connect(&forwarder.ior(BENCH_ID, b"Old")).unwrap();
    let sum: i64 = client.invoke("sum_ints", &vec![1, 2, 3]).unwrap();
    assert_eq!(sum, 6);
    // A forward to itself is a loop, which the client cuts.
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    let addr = server.local_addr().unwrap();
    let me = marshal::giop::Ior::new(BENCH_ID, &addr.ip().to_string(), addr.port(), b"Loop");
    server.add("Loop", move |call: &mut marshal::giop::Call<'_>| {
        call.forward(&me)
    });
    let looping = server.spawn().unwrap();
    let mut client = Client::connect(&looping.ior(BENCH_ID, b"Loop")).unwrap();
    let e = client.invoke::<(), ()>("x", &()).unwrap_err();
    assert!(matches!(e, CallError::TooManyForwards(_)), "{e}");
}

#[test]
fn shutdown_sends_close_connection() {
    let server = bench_server();
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    let mut client = Client::connect(&server.ior(BENCH_ID, b"Bench")).unwrap();
    client.invoke::<i32, ()>("fail", &0).unwrap();
    // Make sure the raw connection is being served before shutting down.
    let mut out = Vec::new();
    encode_message(
        &mut out,
        Version::V1_1,
        ByteOrder::Little,
        &request(5, b"Bench", "fail", RESPONSE_EXPECTED),
        &0i32,
    )
    .unwrap();
    s.write_all(&out).unwrap();
    assert!(matches!(
        Message::parse(&read_message(&mut s)).unwrap().kind,
        MessageKind::Reply(_)
    ));
    server.shutdown();
    let m = read_message(&mut s);
    let m = Message::parse(&m).unwrap();
    assert_eq!(m.kind, MessageKind::CloseConnection);
    assert_eq!(
        m.header.version,
        Version::V1_1,
        "in the version the client spoke"
    );
    // The client sees CloseConnection, reconnects once, and finds nobody.
    let e = client.invoke::<i32, ()>("fail", &0).unwrap_err();
    assert!(matches!(e, CallError::Transport(_)), "{e}");
}

#[test]
fn concurrent_clients_and_large_octet_sequences() {
    let server = bench_server();
    let ior = server.ior(BENCH_ID, b"Bench");
    std::thread::scope(|scope| {
        for t in 0..4u8 {
            let ior = &ior;
            scope.spawn(move || {
                let mut client = Client::connect(ior).unwrap();
                if t % 2 == 1 {
                    client.set_byte_order(ByteOrder::Big);
                }
                for n in [0usize, 100, 20_000, 1 << 20] {
                    let v: Vec<u8> = (0..n).map(|i| (i as u8) ^ t).collect();
                    let back: Vec<u8> = client.invoke("echo_octets", &v).unwrap();
                    assert!(back == v, "thread {t}, {n} octets");
                    let ints: Vec<i32> = (0..n as i32 / 4).collect();
                    let back: Vec<i32> = client.invoke("echo_ints", &ints).unwrap();
                    assert!(back == ints, "thread {t}, {n} bytes of ints");
                }
            });
        }
    });
}

#[test]
fn connections_beyond_the_cap_are_closed_and_the_others_served() {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Bench", bench_object::servant());
    server.set_max_connections(2);
    let server = server.spawn().unwrap();
    let ior = server.ior(BENCH_ID, b"Bench");
    let mut a = Client::connect(&ior).unwrap();
    let mut b = Client::connect(&ior).unwrap();
    a.invoke::<i32, ()>("fail", &0).unwrap();
    b.invoke::<i32, ()>("fail", &0).unwrap();
    let mut c = Client::connect(&ior).unwrap();
    let e = c.invoke::<i32, ()>("fail", &0).unwrap_err();
    assert!(matches!(e, CallError::Transport(_)), "{e}");
    // The first two are still served; when one goes, a new client gets in.
    a.invoke::<i32, ()>("fail", &0).unwrap();
    drop(b);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut d = Client::connect(&ior).unwrap();
        match d.invoke::<i32, ()>("fail", &0) {
            Ok(()) => break,
            Err(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) => panic!("no room after a client left: {e}"),
        }
    }
}

#[test]
fn a_timed_out_call_fails_and_the_next_one_reconnects() {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let rx = std::sync::Mutex::new(rx);
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Slow", move |call: &mut marshal::giop::Call<'_>| {
        if call.operation() == b"stall" {
            // Wait until the test says so (or gives up).
            let _ = rx
                .lock()
                .unwrap()
                .recv_timeout(std::time::Duration::from_secs(10));
        }
        call.reply(&7i32)
    });
    let server = server.spawn().unwrap();
    let mut client = Client::connect(&server.ior("IDL:Slow:1.0", b"Slow")).unwrap();
    client
        .set_timeout(Some(std::time::Duration::from_millis(200)))
        .unwrap();
    let e = client.invoke::<(), i32>("stall", &()).unwrap_err();
    assert!(matches!(e, CallError::Transport(_)), "{e}");
    tx.send(()).unwrap();
    // A new connection: the late reply to "stall" cannot be mistaken for this one's.
    assert_eq!(client.invoke::<(), i32>("quick", &()).unwrap(), 7);
}

/// Once a connection's buffers have room, large messages are decoded as they arrive. Whatever
/// a decoder leaves unread is read past before the next message, on both sides: a request
/// whose arguments fail early, a reply the client cannot decode, and a servant that answers
/// without reading its (large) arguments. (The server reads such arguments before it sends
/// the reply, so that a client still sending cannot block it; loopback's socket buffers are
/// too large for this test to provoke that deadlock.)
#[test]
fn arriving_messages_leave_the_connection_in_step() {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Bench", bench_object::servant());
    server.add("Lazy", |call: &mut marshal::giop::Call<'_>| {
        call.reply(&vec![7u8; 1 << 20])
    });
    let server = server.spawn().unwrap();
    let mut client = Client::connect(&server.ior(BENCH_ID, b"Bench")).unwrap();
    client
        .set_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    let ints: Vec<i32> = (0..1 << 18).collect();
    let dirents = workloads::dirents(2000);
    for _ in 0..3 {
        let back: Vec<i32> = client.invoke("echo_ints", &ints).unwrap();
        assert!(back == ints);
        let back: Vec<workloads::DirEntry> = client.invoke("echo_dirents", &dirents).unwrap();
        assert!(back == dirents);
    }
    // The server's decoder stops at the count (a Rect is 16 bytes, the request holds 4 per
    // element), long before the megabyte after it has arrived.
    match client.invoke::<Vec<i32>, Vec<workloads::Rect>>("echo_rects", &ints) {
        Err(CallError::SystemException { repository_id, .. }) => {
            assert!(repository_id.contains("MARSHAL"), "{repository_id}")
        }
        other => panic!("expected MARSHAL, got {other:?}"),
    }
    // The client's decoder stops at the count of the reply in the same way.
    let e = client
        .invoke::<Vec<i32>, Vec<workloads::Rect>>("echo_ints", &ints)
        .unwrap_err();
    assert!(matches!(e, CallError::Marshal(_)), "{e}");
    let back: Vec<i32> = client.invoke("echo_ints", &ints).unwrap();
    assert!(back == ints);

    let mut lazy = Client::connect(&server.ior(BENCH_ID, b"Lazy")).unwrap();
    lazy.set_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    for _ in 0..3 {
        let back: Vec<u8> = lazy.invoke("anything", &vec![1u8; 4 << 20]).unwrap();
        assert!(back.len() == 1 << 20 && back.iter().all(|&b| b == 7));
    }
}

/// A read takes whatever has arrived, so one read can bring in the next messages too: they
/// stay in the buffer and are answered in order, whether they are whole, fragments, or a
/// oneway call, and whether the buffer was grown by an earlier large message or not.
#[test]
fn messages_sent_in_one_write_are_each_answered() {
    let server = bench_server();
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    let big: Vec<i32> = (0..20_000).collect();
    let small = vec![7i32, 8, 9];
    let encode = |out: &mut Vec<u8>, id: u32, flags: u8, v: &Vec<i32>| {
        encode_message(
            out,
            Version::V1_2,
            ByteOrder::Little,
            &request(id, b"Bench", "echo_ints", flags),
            v,
        )
        .unwrap();
    };
    for round in 0..2 {
        let mut out = Vec::new();
        let locate = LocateRequestHeader {
            request_id: 1,
            target: TargetAddress::Key(b"Bench"),
        };
        encode_message(&mut out, Version::V1_2, ByteOrder::Little, &locate, &()).unwrap();
        encode(&mut out, 2, RESPONSE_EXPECTED, &small);
        // Request 3 is oneway: no reply.
        encode(&mut out, 3, 0, &small);
        let mut whole = Vec::new();
        encode(&mut whole, 4, RESPONSE_EXPECTED, &small);
        push_in_two_fragments(&mut out, &whole, ByteOrder::Little, 4);
        encode(&mut out, 5, RESPONSE_EXPECTED, &big);
        encode(&mut out, 6, RESPONSE_EXPECTED, &small);
        s.write_all(&out).unwrap();
        for (id, want) in [
            (1, None),
            (2, Some(&small)),
            (4, Some(&small)),
            (5, Some(&big)),
        ]
        .into_iter()
        .chain([(6, Some(&small))])
        {
            let reply = read_message(&mut s);
            let m = Message::parse(&reply).unwrap();
            match (&m.kind, want) {
                (MessageKind::LocateReply(h), None) => {
                    assert_eq!((h.request_id, h.status), (id, LocateStatus::ObjectHere))
                }
                (MessageKind::Reply(h), Some(v)) => {
                    assert_eq!((h.request_id, h.status), (id, ReplyStatus::NoException));
                    assert_eq!(&m.body().decode::<Vec<i32>>().unwrap(), v, "round {round}");
                }
                (other, _) => panic!("round {round}, request {id}: {other:?}"),
            }
        }
    }
}
