//! Servants as `tower` services for the async server: an owned [`Request`] (the request
//! header's fields and its body as a slice of the received message), answered with a
//! [`Response`] that the request makes (`req.reply(&results)`), encoded at once as a whole
//! GIOP message in the request's version and byte order.

use core::fmt;

use bytes::Bytes;
use marshal_core::{Error, Reader};
use wire_iiop::giop::{
    encode_message, Body, CdrBytes, Completion, Ior, Message, MessageKind, ReplyHeader,
    ReplyStatus, RequestHeader, ServiceContext, SystemException, Version,
};
use wire_iiop::{ByteOrder, Decode, Encode};

use crate::service::BoxError;

/// One request received by an [`AsyncServer`](super::AsyncServer), owned (so a service's
/// future is `'static`): the request header's fields and the body as a slice of the received
/// message. Decoding the arguments with [`args`](Request::args) copies nothing into
/// `bytes::Bytes` and [`BytesStr`](marshal_core::BytesStr) fields; the request makes its
/// [`Response`] ([`reply`](Request::reply), [`user_exception`](Request::user_exception), ...)
/// in its own GIOP version and byte order.
///
/// ```
/// use transports::giop::{Request, Response};
///
/// // What a service does with a request: decode, compute, answer.
/// fn add(req: &Request) -> Result<Response, marshal_core::Error> {
///     match req.operation() {
///         b"add" => {
///             let (a, b): (i32, i32) = req.args()?;
///             req.reply(&a.wrapping_add(b))
///         }
///         _ => Ok(req.bad_operation()),
///     }
/// }
/// ```
#[derive(Clone)]
pub struct Request {
    message: Bytes,
    body: Bytes,
    body_at: usize,
    operation: Bytes,
    object_key: Bytes,
    meta: Meta,
}

/// What a reply needs of its request.
#[derive(Debug, Clone, Copy)]
pub(super) struct Meta {
    pub(super) request_id: u32,
    pub(super) response_expected: bool,
    pub(super) version: Version,
    pub(super) order: ByteOrder,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("request_id", &self.meta.request_id)
            .field("operation", &String::from_utf8_lossy(&self.operation))
            .field("object_key", &self.object_key)
            .field("version", &self.meta.version)
            .field("order", &self.meta.order)
            .field("response_expected", &self.meta.response_expected)
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl Request {
    /// The request `header` of `message` (parsed as `body`'s message), to the object `key`.
    pub(super) fn new(
        message: &Bytes,
        header: &RequestHeader<'_>,
        body: &Body<'_>,
        version: Version,
        key: &[u8],
    ) -> Request {
        let share = |part: &[u8]| {
            if part.is_empty() {
                Bytes::new()
            } else if message.as_ptr_range().contains(&part.as_ptr()) {
                message.slice_ref(part)
            } else {
                // A key taken out of an IOR profile's encapsulation is its own copy.
                Bytes::copy_from_slice(part)
            }
        };
        Request {
            body: share(body.bytes()),
            body_at: body.position(),
            operation: share(header.operation),
            object_key: share(key),
            message: message.clone(),
            meta: Meta {
                request_id: header.request_id,
                response_expected: header.response_expected(),
                version,
                order: body.order(),
            },
        }
    }

    pub(super) fn meta(&self) -> Meta {
        self.meta
    }

    /// The object key, shared.
    pub(super) fn key(&self) -> Bytes {
        self.object_key.clone()
    }

    /// The operation name.
    pub fn operation(&self) -> &[u8] {
        &self.operation
    }
    /// The object key the request was sent to.
    pub fn object_key(&self) -> &[u8] {
        &self.object_key
    }
    /// The request id.
    pub fn request_id(&self) -> u32 {
        self.meta.request_id
    }
    /// The request's GIOP version (the reply's too).
    pub fn version(&self) -> Version {
        self.meta.version
    }
    /// The byte order of the request (the reply's too).
    pub fn order(&self) -> ByteOrder {
        self.meta.order
    }
    /// Whether the client waits for a reply (`false` for a oneway operation, whose response
    /// is not sent).
    pub fn response_expected(&self) -> bool {
        self.meta.response_expected
    }
    /// The whole GIOP message of the request (reassembled, if it came in fragments).
    pub fn message(&self) -> &Bytes {
        &self.message
    }
    /// The request's service contexts.
    pub fn service_contexts(&self) -> Vec<ServiceContext<'_>> {
        match Message::parse(&self.message) {
            Ok(Message {
                kind: MessageKind::Request(h),
                ..
            }) => h.service_contexts,
            _ => Vec::new(),
        }
    }

    /// Decodes the arguments (the `in` and `inout` parameters in IDL order), which must take
    /// the whole body. Owned values (`for<'de> Decode<'de>`) are `'static`, their `Bytes` and
    /// `BytesStr` fields slices of the message; `&str`, `&[u8]` and `Cow` fields borrow from
    /// the request. A service that fails with this error (`?`) is answered with the system
    /// exception `MARSHAL`.
    pub fn args<'a, T: Decode<'a>>(&'a self) -> Result<T, Error> {
        let mut r = Reader::with_owner(&self.body, self.body_at);
        let v = T::decode(&mut r, self.meta.order)?;
        r.finish()?;
        Ok(v)
    }

    /// Answers with the results (the return value, then the `inout` and `out` parameters in
    /// IDL order). Fails if they do not encode.
    pub fn reply<T: Encode + ?Sized>(&self, results: &T) -> Result<Response, Error> {
        self.meta.response(ReplyStatus::NoException, results)
    }

    /// Answers with a user exception: its repository id, then its members.
    pub fn user_exception<T: Encode + ?Sized>(
        &self,
        repository_id: &str,
        members: &T,
    ) -> Result<Response, Error> {
        let body = (CdrBytes(repository_id.as_bytes()), members);
        self.meta.response(ReplyStatus::UserException, &body)
    }

    /// Answers with a system exception.
    pub fn system_exception(&self, e: &SystemException) -> Result<Response, Error> {
        self.meta.response(ReplyStatus::SystemException, e)
    }

    /// Answers `LOCATION_FORWARD`: the client should send this request (and the ones after
    /// it) to `ior` instead.
    pub fn forward(&self, ior: &Ior) -> Result<Response, Error> {
        self.meta.response(ReplyStatus::LocationForward, ior)
    }

    /// Answers `BAD_OPERATION`: the operation is not one of the object's (the default arm of
    /// a servant's `match`).
    pub fn bad_operation(&self) -> Response {
        self.meta.system_exception("BAD_OPERATION", Completion::No)
    }
}

impl Meta {
    /// The reply with `status` and `body`, or nothing for a oneway request.
    fn response<T: Encode + ?Sized>(
        &self,
        status: ReplyStatus,
        body: &T,
    ) -> Result<Response, Error> {
        let mut message = Vec::new();
        if self.response_expected {
            let head = ReplyHeader {
                request_id: self.request_id,
                status,
                service_contexts: Vec::new(),
            };
            encode_message(&mut message, self.version, self.order, &head, body)?;
        }
        Ok(Response { message, status })
    }

    /// The standard system exception `name`.
    pub(super) fn system_exception(&self, name: &str, completed: Completion) -> Response {
        let e = SystemException::new(name, 0, completed);
        // A standard system exception is a short string and two words: it always encodes.
        self.response(ReplyStatus::SystemException, &e)
            .expect("a system exception encodes")
    }

    /// What a service's outcome is answered with: its response; the system exception
    /// `MARSHAL` for a marshal error (arguments that did not decode, results that did not
    /// encode); `UNKNOWN` for any other error or a panic.
    pub(super) fn answer(&self, outcome: Result<Response, BoxError>) -> Response {
        match outcome {
            Ok(response) => response,
            Err(e) if e.is::<Error>() => self.system_exception("MARSHAL", Completion::No),
            Err(_) => self.system_exception("UNKNOWN", Completion::Maybe),
        }
    }
}

/// A service's answer to a [`Request`], made by the request: the whole reply message, or
/// nothing for a oneway request.
///
/// ```
/// use transports::giop::Response;
/// use wire_iiop::giop::ReplyStatus;
/// fn is_ok(r: &Response) -> bool {
///     r.status() == ReplyStatus::NoException
/// }
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Response {
    /// The encoded reply message (empty for a oneway request).
    message: Vec<u8>,
    status: ReplyStatus,
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("len", &self.message.len())
            .finish()
    }
}

impl Response {
    /// The reply's status.
    pub fn status(&self) -> ReplyStatus {
        self.status
    }

    /// The whole reply message, GIOP header included (empty for a oneway request).
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    pub(super) fn into_message(self) -> Vec<u8> {
        self.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire_iiop::giop::{encode_message as encode, RequestHeader, TargetAddress};

    fn request(version: Version, order: ByteOrder, flags: u8, args: &(i32, Bytes)) -> Request {
        let head = RequestHeader {
            request_id: 42,
            response_flags: flags,
            target: TargetAddress::Key(b"obj"),
            operation: b"echo",
            service_contexts: vec![],
            principal: b"",
        };
        let mut out = Vec::new();
        encode(&mut out, version, order, &head, args).unwrap();
        let message = Bytes::from(out);
        let m = Message::parse(&message).unwrap();
        let MessageKind::Request(h) = &m.kind else {
            panic!("a request")
        };
        Request::new(&message, h, &m.body(), version, b"obj")
    }

    #[test]
    fn arguments_decode_as_sent_in_every_version_and_order() {
        let payload = Bytes::from_static(b"some octets");
        for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
            for order in [ByteOrder::Big, ByteOrder::Little] {
                let req = request(version, order, 3, &(-5, payload.clone()));
                let (n, data): (i32, Bytes) = req.args().unwrap();
                assert_eq!((n, &data[..]), (-5, &b"some octets"[..]));
                assert!(
                    req.message().as_ptr_range().contains(&data.as_ptr()),
                    "the octets were copied"
                );
                assert_eq!(req.operation(), b"echo");
                assert_eq!(req.object_key(), b"obj");
                let e = req.args::<(i32, Bytes, u8)>().unwrap_err();
                assert!(e.offset().is_some(), "{e}");
                // The reply is the one encode_message makes for the request's version/order.
                let r = req.reply(&(7u64, "x")).unwrap();
                let mut expected = Vec::new();
                let head = ReplyHeader {
                    request_id: 42,
                    status: ReplyStatus::NoException,
                    service_contexts: vec![],
                };
                encode(&mut expected, version, order, &head, &(7u64, "x")).unwrap();
                assert_eq!(r.message(), &expected[..]);
            }
        }
    }

    #[test]
    fn a_oneway_request_has_an_empty_response_and_errors_map_to_system_exceptions() {
        let req = request(Version::V1_2, ByteOrder::Big, 0, &(1, Bytes::new()));
        assert!(!req.response_expected());
        assert!(req.reply(&1u32).unwrap().message().is_empty());
        let req = request(Version::V1_2, ByteOrder::Little, 3, &(1, Bytes::new()));
        let meta = req.meta();
        let marshal = meta.answer(Err(req.args::<u8>().unwrap_err().into()));
        let unknown = meta.answer(Err("lost".into()));
        for (r, id) in [
            (marshal, "IDL:omg.org/CORBA/MARSHAL:1.0"),
            (unknown, "IDL:omg.org/CORBA/UNKNOWN:1.0"),
            (req.bad_operation(), "IDL:omg.org/CORBA/BAD_OPERATION:1.0"),
        ] {
            assert_eq!(r.status(), ReplyStatus::SystemException);
            let m = Message::parse(r.message()).unwrap();
            let e: SystemException = m.body().decode().unwrap();
            assert_eq!(e.repository_id, id);
        }
    }
}
