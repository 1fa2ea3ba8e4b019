//! Field kinds and PBIO's type strings: `"integer"`, `"unsigned integer"`, `"float"`,
//! `"char"`, `"boolean"`, `"string"`, a nested format's name, each optionally followed by array
//! dimensions (`"float[106][106]"`) or `[]` for a variable-length array.

use crate::native::SLOT;

/// What a field's elements are.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A signed integer (`"integer"`): 1, 2, 4 or 8 bytes.
    Int,
    /// An unsigned integer (`"unsigned integer"`): 1, 2, 4 or 8 bytes.
    UInt,
    /// An IEEE 754 float (`"float"`): 4 or 8 bytes.
    Float,
    /// A C `char` (`"char"`): 1 byte, any value.
    Char,
    /// A boolean (`"boolean"`): 1, 2, 4 or 8 bytes, zero or not.
    Bool,
    /// A string (`"string"`): in the fixed part, an 8-byte slot of two 4-byte unsigned
    /// integers (offset from the record's start, length in bytes); the UTF-8 bytes after the
    /// fixed part.
    String,
    /// A nested record, by the name of its format.
    Record(String),
}

impl Kind {
    /// The octet that stands for this kind in a canonical description.
    pub(crate) fn code(&self) -> u8 {
        match self {
            Kind::Int => 0,
            Kind::UInt => 1,
            Kind::Float => 2,
            Kind::Char => 3,
            Kind::Bool => 4,
            Kind::String => 5,
            Kind::Record(_) => 6,
        }
    }

    /// Whether `size` bytes is a valid element size for this kind (a record's size is checked
    /// against its format).
    pub(crate) fn valid_size(&self, size: usize) -> bool {
        match self {
            Kind::Int | Kind::UInt | Kind::Bool => matches!(size, 1 | 2 | 4 | 8),
            Kind::Float => matches!(size, 4 | 8),
            Kind::Char => size == 1,
            Kind::String => size == SLOT,
            Kind::Record(_) => true,
        }
    }
}

/// Most array dimensions a field may have.
pub(crate) const MAX_DIMS: usize = 8;

/// A parsed type string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeName {
    pub(crate) kind: Kind,
    /// Fixed dimensions, outermost first; empty for a single element.
    pub(crate) dims: Vec<usize>,
    /// A variable-length array (`[]`).
    pub(crate) var: bool,
}

/// Parses a PBIO type string. Errors say why, in words.
pub(crate) fn parse(type_name: &str) -> Result<TypeName, String> {
    let (base, mut rest) = match type_name.find('[') {
        Some(i) => (&type_name[..i], &type_name[i..]),
        None => (type_name, ""),
    };
    let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
    let kind = match base.as_str() {
        "integer" | "signed integer" => Kind::Int,
        "unsigned integer" | "unsigned" => Kind::UInt,
        "float" => Kind::Float,
        "char" => Kind::Char,
        "boolean" => Kind::Bool,
        "string" => Kind::String,
        name if is_identifier(name) => Kind::Record(name.to_owned()),
        other => return Err(format!("unknown type {other:?}")),
    };
    let mut dims = Vec::new();
    let mut var = false;
    while let Some(after) = rest.strip_prefix('[') {
        let close = after
            .find(']')
            .ok_or_else(|| format!("unclosed `[` in type {type_name:?}"))?;
        let inner = after[..close].trim();
        if inner.is_empty() {
            var = true;
        } else {
            let n: usize = inner
                .parse()
                .map_err(|_| format!("array dimension {inner:?} is not a number"))?;
            if n == 0 {
                return Err("array dimension 0".into());
            }
            dims.push(n);
        }
        rest = after[close + 1..].trim_start();
    }
    if !rest.is_empty() {
        return Err(format!("unexpected {rest:?} after the type"));
    }
    if var && !dims.is_empty() {
        return Err(format!(
            "type {type_name:?} mixes fixed dimensions with a variable one"
        ));
    }
    if var && kind == Kind::String {
        return Err("variable-length arrays of strings are not supported".into());
    }
    if dims.len() > MAX_DIMS {
        return Err(format!("more than {MAX_DIMS} array dimensions"));
    }
    Ok(TypeName { kind, dims, var })
}

/// A nested format's name: letters, digits and `_`, not starting with a digit.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pbio_type_strings() {
        let t = parse("float[106][106]").unwrap();
        assert_eq!(
            (t.kind, t.dims, t.var),
            (Kind::Float, vec![106, 106], false)
        );
        assert_eq!(parse("unsigned  integer").unwrap().kind, Kind::UInt);
        assert_eq!(parse("integer[5]").unwrap().dims, [5]);
        let v = parse("integer[]").unwrap();
        assert!(v.var && v.dims.is_empty());
        assert_eq!(
            parse("point[2]").unwrap().kind,
            Kind::Record("point".into())
        );
        for bad in [
            "integer[0]",
            "integer[x]",
            "integer[3",
            "integer[2]junk",
            "float[][2]",
            "string[]",
            "2d",
            "",
            "a b",
            "integer[1][1][1][1][1][1][1][1][1]",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
