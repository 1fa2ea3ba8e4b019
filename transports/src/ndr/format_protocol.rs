//! The format service's protocol, shared by the blocking and the async servers and clients.
//!
//! One request and one answer at a time on a connection:
//!
//! ```text
//! request:  b"NDRq" id(16)
//! answer:   a format frame (b"NDRf", u32 BE length, Format::to_bytes)   when known
//!           b"NDRn" 0x00000008                                          when not
//! ```

use std::io;
use std::time::Duration;

use wire_ndr::{
    format_frame, frame_len, Error, ErrorKind, Format, FormatCache, FormatId, FORMAT_MAGIC,
    FRAME_HEAD_LEN,
};

/// Bytes of a request.
pub(super) const REQUEST_LEN: usize = 20;
const REQUEST_MAGIC: [u8; 4] = *b"NDRq";
const NOT_FOUND: [u8; FRAME_HEAD_LEN] = *b"NDRn\0\0\0\x08";
/// Largest description a client accepts: descriptions are small (a few KiB for thousands of
/// fields), so this only stops a hostile server.
const MAX_DESCRIPTION: usize = 16 << 20;
/// Connections a server serves at once, unless told otherwise.
pub(super) const MAX_CONNECTIONS: usize = 64;
/// A connection idle this long is closed, unless the server is told otherwise.
pub(super) const IDLE: Duration = Duration::from_secs(30);
/// How long a client waits for a connection or an answer, unless told otherwise.
pub(super) const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The request for the format `id`.
pub(super) fn request(id: FormatId) -> [u8; REQUEST_LEN] {
    let mut req = [0u8; REQUEST_LEN];
    req[..4].copy_from_slice(&REQUEST_MAGIC);
    req[4..].copy_from_slice(id.as_bytes());
    req
}

/// The id a request asks for.
pub(super) fn requested(req: &[u8; REQUEST_LEN]) -> io::Result<FormatId> {
    if req[..4] != REQUEST_MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not an NDR format request",
        ));
    }
    let mut id = [0u8; 16];
    id.copy_from_slice(&req[4..]);
    Ok(FormatId::from_bytes(id))
}

/// The answer to a request for `id`, from `cache`.
pub(super) fn answer(cache: &FormatCache, id: FormatId) -> Vec<u8> {
    match cache.get(id) {
        Some(f) => format_frame(&f),
        None => NOT_FOUND.to_vec(),
    }
}

/// What the head of an answer says: the length of the description that follows it (under
/// the client's cap), or `None` when the server does not know the format.
pub(super) fn answer_len(head: &[u8; FRAME_HEAD_LEN]) -> io::Result<Option<usize>> {
    if *head == NOT_FOUND {
        return Ok(None);
    }
    if head[..4] != FORMAT_MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the format server answered with something else",
        ));
    }
    let len = frame_len(head).map_err(super::invalid)?;
    if len > MAX_DESCRIPTION {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a format description of {len} bytes is more than {MAX_DESCRIPTION}"),
        ));
    }
    Ok(Some(len - FRAME_HEAD_LEN))
}

/// The description that followed an answer's head.
pub(super) fn answered(description: &[u8]) -> io::Result<Format> {
    Format::from_bytes(description).map_err(super::invalid)
}

/// Why a server's answer to `id` is refused: it describes the format `got`.
pub(super) fn wrong_format(id: FormatId, got: FormatId) -> Error {
    Error::without_offset(ErrorKind::InvalidFormat(format!(
        "the format server answered id {id} with format {got}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire_ndr::{ByteOrder, IOField};

    fn p() -> Format {
        Format::from_fields(
            "p",
            ByteOrder::Big,
            4,
            &[IOField::new("x", "integer", 4, 0)],
            &[],
        )
        .unwrap()
    }

    #[test]
    fn a_request_round_trips_and_a_stranger_is_refused() {
        let id = p().id();
        assert_eq!(requested(&request(id)).unwrap(), id);
        let mut other = request(id);
        other[3] = b'x';
        assert_eq!(
            requested(&other).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }

    #[test]
    fn answers_say_known_or_not() {
        let cache = FormatCache::new();
        let f = p();
        let unknown = answer(&cache, f.id());
        let head: [u8; FRAME_HEAD_LEN] = unknown[..].try_into().unwrap();
        assert_eq!(answer_len(&head).unwrap(), None);

        cache.insert(f.clone());
        let known = answer(&cache, f.id());
        let head = known.first_chunk::<FRAME_HEAD_LEN>().unwrap();
        let len = answer_len(head).unwrap().unwrap();
        assert_eq!(len, known.len() - FRAME_HEAD_LEN);
        assert_eq!(answered(&known[FRAME_HEAD_LEN..]).unwrap(), f);

        for head in [*b"NDRr\0\0\0\x40", *b"NDRf\x7f\xff\xff\xff"] {
            let e = answer_len(&head).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
        }
    }
}
