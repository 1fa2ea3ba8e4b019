//! `Format`: the description of one record layout, built from a PBIO-style field list or from
//! its canonical bytes, and validated either way before anything uses it.

use crate::format::canonical;
use crate::format::field_type::{self, Kind, TypeName, SLOT};
use crate::{ByteOrder, Error, ErrorKind, FormatId};

/// Largest record (fixed part) a format may describe: 1 GiB.
pub const MAX_RECORD_SIZE: usize = 1 << 30;

/// Most elements one fixed-array field may have (the product of its dimensions), whatever
/// their size: an array of empty records takes no bytes, so the record size alone does not
/// bound it, and loops over its elements must stay bounded.
pub const MAX_ELEMENTS: usize = MAX_RECORD_SIZE;

/// Most fields in one record.
pub const MAX_FIELDS: usize = 4096;

/// Deepest nesting of records inside records.
pub const MAX_DEPTH: usize = 8;

/// Longest record or field name, in bytes.
const MAX_NAME: usize = 255;

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

/// One validated field of a [`Format`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    pub(crate) name: String,
    pub(crate) kind: Kind,
    pub(crate) size: usize,
    pub(crate) offset: usize,
    pub(crate) dims: Vec<usize>,
    pub(crate) var: bool,
}

impl Field {
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// What its elements are.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }
    /// Bytes of one element (the slot size, 8, for a string).
    pub fn size(&self) -> usize {
        self.size
    }
    /// Byte offset in the record.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Fixed array dimensions, outermost first (empty for one element).
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }
    /// Whether this is a variable-length array (an offset and count in the fixed part).
    pub fn is_variable(&self) -> bool {
        self.var
    }
    /// Number of elements in the fixed part (the product of the dimensions; 1 for a scalar or
    /// a variable-length array's slot). Validation has checked that it is at most
    /// [`MAX_ELEMENTS`], whatever the element size.
    pub fn elements(&self) -> usize {
        self.dims.iter().product()
    }
    /// The PBIO type string: `"integer"`, `"float[3][4]"`, `"point[]"`, …
    pub fn type_name(&self) -> String {
        let mut t = match &self.kind {
            Kind::Int => "integer".to_owned(),
            Kind::UInt => "unsigned integer".to_owned(),
            Kind::Float => "float".to_owned(),
            Kind::Char => "char".to_owned(),
            Kind::Bool => "boolean".to_owned(),
            Kind::String => "string".to_owned(),
            Kind::Record(r) => r.clone(),
        };
        for d in &self.dims {
            t.push_str(&format!("[{d}]"));
        }
        if self.var {
            t.push_str("[]");
        }
        t
    }
    /// The field as PBIO describes it.
    pub fn io_field(&self) -> IOField {
        IOField::new(&self.name, &self.type_name(), self.size, self.offset)
    }
    /// Bytes the field takes in the fixed part.
    pub fn extent(&self) -> usize {
        if self.var {
            SLOT
        } else {
            self.size * self.elements()
        }
    }
}

/// The description of a record layout: its name, byte order, size, fields (sorted by offset)
/// and the formats of the records nested in it (sorted by name). Always valid: fields lie
/// inside the record without overlapping, sizes suit kinds, dimensions cannot overflow, and
/// nested records exist and have the size their fields say.
///
/// Two formats are equal when they describe the same layout (their ids are equal).
#[derive(Debug, Clone)]
pub struct Format {
    pub(crate) name: String,
    pub(crate) order: ByteOrder,
    pub(crate) size: usize,
    pub(crate) fields: Vec<Field>,
    pub(crate) nested: Vec<Format>,
    pub(crate) id: FormatId,
    /// A local type whose records go out as their own bytes (not part of the description).
    pub(crate) zero_copy: bool,
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        (
            &self.name,
            self.order,
            self.size,
            &self.fields,
            &self.nested,
        ) == (
            &other.name,
            other.order,
            other.size,
            &other.fields,
            &other.nested,
        )
    }
}
impl Eq for Format {}

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
        f.id = FormatId::of_description(&canonical::description(&f));
        Ok(f)
    }

    fn validate(&self, depth: usize) -> Result<(), String> {
        let name = &self.name;
        check_name(name).map_err(|why| format!("record name {name:?}: {why}"))?;
        if depth > MAX_DEPTH {
            return Err(format!(
                "record `{name}` is nested deeper than {MAX_DEPTH} levels"
            ));
        }
        if self.size > MAX_RECORD_SIZE {
            return Err(format!(
                "record `{name}` is {} bytes, more than {MAX_RECORD_SIZE}",
                self.size
            ));
        }
        if self.fields.len() > MAX_FIELDS {
            return Err(format!("record `{name}` has more than {MAX_FIELDS} fields"));
        }
        for (i, n) in self.nested.iter().enumerate() {
            if i > 0 && self.nested[i - 1].name == n.name {
                return Err(format!("two nested formats named `{}`", n.name));
            }
            if n.order != self.order {
                return Err(format!(
                    "nested record `{}` has another byte order than `{name}`",
                    n.name
                ));
            }
            n.validate(depth + 1)?;
        }
        let mut names: Vec<&str> = self.fields.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("two fields of `{name}` are named `{}`", w[0]));
        }
        let mut prev: Option<(&Field, usize)> = None;
        for f in &self.fields {
            let fname = &f.name;
            let at = |why: String| format!("field `{fname}` of `{name}`: {why}");
            check_name(fname).map_err(|why| at(why.into()))?;
            if f.dims.len() > field_type::MAX_DIMS || f.dims.contains(&0) {
                return Err(at(
                    "array dimensions must be 1 or more, at most 8 of them".into()
                ));
            }
            // The element count on its own, before any size multiplies it: from an element
            // of 0 bytes the extent is 0 whatever the dimensions.
            let elements = f
                .dims
                .iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(d))
                .filter(|&n| n <= MAX_ELEMENTS);
            let Some(elements) = elements else {
                return Err(at(format!(
                    "dimensions {:?} make more than {MAX_ELEMENTS} elements",
                    f.dims
                )));
            };
            if f.var && (!f.dims.is_empty() || f.kind == Kind::String) {
                return Err(at(
                    "a variable-length array has no fixed dimensions and no string elements".into(),
                ));
            }
            if !f.kind.valid_size(f.size) {
                return Err(at(format!(
                    "{} bytes is not a size for {:?}",
                    f.size, f.kind
                )));
            }
            if let Kind::Record(r) = &f.kind {
                match self.nested.binary_search_by(|n| n.name.as_str().cmp(r)) {
                    Ok(i) if self.nested[i].size == f.size => {}
                    Ok(i) => {
                        return Err(at(format!(
                            "element size {} differs from record `{r}`'s {}",
                            f.size, self.nested[i].size
                        )))
                    }
                    Err(_) => return Err(at(format!("record `{r}` is not described"))),
                }
            }
            let extent = if f.var {
                Some(SLOT)
            } else {
                f.size.checked_mul(elements)
            };
            let end = extent.and_then(|e| f.offset.checked_add(e));
            let end = match end {
                Some(end) if end <= self.size => end,
                _ => {
                    return Err(at(format!(
                        "it does not fit in the record's {} bytes",
                        self.size
                    )))
                }
            };
            // A field of no bytes (an array of empty records) overlaps nothing, wherever the
            // sort by (offset, name) put it.
            if end == f.offset {
                continue;
            }
            if let Some((p, pend)) = prev {
                if f.offset < pend {
                    return Err(format!(
                        "field `{fname}` (bytes {}..{end}) overlaps `{}` (bytes {}..{pend}) in `{name}`",
                        f.offset, p.name, p.offset
                    ));
                }
            }
            prev = Some((f, end));
        }
        Ok(())
    }

    /// The native format of a derived type: its name, this machine's byte order, `size_of`,
    /// and each field's name, kind, size and `offset_of!`; nested records by their own formats.
    /// Built once per type and kept.
    pub fn of<T: crate::Record>() -> Format {
        T::format().clone()
    }

    /// Whether records of this format are sent as their own bytes, with no copy: true for the
    /// [native format](Format::of) of a padding-free, pointer-free type; false for formats
    /// built from fields or bytes, which describe someone else's records.
    pub fn is_zero_copy(&self) -> bool {
        self.zero_copy
    }

    /// Parses and validates a description made by [`Format::to_bytes`]: the 16-byte id, then
    /// the canonical description. Refuses bytes whose id is not the hash of the rest, and
    /// descriptions that are not canonical (every format has exactly one encoding).
    pub fn from_bytes(bytes: &[u8]) -> Result<Format, Error> {
        canonical::from_bytes(bytes)
    }

    /// The 16-byte id, then the canonical description (versioned, byte-order independent),
    /// nested formats inlined.
    pub fn to_bytes(&self) -> Vec<u8> {
        let d = canonical::description(self);
        let mut out = Vec::with_capacity(16 + d.len());
        out.extend_from_slice(self.id.as_bytes());
        out.extend_from_slice(&d);
        out
    }

    /// The id: 128 bits of SHA-256 over the canonical description.
    pub fn id(&self) -> FormatId {
        self.id
    }
    /// The record's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The byte order its sender writes.
    pub fn byte_order(&self) -> ByteOrder {
        self.order
    }
    /// Bytes of the fixed part (`sizeof` the record).
    pub fn size(&self) -> usize {
        self.size
    }
    /// The fields, by offset.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
    /// The formats of the records nested in this one, by name.
    pub fn nested(&self) -> &[Format] {
        &self.nested
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
    /// The nested format named `name`.
    pub fn nested_format(&self, name: &str) -> Option<&Format> {
        self.nested.iter().find(|n| n.name == name)
    }
}

fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("empty");
    }
    if name.len() > MAX_NAME {
        return Err("longer than 255 bytes");
    }
    if name.contains('\0') {
        return Err("contains NUL");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
