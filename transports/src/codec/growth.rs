//! How a decoder's buffer grows: with the data that arrives, not with what a header claims.

use bytes::BytesMut;

/// Growth allowed beyond the bytes already buffered, before any data justifies more.
pub(crate) const FIRST_GROWTH: usize = 64 * 1024;

/// Reserves room for up to `need` more bytes of a frame whose header passed its caps: at
/// most as many as the buffer already holds (at least [`FIRST_GROWTH`]), so a header that
/// claims much and sends little makes the buffer grow no faster than the data.
pub(crate) fn reserve_for(src: &mut BytesMut, need: usize) {
    let room = src.capacity() - src.len();
    if room < need {
        src.reserve(need.min(src.len().max(FIRST_GROWTH)));
    }
}
