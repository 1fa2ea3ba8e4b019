//! Dynamic records, PBIO's reflection: a body whose format has no Rust type, decoded into
//! [`Value`]s addressable by field name ([`DynRecord`]), and printed as JSON.
//!
//! Bounds: the body must hold the fixed part, and validated formats keep every field inside
//! its record, so fixed-part reads stay in the body; every slot (string or variable-length
//! array) is checked against the body before it is read, counting at least one byte per
//! element. Slots may overlap, so a hostile body could point many of them at one large region:
//! the conversion limit the interpreter also obeys ([`output_limit`], counting values and
//! string bytes here) bounds what one record decodes to, and is charged before anything is
//! allocated.

use core::fmt::{self, Write as _};
use std::sync::Arc;

use crate::convert::limit::output_limit;
use crate::convert::word;
use crate::format::field_type::Kind;
use crate::native::check_var;
use crate::native::SLOT;
use crate::{ByteOrder, Error, ErrorKind, Field, Format};

/// One decoded value.
///
/// A scalar field is the bare value; a fixed array is a [`Value::Array`] (a multi-dimensional
/// one an array of arrays, outermost dimension first), and so is a variable-length array. In
/// JSON ([`Display`](fmt::Display)), a non-empty array of [`Value::Char`] prints as a string of
/// its bytes up to the first NUL, bytes from 0x80 up as `\u0080`…`\u00ff`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float (a 4-byte one widened, exactly).
    Float(f64),
    /// A C `char`, any byte.
    Char(u8),
    /// A boolean (any non-zero bytes are `true`).
    Bool(bool),
    /// A string (checked to be UTF-8).
    String(String),
    /// A fixed or variable-length array.
    Array(Vec<Value>),
    /// A nested record.
    Record(DynRecord),
}

/// A record decoded with no Rust type: its format's name and its fields' values, in the
/// format's field order (by offset). Prints as a JSON object.
///
/// ```
/// use wire_ndr::{ByteOrder, DynRecord, Format, IOField, Value};
/// // struct { int i; double d; char tag[4]; } on a big-endian machine.
/// let f = Format::from_fields(
///     "sample",
///     ByteOrder::Big,
///     24,
///     &[
///         IOField::new("i", "integer", 4, 0),
///         IOField::new("d", "float", 8, 8),
///         IOField::new("tag", "char[4]", 1, 16),
///     ],
///     &[],
/// )
/// .unwrap();
/// let mut body = vec![0u8; 24];
/// body[..4].copy_from_slice(&(-3i32).to_be_bytes());
/// body[8..16].copy_from_slice(&2.5f64.to_be_bytes());
/// body[16..18].copy_from_slice(b"ok");
/// let r = DynRecord::decode(&f, &body).unwrap();
/// assert_eq!(r.name(), "sample");
/// assert_eq!(r.get("d"), Some(&Value::Float(2.5)));
/// assert_eq!(r.to_json(), r#"{"i":-3,"d":2.5,"tag":"ok"}"#);
/// ```
#[derive(Clone, PartialEq)]
pub struct DynRecord {
    shape: Arc<Shape>,
    values: Vec<Value>,
}

/// The names of a record and its fields, shared by every record of one format in a decode.
#[derive(Debug, PartialEq)]
struct Shape {
    name: String,
    fields: Vec<String>,
}

impl DynRecord {
    /// Decodes `body` (a message's body: the fixed part, then variable parts) as a record of
    /// `format`. Never panics, and decodes to at most 16 values and string bytes per body byte
    /// (plus 4096) however the slots point.
    ///
    /// Errors: a body shorter than the fixed part ([`ErrorKind::UnexpectedEnd`] at 0); a slot
    /// pointing outside the body ([`ErrorKind::Custom`] naming the field path, at the slot's
    /// offset); a string that is not UTF-8 ([`ErrorKind::InvalidUtf8`] at the first bad byte);
    /// a record that would decode to more than the budget ([`ErrorKind::TooManyElements`] at
    /// the field). Offsets count from the start of the body.
    pub fn decode(format: &Format, body: &[u8]) -> Result<DynRecord, Error> {
        if body.len() < format.size() {
            return Err(Error::new(
                ErrorKind::UnexpectedEnd {
                    needed: format.size(),
                    remaining: body.len(),
                },
                0,
            ));
        }
        let mut recs = Vec::new();
        let top = compile(format, &mut recs)?;
        let mut d = Decoder {
            body,
            big: format.byte_order() == ByteOrder::Big,
            budget: output_limit(0, body.len(), usize::MAX),
            recs: &recs,
        };
        d.record(top, 0, &Path::Root)
    }

    /// The name of the record's format.
    pub fn name(&self) -> &str {
        &self.shape.name
    }

    /// The value of the field named `field`.
    pub fn get(&self, field: &str) -> Option<&Value> {
        let i = self.shape.fields.iter().position(|f| f == field)?;
        self.values.get(i)
    }

    /// The fields' names and values, in the format's field order (by offset).
    pub fn fields(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.shape
            .fields
            .iter()
            .map(String::as_str)
            .zip(&self.values)
    }

    /// The record as a JSON object, fields in order (what [`Display`](fmt::Display) prints).
    pub fn to_json(&self) -> String {
        self.to_string()
    }
}

impl fmt::Debug for DynRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct(self.name());
        for (name, v) in self.fields() {
            s.field(name, v);
        }
        s.finish()
    }
}

impl fmt::Display for DynRecord {
    /// The record as a compact JSON object.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        for (i, (name, v)) in self.fields().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            json_str(f, name)?;
            f.write_char(':')?;
            fmt::Display::fmt(v, f)?;
        }
        f.write_char('}')
    }
}

impl fmt::Display for Value {
    /// The value as compact JSON: numbers (non-finite floats as `null`), `true`/`false`, a
    /// char or a char array as a string, arrays, objects.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::UInt(v) => write!(f, "{v}"),
            // `{:?}` is the shortest text that reads back as the same f64, and always a valid
            // JSON number (`1.0`, `1e300`, `1e-7`).
            Value::Float(v) if v.is_finite() => write!(f, "{v:?}"),
            Value::Float(_) => f.write_str("null"),
            Value::Char(c) => {
                f.write_char('"')?;
                json_byte(f, *c)?;
                f.write_char('"')
            }
            Value::Bool(b) => write!(f, "{b}"),
            Value::String(s) => json_str(f, s),
            Value::Array(items) if is_chars(items) => {
                f.write_char('"')?;
                for v in items {
                    match v {
                        Value::Char(0) => break,
                        Value::Char(c) => json_byte(f, *c)?,
                        _ => {}
                    }
                }
                f.write_char('"')
            }
            Value::Array(items) => {
                f.write_char('[')?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_char(',')?;
                    }
                    fmt::Display::fmt(v, f)?;
                }
                f.write_char(']')
            }
            Value::Record(r) => fmt::Display::fmt(r, f),
        }
    }
}

/// Whether `items` is a C char array (printed as a string).
fn is_chars(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(|v| matches!(v, Value::Char(_)))
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped.
fn json_str(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        json_char(f, c)?;
    }
    f.write_char('"')
}

fn json_char(f: &mut impl fmt::Write, c: char) -> fmt::Result {
    match c {
        '"' => f.write_str("\\\""),
        '\\' => f.write_str("\\\\"),
        c if u32::from(c) < 0x20 => write!(f, "\\u{:04x}", u32::from(c)),
        c => f.write_char(c),
    }
}

/// A C char inside a JSON string: ASCII as itself (escaped as needed), others as `\u00XX`.
fn json_byte(f: &mut impl fmt::Write, b: u8) -> fmt::Result {
    if b.is_ascii() {
        json_char(f, char::from(b))
    } else {
        write!(f, "\\u{b:04x}")
    }
}

/// A record format prepared for decoding: its shared names and each field's element kind,
/// nested records resolved to indexes (once per decode, not once per record read).
struct Rec<'f> {
    shape: Arc<Shape>,
    fields: Vec<(&'f Field, Elem)>,
}

/// What one element of a field is.
#[derive(Clone, Copy)]
enum Elem {
    Int,
    UInt,
    Float,
    Char,
    Bool,
    String,
    /// A nested record: its index in the decode's list of records.
    Record(usize),
}

/// Prepares `f` and the formats nested in it (each a child of exactly one format, so this is
/// linear in the size of the description); returns `f`'s index in `recs`.
fn compile<'f>(f: &'f Format, recs: &mut Vec<Rec<'f>>) -> Result<usize, Error> {
    let nested = f
        .nested()
        .iter()
        .map(|n| compile(n, recs))
        .collect::<Result<Vec<usize>, Error>>()?;
    let mut fields = Vec::with_capacity(f.fields().len());
    for field in f.fields() {
        let elem = match field.kind() {
            Kind::Int => Elem::Int,
            Kind::UInt => Elem::UInt,
            Kind::Float => Elem::Float,
            Kind::Char => Elem::Char,
            Kind::Bool => Elem::Bool,
            Kind::String => Elem::String,
            Kind::Record(r) => match f.nested().iter().position(|n| n.name() == r) {
                Some(i) => Elem::Record(nested[i]),
                // Validation makes this impossible; say so rather than panic.
                None => {
                    return Err(Error::without_offset(ErrorKind::InvalidFormat(format!(
                        "field `{}` of `{}` names record `{r}`, which is not described",
                        field.name(),
                        f.name()
                    ))))
                }
            },
        };
        fields.push((field, elem));
    }
    recs.push(Rec {
        shape: Arc::new(Shape {
            name: f.name().to_owned(),
            fields: f.fields().iter().map(|x| x.name().to_owned()).collect(),
        }),
        fields,
    });
    Ok(recs.len() - 1)
}

/// Where a value is, for errors: `pts[2].label`. Built on the stack as the decode descends.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Field(Path::Root, name) => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// An error about the value at `path`, in words that name it (field names are not `'static`,
/// so they cannot go in the error's own path); the offset is kept.
fn named(e: Error, path: &Path<'_>) -> Error {
    let kind = ErrorKind::Custom(format!("field `{path}`: {}", e.kind()));
    match e.offset() {
        Some(at) => Error::new(kind, at),
        None => Error::without_offset(kind),
    }
}

struct Decoder<'b, 'p, 'f> {
    body: &'b [u8],
    big: bool,
    /// Values and string bytes still allowed.
    budget: usize,
    recs: &'p [Rec<'f>],
}

impl Decoder<'_, '_, '_> {
    /// Takes `n` from the budget, before `n` values or bytes are allocated.
    fn charge(&mut self, n: usize, at: usize) -> Result<(), Error> {
        if n > self.budget {
            return Err(Error::new(
                ErrorKind::TooManyElements {
                    count: n as u64,
                    limit: self.budget as u64,
                },
                at,
            ));
        }
        self.budget -= n;
        Ok(())
    }

    /// `n` bytes at `at`. Validated formats and checked slots keep every read inside the body;
    /// this says so with an error rather than a panic if they did not.
    fn bytes(&self, at: usize, n: usize) -> Result<&[u8], Error> {
        at.checked_add(n)
            .and_then(|end| self.body.get(at..end))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::UnexpectedEnd {
                        needed: n,
                        remaining: self.body.len().saturating_sub(at),
                    },
                    at,
                )
            })
    }

    /// A slot at `at`: the data's offset from the body's start, and its length.
    fn slot(&self, at: usize) -> Result<(usize, usize), Error> {
        Ok(word::slot(self.bytes(at, SLOT)?, self.big))
    }

    /// The record `rec` at `at`.
    fn record(&mut self, rec: usize, at: usize, path: &Path<'_>) -> Result<DynRecord, Error> {
        let recs = self.recs;
        let rec = &recs[rec];
        self.charge(rec.fields.len(), at)?;
        let mut values = Vec::with_capacity(rec.fields.len());
        for (field, elem) in &rec.fields {
            let path = Path::Field(path, field.name());
            let at = at + field.offset();
            let v = if field.is_variable() {
                self.var(*elem, field.size(), at, &path)?
            } else {
                self.fixed(*elem, field.size(), field.dims(), at, &path)?
            };
            values.push(v);
        }
        Ok(DynRecord {
            shape: rec.shape.clone(),
            values,
        })
    }

    /// A variable-length array whose slot is at `at`.
    fn var(&mut self, elem: Elem, size: usize, at: usize, path: &Path<'_>) -> Result<Value, Error> {
        let (off, n) = self.slot(at)?;
        check_var(self.body.len(), at, off, n, size).map_err(|e| named(e, path))?;
        self.charge(n, at)?;
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            items.push(self.elem(elem, size, off + i * size, &Path::Index(path, i))?);
        }
        Ok(Value::Array(items))
    }

    /// A fixed array of `dims` (a single element when there are none) at `at`.
    fn fixed(
        &mut self,
        elem: Elem,
        size: usize,
        dims: &[usize],
        at: usize,
        path: &Path<'_>,
    ) -> Result<Value, Error> {
        let Some((&n, inner)) = dims.split_first() else {
            return self.elem(elem, size, at, path);
        };
        // Validation checked that the whole array's extent does not overflow.
        let stride = inner.iter().product::<usize>() * size;
        self.charge(n, at)?;
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            items.push(self.fixed(elem, size, inner, at + i * stride, &Path::Index(path, i))?);
        }
        Ok(Value::Array(items))
    }

    /// One element of `size` bytes at `at`.
    fn elem(
        &mut self,
        elem: Elem,
        size: usize,
        at: usize,
        path: &Path<'_>,
    ) -> Result<Value, Error> {
        Ok(match elem {
            Elem::Int => Value::Int(word::int(self.bytes(at, size)?, self.big)),
            Elem::UInt => Value::UInt(word::uint(self.bytes(at, size)?, self.big)),
            Elem::Float => Value::Float(word::float(self.bytes(at, size)?, self.big)),
            Elem::Char => Value::Char(self.bytes(at, 1)?[0]),
            Elem::Bool => Value::Bool(self.bytes(at, size)?.iter().any(|&x| x != 0)),
            Elem::String => self.string(at, path)?,
            Elem::Record(rec) => Value::Record(self.record(rec, at, path)?),
        })
    }

    /// A string whose slot is at `at`.
    fn string(&mut self, at: usize, path: &Path<'_>) -> Result<Value, Error> {
        let (off, len) = self.slot(at)?;
        check_var(self.body.len(), at, off, len, 1).map_err(|e| named(e, path))?;
        self.charge(len, at)?;
        let b = self.bytes(off, len)?;
        match core::str::from_utf8(b) {
            Ok(s) => Ok(Value::String(s.to_owned())),
            Err(e) => Err(Error::new(ErrorKind::InvalidUtf8, off + e.valid_up_to())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::IOField;

    fn inner(order: ByteOrder) -> Format {
        Format::from_fields(
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
        .unwrap()
    }

    fn sample(order: ByteOrder) -> Format {
        Format::from_fields(
            "sample",
            order,
            104,
            &[
                IOField::new("i", "integer", 4, 0),
                IOField::new("pos", "inner", 24, 8),
                IOField::new("m", "float[2][3]", 8, 32),
                IOField::new("name", "string", 8, 80),
                IOField::new("pts", "inner[]", 24, 88),
                IOField::new("vals", "integer[]", 2, 96),
            ],
            &[inner(order)],
        )
        .unwrap()
    }

    /// Writes integers in one byte order at given offsets, growing as needed.
    struct Body {
        b: Vec<u8>,
        big: bool,
    }

    impl Body {
        fn new(order: ByteOrder) -> Body {
            Body {
                b: Vec::new(),
                big: order == ByteOrder::Big,
            }
        }
        fn put(&mut self, at: usize, v: u64, n: usize) {
            let be = v.to_be_bytes();
            let mut bytes = be[8 - n..].to_vec();
            if !self.big {
                bytes.reverse();
            }
            self.bytes(at, &bytes);
        }
        fn bytes(&mut self, at: usize, data: &[u8]) {
            if self.b.len() < at + data.len() {
                self.b.resize(at + data.len(), 0);
            }
            self.b[at..at + data.len()].copy_from_slice(data);
        }
        fn slot(&mut self, at: usize, off: usize, len: usize) {
            self.put(at, off as u64, 4);
            self.put(at + 4, len as u64, 4);
        }
        fn f32(&mut self, at: usize, v: f32) {
            self.put(at, v.to_bits().into(), 4);
        }
        fn f64(&mut self, at: usize, v: f64) {
            self.put(at, v.to_bits(), 8);
        }
        /// An `inner` at `at`, its label at `label_at`.
        fn inner(&mut self, at: usize, id: u16, flags: [u8; 2], tag: &[u8], w: f32) {
            self.put(at, id.into(), 2);
            self.bytes(at + 2, &flags);
            self.bytes(at + 4, tag);
            self.f32(at + 12, w);
        }
    }

    const NAME: &str = "say \"hi\"\n\\\u{1}é";

    fn sample_body(order: ByteOrder) -> Vec<u8> {
        let mut b = Body::new(order);
        b.put(0, (-7i32) as u32 as u64, 4);
        b.inner(8, 513, [1, b'A'], b"hi\0junk", 1.5);
        b.slot(8 + 16, 182, 2);
        for (i, v) in [0.5, 1.0, -2.25, 1e300, 0.1, f64::NAN]
            .into_iter()
            .enumerate()
        {
            b.f64(32 + 8 * i, v);
        }
        b.slot(80, 104, NAME.len());
        b.bytes(104, NAME.as_bytes());
        b.slot(88, 120, 2);
        b.inner(120, 1, [0, 0], b"x\xe9y", 0.1);
        b.slot(120 + 16, 168, 1);
        b.inner(144, 2, [2, b'z'], b"12345678", 3.0);
        b.slot(144 + 16, 169, 2);
        b.bytes(168, b"abc");
        b.slot(96, 176, 3);
        for (i, v) in [-1i16, 2, 300].into_iter().enumerate() {
            b.put(176 + 2 * i, v as u16 as u64, 2);
        }
        b.bytes(182, b"in");
        b.b
    }

    const SAMPLE_JSON: &str = concat!(
        r#"{"i":-7,"#,
        r#""pos":{"id":513,"ok":true,"c":"A","tag":"hi","w":1.5,"label":"in"},"#,
        r#""m":[[0.5,1.0,-2.25],[1e300,0.1,null]],"#,
        r#""name":"say \"hi\"\u000a\\\u0001é","#,
        r#""pts":[{"id":1,"ok":false,"c":"\u0000","tag":"x\u00e9y","w":0.10000000149011612,"label":"a"},"#,
        r#"{"id":2,"ok":true,"c":"z","tag":"12345678","w":3.0,"label":"bc"}],"#,
        r#""vals":[-1,2,300]}"#
    );

    #[test]
    fn decodes_both_byte_orders_to_the_same_values_and_json() {
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let f = sample(order);
            let r = DynRecord::decode(&f, &sample_body(order)).unwrap();
            assert_eq!(r.to_json(), SAMPLE_JSON, "{order:?}");
            assert_eq!(r.to_string(), SAMPLE_JSON);
            assert_eq!(r.name(), "sample");
            let names: Vec<&str> = r.fields().map(|(n, _)| n).collect();
            assert_eq!(names, ["i", "pos", "m", "name", "pts", "vals"]);
            assert_eq!(r.get("i"), Some(&Value::Int(-7)));
            assert_eq!(r.get("name"), Some(&Value::String(NAME.into())));
            assert_eq!(r.get("nope"), None);
            let Some(Value::Record(pos)) = r.get("pos") else {
                panic!("pos is {:?}", r.get("pos"))
            };
            assert_eq!(pos.name(), "inner");
            assert_eq!(pos.get("id"), Some(&Value::UInt(513)));
            assert_eq!(pos.get("ok"), Some(&Value::Bool(true)));
            assert_eq!(pos.get("c"), Some(&Value::Char(b'A')));
            let tag: Vec<Value> = b"hi\0junk\0".iter().map(|&c| Value::Char(c)).collect();
            assert_eq!(pos.get("tag"), Some(&Value::Array(tag)));
            assert_eq!(pos.get("w"), Some(&Value::Float(1.5)));
            let Some(Value::Array(m)) = r.get("m") else {
                panic!("m is {:?}", r.get("m"))
            };
            assert_eq!(m.len(), 2);
            assert_eq!(
                m[0],
                Value::Array(vec![
                    Value::Float(0.5),
                    Value::Float(1.0),
                    Value::Float(-2.25)
                ])
            );
            let Some(Value::Array(pts)) = r.get("pts") else {
                panic!("pts is {:?}", r.get("pts"))
            };
            let Value::Record(p1) = &pts[1] else {
                panic!("pts[1] is {:?}", pts[1])
            };
            assert_eq!(p1.get("label"), Some(&Value::String("bc".into())));
            assert_eq!(
                r.get("vals"),
                Some(&Value::Array(vec![
                    Value::Int(-1),
                    Value::Int(2),
                    Value::Int(300)
                ]))
            );
            // Debug shows the record by its names.
            assert!(format!("{r:?}")
                .starts_with("sample { i: Int(-7), pos: Record(inner { id: UInt(513)"));
        }
    }

    #[test]
    fn scalars_of_every_width_and_json_of_odd_values() {
        let f = Format::from_fields(
            "w",
            ByteOrder::Big,
            32,
            &[
                IOField::new("i1", "integer", 1, 0),
                IOField::new("u1", "unsigned integer", 1, 1),
                IOField::new("i2", "integer", 2, 2),
                IOField::new("i4", "integer", 4, 4),
                IOField::new("i8", "integer", 8, 8),
                IOField::new("u8", "unsigned integer", 8, 16),
                IOField::new("b8", "boolean", 8, 24),
            ],
            &[],
        )
        .unwrap();
        let mut b = Body::new(ByteOrder::Big);
        b.bytes(0, &[0x80, 0xff]);
        b.put(2, 0x8000, 2);
        b.put(4, 0xffff_fffe, 4);
        b.put(8, i64::MIN as u64, 8);
        b.put(16, u64::MAX, 8);
        b.put(24, 1 << 60, 8);
        let r = DynRecord::decode(&f, &b.b).unwrap();
        assert_eq!(
            r.to_json(),
            r#"{"i1":-128,"u1":255,"i2":-32768,"i4":-2,"i8":-9223372036854775808,"u8":18446744073709551615,"b8":true}"#
        );
        for (v, json) in [
            (Value::Float(f64::INFINITY), "null"),
            (Value::Float(-0.0), "-0.0"),
            (Value::Float(1e-7), "1e-7"),
            (Value::Float(123456789.0), "123456789.0"),
            (Value::Char(0x7f), "\"\u{7f}\""),
            (Value::Char(0xff), r#""\u00ff""#),
            (Value::Array(vec![]), "[]"),
            (Value::Array(vec![Value::Char(0)]), r#""""#),
            (
                Value::Array(vec![Value::Char(b'a'), Value::Int(1)]),
                r#"["a",1]"#,
            ),
            (
                Value::String("\t\u{1f}\u{7f}".into()),
                "\"\\u0009\\u001f\u{7f}\"",
            ),
        ] {
            assert_eq!(v.to_string(), json, "{v:?}");
        }
    }

    #[test]
    fn short_bodies_and_bad_slots_are_errors_with_offsets() {
        let order = ByteOrder::Little;
        let f = sample(order);
        let good = sample_body(order);

        let e = DynRecord::decode(&f, &good[..103]).unwrap_err();
        assert_eq!(
            e.kind(),
            &ErrorKind::UnexpectedEnd {
                needed: 104,
                remaining: 103
            }
        );
        assert_eq!(e.offset(), Some(0));

        // The string's bytes run past the end.
        let mut b = Body::new(order);
        b.b = good.clone();
        b.slot(80, good.len() - 2, 3);
        let e = DynRecord::decode(&f, &b.b).unwrap_err();
        assert_eq!(e.offset(), Some(80));
        assert!(
            e.to_string().starts_with("field `name`: length 3 exceeds"),
            "{e}"
        );

        // A string inside an element of a variable-length array of records.
        b.b = good.clone();
        b.slot(144 + 16, u32::MAX as usize, 1);
        let e = DynRecord::decode(&f, &b.b).unwrap_err();
        assert_eq!(e.offset(), Some(160));
        assert!(e.to_string().contains("field `pts[1].label`"), "{e}");

        // A count that the body cannot hold, even at one byte per element.
        b.b = good.clone();
        b.slot(96, 0, u32::MAX as usize);
        let e = DynRecord::decode(&f, &b.b).unwrap_err();
        assert_eq!(e.offset(), Some(96));
        assert!(e.to_string().contains("field `vals`"), "{e}");

        // Not UTF-8: the offset is the first bad byte.
        b.b = good.clone();
        b.bytes(104 + 3, &[0xff]);
        let e = DynRecord::decode(&f, &b.b).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
        assert_eq!(e.offset(), Some(107));
    }

    #[test]
    fn overlapping_slots_cannot_exceed_the_budget() {
        // 64 variable-length arrays, every one pointing at the same 2000 bytes.
        let fields: Vec<IOField> = (0..64)
            .map(|i| IOField::new(&format!("v{i}"), "char[]", 1, 8 * i))
            .collect();
        let f = Format::from_fields("many", ByteOrder::Big, 512, &fields, &[]).unwrap();
        let mut b = Body::new(ByteOrder::Big);
        for i in 0..64 {
            b.slot(8 * i, 512, 2000);
        }
        b.bytes(512, &[b'x'; 2000]);
        let e = DynRecord::decode(&f, &b.b).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::TooManyElements { .. }), "{e}");
        // Each array alone is fine, and 20 of them fit the limit, 16 × 2512 + 4096.
        let r = DynRecord::decode(
            &Format::from_fields("few", ByteOrder::Big, 512, &fields[..20], &[]).unwrap(),
            &b.b,
        )
        .unwrap();
        assert_eq!(r.fields().count(), 20);
    }

    #[test]
    fn zero_sized_records_cannot_multiply_without_bound() {
        // Each level is a million copies of the one below, all in 0 bytes.
        let mut f = Format::from_fields("l0", ByteOrder::Big, 0, &[], &[]).unwrap();
        for level in 1..6 {
            let below = f.name().to_owned();
            f = Format::from_fields(
                &format!("l{level}"),
                ByteOrder::Big,
                0,
                &[IOField::new("x", &format!("{below}[1000000]"), 0, 0)],
                &[f],
            )
            .unwrap();
        }
        let e = DynRecord::decode(&f, &[]).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::TooManyElements { .. }), "{e}");
        // A record with no fields is an empty object.
        let empty = Format::from_fields("e", ByteOrder::Big, 0, &[], &[]).unwrap();
        assert_eq!(DynRecord::decode(&empty, &[]).unwrap().to_json(), "{}");
    }
}
