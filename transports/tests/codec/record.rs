//! `RecordCodec`: ONC RPC record marking.

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use proptest::prelude::*;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, Framed};
use transports::codec::{CodecError, RecordCodec};
use transports::rpc::{write_record, Call, Server};
use wire_xdr::rpc::{
    AcceptStat, CallHeader, FragmentHeader, Message, RecordReader, ReplyBody, LAST_FRAGMENT,
};

use crate::feed::{capacity_bound, cuts, feed};
use crate::runtime::block_on;

/// Records encoded by the codec in fragments of `fragment_size`.
fn encode_all(records: &[Vec<u8>], fragment_size: usize) -> BytesMut {
    let mut codec = RecordCodec::new().fragment_size(fragment_size);
    let mut wire = BytesMut::new();
    for r in records {
        codec.encode(&r[..], &mut wire).unwrap();
    }
    wire
}

fn records() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..8)
}

proptest! {
    #[test]
    fn any_split_of_records_decodes_to_the_records(
        records in records(),
        fragment_size in 1usize..64,
        cuts in cuts(),
    ) {
        let wire = encode_all(&records, fragment_size);
        let fed = feed(&mut RecordCodec::new(), &wire, &cuts);
        prop_assert!(fed.error.is_none(), "{:?}", fed.error);
        prop_assert_eq!(fed.frames, records.clone());
        // The blocking reader reads the same records from the same bytes.
        let mut rr = RecordReader::new();
        let mut input = &wire[..];
        for r in &records {
            prop_assert_eq!(rr.read_record(&mut input).unwrap(), &r[..]);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_nor_outgrow_the_cap(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        cuts in cuts(),
    ) {
        let mut codec = RecordCodec::new().max_record(1024).max_fragments(16);
        let fed = feed(&mut codec, &bytes, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, 4 * 16, fed.max_piece));
    }

    /// Headers of plausible lengths (some over the cap, some lying about their data).
    #[test]
    fn hostile_fragments_never_panic_nor_outgrow_the_cap(
        parts in prop::collection::vec(
            (0usize..3000, any::<bool>(), prop::collection::vec(any::<u8>(), 0..200)),
            0..24,
        ),
        cuts in cuts(),
    ) {
        let mut wire = Vec::new();
        for (len, last, data) in &parts {
            wire.extend(FragmentHeader { len: *len, last: *last }.to_bytes().unwrap());
            wire.extend(data);
        }
        let mut codec = RecordCodec::new().max_record(1024).max_fragments(16);
        let fed = feed(&mut codec, &wire, &cuts);
        prop_assert!(fed.max_capacity <= capacity_bound(1024, 4 * 16, fed.max_piece));
        for f in &fed.frames {
            prop_assert!(f.len() <= 1024);
        }
    }
}

#[test]
fn a_2_gib_header_is_refused_at_once() {
    for word in [
        LAST_FRAGMENT | 0x7fff_ffff,
        0x7fff_ffff,
        LAST_FRAGMENT | 0x4000_0000,
    ] {
        let mut src = BytesMut::from(&word.to_be_bytes()[..]);
        let e = RecordCodec::new().decode(&mut src).unwrap_err();
        let CodecError::TooLarge(e) = e else {
            panic!("{e}")
        };
        assert!(e.to_string().contains("record"), "{e}");
        assert!(src.capacity() < 64, "{}", src.capacity());
    }
    // A later fragment that takes the record past the cap.
    let mut codec = RecordCodec::new().max_record(10);
    let mut src = BytesMut::from(&b"\0\0\0\x06abcdef\x80\0\0\x05"[..]);
    let e = codec.decode(&mut src).unwrap_err();
    assert!(e.to_string().contains("11"), "{e}");
    // And one fragment too many.
    let mut codec = RecordCodec::new().max_fragments(2);
    let mut src = BytesMut::from(&b"\0\0\0\0\0\0\0\0\x80\0\0\0"[..]);
    let e = codec.decode(&mut src).unwrap_err();
    assert!(e.to_string().contains("fragments"), "{e}");
}

#[test]
fn the_buffer_grows_with_the_data_not_with_the_header() {
    // A 60 MiB record (under the default cap of 64 MiB) of which 10 bytes come.
    let mut src = BytesMut::new();
    src.extend_from_slice(&(LAST_FRAGMENT | (60 << 20)).to_be_bytes());
    src.extend_from_slice(&[0; 10]);
    let mut codec = RecordCodec::new();
    assert_eq!(codec.decode(&mut src).unwrap(), None);
    assert!(src.capacity() <= 128 * 1024, "{}", src.capacity());
    // The end of the stream inside it is an error, not a clean end.
    let e = codec.decode_eof(&mut src).unwrap_err();
    assert!(matches!(&e, CodecError::Io(io) if io.kind() == std::io::ErrorKind::UnexpectedEof));
    assert!(e.to_string().contains("inside a record"), "{e}");
}

#[test]
fn a_record_begun_in_another_buffer_is_an_error_not_a_panic() {
    let mut codec = RecordCodec::new();
    let mut src = BytesMut::from(&b"\0\0\0\x03abc\0\0"[..]);
    assert_eq!(codec.decode(&mut src).unwrap(), None);
    let e = codec.decode(&mut BytesMut::new()).unwrap_err();
    assert!(e.to_string().contains("one buffer"), "{e}");
    assert!(codec.is_idle());
}

#[test]
fn the_encoder_keeps_to_the_caps() {
    let mut wire = BytesMut::new();
    let mut codec = RecordCodec::new().max_record(4);
    assert!(matches!(
        codec.encode(&b"12345"[..], &mut wire),
        Err(CodecError::TooLarge(_))
    ));
    let mut codec = RecordCodec::new().fragment_size(2).max_fragments(2);
    assert!(codec.encode(&b"12345"[..], &mut wire).is_err());
    assert!(wire.is_empty());
    codec.encode(Bytes::new(), &mut wire).unwrap();
    assert_eq!(
        &wire[..],
        [0x80, 0, 0, 0],
        "an empty record is one empty last fragment"
    );
}

#[test]
fn the_blocking_framing_and_the_codec_agree() {
    // Written by the blocking transports' writer, read by the codec.
    let mut wire = Vec::new();
    let msg = (&CallHeader::new(7, 0x2000_0001, 1, 2), &(5i32, 6i32));
    write_record(&mut wire, &mut Vec::new(), 1 << 20, msg).unwrap();
    write_record(&mut wire, &mut Vec::new(), 1 << 20, msg).unwrap();
    let fed = feed(&mut RecordCodec::new(), &wire, &[3, 50]);
    assert!(fed.error.is_none());
    assert_eq!(fed.frames.len(), 2);
    assert_eq!(fed.frames[0], wire_xdr::to_vec(&msg).unwrap());
    let (Message::Call(h), args) = Message::parse(&fed.frames[1]).unwrap() else {
        panic!("not a call")
    };
    assert_eq!((h.xid, h.procedure), (7, 2));
    assert_eq!(wire_xdr::from_slice::<(i32, i32)>(args).unwrap(), (5, 6));

    // Written by the codec in fragments, read by the blocking reader.
    let body = wire_xdr::to_vec(&msg).unwrap();
    let mut wire = BytesMut::new();
    RecordCodec::new()
        .fragment_size(5)
        .encode(&body[..], &mut wire)
        .unwrap();
    assert_eq!(wire.len(), body.len() + 4 * body.len().div_ceil(5));
    let mut input = &wire[..];
    assert_eq!(RecordReader::new().read_record(&mut input).unwrap(), body);
}

#[test]
fn records_cross_a_tokio_tcp_loopback() {
    block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut framed = Framed::new(stream, RecordCodec::new().fragment_size(1000));
            while let Some(record) = framed.next().await {
                let mut r = record.unwrap().to_vec();
                r.reverse();
                framed.send(Bytes::from(r)).await.unwrap();
            }
        });
        let stream = TcpStream::connect(addr).await.unwrap();
        let mut framed = Framed::new(stream, RecordCodec::new().fragment_size(16 * 1024));
        for len in [0, 1, 4, 1000, 1001, 200_000] {
            let record: Vec<u8> = (0..len).map(|i| i as u8).collect();
            framed.send(Bytes::from(record.clone())).await.unwrap();
            let back = framed.next().await.unwrap().unwrap();
            let mut want = record;
            want.reverse();
            assert_eq!(back, want, "len {len}");
        }
        drop(framed);
        server.await.unwrap();
    });
}

#[test]
fn an_async_client_calls_the_blocking_server() {
    const PROG: u32 = 0x2000_0077;
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add(PROG, 1, |call: &mut Call<'_>| match call.procedure() {
        1 => {
            let (a, b): (i32, i32) = call.args()?;
            call.reply(&a.wrapping_add(b))
        }
        _ => call.proc_unavail(),
    });
    let server = server.spawn().unwrap();
    let addr = server.tcp_addr().unwrap();
    block_on(async {
        let stream = TcpStream::connect(addr).await.unwrap();
        // Small fragments: the blocking server reassembles them.
        let mut framed = Framed::new(stream, RecordCodec::new().fragment_size(8));
        for xid in 1..4u32 {
            let call = (&CallHeader::new(xid, PROG, 1, 1), &(40i32, xid as i32));
            framed
                .send(Bytes::from(wire_xdr::to_vec(&call).unwrap()))
                .await
                .unwrap();
            let reply = framed.next().await.unwrap().unwrap();
            let (Message::Reply(h), results) = Message::parse(&reply).unwrap() else {
                panic!("not a reply")
            };
            assert_eq!(h.xid, xid);
            assert!(matches!(
                h.body,
                ReplyBody::Accepted {
                    stat: AcceptStat::Success,
                    ..
                }
            ));
            assert_eq!(
                wire_xdr::from_slice::<i32>(results).unwrap(),
                40 + xid as i32
            );
        }
    });
    server.shutdown();
}
