//! The demo: encodes and decodes Flick's three workloads with marshal's XDR codec and prints
//! throughput beside `memcpy` of the same bytes.
//!
//! `cargo run --release --bin demo`
//!
//! Timing: each operation repeats until 20 ms have passed; the median of 7 such runs is shown.
//! For the benchmark suite with competitors (rpcgen, serde-xdr), see `benches/`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use marshal::xdr::{encode_into, from_slice};
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

struct Row {
    workload: &'static str,
    size: String,
    memcpy: f64,
    encode: f64,
    decode: f64,
}

fn measure<T>(workload: &'static str, size: usize, values: Vec<T>) -> Row
where
    T: marshal::xdr::Encode + for<'de> marshal::xdr::Decode<'de> + PartialEq + std::fmt::Debug,
{
    let encoded = marshal::xdr::to_vec(&values).expect("encode");
    let back: Vec<T> = from_slice(&encoded).expect("decode");
    assert_eq!(back, values, "round trip");
    let n = encoded.len();
    let mut out = Vec::with_capacity(n);
    let memcpy = throughput(n, || {
        out.clear();
        out.extend_from_slice(black_box(&encoded));
        black_box(&out);
    });
    let encode = throughput(n, || {
        out.clear();
        encode_into(black_box(&values), &mut out).expect("encode");
        black_box(&out);
    });
    let decode = throughput(n, || {
        black_box(from_slice::<Vec<T>>(black_box(&encoded)).expect("decode"));
    });
    Row {
        workload,
        size: size_label(size),
        memcpy,
        encode,
        decode,
    }
}

fn main() {
    println!("marshal demo: XDR (RFC 4506) encode/decode of Flick's workloads");
    println!("each value is checked to round-trip; throughput is encoded bytes per second (median of 7 runs)\n");
    println!(
        "{:<8} {:>6}  {:>13}  {:>13} {:>6}  {:>13} {:>6}",
        "workload", "size", "memcpy", "encode", "×mcpy", "decode", "×mcpy"
    );
    for size in [1usize << 10, 64 << 10, 1 << 20] {
        let rows = [
            measure("int", size, ints(size / 4)),
            measure::<Rect>("rect", size, rects(size / 16)),
            measure::<DirEntry>("dirent", size, dirents((size / DIRENT_BYTES).max(1))),
        ];
        for r in rows {
            println!(
                "{:<8} {:>6}  {}  {} {:>5.2}×  {} {:>5.2}×",
                r.workload,
                r.size,
                gib(r.memcpy),
                gib(r.encode),
                r.encode / r.memcpy,
                gib(r.decode),
                r.decode / r.memcpy
            );
        }
    }
    println!("\n(memcpy: one copy of the encoded bytes into a reused buffer; encode: into a reused buffer;");
    println!(" decode: into a new Vec. Competitors: cargo bench -p marshal-benches)");
}
