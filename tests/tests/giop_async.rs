//! The async GIOP client and server (feature `tokio`): the async client calls every operation
//! of omniORB's `Flick::Bench` server (GIOP 1.0, 1.1 and 1.2, requests in both byte orders,
//! raw `invoke`), omniORB's checking client calls the async server serving the generated
//! skeleton and the generated async service (by IOR and corbaloc, GIOP 1.0–1.2), one client
//! is shared by 32 tasks, calls are dropped at random points (each sends `CancelRequest`, and
//! the connection stays usable), `CloseConnection` fails waiting calls and leads to a new
//! connection, and the async server answers garbage, fragments, `LocateRequest` and shutdown
//! as the blocking one does.

use std::borrow::Cow;
use std::future::Future;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use marshal::cdr::ByteOrder;
use marshal::giop::{
    AsyncClient, AsyncServer, AsyncServerHandle, Call, CallError, Completion, Ior, Version,
};
use omniorb_peer::{assert_omni_client_passes, OmniServer};
use workloads::bench_object::{
    self, sample_prims, Color, Point, Prims, Rect, Shape, BENCH_ID, OOPS_ID,
};
use workloads::{dirents, ints, rects, DirEntry};

// `invoke` decodes owned results (`for<'de> Decode<'de>`): owned mirrors of the generated
// types that borrow strings (`Cow`), with the same CDR encoding.

/// `Flick::Shape` with an owned `sval`.
#[derive(marshal::Marshal, Debug, Clone, PartialEq)]
enum OwnedShape {
    #[marshal(tag = 0)]
    V0(i32),
    #[marshal(tag = 1)]
    V1(String),
    #[marshal(default)]
    Default(i32, Rect),
}

impl From<&Shape<'_>> for OwnedShape {
    fn from(s: &Shape<'_>) -> Self {
        match s {
            Shape::V0(v) => OwnedShape::V0(*v),
            Shape::V1(s) => OwnedShape::V1(s.to_string()),
            Shape::Default(d, r) => OwnedShape::Default(*d, r.clone()),
        }
    }
}

/// `Flick::Prims` with an owned `str`.
#[derive(marshal::Marshal, Debug, Clone, PartialEq)]
struct OwnedPrims {
    o: u8,
    b: bool,
    c: i8,
    s: i16,
    us: u16,
    l: i32,
    ul: u32,
    ll: i64,
    ull: u64,
    f: f32,
    d: f64,
    str: String,
    col: Color,
}

impl From<&Prims<'_>> for OwnedPrims {
    fn from(p: &Prims<'_>) -> Self {
        OwnedPrims {
            o: p.o,
            b: p.b,
            c: p.c,
            s: p.s,
            us: p.us,
            l: p.l,
            ul: p.ul,
            ll: p.ll,
            ull: p.ull,
            f: p.f,
            d: p.d,
            str: p.str.to_string(),
            col: p.col,
        }
    }
}

/// A runtime with two worker threads: calls and the connection's tasks really run at once.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .expect("a tokio runtime")
}

fn block_on<F: Future>(f: F) -> F::Output {
    runtime().block_on(f)
}

fn idl_rects(n: usize) -> Vec<Rect> {
    rects(n)
        .iter()
        .map(|r| Rect {
            a: Point { x: r.a.x, y: r.a.y },
            b: Point { x: r.b.x, y: r.b.y },
        })
        .collect()
}

fn prims() -> Vec<Prims<'static>> {
    let mut v = sample_prims();
    v.push(Prims {
        d: f64::MIN_POSITIVE,
        str: "é ü ß: UTF-8 both ways".into(),
        ..v[1].clone()
    });
    v
}

/// Every operation of `Flick::Bench` through raw `invoke`, checking results.
async fn exercise(c: &AsyncClient, what: &str) {
    for n in [0, 1, 5, 1000, 100_000] {
        let v = ints(n);
        let got: Vec<i32> = c
            .invoke("echo_ints", &v)
            .await
            .unwrap_or_else(|e| panic!("{what}: echo_ints {n}: {e}"));
        assert_eq!(got, v, "{what}: echo_ints {n}");
        let sum: i64 = c.invoke("sum_ints", &v).await.unwrap();
        assert_eq!(
            sum,
            v.iter().map(|&x| i64::from(x)).sum::<i64>(),
            "{what}: sum_ints {n}"
        );
    }
    for n in [0, 1, 3000] {
        let v = idl_rects(n);
        let got: Vec<Rect> = c.invoke("echo_rects", &v).await.unwrap();
        assert_eq!(got, v, "{what}: echo_rects {n}");
    }
    for n in [0, 1, 300] {
        let mut v: Vec<DirEntry> = dirents(n)
            .into_iter()
            .enumerate()
            .map(|(i, d)| DirEntry {
                name: d.name[..i % 9].to_string(),
                ..d
            })
            .collect();
        if let Some(d) = v.first_mut() {
            d.name = "n".repeat(255);
        }
        let got: Vec<DirEntry> = c.invoke("echo_dirents", &v).await.unwrap();
        assert_eq!(got, v, "{what}: echo_dirents {n}");
    }
    for n in [0, 1, 3, 256, 100_000, 1 << 20] {
        let v: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let got: Vec<u8> = c.invoke("echo_octets", &v).await.unwrap();
        assert!(got == v, "{what}: echo_octets {n}");
    }
    let r = idl_rects(1)[0].clone();
    for s in [
        Shape::V0(-7),
        Shape::V1(Cow::Borrowed("")),
        Shape::V1(Cow::Owned("q".repeat(1000))),
        Shape::Default(7, r.clone()),
        Shape::Default(i32::MIN, r),
    ] {
        let got: OwnedShape = c.invoke("echo_shape", &s).await.unwrap();
        assert_eq!(got, OwnedShape::from(&s), "{what}: echo_shape");
    }
    let version = c.version();
    for p in prims() {
        if !p.str.is_ascii() && version < Version::V1_1 {
            // GIOP 1.0 has no code set negotiation: chars are ISO 8859-1.
            continue;
        }
        if !(p.c as u8).is_ascii() && version >= Version::V1_1 {
            // With UTF-8 negotiated, a `char` must be one UTF-8 code unit: ASCII.
            continue;
        }
        let got: OwnedPrims = c
            .invoke("echo_prims", &p)
            .await
            .unwrap_or_else(|e| panic!("{what}: echo_prims {:?}: {e}", p.str));
        assert_eq!(got, OwnedPrims::from(&p), "{what}: echo_prims");
    }
    c.invoke::<i32, ()>("fail", &0).await.unwrap();
    for code in [42, -7, i32::MIN] {
        match c.invoke::<i32, ()>("fail", &code).await {
            Err(CallError::UserException {
                repository_id,
                body,
            }) => {
                assert_eq!(repository_id, OOPS_ID, "{what}");
                let why = format!("failed {code}");
                assert!(
                    body.windows(why.len()).any(|w| w == why.as_bytes()),
                    "{what}: Oops carries {why:?}"
                );
            }
            other => panic!("{what}: fail({code}) gave {other:?}"),
        }
    }
    for (a, s) in [(5, "abc"), (0, ""), (-3, "x"), (1 << 29, "0123")] {
        let (r, b, s2): (i32, i32, String) = c.invoke("mix", &(a, s)).await.unwrap();
        assert_eq!((r, b, s2), (a + 1, 2 * a, format!("{s}!")), "{what}: mix");
    }
    match c.invoke::<(), ()>("no_such_operation", &()).await {
        Err(CallError::SystemException {
            repository_id,
            completed,
            ..
        }) => {
            assert_eq!(
                repository_id, "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
                "{what}"
            );
            assert_eq!(completed, Completion::No, "{what}");
        }
        other => panic!("{what}: unknown operation gave {other:?}"),
    }
    assert_eq!(c.pending_calls(), 0, "{what}");
}

#[test]
fn async_client_calls_omniorb_server_in_every_version_and_byte_order() {
    let rt = runtime();
    for server_giop in ["1.0", "1.1", "1.2"] {
        let server = OmniServer::start(&["--giop", server_giop]);
        let ior = Ior::parse(server.ior()).expect("omniORB's IOR parses");
        for order in [ByteOrder::Big, ByteOrder::Little] {
            rt.block_on(async {
                let client = AsyncClient::connect(&ior).await.expect("connects");
                assert_eq!(client.version().to_string(), server_giop);
                client.set_byte_order(order);
                assert_eq!(client.byte_order(), order);
                exercise(
                    &client,
                    &format!("omniORB GIOP {server_giop}, {order:?} requests"),
                )
                .await;
            });
        }
        server.stop();
    }
}

#[test]
fn async_client_reaches_omniorb_by_corbaloc_and_shares_the_connection() {
    let server = OmniServer::start(&[]);
    block_on(async {
        let ior = Ior::parse(&server.corbaloc().replace("corbaloc::", "corbaloc::1.1@")).unwrap();
        let client = AsyncClient::connect(&ior).await.unwrap();
        assert_eq!(client.version(), Version::V1_1);
        exercise(&client, "corbaloc 1.1").await;
        // omniORB's replies to calls in flight together on one connection.
        let tasks: Vec<_> = (0..8)
            .map(|t| {
                let c = client.clone();
                tokio::spawn(async move {
                    for i in 0..50 {
                        let v = ints(t * 50 + i);
                        let got: Vec<i32> = c.invoke("echo_ints", &v).await.unwrap();
                        assert_eq!(got, v);
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(client.pending_calls(), 0);
    });
    server.stop();
}

/// An async server of the generated skeleton, on `rt`.
fn bench_server(rt: &tokio::runtime::Runtime) -> AsyncServerHandle {
    rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add("Bench", bench_object::servant());
        server.spawn().unwrap()
    })
}

/// An async server, on `rt`, of the generated async servant (`bench_object::service()`).
fn bench_service_server(rt: &tokio::runtime::Runtime) -> AsyncServerHandle {
    rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service("Bench", bench_object::service());
        server.spawn().unwrap()
    })
}

#[test]
fn omniorb_client_calls_generated_async_service() {
    let rt = runtime();
    let handle = bench_service_server(&rt);
    let ior = handle.ior(BENCH_ID, b"Bench").to_string();
    assert_omni_client_passes(&ior, &[], "async service, IOR");
    assert_omni_client_passes(&ior, &["--giop", "1.1"], "async service, GIOP 1.1");
    assert_omni_client_passes(&ior, &["--giop", "1.0"], "async service, GIOP 1.0");
    let url = format!("corbaloc::{}/Bench", handle.local_addr());
    assert_omni_client_passes(&url, &[], "async service, corbaloc");
    assert_omni_client_passes(
        &url,
        &["--giop", "1.0"],
        "async service, corbaloc, GIOP 1.0",
    );
    // The async client too, in every version and byte order.
    let ior = handle.ior(BENCH_ID, b"Bench");
    rt.block_on(async {
        for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
            for order in [ByteOrder::Big, ByteOrder::Little] {
                let client = AsyncClient::connect(&ior).await.unwrap();
                client.set_version(version);
                client.set_byte_order(order);
                exercise(
                    &client,
                    &format!("async service, GIOP {version}, {order:?}"),
                )
                .await;
            }
        }
    });
    rt.block_on(handle.shutdown());
}

#[test]
fn omniorb_client_calls_async_server() {
    let rt = runtime();
    let handle = bench_server(&rt);
    // The server's tasks run on the runtime's workers while omniORB's client runs here.
    let ior = handle.ior(BENCH_ID, b"Bench").to_string();
    assert_omni_client_passes(&ior, &[], "async server, IOR");
    assert_omni_client_passes(&ior, &["--giop", "1.1"], "async server, GIOP 1.1");
    assert_omni_client_passes(&ior, &["--giop", "1.0"], "async server, GIOP 1.0");
    let url = format!("corbaloc::{}/Bench", handle.local_addr());
    assert_omni_client_passes(&url, &[], "async server, corbaloc");
    assert_omni_client_passes(&url, &["--giop", "1.0"], "async server, corbaloc, GIOP 1.0");
    rt.block_on(handle.shutdown());
}

#[test]
fn async_client_calls_async_server_in_every_version_and_byte_order() {
    let rt = runtime();
    let handle = bench_server(&rt);
    let ior = handle.ior(BENCH_ID, b"Bench");
    rt.block_on(async {
        for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
            for order in [ByteOrder::Big, ByteOrder::Little] {
                let client = AsyncClient::connect(&ior).await.unwrap();
                assert_eq!(client.version(), Version::V1_2, "the IOR's profile");
                client.set_version(version);
                client.set_byte_order(order);
                exercise(&client, &format!("async server, GIOP {version}, {order:?}")).await;
            }
        }
    });
    rt.block_on(handle.shutdown());
}

#[test]
fn one_client_shared_by_32_tasks() {
    let rt = runtime();
    let handle = bench_server(&rt);
    let ior = handle.ior(BENCH_ID, b"Bench");
    let checked = Arc::new(AtomicU32::new(0));
    rt.block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        let tasks: Vec<_> = (0..32u32)
            .map(|t| {
                let c = client.clone();
                let checked = Arc::clone(&checked);
                tokio::spawn(async move {
                    for i in 0..100u32 {
                        // Different sizes, so that replies overtake one another.
                        let n =
                            ((t * 37 + i * 11) % 64) as usize * if i % 10 == 0 { 500 } else { 1 };
                        let v: Vec<i32> = (0..n as i32)
                            .map(|x| x ^ (t << 16) as i32 ^ i as i32)
                            .collect();
                        match i % 3 {
                            0 => {
                                let got: Vec<i32> = c.invoke("echo_ints", &v).await.unwrap();
                                assert_eq!(got, v, "task {t} call {i}");
                            }
                            1 => {
                                let got: i64 = c.invoke("sum_ints", &v).await.unwrap();
                                assert_eq!(got, v.iter().map(|&x| i64::from(x)).sum::<i64>());
                            }
                            _ => {
                                let a = (t * 1000 + i) as i32;
                                let s = format!("t{t}i{i}");
                                let (r, b, s2): (i32, i32, String) =
                                    c.invoke("mix", &(a, s.as_str())).await.unwrap();
                                assert_eq!((r, b, s2), (a + 1, 2 * a, format!("{s}!")));
                            }
                        }
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("a task's calls all checked");
        }
        assert_eq!(client.pending_calls(), 0);
    });
    assert_eq!(checked.load(Ordering::Relaxed), 3200);
    rt.block_on(handle.shutdown());
}

/// A small pseudo-random generator (xorshift), seeded per task.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn dropped_calls_are_cancelled_and_the_connection_stays_usable() {
    let rt = runtime();
    let handle = bench_server(&rt);
    let ior = handle.ior(BENCH_ID, b"Bench");
    rt.block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        let tasks: Vec<_> = (0..16u64)
            .map(|t| {
                let c = client.clone();
                tokio::spawn(async move {
                    let mut rng = 0x9e37_79b9_7f4a_7c15 ^ (t + 1);
                    let (mut done, mut dropped) = (0, 0);
                    for i in 0..150 {
                        let n = (next(&mut rng) % 20_000) as usize;
                        let v = ints(n);
                        let call = c.invoke::<Vec<i32>, Vec<i32>>("echo_ints", &v);
                        // Dropped before it is polled, while its request is queued or being
                        // written, or while the reply is on its way; or awaited.
                        let limit = Duration::from_micros(next(&mut rng) % 400);
                        match next(&mut rng) % 4 {
                            0 => drop(call),
                            1 | 2 => match tokio::time::timeout(limit, call).await {
                                Ok(r) => {
                                    assert_eq!(r.unwrap(), v, "task {t} call {i}");
                                    done += 1;
                                }
                                Err(_) => dropped += 1,
                            },
                            _ => {
                                assert_eq!(call.await.unwrap(), v, "task {t} call {i}");
                                done += 1;
                            }
                        }
                    }
                    (done, dropped)
                })
            })
            .collect();
        let (mut done, mut dropped) = (0, 0);
        for t in tasks {
            let (d, x) = t.await.unwrap();
            done += d;
            dropped += x;
        }
        assert!(
            done > 0 && dropped > 0,
            "{done} done, {dropped} dropped mid-call"
        );
        // Every dropped call unregistered itself; late replies were discarded.
        assert_eq!(client.pending_calls(), 0);
        for n in [0, 7, 100_000] {
            let v = ints(n);
            let got: Vec<i32> = client.invoke("echo_ints", &v).await.unwrap();
            assert_eq!(got, v);
        }
        assert_eq!(client.pending_calls(), 0);
    });
    rt.block_on(handle.shutdown());
}

/// A server that answers the first request of each connection with `CloseConnection`; the
/// count of connections it accepted.
fn closing_server() -> (std::net::SocketAddr, Arc<AtomicU32>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicU32::new(0));
    let count = Arc::clone(&accepted);
    // Runs until the test process ends.
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let mut s = s.unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                read_message(&mut s);
                // GIOP 1.2, big-endian, CloseConnection (5), no body.
                s.write_all(b"GIOP\x01\x02\x00\x05\0\0\0\0").unwrap();
                // The close comes from the message, not the end of the stream.
                std::thread::sleep(Duration::from_millis(200));
            });
        }
    });
    (addr, accepted)
}

#[test]
fn close_connection_resends_once_then_fails_waiting_calls() {
    let (addr, accepted) = closing_server();
    let ior = Ior::new(BENCH_ID, &addr.ip().to_string(), addr.port(), b"Bench");
    block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        let calls: Vec<_> = (0..4)
            .map(|i| {
                let c = client.clone();
                tokio::spawn(
                    async move { c.invoke::<Vec<i32>, Vec<i32>>("echo_ints", &ints(i)).await },
                )
            })
            .collect();
        for call in calls {
            match call.await.unwrap() {
                Err(CallError::Transport(e)) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::ConnectionAborted, "{e}");
                    assert!(e.to_string().contains("CloseConnection"), "{e}");
                }
                other => panic!("a call closed on twice gave {other:?}"),
            }
        }
        assert_eq!(client.pending_calls(), 0);
    });
    assert!(
        accepted.load(Ordering::SeqCst) >= 2,
        "the calls were sent again"
    );
}

#[test]
fn async_server_shutdown_sends_close_connection_and_the_client_reconnects() {
    let rt = runtime();
    let first = bench_server(&rt);
    let addr = first.local_addr();
    let ior = first.ior(BENCH_ID, b"Bench");
    let client = rt.block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        assert_eq!(
            client
                .invoke::<Vec<i32>, i64>("sum_ints", &vec![1, 2])
                .await
                .unwrap(),
            3
        );
        first.shutdown().await;
        client
    });
    // A new server at the same address: the next call connects to it.
    let second = rt.block_on(async {
        let mut server = AsyncServer::bind(addr).await.unwrap();
        server.add("Bench", bench_object::servant());
        server.spawn().unwrap()
    });
    rt.block_on(async {
        let got: i64 = client.invoke("sum_ints", &vec![4, 5]).await.unwrap();
        assert_eq!(got, 9);
        assert_eq!(client.pending_calls(), 0);
    });
    rt.block_on(second.shutdown());
}

#[test]
fn async_server_answers_garbage_with_message_error_and_serves_fragments() {
    let rt = runtime();
    let handle = bench_server(&rt);
    let addr = handle.local_addr();
    // Garbage: MessageError (GIOP 1.0, the version before any message), then the close.
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(b"HTTP/1.1 200 OK\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    assert_eq!(answer, b"GIOP\x01\x00\x00\x06\0\0\0\0");

    // A GIOP 1.2 little-endian request in two fragments, and a LocateRequest.
    let mut request = Vec::new();
    marshal::giop::encode_message(
        &mut request,
        Version::V1_2,
        ByteOrder::Little,
        &marshal::giop::RequestHeader {
            request_id: 9,
            response_flags: marshal::giop::RESPONSE_EXPECTED,
            target: marshal::giop::TargetAddress::Key(b"Bench"),
            operation: b"sum_ints",
            service_contexts: Vec::new(),
            principal: &[],
        },
        &vec![1i32, 2, 3],
    )
    .unwrap();
    let cut = 48; // a multiple of 8 after the header
    let mut first = request[..cut].to_vec();
    first[6] |= 2; // more fragments
    first[8..12].copy_from_slice(&((cut - 12) as u32).to_le_bytes());
    let mut second = b"GIOP\x01\x02\x01\x07".to_vec();
    second.extend_from_slice(&((request.len() - cut + 4) as u32).to_le_bytes());
    second.extend_from_slice(&9u32.to_le_bytes());
    second.extend_from_slice(&request[cut..]);
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(&first).unwrap();
    s.write_all(&second).unwrap();
    let reply = read_message(&mut s);
    let msg = marshal::giop::Message::parse(&reply).unwrap();
    match &msg.kind {
        marshal::giop::MessageKind::Reply(h) => {
            assert_eq!(h.request_id, 9);
            assert_eq!(msg.header.order, ByteOrder::Little);
            assert_eq!(msg.body().decode::<i64>().unwrap(), 6);
        }
        other => panic!("a reply, not {other:?}"),
    }
    let mut locate = Vec::new();
    marshal::giop::encode_message(
        &mut locate,
        Version::V1_2,
        ByteOrder::Big,
        &marshal::giop::LocateRequestHeader {
            request_id: 10,
            target: marshal::giop::TargetAddress::Key(b"Bench"),
        },
        &(),
    )
    .unwrap();
    s.write_all(&locate).unwrap();
    let reply = read_message(&mut s);
    let msg = marshal::giop::Message::parse(&reply).unwrap();
    match &msg.kind {
        marshal::giop::MessageKind::LocateReply(h) => {
            assert_eq!(h.request_id, 10);
            assert_eq!(h.status, marshal::giop::LocateStatus::ObjectHere);
        }
        other => panic!("a locate reply, not {other:?}"),
    }
    // Shutdown: CloseConnection to the connected client, then the end.
    rt.block_on(handle.shutdown());
    let close = read_message(&mut s);
    assert_eq!(&close[..8], b"GIOP\x01\x02\x00\x05");
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
}

/// Reads one whole GIOP message.
fn read_message(s: &mut std::net::TcpStream) -> Vec<u8> {
    let mut m = vec![0; 12];
    s.read_exact(&mut m).unwrap();
    let size = if m[6] & 1 == 1 {
        u32::from_le_bytes(m[8..12].try_into().unwrap())
    } else {
        u32::from_be_bytes(m[8..12].try_into().unwrap())
    };
    m.resize(12 + size as usize, 0);
    s.read_exact(&mut m[12..]).unwrap();
    m
}

#[test]
fn location_forward_retargets_the_async_client() {
    let rt = runtime();
    let real = bench_server(&rt);
    let real_ior = real.ior(BENCH_ID, b"Bench");
    let forwarder = rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add("Old", move |call: &mut Call<'_>| call.forward(&real_ior));
        server.spawn().unwrap()
    });
    rt.block_on(async {
        let client = AsyncClient::connect(&forwarder.ior(BENCH_ID, b"Old"))
            .await
            .unwrap();
        let got: i64 = client.invoke("sum_ints", &vec![1, 2, 3]).await.unwrap();
        assert_eq!(got, 6);
        let got: i64 = client.invoke("sum_ints", &vec![4]).await.unwrap();
        assert_eq!(got, 4);
        forwarder.shutdown().await;
        real.shutdown().await;
    });
}

/// The ids of the requests and of the `CancelRequest`s a server received.
type Received = (Vec<u32>, Vec<u32>);

/// A server that reads requests and never answers: it returns what came before the client
/// closed the connection.
fn silent_server() -> (std::net::SocketAddr, std::thread::JoinHandle<Received>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let thread = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let (mut requests, mut cancels) = (Vec::new(), Vec::new());
        loop {
            let mut head = [0; 12];
            if s.read_exact(&mut head).is_err() {
                break;
            }
            let size = if head[6] & 1 == 1 {
                u32::from_le_bytes(head[8..12].try_into().unwrap())
            } else {
                u32::from_be_bytes(head[8..12].try_into().unwrap())
            };
            let mut m = head.to_vec();
            m.resize(12 + size as usize, 0);
            s.read_exact(&mut m[12..]).unwrap();
            match marshal::giop::Message::parse(&m).unwrap().kind {
                marshal::giop::MessageKind::Request(h) => requests.push(h.request_id),
                marshal::giop::MessageKind::CancelRequest(h) => cancels.push(h.request_id),
                other => panic!("unexpected {other:?}"),
            }
        }
        (requests, cancels)
    });
    (addr, thread)
}

#[test]
fn dropped_calls_send_cancel_request() {
    let (addr, server) = silent_server();
    let ior = Ior::new(BENCH_ID, &addr.ip().to_string(), addr.port(), b"Bench");
    block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        for n in 0..20 {
            let v = ints(n * 1000);
            let call = client.invoke::<Vec<i32>, Vec<i32>>("echo_ints", &v);
            let r = tokio::time::timeout(Duration::from_millis(2), call).await;
            assert!(r.is_err(), "the server never answers");
            assert_eq!(
                client.pending_calls(),
                0,
                "call {n} unregistered when dropped"
            );
        }
        // Calls aborted at whatever point their tasks reached.
        let tasks: Vec<_> = (0..10)
            .map(|n| {
                let c = client.clone();
                tokio::spawn(async move { c.invoke::<Vec<i32>, ()>("echo_ints", &ints(n)).await })
            })
            .collect();
        for _ in 0..5000 {
            if client.pending_calls() == 10 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(client.pending_calls(), 10, "the calls are all waiting");
        for t in tasks {
            t.abort();
            assert!(t.await.unwrap_err().is_cancelled());
        }
        assert_eq!(client.pending_calls(), 0);
        // Closing the last handle closes the connection once the queue is written.
        drop(client);
        for _ in 0..5000 {
            if server.is_finished() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    });
    let (mut requests, mut cancels) = server.join().unwrap();
    assert_eq!(requests.len(), 30);
    requests.sort_unstable();
    cancels.sort_unstable();
    assert_eq!(requests, cancels, "every request was cancelled");
}

#[test]
fn async_server_caps_connections() {
    let rt = runtime();
    let handle = rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add("Bench", bench_object::servant());
        server.set_max_connections(1);
        server.spawn().unwrap()
    });
    let ior = handle.ior(BENCH_ID, b"Bench");
    rt.block_on(async {
        let a = AsyncClient::connect(&ior).await.unwrap();
        assert_eq!(
            a.invoke::<Vec<i32>, i64>("sum_ints", &vec![1])
                .await
                .unwrap(),
            1
        );
        // Beyond the cap: accepted, then closed at once.
        let b = AsyncClient::connect(&ior).await.unwrap();
        match b.invoke::<Vec<i32>, i64>("sum_ints", &vec![2]).await {
            Err(CallError::Transport(_)) => {}
            other => panic!("a connection beyond the cap gave {other:?}"),
        }
        assert_eq!(b.pending_calls(), 0);
        // Once the first connection ends, the next call of `b` connects and is served.
        drop(a);
        let mut served = None;
        for _ in 0..500 {
            match b.invoke::<Vec<i32>, i64>("sum_ints", &vec![2, 3]).await {
                Ok(sum) => {
                    served = Some(sum);
                    break;
                }
                Err(CallError::Transport(_)) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(served, Some(5));
    });
    rt.block_on(handle.shutdown());
}

#[test]
fn the_client_handle_is_clone_send_sync() {
    fn shareable<T: Clone + Send + Sync + 'static>() {}
    shareable::<AsyncClient>();
    fn send<T: Send>(_: &T) {}
    // Calls can be spawned: their futures are `Send`.
    let rt = runtime();
    let handle = bench_server(&rt);
    let ior = handle.ior(BENCH_ID, b"Bench");
    rt.block_on(async {
        let client = AsyncClient::connect(&ior).await.unwrap();
        let v = vec![1, 2];
        let call = client.invoke::<Vec<i32>, i64>("sum_ints", &v);
        send(&call);
        assert_eq!(call.await.unwrap(), 3);
    });
    rt.block_on(handle.shutdown());
}

/// A server that answers the first request with `answer`, then keeps the connection open a
/// moment.
fn answering_server(answer: &'static [u8]) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        read_message(&mut s);
        s.write_all(answer).unwrap();
        std::thread::sleep(Duration::from_millis(300));
    });
    addr
}

#[test]
fn hostile_replies_fail_calls_with_protocol_errors() {
    for (answer, what) in [
        (&b"HTTP/1.1 400 Bad Request\r\n\r\n"[..], "not GIOP"),
        // A Reply claiming 4 GiB - 16 bytes: refused by the cap before anything is reserved.
        (&b"GIOP\x01\x02\x00\x01\xff\xff\xff\xf0"[..], "over the cap"),
        // A Reply too short for its header.
        (
            &b"GIOP\x01\x02\x00\x01\0\0\0\x02\0\0"[..],
            "truncated reply header",
        ),
        (&b"GIOP\x01\x02\x00\x06\0\0\0\0"[..], "MessageError"),
        // A Request, which a server must not send.
        (&b"GIOP\x01\x02\x00\x00\0\0\0\0"[..], "a request"),
    ] {
        let addr = answering_server(answer);
        let ior = Ior::new(BENCH_ID, &addr.ip().to_string(), addr.port(), b"Bench");
        block_on(async {
            let client = AsyncClient::connect(&ior).await.unwrap();
            match client.invoke::<Vec<i32>, i64>("sum_ints", &vec![1]).await {
                Err(CallError::Protocol(why)) => assert!(!why.is_empty(), "{what}"),
                other => panic!("{what}: {other:?}"),
            }
            assert_eq!(client.pending_calls(), 0, "{what}");
        });
    }
}
