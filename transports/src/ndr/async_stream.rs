//! Connected mode on tokio: the async [`NdrWriter`](super::NdrWriter) and
//! [`NdrReader`](super::NdrReader), with the same rules (`connected`) and the same bytes on
//! the wire; frames are cut by [`NdrCodec`].

use std::io;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_util::codec::Decoder;
use wire_ndr::{message_from_body, prepare, Format, Receiver, Record};

use super::connected::{take_frame, SentFormats};
use super::invalid;
use crate::codec::NdrCodec;

/// Spare room the reader's buffer keeps before each read, before any frame head has come
/// (the codec grows it for a frame once the head has passed the cap).
const READ_CHUNK: usize = 8 * 1024;

/// Writes records to an async stream, each format description once, before its first record:
/// the bytes an [`NdrWriter`](super::NdrWriter) writes for the same sends. A record of a
/// padding-free, pointer-free type goes out from the value's own bytes (vectored writes when
/// the stream supports them); nothing is buffered between sends.
///
/// Not cancel-safe: a send dropped before it completes may have written part of a frame. The
/// writer remembers that, and every later send fails rather than write after half a frame;
/// a send that fails on an I/O error does the same. Such a stream should be closed.
///
/// ```
/// use transports::ndr::{AsyncNdrReader, AsyncNdrWriter};
/// use wire_ndr::{parse_message, ByteOrder, Format, IOField};
///
/// let f = Format::from_fields("tick", ByteOrder::Big, 8, &[IOField::new("seq", "integer", 8, 0)], &[])?;
/// let rt = tokio::runtime::Builder::new_current_thread().build()?;
/// rt.block_on(async {
///     let mut w = AsyncNdrWriter::new(Vec::new());
///     w.send_body(&f, &1u64.to_be_bytes()).await?;
///     w.send_body(&f, &2u64.to_be_bytes()).await?; // the format went out once, before the first record
///     let wire = w.into_inner();
///
///     let mut r = AsyncNdrReader::new(&wire[..]);
///     let first = r.next_message().await?.unwrap();
///     assert_eq!(parse_message(&first)?.body, &1u64.to_be_bytes());
///     assert_eq!(r.receiver().format(f.id()), Some(&f));
///     assert!(r.next_message().await?.is_some());
///     assert!(r.next_message().await?.is_none());
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncNdrWriter<W: AsyncWrite + Unpin> {
    w: W,
    sent: SentFormats,
    /// A send began and did not complete: the stream may hold part of a frame.
    broken: bool,
}

impl<W: AsyncWrite + Unpin> AsyncNdrWriter<W> {
    /// A writer that has sent no format yet.
    pub fn new(w: W) -> AsyncNdrWriter<W> {
        AsyncNdrWriter {
            w,
            sent: SentFormats::new(),
            broken: false,
        }
    }

    /// Sends `value`, preceded by its type's format if this stream has not carried it yet.
    pub async fn send<T: Record>(&mut self, value: &T) -> io::Result<()> {
        let out = prepare(value).map_err(invalid)?;
        let format = T::format();
        let frame = self.sent.frame_before(format);
        let head = frame.as_deref().unwrap_or(&[]);
        self.write_all([head, out.header(), out.body()]).await?;
        self.sent.sent(format.id());
        Ok(())
    }

    /// Sends a body already laid out in `format` (a forwarded or foreign record), preceded by
    /// the format if this stream has not carried it yet.
    pub async fn send_body(&mut self, format: &Format, body: &[u8]) -> io::Result<()> {
        let msg = message_from_body(format.id(), body).map_err(invalid)?;
        let frame = self.sent.frame_before(format);
        self.write_all([frame.as_deref().unwrap_or(&[]), &msg, &[]])
            .await?;
        self.sent.sent(format.id());
        Ok(())
    }

    /// Writes `parts` in order, whole, unless an earlier write broke off.
    async fn write_all(&mut self, [a, b, c]: [&[u8]; 3]) -> io::Result<()> {
        if self.broken {
            return Err(io::Error::other(
                "an earlier NDR send did not complete: the stream may end inside a frame",
            ));
        }
        self.broken = true;
        self.w.write_all_buf(&mut Buf::chain(a, b).chain(c)).await?;
        self.broken = false;
        Ok(())
    }

    /// Flushes the underlying writer.
    pub async fn flush(&mut self) -> io::Result<()> {
        self.w.flush().await
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Gives the underlying writer back.
    pub fn into_inner(self) -> W {
        self.w
    }
}

/// Reads an async NDR stream: registers each format description as it arrives and decodes
/// records with its [`Receiver`], as an [`NdrReader`](super::NdrReader) does. Frames are cut
/// by [`NdrCodec`]: a frame longer than the cap is refused at its head, before anything is
/// reserved for it, and the buffer grows with the data that arrives. The end of the stream
/// between two frames is `Ok(None)`; inside a frame it is an `UnexpectedEof` error.
///
/// [`next_message`](AsyncNdrReader::next_message), [`recv`](AsyncNdrReader::recv) and
/// [`recv_into`](AsyncNdrReader::recv_into) are cancel-safe: they wait only for more bytes,
/// which stay in the reader's buffer, and take a frame only when it is whole. A call dropped
/// before it returns loses nothing: the next call goes on where it stopped (formats that
/// arrived meanwhile are registered already), and `recv_into`'s `out` is left untouched.
///
/// Decoding is synchronous. A receiver given a blocking resolver (a
/// [`FormatClient`](super::FormatClient)) would block the runtime's thread while it asks;
/// in async code, resolve with an [`AsyncFormatClient`](super::AsyncFormatClient) before
/// decoding instead.
///
/// ```
/// use transports::ndr::{AsyncNdrReader, NdrWriter};
/// use wire_ndr::{ByteOrder, Format, IOField, Value};
///
/// let f = Format::from_fields("tick", ByteOrder::Little, 8, &[IOField::new("seq", "unsigned integer", 8, 0)], &[])?;
/// let mut w = NdrWriter::new(Vec::new());
/// w.send_body(&f, &7u64.to_le_bytes())?;
/// let wire = w.into_inner();
///
/// let rt = tokio::runtime::Builder::new_current_thread().build()?;
/// rt.block_on(async {
///     let mut r = AsyncNdrReader::new(&wire[..]);
///     r.set_max_frame(1 << 20);
///     let msg = r.next_message().await?.unwrap();
///     assert_eq!(r.receiver().decode_dynamic(&msg)?.get("seq"), Some(&Value::UInt(7)));
///     assert!(r.next_message().await?.is_none());
///
///     // Cut inside a frame: an error, not the end.
///     let mut cut = AsyncNdrReader::new(&wire[..wire.len() - 1]);
///     let e = cut.next_message().await.unwrap_err();
///     assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
///     Ok::<(), Box<dyn std::error::Error>>(())
/// })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncNdrReader<R: AsyncRead + Unpin> {
    r: R,
    buf: BytesMut,
    codec: NdrCodec,
    receiver: Receiver,
}

impl<R: AsyncRead + Unpin + core::fmt::Debug> core::fmt::Debug for AsyncNdrReader<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncNdrReader")
            .field("r", &self.r)
            .field("buffered", &self.buf.len())
            .field("codec", &self.codec)
            .field("receiver", &self.receiver)
            .finish()
    }
}

impl<R: AsyncRead + Unpin> AsyncNdrReader<R> {
    /// A reader with a new receiver and the default frame cap
    /// ([`DEFAULT_MAX_FRAME`](super::DEFAULT_MAX_FRAME)).
    pub fn new(r: R) -> AsyncNdrReader<R> {
        AsyncNdrReader::with_receiver(r, Receiver::new())
    }

    /// A reader that decodes with `receiver` (which may already know formats).
    pub fn with_receiver(r: R, receiver: Receiver) -> AsyncNdrReader<R> {
        AsyncNdrReader {
            r,
            buf: BytesMut::new(),
            codec: NdrCodec::new(),
            receiver,
        }
    }

    /// Caps the size of one frame, its head included.
    pub fn set_max_frame(&mut self, max: usize) {
        self.codec = self.codec.max_frame(max);
    }

    /// The receiver (its formats and plans).
    pub fn receiver(&mut self) -> &mut Receiver {
        &mut self.receiver
    }

    /// Reads frames up to the next record message and returns it (header included), or
    /// `None` at the end of the stream between frames. The message is the frame the codec
    /// cut, owned: it can be kept while the receiver is used (to decode it, say).
    pub async fn next_message(&mut self) -> io::Result<Option<Bytes>> {
        loop {
            match self.codec.decode(&mut self.buf).map_err(io::Error::from)? {
                Some(frame) => {
                    if take_frame(&mut self.receiver, &frame)? {
                        return Ok(Some(frame));
                    }
                }
                None => {
                    if !self.read_more().await? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The next record as a `T`, or `None` at the end of the stream.
    pub async fn recv<T: Record>(&mut self) -> io::Result<Option<T>> {
        let Some(msg) = self.next_message().await? else {
            return Ok(None);
        };
        self.receiver.decode::<T>(&msg).map(Some).map_err(invalid)
    }

    /// The next record into `out` (no large move when `T` is plain data); `false` at the end
    /// of the stream.
    pub async fn recv_into<T: Record>(&mut self, out: &mut T) -> io::Result<bool> {
        let Some(msg) = self.next_message().await? else {
            return Ok(false);
        };
        self.receiver
            .decode_into::<T>(&msg, out)
            .map(|()| true)
            .map_err(invalid)
    }

    /// Reads what the stream has into the buffer: `false` at its end between frames, an error
    /// at its end inside one.
    async fn read_more(&mut self) -> io::Result<bool> {
        if self.buf.capacity() - self.buf.len() < READ_CHUNK / 2 {
            self.buf.reserve(READ_CHUNK);
        }
        if self.r.read_buf(&mut self.buf).await? > 0 {
            return Ok(true);
        }
        if self.buf.is_empty() {
            return Ok(false);
        }
        Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the NDR stream ended inside a frame, {} bytes into it",
                self.buf.len()
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::{pin, Pin};
    use std::task::{Context, Poll, Waker};

    use wire_ndr::{ByteOrder, IOField};

    use super::*;

    /// Takes `room` bytes, then fails (`fail`) or never takes more (not `fail`).
    struct Stuck {
        room: usize,
        fail: bool,
        got: Vec<u8>,
    }

    impl AsyncWrite for Stuck {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            if self.room == 0 {
                return match self.fail {
                    true => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
                    false => Poll::Pending,
                };
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.got.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn tick() -> Format {
        Format::from_fields(
            "tick",
            ByteOrder::Big,
            8,
            &[IOField::new("seq", "integer", 8, 0)],
            &[],
        )
        .unwrap()
    }

    /// Polls `f` once, with a waker that does nothing.
    fn poll_once<F: Future>(f: F) -> Poll<F::Output> {
        pin!(f).poll(&mut Context::from_waker(Waker::noop()))
    }

    #[test]
    fn after_a_send_cut_short_every_send_fails() {
        let f = tick();
        // Dropped after half a frame went out.
        let mut w = AsyncNdrWriter::new(Stuck {
            room: 10,
            fail: false,
            got: Vec::new(),
        });
        assert!(poll_once(w.send_body(&f, &1u64.to_be_bytes())).is_pending());
        assert_eq!(w.get_ref().got.len(), 10);
        w.w.room = usize::MAX;
        let Poll::Ready(Err(e)) = poll_once(w.send_body(&f, &2u64.to_be_bytes())) else {
            panic!("a send after a dropped one went out");
        };
        assert!(e.to_string().contains("did not complete"), "{e}");
        assert_eq!(w.get_ref().got.len(), 10, "nothing more was written");

        // Failed on the socket: the error, then the same refusal.
        let mut w = AsyncNdrWriter::new(Stuck {
            room: 10,
            fail: true,
            got: Vec::new(),
        });
        let Poll::Ready(Err(e)) = poll_once(w.send_body(&f, &1u64.to_be_bytes())) else {
            panic!("a failed write succeeded");
        };
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        let Poll::Ready(Err(e)) = poll_once(w.send_body(&f, &2u64.to_be_bytes())) else {
            panic!("a send after a failed one went out");
        };
        assert!(e.to_string().contains("did not complete"), "{e}");
    }

    #[test]
    fn a_send_that_completes_leaves_the_writer_usable() {
        let f = tick();
        let mut w = AsyncNdrWriter::new(Vec::new());
        for seq in 0..3u64 {
            assert!(matches!(
                poll_once(w.send_body(&f, &seq.to_be_bytes())),
                Poll::Ready(Ok(()))
            ));
        }
        let mut blocking = super::super::NdrWriter::new(Vec::new());
        for seq in 0..3u64 {
            blocking.send_body(&f, &seq.to_be_bytes()).unwrap();
        }
        assert_eq!(w.into_inner(), blocking.into_inner());
    }
}
