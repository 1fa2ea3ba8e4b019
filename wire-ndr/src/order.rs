//! The byte order a record's sender wrote it in.

/// Byte order of a record's integers and floats.
///
/// ```
/// assert_eq!(wire_ndr::ByteOrder::native(), if cfg!(target_endian = "big") {
///     wire_ndr::ByteOrder::Big
/// } else {
///     wire_ndr::ByteOrder::Little
/// });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Most significant byte first (s390x, network order).
    Big,
    /// Least significant byte first (x86, most ARM).
    Little,
}

impl ByteOrder {
    /// This machine's byte order.
    pub const fn native() -> ByteOrder {
        if cfg!(target_endian = "big") {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        }
    }

    /// The octet that stands for this order in a canonical description.
    pub(crate) const fn code(self) -> u8 {
        match self {
            ByteOrder::Big => 0,
            ByteOrder::Little => 1,
        }
    }

    pub(crate) const fn from_code(b: u8) -> Option<ByteOrder> {
        match b {
            0 => Some(ByteOrder::Big),
            1 => Some(ByteOrder::Little),
            _ => None,
        }
    }
}
