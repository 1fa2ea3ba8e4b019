//! Socket plumbing shared by the protocols: vectored writes straight from the caller's
//! memory, and reads into a reused buffer.

use std::io::{self, IoSlice, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) use marshal_core::vectored::write_all_vectored;

use marshal_core::writer::Spill;
use marshal_core::Error;

/// Octet runs at least this long go to the socket where they lie instead of being copied
/// into the message buffer.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
pub(crate) const VECTORED_MIN: usize = 16 * 1024;

/// Largest single write. One `write` of a megabyte lets the kernel queue most of it before
/// pushing (it pushes mid-write only once half the window is unsent), so the receiver gets it
/// in a few late bursts; writes of this size each end in a push and keep both sides busy.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
const SEND_PIECE: usize = 512 * 1024;

/// A [`Spill`] that sends to a socket: each spill is one `writev` of the gathered bytes and
/// the large slice. An I/O error is kept for [`SocketSpill::outcome`], and is the source of
/// the error the encoder sees.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
pub(crate) struct SocketSpill<'s, W: Write> {
    socket: &'s mut W,
    io_error: Option<Arc<io::Error>>,
    /// Whether any part of the message went out.
    spilled: bool,
}

/// Why a message sent through a [`SocketSpill`] did not go out whole.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
#[derive(Debug)]
pub(crate) enum SpillError {
    /// The socket failed.
    Io(io::Error),
    /// The value did not encode; `sent` says whether part of the message had gone out.
    Marshal { error: Error, sent: bool },
}

#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
impl<'s, W: Write> SocketSpill<'s, W> {
    /// A spill to `socket`.
    pub(crate) fn new(socket: &'s mut W) -> Self {
        SocketSpill {
            socket,
            io_error: None,
            spilled: false,
        }
    }

    /// What the encoding that spilled here came to, `r` being its result: the socket's
    /// error if one stopped it, else the encoder's.
    #[inline]
    pub(crate) fn outcome(self, r: Result<(), Error>) -> Result<(), SpillError> {
        match r {
            Ok(()) => Ok(()),
            Err(error) => Err(self.failure(error)),
        }
    }

    /// The error of a message that did not go out whole. Cold and out of line.
    #[cold]
    #[inline(never)]
    fn failure(self, error: Error) -> SpillError {
        match self.io_error {
            Some(io) => {
                // The encoder's error shares the I/O error: dropped, the original comes back.
                drop(error);
                SpillError::Io(unshare(io))
            }
            None => SpillError::Marshal {
                error,
                sent: self.spilled,
            },
        }
    }
}

/// The I/O error in `shared`: the original if nothing else holds it, else one of the same
/// kind whose source it is.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
fn unshare(shared: Arc<io::Error>) -> io::Error {
    Arc::try_unwrap(shared).unwrap_or_else(|shared| io::Error::new(shared.kind(), shared))
}

impl<W: Write> Spill for SocketSpill<'_, W> {
    fn threshold(&self) -> usize {
        VECTORED_MIN
    }
    fn spill(&mut self, head: &[u8], large: &[u8]) -> Result<(), Error> {
        self.spilled |= !large.is_empty();
        let r = if large.len() <= SEND_PIECE.saturating_sub(head.len()) {
            write_all_vectored(self.socket, &mut [IoSlice::new(head), IoSlice::new(large)])
        } else {
            write_in_pieces(self.socket, head, large)
        };
        r.map_err(|e| self.failed(e))
    }
}

#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
impl<W: Write> SocketSpill<'_, W> {
    /// Keeps the socket's error `e` and returns the encoder's, whose source it is. Cold and
    /// out of line, so that the spill that succeeds carries none of it.
    #[cold]
    #[inline(never)]
    fn failed(&mut self, e: io::Error) -> Error {
        let what = format!("socket write failed: {e}");
        let e = Arc::new(e);
        self.io_error = Some(Arc::clone(&e));
        Error::io(what, e, None)
    }
}

/// Writes `head` and `large` in the pieces [`send_pieces`] says. Out of line: the common
/// spill is one `writev`, and this is the loop for messages larger than a piece.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
#[cold]
fn write_in_pieces(socket: &mut impl Write, head: &[u8], large: &[u8]) -> io::Result<()> {
    let (first, piece) = send_pieces(head.len(), large.len());
    let (first, rest) = large.split_at(first);
    write_all_vectored(socket, &mut [IoSlice::new(head), IoSlice::new(first)])?;
    rest.chunks(piece)
        .try_for_each(|piece| socket.write_all(piece))
}

/// How a spill of `head` and `large` bytes is cut into writes: `(first, piece)`, where the
/// first write carries `head` and `first` bytes of `large`, and the rest of `large` goes in
/// writes of `piece` bytes (the last one shorter by less than the number of writes). The
/// pieces are as equal as they can be and none exceeds [`SEND_PIECE`] (unless `head` alone
/// does), so no short write trails a long one: each write ends in a push, and a short last
/// one would cost a segment and a wake-up of its own.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
fn send_pieces(head: usize, large: usize) -> (usize, usize) {
    let total = head + large;
    let piece = total.div_ceil(total.div_ceil(SEND_PIECE).max(1)).max(1);
    (large.min(piece.saturating_sub(head)), piece)
}

/// Reads exactly `n` bytes into `buf[at..at + n]`, growing `buf` only as data arrives (at
/// most doubling what was received), so a peer that announces a large message and sends
/// little makes us hold little. `buf` keeps its length between calls, so steady-state reads
/// touch no new memory.
#[cfg_attr(not(any(feature = "iiop", feature = "ndr")), allow(dead_code))]
pub(crate) fn read_into(
    r: &mut impl Read,
    buf: &mut Vec<u8>,
    at: usize,
    n: usize,
) -> io::Result<()> {
    const FIRST: usize = 64 * 1024;
    let end = at + n;
    let mut filled = at;
    while filled < end {
        if buf.len() <= filled {
            let grow = (filled - at).max(FIRST);
            buf.resize(end.min(filled + grow), 0);
        }
        let stop = end.min(buf.len());
        filled += read_some(r, &mut buf[filled..stop])?;
    }
    Ok(())
}

/// The largest busy-poll budget of the blocking transports: a setting above it is taken as
/// this.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
pub(crate) const MAX_BUSY_POLL: Duration = Duration::from_millis(10);

/// A blocking socket's reads, busy-polling first when given a budget: a read that would wait
/// tries again without blocking (the socket switched to non-blocking for the while) until
/// data comes or the budget is spent, then waits as usual. The thread then stays on its CPU
/// for a reply that comes within the budget, instead of sleeping and having to be woken (on a
/// VM whose idle vCPUs halt, tens of microseconds each time), at the price of that CPU time.
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
pub(crate) struct BusyRead<'s> {
    pub(crate) stream: &'s TcpStream,
    pub(crate) budget: Option<Duration>,
}

impl Read for BusyRead<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut stream = self.stream;
        let Some(budget) = self.budget else {
            return stream.read(buf);
        };
        self.stream.set_nonblocking(true)?;
        let start = Instant::now();
        let polled = loop {
            match stream.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if start.elapsed() >= budget {
                        break None;
                    }
                    std::hint::spin_loop();
                }
                done => break Some(done),
            }
        };
        self.stream.set_nonblocking(false)?;
        match polled {
            Some(done) => done,
            None => stream.read(buf),
        }
    }
}

/// `budget` as a busy-poll setting: `None` for zero, at most [`MAX_BUSY_POLL`].
#[cfg_attr(not(any(feature = "iiop", feature = "xdr")), allow(dead_code))]
pub(crate) fn busy_budget(budget: Option<Duration>) -> Option<Duration> {
    budget
        .filter(|b| !b.is_zero())
        .map(|b| b.min(MAX_BUSY_POLL))
}

/// One read into `room` (not empty) that brought at least one byte: interrupted reads are
/// retried, and the end of the stream is `UnexpectedEof` (the caller wanted more).
#[cfg_attr(not(any(feature = "iiop", feature = "ndr")), allow(dead_code))]
pub(crate) fn read_some(r: &mut impl Read, room: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(room) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(k) => return Ok(k),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connected pair of loopback TCP streams.
    fn pair() -> (TcpStream, TcpStream) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (b, _) = listener.accept().unwrap();
        (a, b)
    }

    #[test]
    fn busy_reads_take_what_comes_within_and_after_the_budget_and_then_block_again() {
        let (a, mut b) = pair();
        let mut buf = [0u8; 8];
        // Data already there, and data that comes within the budget.
        b.write_all(b"now").unwrap();
        let budget = Some(Duration::from_millis(200));
        let mut r = BusyRead { stream: &a, budget };
        assert_eq!(r.read(&mut buf).unwrap(), 3);
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            b.write_all(b"soon").unwrap();
            std::thread::sleep(Duration::from_millis(300));
            b.write_all(b"later").unwrap();
            b
        });
        let n = r.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"soon");
        // Past the budget the read blocks until the data comes.
        let n = r.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"later");
        let _b = writer.join().unwrap();
        // The socket is blocking again: a read with a timeout waits for it.
        a.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let start = Instant::now();
        assert!((&a).read(&mut buf).is_err());
        assert!(
            start.elapsed() >= Duration::from_millis(90),
            "{:?}",
            start.elapsed()
        );
        // Without a budget, reads are the socket's own.
        let mut plain = BusyRead {
            stream: &a,
            budget: None,
        };
        assert!(plain.read(&mut buf).is_err());
        assert_eq!(busy_budget(Some(Duration::ZERO)), None);
        assert_eq!(
            busy_budget(Some(Duration::from_secs(1))),
            Some(MAX_BUSY_POLL)
        );
    }

    #[test]
    fn spills_go_out_in_equal_pieces() {
        for (head, large) in [
            (0, 0),
            (60, 16 << 10),
            (60, 1 << 20),
            (28, (1 << 20) + 1),
            (0, SEND_PIECE),
            (12, 4 << 20),
            (SEND_PIECE + 5, 100),
        ] {
            let (first, piece) = send_pieces(head, large);
            let mut writes = vec![head + first];
            writes.extend(
                (first..large)
                    .step_by(piece)
                    .map(|at| piece.min(large - at)),
            );
            assert_eq!(writes.iter().sum::<usize>(), head + large);
            let (lo, hi) = (writes.iter().min().unwrap(), writes.iter().max().unwrap());
            if head <= SEND_PIECE {
                assert!(*hi <= SEND_PIECE, "{head} {large}: {writes:?}");
                assert!(hi - lo < writes.len(), "{head} {large}: {writes:?}");
            }
            assert_eq!(
                writes.len(),
                (head + large).div_ceil(SEND_PIECE).max(1),
                "{head} {large}: {writes:?}"
            );
        }
    }
}
