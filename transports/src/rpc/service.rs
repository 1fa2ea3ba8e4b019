//! Programs as `tower` services for the async server: an owned [`Request`] (the call's
//! header fields and its arguments as a slice of the received message), a [`Response`]
//! (results encoded at once, or a refusal), and [`GarbageArgs`], the error of arguments that
//! do not decode, which the server answers `GARBAGE_ARGS`.
//!
//! A [`Response`] keeps room before the results for the record mark and the reply header,
//! which the server fills in place: a successful reply is encoded once and never copied
//! before it is written.

use core::fmt;
use std::net::SocketAddr;

use bytes::Bytes;
use marshal_core::writer::append_to_vec;
use marshal_core::{Error, Reader, DEFAULT_MAX_DEPTH};
use wire_xdr::rpc::{record_mark, AcceptStat, Auth, AuthStat, CallHeader, OpaqueAuth, ReplyHeader};
use wire_xdr::{encode_into, Decode, Encode};

use super::framing::encode_record;
use super::Protocol;
pub use crate::service::BoxError;

/// Bytes before a successful reply's results: the record mark (4) and an accepted reply's
/// header with an AUTH_NONE verifier (xid, `REPLY`, `MSG_ACCEPTED`, the verifier's flavor
/// and length, `SUCCESS`: 24).
const HEADROOM: usize = 4 + 24;

/// One call received by an [`AsyncServer`](super::AsyncServer), owned (so a service's future
/// is `'static`): the header's fields, the caller's checked credential, and the arguments as
/// a slice of the received message. Decoding them with [`args`](Request::args) copies nothing
/// into `bytes::Bytes` and [`BytesStr`](marshal_core::BytesStr) fields.
///
/// ```
/// use transports::rpc::{Request, Response, GarbageArgs};
///
/// // What a service does with a request: decode, compute, answer.
/// fn add(req: &Request) -> Result<Response, GarbageArgs> {
///     let (a, b): (i32, i32) = req.args()?;
///     Ok(Response::success(&a.wrapping_add(b)).expect("an i32 encodes"))
/// }
/// ```
#[derive(Clone)]
pub struct Request {
    message: Bytes,
    args: Bytes,
    args_at: usize,
    xid: u32,
    program: u32,
    version: u32,
    procedure: u32,
    cred_flavor: u32,
    cred_body: Bytes,
    auth: Auth,
    peer: SocketAddr,
    protocol: Protocol,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("xid", &self.xid)
            .field("program", &self.program)
            .field("version", &self.version)
            .field("procedure", &self.procedure)
            .field("auth", &self.auth)
            .field("args_len", &self.args.len())
            .field("peer", &self.peer)
            .field("protocol", &self.protocol)
            .finish()
    }
}

impl Request {
    /// A request for the call `header` (parsed from `message`, whose arguments are `args`)
    /// from `peer`, whose credential checked as `auth`.
    pub(super) fn new(
        message: &Bytes,
        header: &CallHeader<'_>,
        args: &[u8],
        auth: Auth,
        peer: SocketAddr,
        protocol: Protocol,
    ) -> Request {
        let share = |part: &[u8]| {
            if part.is_empty() {
                Bytes::new()
            } else {
                message.slice_ref(part)
            }
        };
        Request {
            args_at: message.len() - args.len(),
            args: share(args),
            cred_flavor: header.cred.flavor,
            cred_body: share(header.cred.body),
            message: message.clone(),
            xid: header.xid,
            program: header.program,
            version: header.version,
            procedure: header.procedure,
            auth,
            peer,
            protocol,
        }
    }

    /// The procedure number.
    pub fn procedure(&self) -> u32 {
        self.procedure
    }
    /// The program number.
    pub fn program(&self) -> u32 {
        self.program
    }
    /// The program version.
    pub fn version(&self) -> u32 {
        self.version
    }
    /// The transaction id.
    pub fn xid(&self) -> u32 {
        self.xid
    }
    /// The caller's credential (AUTH_NONE or a checked AUTH_SYS; other flavors are refused
    /// before the call reaches a service).
    pub fn auth(&self) -> &Auth {
        &self.auth
    }
    /// The credential as sent.
    pub fn cred(&self) -> OpaqueAuth<'_> {
        OpaqueAuth {
            flavor: self.cred_flavor,
            body: &self.cred_body,
        }
    }
    /// The caller's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }
    /// The transport the call came over.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }
    /// The whole RPC message of the call.
    pub fn message(&self) -> &Bytes {
        &self.message
    }
    /// The encoded arguments: a slice of [`message`](Request::message).
    pub fn args_bytes(&self) -> &Bytes {
        &self.args
    }

    /// Decodes the arguments, which must take the whole rest of the message. Owned values
    /// (`for<'de> Decode<'de>`) are `'static`, their `Bytes` and `BytesStr` fields slices of
    /// the message; `&str`, `&[u8]` and `Cow` fields borrow from the request. The error
    /// names the field and its offset in the message; a service that returns it (`?`) is
    /// answered `GARBAGE_ARGS`.
    pub fn args<'a, T: Decode<'a>>(&'a self) -> Result<T, GarbageArgs> {
        let mut r = Reader::with_owner(&self.args, self.args_at);
        let decoded = T::decode(&mut r).and_then(|v| r.finish().map(|()| v));
        decoded.map_err(|e| GarbageArgs(e.in_field("args")))
    }
}

/// Arguments that did not decode ([`Request::args`]'s error): a service whose call fails
/// with it is answered `GARBAGE_ARGS` (any other error: `SYSTEM_ERR`).
#[derive(Debug)]
pub struct GarbageArgs(pub Error);

impl fmt::Display for GarbageArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the arguments do not decode: {}", self.0)
    }
}

impl std::error::Error for GarbageArgs {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// A service's answer to a [`Request`]: `SUCCESS` with its results (encoded when the
/// response is made), or a refusal.
///
/// ```
/// use transports::rpc::{AcceptStat, Response};
/// let ok = Response::success(&(7u32, "seven"))?;
/// assert_eq!(ok.stat(), Some(AcceptStat::Success));
/// assert_eq!(ok.results(), Some(&[0, 0, 0, 7, 0, 0, 0, 5, b's', b'e', b'v', b'e', b'n', 0, 0, 0][..]));
/// assert_eq!(Response::proc_unavail().stat(), Some(AcceptStat::ProcUnavail));
/// # Ok::<(), marshal_core::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Response(Outcome);

#[derive(Clone, PartialEq, Eq)]
enum Outcome {
    /// `HEADROOM` bytes, then the encoded results.
    Success(Vec<u8>),
    Accepted(AcceptStat),
    AuthError(AuthStat),
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Outcome::Success(buf) => f
                .debug_struct("Success")
                .field("results_len", &(buf.len() - HEADROOM))
                .finish(),
            Outcome::Accepted(stat) => stat.fmt(f),
            Outcome::AuthError(why) => f.debug_tuple("AuthError").field(why).finish(),
        }
    }
}

impl Response {
    /// `SUCCESS` with `results` (a derived type, a primitive, `()` for `void`, a tuple),
    /// encoded now. Fails if they do not encode (a value over its bound, say).
    pub fn success<T: Encode + ?Sized>(results: &T) -> Result<Response, Error> {
        let len = results.encoded_len(DEFAULT_MAX_DEPTH)?;
        let mut buf = Vec::with_capacity(HEADROOM + len);
        buf.resize(HEADROOM, 0);
        append_to_vec(&mut buf, len, |w| results.encode(w))?;
        Ok(Response(Outcome::Success(buf)))
    }

    /// `PROC_UNAVAIL`: the default arm of a service's `match` on the procedure.
    pub fn proc_unavail() -> Response {
        Response(Outcome::Accepted(AcceptStat::ProcUnavail))
    }

    /// `GARBAGE_ARGS`.
    pub fn garbage_args() -> Response {
        Response(Outcome::Accepted(AcceptStat::GarbageArgs))
    }

    /// `SYSTEM_ERR`.
    pub fn system_err() -> Response {
        Response(Outcome::Accepted(AcceptStat::SystemErr))
    }

    /// Denies the call for its credentials (`AUTH_ERROR` with `why`), e.g.
    /// [`AuthStat::TooWeak`] for a call that needs AUTH_SYS.
    pub fn auth_error(why: AuthStat) -> Response {
        Response(Outcome::AuthError(why))
    }

    /// The accepted reply's status (`None` for an authentication error).
    pub fn stat(&self) -> Option<AcceptStat> {
        match &self.0 {
            Outcome::Success(_) => Some(AcceptStat::Success),
            Outcome::Accepted(stat) => Some(*stat),
            Outcome::AuthError(_) => None,
        }
    }

    /// The encoded results of a `SUCCESS` response.
    pub fn results(&self) -> Option<&[u8]> {
        match &self.0 {
            Outcome::Success(buf) => Some(&buf[HEADROOM..]),
            _ => None,
        }
    }

    /// The reply to call `xid` as one record (mark included; a datagram is the record
    /// without its first 4 bytes) of a message of at most `max` bytes: `SYSTEM_ERR` in its
    /// stead if the results are larger.
    pub(super) fn into_record(self, xid: u32, max: usize) -> Vec<u8> {
        match self.0 {
            Outcome::Success(mut buf) if buf.len() - 4 <= max => {
                // The mark and the header, encoded into the room left before the results.
                let head = record_mark(buf.len() - 4)
                    .map(|mark| (mark, ReplyHeader::accepted(xid, AcceptStat::Success)));
                let filled = head.and_then(|head| encode_into(&head, &mut &mut buf[..HEADROOM]));
                match filled {
                    Ok(()) => buf,
                    Err(_) => refusal(&ReplyHeader::accepted(xid, AcceptStat::SystemErr)),
                }
            }
            Outcome::Success(_) => refusal(&ReplyHeader::accepted(xid, AcceptStat::SystemErr)),
            Outcome::Accepted(stat) => refusal(&ReplyHeader::accepted(xid, stat)),
            Outcome::AuthError(why) => refusal(&ReplyHeader::denied(
                xid,
                wire_xdr::rpc::RejectedReply::AuthError(why),
            )),
        }
    }
}

/// A reply without results (or refused) as one record.
pub(super) fn refusal(head: &ReplyHeader<'_>) -> Vec<u8> {
    let mut buf = Vec::with_capacity(HEADROOM + 8);
    // A reply header alone is at most 32 bytes: far below any cap.
    encode_record(&mut buf, usize::MAX, head).expect("a reply header encodes");
    buf
}

/// What a service's outcome is answered with: its response, `GARBAGE_ARGS` for arguments
/// that did not decode, `SYSTEM_ERR` for any other error.
pub(super) fn answer(outcome: Result<Response, BoxError>) -> Response {
    match outcome {
        Ok(response) => response,
        Err(e) if e.is::<GarbageArgs>() => Response::garbage_args(),
        Err(_) => Response::system_err(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use marshal_core::ErrorKind;
    use wire_xdr::rpc::{Message, ReplyBody};

    fn parse_reply(record: &[u8]) -> (ReplyHeader<'_>, &[u8]) {
        let mark = u32::from_be_bytes(record[..4].try_into().unwrap());
        assert_eq!(mark as usize & 0x7fff_ffff, record.len() - 4);
        assert!(mark & 0x8000_0000 != 0);
        match Message::parse(&record[4..]).unwrap() {
            (Message::Reply(h), rest) => (h, rest),
            other => panic!("not a reply: {other:?}"),
        }
    }

    #[test]
    fn a_success_is_filled_in_place_as_encoding_the_header_would() {
        let r = Response::success(&(1u32, "ab")).unwrap();
        let record = r.into_record(0xdead_beef, 1 << 20);
        let expected = wire_xdr::to_vec(&(
            &ReplyHeader::accepted(0xdead_beef, AcceptStat::Success),
            &(1u32, "ab"),
        ))
        .unwrap();
        assert_eq!(&record[4..], &expected[..]);
        let (h, rest) = parse_reply(&record);
        assert_eq!(h.xid, 0xdead_beef);
        assert_eq!(rest, &expected[24..]);
    }

    #[test]
    fn results_over_the_cap_become_system_err() {
        let r = Response::success(&[7u8; 100][..]).unwrap();
        let record = r.into_record(5, 50);
        let (h, rest) = parse_reply(&record);
        assert!(rest.is_empty());
        assert!(matches!(
            h.body,
            ReplyBody::Accepted {
                stat: AcceptStat::SystemErr,
                ..
            }
        ));
    }

    #[test]
    fn refusals_encode_their_status() {
        let record = Response::auth_error(AuthStat::TooWeak).into_record(3, 100);
        let (h, _) = parse_reply(&record);
        assert_eq!(
            h,
            ReplyHeader::denied(
                3,
                wire_xdr::rpc::RejectedReply::AuthError(AuthStat::TooWeak)
            )
        );
        for (r, stat) in [
            (Response::proc_unavail(), AcceptStat::ProcUnavail),
            (Response::garbage_args(), AcceptStat::GarbageArgs),
            (Response::system_err(), AcceptStat::SystemErr),
        ] {
            assert_eq!(r.stat(), Some(stat));
            let record = r.into_record(9, 100);
            let (h, _) = parse_reply(&record);
            assert_eq!(h, ReplyHeader::accepted(9, stat));
        }
    }

    #[test]
    fn errors_are_answered_by_kind() {
        let garbage = GarbageArgs(Error::without_offset(ErrorKind::Custom("x".into())));
        assert_eq!(answer(Err(garbage.into())), Response::garbage_args());
        assert_eq!(answer(Err("other".into())), Response::system_err());
    }

    #[test]
    fn args_slice_the_message_and_errors_name_their_offset() {
        let header = CallHeader::new(1, 2, 3, 4);
        let message = Bytes::from(wire_xdr::to_vec(&(&header, &(5u32, &b"payload"[..]))).unwrap());
        let Ok((Message::Call(h), args)) = Message::parse(&message) else {
            panic!("a call")
        };
        let peer = SocketAddr::from(([127, 0, 0, 1], 9));
        let req = Request::new(&message, &h, args, Auth::None, peer, Protocol::Tcp);
        let (n, data): (u32, Bytes) = req.args().unwrap();
        assert_eq!((n, &data[..]), (5, &b"payload"[..]));
        let at = data.as_ptr() as usize - message.as_ptr() as usize;
        assert!(at < message.len(), "the payload was copied");
        let e = req.args::<(u32, u32, u32, u32, u32)>().unwrap_err();
        // The tuple's 20 fixed bytes are checked where it starts: the arguments' offset in
        // the message, not in the arguments.
        assert_eq!(e.0.offset(), Some(message.len() - 16));
        assert!(e.to_string().contains("args"), "{e}");
    }
}
