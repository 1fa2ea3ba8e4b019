//! The read buffer of an async connection: the codecs cut frames from it, and it keeps
//! little memory for long. It grows with what arrives; once it has held a frame larger than
//! [`KEEP`] and is (nearly) empty again, what is left moves to a buffer of its own, so a
//! connection does not keep twice its largest message for the rest of its life.
//!
//! With a busy-poll budget ([`BusyPoll`]), a read that finds nothing tries again, yielding to
//! the runtime in between, for up to the budget before it waits for the socket: the worker
//! stays awake, where waiting would let its CPU halt and a reply arriving microseconds later
//! would first have to wake it (tens of microseconds on a VM whose idle vCPUs halt).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::net::tcp::OwnedReadHalf;
use tokio_util::codec::Decoder;

use crate::io_util::busy_budget;

/// Frames up to this size leave the buffer as it is.
const KEEP: usize = 64 * 1024;

/// At most this much left over moves to a fresh buffer after a large frame.
const LEFT_OVER: usize = 4 * 1024;

/// A busy-poll budget that its owner may change while connections read with it (a client's
/// setting reaches its reader task); off at first.
#[derive(Debug, Clone, Default)]
pub(crate) struct BusyPoll(Arc<AtomicU64>);

impl BusyPoll {
    /// A budget of `budget` (`None` or zero: off), at most
    /// [`MAX_BUSY_POLL`](crate::io_util::MAX_BUSY_POLL).
    pub(crate) fn new(budget: Option<Duration>) -> BusyPoll {
        let poll = BusyPoll::default();
        poll.set(budget);
        poll
    }

    pub(crate) fn set(&self, budget: Option<Duration>) {
        let nanos = busy_budget(budget).map_or(0, |b| b.as_nanos() as u64);
        self.0.store(nanos, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> Option<Duration> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            nanos => Some(Duration::from_nanos(nanos)),
        }
    }
}

/// A connection's read buffer.
#[derive(Debug)]
pub(crate) struct ReadBuf {
    buf: BytesMut,
    /// Spare room kept before each read.
    chunk: usize,
    /// A frame larger than [`KEEP`] was cut from `buf`.
    grown: bool,
    busy_poll: BusyPoll,
}

impl ReadBuf {
    /// An empty buffer that reads `chunk` bytes at a time at least, busy-polling as
    /// `busy_poll` says.
    pub(crate) fn new(chunk: usize, busy_poll: BusyPoll) -> ReadBuf {
        ReadBuf {
            buf: BytesMut::new(),
            chunk,
            grown: false,
            busy_poll,
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

    /// Reads what the socket has (0 at its end), busy-polling first if asked to.
    pub(crate) async fn read(&mut self, r: &mut OwnedReadHalf) -> io::Result<usize> {
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
        if let Some(budget) = self.busy_poll.get() {
            let start = Instant::now();
            loop {
                match r.try_read_buf(&mut self.buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    read => return read,
                }
                if start.elapsed() >= budget {
                    break;
                }
                // The task is woken again once the worker has polled for I/O events
                // without blocking: the worker does not park meanwhile.
                tokio::task::yield_now().await;
            }
        }
        tokio::io::AsyncReadExt::read_buf(r, &mut self.buf).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io_util::MAX_BUSY_POLL;

    #[test]
    fn a_budget_is_off_at_zero_and_capped() {
        assert_eq!(BusyPoll::default().get(), None);
        assert_eq!(BusyPoll::new(Some(Duration::ZERO)).get(), None);
        let b = BusyPoll::new(Some(Duration::from_micros(50)));
        assert_eq!(b.get(), Some(Duration::from_micros(50)));
        let shared = b.clone();
        b.set(Some(Duration::from_secs(5)));
        assert_eq!(shared.get(), Some(MAX_BUSY_POLL));
        b.set(None);
        assert_eq!(shared.get(), None);
    }
}
