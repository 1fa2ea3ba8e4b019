//! NDR from real foreign-architecture senders: `tests/c/ndr_sender.c` is compiled during the
//! test for i386 (`gcc -m32`: 4-byte `long`, doubles 4-byte aligned in structs), for s390x
//! (`s390x-linux-gnu-gcc`, big-endian, run under `qemu-s390x`) and for this machine, and run.
//! It prints its `sizeof`/`offsetof` facts and writes records; Rust builds the sender's format
//! from the facts and decodes into its own structs (C `long` into `i64`), field by field.
//!
//! A missing compiler or emulator fails the test with the `apt-get` line that installs it:
//! `scripts/test.sh` installs them, so on a machine set up by it the senders always run.

use std::path::{Path, PathBuf};
use std::process::Command;

use marshal::ndr::{message_from_body, ByteOrder, Format, IOField, Receiver};
use marshal::{ErrorKind, Marshal};

#[derive(Marshal, Debug, PartialEq, Clone, Default)]
struct Inner {
    s: i16,
    d: f64,
}

#[derive(Marshal, Debug, PartialEq, Clone)]
struct Sample {
    i: i32,
    l: i64,
    ll: i64,
    s: i16,
    d: f64,
    name: [u8; 8],
    m: [[f64; 4]; 3],
    nest: Inner,
}

/// The same fields, but a record that lacks `ll` is accepted: it takes `ll` from `Default`.
#[derive(Marshal, Debug, PartialEq, Clone)]
#[marshal(default_missing)]
struct SampleOrDefault {
    i: i32,
    l: i64,
    ll: i64,
    s: i16,
    d: f64,
    name: [u8; 8],
    m: [[f64; 4]; 3],
    nest: Inner,
}

impl Default for SampleOrDefault {
    fn default() -> Self {
        SampleOrDefault {
            i: 0,
            l: 0,
            ll: 42,
            s: 0,
            d: 0.0,
            name: [0; 8],
            m: [[0.0; 4]; 3],
            nest: Inner::default(),
        }
    }
}

/// What the C program writes for record `k` (see `fill_common` there).
fn expected(k: i64) -> Sample {
    let mut name = [0u8; 8];
    let s = format!("rec{}", k % 1000);
    name[..s.len()].copy_from_slice(s.as_bytes());
    let mut m = [[0.0; 4]; 3];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = (k * 100 + r as i64 * 10 + c as i64) as f64 + 0.5;
        }
    }
    Sample {
        i: 1000 * k as i32 - 7,
        l: -100_000 * k + 3,
        ll: 1_000_000_000_000 * k + 5,
        s: (-3 * k) as i16,
        d: 0.5 * k as f64 + 0.25,
        name,
        m,
        nest: Inner {
            s: (k + 1) as i16,
            d: -1.5 * k as f64,
        },
    }
}

const COUNT: usize = 7;

struct Sender {
    /// The compiler command and its flags.
    cc: &'static [&'static str],
    /// How to run the program (an emulator), if not directly.
    run: &'static [&'static str],
    packages: &'static str,
}

const I386: Sender = Sender {
    cc: &["gcc", "-m32"],
    run: &[],
    packages: "libc6-dev-i386 lib32gcc-12-dev",
};
const S390X: Sender = Sender {
    cc: &["s390x-linux-gnu-gcc", "-static"],
    run: &["qemu-s390x"],
    packages: "gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user",
};
const HOST: Sender = Sender {
    cc: &["gcc"],
    run: &[],
    packages: "gcc",
};

/// The sender's formats (`sample`, `shuffled`) and its records.
struct Output {
    sample: Format,
    shuffled: Format,
    records: Vec<u8>,
}

fn run_sender(tag: &str, s: &Sender) -> Output {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ndr-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("c/ndr_sender.c");
    let exe = dir.join("ndr_sender");
    let status = Command::new(s.cc[0])
        .args(&s.cc[1..])
        .args(["-O2", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "{tag} sender: cannot run `{}` ({e}): apt-get install {}",
                s.cc[0], s.packages
            )
        });
    assert!(
        status.success(),
        "{tag} sender: `{}` failed to compile {}: apt-get install {}",
        s.cc.join(" "),
        src.display(),
        s.packages
    );
    let records = dir.join("records.bin");
    let mut cmd = match s.run {
        [] => Command::new(&exe),
        [emu, rest @ ..] => {
            let mut c = Command::new(emu);
            c.args(rest).arg(&exe);
            c
        }
    };
    let out = cmd
        .arg(&records)
        .arg(COUNT.to_string())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{tag} sender: cannot run it ({e}): apt-get install {}",
                s.packages
            )
        });
    assert!(
        out.status.success(),
        "{tag} sender failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let facts = String::from_utf8(out.stdout).unwrap();
    let (sample, shuffled) = formats_from_facts(&facts);
    Output {
        sample,
        shuffled,
        records: std::fs::read(&records).unwrap(),
    }
}

/// Builds the formats from the C program's facts, as a PBIO user would from `offsetof`.
fn formats_from_facts(facts: &str) -> (Format, Format) {
    let mut order = None;
    let mut records: Vec<(String, usize, Vec<IOField>)> = Vec::new();
    for line in facts.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["order", "big"] => order = Some(ByteOrder::Big),
            ["order", "little"] => order = Some(ByteOrder::Little),
            ["record", name, size] => {
                records.push((name.to_string(), size.parse().unwrap(), vec![]))
            }
            ["field", name, ty, size, off] => records.last_mut().unwrap().2.push(IOField::new(
                name,
                ty,
                size.parse().unwrap(),
                off.parse().unwrap(),
            )),
            _ => panic!("unexpected fact line {line:?}"),
        }
    }
    let order = order.expect("byte order fact");
    let inner = &records[0];
    let inner = Format::from_fields(&inner.0, order, inner.1, &inner.2, &[]).unwrap();
    let mk = |r: &(String, usize, Vec<IOField>)| {
        Format::from_fields(&r.0, order, r.1, &r.2, std::slice::from_ref(&inner)).unwrap()
    };
    (mk(&records[1]), mk(&records[2]))
}

fn check_sender(tag: &str, s: &Sender, order: ByteOrder, long: usize) {
    let out = run_sender(tag, s);
    assert_eq!(out.sample.byte_order(), order, "{tag}");
    assert_eq!(out.sample.field("l").unwrap().size(), long, "{tag}: C long");
    let (n, m) = (out.sample.size(), out.shuffled.size());
    assert_eq!(
        out.records.len(),
        COUNT * (n + m),
        "{tag}: records file size"
    );
    let mut rx = Receiver::new();
    let sample_id = rx.register(out.sample.clone());
    rx.register(out.shuffled.clone());

    for k in 0..COUNT {
        let rec = &out.records[k * n..(k + 1) * n];
        let want = expected(k as i64);
        // Fixed records straight from the sender's bytes…
        assert_eq!(
            rx.convert::<Sample>(&out.sample, rec).unwrap(),
            want,
            "{tag} record {k}"
        );
        // …and as messages whose header names the registered format.
        let msg = message_from_body(sample_id, rec).unwrap();
        assert_eq!(
            rx.decode::<Sample>(&msg).unwrap(),
            want,
            "{tag} message {k}"
        );
    }

    // The shuffled struct: an extra field first, the rest in another order, `ll` missing.
    let base = COUNT * n;
    for k in 0..COUNT {
        let rec = &out.records[base + k * m..base + (k + 1) * m];
        let e = rx.convert::<Sample>(&out.shuffled, rec).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Incompatible(_)), "{tag}: {e}");
        assert!(e.to_string().contains("no field `ll`"), "{tag}: {e}");
        let got = rx.convert::<SampleOrDefault>(&out.shuffled, rec).unwrap();
        let w = expected(k as i64);
        let want = SampleOrDefault {
            i: w.i,
            l: w.l,
            ll: 42,
            s: w.s,
            d: w.d,
            name: w.name,
            m: w.m,
            nest: w.nest,
        };
        assert_eq!(got, want, "{tag} shuffled record {k}");
    }
    // A truncated record is an error, not a panic or a guess.
    let e = rx
        .convert::<Sample>(&out.sample, &out.records[..n - 1])
        .unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::UnexpectedEnd { .. }),
        "{tag}: {e}"
    );
}

#[test]
fn i386_sender() {
    check_sender("i386", &I386, ByteOrder::Little, 4);
}

#[test]
fn s390x_sender() {
    check_sender("s390x", &S390X, ByteOrder::Big, 8);
}

#[test]
fn host_sender() {
    check_sender(
        "host",
        &HOST,
        ByteOrder::native(),
        core::mem::size_of::<std::ffi::c_long>(),
    );
}

/// The layouts really differ: otherwise the test would prove nothing about conversion.
#[test]
fn the_senders_layouts_differ_from_ours() {
    let i386 = run_sender("i386-layout", &I386).sample;
    let s390x = run_sender("s390x-layout", &S390X).sample;
    let ours = Format::of::<Sample>();
    assert_ne!(i386.size(), ours.size());
    assert_ne!(
        i386.field("d").unwrap().offset() % 8,
        0,
        "i386 aligns doubles to 4 in structs"
    );
    assert_eq!(s390x.byte_order(), ByteOrder::Big);
    assert_ne!(i386.id(), ours.id());
    assert_ne!(s390x.id(), ours.id());
}
