//! The canonical encoding of a format description: a version octet, then the record —
//! big-endian integers whatever the host, fields by offset, nested formats inlined by name:
//!
//! ```text
//! record := name  order:u8  size:u64  nested:u16 record*  fields:u16 field*
//! field  := name  kind:u8 [record-name if kind = 6]  size:u32  offset:u64  var:u8  ndims:u8 dim:u64*
//! name   := len:u16 utf8-bytes
//! ```
//!
//! Every format has exactly one encoding ([`Format::build`] sorts), so equal formats hash to
//! equal ids; decoding refuses any other arrangement of the same facts.

use crate::format::description::{Field, Format, MAX_DEPTH, MAX_FIELDS};
use crate::format::field_type::Kind;
use marshal_core::Reader;

use crate::{ByteOrder, Error, ErrorKind, FormatId};

/// The description version this crate writes and reads.
pub(crate) const VERSION: u8 = 1;

/// The canonical description (without the id).
pub(crate) fn description(f: &Format) -> Vec<u8> {
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

/// [`Format::from_bytes`].
pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Format, Error> {
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
        if usize::from(ndims) > crate::format::field_type::MAX_DIMS {
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

#[cfg(test)]
mod tests {
    use crate::{ByteOrder, Format, IOField};

    fn sample() -> Format {
        let point = Format::from_fields(
            "point",
            ByteOrder::Little,
            8,
            &[
                IOField::new("x", "integer", 4, 0),
                IOField::new("y", "integer", 4, 4),
            ],
            &[],
        )
        .unwrap();
        Format::from_fields(
            "shape",
            ByteOrder::Little,
            48,
            &[
                IOField::new("name", "string", 8, 0),
                IOField::new("corners", "point[2]", 8, 8),
                IOField::new("weight", "float", 8, 24),
                IOField::new("tags", "unsigned integer[]", 2, 32),
                IOField::new("ok", "boolean", 1, 40),
                IOField::new("c", "char[3]", 1, 41),
            ],
            &[point],
        )
        .unwrap()
    }

    #[test]
    fn round_trips_and_ids_ignore_declaration_order() {
        let f = sample();
        let b = f.to_bytes();
        assert_eq!(Format::from_bytes(&b).unwrap(), f);
        // The same fields listed in another order: the same format, the same id.
        let g = Format::from_fields(
            "shape",
            ByteOrder::Little,
            48,
            &[
                IOField::new("c", "char[3]", 1, 41),
                IOField::new("ok", "boolean", 1, 40),
                IOField::new("weight", "float", 8, 24),
                IOField::new("corners", "point[2]", 8, 8),
                IOField::new("name", "string", 8, 0),
                IOField::new("tags", "unsigned integer[]", 2, 32),
            ],
            f.nested(),
        )
        .unwrap();
        assert_eq!(g.id(), f.id());
        // Another byte order is another format.
        let be = Format::from_fields(
            "point",
            ByteOrder::Big,
            8,
            &[IOField::new("x", "integer", 4, 0)],
            &[],
        )
        .unwrap();
        let le = Format::from_fields(
            "point",
            ByteOrder::Little,
            8,
            &[IOField::new("x", "integer", 4, 0)],
            &[],
        )
        .unwrap();
        assert_ne!(be.id(), le.id());
    }

    #[test]
    fn refuses_forged_ids_truncations_and_other_arrangements() {
        let b = sample().to_bytes();
        let mut forged = b.clone();
        forged[0] ^= 1;
        let e = Format::from_bytes(&forged).unwrap_err();
        assert!(
            e.to_string().contains("is not the hash of the description"),
            "{e}"
        );
        for n in 0..b.len() {
            assert!(Format::from_bytes(&b[..n]).is_err(), "{n} bytes accepted");
        }
        // A valid description with a changed byte and a recomputed id is still validated.
        let mut d = b[16..].to_vec();
        // The record size (after version, name "shape" and order) shrinks below the fields.
        let size_at = 1 + 2 + 5 + 1;
        d[size_at..size_at + 8].copy_from_slice(&8u64.to_be_bytes());
        let mut bad = crate::FormatId::of_description(&d).as_bytes().to_vec();
        bad.extend_from_slice(&d);
        let e = Format::from_bytes(&bad).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not fit in the record's 8 bytes"),
            "{e}"
        );
    }
}
