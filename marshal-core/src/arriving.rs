//! Decoding a message while it arrives.
//!
//! A large message read whole and then decoded leaves both halves idle in turn: the receiver
//! sleeps through the transfer, is woken for every batch of segments, and then decodes a
//! buffer that has left the cache. A [`Reader`](crate::Reader) built with
//! [`Reader::arriving`](crate::Reader::arriving) decodes what has arrived and asks its
//! [`Refill`] for more only when the next value runs past it: its hot paths are the same
//! length checks as over a whole slice, and only the cold path that used to report the end
//! of the input waits for bytes. Large flat sequences are decoded a piece at a time as the
//! pieces arrive, so receiving and decoding overlap.
//!
//! [`Arriving`] is the `Refill` for a message whose length is known (from a framing header)
//! and whose bytes come from a [`Read`] into a buffer that already has room for all of them.
//! Values decoded earlier keep borrowing the bytes already there while later bytes are read
//! into the rest of the buffer.

use core::cell::{Cell, RefCell};
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::io::{self, Read};
use std::sync::Arc;

use crate::error::Error;

/// Where the rest of an arriving message comes from. Offsets count from the start of the
/// message.
pub trait Refill {
    /// The length of the whole message, arrived or not.
    fn message_len(&self) -> usize;
    /// The bytes that have arrived so far (a prefix of the message).
    fn arrived(&self) -> &[u8];
    /// Waits until at least `end` bytes (at most [`Refill::message_len`]) have arrived, and returns
    /// every byte that has. Reads may bring in more than asked for.
    fn fill(&self, end: usize) -> Result<&[u8], Error>;
    /// The I/O error that stopped the message, if one did: the errors of a decoder that ran
    /// out of input report it as their source. None by default.
    fn io_error(&self) -> Option<Arc<io::Error>> {
        None
    }
}

impl core::fmt::Debug for dyn Refill + '_ {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Refill")
            .field("message_len", &self.message_len())
            .field("arrived", &self.arrived().len())
            .finish()
    }
}

/// Largest read beyond what a decoder asked for: what a read brings in is decoded next, while
/// it is still in the cache.
pub const READ_AHEAD: usize = 64 * 1024;

/// A message of known length arriving from `R` into a buffer that has room for all of it.
///
/// ```
/// use marshal_core::arriving::Arriving;
/// use marshal_core::Reader;
/// use std::cell::Cell;
///
/// // Two u32s, big-endian, delivered by a reader that returns one byte per call.
/// struct Trickle<'a>(&'a [u8]);
/// impl std::io::Read for Trickle<'_> {
///     fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
///         let n = buf.len().min(self.0.len()).min(1);
///         buf[..n].copy_from_slice(&self.0[..n]);
///         self.0 = &self.0[n..];
///         Ok(n)
///     }
/// }
/// let mut buf = [0u8; 8];
/// let filled = Cell::new(0);
/// let arriving = Arriving::new(&mut buf, &filled, Trickle(&[0, 0, 0, 7, 0, 0, 0, 9]));
/// let mut r = Reader::arriving(&arriving, 0);
/// assert_eq!(r.array::<4>()?, [0, 0, 0, 7]);
/// assert_eq!(r.array::<4>()?, [0, 0, 0, 9]);
/// r.finish()?;
/// assert_eq!(filled.get(), 8);
/// # Ok::<(), marshal_core::Error>(())
/// ```
pub struct Arriving<'a, R> {
    /// Start of the buffer, exclusively borrowed for `'a`; `len` bytes, all initialised.
    start: NonNull<u8>,
    len: usize,
    /// Bytes `[0, filled)` have arrived and are never written again; `[filled, len)` are
    /// written only by `fill`, through `start`.
    filled: &'a Cell<usize>,
    source: RefCell<R>,
    /// The first I/O error, kept for the caller and shared with the decoder's errors.
    io_error: RefCell<Option<Arc<io::Error>>>,
    _buf: PhantomData<&'a mut [u8]>,
}

impl<R> core::fmt::Debug for Arriving<'_, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Arriving")
            .field("len", &self.len)
            .field("filled", &self.filled.get())
            .finish()
    }
}

impl<'a, R: Read> Arriving<'a, R> {
    /// A message that takes all of `buf`, whose first `filled` bytes have already arrived; the
    /// rest comes from `source`. `filled` is a cell the caller keeps, so that it knows, when
    /// the decoder is done, how much of the message is still in `source`.
    ///
    /// # Panics
    /// If `filled` exceeds `buf.len()`.
    pub fn new(buf: &'a mut [u8], filled: &'a Cell<usize>, source: R) -> Self {
        assert!(
            filled.get() <= buf.len(),
            "more arrived than the buffer holds"
        );
        Arriving {
            len: buf.len(),
            start: NonNull::from(buf).cast::<u8>(),
            filled,
            source: RefCell::new(source),
            io_error: RefCell::new(None),
            _buf: PhantomData,
        }
    }

    /// Reads the rest of the message, then returns all of it.
    pub fn fill_all(&self) -> Result<&'a [u8], Error> {
        self.fill_to(self.len)
    }

    /// The first I/O error a read met, if any (the end of the source counts, as
    /// `UnexpectedEof`): a decoder that failed because of it failed for the transport.
    ///
    /// The decoder's errors hold the same error as their source: once they are dropped this
    /// is the original; while one lives, an error of the same kind that has it as its source.
    pub fn take_io_error(&self) -> Option<io::Error> {
        let shared = self.io_error.borrow_mut().take()?;
        Some(Arc::try_unwrap(shared).unwrap_or_else(|shared| io::Error::new(shared.kind(), shared)))
    }

    fn arrived_slice(&self) -> &'a [u8] {
        // SAFETY: `start` points at `len` initialised bytes exclusively borrowed for `'a`
        // (`new`), and `filled <= len`. Bytes `[0, filled)` are never written again: `fill_to`
        // only writes `[filled, len)` and only ever raises `filled`. So a shared slice of
        // them may live for `'a` beside the writes to the bytes after them.
        unsafe { core::slice::from_raw_parts(self.start.as_ptr(), self.filled.get()) }
    }

    fn fill_to(&self, end: usize) -> Result<&'a [u8], Error> {
        let end = end.min(self.len);
        let mut source = self.source.borrow_mut();
        while self.filled.get() < end {
            let at = self.filled.get();
            let stop = self.len.min(end.saturating_add(READ_AHEAD));
            // SAFETY: `at < len`, so the offset stays inside the buffer `new` was given.
            let room_start = unsafe { self.start.as_ptr().add(at) };
            // SAFETY: `at < stop <= len`, so the slice lies inside that buffer, initialised
            // and exclusively ours for `'a`. No shared slice covers it: those handed out cover
            // `[0, filled)` and `filled == at`. It lives only for this read, and `R::read`
            // cannot reach this `Arriving` (it has no reference to it).
            let room = unsafe { core::slice::from_raw_parts_mut(room_start, stop - at) };
            match source.read(room) {
                Ok(0) => return Err(self.ended(None)),
                // A reader claiming more than it was given is not trusted with the count.
                Ok(k) if k <= stop - at => self.filled.set(at + k),
                Ok(_) => {
                    let e = io::Error::other("read reported more bytes than its buffer");
                    return Err(self.ended(Some(e)));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.ended(Some(e))),
            }
        }
        Ok(self.arrived_slice())
    }

    /// The error for a read that failed (`Some`) or met the end of the source (`None`); the
    /// I/O error is kept for [`Arriving::take_io_error`].
    #[cold]
    fn ended(&self, e: Option<io::Error>) -> Error {
        let at = self.filled.get();
        let why = match &e {
            Some(e) => format!("the message stopped arriving: {e}"),
            None => "the connection closed in the middle of the message".to_owned(),
        };
        let e = e.unwrap_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, why.clone()));
        let kept = Arc::clone(
            self.io_error
                .borrow_mut()
                .get_or_insert_with(|| Arc::new(e)),
        );
        Error::io(why, kept, Some(at))
    }
}

impl<R: Read> Refill for Arriving<'_, R> {
    fn message_len(&self) -> usize {
        self.len
    }
    fn arrived(&self) -> &[u8] {
        self.arrived_slice()
    }
    fn fill(&self, end: usize) -> Result<&[u8], Error> {
        self.fill_to(end)
    }
    fn io_error(&self) -> Option<Arc<io::Error>> {
        self.io_error.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorKind, Flat, Reader};

    /// Delivers `data` in reads of at most `step` bytes.
    struct Trickle<'d> {
        data: &'d [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.data.len()).min(self.step);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn borrowed_bytes_stay_put_while_later_ones_arrive() {
        let data: Vec<u8> = (0..=255).collect();
        for step in [1, 3, 64, 1000] {
            let mut buf = vec![0u8; data.len()];
            let filled = Cell::new(5);
            buf[..5].copy_from_slice(&data[..5]);
            let arriving = Arriving::new(
                &mut buf,
                &filled,
                Trickle {
                    data: &data[5..],
                    step,
                },
            );
            let mut r = Reader::arriving(&arriving, 0);
            let first = r.take(10).unwrap();
            let rest = r.take(246).unwrap();
            assert_eq!(first, &data[..10]);
            assert_eq!(rest, &data[10..]);
            r.finish().unwrap();
            assert_eq!(filled.get(), 256);
        }
    }

    #[test]
    fn flat_sequences_arrive_in_pieces() {
        let words: Vec<u32> = (0..10_000).collect();
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        for step in [1, 7, 4096] {
            let mut buf = vec![0u8; data.len()];
            let filled = Cell::new(0);
            let arriving = Arriving::new(&mut buf, &filled, Trickle { data: &data, step });
            let mut r = Reader::arriving(&arriving, 0);
            let swap = cfg!(target_endian = "little");
            let v: Vec<u32> = r.flat_vec(10_000, Flat::<u32>::PRIMITIVE, swap).unwrap();
            assert_eq!(v, words);
            r.finish().unwrap();
        }
    }

    #[test]
    fn a_message_cut_short_is_an_error_not_a_hang() {
        let mut buf = vec![0u8; 16];
        let filled = Cell::new(0);
        let arriving = Arriving::new(
            &mut buf,
            &filled,
            Trickle {
                data: &[1, 2, 3],
                step: 1,
            },
        );
        let mut r = Reader::arriving(&arriving, 0);
        assert_eq!(r.remaining(), 16);
        let e = r.take(8).unwrap_err();
        assert!(
            e.to_string().contains("stopped arriving after 3 of its 16"),
            "{e}"
        );
        assert_eq!(e.offset(), Some(0));
        // The decoder's error has the I/O error as its source.
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(
            source.map(io::Error::kind),
            Some(io::ErrorKind::UnexpectedEof)
        );
        drop(e);
        assert_eq!(
            arriving.take_io_error().map(|e| e.kind()),
            Some(io::ErrorKind::UnexpectedEof)
        );
        // A count that the message's length cannot hold fails before anything is read.
        let mut r = Reader::arriving(&arriving, 0);
        assert!(r.flat_vec::<u32>(5, Flat::<u32>::PRIMITIVE, false).is_err());
        assert_eq!(filled.get(), 3);
    }

    #[test]
    fn io_errors_are_kept_and_lying_readers_refused() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::ConnectionReset, "reset"))
            }
        }
        struct Lies;
        impl Read for Lies {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                Ok(buf.len() + 1)
            }
        }
        let mut buf = [0u8; 4];
        let filled = Cell::new(0);
        let arriving = Arriving::new(&mut buf, &filled, Fails);
        let e = Reader::arriving(&arriving, 0).array::<4>().unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
        assert_eq!(
            e.io_error().map(io::Error::kind),
            Some(io::ErrorKind::ConnectionReset)
        );
        let e = arriving.fill_all().unwrap_err();
        assert_eq!(
            e.io_error().map(io::Error::kind),
            Some(io::ErrorKind::ConnectionReset)
        );
        // Taken while the decoder's errors still hold it: an error of the same kind
        // wrapping it; once they are gone, the original.
        let taken = arriving.take_io_error().unwrap();
        assert_eq!(taken.kind(), io::ErrorKind::ConnectionReset);
        assert!(taken.get_ref().is_some());
        drop(e);
        let _ = arriving.fill_all();
        let taken = arriving.take_io_error().unwrap();
        assert_eq!(taken.kind(), io::ErrorKind::ConnectionReset);
        assert_eq!(taken.to_string(), "reset");
        let mut buf = [0u8; 4];
        let arriving = Arriving::new(&mut buf, &filled, Lies);
        assert!(arriving.fill_all().is_err());
        assert_eq!(filled.get(), 0);
    }
}
