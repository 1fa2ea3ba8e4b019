//! Property tests of the CDR encoders and decoders: round trips in both byte orders and at
//! every origin offset (through encapsulations, whose origin is the flag octet), and arbitrary
//! or mutated bytes never making a decoder panic.

use bytes::{BufMut, BytesMut};
use marshal::cdr::{
    encode_into, from_encapsulation, from_slice, to_encapsulation, to_vec, ByteOrder,
};
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
    packed: Packed,
}

/// A struct of constant layout (`Shape::Fixed`), decoded from one segment: mixed alignments,
/// and members that can fail (a boolean, an enum ordinal) inside a nested fixed struct.
#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
struct Packed {
    l: i32,
    o: u8,
    s: i16,
    b: bool,
    c: Color,
    inner: Inner,
    tail: u8,
}

#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
struct Inner {
    x: i32,
    flag: bool,
}

#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
enum Color {
    Red,
    Green,
    Blue,
}

/// Fixed per start phase (`Shape::Phased`): a double after an octet lands 7 bytes later from
/// an aligned start and 1 byte later from 7 past one; decoded from one segment per phase.
#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
struct Phases {
    o: u8,
    d: f64,
    s: i16,
    c: Color,
    b: bool,
    inner: Inner,
}

/// Phased values nested in a phased struct, and in an array of them.
#[derive(Marshal, Debug, Clone, Copy, PartialEq)]
struct Outer {
    t: u8,
    p: [Phases; 2],
    l: i64,
}

#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(discriminant = i16)]
enum Small {
    #[marshal(tag = -1)]
    Neg(u8),
    #[marshal(tag = 5)]
    Five(f64, #[marshal(max_len = 6)] String),
    #[marshal(default)]
    Rest(i16, Vec<Rect>),
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
        packed(),
    )
        .prop_map(|(o, d, s, name, ll, flags, maybe, fixed, packed)| Mixed {
            o,
            d,
            s,
            name,
            ll,
            flags,
            maybe: maybe.map(|(x, y)| Box::new(Point { x, y })),
            fixed,
            packed,
        })
}

fn packed() -> impl Strategy<Value = Packed> {
    let color = prop_oneof![Just(Color::Red), Just(Color::Green), Just(Color::Blue)];
    (any::<(i32, u8, i16, bool, i32, bool, u8)>(), color).prop_map(
        |((l, o, s, b, x, flag, tail), c)| Packed {
            l,
            o,
            s,
            b,
            c,
            inner: Inner { x, flag },
            tail,
        },
    )
}

fn phases() -> impl Strategy<Value = Phases> {
    let color = prop_oneof![Just(Color::Red), Just(Color::Green), Just(Color::Blue)];
    (any::<(u8, f64, i16, bool, i32, bool)>(), color).prop_map(|((o, d, s, b, x, flag), c)| {
        Phases {
            o,
            // NaN != NaN: keep the comparison meaningful.
            d: if d.is_nan() { 0.5 } else { d },
            s,
            c,
            b,
            inner: Inner { x, flag },
        }
    })
}

fn small() -> impl Strategy<Value = Small> {
    prop_oneof![
        any::<u8>().prop_map(Small::Neg),
        (-1e9f64..1e9, "[a-z]{0,6}").prop_map(|(d, s)| Small::Five(d, s)),
        (
            any::<i16>().prop_filter("tagged", |d| *d != -1 && *d != 5),
            vec(rect(), 0..4)
        )
            .prop_map(|(d, r)| Small::Rest(d, r)),
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

    /// `encode_into` writes what `to_vec` does, its origin at the first byte written, after
    /// what the buffer holds: in one pass when the buffer has room, measured and handed over
    /// when it has not; into a slice of exactly the size, and not into one a byte short.
    #[test]
    fn encode_into_writes_what_to_vec_does(
        v in mixed(),
        d in vec(dirent(), 0..5),
        o in order(),
    ) {
        let v = (v, d);
        let bytes = to_vec(&v, o).unwrap();
        for cap in [0, 3, bytes.len() + 3, bytes.len() + 64] {
            let mut buf = BytesMut::with_capacity(cap);
            buf.put_slice(b"pre");
            encode_into(&v, o, &mut buf).unwrap();
            prop_assert_eq!(&buf[..3], b"pre");
            prop_assert_eq!(&buf[3..], &bytes[..], "cap {}", cap);
        }
        let mut exact = vec![0u8; bytes.len()];
        encode_into(&v, o, &mut &mut exact[..]).unwrap();
        prop_assert_eq!(&exact, &bytes);
        let mut short = vec![0u8; bytes.len() - 1];
        prop_assert!(encode_into(&v, o, &mut &mut short[..]).is_err());
    }

    /// Phased structs at every start phase (after an octet sequence of 0..16 bytes): they
    /// round-trip, and decode to what the same fields read one by one (a tuple) decode to.
    #[test]
    fn phased_structs_round_trip_at_every_phase(
        pre in vec(any::<u8>(), 0..16),
        a in phases(),
        b in phases(),
        t in any::<u8>(),
        l in any::<i64>(),
        o in order(),
    ) {
        let v = (pre, Outer { t, p: [a, b], l });
        let bytes = to_vec(&v, o).unwrap();
        prop_assert_eq!(from_slice::<(Vec<u8>, Outer)>(&bytes, o).unwrap(), v.clone());
        let by_fields = from_slice::<(Vec<u8>, u8, Phases, (u8, f64, i16, Color, bool, Inner), i64)>(&bytes, o).unwrap();
        let p1 = by_fields.3;
        prop_assert_eq!(
            (by_fields.1, by_fields.2, Phases { o: p1.0, d: p1.1, s: p1.2, c: p1.3, b: p1.4, inner: p1.5 }, by_fields.4),
            (t, a, b, l)
        );
        // Encoded field by field (a tuple), the bytes are the same.
        let tuple = |p: Phases| (p.o, p.d, p.s, p.c, p.b, p.inner);
        let by_fields = to_vec(&(v.0.clone(), t, tuple(a), [tuple(b)], l), o).unwrap();
        prop_assert_eq!(&bytes, &by_fields);
        let e = to_encapsulation(&v.1, o).unwrap();
        prop_assert_eq!(from_encapsulation::<Outer>(&e).unwrap(), v.1);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in vec(any::<u8>(), 0..200), o in order()) {
        let _ = from_slice::<Mixed>(&b, o);
        let _ = from_slice::<Small>(&b, o);
        let _ = from_slice::<Vec<DirEntry>>(&b, o);
        let _ = from_slice::<Vec<Vec<String>>>(&b, o);
        let _ = from_slice::<(Vec<u8>, Outer)>(&b, o);
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

/// Encoding a value nested beyond the depth limit fails too, also in one pass into a buffer
/// with room (`encode_into`, which does not measure first), and commits nothing.
#[test]
fn deep_values_are_an_encoding_error() {
    let e = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(|| {
            let mut t = Tree { kids: Vec::new() };
            for _ in 0..1000 {
                t = Tree { kids: vec![t] };
            }
            assert!(to_vec(&t, ByteOrder::Big).is_err());
            let mut buf = Vec::with_capacity(1 << 16);
            let e = encode_into(&t, ByteOrder::Little, &mut buf).unwrap_err();
            assert!(buf.is_empty());
            e.to_string()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(e.contains("nesting deeper than the limit"), "{e}");
}

/// Each level is left as it was entered: a thousand unions and recursive structs side by side
/// (not nested) encode, in one pass and measured.
#[test]
fn depth_levels_are_given_back() {
    let unions = vec![XResult::Int(7); 1000];
    let trees: Vec<Tree> = (0..1000)
        .map(|_| Tree {
            kids: vec![Tree { kids: Vec::new() }],
        })
        .collect();
    let v = (unions, trees);
    let bytes = to_vec(&v, ByteOrder::Little).unwrap();
    let mut buf = Vec::with_capacity(bytes.len());
    encode_into(&v, ByteOrder::Little, &mut buf).unwrap();
    assert_eq!(buf, bytes);
}

/// A value the encoder refuses (a NUL inside a string) gives `to_vec`'s error whether the
/// buffer has room or not, and commits nothing.
#[test]
fn encode_into_errors_are_those_of_to_vec() {
    let mut d = workloads::dirents(3);
    d[2].name = "nul\0inside".into();
    let want = to_vec(&d, ByteOrder::Big).unwrap_err().to_string();
    for cap in [0, 1 << 16] {
        let mut buf = Vec::with_capacity(cap);
        buf.push(1);
        let e = encode_into(&d, ByteOrder::Big, &mut buf).unwrap_err();
        assert_eq!(e.to_string(), want);
        assert_eq!(buf, [1]);
    }
}

#[test]
fn shapes_of_derived_types() {
    use marshal::__private::iiop::Shape;
    use marshal::cdr::Decode;
    fn shape<T: for<'de> Decode<'de>>() -> Shape {
        <T as Decode<'_>>::SHAPE
    }
    assert_eq!(shape::<Stat>(), Shape::fixed(4, 136));
    assert_eq!(shape::<Rect>(), Shape::fixed(4, 16));
    assert_eq!(shape::<Inner>(), Shape::fixed(4, 5));
    // l 0..4, o 4, s 6..8, b 8, c 12..16, inner 16..21, tail 21.
    assert_eq!(shape::<Packed>(), Shape::fixed(4, 22));
    assert_eq!(shape::<Color>(), Shape::fixed(4, 4));
    // After an octet, `Packed`'s leading padding depends on where the octet is.
    assert_eq!(
        shape::<(u8, Packed)>(),
        Shape::Phased {
            sizes: [26, 25, 24, 23, 26, 25, 24, 23]
        }
    );
    // o 0, d 8..16, s 16..18, c 20..24, b 24, inner 28..33.
    assert_eq!(shape::<Phases>().phase_sizes().unwrap()[0], 33);
    // From phase 1: o 1, d 8..16, and the rest as above.
    assert_eq!(shape::<Phases>().phase_sizes().unwrap()[1], 32);
    assert!(matches!(shape::<Outer>(), Shape::Phased { .. }));
    assert_eq!(shape::<(String, Phases)>(), Shape::Shallow);
    assert_eq!(shape::<DirEntry>(), Shape::Shallow);
    assert_eq!(shape::<Mixed>(), Shape::Deep);
    assert_eq!(shape::<Tree>(), Shape::Deep);
}

#[test]
fn errors_inside_a_fixed_segment_have_message_offsets() {
    let v = (
        9u8,
        Packed {
            l: -1,
            o: 2,
            s: 3,
            b: true,
            c: Color::Blue,
            inner: Inner { x: 4, flag: false },
            tail: 5,
        },
    );
    for o in [ByteOrder::Big, ByteOrder::Little] {
        let mut b = to_vec(&v, o).unwrap();
        // Padding bytes of any value are accepted (omniORB leaves them stale).
        b[1..4].copy_from_slice(&[0xee; 3]);
        b[9] = 0xee;
        b[13..16].copy_from_slice(&[0xee; 3]);
        assert_eq!(from_slice::<(u8, Packed)>(&b, o).unwrap(), v);
        // The packed struct starts at 4: `c` at 16, `inner.flag` at 24, `tail` at 25.
        let mut bad = b.clone();
        bad[if o == ByteOrder::Big { 19 } else { 16 }] = 7;
        let e = from_slice::<(u8, Packed)>(&bad, o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1].c: unknown discriminant 7 for Color at offset 16"
        );
        let mut bad = b.clone();
        bad[24] = 2;
        let e = from_slice::<(u8, Packed)>(&bad, o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1].inner.flag: invalid boolean 2 (expected 0 or 1) at offset 24"
        );
        let e = from_slice::<(u8, Packed)>(&b[..25], o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1]: unexpected end of input: needed 25 bytes, 24 remain at offset 1"
        );
    }
}

#[test]
fn errors_inside_a_phased_segment_have_message_offsets() {
    let p = Phases {
        o: 1,
        d: 2.5,
        s: 3,
        c: Color::Green,
        b: true,
        inner: Inner { x: 4, flag: true },
    };
    for o in [ByteOrder::Big, ByteOrder::Little] {
        for skip in 0..8usize {
            let v = (vec![0xaau8; skip], p);
            let b = to_vec(&v, o).unwrap();
            // The struct starts after the length and the octets with `o`; `d` is at the next
            // multiple of 8, then `s` (2 bytes), `c` (aligned to 4) and `b` 16 bytes after `d`.
            let start = 4 + skip;
            let d_at = (start + 1).next_multiple_of(8);
            let b_at = d_at + 16;
            assert_eq!(b[b_at], 1, "skip {skip}");
            let mut bad = b.clone();
            bad[b_at] = 9;
            let e = from_slice::<(Vec<u8>, Phases)>(&bad, o).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("[1].b: invalid boolean 9 (expected 0 or 1) at offset {b_at}")
            );
            let e = from_slice::<(Vec<u8>, Phases)>(&b[..b.len() - 1], o).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "[1]: unexpected end of input: needed {} bytes, {} remain at offset {start}",
                    b.len() - start,
                    b.len() - start - 1
                )
            );
        }
    }
}

/// `max_len` on a sequence (checked by peeking at its length) and on a string (checked as the
/// string's length is read), in a struct and in a union arm.
#[derive(Marshal, Debug, PartialEq)]
struct Bounded {
    #[marshal(max_len = 2)]
    ids: Vec<u16>,
    #[marshal(max_len = 3)]
    name: String,
}

#[test]
fn max_len_is_checked_before_anything_is_read() {
    for o in [ByteOrder::Big, ByteOrder::Little] {
        let ok = Bounded {
            ids: vec![1, 2],
            name: "abc".into(),
        };
        let b = to_vec(&ok, o).unwrap();
        assert_eq!(from_slice::<Bounded>(&b, o).unwrap(), ok);
        // Encoded without the bounds: 3 ids, then a name of 4 at offset 12 (its length).
        let b = to_vec(&(vec![1u16, 2, 3], "abcd"), o).unwrap();
        let e = from_slice::<Bounded>(&b, o).unwrap_err();
        assert_eq!(e.to_string(), "ids: length 3 exceeds max_len 2 at offset 0");
        let b = to_vec(&(vec![1u16, 2], "abcd"), o).unwrap();
        let e = from_slice::<Bounded>(&b, o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "name: length 4 exceeds max_len 3 at offset 8"
        );
        // A union arm: discriminant 5 (short), double at 8, string length at 16.
        let b = to_vec(&(5i16, 1.5f64, "seven!!"), o).unwrap();
        let e = from_slice::<Small>(&b, o).unwrap_err();
        assert_eq!(e.to_string(), "1: length 7 exceeds max_len 6 at offset 16");
    }
}
