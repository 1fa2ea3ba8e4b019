//! Flick's workloads (int, rect and directory-entry sequences) at 64 B – 4 MiB in CDR, encoded
//! and decoded by marshal in both byte orders, beside `memcpy` of the same bytes (the physical
//! bound) and omniORB 4.2's generated marshaling (into a reused `cdrMemoryStream`) and
//! unmarshaling (into a fresh sequence, then freed), linked through `cc`. Groups are
//! `cdr/<op>/<workload>`; ids end in `-le` (this machine's order: copies) or `-be` (swaps);
//! `marshal-borrowed-*` decodes directory entries whose names borrow from the message, and
//! `hand-*` encodes them with an encoder written by hand for exactly that type with no checks
//! (`marshal_benches::hand_dirent`);
//! throughput is the encoded size.
//!
//! Run: `cargo bench -p marshal-benches --bench cdr`, then `python3 scripts/bench_table.py`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use marshal::cdr::{encode_into, from_slice, to_vec, ByteOrder, Decode, Encode};
use omniorb_peer as omni;
use workloads::{count_for, dirents, ints, rects, size_label, DirEntry, DirEntryRef, Rect, SIZES};

const ORDERS: [(&str, ByteOrder, omni::Order); 2] = [
    ("le", ByteOrder::Little, omni::Order::Little),
    ("be", ByteOrder::Big, omni::Order::Big),
];

/// omniORB's side of one workload: a reusable encoder and a decoder.
struct Omni {
    encode: Box<dyn FnMut(omni::Order) -> usize>,
    decode: fn(omni::Order, &[u8]) -> usize,
}

/// Another marshal decoder of the same bytes (say, into borrowed names): its id and a function
/// that decodes and returns the element count.
type Variant = (&'static str, fn(&[u8], ByteOrder) -> usize);

/// An encoder written by hand for exactly one type, with no checks: the floor marshal's
/// encoder is measured against (`hand-*`).
type HandEncode<T> = fn(&[T], ByteOrder, &mut Vec<u8>);

fn workload<T>(
    c: &mut Criterion,
    name: &str,
    label: &str,
    values: &[T],
    mut peer: Omni,
    variants: &[Variant],
    hand: Option<HandEncode<T>>,
) where
    T: Encode + for<'de> Decode<'de>,
{
    let encoded: Vec<Vec<u8>> = ORDERS
        .iter()
        .map(|(_, o, _)| to_vec(values, *o).expect("workloads encode"))
        .collect();
    let n = encoded[0].len();
    let mut out = Vec::with_capacity(n + 64);

    let mut g = c.benchmark_group(format!("cdr/encode/{name}"));
    g.throughput(Throughput::Bytes(n as u64));
    g.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| {
            out.clear();
            out.extend_from_slice(black_box(&encoded[0]));
            black_box(&out);
        })
    });
    for (id, order, oorder) in ORDERS {
        g.bench_function(BenchmarkId::new(format!("marshal-{id}"), label), |b| {
            b.iter(|| {
                out.clear();
                encode_into(black_box(values), order, &mut out).unwrap();
                black_box(&out);
            })
        });
        g.bench_function(BenchmarkId::new(format!("omniorb-{id}"), label), |b| {
            b.iter(|| black_box((peer.encode)(oorder)))
        });
    }
    if let Some(hand) = hand {
        for ((id, order, _), want) in ORDERS.into_iter().zip(&encoded) {
            out.clear();
            hand(values, order, &mut out);
            assert!(
                out == *want,
                "the hand-written encoder writes what marshal does"
            );
            g.bench_function(BenchmarkId::new(format!("hand-{id}"), label), |b| {
                b.iter(|| {
                    out.clear();
                    hand(black_box(values), order, &mut out);
                    black_box(&out);
                })
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group(format!("cdr/decode/{name}"));
    g.throughput(Throughput::Bytes(n as u64));
    g.bench_function(BenchmarkId::new("memcpy", label), |b| {
        b.iter(|| black_box(black_box(&encoded[0]).to_vec()))
    });
    for ((id, order, oorder), input) in ORDERS.into_iter().zip(&encoded) {
        g.bench_function(BenchmarkId::new(format!("marshal-{id}"), label), |b| {
            b.iter(|| black_box(from_slice::<Vec<T>>(black_box(input), order).unwrap()))
        });
        g.bench_function(BenchmarkId::new(format!("omniorb-{id}"), label), |b| {
            b.iter(|| black_box((peer.decode)(oorder, black_box(input))))
        });
        for (variant, decode) in variants {
            g.bench_function(BenchmarkId::new(format!("{variant}-{id}"), label), |b| {
                b.iter(|| black_box(decode(black_box(input), order)))
            });
        }
    }
    g.finish();
}

/// Directory entries whose names borrow from the message (Flick's "use the marshal buffer to
/// hold unmarshaled data"), UTF-8 checked.
fn dirents_borrowed(bytes: &[u8], order: ByteOrder) -> usize {
    from_slice::<Vec<DirEntryRef<'_>>>(bytes, order)
        .unwrap()
        .len()
}

fn int_sequences(c: &mut Criterion) {
    for &size in &SIZES {
        let v = ints(count_for(size, 4));
        let mut h = omni::OmniInts::new(&v);
        let peer = Omni {
            encode: Box::new(move |o| h.encode(o)),
            decode: omni::bench_decode_ints,
        };
        workload(c, "int", &size_label(size), &v, peer, &[], None);
    }
}

fn rect_sequences(c: &mut Criterion) {
    for &size in &SIZES {
        let v = rects(count_for(size, 16));
        let words: Vec<[i32; 4]> = v.iter().map(|r| [r.a.x, r.a.y, r.b.x, r.b.y]).collect();
        let mut h = omni::OmniRects::new(&words);
        let peer = Omni {
            encode: Box::new(move |o| h.encode(o)),
            decode: omni::bench_decode_rects,
        };
        workload::<Rect>(c, "rect", &size_label(size), &v, peer, &[], None);
    }
}

fn dirent_sequences(c: &mut Criterion) {
    for &size in &SIZES {
        let v = dirents(count_for(size, workloads::DIRENT_BYTES));
        let o: Vec<omni::DirEntry> = v
            .iter()
            .map(|d| omni::DirEntry {
                name: d.name.clone(),
                ints: d.st.ints,
                chars: d.st.chars,
            })
            .collect();
        let mut h = omni::OmniDirents::new(&o);
        let peer = Omni {
            encode: Box::new(move |o| h.encode(o)),
            decode: omni::bench_decode_dirents,
        };
        workload::<DirEntry>(
            c,
            "dirent",
            &size_label(size),
            &v,
            peer,
            &[("marshal-borrowed", dirents_borrowed)],
            Some(marshal_benches::hand_dirent::cdr),
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    targets = int_sequences, rect_sequences, dirent_sequences
}
criterion_main!(benches);
