//! Why a codec refused a stream or a frame.

use std::io;

/// Why a codec stopped: the stream failed, or a header broke the protocol or a cap. After a
/// decoding error the stream has lost its framing: close it.
///
/// ```
/// use transports::codec::CodecError;
/// let e = CodecError::from(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
/// assert!(matches!(e, CodecError::Io(_)));
/// assert_eq!(std::io::Error::from(e).kind(), std::io::ErrorKind::UnexpectedEof);
/// ```
#[derive(Debug)]
pub enum CodecError {
    /// The transport failed, or ended inside a frame.
    Io(io::Error),
    /// A header is not of the protocol: a bad magic, an unsupported version, an unknown
    /// message type or flag, a length below the header's own, or a frame to encode whose
    /// header does not match its length. A GIOP server answers it with a `MessageError`
    /// message before it closes the connection.
    Malformed(marshal_core::Error),
    /// A header (or a frame to encode) exceeds a cap on the size of a frame, a record or a
    /// datagram, or on the fragments of one record. Nothing was reserved for it.
    TooLarge(marshal_core::Error),
    /// GIOP fragments that do not reassemble: a `Fragment` that continues no open message, a
    /// message that cannot be fragmented, or reassembly beyond its caps.
    Fragment(marshal_core::Error),
}

impl CodecError {
    /// Whether a GIOP peer should be told with a `MessageError` message: the message was not
    /// understood ([`Malformed`](CodecError::Malformed) or
    /// [`Fragment`](CodecError::Fragment)) or was too large.
    pub fn is_message_error(&self) -> bool {
        !matches!(self, CodecError::Io(_))
    }
}

impl core::fmt::Display for CodecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CodecError::Io(e) => write!(f, "transport: {e}"),
            CodecError::Malformed(e) => write!(f, "malformed header: {e}"),
            CodecError::TooLarge(e) => write!(f, "over a cap: {e}"),
            CodecError::Fragment(e) => write!(f, "fragments: {e}"),
        }
    }
}

impl std::error::Error for CodecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CodecError::Io(e) => Some(e),
            CodecError::Malformed(e) | CodecError::TooLarge(e) | CodecError::Fragment(e) => Some(e),
        }
    }
}

impl From<io::Error> for CodecError {
    fn from(e: io::Error) -> Self {
        CodecError::Io(e)
    }
}

/// As an `io::Error`: the I/O error itself, or `InvalidData` carrying the codec error.
impl From<CodecError> for io::Error {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::Io(e) => e,
            e => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}

/// A cap error: `len` bytes where at most `max` are allowed, at `offset` in the frame.
pub(crate) fn too_large(len: u64, max: usize, offset: usize, what: &'static str) -> CodecError {
    CodecError::TooLarge(
        marshal_core::Error::new(
            marshal_core::ErrorKind::LengthTooLarge {
                len,
                max: max as u64,
            },
            offset,
        )
        .in_field(what),
    )
}
