//! NDR, the Native Data Representation of PBIO: a sender puts its own in-memory layout on the
//! wire with the id of a *format description*, and the receiver converts ("receiver makes
//! right"), matching fields by name.
//!
//! - [`Format`]: a record's name, byte order, size, and for each field its name, kind, element
//!   size, offset and array dimensions; nested records by name. Built from a PBIO-style field
//!   list ([`Format::from_fields`] with [`IOField`]s), from a derived type
//!   ([`Format::of`]), or from its canonical bytes, and always validated.
//! - A canonical, versioned, byte-order independent encoding ([`Format::to_bytes`],
//!   [`Format::from_bytes`]) and the [`FormatId`] derived from it, so identical formats get
//!   identical ids on every machine without a central server.
//! - Sending: [`to_message`] (one buffer, padding zeroed) and [`prepare`] (a header and the
//!   value's own bytes when its type is padding-free and pointer-free).
//! - Receiving: a [`Receiver`] builds a conversion plan per (incoming format, local type) and
//!   runs it on the [`Engine`] chosen at construction: the interpreter, or with the `jit`
//!   feature native code compiled by Cranelift, for every plan or, tiered after Hoschka, for
//!   the plans worth it under a code budget.
//! - [`DynRecord`]: records read by field name with no Rust type, printed as JSON.
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

#![cfg_attr(docsrs, feature(doc_cfg))]

// Conversion: plans, the interpreter, the JIT back end (`convert::jit`, feature `jit`) and
// dynamic records. Public for benchmarks, tests and fuzzing only.
#[doc(hidden)]
pub mod convert;
mod format;
mod message;
mod native;
mod order;
mod receiver;
// Engines and Hoschka's tiering: cost model, frequency estimate, knapsack (feature `jit`).
// Public for benchmarks and tests only; `Engine` and `Stats` are re-exported below.
#[doc(hidden)]
pub mod tiering;

pub use convert::dynamic::{DynRecord, Value};
pub use format::description::{
    Field, Format, MAX_DEPTH, MAX_ELEMENTS, MAX_FIELDS, MAX_RECORD_SIZE,
};
pub use format::field_type::Kind;
pub use format::format_id::FormatId;
pub use format::io_field::IOField;
pub use format::registry::Record;
pub use format::resolver::{FormatCache, Resolver};
pub use message::{
    format_frame, frame_len, message_from_body, parse_frame, parse_message, prepare, to_message,
    write_message, Frame, Message, Outgoing, DEFAULT_MAX_FRAME, FORMAT_MAGIC, FRAME_HEAD_LEN,
    HEADER_LEN, RECORD_MAGIC,
};
pub use native::{
    as_bytes, from_body, to_body, write_body, ArrayElement, Native, NativeField, NativeRecord,
    NativeType, VarElement,
};
pub use order::ByteOrder;
pub use receiver::Receiver;
pub use tiering::engine::{Engine, Stats};

pub use marshal_core::{Error, ErrorKind};

/// Items the derive's output uses. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::format::registry::{build_static as local_format, Record};
    pub use crate::native::{
        read_at, to_body, ArrayElement, Native, NativeField, NativeRecord, NativeType, VarElement,
    };
    pub use crate::Format;
    pub use marshal_core::Error;
    pub use std::sync::OnceLock;
}
