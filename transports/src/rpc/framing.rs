//! Sending whole messages: one record-marked fragment over a stream (large opaque parts go
//! out with vectored writes from where they lie), or one datagram.

use std::io::Write;

use marshal_core::writer::{append_in_place, append_to_vec, write_spilling, Writer};
use marshal_core::DEFAULT_MAX_DEPTH;
use wire_xdr::rpc::record_mark;
use wire_xdr::Encode;

use super::RpcError;
use crate::io_util::{SocketSpill, SpillError, VECTORED_MIN};

/// A scratch buffer above this size is released after use.
const SCRATCH_KEEP: usize = 1 << 20;

/// Sends `msg` (a header and its body, e.g. `(&CallHeader, &args)`) as one record of one
/// fragment, of at most `max` bytes. A record shorter than the vectored-write threshold that
/// fits in `scratch`'s room is encoded there in one pass, its mark filled in after, and sent
/// with one write. Otherwise it is measured first, then encoded into `scratch` except for
/// octet runs of 16 KiB or more, which go to `stream` with vectored writes from where they
/// lie. On failure, `Marshal { sent: true }` or `Io` mean the stream is broken.
///
/// `msg` is taken by value (a reference is a value too): only the measured path, out of line,
/// takes its address, so a message made for the call, such as a `Copy` header beside a
/// reference to the arguments, stays in registers on the common path.
///
/// ```
/// use transports::rpc::write_record;
/// use wire_xdr::rpc::{CallHeader, CallTemplate, RecordReader};
/// let (mut wire, mut scratch) = (Vec::new(), Vec::new());
/// write_record(&mut wire, &mut scratch, 1 << 20, &(&CallHeader::new(1, 2, 3, 4), &7u32))?;
/// assert_eq!(wire.len(), 4 + 40 + 4);
/// assert_eq!(RecordReader::new().read_record(&mut &wire[..]).unwrap().len(), 44);
/// // The same call's header from a client's template, with the message passed by value.
/// let mut again = Vec::new();
/// let template = CallTemplate::none(2, 3);
/// write_record(&mut again, &mut scratch, 1 << 20, (template.header(1, 4), &7u32))?;
/// assert_eq!(again, wire);
/// # Ok::<(), transports::rpc::RpcError>(())
/// ```
#[inline]
pub fn write_record<W: Write, M: Encode>(
    stream: &mut W,
    scratch: &mut Vec<u8>,
    max: usize,
    msg: M,
) -> Result<(), RpcError> {
    match write_in_place(stream, scratch, max, |w| msg.encode(w)) {
        Some(sent) => sent,
        None => write_record_measured(stream, scratch, max, msg),
    }
}

/// The one pass of [`write_record`]: when a record of at most `max` bytes and shorter than
/// the vectored-write threshold fits in `scratch`'s room, `body` is encoded there behind
/// four zeros that hold the record mark's place, the mark is filled in and the record is
/// sent with one write; the outcome of that write is returned. `None` (nothing sent) when it
/// did not fit or failed to encode: the caller then measures, which reserves room or finds
/// the genuine error. No slice of a record this short reaches the threshold, so nothing that
/// would have been spilled is copied.
#[inline(always)]
fn write_in_place<W: Write>(
    stream: &mut W,
    scratch: &mut Vec<u8>,
    max: usize,
    body: impl FnOnce(&mut Writer<'_>) -> Result<(), marshal_core::Error>,
) -> Option<Result<(), RpcError>> {
    scratch.clear();
    let limit = (VECTORED_MIN - 1).min(max.saturating_add(4));
    let written = append_in_place(scratch, limit, |w| {
        w.put([0; 4])?;
        body(w)
    })?;
    let mark = record_mark(written.checked_sub(4)?).ok()?;
    *scratch.first_chunk_mut::<4>()? = mark;
    Some(stream.write_all(scratch).map_err(RpcError::Io))
}

/// [`write_record`] of a record that did not fit in `scratch`'s room in one pass (or failed
/// to encode there): measured first, then encoded whole into `scratch` when it is short, or
/// through [`write_record_spilling`]. Out of line, so that the one pass inlines alone.
#[cold]
#[inline(never)]
fn write_record_measured<W: Write, M: Encode>(
    stream: &mut W,
    scratch: &mut Vec<u8>,
    max: usize,
    msg: M,
) -> Result<(), RpcError> {
    let len = measured(&msg, max)?;
    let mark = record_mark(len).map_err(unsent)?;
    if 4 + len < VECTORED_MIN {
        // Too short to hold a slice that would spill: the record is gathered whole in
        // `scratch` (one capacity check) and goes out with one write.
        scratch.clear();
        append_record(scratch, len, mark, &msg)?;
        return stream.write_all(scratch).map_err(RpcError::Io);
    }
    write_record_spilling(stream, scratch, len, mark, &msg)
}

/// [`write_record`] of a record of at least the vectored-write threshold: its large slices
/// go out where they lie, the rest through `scratch`.
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
    let len = measured(msg, max)?;
    let mark = record_mark(len).map_err(unsent)?;
    append_record(buf, len, mark, msg)
}

/// The encoded length of `msg`, which must be at most `max`.
fn measured<M: Encode + ?Sized>(msg: &M, max: usize) -> Result<usize, RpcError> {
    let len = msg.encoded_len(DEFAULT_MAX_DEPTH).map_err(unsent)?;
    if len > max {
        return Err(RpcError::TooLarge { len, max });
    }
    Ok(len)
}

/// Appends `mark` and then `msg`, measured at `len` bytes, to `buf`.
fn append_record<M: Encode + ?Sized>(
    buf: &mut Vec<u8>,
    len: usize,
    mark: [u8; 4],
    msg: &M,
) -> Result<(), RpcError> {
    append_to_vec(buf, 4 + len, |w| {
        w.put(mark)?;
        msg.encode(w)
    })
    .map_err(unsent)
}

/// A marshalling error raised before anything was sent.
fn unsent(error: marshal_core::Error) -> RpcError {
    RpcError::Marshal { error, sent: false }
}

/// Encodes `msg` as one datagram of at most `max` bytes into `buf` (cleared first): in one
/// pass when it fits in `buf`'s room (a buffer used for the datagrams before has it),
/// otherwise measured first, which also finds the genuine error or length of one that fails.
/// `msg` is taken by value, as by [`write_record`].
pub(crate) fn encode_datagram<M: Encode>(
    buf: &mut Vec<u8>,
    max: usize,
    msg: M,
) -> Result<(), RpcError> {
    buf.clear();
    if append_in_place(buf, max, |w| msg.encode(w)).is_some() {
        return Ok(());
    }
    encode_datagram_measured(buf, max, msg)
}

/// [`encode_datagram`] of a message that did not fit in `buf`'s room in one pass (or failed
/// to encode there). Out of line, so that the one pass inlines alone.
#[cold]
#[inline(never)]
fn encode_datagram_measured<M: Encode>(
    buf: &mut Vec<u8>,
    max: usize,
    msg: M,
) -> Result<(), RpcError> {
    let len = measured(&msg, max)?;
    append_to_vec(buf, len, |w| msg.encode(w)).map_err(unsent)
}

#[cfg(test)]
mod tests {
    use std::io::{self, IoSlice};

    use super::*;
    use wire_xdr::rpc::{CallHeader, CallTemplate};

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
        write_record(&mut out, &mut Vec::new(), 1 << 20, msg).unwrap();
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
            (&CallHeader::new(1, 2, 3, 4), &[1u8; 100][..]),
        )
        .unwrap();
        assert_eq!(out.slices.iter().filter(|s| s.1 > 0).count(), 1);
    }

    #[test]
    fn limits_hold_before_sending() {
        let mut out = Recorder::default();
        let e = write_record(&mut out, &mut Vec::new(), 10, (1u32, 2u32, 3u32)).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 12, max: 10 }), "{e}");
        assert!(out.bytes.is_empty());
        let mut buf = vec![9];
        let e = encode_datagram(&mut buf, 3, 1u32).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 4, max: 3 }), "{e}");
        encode_datagram(&mut buf, 4, 1u32).unwrap();
        assert_eq!(buf, [0, 0, 0, 1]);
        let e = encode_record(&mut buf, 3, &1u32).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 4, max: 3 }), "{e}");
        // With room for the one pass: the same limits and errors.
        let mut buf = Vec::with_capacity(64);
        let e = encode_datagram(&mut buf, 7, (1u32, 2u32)).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 8, max: 7 }), "{e}");
        let e = encode_datagram(&mut buf, 64, &(1u32, Refuses)).unwrap_err();
        assert!(
            matches!(&e, RpcError::Marshal { error, sent: false } if error.to_string().contains("measured: no")),
            "{e}"
        );
        buf.extend_from_slice(&[9; 5]);
        encode_datagram(&mut buf, 8, (1u32, 2u32)).unwrap();
        assert_eq!(buf, [0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!(buf.capacity(), 64, "encoded where it was");
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
        write_record(&mut out, &mut scratch, 1 << 20, msg).unwrap();
        assert_eq!(out.slices.len(), 1, "{:?}", out.slices);
        let mut buf = Vec::new();
        encode_record(&mut buf, 1 << 20, &msg).unwrap();
        assert_eq!(out.bytes, buf);
        let e = write_record(&mut Broken, &mut scratch, 1 << 20, msg).unwrap_err();
        assert!(
            matches!(&e, RpcError::Io(io) if io.kind() == io::ErrorKind::BrokenPipe),
            "{e}"
        );
    }

    /// The record `write_record` must send for `msg`: its mark, then its encoding.
    fn record_of<M: Encode + ?Sized>(msg: &M) -> Vec<u8> {
        let body = wire_xdr::to_vec(msg).unwrap();
        let mut record = record_mark(body.len()).unwrap().to_vec();
        record.extend_from_slice(&body);
        record
    }

    /// Sends one message with a scratch buffer, and gives the record it must have sent.
    type SendOne<'a> = dyn Fn(&mut Recorder, &mut Vec<u8>) -> Result<Vec<u8>, RpcError> + 'a;

    #[test]
    fn one_pass_or_measured_the_record_is_the_same() {
        let template = CallTemplate::none(0x2000_0001, 1);
        let name = "x".repeat(300);
        let header = template.header(9, 4);
        let msgs: [&SendOne<'_>; 3] = [
            &|out, scratch| {
                let msg = (&header, &(1u32, "abc", [5i32; 3].as_slice()));
                write_record(out, scratch, 1 << 20, msg).map(|()| record_of(&msg))
            },
            &|out, scratch| {
                let msg = (&header, &(name.as_str(), ()));
                write_record(out, scratch, 1 << 20, msg).map(|()| record_of(&msg))
            },
            &|out, scratch| {
                // By value: the template's header (`Copy`) and a reference to the arguments.
                let args = (7u64, name.as_str());
                write_record(out, scratch, 1 << 20, (template.header(9, 4), &args))
                    .map(|()| record_of(&(&header, &args)))
            },
        ];
        for (i, send) in msgs.iter().enumerate() {
            // No room, too little, exactly enough and plenty (one pass), stale bytes first.
            for capacity in [0, 3, 44, 60, 370, 4096] {
                let mut scratch = Vec::with_capacity(capacity);
                scratch.extend_from_slice(&[0xee; 3][..capacity.min(3)]);
                let mut out = Recorder::default();
                let want = send(&mut out, &mut scratch).unwrap();
                assert_eq!(out.bytes, want, "message {i}, capacity {capacity}");
                assert_eq!(out.slices.len(), 1, "message {i}, capacity {capacity}");
                // Sent again with the room the first send left: the same record.
                let mut again = Recorder::default();
                send(&mut again, &mut scratch).unwrap();
                assert_eq!(again.bytes, want, "message {i}, capacity {capacity}, again");
            }
        }
    }

    /// A value whose measuring and encoding fail, each with its own message.
    struct Refuses;

    impl Encode for Refuses {
        const SIZE: marshal_core::SizeClass = marshal_core::SizeClass::Unbounded;
        fn encoded_len(&self, _: u32) -> Result<usize, marshal_core::Error> {
            Err(marshal_core::Error::without_offset(
                marshal_core::ErrorKind::Custom("measured: no".into()),
            ))
        }
        fn encode(&self, w: &mut Writer<'_>) -> Result<(), marshal_core::Error> {
            w.put([1, 2])?;
            Err(w.error(marshal_core::ErrorKind::Custom("encoded: no".into())))
        }
    }

    #[test]
    fn with_room_the_limits_and_errors_are_the_measured_ones() {
        let mut scratch = Vec::with_capacity(1 << 16);
        let mut out = Recorder::default();
        // Room for it in one pass, but over `max`: too large, with its exact length.
        let e = write_record(&mut out, &mut scratch, 10, (1u32, 2u32, 3u32)).unwrap_err();
        assert!(matches!(e, RpcError::TooLarge { len: 12, max: 10 }), "{e}");
        write_record(&mut out, &mut scratch, 12, (1u32, 2u32, 3u32)).unwrap();
        assert_eq!(out.bytes, record_of(&(1u32, 2u32, 3u32)));
        // An encoder that fails: the error is the one measuring gives, as without room.
        let mut out = Recorder::default();
        let e = write_record(&mut out, &mut scratch, 1 << 20, &(7u32, Refuses)).unwrap_err();
        assert!(
            matches!(&e, RpcError::Marshal { error, sent: false } if error.to_string().contains("measured: no")),
            "{e}"
        );
        let template = CallTemplate::none(1, 2);
        let e = write_record(
            &mut out,
            &mut scratch,
            1 << 20,
            (template.header(1, 2), Refuses),
        );
        assert!(
            matches!(&e, Err(RpcError::Marshal { sent: false, .. })),
            "{e:?}"
        );
        assert!(out.bytes.is_empty());
    }

    #[test]
    fn with_room_large_opaque_arguments_still_go_out_from_the_callers_memory() {
        // A scratch left large by an earlier record does not make a long one go in one pass.
        let data = vec![7u8; VECTORED_MIN];
        let mut scratch = Vec::with_capacity(1 << 20);
        let template = CallTemplate::none(1, 2);
        let mut out = Recorder::default();
        let msg = (template.header(3, 4), data.as_slice());
        write_record(&mut out, &mut scratch, 1 << 20, msg).unwrap();
        assert!(
            out.slices.contains(&(data.as_ptr() as usize, data.len())),
            "the data was copied: {:?}",
            out.slices
        );
        assert_eq!(
            out.bytes,
            record_of(&(&template.header(3, 4), data.as_slice()))
        );
    }

    #[test]
    fn an_encoded_record_is_what_write_record_sends() {
        let msg = (&CallHeader::new(1, 2, 3, 4), &[9u8; 40_000][..]);
        let mut wire = Vec::new();
        write_record(&mut wire, &mut Vec::new(), 1 << 20, msg).unwrap();
        let mut buf = vec![1, 2, 3];
        encode_record(&mut buf, 1 << 20, &msg).unwrap();
        assert_eq!(buf, wire);
    }
}
