//! `from_bytes`: derived structs with `bytes::Bytes` and `BytesStr` fields decode as slices of
//! the shared input (XDR, and CDR in both byte orders with feature `iiop`), with the errors
//! `from_slice` gives; `from_slice` copies them.

use bytes::Bytes;
use marshal::{BytesStr, Marshal};
use proptest::prelude::*;

#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(formats(xdr, cdr))]
struct Message {
    id: u32,
    #[marshal(max_len = 16)]
    name: BytesStr,
    payload: Bytes,
    tags: Vec<BytesStr>,
    note: Option<BytesStr>,
}

/// The same wire shape with borrowing and copying types, to compare errors against (decoded
/// by `from_slice`, where `Bytes` is a copy).
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(formats(xdr, cdr))]
struct Copied<'a> {
    id: u32,
    #[marshal(max_len = 16)]
    name: &'a str,
    payload: Bytes,
    tags: Vec<String>,
    note: Option<&'a str>,
}

/// The same wire shape with no bound on the name, to make a name over `max_len`.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(formats(xdr, cdr))]
struct Loose {
    id: u32,
    name: String,
    payload: Vec<u8>,
    tags: Vec<String>,
    note: Option<String>,
}

fn too_long() -> Loose {
    Loose {
        id: 7,
        name: "seventeen bytes!!".into(),
        payload: vec![1],
        tags: vec![],
        note: None,
    }
}

fn message() -> Message {
    Message {
        id: 7,
        name: "héllo".into(),
        payload: Bytes::from_static(b"0123456789"),
        tags: vec!["a".into(), BytesStr::from(String::from("tag-two"))],
        note: Some("a note".into()),
    }
}

/// Whether `inner` lies within `outer`'s buffer.
fn inside(outer: &[u8], inner: &[u8]) -> bool {
    let (o, i) = (outer.as_ptr_range(), inner.as_ptr_range());
    o.start <= i.start && i.end <= o.end
}

/// Every `Bytes` and `BytesStr` of `m`, non-empty, lies in `input` (or not, for `shared`
/// false).
fn check_sharing(m: &Message, input: &[u8], shared: bool) {
    let mut parts: Vec<&[u8]> = vec![m.name.as_bytes(), &m.payload];
    parts.extend(m.tags.iter().map(|t| &t.as_bytes()[..]));
    parts.extend(m.note.iter().map(|t| &t.as_bytes()[..]));
    for p in parts.into_iter().filter(|p| !p.is_empty()) {
        assert_eq!(inside(input, p), shared, "{p:?}");
    }
}

/// Decodes a message and returns it with the input it came from: `'static`, with no borrow.
fn decode_xdr(input: Bytes) -> Result<Message, marshal::Error> {
    marshal::xdr::from_bytes(input)
}

#[test]
fn xdr_fields_point_into_the_input() {
    let m = message();
    let wire = marshal::xdr::to_vec(&m).unwrap();
    let input = Bytes::from(wire.clone());
    let back = decode_xdr(input.clone()).unwrap();
    assert_eq!(back, m);
    check_sharing(&back, &input, true);
    // `from_slice` copies.
    let copied: Message = marshal::xdr::from_slice(&wire).unwrap();
    assert_eq!(copied, m);
    check_sharing(&copied, &wire, false);
    // The value outlives every other handle on the buffer.
    drop(input);
    assert_eq!(back.payload, Bytes::from_static(b"0123456789"));
}

#[cfg(feature = "iiop")]
#[test]
fn cdr_fields_point_into_the_input_in_both_orders() {
    use marshal::cdr::ByteOrder;
    let m = message();
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let wire = marshal::cdr::to_vec(&m, order).unwrap();
        let input = Bytes::from(wire.clone());
        let back: Message = marshal::cdr::from_bytes(input.clone(), order).unwrap();
        assert_eq!(back, m);
        check_sharing(&back, &input, true);
        let copied: Message = marshal::cdr::from_slice(&wire, order).unwrap();
        assert_eq!(copied, m);
        check_sharing(&copied, &wire, false);
    }
}

/// Bad inputs made from a good one: truncated at every length, each byte flipped (bad
/// UTF-8, a NUL, a huge length, ...), a trailing byte, and a name over `max_len`.
fn bad_inputs(wire: &[u8], too_long: Vec<u8>) -> Vec<Vec<u8>> {
    let mut bad: Vec<Vec<u8>> = (0..wire.len()).map(|n| wire[..n].to_vec()).collect();
    for i in 0..wire.len() {
        for b in [0x00, 0xff, 0x80, 0x10] {
            let mut v = wire.to_vec();
            v[i] = b;
            bad.push(v);
        }
    }
    let mut trailing = wire.to_vec();
    trailing.push(0);
    bad.push(trailing);
    bad.push(too_long);
    bad
}

fn same_outcome(
    shared: Result<Message, marshal::Error>,
    copied: Result<Copied<'_>, marshal::Error>,
) {
    match (shared, copied) {
        (Ok(s), Ok(c)) => {
            assert_eq!(&*s.name, c.name);
            assert_eq!(s.payload, c.payload);
            assert_eq!(s.tags, c.tags);
            assert_eq!(s.note.as_deref(), c.note);
        }
        (Err(s), Err(c)) => assert_eq!(s.to_string(), c.to_string()),
        (s, c) => panic!("from_bytes gave {s:?}, from_slice {c:?}"),
    }
}

#[test]
fn xdr_errors_are_those_of_from_slice() {
    let too_long = marshal::xdr::to_vec(&too_long()).unwrap();
    let e = marshal::xdr::from_bytes::<Message>(Bytes::from(too_long.clone())).unwrap_err();
    assert_eq!(
        e.to_string(),
        "name: length 17 exceeds max_len 16 at offset 4"
    );
    let wire = marshal::xdr::to_vec(&message()).unwrap();
    for bad in bad_inputs(&wire, too_long) {
        same_outcome(
            marshal::xdr::from_bytes(Bytes::from(bad.clone())),
            marshal::xdr::from_slice(&bad),
        );
    }
}

#[cfg(feature = "iiop")]
#[test]
fn cdr_errors_are_those_of_from_slice() {
    use marshal::cdr::ByteOrder;
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let too_long = marshal::cdr::to_vec(&too_long(), order).unwrap();
        let e =
            marshal::cdr::from_bytes::<Message>(Bytes::from(too_long.clone()), order).unwrap_err();
        assert!(
            e.to_string().contains("length 17 exceeds max_len 16"),
            "{e}"
        );
        let wire = marshal::cdr::to_vec(&message(), order).unwrap();
        for bad in bad_inputs(&wire, too_long) {
            same_outcome(
                marshal::cdr::from_bytes(Bytes::from(bad.clone()), order),
                marshal::cdr::from_slice(&bad, order),
            );
        }
    }
}

fn arb_message() -> impl Strategy<Value = Message> {
    (
        any::<u32>(),
        "\\PC{0,4}",
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::collection::vec("\\PC{0,12}", 0..4),
        proptest::option::of("[a-z]{0,9}"),
    )
        .prop_map(|(id, name, payload, tags, note)| Message {
            id,
            name: name.into(),
            payload: payload.into(),
            tags: tags.into_iter().map(BytesStr::from).collect(),
            note: note.map(BytesStr::from),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trips(m in arb_message()) {
        let wire = marshal::xdr::to_vec(&m).unwrap();
        let input = Bytes::from(wire);
        let back: Message = marshal::xdr::from_bytes(input.clone()).unwrap();
        prop_assert_eq!(&back, &m);
        check_sharing(&back, &input, true);
        #[cfg(feature = "iiop")]
        for order in [marshal::cdr::ByteOrder::Big, marshal::cdr::ByteOrder::Little] {
            let wire = marshal::cdr::to_vec(&m, order).unwrap();
            let input = Bytes::from(wire);
            let back: Message = marshal::cdr::from_bytes(input.clone(), order).unwrap();
            prop_assert_eq!(&back, &m);
            check_sharing(&back, &input, true);
        }
    }
}
