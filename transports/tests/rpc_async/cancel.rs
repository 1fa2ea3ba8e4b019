//! Calls whose futures are dropped at random points (after a random tiny timeout, or after
//! being polled once) leave the client usable and no call pending.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use transports::rpc::{AsyncClient, AsyncServer, AsyncServerHandle};

use crate::programs::{self, Rng, ADD, ECHO, PROG, SLEEP, VERS};
use crate::runtime::block_on_workers;

async fn async_server() -> AsyncServerHandle {
    let mut s = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    s.add(PROG, VERS, programs::serve);
    s.spawn().unwrap()
}

/// Polls `f` once, then drops it; its output if it was ready at once.
fn poll_once_and_drop<F: Future>(f: F) -> Option<F::Output> {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

/// `tasks` tasks each make `calls` calls through `c`, most of them abandoned at random
/// points; every call that completes is checked. Echoed data is below `max_data` bytes. Returns how many completed.
async fn abandon_calls(c: &AsyncClient, tasks: u64, calls: u64, max_data: u64) -> u64 {
    let handles: Vec<_> = (0..tasks)
        .map(|t| {
            let c = c.clone();
            tokio::spawn(async move {
                let mut rng = Rng::new(0x9e37_79b9 ^ t);
                let mut completed = 0;
                for i in 0..calls {
                    let a = (t * 100_000 + i) as i32;
                    match rng.below(4) {
                        // Dropped after 0–1999 µs: before it is queued, while it is in
                        // flight, or not at all.
                        0 | 1 => {
                            let wait = Duration::from_micros(rng.below(2000));
                            let args = (a, 1);
                            let call = c.call::<_, i32>(ADD, &args);
                            if let Ok(r) = tokio::time::timeout(wait, call).await {
                                assert_eq!(r.unwrap(), a + 1);
                                completed += 1;
                            }
                        }
                        // A slow call dropped midway.
                        2 => {
                            let wait = Duration::from_micros(rng.below(3000));
                            let args = (2u32, i as u32);
                            let call = c.call::<_, u32>(SLEEP, &args);
                            if let Ok(r) = tokio::time::timeout(wait, call).await {
                                assert_eq!(r.unwrap(), i as u32);
                                completed += 1;
                            }
                        }
                        // Polled once (registered, queued or sent), then dropped.
                        _ => {
                            let data = vec![t as u8; rng.below(max_data) as usize];
                            let got = poll_once_and_drop(c.call::<_, Vec<u8>>(ECHO, &data));
                            // Rarely, the reply beats the first poll (another worker ran
                            // the server and the reader meanwhile).
                            if let Some(r) = got {
                                assert!(r.unwrap() == data, "task {t} call {i}");
                                completed += 1;
                            }
                        }
                    }
                }
                completed
            })
        })
        .collect();
    let mut completed = 0;
    for h in handles {
        completed += h.await.unwrap();
    }
    completed
}

/// After the abandoned calls, the map is empty and every kind of call still works.
async fn still_usable(c: &AsyncClient) {
    assert_eq!(c.pending_len(), 0, "calls left pending");
    // Late replies to abandoned calls arrive meanwhile and are discarded.
    for i in 0..50 {
        assert_eq!(c.call::<_, i32>(ADD, &(i, 2)).await.unwrap(), i + 2);
    }
    let data: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
    let back: Vec<u8> = c.call(ECHO, data.as_slice()).await.unwrap();
    assert_eq!(back, data);
    assert_eq!(c.call::<_, u32>(SLEEP, &(1u32, 77u32)).await.unwrap(), 77);
    assert_eq!(c.pending_len(), 0);
}

#[test]
fn dropped_tcp_calls_leave_the_connection_usable() {
    block_on_workers(2, async {
        let server = async_server().await;
        let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        let completed = abandon_calls(&c, 16, 250, 200_000).await;
        assert!(completed > 0, "no call completed");
        still_usable(&c).await;
        server.shutdown().await;
    });
}

#[test]
fn dropped_udp_calls_leave_the_socket_usable() {
    block_on_workers(2, async {
        let server = async_server().await;
        let c = AsyncClient::connect_udp(server.udp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        abandon_calls(&c, 8, 150, 60_000).await;
        assert_eq!(c.pending_len(), 0, "calls left pending");
        for i in 0..50 {
            assert_eq!(c.call::<_, i32>(ADD, &(i, 2)).await.unwrap(), i + 2);
        }
        server.shutdown().await;
    });
}
