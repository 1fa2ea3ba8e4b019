//! The rules of connected mode, shared by the blocking and the async streams: which formats a
//! writer has sent (each goes out once, before the first record that uses it), and what a
//! reader does with each frame (registers a format, hands a record on).

use std::collections::HashSet;
use std::io;

use wire_ndr::{format_frame, parse_frame, Format, FormatId, Frame, Receiver};

use super::invalid;

/// The formats a stream has carried.
#[derive(Debug, Default)]
pub(super) struct SentFormats {
    sent: HashSet<FormatId>,
}

impl SentFormats {
    /// A stream that has carried no format yet.
    pub(super) fn new() -> SentFormats {
        SentFormats::default()
    }

    /// The description frame that goes out before a record of `format`: `None` once the
    /// stream has carried it.
    pub(super) fn frame_before(&self, format: &Format) -> Option<Vec<u8>> {
        (!self.sent.contains(&format.id())).then(|| format_frame(format))
    }

    /// Notes that a record of the format `id` went out whole, its description before it.
    pub(super) fn sent(&mut self, id: FormatId) {
        self.sent.insert(id);
    }
}

/// Takes one whole frame of a stream: a format description is registered with `receiver`
/// (`false`), a record message is for the caller (`true`).
pub(super) fn take_frame(receiver: &mut Receiver, frame: &[u8]) -> io::Result<bool> {
    match parse_frame(frame).map_err(invalid)? {
        Frame::Format(f) => {
            receiver.register(f);
            Ok(false)
        }
        Frame::Record(_) => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wire_ndr::{message_from_body, ByteOrder, IOField};

    fn tick() -> Format {
        Format::from_fields(
            "tick",
            ByteOrder::Big,
            8,
            &[IOField::new("seq", "integer", 8, 0)],
            &[],
        )
        .unwrap()
    }

    #[test]
    fn a_format_goes_out_until_a_record_of_it_did() {
        let f = tick();
        let mut sent = SentFormats::new();
        assert_eq!(sent.frame_before(&f), Some(format_frame(&f)));
        // Asking is not sending: a write that failed sends it again.
        assert!(sent.frame_before(&f).is_some());
        sent.sent(f.id());
        assert_eq!(sent.frame_before(&f), None);
    }

    #[test]
    fn formats_are_registered_and_records_handed_on() {
        let f = tick();
        let mut rx = Receiver::new();
        assert!(!take_frame(&mut rx, &format_frame(&f)).unwrap());
        assert_eq!(rx.format(f.id()), Some(&f));
        let msg = message_from_body(f.id(), &1u64.to_be_bytes()).unwrap();
        assert!(take_frame(&mut rx, &msg).unwrap());
        let e = take_frame(&mut rx, b"NDRx\0\0\0\x08").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }
}
