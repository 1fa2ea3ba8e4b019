//! Hoschka's curve: how much of the interpreter's work a code budget removes when the plans to
//! compile are chosen as a 0-1 knapsack (Hoschka, "Automatic generation of optimized code for
//! marshalling routines", 1996: his target is most of the gain for a quarter of the code).
//!
//! The workload is 50 distinct incoming formats, each converted to one local type, with skewed
//! frequencies: Zipf with s = 1 over ranks 1..=50 (`f_r ∝ 1/r`), the ranks dealt to the formats
//! by a shuffle per deal. Local types: PBIO's KSdata1 and its prefixes (`Ks100`, `Ks1k`, `Ks10k`),
//! `Scalar300`, PBIO's small record, and small records defined here (integers of every width,
//! floats, booleans, a nested record and its array, byte and 2-D arrays). Each comes from four
//! senders: big-endian with the same layout (`be`); one unexpected field first, every other
//! field 8 bytes later (`extra`); both (`be+extra`); and one field sent wider (`wide`: an `i32`
//! as `i64`, a `u16` as `u32`, an `f32` as `f64`; the record laid out again). Two more:
//! Scalar300's shuffled big-endian sender, and PBIO's small record big-endian, widened and with
//! its fields in reverse order.
//!
//! For every format the benchmark builds the plan and measures, with `std::time::Instant` (the
//! median of 21 batches of about a millisecond each, interpreter and compiled code alternating),
//! the time of one conversion by the interpreter (`interp::run_fixed`) and by compiled code
//! (`Compiled::run_fixed`), and the compiled code's size; both engines' outputs are checked
//! against the local value's own bytes first. Full compilation is the sum of the code sizes.
//!
//! Then, for 200 deals of the Zipf ranks to the formats, a stream of messages is drawn from the
//! deal's frequencies: 2048 to train on, then 2048 to measure. For budgets of 5%, 10%, …, 100%
//! of full compilation, three choices of plans are measured on the second part:
//!
//! - static: the estimate-driven choice with the deal's frequencies given, as Hoschka's
//!   compiler makes it: `knapsack::greedy` on profit `f × cost::estimate(plan).saving_ns()`,
//!   weight the measured code bytes; the measured messages are run through compiled code for
//!   the chosen plans and the interpreter for the others;
//! - refined: a `Receiver` with `Engine::Tiered` of that budget, which knows nothing of the
//!   deal: it decodes the training messages (observing, choosing and compiling as it goes)
//!   and then the measured ones, and its own counters say which ones the interpreter ran;
//! - bound: the best any choice of whole plans could do on the measured messages, knowing
//!   them in advance (the 0-1 knapsack solved exactly, weights rounded down to 8 bytes).
//!
//! The measure is Hoschka's: the share of the interpreter's step dispatches eliminated, the
//! dispatches of the measured messages the interpreter ran (`calls`: one per step, a nested
//! record's steps once per element) over those of all of them. The table gives the median and
//! the worst deal per budget, and for the refined receiver the net share of conversion time
//! saved (from the measured times) and the plans it compiled. A last line shows re-tiering: a
//! receiver trained on one deal meets the reverse mix. The curves go to
//! `$CARGO_TARGET_DIR/criterion/hoschka/curve.svg` (else the workspace's `target/`), their
//! points to `curve.csv` beside it.
//!
//! Run: `cargo bench -p marshal-benches --bench hoschka`. Without `--bench` (as
//! `cargo test -p marshal-benches --benches` runs it) it does a quick smoke run: a few
//! iterations per format, three deals of short streams, every check, no files written.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use marshal::ndr::convert::interp;
use marshal::ndr::convert::jit::{Compiled, Jit};
use marshal::ndr::convert::plan::{Op, Plan, Step};
use marshal::ndr::tiering::{cost, knapsack};
use marshal::ndr::{
    message_from_body, to_body, ByteOrder, Engine, Field, Format, FormatId, IOField, Kind,
    Receiver, Record, Stats, HEADER_LEN,
};
use workloads::hoschka::{Flags, Floats, Grid, Mesh, Point3, Tick, Widths};
use workloads::ksdata::{KSdata1, Ks100, Ks10k, Ks1k};
use workloads::pbio::PbioSmall;
use workloads::scalar300::{self, Scalar300};
use workloads::Gen;

fn widths() -> Widths {
    Widths {
        a: -5,
        b: -300,
        c: 70_000,
        d: -5_000_000_000,
        e: 200,
        f: 60_000,
        g: 4_000_000_000,
        h: 1 << 40,
    }
}

fn floats() -> Floats {
    Floats {
        x: 1.5,
        y: -2.25,
        z: 1e300,
        v: core::array::from_fn(|i| i as f32 * 0.5),
        w: [3.0, -4.5, 6.125],
    }
}

fn flags() -> Flags {
    Flags {
        on: true,
        count: 513,
        ready: false,
        level: -7,
        mask: core::array::from_fn(|i| i % 3 == 0),
    }
}

fn mesh() -> Mesh {
    let p = |i: usize| Point3 {
        x: i as f64,
        y: i as f64 * 0.5,
        z: -(i as f64),
    };
    Mesh {
        id: 9,
        n: 16,
        origin: p(100),
        pts: core::array::from_fn(p),
    }
}

fn tick() -> Tick {
    Tick {
        seq: 123_456_789_012,
        price: 101.25,
        qty: -40,
        side: 1,
        venue: *b"XNY",
    }
}

fn grid() -> Grid {
    Grid {
        w: 16,
        h: 16,
        cells: core::array::from_fn(|i| core::array::from_fn(|j| (i * 16 + j) as i16 - 128)),
    }
}

/// How a foreign sender's record differs from the local one.
#[derive(Debug, Clone, Copy, Default)]
struct Variant {
    /// Big-endian (else this machine's order).
    big: bool,
    /// An unexpected 4-byte integer first, the other fields 8 bytes later.
    extra: bool,
    /// The first integer or `f32` field (not a pad) sent at twice its width (`f32` as `f64`).
    widen: bool,
    /// The fields in reverse order.
    reverse: bool,
}

impl Variant {
    const BE: Variant = Variant {
        big: true,
        extra: false,
        widen: false,
        reverse: false,
    };
    const EXTRA: Variant = Variant {
        big: false,
        extra: true,
        widen: false,
        reverse: false,
    };
    const BE_EXTRA: Variant = Variant {
        big: true,
        extra: true,
        widen: false,
        reverse: false,
    };
    const WIDE: Variant = Variant {
        big: false,
        extra: false,
        widen: true,
        reverse: false,
    };
    const BE_WIDE_REVERSED: Variant = Variant {
        big: true,
        extra: false,
        widen: true,
        reverse: true,
    };

    fn label(self) -> String {
        let mut parts = Vec::new();
        for (on, name) in [
            (self.big, "be"),
            (self.extra, "extra"),
            (self.widen, "wide"),
            (self.reverse, "reversed"),
        ] {
            if on {
                parts.push(name);
            }
        }
        parts.join("+")
    }

    fn order(self) -> ByteOrder {
        if self.big {
            ByteOrder::Big
        } else {
            ByteOrder::native()
        }
    }

    /// Whether the record is laid out again (else every field keeps its offset, plus 8 with
    /// an extra first field).
    fn relayout(self) -> bool {
        self.widen || self.reverse
    }
}

/// `f` (and its nested formats) in byte order `order`, same layout.
fn reorder(f: &Format, order: ByteOrder) -> Format {
    let nested: Vec<Format> = f.nested().iter().map(|n| reorder(n, order)).collect();
    Format::from_fields(f.name(), order, f.size(), &f.io_fields(), &nested)
        .expect("the same layout in another byte order")
}

/// The alignment a C compiler gives `field` of `f`.
fn align(f: &Format, field: &Field) -> usize {
    match field.kind() {
        Kind::Record(r) => {
            let n = f.nested_format(r).expect("nested formats are described");
            n.fields().iter().map(|x| align(n, x)).max().unwrap_or(1)
        }
        _ => field.size(),
    }
}

/// The field a `widen` variant sends wider, and its new element size.
fn widened(f: &Format) -> Option<(usize, usize)> {
    f.fields().iter().enumerate().find_map(|(i, x)| {
        if x.name().starts_with('_') || x.is_variable() {
            return None;
        }
        match (x.kind(), x.size()) {
            (Kind::Int | Kind::UInt, s) if s < 8 => Some((i, 2 * s)),
            (Kind::Float, 4) => Some((i, 8)),
            _ => None,
        }
    })
}

/// The format and body of the sender `v` for a local record of format `local` and native body
/// `body`.
fn foreign(local: &Format, body: &[u8], v: Variant) -> (Format, Vec<u8>) {
    let order = v.order();
    let nested: Vec<Format> = local.nested().iter().map(|n| reorder(n, order)).collect();
    let shift: usize = if v.extra { 8 } else { 0 };
    let wide = if v.widen { widened(local) } else { None };
    assert!(
        !v.widen || wide.is_some(),
        "{}: nothing to widen",
        local.name()
    );
    let fields = local.fields();
    let mut idx: Vec<usize> = (0..fields.len()).collect();
    if v.reverse {
        idx.reverse();
    }
    let mut places = vec![0usize; fields.len()];
    let mut sizes = vec![0usize; fields.len()];
    let mut end = shift;
    for &i in &idx {
        let f = &fields[i];
        let (size, a) = match wide {
            Some((w, s)) if w == i => (s, s),
            _ => (f.size(), align(local, f)),
        };
        sizes[i] = size;
        places[i] = if v.relayout() {
            end = end.next_multiple_of(a);
            let at = end;
            end += size * f.elements();
            at
        } else {
            f.offset() + shift
        };
    }
    let record_size = if v.relayout() {
        end.next_multiple_of(8)
    } else {
        local.size() + shift
    };
    let mut io = Vec::with_capacity(fields.len() + 1);
    if v.extra {
        io.push(IOField::new("_extra_first", "integer", 4, 0));
    }
    for (i, f) in fields.iter().enumerate() {
        io.push(IOField::new(f.name(), &f.type_name(), sizes[i], places[i]));
    }
    let theirs = Format::from_fields(local.name(), order, record_size, &io, &nested)
        .expect("a valid foreign layout");
    let mut out = vec![0u8; record_size];
    if v.extra {
        put_uint(0x5eed, &mut out[..4], order);
    }
    for (i, f) in fields.iter().enumerate() {
        put_field(
            local,
            f,
            body,
            f.offset(),
            &mut out,
            places[i],
            sizes[i],
            order,
        );
    }
    (theirs, out)
}

/// Writes field `f` of `fmt` (native, at `at` in `src`) at `to` in `dst`, elements of `size`
/// bytes in `order`.
#[allow(clippy::too_many_arguments)]
fn put_field(
    fmt: &Format,
    f: &Field,
    src: &[u8],
    at: usize,
    dst: &mut [u8],
    to: usize,
    size: usize,
    order: ByteOrder,
) {
    for e in 0..f.elements() {
        let (s, d) = (at + e * f.size(), to + e * size);
        match f.kind() {
            Kind::Record(r) => {
                let n = fmt.nested_format(r).expect("nested formats are described");
                for g in n.fields() {
                    put_field(
                        n,
                        g,
                        src,
                        s + g.offset(),
                        dst,
                        d + g.offset(),
                        g.size(),
                        order,
                    );
                }
            }
            k => put_leaf(k, &src[s..s + f.size()], &mut dst[d..d + size], order),
        }
    }
}

/// One element: `src` native, `dst` (as wide or wider) in `order`.
fn put_leaf(kind: &Kind, src: &[u8], dst: &mut [u8], order: ByteOrder) {
    let bits = match kind {
        Kind::Float if src.len() == 4 => {
            let x = f32::from_ne_bytes(src.try_into().expect("4 bytes"));
            if dst.len() == 8 {
                f64::from(x).to_bits()
            } else {
                u64::from(x.to_bits())
            }
        }
        Kind::Int => read_native(src, true),
        Kind::Float | Kind::UInt | Kind::Bool | Kind::Char => read_native(src, false),
        Kind::String | Kind::Record(_) => unreachable!("flat fixed fields only"),
    };
    put_uint(bits, dst, order);
}

/// A native integer of 1 to 8 bytes, extended to 64 bits.
fn read_native(src: &[u8], signed: bool) -> u64 {
    let n = src.len();
    let negative = signed && {
        let top = if cfg!(target_endian = "little") {
            src[n - 1]
        } else {
            src[0]
        };
        top & 0x80 != 0
    };
    let mut b = [if negative { 0xff } else { 0 }; 8];
    if cfg!(target_endian = "little") {
        b[..n].copy_from_slice(src);
    } else {
        b[8 - n..].copy_from_slice(src);
    }
    u64::from_ne_bytes(b)
}

/// The low `dst.len()` bytes of `v` in `order`.
fn put_uint(v: u64, dst: &mut [u8], order: ByteOrder) {
    let m = dst.len();
    match order {
        ByteOrder::Big => dst.copy_from_slice(&v.to_be_bytes()[8 - m..]),
        ByteOrder::Little => dst.copy_from_slice(&v.to_le_bytes()[..m]),
    }
}

/// Decodes a message of one entry's format into a value of its local type, checking the value
/// now and then.
type Decode = Box<dyn FnMut(&mut Receiver, &[u8])>;

/// One incoming format and what was measured for it.
struct Entry {
    label: String,
    /// The incoming format.
    format: Format,
    plan: Arc<Plan>,
    /// The sender's body.
    body: Vec<u8>,
    /// The sender's message (header and body).
    msg: Vec<u8>,
    /// The local value's native body: what both engines must produce.
    expect: Vec<u8>,
    /// The interpreter's step dispatches in one conversion.
    calls: f64,
    decode: Decode,
    /// Whether a receiver holds this plan compiled.
    is_compiled: fn(&Receiver, FormatId) -> bool,
    /// The compiled plan.
    code: Option<Compiled>,
    /// Where the static choice's conversions write.
    out: Vec<u8>,
    t_interp: f64,
    t_jit: f64,
    code_bytes: usize,
    estimate: cost::Estimate,
}

fn entry<T: Record + Clone + PartialEq + core::fmt::Debug + 'static>(
    label: String,
    theirs: &Format,
    body: Vec<u8>,
    expect: Vec<u8>,
    want: T,
) -> Entry {
    let plan = Arc::new(Plan::build(theirs, T::RECORD).expect("a plan"));
    let mut out = Box::new(want.clone());
    let mut n = 0u64;
    let what = label.clone();
    let decode: Decode = Box::new(move |rx: &mut Receiver, msg: &[u8]| {
        rx.decode_into(msg, &mut *out).expect("decode");
        if n.is_multiple_of(64) {
            assert!(*out == want, "{what}: the receiver's value differs");
        }
        n += 1;
    });
    Entry {
        label,
        format: theirs.clone(),
        calls: calls(plan.steps()),
        estimate: cost::estimate(&plan),
        out: vec![0u8; plan.dst_size()],
        msg: message_from_body(theirs.id(), &body).expect("a message"),
        plan,
        body,
        expect,
        decode,
        is_compiled: |rx, id| rx.is_compiled::<T>(id),
        code: None,
        t_interp: 0.0,
        t_jit: 0.0,
        code_bytes: 0,
    }
}

/// The entries of `value`'s type from the senders `variants`.
fn add<T: Record + Clone + PartialEq + core::fmt::Debug + 'static>(
    list: &mut Vec<Entry>,
    value: &T,
    variants: &[Variant],
) {
    let local = Format::of::<T>();
    let body = to_body(value).expect("encode");
    for &v in variants {
        let (theirs, fb) = foreign(&local, &body, v);
        let label = format!("{}/{}", local.name(), v.label());
        list.push(entry(label, &theirs, fb, body.clone(), value.clone()));
    }
}

/// The 50 incoming formats.
fn formats() -> Vec<Entry> {
    use Variant as V;
    let four = [V::BE, V::EXTRA, V::BE_EXTRA, V::WIDE];
    let mut list = Vec::new();
    add(&mut list, &*Ks100::sample(1), &four);
    add(&mut list, &*Ks1k::sample(1), &four);
    add(&mut list, &*Ks10k::sample(1), &four);
    add(&mut list, &*KSdata1::sample(1), &four);
    add(&mut list, &*Scalar300::sample(1), &four);
    add(&mut list, &*PbioSmall::sample(1), &four);
    add(&mut list, &widths(), &four);
    add(&mut list, &floats(), &four);
    add(&mut list, &flags(), &four);
    add(&mut list, &mesh(), &four);
    add(&mut list, &tick(), &four);
    add(&mut list, &grid(), &four);
    add(&mut list, &*PbioSmall::sample(2), &[V::BE_WIDE_REVERSED]);
    let body = to_body(&*Scalar300::sample(1)).expect("encode");
    let (theirs, msg) = scalar300::foreign_message(&Format::of::<Scalar300>(), &body);
    list.push(entry(
        "Scalar300/shuffled-be".into(),
        &theirs,
        msg[HEADER_LEN..].to_vec(),
        body,
        (*Scalar300::sample(1)).clone(),
    ));
    list
}

/// Messages a deal's tiered receiver observes before the measurement, and messages measured.
const TRAIN: usize = 2048;
const MEASURE: usize = 2048;

/// Zipf frequencies (s = 1) over `n` ranks, dealt to the entries by a shuffle from `seed`.
fn zipf(n: usize, seed: u64) -> Vec<f64> {
    let h: f64 = (1..=n).map(|r| 1.0 / r as f64).sum();
    let mut ranks: Vec<usize> = (1..=n).collect();
    let mut g = Gen::new(seed);
    for i in (1..n).rev() {
        let j = g.next_u32() as usize % (i + 1);
        ranks.swap(i, j);
    }
    ranks.into_iter().map(|r| 1.0 / r as f64 / h).collect()
}

/// Nanoseconds per call of `f` over `iters` calls.
fn per_call(iters: u64, f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    t.elapsed().as_nanos() as f64 / iters as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How long to measure.
#[derive(Clone, Copy)]
struct Effort {
    batches: usize,
    /// Target nanoseconds per batch; 0 for a fixed `min_iters` calls.
    batch_ns: f64,
    min_iters: u64,
}

fn iters_for(e: Effort, f: &mut dyn FnMut()) -> u64 {
    if e.batch_ns == 0.0 {
        return e.min_iters;
    }
    per_call(3, f);
    let once = per_call(5, f).max(1.0);
    ((e.batch_ns / once) as u64).clamp(e.min_iters, 1_000_000)
}

/// Compiles, checks and times every entry.
fn measure(entries: &mut [Entry], effort: Effort) {
    let mut jit = Jit::new().expect("a JIT for this machine");
    for e in entries.iter_mut() {
        let code = jit.compile(e.plan.clone()).expect("compile");
        e.code_bytes = code.code_bytes();
        let plan = e.plan.clone();
        let body = e.body.clone();
        let mut dst = vec![0u8; plan.dst_size()];
        interp::run_fixed(&plan, &body, &mut dst).expect("interpret");
        assert!(
            dst == e.expect,
            "{}: the interpreter's output differs",
            e.label
        );
        dst.fill(0);
        code.run_fixed(&body, &mut dst).expect("compiled");
        assert!(
            dst == e.expect,
            "{}: compiled code's output differs",
            e.label
        );

        let mut run_interp = || {
            interp::run_fixed(black_box(&plan), black_box(&body), black_box(&mut dst[..]))
                .expect("interpret")
        };
        let ni = iters_for(effort, &mut run_interp);
        let mut dst2 = vec![0u8; plan.dst_size()];
        let mut run_jit = || {
            code.run_fixed(black_box(&body), black_box(&mut dst2[..]))
                .expect("compiled")
        };
        let nj = iters_for(effort, &mut run_jit);
        let (mut ti, mut tj) = (Vec::new(), Vec::new());
        for _ in 0..effort.batches {
            ti.push(per_call(ni, &mut run_interp));
            tj.push(per_call(nj, &mut run_jit));
        }
        e.t_interp = median(ti);
        e.t_jit = median(tj);
        e.code = Some(code);
    }
}

/// The interpreter's calls (step dispatches) in one conversion by `steps`: one per step, and
/// a nested record's steps once per element. Compiled code makes none.
fn calls(steps: &[Step]) -> f64 {
    steps
        .iter()
        .map(|s| match &s.op {
            Op::Records { steps, .. } => 1.0 + s.count as f64 * calls(steps),
            Op::Template { steps, .. } => 1.0 + calls(steps),
            _ => 1.0,
        })
        .sum()
}

/// A deal's message stream: the part the tiered receiver trains on, and the part measured
/// after it. Both are drawn from the deal's frequencies, one after the other.
struct Stream {
    train: Vec<usize>,
    measure: Vec<usize>,
}

/// `train + measure` messages drawn from `freq` (entry indices), by a generator from `seed`.
fn stream(freq: &[f64], seed: u64, train: usize, measure: usize) -> Stream {
    let mut cdf = Vec::with_capacity(freq.len());
    let mut sum = 0.0;
    for f in freq {
        sum += f;
        cdf.push(sum);
    }
    let mut g = Gen::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut draw = |n: usize| -> Vec<usize> {
        (0..n)
            .map(|_| {
                let u = f64::from(g.next_u32()) / f64::from(u32::MAX) * sum;
                cdf.partition_point(|&c| c < u).min(freq.len() - 1)
            })
            .collect()
    };
    let train = draw(train);
    let measure = draw(measure);
    Stream { train, measure }
}

/// The share of the interpreter's dispatches that compiled code removed from `measured`,
/// given the messages the interpreter ran (`interpreted[k]` for `measured[k]`).
fn share(entries: &[Entry], measured: &[usize], interpreted: &[bool]) -> f64 {
    let all: f64 = measured.iter().map(|&i| entries[i].calls).sum();
    let left: f64 = measured
        .iter()
        .zip(interpreted)
        .filter(|(_, &interp)| interp)
        .map(|(&i, _)| entries[i].calls)
        .sum();
    1.0 - left / all
}

/// The net share of conversion time compiled code saved on `measured` (from the measured
/// per-conversion times).
fn time_share(entries: &[Entry], measured: &[usize], interpreted: &[bool]) -> f64 {
    let all: f64 = measured.iter().map(|&i| entries[i].t_interp).sum();
    let saved: f64 = measured
        .iter()
        .zip(interpreted)
        .filter(|(_, &interp)| !interp)
        .map(|(&i, _)| entries[i].t_interp - entries[i].t_jit)
        .sum();
    saved / all
}

/// The estimate-driven choice, as the tiered receiver made it before it observed anything
/// and as Hoschka's compiler does: profit `f × cost::estimate(plan).saving_ns()` with the
/// deal's frequencies `freq` given, weight the measured code bytes.
fn static_choice(entries: &[Entry], freq: &[f64], budget: usize) -> Vec<usize> {
    let items: Vec<knapsack::Item> = entries
        .iter()
        .zip(freq)
        .map(|(e, f)| knapsack::Item {
            profit: f * e.estimate.saving_ns(),
            weight: e.code_bytes,
        })
        .collect();
    knapsack::greedy(&items, budget)
}

/// Runs the messages `measured` through compiled code for the plans `chosen` and the
/// interpreter for the others; which ones the interpreter ran.
fn run_chosen(entries: &mut [Entry], chosen: &[usize], measured: &[usize]) -> Vec<bool> {
    let mut compiled = vec![false; entries.len()];
    for &i in chosen {
        compiled[i] = true;
    }
    measured
        .iter()
        .map(|&i| {
            let e = &mut entries[i];
            let code = e.code.as_ref().expect("compiled in `measure`");
            if compiled[i] {
                code.run_fixed(&e.body, &mut e.out).expect("compiled");
            } else {
                interp::run_fixed(&e.plan, &e.body, &mut e.out).expect("interpret");
            }
            !compiled[i]
        })
        .collect()
}

/// A receiver with `Engine::Tiered { budget_bytes: budget }` that knows every format.
fn tiered(entries: &[Entry], budget: usize) -> Receiver {
    let mut rx = Receiver::with_engine(Engine::Tiered {
        budget_bytes: budget,
    });
    for e in entries {
        rx.register(e.format.clone());
    }
    rx
}

/// Decodes the messages `msgs` with `rx`; which ones the interpreter ran (the receiver's own
/// count says).
fn feed(rx: &mut Receiver, entries: &mut [Entry], msgs: &[usize]) -> Vec<bool> {
    msgs.iter()
        .map(|&i| {
            let e = &mut entries[i];
            let before = rx.stats().interpreted_conversions;
            (e.decode)(rx, &e.msg);
            rx.stats().interpreted_conversions > before
        })
        .collect()
}

/// Runs `s` through a fresh tiered receiver of `budget` bytes: the training part, then the
/// measured part; which measured messages the interpreter ran, and the receiver's
/// statistics at the end.
fn run_tiered(entries: &mut [Entry], budget: usize, s: &Stream) -> (Vec<bool>, Stats) {
    let mut rx = tiered(entries, budget);
    feed(&mut rx, entries, &s.train);
    let interpreted = feed(&mut rx, entries, &s.measure);
    let st = rx.stats();
    assert!(st.code_bytes as usize <= budget, "{st:?} over {budget}");
    (interpreted, st)
}

/// A shifted mix: a receiver of `budget` bytes that has seen all of `before` meets the
/// stream `after`. The shares eliminated on `after`'s measured part by the plans compiled
/// when the mix shifted (kept as they were) and by the receiver (re-tiered), and how many
/// plans changed between compiled and interpreted.
fn shift(
    entries: &mut [Entry],
    budget: usize,
    before: &Stream,
    after: &Stream,
) -> (f64, f64, usize) {
    let mut rx = tiered(entries, budget);
    feed(&mut rx, entries, &before.train);
    feed(&mut rx, entries, &before.measure);
    let was: Vec<usize> = (0..entries.len())
        .filter(|&i| (entries[i].is_compiled)(&rx, entries[i].format.id()))
        .collect();
    let ran = run_chosen(entries, &was, &after.measure);
    let frozen = share(entries, &after.measure, &ran);
    feed(&mut rx, entries, &after.train);
    let ran = feed(&mut rx, entries, &after.measure);
    let retiered = share(entries, &after.measure, &ran);
    let changed = (0..entries.len())
        .filter(|&i| (entries[i].is_compiled)(&rx, entries[i].format.id()) != was.contains(&i))
        .count();
    (frozen, retiered, changed)
}

/// The most any choice of whole plans could remove from `measured` within `budget`, knowing
/// the stream in advance: the 0-1 knapsack of profit (conversions × dispatches) solved
/// exactly, weights rounded down to 8 bytes (so it bounds the true optimum from above).
fn hindsight_bound(entries: &[Entry], measured: &[usize], budget: usize) -> f64 {
    let mut count = vec![0.0; entries.len()];
    for &i in measured {
        count[i] += 1.0;
    }
    let cap = budget / 8;
    let mut best = vec![0.0f64; cap + 1];
    for (e, n) in entries.iter().zip(&count) {
        let (w, p) = (e.code_bytes / 8, n * e.calls);
        if p <= 0.0 || w > cap {
            continue;
        }
        for c in (w..=cap).rev() {
            best[c] = best[c].max(best[c - w] + p);
        }
    }
    let all: f64 = measured.iter().map(|&i| entries[i].calls).sum();
    best[cap] / all
}

/// One budget over every deal: the shares of dispatches eliminated (static choice,
/// observation-refined tiered receiver, hindsight bound) and the refined receiver's net share
/// of time saved, one value per deal.
#[derive(Default, Clone)]
struct Budget {
    pct: usize,
    bytes: usize,
    fixed: Vec<f64>,
    refined: Vec<f64>,
    bound: Vec<f64>,
    refined_net: Vec<f64>,
    solves_plans: Vec<f64>,
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn med(v: &[f64]) -> f64 {
    median(v.to_vec())
}

/// A line of the plot: its name, colour, dash pattern and value at a budget.
type Series = (&'static str, &'static str, &'static str, fn(&Budget) -> f64);

/// The curves as an SVG line plot: shares against the budget.
fn svg(points: &[Budget], deals: usize) -> String {
    let (w, h) = (680.0, 460.0);
    let (left, right, top, bottom) = (64.0, 20.0, 52.0, 56.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let series: [Series; 6] = [
        ("observation-refined, median", "#1f77b4", "", |p| {
            med(&p.refined)
        }),
        ("observation-refined, worst", "#1f77b4", "6 4", |p| {
            min(&p.refined)
        }),
        ("static estimate, median", "#ff7f0e", "", |p| med(&p.fixed)),
        (
            "static estimate, worst",
            "#ff7f0e",
            "6 4",
            |p| min(&p.fixed),
        ),
        (
            "bound for whole plans (hindsight), median",
            "#999999",
            "2 3",
            |p| med(&p.bound),
        ),
        (
            "bound for whole plans (hindsight), worst",
            "#bbbbbb",
            "1 4",
            |p| min(&p.bound),
        ),
    ];
    let x = |pct: f64| left + pw * pct / 100.0;
    let y = |share: f64| top + ph * (1.0 - share);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14">Hoschka's curve: interpreter dispatches eliminated under a code budget</text>"#,
        w / 2.0
    );
    let _ = writeln!(
        s,
        r##"<text x="{}" y="38" text-anchor="middle" fill="#444">median and worst of {deals} deals of Zipf-skewed frequencies over 50 formats, counted on each deal's measured messages</text>"##,
        w / 2.0
    );
    for i in 0..=10 {
        let v = f64::from(i) * 10.0;
        let gx = x(v);
        let _ = writeln!(
            s,
            r##"<line x1="{gx:.1}" y1="{top}" x2="{gx:.1}" y2="{:.1}" stroke="#e4e4e4"/><text x="{gx:.1}" y="{:.1}" text-anchor="middle">{v}%</text>"##,
            top + ph,
            top + ph + 16.0
        );
        let gy = y(v / 100.0);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{gy:.1}" x2="{:.1}" y2="{gy:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v}%</text>"##,
            left + pw,
            left - 6.0,
            gy + 4.0
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">code budget (% of the code of compiling every plan)</text>"#,
        left + pw / 2.0,
        h - 14.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle">share of interpreter dispatches eliminated</text>"#,
        top + ph / 2.0
    );
    // The targets at 25%: 75% on the median deal, 55% on the worst.
    for (share, label) in [(0.75, "target, median: 75%"), (0.55, "target, worst: 55%")] {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="4" fill="none" stroke="#d62728"/><text x="{:.1}" y="{:.1}" fill="#d62728">{label}</text>"##,
            x(25.0),
            y(share),
            x(26.5),
            y(share) + 4.0
        );
    }
    for (k, (name, color, dash, f)) in series.iter().enumerate() {
        let mut pts = format!("{:.1},{:.1}", x(0.0), y(0.0));
        for p in points {
            let _ = write!(pts, " {:.1},{:.1}", x(p.pct as f64), y(f(p)));
        }
        let _ = writeln!(
            s,
            r#"<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#
        );
        let ly = y(0.30) + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            x(44.0),
            x(50.0),
            x(51.0),
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// `$CARGO_TARGET_DIR/criterion/hoschka`, else the workspace's `target/criterion/hoschka`.
fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("criterion").join("hoschka")
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (effort, deals, train, measured, pcts): (_, u64, _, _, Vec<usize>) = if full {
        (
            Effort {
                batches: 21,
                batch_ns: 1e6,
                min_iters: 3,
            },
            200,
            TRAIN,
            MEASURE,
            (1..=20).map(|k| 5 * k).collect(),
        )
    } else {
        (
            Effort {
                batches: 3,
                batch_ns: 0.0,
                min_iters: 2,
            },
            3,
            256,
            256,
            vec![25, 100],
        )
    };

    let mut entries = formats();
    assert_eq!(entries.len(), 50);
    let ids: HashSet<FormatId> = entries.iter().map(|e| e.format.id()).collect();
    assert_eq!(ids.len(), 50, "the incoming formats are distinct");
    measure(&mut entries, effort);

    println!(
        "Hoschka's curve over {} incoming formats (Zipf s = 1)",
        entries.len()
    );
    println!(
        "\n| format | steps | calls | t_interp (ns) | t_jit (ns) | jit/interp | code bytes | est. code bytes | est. saving (ns) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for e in &entries {
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.2} | {} | {} | {:.1} |",
            e.label,
            e.plan.steps().len(),
            e.calls,
            e.t_interp,
            e.t_jit,
            e.t_jit / e.t_interp,
            e.code_bytes,
            e.estimate.code_bytes,
            e.estimate.saving_ns(),
        );
    }
    let total: usize = entries.iter().map(|e| e.code_bytes).sum();
    println!(
        "\nFull compilation: {total} bytes of code for {} plans.",
        entries.len()
    );

    // Every deal: the Zipf ranks dealt to the formats by another shuffle, a stream drawn from
    // them, each budget's three choices measured on the stream's second part.
    let mut points: Vec<Budget> = pcts
        .iter()
        .map(|&pct| Budget {
            pct,
            bytes: total * pct / 100,
            ..Budget::default()
        })
        .collect();
    for seed in 1..=deals {
        let freq = zipf(entries.len(), seed);
        let s = stream(&freq, seed, train, measured);
        for p in points.iter_mut() {
            let chosen = static_choice(&entries, &freq, p.bytes);
            let ran = run_chosen(&mut entries, &chosen, &s.measure);
            p.fixed.push(share(&entries, &s.measure, &ran));
            let (ran, stats) = run_tiered(&mut entries, p.bytes, &s);
            p.refined.push(share(&entries, &s.measure, &ran));
            p.refined_net.push(time_share(&entries, &s.measure, &ran));
            p.solves_plans.push(stats.compiled_plans as f64);
            p.bound.push(hindsight_bound(&entries, &s.measure, p.bytes));
        }
    }

    println!(
        "\nDispatches eliminated over {deals} deals ({train} messages observed, then {measured} measured per deal); static = estimate-driven with the deal's frequencies given (f × cost::estimate saving), refined = Engine::Tiered observing the stream; bound = the best choice of whole plans knowing the measured messages:"
    );
    println!(
        "| budget | budget bytes | static median | static worst | refined median | refined worst | bound median | bound worst | refined net time saved (median) | plans compiled (median) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in &points {
        println!(
            "| {}% | {} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {} |",
            p.pct,
            p.bytes,
            100.0 * med(&p.fixed),
            100.0 * min(&p.fixed),
            100.0 * med(&p.refined),
            100.0 * min(&p.refined),
            100.0 * med(&p.bound),
            100.0 * min(&p.bound),
            100.0 * med(&p.refined_net),
            med(&p.solves_plans),
        );
    }
    let at25 = points
        .iter()
        .find(|p| p.pct == 25)
        .expect("the 25% budget is measured");
    println!(
        "\n25% budget (static estimate): median {:.1}%, worst {:.1}% of dispatches eliminated",
        100.0 * med(&at25.fixed),
        100.0 * min(&at25.fixed)
    );
    println!(
        "25% budget (bound for whole plans): median {:.1}%, worst {:.1}% of dispatches eliminated",
        100.0 * med(&at25.bound),
        100.0 * min(&at25.bound)
    );
    println!(
        "25% budget: median {:.1}%, worst {:.1}% of dispatches eliminated",
        100.0 * med(&at25.refined),
        100.0 * min(&at25.refined)
    );

    // A shift: the receiver of deal 1, at a 25% budget, meets the opposite mix (the ranks
    // reversed: the rarest format is now the most frequent).
    let before = zipf(entries.len(), 1);
    let mut by_rank: Vec<usize> = (0..entries.len()).collect();
    by_rank.sort_by(|&a, &b| before[b].total_cmp(&before[a]));
    let mut after = vec![0.0; entries.len()];
    for (k, &i) in by_rank.iter().enumerate() {
        after[i] = before[by_rank[by_rank.len() - 1 - k]];
    }
    let (s1, s2) = (
        stream(&before, 1, train, measured),
        stream(&after, 1_000_001, train, measured),
    );
    let (frozen, retiered, changed) = shift(&mut entries, at25.bytes, &s1, &s2);
    println!(
        "Shift at a 25% budget, deal 1's mix to its reverse: {:.1}% of dispatches eliminated with the plans compiled for the old mix, {:.1}% after re-tiering ({changed} plans swapped between compiled and interpreted)",
        100.0 * frozen,
        100.0 * retiered,
    );

    let plot = svg(&points, deals as usize);
    assert!(plot.starts_with("<svg") && plot.ends_with("</svg>\n"));
    if full {
        let dir = out_dir();
        std::fs::create_dir_all(&dir).expect("create the output directory");
        std::fs::write(dir.join("curve.svg"), plot).expect("write curve.svg");
        let mut csv = String::from(
            "budget_pct,budget_bytes,static_median,static_worst,refined_median,refined_worst,bound_median,bound_worst,refined_net_median\n",
        );
        for p in &points {
            let _ = writeln!(
                csv,
                "{},{},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4},{:.4}",
                p.pct,
                p.bytes,
                med(&p.fixed),
                min(&p.fixed),
                med(&p.refined),
                min(&p.refined),
                med(&p.bound),
                min(&p.bound),
                med(&p.refined_net)
            );
        }
        std::fs::write(dir.join("curve.csv"), csv).expect("write curve.csv");
        println!("\nWrote {}", dir.join("curve.svg").display());
    } else {
        println!("\n(smoke run: a few iterations per format; run with `cargo bench` to measure)");
    }
}
