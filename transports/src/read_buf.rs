//! The read buffer of an async connection: the codecs cut frames from it, and it keeps
//! little memory for long. It grows with what arrives; once it has held a frame larger than
//! [`KEEP`] and is (nearly) empty again, what is left moves to a buffer of its own, so a
//! connection does not keep twice its largest message for the rest of its life.

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::codec::Decoder;

/// Frames up to this size leave the buffer as it is.
const KEEP: usize = 64 * 1024;

/// At most this much left over moves to a fresh buffer after a large frame.
const LEFT_OVER: usize = 4 * 1024;

/// A connection's read buffer.
#[derive(Debug)]
pub(crate) struct ReadBuf {
    buf: BytesMut,
    /// Spare room kept before each read.
    chunk: usize,
    /// A frame larger than [`KEEP`] was cut from `buf`.
    grown: bool,
}

impl ReadBuf {
    /// An empty buffer that reads `chunk` bytes at a time at least.
    pub(crate) fn new(chunk: usize) -> ReadBuf {
        ReadBuf {
            buf: BytesMut::new(),
            chunk,
            grown: false,
        }
    }

    /// The next whole frame `codec` cuts from what has arrived, if any.
    pub(crate) fn decode<D: Decoder<Item = bytes::Bytes>>(
        &mut self,
        codec: &mut D,
    ) -> Result<Option<bytes::Bytes>, D::Error> {
        let frame = codec.decode(&mut self.buf)?;
        if let Some(f) = &frame {
            self.grown |= f.len() > KEEP;
        }
        Ok(frame)
    }

    /// Reads what the socket has (0 at its end).
    pub(crate) async fn read<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> std::io::Result<usize> {
        if self.grown && self.buf.len() <= LEFT_OVER {
            // What is left (part of a frame, at the same offsets for the codec) moves to a
            // buffer of its own; the frames cut from the old one keep its memory until they
            // are dropped.
            self.buf = BytesMut::from(&self.buf[..]);
            self.grown = false;
        }
        if self.buf.capacity() - self.buf.len() < self.chunk / 2 {
            self.buf.reserve(self.chunk);
        }
        r.read_buf(&mut self.buf).await
    }
}
