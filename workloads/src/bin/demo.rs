//! The demo: encodes and decodes Flick's three workloads with marshal's XDR and CDR codecs and
//! prints throughput beside `memcpy` of the same bytes; then makes GIOP calls over loopback
//! TCP between a Rust client and a Rust server and prints round-trip throughput; then serves
//! ONC RPC (`FLICK_PROG` of `peers/rpcgen/xdr/flick.x`) on loopback and calls it over TCP
//! and UDP, printing round-trip throughput and pipelined NULL calls; then sends
//! PBIO's KSdata1 records over an NDR stream on loopback, converts records from a synthetic
//! big-endian sender and from one with an unexpected extra field, and prints send and receive
//! costs beside `memcpy`; built with the `jit` feature, it also runs the same conversions
//! through the interpreter and through code compiled by Cranelift, side by side, with compile
//! times (measured cold: the first compile after the timing loops have filled the caches).
//!
//! `cargo run --release --features workloads/jit --bin demo`
//!
//! Timing: each operation repeats until 20 ms have passed; the median of 7 such runs is shown.
//! For the benchmark suite with competitors (rpcgen, serde-xdr, omniORB), see `benches/`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use marshal::cdr::ByteOrder;
use marshal::giop::{CallError, Client, Server};
use workloads::bench_object::{self, Oops, BENCH_ID};
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
    server.add("Bench", bench_object::servant());
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

/// An ONC RPC server on loopback (TCP and UDP on one port) and Rust clients over both:
/// a few calls, round-trip throughput for each workload, and NULL calls with 16 in flight.
fn rpc_demo() -> Result<(), Box<dyn std::error::Error>> {
    use marshal::rpc::{Client, RpcError, Server};
    use workloads::flick_rpc::{self as flick, PfsWriteRes};

    let mut server = Server::bind("127.0.0.1:0")?;
    server.add(flick::FLICK_PROG, flick::FLICK_VERS, flick::serve);
    let handle = server.spawn()?;
    let (tcp, udp) = (handle.tcp_addr().unwrap(), handle.udp_addr().unwrap());
    println!(
        "\nONC RPC (RFC 5531) on loopback: FLICK_PROG {:#x} version 1, TCP {tcp}, UDP {udp}",
        flick::FLICK_PROG
    );
    let mut t = Client::connect_tcp(tcp, flick::FLICK_PROG, flick::FLICK_VERS)?;
    let mut u = Client::connect_udp(udp, flick::FLICK_PROG, flick::FLICK_VERS)?;
    let data = ints(1024);
    let res: PfsWriteRes = t.call(flick::PFS_WRITE, &(3, 100, 4096, data.as_slice()))?;
    println!("  TCP PFS_WRITE(handle 3, pos 100, 1024 ints) = {res:?}");
    let res: PfsWriteRes = u.call(flick::PFS_WRITE, &(3, 100, 4096, data.as_slice()))?;
    println!("  UDP PFS_WRITE(handle 3, pos 100, 1024 ints) = {res:?}");
    match u.call::<(), ()>(99, &()) {
        Err(RpcError::ProcUnavail) => println!("  UDP procedure 99: PROC_UNAVAIL"),
        other => println!("  UDP procedure 99 unexpectedly gave {other:?}"),
    }

    println!(
        "\n{:<22} {:>6}  {:>13}  {:>13}",
        "round trip", "size", "TCP payload", "UDP payload"
    );
    for size in [64usize, 4 << 10, 1 << 20] {
        let iv = ints(size / 4);
        let rv = rects(size / 16);
        let dv = dirents((size / DIRENT_BYTES).max(1));
        let row = |name: &str, tcp: f64, udp: Option<f64>| {
            let udp = udp.map_or("(> datagram)".to_string(), |r| {
                format!("{:>8.1} MiB/s", r / (1u64 << 20) as f64)
            });
            println!(
                "{:<22} {:>6}  {:>8.1} MiB/s  {:>13}",
                name,
                size_label(size),
                tcp / (1u64 << 20) as f64,
                udp
            );
        };
        let fits = size < 60_000;
        macro_rules! both {
            ($name:expr, $proc:expr, $v:expr, $t:ty) => {{
                let tr = throughput(size, || {
                    let back: Vec<$t> = t.call($proc, &$v).expect("TCP call");
                    assert_eq!(back.len(), $v.len());
                });
                let ur = fits.then(|| {
                    throughput(size, || {
                        let back: Vec<$t> = u.call($proc, &$v).expect("UDP call");
                        assert_eq!(back.len(), $v.len());
                    })
                });
                row($name, tr, ur);
            }};
        }
        both!("ECHO_INTS", flick::ECHO_INTS, iv, i32);
        both!("ECHO_RECTS", flick::ECHO_RECTS, rv, Rect);
        both!("ECHO_DIRENTS", flick::ECHO_DIRENTS, dv, DirEntry);
    }
    for depth in [1usize, 16] {
        let rate = throughput(depth, || {
            let xids: Vec<u32> = (0..depth)
                .map(|_| t.send_call(flick::FLICK_NULL, &()).expect("send"))
                .collect();
            for x in xids {
                t.recv_reply::<()>(x).expect("reply");
            }
        });
        println!("  NULL calls over TCP, {depth:>2} in flight: {rate:>9.0} calls/s");
    }
    handle.shutdown();
    Ok(())
}

/// Nanoseconds per call of `f`, which handles `bytes` bytes (median of 7 runs).
fn nanos(bytes: usize, f: impl FnMut()) -> f64 {
    bytes as f64 / throughput(bytes, f) * 1e9
}

fn ndr_demo() -> std::io::Result<()> {
    use marshal::ndr::{
        prepare, to_body, to_message, Format, NdrReader, NdrWriter, Receiver, Value,
    };
    use workloads::ksdata::{big_endian_message, extra_first_message, KSdata1, Ks100};

    let size = std::mem::size_of::<KSdata1>();
    let format = Format::of::<KSdata1>();
    println!(
        "\nNDR (PBIO's native data representation): KSdata1, {size} bytes, format id {}",
        format.id()
    );
    println!(
        "  sent as its own bytes, no copy: {} (repr(C), padding written out as fields)",
        format.is_zero_copy()
    );

    // A stream on loopback: the format goes once, then each record as header + its own bytes.
    const RECORDS: usize = 2000;
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let sender = std::thread::spawn(move || -> std::io::Result<()> {
        let (conn, _) = listener.accept()?;
        let mut w = NdrWriter::new(conn);
        let mut rec = KSdata1::sample(0);
        for i in 0..RECORDS {
            rec.Cnstatv = i as i32;
            w.send(&*rec)?;
        }
        Ok(())
    });
    let mut r = NdrReader::new(std::net::TcpStream::connect(addr)?);
    let mut rec = KSdata1::sample(-1);
    let start = Instant::now();
    let mut got = 0;
    while r.recv_into(&mut *rec)? {
        assert_eq!(rec.Cnstatv, got as i32);
        got += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    sender.join().expect("sender thread")?;
    println!(
        "  stream over loopback TCP: {got} records in {:.1} ms = {:.0} records/s, {:.2} GiB/s",
        secs * 1e3,
        got as f64 / secs,
        (got * size) as f64 / secs / (1u64 << 30) as f64
    );

    // Costs per record, beside one memcpy of it.
    let v = KSdata1::sample(7);
    let body = to_body(&*v).expect("encode");
    let msg = to_message(&*v).expect("encode");
    let mut rx = Receiver::new();
    rx.register(format.clone());
    let (be, be_msg) = big_endian_message(&format, &body);
    rx.register(be);
    let (extra, extra_msg) = extra_first_message(&format, &body);
    rx.register(extra);
    let mut copy = vec![0u8; size];
    let memcpy = nanos(size, || {
        copy.copy_from_slice(black_box(&body));
        black_box(copy.as_ptr());
    });
    let mut out = KSdata1::sample(0);
    let rows: [(&str, f64); 6] = [
        (
            "send: header + I/O slices (no copy)",
            nanos(size, || {
                black_box(prepare(black_box(&*v)).expect("prepare").io_slices());
            }),
        ),
        (
            "send: copied into one message buffer",
            nanos(size, || {
                black_box(to_message(black_box(&*v)).expect("encode"));
            }),
        ),
        (
            "receive, same layout: one copy",
            nanos(size, || {
                rx.decode_into(black_box(&msg), &mut *out).expect("decode")
            }),
        ),
        (
            "receive, same layout: in place (view)",
            nanos(size, || {
                black_box(rx.view::<KSdata1>(black_box(&msg)).expect("view"));
            }),
        ),
        (
            "receive from big-endian: interpreter",
            nanos(size, || {
                rx.decode_into(black_box(&be_msg), &mut *out)
                    .expect("decode")
            }),
        ),
        (
            "receive, extra first field: interpreter",
            nanos(size, || {
                rx.decode_into(black_box(&extra_msg), &mut *out)
                    .expect("decode")
            }),
        ),
    ];
    assert!(*out == *v, "the conversions give the record back");
    println!(
        "\n  {:<42} {:>10}  {:>9}",
        "per KSdata1 record", "ns", "x memcpy"
    );
    println!(
        "  {:<42} {:>10.0}  {:>9.2}",
        "memcpy of the record", memcpy, 1.0
    );
    for (what, ns) in rows {
        println!("  {what:<42} {ns:>10.0}  {:>9.3}", ns / memcpy);
    }

    // A synthetic big-endian record, read with no Rust type.
    let small = Ks100::sample(42);
    let small_fmt = Format::of::<Ks100>();
    let (be, be_msg) = big_endian_message(&small_fmt, &to_body(&*small).expect("encode"));
    rx.register(be.clone());
    let dynamic = rx.decode_dynamic(&be_msg).expect("decode");
    let typed: Box<Ks100> = Box::new(rx.decode(&be_msg).expect("decode"));
    assert_eq!(typed, small);
    println!(
        "\n  a big-endian Ks100 ({} bytes, format {}): Cnstatv = {:?}, Cstatev[1] = {:?}",
        be.size(),
        be.id(),
        dynamic.get("Cnstatv").expect("field"),
        match dynamic.get("Cstatev") {
            Some(Value::Array(a)) => a.get(1).cloned(),
            _ => None,
        }
        .expect("array")
    );
    let json = dynamic.to_json();
    println!("  as JSON: {}…", &json[..json.len().min(96)]);
    #[cfg(feature = "jit")]
    jit_demo(memcpy);
    #[cfg(not(feature = "jit"))]
    println!("\n  (build with `--features jit` to see the same conversions compiled by Cranelift)");
    Ok(())
}

/// The same NDR conversions through the interpreter and through code compiled by Cranelift,
/// side by side, with the compile time and code size of each plan.
#[cfg(feature = "jit")]
fn jit_demo(ksdata_memcpy: f64) {
    use marshal::ndr::{to_body, Engine, Format, Receiver, Record};
    use workloads::ksdata::{big_endian_message, extra_first_message, KSdata1, Ks100, Ks1k};

    println!(
        "\n  NDR conversions, interpreter vs JIT (Cranelift), ns per record (x memcpy of the record)"
    );
    println!(
        "  {:<34} {:>16} {:>16} {:>8} {:>11} {:>10}",
        "record, sender", "interpreter", "JIT", "speedup", "compile µs", "code bytes"
    );
    fn row<T: Record + PartialEq + core::fmt::Debug>(
        what: &str,
        v: &T,
        ksdata_memcpy: Option<f64>,
    ) {
        let size = core::mem::size_of::<T>();
        let format = Format::of::<T>();
        let body = to_body(v).expect("encode");
        let memcpy = ksdata_memcpy.unwrap_or_else(|| {
            let mut copy = vec![0u8; size];
            nanos(size, || {
                copy.copy_from_slice(black_box(&body));
                black_box(copy.as_ptr());
            })
        });
        for (sender, (f, msg)) in [
            ("big-endian", big_endian_message(&format, &body)),
            ("extra first field", extra_first_message(&format, &body)),
        ] {
            let mut int = Receiver::with_engine(Engine::Interpreter);
            let mut jit = Receiver::with_engine(Engine::Jit);
            int.register(f.clone());
            jit.register(f);
            let mut out: T = int.decode(&msg).expect("decode");
            jit.decode_into(&msg, &mut out).expect("decode");
            assert_eq!(&out, v, "the JIT gives the record back");
            let s = jit.stats();
            let ti = nanos(size, || {
                int.decode_into(black_box(&msg), &mut out).expect("decode")
            });
            let tj = nanos(size, || {
                jit.decode_into(black_box(&msg), &mut out).expect("decode")
            });
            assert!(jit.stats().compiled_conversions > 1 && int.stats().compiled_plans == 0);
            println!(
                "  {:<34} {:>8.0} ({:>5.2}) {:>8.0} ({:>5.2}) {:>7.1}x {:>11.0} {:>10}",
                format!("{what}, {sender}"),
                ti,
                ti / memcpy,
                tj,
                tj / memcpy,
                ti / tj,
                s.compile_nanos as f64 / 1e3,
                s.code_bytes
            );
        }
    }
    row("Ks100 (104 B)", &*Ks100::sample(1), None);
    row("Ks1k (992 B)", &*Ks1k::sample(1), None);
    row(
        "KSdata1 (100 808 B)",
        &*KSdata1::sample(1),
        Some(ksdata_memcpy),
    );
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
    if let Err(e) = rpc_demo() {
        eprintln!("ONC RPC demo failed: {e}");
        std::process::exit(1);
    }
    if let Err(e) = ndr_demo() {
        eprintln!("NDR demo failed: {e}");
        std::process::exit(1);
    }
}
