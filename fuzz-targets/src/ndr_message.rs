//! `ndr_message`: NDR messages (header and body) decoded by a `Receiver` that knows the local
//! formats of the derived NDR types and a few foreign layouts of them.
//!
//! Input: an NDR message: `NDRr`, its length (u32 big-endian), a 16-byte format id, the body.
//! The receiver (interpreter; kept between inputs) knows the native formats of `NPoint`,
//! `NSample`, `NMixed`, `NNest`, `NBig` and `NBigs`, and for each a big-endian layout and one
//! with an extra field first; the seeds are messages in all of them, and the fuzzer mutates
//! their bodies (an id it invents names no known format).
//!
//! For every local type: `decode`, `decode_into` and (for types that allow it) `view` must
//! agree, and a decoded value must come back from its own message. `decode_dynamic` must
//! decode what the others do and print; where both decode an `NMixed` or `NNest`, their
//! strings (copied as they are by every conversion) must be the same.

use std::cell::RefCell;

use marshal::ndr::{
    parse_message, to_body, to_message, ByteOrder, DynRecord, Engine, Format, IOField, Receiver,
    Record, Value,
};

use crate::convert::same_result;
use crate::types::{NBig, NBigs, NMixed, NNest, NPoint, NSample};
use crate::xdr_derived::same_bytes;

thread_local! {
    static RECEIVER: RefCell<Option<Receiver>> = const { RefCell::new(None) };
}

/// The formats the receiver knows: for each local type, its native format, a big-endian
/// layout, and a layout with an extra 8-byte field first.
pub fn formats() -> Vec<Format> {
    let mut out = Vec::new();
    for f in [
        NPoint::format(),
        NSample::format(),
        NMixed::format(),
        NNest::format(),
        NBig::format(),
        NBigs::format(),
    ] {
        out.push(f.clone());
        out.push(in_order(f, ByteOrder::Big));
        out.push(extra_first(f));
    }
    out
}

/// `f` with every record (nested ones too) in byte order `order`.
pub fn in_order(f: &Format, order: ByteOrder) -> Format {
    let nested: Vec<Format> = f.nested().iter().map(|n| in_order(n, order)).collect();
    Format::from_fields(f.name(), order, f.size(), &f.io_fields(), &nested)
        .expect("a valid format is valid in either byte order")
}

/// `f` with an extra `u64` field `zz_extra` first, every other field 8 bytes later.
pub fn extra_first(f: &Format) -> Format {
    let mut fields = vec![IOField::new("zz_extra", "unsigned integer", 8, 0)];
    fields.extend(f.io_fields().into_iter().map(|mut x| {
        x.offset += 8;
        x
    }));
    Format::from_fields(f.name(), f.byte_order(), f.size() + 8, &fields, f.nested())
        .expect("a valid format with a field more")
}

/// The target.
pub fn run(data: &[u8]) {
    RECEIVER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let rx = slot.get_or_insert_with(|| {
            let mut rx = Receiver::with_engine(Engine::Interpreter);
            for f in formats() {
                rx.register(f);
            }
            rx
        });
        check::<NPoint>(rx, data, true);
        check::<NSample>(rx, data, true);
        check::<NMixed>(rx, data, false);
        check::<NNest>(rx, data, false);
        check::<NBig>(rx, data, true);
        check::<NBigs>(rx, data, false);
        let dynamic = rx.decode_dynamic(data);
        if let Ok(r) = &dynamic {
            if let Ok(v) = rx.decode::<NMixed>(data) {
                same_string(r, "name", &v.name);
                let tags: Vec<&str> = v.tags.iter().map(|t| t.s.as_str()).collect();
                same_strings(r, "tags", &tags);
            }
            if let Ok(v) = rx.decode::<NNest>(data) {
                same_string(r, "label", &v.label);
            }
        }
        if let Ok(r) = dynamic {
            let json = r.to_json();
            assert_eq!(json, r.to_string(), "to_json and Display");
            let _ = r.name();
            for (name, value) in r.fields() {
                assert!(r.get(name).is_some_and(|v| std::ptr::eq(v, value)));
            }
        }
    });
}

/// The dynamic record's string field `name`, if it has one, is `want`.
fn same_string(r: &DynRecord, name: &str, want: &str) {
    if let Some(Value::String(s)) = r.get(name) {
        assert_eq!(
            s, want,
            "`{name}` decoded dynamically and into a local type"
        );
    }
}

/// The dynamic record's string-array field `name`, if it has one, is `want`.
/// `name`, an array of records of one string field `s`, decoded dynamically, against `want`.
fn same_strings(r: &DynRecord, name: &str, want: &[&str]) {
    if let Some(Value::Array(items)) = r.get(name) {
        let got: Vec<Option<&str>> = items
            .iter()
            .map(|v| match v {
                Value::Record(t) => match t.get("s") {
                    Some(Value::String(s)) => Some(s.as_str()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if got.iter().all(Option::is_some) && got.len() == want.len() {
            let want: Vec<Option<&str>> = want.iter().map(|s| Some(*s)).collect();
            assert_eq!(
                got, want,
                "`{name}` decoded dynamically and into a local type"
            );
        }
    }
}

fn check<T: Record + Default>(rx: &mut Receiver, msg: &[u8], viewable: bool) {
    let decoded = rx.decode::<T>(msg);
    let mut into = T::default();
    let r = rx.decode_into::<T>(msg, &mut into);
    same_result(&r.map(|()| into), &decoded);
    if viewable {
        if let Ok(view) = rx.view::<T>(msg) {
            let v = decoded.as_ref().expect("a message that views decodes");
            same_bytes(
                "a view and a decoded value",
                &to_body(view).expect("a body"),
                &to_body(v).expect("a body"),
            );
        }
    }
    if let Ok(v) = &decoded {
        let own = to_message(v).expect("a decoded value has a message");
        let back = rx.decode::<T>(&own).expect("a value's own message decodes");
        same_bytes(
            "a value through its own message",
            &to_body(&back).expect("a body"),
            &to_body(v).expect("a body"),
        );
        assert_eq!(parse_message(&own).expect("a message").id, T::format().id());
    }
}
