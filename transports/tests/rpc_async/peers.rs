//! Hand-made blocking peers that misbehave in controlled ways: a TCP server answering in
//! reverse order and never answering one procedure, one that closes after a call, and a
//! UDP server that ignores the first copy of every call.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use transports::rpc::write_record;
use wire_xdr::rpc::{AcceptStat, Message, RecordReader, ReplyHeader};

/// Answered with its argument plus one.
pub const INC: u32 = 1;
/// Never answered.
pub const SILENT: u32 = 9;

/// The xid and the `u32` argument of a call (`None` for anything else).
fn parse_call(msg: &[u8]) -> Option<(u32, u32, u32)> {
    let (Message::Call(h), args) = Message::parse(msg).ok()? else {
        return None;
    };
    let x: u32 = wire_xdr::from_slice(args).ok()?;
    Some((h.xid, h.procedure, x))
}

fn reply_to(xid: u32, x: u32) -> (ReplyHeader<'static>, u32) {
    (
        ReplyHeader::accepted(xid, AcceptStat::Success),
        x.wrapping_add(1),
    )
}

/// A TCP server of one connection: it gathers `batch` calls to [`INC`] and answers them in
/// the reverse order of their arrival; calls to [`SILENT`] are never answered. It ends when
/// the connection does.
pub fn reverse_peer(batch: usize) -> (SocketAddr, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut rx = RecordReader::new();
        let mut scratch = Vec::new();
        let mut held = Vec::new();
        let mut input = stream.try_clone().unwrap();
        while let Ok(record) = rx.read_record(&mut input) {
            match parse_call(record) {
                Some((xid, INC, x)) => held.push((xid, x)),
                _ => continue,
            }
            if held.len() == batch {
                for (xid, x) in held.drain(..).rev() {
                    let (h, r) = reply_to(xid, x);
                    if write_record(&mut stream, &mut scratch, 1 << 20, (&h, &r)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    (addr, t)
}

/// A TCP server that reads one call and answers it with `answer(xid)` (raw bytes, framing
/// included), then waits for the client to close.
pub fn raw_answer_peer(answer: fn(u32) -> Vec<u8>) -> (SocketAddr, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut rx = RecordReader::new();
        let Ok(record) = rx.read_record(&mut stream) else {
            return;
        };
        let Some((xid, _, _)) = parse_call(record) else {
            return;
        };
        if stream.write_all(&answer(xid)).is_ok() {
            let _ = stream.read(&mut [0; 1]);
        }
    });
    (addr, t)
}

/// A TCP server that reads one call and closes the connection without answering.
pub fn closing_peer() -> (SocketAddr, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let _ = RecordReader::new().read_record(&mut stream);
    });
    (addr, t)
}

/// A UDP server that drops the first copy of every call to [`INC`] and answers the next
/// ones; it counts every datagram it receives, and ends on an empty datagram.
pub fn lossy_udp_peer() -> (SocketAddr, Arc<AtomicUsize>, JoinHandle<()>) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = socket.local_addr().unwrap();
    let received = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&received);
    let t = std::thread::spawn(move || {
        let mut seen: HashMap<u32, usize> = HashMap::new();
        let mut buf = vec![0; 65_536];
        loop {
            let Ok((n, peer)) = socket.recv_from(&mut buf) else {
                return;
            };
            if n == 0 {
                return;
            }
            count.fetch_add(1, Ordering::SeqCst);
            let Some((xid, INC, x)) = parse_call(&buf[..n]) else {
                continue;
            };
            let copies = seen.entry(xid).or_default();
            *copies += 1;
            if *copies > 1 {
                let reply = wire_xdr::to_vec(&reply_to(xid, x)).unwrap();
                socket.send_to(&reply, peer).unwrap();
            }
        }
    });
    (addr, received, t)
}

/// Ends a [`lossy_udp_peer`].
pub fn stop_udp_peer(addr: SocketAddr) {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .send_to(&[], addr)
        .unwrap();
}
