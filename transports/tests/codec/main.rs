//! The `tokio_util` codecs of `transports::codec`: any split of a valid stream decodes to the
//! same frames, hostile bytes never panic nor make the buffer grow past the cap, the framing
//! matches the blocking transports' byte for byte, and frames cross real tokio sockets.

#![cfg(feature = "tokio")]

mod feed;
mod runtime;

#[cfg(feature = "xdr")]
mod datagram;
#[cfg(feature = "iiop")]
mod giop;
#[cfg(feature = "ndr")]
mod ndr;
#[cfg(feature = "xdr")]
mod record;
