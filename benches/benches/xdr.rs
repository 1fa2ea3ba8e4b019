//! Flick's workloads (int, rect and directory-entry arrays) at 64 B – 4 MiB, encoded and
//! decoded by marshal, beside `memcpy` of the same bytes (the physical bound), the C stubs
//! `rpcgen` generates (linked through `cc`), and serde-xdr. Groups are `xdr/<op>/<workload>`;
//! throughput is the encoded size.
//!
//! Run: `cargo bench -p marshal-benches --bench xdr` (add `-- --quick` style criterion flags to
//! shorten), then `python3 scripts/bench_table.py` for the ratio table.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use marshal::xdr::{encode_into, from_slice};
use marshal_benches::{c_dirent, serde_dirent, serde_peer, serde_rect, Case};
use workloads::{
    dirents, ints, rects, DirEntry, DirEntryBytes, DirEntryRef, Rect, DIRENT_BYTES, SIZES,
};

/// A destination with room for `n` bytes, reused across iterations.
fn out_buf(n: usize) -> Vec<u8> {
    Vec::with_capacity(n + 64)
}

fn memcpy_encode(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    src: &[u8],
) {
    let mut out = out_buf(src.len());
    c.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(black_box(src));
            black_box(&out);
        })
    });
}

fn memcpy_decode(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    label: &str,
    src: &[u8],
) {
    c.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| black_box(black_box(src).to_vec()))
    });
}

fn int_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, 4, ints);
        let n = case.encoded.len();
        let serde_in = case.values.clone();
        let c_in = rpcgen_peer::CInts::new(&case.values);

        let mut g = c.benchmark_group("xdr/encode/int");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_encode(&mut g, &case.label, &case.encoded);
        let mut out = out_buf(n);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| {
                out.clear();
                encode_into(black_box(&case.values), &mut out).unwrap();
                black_box(&out);
            })
        });
        let mut cbuf = vec![0u8; n];
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| black_box(c_in.encode(black_box(&mut cbuf))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| {
                out.clear();
                serde_peer::encode_ints(black_box(&serde_in), &mut out);
                black_box(&out);
            })
        });
        g.finish();

        let mut g = c.benchmark_group("xdr/decode/int");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_decode(&mut g, &case.label, &case.encoded);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| black_box(from_slice::<Vec<i32>>(black_box(&case.encoded)).unwrap()))
        });
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| assert!(rpcgen_peer::bench_decode_ints(black_box(&case.encoded))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| black_box(serde_peer::decode_ints(black_box(&case.encoded))))
        });
        g.finish();
    }
}

fn rect_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, 16, rects);
        let n = case.encoded.len();
        let serde_in: Vec<_> = case.values.iter().map(serde_rect).collect();
        let words: Vec<[i32; 4]> = case
            .values
            .iter()
            .map(|r| [r.a.x, r.a.y, r.b.x, r.b.y])
            .collect();
        let c_in = rpcgen_peer::CRects::new(&words);

        let mut g = c.benchmark_group("xdr/encode/rect");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_encode(&mut g, &case.label, &case.encoded);
        let mut out = out_buf(n);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| {
                out.clear();
                encode_into(black_box(&case.values), &mut out).unwrap();
                black_box(&out);
            })
        });
        let mut cbuf = vec![0u8; n];
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| black_box(c_in.encode(black_box(&mut cbuf))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| {
                out.clear();
                serde_peer::encode_rects(black_box(&serde_in), &mut out);
                black_box(&out);
            })
        });
        g.finish();

        let mut g = c.benchmark_group("xdr/decode/rect");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_decode(&mut g, &case.label, &case.encoded);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| black_box(from_slice::<Vec<Rect>>(black_box(&case.encoded)).unwrap()))
        });
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| assert!(rpcgen_peer::bench_decode_rects(black_box(&case.encoded))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| black_box(serde_peer::decode_rects(black_box(&case.encoded))))
        });
        g.finish();
    }
}

fn dirent_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, DIRENT_BYTES, dirents);
        let n = case.encoded.len();
        let serde_in: Vec<_> = case.values.iter().map(serde_dirent).collect();
        let c_vals: Vec<_> = case.values.iter().map(c_dirent).collect();
        let c_in = rpcgen_peer::CDirents::new(&c_vals);

        let mut g = c.benchmark_group("xdr/encode/dirent");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_encode(&mut g, &case.label, &case.encoded);
        let mut out = out_buf(n);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| {
                out.clear();
                encode_into(black_box(&case.values), &mut out).unwrap();
                black_box(&out);
            })
        });
        let mut cbuf = vec![0u8; n];
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| black_box(c_in.encode(black_box(&mut cbuf))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| {
                out.clear();
                serde_peer::encode_dirents(black_box(&serde_in), &mut out);
                black_box(&out);
            })
        });
        g.finish();

        let mut g = c.benchmark_group("xdr/decode/dirent");
        g.throughput(Throughput::Bytes(n as u64));
        memcpy_decode(&mut g, &case.label, &case.encoded);
        g.bench_function(BenchmarkId::new("marshal", &case.label), |b| {
            b.iter(|| black_box(from_slice::<Vec<DirEntry>>(black_box(&case.encoded)).unwrap()))
        });
        g.bench_function(BenchmarkId::new("marshal-borrowed-str", &case.label), |b| {
            b.iter(|| {
                black_box(from_slice::<Vec<DirEntryRef<'_>>>(black_box(&case.encoded)).unwrap())
            })
        });
        g.bench_function(
            BenchmarkId::new("marshal-borrowed-bytes", &case.label),
            |b| {
                b.iter(|| {
                    black_box(
                        from_slice::<Vec<DirEntryBytes<'_>>>(black_box(&case.encoded)).unwrap(),
                    )
                })
            },
        );
        g.bench_function(BenchmarkId::new("rpcgen", &case.label), |b| {
            b.iter(|| assert!(rpcgen_peer::bench_decode_dirents(black_box(&case.encoded))))
        });
        g.bench_function(BenchmarkId::new("serde-xdr", &case.label), |b| {
            b.iter(|| black_box(serde_peer::decode_dirents(black_box(&case.encoded))))
        });
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args()
}

criterion_group! {
    name = xdr;
    config = config();
    targets = int_arrays, rect_arrays, dirent_arrays
}
criterion_main!(xdr);
