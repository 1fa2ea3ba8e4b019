//! Property tests of dynamic records: arbitrary bytes as a body, for a few fixed formats (both
//! byte orders, nested records, strings, variable-length arrays, zero-sized records), never
//! panic the decoder, and whatever decodes prints as valid JSON.

use proptest::collection::vec;
use proptest::prelude::*;
use wire_ndr::{ByteOrder, DynRecord, Format, IOField};

fn formats() -> Vec<Format> {
    let mut out = Vec::new();
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let inner = Format::from_fields(
            "inner",
            order,
            24,
            &[
                IOField::new("id", "unsigned integer", 2, 0),
                IOField::new("ok", "boolean", 1, 2),
                IOField::new("c", "char", 1, 3),
                IOField::new("tag", "char[8]", 1, 4),
                IOField::new("w", "float", 4, 12),
                IOField::new("label", "string", 8, 16),
            ],
            &[],
        )
        .unwrap();
        out.push(
            Format::from_fields(
                "sample",
                order,
                56,
                &[
                    IOField::new("i", "integer", 4, 0),
                    IOField::new("name", "string", 8, 4),
                    IOField::new("pts", "inner[]", 24, 12),
                    IOField::new("vals", "integer[]", 8, 20),
                    IOField::new("m", "float[2][2]", 4, 28),
                    IOField::new("s", "string", 8, 44),
                    IOField::new("b", "boolean", 2, 52),
                    IOField::new("u", "unsigned integer", 1, 54),
                ],
                &[inner],
            )
            .unwrap(),
        );
        let empty = Format::from_fields("empty", order, 0, &[], &[]).unwrap();
        out.push(
            Format::from_fields(
                "zeros",
                order,
                16,
                &[
                    IOField::new("e", "empty[1000]", 0, 0),
                    IOField::new("v", "empty[]", 0, 0),
                    IOField::new("c", "char[]", 1, 8),
                ],
                &[empty],
            )
            .unwrap(),
        );
    }
    out
}

/// 4-byte words that are mostly small numbers, so that slots written in a format's byte order
/// often point inside the body and strings are often ASCII; and a few odd bytes for the end.
fn words() -> impl Strategy<Value = (Vec<u32>, Vec<u8>)> {
    let word = prop_oneof![8 => 0u32..16, 2 => 0u32..128, 1 => any::<u32>()];
    (vec(word, 0..100), vec(any::<u8>(), 0..4))
}

fn body(words: &[u32], tail: &[u8], order: ByteOrder) -> Vec<u8> {
    let mut b: Vec<u8> = words
        .iter()
        .flat_map(|w| match order {
            ByteOrder::Big => w.to_be_bytes(),
            ByteOrder::Little => w.to_le_bytes(),
        })
        .collect();
    b.extend_from_slice(tail);
    b
}

proptest! {
    #[test]
    fn arbitrary_bodies_never_panic_and_print_valid_json((words, tail) in words()) {
        for f in formats() {
            let b = body(&words, &tail, f.byte_order());
            if let Ok(r) = DynRecord::decode(&f, &b) {
                let json = r.to_json();
                prop_assert!(valid_json(&json), "{json}");
                // Decoding is deterministic (compared as text: NaN is not equal to itself).
                prop_assert_eq!(DynRecord::decode(&f, &b).unwrap().to_json(), json);
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(b in vec(any::<u8>(), 0..200)) {
        for f in formats() {
            let _ = DynRecord::decode(&f, &b);
        }
    }
}

/// Whether `s` is exactly one JSON value (RFC 8259), by recursive descent.
fn valid_json(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    value(b, &mut i) && i == b.len()
}

fn value(b: &[u8], i: &mut usize) -> bool {
    match b.get(*i) {
        Some(b'{') => seq(b, i, b'}', |b, i| {
            string(b, i) && eat(b, i, b':') && value(b, i)
        }),
        Some(b'[') => seq(b, i, b']', value),
        Some(b'"') => string(b, i),
        Some(b't') => lit(b, i, "true"),
        Some(b'f') => lit(b, i, "false"),
        Some(b'n') => lit(b, i, "null"),
        _ => number(b, i),
    }
}

fn seq(b: &[u8], i: &mut usize, close: u8, item: fn(&[u8], &mut usize) -> bool) -> bool {
    *i += 1;
    if eat(b, i, close) {
        return true;
    }
    loop {
        if !item(b, i) {
            return false;
        }
        if eat(b, i, close) {
            return true;
        }
        if !eat(b, i, b',') {
            return false;
        }
    }
}

fn eat(b: &[u8], i: &mut usize, c: u8) -> bool {
    let ok = b.get(*i) == Some(&c);
    *i += usize::from(ok);
    ok
}

fn lit(b: &[u8], i: &mut usize, word: &str) -> bool {
    let ok = b[*i..].starts_with(word.as_bytes());
    *i += if ok { word.len() } else { 0 };
    ok
}

fn string(b: &[u8], i: &mut usize) -> bool {
    if !eat(b, i, b'"') {
        return false;
    }
    loop {
        match b.get(*i) {
            None => return false,
            Some(b'"') => {
                *i += 1;
                return true;
            }
            Some(c) if *c < 0x20 => return false,
            Some(b'\\') => {
                *i += 1;
                match b.get(*i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => *i += 1,
                    Some(b'u') => {
                        let hex = b.get(*i + 1..*i + 5);
                        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            return false;
                        }
                        *i += 5;
                    }
                    _ => return false,
                }
            }
            Some(_) => *i += 1,
        }
    }
}

fn number(b: &[u8], i: &mut usize) -> bool {
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    eat(b, i, b'-');
    if eat(b, i, b'0') {
    } else if !digits(i) {
        return false;
    }
    if eat(b, i, b'.') && !digits(i) {
        return false;
    }
    if eat(b, i, b'e') || eat(b, i, b'E') {
        if !eat(b, i, b'+') {
            eat(b, i, b'-');
        }
        return digits(i);
    }
    true
}

#[test]
fn the_validator_knows_json() {
    for ok in [
        "{}",
        "[]",
        r#"{"a":[1,-2.5e-7,0,true,false,null,"x\u00e9\n"],"b":{}}"#,
        "1e300",
        "-0.0",
    ] {
        assert!(valid_json(ok), "{ok}");
    }
    for bad in [
        "",
        "{",
        "[1,]",
        "01",
        "1.",
        "\"\u{1}\"",
        "\"\\x\"",
        "{1:2}",
        "nul",
        "inf",
        "1 2",
    ] {
        assert!(!valid_json(bad), "{bad}");
    }
}
