//! Round-trips and known bytes through the rpcgen-generated C stubs.

use rpcgen_peer::*;

fn be(words: &[i32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn dirent(i: usize, name_len: usize) -> Dirent {
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
    Dirent { name, ints, chars }
}

fn list(n: usize) -> Vec<(i32, String)> {
    (0..n).map(|i| (i as i32 - 5, "x".repeat(i % 9))).collect()
}

/// Every proper prefix of a valid encoding must fail to decode.
fn assert_prefixes_rejected<T: std::fmt::Debug>(buf: &[u8], decode: impl Fn(&[u8]) -> Option<T>) {
    for cut in 0..buf.len() {
        assert!(
            decode(&buf[..cut]).is_none(),
            "prefix of {cut}/{} bytes decoded",
            buf.len()
        );
    }
}

#[test]
fn ints_known_bytes() {
    assert_eq!(
        encode_ints(&[1, -2]),
        [0, 0, 0, 2, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]
    );
    assert_eq!(encode_ints(&[]), [0, 0, 0, 0]);
}

#[test]
fn ints_roundtrip() {
    for v in [
        vec![],
        vec![0],
        vec![i32::MIN, -1, 0, 1, i32::MAX],
        (0..1000)
            .map(|i| i * 7919 - 3_000_000)
            .collect::<Vec<i32>>(),
    ] {
        let buf = encode_ints(&v);
        assert_eq!(buf.len(), 4 + 4 * v.len());
        assert_eq!(decode_ints(&buf), Some(v.clone()));
        let mut out = vec![0u8; buf.len() + 8];
        let n = CInts::new(&v).encode(&mut out);
        assert_eq!(&out[..n], &buf[..]);
        assert!(bench_decode_ints(&buf));
    }
}

#[test]
fn ints_reject() {
    let buf = encode_ints(&[1, 2, 3]);
    assert_prefixes_rejected(&buf, decode_ints);
    // Trailing bytes are not consumed.
    let mut long = buf.clone();
    long.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(decode_ints(&long), None);
    // A count that cannot fit is rejected before the C decoder allocates.
    assert_eq!(decode_ints(&[0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1]), None);
    assert!(!bench_decode_ints(&buf[..buf.len() - 1]));
}

#[test]
fn rects_roundtrip() {
    assert_eq!(encode_rects(&[[1, 2, 3, 4]]), be(&[1, 1, 2, 3, 4]));
    for v in [
        vec![],
        vec![[i32::MIN, -1, 0, i32::MAX]],
        (0..1000)
            .map(|i| [i, -i, i * 3, i ^ 0x5555])
            .collect::<Vec<_>>(),
    ] {
        let buf = encode_rects(&v);
        assert_eq!(buf.len(), 4 + 16 * v.len());
        assert_eq!(decode_rects(&buf), Some(v.clone()));
        let mut out = vec![0u8; buf.len()];
        assert_eq!(CRects::new(&v).encode(&mut out), buf.len());
        assert_eq!(out, buf);
        assert!(bench_decode_rects(&buf));
    }
    let buf = encode_rects(&[[1, 2, 3, 4], [5, 6, 7, 8]]);
    assert_prefixes_rejected(&buf, decode_rects);
}

#[test]
fn dirents_roundtrip() {
    let small = vec![dirent(0, 0), dirent(1, 1), dirent(2, 5), dirent(3, 255)];
    let buf = encode_dirents(&small);
    assert_eq!(decode_dirents(&buf), Some(small.clone()));
    assert_prefixes_rejected(&buf, decode_dirents);

    // 116-char names: 4 + 116 + 30*4 + 16 = 256 bytes per dirent.
    let big: Vec<Dirent> = (0..500).map(|i| dirent(i, 116)).collect();
    let buf = encode_dirents(&big);
    assert_eq!(buf.len(), 4 + 256 * big.len());
    assert_eq!(&buf[..4], &500u32.to_be_bytes());
    assert_eq!(&buf[4..8], &116u32.to_be_bytes());
    assert_eq!(decode_dirents(&buf), Some(big.clone()));
    let c = CDirents::new(&big);
    let mut out = vec![0u8; buf.len()];
    assert_eq!(c.encode(&mut out), buf.len());
    assert_eq!(out, buf);
    // Encoding is repeatable (the C struct is not consumed).
    assert_eq!(c.encode(&mut out), buf.len());
    assert_eq!(out, buf);
    assert!(bench_decode_dirents(&buf));
    assert!(!bench_decode_dirents(&buf[..buf.len() - 1]));
}

#[test]
fn dirent_single_layout() {
    let d = dirent(9, 116);
    let buf = encode_dirents(std::slice::from_ref(&d));
    assert_eq!(buf.len(), 4 + 256);
    let mut expect = be(&[1, 116]);
    expect.extend_from_slice(d.name.as_bytes());
    expect.extend(be(&d.ints));
    expect.extend_from_slice(&d.chars);
    assert_eq!(buf, expect);
}

#[test]
#[should_panic(expected = "255")]
fn dirent_name_too_long() {
    encode_dirents(&[dirent(0, 256)]);
}

#[test]
fn dirent_name_too_long_on_wire() {
    // Hand-made: name length 256 > 255 must be rejected by the C decoder.
    let mut buf = be(&[1, 256]);
    buf.extend(std::iter::repeat_n(b'a', 256));
    buf.extend(std::iter::repeat_n(0u8, 136));
    assert_eq!(decode_dirents(&buf), None);
}

#[test]
fn result_known_bytes() {
    assert_eq!(
        encode_result(&CResult::Other {
            tag: 7,
            rect: [1, 2, 3, 4]
        }),
        be(&[7, 1, 2, 3, 4])
    );
    assert_eq!(encode_result(&CResult::Int(-2)), be(&[0, -2]));
    assert_eq!(encode_result(&CResult::Void), be(&[2]));
    assert_eq!(
        encode_result(&CResult::Str("hello".into())),
        [0, 0, 0, 1, 0, 0, 0, 5, b'h', b'e', b'l', b'l', b'o', 0, 0, 0]
    );
}

#[test]
fn result_roundtrip() {
    for v in [
        CResult::Int(0),
        CResult::Int(i32::MIN),
        CResult::Str(String::new()),
        CResult::Str("héllo wörld".into()),
        CResult::Str("y".repeat(1001)),
        CResult::Void,
        CResult::Other {
            tag: -1,
            rect: [i32::MAX, 0, -7, 9],
        },
        CResult::Other {
            tag: 3,
            rect: [1, 2, 3, 4],
        },
    ] {
        let buf = encode_result(&v);
        assert_eq!(decode_result(&buf), Some(v.clone()), "{v:?}");
        assert_prefixes_rejected(&buf, decode_result);
    }
}

#[test]
fn result_odd_wire() {
    // String length 0xFFFFFFFF with an unbounded string: libtirpc's
    // xdr_string returns TRUE without allocating; must not yield a value.
    assert_eq!(decode_result(&be(&[1, -1])), None);
    // Non-UTF-8 string.
    assert_eq!(
        decode_result(&[0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0, 0, 0]),
        None
    );
}

#[test]
#[should_panic(expected = "tag other than 0, 1, 2")]
fn result_other_with_reserved_tag() {
    encode_result(&CResult::Other {
        tag: 1,
        rect: [0; 4],
    });
}

#[test]
#[should_panic(expected = "NUL")]
fn nul_in_string_panics() {
    encode_result(&CResult::Str("a\0b".into()));
}

#[test]
fn list_known_bytes() {
    assert_eq!(
        encode_list(&[(1, "a".into())]),
        [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, b'a', 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(encode_list(&[]), [0, 0, 0, 0]);
}

#[test]
fn list_roundtrip() {
    for n in [0, 1, 2, 17, 1000] {
        let v = list(n);
        let buf = encode_list(&v);
        assert_eq!(decode_list(&buf), Some(v), "n = {n}");
    }
    let buf = encode_list(&list(12));
    assert_prefixes_rejected(&buf, decode_list);
}

#[test]
fn list_10000_deep() {
    // xdr_entry recurses on the C stack once per element (encode, decode and
    // xdr_free alike); 10,000 fits comfortably in the default 2 MiB test
    // thread stack.
    let v = list(10_000);
    let buf = encode_list(&v);
    assert_eq!(decode_list(&buf), Some(v));
}
