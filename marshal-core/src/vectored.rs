//! Vectored writes of whole messages: `Write::write_all_vectored` is not stable.

use std::io::{self, IoSlice, Write};

/// Writes every byte of `bufs`, in order, with `write_vectored` (`writev` on sockets),
/// retrying on interruption and after short writes.
///
/// ```
/// use std::io::IoSlice;
/// let mut out = Vec::new();
/// marshal_core::vectored::write_all_vectored(&mut out, &mut [IoSlice::new(b"ab"), IoSlice::new(b"cd")])?;
/// assert_eq!(out, b"abcd");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_all_vectored<W: Write + ?Sized>(
    w: &mut W,
    mut bufs: &mut [IoSlice<'_>],
) -> io::Result<()> {
    IoSlice::advance_slices(&mut bufs, 0);
    while !bufs.is_empty() {
        match w.write_vectored(bufs) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
