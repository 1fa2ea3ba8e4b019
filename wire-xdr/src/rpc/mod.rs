//! ONC RPC version 2 (RFC 5531) on the wire: call and reply headers (and a client's call
//! header encoded once, [`CallTemplate`]), credentials, and record marking for byte streams.
//! The transports (clients, servers, rpcbind) live in the `transports` crate; this module has
//! no I/O beyond reading records from a `Read`.

mod auth;
mod call_template;
mod msg;
mod record_marking;

pub use auth::{
    Auth, AuthStat, OpaqueAuth, AUTH_NONE, AUTH_SYS, MAX_AUTH_BYTES, MAX_GIDS, MAX_MACHINE_NAME,
};
pub use call_template::{CallTemplate, TemplateHeader};
pub use msg::{
    AcceptStat, CallHeader, Message, RejectedReply, ReplyBody, ReplyHeader, RPC_VERSION,
};
/// The largest ONC RPC message over UDP: one datagram, the IPv4 payload limit.
pub const MAX_DATAGRAM: usize = 65_507;

pub use record_marking::{
    record_mark, FragmentHeader, Progress, RecordError, RecordReader, DEFAULT_MAX_FRAGMENTS,
    DEFAULT_MAX_RECORD, LAST_FRAGMENT, MAX_FRAGMENT_LEN,
};
