//! `ndr_dynamic`: records decoded with no Rust type (`DynRecord`), and what `ndr-dump` does
//! with its input.
//!
//! Input: `[flags][rest]`. Flags bit 0 clear: `rest` is `[len: u16 big-endian][description
//! (len bytes, without the id)][body]`: the format is validated (its id computed here), the
//! body decoded with `DynRecord::decode` and through `Receiver::decode_dynamic` (which must
//! agree), and printed. Bit 0 set: `rest` is an NDR stream as `ndr-dump` reads it (format
//! frames and record messages, each format before its records): `ndr-dump` is a binary, so
//! this repeats what its `main.rs` does with `wire-ndr`'s public functions — cut frames with
//! `frame_len`, `parse_frame` each, register formats (and describe them as `--formats`
//! does), decode each record with its format and print it as a JSON line.

use marshal::ndr::{
    frame_len, message_from_body, parse_frame, ByteOrder, DynRecord, Engine, Format, Frame,
    Receiver, Value,
};

use crate::util::{format_of_description, split_u16};

/// Bytes of a frame's head (magic and length).
const FRAME_HEAD_LEN: usize = 8;
/// The frame cap `ndr-dump` applies: 256 MiB.
const MAX_FRAME: usize = 256 << 20;
/// At most this many frames per input.
const MAX_FRAMES: usize = 1024;

/// The target.
pub fn run(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    if flags & 1 == 0 {
        one_record(rest);
    } else {
        dump(rest);
    }
}

fn one_record(rest: &[u8]) {
    let Some((description, body)) = split_u16(rest) else {
        return;
    };
    let Ok(format) = format_of_description(description) else {
        return;
    };
    let direct = DynRecord::decode(&format, body);
    if let Ok(r) = &direct {
        print(r);
    }
    let mut rx = Receiver::with_engine(Engine::Interpreter);
    let id = rx.register(format);
    let Ok(msg) = message_from_body(id, body) else {
        return;
    };
    match (rx.decode_dynamic(&msg), &direct) {
        // JSON, not `==`: a NaN is not equal to itself.
        (Ok(a), Ok(b)) => assert_eq!(
            a.to_json(),
            b.to_json(),
            "decode_dynamic and DynRecord::decode differ"
        ),
        (Err(_), Err(_)) => {}
        (a, b) => panic!(
            "decode_dynamic and DynRecord::decode: {:?} and {:?}",
            a.err(),
            b.as_ref().err()
        ),
    }
}

/// Reads every part of a record and prints it.
fn print(r: &DynRecord) {
    let json = r.to_json();
    assert_eq!(json, r.to_string(), "to_json and Display");
    let _ = r.name();
    for (name, value) in r.fields() {
        assert!(r.get(name).is_some());
        walk(value);
    }
}

fn walk(v: &Value) {
    match v {
        Value::Array(items) => items.iter().for_each(walk),
        Value::Record(r) => {
            for (_, v) in r.fields() {
                walk(v);
            }
        }
        _ => {}
    }
}

/// What `ndr-dump --formats` does with a stream.
fn dump(mut stream: &[u8]) {
    let mut rx = Receiver::with_engine(Engine::Interpreter);
    let mut out = String::new();
    for _ in 0..MAX_FRAMES {
        let Some(head) = stream.first_chunk::<FRAME_HEAD_LEN>() else {
            return;
        };
        let Ok(len) = frame_len(head) else {
            return;
        };
        if len > MAX_FRAME || len > stream.len() {
            return;
        }
        let (frame, tail) = stream.split_at(len);
        stream = tail;
        match parse_frame(frame) {
            Err(_) => return,
            Ok(Frame::Format(f)) => {
                out.push_str(&describe(&f));
                out.push('\n');
                rx.register(f);
            }
            Ok(Frame::Record(m)) => {
                let Some(format) = rx.format(m.id) else {
                    return;
                };
                let Ok(record) = DynRecord::decode(format, m.body) else {
                    return;
                };
                print(&record);
                out.push_str(&format!(
                    "{{\"format\":{},\"id\":\"{}\",\"record\":{record}}}\n",
                    Value::String(format.name().to_owned()),
                    m.id
                ));
            }
        }
        out.clear();
    }
}

/// `ndr-dump`'s description of a format (`describe::format_json`).
fn describe(f: &Format) -> String {
    let order = match f.byte_order() {
        ByteOrder::Big => "big",
        ByteOrder::Little => "little",
    };
    let mut s = format!(
        r#"{{"format":{},"id":"{}","byte_order":"{order}","size":{},"fields":["#,
        Value::String(f.name().to_owned()),
        f.id(),
        f.size()
    );
    for (i, field) in f.fields().iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let t = field.type_name();
        s.push_str(&format!(
            r#"{{"name":{},"type":{},"size":{},"offset":{}}}"#,
            Value::String(field.name().to_owned()),
            Value::String(t),
            field.size(),
            field.offset()
        ));
    }
    s.push_str(r#"],"nested":["#);
    for (i, n) in f.nested().iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&describe(n));
    }
    s.push_str("]}");
    s
}
