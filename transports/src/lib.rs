//! Transports of the `marshal` framework: blocking TCP clients and multi-threaded servers.
//!
//! - feature `iiop`: [`giop`], a GIOP 1.0–1.2 client ([`giop::Client`]) and server
//!   ([`giop::Server`]) over TCP (IIOP) that interoperate with omniORB.

#[cfg(feature = "iiop")]
pub mod giop;
mod io_util;
