//! Async framing: [`tokio_util::codec`] codecs that cut a byte stream (or datagrams) into the
//! frames of each protocol, for [`Framed`](tokio_util::codec::Framed),
//! [`FramedRead`](tokio_util::codec::FramedRead) and `UdpFramed`. Frames are
//! [`Bytes`](bytes::Bytes): whole ONC RPC records, whole datagrams, whole (reassembled) GIOP
//! messages and whole NDR frames, ready for the wire crates' parsers.
//!
//! | codec | framing | feature |
//! |---|---|---|
//! | [`RecordCodec`] | ONC RPC record marking over TCP (RFC 5531 §11), multi-fragment records | `xdr` |
//! | [`DatagramCodec`] | ONC RPC over UDP: one datagram, one message | `xdr` |
//! | [`GiopCodec`] | GIOP 1.0–1.2 messages, 1.1/1.2 fragments reassembled | `iiop` |
//! | [`NdrCodec`] | NDR stream frames (format descriptions and records) | `ndr` |
//!
//! The protocol logic is the wire crates' (headers, caps, reassembly); the codecs hold only
//! the buffering. Every decoder checks its caps on each header before it reserves anything,
//! grows its buffer with the data that arrives rather than with what a header claims,
//! returns `Ok(None)` while a frame is incomplete, and resumes at any split point. Errors
//! are [`CodecError`]s; after one the stream has lost its framing and should be closed
//! (for GIOP, after answering [`CodecError::Malformed`] with a `MessageError`).

#[cfg(feature = "xdr")]
mod datagram;
mod error;
#[cfg(feature = "iiop")]
mod giop;
mod growth;
#[cfg(feature = "ndr")]
mod ndr;
#[cfg(feature = "xdr")]
mod record;

#[cfg(feature = "xdr")]
#[cfg_attr(docsrs, doc(cfg(feature = "xdr")))]
pub use datagram::DatagramCodec;
pub use error::CodecError;
#[cfg(feature = "iiop")]
#[cfg_attr(docsrs, doc(cfg(feature = "iiop")))]
pub use giop::GiopCodec;
#[cfg(feature = "ndr")]
#[cfg_attr(docsrs, doc(cfg(feature = "ndr")))]
pub use ndr::NdrCodec;
#[cfg(feature = "xdr")]
#[cfg_attr(docsrs, doc(cfg(feature = "xdr")))]
pub use record::RecordCodec;
