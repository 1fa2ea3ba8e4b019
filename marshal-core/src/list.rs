//! Optional-data lists (`struct Entry { .., next: Option<Box<Entry>> }`, XDR's `entry *next`):
//! the derive walks them with loops, so that a list of any length is encoded, decoded and
//! dropped in constant stack. What those loops share whatever the wire format.

use crate::Error;

/// Adds the node index of a list element (after the first) to an error path, so that an error
/// in the 1,000,000th node reads `[999999].name`.
#[cold]
pub fn in_node(e: Error, k: usize) -> Error {
    if k == 0 {
        e
    } else {
        e.at_index(k)
    }
}
