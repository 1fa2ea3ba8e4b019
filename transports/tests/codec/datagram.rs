//! `DatagramCodec`: ONC RPC over UDP with `UdpFramed`.

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use proptest::prelude::*;
use tokio::net::UdpSocket;
use tokio_util::codec::{Decoder, Encoder};
use tokio_util::udp::UdpFramed;
use transports::codec::{CodecError, DatagramCodec};
use transports::rpc::{Call, Server, MAX_DATAGRAM};
use wire_xdr::rpc::{CallHeader, Message};

use crate::runtime::block_on;

proptest! {
    /// Each datagram, as `UdpFramed` hands it over, is one message; one over the cap is
    /// refused and consumed, so the next datagram decodes.
    #[test]
    fn a_datagram_is_one_message(datagrams in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 0..8)) {
        let mut codec = DatagramCodec::new().max_datagram(100);
        for d in &datagrams {
            let mut src = BytesMut::from(&d[..]);
            let r = codec.decode_eof(&mut src);
            prop_assert!(src.is_empty());
            match r {
                Ok(Some(msg)) => prop_assert_eq!(&msg[..], &d[..]),
                Ok(None) => prop_assert!(d.is_empty()),
                Err(CodecError::TooLarge(_)) => prop_assert!(d.len() > 100),
                Err(e) => prop_assert!(false, "{}", e),
            }
        }
    }
}

#[test]
fn the_cap_holds_both_ways() {
    let mut codec = DatagramCodec::new();
    let mut out = BytesMut::new();
    let e = codec
        .encode(Bytes::from(vec![0; MAX_DATAGRAM + 1]), &mut out)
        .unwrap_err();
    assert!(e.to_string().contains("65507"), "{e}");
    assert!(out.is_empty());
    codec
        .encode(Bytes::from(vec![0; MAX_DATAGRAM]), &mut out)
        .unwrap();
    assert_eq!(out.len(), MAX_DATAGRAM);
}

#[test]
fn udp_framed_calls_the_blocking_server() {
    const PROG: u32 = 0x2000_0078;
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add(PROG, 1, |call: &mut Call<'_>| {
        let v: Vec<u8> = call.args()?;
        call.reply(&(v.len() as u32))
    });
    let server = server.spawn().unwrap();
    let addr = server.udp_addr().unwrap();
    block_on(async {
        let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut framed = UdpFramed::new(socket, DatagramCodec::new());
        for (xid, len) in [(1u32, 0usize), (2, 10), (3, 60_000)] {
            let call = (&CallHeader::new(xid, PROG, 1, 1), &vec![7u8; len]);
            framed
                .send((Bytes::from(wire_xdr::to_vec(&call).unwrap()), addr))
                .await
                .unwrap();
            let (reply, from) = framed.next().await.unwrap().unwrap();
            assert_eq!(from, addr);
            let (Message::Reply(h), results) = Message::parse(&reply).unwrap() else {
                panic!("not a reply")
            };
            assert_eq!(h.xid, xid);
            assert_eq!(wire_xdr::from_slice::<u32>(results).unwrap(), len as u32);
        }
    });
    server.shutdown();
}
