//! The async GIOP server serving objects as `tower` services of `Request`s: every outcome in
//! GIOP 1.0–1.2 and both byte orders, to the async and the blocking client; the async
//! client's kept replies (`invoke_reply`: results and user exceptions decoded from them);
//! arguments sliced from the message; requests on one connection completing together and out of order;
//! `CancelRequest` dropping a request's future; `LocateRequest`; errors and panics; and the
//! grace period at shutdown.

#![cfg(all(feature = "tokio", feature = "iiop"))]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use transports::giop::{
    AsyncClient, AsyncServer, AsyncServerHandle, BoxError, Call, CallError, Client, Request,
    Response, Service,
};
use wire_iiop::giop::{LocateStatus, Version};
use wire_iiop::ByteOrder;

const VERSIONS: [Version; 3] = [Version::V1_0, Version::V1_1, Version::V1_2];
const ORDERS: [ByteOrder; 2] = [ByteOrder::Big, ByteOrder::Little];
const OOPS: &str = "IDL:Test/Oops:1.0";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

/// The test object: `add`, `echo` (octets), `sleep` (on the runtime's timer), `oops` and
/// `fault` (user exceptions), `boom` (panics), `lost` (an error that is not a marshal error).
#[derive(Clone, Default)]
struct Object {
    /// Requests whose futures were dropped before they completed.
    dropped: Arc<AtomicUsize>,
}

/// Counts a future dropped before it completed.
struct DropCount(Arc<AtomicUsize>, bool);

impl Drop for DropCount {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Service<Request> for Object {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> BoxFuture {
        let dropped = Arc::clone(&self.dropped);
        Box::pin(async move {
            Ok(match req.operation() {
                b"add" => {
                    let (a, b): (i32, i32) = req.args()?;
                    req.reply(&a.wrapping_add(b))?
                }
                b"echo" => {
                    let data: Bytes = req.args()?;
                    if !data.is_empty() && !req.message().as_ptr_range().contains(&data.as_ptr()) {
                        return Err("the arguments were copied".into());
                    }
                    req.reply(&data[..])?
                }
                b"sleep" => {
                    let (ms, tag): (u32, u32) = req.args()?;
                    let mut guard = DropCount(dropped, false);
                    tokio::time::sleep(Duration::from_millis(u64::from(ms))).await;
                    guard.1 = true;
                    req.reply(&tag)?
                }
                b"oops" => {
                    let code: i32 = req.args()?;
                    req.user_exception(OOPS, &code)?
                }
                b"fault" => {
                    // A member that CDR aligns to 8 after the repository id: decoded in the
                    // wrong alignment, it reads padding as data.
                    let code: i32 = req.args()?;
                    req.user_exception(OOPS, &(i64::from(code) << 40 | 0x55, "why"))?
                }
                b"boom" => panic!("the test object panics on purpose"),
                b"lost" => return Err("something that is not a marshal error".into()),
                _ => req.bad_operation(),
            })
        })
    }
}

fn system_exception(e: CallError) -> String {
    match e {
        CallError::SystemException { repository_id, .. } => repository_id,
        other => panic!("not a system exception: {other:?}"),
    }
}

async fn serve(object: Object, grace: Duration) -> AsyncServerHandle {
    let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    server.add_service("Object", object);
    server.add("Servant", |call: &mut Call<'_>| call.reply(&7u32));
    server.set_grace_period(grace);
    server.spawn().unwrap()
}

/// Every outcome through `c`.
async fn exercise(c: &AsyncClient, what: &str) {
    assert_eq!(
        c.invoke::<_, i32>("add", &(2, 3)).await.unwrap(),
        5,
        "{what}"
    );
    for n in [0usize, 1, 7, 1000, 100_000] {
        let data: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
        let back: Vec<u8> = c.invoke("echo", data.as_slice()).await.unwrap();
        assert_eq!(back, data, "{what}: echo of {n}");
    }
    match c.invoke::<_, ()>("oops", &-9i32).await.unwrap_err() {
        CallError::UserException { repository_id, .. } => assert_eq!(repository_id, OOPS),
        other => panic!("{what}: {other:?}"),
    }
    let e = c.invoke::<_, i32>("add", &1i32).await.unwrap_err();
    assert_eq!(
        system_exception(e),
        "IDL:omg.org/CORBA/MARSHAL:1.0",
        "{what}"
    );
    let e = c.invoke::<_, ()>("lost", &()).await.unwrap_err();
    assert_eq!(
        system_exception(e),
        "IDL:omg.org/CORBA/UNKNOWN:1.0",
        "{what}"
    );
    let e = c.invoke::<_, ()>("boom", &()).await.unwrap_err();
    assert_eq!(
        system_exception(e),
        "IDL:omg.org/CORBA/UNKNOWN:1.0",
        "{what}"
    );
    let e = c.invoke::<_, ()>("nope", &()).await.unwrap_err();
    assert_eq!(
        system_exception(e),
        "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
        "{what}"
    );
    assert_eq!(c.invoke::<_, u32>("sleep", &(5u32, 8u32)).await.unwrap(), 8);
}

#[test]
fn a_service_answers_every_outcome_in_every_version_and_byte_order() {
    let rt = runtime();
    rt.block_on(async {
        let server = serve(Object::default(), Duration::from_secs(1)).await;
        let ior = server.ior("IDL:Test/Object:1.0", b"Object");
        for version in VERSIONS {
            for order in ORDERS {
                let c = AsyncClient::connect(&ior).await.unwrap();
                c.set_version(version);
                c.set_byte_order(order);
                exercise(&c, &format!("GIOP {version}, {order:?}")).await;
            }
        }
        server.shutdown().await;
    });
}

#[test]
fn invoke_reply_keeps_results_and_user_exceptions_in_every_version_and_byte_order() {
    let rt = runtime();
    rt.block_on(async {
        let server = serve(Object::default(), Duration::from_secs(1)).await;
        let ior = server.ior("IDL:Test/Object:1.0", b"Object");
        for version in VERSIONS {
            for order in ORDERS {
                let what = format!("GIOP {version}, {order:?}");
                let c = AsyncClient::connect(&ior).await.unwrap();
                c.set_version(version);
                c.set_byte_order(order);
                // Results borrow from the reply.
                let data: Vec<u8> = (0..1000).map(|i| (i * 3) as u8).collect();
                let reply = c.invoke_reply("echo", data.as_slice()).await.unwrap();
                assert_eq!(reply.order(), order, "{what}: the server answers in kind");
                assert_eq!(reply.user_exception(), None, "{what}");
                let back: &[u8] = reply.results().unwrap();
                assert_eq!(back, data, "{what}");
                assert!(
                    reply.message().as_ptr_range().contains(&back.as_ptr()),
                    "{what}: the results were copied"
                );
                assert!(reply.exception_members::<i64>().is_err(), "{what}");
                // A user exception is an `Ok` whose members decode in the reply's alignment.
                let reply = c.invoke_reply("fault", &-3i32).await.unwrap();
                assert_eq!(reply.user_exception(), Some(OOPS), "{what}");
                let (code, why): (i64, &str) = reply.exception_members().unwrap();
                assert_eq!((code, why), (-3i64 << 40 | 0x55, "why"), "{what}");
                match reply.results::<()>().unwrap_err() {
                    CallError::UserException { repository_id, .. } => {
                        assert_eq!(repository_id, OOPS, "{what}")
                    }
                    other => panic!("{what}: {other:?}"),
                }
                // Other failures are the `Err`.
                let e = c.invoke_reply("nope", &()).await.unwrap_err();
                assert_eq!(
                    system_exception(e),
                    "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
                    "{what}"
                );
            }
        }
        server.shutdown().await;
    });
}

#[test]
fn busy_polling_client_and_server_answer_every_outcome() {
    let rt = runtime();
    rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service("Object", Object::default());
        server.set_busy_poll(Some(Duration::from_micros(200)));
        let server = server.spawn().unwrap();
        let c = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", b"Object"))
            .await
            .unwrap();
        c.set_busy_poll(Some(Duration::from_micros(200)));
        exercise(&c, "busy-polling").await;
        // Replies slower than the budget still come.
        assert_eq!(
            c.invoke::<_, u32>("sleep", &(20u32, 6u32)).await.unwrap(),
            6
        );
        server.shutdown().await;
    });
}

#[test]
fn the_blocking_client_calls_a_service() {
    let rt = runtime();
    let server = rt.block_on(serve(Object::default(), Duration::from_secs(1)));
    let ior = server.ior("IDL:Test/Object:1.0", b"Object");
    std::thread::spawn(move || {
        for version in VERSIONS {
            let mut c = Client::connect(&ior).unwrap();
            c.set_version(version);
            assert_eq!(c.invoke::<_, i32>("add", &(40, 2)).unwrap(), 42);
            let data = vec![5u8; 70_000];
            assert_eq!(
                c.invoke::<_, Vec<u8>>("echo", data.as_slice()).unwrap(),
                data
            );
            let e = c.invoke::<_, i32>("add", &1i32).unwrap_err();
            assert_eq!(system_exception(e), "IDL:omg.org/CORBA/MARSHAL:1.0");
        }
    })
    .join()
    .unwrap();
    rt.block_on(server.shutdown());
}

#[test]
fn requests_on_one_connection_complete_together_and_out_of_order() {
    let rt = runtime();
    rt.block_on(async {
        let server = serve(Object::default(), Duration::from_secs(1)).await;
        let c = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", b"Object"))
            .await
            .unwrap();
        let start = Instant::now();
        // 48 requests that each sleep ~300 ms, the later ones shorter: together, not in turn.
        let calls: Vec<_> = (0..48u32)
            .map(|i| {
                let c = c.clone();
                tokio::spawn(async move { c.invoke::<_, u32>("sleep", &(300 - 5 * i, i)).await })
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

#[test]
fn cancel_request_drops_the_requests_future() {
    let rt = runtime();
    rt.block_on(async {
        let object = Object::default();
        let dropped = Arc::clone(&object.dropped);
        let server = serve(object, Duration::from_secs(1)).await;
        let c = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", b"Object"))
            .await
            .unwrap();
        for i in 0..10u32 {
            // Sent, then abandoned while the server sleeps on it: CancelRequest.
            let args = (30_000u32, i);
            let call = c.invoke::<_, u32>("sleep", &args);
            assert!(tokio::time::timeout(Duration::from_millis(20), call)
                .await
                .is_err());
        }
        let start = Instant::now();
        while dropped.load(Ordering::SeqCst) < 10 && start.elapsed() < Duration::from_secs(5) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(dropped.load(Ordering::SeqCst), 10, "futures left running");
        assert_eq!(c.pending_calls(), 0);
        assert_eq!(c.invoke::<_, i32>("add", &(1, 1)).await.unwrap(), 2);
        server.shutdown().await;
    });
}

#[test]
fn locate_request_finds_services_and_servants() {
    let rt = runtime();
    rt.block_on(async {
        let server = serve(Object::default(), Duration::from_secs(1)).await;
        for version in VERSIONS {
            for (key, status) in [
                (&b"Object"[..], LocateStatus::ObjectHere),
                (b"Servant", LocateStatus::ObjectHere),
                (b"Nobody", LocateStatus::UnknownObject),
            ] {
                let c = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", key))
                    .await
                    .unwrap();
                c.set_version(version);
                assert_eq!(c.locate().await.unwrap(), status, "GIOP {version}");
            }
        }
        let servant = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", b"Servant"))
            .await
            .unwrap();
        assert_eq!(servant.invoke::<_, u32>("any", &()).await.unwrap(), 7);
        server.shutdown().await;
    });
}

#[test]
fn shutdown_answers_requests_within_the_grace_period_and_drops_the_rest() {
    let rt = runtime();
    rt.block_on(async {
        let object = Object::default();
        let dropped = Arc::clone(&object.dropped);
        let server = serve(object, Duration::from_millis(300)).await;
        let c = AsyncClient::connect(&server.ior("IDL:Test/Object:1.0", b"Object"))
            .await
            .unwrap();
        let quick = tokio::spawn({
            let c = c.clone();
            async move { c.invoke::<_, u32>("sleep", &(100u32, 1u32)).await }
        });
        let stuck = tokio::spawn({
            let c = c.clone();
            async move { c.invoke::<_, u32>("sleep", &(60_000u32, 2u32)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert_eq!(quick.await.unwrap().unwrap(), 1);
        // Dropped at the end of the grace period; CloseConnection makes the client resend
        // it, to a server that is gone.
        let e = stuck.await.unwrap().unwrap_err();
        assert!(matches!(e, CallError::Transport(_)), "{e:?}");
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn a_service_that_is_not_ready_is_answered_transient() {
    #[derive(Clone)]
    struct Never;
    impl Service<Request> for Never {
        type Response = Response;
        type Error = BoxError;
        type Future = std::future::Ready<Result<Response, BoxError>>;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
            Poll::Ready(Err("overloaded".into()))
        }
        fn call(&mut self, req: Request) -> Self::Future {
            std::future::ready(Ok(req.bad_operation()))
        }
    }
    let rt = runtime();
    rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service("Never", Never);
        let server = server.spawn().unwrap();
        let c = AsyncClient::connect(&server.ior("IDL:Never:1.0", b"Never"))
            .await
            .unwrap();
        let e = c.invoke::<_, ()>("x", &()).await.unwrap_err();
        assert_eq!(system_exception(e), "IDL:omg.org/CORBA/TRANSIENT:1.0");
        server.shutdown().await;
    });
}

#[test]
fn a_client_that_reads_nothing_holds_shutdown_no_longer_than_the_grace_period() {
    use std::io::Write;
    use wire_iiop::giop::{encode_message, RequestHeader, TargetAddress, RESPONSE_EXPECTED};
    let rt = runtime();
    rt.block_on(async {
        let server = serve(Object::default(), Duration::from_millis(500)).await;
        let addr = server.local_addr();
        // 64 requests for 256 KiB echoes each, whose replies are never read: the socket's
        // buffers fill and the writer blocks.
        let data = vec![1u8; 256 * 1024];
        let mut wire = Vec::new();
        for id in 0..64 {
            let head = RequestHeader {
                request_id: id,
                response_flags: RESPONSE_EXPECTED,
                target: TargetAddress::Key(b"Object"),
                operation: b"echo",
                service_contexts: vec![],
                principal: b"",
            };
            encode_message(
                &mut wire,
                Version::V1_2,
                ByteOrder::Big,
                &head,
                data.as_slice(),
            )
            .unwrap();
        }
        let silent = std::thread::spawn(move || {
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            // Writes until the server stops reading (its writer is stuck), then holds on.
            let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
            let _ = s.write_all(&wire);
            std::thread::sleep(Duration::from_millis(2500));
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
        let start = Instant::now();
        server.shutdown().await;
        let took = start.elapsed();
        assert!(took < Duration::from_millis(1500), "{took:?}");
        silent.join().unwrap();
    });
}
