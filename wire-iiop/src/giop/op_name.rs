//! Operation names: CDR strings handled as bytes, so that a server can `match` on them
//! without a UTF-8 check (as Flick demultiplexes).

use marshal_core::{Error, Reader, Writer};

use crate::string::{put_str, string_end, take_str_bytes};
use crate::{ByteOrder, Decode, Encode};

/// A CDR `string` as its bytes (without the NUL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdrBytes<'a>(pub &'a [u8]);

impl Encode for CdrBytes<'_> {
    #[inline]
    fn end(&self, pos: usize, _depth: u32) -> Result<usize, Error> {
        Ok(string_end(pos, self.0.len()))
    }
    #[inline]
    fn encode(&self, w: &mut Writer<'_>, order: ByteOrder) -> Result<(), Error> {
        put_str(w, self.0, order)
    }
}

impl<'de: 'a, 'a> Decode<'de> for CdrBytes<'a> {
    const MIN: usize = 5;
    #[inline]
    fn decode(r: &mut Reader<'de>, order: ByteOrder) -> Result<Self, Error> {
        take_str_bytes(r, order).map(CdrBytes)
    }
}
