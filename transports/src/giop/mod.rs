//! GIOP over TCP (IIOP): a blocking [`Client`] and a multi-threaded [`Server`]; with feature
//! `tokio`, an `AsyncClient` that multiplexes calls over one connection and an `AsyncServer`.
//!
//! The wire formats (messages, IORs, CDR) are `wire-iiop`'s; this module adds sockets,
//! request ids, location forwarding, dispatch by operation name and the connection life
//! cycle. Large octet sequences (and arrays in the host byte order) go out with vectored
//! writes straight from the caller's memory.

#[cfg(feature = "tokio")]
mod async_client;
#[cfg(feature = "tokio")]
mod async_server;
mod call_error;
mod client;
mod connection;
mod reply;
mod server;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_client::AsyncClient;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_server::{AsyncServer, AsyncServerHandle};
pub use call_error::CallError;
pub use client::Client;
pub use server::{Call, Servant, Server, ServerHandle};
