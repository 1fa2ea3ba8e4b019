//! ONC RPC over UDP as a codec: one datagram, one message.

use bytes::{BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

use super::error::{too_large, CodecError};
use wire_xdr::rpc::MAX_DATAGRAM;

/// ONC RPC over UDP, for `tokio_util::udp::UdpFramed`: each datagram is one whole message
/// (RFC 5531 uses no record marking over UDP), of at most
/// [`max_datagram`](DatagramCodec::max_datagram) bytes (by default [`MAX_DATAGRAM`], the
/// largest UDP payload over IPv4).
///
/// A datagram is consumed whole even when it is refused, so a stream of datagrams goes on
/// after an oversized one (`UdpFramed` yields the error and reads the next datagram).
///
/// ```
/// use bytes::{Bytes, BytesMut};
/// use tokio_util::codec::{Decoder, Encoder};
/// use transports::codec::DatagramCodec;
///
/// let mut codec = DatagramCodec::new().max_datagram(8);
/// let mut out = BytesMut::new();
/// codec.encode(Bytes::from_static(b"call"), &mut out)?;
/// assert_eq!(codec.decode_eof(&mut out)?.unwrap(), &b"call"[..]);
/// assert!(codec.encode(Bytes::from_static(b"too long!"), &mut out).is_err());
/// let mut big = BytesMut::from(&[0u8; 9][..]);
/// assert!(codec.decode_eof(&mut big).is_err());
/// assert!(big.is_empty(), "the refused datagram is gone");
/// # Ok::<(), transports::codec::CodecError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DatagramCodec {
    max_datagram: usize,
}

impl Default for DatagramCodec {
    fn default() -> Self {
        DatagramCodec::new()
    }
}

impl DatagramCodec {
    /// A codec with the cap [`MAX_DATAGRAM`].
    pub fn new() -> Self {
        DatagramCodec {
            max_datagram: MAX_DATAGRAM,
        }
    }

    /// Caps the size of a datagram, received or sent.
    pub fn max_datagram(mut self, max: usize) -> Self {
        self.max_datagram = max;
        self
    }
}

impl Decoder for DatagramCodec {
    type Item = Bytes;
    type Error = CodecError;

    /// The buffer holds one datagram: all of it is the message (`None` if it is empty).
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        if src.is_empty() {
            return Ok(None);
        }
        let datagram = src.split();
        if datagram.len() > self.max_datagram {
            return Err(too_large(
                datagram.len() as u64,
                self.max_datagram,
                0,
                "datagram",
            ));
        }
        Ok(Some(datagram.freeze()))
    }
}

impl Encoder<Bytes> for DatagramCodec {
    type Error = CodecError;

    fn encode(&mut self, msg: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode(&msg[..], dst)
    }
}

/// Encodes a message held elsewhere (copied into the datagram buffer).
impl Encoder<&[u8]> for DatagramCodec {
    type Error = CodecError;

    fn encode(&mut self, msg: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        if msg.len() > self.max_datagram {
            return Err(too_large(
                msg.len() as u64,
                self.max_datagram,
                0,
                "datagram",
            ));
        }
        dst.reserve(msg.len());
        dst.put_slice(msg);
        Ok(())
    }
}
