//! The async NDR transports (feature `tokio`) with derived records, through the facade:
//! typed records sent and received over loopback TCP, async to async and across the blocking
//! streams both ways, the same bytes as the blocking writer, a read dropped mid-frame that
//! leaves `recv_into`'s value alone, and non-connected mode on tokio (a record whose format
//! the stream never carried, resolved from an `AsyncFormatServer` before it is decoded).
//! `transports/tests/ndr_async` tests the same types with formats built from field lists.

use std::future::Future;
use std::net::TcpListener as StdListener;
use std::pin::pin;
use std::task::{Context, Waker};

use marshal::ndr::{
    parse_message, to_message, AsyncFormatClient, AsyncFormatServer, AsyncNdrReader,
    AsyncNdrWriter, ByteOrder, Format, FormatCache, IOField, NdrReader, NdrWriter,
};
use marshal::{ErrorKind, Marshal};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// Plain data: sent from its own bytes.
#[derive(Marshal, Debug, PartialEq, Clone, Default)]
#[repr(C)]
struct Tick {
    seq: u64,
    price: f64,
    qty: [u32; 4],
}

/// Variable parts: copied once when sent.
#[derive(Marshal, Debug, PartialEq, Clone, Default)]
struct Note {
    seq: u32,
    text: String,
    tags: Vec<u16>,
}

/// Ticks to send; every tenth is followed by a note.
const TICKS: u64 = 300;

fn tick(i: u64) -> Tick {
    Tick {
        seq: i,
        price: i as f64 * 0.5,
        qty: [i as u32, 1, 2, 3],
    }
}

fn note(i: u64) -> Note {
    Note {
        seq: i as u32,
        text: format!("note {i}"),
        tags: vec![i as u16, 7],
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

async fn send_all<W: tokio::io::AsyncWrite + Unpin>(w: &mut AsyncNdrWriter<W>) {
    for i in 0..TICKS {
        w.send(&tick(i)).await.unwrap();
        if i % 10 == 0 {
            w.send(&note(i)).await.unwrap();
        }
    }
    w.flush().await.unwrap();
}

async fn recv_all<R: tokio::io::AsyncRead + Unpin>(r: &mut AsyncNdrReader<R>) {
    let mut t = Tick::default();
    for i in 0..TICKS {
        // Both ways of receiving, in turn.
        if i % 2 == 0 {
            assert_eq!(r.recv::<Tick>().await.unwrap(), Some(tick(i)));
        } else {
            assert!(r.recv_into(&mut t).await.unwrap());
            assert_eq!(t, tick(i));
        }
        if i % 10 == 0 {
            assert_eq!(r.recv::<Note>().await.unwrap(), Some(note(i)));
        }
    }
    assert_eq!(r.recv::<Tick>().await.unwrap(), None);
    assert!(!r.recv_into(&mut t).await.unwrap());
    assert!(r.receiver().format(Format::of::<Tick>().id()).is_some());
    assert!(r.receiver().format(Format::of::<Note>().id()).is_some());
}

#[test]
fn typed_records_cross_tcp_async_to_async() {
    block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sender = tokio::spawn(async move {
            let (conn, _) = listener.accept().await.unwrap();
            let mut w = AsyncNdrWriter::new(conn);
            send_all(&mut w).await;
        });
        let mut r = AsyncNdrReader::new(TcpStream::connect(addr).await.unwrap());
        recv_all(&mut r).await;
        sender.await.unwrap();
    });
}

#[test]
fn the_async_writer_writes_the_blocking_writers_bytes() {
    let mut blocking = NdrWriter::new(Vec::new());
    for i in 0..TICKS {
        blocking.send(&tick(i)).unwrap();
        if i % 10 == 0 {
            blocking.send(&note(i)).unwrap();
        }
    }
    let want = blocking.into_inner();
    let got = block_on(async {
        let mut w = AsyncNdrWriter::new(Vec::new());
        send_all(&mut w).await;
        w.into_inner()
    });
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the async writer's bytes differ");
    // Each format once: the records and two descriptions.
    let records: usize = (0..TICKS)
        .map(|i| {
            to_message(&tick(i)).unwrap().len()
                + if i % 10 == 0 {
                    to_message(&note(i)).unwrap().len()
                } else {
                    0
                }
        })
        .sum();
    let formats = marshal::ndr::format_frame(&Format::of::<Tick>()).len()
        + marshal::ndr::format_frame(&Format::of::<Note>()).len();
    assert_eq!(got.len(), records + formats);
}

#[test]
fn typed_records_cross_between_blocking_and_async_streams() {
    // Async writer, blocking reader.
    let listener = StdListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let reader = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut r = NdrReader::new(conn);
        for i in 0..TICKS {
            assert_eq!(r.recv::<Tick>().unwrap(), Some(tick(i)));
            if i % 10 == 0 {
                assert_eq!(r.recv::<Note>().unwrap(), Some(note(i)));
            }
        }
        assert_eq!(r.recv::<Tick>().unwrap(), None);
    });
    block_on(async {
        let mut w = AsyncNdrWriter::new(TcpStream::connect(addr).await.unwrap());
        send_all(&mut w).await;
        w.into_inner().shutdown().await.unwrap();
    });
    reader.join().unwrap();

    // Blocking writer, async reader.
    let listener = StdListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let writer = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut w = NdrWriter::new(conn);
        for i in 0..TICKS {
            w.send(&tick(i)).unwrap();
            if i % 10 == 0 {
                w.send(&note(i)).unwrap();
            }
        }
    });
    block_on(async {
        let mut r = AsyncNdrReader::new(TcpStream::connect(addr).await.unwrap());
        recv_all(&mut r).await;
    });
    writer.join().unwrap();
}

#[test]
fn a_recv_into_dropped_mid_frame_leaves_its_value_alone() {
    let mut w = NdrWriter::new(Vec::new());
    w.send(&tick(1)).unwrap();
    w.send(&tick(2)).unwrap();
    let wire = w.into_inner();
    let second = wire.len() - to_message(&tick(2)).unwrap().len();
    block_on(async {
        let (mut a, b) = tokio::io::duplex(1 << 16);
        let mut r = AsyncNdrReader::new(b);
        let mut t = Tick::default();
        a.write_all(&wire[..second + 10]).await.unwrap();
        assert!(r.recv_into(&mut t).await.unwrap());
        assert_eq!(t, tick(1));
        // Part of the second record is in: polled once, then dropped.
        let polled = pin!(r.recv_into(&mut t)).poll(&mut Context::from_waker(Waker::noop()));
        assert!(polled.is_pending());
        assert_eq!(t, tick(1), "untouched by the dropped read");
        a.write_all(&wire[second + 10..]).await.unwrap();
        drop(a);
        assert!(r.recv_into(&mut t).await.unwrap());
        assert_eq!(t, tick(2));
        assert!(!r.recv_into(&mut t).await.unwrap());
    });
}

#[test]
fn a_record_without_its_format_is_resolved_from_an_async_format_server() {
    // The sender is big-endian and orders its fields differently: converted by name.
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
    let mut body = Vec::new();
    body.extend_from_slice(&1.25f64.to_be_bytes());
    body.extend_from_slice(&9u64.to_be_bytes());
    for q in [1u32, 2, 3, 4] {
        body.extend_from_slice(&q.to_be_bytes());
    }
    let wire = marshal::ndr::message_from_body(theirs.id(), &body).unwrap();
    let want = Tick {
        seq: 9,
        price: 1.25,
        qty: [1, 2, 3, 4],
    };
    block_on(async {
        let cache = FormatCache::new();
        cache.insert(theirs.clone());
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache)
            .await
            .unwrap()
            .spawn()
            .unwrap();
        let client = AsyncFormatClient::new(server.local_addr());

        // Without resolving first, the stream's reader does not know the format.
        let mut r = AsyncNdrReader::new(&wire[..]);
        let e = r.recv::<Tick>().await.unwrap_err();
        assert!(e.to_string().contains("unknown format id"), "{e}");

        // Resolved first, then decoded.
        let mut r = AsyncNdrReader::new(&wire[..]);
        let msg = r.next_message().await.unwrap().unwrap();
        let id = parse_message(&msg).unwrap().id;
        assert!(client.resolve_into(r.receiver(), id).await.unwrap());
        assert_eq!(r.receiver().decode::<Tick>(&msg).unwrap(), want);

        // Through a cache that backs a receiver.
        let local = FormatCache::new();
        assert!(client.resolve_into_cache(&local, id).await.unwrap());
        let mut rx = marshal::ndr::Receiver::with_resolver(local);
        assert_eq!(rx.decode::<Tick>(&msg).unwrap(), want);

        // An id the server does not know.
        let other = Format::of::<Note>().id();
        assert!(!client.resolve_into(r.receiver(), other).await.unwrap());
        let stranger = marshal::ndr::message_from_body(other, &[0; 64]).unwrap();
        let e = r.receiver().decode::<Note>(&stranger).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::UnknownFormat(_)), "{e}");
        server.shutdown().await;
    });
}
