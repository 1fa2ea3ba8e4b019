//! The canonical encoding of a format description: a version octet, then the record —
//! big-endian integers whatever the host, fields by offset, nested formats inlined by name:
//!
//! ```text
//! record := name  order:u8  size:u64  nested:u16 record*  fields:u16 field*
//! field  := name  kind:u8 [record-name if kind = 6]  size:u32  offset:u64  var:u8  ndims:u8 dim:u64*
//! name   := len:u16 utf8-bytes
//! ```
//!
//! Every format has exactly one encoding (`Format::build`, the one way a format is made, sorts
//! its fields and nested formats before it validates them and hashes the encoding into the
//! id), so equal formats hash to equal ids; decoding refuses any other arrangement of the
//! same facts.

use marshal_core::{Error, ErrorKind, Reader};

use crate::format::description::{Field, Format, MAX_DEPTH, MAX_FIELDS};
use crate::format::field_type::{self, Kind};
use crate::format::format_id::FormatId;
use crate::order::ByteOrder;

/// The description version this crate writes and reads.
const VERSION: u8 = 1;

/// The canonical description (without the id).
fn description(f: &Format) -> Vec<u8> {
    let mut out = vec![VERSION];
    record(f, &mut out);
    out
}

fn name(s: &str, out: &mut Vec<u8>) {
    // Validation caps names at 255 bytes.
    out.extend_from_slice(&(s.len() as u16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn record(f: &Format, out: &mut Vec<u8>) {
    name(&f.name, out);
    out.push(f.order.code());
    out.extend_from_slice(&(f.size as u64).to_be_bytes());
    // Validation caps both counts at `MAX_FIELDS`, which fits in 16 bits.
    out.extend_from_slice(&(f.nested.len() as u16).to_be_bytes());
    for n in &f.nested {
        record(n, out);
    }
    out.extend_from_slice(&(f.fields.len() as u16).to_be_bytes());
    for fd in &f.fields {
        name(&fd.name, out);
        out.push(fd.kind.code());
        if let Kind::Record(r) = &fd.kind {
            name(r, out);
        }
        // Sizes are at most `MAX_RECORD_SIZE`, which fits in 32 bits.
        out.extend_from_slice(&(fd.size as u32).to_be_bytes());
        out.extend_from_slice(&(fd.offset as u64).to_be_bytes());
        out.push(u8::from(fd.var));
        out.push(fd.dims.len() as u8);
        for d in &fd.dims {
            out.extend_from_slice(&(*d as u64).to_be_bytes());
        }
    }
}

// The description is read with the framework's `Reader`, based at 16 (after the id) so that
// offsets in errors count from the start of `to_bytes`; these read its fields.

fn invalid(at: usize, msg: String) -> Error {
    Error::new(ErrorKind::InvalidFormat(msg), at)
}

fn u8_at(r: &mut Reader<'_>) -> Result<u8, Error> {
    Ok(r.array::<1>()?[0])
}

fn u16_at(r: &mut Reader<'_>) -> Result<usize, Error> {
    Ok(u16::from_be_bytes(r.array()?).into())
}

fn u32_at(r: &mut Reader<'_>) -> Result<usize, Error> {
    let at = r.position();
    let v = u32::from_be_bytes(r.array()?);
    usize::try_from(v).map_err(|_| invalid(at, format!("{v} does not fit this machine")))
}

fn u64_at(r: &mut Reader<'_>) -> Result<usize, Error> {
    let at = r.position();
    let v = u64::from_be_bytes(r.array()?);
    usize::try_from(v).map_err(|_| invalid(at, format!("{v} does not fit this machine")))
}

fn name_at(r: &mut Reader<'_>) -> Result<String, Error> {
    let n = u16_at(r)?;
    let at = r.position();
    core::str::from_utf8(r.take(n)?)
        .map(str::to_owned)
        .map_err(|_| Error::new(ErrorKind::InvalidUtf8, at))
}

impl Format {
    /// Sorts, validates and computes the id: the one way every `Format` is made.
    pub(crate) fn build(
        name: String,
        order: ByteOrder,
        size: usize,
        mut fields: Vec<Field>,
        mut nested: Vec<Format>,
        depth: usize,
    ) -> Result<Format, String> {
        fields.sort_by(|a, b| (a.offset, &a.name).cmp(&(b.offset, &b.name)));
        nested.sort_by(|a, b| a.name.cmp(&b.name));
        let mut f = Format {
            name,
            order,
            size,
            fields,
            nested,
            id: FormatId::from_bytes([0; 16]),
            zero_copy: false,
        };
        f.validate(depth)?;
        f.id = FormatId::of_description(&description(&f));
        Ok(f)
    }

    /// Parses and validates a description made by [`Format::to_bytes`]: the 16-byte id, then
    /// the canonical description. Refuses bytes whose id is not the hash of the rest, and
    /// descriptions that are not canonical (every format has exactly one encoding).
    pub fn from_bytes(bytes: &[u8]) -> Result<Format, Error> {
        from_bytes(bytes)
    }

    /// The 16-byte id, then the canonical description (versioned, byte-order independent),
    /// nested formats inlined.
    pub fn to_bytes(&self) -> Vec<u8> {
        let d = description(self);
        let mut out = Vec::with_capacity(16 + d.len());
        out.extend_from_slice(self.id.as_bytes());
        out.extend_from_slice(&d);
        out
    }
}

/// [`Format::from_bytes`].
fn from_bytes(bytes: &[u8]) -> Result<Format, Error> {
    if bytes.len() < 17 {
        return Err(Error::new(
            ErrorKind::UnexpectedEnd {
                needed: 17,
                remaining: bytes.len(),
            },
            0,
        ));
    }
    let (id, d) = bytes.split_at(16);
    let id = FormatId::from_bytes(id.try_into().expect("16 bytes"));
    let hash = FormatId::of_description(d);
    if hash != id {
        return Err(Error::new(
            ErrorKind::InvalidFormat(format!(
                "id {id} is not the hash of the description ({hash})"
            )),
            0,
        ));
    }
    let mut r = Reader::new(d, 16);
    let v = u8_at(&mut r)?;
    if v != VERSION {
        return Err(invalid(16, format!("unknown description version {v}")));
    }
    let f = read_record(&mut r, 0)?;
    r.finish()?;
    // `build` sorted what it read and hashed its own encoding: a different id means the input
    // was another arrangement of the same facts.
    if f.id != id {
        return Err(Error::new(
            ErrorKind::InvalidFormat("the description is not in canonical order".into()),
            16,
        ));
    }
    Ok(f)
}

fn read_record(r: &mut Reader<'_>, depth: usize) -> Result<Format, Error> {
    let start = r.position();
    if depth > MAX_DEPTH {
        return Err(invalid(
            start,
            format!("records nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    let name = name_at(r)?;
    let at = r.position();
    let order = ByteOrder::from_code(u8_at(r)?)
        .ok_or_else(|| invalid(at, "byte order is neither 0 (big) nor 1 (little)".into()))?;
    let size = u64_at(r)?;
    let n_nested = u16_at(r)?;
    let mut nested = Vec::new();
    for _ in 0..n_nested {
        nested.push(read_record(r, depth + 1)?);
    }
    let at = r.position();
    let n_fields = u16_at(r)?;
    if n_fields > MAX_FIELDS {
        return Err(invalid(
            at,
            format!("{n_fields} fields, more than {MAX_FIELDS}"),
        ));
    }
    let mut fields = Vec::new();
    for _ in 0..n_fields {
        let fname = name_at(r)?;
        let at = r.position();
        let kind = match u8_at(r)? {
            0 => Kind::Int,
            1 => Kind::UInt,
            2 => Kind::Float,
            3 => Kind::Char,
            4 => Kind::Bool,
            5 => Kind::String,
            6 => Kind::Record(name_at(r)?),
            k => return Err(invalid(at, format!("field `{fname}`: unknown kind {k}"))),
        };
        let size = u32_at(r)?;
        let offset = u64_at(r)?;
        let at = r.position();
        let var = match u8_at(r)? {
            0 => false,
            1 => true,
            v => return Err(invalid(at, format!("field `{fname}`: variable flag {v}"))),
        };
        let at = r.position();
        let ndims = u8_at(r)?;
        if usize::from(ndims) > field_type::MAX_DIMS {
            return Err(invalid(at, format!("field `{fname}`: {ndims} dimensions")));
        }
        let mut dims = Vec::with_capacity(ndims.into());
        for _ in 0..ndims {
            dims.push(u64_at(r)?);
        }
        fields.push(Field {
            name: fname,
            kind,
            size,
            offset,
            dims,
            var,
        });
    }
    Format::build(name, order, size, fields, nested, depth)
        .map_err(|msg| Error::new(ErrorKind::InvalidFormat(msg), start))
}
