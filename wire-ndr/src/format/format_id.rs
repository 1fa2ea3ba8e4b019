//! `FormatId`: 128 bits of SHA-256 over a format's canonical description.

use core::fmt;

use sha2::{Digest, Sha256};

/// The id of a format: the first 16 bytes of the SHA-256 of its canonical description
/// ([`Format::to_bytes`](crate::Format::to_bytes) without the id). Equal descriptions have
/// equal ids on every machine; a peer cannot find another description with a given id.
///
/// ```
/// let id = wire_ndr::FormatId::of_description(b"example");
/// assert_eq!(id.to_string().len(), 32); // lowercase hex
/// assert_eq!(wire_ndr::FormatId::from_bytes(*id.as_bytes()), id);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FormatId([u8; 16]);

impl FormatId {
    /// The id of a canonical description.
    pub fn of_description(description: &[u8]) -> FormatId {
        let digest = Sha256::digest(description);
        let mut id = [0; 16];
        id.copy_from_slice(&digest[..16]);
        FormatId(id)
    }

    /// An id from its 16 bytes (as carried in a message header).
    pub const fn from_bytes(bytes: [u8; 16]) -> FormatId {
        FormatId(bytes)
    }

    /// The 16 bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Display for FormatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for FormatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FormatId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::FormatId;

    #[test]
    fn is_sha256_cut_to_16_bytes() {
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 ...
        assert_eq!(
            FormatId::of_description(b"abc").to_string(),
            "ba7816bf8f01cfea414140de5dae2223"
        );
    }
}
