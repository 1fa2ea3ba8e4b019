//! The NDR engines through the receiver (feature `jit`): compiled conversions give what the
//! interpreter gives, engines compile when they say they do, the tiered engine compiles the
//! hot formats within its budget, and compiled code is freed when formats come and go.

#![cfg(feature = "jit")]

use marshal::ndr::{
    message_from_body, to_body, to_message, ByteOrder, Engine, Format, IOField, Receiver, Stats,
    HEADER_LEN,
};
use marshal::Marshal;
use workloads::ksdata::{big_endian_message, Ks1k};

/// The big-endian sender's message for `v`, its record preceded by `extra` unknown 8-byte
/// words (`extra = 0`: the plain big-endian layout).
fn foreign(v: &Ks1k, extra: usize) -> (Format, Vec<u8>) {
    let local = Format::of::<Ks1k>();
    let (be, msg) = big_endian_message(&local, &to_body(v).unwrap());
    if extra == 0 {
        return (be, msg);
    }
    let shift = 8 * extra;
    let mut fields = vec![IOField::new(
        &format!("Cx{extra}"),
        &format!("integer[{}]", 2 * extra),
        4,
        0,
    )];
    fields.extend(be.io_fields().into_iter().map(|mut f| {
        f.offset += shift;
        f
    }));
    let f = Format::from_fields("Ks1k", ByteOrder::Big, be.size() + shift, &fields, &[]).unwrap();
    let mut body = vec![0x11; shift];
    body.extend_from_slice(&msg[HEADER_LEN..]);
    let m = message_from_body(f.id(), &body).unwrap();
    (f, m)
}

#[test]
fn jit_engine_compiles_on_first_use_and_agrees() {
    let v = Ks1k::sample(3);
    let (be, msg) = foreign(&v, 0);
    let mut jit = Receiver::with_engine(Engine::Jit);
    let mut int = Receiver::with_engine(Engine::Interpreter);
    jit.register(be.clone());
    int.register(be.clone());
    assert!(!jit.is_compiled::<Ks1k>(be.id()));
    assert_eq!(jit.decode::<Ks1k>(&msg).unwrap(), *v);
    assert!(jit.is_compiled::<Ks1k>(be.id()));
    let s = jit.stats();
    assert_eq!(s.compiled_plans, 1);
    assert_eq!(s.compiled_conversions, 1);
    assert_eq!(s.interpreted_conversions, 0);
    assert!(s.code_bytes > 0 && s.compile_nanos > 0, "{s:?}");

    let mut a = Ks1k::sample(0);
    let mut b = Ks1k::sample(1);
    jit.decode_into(&msg, &mut *a).unwrap();
    int.decode_into(&msg, &mut *b).unwrap();
    assert_eq!(a, b);
    assert_eq!(jit.stats().compiled_conversions, 2);
    assert_eq!(int.stats().interpreted_conversions, 1);
    assert_eq!(int.stats().compiled_plans, 0);
}

#[test]
fn same_layout_counts_as_neither() {
    let v = Ks1k::sample(5);
    let msg = to_message(&*v).unwrap();
    let mut rx = Receiver::with_engine(Engine::Jit);
    rx.register(Format::of::<Ks1k>());
    for _ in 0..3 {
        assert_eq!(rx.decode::<Ks1k>(&msg).unwrap(), *v);
    }
    assert_eq!(rx.stats(), Stats::default());
}

#[test]
fn zero_budget_compiles_nothing() {
    let v = Ks1k::sample(1);
    let (be, msg) = foreign(&v, 0);
    let mut rx = Receiver::with_engine(Engine::Tiered { budget_bytes: 0 });
    rx.register(be);
    let mut out = Ks1k::sample(0);
    for _ in 0..1000 {
        rx.decode_into(&msg, &mut *out).unwrap();
    }
    assert_eq!(out, v);
    let s = rx.stats();
    assert_eq!(
        (s.compiled_plans, s.code_bytes, s.compiled_conversions),
        (0, 0, 0)
    );
    assert_eq!(s.interpreted_conversions, 1000);
}

/// Errors from compiled code are the interpreter's: a body one byte short, and a value that
/// does not fit the local type.
#[test]
fn errors_are_the_interpreters() {
    let v = Ks1k::sample(2);
    let (be, msg) = foreign(&v, 0);
    let short = message_from_body(be.id(), &msg[HEADER_LEN..msg.len() - 1]).unwrap();
    // `Cnstatv` sent as a 64-bit integer that does not fit the local `i32`.
    #[derive(Marshal, Debug, PartialEq, Default)]
    #[repr(C)]
    struct Narrow {
        id: i32,
        x: f32,
    }
    let wide = Format::from_fields(
        "Narrow",
        ByteOrder::Big,
        16,
        &[
            IOField::new("id", "integer", 8, 0),
            IOField::new("x", "float", 8, 8),
        ],
        &[],
    )
    .unwrap();
    let mut body = (1i64 << 40).to_be_bytes().to_vec();
    body.extend_from_slice(&1.5f64.to_be_bytes());
    let too_big = message_from_body(wide.id(), &body).unwrap();
    let mut body = 7i64.to_be_bytes().to_vec();
    body.extend_from_slice(&1e300f64.to_be_bytes());
    let inf = message_from_body(wide.id(), &body).unwrap();

    let mut jit = Receiver::with_engine(Engine::Jit);
    let mut int = Receiver::with_engine(Engine::Interpreter);
    for rx in [&mut jit, &mut int] {
        rx.register(be.clone());
        rx.register(wide.clone());
    }
    let e1 = jit.decode::<Ks1k>(&short).unwrap_err();
    assert_eq!(
        format!("{e1:?}"),
        format!("{:?}", int.decode::<Ks1k>(&short).unwrap_err())
    );
    let e2 = jit.decode::<Narrow>(&too_big).unwrap_err();
    assert_eq!(
        format!("{e2:?}"),
        format!("{:?}", int.decode::<Narrow>(&too_big).unwrap_err())
    );
    assert!(e2.to_string().contains("does not fit i32"), "{e2}");
    let e3 = jit.decode::<Narrow>(&inf).unwrap_err();
    assert_eq!(
        format!("{e3:?}"),
        format!("{:?}", int.decode::<Narrow>(&inf).unwrap_err())
    );
    assert!(e3.to_string().contains("f32"), "{e3}");
    let mut ok = 7i64.to_be_bytes().to_vec();
    ok.extend_from_slice(&1.5f64.to_be_bytes());
    let ok = message_from_body(wide.id(), &ok).unwrap();
    assert_eq!(jit.decode::<Narrow>(&ok).unwrap(), Narrow { id: 7, x: 1.5 });
    assert_eq!(jit.stats().compiled_plans, 2);
    assert_eq!(jit.stats().interpreted_conversions, 0);
}

/// 1,000 messages in 10 formats with skewed frequencies, under a budget that holds about
/// three plans: the hottest formats end compiled and the code stays within the budget.
#[test]
fn tiered_compiles_the_hot_formats_within_budget() {
    let v = Ks1k::sample(9);
    let senders: Vec<(Format, Vec<u8>)> = (0..10).map(|k| foreign(&v, k)).collect();
    // One plan's size, to set the budget.
    let mut probe = Receiver::with_engine(Engine::Jit);
    probe.register(senders[0].0.clone());
    probe.decode::<Ks1k>(&senders[0].1).unwrap();
    let one = probe.stats().code_bytes as usize;
    let budget = one * 7 / 2;

    let mut rx = Receiver::with_engine(Engine::Tiered {
        budget_bytes: budget,
    });
    for (f, _) in &senders {
        rx.register(f.clone());
    }
    // Format k has weight 1/(k+1)^2: 0 and 1 carry about 80% of the messages.
    let weights: Vec<f64> = (0..10).map(|k| 1.0 / ((k + 1) * (k + 1)) as f64).collect();
    let total: f64 = weights.iter().sum();
    let mut order = Vec::new();
    for (k, w) in weights.iter().enumerate() {
        let n = (1000.0 * w / total).round() as usize;
        order.extend(std::iter::repeat_n(k, n.max(1)));
    }
    order.truncate(1000);
    while order.len() < 1000 {
        order.push(0);
    }
    // A deterministic shuffle.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let mut out = Ks1k::sample(0);
    for &k in &order {
        rx.decode_into(&senders[k].1, &mut *out).unwrap();
        assert_eq!(out, v);
        assert!(rx.stats().code_bytes as usize <= budget, "{:?}", rx.stats());
    }
    let s = rx.stats();
    assert_eq!(s.interpreted_conversions + s.compiled_conversions, 1000);
    assert!(rx.is_compiled::<Ks1k>(senders[0].0.id()), "{s:?}");
    assert!(rx.is_compiled::<Ks1k>(senders[1].0.id()), "{s:?}");
    let compiled = (0..10)
        .filter(|&k| rx.is_compiled::<Ks1k>(senders[k].0.id()))
        .count();
    assert!((2..=3).contains(&compiled), "{compiled} compiled: {s:?}");
    assert!(
        s.compiled_conversions > s.interpreted_conversions,
        "the hot formats ran compiled most of the time: {s:?}"
    );
}

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Formats that come and go: each is registered, used, compiled and forgotten; its code is
/// freed, so code and resident memory stay flat. Without `forget`, the budget evicts.
#[test]
fn code_is_freed_when_formats_come_and_go() {
    let v = Ks1k::sample(4);
    let mut rx = Receiver::with_engine(Engine::Jit);
    let mut out = Ks1k::sample(0);
    let mut cycle = |rx: &mut Receiver, k: usize| {
        let (f, msg) = foreign(&v, 1 + k % 50);
        // A distinct format each time: the name of the extra field changes.
        let mut fields = f.io_fields();
        fields[0].name = format!("Cx{k}");
        let f = Format::from_fields("Ks1k", ByteOrder::Big, f.size(), &fields, &[]).unwrap();
        let msg = message_from_body(f.id(), &msg[HEADER_LEN..]).unwrap();
        rx.register(f.clone());
        rx.decode_into(&msg, &mut *out).unwrap();
        assert!(rx.forget(f.id()));
    };
    for k in 0..300 {
        cycle(&mut rx, k);
    }
    let before = rss_bytes();
    for k in 300..3300 {
        cycle(&mut rx, k);
    }
    let grown = rss_bytes().saturating_sub(before);
    let s = rx.stats();
    assert_eq!(s.compiled_plans, 3300);
    assert_eq!(s.code_bytes, 0, "{s:?}");
    // 3,000 modules of at least one 4 KiB page each would be 12 MiB if never freed.
    assert!(grown < 4 << 20, "resident memory grew by {grown} bytes");

    // Without forgetting, the budget bounds the code.
    let budget = 20_000;
    let mut rx = Receiver::with_engine(Engine::Tiered {
        budget_bytes: budget,
    });
    for k in 0..40 {
        let (f, msg) = foreign(&v, 1 + k);
        rx.register(f);
        for _ in 0..70 {
            rx.decode_into(&msg, &mut *out).unwrap();
            assert!(rx.stats().code_bytes as usize <= budget);
        }
    }
    assert!(rx.stats().compiled_plans > 0, "{:?}", rx.stats());
}

/// Two generic types whose layouts are the same, in two modules: their `RECORD` constants are
/// equal, so the compiler may put them at one address, or the same one at several.
mod twin_a {
    #[derive(marshal::Marshal, Debug, PartialEq, Clone, Copy, Default)]
    pub struct Twin<T> {
        pub x: T,
        pub y: u16,
    }
}
mod twin_b {
    #[derive(marshal::Marshal, Debug, PartialEq, Clone, Copy, Default)]
    pub struct Twin<T> {
        pub x: T,
        pub y: u16,
    }
}

#[test]
fn caches_are_per_type_not_per_constant_address() {
    use marshal::ndr::Record;
    type A = twin_a::Twin<u32>;
    type B = twin_b::Twin<u32>;
    // One native format per type: equal descriptions, two entries.
    assert_eq!(A::format(), B::format());
    assert!(!core::ptr::eq(A::format(), B::format()));
    assert!(core::ptr::eq(A::format(), A::format()));
    // One plan (and one compiled code) per (incoming format, type). Keyed by the address of
    // `RECORD`, B was found compiled before it was ever decoded: its record shared A's address.
    let f = Format::from_fields(
        "Twin",
        ByteOrder::Big,
        8,
        &[
            IOField::new("x", "unsigned integer", 4, 0),
            IOField::new("y", "unsigned integer", 2, 4),
        ],
        &[],
    )
    .unwrap();
    let mut body = 7u32.to_be_bytes().to_vec();
    body.extend_from_slice(&[0, 9, 0, 0]);
    let msg = message_from_body(f.id(), &body).unwrap();
    let mut rx = Receiver::with_engine(Engine::Jit);
    rx.register(f.clone());
    assert_eq!(rx.decode::<A>(&msg).unwrap(), twin_a::Twin { x: 7, y: 9 });
    assert!(rx.is_compiled::<A>(f.id()));
    assert!(!rx.is_compiled::<B>(f.id()));
    assert_eq!(rx.decode::<B>(&msg).unwrap(), twin_b::Twin { x: 7, y: 9 });
    assert!(rx.is_compiled::<B>(f.id()));
    assert_eq!(rx.stats().compiled_plans, 2);
}
