//! The async client against the blocking server and the misbehaving peers: every outcome,
//! replies in any order, timeouts, retransmission over UDP, broken connections, settings
//! shared by clones.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use transports::rpc::{AsyncClient, Auth, RpcError, Server, ServerHandle};

use crate::peers::{self, INC, SILENT};
use crate::programs::{self, Rng, ADD, ECHO, NULL, PANIC, PROG, VERS, WHOAMI};
use crate::runtime::block_on;

fn blocking_server() -> ServerHandle {
    let mut s = Server::bind("127.0.0.1:0").unwrap();
    s.add(PROG, VERS, programs::serve);
    s.add(PROG, VERS + 2, programs::serve);
    s.spawn().unwrap()
}

/// Every outcome of a call through `c`, a client of `PROG` at `VERS`; `big` adds a reply
/// that only fits a TCP record.
pub async fn exercise(c: &AsyncClient, big: bool) {
    c.call::<(), ()>(NULL, &()).await.unwrap();
    assert_eq!(c.call::<_, i32>(ADD, &(2, 3)).await.unwrap(), 5);
    assert_eq!(
        c.call::<_, i32>(ADD, &(i32::MAX, 1)).await.unwrap(),
        i32::MIN
    );
    let mut rng = Rng::new(7);
    let mut sizes = vec![0, 1, 3, 1000, 60_000];
    if big {
        sizes.push(4 << 20);
    }
    for n in sizes {
        let data: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        let back: Vec<u8> = c.call(ECHO, data.as_slice()).await.unwrap();
        assert_eq!(back, data, "echo of {n} bytes");
    }
    // Results borrowed from the reply kept whole.
    let reply = c.call_reply(ECHO, &b"borrowed"[..]).await.unwrap();
    let got: &[u8] = reply.results().unwrap();
    assert_eq!(got, b"borrowed");
    assert_eq!(reply.message().len(), 24 + 4 + 8);
    let e = reply.results::<u32>().unwrap_err();
    assert!(matches!(e, RpcError::BadReply(_)), "{e:?}");
    let e = c.call_reply(99, &()).await.unwrap_err();
    assert!(matches!(e, RpcError::ProcUnavail), "{e:?}");
    let e = c.call::<(), ()>(99, &()).await.unwrap_err();
    assert!(matches!(e, RpcError::ProcUnavail), "{e:?}");
    // One word where two are expected.
    let e = c.call::<_, i32>(ADD, &1u32).await.unwrap_err();
    assert!(matches!(e, RpcError::GarbageArgs), "{e:?}");
    let e = c.call::<(), ()>(PANIC, &()).await.unwrap_err();
    assert!(matches!(e, RpcError::SystemErr), "{e:?}");
    // Still usable after every rejection.
    assert_eq!(c.call::<_, i32>(ADD, &(-4, 1)).await.unwrap(), -3);
    assert_eq!(c.pending_len(), 0);
}

#[test]
fn the_client_is_a_cloneable_handle_for_any_task() {
    fn handle<T: Clone + Send + Sync + 'static>() {}
    fn shared<T: Send + Sync + 'static>() {}
    handle::<AsyncClient>();
    handle::<transports::rpc::Reply>();
    shared::<transports::rpc::AsyncServer>();
    shared::<transports::rpc::AsyncServerHandle>();
}

#[test]
fn calls_the_blocking_server_over_tcp_and_udp() {
    let server = blocking_server();
    block_on(async {
        let tcp = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        exercise(&tcp, true).await;
        let udp = AsyncClient::connect_udp(server.udp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        exercise(&udp, false).await;
        // A call that does not fit a datagram is refused before it is sent.
        let Err(e) = udp.call::<_, Vec<u8>>(ECHO, &vec![0u8; 65_500]).await else {
            panic!("a call too large for a datagram was answered");
        };
        assert!(
            matches!(
                e,
                RpcError::TooLarge {
                    len: 65_544,
                    max: 65_507
                }
            ),
            "{e:?}"
        );
        assert_eq!(udp.pending_len(), 0);
        assert_eq!(udp.call::<_, i32>(ADD, &(1, 1)).await.unwrap(), 2);
    });
}

#[test]
fn program_and_version_rejections() {
    let server = blocking_server();
    block_on(async {
        for udp in [false, true] {
            let (tcp_addr, udp_addr) = (server.tcp_addr().unwrap(), server.udp_addr().unwrap());
            let connect = |prog, vers| async move {
                if udp {
                    AsyncClient::connect_udp(udp_addr, prog, vers).await
                } else {
                    AsyncClient::connect_tcp(tcp_addr, prog, vers).await
                }
            };
            let c = connect(PROG, 2).await.unwrap();
            let e = c.call::<(), ()>(NULL, &()).await.unwrap_err();
            assert!(
                matches!(e, RpcError::ProgMismatch { low: 1, high: 3 }),
                "{e:?}"
            );
            let c = connect(PROG + 1, 1).await.unwrap();
            let e = c.call::<(), ()>(NULL, &()).await.unwrap_err();
            assert!(matches!(e, RpcError::ProgUnavail), "{e:?}");
        }
    });
}

#[test]
fn settings_made_before_cloning_hold_for_the_clones() {
    let server = blocking_server();
    block_on(async {
        let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        assert_eq!(
            c.call::<(), (u32, u32)>(WHOAMI, &()).await.unwrap(),
            (wire_xdr::rpc::AUTH_NONE, u32::MAX)
        );
        c.set_auth(Auth::Sys {
            stamp: 1,
            machine_name: "box".into(),
            uid: 1234,
            gid: 5,
            gids: vec![5, 6],
        });
        let clone = c.clone();
        assert_eq!(
            clone.call::<(), (u32, u32)>(WHOAMI, &()).await.unwrap(),
            (wire_xdr::rpc::AUTH_SYS, 1234)
        );
        // A setting made through a clone holds for the original too.
        clone.set_auth(Auth::None);
        assert_eq!(
            c.call::<(), (u32, u32)>(WHOAMI, &()).await.unwrap(),
            (wire_xdr::rpc::AUTH_NONE, u32::MAX)
        );
        assert_eq!((c.program(), c.version()), (PROG, VERS));
        assert_eq!(c.peer_addr(), server.tcp_addr().unwrap());
    });
}

#[test]
fn replies_in_any_order_reach_their_calls() {
    const BATCH: usize = 16;
    let (addr, peer) = peers::reverse_peer(BATCH);
    block_on(async {
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        for round in 0..3u32 {
            let tasks: Vec<_> = (0..BATCH as u32)
                .map(|i| {
                    let c = c.clone();
                    let x = round * 1000 + i;
                    tokio::spawn(async move { (x, c.call::<_, u32>(INC, &x).await) })
                })
                .collect();
            for t in tasks {
                let (x, got) = t.await.unwrap();
                assert_eq!(got.unwrap(), x + 1);
            }
            assert_eq!(c.pending_len(), 0);
        }
    });
    peer.join().unwrap();
}

#[test]
fn a_timed_out_call_leaves_the_client_usable() {
    let (addr, peer) = peers::reverse_peer(1);
    block_on(async {
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        // Set on a clone before it is used: holds for every handle.
        c.clone().set_timeout(Duration::from_millis(200));
        let start = Instant::now();
        let e = c.call::<_, u32>(SILENT, &5u32).await.unwrap_err();
        let waited = start.elapsed();
        assert!(format!("{e:?}").contains("time"), "{e:?}");
        assert!(matches!(e, RpcError::Timeout), "{e:?}");
        assert!(
            waited >= Duration::from_millis(190) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
        assert_eq!(c.pending_len(), 0);
        assert_eq!(c.call::<_, u32>(INC, &41u32).await.unwrap(), 42);
    });
    peer.join().unwrap();
}

#[test]
fn a_broken_connection_fails_pending_and_later_calls() {
    let (addr, peer) = peers::closing_peer();
    block_on(async {
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        let e = c.call::<_, u32>(INC, &1u32).await.unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        assert!(e.to_string().contains("closed"), "{e}");
        let e = c.call::<_, u32>(INC, &1u32).await.unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        assert_eq!(c.pending_len(), 0);
    });
    peer.join().unwrap();
}

#[test]
fn udp_calls_are_retransmitted_until_answered() {
    let (addr, received, peer) = peers::lossy_udp_peer();
    block_on(async {
        let c = AsyncClient::connect_udp(addr, PROG, VERS).await.unwrap();
        c.set_retry(Duration::from_millis(40));
        let start = Instant::now();
        assert_eq!(c.call::<_, u32>(INC, &7u32).await.unwrap(), 8);
        assert!(start.elapsed() >= Duration::from_millis(35));
        assert_eq!(received.load(Ordering::SeqCst), 2);

        // Never answered: retransmitted (40, 80, 160 ms...) until the timeout.
        c.set_timeout(Duration::from_millis(400));
        let e = c.call::<_, u32>(SILENT, &7u32).await.unwrap_err();
        assert!(format!("{e:?}").contains("time"), "{e:?}");
        let copies = received.load(Ordering::SeqCst) - 2;
        assert!((2..=6).contains(&copies), "{copies} copies of the call");
        assert_eq!(c.call::<_, u32>(INC, &9u32).await.unwrap(), 10);
        assert_eq!(c.pending_len(), 0);
    });
    peers::stop_udp_peer(addr);
    peer.join().unwrap();
}

#[test]
fn hostile_replies_fail_the_call_without_panic_or_allocation() {
    let mut peers = Vec::new();
    block_on(async {
        // A record of 2 GiB announced: refused at its header, nothing reserved for it.
        let (addr, peer) = peers::raw_answer_peer(|_| vec![0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        let e = c.call::<_, u32>(INC, &1u32).await.unwrap_err();
        assert!(matches!(e, RpcError::Io(_)), "{e:?}");
        assert!(e.to_string().contains("framing"), "{e}");
        peers.push(peer);

        // The call's xid, then bytes that are no reply.
        let (addr, peer) = peers::raw_answer_peer(|xid| {
            let mut r = 0x8000_000cu32.to_be_bytes().to_vec();
            r.extend_from_slice(&xid.to_be_bytes());
            r.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 7]);
            r
        });
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        let e = c.call::<_, u32>(INC, &1u32).await.unwrap_err();
        assert!(matches!(e, RpcError::BadReply(_)), "{e:?}");
        assert_eq!(c.pending_len(), 0);
        peers.push(peer);

        // A SUCCESS reply whose results do not decode as the type asked for.
        let (addr, peer) = peers::raw_answer_peer(|xid| {
            let mut r = 0x8000_001au32.to_be_bytes().to_vec();
            r.extend_from_slice(&xid.to_be_bytes());
            r.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            r.extend_from_slice(&[1, 2]);
            r
        });
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        let e = c.call::<_, u32>(INC, &1u32).await.unwrap_err();
        assert!(matches!(e, RpcError::BadReply(_)), "{e:?}");
        assert!(e.to_string().contains("results"), "{e}");
        peers.push(peer);
    });
    // The runtime is gone, and with it the clients' sockets: each peer ends.
    for peer in peers {
        peer.join().unwrap();
    }
}
