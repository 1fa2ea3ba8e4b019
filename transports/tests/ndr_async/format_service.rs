//! The format service across the blocking and async sides: the async server answering the
//! blocking client, the async client asking the blocking server, unknown ids, hostile or
//! silent servers, the async server's caps, and its shutdown.

use std::io::{ErrorKind, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use transports::ndr::{
    AsyncFormatClient, AsyncFormatServer, AsyncNdrReader, FormatClient, FormatServer,
};
use wire_ndr::{
    format_frame, message_from_body, parse_message, ByteOrder, FormatCache, FormatId, Receiver,
    Resolver, Value,
};

use crate::formats::{all, note, tick, tick_body};
use crate::runtime::{block_on, block_on_workers};

/// An id no format has.
fn unknown() -> FormatId {
    FormatId::from_bytes([0xee; 16])
}

/// A cache of the three test formats.
fn cache() -> FormatCache {
    let cache = FormatCache::new();
    for f in all() {
        cache.insert(f);
    }
    cache
}

#[test]
fn the_async_server_answers_the_blocking_client() {
    block_on_workers(2, async {
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap()
            .spawn()
            .unwrap();
        let addr = server.local_addr();
        // The blocking client, on a thread of its own.
        tokio::task::spawn_blocking(move || {
            let mut client = FormatClient::new(addr);
            for f in all() {
                assert_eq!(client.resolve(f.id()).unwrap(), Some(f));
            }
            assert_eq!(client.resolve(unknown()).unwrap(), None);
            // Through a receiver, as decoding uses it.
            let mut rx = Receiver::with_resolver(FormatClient::new(addr));
            let f = tick(ByteOrder::Little);
            let msg = message_from_body(f.id(), &tick_body(ByteOrder::Little, 9, 0.5)).unwrap();
            let r = rx.decode_dynamic(&msg).unwrap();
            assert_eq!(r.get("seq"), Some(&Value::Int(9)));
            let stranger = message_from_body(unknown(), &[0; 16]).unwrap();
            let e = rx.decode_dynamic(&stranger).unwrap_err();
            assert!(
                matches!(e.kind(), wire_ndr::ErrorKind::UnknownFormat(_)),
                "{e}"
            );
        })
        .await
        .unwrap();
        server.shutdown().await;
    });
}

#[test]
fn the_async_client_asks_the_blocking_server() {
    let server = FormatServer::bind("127.0.0.1:0", cache())
        .unwrap()
        .spawn()
        .unwrap();
    let addr = server.local_addr();
    block_on(async {
        let client = AsyncFormatClient::new(addr);
        for f in all() {
            assert_eq!(client.resolve(f.id()).await.unwrap(), Some(f));
        }
        assert_eq!(client.resolve(unknown()).await.unwrap(), None);

        // Into a receiver that lacks the format, then decoding.
        let f = note();
        let msg =
            message_from_body(f.id(), &crate::formats::note_body(4, 1.0, *b"xy\0\0")).unwrap();
        let mut rx = Receiver::new();
        assert!(rx.decode_dynamic(&msg).is_err());
        assert!(client.resolve_into(&mut rx, f.id()).await.unwrap());
        assert_eq!(
            rx.decode_dynamic(&msg).unwrap().get("id"),
            Some(&Value::UInt(4))
        );
        assert!(!client.resolve_into(&mut rx, unknown()).await.unwrap());

        // Into a cache that backs a receiver.
        let local = FormatCache::new();
        let mut rx = Receiver::with_resolver(local.clone());
        assert!(client.resolve_into_cache(&local, f.id()).await.unwrap());
        assert_eq!(local.get(f.id()), Some(f.clone()));
        assert_eq!(
            rx.decode_dynamic(&msg).unwrap().get("id"),
            Some(&Value::UInt(4))
        );
        assert!(!client.resolve_into_cache(&local, unknown()).await.unwrap());
        assert_eq!(local.len(), 1);
    });
    server.shutdown();
}

#[test]
fn an_async_reader_resolves_a_record_without_its_format() {
    block_on(async {
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap()
            .spawn()
            .unwrap();
        // Records only: the sender's formats are in the server, not on the stream.
        let mut wire = Vec::new();
        for i in 0..3 {
            let f = tick(ByteOrder::Big);
            wire.extend(message_from_body(f.id(), &tick_body(ByteOrder::Big, i, 0.0)).unwrap());
        }
        let client = AsyncFormatClient::new(server.local_addr());
        let mut r = AsyncNdrReader::new(&wire[..]);
        for i in 0..3 {
            let msg = r.next_message().await.unwrap().unwrap();
            assert!(client
                .resolve_into(r.receiver(), parse_message(&msg).unwrap().id)
                .await
                .unwrap());
            let rec = r.receiver().decode_dynamic(&msg).unwrap();
            assert_eq!(rec.get("seq"), Some(&Value::Int(i)));
        }
        assert!(r.next_message().await.unwrap().is_none());
        server.shutdown().await;
    });
}

#[test]
fn concurrent_requests_share_one_client() {
    block_on_workers(2, async {
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap()
            .spawn()
            .unwrap();
        let client = Arc::new(AsyncFormatClient::new(server.local_addr()));
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let client = Arc::clone(&client);
                tokio::spawn(async move {
                    for round in 0..20 {
                        let f = all()[(i + round) % 3].clone();
                        assert_eq!(client.resolve(f.id()).await.unwrap(), Some(f));
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        server.shutdown().await;
    });
}

/// A format server that answers each request 300 ms late, from [`all`]; it counts the
/// connections it accepted.
async fn late_server() -> (
    std::net::SocketAddr,
    Arc<AtomicUsize>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    let task = tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut req = [0u8; 20];
                while conn.read_exact(&mut req).await.is_ok() {
                    let id = FormatId::from_bytes(req[4..].try_into().unwrap());
                    let f = all().into_iter().find(|f| f.id() == id).unwrap();
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    if conn.write_all(&format_frame(&f)).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, accepted, task)
}

#[test]
fn a_request_dropped_mid_way_leaves_no_answer_behind() {
    block_on(async {
        let (addr, accepted, server) = late_server().await;
        let client = AsyncFormatClient::new(addr);
        let [a, b, _] = all();
        // Sent, then dropped before its answer came (as by a timeout around it).
        let first = tokio::time::timeout(Duration::from_millis(100), client.resolve(a.id())).await;
        assert!(first.is_err(), "answered before 300 ms");
        // Had the client kept that connection, this would read the answer meant for `a`.
        assert_eq!(client.resolve(b.id()).await.unwrap(), Some(b.clone()));
        // The connection of a request that went well is kept and reused.
        assert_eq!(client.resolve(a.id()).await.unwrap(), Some(a));
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
        server.abort();
    });
}

#[test]
fn a_silent_server_times_out() {
    block_on(async {
        let (addr, _, server) = late_server().await;
        let mut client = AsyncFormatClient::new(addr);
        client.set_timeout(Duration::from_millis(100));
        let start = Instant::now();
        let e = client.resolve(note().id()).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TimedOut, "{e}");
        assert!(e.to_string().contains(&addr.to_string()), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
        server.abort();
    });
}

/// A server that answers every request with `answer`, on one connection.
fn raw_server(answer: Vec<u8>) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let peer = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut req = [0u8; 20];
        while conn.read_exact(&mut req).is_ok() {
            if conn.write_all(&answer).is_err() {
                return;
            }
        }
    });
    (addr, peer)
}

#[test]
fn hostile_answers_are_refused() {
    let cases: [(Vec<u8>, &str); 3] = [
        // A description of 2 GiB claimed: refused at the head.
        (b"NDRf\x7f\xff\xff\xff".to_vec(), "more than"),
        // Not an answer at all.
        (b"HTTP/1.1 200 OK\r\n".to_vec(), "something else"),
        // Another format than the one asked for.
        (format_frame(&note()), "answered id"),
    ];
    for (answer, what) in cases {
        let (addr, peer) = raw_server(answer);
        block_on(async {
            let client = AsyncFormatClient::new(addr);
            let e = client.resolve(tick(ByteOrder::Big).id()).await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidData, "{e}");
            assert!(e.to_string().contains(what), "{what}: {e}");
        });
        peer.join().unwrap();
    }
}

#[test]
fn the_async_server_caps_its_connections() {
    block_on(async {
        let mut server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap();
        server.set_max_connections(1);
        let server = server.spawn().unwrap();
        let addr = server.local_addr();
        let f = note();
        // The first connection is served.
        let client = AsyncFormatClient::new(addr);
        assert_eq!(client.resolve(f.id()).await.unwrap(), Some(f.clone()));
        // The second is closed at once, while the first is open (kept by the client).
        let mut second = TcpStream::connect(addr).await.unwrap();
        let mut byte = [0u8; 1];
        let n = tokio::time::timeout(Duration::from_secs(5), second.read(&mut byte))
            .await
            .expect("closed at once");
        assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
        // Once the first is gone, a connection is served again.
        drop(client);
        let mut served = false;
        for _ in 0..100 {
            if AsyncFormatClient::new(addr).resolve(f.id()).await.is_ok() {
                served = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(served, "no connection served after the first closed");
        server.shutdown().await;
    });
}

#[test]
fn the_async_server_closes_idle_and_garbled_connections() {
    block_on(async {
        let mut server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap();
        server.set_idle_timeout(Some(Duration::from_millis(100)));
        let server = server.spawn().unwrap();
        let addr = server.local_addr();
        let mut byte = [0u8; 1];

        // Silent, and half a request: closed after the idle timeout.
        for sent in [&b""[..], b"NDRq\x01\x02"] {
            let mut idle = TcpStream::connect(addr).await.unwrap();
            idle.write_all(sent).await.unwrap();
            let start = Instant::now();
            let n = tokio::time::timeout(Duration::from_secs(5), idle.read(&mut byte))
                .await
                .expect("closed once idle");
            assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
            assert!(start.elapsed() >= Duration::from_millis(90));
        }

        // Not a request: closed at once, unanswered.
        let mut garbled = TcpStream::connect(addr).await.unwrap();
        garbled.write_all(&[b'x'; 20]).await.unwrap();
        let n = tokio::time::timeout(Duration::from_secs(5), garbled.read(&mut byte))
            .await
            .expect("closed");
        assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");

        // Requests in a row on one connection are answered in order.
        let client = AsyncFormatClient::new(addr);
        for f in all().into_iter().chain(all()) {
            assert_eq!(client.resolve(f.id()).await.unwrap(), Some(f));
        }
        server.shutdown().await;
    });
}

#[test]
fn shutdown_closes_everything_and_completes() {
    block_on(async {
        let cache = cache();
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache.clone())
            .await
            .unwrap()
            .spawn()
            .unwrap();
        let addr = server.local_addr();
        let client = AsyncFormatClient::new(addr);
        let f = note();
        assert_eq!(client.resolve(f.id()).await.unwrap(), Some(f.clone()));
        // The cache is shared: a format inserted after the start is served too.
        let extra = wire_ndr::Format::from_fields(
            "extra",
            ByteOrder::Big,
            2,
            &[wire_ndr::IOField::new("x", "integer", 2, 0)],
            &[],
        )
        .unwrap();
        assert_eq!(client.resolve(extra.id()).await.unwrap(), None);
        cache.insert(extra.clone());
        assert_eq!(client.resolve(extra.id()).await.unwrap(), Some(extra));
        let mut open = TcpStream::connect(addr).await.unwrap();

        tokio::time::timeout(Duration::from_secs(5), server.shutdown())
            .await
            .expect("shutdown within 5 s");
        // The listener is closed, and so is every connection.
        assert!(TcpStream::connect(addr).await.is_err());
        let mut byte = [0u8; 1];
        let n = tokio::time::timeout(Duration::from_secs(5), open.read(&mut byte))
            .await
            .expect("closed at shutdown");
        assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
        // The client's kept connection is gone: a fresh try finds no server.
        assert!(client.resolve(f.id()).await.is_err());
    });
}

#[test]
fn dropping_the_handle_stops_the_server() {
    block_on(async {
        let server = AsyncFormatServer::bind("127.0.0.1:0", cache())
            .await
            .unwrap()
            .spawn()
            .unwrap();
        let addr = server.local_addr();
        assert!(TcpStream::connect(addr).await.is_ok());
        drop(server);
        let mut refused = false;
        for _ in 0..100 {
            tokio::task::yield_now().await;
            if TcpStream::connect(addr).await.is_err() {
                refused = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(refused, "still accepting after the handle was dropped");
    });
}
