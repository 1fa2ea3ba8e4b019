//! Feeding a decoder a stream in pieces, the way `FramedRead` does.

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use tokio_util::codec::Decoder;

/// What a decoder made of a stream.
#[derive(Debug)]
pub struct Fed<E> {
    /// The frames, in order.
    pub frames: Vec<Bytes>,
    /// The error that stopped it, if one did.
    pub error: Option<E>,
    /// The largest capacity the read buffer reached.
    pub max_capacity: usize,
    /// The longest piece fed.
    pub max_piece: usize,
}

/// The pieces of `wire` between the cut points (any values; taken modulo `wire.len() + 1`).
pub fn pieces<'a>(wire: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (wire.len() + 1)).collect();
    at.push(0);
    at.push(wire.len());
    at.sort_unstable();
    at.dedup();
    at.windows(2).map(|w| &wire[w[0]..w[1]]).collect()
}

/// Feeds `wire` to `codec` cut at `cuts`, decoding after each piece until the codec wants
/// more, then at the end of the stream with `decode_eof`.
pub fn feed<D: Decoder<Item = Bytes>>(codec: &mut D, wire: &[u8], cuts: &[usize]) -> Fed<D::Error> {
    let mut src = BytesMut::new();
    let mut fed = Fed {
        frames: Vec::new(),
        error: None,
        max_capacity: 0,
        max_piece: 0,
    };
    for piece in pieces(wire, cuts) {
        fed.max_piece = fed.max_piece.max(piece.len());
        src.extend_from_slice(piece);
        fed.max_capacity = fed.max_capacity.max(src.capacity());
        loop {
            let r = codec.decode(&mut src);
            fed.max_capacity = fed.max_capacity.max(src.capacity());
            match r {
                Ok(Some(frame)) => fed.frames.push(frame),
                Ok(None) => break,
                Err(e) => {
                    fed.error = Some(e);
                    return fed;
                }
            }
        }
    }
    loop {
        match codec.decode_eof(&mut src) {
            Ok(Some(frame)) => fed.frames.push(frame),
            Ok(None) => return fed,
            Err(e) => {
                fed.error = Some(e);
                return fed;
            }
        }
    }
}

/// Cut points for [`pieces`].
pub fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(any::<usize>(), 0..16)
}

/// The most a read buffer may hold for a decoder with cap `cap` (plus `overhead` bytes of
/// headers it keeps) fed pieces of at most `piece` bytes: what it buffers, doubled for the
/// amortized growth of `BytesMut`.
pub fn capacity_bound(cap: usize, overhead: usize, piece: usize) -> usize {
    2 * (cap + overhead + piece) + 64
}
