//! PBIO's field lists: a format described as [`IOField`]s (name, type string, element size,
//! offset), parsed and validated into a [`Format`], and the field list of a format.

use marshal_core::{Error, ErrorKind};

use crate::format::description::{Field, Format, MAX_FIELDS};
use crate::format::field_type::{self, Kind, TypeName};
use crate::order::ByteOrder;

/// One field as a PBIO user describes it (`IOField` in PBIO): its name, its type string
/// (`"integer"`, `"unsigned integer"`, `"float"`, `"char"`, `"boolean"`, `"string"`, a
/// nested format's name, optionally with array dimensions such as `"float[3][4]"`, or `[]`
/// for a variable-length array), the size of one element, and its offset in the record.
///
/// ```
/// let f = wire_ndr::IOField::new("Cstress", "float[106]", 8, 2360);
/// assert_eq!((f.size, f.offset), (8, 2360));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IOField {
    /// The field's name: fields are matched by name only.
    pub name: String,
    /// The PBIO type string.
    pub type_name: String,
    /// Bytes of one element (for an array, of one element, as in PBIO).
    pub size: usize,
    /// Byte offset of the field in the record.
    pub offset: usize,
}

impl IOField {
    /// A field of `type_name`, `size` bytes per element, at `offset`.
    pub fn new(name: &str, type_name: &str, size: usize, offset: usize) -> IOField {
        IOField {
            name: name.to_owned(),
            type_name: type_name.to_owned(),
            size,
            offset,
        }
    }
}

impl Field {
    /// The field as PBIO describes it.
    pub fn io_field(&self) -> IOField {
        IOField::new(&self.name, &self.type_name(), self.size, self.offset)
    }
}

impl Format {
    /// Builds and validates a format from a PBIO-style field list. `record_size` is
    /// `sizeof` the record; `nested` holds the formats of records that fields name (others
    /// are ignored).
    ///
    /// ```
    /// use wire_ndr::{ByteOrder, Format, IOField};
    /// let point = Format::from_fields("point", ByteOrder::Big, 8,
    ///     &[IOField::new("x", "integer", 4, 0), IOField::new("y", "integer", 4, 4)], &[]).unwrap();
    /// let seg = Format::from_fields("segment", ByteOrder::Big, 16,
    ///     &[IOField::new("ends", "point[2]", 8, 0)], &[point]).unwrap();
    /// assert_eq!(seg.nested()[0].name(), "point");
    /// // Overlapping fields are refused, naming the fields.
    /// let e = Format::from_fields("bad", ByteOrder::Big, 8,
    ///     &[IOField::new("a", "integer", 4, 0), IOField::new("b", "integer", 4, 2)], &[]).unwrap_err();
    /// assert!(e.to_string().contains("`b` (bytes 2..6) overlaps `a`"), "{e}");
    /// ```
    pub fn from_fields(
        name: &str,
        order: ByteOrder,
        record_size: usize,
        fields: &[IOField],
        nested: &[Format],
    ) -> Result<Format, Error> {
        let invalid = |msg: String| Error::without_offset(ErrorKind::InvalidFormat(msg));
        if fields.len() > MAX_FIELDS {
            return Err(invalid(format!(
                "record `{name}` has {} fields, more than {MAX_FIELDS}",
                fields.len()
            )));
        }
        let mut parsed = Vec::with_capacity(fields.len());
        for f in fields {
            let TypeName { kind, dims, var } = field_type::parse(&f.type_name)
                .map_err(|why| invalid(format!("field `{}` of `{name}`: {why}", f.name)))?;
            parsed.push(Field {
                name: f.name.clone(),
                kind,
                size: f.size,
                offset: f.offset,
                dims,
                var,
            });
        }
        // Keep the nested formats the fields name, once each.
        let mut used: Vec<Format> = Vec::new();
        for f in &parsed {
            if let Kind::Record(r) = &f.kind {
                if used.iter().any(|u| &u.name == r) {
                    continue;
                }
                match nested.iter().find(|n| &n.name == r) {
                    Some(n) => used.push(n.clone()),
                    None => {
                        return Err(invalid(format!(
                            "field `{}` of `{name}` names record `{r}`, which is not among the nested formats",
                            f.name
                        )))
                    }
                }
            }
        }
        Format::build(name.to_owned(), order, record_size, parsed, used, 0).map_err(invalid)
    }

    /// The fields as a PBIO field list: `Format::from_fields(f.name(), f.byte_order(),
    /// f.size(), &f.io_fields(), f.nested())` rebuilds `f`.
    ///
    /// ```
    /// use wire_ndr::{ByteOrder, Format, IOField};
    /// let f = Format::from_fields("v", ByteOrder::Little, 16,
    ///     &[IOField::new("n", "integer", 4, 0), IOField::new("xs", "float[]", 8, 8)], &[])?;
    /// let big = Format::from_fields("v", ByteOrder::Big, f.size(), &f.io_fields(), f.nested())?;
    /// assert_eq!(big.fields(), f.fields());
    /// assert_ne!(big.id(), f.id());
    /// # Ok::<(), wire_ndr::Error>(())
    /// ```
    pub fn io_fields(&self) -> Vec<IOField> {
        self.fields.iter().map(Field::io_field).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::description::MAX_ELEMENTS;
    use crate::format::format_id::FormatId;

    // Validation (`description`), through field lists and canonical bytes.
    #[test]
    fn a_field_of_no_bytes_overlaps_nothing() {
        let empty = Format::from_fields("e", ByteOrder::Big, 0, &[], &[]).unwrap();
        // `a` sorts before `z` at offset 0, whichever of them is the empty one.
        for (x, y) in [("a", "z"), ("z", "a")] {
            let f = Format::from_fields(
                "r",
                ByteOrder::Big,
                4,
                &[IOField::new(x, "e", 0, 0), IOField::new(y, "integer", 4, 0)],
                std::slice::from_ref(&empty),
            );
            assert!(f.is_ok(), "{x}/{y}: {f:?}");
        }
    }

    /// An array of empty records: dimensions whose product overflows (or passes the element
    /// cap) are refused though the extent is 0, by `from_fields` and by `from_bytes`.
    #[test]
    fn dimensions_are_checked_whatever_the_element_size() {
        let empty = Format::from_fields("e", ByteOrder::Big, 0, &[], &[]).unwrap();
        let build = |ty: &str| {
            Format::from_fields(
                "r",
                ByteOrder::Big,
                0,
                &[IOField::new("a", ty, 0, 0)],
                std::slice::from_ref(&empty),
            )
        };
        for ty in [
            "e[4294967296][4294967296]",
            "e[1][4294967296][4294967296]",
            "e[1073741825]",
        ] {
            let err = build(ty).expect_err(ty).to_string();
            assert!(err.contains("elements"), "{ty}: {err}");
        }
        let f = build("e[1073741824]").unwrap();
        assert_eq!(f.fields()[0].elements(), MAX_ELEMENTS);

        // The same dimensions in canonical bytes, with a correct id.
        let ok = build("e[2][3]").unwrap().to_bytes();
        let mut d = ok[16..].to_vec();
        let dims = [2u64.to_be_bytes(), 3u64.to_be_bytes()].concat();
        let at = d.windows(16).position(|w| w == dims).unwrap();
        d[at..at + 16].copy_from_slice(&[(1u64 << 32).to_be_bytes(); 2].concat());
        let mut bytes = FormatId::of_description(&d).as_bytes().to_vec();
        bytes.extend_from_slice(&d);
        let err = Format::from_bytes(&bytes).unwrap_err().to_string();
        assert!(err.contains("elements"), "{err}");
    }

    // Canonical bytes and ids (`canonical`).

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
        let mut bad = FormatId::of_description(&d).as_bytes().to_vec();
        bad.extend_from_slice(&d);
        let e = Format::from_bytes(&bad).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not fit in the record's 8 bytes"),
            "{e}"
        );
    }
}
