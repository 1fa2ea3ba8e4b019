//! The one error type of the framework: what went wrong, where (field path), and at which byte.

use core::fmt;
use std::io;
use std::sync::Arc;

/// An encoding or decoding error: the kind, the byte offset where it happened, and the path of
/// fields from the outermost value down to the failing one.
///
/// ```
/// use marshal_core::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::LengthTooLarge { len: 300, max: 255 }, 1032)
///     .in_field("name")
///     .at_index(3)
///     .in_field("dirent");
/// assert_eq!(e.to_string(), "dirent[3].name: length 300 exceeds max_len 255 at offset 1032");
/// assert_eq!(e.offset(), Some(1032));
/// ```
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    offset: Option<usize>,
    /// Innermost segment first: segments are pushed as the error travels outwards.
    path: Vec<Segment>,
    /// The I/O error behind an [`ErrorKind::Io`]. Shared: an arriving message keeps the
    /// error it met for its transport while the decoder's errors report it too.
    io: Option<Arc<io::Error>>,
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A named (or tuple-index) field, or an enum variant.
    Field(&'static str),
    /// An element of an array or sequence.
    Index(usize),
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended: `needed` bytes were required, `remaining` were left.
    UnexpectedEnd { needed: usize, remaining: usize },
    /// A length exceeds the declared maximum (`max_len`).
    LengthTooLarge { len: u64, max: u64 },
    /// A length prefix claims more data than the input holds.
    LengthExceedsInput { len: u64, remaining: usize },
    /// A boolean other than 0 or 1.
    InvalidBool(u32),
    /// An enum value or union discriminant with no matching variant.
    UnknownDiscriminant { value: i64, type_name: &'static str },
    /// An integer that does not fit the Rust type it decodes into.
    OutOfRange { value: i64, type_name: &'static str },
    /// Padding bytes that should be zero are not.
    NonZeroPadding,
    /// A string that is not UTF-8.
    InvalidUtf8,
    /// Bytes left over after a complete value.
    TrailingBytes { count: usize },
    /// Nesting deeper than the configured limit.
    DepthLimit { limit: u32 },
    /// A value too long to encode (its length does not fit the wire's length field).
    TooLong { len: usize },
    /// A `default` union arm holding a discriminant that belongs to another variant.
    DiscriminantTaken { value: i64, variant: &'static str },
    /// A union arm with several labels holding a discriminant that is none of them.
    NotALabel { value: i64, variant: &'static str },
    /// More elements than the configured limit.
    TooManyElements { count: u64, limit: u64 },
    /// Decoding would allocate more than the input justifies: `needed` bytes where the limit
    /// for this input is `limit` (NDR: a conversion's output; XDR/CDR: elements that take no
    /// bytes on the wire).
    TooMuchMemory { needed: u64, limit: u64 },
    /// An encoder wrote a different number of bytes than it announced (a bug in a hand-written
    /// `Encode` implementation).
    LengthMismatch { announced: usize, written: usize },
    /// A CDR string whose length is zero or whose last byte is not the terminating NUL.
    UnterminatedString,
    /// A string holding a NUL byte where the wire format cannot carry one (CDR).
    InteriorNul,
    /// A byte-order flag other than 0 (big-endian) or 1 (little-endian).
    InvalidByteOrder(u8),
    /// A format description (NDR) that is not valid: what is wrong, with the field it is in.
    InvalidFormat(String),
    /// An incoming NDR format that cannot be converted to the local type: which field, and why.
    Incompatible(String),
    /// A value that does not fit the type it converts to (NDR narrowing): the value, in
    /// decimal, and the target type.
    DoesNotFit { value: String, target: &'static str },
    /// An NDR message whose format id is neither registered nor resolvable.
    UnknownFormat(String),
    /// The input stopped arriving or the output could not be written: what was going on. The
    /// [`std::io::Error`] behind it, with its [`kind`](std::io::Error::kind), is the error's
    /// [`source`](std::error::Error::source) (and [`Error::io_error`]).
    Io(String),
    /// Anything else, described in words.
    Custom(String),
}

impl Error {
    /// A new error of `kind` at byte `offset`.
    #[cold]
    pub fn new(kind: ErrorKind, offset: usize) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: Some(offset),
            path: Vec::new(),
            io: None,
        }))
    }

    /// A new error with no position (for example, raised before any byte was looked at).
    #[cold]
    pub fn without_offset(kind: ErrorKind) -> Self {
        Error(Box::new(Inner {
            kind,
            offset: None,
            path: Vec::new(),
            io: None,
        }))
    }

    /// An [`ErrorKind::Io`] error: `what` was going on when `source` happened, at byte
    /// `offset` of the message if there is one. `source` stays reachable through
    /// [`std::error::Error::source`], so callers can tell, say, a reset connection
    /// (`ConnectionReset`, `UnexpectedEof`) from a timeout (`WouldBlock`, `TimedOut`).
    ///
    /// ```
    /// use std::error::Error as _;
    /// use std::io;
    /// let e = marshal_core::Error::io(
    ///     "socket write failed",
    ///     io::Error::from(io::ErrorKind::ConnectionReset),
    ///     None,
    /// );
    /// let io = e.source().and_then(|s| s.downcast_ref::<io::Error>()).unwrap();
    /// assert_eq!(io.kind(), io::ErrorKind::ConnectionReset);
    /// assert_eq!(e.io_error().map(io::Error::kind), Some(io::ErrorKind::ConnectionReset));
    /// ```
    #[cold]
    pub fn io(
        what: impl Into<String>,
        source: impl Into<Arc<io::Error>>,
        offset: Option<usize>,
    ) -> Self {
        Error(Box::new(Inner {
            kind: ErrorKind::Io(what.into()),
            offset,
            path: Vec::new(),
            io: Some(source.into()),
        }))
    }

    /// The I/O error behind this one, if an I/O error caused it ([`ErrorKind::Io`]).
    pub fn io_error(&self) -> Option<&io::Error> {
        self.0.io.as_deref()
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The byte offset in the message where it went wrong.
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// The path of fields from the outermost value, e.g. `dirent[3].name`.
    pub fn path(&self) -> String {
        let mut s = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                Segment::Field(name) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(name);
                }
                Segment::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
            }
        }
        s
    }

    /// Records that the error happened inside field `name` (called as the error travels out).
    #[cold]
    #[must_use]
    pub fn in_field(mut self, name: &'static str) -> Self {
        self.0.path.push(Segment::Field(name));
        self
    }

    /// Records that the error happened inside element `index`.
    #[cold]
    #[must_use]
    pub fn at_index(mut self, index: usize) -> Self {
        self.0.path.push(Segment::Index(index));
        self
    }

    /// Moves the recorded offset by `base` (used when a nested buffer, such as an
    /// encapsulation, was decoded on its own).
    #[must_use]
    pub fn shifted(mut self, base: usize) -> Self {
        self.0.offset = self.0.offset.map(|o| o.saturating_add(base));
        self
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::UnexpectedEnd { needed, remaining } => {
                write!(
                    f,
                    "unexpected end of input: needed {needed} bytes, {remaining} remain"
                )
            }
            ErrorKind::LengthTooLarge { len, max } => {
                write!(f, "length {len} exceeds max_len {max}")
            }
            ErrorKind::LengthExceedsInput { len, remaining } => {
                write!(f, "length {len} exceeds the {remaining} bytes that remain")
            }
            ErrorKind::InvalidBool(v) => write!(f, "invalid boolean {v} (expected 0 or 1)"),
            ErrorKind::UnknownDiscriminant { value, type_name } => {
                write!(f, "unknown discriminant {value} for {type_name}")
            }
            ErrorKind::OutOfRange { value, type_name } => {
                write!(f, "value {value} out of range for {type_name}")
            }
            ErrorKind::NonZeroPadding => f.write_str("non-zero padding"),
            ErrorKind::InvalidUtf8 => f.write_str("string is not valid UTF-8"),
            ErrorKind::TrailingBytes { count } => {
                write!(f, "{count} trailing bytes after the value")
            }
            ErrorKind::DepthLimit { limit } => {
                write!(f, "nesting deeper than the limit of {limit}")
            }
            ErrorKind::TooLong { len } => {
                write!(f, "length {len} does not fit the wire's 32-bit length")
            }
            ErrorKind::DiscriminantTaken { value, variant } => write!(
                f,
                "default arm holds discriminant {value}, which belongs to variant {variant}"
            ),
            ErrorKind::NotALabel { value, variant } => write!(
                f,
                "variant {variant} holds discriminant {value}, which is none of its labels"
            ),
            ErrorKind::TooManyElements { count, limit } => {
                write!(f, "{count} elements exceed the limit of {limit}")
            }
            ErrorKind::TooMuchMemory { needed, limit } => write!(
                f,
                "decoding would take {needed} bytes of memory, beyond the limit of {limit} \
                 for this input"
            ),
            ErrorKind::LengthMismatch { announced, written } => write!(
                f,
                "encoder announced {announced} bytes but wrote {written} (inconsistent Encode impl)"
            ),
            ErrorKind::UnterminatedString => f.write_str("string is not NUL-terminated"),
            ErrorKind::InteriorNul => f.write_str("string contains a NUL byte"),
            ErrorKind::InvalidByteOrder(b) => {
                write!(f, "invalid byte-order flag {b} (expected 0 or 1)")
            }
            ErrorKind::Incompatible(why) => write!(f, "incompatible formats: {why}"),
            ErrorKind::DoesNotFit { value, target } => {
                write!(f, "value {value} does not fit {target}")
            }
            ErrorKind::UnknownFormat(id) => write!(f, "unknown format id {id}"),
            ErrorKind::InvalidFormat(msg) => write!(f, "invalid format description: {msg}"),
            ErrorKind::Io(what) | ErrorKind::Custom(what) => f.write_str(what),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.0.path.is_empty() {
            write!(f, "{}: ", self.path())?;
        }
        write!(f, "{}", self.0.kind)?;
        if let Some(o) = self.0.offset {
            write!(f, " at offset {o}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Debug shows the same sentence: it is what `unwrap` prints.
        write!(f, "Error({self})")
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .io
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_path_and_offset() {
        let e = Error::new(ErrorKind::InvalidUtf8, 8).in_field("a");
        assert_eq!(e.to_string(), "a: string is not valid UTF-8 at offset 8");
        let e = Error::without_offset(ErrorKind::TooLong { len: 5 });
        assert_eq!(
            e.to_string(),
            "length 5 does not fit the wire's 32-bit length"
        );
        let e = Error::new(ErrorKind::NonZeroPadding, 3)
            .at_index(2)
            .shifted(10);
        assert_eq!(e.path(), "[2]");
        assert_eq!(e.offset(), Some(13));
        assert!(format!("{e:?}").contains("non-zero padding"));
    }

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(
            core::mem::size_of::<Result<(), Error>>(),
            core::mem::size_of::<usize>()
        );
    }
}
