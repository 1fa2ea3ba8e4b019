//! NDR, the Native Data Representation of PBIO: a sender puts its own in-memory layout on the
//! wire with the id of a *format description*, and the receiver converts ("receiver makes
//! right"), matching fields by name.
//!
//! This crate holds the format machinery:
//! - [`Format`]: a record's name, byte order, size, and for each field its name, kind, element
//!   size, offset and array dimensions; nested records by name. Built from a PBIO-style field
//!   list ([`Format::from_fields`] with [`IOField`]s) and fully validated.
//! - A canonical, versioned, byte-order independent encoding ([`Format::to_bytes`],
//!   [`Format::from_bytes`]) and the [`FormatId`] derived from it, so identical formats get
//!   identical ids on every machine without a central server.
//!
//! ```
//! use wire_ndr::{ByteOrder, Format, IOField};
//! // struct { int i; double d[2]; } as a C compiler lays it out on x86-64.
//! let f = Format::from_fields(
//!     "pair",
//!     ByteOrder::Little,
//!     24,
//!     &[IOField::new("i", "integer", 4, 0), IOField::new("d", "float[2]", 8, 8)],
//!     &[],
//! )
//! .unwrap();
//! let bytes = f.to_bytes();
//! assert_eq!(Format::from_bytes(&bytes).unwrap().id(), f.id());
//! ```

mod canonical;
mod field_type;
mod format;
mod format_id;
mod order;

pub use field_type::Kind;
pub use format::{Field, Format, IOField, MAX_DEPTH, MAX_FIELDS, MAX_RECORD_SIZE};
pub use format_id::FormatId;
pub use order::ByteOrder;

pub use marshal_core::{Error, ErrorKind};
