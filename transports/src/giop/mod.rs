//! GIOP over TCP (IIOP): a blocking [`Client`] and a multi-threaded [`Server`].
//!
//! The wire formats (messages, IORs, CDR) are `wire-iiop`'s; this module adds sockets,
//! request ids, location forwarding, dispatch by operation name and the connection life
//! cycle. Large octet sequences (and arrays in the host byte order) go out with vectored
//! writes straight from the caller's memory.

mod call_error;
mod client;
mod connection;
mod reply;
mod server;

pub use call_error::CallError;
pub use client::Client;
pub use server::{Call, Servant, Server, ServerHandle};
