//! NDR conversions compiled by the JIT (feature `jit`) against the interpreter, a hand-written
//! Rust conversion and `memcpy`. Groups are `ndr-jit/<op>/<case>`; the throughput of the
//! `recv-*` groups is the local record's size.
//!
//! Every `recv-*` group has the same four functions:
//! - `memcpy`: copies the message's body (the sender's record) into a buffer of its size, the
//!   floor of any conversion.
//! - `hand-written`: the conversion a programmer would write for this one sender, in safe Rust:
//!   each field at its constant offset with `from_be_bytes` (or `from_ne_bytes`), arrays in a
//!   loop over `chunks_exact` (`workloads::ksdata::HandConvert`, `workloads::scalar300::
//!   hand_convert`).
//! - `interp`: `Receiver::decode_into` through a receiver built with `Engine::Interpreter`
//!   (header check, plan lookup, the interpreter straight into the value).
//! - `jit`: the same through a receiver built with `Engine::Jit`, whose plan was compiled at the
//!   first message (before the measurement; the setup asserts that the receiver counts compiled
//!   conversions and that both receivers give the original value back).
//!
//! The groups:
//! - `recv-big-endian/{100B,1KB,10KB,100KB}`: PBIO's KSdata1 and its prefixes from a
//!   big-endian sender with this machine's layout: every field byte-swapped in place (the plan
//!   is a few long swaps, which the JIT does 16 bytes at a time).
//! - `recv-extra-first/{100B,1KB,10KB,100KB}`: from a sender of this byte order whose record
//!   has one unexpected field first (every other field 8 bytes later): the plan is one copy.
//! - `recv-scalar300/mixed-order-be`: `Scalar300` (300 independent `i32` and `f64` fields, 1984
//!   bytes) from a big-endian sender with the fields in a shuffled order: 351 steps (pads
//!   included) of one load, swap and store each, the case where the interpreter's per-step
//!   dispatch costs most.
//! - `compile/{pbio-small,ksdata1,scalar300}` (function `jit`, no throughput): the time of
//!   `Jit::compile` on the plan from the big-endian format of PBIO's small record
//!   (`workloads::pbio::PbioSmall`, `{int ivalue; double dvalue; int iarray[5];}` with its
//!   padding written out as `_pad0`, `_pad1`), of KSdata1, and from Scalar300's shuffled
//!   sender, with one reused `Jit`: each iteration compiles a fresh copy of the plan and drops
//!   the code (so the time includes verification, Cranelift, linking and unmapping). The size
//!   of the code is printed before the group.
//!
//! Run: `cargo bench -p marshal-benches --bench ndr_jit` (quick:
//! `cargo bench -p marshal-benches --bench ndr_jit -- --warm-up-time 1 --measurement-time 2`).

use std::fmt::Debug;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use marshal::ndr::convert::jit::Jit;
use marshal::ndr::convert::plan::Plan;
use marshal::ndr::{to_body, Engine, Format, Receiver, Record, HEADER_LEN};
use workloads::ksdata::{
    big_endian_message, extra_first_message, hand_convert_be, hand_convert_extra_first,
    HandConvert, KSdata1, Ks100, Ks10k, Ks1k,
};
use workloads::pbio::PbioSmall;
use workloads::scalar300::{self, Scalar300};

/// One foreign sender of `T`: its format and message, and the hand-written conversion of the
/// message's body.
struct Sender<T> {
    format: Format,
    message: Vec<u8>,
    hand: fn(&[u8], &mut T),
}

/// The group `ndr-jit/<op>/<label>`: `memcpy`, `hand-written`, `interp` and `jit` for one
/// sender of `value`. `blank` makes values to convert into (they differ from `value`).
fn recv<T>(
    c: &mut Criterion,
    op: &str,
    label: &str,
    value: &T,
    blank: &dyn Fn() -> Box<T>,
    s: Sender<T>,
) where
    T: Record + PartialEq + Debug,
{
    let size = core::mem::size_of::<T>();
    let body = &s.message[HEADER_LEN..];
    let mut interp = Receiver::with_engine(Engine::Interpreter);
    interp.register(s.format.clone());
    let mut jit = Receiver::with_engine(Engine::Jit);
    jit.register(s.format);

    // Warm up both receivers (the Jit one compiles its plan now) and check all three
    // conversions before measuring anything.
    for rx in [&mut interp, &mut jit] {
        let mut out = blank();
        assert_ne!(&*out, value);
        rx.decode_into(&s.message, &mut *out).expect("decode");
        assert_eq!(&*out, value, "{op}/{label}: {:?} conversion", rx.engine());
    }
    let st = jit.stats();
    assert!(
        st.compiled_conversions > 0 && st.interpreted_conversions == 0,
        "{op}/{label}: the Jit receiver did not run compiled code: {st:?}"
    );
    assert_eq!(interp.stats().compiled_conversions, 0);
    let mut out = blank();
    (s.hand)(body, &mut out);
    assert_eq!(&*out, value, "{op}/{label}: hand-written conversion");

    let mut g = c.benchmark_group(format!("ndr-jit/{op}/{label}"));
    g.throughput(Throughput::Bytes(size as u64));
    let mut dst = vec![0u8; body.len()];
    g.bench_function(BenchmarkId::from_parameter("memcpy"), |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(body));
            black_box(dst.as_ptr());
        })
    });
    g.bench_function(BenchmarkId::from_parameter("hand-written"), |b| {
        b.iter(|| (s.hand)(black_box(body), black_box(&mut *out)))
    });
    g.bench_function(BenchmarkId::from_parameter("interp"), |b| {
        b.iter(|| {
            interp
                .decode_into(black_box(&s.message), &mut *out)
                .expect("decode")
        })
    });
    g.bench_function(BenchmarkId::from_parameter("jit"), |b| {
        b.iter(|| {
            jit.decode_into(black_box(&s.message), &mut *out)
                .expect("decode")
        })
    });
    g.finish();
    assert_eq!(&*out, value, "{op}/{label}: converted record differs");
    let st = jit.stats();
    assert_eq!(
        st.interpreted_conversions, 0,
        "{op}/{label}: the Jit receiver fell back to the interpreter: {st:?}"
    );
}

fn ksdata_case<T>(c: &mut Criterion, label: &str, value: &T, blank: impl Fn() -> Box<T>)
where
    T: Record + HandConvert + PartialEq + Debug,
{
    let format = Format::of::<T>();
    let body = to_body(value).expect("encode");
    let (be, be_msg) = big_endian_message(&format, &body);
    let sender = Sender {
        format: be,
        message: be_msg,
        hand: hand_convert_be::<T>,
    };
    recv(c, "recv-big-endian", label, value, &blank, sender);
    let (x, x_msg) = extra_first_message(&format, &body);
    let sender = Sender {
        format: x,
        message: x_msg,
        hand: hand_convert_extra_first::<T>,
    };
    recv(c, "recv-extra-first", label, value, &blank, sender);
}

fn ksdata(c: &mut Criterion) {
    ksdata_case(c, "100B", &*Ks100::sample(1), || Ks100::sample(0));
    ksdata_case(c, "1KB", &*Ks1k::sample(1), || Ks1k::sample(0));
    ksdata_case(c, "10KB", &*Ks10k::sample(1), || Ks10k::sample(0));
    ksdata_case(c, "100KB", &*KSdata1::sample(1), || KSdata1::sample(0));
}

fn scalar300(c: &mut Criterion) {
    let value = Scalar300::sample(1);
    let body = to_body(&*value).expect("encode");
    let (theirs, msg) = scalar300::foreign_message(&Format::of::<Scalar300>(), &body);
    let sender = Sender {
        format: theirs,
        message: msg,
        hand: scalar300::hand_convert,
    };
    recv(
        c,
        "recv-scalar300",
        "mixed-order-be",
        &*value,
        &|| Scalar300::sample(0),
        sender,
    );
}

/// `ndr-jit/compile/<label>`: compiling the plan from `format` to `T`.
fn compile_case<T: Record>(c: &mut Criterion, jit: &mut Jit, label: &str, format: &Format) {
    let plan = Arc::new(Plan::build(format, T::RECORD).expect("plan"));
    let code = jit.compile(plan.clone()).expect("compile");
    println!(
        "ndr-jit/compile/{label}: {} steps, {} bytes of code, first compile {} µs",
        plan.steps().len(),
        code.code_bytes(),
        code.compile_nanos() / 1000
    );
    drop(code);
    let mut g = c.benchmark_group(format!("ndr-jit/compile/{label}"));
    g.bench_function(BenchmarkId::from_parameter("jit"), |b| {
        b.iter_batched(
            || Arc::new(Plan::clone(&plan)),
            |p| {
                let code = jit.compile(p).expect("compile");
                black_box(code.code_bytes());
                drop(code);
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn compile(c: &mut Criterion) {
    let mut jit = Jit::new().expect("a JIT for this machine");
    let small = workloads::ksdata::big_endian(&Format::of::<PbioSmall>());
    compile_case::<PbioSmall>(c, &mut jit, "pbio-small", &small);
    let ks = workloads::ksdata::big_endian(&Format::of::<KSdata1>());
    compile_case::<KSdata1>(c, &mut jit, "ksdata1", &ks);
    let body = to_body(&*Scalar300::sample(1)).expect("encode");
    let (theirs, _) = scalar300::foreign_message(&Format::of::<Scalar300>(), &body);
    compile_case::<Scalar300>(c, &mut jit, "scalar300", &theirs);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    targets = ksdata, scalar300, compile
}
criterion_main!(benches);
