//! NDR through the derive: native formats, messages (padding zeroed, zero-copy sends), and the
//! receiver's conversions matched by name.

use marshal::ndr::{prepare, to_message, ByteOrder, Format, IOField, Kind, Receiver, HEADER_LEN};
use marshal::{ErrorKind, Marshal};

#[derive(Marshal, Debug, PartialEq, Clone, Copy, Default)]
#[repr(C)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Marshal, Debug, PartialEq, Clone)]
struct Padded {
    tag: u8,
    value: f64,
    small: u16,
    flag: bool,
}

#[derive(Marshal, Debug, PartialEq, Clone)]
#[repr(C)]
struct Flat {
    a: u32,
    b: f32,
    pts: [Point; 2],
    m: [[i16; 3]; 2],
}

#[derive(Marshal, Debug, PartialEq, Clone, Default)]
struct Named {
    id: u64,
    name: String,
    path: Vec<Point>,
    scores: Vec<f32>,
    label: [u8; 8],
}

#[test]
fn native_formats_describe_the_layout() {
    let f = Format::of::<Padded>();
    assert_eq!(f.name(), "Padded");
    assert_eq!(f.size(), core::mem::size_of::<Padded>());
    assert_eq!(f.byte_order(), ByteOrder::native());
    let v = f.field("value").unwrap();
    assert_eq!((v.kind(), v.size()), (&Kind::Float, 8));
    assert_eq!(v.offset(), core::mem::offset_of!(Padded, value));
    assert_eq!(f.field("flag").unwrap().kind(), &Kind::Bool);
    assert!(!f.is_zero_copy());

    let g = Format::of::<Flat>();
    assert!(g.is_zero_copy());
    assert_eq!(g.field("m").unwrap().dims(), &[2, 3]);
    let pts = g.field("pts").unwrap();
    assert_eq!(pts.kind(), &Kind::Record("Point".into()));
    assert_eq!(pts.dims(), &[2]);
    assert_eq!(g.nested_format("Point").unwrap(), &Format::of::<Point>());

    let n = Format::of::<Named>();
    assert!(!n.is_zero_copy());
    assert_eq!(n.field("name").unwrap().kind(), &Kind::String);
    assert!(n.field("path").unwrap().is_variable());
    // Descriptions survive their canonical bytes.
    assert_eq!(Format::from_bytes(&n.to_bytes()).unwrap(), n);
}

#[test]
fn padding_is_zero_on_the_wire() {
    // Fill the stack with non-zero bytes first, so stale padding would show.
    let junk = [0xAAu8; 4096];
    std::hint::black_box(&junk);
    let v = Padded {
        tag: 1,
        value: 2.0,
        small: 3,
        flag: true,
    };
    let msg = to_message(&v).unwrap();
    let f = Format::of::<Padded>();
    let body = &msg[HEADER_LEN..];
    assert_eq!(body.len(), f.size());
    let mut covered = vec![false; f.size()];
    for fld in f.fields() {
        for c in &mut covered[fld.offset()..fld.offset() + fld.extent()] {
            *c = true;
        }
    }
    assert!(covered.iter().any(|c| !c), "Padded must have padding");
    for (i, c) in covered.iter().enumerate() {
        if !c {
            assert_eq!(body[i], 0, "padding byte {i} is not zero");
        }
    }
    let out = prepare(&v).unwrap();
    assert!(!out.is_zero_copy());
    let mut rx = Receiver::new();
    rx.register(f);
    assert_eq!(rx.decode::<Padded>(&msg).unwrap(), v);
}

#[test]
fn zero_copy_send_is_the_value_itself() {
    let v = Flat {
        a: 1,
        b: 2.0,
        pts: [Point { x: 3, y: 4 }, Point { x: 5, y: 6 }],
        m: [[1, 2, 3], [4, 5, 6]],
    };
    let out = prepare(&v).unwrap();
    assert!(out.is_zero_copy());
    assert_eq!(out.body().as_ptr(), (&v as *const Flat).cast::<u8>());
    let mut wire = Vec::new();
    out.write_to(&mut wire).unwrap();
    assert_eq!(wire, to_message(&v).unwrap());
    let mut rx = Receiver::new();
    rx.register(Format::of::<Flat>());
    assert_eq!(rx.decode::<Flat>(&wire).unwrap(), v);
    let mut into = Flat {
        a: 0,
        b: 0.0,
        pts: [Point::default(); 2],
        m: [[0; 3]; 2],
    };
    rx.decode_into(&wire, &mut into).unwrap();
    assert_eq!(into, v);
}

#[test]
fn strings_and_vectors_round_trip() {
    let v = Named {
        id: 9,
        name: "héllo".into(),
        path: vec![Point { x: 1, y: 2 }, Point { x: -3, y: 4 }],
        scores: vec![0.5, 1.5, 2.5],
        label: *b"label\0\0\0",
    };
    let msg = to_message(&v).unwrap();
    let mut rx = Receiver::new();
    rx.register(Format::of::<Named>());
    assert_eq!(rx.decode::<Named>(&msg).unwrap(), v);
}

/// A C-described sender: big-endian, narrower integers, other order, an extra field first.
#[test]
fn converts_by_name_from_a_foreign_layout() {
    let point = Format::from_fields(
        "Point",
        ByteOrder::Big,
        4,
        &[
            IOField::new("y", "integer", 2, 0),
            IOField::new("x", "integer", 2, 2),
        ],
        &[],
    )
    .unwrap();
    let theirs = Format::from_fields(
        "Flat",
        ByteOrder::Big,
        56,
        &[
            IOField::new("extra", "float", 8, 0),
            IOField::new("m", "integer[2][3]", 4, 8),
            IOField::new("pts", "Point[2]", 4, 32),
            IOField::new("a", "unsigned integer", 2, 40),
            IOField::new("b", "float", 8, 48),
        ],
        &[point],
    )
    .unwrap();
    let mut rec = vec![0u8; 56];
    rec[..8].copy_from_slice(&99.0f64.to_be_bytes());
    for i in 0..6 {
        rec[8 + 4 * i..12 + 4 * i].copy_from_slice(&(i as i32 + 1).to_be_bytes());
    }
    for (i, (x, y)) in [(3i16, 4i16), (5, 6)].iter().enumerate() {
        rec[32 + 4 * i..34 + 4 * i].copy_from_slice(&y.to_be_bytes());
        rec[34 + 4 * i..36 + 4 * i].copy_from_slice(&x.to_be_bytes());
    }
    rec[40..42].copy_from_slice(&1u16.to_be_bytes());
    rec[48..56].copy_from_slice(&2.0f64.to_be_bytes());
    let mut rx = Receiver::new();
    let got = rx.convert::<Flat>(&theirs, &rec).unwrap();
    assert_eq!(
        got,
        Flat {
            a: 1,
            b: 2.0,
            pts: [Point { x: 3, y: 4 }, Point { x: 5, y: 6 }],
            m: [[1, 2, 3], [4, 5, 6]],
        }
    );
}

#[test]
fn narrowing_that_overflows_is_an_error() {
    let theirs = Format::from_fields(
        "Point",
        ByteOrder::Little,
        16,
        &[
            IOField::new("x", "integer", 8, 0),
            IOField::new("y", "integer", 8, 8),
        ],
        &[],
    )
    .unwrap();
    let mut rec = Vec::new();
    rec.extend_from_slice(&5i64.to_le_bytes());
    rec.extend_from_slice(&(1i64 << 40).to_le_bytes());
    let mut rx = Receiver::new();
    let e = rx.convert::<Point>(&theirs, &rec).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::DoesNotFit { target: "i32", .. }),
        "{e}"
    );
    assert_eq!(e.path(), "y");
    assert_eq!(e.offset(), Some(8));
    rec[8..].copy_from_slice(&(-7i64).to_le_bytes());
    assert_eq!(
        rx.convert::<Point>(&theirs, &rec).unwrap(),
        Point { x: 5, y: -7 }
    );
}

#[derive(Marshal, Debug, PartialEq)]
#[marshal(default_missing)]
struct WithDefaults {
    a: i32,
    b: String,
    c: Vec<u16>,
}

impl Default for WithDefaults {
    fn default() -> Self {
        WithDefaults {
            a: -1,
            b: "unset".into(),
            c: vec![1, 2],
        }
    }
}

#[test]
fn missing_fields_come_from_default_or_fail() {
    let theirs = Format::from_fields(
        "Sender",
        ByteOrder::Little,
        4,
        &[IOField::new("a", "integer", 4, 0)],
        &[],
    )
    .unwrap();
    let mut rx = Receiver::new();
    let got = rx
        .convert::<WithDefaults>(&theirs, &42i32.to_le_bytes())
        .unwrap();
    assert_eq!(
        got,
        WithDefaults {
            a: 42,
            b: "unset".into(),
            c: vec![1, 2]
        }
    );
    let e = rx
        .convert::<Point>(&theirs, &42i32.to_le_bytes())
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Incompatible(_)), "{e}");
    assert!(e.to_string().contains("no field `x`"), "{e}");
}

/// A padding-free record converted straight into an existing value (no scratch buffer).
#[test]
fn decode_into_converts_in_place() {
    let v = Flat {
        a: 7,
        b: -1.5,
        pts: [Point { x: 1, y: -2 }, Point { x: 3, y: -4 }],
        m: [[1, -2, 3], [-4, 5, -6]],
    };
    let native = Format::of::<Flat>();
    let point = Format::from_fields(
        "Point",
        ByteOrder::Big,
        8,
        &Format::of::<Point>().io_fields(),
        &[],
    )
    .unwrap();
    let be = Format::from_fields(
        "Flat",
        ByteOrder::Big,
        native.size(),
        &native.io_fields(),
        &[point],
    )
    .unwrap();
    // The same layout, every element byte-swapped.
    let mut body = marshal::ndr::to_body(&v).unwrap();
    for w in body[..8].chunks_exact_mut(4) {
        w.reverse();
    }
    for w in body[8..24].chunks_exact_mut(4) {
        w.reverse();
    }
    for w in body[24..36].chunks_exact_mut(2) {
        w.reverse();
    }
    let msg = marshal::ndr::message_from_body(be.id(), &body).unwrap();
    let mut rx = Receiver::new();
    rx.register(be);
    let mut out = Flat {
        a: 0,
        b: 0.0,
        pts: [Point::default(); 2],
        m: [[0; 3]; 2],
    };
    rx.decode_into(&msg, &mut out).unwrap();
    assert_eq!(out, v);
    // A truncated message is an error, and `out` is still a valid value.
    let e = rx.decode_into(&msg[..msg.len() - 1], &mut out).unwrap_err();
    assert!(e.to_string().contains("frame length"), "{e}");
    let short = marshal::ndr::message_from_body(rx.format(msg_id(&msg)).unwrap().id(), &body[..30])
        .unwrap();
    let e = rx.decode_into(&short, &mut out).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEnd { .. }), "{e}");
    assert_eq!(e.offset(), Some(HEADER_LEN));
}

fn msg_id(msg: &[u8]) -> marshal::ndr::FormatId {
    marshal::ndr::parse_message(msg).unwrap().id
}

/// The zero-copy view: only for the local format, plain data, and an aligned body.
#[test]
fn views_borrow_the_record_in_place() {
    let v = Flat {
        a: 1,
        b: 2.0,
        pts: [Point { x: 3, y: 4 }, Point { x: 5, y: 6 }],
        m: [[7; 3]; 2],
    };
    let msg = to_message(&v).unwrap();
    let mut rx = Receiver::new();
    rx.register(Format::of::<Flat>());
    // Place the message so that its body (at 24) is 8-aligned, then one byte further.
    let mut buf = vec![0u8; msg.len() + 16];
    let at = buf.as_ptr().align_offset(8);
    buf[at..at + msg.len()].copy_from_slice(&msg);
    let view = rx.view::<Flat>(&buf[at..at + msg.len()]).unwrap();
    assert_eq!(*view, v);
    assert_eq!(
        (view as *const Flat).cast::<u8>(),
        buf[at + HEADER_LEN..].as_ptr()
    );
    buf.copy_within(at..at + msg.len(), at + 1);
    let e = rx
        .view::<Flat>(&buf[at + 1..at + 1 + msg.len()])
        .unwrap_err();
    assert!(e.to_string().contains("cannot be viewed in place"), "{e}");
    // Another layout cannot be viewed: it must be converted.
    let named = to_message(&Padded {
        tag: 1,
        value: 2.0,
        small: 3,
        flag: false,
    })
    .unwrap();
    rx.register(Format::of::<Padded>());
    assert!(rx.view::<Flat>(&named).is_err());
    // Booleans are not any-bits: no view even in the local layout.
    assert!(rx.view::<Padded>(&named).is_err());
}
