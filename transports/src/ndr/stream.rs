//! Connected mode: NDR record streams that carry their own format descriptions.

use std::io::{self, IoSlice, Read, Write};

use marshal_core::vectored::write_all_vectored;
use wire_ndr::{frame_len, prepare, Format, Receiver, Record, DEFAULT_MAX_FRAME, FRAME_HEAD_LEN};

use super::connected::{take_frame, SentFormats};
use super::invalid;
use crate::io_util::read_into;

/// Writes records to a stream, each format description once, before its first record.
/// Records of padding-free, pointer-free types go out with one vectored write of the header
/// and the value's own bytes.
///
/// ```
/// use transports::ndr::{NdrReader, NdrWriter};
/// use wire_ndr::{parse_message, ByteOrder, Format, IOField};
///
/// let f = Format::from_fields("tick", ByteOrder::Big, 8, &[IOField::new("seq", "integer", 8, 0)], &[])?;
/// let mut w = NdrWriter::new(Vec::new());
/// w.send_body(&f, &1u64.to_be_bytes())?;
/// w.send_body(&f, &2u64.to_be_bytes())?; // the format went out once, before the first record
/// let wire = w.into_inner();
///
/// let mut r = NdrReader::new(&wire[..]);
/// let first = r.next_message()?.unwrap().to_vec();
/// assert_eq!(parse_message(&first)?.body, &1u64.to_be_bytes());
/// assert_eq!(r.receiver().format(f.id()), Some(&f));
/// assert!(r.next_message()?.is_some());
/// assert!(r.next_message()?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct NdrWriter<W: Write> {
    w: W,
    sent: SentFormats,
}

impl<W: Write> NdrWriter<W> {
    /// A writer that has sent no format yet.
    pub fn new(w: W) -> NdrWriter<W> {
        NdrWriter {
            w,
            sent: SentFormats::new(),
        }
    }

    /// Sends `value`, preceded by its type's format if this stream has not carried it yet.
    pub fn send<T: Record>(&mut self, value: &T) -> io::Result<()> {
        let out = prepare(value).map_err(invalid)?;
        let format = T::format();
        let frame = self.sent.frame_before(format);
        let [h, b] = out.io_slices();
        // An empty first slice is skipped: no empty iovec reaches the socket.
        let mut bufs = [IoSlice::new(frame.as_deref().unwrap_or(&[])), h, b];
        write_all_vectored(&mut self.w, &mut bufs)?;
        self.sent.sent(format.id());
        Ok(())
    }

    /// Sends a body already laid out in `format` (a forwarded or foreign record), preceded by
    /// the format if this stream has not carried it yet.
    pub fn send_body(&mut self, format: &Format, body: &[u8]) -> io::Result<()> {
        let msg = wire_ndr::message_from_body(format.id(), body).map_err(invalid)?;
        let frame = self.sent.frame_before(format);
        let mut bufs = [
            IoSlice::new(frame.as_deref().unwrap_or(&[])),
            IoSlice::new(&msg),
        ];
        write_all_vectored(&mut self.w, &mut bufs)?;
        self.sent.sent(format.id());
        Ok(())
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
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

/// Reads an NDR stream: registers each format description as it arrives and decodes
/// records with its [`Receiver`]. A frame longer than the cap is refused before anything is
/// allocated for it; a record whose format the stream has not carried is an error (the
/// reader never asks anyone).
#[derive(Debug)]
pub struct NdrReader<R: Read> {
    r: R,
    buf: Vec<u8>,
    /// Length of the frame in `buf`.
    len: usize,
    receiver: Receiver,
    max_frame: usize,
}

impl<R: Read> NdrReader<R> {
    /// A reader with a new receiver and the default frame cap.
    pub fn new(r: R) -> NdrReader<R> {
        NdrReader::with_receiver(r, Receiver::new())
    }

    /// A reader that decodes with `receiver` (which may already know formats, or resolve).
    pub fn with_receiver(r: R, receiver: Receiver) -> NdrReader<R> {
        NdrReader {
            r,
            buf: Vec::new(),
            len: 0,
            receiver,
            max_frame: DEFAULT_MAX_FRAME,
        }
    }

    /// Caps the size of one frame.
    pub fn set_max_frame(&mut self, max: usize) {
        self.max_frame = max;
    }

    /// The receiver (its formats and plans).
    pub fn receiver(&mut self) -> &mut Receiver {
        &mut self.receiver
    }

    /// Reads frames up to the next record message and returns it (header included), or
    /// `None` at the end of the stream between frames.
    pub fn next_message(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            let mut head = [0u8; FRAME_HEAD_LEN];
            if !read_head(&mut self.r, &mut head)? {
                return Ok(None);
            }
            let len = frame_len(&head).map_err(invalid)?;
            if len > self.max_frame {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "NDR frame of {len} bytes exceeds the cap of {}",
                        self.max_frame
                    ),
                ));
            }
            // `buf` keeps its length between frames, so steady-state reads touch no new
            // memory; it grows only as data arrives.
            if self.buf.len() < FRAME_HEAD_LEN {
                self.buf.resize(FRAME_HEAD_LEN, 0);
            }
            self.buf[..FRAME_HEAD_LEN].copy_from_slice(&head);
            read_into(
                &mut self.r,
                &mut self.buf,
                FRAME_HEAD_LEN,
                len - FRAME_HEAD_LEN,
            )?;
            self.len = len;
            if take_frame(&mut self.receiver, &self.buf[..len])? {
                return Ok(Some(&self.buf[..len]));
            }
        }
    }

    /// The next record as a `T`, or `None` at the end of the stream.
    pub fn recv<T: Record>(&mut self) -> io::Result<Option<T>> {
        if self.next_message()?.is_none() {
            return Ok(None);
        }
        self.receiver
            .decode::<T>(&self.buf[..self.len])
            .map(Some)
            .map_err(invalid)
    }

    /// The next record into `out` (no large move when `T` is plain data); `false` at the end
    /// of the stream.
    pub fn recv_into<T: Record>(&mut self, out: &mut T) -> io::Result<bool> {
        if self.next_message()?.is_none() {
            return Ok(false);
        }
        self.receiver
            .decode_into::<T>(&self.buf[..self.len], out)
            .map(|()| true)
            .map_err(invalid)
    }
}

/// Reads a frame head; `false` at a clean end of stream before its first byte.
fn read_head(r: &mut impl Read, head: &mut [u8; FRAME_HEAD_LEN]) -> io::Result<bool> {
    let mut got = 0;
    while got < head.len() {
        match r.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}
