//! GIOP over TCP (IIOP): a blocking [`Client`] and a multi-threaded [`Server`]; with feature
//! `tokio`, an `AsyncClient` that multiplexes calls over one connection and an `AsyncServer`
//! of `tower` services of `Request`s (or the same `Servant`s).
//!
//! The wire formats (messages, IORs, CDR) are `wire-iiop`'s; this module adds sockets,
//! request ids, location forwarding, dispatch by operation name and the connection life
//! cycle. Large octet sequences (and arrays in the host byte order) go out with vectored
//! writes straight from the caller's memory.

#[cfg(feature = "tokio")]
mod async_client;
#[cfg(feature = "tokio")]
mod async_reply;
#[cfg(feature = "tokio")]
mod async_server;
mod call_error;
mod client;
mod connection;
mod reply;
mod server;
#[cfg(feature = "tokio")]
mod service;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use crate::service::BoxError;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_client::AsyncClient;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_reply::Reply;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_server::{AsyncServer, AsyncServerHandle, DEFAULT_GRACE, DEFAULT_MAX_IN_FLIGHT};
pub use call_error::CallError;
pub use client::Client;
pub use server::{Call, Servant, Server, ServerHandle};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use service::{Request, Response};
/// `tower`'s `Service` trait, re-exported: what [`AsyncServer::add_service`] serves.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use tower_service::Service;
