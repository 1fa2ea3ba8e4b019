//! Known bytes and round trips through omniORB's generated CDR code.
//!
//! Expected encodings come from a small reference writer below that follows
//! the CORBA CDR rules directly: every primitive aligned to its size relative
//! to offset 0 (padding zero), strings as a ulong length including the NUL,
//! the bytes and the NUL, enums as their ulong ordinal, sequences as a ulong
//! count then the elements, unions as the discriminant then the arm.

use omniorb_peer::*;

const ORDERS: [Order; 2] = [Order::Big, Order::Little];

/// A reference CDR writer.
struct Cdr {
    order: Order,
    buf: Vec<u8>,
}

impl Cdr {
    fn new(order: Order) -> Self {
        Cdr {
            order,
            buf: Vec::new(),
        }
    }

    fn align(&mut self, n: usize) {
        while !self.buf.len().is_multiple_of(n) {
            self.buf.push(0);
        }
    }

    fn put<const N: usize>(&mut self, be: [u8; N], le: [u8; N]) {
        self.align(N);
        self.buf.extend_from_slice(match self.order {
            Order::Big => &be,
            Order::Little => &le,
        });
    }

    fn octet(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn short(&mut self, v: i16) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn ushort(&mut self, v: u16) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn long(&mut self, v: i32) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn ulong(&mut self, v: u32) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn longlong(&mut self, v: i64) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn ulonglong(&mut self, v: u64) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn float(&mut self, v: f32) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn double(&mut self, v: f64) {
        self.put(v.to_be_bytes(), v.to_le_bytes());
    }
    fn string(&mut self, s: &str) {
        self.ulong(s.len() as u32 + 1);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
    }
    fn rect(&mut self, r: &[i32; 4]) {
        for v in r {
            self.long(*v);
        }
    }
    fn prims(&mut self, p: &Prims) {
        self.octet(p.o);
        self.octet(u8::from(p.b));
        self.octet(p.c as u8);
        self.short(p.s);
        self.ushort(p.us);
        self.long(p.l);
        self.ulong(p.ul);
        self.longlong(p.ll);
        self.ulonglong(p.ull);
        self.float(p.f);
        self.double(p.d);
        self.string(&p.str);
        self.ulong(p.color);
    }
    fn dirent(&mut self, d: &DirEntry) {
        self.string(&d.name);
        for v in d.ints {
            self.long(v);
        }
        self.buf.extend_from_slice(&d.chars);
    }
    fn shape(&mut self, s: &Shape) {
        match s {
            Shape::Int(i) => {
                self.long(0);
                self.long(*i);
            }
            Shape::Str(s) => {
                self.long(1);
                self.string(s);
            }
            Shape::Other(d, r) => {
                self.long(*d);
                self.rect(r);
            }
        }
    }
}

/// `assert_eq!` for long byte strings: reports the first difference only.
#[track_caller]
fn assert_bytes_eq(got: &[u8], want: &[u8], what: &str) {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        let lo = i.saturating_sub(8);
        panic!(
            "{what}: first difference at offset {i}: got {:?}, want {:?} (from offset {lo})",
            &got[lo..got.len().min(i + 8)],
            &want[lo..want.len().min(i + 8)]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
}

fn reference(order: Order, f: impl FnOnce(&mut Cdr)) -> Vec<u8> {
    let mut c = Cdr::new(order);
    f(&mut c);
    c.buf
}

fn ints_cases() -> Vec<Vec<i32>> {
    vec![
        vec![],
        vec![0],
        vec![1, -2],
        vec![i32::MIN, -1, 0, 1, i32::MAX],
        (0..1000).map(|i| i * 7919 - 3_000_000).collect(),
    ]
}

fn rects_cases() -> Vec<Vec<[i32; 4]>> {
    vec![
        vec![],
        vec![[i32::MIN, -1, 0, i32::MAX]],
        (0..1000).map(|i| [i, -i, i * 3, i32::MAX - i]).collect(),
    ]
}

fn dirent(i: usize, name_len: usize) -> DirEntry {
    let name: String = (0..name_len)
        .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
        .collect();
    let mut ints = [0i32; 30];
    for (k, v) in ints.iter_mut().enumerate() {
        *v = (i as i32)
            .wrapping_mul(31)
            .wrapping_sub(k as i32 * 1_000_003);
    }
    let mut chars = [0u8; 16];
    for (k, c) in chars.iter_mut().enumerate() {
        *c = (i * 7 + k * 13) as u8;
    }
    DirEntry { name, ints, chars }
}

fn dirents_cases() -> Vec<Vec<DirEntry>> {
    const LENS: [usize; 10] = [0, 1, 3, 4, 5, 7, 8, 255, 2, 6];
    vec![
        vec![],
        vec![dirent(0, 255)],
        (0..100).map(|i| dirent(i, LENS[i % LENS.len()])).collect(),
    ]
}

fn shape_cases() -> Vec<Shape> {
    vec![
        Shape::Int(0),
        Shape::Int(i32::MIN),
        Shape::Str(String::new()),
        Shape::Str("hello".into()),
        Shape::Other(7, [1, 2, 3, 4]),
        Shape::Other(-3, [i32::MIN, -1, 0, i32::MAX]),
        Shape::Other(2, [5, 6, 7, 8]),
        Shape::Other(i32::MIN, [0; 4]),
    ]
}

fn prims_sample() -> Prims {
    Prims {
        o: 0xab,
        b: true,
        c: -2,
        s: -3,
        us: 0xbeef,
        l: -5,
        ul: 0xdead_beef,
        ll: -7,
        ull: 0x0102_0304_0506_0708,
        f: 1.5,
        d: -2.25,
        str: "abcd".into(),
        color: 2,
    }
}

fn prims_cases() -> Vec<Prims> {
    let zero = Prims {
        o: 0,
        b: false,
        c: 0,
        s: 0,
        us: 0,
        l: 0,
        ul: 0,
        ll: 0,
        ull: 0,
        f: 0.0,
        d: 0.0,
        str: String::new(),
        color: 0,
    };
    let max = Prims {
        o: u8::MAX,
        b: true,
        c: i8::MAX,
        s: i16::MAX,
        us: u16::MAX,
        l: i32::MAX,
        ul: u32::MAX,
        ll: i64::MAX,
        ull: u64::MAX,
        f: f32::MAX,
        d: f64::MAX,
        str: "x".repeat(1000),
        color: 1,
    };
    let min = Prims {
        o: 0,
        b: false,
        c: i8::MIN,
        s: i16::MIN,
        us: 0,
        l: i32::MIN,
        ul: 0,
        ll: i64::MIN,
        ull: 0,
        f: f32::MIN_POSITIVE,
        d: -0.0,
        str: "é, non-ASCII UTF-8".into(),
        color: 2,
    };
    vec![zero, max, min, prims_sample()]
}

// ---------------------------------------------------------------------------
// Known answers
// ---------------------------------------------------------------------------

#[test]
fn ints_known_bytes() {
    assert_eq!(
        encode_ints(Order::Big, &[1, -2]),
        [0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]
    );
    assert_eq!(
        encode_ints(Order::Little, &[1, -2]),
        [2, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]
    );
    assert_eq!(encode_ints(Order::Big, &[]), [0, 0, 0, 0]);
}

#[test]
fn prims_known_bytes_big() {
    #[rustfmt::skip]
    let want: Vec<u8> = vec![
        0xab, 0x01, 0xfe,                               // o, b, c
        0x00,                                           // pad to 4 for short
        0xff, 0xfd, 0xbe, 0xef,                         // s, us
        0xff, 0xff, 0xff, 0xfb,                         // l
        0xde, 0xad, 0xbe, 0xef,                         // ul
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf9, // ll at 16
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // ull at 24
        0x3f, 0xc0, 0x00, 0x00,                         // f at 32
        0x00, 0x00, 0x00, 0x00,                         // pad to 40 for double
        0xc0, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // d at 40
        0x00, 0x00, 0x00, 0x05, b'a', b'b', b'c', b'd', 0x00, // str: len 5 incl. NUL
        0x00, 0x00, 0x00,                               // pad to 60
        0x00, 0x00, 0x00, 0x02,                         // color = blue
    ];
    assert_eq!(encode_prims(Order::Big, &prims_sample()), want);
}

#[test]
fn prims_known_bytes_little() {
    #[rustfmt::skip]
    let want: Vec<u8> = vec![
        0xab, 0x01, 0xfe,
        0x00,
        0xfd, 0xff, 0xef, 0xbe,
        0xfb, 0xff, 0xff, 0xff,
        0xef, 0xbe, 0xad, 0xde,
        0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
        0x00, 0x00, 0xc0, 0x3f,
        0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc0,
        0x05, 0x00, 0x00, 0x00, b'a', b'b', b'c', b'd', 0x00,
        0x00, 0x00, 0x00,
        0x02, 0x00, 0x00, 0x00,
    ];
    assert_eq!(encode_prims(Order::Little, &prims_sample()), want);
}

#[test]
fn encapsulated_prims_layout() {
    // In an encapsulation alignment is relative to the byte-order octet, so
    // o, b, c sit at 1..4 and `short` needs no padding; `long long` is at 16
    // and `double` at 40 (after 4 bytes of padding), as in the plain case.
    let p = prims_sample();
    for order in ORDERS {
        let enc = encode_encapsulated_prims(order, &p);
        let mut c = Cdr::new(order);
        c.octet(u8::from(order == Order::Little));
        c.prims(&p);
        assert_eq!(enc, c.buf, "{order:?}");
        assert_eq!(&enc[1..4], &[0xab, 0x01, 0xfe]);
        assert_eq!(&enc[36..40], &[0; 4]);
        assert_eq!(enc.len(), 64);
    }
}

#[test]
fn oops_known_bytes() {
    let mut want = vec![0, 0, 0, 42, 0, 0, 0, 10];
    want.extend_from_slice(b"failed 42\0");
    assert_eq!(encode_oops(Order::Big, 42, "failed 42"), want);
    assert_eq!(
        encode_oops(Order::Little, -7, ""),
        [0xf9, 0xff, 0xff, 0xff, 1, 0, 0, 0, 0]
    );
}

#[test]
fn shape_known_bytes() {
    assert_eq!(
        encode_shape(Order::Big, &Shape::Other(7, [1, 2, 3, -4])),
        [0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xfc]
    );
    assert_eq!(
        encode_shape(Order::Little, &Shape::Str("hi".into())),
        [1, 0, 0, 0, 3, 0, 0, 0, b'h', b'i', 0]
    );
    assert_eq!(
        encode_shape(Order::Big, &Shape::Int(-3)),
        [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfd]
    );
}

#[test]
fn dirents_known_bytes() {
    // Two entries: the first name ("abc", 4 bytes with NUL) needs no padding
    // before `ints`; the second ("b", 2 bytes) needs 2 bytes of padding.
    let v = vec![dirent(0, 3), dirent(1, 1)];
    let enc = encode_dirents(Order::Big, &v);
    assert_eq!(&enc[0..4], &[0, 0, 0, 2]);
    assert_eq!(&enc[4..12], &[0, 0, 0, 4, b'a', b'b', b'c', 0]);
    let second = 12 + 120 + 16;
    assert_eq!(
        &enc[second..second + 10],
        &[0, 0, 0, 2, b'b', 0, 0, 0, 0, 0]
    );
    assert_eq!(enc.len(), second + 8 + 120 + 16);
}

/// Every IDL type, both orders, against the reference writer.
#[test]
fn all_types_match_reference_writer() {
    for order in ORDERS {
        for v in ints_cases() {
            let want = reference(order, |c| {
                c.ulong(v.len() as u32);
                v.iter().for_each(|x| c.long(*x));
            });
            assert_bytes_eq(
                &encode_ints(order, &v),
                &want,
                &format!("{order:?} ints {}", v.len()),
            );
        }
        for v in rects_cases() {
            let want = reference(order, |c| {
                c.ulong(v.len() as u32);
                v.iter().for_each(|r| c.rect(r));
            });
            assert_bytes_eq(
                &encode_rects(order, &v),
                &want,
                &format!("{order:?} rects {}", v.len()),
            );
        }
        for v in dirents_cases() {
            let want = reference(order, |c| {
                c.ulong(v.len() as u32);
                v.iter().for_each(|d| c.dirent(d));
            });
            assert_bytes_eq(
                &encode_dirents(order, &v),
                &want,
                &format!("{order:?} dirents {}", v.len()),
            );
        }
        for s in shape_cases() {
            let want = reference(order, |c| c.shape(&s));
            assert_eq!(encode_shape(order, &s), want, "{order:?} {s:?}");
        }
        for p in prims_cases() {
            let want = reference(order, |c| c.prims(&p));
            assert_bytes_eq(&encode_prims(order, &p), &want, &format!("{order:?} {p:?}"));
        }
    }
}

// ---------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------

/// Every proper prefix of a valid encoding must fail to decode, and so must
/// the encoding with a trailing byte.
fn assert_rejects_bad_lengths<T: std::fmt::Debug>(buf: &[u8], decode: impl Fn(&[u8]) -> Option<T>) {
    for cut in 0..buf.len() {
        assert!(
            decode(&buf[..cut]).is_none(),
            "prefix of {cut}/{} bytes decoded",
            buf.len()
        );
    }
    let mut longer = buf.to_vec();
    longer.push(0);
    assert!(decode(&longer).is_none(), "trailing byte accepted");
}

#[test]
fn ints_roundtrip() {
    for order in ORDERS {
        for v in ints_cases() {
            let buf = encode_ints(order, &v);
            assert_eq!(decode_ints(order, &buf), Some(v.clone()));
            if v.len() < 10 {
                assert_rejects_bad_lengths(&buf, |b| decode_ints(order, b));
            }
        }
    }
}

#[test]
fn rects_roundtrip() {
    for order in ORDERS {
        for v in rects_cases() {
            let buf = encode_rects(order, &v);
            assert_eq!(decode_rects(order, &buf), Some(v.clone()));
            if v.len() < 10 {
                assert_rejects_bad_lengths(&buf, |b| decode_rects(order, b));
            }
        }
    }
}

#[test]
fn dirents_roundtrip() {
    for order in ORDERS {
        for v in dirents_cases() {
            let buf = encode_dirents(order, &v);
            assert_eq!(decode_dirents(order, &buf), Some(v.clone()));
            if v.len() < 10 {
                assert_rejects_bad_lengths(&buf, |b| decode_dirents(order, b));
            }
        }
    }
}

#[test]
fn shape_roundtrip() {
    for order in ORDERS {
        for s in shape_cases() {
            let buf = encode_shape(order, &s);
            assert_eq!(decode_shape(order, &buf), Some(s.clone()));
            assert_rejects_bad_lengths(&buf, |b| decode_shape(order, b));
        }
    }
}

#[test]
fn prims_roundtrip() {
    for order in ORDERS {
        for p in prims_cases() {
            let buf = encode_prims(order, &p);
            let back = decode_prims(order, &buf).expect("decodes");
            assert_eq!(back, p);
            assert_eq!(back.f.to_bits(), p.f.to_bits());
            assert_eq!(back.d.to_bits(), p.d.to_bits());
            assert_rejects_bad_lengths(&buf, |b| decode_prims(order, b));

            let enc = encode_encapsulated_prims(order, &p);
            assert_eq!(enc[0], u8::from(order == Order::Little));
            assert_eq!(decode_encapsulated_prims(&enc), Some(p.clone()));
        }
    }
}

#[test]
fn decoders_follow_the_requested_order() {
    // The same bytes read in the other order give byte-swapped values.
    let buf = encode_ints(Order::Big, &[0x0102_0304]);
    assert_eq!(decode_ints(Order::Big, &buf), Some(vec![0x0102_0304]));
    assert_eq!(decode_ints(Order::Little, &buf), None); // count 0x01000000
    let buf = [1, 0, 0, 0, 1, 2, 3, 4];
    assert_eq!(decode_ints(Order::Little, &buf), Some(vec![0x0403_0201]));
}

#[test]
fn misaligned_input_is_decoded_relative_to_its_start() {
    let p = prims_sample();
    let buf = encode_prims(Order::Little, &p);
    let mut shifted = vec![0u8; buf.len() + 3];
    shifted[3..].copy_from_slice(&buf);
    assert_eq!(decode_prims(Order::Little, &shifted[3..]), Some(p));
}

#[test]
fn invalid_inputs_are_rejected() {
    // Color ordinal 3.
    let mut buf = encode_prims(Order::Big, &prims_sample());
    let n = buf.len();
    buf[n - 1] = 3;
    assert_eq!(decode_prims(Order::Big, &buf), None);
    // A sequence count far beyond the data.
    assert_eq!(decode_ints(Order::Big, &[0xff, 0xff, 0xff, 0xff]), None);
    assert_eq!(decode_dirents(Order::Big, &[0x7f, 0xff, 0xff, 0xff]), None);
    // A string length of 0 (CDR strings always include the NUL).
    assert_eq!(decode_shape(Order::Big, &[0, 0, 0, 1, 0, 0, 0, 0]), None);
    // A name over the 256-byte bound of string<255> (257 with NUL).
    let mut long = encode_dirents(Order::Big, &[dirent(0, 255)]);
    long[4..8].copy_from_slice(&257u32.to_be_bytes());
    assert_eq!(decode_dirents(Order::Big, &long), None);
    // Not UTF-8.
    assert_eq!(
        decode_shape(Order::Big, &[0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0]),
        None
    );
}

#[test]
#[should_panic(expected = "MARSHAL")]
fn dirent_name_over_255_bytes_is_refused() {
    encode_dirents(Order::Big, &[dirent(0, 256)]);
}

#[test]
fn boolean_decoding_is_lenient() {
    let mut buf = encode_prims(Order::Big, &prims_sample());
    buf[1] = 2;
    assert!(decode_prims(Order::Big, &buf).expect("decodes").b);
}

// ---------------------------------------------------------------------------
// Benchmark handles
// ---------------------------------------------------------------------------

#[test]
fn bench_handles_match_encoders() {
    let ints: Vec<i32> = (0..1000).map(|i| i * 31 - 500).collect();
    let rects: Vec<[i32; 4]> = (0..100).map(|i| [i, i + 1, -i, i32::MAX]).collect();
    let dirents = dirents_cases().pop().expect("a case");
    let mut hi = OmniInts::new(&ints);
    let mut hr = OmniRects::new(&rects);
    let mut hd = OmniDirents::new(&dirents);
    assert!(hi.bytes().is_empty());
    assert_eq!((hi.len(), hr.len(), hd.len()), (1000, 100, 100));
    for _ in 0..3 {
        for order in ORDERS {
            let n = hi.encode(order);
            assert_bytes_eq(hi.bytes(), &encode_ints(order, &ints), "OmniInts");
            assert_eq!(n, hi.bytes().len());
            assert_eq!(bench_decode_ints(order, hi.bytes()), 1000);

            let n = hr.encode(order);
            assert_bytes_eq(hr.bytes(), &encode_rects(order, &rects), "OmniRects");
            assert_eq!(n, hr.bytes().len());
            assert_eq!(bench_decode_rects(order, hr.bytes()), 100);

            let n = hd.encode(order);
            assert_bytes_eq(hd.bytes(), &encode_dirents(order, &dirents), "OmniDirents");
            assert_eq!(n, hd.bytes().len());
            assert_eq!(bench_decode_dirents(order, hd.bytes()), 100);
        }
    }
    // Unaligned input takes the copying path.
    let buf = encode_ints(Order::Big, &ints);
    let mut shifted = vec![0u8; buf.len() + 1];
    shifted[1..].copy_from_slice(&buf);
    assert_eq!(bench_decode_ints(Order::Big, &shifted[1..]), 1000);
}

#[test]
#[should_panic(expected = "MARSHAL")]
fn bench_decode_panics_on_truncated_input() {
    let buf = encode_ints(Order::Big, &[1, 2, 3]);
    bench_decode_ints(Order::Big, &buf[..8]);
}
