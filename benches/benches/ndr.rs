//! PBIO's KSdata1 record and its ~100 B, 1 KB and 10 KB prefixes through NDR, beside `memcpy`
//! of the record, the project's own XDR and CDR encodings of the same record, and rkyv 0.8
//! (the same-machine zero-copy competitor). Groups are `ndr/<op>/<size>`; throughput is the
//! record's size.
//!
//! - `send`: what it takes to hand a record to the socket. `marshal-zero-copy` prepares the
//!   header and the two I/O slices (the record's own bytes: no copy); `marshal-copy` writes
//!   header and record into a reused buffer; `memcpy` copies the record; `xdr`, `cdr` encode
//!   into a reused buffer; `rkyv` serializes into a reused aligned buffer.
//! - `recv`: a record from a sender with this machine's layout. `marshal-decode-into` copies it
//!   into an existing value (header check, plan lookup, one copy); `marshal-view` borrows it in
//!   place; `memcpy` copies the record; `xdr`, `cdr` decode; `rkyv-access` validates and borrows
//!   the archived record.
//! - `recv-big-endian`: the same record from a big-endian sender, converted through
//!   `Receiver::new()` (`marshal-interp`: with the `jit` feature, as here, that is
//!   `Engine::Tiered`, which leaves a plan of a few long swaps in the interpreter) and through
//!   `Engine::Jit` (`marshal-jit`, the plan compiled at the first message); XDR (big-endian on
//!   the wire) and CDR in big-endian do the same swaps.
//! - `recv-extra-first`: a sender whose record has an unexpected field first (every offset
//!   moved by 8): the plan copies the fields from their new places.
//!
//! Run: `cargo bench -p marshal-benches --bench ndr`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use marshal::ndr::{prepare, to_body, to_message, write_message, Engine, Format, Receiver, Record};
use marshal::{cdr, xdr};
use marshal_benches::rkyv_peer::{RKs100, RKs10k, RKs1k, RKsdata1};
use workloads::ksdata::{big_endian_message, extra_first_message, KSdata1, Ks100, Ks10k, Ks1k};

type RkyvBytes = rkyv::util::AlignedVec;

fn case<T, R>(c: &mut Criterion, label: &str, value: Box<T>, blank: Box<T>)
where
    T: Record + xdr::Encode + for<'de> xdr::Decode<'de> + cdr::Encode + for<'de> cdr::Decode<'de>,
    R: for<'a> From<&'a T>
        + rkyv::Archive
        + for<'a> rkyv::Serialize<
            rkyv::api::high::HighSerializer<
                RkyvBytes,
                rkyv::ser::allocator::ArenaHandle<'a>,
                rkyv::rancor::Error,
            >,
        >,
    R::Archived: rkyv::Portable
        + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, rkyv::rancor::Error>>,
{
    let size = core::mem::size_of::<T>();
    let format = Format::of::<T>();
    assert!(format.is_zero_copy());
    let body = to_body(&*value).expect("encode");
    let message = to_message(&*value).expect("encode");
    let mirror = R::from(&value);
    let mut out = blank;
    let mut buf: Vec<u8> = Vec::with_capacity(size * 2 + 64);
    let mut rkyv_buf = RkyvBytes::with_capacity(size * 2 + 64);

    // send
    let mut g = c.benchmark_group(format!("ndr/send/{label}"));
    g.throughput(Throughput::Bytes(size as u64));
    g.bench_function(BenchmarkId::from_parameter("memcpy"), |b| {
        b.iter(|| {
            buf.clear();
            buf.extend_from_slice(black_box(&body));
            black_box(buf.as_ptr());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("marshal-zero-copy"), |b| {
        b.iter(|| {
            let o = prepare(black_box(&*value)).expect("prepare");
            black_box(o.io_slices());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("marshal-copy"), |b| {
        b.iter(|| {
            buf.clear();
            write_message(black_box(&*value), &mut buf).expect("encode");
            black_box(buf.as_ptr());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("xdr"), |b| {
        b.iter(|| {
            buf.clear();
            xdr::encode_into(black_box(&*value), &mut buf).expect("encode");
            black_box(buf.as_ptr());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("cdr"), |b| {
        b.iter(|| {
            buf.clear();
            cdr::encode_into(black_box(&*value), cdr::ByteOrder::Little, &mut buf).expect("encode");
            black_box(buf.as_ptr());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("rkyv"), |b| {
        b.iter(|| {
            let mut w = core::mem::take(&mut rkyv_buf);
            w.clear();
            rkyv_buf =
                rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(black_box(&mirror), w)
                    .expect("serialize");
            black_box(rkyv_buf.as_ptr());
        })
    });
    g.finish();

    // recv, same layout
    let xdr_bytes = xdr::to_vec(&*value).expect("encode");
    let cdr_le = cdr::to_vec(&*value, cdr::ByteOrder::Little).expect("encode");
    let cdr_be = cdr::to_vec(&*value, cdr::ByteOrder::Big).expect("encode");
    let archived = rkyv::to_bytes::<rkyv::rancor::Error>(&mirror).expect("serialize");
    let mut rx = Receiver::new();
    rx.register(format.clone());
    let mut g = c.benchmark_group(format!("ndr/recv/{label}"));
    g.throughput(Throughput::Bytes(size as u64));
    memcpy_into(&mut g, &message, size);
    g.bench_function(BenchmarkId::from_parameter("marshal-decode-into"), |b| {
        b.iter(|| {
            rx.decode_into(black_box(&message), &mut *out)
                .expect("decode")
        })
    });
    g.bench_function(BenchmarkId::from_parameter("marshal-view"), |b| {
        b.iter(|| {
            black_box(rx.view::<T>(black_box(&message)).expect("view"));
        })
    });
    g.bench_function(BenchmarkId::from_parameter("xdr"), |b| {
        b.iter(|| black_box(xdr::from_slice::<T>(black_box(&xdr_bytes)).expect("decode")))
    });
    g.bench_function(BenchmarkId::from_parameter("cdr"), |b| {
        b.iter(|| {
            black_box(
                cdr::from_slice::<T>(black_box(&cdr_le), cdr::ByteOrder::Little).expect("decode"),
            )
        })
    });
    g.bench_function(BenchmarkId::from_parameter("rkyv-access"), |b| {
        b.iter(|| {
            black_box(
                rkyv::access::<R::Archived, rkyv::rancor::Error>(black_box(&archived))
                    .expect("access"),
            );
        })
    });
    g.finish();

    // recv from a big-endian sender
    let (be, be_msg) = big_endian_message(&format, &body);
    let mut jit = Receiver::with_engine(Engine::Jit);
    jit.register(be.clone());
    jit.decode_into(&be_msg, &mut *out).expect("decode");
    let st = jit.stats();
    assert!(
        st.compiled_conversions == 1 && st.interpreted_conversions == 0,
        "{label}: the Jit receiver did not run compiled code: {st:?}"
    );
    rx.register(be);
    let mut g = c.benchmark_group(format!("ndr/recv-big-endian/{label}"));
    g.throughput(Throughput::Bytes(size as u64));
    memcpy_into(&mut g, &be_msg, size);
    g.bench_function(BenchmarkId::from_parameter("marshal-interp"), |b| {
        b.iter(|| {
            rx.decode_into(black_box(&be_msg), &mut *out)
                .expect("decode")
        })
    });
    g.bench_function(BenchmarkId::from_parameter("marshal-jit"), |b| {
        b.iter(|| {
            jit.decode_into(black_box(&be_msg), &mut *out)
                .expect("decode")
        })
    });
    g.bench_function(BenchmarkId::from_parameter("xdr"), |b| {
        b.iter(|| black_box(xdr::from_slice::<T>(black_box(&xdr_bytes)).expect("decode")))
    });
    g.bench_function(BenchmarkId::from_parameter("cdr-be"), |b| {
        b.iter(|| {
            black_box(
                cdr::from_slice::<T>(black_box(&cdr_be), cdr::ByteOrder::Big).expect("decode"),
            )
        })
    });
    g.finish();
    let st = jit.stats();
    assert_eq!(
        st.interpreted_conversions, 0,
        "{label}: the Jit receiver fell back to the interpreter: {st:?}"
    );

    // recv from a sender with an unexpected first field
    let (x, x_msg) = extra_first_message(&format, &body);
    rx.register(x);
    let mut g = c.benchmark_group(format!("ndr/recv-extra-first/{label}"));
    g.throughput(Throughput::Bytes(size as u64));
    memcpy_into(&mut g, &x_msg, size);
    g.bench_function(BenchmarkId::from_parameter("marshal-interp"), |b| {
        b.iter(|| {
            rx.decode_into(black_box(&x_msg), &mut *out)
                .expect("decode")
        })
    });
    g.finish();
    // Every path above decoded into `out`; the last one must have produced the record.
    assert_eq!(
        to_body(&*out).expect("encode"),
        body,
        "{label}: converted record differs"
    );
}

/// `memcpy` of the record (the message's body) into a buffer of its size.
fn memcpy_into<M: criterion::measurement::Measurement>(
    g: &mut criterion::BenchmarkGroup<'_, M>,
    message: &[u8],
    size: usize,
) {
    let mut dst = vec![0u8; size];
    let src = &message[message.len() - size..];
    g.bench_function(BenchmarkId::from_parameter("memcpy"), |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(src));
            black_box(dst.as_ptr());
        })
    });
}

fn ksdata(c: &mut Criterion) {
    case::<Ks100, RKs100>(c, "100B", Ks100::sample(1), Ks100::sample(0));
    case::<Ks1k, RKs1k>(c, "1KB", Ks1k::sample(1), Ks1k::sample(0));
    case::<Ks10k, RKs10k>(c, "10KB", Ks10k::sample(1), Ks10k::sample(0));
    case::<KSdata1, RKsdata1>(c, "100KB", KSdata1::sample(1), KSdata1::sample(0));
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    targets = ksdata
}
criterion_main!(benches);
