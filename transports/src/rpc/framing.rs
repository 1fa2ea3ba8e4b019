//! Sending whole messages: one record-marked fragment over a stream (large opaque parts go
//! out with vectored writes from where they lie), or one datagram.

use std::io::Write;

use marshal_core::writer::{append_to_vec, write_spilling};
use marshal_core::DEFAULT_MAX_DEPTH;
use wire_xdr::rpc::record_mark;
use wire_xdr::Encode;

use super::RpcError;
use crate::io_util::SocketSpill;

/// A scratch buffer above this size is released after use.
const SCRATCH_KEEP: usize = 1 << 20;

/// Sends `msg` (a header and its body, e.g. `(&CallHeader, &args)`) as one record of one
/// fragment, of at most `max` bytes: measured first, encoded into `scratch` except for
/// octet runs of 16 KiB or more, which go to `stream` with vectored writes from where they
/// lie. On failure, `Marshal { sent: true }` or `Io` mean the stream is broken.
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
    let mut spill = SocketSpill {
        socket: stream,
        io_error: None,
        spilled: false,
    };
    let r = write_spilling(scratch, 4 + len, &mut spill, |w| {
        w.put(mark)?;
        msg.encode(w)
    });
    if scratch.capacity() > SCRATCH_KEEP {
        *scratch = Vec::new();
    }
    match (r, spill.io_error) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(e)) => Err(RpcError::Io(e)),
        (Err(error), None) => Err(RpcError::Marshal {
            error,
            sent: spill.spilled,
        }),
    }
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
