//! GIOP round trips over loopback TCP: a Rust client calling a Rust server (marshal's
//! `giop::Client` and `giop::Server`) beside omniORB calling omniORB (the in-process
//! `OmniClient` and the `omni-server` process), at 64 B, 64 KiB and 1 MiB of payload, as
//! `sequence<octet>` (`echo_octets`) and `sequence<long>` (`echo_ints`). Both sides speak
//! GIOP 1.2 in the host's byte order and decode the reply into a fresh sequence. A third id,
//! `rust-omniorb`, is the Rust client calling the omniORB server. Groups are
//! `giop/roundtrip/<payload>`; throughput is the payload bytes of one call.
//!
//! The groups run twice: as the scheduler places the threads (`giop/roundtrip/..`), and with
//! every thread of both pairs, the `omni-server` process included, held to one CPU
//! (`giop/roundtrip_one_cpu/..`, through [`OneCpu`]). On a VM whose idle vCPUs halt
//! (cpuidle `haltpoll` without polling), each wake-up of a thread on the other vCPU costs
//! tens of microseconds, two per round trip, for either implementation; on one CPU the round
//! trip costs what the two ends and the kernel do.
//!
//! Run: `cargo bench -p marshal-benches --bench giop`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use marshal::giop::{Client, Ior, Server};
use marshal_benches::one_cpu::OneCpu;
use omniorb_peer::{OmniClient, OmniServer};
use workloads::bench_object::{self, BENCH_ID};
use workloads::size_label;

const SIZES: [usize; 3] = [64, 64 << 10, 1 << 20];

fn roundtrips(c: &mut Criterion) {
    pairs(c, "giop/roundtrip");
    let pin = OneCpu::pin().expect("pin to one CPU");
    pairs(c, "giop/roundtrip_one_cpu");
    drop(pin);
}

/// Both pairs' servers and clients, started by the calling thread (so that they inherit its
/// CPU mask), and the octet and long groups under `prefix`.
fn pairs(c: &mut Criterion, prefix: &str) {
    let mut server = Server::bind("127.0.0.1:0").expect("bind");
    server.add("Bench", bench_object::servant());
    let rust_server = server.spawn().expect("spawn");
    let omni_server = OmniServer::start(&[]);
    let mut rust_rust = Client::connect(&rust_server.ior(BENCH_ID, b"Bench")).expect("connect");
    let omni_ior = Ior::parse(omni_server.ior()).expect("omniORB IOR");
    let mut rust_omni = Client::connect(&omni_ior).expect("connect to omniORB");
    let mut omni_omni = OmniClient::connect(omni_server.ior()).expect("omniORB connects");

    let mut g = c.benchmark_group(format!("{prefix}/octets"));
    for size in SIZES {
        let label = size_label(size);
        let v: Vec<u8> = (0..size).map(|i| i as u8).collect();
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(BenchmarkId::new("rust-rust", &label), |b| {
            b.iter(|| {
                let r: Vec<u8> = rust_rust.invoke("echo_octets", black_box(&v)).unwrap();
                assert_eq!(r.len(), size);
                r
            })
        });
        g.bench_function(BenchmarkId::new("omniorb-omniorb", &label), |b| {
            b.iter_custom(|iters| omni_omni.echo_octets(size, iters))
        });
        g.bench_function(BenchmarkId::new("rust-omniorb", &label), |b| {
            b.iter(|| {
                let r: Vec<u8> = rust_omni.invoke("echo_octets", black_box(&v)).unwrap();
                assert_eq!(r.len(), size);
                r
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group(format!("{prefix}/ints"));
    for size in SIZES {
        let label = size_label(size);
        let v = workloads::ints(size / 4);
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(BenchmarkId::new("rust-rust", &label), |b| {
            b.iter(|| {
                let r: Vec<i32> = rust_rust.invoke("echo_ints", black_box(&v)).unwrap();
                assert_eq!(r.len(), v.len());
                r
            })
        });
        g.bench_function(BenchmarkId::new("omniorb-omniorb", &label), |b| {
            b.iter_custom(|iters| omni_omni.echo_ints(size / 4, iters))
        });
        g.bench_function(BenchmarkId::new("rust-omniorb", &label), |b| {
            b.iter(|| {
                let r: Vec<i32> = rust_omni.invoke("echo_ints", black_box(&v)).unwrap();
                assert_eq!(r.len(), v.len());
                r
            })
        });
    }
    g.finish();

    drop(omni_omni);
    drop(rust_omni);
    omni_server.stop();
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
