//! NDR over TCP.
//!
//! - **Connected mode**: an [`NdrWriter`] sends each format description on the stream before
//!   the first record that uses it; an [`NdrReader`] registers the descriptions as they
//!   arrive and decodes records. The reader never asks anyone for a format.
//! - **Non-connected mode**: a [`FormatServer`] answers format ids over TCP from a shared
//!   [`FormatCache`](wire_ndr::FormatCache), and a [`FormatClient`] is a
//!   [`Resolver`](wire_ndr::Resolver) that asks one server, whose address the application
//!   gives. Nothing in a message names where to fetch from, so a peer can never make a
//!   receiver connect to an address of its choosing.
//!
//! With feature `tokio`, the same on a tokio runtime, with the same bytes on the wire (each
//! side talks to the other): [`AsyncNdrWriter`] and [`AsyncNdrReader`] (frames cut by
//! [`NdrCodec`](crate::codec::NdrCodec)), [`AsyncFormatServer`] and [`AsyncFormatClient`].
//!
//! The async client is not a `Resolver`. That trait is synchronous (`resolve(&mut self,
//! id)`, called by a [`Receiver`](wire_ndr::Receiver) in the middle of a decode), and an
//! async client could answer it only by blocking the thread it runs on, which stalls the
//! other tasks of that runtime worker (all of them, on a current-thread runtime; and
//! `Handle::block_on` panics there). So it resolves *before* decoding instead:
//! [`AsyncFormatClient::resolve`] is an `async fn` that returns the format,
//! [`resolve_into`](AsyncFormatClient::resolve_into) registers it with a `Receiver` that lacks
//! it, and [`resolve_into_cache`](AsyncFormatClient::resolve_into_cache) puts it into a
//! `FormatCache`, itself a `Resolver` that never blocks and can back any number of receivers.

#[cfg(feature = "tokio")]
mod async_format_client;
#[cfg(feature = "tokio")]
mod async_format_server;
#[cfg(feature = "tokio")]
mod async_stream;
mod connected;
mod format_protocol;
mod format_server;
mod stream;

#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_format_client::AsyncFormatClient;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_format_server::{AsyncFormatServer, AsyncFormatServerHandle};
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub use async_stream::{AsyncNdrReader, AsyncNdrWriter};
pub use format_server::{FormatClient, FormatServer, FormatServerHandle};
pub use stream::{NdrReader, NdrWriter};
/// Largest frame an [`NdrReader`], an `AsyncNdrReader` or an `NdrCodec` accepts by default:
/// 256 MiB.
pub use wire_ndr::DEFAULT_MAX_FRAME;

/// A marshal error as an `io::Error` (kind `InvalidData`), for the stream APIs.
pub(crate) fn invalid(e: wire_ndr::Error) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, e)
}
