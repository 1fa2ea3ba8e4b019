//! A large message leaves no large buffer behind: once an 8 MiB call and its reply have
//! passed, with small calls pipelined around them, the server and the client hold what they
//! held before, though the connection stays open.

use std::time::Duration;

use tokio::task::JoinSet;
use transports::rpc::{AsyncClient, AsyncServer};

use crate::counting::{live, mib, Role};
use crate::programs::{self, ADD, ECHO, PROG, VERS};
use crate::runtimes::{heavy, settled, Runtimes};

/// What each side may hold beyond its idle level: buffers of ordinary size (a read buffer
/// of 16 KiB on the server and 64 KiB on the client, either doubled, and a batch of replies
/// of up to 128 KiB on the server).
const SLACK: isize = 256 << 10;

#[test]
fn a_large_message_leaves_no_large_buffer_behind() {
    let _heavy = heavy();
    let rts = Runtimes::new(1);
    let server = rts.server(async {
        let mut s = AsyncServer::bind_tcp("127.0.0.1:0").await.unwrap();
        s.add(PROG, VERS, programs::serve);
        s.spawn().unwrap()
    });
    let addr = server.tcp_addr().unwrap();
    let c = rts.client(async {
        let c = AsyncClient::connect_tcp(addr, PROG, VERS).await.unwrap();
        assert_eq!(c.call::<_, i32>(ADD, &(1, 2)).await.unwrap(), 3);
        c
    });
    let limit = Duration::from_secs(5);
    settled(limit, || rts.server_tasks()).expect("the server settles");
    let idle = (live(Role::Server), live(Role::Client));

    let big = 8 << 20;
    rts.client(async {
        let mut calls = JoinSet::new();
        for t in 0..4 {
            let c = c.clone();
            calls.spawn(async move {
                for i in 0..200 {
                    assert_eq!(c.call::<_, i32>(ADD, &(i, t)).await.unwrap(), i + t);
                }
            });
        }
        let data: Vec<u8> = (0..big).map(|i| (i % 251) as u8).collect();
        let back: Vec<u8> = c.call(ECHO, data.as_slice()).await.unwrap();
        assert!(back == data, "the large echo came back wrong");
        drop((data, back));
        while let Some(r) = calls.join_next().await {
            r.unwrap();
        }
        // Small calls after the large one, now alone on the connection.
        for i in 0..10 {
            assert_eq!(c.call::<_, i32>(ADD, &(i, 1)).await.unwrap(), i + 1);
        }
    });
    settled(limit, || rts.server_tasks()).expect("the server settles");
    let kept = (live(Role::Server) - idle.0, live(Role::Client) - idle.1);
    eprintln!(
        "after an {} MiB echo among small calls: the server holds {:.3} MiB more than idle, \
         the client {:.3} MiB",
        big >> 20,
        mib(kept.0),
        mib(kept.1)
    );
    assert!(kept.0 <= SLACK, "the server kept {} bytes", kept.0);
    assert!(kept.1 <= SLACK, "the client kept {} bytes", kept.1);
    rts.client(async { drop(c) });
    rts.server(server.shutdown());
}
