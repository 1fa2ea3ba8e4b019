//! The async server: the blocking server's dispatch (every rejection, over TCP and UDP, to
//! the async and the blocking client), replies sent as calls complete, the bound on calls in
//! flight, the connection limit, idle timeouts, hostile bytes, graceful shutdown.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use transports::rpc::{
    write_record, AsyncClient, AsyncServer, AsyncServerHandle, Client, RpcError,
};
use wire_xdr::rpc::{CallHeader, Message, RecordReader};

use crate::client::exercise;
use crate::programs::{self, ADD, ECHO, NULL, PROG, SLEEP, VERS};
use crate::runtime::{block_on, block_on_workers};

async fn server_with(configure: impl FnOnce(&mut AsyncServer)) -> AsyncServerHandle {
    let mut s = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    s.add(PROG, VERS, programs::serve);
    s.add(PROG, VERS + 2, programs::serve);
    configure(&mut s);
    s.spawn().unwrap()
}

async fn tcp(server: &AsyncServerHandle) -> AsyncClient {
    AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
        .await
        .unwrap()
}

/// Whether a new connection is served within about 2 seconds.
async fn served_soon(server: &AsyncServerHandle) -> bool {
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if let Ok(3) = tcp(server).await.call::<_, i32>(ADD, &(1, 2)).await {
            return true;
        }
    }
    false
}

#[test]
fn serves_the_async_client_over_tcp_and_udp() {
    block_on_workers(2, async {
        let server = server_with(|_| {}).await;
        exercise(&tcp(&server).await, true).await;
        let udp = AsyncClient::connect_udp(server.udp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        exercise(&udp, false).await;
        for udp in [false, true] {
            let (t, u) = (server.tcp_addr().unwrap(), server.udp_addr().unwrap());
            let connect = |prog, vers| async move {
                if udp {
                    AsyncClient::connect_udp(u, prog, vers).await.unwrap()
                } else {
                    AsyncClient::connect_tcp(t, prog, vers).await.unwrap()
                }
            };
            let e = connect(PROG, 2).await.call::<(), ()>(NULL, &()).await;
            assert!(
                matches!(e, Err(RpcError::ProgMismatch { low: 1, high: 3 })),
                "{e:?}"
            );
            let e = connect(PROG + 1, 1).await.call::<(), ()>(NULL, &()).await;
            assert!(matches!(e, Err(RpcError::ProgUnavail)), "{e:?}");
        }
        server.shutdown().await;
    });
}

#[test]
fn serves_the_blocking_client_pipelined_and_over_udp() {
    block_on_workers(2, async {
        let server = server_with(|_| {}).await;
        let (t, u) = (server.tcp_addr().unwrap(), server.udp_addr().unwrap());
        tokio::task::spawn_blocking(move || {
            let mut c = Client::connect_tcp(t, PROG, VERS).unwrap();
            let xids: Vec<u32> = (0..20)
                .map(|i| c.send_call(ADD, &(i, 100)).unwrap())
                .collect();
            for (i, xid) in xids.into_iter().enumerate().rev() {
                assert_eq!(c.recv_reply::<i32>(xid).unwrap(), i as i32 + 100);
            }
            let e = c.call::<(), ()>(42, &()).unwrap_err();
            assert!(matches!(e, RpcError::ProcUnavail), "{e}");
            let mut c = Client::connect_udp(u, PROG, VERS).unwrap();
            assert_eq!(c.call::<_, i32>(ADD, &(2, 2)).unwrap(), 4);
            let e = c.call::<_, i32>(ADD, "not two ints").unwrap_err();
            assert!(matches!(e, RpcError::GarbageArgs), "{e}");
        })
        .await
        .unwrap();
        server.shutdown().await;
    });
}

#[test]
fn replies_go_out_as_calls_complete() {
    block_on_workers(2, async {
        let server = server_with(|_| {}).await;
        let c = tcp(&server).await;
        let slow = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(1500u32, 1u32)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let start = Instant::now();
        assert_eq!(c.call::<_, u32>(SLEEP, &(1u32, 2u32)).await.unwrap(), 2);
        let fast = start.elapsed();
        assert!(fast < Duration::from_millis(1000), "{fast:?}");
        assert!(!slow.is_finished());
        assert_eq!(slow.await.unwrap().unwrap(), 1);
        server.shutdown().await;
    });
}

#[test]
fn calls_in_flight_per_connection_are_bounded() {
    block_on_workers(2, async {
        let server = server_with(|s| s.set_max_in_flight(2)).await;
        let c = tcp(&server).await;
        let start = Instant::now();
        let calls: Vec<_> = (0..6u32)
            .map(|i| {
                let c = c.clone();
                tokio::spawn(async move { c.call::<_, u32>(SLEEP, &(150u32, i)).await })
            })
            .collect();
        for (i, h) in calls.into_iter().enumerate() {
            assert_eq!(h.await.unwrap().unwrap(), i as u32);
        }
        // Three rounds of two, not one round of six.
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(440) && took < Duration::from_secs(5),
            "{took:?}"
        );
        server.shutdown().await;
    });
}

#[test]
fn connections_beyond_the_limit_are_closed() {
    block_on_workers(2, async {
        let server = server_with(|s| s.set_max_connections(1)).await;
        let first = tcp(&server).await;
        assert_eq!(first.call::<_, i32>(ADD, &(1, 1)).await.unwrap(), 2);
        let second = tcp(&server).await;
        let e = second.call::<_, i32>(ADD, &(1, 1)).await.unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        // The first is still served; once it is gone, a new one is.
        assert_eq!(first.call::<_, i32>(ADD, &(2, 2)).await.unwrap(), 4);
        drop(first);
        assert!(
            served_soon(&server).await,
            "the freed connection slot was not reused"
        );
        server.shutdown().await;
    });
}

#[test]
fn idle_connections_are_closed() {
    block_on(async {
        let server = server_with(|s| s.set_idle_timeout(Some(Duration::from_millis(150)))).await;
        let c = tcp(&server).await;
        assert_eq!(c.call::<_, i32>(ADD, &(1, 1)).await.unwrap(), 2);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let e = c.call::<_, i32>(ADD, &(1, 1)).await.unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        server.shutdown().await;
    });
}

#[test]
fn a_peer_that_reads_no_replies_is_closed() {
    block_on_workers(2, async {
        let server = server_with(|s| {
            s.set_idle_timeout(Some(Duration::from_millis(300)));
            s.set_max_connections(1);
        })
        .await;
        let addr = server.tcp_addr().unwrap();
        // Calls with 64 KiB replies, sent without reading any reply: the replies fill the
        // socket buffers, the server's writes stall, and it closes the connection.
        let sent = tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
            let data = vec![5u8; 64 * 1024];
            let mut scratch = Vec::new();
            for i in 0..2000u32 {
                let call = (&CallHeader::new(i, PROG, VERS, ECHO), data.as_slice());
                if write_record(&mut s, &mut scratch, 1 << 20, call).is_err() {
                    return i;
                }
            }
            2000
        })
        .await
        .unwrap();
        assert!(sent < 2000, "the server never closed the connection");
        // The connection's slot is free again (once the closed connection's task is done).
        assert!(
            served_soon(&server).await,
            "the connection slot was not freed"
        );
        server.shutdown().await;
    });
}

#[test]
fn hostile_bytes_close_only_their_connection() {
    block_on_workers(2, async {
        let server = server_with(|s| s.set_max_record(1 << 16)).await;
        let addr = server.tcp_addr().unwrap();
        let good = tcp(&server).await;
        tokio::task::spawn_blocking(move || {
            // A record of 2 GiB claimed: refused at its header, the connection closed.
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            s.write_all(&[0xff, 0xff, 0xff, 0xff, 1, 2, 3]).unwrap();
            let mut buf = [0u8; 16];
            assert!(matches!(s.read(&mut buf), Ok(0) | Err(_)));
            // A reply, garbage and a truncated header are dropped without an answer; the
            // call after them is answered.
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut wire = Vec::new();
            for junk in [
                &[0u8, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0][..],
                &[7; 5],
                &[0; 3],
            ] {
                wire.extend_from_slice(&(0x8000_0000u32 | junk.len() as u32).to_be_bytes());
                wire.extend_from_slice(junk);
            }
            s.write_all(&wire).unwrap();
            let call = (&CallHeader::new(77, PROG, VERS, ADD), &(3i32, 4i32));
            write_record(&mut s, &mut Vec::new(), 1 << 16, call).unwrap();
            let reply = RecordReader::new().read_record(&mut s).unwrap().to_vec();
            let (Message::Reply(h), results) = Message::parse(&reply).unwrap() else {
                panic!("not a reply: {reply:?}");
            };
            assert_eq!(h.xid, 77);
            assert_eq!(wire_xdr::from_slice::<i32>(results).unwrap(), 7);
        })
        .await
        .unwrap();
        let data = vec![1u8; 1 << 17];
        let e = good.call::<_, Vec<u8>>(ECHO, &data).await.err().unwrap();
        // Over the server's cap: that connection is closed...
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        // ... and the others are served.
        assert_eq!(
            tcp(&server)
                .await
                .call::<_, i32>(ADD, &(5, 6))
                .await
                .unwrap(),
            11
        );
        server.shutdown().await;
    });
}

#[test]
fn shutdown_lets_calls_in_flight_finish_then_closes() {
    block_on_workers(2, async {
        let server = server_with(|s| s.set_grace_period(Duration::from_secs(3))).await;
        let addr = server.tcp_addr().unwrap();
        let c = tcp(&server).await;
        let idle = tcp(&server).await;
        assert_eq!(idle.call::<_, i32>(ADD, &(1, 1)).await.unwrap(), 2);
        let slow = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(400u32, 9u32)).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        // The call in flight was answered before the connection closed.
        assert_eq!(slow.await.unwrap().unwrap(), 9);
        assert!(
            took >= Duration::from_millis(250) && took < Duration::from_secs(3),
            "{took:?}"
        );
        // Connections are closed and nothing accepts any more.
        assert!(matches!(
            c.call::<_, i32>(ADD, &(1, 1)).await,
            Err(RpcError::Io(_))
        ));
        assert!(matches!(
            idle.call::<_, i32>(ADD, &(1, 1)).await,
            Err(RpcError::Io(_))
        ));
        assert!(AsyncClient::connect_tcp(addr, PROG, VERS).await.is_err());
    });
}

#[test]
fn shutdown_stops_a_call_past_the_grace_period() {
    block_on_workers(2, async {
        let server = server_with(|s| s.set_grace_period(Duration::from_millis(200))).await;
        let c = tcp(&server).await;
        let slow = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(3000u32, 9u32)).await }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        assert!(took < Duration::from_millis(1500), "{took:?}");
        let e = slow.await.unwrap().unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
    });
}

#[test]
fn shutdown_closes_a_peer_that_reads_no_replies_within_the_grace_period() {
    block_on_workers(2, async {
        // Longer than a second: the handle's wait is the grace period and one second more.
        let grace = Duration::from_millis(1500);
        let server = server_with(|s| {
            s.set_grace_period(grace);
            s.set_max_in_flight(2);
        })
        .await;
        let addr = server.tcp_addr().unwrap();
        // Calls with 64 KiB replies, none read, until the server stops reading: its writer is
        // stuck on a full socket and the calls in flight wait to queue their replies.
        let stream = tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_write_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            let data = vec![5u8; 64 * 1024];
            let mut scratch = Vec::new();
            for i in 0..2000u32 {
                let call = (&CallHeader::new(i, PROG, VERS, ECHO), data.as_slice());
                if write_record(&mut s, &mut scratch, 1 << 20, call).is_err() {
                    return s;
                }
            }
            panic!("the server read 2000 calls whose replies were not read");
        })
        .await
        .unwrap();
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        // Closed when `shutdown` returns: the replies sent can be read, then the end of the
        // stream (or a reset) comes, with nothing more to wait for.
        let closed = tokio::task::spawn_blocking(move || {
            let mut s = stream;
            s.set_nonblocking(true).unwrap();
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match s.read(&mut buf) {
                    Ok(0) => return true,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                    Err(_) => return true,
                }
            }
        })
        .await
        .unwrap();
        assert!(closed, "the connection was open when shutdown returned");
        assert!(took < grace + Duration::from_millis(900), "{took:?}");
    });
}
