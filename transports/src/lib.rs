//! Transports of the `marshal` framework: blocking TCP clients and multi-threaded servers.
//!
//! - feature `iiop`: [`giop`], a GIOP 1.0–1.2 client ([`giop::Client`]) and server
//!   ([`giop::Server`]) over TCP (IIOP) that interoperate with omniORB.
//! - feature `ndr`: [`ndr`], NDR record streams that carry their format descriptions
//!   (connected mode) and a format server with its resolver (non-connected mode).
//! - feature `xdr`: [`rpc`], ONC RPC (RFC 5531) clients and servers over TCP and UDP, and
//!   an rpcbind client.
//! - feature `tokio`: [`codec`], `tokio_util` codecs for the framing of each format whose
//!   feature is on (record marking, datagrams, GIOP, NDR streams), and async transports on
//!   them: ONC RPC and GIOP clients and servers, and NDR streams and format service
//!   ([`ndr::AsyncNdrWriter`], [`ndr::AsyncNdrReader`], [`ndr::AsyncFormatServer`],
//!   [`ndr::AsyncFormatClient`]).

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(all(
    feature = "tokio",
    any(feature = "xdr", feature = "iiop", feature = "ndr")
))]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod codec;
#[cfg(any(feature = "iiop", feature = "xdr"))]
mod conn_threads;
#[cfg(all(feature = "tokio", any(feature = "xdr", feature = "iiop")))]
mod gather_writes;
#[cfg(feature = "iiop")]
#[cfg_attr(docsrs, doc(cfg(feature = "iiop")))]
pub mod giop;
mod io_util;
#[cfg(feature = "ndr")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndr")))]
pub mod ndr;
#[cfg(all(feature = "tokio", any(feature = "xdr", feature = "iiop")))]
mod read_buf;
#[cfg(feature = "xdr")]
#[cfg_attr(docsrs, doc(cfg(feature = "xdr")))]
pub mod rpc;
#[cfg(all(feature = "tokio", any(feature = "xdr", feature = "iiop")))]
mod service;
#[cfg(all(feature = "tokio", any(feature = "xdr", feature = "iiop")))]
mod stop;
