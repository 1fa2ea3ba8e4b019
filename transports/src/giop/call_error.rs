//! What a call can end in besides its result.

use core::fmt;
use std::io;

use wire_iiop::giop::Completion;

/// Why [`Client::invoke`](super::Client::invoke) returned no result.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError {
    /// The operation raised a user exception (an IDL `exception`): its repository id, and its
    /// members as they follow the repository id in the reply. Decode them with
    /// [`decode_user_exception`](super::Client::decode_user_exception) (the async client's
    /// `invoke_reply` keeps the reply, whose `exception_members` decodes them).
    UserException {
        /// E.g. `IDL:Flick/Oops:1.0`.
        repository_id: String,
        /// The encoded members.
        body: Vec<u8>,
    },
    /// The ORB raised a system exception.
    SystemException {
        /// E.g. `IDL:omg.org/CORBA/BAD_OPERATION:1.0`.
        repository_id: String,
        /// The minor code.
        minor: u32,
        /// Whether the operation ran.
        completed: Completion,
    },
    /// The connection failed.
    Transport(io::Error),
    /// The arguments did not encode, or the reply did not decode as the result type.
    Marshal(marshal_core::Error),
    /// The peer broke the protocol (a malformed or unexpected message, a `MessageError`).
    Protocol(String),
    /// The object reference has no IIOP profile to connect to.
    NoIiopProfile,
    /// More than the allowed number of `LOCATION_FORWARD` replies in a row.
    TooManyForwards(usize),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UserException {
                repository_id,
                body,
            } => write!(f, "user exception {repository_id} ({} bytes)", body.len()),
            CallError::SystemException {
                repository_id,
                minor,
                completed,
            } => write!(
                f,
                "system exception {repository_id} (minor {minor:#x}, completed {completed:?})"
            ),
            CallError::Transport(e) => write!(f, "transport: {e}"),
            CallError::Marshal(e) => write!(f, "marshaling: {e}"),
            CallError::Protocol(what) => write!(f, "GIOP protocol error: {what}"),
            CallError::NoIiopProfile => f.write_str("the object reference has no IIOP profile"),
            CallError::TooManyForwards(n) => write!(f, "more than {n} LOCATION_FORWARD replies"),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Transport(e) => Some(e),
            CallError::Marshal(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for CallError {
    fn from(e: io::Error) -> Self {
        CallError::Transport(e)
    }
}

impl From<marshal_core::Error> for CallError {
    fn from(e: marshal_core::Error) -> Self {
        CallError::Marshal(e)
    }
}
