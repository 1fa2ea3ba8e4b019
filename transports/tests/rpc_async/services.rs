//! Programs served as `tower` services of `Request`s: the test program's every outcome over
//! TCP and UDP, arguments sliced from the message, calls completing concurrently and out of
//! order on one connection, readiness, errors and panics, and calls stopped at shutdown.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use transports::rpc::{
    AsyncClient, AsyncServer, AsyncServerHandle, BoxError, Request, Response, RpcError, Service,
};

use crate::client::exercise;
use crate::programs::{TestService, ADD, NULL, PANIC, PROG, SLEEP, VERS, WHOAMI};
use crate::runtime::block_on_workers;

async fn service_server(
    service: TestService,
    configure: impl FnOnce(&mut AsyncServer),
) -> AsyncServerHandle {
    let mut s = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    s.add_service(PROG, VERS, service.clone());
    s.add_service(PROG, VERS + 2, service);
    configure(&mut s);
    s.spawn().unwrap()
}

async fn tcp(server: &AsyncServerHandle) -> AsyncClient {
    AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS)
        .await
        .unwrap()
}

#[test]
fn a_service_answers_every_outcome_over_tcp_and_udp() {
    block_on_workers(2, async {
        let server = service_server(TestService::default(), |_| {}).await;
        exercise(&tcp(&server).await, true).await;
        let udp = AsyncClient::connect_udp(server.udp_addr().unwrap(), PROG, VERS)
            .await
            .unwrap();
        exercise(&udp, false).await;
        // Admission happens before the service: versions served are 1 and 3.
        let c = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, 2)
            .await
            .unwrap();
        let e = c.call::<(), ()>(NULL, &()).await.unwrap_err();
        assert!(
            matches!(e, RpcError::ProgMismatch { low: 1, high: 3 }),
            "{e:?}"
        );
        // Credentials reach the service.
        let c = tcp(&server).await;
        c.set_auth(transports::rpc::Auth::Sys {
            stamp: 1,
            machine_name: "here".into(),
            uid: 1234,
            gid: 5,
            gids: vec![],
        });
        assert_eq!(
            c.call::<(), (u32, u32)>(WHOAMI, &()).await.unwrap(),
            (1, 1234)
        );
        server.shutdown().await;
    });
}

#[test]
fn busy_polling_client_and_server_answer_every_outcome() {
    block_on_workers(2, async {
        let server = service_server(TestService::default(), |s| {
            s.set_busy_poll(Some(Duration::from_micros(200)))
        })
        .await;
        let c = tcp(&server).await;
        c.set_busy_poll(Some(Duration::from_micros(200)));
        exercise(&c, true).await;
        // Replies slower than the budget still come: the reader then waits for the socket.
        assert_eq!(c.call::<_, u32>(SLEEP, &(20u32, 5u32)).await.unwrap(), 5);
        c.set_busy_poll(None);
        assert_eq!(c.call::<_, i32>(ADD, &(1, 2)).await.unwrap(), 3);
        server.shutdown().await;
    });
}

#[test]
fn calls_on_one_connection_complete_together_and_out_of_order() {
    block_on_workers(2, async {
        let server = service_server(TestService::default(), |s| s.set_max_in_flight(64)).await;
        let c = tcp(&server).await;
        let start = Instant::now();
        // 48 calls that each sleep 300 ms, the later ones first: together, not in turn.
        let calls: Vec<_> = (0..48u32)
            .map(|i| {
                let c = c.clone();
                tokio::spawn(async move { c.call::<_, u32>(SLEEP, &(300 - 5 * i, i)).await })
            })
            .collect();
        for (i, h) in calls.into_iter().enumerate() {
            assert_eq!(h.await.unwrap().unwrap(), i as u32);
        }
        let took = start.elapsed();
        assert!(took < Duration::from_secs(3), "{took:?}");
        server.shutdown().await;
    });
}

/// A service that is ready only every other time it is asked, and fails when told to.
#[derive(Clone)]
struct Moody {
    asked: Arc<AtomicUsize>,
    fail_ready: bool,
}

impl Service<Request> for Moody {
    type Response = Response;
    type Error = BoxError;
    type Future = std::future::Ready<Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        if self.fail_ready {
            return Poll::Ready(Err("not ready, ever".into()));
        }
        if self.asked.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        std::future::ready(match req.args::<(i32, i32)>() {
            Ok((a, b)) => Response::success(&(a + b)).map_err(Into::into),
            Err(e) => Err(e.into()),
        })
    }
}

#[test]
fn readiness_is_awaited_and_its_failure_answered_system_err() {
    block_on_workers(2, async {
        let mut s = AsyncServer::bind_tcp("127.0.0.1:0").await.unwrap();
        let asked = Arc::new(AtomicUsize::new(0));
        s.add_service(
            PROG,
            VERS,
            Moody {
                asked: Arc::clone(&asked),
                fail_ready: false,
            },
        );
        s.add_service(
            PROG,
            VERS + 1,
            Moody {
                asked: Arc::new(AtomicUsize::new(0)),
                fail_ready: true,
            },
        );
        let server = s.spawn().unwrap();
        let c = tcp(&server).await;
        for i in 0..10 {
            assert_eq!(c.call::<_, i32>(ADD, &(i, 1)).await.unwrap(), i + 1);
        }
        assert!(
            asked.load(Ordering::SeqCst) >= 20,
            "readiness was not asked"
        );
        let e = c.call::<_, i32>(ADD, &7u32).await.unwrap_err();
        assert!(matches!(e, RpcError::GarbageArgs), "{e:?}");
        let never = AsyncClient::connect_tcp(server.tcp_addr().unwrap(), PROG, VERS + 1)
            .await
            .unwrap();
        let e = never.call::<_, i32>(ADD, &(1, 2)).await.unwrap_err();
        assert!(matches!(e, RpcError::SystemErr), "{e:?}");
        assert_eq!(c.call::<_, i32>(ADD, &(1, 2)).await.unwrap(), 3);
        server.shutdown().await;
    });
}

#[test]
fn panics_in_and_after_the_first_poll_are_system_err() {
    block_on_workers(2, async {
        let server = service_server(TestService::default(), |_| {}).await;
        let c = tcp(&server).await;
        // Panics at its first poll (answered from the connection's task) ...
        let e = c.call::<(), ()>(PANIC, &()).await.unwrap_err();
        assert!(matches!(e, RpcError::SystemErr), "{e:?}");
        // ... and the connection goes on, with slow calls on their own tasks.
        let slow = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(50u32, 4u32)).await }
        });
        let e = c.call::<(), ()>(PANIC, &()).await.unwrap_err();
        assert!(matches!(e, RpcError::SystemErr), "{e:?}");
        assert_eq!(slow.await.unwrap().unwrap(), 4);
        server.shutdown().await;
    });
}

#[test]
fn shutdown_drops_calls_still_running_after_the_grace_period() {
    block_on_workers(2, async {
        let service = TestService::default();
        let dropped = Arc::clone(&service.dropped);
        let server =
            service_server(service, |s| s.set_grace_period(Duration::from_millis(200))).await;
        let c = tcp(&server).await;
        let done = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(100u32, 1u32)).await }
        });
        let stuck = tokio::spawn({
            let c = c.clone();
            async move { c.call::<_, u32>(SLEEP, &(60_000u32, 2u32)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        assert!(took < Duration::from_millis(1500), "{took:?}");
        // The call that finished within the grace period was answered; the other's future
        // was dropped (cancelled), not left running.
        assert_eq!(done.await.unwrap().unwrap(), 1);
        assert!(matches!(stuck.await.unwrap(), Err(RpcError::Io(_))));
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    });
}
