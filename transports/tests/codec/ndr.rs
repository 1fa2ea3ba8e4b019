//! `NdrCodec`: NDR stream frames.

use bytes::BytesMut;
use proptest::prelude::*;
use tokio_util::codec::{Decoder, Encoder};
use transports::codec::{CodecError, NdrCodec};
use transports::ndr::{NdrReader, NdrWriter};
use wire_ndr::{
    format_frame, message_from_body, parse_frame, parse_message, ByteOrder, Format, Frame, IOField,
    FRAME_HEAD_LEN, HEADER_LEN,
};

use crate::feed::{capacity_bound, cuts, feed};

fn tick(order: ByteOrder) -> Format {
    Format::from_fields(
        "tick",
        order,
        16,
        &[
            IOField::new("seq", "integer", 8, 0),
            IOField::new("value", "float", 8, 8),
        ],
        &[],
    )
    .unwrap()
}

proptest! {
    #[test]
    fn any_split_of_frames_decodes_to_the_frames(
        frames in prop::collection::vec(
            (any::<bool>(), any::<bool>(), prop::collection::vec(any::<u8>(), 0..200)),
            0..10,
        ),
        cuts in cuts(),
    ) {
        let mut want = Vec::new();
        for (format, big, body) in &frames {
            let f = tick(if *big { ByteOrder::Big } else { ByteOrder::Little });
            want.push(if *format {
                format_frame(&f)
            } else {
                message_from_body(f.id(), body).unwrap()
            });
        }
        let mut codec = NdrCodec::new();
        let mut wire = BytesMut::new();
        for frame in &want {
            codec.encode(&frame[..], &mut wire).unwrap();
        }
        prop_assert_eq!(&wire[..], &want.concat()[..]);
        let fed = feed(&mut codec, &wire, &cuts);
        prop_assert!(fed.error.is_none(), "{:?}", fed.error);
        prop_assert_eq!(&fed.frames, &want);
        for frame in &fed.frames {
            prop_assert!(parse_frame(frame).is_ok());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_nor_outgrow_the_cap(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        cuts in cuts(),
    ) {
        let fed = feed(&mut NdrCodec::new().max_frame(1024), &bytes, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, 0, fed.max_piece));
    }

    /// Frame heads of both kinds (and others) with lengths near the cap, lying about the
    /// data that follows.
    #[test]
    fn hostile_heads_never_panic_nor_outgrow_the_cap(
        parts in prop::collection::vec(
            (0usize..3, 0u32..3000, prop::collection::vec(any::<u8>(), 0..200)),
            0..24,
        ),
        cuts in cuts(),
    ) {
        let mut wire = Vec::new();
        for (magic, len, data) in &parts {
            wire.extend([&b"NDRr"[..], b"NDRf", b"NDRx"][*magic]);
            wire.extend(len.to_be_bytes());
            wire.extend(data);
        }
        let fed = feed(&mut NdrCodec::new().max_frame(1024), &wire, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, 0, fed.max_piece));
        for f in &fed.frames {
            prop_assert!(f.len() <= 1024);
        }
    }
}

#[test]
fn a_2_gib_head_is_refused_at_once() {
    for head in [*b"NDRr\x80\0\0\0", *b"NDRf\xff\xff\xff\xff"] {
        let mut src = BytesMut::from(&head[..]);
        let e = NdrCodec::new().decode(&mut src).unwrap_err();
        assert!(matches!(e, CodecError::TooLarge(_)), "{e}");
        assert!(e.to_string().contains("frame"), "{e}");
        assert!(src.capacity() < 64, "{}", src.capacity());
    }
    for (head, what) in [
        (*b"NDRx\0\0\0\x40", "not an NDR frame"),
        (*b"NDRr\0\0\0\x01", "shorter than its header"),
    ] {
        let e = NdrCodec::new()
            .decode(&mut BytesMut::from(&head[..]))
            .unwrap_err();
        assert!(matches!(e, CodecError::Malformed(_)), "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
    let mut out = BytesMut::new();
    let mut lying = format_frame(&tick(ByteOrder::Big));
    lying.push(0);
    assert!(NdrCodec::new().encode(&lying[..], &mut out).is_err());
    assert!(out.is_empty());
    // The end of the stream inside a frame.
    let mut src = BytesMut::from(&lying[..FRAME_HEAD_LEN + 1]);
    assert!(matches!(
        NdrCodec::new().decode_eof(&mut src),
        Err(CodecError::Io(_))
    ));
}

#[test]
fn the_blocking_streams_and_the_codec_agree() {
    let f = tick(ByteOrder::Big);
    let body = |seq: u64| [seq.to_be_bytes(), 2.5f64.to_be_bytes()].concat();

    // Written by NdrWriter, cut by the codec.
    let mut w = NdrWriter::new(Vec::new());
    for seq in 0..3 {
        w.send_body(&f, &body(seq)).unwrap();
    }
    let wire = w.into_inner();
    let fed = feed(&mut NdrCodec::new(), &wire, &[5, 9, 40]);
    assert!(fed.error.is_none());
    assert_eq!(fed.frames.len(), 4, "the format once, then three records");
    assert!(matches!(parse_frame(&fed.frames[0]).unwrap(), Frame::Format(g) if g == f));
    for (seq, frame) in fed.frames[1..].iter().enumerate() {
        assert!(matches!(parse_frame(frame).unwrap(), Frame::Record(_)));
        assert_eq!(parse_message(frame).unwrap().body, body(seq as u64));
        assert_eq!(frame.len(), HEADER_LEN + 16);
    }

    // Framed by the codec, read by NdrReader.
    let mut codec = NdrCodec::new();
    let mut wire = BytesMut::new();
    codec.encode(&format_frame(&f)[..], &mut wire).unwrap();
    for seq in 0..3 {
        codec
            .encode(
                &message_from_body(f.id(), &body(seq)).unwrap()[..],
                &mut wire,
            )
            .unwrap();
    }
    let mut r = NdrReader::new(&wire[..]);
    for seq in 0..3 {
        let msg = r.next_message().unwrap().unwrap();
        assert_eq!(parse_message(msg).unwrap().body, body(seq));
    }
    assert!(r.next_message().unwrap().is_none());
    assert_eq!(r.receiver().format(f.id()), Some(&f));
}
