//! Hoschka's static frequency estimate (`tiering::frequency`, feature `jit`) against the records
//! actually converted: the local types of the `hoschka` benchmark (and a sender variant of each
//! flat one), a format that arrives both on its own and nested in another, and variable-length
//! arrays of records. Messages go through a receiver's dynamic decoder, and the records in each
//! decoded message are counted, credited to the plan of the message's top-level format.

#![cfg(feature = "jit")]

use std::collections::HashMap;

use marshal::ndr::tiering::frequency::{from_formats, Params, PlanFrequency};
use marshal::ndr::{
    to_body, to_message, DynRecord, Format, FormatId, Kind, Receiver, Record, Value,
};
use marshal::Marshal;
use workloads::hoschka::{Flags, Floats, Grid, Mesh, Point3, Tick, Widths};
use workloads::ksdata::{extra_first_message, KSdata1, Ks100, Ks10k, Ks1k};
use workloads::pbio::PbioSmall;
use workloads::scalar300::{self, Scalar300};
use workloads::Gen;

// Variable-length arrays of records, for μ.

#[derive(Marshal, Debug, Clone, PartialEq)]
struct Path {
    id: u32,
    pts: Vec<Point3>,
}

#[derive(Marshal, Debug, Clone, PartialEq)]
struct Atlas {
    home: Point3,
    meshes: Vec<Mesh>,
}

fn point(i: i32) -> Point3 {
    let x = f64::from(i);
    Point3 {
        x,
        y: x * 0.5,
        z: -x,
    }
}

fn mesh(seed: i32) -> Mesh {
    Mesh {
        id: seed as u32,
        n: 16,
        origin: point(seed),
        pts: core::array::from_fn(|i| point(seed + i as i32)),
    }
}

/// A variable length, 0 to 8.
fn length(g: &mut Gen) -> usize {
    (g.next_u32() % 9) as usize
}

/// A seed small enough for every sample.
fn seed(g: &mut Gen) -> i32 {
    (g.next_u32() % 1000) as i32
}

type Make = Box<dyn Fn(&mut Gen) -> Vec<u8>>;

/// A top-level incoming format and a maker of its messages.
struct Source {
    format: Format,
    message: Make,
}

/// `T`'s native format, and with `extra` the sender with one more field first.
fn add<T: Record + 'static>(list: &mut Vec<Source>, make: fn(i32) -> T, extra: bool) {
    let local = Format::of::<T>();
    list.push(Source {
        format: local.clone(),
        message: Box::new(move |g| to_message(&make(seed(g))).unwrap()),
    });
    if extra {
        let (theirs, _) = extra_first_message(&local, &to_body(&make(0)).unwrap());
        list.push(Source {
            format: theirs,
            message: Box::new(move |g| {
                extra_first_message(&local, &to_body(&make(seed(g))).unwrap()).1
            }),
        });
    }
}

/// The incoming formats: the benchmark's thirteen local types, the extra-first sender of each
/// flat one, Scalar300's shuffled big-endian sender, `Point3` on its own (it is also nested in
/// `Mesh` and `Atlas`), and the two formats with variable-length arrays of records.
fn sources() -> Vec<Source> {
    let mut list = Vec::new();
    add(&mut list, |s| *Ks100::sample(s), true);
    add(&mut list, |s| *Ks1k::sample(s), true);
    add(&mut list, |s| *Ks10k::sample(s), true);
    add(&mut list, |s| *KSdata1::sample(s), true);
    add(&mut list, |s| *Scalar300::sample(s), true);
    add(&mut list, |s| *PbioSmall::sample(s), true);
    add(
        &mut list,
        |s| Widths {
            a: s as i8,
            b: -300,
            c: s,
            d: -5_000_000_000,
            e: 200,
            f: 60_000,
            g: 4_000_000_000,
            h: 1 << 40,
        },
        true,
    );
    add(
        &mut list,
        |s| Floats {
            x: s as f32,
            y: -2.25,
            z: 1e300,
            v: core::array::from_fn(|i| i as f32 * 0.5),
            w: [3.0, -4.5, 6.125],
        },
        true,
    );
    add(
        &mut list,
        |s| Flags {
            on: s % 2 == 0,
            count: 513,
            ready: false,
            level: -7,
            mask: core::array::from_fn(|i| i % 3 == 0),
        },
        true,
    );
    add(&mut list, mesh, false);
    add(
        &mut list,
        |s| Tick {
            seq: s as u64,
            price: 101.25,
            qty: -40,
            side: 1,
            venue: *b"XNY",
        },
        true,
    );
    add(
        &mut list,
        |s| Grid {
            w: 16,
            h: 16,
            cells: core::array::from_fn(|i| {
                core::array::from_fn(|j| (i * 16 + j) as i16 - s as i16)
            }),
        },
        true,
    );
    let local = Format::of::<Scalar300>();
    let body = |s: i32| to_body(&*Scalar300::sample(s)).unwrap();
    let (shuffled, _) = scalar300::foreign_message(&local, &body(0));
    list.push(Source {
        format: shuffled,
        message: Box::new(move |g| scalar300::foreign_message(&local, &body(seed(g))).1),
    });
    add(&mut list, point, false);
    list.push(Source {
        format: Format::of::<Path>(),
        message: Box::new(|g| {
            let n = length(g);
            to_message(&Path {
                id: n as u32,
                pts: (0..n as i32).map(point).collect(),
            })
            .unwrap()
        }),
    });
    list.push(Source {
        format: Format::of::<Atlas>(),
        message: Box::new(|g| {
            let n = length(g);
            to_message(&Atlas {
                home: point(-1),
                meshes: (0..n as i32).map(mesh).collect(),
            })
            .unwrap()
        }),
    });
    list
}

/// The records of one decoded message, by format id, and the lengths of its variable-length
/// arrays of records.
#[derive(Debug, Default)]
struct Counted {
    records: HashMap<FormatId, f64>,
    lengths: Vec<usize>,
}

/// Counts `rec`, a record of `format`, and every record in it.
fn count(rec: &DynRecord, format: &Format, c: &mut Counted) {
    assert_eq!(rec.name(), format.name());
    *c.records.entry(format.id()).or_default() += 1.0;
    for (name, value) in rec.fields() {
        let field = format.field(name).expect("a decoded field is the format's");
        let Kind::Record(r) = field.kind() else {
            continue;
        };
        let inner = format
            .nested_format(r)
            .expect("nested records are described");
        if field.is_variable() {
            let Value::Array(elements) = value else {
                panic!("`{name}` decoded to {value:?}");
            };
            c.lengths.push(elements.len());
        }
        count_value(value, inner, c);
    }
}

fn count_value(value: &Value, format: &Format, c: &mut Counted) {
    match value {
        Value::Record(r) => count(r, format, c),
        Value::Array(values) => values.iter().for_each(|v| count_value(v, format, c)),
        other => panic!("a record field decoded to {other:?}"),
    }
}

fn receiver(sources: &[Source]) -> Receiver {
    let mut rx = Receiver::new();
    for s in sources {
        rx.register(s.format.clone());
    }
    rx
}

fn decode(rx: &mut Receiver, s: &Source, g: &mut Gen) -> Counted {
    let rec = rx.decode_dynamic(&(s.message)(g)).unwrap();
    let mut c = Counted::default();
    count(&rec, &s.format, &mut c);
    c
}

fn mean(xs: &[usize]) -> f64 {
    xs.iter().sum::<usize>() as f64 / xs.len() as f64
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-12)
}

fn estimate(formats: &[&Format], mu: f64) -> Vec<PlanFrequency> {
    let p = Params {
        mu,
        ..Params::default()
    };
    from_formats(formats, &p).unwrap()
}

/// Per plan, the records converted per message are the estimate's per run: exactly, for
/// fixed shapes every message alike, and with μ the mean observed length where
/// variable-length arrays of records are.
#[test]
fn each_plan_converts_the_records_the_estimate_says() {
    let sources = sources();
    let formats: Vec<&Format> = sources.iter().map(|s| &s.format).collect();
    let k = formats.len();
    assert_eq!(k, 27);
    let mut rx = receiver(&sources);
    let mut g = Gen::new(0x5ca1ab1e);
    let mut nested = 0;
    for (i, s) in sources.iter().enumerate() {
        let mut total: HashMap<FormatId, f64> = HashMap::new();
        let mut lengths = Vec::new();
        let mut first: Option<HashMap<FormatId, f64>> = None;
        // Fixed shapes need few messages; averages over variable lengths more.
        let probe = decode(&mut rx, s, &mut g);
        let messages = if probe.lengths.is_empty() { 4 } else { 300 };
        for _ in 0..messages {
            let c = decode(&mut rx, s, &mut g);
            for (id, n) in &c.records {
                *total.entry(*id).or_default() += n;
            }
            lengths.extend_from_slice(&c.lengths);
            first.get_or_insert_with(|| c.records.clone());
            if probe.lengths.is_empty() {
                assert_eq!(first.as_ref(), Some(&c.records), "{}", s.format.name());
            }
        }
        let mu = if lengths.is_empty() {
            1.0
        } else {
            mean(&lengths)
        };
        let plan = &estimate(&formats, mu)[i];
        assert!(close(plan.runs, 1.0 / k as f64, 1e-12));
        assert_eq!(plan.records[0], (s.format.id(), 1.0));
        for (id, n) in &total {
            let counted = n / messages as f64;
            assert!(
                close(plan.per_run(*id), counted, 1e-9),
                "{}: {id:?} counted {counted}, estimated {} (μ = {mu})",
                s.format.name(),
                plan.per_run(*id)
            );
        }
        for (id, x) in &plan.records {
            assert!(*x > 0.0 && total.contains_key(id), "{}", s.format.name());
        }
        if plan.records.len() > 1 {
            nested += 1;
        }
    }
    // Mesh, Path and Atlas convert nested records.
    assert_eq!(nested, 3);
}

/// A stream of messages, each format in turn: every plan runs its `1/k` of the messages, each
/// converts the records nested in its format, and `Point3`'s own plan is credited only with
/// the messages whose top-level record is a `Point3`, not with the points inside meshes,
/// paths and atlases. With one μ for all arrays (their pooled mean length) the plans with
/// variable-length arrays match within the spread of their own mean lengths.
#[test]
fn a_stream_is_credited_to_the_plans_that_convert_it() {
    let sources = sources();
    let formats: Vec<&Format> = sources.iter().map(|s| &s.format).collect();
    let k = formats.len();
    let rounds = 150;
    let mut rx = receiver(&sources);
    let mut g = Gen::new(0x0dd_ba11);
    let mut runs = vec![0.0; k];
    let mut credited: Vec<HashMap<FormatId, f64>> = vec![HashMap::new(); k];
    let mut lengths = Vec::new();
    for _ in 0..rounds {
        for (i, s) in sources.iter().enumerate() {
            let c = decode(&mut rx, s, &mut g);
            runs[i] += 1.0;
            for (id, n) in c.records {
                *credited[i].entry(id).or_default() += n;
            }
            lengths.extend_from_slice(&c.lengths);
        }
    }
    let messages = (rounds * k) as f64;
    let plans = estimate(&formats, mean(&lengths));
    let point3 = Format::of::<Point3>().id();
    let mut hoschka_counted = 0.0;
    let mut hoschka_estimated = 0.0;
    for (i, s) in sources.iter().enumerate() {
        let plan = &plans[i];
        assert!(close(runs[i] / messages, plan.runs, 1e-12));
        // The records with variable-length arrays are estimated with the pooled μ.
        let tolerance = if s.format.name() == "Path" || s.format.name() == "Atlas" {
            0.1
        } else {
            1e-9
        };
        for (id, n) in &credited[i] {
            let counted = n / messages;
            let estimated = plan.per_message(*id);
            assert!(
                close(counted, estimated, tolerance),
                "{}: {id:?} counted {counted}, estimated {estimated}",
                s.format.name()
            );
        }
        assert_eq!(plan.records.len(), credited[i].len(), "{}", s.format.name());
        hoschka_counted += credited[i].get(&point3).copied().unwrap_or(0.0) / messages;
        hoschka_estimated += plan.per_message(point3);
    }
    // Point3's own plan runs for its own messages only.
    let own = sources
        .iter()
        .position(|s| s.format.id() == point3)
        .unwrap();
    assert_eq!(plans[own].records, vec![(point3, 1.0)]);
    assert!(close(
        credited[own][&point3] / messages,
        1.0 / k as f64,
        1e-12
    ));
    // Hoschka's f for Point3, all plans together: many times its own plan's share.
    assert!(close(hoschka_counted, hoschka_estimated, 0.1));
    assert!(hoschka_counted > 20.0 / k as f64, "{hoschka_counted}");
}
