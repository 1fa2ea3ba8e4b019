//! The 12-byte GIOP message header (CORBA 3, §15.4.1), in both byte orders.

use marshal_core::{Error, ErrorKind};

use crate::ByteOrder;

/// The four octets every GIOP message starts with.
pub const MAGIC: [u8; 4] = *b"GIOP";

/// Length of the message header; `message_size` counts the bytes after it.
pub const HEADER_LEN: usize = 12;

/// Bit of the 1.1+ `flags` octet that says more fragments follow.
const FRAGMENT_BIT: u8 = 0x02;

/// A GIOP protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// Always 1.
    pub major: u8,
    /// 0, 1 or 2.
    pub minor: u8,
}

impl Version {
    /// GIOP 1.0.
    pub const V1_0: Version = Version { major: 1, minor: 0 };
    /// GIOP 1.1: fragments, the `flags` octet.
    pub const V1_1: Version = Version { major: 1, minor: 1 };
    /// GIOP 1.2: target addresses, bodies aligned to 8, fragments with request ids.
    pub const V1_2: Version = Version { major: 1, minor: 2 };

    /// The version both sides speak: the lower of `self` and the newest this crate knows.
    pub fn capped(self) -> Version {
        self.min(Version::V1_2)
    }
}

impl core::fmt::Display for Version {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MsgType {
    /// A call.
    Request = 0,
    /// The answer to a call.
    Reply = 1,
    /// The client no longer wants a reply.
    CancelRequest = 2,
    /// Is the object here?
    LocateRequest = 3,
    /// The answer to a `LocateRequest`.
    LocateReply = 4,
    /// The sender closes the connection; outstanding requests may be retried.
    CloseConnection = 5,
    /// The last message received was not understood.
    MessageError = 6,
    /// The continuation of a fragmented message (1.1+).
    Fragment = 7,
}

impl MsgType {
    fn from_u8(v: u8) -> Option<MsgType> {
        Some(match v {
            0 => MsgType::Request,
            1 => MsgType::Reply,
            2 => MsgType::CancelRequest,
            3 => MsgType::LocateRequest,
            4 => MsgType::LocateReply,
            5 => MsgType::CloseConnection,
            6 => MsgType::MessageError,
            7 => MsgType::Fragment,
            _ => return None,
        })
    }
}

/// A decoded message header.
///
/// ```
/// use wire_iiop::giop::{MessageHeader, MsgType, Version};
/// use wire_iiop::ByteOrder;
/// let h = MessageHeader::new(Version::V1_2, ByteOrder::Little, MsgType::Reply, 24);
/// let bytes = h.to_bytes();
/// assert_eq!(bytes, *b"GIOP\x01\x02\x01\x01\x18\0\0\0");
/// assert_eq!(MessageHeader::parse(&bytes).unwrap(), h);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageHeader {
    /// The GIOP version of the message.
    pub version: Version,
    /// The byte order of the size and of everything after the header.
    pub order: ByteOrder,
    /// More fragments of this message follow (1.1+).
    pub more_fragments: bool,
    /// What the message is.
    pub msg_type: MsgType,
    /// Bytes after the header.
    pub size: u32,
}

impl MessageHeader {
    /// A header of a complete (unfragmented) message.
    pub fn new(version: Version, order: ByteOrder, msg_type: MsgType, size: u32) -> Self {
        MessageHeader {
            version,
            order,
            more_fragments: false,
            msg_type,
            size,
        }
    }

    /// Decodes and checks a header: the magic, a version this crate speaks (1.0–1.2; a
    /// newer minor version is refused, as its layouts are unknown), the byte-order and
    /// fragment flags (fragments do not exist in 1.0), and the message type.
    pub fn parse(bytes: &[u8; HEADER_LEN]) -> Result<Self, Error> {
        let bad = |at: usize, what: String| Error::new(ErrorKind::Custom(what), at);
        if bytes[..4] != MAGIC {
            return Err(bad(
                0,
                format!("not a GIOP message: magic {:02x?}", &bytes[..4]),
            ));
        }
        let version = Version {
            major: bytes[4],
            minor: bytes[5],
        };
        if version.major != 1 || version.minor > 2 {
            return Err(bad(4, format!("unsupported GIOP version {version}")));
        }
        let flags = bytes[6];
        let (order, more_fragments) = if version.minor == 0 {
            let order = ByteOrder::from_flag(flags)
                .ok_or_else(|| Error::new(ErrorKind::InvalidByteOrder(flags), 6))?;
            (order, false)
        } else {
            let order = if flags & 1 == 0 {
                ByteOrder::Big
            } else {
                ByteOrder::Little
            };
            (order, flags & FRAGMENT_BIT != 0)
        };
        let msg_type = MsgType::from_u8(bytes[7])
            .ok_or_else(|| bad(7, format!("unknown GIOP message type {}", bytes[7])))?;
        if msg_type == MsgType::Fragment && version.minor == 0 {
            return Err(bad(7, "Fragment message in GIOP 1.0".into()));
        }
        let size = match order {
            ByteOrder::Big => u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
            ByteOrder::Little => u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]),
        };
        Ok(MessageHeader {
            version,
            order,
            more_fragments,
            msg_type,
            size,
        })
    }

    /// Encodes the header.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut flags = self.order.flag();
        if self.more_fragments {
            flags |= FRAGMENT_BIT;
        }
        let size = match self.order {
            ByteOrder::Big => self.size.to_be_bytes(),
            ByteOrder::Little => self.size.to_le_bytes(),
        };
        let [m0, m1, m2, m3] = MAGIC;
        let [s0, s1, s2, s3] = size;
        [
            m0,
            m1,
            m2,
            m3,
            self.version.major,
            self.version.minor,
            flags,
            self.msg_type as u8,
            s0,
            s1,
            s2,
            s3,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_orders_and_fragment_flag() {
        let mut h =
            MessageHeader::new(Version::V1_1, ByteOrder::Big, MsgType::Request, 0x0102_0304);
        h.more_fragments = true;
        let b = h.to_bytes();
        assert_eq!(b, *b"GIOP\x01\x01\x02\x00\x01\x02\x03\x04");
        assert_eq!(MessageHeader::parse(&b).unwrap(), h);
        let h = MessageHeader::new(
            Version::V1_0,
            ByteOrder::Little,
            MsgType::CloseConnection,
            0,
        );
        assert_eq!(h.to_bytes(), *b"GIOP\x01\x00\x01\x05\0\0\0\0");
        assert_eq!(MessageHeader::parse(&h.to_bytes()).unwrap(), h);
    }

    #[test]
    fn rejects_what_it_cannot_read() {
        let err = |b: &[u8; 12]| MessageHeader::parse(b).unwrap_err().to_string();
        assert!(err(b"GIOX\x01\x00\x00\x00\0\0\0\0").contains("magic"));
        assert!(err(b"GIOP\x01\x03\x00\x00\0\0\0\0").contains("unsupported GIOP version 1.3"));
        assert!(err(b"GIOP\x02\x00\x00\x00\0\0\0\0").contains("version 2.0"));
        assert!(err(b"GIOP\x01\x00\x02\x00\0\0\0\0").contains("byte-order flag 2"));
        assert!(err(b"GIOP\x01\x02\x00\x08\0\0\0\0").contains("message type 8"));
        assert!(err(b"GIOP\x01\x00\x00\x07\0\0\0\0").contains("Fragment message in GIOP 1.0"));
    }
}
