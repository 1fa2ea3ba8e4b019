//! What a reply means for the call that awaits it: shared by the blocking and the async
//! client.

use wire_iiop::giop::{Body, Ior, ReplyStatus, SystemException};
use wire_iiop::Decode;

use super::CallError;

/// The outcome of a reply.
pub(crate) enum Outcome<R> {
    /// The call ended: its result, or a system exception (or an addressing mode the client
    /// does not speak).
    Done(Result<R, CallError>),
    /// A user exception, and the position in the reply where its members begin (their
    /// alignment depends on it).
    UserException(CallError, usize),
    /// `LOCATION_FORWARD` or `LOCATION_FORWARD_PERM`: send the request to this object.
    Forward(Ior),
}

/// Reads the reply `body` of status `status`: `take` reads a successful one. A body that does
/// not decode as its status says is the `Err` (the caller decides whose failure that is).
pub(crate) fn outcome<R>(
    status: ReplyStatus,
    body: &Body<'_>,
    take: impl FnOnce(&Body<'_>) -> Result<R, marshal_core::Error>,
) -> Result<Outcome<R>, marshal_core::Error> {
    Ok(match status {
        ReplyStatus::NoException => Outcome::Done(Ok(take(body)?)),
        ReplyStatus::UserException => {
            let mut r = body.reader();
            let repository_id = String::decode(&mut r, body.order())?;
            r.arrive_all()?;
            let base = r.position();
            Outcome::UserException(
                CallError::UserException {
                    repository_id,
                    body: r.rest().to_vec(),
                },
                base,
            )
        }
        ReplyStatus::SystemException => {
            let e: SystemException = body.decode()?;
            Outcome::Done(Err(CallError::SystemException {
                repository_id: e.repository_id,
                minor: e.minor,
                completed: e.completed,
            }))
        }
        ReplyStatus::LocationForward | ReplyStatus::LocationForwardPerm => {
            Outcome::Forward(body.decode::<Ior>()?)
        }
        ReplyStatus::NeedsAddressingMode => Outcome::Done(Err(CallError::Protocol(
            "the server wants another addressing mode".into(),
        ))),
    })
}
