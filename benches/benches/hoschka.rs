//! Hoschka's curve: how much of the interpreter's work a code budget removes when the plans to
//! compile are chosen as a 0-1 knapsack (Hoschka, "Automatic generation of optimized code for
//! marshalling routines", 1996: his target is most of the gain for a quarter of the code).
//!
//! The workload is 50 distinct incoming formats, each converted to one local type, with skewed
//! frequencies: Zipf with s = 1 over ranks 1..=50 (`f_r ∝ 1/r`), the ranks dealt to the formats
//! by a fixed shuffle. Local types: PBIO's KSdata1 and its prefixes (`Ks100`, `Ks1k`, `Ks10k`),
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
//! For budgets of 5%, 10%, …, 100% of it, `knapsack::greedy` chooses the plans:
//!
//! - estimate-driven, as the tiered receiver does: profit `f × cost::estimate(plan).saving_ns()`,
//!   weight the measured code bytes;
//! - oracle: profit `f × (t_interp − t_jit)` measured.
//!
//! and the table reports, for both, Hoschka's measure: the share of interpreter calls
//! eliminated, `Σ_chosen f·calls / Σ_all f·calls`, where `calls` counts the interpreter's step
//! dispatches in one conversion (a nested record's steps once per element); and the net share
//! of time saved, `Σ_chosen f·(t_interp − t_jit) / Σ_all f·t_interp` (measured times), which
//! is small here because most of the time is long copies and swaps that compiled code does no
//! faster. The curve goes to
//! `$CARGO_TARGET_DIR/criterion/hoschka/curve.svg` (else the workspace's `target/`), its points
//! to `curve.csv` beside it.
//!
//! Run: `cargo bench -p marshal-benches --bench hoschka`. Without `--bench` (as
//! `cargo test -p marshal-benches --benches` runs it) it does a quick smoke run: a few
//! iterations per format, every check, no files written.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use marshal::ndr::convert::interp;
use marshal::ndr::convert::jit::Jit;
use marshal::ndr::convert::plan::{Op, Plan, Step};
use marshal::ndr::tiering::{cost, knapsack};
use marshal::ndr::{
    to_body, ByteOrder, Field, Format, FormatId, IOField, Kind, NativeRecord, Record, HEADER_LEN,
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

/// One incoming format and what was measured for it.
struct Entry {
    label: String,
    /// The incoming format's id.
    id: FormatId,
    plan: Arc<Plan>,
    /// The sender's body.
    body: Vec<u8>,
    /// The local value's native body: what both engines must produce.
    expect: Vec<u8>,
    freq: f64,
    t_interp: f64,
    t_jit: f64,
    code_bytes: usize,
    estimate: cost::Estimate,
}

fn entry(
    label: String,
    theirs: &Format,
    local: &'static NativeRecord,
    body: Vec<u8>,
    expect: Vec<u8>,
) -> Entry {
    let plan = Arc::new(Plan::build(theirs, local).expect("a plan"));
    Entry {
        label,
        id: theirs.id(),
        estimate: cost::estimate(&plan),
        plan,
        body,
        expect,
        freq: 0.0,
        t_interp: 0.0,
        t_jit: 0.0,
        code_bytes: 0,
    }
}

/// The entries of `value`'s type from the senders `variants`.
fn add<T: Record>(list: &mut Vec<Entry>, value: &T, variants: &[Variant]) {
    let local = Format::of::<T>();
    let body = to_body(value).expect("encode");
    for &v in variants {
        let (theirs, fb) = foreign(&local, &body, v);
        let label = format!("{}/{}", local.name(), v.label());
        list.push(entry(label, &theirs, T::RECORD, fb, body.clone()));
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
        Scalar300::RECORD,
        msg[HEADER_LEN..].to_vec(),
        body,
    ));
    list
}

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
    }
}

/// The shares of one budget.
#[derive(Debug, Clone, Copy)]
struct Point {
    pct: usize,
    budget: usize,
    est_bytes: usize,
    est_plans: usize,
    est_removed: f64,
    est_net: f64,
    oracle_bytes: usize,
    oracle_plans: usize,
    oracle_removed: f64,
    oracle_net: f64,
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

/// (code bytes, plans, share of interpreter calls eliminated, net share of time saved) of
/// `chosen`.
fn shares(entries: &[Entry], chosen: &[usize]) -> (usize, usize, f64, f64) {
    let work: f64 = entries.iter().map(|e| e.freq * calls(e.plan.steps())).sum();
    let time: f64 = entries.iter().map(|e| e.freq * e.t_interp).sum();
    let bytes = chosen.iter().map(|&i| entries[i].code_bytes).sum();
    let removed: f64 = chosen
        .iter()
        .map(|&i| entries[i].freq * calls(entries[i].plan.steps()))
        .sum();
    let net: f64 = chosen
        .iter()
        .map(|&i| entries[i].freq * (entries[i].t_interp - entries[i].t_jit))
        .sum();
    (bytes, chosen.len(), removed / work, net / time)
}

fn estimate_items(entries: &[Entry]) -> Vec<knapsack::Item> {
    entries
        .iter()
        .map(|e| knapsack::Item {
            profit: e.freq * e.estimate.saving_ns(),
            weight: e.code_bytes,
        })
        .collect()
}

fn oracle_items(entries: &[Entry]) -> Vec<knapsack::Item> {
    entries
        .iter()
        .map(|e| knapsack::Item {
            profit: e.freq * (e.t_interp - e.t_jit).max(0.0),
            weight: e.code_bytes,
        })
        .collect()
}

fn curve(entries: &[Entry], pcts: impl Iterator<Item = usize>) -> Vec<Point> {
    let total: usize = entries.iter().map(|e| e.code_bytes).sum();
    let (est, oracle) = (estimate_items(entries), oracle_items(entries));
    pcts.map(|pct| {
        let budget = total * pct / 100;
        let (est_bytes, est_plans, est_removed, est_net) =
            shares(entries, &knapsack::greedy(&est, budget));
        let (oracle_bytes, oracle_plans, oracle_removed, oracle_net) =
            shares(entries, &knapsack::greedy(&oracle, budget));
        Point {
            pct,
            budget,
            est_bytes,
            est_plans,
            est_removed,
            est_net,
            oracle_bytes,
            oracle_plans,
            oracle_removed,
            oracle_net,
        }
    })
    .collect()
}

fn print_table(title: &str, points: &[Point]) {
    println!("\n{title}");
    println!(
        "| budget | budget bytes | code bytes (est.) | plans (est.) | calls eliminated (est.) | net time saved (est.) | code bytes (oracle) | plans (oracle) | calls eliminated (oracle) | net time saved (oracle) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in points {
        println!(
            "| {}% | {} | {} | {} | {:.1}% | {:.1}% | {} | {} | {:.1}% | {:.1}% |",
            p.pct,
            p.budget,
            p.est_bytes,
            p.est_plans,
            100.0 * p.est_removed,
            100.0 * p.est_net,
            p.oracle_bytes,
            p.oracle_plans,
            100.0 * p.oracle_removed,
            100.0 * p.oracle_net
        );
    }
}

/// A line of the plot: its name, colour, dash pattern and value at a point.
type Series = (&'static str, &'static str, &'static str, fn(&Point) -> f64);

/// The curve as an SVG line plot: shares against the budget, the axis going below 0 when the
/// net saving does.
fn svg(points: &[Point]) -> String {
    let (w, h) = (640.0, 420.0);
    let (left, right, top, bottom) = (64.0, 20.0, 40.0, 56.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let series: [Series; 3] = [
        (
            "calls eliminated, estimate-driven (cost::estimate)",
            "#1f77b4",
            "",
            |p| p.est_removed,
        ),
        (
            "calls eliminated, oracle (measured saving)",
            "#ff7f0e",
            "6 4",
            |p| p.oracle_removed,
        ),
        ("net time saved, estimate-driven", "#2ca02c", "2 3", |p| {
            p.est_net
        }),
    ];
    // The lowest tick: 0, or the tenth below the lowest value.
    let lowest = points
        .iter()
        .flat_map(|p| series.iter().map(move |s| (s.3)(p)))
        .fold(0.0f64, f64::min);
    let lo_ticks = (lowest * 10.0).floor() as i32;
    let lo = f64::from(lo_ticks) / 10.0;
    let x = |pct: f64| left + pw * pct / 100.0;
    let y = |share: f64| top + ph * (1.0 - (share - lo) / (1.0 - lo));
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">Hoschka's curve: interpreter calls eliminated by compiling under a code budget</text>"#,
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
    }
    for i in lo_ticks..=10 {
        let v = f64::from(i) * 10.0;
        let gy = y(v / 100.0);
        let stroke = if i == 0 { "#999" } else { "#e4e4e4" };
        let _ = writeln!(
            s,
            r#"<line x1="{left}" y1="{gy:.1}" x2="{:.1}" y2="{gy:.1}" stroke="{stroke}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v}%</text>"#,
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
        r#"<text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle">share of interpreter calls (Σ f·calls)</text>"#,
        top + ph / 2.0
    );
    // The issue's target: 55% at a 25% budget.
    let _ = writeln!(
        s,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999" stroke-dasharray="4 3"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" fill="#666">target: 55% at 25%</text>"##,
        x(25.0),
        y(lo),
        x(25.0),
        y(0.55),
        x(0.0),
        y(0.55),
        x(25.0),
        y(0.55),
        x(26.0),
        y(0.55) + 14.0
    );
    for (k, (name, color, dash, f)) in series.iter().enumerate() {
        let mut pts = format!("{:.1},{:.1}", x(0.0), y(0.0));
        for p in points {
            let _ = write!(pts, " {:.1},{:.1}", x(p.pct as f64), y(f(p)));
        }
        let _ = writeln!(
            s,
            r#"<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#
        );
        for p in points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{color}"/>"#,
                x(p.pct as f64),
                y(f(p))
            );
        }
        let ly = y(0.45) + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            x(45.0),
            x(51.0),
            x(52.0),
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
    let effort = if full {
        Effort {
            batches: 21,
            batch_ns: 1e6,
            min_iters: 3,
        }
    } else {
        Effort {
            batches: 3,
            batch_ns: 0.0,
            min_iters: 2,
        }
    };

    let mut entries = formats();
    assert_eq!(entries.len(), 50);
    let ids: HashSet<FormatId> = entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), 50, "the incoming formats are distinct");
    for (e, f) in entries.iter_mut().zip(zipf(50, 0x5ca1ab1e)) {
        e.freq = f;
    }
    measure(&mut entries, effort);

    println!(
        "Hoschka's curve over {} incoming formats (Zipf s = 1)",
        entries.len()
    );
    println!(
        "\n| format | freq | steps | t_interp (ns) | t_jit (ns) | jit/interp | code bytes | est. code bytes | est. saving (ns) | f·t_interp share |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let work: f64 = entries.iter().map(|e| e.freq * e.t_interp).sum();
    for e in &entries {
        println!(
            "| {} | {:.4} | {} | {:.1} | {:.1} | {:.2} | {} | {} | {:.1} | {:.1}% |",
            e.label,
            e.freq,
            e.plan.steps().len(),
            e.t_interp,
            e.t_jit,
            e.t_jit / e.t_interp,
            e.code_bytes,
            e.estimate.code_bytes,
            e.estimate.saving_ns(),
            100.0 * e.freq * e.t_interp / work
        );
    }
    let total: usize = entries.iter().map(|e| e.code_bytes).sum();
    println!(
        "\nFull compilation: {total} bytes of code for {} plans.",
        entries.len()
    );

    print_table(
        "Budgets of 25/50/75/100% (calls eliminated = Σ_chosen f·calls / Σ f·calls; net time saved = Σ_chosen f·(t_interp − t_jit) / Σ f·t_interp):",
        &curve(&entries, [25, 50, 75, 100].into_iter()),
    );
    let fine = curve(&entries, (1..=20).map(|k| 5 * k));
    print_table("Every 5%:", &fine);

    // How much the answer at 25% depends on which formats are frequent: other deals of the
    // Zipf ranks over the same measurements.
    let mut at25 = Vec::new();
    for seed in 1..=200u64 {
        for (e, f) in entries.iter_mut().zip(zipf(50, seed)) {
            e.freq = f;
        }
        let p = curve(&entries, std::iter::once(25))[0];
        at25.push((p.est_removed, p.oracle_removed));
    }
    let stats = |v: Vec<f64>| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
        let med = median(v);
        (100.0 * min, 100.0 * med, 100.0 * mean)
    };
    let (emin, emed, emean) = stats(at25.iter().map(|p| p.0).collect());
    let (omin, omed, omean) = stats(at25.iter().map(|p| p.1).collect());
    println!(
        "\nAt a 25% budget over 200 other deals of the Zipf ranks: calls eliminated (est.) min {emin:.1}% median {emed:.1}% mean {emean:.1}%; (oracle) min {omin:.1}% median {omed:.1}% mean {omean:.1}%"
    );

    let plot = svg(&fine);
    assert!(plot.starts_with("<svg") && plot.ends_with("</svg>\n"));
    if full {
        let dir = out_dir();
        std::fs::create_dir_all(&dir).expect("create the output directory");
        std::fs::write(dir.join("curve.svg"), plot).expect("write curve.svg");
        let mut csv = String::from(
            "budget_pct,budget_bytes,est_code_bytes,est_plans,est_removed,est_net,oracle_code_bytes,oracle_plans,oracle_removed,oracle_net\n",
        );
        for p in &fine {
            let _ = writeln!(
                csv,
                "{},{},{},{},{:.4},{:.4},{},{},{:.4},{:.4}",
                p.pct,
                p.budget,
                p.est_bytes,
                p.est_plans,
                p.est_removed,
                p.est_net,
                p.oracle_bytes,
                p.oracle_plans,
                p.oracle_removed,
                p.oracle_net
            );
        }
        std::fs::write(dir.join("curve.csv"), csv).expect("write curve.csv");
        println!("\nWrote {}", dir.join("curve.svg").display());
    } else {
        println!("\n(smoke run: a few iterations per format; run with `cargo bench` to measure)");
    }
}
