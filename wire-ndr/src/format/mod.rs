//! Format descriptions: what a record looks like on the wire, its canonical bytes and id, the
//! field types, the native formats of derived types, and where unknown formats come from.

pub(crate) mod canonical;
pub(crate) mod description;
pub(crate) mod field_type;
pub(crate) mod format_id;
pub(crate) mod io_field;
pub(crate) mod registry;
pub(crate) mod resolver;
