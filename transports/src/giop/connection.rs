//! One GIOP connection: framing of received messages (with fragment reassembly) and sending
//! of measured messages with vectored writes.

use std::cell::Cell;
use std::io;
use std::net::TcpStream;
use std::time::Duration;

use marshal_core::arriving::{Arriving, Refill};
use marshal_core::writer::write_spilling;
use wire_iiop::giop::{
    measure, write, Message, MessageHead, MessageHeader, MsgType, Reassembler, Version, HEADER_LEN,
};
use wire_iiop::{ByteOrder, Encode};

use crate::io_util::{read_into, read_some, BusyRead, SocketSpill, SpillError};

/// Why no message came.
#[derive(Debug)]
pub(crate) enum RecvError {
    /// The socket failed or closed.
    Io(io::Error),
    /// The peer sent something that is not GIOP, or exceeded a cap.
    Protocol(marshal_core::Error),
}

/// Why a message was not sent.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The socket failed; the connection is unusable.
    Io(io::Error),
    /// The value did not encode. `sent` says whether part of the message had already gone
    /// out (large parts are sent as they are reached), which breaks the connection.
    Marshal {
        error: marshal_core::Error,
        sent: bool,
    },
}

/// The receiving half.
#[derive(Debug)]
pub(crate) struct Rx {
    stream: TcpStream,
    buf: Vec<u8>,
    reassembler: Reassembler,
    assembled: Vec<u8>,
    max_message: usize,
    /// `buf[..have]` came from the socket; the message last handed out took `buf[..taken]`,
    /// and what follows it is the start of the next one (a read takes whatever has arrived).
    have: usize,
    taken: usize,
    /// Of the message last handed out as arriving: its length, and (in the cell the
    /// `Arriving` advances) how much of it has been read from the socket.
    arriving_len: usize,
    filled: Cell<usize>,
    /// Where the message last handed out lies.
    last: Last,
    /// How long a wait for the next message busy-polls.
    busy_poll: Option<Duration>,
}

/// Where the message [`Rx::receive`] handed out last lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// None (or a receive failed since).
    None,
    /// `buf[..taken]` (its tail still arriving while `arriving_len` is set).
    Buf,
    /// `assembled`: reassembled from fragments.
    Assembled,
}

/// A received message: whole, or arriving (its header has come and the rest is read as it is
/// decoded).
#[derive(Debug)]
pub(crate) enum Incoming<'a> {
    Whole(&'a [u8]),
    Arriving(Arriving<'a, &'a TcpStream>),
}

impl Incoming<'_> {
    /// Parses the message (an arriving one as far as its headers).
    pub(crate) fn parse(&self) -> Result<Message<'_>, marshal_core::Error> {
        match self {
            Incoming::Whole(bytes) => Message::parse(bytes),
            Incoming::Arriving(more) => Message::parse_arriving(more),
        }
    }

    /// Whose failure a decode error `e` of this message is: the transport's (the I/O error
    /// that stopped an arriving message, if one did: the connection has then lost its
    /// framing), or the decoder's.
    pub(crate) fn blame(&self, e: marshal_core::Error) -> Result<io::Error, marshal_core::Error> {
        let Incoming::Arriving(more) = self else {
            return Err(e);
        };
        if more.io_error().is_none() {
            return Err(e);
        }
        // `e` may share the I/O error: dropped first, the original comes back.
        drop(e);
        Ok(more.take_io_error().expect("an I/O error was kept"))
    }
}

/// The sending half.
#[derive(Debug)]
pub(crate) struct Tx {
    stream: TcpStream,
    scratch: Vec<u8>,
}

/// Splits a connected stream into its halves.
pub(crate) fn split(stream: TcpStream, max_message: usize) -> io::Result<(Rx, Tx)> {
    stream.set_nodelay(true)?;
    let tx = Tx {
        stream: stream.try_clone()?,
        scratch: Vec::new(),
    };
    let rx = Rx {
        stream,
        buf: Vec::new(),
        reassembler: Reassembler::with_caps(max_message, wire_iiop::giop::DEFAULT_MAX_FRAGMENTS),
        assembled: Vec::new(),
        max_message,
        have: 0,
        taken: 0,
        arriving_len: 0,
        filled: Cell::new(0),
        last: Last::None,
        busy_poll: None,
    };
    Ok((rx, tx))
}

impl Rx {
    /// How long a wait for the next message busy-polls before it blocks (`None`: not at
    /// all); see [`BusyRead`].
    pub(crate) fn set_busy_poll(&mut self, budget: Option<Duration>) {
        self.busy_poll = budget;
    }

    /// Reads the next message. One read takes whatever has arrived, up to the buffer's
    /// length, so a message that is all there costs one system call, and bytes of the next
    /// message stay for the next call. When the buffer has room for the whole message (it
    /// keeps the size of the largest so far) but part is still to come, the message is handed
    /// out to be decoded as it arrives; otherwise its rest is read first, so that the buffer
    /// grows only with bytes that came (and fragments are reassembled).
    pub(crate) fn receive(&mut self) -> Result<Incoming<'_>, RecvError> {
        self.last = Last::None;
        self.finish_arriving().map_err(RecvError::Io)?;
        loop {
            self.next_header().map_err(RecvError::Io)?;
            let head: &[u8; HEADER_LEN] = self.buf[..HEADER_LEN].try_into().expect("12 bytes");
            let h = MessageHeader::parse(head).map_err(RecvError::Protocol)?;
            let size = h.size as usize;
            if size > self.max_message {
                return Err(RecvError::Protocol(marshal_core::Error::new(
                    marshal_core::ErrorKind::LengthTooLarge {
                        len: size as u64,
                        max: self.max_message as u64,
                    },
                    8,
                )));
            }
            let whole = !h.more_fragments && h.msg_type != MsgType::Fragment;
            let len = HEADER_LEN + size;
            self.taken = len;
            if self.have < len {
                if whole && self.buf.len() >= len {
                    self.arriving_len = len;
                    self.filled.set(self.have);
                    self.last = Last::Buf;
                    let more = Arriving::new(&mut self.buf[..len], &self.filled, &self.stream);
                    return Ok(Incoming::Arriving(more));
                }
                read_into(&mut self.stream, &mut self.buf, self.have, len - self.have)
                    .map_err(RecvError::Io)?;
                self.have = len;
            }
            if whole {
                // The common case: no copy.
                self.last = Last::Buf;
                return Ok(Incoming::Whole(&self.buf[..len]));
            }
            let fragment = self.buf[..len].to_vec();
            if let Some(whole) = self
                .reassembler
                .push(fragment)
                .map_err(RecvError::Protocol)?
            {
                self.assembled = whole;
                self.last = Last::Assembled;
                return Ok(Incoming::Whole(&self.assembled));
            }
        }
    }

    /// The message last handed out, as far as it has arrived (empty if none was, or a
    /// receive failed since).
    pub(crate) fn last(&self) -> &[u8] {
        match self.last {
            Last::None => &[],
            Last::Buf if self.arriving_len > 0 => {
                &self.buf[..self.filled.get().min(self.arriving_len)]
            }
            Last::Buf => &self.buf[..self.taken],
            Last::Assembled => &self.assembled,
        }
    }

    /// The whole message last handed out: the rest of an arriving one is read first.
    pub(crate) fn last_whole(&mut self) -> io::Result<&[u8]> {
        if let Err(e) = self.finish_arriving() {
            self.last = Last::None;
            return Err(e);
        }
        Ok(self.last())
    }

    /// Drops the message last handed out and reads until a whole header is at the start of
    /// the buffer.
    fn next_header(&mut self) -> io::Result<()> {
        let taken = core::mem::take(&mut self.taken);
        self.buf.copy_within(taken..self.have, 0);
        self.have -= taken;
        if self.buf.len() < HEADER_LEN {
            self.buf.resize(HEADER_LEN, 0);
        }
        // Waiting for the next message: the one read that busy-polls.
        let mut input = BusyRead {
            stream: &self.stream,
            budget: self.busy_poll,
        };
        while self.have < HEADER_LEN {
            self.have += read_some(&mut input, &mut self.buf[self.have..])?;
        }
        Ok(())
    }

    /// Reads (and drops) what the decoder left of the last arriving message, so that the
    /// next read starts at a message header.
    fn finish_arriving(&mut self) -> io::Result<()> {
        let len = core::mem::take(&mut self.arriving_len);
        if len == 0 {
            return Ok(());
        }
        let at = self.filled.get().min(len);
        if at < len {
            read_into(&mut self.stream, &mut self.buf, at, len - at)?;
        }
        self.have = len;
        Ok(())
    }
}

impl Tx {
    /// Measures and sends one message. Octet runs of at least
    /// [`VECTORED_MIN`](crate::io_util::VECTORED_MIN) bytes go out with `writev` from where
    /// they lie in `body`.
    pub(crate) fn send<'a, H: MessageHead<'a>, B: Encode + ?Sized>(
        &mut self,
        version: Version,
        order: ByteOrder,
        head: &H,
        body: &B,
    ) -> Result<(), SendError> {
        let layout = measure(version, head, body)
            .map_err(|error| SendError::Marshal { error, sent: false })?;
        let mut spill = SocketSpill::new(&mut self.stream);
        let r = write_spilling(&mut self.scratch, layout.len, &mut spill, |w| {
            write(w, layout, version, order, head, body)
        });
        // Keep the scratch buffer from growing without bound after one huge message.
        if self.scratch.capacity() > 1 << 20 {
            self.scratch = Vec::new();
        }
        spill.outcome(r).map_err(|e| match e {
            SpillError::Io(e) => SendError::Io(e),
            SpillError::Marshal { error, sent } => SendError::Marshal { error, sent },
        })
    }

    /// The socket.
    pub(crate) fn stream(&self) -> &TcpStream {
        &self.stream
    }
}
