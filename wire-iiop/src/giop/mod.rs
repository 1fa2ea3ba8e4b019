//! GIOP, the General Inter-ORB Protocol (CORBA 3, chapter 15), versions 1.0, 1.1 and 1.2:
//! message headers in both byte orders, every message type, fragment reassembly with caps,
//! service contexts passed through, system exceptions, and object references ([`Ior`]:
//! binary, `IOR:` strings and `corbaloc:` URLs).
//!
//! Messages are encoded in one pass with one reservation ([`encode_message`]); received
//! messages are parsed into their header and a [`Body`] that the caller decodes with its own
//! types ([`Message::parse`]).

mod corbaloc;
mod fragment;
mod header;
mod headers;
mod ior;
mod message;
mod op_name;
mod service_context;
mod system_exception;
mod target;

pub use fragment::{Reassembler, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_MESSAGE};
pub use header::{MessageHeader, MsgType, Version, HEADER_LEN, MAGIC};
pub use headers::{
    CancelRequestHeader, CloseConnection, Empty, LocateReplyHeader, LocateRequestHeader,
    LocateStatus, MessageError, MessageHead, ReplyHeader, ReplyStatus, RequestHeader,
    RESPONSE_EXPECTED,
};
pub use ior::{
    IiopProfile, Ior, Profile, TaggedComponent, TAG_ALTERNATE_IIOP_ADDRESS, TAG_CODE_SETS,
    TAG_INTERNET_IOP, TAG_MULTIPLE_COMPONENTS, TAG_ORB_TYPE,
};
pub use message::{encode_message, Body, Message, MessageKind};
/// Two-pass encoding for senders that write large parts of a message where they lie (the
/// transports' vectored sends): not a public API.
#[doc(hidden)]
pub use message::{measure, write, MessageLayout};
pub use op_name::CdrBytes;
pub use service_context::{ServiceContext, CODE_SETS, UTF16, UTF8};
pub use system_exception::{Completion, SystemException};
pub use target::{TaggedProfile, TargetAddress};
