//! `Format` and `Field`: the description of one record layout, its limits, and the validation
//! every format passes before anything uses it. Formats are made in [`canonical`](super::canonical)
//! (which sorts, validates and computes the id), from a PBIO-style field list
//! ([`io_field`](super::io_field)), from canonical bytes, or from a derived type
//! ([`registry`](super::registry)).

use crate::format::field_type::{self, Kind};
use crate::format::format_id::FormatId;
use crate::native::SLOT;
use crate::order::ByteOrder;

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
    /// Checks everything the type promises (see [`Format`]) of a format nested `depth` deep.
    pub(crate) fn validate(&self, depth: usize) -> Result<(), String> {
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

    /// Whether records of this format are sent as their own bytes, with no copy: true for the
    /// [native format](Format::of) of a padding-free, pointer-free type; false for formats
    /// built from fields or bytes, which describe someone else's records.
    pub fn is_zero_copy(&self) -> bool {
        self.zero_copy
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
