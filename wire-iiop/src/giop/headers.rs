//! The headers that follow the 12-byte message header, for each message type and GIOP
//! version (CORBA 3, §15.4.2–15.4.6). Their layouts differ between 1.0, 1.1 and 1.2; each
//! implements [`MessageHead`] over all three.

use marshal_core::{Error, ErrorKind, Reader, Writer, DEFAULT_MAX_DEPTH};

use super::op_name::CdrBytes;
use super::{MsgType, ServiceContext, TargetAddress, Version};
use crate::{ByteOrder, Decode, Encode};

/// A message header after the 12-byte GIOP header, in any GIOP version.
pub trait MessageHead<'a>: Sized {
    /// The message type it heads.
    const TYPE: MsgType;
    /// Whether a body follows (which GIOP 1.2 aligns to 8).
    const HAS_BODY: bool;
    /// End position when the header starts at `pos`.
    fn end(&self, version: Version, pos: usize) -> Result<usize, Error>;
    /// Appends the header.
    fn encode(&self, version: Version, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error>;
    /// Reads the header.
    fn decode(version: Version, r: &mut Reader<'a>, order: ByteOrder) -> Result<Self, Error>;
}

/// Encodes, measures or decodes one layout, written once as a tuple for all three uses.
macro_rules! layout {
    (end $pos:expr, $($e:expr),+) => { ($($e,)+).end($pos, DEFAULT_MAX_DEPTH) };
    (encode $w:expr, $o:expr, $($e:expr),+) => { ($($e,)+).encode($w, $o) };
}

/// `response_flags` of a 1.2 request that expects a reply (`SYNC_WITH_TARGET`).
pub const RESPONSE_EXPECTED: u8 = 3;

/// `RequestHeader_1_0`, `_1_1` and `_1_2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHeader<'a> {
    /// Matches the reply to the request.
    pub request_id: u32,
    /// 1.2 `response_flags`: 0 for a oneway call, [`RESPONSE_EXPECTED`] (3) otherwise; in 1.0
    /// and 1.1 bit 0 is the `response_expected` boolean.
    pub response_flags: u8,
    /// The object (1.0 and 1.1 can only carry [`TargetAddress::Key`]).
    pub target: TargetAddress<'a>,
    /// The operation name, as bytes.
    pub operation: &'a [u8],
    /// Service contexts, passed through.
    pub service_contexts: Vec<ServiceContext<'a>>,
    /// `requesting_principal` (1.0 and 1.1; unused by modern ORBs).
    pub principal: &'a [u8],
}

impl RequestHeader<'_> {
    /// Whether the client waits for a reply.
    pub fn response_expected(&self) -> bool {
        self.response_flags & 1 != 0
    }
}

/// The object key of a 1.0/1.1 target, or an encode error.
fn key_only<'t>(target: &TargetAddress<'t>, w: usize) -> Result<&'t [u8], Error> {
    match target {
        TargetAddress::Key(k) => Ok(k),
        _ => Err(Error::new(
            ErrorKind::Custom("GIOP 1.0 and 1.1 address objects by key only".into()),
            w,
        )),
    }
}

impl<'a> MessageHead<'a> for RequestHeader<'a> {
    const TYPE: MsgType = MsgType::Request;
    const HAS_BODY: bool = true;
    fn end(&self, v: Version, pos: usize) -> Result<usize, Error> {
        let (op, sc) = (CdrBytes(self.operation), &self.service_contexts);
        let flag = self.response_expected();
        match v.minor {
            0 => {
                let key = key_only(&self.target, pos)?;
                layout!(end pos, sc, self.request_id, flag, key, op, self.principal)
            }
            1 => {
                let key = key_only(&self.target, pos)?;
                layout!(end pos, sc, self.request_id, flag, [0u8; 3], key, op, self.principal)
            }
            _ => {
                layout!(end pos, self.request_id, self.response_flags, [0u8; 3], &self.target, op, sc)
            }
        }
    }
    fn encode(&self, v: Version, w: &mut Writer<'_>, o: ByteOrder) -> Result<(), Error> {
        let (op, sc) = (CdrBytes(self.operation), &self.service_contexts);
        let flag = self.response_expected();
        match v.minor {
            0 => {
                let key = key_only(&self.target, w.position())?;
                layout!(encode w, o, sc, self.request_id, flag, key, op, self.principal)
            }
            1 => {
                let key = key_only(&self.target, w.position())?;
                layout!(encode w, o, sc, self.request_id, flag, [0u8; 3], key, op, self.principal)
            }
            _ => {
                layout!(encode w, o, self.request_id, self.response_flags, [0u8; 3], &self.target, op, sc)
            }
        }
    }
    fn decode(v: Version, r: &mut Reader<'a>, o: ByteOrder) -> Result<Self, Error> {
        if v.minor >= 2 {
            let (request_id, response_flags, _reserved, target, op, service_contexts) =
                <(
                    u32,
                    u8,
                    [u8; 3],
                    TargetAddress<'a>,
                    CdrBytes<'a>,
                    Vec<ServiceContext<'a>>,
                )>::decode(r, o)?;
            return Ok(RequestHeader {
                request_id,
                response_flags,
                target,
                operation: op.0,
                service_contexts,
                principal: &[],
            });
        }
        let (service_contexts, request_id, expected) =
            <(Vec<ServiceContext<'a>>, u32, bool)>::decode(r, o)?;
        if v.minor == 1 {
            <[u8; 3]>::decode(r, o)?;
        }
        let (key, op, principal) = <(&'a [u8], CdrBytes<'a>, &'a [u8])>::decode(r, o)?;
        Ok(RequestHeader {
            request_id,
            response_flags: if expected { RESPONSE_EXPECTED } else { 0 },
            target: TargetAddress::Key(key),
            operation: op.0,
            service_contexts,
            principal,
        })
    }
}

/// `ReplyStatusType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplyStatus {
    /// The results follow.
    NoException,
    /// A user exception (repository id, then its members) follows.
    UserException,
    /// A [`SystemException`](super::SystemException) follows.
    SystemException,
    /// An IOR follows: send the request there instead.
    LocationForward,
    /// As `LocationForward`, permanently (1.2).
    LocationForwardPerm,
    /// The server wants another addressing disposition (a `short`, 1.2).
    NeedsAddressingMode,
}

impl ReplyStatus {
    const ALL: [ReplyStatus; 6] = [
        ReplyStatus::NoException,
        ReplyStatus::UserException,
        ReplyStatus::SystemException,
        ReplyStatus::LocationForward,
        ReplyStatus::LocationForwardPerm,
        ReplyStatus::NeedsAddressingMode,
    ];
}

/// `LocateStatusType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LocateStatus {
    /// No such object here.
    UnknownObject,
    /// The object is here.
    ObjectHere,
    /// An IOR follows: the object is there.
    ObjectForward,
    /// As `ObjectForward`, permanently (1.2).
    ObjectForwardPerm,
    /// A system exception follows (1.2).
    LocSystemException,
    /// The server wants another addressing disposition (1.2).
    LocNeedsAddressingMode,
}

impl LocateStatus {
    const ALL: [LocateStatus; 6] = [
        LocateStatus::UnknownObject,
        LocateStatus::ObjectHere,
        LocateStatus::ObjectForward,
        LocateStatus::ObjectForwardPerm,
        LocateStatus::LocSystemException,
        LocateStatus::LocNeedsAddressingMode,
    ];
}

/// Encode and decode of the two status enums as their `unsigned long` ordinal.
macro_rules! status_enum {
    ($t:ident, $name:literal) => {
        impl Encode for $t {
            fn end(&self, pos: usize, depth: u32) -> Result<usize, Error> {
                0u32.end(pos, depth)
            }
            fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
                (*self as u32).encode(w, order)
            }
        }
        impl<'de> Decode<'de> for $t {
            const MIN: usize = 4;
            fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
                let v = u32::decode(r, order)?;
                $t::ALL.get(v as usize).copied().ok_or_else(|| {
                    r.error_back(
                        4,
                        ErrorKind::UnknownDiscriminant {
                            value: v.into(),
                            type_name: $name,
                        },
                    )
                })
            }
        }
    };
}
status_enum!(ReplyStatus, "ReplyStatusType");
status_enum!(LocateStatus, "LocateStatusType");

/// `ReplyHeader_1_0` (also 1.1) and `_1_2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyHeader<'a> {
    /// The id of the request answered.
    pub request_id: u32,
    /// What the body holds.
    pub status: ReplyStatus,
    /// Service contexts, passed through.
    pub service_contexts: Vec<ServiceContext<'a>>,
}

impl<'a> MessageHead<'a> for ReplyHeader<'a> {
    const TYPE: MsgType = MsgType::Reply;
    const HAS_BODY: bool = true;
    fn end(&self, v: Version, pos: usize) -> Result<usize, Error> {
        let sc = &self.service_contexts;
        match v.minor {
            0 | 1 => layout!(end pos, sc, self.request_id, self.status),
            _ => layout!(end pos, self.request_id, self.status, sc),
        }
    }
    fn encode(&self, v: Version, w: &mut Writer<'_>, o: ByteOrder) -> Result<(), Error> {
        let sc = &self.service_contexts;
        match v.minor {
            0 | 1 => layout!(encode w, o, sc, self.request_id, self.status),
            _ => layout!(encode w, o, self.request_id, self.status, sc),
        }
    }
    fn decode(v: Version, r: &mut Reader<'a>, o: ByteOrder) -> Result<Self, Error> {
        let (request_id, status, service_contexts) = match v.minor {
            0 | 1 => {
                let (sc, id, st) = Decode::decode(r, o)?;
                (id, st, sc)
            }
            _ => Decode::decode(r, o)?,
        };
        Ok(ReplyHeader {
            request_id,
            status,
            service_contexts,
        })
    }
}

/// `CancelRequestHeader`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelRequestHeader {
    /// The request the client gives up on.
    pub request_id: u32,
}

impl<'a> MessageHead<'a> for CancelRequestHeader {
    const TYPE: MsgType = MsgType::CancelRequest;
    const HAS_BODY: bool = false;
    fn end(&self, _: Version, pos: usize) -> Result<usize, Error> {
        self.request_id.end(pos, 0)
    }
    fn encode(&self, _: Version, w: &mut Writer<'_>, o: ByteOrder) -> Result<(), Error> {
        self.request_id.encode(w, o)
    }
    fn decode(_: Version, r: &mut Reader<'a>, o: ByteOrder) -> Result<Self, Error> {
        Ok(CancelRequestHeader {
            request_id: u32::decode(r, o)?,
        })
    }
}

/// `LocateRequestHeader_1_0` (also 1.1) and `_1_2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocateRequestHeader<'a> {
    /// Matches the reply.
    pub request_id: u32,
    /// The object asked about.
    pub target: TargetAddress<'a>,
}

impl<'a> MessageHead<'a> for LocateRequestHeader<'a> {
    const TYPE: MsgType = MsgType::LocateRequest;
    const HAS_BODY: bool = false;
    fn end(&self, v: Version, pos: usize) -> Result<usize, Error> {
        match v.minor {
            0 | 1 => layout!(end pos, self.request_id, key_only(&self.target, pos)?),
            _ => layout!(end pos, self.request_id, &self.target),
        }
    }
    fn encode(&self, v: Version, w: &mut Writer<'_>, o: ByteOrder) -> Result<(), Error> {
        match v.minor {
            0 | 1 => layout!(encode w, o, self.request_id, key_only(&self.target, w.position())?),
            _ => layout!(encode w, o, self.request_id, &self.target),
        }
    }
    fn decode(v: Version, r: &mut Reader<'a>, o: ByteOrder) -> Result<Self, Error> {
        let request_id = u32::decode(r, o)?;
        let target = match v.minor {
            0 | 1 => TargetAddress::Key(<&'a [u8]>::decode(r, o)?),
            _ => TargetAddress::decode(r, o)?,
        };
        Ok(LocateRequestHeader { request_id, target })
    }
}

/// `LocateReplyHeader` (the same in every version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocateReplyHeader {
    /// The id of the locate request answered.
    pub request_id: u32,
    /// The answer; `ObjectForward` is followed by an IOR.
    pub status: LocateStatus,
}

impl<'a> MessageHead<'a> for LocateReplyHeader {
    const TYPE: MsgType = MsgType::LocateReply;
    const HAS_BODY: bool = true;
    fn end(&self, _: Version, pos: usize) -> Result<usize, Error> {
        layout!(end pos, self.request_id, self.status)
    }
    fn encode(&self, _: Version, w: &mut Writer<'_>, o: ByteOrder) -> Result<(), Error> {
        layout!(encode w, o, self.request_id, self.status)
    }
    fn decode(_: Version, r: &mut Reader<'a>, o: ByteOrder) -> Result<Self, Error> {
        let (request_id, status) = Decode::decode(r, o)?;
        Ok(LocateReplyHeader { request_id, status })
    }
}

/// `CloseConnection` and `MessageError` have no header beyond the message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Empty<const T: u8>;

/// The header of a `CloseConnection` message (empty).
pub type CloseConnection = Empty<{ MsgType::CloseConnection as u8 }>;
/// The header of a `MessageError` message (empty).
pub type MessageError = Empty<{ MsgType::MessageError as u8 }>;

/// The two empty headers: no bytes, and no body after them.
macro_rules! empty_head {
    ($($head:ty => $kind:ident),*) => {$(
        impl<'a> MessageHead<'a> for $head {
            const TYPE: MsgType = MsgType::$kind;
            const HAS_BODY: bool = false;
            fn end(&self, _: Version, pos: usize) -> Result<usize, Error> {
                Ok(pos)
            }
            fn encode(&self, _: Version, _: &mut Writer<'_>, _: ByteOrder) -> Result<(), Error> {
                Ok(())
            }
            fn decode(_: Version, _: &mut Reader<'a>, _: ByteOrder) -> Result<Self, Error> {
                Ok(Empty)
            }
        }
    )*};
}

empty_head!(CloseConnection => CloseConnection, MessageError => MessageError);
