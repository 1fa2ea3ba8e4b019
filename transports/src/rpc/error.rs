//! What can go wrong with a call: every rejection and accept status of RFC 5531, timeouts,
//! transport failures, and replies that do not decode.

use std::fmt;
use std::io;
use std::sync::OnceLock;

use marshal_core::Error;
use wire_xdr::rpc::{AcceptStat, AuthStat, RejectedReply};

/// Why a call returned no result.
///
/// ```
/// use transports::rpc::RpcError;
/// let e = RpcError::ProgMismatch { low: 2, high: 4 };
/// assert_eq!(e.to_string(), "program version mismatch: the server serves versions 2 to 4");
/// ```
///
/// Its `Debug` text is the derived one's, except that a timeout's also says what happened
/// in words (`Timeout (timed out waiting for the reply)`), for logs and test messages.
#[non_exhaustive]
pub enum RpcError {
    /// `PROG_UNAVAIL`: the server does not serve the program.
    ProgUnavail,
    /// `PROG_MISMATCH`: the server serves the program, in these versions only.
    ProgMismatch {
        /// Lowest version served.
        low: u32,
        /// Highest version served.
        high: u32,
    },
    /// `PROC_UNAVAIL`: the program has no such procedure.
    ProcUnavail,
    /// `GARBAGE_ARGS`: the server could not decode the arguments.
    GarbageArgs,
    /// `SYSTEM_ERR`: the server failed to carry out the call.
    SystemErr,
    /// `RPC_MISMATCH`: the server speaks only these RPC versions.
    RpcMismatch {
        /// Lowest RPC version.
        low: u32,
        /// Highest RPC version.
        high: u32,
    },
    /// `AUTH_ERROR`: the server refused the credentials.
    AuthError(AuthStat),
    /// No reply came within the timeout (UDP: after every retransmission). Its
    /// [`source`](std::error::Error::source) is an [`io::Error`] of kind
    /// [`TimedOut`](io::ErrorKind::TimedOut), so that callers looking at sources tell it
    /// from a connection that failed ([`RpcError::Io`]).
    Timeout,
    /// The socket failed or closed.
    Io(io::Error),
    /// The arguments did not encode (nothing was sent, unless `sent`).
    Marshal {
        /// What failed.
        error: Error,
        /// Whether part of the call had already gone out (the connection is then closed).
        sent: bool,
    },
    /// The reply (or a record or datagram) did not decode, or broke a size cap.
    BadReply(Error),
    /// A message does not fit the transport: a UDP datagram, or a record over the cap.
    TooLarge {
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// rpcbind knows no port for the program and version on that protocol.
    NotRegistered {
        /// The program.
        program: u32,
        /// The version.
        version: u32,
    },
    /// rpcbind refused a registration (SET) or removal (UNSET).
    RegistrationRefused {
        /// The program.
        program: u32,
        /// The version.
        version: u32,
    },
}

impl RpcError {
    /// The error for a reply that was not `SUCCESS`; `None` for one that was.
    pub fn from_accept_stat(stat: AcceptStat) -> Option<RpcError> {
        Some(match stat {
            AcceptStat::Success => return None,
            AcceptStat::ProgUnavail => RpcError::ProgUnavail,
            AcceptStat::ProgMismatch { low, high } => RpcError::ProgMismatch { low, high },
            AcceptStat::ProcUnavail => RpcError::ProcUnavail,
            AcceptStat::GarbageArgs => RpcError::GarbageArgs,
            AcceptStat::SystemErr => RpcError::SystemErr,
        })
    }

    /// The error for a denied reply.
    pub fn from_rejected(why: RejectedReply) -> RpcError {
        match why {
            RejectedReply::RpcMismatch { low, high } => RpcError::RpcMismatch { low, high },
            RejectedReply::AuthError(stat) => RpcError::AuthError(stat),
        }
    }
}

impl fmt::Debug for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::ProgUnavail => f.write_str("ProgUnavail"),
            RpcError::ProgMismatch { low, high } => f
                .debug_struct("ProgMismatch")
                .field("low", low)
                .field("high", high)
                .finish(),
            RpcError::ProcUnavail => f.write_str("ProcUnavail"),
            RpcError::GarbageArgs => f.write_str("GarbageArgs"),
            RpcError::SystemErr => f.write_str("SystemErr"),
            RpcError::RpcMismatch { low, high } => f
                .debug_struct("RpcMismatch")
                .field("low", low)
                .field("high", high)
                .finish(),
            RpcError::AuthError(stat) => f.debug_tuple("AuthError").field(stat).finish(),
            RpcError::Timeout => write!(f, "Timeout ({self})"),
            RpcError::Io(e) => f.debug_tuple("Io").field(e).finish(),
            RpcError::Marshal { error, sent } => f
                .debug_struct("Marshal")
                .field("error", error)
                .field("sent", sent)
                .finish(),
            RpcError::BadReply(e) => f.debug_tuple("BadReply").field(e).finish(),
            RpcError::TooLarge { len, max } => f
                .debug_struct("TooLarge")
                .field("len", len)
                .field("max", max)
                .finish(),
            RpcError::NotRegistered { program, version } => f
                .debug_struct("NotRegistered")
                .field("program", program)
                .field("version", version)
                .finish(),
            RpcError::RegistrationRefused { program, version } => f
                .debug_struct("RegistrationRefused")
                .field("program", program)
                .field("version", version)
                .finish(),
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::ProgUnavail => f.write_str("program unavailable"),
            RpcError::ProgMismatch { low, high } => write!(
                f,
                "program version mismatch: the server serves versions {low} to {high}"
            ),
            RpcError::ProcUnavail => f.write_str("procedure unavailable"),
            RpcError::GarbageArgs => f.write_str("the server could not decode the arguments"),
            RpcError::SystemErr => f.write_str("system error on the server"),
            RpcError::RpcMismatch { low, high } => write!(
                f,
                "RPC version mismatch: the server speaks versions {low} to {high}"
            ),
            RpcError::AuthError(stat) => write!(f, "authentication error: {stat}"),
            RpcError::Timeout => f.write_str("timed out waiting for the reply"),
            RpcError::Io(e) => write!(f, "transport: {e}"),
            RpcError::Marshal { error, .. } => write!(f, "arguments: {error}"),
            RpcError::BadReply(e) => write!(f, "reply: {e}"),
            RpcError::TooLarge { len, max } => {
                write!(f, "message of {len} bytes exceeds the limit of {max}")
            }
            RpcError::NotRegistered { program, version } => {
                write!(f, "program {program} version {version} is not registered")
            }
            RpcError::RegistrationRefused { program, version } => write!(
                f,
                "rpcbind refused to change the registration of program {program} version {version}"
            ),
        }
    }
}

impl std::error::Error for RpcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RpcError::Timeout => Some(timed_out_error()),
            RpcError::Io(e) => Some(e),
            RpcError::Marshal { error, .. } | RpcError::BadReply(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for RpcError {
    fn from(e: io::Error) -> Self {
        if timed_out(&e) {
            RpcError::Timeout
        } else {
            RpcError::Io(e)
        }
    }
}

/// The source of every [`RpcError::Timeout`].
fn timed_out_error() -> &'static io::Error {
    static TIMED_OUT: OnceLock<io::Error> = OnceLock::new();
    TIMED_OUT.get_or_init(|| io::Error::from(io::ErrorKind::TimedOut))
}

/// Whether a read failed because its socket timeout passed (`EAGAIN` on Unix).
pub(crate) fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}
