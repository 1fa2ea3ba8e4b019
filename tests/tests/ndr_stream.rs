//! NDR over TCP: connected-mode streams that carry their formats, and the format server.

use std::net::{TcpListener, TcpStream};

use marshal::ndr::{
    to_message, ByteOrder, Format, FormatCache, FormatClient, FormatServer, IOField, NdrReader,
    NdrWriter, Receiver,
};
use marshal::{ErrorKind, Marshal};

#[derive(Marshal, Debug, PartialEq, Clone)]
#[repr(C)]
struct Tick {
    seq: u64,
    price: f64,
    qty: [u32; 4],
}

#[derive(Marshal, Debug, PartialEq, Clone)]
struct Note {
    seq: u32,
    text: String,
    tags: Vec<u16>,
}

#[test]
fn a_stream_carries_each_format_once_before_its_records() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sender = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut w = NdrWriter::new(conn);
        for i in 0..100u64 {
            w.send(&Tick {
                seq: i,
                price: i as f64 * 0.5,
                qty: [i as u32; 4],
            })
            .unwrap();
            if i % 10 == 0 {
                w.send(&Note {
                    seq: i as u32,
                    text: format!("note {i}"),
                    tags: vec![i as u16, 7],
                })
                .unwrap();
            }
        }
    });
    let mut r = NdrReader::new(TcpStream::connect(addr).unwrap());
    for i in 0..100u64 {
        let t: Tick = r.recv().unwrap().unwrap();
        assert_eq!(t.seq, i);
        assert_eq!(t.qty, [i as u32; 4]);
        if i % 10 == 0 {
            let n: Note = r.recv().unwrap().unwrap();
            assert_eq!(n.text, format!("note {i}"));
            assert_eq!(n.tags, vec![i as u16, 7]);
        }
    }
    assert!(r.recv::<Tick>().unwrap().is_none());
    sender.join().unwrap();
    // Two formats arrived on the stream, each once.
    assert!(r.receiver().format(Format::of::<Tick>().id()).is_some());
    assert!(r.receiver().format(Format::of::<Note>().id()).is_some());
}

#[test]
fn the_stream_format_is_sent_once() {
    let mut w = NdrWriter::new(Vec::new());
    let t = Tick {
        seq: 1,
        price: 2.0,
        qty: [3; 4],
    };
    w.send(&t).unwrap();
    let first = w.get_ref().len();
    w.send(&t).unwrap();
    let second = w.get_ref().len() - first;
    let msg = to_message(&t).unwrap();
    assert_eq!(second, msg.len());
    assert_eq!(
        first,
        msg.len() + marshal::ndr::format_frame(&Format::of::<Tick>()).len()
    );
}

#[test]
fn a_record_before_its_format_is_an_error_and_oversized_frames_are_refused() {
    let msg = to_message(&Note {
        seq: 1,
        text: "x".into(),
        tags: vec![],
    })
    .unwrap();
    let mut r = NdrReader::new(&msg[..]);
    let e = r.recv::<Note>().unwrap_err();
    assert!(e.to_string().contains("unknown format id"), "{e}");

    let mut r = NdrReader::new(&msg[..]);
    r.set_max_frame(16);
    let e = r.recv::<Note>().unwrap_err();
    assert!(e.to_string().contains("exceeds the cap"), "{e}");

    // A truncated stream is an error, not a hang or a silent end.
    let mut w = NdrWriter::new(Vec::new());
    w.send(&Note {
        seq: 1,
        text: "x".into(),
        tags: vec![],
    })
    .unwrap();
    let wire = w.into_inner();
    let mut r = NdrReader::new(&wire[..wire.len() - 3]);
    assert!(r.recv::<Note>().is_err());
}

#[test]
fn a_format_server_resolves_unknown_ids() {
    let cache = FormatCache::new();
    let theirs = Format::from_fields(
        "Tick",
        ByteOrder::Big,
        32,
        &[
            IOField::new("price", "float", 8, 0),
            IOField::new("seq", "unsigned integer", 8, 8),
            IOField::new("qty", "unsigned integer[4]", 4, 16),
        ],
        &[],
    )
    .unwrap();
    cache.insert(theirs.clone());
    let server = FormatServer::bind("127.0.0.1:0", cache)
        .unwrap()
        .spawn()
        .unwrap();

    let mut body = Vec::new();
    body.extend_from_slice(&1.25f64.to_be_bytes());
    body.extend_from_slice(&9u64.to_be_bytes());
    for q in [1u32, 2, 3, 4] {
        body.extend_from_slice(&q.to_be_bytes());
    }
    let msg = marshal::ndr::message_from_body(theirs.id(), &body).unwrap();

    // Without a resolver the id is unknown…
    let e = Receiver::new().decode::<Tick>(&msg).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownFormat(_)), "{e}");
    // …with one, the receiver asks the server it was given, and only that one.
    let mut rx = Receiver::with_resolver(FormatClient::new(server.local_addr()));
    let t = rx.decode::<Tick>(&msg).unwrap();
    assert_eq!(
        t,
        Tick {
            seq: 9,
            price: 1.25,
            qty: [1, 2, 3, 4]
        }
    );
    // An id the server does not know stays unknown.
    let other = marshal::ndr::message_from_body(Format::of::<Note>().id(), &[0; 64]).unwrap();
    let e = rx.decode::<Note>(&other).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnknownFormat(_)), "{e}");
    server.shutdown();
}
