//! The nesting budget that bounds recursion when encoding and decoding.

use crate::error::{Error, ErrorKind};

/// Default nesting limit for encoding and decoding recursive types.
pub const DEFAULT_MAX_DEPTH: u32 = 128;

/// Nesting still allowed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Depth(u32);

impl Default for Depth {
    fn default() -> Self {
        Depth(DEFAULT_MAX_DEPTH)
    }
}

impl Depth {
    /// Takes one level, or fails with `DepthLimit` at byte `offset`.
    #[inline]
    pub(crate) fn enter(&mut self, offset: usize) -> Result<(), Error> {
        match self.0.checked_sub(1) {
            Some(d) => {
                self.0 = d;
                Ok(())
            }
            None => Err(Error::new(
                ErrorKind::DepthLimit {
                    limit: DEFAULT_MAX_DEPTH,
                },
                offset,
            )),
        }
    }

    /// Gives one level back.
    #[inline]
    pub(crate) fn leave(&mut self) {
        self.0 += 1;
    }
}

/// One nesting level taken from a sizing budget (`encoded_len`, `end`), or `DepthLimit`.
#[inline(always)]
pub fn descend(depth: u32) -> Result<u32, Error> {
    depth.checked_sub(1).ok_or_else(depth_error)
}

#[cold]
fn depth_error() -> Error {
    Error::without_offset(ErrorKind::DepthLimit {
        limit: DEFAULT_MAX_DEPTH,
    })
}
