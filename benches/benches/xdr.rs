//! Flick's workloads (int, rect and directory-entry arrays) at 64 B – 4 MiB, encoded and
//! decoded by marshal, beside `memcpy` of the same bytes (the physical bound), the C stubs
//! `rpcgen` generates (linked through `cc`), and serde-xdr; directory entries also beside an
//! encoder written by hand for exactly that type with no checks (`hand`, in
//! `marshal_benches::hand_dirent`). Groups are `xdr/<op>/<workload>`;
//! throughput is the encoded size. `xdr/decode/dirent-names` compares how an entry's name is
//! held: a `String` (copied), a `BytesStr` sliced from a shared `Bytes` input (`from_bytes`),
//! a `BytesStr` copied (`from_slice`), and a `&str` borrowed from the input.
//!
//! Run: `cargo bench -p marshal-benches --bench xdr`, then `python3 scripts/bench_table.py`.

use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use marshal::xdr::{encode_into, from_bytes, from_slice, Decode, Encode};
use marshal_benches::{c_dirent, hand_dirent, serde_dirent, serde_peer, serde_rect, Case};
use workloads::{
    dirents, ints, rects, DirEntry, DirEntryBytes, DirEntryRef, DirEntryShared, Rect, DIRENT_BYTES,
    SIZES,
};

/// rpcgen's stub encoding its C copy of the values into a buffer; returns bytes written.
type CEncode = Box<dyn Fn(&mut [u8]) -> usize>;
/// An encoder written by hand for exactly one type, with no checks (`hand`).
type HandEncode<T> = fn(&[T], &mut Vec<u8>);
/// A marshal decoder variant, by benchmark name.
type NamedDecoder = (&'static str, fn(&[u8]));

/// How the competitors handle one workload.
struct Competitors<T, S> {
    /// serde-xdr's copy of the values.
    serde_values: Vec<S>,
    serde_encode: fn(&Vec<S>, &mut Vec<u8>),
    serde_decode: fn(&[u8]) -> Vec<S>,
    c_encode: CEncode,
    /// rpcgen's stub decoding into C structs (then `xdr_free`).
    c_decode: fn(&[u8]) -> bool,
    /// Extra marshal decoders (borrowed variants), by name.
    extra_decoders: Vec<NamedDecoder>,
    /// An encoder written by hand for exactly this type, with no checks (`hand`): the floor.
    hand_encode: Option<HandEncode<T>>,
}

fn group<'a>(
    c: &'a mut Criterion,
    op: &str,
    workload: &str,
    bytes: usize,
) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(format!("xdr/{op}/{workload}"));
    g.throughput(Throughput::Bytes(bytes as u64));
    g
}

/// Both groups (`encode`, `decode`) of one workload at one size.
fn workload<T, S>(c: &mut Criterion, name: &str, case: &Case<T>, peers: Competitors<T, S>)
where
    T: Encode + for<'de> Decode<'de>,
{
    let n = case.encoded.len();
    let label = &case.label;
    let mut out = Vec::with_capacity(n + 64);

    let mut g = group(c, "encode", name, n);
    g.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(black_box(&case.encoded));
            black_box(&out);
        })
    });
    g.bench_function(BenchmarkId::new("marshal", label), |b| {
        b.iter(|| {
            out.clear();
            encode_into(black_box(&case.values), &mut out).unwrap();
            black_box(&out);
        })
    });
    if let Some(hand) = peers.hand_encode {
        out.clear();
        hand(&case.values, &mut out);
        assert!(
            out == case.encoded,
            "the hand-written encoder writes what marshal does"
        );
        g.bench_function(BenchmarkId::new("hand", label), |b| {
            b.iter(|| {
                out.clear();
                hand(black_box(&case.values), &mut out);
                black_box(&out);
            })
        });
    }
    let mut cbuf = vec![0u8; n];
    g.bench_function(BenchmarkId::new("rpcgen", label), |b| {
        b.iter(|| black_box((peers.c_encode)(black_box(&mut cbuf))))
    });
    g.bench_function(BenchmarkId::new("serde-xdr", label), |b| {
        b.iter(|| {
            out.clear();
            (peers.serde_encode)(black_box(&peers.serde_values), &mut out);
            black_box(&out);
        })
    });
    g.finish();

    let input = &case.encoded;
    let mut g = group(c, "decode", name, n);
    g.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| black_box(black_box(input).to_vec()))
    });
    g.bench_function(BenchmarkId::new("marshal", label), |b| {
        b.iter(|| black_box(from_slice::<Vec<T>>(black_box(input)).unwrap()))
    });
    for (id, decode) in &peers.extra_decoders {
        g.bench_function(BenchmarkId::new(*id, label), |b| {
            b.iter(|| decode(black_box(input)))
        });
    }
    g.bench_function(BenchmarkId::new("rpcgen", label), |b| {
        b.iter(|| assert!((peers.c_decode)(black_box(input))))
    });
    g.bench_function(BenchmarkId::new("serde-xdr", label), |b| {
        b.iter(|| black_box((peers.serde_decode)(black_box(input))))
    });
    g.finish();
}

fn int_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, 4, ints);
        let c_in = rpcgen_peer::CInts::new(&case.values);
        let peers = Competitors {
            serde_values: case.values.clone(),
            serde_encode: serde_peer::encode_ints,
            serde_decode: serde_peer::decode_ints,
            c_encode: Box::new(move |out| c_in.encode(out)),
            c_decode: rpcgen_peer::bench_decode_ints,
            extra_decoders: Vec::new(),
            hand_encode: None,
        };
        workload(c, "int", &case, peers);
    }
}

fn rect_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, 16, rects);
        let words: Vec<[i32; 4]> = case
            .values
            .iter()
            .map(|r| [r.a.x, r.a.y, r.b.x, r.b.y])
            .collect();
        let c_in = rpcgen_peer::CRects::new(&words);
        let peers = Competitors {
            serde_values: case.values.iter().map(serde_rect).collect(),
            serde_encode: serde_peer::encode_rects,
            serde_decode: serde_peer::decode_rects,
            c_encode: Box::new(move |out| c_in.encode(out)),
            c_decode: rpcgen_peer::bench_decode_rects,
            extra_decoders: Vec::new(),
            hand_encode: None,
        };
        workload::<Rect, _>(c, "rect", &case, peers);
    }
}

fn dirent_arrays(c: &mut Criterion) {
    for &size in &SIZES {
        let case = Case::new(size, DIRENT_BYTES, dirents);
        let c_vals: Vec<_> = case.values.iter().map(c_dirent).collect();
        let c_in = rpcgen_peer::CDirents::new(&c_vals);
        let peers = Competitors {
            serde_values: case.values.iter().map(serde_dirent).collect(),
            serde_encode: serde_peer::encode_dirents,
            serde_decode: serde_peer::decode_dirents,
            c_encode: Box::new(move |out| c_in.encode(out)),
            c_decode: rpcgen_peer::bench_decode_dirents,
            extra_decoders: vec![
                ("marshal-borrowed-str", |b| {
                    black_box(from_slice::<Vec<DirEntryRef<'_>>>(b).unwrap());
                }),
                ("marshal-borrowed-bytes", |b| {
                    black_box(from_slice::<Vec<DirEntryBytes<'_>>>(b).unwrap());
                }),
            ],
            hand_encode: Some(hand_dirent::xdr),
        };
        workload::<DirEntry, _>(c, "dirent", &case, peers);
    }
}

/// Directory entries (64 KiB and 1 MiB of them) decoded with their names as `String`,
/// `BytesStr` (shared with the input, or copied) and `&str`: what owning a name costs.
fn dirent_names(c: &mut Criterion) {
    for size in [64 << 10, 1 << 20] {
        let case = Case::new(size, DIRENT_BYTES, dirents);
        let input = Bytes::from(case.encoded.clone());
        let label = &case.label;
        let mut g = group(c, "decode", "dirent-names", input.len());
        g.bench_function(BenchmarkId::new("string", label), |b| {
            b.iter(|| black_box(from_slice::<Vec<DirEntry>>(black_box(&input)).unwrap()))
        });
        g.bench_function(BenchmarkId::new("bytes-str-shared", label), |b| {
            b.iter(|| {
                let v: Vec<DirEntryShared> = from_bytes(black_box(&input).clone()).unwrap();
                black_box(v)
            })
        });
        g.bench_function(BenchmarkId::new("bytes-str-copied", label), |b| {
            b.iter(|| black_box(from_slice::<Vec<DirEntryShared>>(black_box(&input)).unwrap()))
        });
        g.bench_function(BenchmarkId::new("borrowed-str", label), |b| {
            b.iter(|| black_box(from_slice::<Vec<DirEntryRef<'_>>>(black_box(&input)).unwrap()))
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
    targets = int_arrays, rect_arrays, dirent_arrays, dirent_names
}
criterion_main!(xdr);
