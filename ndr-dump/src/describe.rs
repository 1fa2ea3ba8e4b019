//! One JSON line describing a format (`--formats`): its name, id, byte order, size, fields
//! with their PBIO type strings, and the formats nested in it, described the same way.

use std::fmt::Write as _;

use wire_ndr::{ByteOrder, Format, Value};

/// `format` as a JSON object, e.g. `{"format":"point","id":"…","byte_order":"big","size":8,
/// "fields":[{"name":"x","type":"integer","size":4,"offset":0},…],"nested":[]}`.
pub fn format_json(format: &Format) -> String {
    let mut s = String::new();
    write_format(&mut s, format);
    s
}

fn write_format(s: &mut String, f: &Format) {
    let order = match f.byte_order() {
        ByteOrder::Big => "big",
        ByteOrder::Little => "little",
    };
    // Writing to a String cannot fail.
    let _ = write!(
        s,
        r#"{{"format":{},"id":"{}","byte_order":"{order}","size":{},"fields":["#,
        json_str(f.name()),
        f.id(),
        f.size()
    );
    for (i, field) in f.fields().iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            r#"{{"name":{},"type":{},"size":{},"offset":{}}}"#,
            json_str(field.name()),
            json_str(&field.type_name()),
            field.size(),
            field.offset()
        );
    }
    s.push_str(r#"],"nested":["#);
    for (i, n) in f.nested().iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        write_format(s, n);
    }
    s.push_str("]}");
}

/// A string as JSON, escaped as `wire_ndr` escapes record values.
fn json_str(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire_ndr::{Field, IOField};

    #[test]
    fn describes_fields_with_their_type_strings_and_nested_formats() {
        let p = Format::from_fields(
            "p",
            ByteOrder::Little,
            2,
            &[IOField::new("c", "char[2]", 1, 0)],
            &[],
        )
        .unwrap();
        let f = Format::from_fields(
            "r\"q",
            ByteOrder::Little,
            32,
            &[
                IOField::new("u", "unsigned integer", 2, 0),
                IOField::new("m", "float[2][1]", 4, 4),
                IOField::new("v", "p[]", 2, 16),
                IOField::new("s", "string", 8, 24),
            ],
            std::slice::from_ref(&p),
        )
        .unwrap();
        let types: Vec<String> = f.fields().iter().map(Field::type_name).collect();
        assert_eq!(types, ["unsigned integer", "float[2][1]", "p[]", "string"]);
        assert_eq!(
            format_json(&f),
            format!(
                concat!(
                    r#"{{"format":"r\"q","id":"{}","byte_order":"little","size":32,"fields":["#,
                    r#"{{"name":"u","type":"unsigned integer","size":2,"offset":0}},"#,
                    r#"{{"name":"m","type":"float[2][1]","size":4,"offset":4}},"#,
                    r#"{{"name":"v","type":"p[]","size":2,"offset":16}},"#,
                    r#"{{"name":"s","type":"string","size":8,"offset":24}}],"#,
                    r#""nested":[{{"format":"p","id":"{}","byte_order":"little","size":2,"#,
                    r#""fields":[{{"name":"c","type":"char[2]","size":1,"offset":0}}],"nested":[]}}]}}"#
                ),
                f.id(),
                p.id()
            )
        );
    }
}
