//! One client shared by 64 tasks, its calls in flight together on one TCP connection, on a
//! 2-worker runtime: every reply reaches its own call. The number of calls is
//! `RPC_ASYNC_CALLS` (100,000 by default).

use std::time::Instant;

use transports::rpc::{AsyncClient, AsyncServer, Server};

use crate::programs::{self, ADD, ECHO, PROG, VERS};
use crate::runtime::block_on_workers;

const TASKS: u64 = 64;

fn total_calls() -> u64 {
    std::env::var("RPC_ASYNC_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// `TASKS` tasks share `c` for `total` calls, each reply checked against its arguments.
async fn hammer(c: &AsyncClient, total: u64) {
    let per_task = total.div_ceil(TASKS);
    let handles: Vec<_> = (0..TASKS)
        .map(|t| {
            let c = c.clone();
            tokio::spawn(async move {
                for i in 0..per_task {
                    let a = (t * 1_000_000 + i) as i32;
                    if i % 8 == 7 {
                        // Replies of different sizes, tagged with the call.
                        let data: Vec<u8> = (0..(i % 300) as usize + 4)
                            .map(|k| (a as usize ^ k) as u8)
                            .collect();
                        let back: Vec<u8> = c.call(ECHO, data.as_slice()).await.unwrap();
                        assert_eq!(back, data, "task {t} call {i}");
                    } else {
                        let sum: i32 = c.call(ADD, &(a, t as i32)).await.unwrap();
                        assert_eq!(sum, a + t as i32, "task {t} call {i}");
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.await.unwrap();
    }
    assert_eq!(c.pending_len(), 0);
}

#[test]
fn sixty_four_tasks_share_one_connection_to_the_async_server() {
    let total = total_calls();
    block_on_workers(2, async {
        let mut s = AsyncServer::bind_tcp("127.0.0.1:0").await.unwrap();
        s.add(PROG, VERS, programs::serve);
        let server = s.spawn().unwrap();
        let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        let start = Instant::now();
        hammer(&c, total).await;
        eprintln!(
            "{total} calls by {TASKS} tasks (async server): {:?}",
            start.elapsed()
        );
        server.shutdown().await;
    });
}

#[test]
fn sixty_four_tasks_share_one_connection_to_the_blocking_server() {
    let total = total_calls();
    let mut s = Server::bind_tcp("127.0.0.1:0").unwrap();
    s.add(PROG, VERS, programs::serve);
    let server = s.spawn().unwrap();
    block_on_workers(2, async {
        let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        let start = Instant::now();
        hammer(&c, total).await;
        eprintln!(
            "{total} calls by {TASKS} tasks (blocking server): {:?}",
            start.elapsed()
        );
    });
}
