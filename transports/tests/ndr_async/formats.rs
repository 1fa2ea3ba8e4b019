//! Record formats of the tests, as other programs would describe them, and their bodies.

use wire_ndr::{ByteOrder, DynRecord, Format, IOField, Value};

/// `struct { int64 seq; double value; }` in `order`: two formats, one per byte order.
pub fn tick(order: ByteOrder) -> Format {
    Format::from_fields(
        "tick",
        order,
        16,
        &[
            IOField::new("seq", "integer", 8, 0),
            IOField::new("value", "float", 8, 8),
        ],
        &[],
    )
    .unwrap()
}

/// A body of `tick(order)`.
pub fn tick_body(order: ByteOrder, seq: i64, value: f64) -> Vec<u8> {
    match order {
        ByteOrder::Big => [seq.to_be_bytes(), value.to_be_bytes()].concat(),
        ByteOrder::Little => [seq.to_le_bytes(), value.to_le_bytes()].concat(),
    }
}

/// `struct { uint32 id; float temp; char tag[4]; }`, little-endian.
pub fn note() -> Format {
    Format::from_fields(
        "note",
        ByteOrder::Little,
        12,
        &[
            IOField::new("id", "unsigned integer", 4, 0),
            IOField::new("temp", "float", 4, 4),
            IOField::new("tag", "char[4]", 1, 8),
        ],
        &[],
    )
    .unwrap()
}

/// A body of `note()`.
pub fn note_body(id: u32, temp: f32, tag: [u8; 4]) -> Vec<u8> {
    [&id.to_le_bytes()[..], &temp.to_le_bytes(), &tag].concat()
}

/// One record of the interleaved sequence the stream tests send: its format and body.
pub fn nth(i: usize) -> (Format, Vec<u8>) {
    let seq = i as i64;
    match i % 5 {
        0 | 2 => (
            tick(ByteOrder::Big),
            tick_body(ByteOrder::Big, seq, seq as f64 / 4.0),
        ),
        1 | 3 => (
            tick(ByteOrder::Little),
            tick_body(ByteOrder::Little, -seq, 1.5),
        ),
        _ => (note(), note_body(i as u32, 20.5, *b"ab\0\0")),
    }
}

/// Checks that `r` is the record [`nth`]`(i)` sent.
pub fn check_nth(i: usize, r: &DynRecord) {
    let seq = i as i64;
    match i % 5 {
        0 | 2 => {
            assert_eq!(r.name(), "tick");
            assert_eq!(r.get("seq"), Some(&Value::Int(seq)), "{i}: {r}");
            assert_eq!(
                r.get("value"),
                Some(&Value::Float(seq as f64 / 4.0)),
                "{i}: {r}"
            );
        }
        1 | 3 => {
            assert_eq!(r.get("seq"), Some(&Value::Int(-seq)), "{i}: {r}");
            assert_eq!(r.get("value"), Some(&Value::Float(1.5)), "{i}: {r}");
        }
        _ => {
            assert_eq!(r.name(), "note");
            assert_eq!(r.get("id"), Some(&Value::UInt(i as u64)), "{i}: {r}");
            assert_eq!(r.get("temp"), Some(&Value::Float(20.5)), "{i}: {r}");
        }
    }
}

/// The formats [`nth`] uses.
pub fn all() -> [Format; 3] {
    [tick(ByteOrder::Big), tick(ByteOrder::Little), note()]
}
