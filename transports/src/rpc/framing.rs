//! Sending whole messages: one record-marked fragment over a stream (large opaque parts go
//! out with vectored writes from where they lie), or one datagram.

use std::io::Write;

use marshal_core::writer::{append_to_vec, write_spilling};
use marshal_core::DEFAULT_MAX_DEPTH;
use wire_xdr::rpc::record_mark;
use wire_xdr::Encode;

use super::RpcError;
use crate::io_util::{SocketSpill, SpillError, VECTORED_MIN};

/// A scratch buffer above this size is released after use.
const SCRATCH_KEEP: usize = 1 << 20;

/// Sends `msg` (a header and its body, e.g. `(&CallHeader, &args)`) as one record of one
/// fragment, of at most `max` bytes: measured first, encoded into `scratch` except for
/// octet runs of 16 KiB or more, which go to `stream` with vectored writes from where they
/// lie (a shorter record is encoded whole and sent with one write). On failure,
/// `Marshal { sent: true }` or `Io` mean the stream is broken.
///
/// ```
/// use transports::rpc::write_record;
/// use wire_xdr::rpc::{CallHeader, RecordReader};
/// let (mut wire, mut scratch) = (Vec::new(), Vec::new());
/// write_record(&mut wire, &mut scratch, 1 << 20, &(&CallHeader::new(1, 2, 3, 4), &7u32))?;
/// assert_eq!(wire.len(), 4 + 40 + 4);
/// assert_eq!(RecordReader::new().read_record(&mut &wire[..]).unwrap().len(), 44);
/// # Ok::<(), transports::rpc::RpcError>(())
/// ```
#[inline]
pub fn write_record<W: Write, M: Encode + ?Sized>(
    stream: &mut W,
    scratch: &mut Vec<u8>,
    max: usize,
    msg: &M,
) -> Result<(), RpcError> {
    let len = msg
        .encoded_len(DEFAULT_MAX_DEPTH)
        .map_err(|error| RpcError::Marshal { error, sent: false })?;
    if len > max {
        return Err(RpcError::TooLarge { len, max });
    }
    let mark = record_mark(len).map_err(|error| RpcError::Marshal { error, sent: false })?;
    if 4 + len < VECTORED_MIN {
        // Too short to hold a slice that would spill: the record is gathered whole in
        // `scratch` (one capacity check) and goes out with one write.
        scratch.clear();
        append_to_vec(scratch, 4 + len, |w| {
            w.put(mark)?;
            msg.encode(w)
        })
        .map_err(|error| RpcError::Marshal { error, sent: false })?;
        return stream.write_all(scratch).map_err(RpcError::Io);
    }
    write_record_spilling(stream, scratch, len, mark, msg)
}

/// [`write_record`] of a record of at least the vectored-write threshold: its large slices
/// go out where they lie, the rest through `scratch`. Kept out of line, so that the short
/// record's path inlines alone.
#[inline(never)]
fn write_record_spilling<W: Write, M: Encode + ?Sized>(
    stream: &mut W,
    scratch: &mut Vec<u8>,
    len: usize,
    mark: [u8; 4],
    msg: &M,
) -> Result<(), RpcError> {
    let mut spill = SocketSpill::new(stream);
    let r = write_spilling(scratch, 4 + len, &mut spill, |w| {
        w.put(mark)?;
        msg.encode(w)
    });
    if scratch.capacity() > SCRATCH_KEEP {
        *scratch = Vec::new();
    }
    spill.outcome(r).map_err(|e| match e {
        SpillError::Io(e) => RpcError::Io(e),
        SpillError::Marshal { error, sent } => RpcError::Marshal { error, sent },
    })
}

/// Encodes `msg` as one record of one fragment (its mark, then the message of at most `max`
/// bytes) into `buf` (cleared first): what a writer task sends whole.
pub(crate) fn encode_record<M: Encode + ?Sized>(
    buf: &mut Vec<u8>,
    max: usize,
    msg: &M,
) -> Result<(), RpcError> {
    buf.clear();
    let len = msg
        .encoded_len(DEFAULT_MAX_DEPTH)
        .map_err(|error| RpcError::Marshal { error, sent: false })?;
    if len > max {
        return Err(RpcError::TooLarge { len, max });
    }
    let mark = record_mark(len).map_err(|error| RpcError::Marshal { error, sent: false })?;
    append_to_vec(buf, 4 + len, |w| {
        w.put(mark)?;
        msg.encode(w)
    })
    .map_err(|error| RpcError::Marshal { error, sent: false })
}

/// Encodes `msg` as one datagram of at most `max` bytes into `buf` (cleared first).
pub(crate) fn encode_datagram<M: Encode + ?Sized>(
    buf: &mut Vec<u8>,
    max: usize,
    msg: &M,
) -> Result<(), RpcError> {
    buf.clear();
    let len = msg
        .encoded_len(DEFAULT_MAX_DEPTH)
        .map_err(|error| RpcError::Marshal { error, sent: false })?;
    if len > max {
        return Err(RpcError::TooLarge { len, max });
    }
    append_to_vec(buf, len, |w| msg.encode(w))
        .map_err(|error| RpcError::Marshal { error, sent: false })
}

#[cfg(test)]
mod tests {
    use std::io::{self, IoSlice};

    use super::*;
    use wire_xdr::rpc::CallHeader;

    /// A stream that records where each written slice lay.
    #[derive(Default)]
    struct Recorder {
        bytes: Vec<u8>,
        slices: Vec<(usize, usize)>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            let mut n = 0;
            for b in bufs {
                self.slices.push((b.as_ptr() as usize, b.len()));
                self.bytes.extend_from_slice(b);
                n += b.len();
            }
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn large_opaque_arguments_go_out_from_the_callers_memory() {
        let data = vec![7u8; 64 * 1024];
        let mut out = Recorder::default();
        let msg = (&CallHeader::new(1, 2, 3, 4), data.as_slice());
        write_record(&mut out, &mut Vec::new(), 1 << 20, &msg).unwrap();
        assert!(
            out.slices.contains(&(data.as_ptr() as usize, data.len())),
            "the data was copied: {:?}",
            out.slices
        );
        assert_eq!(out.bytes.len(), 4 + 40 + 4 + data.len());
        assert_eq!(&out.bytes[..4], &record_mark(40 + 4 + data.len()).unwrap());
        assert_eq!(&out.bytes[48..], &data[..]);
        // Small arguments are one write of the gathered message.
        let mut out = Recorder::default();
        write_record(
            &mut out,
            &mut Vec::new(),
            1 << 20,
            &(&CallHeader::new(1, 2, 3, 4), &[1u8; 100][..]),
        )
        .unwrap();
        assert_eq!(out.slices.iter().filter(|s| s.1 > 0).count(), 1);
    }

    #[test]
    fn limits_hold_before_sending() {
        let mut out = Recorder::default();
        let e = write_record(&mut out, &mut Vec::new(), 10, &(1u32, 2u32, 3u32)).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 12, max: 10 }), "{e}");
        assert!(out.bytes.is_empty());
        let mut buf = vec![9];
        let e = encode_datagram(&mut buf, 3, &1u32).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 4, max: 3 }), "{e}");
        encode_datagram(&mut buf, 4, &1u32).unwrap();
        assert_eq!(buf, [0, 0, 0, 1]);
        let e = encode_record(&mut buf, 3, &1u32).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 4, max: 3 }), "{e}");
    }

    /// A stream whose writes fail.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_short_record_is_one_write_and_its_failure_an_io_error() {
        let msg = (&CallHeader::new(1, 2, 3, 4), &[7u32; 3][..]);
        let mut out = Recorder::default();
        let mut scratch = vec![5; 3];
        write_record(&mut out, &mut scratch, 1 << 20, &msg).unwrap();
        assert_eq!(out.slices.len(), 1, "{:?}", out.slices);
        let mut buf = Vec::new();
        encode_record(&mut buf, 1 << 20, &msg).unwrap();
        assert_eq!(out.bytes, buf);
        let e = write_record(&mut Broken, &mut scratch, 1 << 20, &msg).unwrap_err();
        assert!(
            matches!(&e, RpcError::Io(io) if io.kind() == io::ErrorKind::BrokenPipe),
            "{e}"
        );
    }

    #[test]
    fn an_encoded_record_is_what_write_record_sends() {
        let msg = (&CallHeader::new(1, 2, 3, 4), &[9u8; 40_000][..]);
        let mut wire = Vec::new();
        write_record(&mut wire, &mut Vec::new(), 1 << 20, &msg).unwrap();
        let mut buf = vec![1, 2, 3];
        encode_record(&mut buf, 1 << 20, &msg).unwrap();
        assert_eq!(buf, wire);
    }
}
