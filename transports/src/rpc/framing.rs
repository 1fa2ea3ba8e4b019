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

/// Sends `msg` as one record of one fragment: measured first, then written with one
/// `writev` per large part (see [`SocketSpill`]). On failure, `Marshal { sent: true }` or
/// `Io` mean the stream is broken.
pub(crate) fn send_record<W: Write, M: Encode + ?Sized>(
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
