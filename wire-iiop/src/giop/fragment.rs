//! Fragment reassembly (GIOP 1.1 and 1.2, CORBA 3 §15.4.9): a message whose "more fragments"
//! flag is set continues in `Fragment` messages until one without the flag. 1.2 fragments
//! carry the request id, so fragments of several messages may interleave; 1.1 fragments
//! continue the one open message. The data of each fragment is appended to the first
//! message, whose header is then rewritten as that of one whole message.
//!
//! Caps bound what a peer can make us hold: the total size of the messages being assembled,
//! and the number of fragments of one message.

use marshal_core::{Error, ErrorKind};

use super::{MessageHeader, MsgType, Version, HEADER_LEN};
use crate::ByteOrder;

/// Default cap on the size of a reassembled message (and on all partial messages together).
pub const DEFAULT_MAX_MESSAGE: usize = 256 << 20;

/// Default cap on the fragments of one message.
pub const DEFAULT_MAX_FRAGMENTS: usize = 1 << 16;

/// Cap on messages being assembled at once (1.2 allows interleaving).
const MAX_OPEN: usize = 64;

#[derive(Debug)]
struct Open {
    request_id: Option<u32>,
    version: Version,
    order: ByteOrder,
    buf: Vec<u8>,
    fragments: usize,
}

/// Reassembles fragmented messages.
///
/// ```
/// use wire_iiop::giop::{MessageHeader, MsgType, Reassembler, Version};
/// use wire_iiop::ByteOrder;
/// let mut first = MessageHeader::new(Version::V1_1, ByteOrder::Big, MsgType::Reply, 4);
/// first.more_fragments = true;
/// let mut a = first.to_bytes().to_vec();
/// a.extend([1, 2, 3, 4]);
/// let mut b = MessageHeader::new(Version::V1_1, ByteOrder::Big, MsgType::Fragment, 2).to_bytes().to_vec();
/// b.extend([5, 6]);
/// let mut r = Reassembler::new();
/// assert_eq!(r.push(a).unwrap(), None); // incomplete: wait for more
/// let whole = r.push(b).unwrap().unwrap();
/// assert_eq!(whole, b"GIOP\x01\x01\x00\x01\0\0\0\x06\x01\x02\x03\x04\x05\x06");
/// ```
#[derive(Debug)]
pub struct Reassembler {
    max_message: usize,
    max_fragments: usize,
    open: Vec<Open>,
}

impl Default for Reassembler {
    fn default() -> Self {
        Reassembler::new()
    }
}

fn fail(what: String) -> Error {
    Error::new(ErrorKind::Custom(format!("fragment reassembly: {what}")), 0)
}

/// The request id at the start of a 1.2 message header (or fragment header).
fn request_id(msg: &[u8], order: ByteOrder) -> Result<u32, Error> {
    let b: [u8; 4] = msg
        .get(HEADER_LEN..HEADER_LEN + 4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            Error::new(
                ErrorKind::UnexpectedEnd {
                    needed: 4,
                    remaining: msg.len().saturating_sub(HEADER_LEN),
                },
                HEADER_LEN,
            )
        })?;
    Ok(match order {
        ByteOrder::Big => u32::from_be_bytes(b),
        ByteOrder::Little => u32::from_le_bytes(b),
    })
}

impl Reassembler {
    /// With the default caps.
    pub fn new() -> Self {
        Reassembler::with_caps(DEFAULT_MAX_MESSAGE, DEFAULT_MAX_FRAGMENTS)
    }

    /// With a cap on the reassembled size (all partial messages together) and on the
    /// fragments of one message.
    pub fn with_caps(max_message: usize, max_fragments: usize) -> Self {
        Reassembler {
            max_message,
            max_fragments,
            open: Vec::new(),
        }
    }

    /// Bytes held in partial messages.
    pub fn pending(&self) -> usize {
        self.open.iter().map(|o| o.buf.len()).sum()
    }

    /// Takes one whole GIOP message as received (its header included). Returns it unchanged
    /// if it is not fragmented, the reassembled message when this was the last fragment, and
    /// `None` while fragments are still missing (control flow, not an error).
    pub fn push(&mut self, msg: Vec<u8>) -> Result<Option<Vec<u8>>, Error> {
        let head: &[u8; HEADER_LEN] = msg
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| fail(format!("a message of {} bytes has no header", msg.len())))?;
        let h = MessageHeader::parse(head)?;
        if msg.len() as u64 != HEADER_LEN as u64 + u64::from(h.size) {
            return Err(fail("message_size does not match the message".into()));
        }
        if h.msg_type != MsgType::Fragment {
            if !h.more_fragments {
                return Ok(Some(msg));
            }
            return self.open_message(h, msg).map(|()| None);
        }
        let id = if h.version >= Version::V1_2 {
            Some(request_id(&msg, h.order)?)
        } else {
            None
        };
        let at = self
            .open
            .iter()
            .position(|o| o.request_id == id && o.version == h.version)
            .ok_or_else(|| {
                fail(format!(
                    "Fragment (request {id:?}) continues no open message"
                ))
            })?;
        let open = &mut self.open[at];
        if open.order != h.order {
            return Err(fail("a fragment changes the byte order".into()));
        }
        let data = &msg[HEADER_LEN + if id.is_some() { 4 } else { 0 }..];
        let held = self.open.iter().map(|o| o.buf.len()).sum::<usize>();
        let open = &mut self.open[at];
        if open.fragments >= self.max_fragments {
            let n = self.max_fragments;
            self.open.swap_remove(at);
            return Err(fail(format!("more than {n} fragments")));
        }
        if held + data.len() > self.max_message {
            let n = self.max_message;
            self.open.swap_remove(at);
            return Err(fail(format!("more than {n} bytes")));
        }
        open.buf.extend_from_slice(data);
        open.fragments += 1;
        if h.more_fragments {
            return Ok(None);
        }
        let mut whole = self.open.swap_remove(at).buf;
        let size = u32::try_from(whole.len() - HEADER_LEN)
            .map_err(|_| fail("the reassembled message exceeds 4 GiB".into()))?;
        whole[6] &= !0x02;
        whole[8..12].copy_from_slice(&match h.order {
            ByteOrder::Big => size.to_be_bytes(),
            ByteOrder::Little => size.to_le_bytes(),
        });
        Ok(Some(whole))
    }

    fn open_message(&mut self, h: MessageHeader, msg: Vec<u8>) -> Result<(), Error> {
        let id = match (h.version, h.msg_type) {
            (Version::V1_1, MsgType::Request | MsgType::Reply) => None,
            (Version::V1_1, t) => return Err(fail(format!("{t:?} cannot be fragmented in 1.1"))),
            (_, MsgType::CloseConnection | MsgType::MessageError) => {
                return Err(fail(format!("{:?} cannot be fragmented", h.msg_type)))
            }
            _ => Some(request_id(&msg, h.order)?),
        };
        if self
            .open
            .iter()
            .any(|o| o.request_id == id && o.version == h.version)
        {
            return Err(fail(format!("request {id:?} is already being reassembled")));
        }
        if self.open.len() >= MAX_OPEN {
            return Err(fail(format!("more than {MAX_OPEN} messages in fragments")));
        }
        if self.pending() + msg.len() > self.max_message {
            return Err(fail(format!("more than {} bytes", self.max_message)));
        }
        self.open.push(Open {
            request_id: id,
            version: h.version,
            order: h.order,
            buf: msg,
            fragments: 1,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(v: Version, t: MsgType, more: bool, body: &[u8]) -> Vec<u8> {
        let mut h = MessageHeader::new(v, ByteOrder::Little, t, body.len() as u32);
        h.more_fragments = more;
        let mut m = h.to_bytes().to_vec();
        m.extend_from_slice(body);
        m
    }

    #[test]
    fn interleaved_1_2_fragments() {
        let mut r = Reassembler::new();
        let v = Version::V1_2;
        assert!(r
            .push(msg(v, MsgType::Reply, true, &[1, 0, 0, 0, 0xa]))
            .unwrap()
            .is_none());
        assert!(r
            .push(msg(v, MsgType::Reply, true, &[2, 0, 0, 0, 0xb]))
            .unwrap()
            .is_none());
        assert!(r
            .push(msg(v, MsgType::Fragment, true, &[2, 0, 0, 0, 0xc]))
            .unwrap()
            .is_none());
        let one = r
            .push(msg(v, MsgType::Fragment, false, &[1, 0, 0, 0, 0xd]))
            .unwrap();
        assert_eq!(
            one.unwrap(),
            msg(v, MsgType::Reply, false, &[1, 0, 0, 0, 0xa, 0xd])
        );
        let two = r
            .push(msg(v, MsgType::Fragment, false, &[2, 0, 0, 0]))
            .unwrap();
        assert_eq!(
            two.unwrap(),
            msg(v, MsgType::Reply, false, &[2, 0, 0, 0, 0xb, 0xc])
        );
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn caps_and_orphans() {
        let v = Version::V1_1;
        let mut r = Reassembler::with_caps(1 << 20, 3);
        r.push(msg(v, MsgType::Request, true, &[0; 8])).unwrap();
        r.push(msg(v, MsgType::Fragment, true, &[0; 8])).unwrap();
        r.push(msg(v, MsgType::Fragment, true, &[0; 8])).unwrap();
        let e = r
            .push(msg(v, MsgType::Fragment, true, &[0; 8]))
            .unwrap_err();
        assert!(e.to_string().contains("more than 3 fragments"), "{e}");
        assert_eq!(r.pending(), 0, "the failed message is dropped");

        let mut r = Reassembler::with_caps(40, 100);
        r.push(msg(v, MsgType::Request, true, &[0; 16])).unwrap();
        let e = r
            .push(msg(v, MsgType::Fragment, true, &[0; 16]))
            .unwrap_err();
        assert!(e.to_string().contains("more than 40 bytes"), "{e}");

        let e = r
            .push(msg(v, MsgType::Fragment, false, &[0; 4]))
            .unwrap_err();
        assert!(e.to_string().contains("continues no open message"), "{e}");
        let e = r
            .push(msg(v, MsgType::LocateRequest, true, &[0; 4]))
            .unwrap_err();
        assert!(e.to_string().contains("cannot be fragmented"), "{e}");
    }
}
