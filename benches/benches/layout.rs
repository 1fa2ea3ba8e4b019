//! USC's header-marshaling benchmark (Tables 2–4 of the paper) for layout-annotated records:
//! a 4-byte long, the 8-byte UDP header and the 82-byte big header (Ethernet + IPv4 + TCP +
//! ARP), each converted in batches of [`BATCH`] records between network order and the native
//! Rust struct. Groups are `layout/<op>/<case>` (`op` = `decode`, `encode`; `case` = `long`,
//! `udp`, `big`), with throughput the layout bytes converted (`BATCH` × the record's size), and
//! these functions:
//!
//! - `struct_copy`: one copy of the whole wire buffer, the floor (USC's "Scopy");
//! - `marshal`: the derive's `read_from` / `write_to`, called once per record;
//! - `marshal_into` (decode): the derive's `read_into`, each record read into its slot of the
//!   output (fields stored as their words are loaded, not built as a value and moved);
//! - `hand`: the hand-written conversions of `workloads::headers::hand`;
//! - `hand_into` (decode): the hand-written `read_*_into`, assigning the slot's fields one by
//!   one, the like-for-like competitor of `marshal_into`;
//! - `xdr`: the same Rust struct through the XDR codec, one `from_slice` / `encode_into` per
//!   record (XDR's records are longer: every integer field takes 4 bytes, byte arrays are
//!   padded to 4; throughput still counts the layout's bytes, so rates compare per record);
//! - `c_ntoh`: BSD-style C (`c/ntoh.c`, `cc -O2`): `memcpy` into a wire struct, then
//!   `ntohs`/`ntohl` (or `htons`/`htonl`) field by field;
//! - `marshal_in_place` (UDP only): `from_wire_in_place` / `to_wire_in_place` on each record.
//!
//! Wire records lie in one contiguous buffer, each starting 4-aligned (the layouts' declared
//! alignment): the big header's 82 bytes take 84. Every function is run once and its result
//! checked against the expected values or bytes before it is timed.
//!
//! Run: `cargo bench -p marshal-benches --bench layout`, then `python3 scripts/layout_table.py`
//! for the medians and ratios; `python3 scripts/layout_counts.py` counts instructions per
//! record of every function with callgrind (see [`COUNT_ENV`]).

use std::fmt::Debug;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use marshal::xdr::{encode_into, from_slice, size_class, to_vec, Decode, Encode};
use marshal::SizeClass;
use workloads::headers::{big_headers, hand, netlongs, udp_headers, BigHeader, NetLong, UdpHeader};

/// Records per batch.
const BATCH: usize = 1024;

/// One record's slot in the wire buffer: its layout's bytes, then padding up to a multiple of
/// 4, so that every record of a `Vec<Wire<S>>` starts 4-aligned and the buffer is contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(4))]
struct Wire<const S: usize>([u8; S]);

impl<const S: usize> Default for Wire<S> {
    fn default() -> Self {
        Wire([0; S])
    }
}

/// `struct udp_native` of `c/ntoh.c`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CUdp {
    sport: u16,
    dport: u16,
    len: u16,
    sum: u16,
}

/// Declares `struct big_native` of `c/ntoh.c` (the same fields as `BigHeader`, in its order)
/// and the conversions between the two.
macro_rules! c_big {
    ($($f:ident: $t:ty),* $(,)?) => {
        /// `struct big_native` of `c/ntoh.c`: `BigHeader`'s fields in its order.
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        struct CBig {
            $($f: $t,)*
        }

        impl From<&BigHeader> for CBig {
            fn from(h: &BigHeader) -> CBig {
                CBig { $($f: h.$f,)* }
            }
        }

        impl From<&CBig> for BigHeader {
            fn from(c: &CBig) -> BigHeader {
                BigHeader { $($f: c.$f,)* }
            }
        }
    };
}

c_big! {
    eth_dst: [u8; 6], eth_src: [u8; 6], eth_type: u16,
    ip_version: u8, ip_ihl: u8, ip_tos: u8, ip_total_len: u16, ip_id: u16, ip_flags: u8,
    ip_frag_offset: u16, ip_ttl: u8, ip_protocol: u8, ip_checksum: u16, ip_src: [u8; 4],
    ip_dst: [u8; 4],
    tcp_src_port: u16, tcp_dst_port: u16, tcp_seq: u32, tcp_ack_seq: u32, tcp_data_offset: u8,
    tcp_reserved: u8, tcp_flags: u8, tcp_window: u16, tcp_checksum: u16, tcp_urgent_ptr: u16,
    arp_htype: u16, arp_ptype: u16, arp_hlen: u8, arp_plen: u8, arp_oper: u16,
    arp_sha: [u8; 6], arp_spa: [u8; 4], arp_tha: [u8; 6], arp_tpa: [u8; 4],
}

// `c/ntoh.c`, compiled by `build.rs`. Each loop converts `n` records; wire records are
// `c_<case>_stride` bytes apart.
#[link(name = "layout_ntoh", kind = "static")]
unsafe extern "C" {
    static c_udp_native_size: usize;
    static c_big_native_size: usize;
    static c_long_stride: usize;
    static c_udp_stride: usize;
    static c_big_stride: usize;

    fn c_long_ntoh(wire: *const u8, out: *mut i32, n: usize);
    fn c_long_hton(input: *const i32, wire: *mut u8, n: usize);
    fn c_udp_ntoh(wire: *const u8, out: *mut CUdp, n: usize);
    fn c_udp_hton(input: *const CUdp, wire: *mut u8, n: usize);
    fn c_big_ntoh(wire: *const u8, out: *mut CBig, n: usize);
    fn c_big_hton(input: *const CBig, wire: *mut u8, n: usize);
}

/// Panics unless the C side's struct sizes and strides are the Rust side's: the C loops then
/// read and write exactly the records of the slices the wrappers pass them. Checked once.
fn check_c_abi() {
    static CHECKED: OnceLock<()> = OnceLock::new();
    CHECKED.get_or_init(|| {
        // SAFETY: a `const size_t` defined in `c/ntoh.c`, initialised before `main`, never
        // written; `usize` is `size_t` on every Rust target.
        let udp_native = unsafe { c_udp_native_size };
        // SAFETY: as above.
        let big_native = unsafe { c_big_native_size };
        // SAFETY: as above.
        let long_stride = unsafe { c_long_stride };
        // SAFETY: as above.
        let udp_stride = unsafe { c_udp_stride };
        // SAFETY: as above.
        let big_stride = unsafe { c_big_stride };
        assert_eq!(udp_native, size_of::<CUdp>(), "struct udp_native");
        assert_eq!(big_native, size_of::<CBig>(), "struct big_native");
        assert_eq!(long_stride, size_of::<Wire<4>>(), "long stride");
        assert_eq!(udp_stride, size_of::<Wire<8>>(), "UDP stride");
        assert_eq!(big_stride, size_of::<Wire<84>>(), "big-header stride");
    });
}

/// One of USC's workloads, with every competitor's conversion of one record or one batch.
trait Workload: Copy + Default + PartialEq + Debug + Encode + for<'de> Decode<'de> {
    /// The `<case>` of the group names.
    const NAME: &'static str;
    /// The layout's bytes.
    const LAYOUT_SIZE: usize;
    /// A record's slot in the wire buffer.
    type Wire: Copy + Default + PartialEq + Debug;
    /// The C side's native struct.
    type C: Copy + Default + PartialEq + Debug;

    /// The batch to convert.
    fn values() -> Vec<Self>;
    /// One record through the derive's `read_from`.
    fn read_marshal(w: &Self::Wire) -> Self;
    /// One record through the derive's `read_into`.
    fn read_marshal_into(w: &Self::Wire, out: &mut Self);
    /// One record through the derive's `write_to`.
    fn write_marshal(&self, w: &mut Self::Wire);
    /// One record through the hand-written reader.
    fn read_hand(w: &Self::Wire) -> Self;
    /// One record through the hand-written reader into a record.
    fn read_hand_into(w: &Self::Wire, out: &mut Self);
    /// One record through the hand-written writer.
    fn write_hand(&self, w: &mut Self::Wire);
    /// The C side's copy of a value.
    fn to_c(&self) -> Self::C;
    /// A value from the C side's copy.
    fn from_c(c: &Self::C) -> Self;
    /// The C loop from wire to native, over the whole batch.
    fn c_ntoh(wire: &[Self::Wire], out: &mut [Self::C]);
    /// The C loop from native to wire, over the whole batch.
    fn c_hton(input: &[Self::C], wire: &mut [Self::Wire]);

    /// Further functions of the `decode` group (`marshal_in_place`), if any.
    fn more_decoders(_g: &mut Group<'_>, _d: &Data<Self>) {}
    /// Further functions of the `encode` group, if any.
    fn more_encoders(_g: &mut Group<'_>, _d: &Data<Self>) {}
}

/// The `Workload` items every case writes the same way: the derive's conversion, the
/// hand-written one, and safe wrappers of the C loops.
macro_rules! workload_common {
    (
        $t:ty,
        $s:literal,
        $n:literal,
        $read:path,
        $read_into:path,
        $write:path,
        $ntoh:ident,
        $hton:ident
    ) => {
        const LAYOUT_SIZE: usize = $n;
        type Wire = Wire<$s>;

        #[inline]
        fn read_marshal(w: &Wire<$s>) -> Self {
            <$t>::read_from(&w.0).unwrap()
        }

        #[inline]
        fn read_marshal_into(w: &Wire<$s>, out: &mut Self) {
            out.read_into(&w.0).unwrap()
        }

        #[inline]
        fn write_marshal(&self, w: &mut Wire<$s>) {
            self.write_to(&mut w.0).unwrap()
        }

        #[inline]
        fn read_hand(w: &Wire<$s>) -> Self {
            $read(w.0.first_chunk::<$n>().unwrap())
        }

        #[inline]
        fn read_hand_into(w: &Wire<$s>, out: &mut Self) {
            $read_into(w.0.first_chunk::<$n>().unwrap(), out)
        }

        #[inline]
        fn write_hand(&self, w: &mut Wire<$s>) {
            $write(self, w.0.first_chunk_mut::<$n>().unwrap())
        }

        fn c_ntoh(wire: &[Wire<$s>], out: &mut [Self::C]) {
            check_c_abi();
            assert_eq!(wire.len(), out.len());
            // SAFETY: the C loop reads `n` records `size_of::<Wire<S>>()` bytes apart (its
            // stride, checked equal by `check_c_abi`) from `wire`, so exactly the initialised
            // bytes of the slice `wire` (`Wire` has no padding: `S` is a multiple of 4), and
            // writes `n` native records (`Self::C` is the C struct, its size checked by
            // `check_c_abi`, its fields those of the C declaration in order, `#[repr(C)]`)
            // into `out`, which has room for `n` and is not aliased (a `&mut`). The C code
            // keeps no pointer after returning.
            unsafe { $ntoh(wire.as_ptr().cast::<u8>(), out.as_mut_ptr(), out.len()) }
        }

        fn c_hton(input: &[Self::C], wire: &mut [Wire<$s>]) {
            check_c_abi();
            assert_eq!(wire.len(), input.len());
            // SAFETY: the C loop reads `n` native records from `input` (`#[repr(C)]`, the C
            // declaration's fields in order, size checked by `check_c_abi`) and writes `n`
            // records `size_of::<Wire<S>>()` bytes apart into `wire`: exactly the bytes of the
            // slice `wire` (stride checked by `check_c_abi`), which is not aliased (a `&mut`)
            // and valid for any bytes. The C code keeps no pointer after returning.
            unsafe { $hton(input.as_ptr(), wire.as_mut_ptr().cast::<u8>(), input.len()) }
        }
    };
}

impl Workload for NetLong {
    const NAME: &'static str = "long";
    type C = i32;
    workload_common!(
        NetLong,
        4,
        4,
        hand::read_netlong,
        hand::read_netlong_into,
        hand::write_netlong,
        c_long_ntoh,
        c_long_hton
    );

    fn values() -> Vec<Self> {
        netlongs(BATCH)
    }
    fn to_c(&self) -> i32 {
        self.value
    }
    fn from_c(c: &i32) -> Self {
        NetLong { value: *c }
    }
}

impl Workload for UdpHeader {
    const NAME: &'static str = "udp";
    type C = CUdp;
    workload_common!(
        UdpHeader,
        8,
        8,
        hand::read_udp,
        hand::read_udp_into,
        hand::write_udp,
        c_udp_ntoh,
        c_udp_hton
    );

    fn values() -> Vec<Self> {
        udp_headers(BATCH)
    }
    fn to_c(&self) -> CUdp {
        CUdp {
            sport: self.src_port,
            dport: self.dst_port,
            len: self.len,
            sum: self.checksum,
        }
    }
    fn from_c(c: &CUdp) -> Self {
        UdpHeader {
            src_port: c.sport,
            dst_port: c.dport,
            len: c.len,
            checksum: c.sum,
        }
    }

    /// `marshal_in_place`: `from_wire_in_place` on each record of a copy of the wire buffer.
    /// The swap is its own inverse, so after the checked first run each timed run turns the
    /// buffer back and forth between the two forms, doing the same work either way.
    fn more_decoders(g: &mut Group<'_>, d: &Data<Self>) {
        checked(
            g,
            "marshal_in_place",
            &mut d.wire.clone(),
            |buf| {
                for w in buf.iter_mut() {
                    UdpHeader::from_wire_in_place(&mut w.0).unwrap();
                }
            },
            |buf| {
                for (w, v) in buf.iter().zip(&d.values) {
                    assert_eq!(w.0, udp_native_bytes(v));
                }
            },
        );
    }

    /// `marshal_in_place`: `to_wire_in_place` on each record of a copy of the values (back
    /// and forth, as for decoding).
    fn more_encoders(g: &mut Group<'_>, d: &Data<Self>) {
        checked(
            g,
            "marshal_in_place",
            &mut d.values.clone(),
            |hs| {
                for h in hs.iter_mut() {
                    h.to_wire_in_place();
                }
            },
            |hs| {
                for (h, w) in hs.iter().zip(&d.wire) {
                    assert_eq!(udp_native_bytes(h), w.0);
                }
            },
        );
    }
}

impl Workload for BigHeader {
    const NAME: &'static str = "big";
    type C = CBig;
    workload_common!(
        BigHeader,
        84,
        82,
        hand::read_big,
        hand::read_big_into,
        hand::write_big,
        c_big_ntoh,
        c_big_hton
    );

    fn values() -> Vec<Self> {
        big_headers(BATCH)
    }
    fn to_c(&self) -> CBig {
        CBig::from(self)
    }
    fn from_c(c: &CBig) -> Self {
        BigHeader::from(c)
    }
}

/// A workload's batch in every form the competitors start from, built and cross-checked once.
struct Data<T: Workload> {
    values: Vec<T>,
    c_values: Vec<T::C>,
    /// The layout of each value (the hand-written encoding, checked against the derive's).
    wire: Vec<T::Wire>,
    /// The XDR encoding of each value, `xdr_len` bytes apart.
    xdr: Vec<u8>,
    xdr_len: usize,
}

impl<T: Workload> Data<T> {
    fn new() -> Self {
        let values = T::values();
        assert_eq!(values.len(), BATCH);
        let mut wire = vec![T::Wire::default(); BATCH];
        for (v, w) in values.iter().zip(&mut wire) {
            v.write_hand(w);
            let mut d = T::Wire::default();
            v.write_marshal(&mut d);
            assert_eq!(*w, d, "hand-written and derived layouts differ for {v:?}");
        }
        let SizeClass::Fixed(xdr_len) = size_class::<T>() else {
            panic!("{}: XDR size is not fixed", T::NAME)
        };
        let mut xdr = Vec::with_capacity(BATCH * xdr_len);
        for v in &values {
            xdr.extend_from_slice(&to_vec(v).unwrap());
        }
        assert_eq!(xdr.len(), BATCH * xdr_len);
        let c_values = values.iter().map(T::to_c).collect();
        Data {
            values,
            c_values,
            wire,
            xdr,
            xdr_len,
        }
    }
}

/// A criterion group and its name (`layout/<op>/<case>`).
struct Group<'a> {
    name: String,
    g: BenchmarkGroup<'a, WallTime>,
}

fn group<'a>(c: &'a mut Criterion, op: &str, case: &str, bytes: usize) -> Group<'a> {
    let name = format!("layout/{op}/{case}");
    let mut g = c.benchmark_group(&name);
    g.throughput(Throughput::Bytes(bytes as u64));
    Group { name, g }
}

/// The environment variable of counting mode: `LAYOUT_COUNT=<group>/<function>:<batches>`
/// (e.g. `layout/decode/udp/marshal:100`) runs that one function `batches` times, after the
/// same setup and checks as always, and times nothing. Two runs under callgrind with different
/// `batches` give the instructions per batch (`scripts/layout_counts.py`).
const COUNT_ENV: &str = "LAYOUT_COUNT";

/// The function and number of batches of counting mode, if on.
fn count_request() -> Option<&'static (String, usize)> {
    static REQUEST: OnceLock<Option<(String, usize)>> = OnceLock::new();
    REQUEST
        .get_or_init(|| {
            let v = std::env::var(COUNT_ENV).ok()?;
            let (id, n) = v
                .rsplit_once(':')
                .unwrap_or_else(|| panic!("{COUNT_ENV}={v}: expected <id>:<batches>"));
            let n = n.parse().unwrap_or_else(|e| panic!("{COUNT_ENV}={v}: {e}"));
            Some((id.to_owned(), n))
        })
        .as_ref()
}

/// Runs `run` on `state` once and `check`s the result, then times `run` (or, in counting
/// mode, runs it the requested number of times if it is the function asked for). `state` (the
/// output, and any scratch) goes through `black_box` before and after each run, so the
/// optimiser neither knows its contents nor may drop the writes.
fn checked<S>(
    g: &mut Group<'_>,
    id: &str,
    state: &mut S,
    mut run: impl FnMut(&mut S),
    check: impl FnOnce(&S),
) {
    run(state);
    check(state);
    match count_request() {
        None => {
            g.g.bench_function(id, |b| {
                b.iter(|| {
                    run(black_box(&mut *state));
                    black_box(&*state);
                })
            });
        }
        Some((want, batches)) if *want == format!("{}/{id}", g.name) => {
            for _ in 0..*batches {
                run(black_box(&mut *state));
                black_box(&*state);
            }
            eprintln!("{COUNT_ENV}: ran {want} {batches} times");
        }
        Some(_) => {}
    }
}

/// `layout/decode/<case>`: wire records to native structs.
fn decode<T: Workload>(c: &mut Criterion, d: &Data<T>) {
    let expect = &d.values;
    let mut g = group(c, "decode", T::NAME, BATCH * T::LAYOUT_SIZE);

    let mut copy = vec![T::Wire::default(); BATCH];
    checked(
        &mut g,
        "struct_copy",
        &mut copy,
        |out| out.copy_from_slice(black_box(&d.wire)),
        |out| assert_eq!(*out, d.wire),
    );

    checked(
        &mut g,
        "marshal",
        &mut vec![T::default(); BATCH],
        |out| {
            for (w, o) in black_box(&d.wire).iter().zip(out.iter_mut()) {
                *o = T::read_marshal(w);
            }
        },
        |out| assert_eq!(out, expect),
    );

    checked(
        &mut g,
        "marshal_into",
        &mut vec![T::default(); BATCH],
        |out| {
            for (w, o) in black_box(&d.wire).iter().zip(out.iter_mut()) {
                T::read_marshal_into(w, o);
            }
        },
        |out| assert_eq!(out, expect),
    );

    checked(
        &mut g,
        "hand",
        &mut vec![T::default(); BATCH],
        |out| {
            for (w, o) in black_box(&d.wire).iter().zip(out.iter_mut()) {
                *o = T::read_hand(w);
            }
        },
        |out| assert_eq!(out, expect),
    );

    checked(
        &mut g,
        "hand_into",
        &mut vec![T::default(); BATCH],
        |out| {
            for (w, o) in black_box(&d.wire).iter().zip(out.iter_mut()) {
                T::read_hand_into(w, o);
            }
        },
        |out| assert_eq!(out, expect),
    );

    checked(
        &mut g,
        "xdr",
        &mut vec![T::default(); BATCH],
        |out| {
            let records = black_box(&d.xdr).chunks_exact(d.xdr_len);
            for (r, o) in records.zip(out.iter_mut()) {
                *o = from_slice::<T>(r).unwrap();
            }
        },
        |out| assert_eq!(out, expect),
    );

    checked(
        &mut g,
        "c_ntoh",
        &mut vec![T::C::default(); BATCH],
        |out| T::c_ntoh(black_box(&d.wire), out),
        |out| assert_eq!(out.iter().map(T::from_c).collect::<Vec<_>>(), *expect),
    );

    T::more_decoders(&mut g, d);
    g.g.finish();
}

/// `layout/encode/<case>`: native structs to wire records.
fn encode<T: Workload>(c: &mut Criterion, d: &Data<T>) {
    let mut g = group(c, "encode", T::NAME, BATCH * T::LAYOUT_SIZE);

    let mut copy = vec![T::Wire::default(); BATCH];
    checked(
        &mut g,
        "struct_copy",
        &mut copy,
        |out| out.copy_from_slice(black_box(&d.wire)),
        |out| assert_eq!(*out, d.wire),
    );

    checked(
        &mut g,
        "marshal",
        &mut vec![T::Wire::default(); BATCH],
        |out| {
            for (v, w) in black_box(&d.values).iter().zip(out.iter_mut()) {
                v.write_marshal(w);
            }
        },
        |out| assert_eq!(*out, d.wire),
    );

    checked(
        &mut g,
        "hand",
        &mut vec![T::Wire::default(); BATCH],
        |out| {
            for (v, w) in black_box(&d.values).iter().zip(out.iter_mut()) {
                v.write_hand(w);
            }
        },
        |out| assert_eq!(*out, d.wire),
    );

    checked(
        &mut g,
        "xdr",
        &mut vec![0u8; BATCH * d.xdr_len],
        |out| {
            for (v, r) in black_box(&d.values)
                .iter()
                .zip(out.chunks_exact_mut(d.xdr_len))
            {
                let mut rest = r;
                encode_into(v, &mut rest).unwrap();
            }
        },
        |out| assert_eq!(*out, d.xdr),
    );

    checked(
        &mut g,
        "c_ntoh",
        &mut vec![T::Wire::default(); BATCH],
        |out| T::c_hton(black_box(&d.c_values), out),
        |out| assert_eq!(*out, d.wire),
    );

    T::more_encoders(&mut g, d);
    g.g.finish();
}

/// The memory of a `#[repr(C)]` `UdpHeader` holding `h`: its fields in native byte order.
fn udp_native_bytes(h: &UdpHeader) -> [u8; 8] {
    let mut b = [0; 8];
    for (i, f) in [h.src_port, h.dst_port, h.len, h.checksum]
        .iter()
        .enumerate()
    {
        b[2 * i..2 * i + 2].copy_from_slice(&f.to_ne_bytes());
    }
    b
}

fn long(c: &mut Criterion) {
    let d = Data::<NetLong>::new();
    decode(c, &d);
    encode(c, &d);
}

fn udp(c: &mut Criterion) {
    let d = Data::<UdpHeader>::new();
    decode(c, &d);
    encode(c, &d);
}

fn big(c: &mut Criterion) {
    let d = Data::<BigHeader>::new();
    decode(c, &d);
    encode(c, &d);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args()
}

criterion_group! {
    name = layout;
    config = config();
    targets = long, udp, big
}
criterion_main!(layout);
