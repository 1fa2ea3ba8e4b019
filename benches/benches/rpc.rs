//! ONC RPC round trips over loopback TCP: marshal's `rpc::Client` calling marshal's
//! `rpc::Server` (serving `workloads::flick_rpc::serve`), beside libtirpc calling libtirpc
//! (rpcgen-peer's in-process `CRpcClient` and the rpcgen-generated `flick_server` process),
//! with the `ECHO_INTS`, `ECHO_RECTS` and `ECHO_DIRENTS` procedures of `FLICK_PROG`
//! (`peers/rpcgen/xdr/flick.x`) at 64 B – 4 MiB of payload (the 64 B directory-entry case
//! holds one 256-byte entry). Both clients decode the reply into fresh values (the C client
//! then `xdr_free`s them); both servers decode the arguments and encode them back (the Rust
//! server borrows directory-entry names from the request, rpcgen's allocates them). libtirpc
//! streams records larger than its 256 KiB buffers as several fragments; marshal sends one
//! fragment. A third id, `rust-c`, is the Rust client calling the C server. Groups are
//! `rpc/roundtrip/<workload>` with ids `<client>-<server>/<size>`; throughput is the encoded
//! argument array of one call (the reply is as large).
//!
//! `rpc/null/pipelined` counts `FLICK_NULL` calls over one TCP connection: the Rust client
//! sends `k` calls (`send_call`) before reading the `k` replies (`recv_reply`), so one
//! iteration is `k` round trips sharing the wire (ids `rust-rust/<k>` and `rust-c/<k>`,
//! throughput `k` elements); libtirpc cannot pipeline, so `c-c/1` is one call per iteration.
//!
//! Small calls measure wake-ups more than stubs: on a VM whose idle vCPUs halt (cpuidle
//! `haltpoll`), waking the peer's thread on the other vCPU can cost ~60 µs, so a 64 B round
//! trip takes ~15 µs on a busy machine and ~75 µs on an idle one. `taskset -c 0` keeps both
//! ends on one vCPU (~15 µs) at the price of the large calls' parallelism.
//!
//! Run: `cargo bench -p marshal-benches --bench rpc` (short:
//! `-- --warm-up-time 1 --measurement-time 2`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use marshal::rpc::{Client, Server, ServerHandle};
use marshal::xdr::{Decode, Encode};
use marshal_benches::{c_dirent, Case};
use rpcgen_peer::{CDirents, CInts, CRects, CRpcClient, CServer};
use workloads::flick_rpc::{
    self, ECHO_DIRENTS, ECHO_INTS, ECHO_RECTS, FLICK_NULL, FLICK_PROG, FLICK_VERS,
};
use workloads::{dirents, ints, rects, DirEntry, Rect, DIRENT_BYTES};

/// Payload sizes of the round trips: 64 B, 4 KiB, 64 KiB, 1 MiB, 4 MiB.
const SIZES: [usize; 5] = [64, 4 << 10, 64 << 10, 1 << 20, 4 << 20];
/// Calls in flight per iteration of `rpc/null/pipelined`.
const IN_FLIGHT: [usize; 3] = [1, 4, 16];

/// The C client's call of one procedure with its arguments (C copies built beforehand);
/// returns the element count of the reply.
type CCall = Box<dyn Fn(&mut CRpcClient) -> usize>;

/// The three client–server pairs, connected once for the whole run.
struct Peers {
    rust_server: ServerHandle,
    _c_server: CServer,
    rust_rust: Client,
    rust_c: Client,
    c_c: CRpcClient,
}

impl Peers {
    fn start() -> Peers {
        let mut server = Server::bind_tcp("127.0.0.1:0").expect("bind");
        server.add(FLICK_PROG, FLICK_VERS, flick_rpc::serve);
        let rust_server = server.spawn().expect("spawn");
        let addr = rust_server.tcp_addr().expect("serves TCP");
        let c_server = CServer::spawn();
        let port = c_server.tcp_port();
        let connect = |addr| Client::connect_tcp(addr, FLICK_PROG, FLICK_VERS).expect("connect");
        Peers {
            rust_rust: connect(addr),
            rust_c: connect(([127, 0, 0, 1], port).into()),
            c_c: CRpcClient::connect(port),
            rust_server,
            _c_server: c_server,
        }
    }
}

/// One workload's `rpc/roundtrip/<name>` group: every pair at every size.
fn roundtrip<T>(
    c: &mut Criterion,
    peers: &mut Peers,
    name: &str,
    procedure: u32,
    case: impl Fn(usize) -> Case<T>,
    c_call: impl Fn(&Case<T>) -> CCall,
) where
    T: Encode + for<'de> Decode<'de>,
{
    let mut g = c.benchmark_group(format!("rpc/roundtrip/{name}"));
    for size in SIZES {
        let case = case(size);
        let n = case.values.len();
        let label = &case.label;
        g.throughput(Throughput::Bytes(case.encoded.len() as u64));
        // A 4 MiB echo takes milliseconds: criterion's least sample count keeps it short.
        g.sample_size(if size >= 1 << 20 { 10 } else { 20 });
        for (id, client) in [
            ("rust-rust", &mut peers.rust_rust),
            ("rust-c", &mut peers.rust_c),
        ] {
            g.bench_function(BenchmarkId::new(id, label), |b| {
                b.iter(|| {
                    let r: Vec<T> = client.call(procedure, black_box(&case.values)).unwrap();
                    assert_eq!(r.len(), n);
                    r
                })
            });
        }
        let call = c_call(&case);
        g.bench_function(BenchmarkId::new("c-c", label), |b| {
            b.iter(|| assert_eq!(call(black_box(&mut peers.c_c)), n))
        });
    }
    g.finish();
}

fn roundtrips(c: &mut Criterion) {
    let mut peers = Peers::start();
    roundtrip(
        c,
        &mut peers,
        "ints",
        ECHO_INTS,
        |size| Case::new(size, 4, ints),
        |case| {
            let args = CInts::new(&case.values);
            Box::new(move |clnt| clnt.echo_ints(&args))
        },
    );
    roundtrip::<Rect>(
        c,
        &mut peers,
        "rects",
        ECHO_RECTS,
        |size| Case::new(size, 16, rects),
        |case| {
            let words: Vec<[i32; 4]> = case
                .values
                .iter()
                .map(|r| [r.a.x, r.a.y, r.b.x, r.b.y])
                .collect();
            let args = CRects::new(&words);
            Box::new(move |clnt| clnt.echo_rects(&args))
        },
    );
    roundtrip::<DirEntry>(
        c,
        &mut peers,
        "dirents",
        ECHO_DIRENTS,
        |size| Case::new(size, DIRENT_BYTES, dirents),
        |case| {
            let vals: Vec<_> = case.values.iter().map(c_dirent).collect();
            let args = CDirents::new(&vals);
            Box::new(move |clnt| clnt.echo_dirents(&args))
        },
    );

    let mut g = c.benchmark_group("rpc/null/pipelined");
    g.sample_size(20);
    let mut xids = Vec::with_capacity(IN_FLIGHT[IN_FLIGHT.len() - 1]);
    for k in IN_FLIGHT {
        g.throughput(Throughput::Elements(k as u64));
        for (id, client) in [
            ("rust-rust", &mut peers.rust_rust),
            ("rust-c", &mut peers.rust_c),
        ] {
            g.bench_function(BenchmarkId::new(id, k), |b| {
                b.iter(|| {
                    xids.clear();
                    for _ in 0..k {
                        xids.push(client.send_call(FLICK_NULL, &()).unwrap());
                    }
                    for &xid in &xids {
                        client.recv_reply::<()>(xid).unwrap();
                    }
                })
            });
        }
        if k == 1 {
            let clnt = &mut peers.c_c;
            g.bench_function(BenchmarkId::new("c-c", k), |b| b.iter(|| clnt.null()));
        }
    }
    g.finish();

    let Peers {
        rust_server,
        rust_rust,
        rust_c,
        c_c,
        _c_server,
    } = peers;
    drop((rust_rust, rust_c, c_c));
    rust_server.shutdown();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = roundtrips
}
criterion_main!(benches);
