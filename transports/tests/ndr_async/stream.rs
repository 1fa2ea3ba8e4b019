//! `AsyncNdrWriter` and `AsyncNdrReader`: over loopback TCP, against the blocking streams
//! both ways, byte for byte, cut short, and cancelled mid-frame.

use std::future::Future;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bytes::BytesMut;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Decoder;
use transports::codec::NdrCodec;
use transports::ndr::{AsyncNdrReader, AsyncNdrWriter, NdrReader, NdrWriter};
use wire_ndr::{parse_frame, Frame};

use crate::formats::{all, check_nth, nth};
use crate::runtime::block_on;

/// Records each stream test sends.
const RECORDS: usize = 500;

/// Both ends of a loopback TCP connection.
async fn tcp_pair() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    (client, server)
}

/// Reads `RECORDS` records of the interleaved sequence, then the end of the stream.
async fn read_all_async<R: tokio::io::AsyncRead + Unpin>(r: &mut AsyncNdrReader<R>) {
    for i in 0..RECORDS {
        let msg = r.next_message().await.unwrap().expect("a record");
        check_nth(i, &r.receiver().decode_dynamic(&msg).unwrap());
    }
    assert!(r.next_message().await.unwrap().is_none());
    assert!(r.next_message().await.unwrap().is_none(), "the end stays");
    for f in all() {
        assert_eq!(r.receiver().format(f.id()), Some(&f));
    }
}

#[test]
fn async_writer_to_async_reader_over_tcp() {
    block_on(async {
        let (a, b) = tcp_pair().await;
        let writer = tokio::spawn(async move {
            let mut w = AsyncNdrWriter::new(a);
            for i in 0..RECORDS {
                let (f, body) = nth(i);
                w.send_body(&f, &body).await.unwrap();
            }
            w.flush().await.unwrap();
            // Dropping the stream closes it: the reader sees the end between frames.
        });
        let mut r = AsyncNdrReader::new(b);
        read_all_async(&mut r).await;
        writer.await.unwrap();
    });
}

#[test]
fn async_writer_writes_the_blocking_writers_bytes() {
    let mut blocking = NdrWriter::new(Vec::new());
    for i in 0..RECORDS {
        let (f, body) = nth(i);
        blocking.send_body(&f, &body).unwrap();
    }
    let want = blocking.into_inner();
    let got = block_on(async {
        let mut w = AsyncNdrWriter::new(Vec::new());
        for i in 0..RECORDS {
            let (f, body) = nth(i);
            w.send_body(&f, &body).await.unwrap();
        }
        assert_eq!(w.get_ref().len(), want.len());
        w.into_inner()
    });
    assert_eq!(got, want);

    // Each of the three formats went out once, before its first record.
    let mut codec = NdrCodec::new();
    let mut wire = BytesMut::from(&got[..]);
    let mut seen = Vec::new();
    let mut records = 0;
    while let Some(frame) = codec.decode(&mut wire).unwrap() {
        match parse_frame(&frame).unwrap() {
            Frame::Format(f) => {
                assert!(!seen.contains(&f), "{} twice", f.id());
                assert_eq!(
                    f,
                    nth(records).0,
                    "the format comes just before its first record"
                );
                seen.push(f);
            }
            Frame::Record(m) => {
                assert!(seen.iter().any(|f| f.id() == m.id));
                records += 1;
            }
        }
    }
    assert!(wire.is_empty());
    assert_eq!((seen.len(), records), (3, RECORDS));
}

#[test]
fn async_writer_to_blocking_reader_over_tcp() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let reader = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut r = NdrReader::new(conn);
        for i in 0..RECORDS {
            let msg = r.next_message().unwrap().expect("a record").to_vec();
            check_nth(i, &r.receiver().decode_dynamic(&msg).unwrap());
        }
        assert!(r.next_message().unwrap().is_none());
    });
    block_on(async {
        let mut w = AsyncNdrWriter::new(TcpStream::connect(addr).await.unwrap());
        for i in 0..RECORDS {
            let (f, body) = nth(i);
            w.send_body(&f, &body).await.unwrap();
        }
        w.into_inner().shutdown().await.unwrap();
    });
    reader.join().unwrap();
}

#[test]
fn blocking_writer_to_async_reader_over_tcp() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let writer = std::thread::spawn(move || {
        let (conn, _) = listener.accept().unwrap();
        let mut w = NdrWriter::new(conn);
        for i in 0..RECORDS {
            let (f, body) = nth(i);
            w.send_body(&f, &body).unwrap();
        }
    });
    block_on(async {
        let mut r = AsyncNdrReader::new(TcpStream::connect(addr).await.unwrap());
        read_all_async(&mut r).await;
    });
    writer.join().unwrap();
}

/// The wire of the first `n` records of the interleaved sequence.
fn wire_of(n: usize) -> Vec<u8> {
    let mut w = NdrWriter::new(Vec::new());
    for i in 0..n {
        let (f, body) = nth(i);
        w.send_body(&f, &body).unwrap();
    }
    w.into_inner()
}

#[test]
fn a_stream_cut_inside_a_frame_is_an_error_not_its_end() {
    let whole = wire_of(3);
    let two = wire_of(2).len();
    // Cut inside the third record's head, inside its body, and one byte short of its end.
    for cut in [two + 3, two + 30, whole.len() - 1] {
        block_on(async {
            let (mut a, b) = tcp_pair().await;
            a.write_all(&whole[..cut]).await.unwrap();
            drop(a);
            let mut r = AsyncNdrReader::new(b);
            for i in 0..2 {
                let msg = r.next_message().await.unwrap().expect("a whole record");
                check_nth(i, &r.receiver().decode_dynamic(&msg).unwrap());
            }
            let e = r.next_message().await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::UnexpectedEof, "cut at {cut}: {e}");
            assert!(e.to_string().contains("inside a frame"), "{e}");
        });
    }
    // Cut between frames: the end, not an error.
    block_on(async {
        let (mut a, b) = tcp_pair().await;
        a.write_all(&wire_of(2)).await.unwrap();
        drop(a);
        let mut r = AsyncNdrReader::new(b);
        assert!(r.next_message().await.unwrap().is_some());
        assert!(r.next_message().await.unwrap().is_some());
        assert!(r.next_message().await.unwrap().is_none());
    });
}

/// Polls `f` once, with a waker that does nothing, and drops it.
fn poll_once<F: Future>(f: F) -> Poll<F::Output> {
    pin!(f).poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_read_dropped_mid_frame_loses_nothing() {
    let wire = wire_of(RECORDS);
    block_on(async {
        let (mut a, b) = tokio::io::duplex(64 * 1024);
        let mut r = AsyncNdrReader::new(b);
        let mut got = 0;
        // Pieces of 7 bytes: every read call ends mid-frame, most of them mid-head.
        for piece in wire.chunks(7) {
            a.write_all(piece).await.unwrap();
            // A read that finds part of a frame, then is dropped (as a timeout would).
            while let Poll::Ready(msg) = poll_once(r.next_message()) {
                let msg = msg.unwrap().expect("a record");
                check_nth(got, &r.receiver().decode_dynamic(&msg).unwrap());
                got += 1;
            }
        }
        assert_eq!(got, RECORDS);
        drop(a);
        assert!(r.next_message().await.unwrap().is_none());
    });
}
