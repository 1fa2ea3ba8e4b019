//! The byte order of a CDR stream.

/// Byte order of a CDR stream, chosen by the sender: GIOP headers and encapsulations carry it
/// as a flag (0 = big-endian, 1 = little-endian), and a receiver handles both.
///
/// ```
/// use wire_iiop::ByteOrder;
/// assert_eq!(ByteOrder::from_flag(1).unwrap(), ByteOrder::Little);
/// assert_eq!(ByteOrder::Big.flag(), 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Most significant byte first (flag 0).
    Big,
    /// Least significant byte first (flag 1).
    Little,
}

impl ByteOrder {
    /// The byte order of this machine: data in it is copied, not swapped.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "little") {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };

    /// The GIOP flag: 0 for big-endian, 1 for little-endian.
    #[inline]
    pub const fn flag(self) -> u8 {
        match self {
            ByteOrder::Big => 0,
            ByteOrder::Little => 1,
        }
    }

    /// The byte order a GIOP flag names, or `None` for a value other than 0 or 1.
    #[inline]
    pub const fn from_flag(flag: u8) -> Option<ByteOrder> {
        match flag {
            0 => Some(ByteOrder::Big),
            1 => Some(ByteOrder::Little),
            _ => None,
        }
    }

    /// Whether data in this order must be byte-swapped on this machine.
    #[inline(always)]
    pub const fn swaps(self) -> bool {
        !matches!(
            (self, ByteOrder::NATIVE),
            (ByteOrder::Big, ByteOrder::Big) | (ByteOrder::Little, ByteOrder::Little)
        )
    }
}
