//! CDR byte-exactness against omniORB: the same IDL values (`peers/omniorb/idl/flick.idl`)
//! encoded by omniORB's generated marshaling code (into a `cdrMemoryStream`) and by marshal
//! (the sequences as the workloads' derived types, the rest as the types marshal-build
//! generates from the same IDL, `workloads::bench_object`) give identical bytes, in both byte orders, and each side decodes the other's bytes. omniORB
//! is built during the tests; if it is missing the build fails, so these never skip.

use marshal::cdr::{from_encapsulation, from_slice, to_encapsulation, to_vec, ByteOrder};
use omniorb_peer as omni;
use workloads::bench_object::{self as idl, sample_prims, Color, Oops, Prims, Shape};
use workloads::{dirents, ints, rects, DirEntry, Rect, Stat};

const ORDERS: [(ByteOrder, omni::Order); 2] = [
    (ByteOrder::Big, omni::Order::Big),
    (ByteOrder::Little, omni::Order::Little),
];

fn omni_rect(r: &Rect) -> [i32; 4] {
    [r.a.x, r.a.y, r.b.x, r.b.y]
}

fn omni_dirent(d: &DirEntry) -> omni::DirEntry {
    omni::DirEntry {
        name: d.name.clone(),
        ints: d.st.ints,
        chars: d.st.chars,
    }
}

fn omni_prims(p: &Prims<'_>) -> omni::Prims {
    omni::Prims {
        o: p.o,
        b: p.b,
        c: p.c,
        s: p.s,
        us: p.us,
        l: p.l,
        ul: p.ul,
        ll: p.ll,
        ull: p.ull,
        f: p.f,
        d: p.d,
        str: p.str.to_string(),
        color: match p.col {
            Color::Red => 0,
            Color::Green => 1,
            Color::Blue => 2,
        },
    }
}

fn omni_shape(s: &Shape<'_>) -> omni::Shape {
    match s {
        Shape::V0(v) => omni::Shape::Int(*v),
        Shape::V1(v) => omni::Shape::Str(v.to_string()),
        Shape::Default(d, r) => omni::Shape::Other(*d, [r.a.x, r.a.y, r.b.x, r.b.y]),
    }
}

/// The workload's first rectangle, as the generated type.
fn idl_rect() -> idl::Rect {
    let r = rects(1)[0];
    idl::Rect {
        a: idl::Point { x: r.a.x, y: r.a.y },
        b: idl::Point { x: r.b.x, y: r.b.y },
    }
}

fn samples_shape() -> Vec<Shape<'static>> {
    vec![
        Shape::V0(-7),
        Shape::V1("seven".into()),
        Shape::V1("".into()),
        Shape::Default(7, idl_rect()),
        Shape::Default(-3, idl_rect()),
    ]
}

#[test]
fn int_sequences_match_omniorb() {
    for n in [0, 1, 2, 1000] {
        let v = ints(n);
        for (o, oo) in ORDERS {
            let ours = to_vec(&v, o).unwrap();
            assert_eq!(ours, omni::encode_ints(oo, &v), "{n} ints, {o:?}");
            assert_eq!(omni::decode_ints(oo, &ours).unwrap(), v);
            assert_eq!(from_slice::<Vec<i32>>(&ours, o).unwrap(), v);
        }
    }
}

#[test]
fn rect_sequences_match_omniorb() {
    for n in [0, 1, 3, 500] {
        let v = rects(n);
        let c: Vec<[i32; 4]> = v.iter().map(omni_rect).collect();
        for (o, oo) in ORDERS {
            let ours = to_vec(&v, o).unwrap();
            assert_eq!(ours, omni::encode_rects(oo, &c), "{n} rects, {o:?}");
            assert_eq!(omni::decode_rects(oo, &ours).unwrap(), c);
            assert_eq!(from_slice::<Vec<Rect>>(&ours, o).unwrap(), v);
        }
    }
}

#[test]
fn dirent_sequences_match_omniorb() {
    let mut v = dirents(20);
    // Names of every length modulo 4 and the bounds, so the padding before each stat record
    // varies.
    for (i, d) in v.iter_mut().enumerate() {
        d.name.truncate(i % 9);
    }
    v[19].name = "x".repeat(255);
    let c: Vec<omni::DirEntry> = v.iter().map(omni_dirent).collect();
    for (o, oo) in ORDERS {
        let ours = to_vec(&v, o).unwrap();
        assert_eq!(ours, omni::encode_dirents(oo, &c), "{o:?}");
        assert_eq!(omni::decode_dirents(oo, &ours).unwrap(), c);
        assert_eq!(from_slice::<Vec<DirEntry>>(&ours, o).unwrap(), v);
    }
    // string<255>: a longer name fails on both sides of the wire.
    let mut long = v[19].clone();
    long.name.push('y');
    assert!(to_vec(&vec![long.clone()], ByteOrder::Big).is_err());
    let mut forged = to_vec(&vec![v[19].clone()], ByteOrder::Big).unwrap();
    forged[4..8].copy_from_slice(&257u32.to_be_bytes()); // 256 characters + NUL
    let e = from_slice::<Vec<DirEntry>>(&forged, ByteOrder::Big).unwrap_err();
    assert_eq!(
        e.to_string(),
        "[0].name: length 256 exceeds max_len 255 at offset 4"
    );
}

#[test]
fn prims_match_omniorb_including_padding() {
    for p in sample_prims() {
        for (o, oo) in ORDERS {
            let ours = to_vec(&p, o).unwrap();
            assert_eq!(ours, omni::encode_prims(oo, &omni_prims(&p)), "{p:?} {o:?}");
            assert_eq!(omni::decode_prims(oo, &ours).unwrap(), omni_prims(&p));
            assert_eq!(from_slice::<Prims<'_>>(&ours, o).unwrap(), p);

            let enc = to_encapsulation(&p, o).unwrap();
            assert_eq!(enc, omni::encode_encapsulated_prims(oo, &omni_prims(&p)));
            assert_eq!(from_encapsulation::<Prims<'_>>(&enc).unwrap(), p);
        }
    }
    // The layout, spelled out for the first sample in big-endian: octet, boolean, char, pad,
    // short, unsigned short, pad, long, unsigned long, pad to 16... (CORBA 3, 9.3.1).
    let b = to_vec(&sample_prims()[0], ByteOrder::Big).unwrap();
    assert_eq!(&b[..8], [0xab, 1, 0xfb, 0, 0xff, 0xfe, 0xff, 0xfe]);
    assert_eq!(&b[8..16], [0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    // The enum is its ordinal: `blue` is 2.
    assert_eq!(&b[b.len() - 4..], [0, 0, 0, 2]);
}

#[test]
fn unions_and_exceptions_match_omniorb() {
    for s in samples_shape() {
        for (o, oo) in ORDERS {
            let ours = to_vec(&s, o).unwrap();
            assert_eq!(ours, omni::encode_shape(oo, &omni_shape(&s)), "{s:?} {o:?}");
            assert_eq!(omni::decode_shape(oo, &ours).unwrap(), omni_shape(&s));
            assert_eq!(from_slice::<Shape<'_>>(&ours, o).unwrap(), s);
        }
    }
    // A default arm may not hold a tagged variant's discriminant.
    let e = to_vec(&Shape::Default(1, idl_rect()), ByteOrder::Big).unwrap_err();
    assert!(e.to_string().contains("belongs to variant V1"), "{e}");
    for (o, oo) in ORDERS {
        let oops = Oops {
            code: 42,
            why: "failed 42".into(),
        };
        assert_eq!(
            to_vec(&oops, o).unwrap(),
            omni::encode_oops(oo, 42, "failed 42")
        );
    }
}

#[test]
fn fixed_arrays_have_no_length_and_octet_arrays_no_padding() {
    let st = Stat {
        ints: [1; 30],
        chars: [2; 16],
    };
    let b = to_vec(&st, ByteOrder::Little).unwrap();
    assert_eq!(b.len(), 136);
    assert_eq!(&b[..4], [1, 0, 0, 0]);
    assert_eq!(&b[120..], [2; 16]);
}
