//! One GIOP connection: framing of received messages (with fragment reassembly) and sending
//! of measured messages with vectored writes.

use std::io;
use std::net::TcpStream;

use marshal_core::writer::write_spilling;
use wire_iiop::giop::{
    measure, write, MessageHead, MessageHeader, MsgType, Reassembler, Version, HEADER_LEN,
};
use wire_iiop::{ByteOrder, Encode};

use crate::io_util::{read_into, SocketSpill};

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
    };
    Ok((rx, tx))
}

impl Rx {
    /// Reads until one whole message is there (reassembling fragments) and returns it.
    pub(crate) fn receive(&mut self) -> Result<&[u8], RecvError> {
        loop {
            read_into(&mut self.stream, &mut self.buf, 0, HEADER_LEN).map_err(RecvError::Io)?;
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
            read_into(&mut self.stream, &mut self.buf, HEADER_LEN, size).map_err(RecvError::Io)?;
            let msg = &self.buf[..HEADER_LEN + size];
            if !h.more_fragments && h.msg_type != MsgType::Fragment {
                // The common case: no copy.
                let n = msg.len();
                return Ok(&self.buf[..n]);
            }
            if let Some(whole) = self
                .reassembler
                .push(msg.to_vec())
                .map_err(RecvError::Protocol)?
            {
                self.assembled = whole;
                return Ok(&self.assembled);
            }
        }
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
        let mut spill = SocketSpill {
            socket: &mut self.stream,
            io_error: None,
            spilled: false,
        };
        let r = write_spilling(&mut self.scratch, layout.len, &mut spill, |w| {
            write(w, layout, version, order, head, body)
        });
        // Keep the scratch buffer from growing without bound after one huge message.
        if self.scratch.capacity() > 1 << 20 {
            self.scratch = Vec::new();
        }
        match (r, spill.io_error) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(e)) => Err(SendError::Io(e)),
            (Err(error), None) => Err(SendError::Marshal {
                error,
                sent: spill.spilled,
            }),
        }
    }

    /// The socket.
    pub(crate) fn stream(&self) -> &TcpStream {
        &self.stream
    }
}
