//! The demo: encodes and decodes Flick's three workloads with marshal's XDR and CDR codecs and
//! prints throughput beside `memcpy` of the same bytes; then makes GIOP calls over loopback
//! TCP between a Rust client and a Rust server and prints round-trip throughput.
//!
//! `cargo run --release --bin demo`
//!
//! Timing: each operation repeats until 20 ms have passed; the median of 7 such runs is shown.
//! For the benchmark suite with competitors (rpcgen, serde-xdr, omniORB), see `benches/`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use marshal::cdr::ByteOrder;
use marshal::giop::{CallError, Client, Server};
use workloads::bench_object::{BenchServant, Oops, BENCH_ID};
use workloads::{dirents, ints, rects, size_label, DirEntry, Rect, DIRENT_BYTES};

/// Median bytes per second of `f` processing `bytes` bytes per call.
fn throughput(bytes: usize, mut f: impl FnMut()) -> f64 {
    let mut rates = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed() < Duration::from_millis(20) {
            f();
            calls += 1;
        }
        rates.push(bytes as f64 * calls as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

fn gib(rate: f64) -> String {
    format!("{:7.2} GiB/s", rate / (1u64 << 30) as f64)
}

/// Encode and decode throughput of one codec.
#[derive(Clone, Copy)]
struct Rates {
    encode: f64,
    decode: f64,
}

struct Row {
    workload: &'static str,
    size: String,
    memcpy: f64,
    xdr: Rates,
    cdr: Rates,
}

/// A value's encodings and decoders in one wire format.
trait Codec<T> {
    fn encode_into(values: &[T], out: &mut Vec<u8>);
    fn decode(bytes: &[u8]) -> Vec<T>;
}

struct Xdr;
struct Cdr;

impl<T: marshal::xdr::Encode + for<'de> marshal::xdr::Decode<'de>> Codec<T> for Xdr {
    fn encode_into(values: &[T], out: &mut Vec<u8>) {
        marshal::xdr::encode_into(values, out).expect("encode");
    }
    fn decode(bytes: &[u8]) -> Vec<T> {
        marshal::xdr::from_slice(bytes).expect("decode")
    }
}

/// CDR in the host's byte order (what a sender picks: receivers make right).
impl<T: marshal::cdr::Encode + for<'de> marshal::cdr::Decode<'de>> Codec<T> for Cdr {
    fn encode_into(values: &[T], out: &mut Vec<u8>) {
        marshal::cdr::encode_into(values, ByteOrder::NATIVE, out).expect("encode");
    }
    fn decode(bytes: &[u8]) -> Vec<T> {
        marshal::cdr::from_slice(bytes, ByteOrder::NATIVE).expect("decode")
    }
}

fn rates<T: PartialEq + std::fmt::Debug, C: Codec<T>>(values: &[T]) -> (usize, f64, Rates) {
    let mut encoded = Vec::new();
    C::encode_into(values, &mut encoded);
    assert_eq!(C::decode(&encoded), values, "round trip");
    let n = encoded.len();
    let mut out = Vec::with_capacity(n);
    let memcpy = throughput(n, || {
        out.clear();
        out.extend_from_slice(black_box(&encoded));
        black_box(&out);
    });
    let encode = throughput(n, || {
        out.clear();
        C::encode_into(black_box(values), &mut out);
        black_box(&out);
    });
    let decode = throughput(n, || {
        black_box(C::decode(black_box(&encoded)));
    });
    (n, memcpy, Rates { encode, decode })
}

fn measure<T>(workload: &'static str, size: usize, values: Vec<T>) -> Row
where
    T: PartialEq + std::fmt::Debug,
    Xdr: Codec<T>,
    Cdr: Codec<T>,
{
    let (_, memcpy, xdr) = rates::<T, Xdr>(&values);
    let (_, _, cdr) = rates::<T, Cdr>(&values);
    Row {
        workload,
        size: size_label(size),
        memcpy,
        xdr,
        cdr,
    }
}

/// A GIOP server and client on loopback: a few calls, then round-trip throughput.
fn giop_demo() -> Result<(), CallError> {
    let mut server = Server::bind("127.0.0.1:0")?;
    server.add("Bench", BenchServant);
    let handle = server.spawn()?;
    let ior = handle.ior(BENCH_ID, b"Bench");
    println!("\nGIOP 1.2 over loopback TCP: a Rust client calls a Rust server");
    println!("server object: {}", ior.to_corbaloc().unwrap_or_default());
    let mut client = Client::connect(&ior)?;
    let sum: i64 = client.invoke("sum_ints", &vec![i32::MAX, i32::MAX, 2])?;
    println!("  sum_ints([i32::MAX, i32::MAX, 2]) = {sum}");
    let (r, b, s): (i32, i32, String) = client.invoke("mix", &(20, "in-out"))?;
    println!("  mix(a = 20, inout s = \"in-out\") = {r}, out b = {b}, s = {s:?}");
    match client.invoke::<i32, ()>("fail", &42) {
        Err(CallError::UserException {
            repository_id,
            body,
        }) => {
            let oops: Oops = client.decode_user_exception(&body)?;
            println!("  fail(42) raised {repository_id} {oops:?}");
        }
        other => println!("  fail(42) unexpectedly gave {other:?}"),
    }
    client.set_byte_order(ByteOrder::Big);
    let echoed: Vec<i32> = client.invoke("echo_ints", &ints(4))?;
    println!("  echo_ints with a big-endian request: {echoed:?}");
    client.set_byte_order(ByteOrder::NATIVE);

    println!(
        "\n{:<22} {:>6}  {:>13}  {:>10}",
        "round trip", "size", "payload", "calls/s"
    );
    for size in [64usize, 64 << 10, 1 << 20] {
        let octets: Vec<u8> = (0..size).map(|i| i as u8).collect();
        let rate = throughput(size, || {
            let back: Vec<u8> = client.invoke("echo_octets", &octets).expect("echo_octets");
            assert_eq!(back.len(), size);
        });
        println!(
            "{:<22} {:>6}  {:>9.1} MiB/s  {:>10.0}",
            "echo_octets",
            size_label(size),
            rate / (1u64 << 20) as f64,
            rate / size as f64
        );
    }
    handle.shutdown();
    Ok(())
}

fn main() {
    println!("marshal demo: XDR (RFC 4506) and CDR (CORBA GIOP, host byte order) encode/decode of Flick's workloads");
    println!("each value is checked to round-trip; throughput is encoded bytes per second (median of 7 runs)\n");
    println!(
        "{:<8} {:>6}  {:>13}  {:>13} {:>13}  {:>13} {:>13}",
        "workload", "size", "memcpy", "XDR encode", "XDR decode", "CDR encode", "CDR decode"
    );
    for size in [1usize << 10, 64 << 10, 1 << 20] {
        let rows = [
            measure("int", size, ints(size / 4)),
            measure::<Rect>("rect", size, rects(size / 16)),
            measure::<DirEntry>("dirent", size, dirents((size / DIRENT_BYTES).max(1))),
        ];
        for r in rows {
            println!(
                "{:<8} {:>6}  {}  {} {}  {} {}",
                r.workload,
                r.size,
                gib(r.memcpy),
                gib(r.xdr.encode),
                gib(r.xdr.decode),
                gib(r.cdr.encode),
                gib(r.cdr.decode),
            );
        }
    }
    println!("\n(memcpy: one copy of the encoded bytes into a reused buffer; encode: into a reused buffer;");
    println!(" decode: into a new Vec. Competitors: cargo bench -p marshal-benches)");
    if let Err(e) = giop_demo() {
        eprintln!("GIOP demo failed: {e}");
        std::process::exit(1);
    }
}
