//! Property tests of the CDR encoders and decoders: round trips in both byte orders and at
//! every origin offset (through encapsulations, whose origin is the flag octet), and arbitrary
//! or mutated bytes never making a decoder panic.

use marshal::cdr::{from_encapsulation, from_slice, to_encapsulation, to_vec, ByteOrder};
use marshal::Marshal;
use proptest::collection::vec;
use proptest::prelude::*;
use workloads::{DirEntry, Point, Rect, Stat, XResult};

#[derive(Marshal, Debug, Clone, PartialEq)]
struct Mixed {
    o: u8,
    d: f64,
    s: i16,
    name: String,
    ll: Vec<i64>,
    flags: Vec<bool>,
    maybe: Option<Box<Point>>,
    fixed: [u16; 3],
}

#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(discriminant = i16)]
enum Small {
    #[marshal(tag = -1)]
    Neg(u8),
    #[marshal(tag = 5)]
    Five(f64, String),
    #[marshal(default)]
    Rest(i32, Vec<Rect>),
}

fn order() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Big), Just(ByteOrder::Little)]
}

fn rect() -> impl Strategy<Value = Rect> {
    any::<[i32; 4]>().prop_map(|[a, b, c, d]| Rect {
        a: Point { x: a, y: b },
        b: Point { x: c, y: d },
    })
}

fn mixed() -> impl Strategy<Value = Mixed> {
    (
        any::<u8>(),
        any::<f64>().prop_filter("NaN is not equal to itself", |d| !d.is_nan()),
        any::<i16>(),
        "[a-z\u{e9}\u{4e2d}]{0,12}",
        vec(any::<i64>(), 0..5),
        vec(any::<bool>(), 0..5),
        proptest::option::of(any::<(i32, i32)>()),
        any::<[u16; 3]>(),
    )
        .prop_map(|(o, d, s, name, ll, flags, maybe, fixed)| Mixed {
            o,
            d,
            s,
            name,
            ll,
            flags,
            maybe: maybe.map(|(x, y)| Box::new(Point { x, y })),
            fixed,
        })
}

fn small() -> impl Strategy<Value = Small> {
    prop_oneof![
        any::<u8>().prop_map(Small::Neg),
        (-1e9f64..1e9, "[a-z]{0,6}").prop_map(|(d, s)| Small::Five(d, s)),
        (
            (-40000i32..40000).prop_filter("tagged", |d| *d != -1 && *d != 5),
            vec(rect(), 0..4)
        )
            .prop_map(|(d, r)| {
                // The discriminant is an i16 on the wire.
                Small::Rest(d.clamp(i16::MIN.into(), i16::MAX.into()), r)
            })
            .prop_filter("tagged", |s| !matches!(s, Small::Rest(-1 | 5, _))),
    ]
}

fn dirent() -> impl Strategy<Value = DirEntry> {
    ("[a-z]{0,40}", any::<[u8; 16]>(), any::<i32>()).prop_map(|(name, chars, i)| DirEntry {
        name,
        st: Stat {
            ints: [i; 30],
            chars,
        },
    })
}

proptest! {
    #[test]
    fn mixed_round_trips(v in mixed(), o in order()) {
        let b = to_vec(&v, o).unwrap();
        prop_assert_eq!(from_slice::<Mixed>(&b, o).unwrap(), v.clone());
        // An encapsulation starts the body at offset 1 of its own origin.
        let e = to_encapsulation(&v, o).unwrap();
        prop_assert_eq!(e[0], o.flag());
        prop_assert_eq!(from_encapsulation::<Mixed>(&e).unwrap(), v);
    }

    #[test]
    fn unions_and_workloads_round_trip(
        s in small(),
        r in vec(rect(), 0..20),
        d in vec(dirent(), 0..5),
        x in prop_oneof![any::<i32>().prop_map(XResult::Int), Just(XResult::Void)],
        o in order(),
    ) {
        let v = (s, r, d, x);
        let b = to_vec(&v, o).unwrap();
        prop_assert_eq!(from_slice::<(Small, Vec<Rect>, Vec<DirEntry>, XResult)>(&b, o).unwrap(), v);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in vec(any::<u8>(), 0..200), o in order()) {
        let _ = from_slice::<Mixed>(&b, o);
        let _ = from_slice::<Small>(&b, o);
        let _ = from_slice::<Vec<DirEntry>>(&b, o);
        let _ = from_slice::<Vec<Vec<String>>>(&b, o);
        let _ = from_encapsulation::<Mixed>(&b);
    }

    #[test]
    fn mutated_encodings_never_panic(v in mixed(), o in order(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut b = to_vec(&v, o).unwrap();
        let i = at.index(b.len());
        b[i] = byte;
        let _ = from_slice::<Mixed>(&b, o);
        b.truncate(i);
        prop_assert!(from_slice::<Mixed>(&b, o).is_err());
    }
}

/// `sequence<sequence<...>>` nested beyond the depth limit fails instead of overflowing the
/// stack.
#[derive(Marshal, Debug)]
struct Tree {
    kids: Vec<Tree>,
}

#[test]
fn deep_nesting_is_an_error() {
    // Each level is one element whose own sequence follows: length 1, length 1, ...
    let mut b = Vec::new();
    for _ in 0..10_000 {
        b.extend_from_slice(&1u32.to_be_bytes());
    }
    b.extend_from_slice(&0u32.to_be_bytes());
    let e = std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || {
            from_slice::<Tree>(&b, ByteOrder::Big)
                .unwrap_err()
                .to_string()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(e.contains("nesting deeper than the limit"), "{e}");
}
