//! Async against blocking RPC over loopback TCP, with tonic (gRPC over HTTP/2, prost
//! messages) as the async alternative a Rust user would otherwise pick. All in one run, so
//! that the ratios between ids hold.
//!
//! - `rpc/async_roundtrip/<case>`: ONC RPC round trips at 64 B, 64 KiB and 1 MiB of payload.
//!   Ids `async/<size>` (`rpc::AsyncClient` calling `rpc::AsyncServer`), `blocking/<size>`
//!   (`rpc::Client` calling `rpc::Server`) and `tonic/<size>` (a tonic client calling a tonic
//!   server, [`marshal_benches::tonic_peer`]). Case `ints` echoes an `int` array
//!   (`ECHO_INTS` of `FLICK_PROG`; for tonic a `repeated sfixed32`, which protobuf packs as
//!   4 bytes a value, so the payload is as large as XDR's, where a `repeated int32` would be
//!   varints of 1 to 10 bytes depending on the values); case `octets` echoes an opaque byte
//!   array (`ECHO_OCTETS` of the bench's own [`OCTETS_PROG`], since `FLICK_PROG` has none;
//!   for tonic a `bytes` field). Both sides decode the reply into a fresh `Vec`.
//!   `blocking-busy-poll/<size>` is `blocking/<size>` with client and server busy-polling
//!   (`set_busy_poll`, 200 µs) before their reads block.
//! - `giop/async_roundtrip/<case>`: the same payloads over GIOP 1.2, `sequence<octet>` and
//!   `sequence<long>` (`echo_octets` and `echo_ints` of `workloads::bench_object`), ids
//!   `async/<size>` (`giop::AsyncClient` calling `giop::AsyncServer`), `blocking/<size>` and
//!   `blocking-busy-poll/<size>`.
//! - `rpc/null/in_flight`: `FLICK_NULL` calls per second with `k` calls in flight on one
//!   connection. `async/<k>` (k = 1, 16, 256) makes `k` concurrent calls on one shared
//!   `AsyncClient` and awaits them in a `futures_util` `FuturesUnordered` within the one task,
//!   which polls only the calls that were woken. A task per call costs a spawn and a wake-up
//!   across tasks each (in a quick measure, ~1.7 times the CPU time at k = 16); `join_all`
//!   polls every call on each wake-up (up to 30 calls) and cost as much for marshal's client,
//!   more for tonic's. `blocking-pipelined/<k>` (k = 1, 16) sends `k` calls (`send_call`)
//!   before reading their replies (`recv_reply`), as `benches/rpc.rs` does. `tonic/<k>` makes
//!   `k` concurrent unary calls of an empty message on one tonic channel (one HTTP/2
//!   connection; each call on a clone of the client, as tonic requires), also in a
//!   `FuturesUnordered`. `async-1-thread/<k>` is `async/<k>` with client and server on a
//!   current-thread runtime driven by the bench thread: a thread-per-core deployment, where
//!   no thread waits to be woken by another. `async-busy-poll/<k>` is `async/<k>` with the
//!   client's and the server's connections busy-polling for 50 µs before they wait for their
//!   sockets (`set_busy_poll`). Throughput is `k` elements.
//!
//! Round-trip throughput is the XDR encoding of the array (a 4-byte count, then the values),
//! which is also its CDR encoding; protobuf's is within a few bytes of it.
//!
//! # How the async ids are timed
//!
//! One multi-thread tokio runtime with 2 workers, built once, runs every async server
//! (marshal's ONC RPC and GIOP ones, tonic's) and every async client's connection tasks. The
//! `async` and `tonic` ids time their calls inside a task spawned on that runtime: the task
//! makes the sample's calls one after the other and measures them itself
//! (`Bencher::iter_custom`), and the bench thread only waits for it, once per sample. That
//! is how an async program calls, from its tasks. Driving each call from the bench thread
//! (`b.iter(|| rt.block_on(call))`; criterion's `to_async` also polls from the bench thread)
//! would add to every call the wake-up of a thread outside the runtime (the reply's waker
//! unparking the bench thread) that an async program does not pay, and a third busy thread
//! on the two vCPUs: in a quick measure of the process's CPU time it took 2.3 (tonic) to 3.5
//! (marshal) times the CPU time per 64 B call of the same calls made from a task. The
//! `blocking` ids call from the bench thread as `benches/rpc.rs` does, to servers that serve
//! each connection on a thread of its own: that is how blocking clients and servers run.
//!
//! The async ONC RPC server serves `tower` services (the one marshal-build generates from
//! `flick.x`'s async server trait, and the bench's own for [`OCTETS_PROG`]); the async GIOP
//! server serves the one generated from `flick.idl`'s `Flick::Bench`.
//!
//! Run: `cargo bench -p marshal-benches --bench async_rpc` (short:
//! `-- --warm-up-time 1 --measurement-time 2`).

use std::future::Future;
use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use futures_util::stream::{FuturesUnordered, StreamExt};
use marshal::giop;
use marshal::rpc::{self, Call};
use marshal_benches::tonic_peer::{self, EchoMessage, TonicClient, TonicServer};
use marshal_benches::Case;
use tokio::runtime::Runtime;
use workloads::bench_object::{self, BENCH_ID};
use workloads::flick_rpc::{self, ECHO_INTS, FLICK_NULL, FLICK_PROG, FLICK_VERS};

/// Payload sizes of the round trips: 64 B, 64 KiB, 1 MiB.
const SIZES: [usize; 3] = [64, 64 << 10, 1 << 20];
/// Calls in flight per iteration of `rpc/null/in_flight` (async and tonic).
const IN_FLIGHT: [usize; 3] = [1, 16, 256];
/// The busy-poll budget of the `*-busy-poll` ids.
const BUSY_POLL: Duration = Duration::from_micros(200);
/// Calls in flight per iteration of the blocking client's pipeline.
const PIPELINED: [usize; 2] = [1, 16];

/// The bench's own program (`FLICK_PROG` has no octet echo):
/// `program OCTETS_PROG { version OCTETS_VERS { void NULL(void) = 0;
/// opaque_array ECHO_OCTETS(opaque_array) = 1; } = 1; }` with `typedef opaque opaque_array<>`.
const OCTETS_PROG: u32 = 0x2000_4f43;
/// Its version.
const OCTETS_VERS: u32 = 1;
/// Its echo procedure.
const ECHO_OCTETS: u32 = 1;

/// [`OCTETS_PROG`]: echoes the opaque array, borrowed from the call.
fn octets_program(call: &mut Call<'_>) -> Result<(), marshal::Error> {
    match call.procedure() {
        0 => call.reply(&()),
        ECHO_OCTETS => {
            let v: &[u8] = call.args()?;
            call.reply(v)
        }
        _ => call.proc_unavail(),
    }
}

/// [`OCTETS_PROG`] as a `tower` service for the async server: echoes the opaque array, a
/// slice of the request.
#[derive(Clone, Copy)]
struct OctetsService;

impl rpc::Service<rpc::Request> for OctetsService {
    type Response = rpc::Response;
    type Error = rpc::BoxError;
    type Future = std::future::Ready<Result<rpc::Response, rpc::BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), rpc::BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: rpc::Request) -> Self::Future {
        std::future::ready(match req.procedure() {
            0 => rpc::Response::success(&()).map_err(Into::into),
            ECHO_OCTETS => match req.args::<Bytes>() {
                Ok(v) => rpc::Response::success(&v).map_err(Into::into),
                Err(e) => Err(e.into()),
            },
            _ => Ok(rpc::Response::proc_unavail()),
        })
    }
}

/// The async ONC RPC server of `FLICK_PROG` (the service marshal-build generates from
/// `flick.x`) and [`OCTETS_PROG`], on the current runtime.
async fn async_rpc_server() -> rpc::AsyncServerHandle {
    async_rpc_server_polling(None).await
}

/// [`async_rpc_server`], its connections busy-polling for `busy_poll`.
async fn async_rpc_server_polling(busy_poll: Option<Duration>) -> rpc::AsyncServerHandle {
    let mut server = rpc::AsyncServer::bind_tcp("127.0.0.1:0")
        .await
        .expect("bind");
    server.set_busy_poll(busy_poll);
    server.add_service(FLICK_PROG, FLICK_VERS, flick_rpc::service());
    server.add_service(OCTETS_PROG, OCTETS_VERS, OctetsService);
    server.spawn().expect("spawn")
}

/// The blocking ONC RPC server of the same programs, its connections busy-polling for
/// `busy_poll`.
fn blocking_rpc_server(busy_poll: Option<Duration>) -> rpc::ServerHandle {
    let mut server = rpc::Server::bind_tcp("127.0.0.1:0").expect("bind");
    server.set_busy_poll(busy_poll);
    server.add(FLICK_PROG, FLICK_VERS, flick_rpc::serve);
    server.add(OCTETS_PROG, OCTETS_VERS, octets_program);
    server.spawn().expect("spawn")
}

/// The async GIOP server of `workloads::bench_object` (key `Bench`; the `tower` service of
/// its generated async servant), on the current runtime.
async fn async_giop_server() -> giop::AsyncServerHandle {
    let mut server = giop::AsyncServer::bind("127.0.0.1:0").await.expect("bind");
    server.add_service("Bench", bench_object::service());
    server.spawn().expect("spawn")
}

/// The blocking GIOP server of the same object, its connections busy-polling for
/// `busy_poll`.
fn blocking_giop_server(busy_poll: Option<Duration>) -> giop::ServerHandle {
    let mut server = giop::Server::bind("127.0.0.1:0").expect("bind");
    server.set_busy_poll(busy_poll);
    server.add("Bench", bench_object::servant());
    server.spawn().expect("spawn")
}

/// The tonic server, on the current runtime.
async fn tonic_server() -> TonicServer {
    TonicServer::start().await.expect("tonic server")
}

/// Every server and client of the run, started once. The async ones live on `rt`.
struct Peers {
    rt: Runtime,
    async_rpc_server: rpc::AsyncServerHandle,
    blocking_rpc_server: rpc::ServerHandle,
    busy_rpc_server: rpc::ServerHandle,
    async_giop_server: giop::AsyncServerHandle,
    blocking_giop_server: giop::ServerHandle,
    busy_giop_server: giop::ServerHandle,
    tonic_server: TonicServer,
}

impl Peers {
    fn start() -> Peers {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let (async_rpc_server, async_giop_server, tonic_server) = rt.block_on(async {
            (
                async_rpc_server().await,
                async_giop_server().await,
                tonic_server().await,
            )
        });
        Peers {
            rt,
            async_rpc_server,
            blocking_rpc_server: blocking_rpc_server(None),
            busy_rpc_server: blocking_rpc_server(Some(BUSY_POLL)),
            async_giop_server,
            blocking_giop_server: blocking_giop_server(None),
            busy_giop_server: blocking_giop_server(Some(BUSY_POLL)),
            tonic_server,
        }
    }

    fn async_rpc_addr(&self) -> SocketAddr {
        self.async_rpc_server.tcp_addr().expect("serves TCP")
    }

    fn blocking_rpc_addr(&self) -> SocketAddr {
        self.blocking_rpc_server.tcp_addr().expect("serves TCP")
    }

    /// An async ONC RPC client of `program` (version 1 for both programs).
    fn async_rpc_client(&self, program: u32) -> rpc::AsyncClient {
        let addr = self.async_rpc_addr();
        self.rt
            .block_on(rpc::AsyncClient::connect_tcp(addr, program, 1))
            .expect("connect")
    }

    fn blocking_rpc_client(&self, program: u32) -> rpc::Client {
        rpc::Client::connect_tcp(self.blocking_rpc_addr(), program, 1).expect("connect")
    }

    /// A busy-polling blocking client of the busy-polling blocking server.
    fn busy_rpc_client(&self, program: u32) -> rpc::Client {
        let addr = self.busy_rpc_server.tcp_addr().expect("serves TCP");
        let mut c = rpc::Client::connect_tcp(addr, program, 1).expect("connect");
        c.set_busy_poll(Some(BUSY_POLL));
        c
    }

    /// The blocking GIOP clients of the plain and the busy-polling blocking server.
    fn blocking_giop_clients(&self) -> [(&'static str, giop::Client); 2] {
        let plain = self.blocking_giop_server.ior(BENCH_ID, b"Bench");
        let busy = self.busy_giop_server.ior(BENCH_ID, b"Bench");
        let mut busy = giop::Client::connect(&busy).expect("connect");
        busy.set_busy_poll(Some(BUSY_POLL));
        [
            ("blocking", giop::Client::connect(&plain).expect("connect")),
            ("blocking-busy-poll", busy),
        ]
    }

    fn tonic_client(&self) -> TonicClient {
        self.rt
            .block_on(TonicClient::connect(self.tonic_server.addr()))
            .expect("connect to tonic")
    }

    fn stop(self) {
        let Peers {
            rt,
            async_rpc_server,
            blocking_rpc_server,
            busy_rpc_server,
            async_giop_server,
            blocking_giop_server,
            busy_giop_server,
            tonic_server,
        } = self;
        rt.block_on(async {
            async_rpc_server.shutdown().await;
            async_giop_server.shutdown().await;
            tonic_server.shutdown().await;
        });
        blocking_rpc_server.shutdown();
        busy_rpc_server.shutdown();
        blocking_giop_server.shutdown();
        busy_giop_server.shutdown();
    }
}

/// Runs `sample` as a task on `rt` and returns the time it measured (see the module docs).
fn on_runtime(rt: &Runtime, sample: impl Future<Output = Duration> + Send + 'static) -> Duration {
    rt.block_on(rt.spawn(sample)).expect("the sample's task")
}

/// The octets of a round trip of `size` bytes.
fn octets(size: usize) -> Arc<Case<u8>> {
    Arc::new(Case::new(size, 1, |n| (0..n).map(|i| i as u8).collect()))
}

/// The ints of a round trip of `size` bytes.
fn ints(size: usize) -> Arc<Case<i32>> {
    Arc::new(Case::new(size, 4, workloads::ints))
}

/// What a round trip echoes: values with an XDR and a CDR encoding, of arrays in both.
trait Value:
    marshal::xdr::Encode
    + for<'de> marshal::xdr::Decode<'de>
    + marshal::cdr::Encode
    + for<'de> marshal::cdr::Decode<'de>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl Value for u8 {}
impl Value for i32 {}

/// The payload of a round trip of each size.
type CaseOf<T> = fn(usize) -> Arc<Case<T>>;

/// The async caller of a group: an ONC RPC client and the procedure to call, or a GIOP
/// client and the operation (cloned per sample).
#[derive(Clone)]
enum AsyncCaller {
    Rpc(rpc::AsyncClient, u32),
    Giop(giop::AsyncClient, &'static str),
}

impl AsyncCaller {
    /// Echoes `values`; the reply's length.
    async fn echo<T: Value>(&self, values: &Vec<T>) -> usize {
        let r: Vec<T> = match self {
            AsyncCaller::Rpc(c, procedure) => c.call(*procedure, values).await.unwrap(),
            AsyncCaller::Giop(c, operation) => c.invoke(operation, values).await.unwrap(),
        };
        r.len()
    }
}

/// A blocking caller of a group, as [`AsyncCaller`].
enum BlockingCaller {
    Rpc(rpc::Client, u32),
    Giop(giop::Client, &'static str),
}

impl BlockingCaller {
    /// Echoes `values`; the reply's length.
    fn echo<T: Value>(&mut self, values: &Vec<T>) -> usize {
        let r: Vec<T> = match self {
            BlockingCaller::Rpc(c, procedure) => c.call(*procedure, values).unwrap(),
            BlockingCaller::Giop(c, operation) => c.invoke(operation, values).unwrap(),
        };
        r.len()
    }
}

/// One round-trip group, `<format>/async_roundtrip/<case>`: `case`'s values at every size,
/// echoed by the async caller, each blocking caller, and tonic (as an `M`) if given.
fn roundtrip_group<T: Value, M: EchoMessage<Value = T>>(
    c: &mut Criterion,
    peers: &Peers,
    (name, case): (&str, CaseOf<T>),
    async_caller: AsyncCaller,
    mut blocking: [(&'static str, BlockingCaller); 2],
    tonic: Option<&TonicClient>,
) {
    let mut g = c.benchmark_group(name);
    for size in SIZES {
        let p = case(size);
        let (n, label) = (p.values.len(), p.label.clone());
        g.throughput(Throughput::Bytes(p.encoded.len() as u64));
        g.sample_size(if size >= 1 << 20 { 10 } else { 20 });
        g.bench_function(BenchmarkId::new("async", &label), |b| {
            b.iter_custom(|iters| {
                let (caller, case) = (async_caller.clone(), Arc::clone(&p));
                on_runtime(&peers.rt, async move {
                    let start = Instant::now();
                    for _ in 0..iters {
                        assert_eq!(caller.echo(black_box(&case.values)).await, n);
                    }
                    start.elapsed()
                })
            })
        });
        for (id, caller) in &mut blocking {
            g.bench_function(BenchmarkId::new(*id, &label), |b| {
                b.iter(|| assert_eq!(caller.echo(black_box(&p.values)), n))
            });
        }
        if let Some(tonic) = tonic {
            g.bench_function(BenchmarkId::new("tonic", &label), |b| {
                b.iter_custom(|iters| {
                    let (mut client, case) = (tonic.clone(), Arc::clone(&p));
                    on_runtime(&peers.rt, async move {
                        // The reply, equal to the request, is the next request: no copy
                        // per call.
                        let mut msg = M::of(case.values.clone());
                        let start = Instant::now();
                        for _ in 0..iters {
                            msg = client.echo(black_box(msg)).await.unwrap();
                            assert_eq!(msg.count(), n);
                        }
                        start.elapsed()
                    })
                })
            });
        }
    }
    g.finish();
}

/// `rpc/async_roundtrip/octets` and `rpc/async_roundtrip/ints`.
fn rpc_roundtrips(c: &mut Criterion, peers: &Peers) {
    let tonic = peers.tonic_client();
    let callers = |program, procedure| {
        let blocking = [
            ("blocking", peers.blocking_rpc_client(program)),
            ("blocking-busy-poll", peers.busy_rpc_client(program)),
        ];
        (
            AsyncCaller::Rpc(peers.async_rpc_client(program), procedure),
            blocking.map(|(id, c)| (id, BlockingCaller::Rpc(c, procedure))),
        )
    };
    let (caller, blocking) = callers(OCTETS_PROG, ECHO_OCTETS);
    let group = ("rpc/async_roundtrip/octets", octets as CaseOf<_>);
    roundtrip_group::<_, tonic_peer::Octets>(c, peers, group, caller, blocking, Some(&tonic));
    let (caller, blocking) = callers(FLICK_PROG, ECHO_INTS);
    let group = ("rpc/async_roundtrip/ints", ints as CaseOf<_>);
    roundtrip_group::<_, tonic_peer::Ints>(c, peers, group, caller, blocking, Some(&tonic));
}

/// `giop/async_roundtrip/octets` and `giop/async_roundtrip/ints`.
fn giop_roundtrips(c: &mut Criterion, peers: &Peers) {
    let async_ior = peers.async_giop_server.ior(BENCH_ID, b"Bench");
    let client = peers
        .rt
        .block_on(giop::AsyncClient::connect(&async_ior))
        .expect("connect");
    let callers = |operation| {
        (
            AsyncCaller::Giop(client.clone(), operation),
            peers
                .blocking_giop_clients()
                .map(|(id, c)| (id, BlockingCaller::Giop(c, operation))),
        )
    };
    let (caller, blocking) = callers("echo_octets");
    let group = ("giop/async_roundtrip/octets", octets as CaseOf<_>);
    roundtrip_group::<_, tonic_peer::Octets>(c, peers, group, caller, blocking, None);
    let (caller, blocking) = callers("echo_ints");
    let group = ("giop/async_roundtrip/ints", ints as CaseOf<_>);
    roundtrip_group::<_, tonic_peer::Ints>(c, peers, group, caller, blocking, None);
}

/// `k` concurrent NULL calls through `client`, `iters` times: the time they took.
async fn null_calls(client: rpc::AsyncClient, k: usize, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        let mut calls: FuturesUnordered<_> = (0..k)
            .map(|_| client.call::<_, ()>(FLICK_NULL, &()))
            .collect();
        while let Some(r) = calls.next().await {
            r.unwrap();
        }
    }
    start.elapsed()
}

/// `rpc/null/in_flight`.
fn null_in_flight(c: &mut Criterion, peers: &Peers) {
    // The same server and client on a current-thread runtime: client, server and their
    // tasks on the bench thread, which no other thread ever has to wake.
    let one = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let (one_server, one_client) = one.block_on(async {
        let server = async_rpc_server().await;
        let addr = server.tcp_addr().expect("serves TCP");
        let client = rpc::AsyncClient::connect_tcp(addr, FLICK_PROG, FLICK_VERS).await;
        (server, client.expect("connect"))
    });
    let client = peers.async_rpc_client(FLICK_PROG);
    // Client and server busy-polling (50 µs) on the 2-worker runtime.
    let (busy_server, busy_client) = peers.rt.block_on(async {
        let server = async_rpc_server_polling(Some(BUSY_POLL)).await;
        let addr = server.tcp_addr().expect("serves TCP");
        let client = rpc::AsyncClient::connect_tcp(addr, FLICK_PROG, FLICK_VERS).await;
        let client = client.expect("connect");
        client.set_busy_poll(Some(BUSY_POLL));
        (server, client)
    });
    let mut blocking = peers.blocking_rpc_client(FLICK_PROG);
    let tonic = peers.tonic_client();
    let mut g = c.benchmark_group("rpc/null/in_flight");
    g.sample_size(20);
    let mut xids = Vec::with_capacity(PIPELINED[PIPELINED.len() - 1]);
    for k in IN_FLIGHT {
        g.throughput(Throughput::Elements(k as u64));
        g.bench_function(BenchmarkId::new("async", k), |b| {
            b.iter_custom(|iters| on_runtime(&peers.rt, null_calls(client.clone(), k, iters)))
        });
        g.bench_function(BenchmarkId::new("async-busy-poll", k), |b| {
            b.iter_custom(|iters| on_runtime(&peers.rt, null_calls(busy_client.clone(), k, iters)))
        });
        g.bench_function(BenchmarkId::new("async-1-thread", k), |b| {
            b.iter_custom(|iters| one.block_on(null_calls(one_client.clone(), k, iters)))
        });
        if PIPELINED.contains(&k) {
            g.bench_function(BenchmarkId::new("blocking-pipelined", k), |b| {
                b.iter(|| {
                    xids.clear();
                    for _ in 0..k {
                        xids.push(blocking.send_call(FLICK_NULL, &()).unwrap());
                    }
                    for &xid in &xids {
                        blocking.recv_reply::<()>(xid).unwrap();
                    }
                })
            });
        }
        g.bench_function(BenchmarkId::new("tonic", k), |b| {
            b.iter_custom(|iters| {
                let tonic = tonic.clone();
                on_runtime(&peers.rt, async move {
                    let start = Instant::now();
                    for _ in 0..iters {
                        let mut calls: FuturesUnordered<_> = (0..k)
                            .map(|_| {
                                let mut client = tonic.clone();
                                async move { client.null().await }
                            })
                            .collect();
                        while let Some(r) = calls.next().await {
                            r.unwrap();
                        }
                    }
                    start.elapsed()
                })
            })
        });
    }
    g.finish();
    one.block_on(one_server.shutdown());
    peers.rt.block_on(busy_server.shutdown());
}

fn benches(c: &mut Criterion) {
    let peers = Peers::start();
    rpc_roundtrips(c, &peers);
    giop_roundtrips(c, &peers);
    null_in_flight(c, &peers);
    peers.stop();
}

criterion_group! {
    name = async_rpc;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(async_rpc);
