//! The hostile clients of the load test, on raw TCP streams: some hold a connection in a bad
//! state until the server shuts down (stalled mid-record, silent, or sending calls without
//! reading replies), others come and go while the load runs (2 GiB fragment headers, junk
//! records, truncated records), checking what the server answers.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;
use wire_xdr::rpc::{AcceptStat, CallHeader, Message, RejectedReply, ReplyBody};
use wire_xdr::Encode;

use crate::programs::{Rng, ADD, ECHO, PROG, VERS};

/// How long a hostile client waits for the server before it fails the test.
const PATIENCE: Duration = Duration::from_secs(20);

/// The last-fragment bit of a record mark.
const LAST: u32 = 0x8000_0000;

/// One record of one fragment holding `body`.
pub fn record(body: &[u8]) -> Vec<u8> {
    let mut r = (LAST | body.len() as u32).to_be_bytes().to_vec();
    r.extend_from_slice(body);
    r
}

/// The message of a call of the test program.
fn call_message(xid: u32, procedure: u32, args: &(impl Encode + ?Sized)) -> Vec<u8> {
    wire_xdr::to_vec(&(&CallHeader::new(xid, PROG, VERS, procedure), args)).unwrap()
}

/// The record of a call of the test program.
pub fn call(xid: u32, procedure: u32, args: &(impl Encode + ?Sized)) -> Vec<u8> {
    record(&call_message(xid, procedure, args))
}

async fn connect(addr: SocketAddr) -> TcpStream {
    let s = timeout(PATIENCE, TcpStream::connect(addr))
        .await
        .expect("connected in time")
        .expect("connected");
    s.set_nodelay(true).unwrap();
    s
}

async fn send(s: &mut TcpStream, bytes: &[u8]) {
    timeout(PATIENCE, s.write_all(bytes))
        .await
        .expect("sent in time")
        .expect("sent");
}

/// Reads one reply record (the server sends each as one fragment).
async fn read_reply(s: &mut TcpStream) -> Vec<u8> {
    let mut mark = [0; 4];
    timeout(PATIENCE, s.read_exact(&mut mark))
        .await
        .expect("a reply in time")
        .expect("a reply");
    let mark = u32::from_be_bytes(mark);
    assert!(mark & LAST != 0, "a reply in several fragments: {mark:#x}");
    let len = (mark & !LAST) as usize;
    assert!(len <= 1 << 20, "a reply of {len} bytes");
    let mut body = vec![0; len];
    timeout(PATIENCE, s.read_exact(&mut body))
        .await
        .expect("a reply in time")
        .expect("a reply");
    body
}

/// Reads a reply and checks that it answers `xid` with `expected` (results after a
/// `SUCCESS`, nothing after anything else).
async fn expect_reply(s: &mut TcpStream, xid: u32, expected: Expected<'_>) {
    let reply = read_reply(s).await;
    let (Message::Reply(h), rest) = Message::parse(&reply).expect("a reply message") else {
        panic!("not a reply: {reply:?}");
    };
    assert_eq!(h.xid, xid, "a reply to another call");
    match (h.body, expected) {
        (
            ReplyBody::Accepted {
                stat: AcceptStat::Success,
                ..
            },
            Expected::Results(results),
        ) => assert_eq!(rest, results, "xid {xid}"),
        (ReplyBody::Accepted { stat, .. }, Expected::Accepted(want)) => {
            assert_eq!(stat, want, "xid {xid}")
        }
        (ReplyBody::Denied(why), Expected::Denied(want)) => assert_eq!(why, want, "xid {xid}"),
        (body, _) => panic!("xid {xid}: unexpected reply {body:?}"),
    }
}

/// What a reply should say.
#[derive(Debug, Clone, Copy)]
enum Expected<'a> {
    Results(&'a [u8]),
    Accepted(AcceptStat),
    Denied(RejectedReply),
}

/// Sends an ADD call and checks its reply.
async fn add_round_trip(s: &mut TcpStream, xid: u32) {
    let (a, b) = (xid as i32, 7i32);
    send(s, &call(xid, ADD, &(a, b))).await;
    let sum = wire_xdr::to_vec(&a.wrapping_add(b)).unwrap();
    expect_reply(s, xid, Expected::Results(&sum)).await;
}

/// Whether the server has closed `s`: its end of stream (or a reset) comes within `limit`,
/// after at most `max_unread` bytes still on their way (replies it was not reading).
pub async fn closed_within(s: &mut TcpStream, limit: Duration, max_unread: usize) -> bool {
    let mut buf = vec![0u8; 64 * 1024];
    let mut unread = 0;
    let wait = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return true,
                Ok(n) => {
                    unread += n;
                    if unread > max_unread {
                        return false;
                    }
                }
            }
        }
    };
    timeout(limit, wait).await.unwrap_or(false)
}

/// Whether `s` is still open with nothing to read (the server has neither closed it nor
/// answered anything on it).
pub fn still_open(s: &TcpStream) -> bool {
    matches!(s.try_read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

/// How a held connection misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// Half a record mark.
    MidMark,
    /// A mark claiming a 4 MiB record, then 16 KiB of it.
    MidRecord,
    /// A whole first fragment, then a second claiming 1 MiB and 4 KiB of it.
    MidSecondFragment,
    /// Half of a well-formed ADD call.
    HalfCall,
    /// Nothing at all.
    Silent,
    /// 8 KiB ECHO calls, replies never read, until the server stops reading (its bound on
    /// calls in flight reached, the socket buffers full).
    NoReader,
}

/// The bytes a held connection of each kind has the server buffer, at most (the data of
/// its partial record, which the server keeps while waiting for the rest).
pub fn held_data(kind: Held) -> usize {
    match kind {
        Held::MidMark => 2,
        Held::MidRecord => 4 + (16 << 10),
        Held::MidSecondFragment => 4 + 1024 + 4 + (4 << 10),
        Held::HalfCall => 64,
        Held::Silent => 0,
        // Calls in flight, not a partial record: see the test's bound.
        Held::NoReader => 0,
    }
}

/// Opens a connection and leaves it as `kind` says; the caller holds it.
pub async fn hold(addr: SocketAddr, kind: Held, n: u32) -> TcpStream {
    let mut s = connect(addr).await;
    match kind {
        Held::MidMark => send(&mut s, &(LAST | 100).to_be_bytes()[..2]).await,
        Held::MidRecord => {
            let mut wire = (LAST | 4 << 20).to_be_bytes().to_vec();
            wire.resize(4 + (16 << 10), n as u8);
            send(&mut s, &wire).await;
        }
        Held::MidSecondFragment => {
            let mut wire = 1024u32.to_be_bytes().to_vec();
            wire.resize(4 + 1024, 1);
            wire.extend_from_slice(&(LAST | 1 << 20).to_be_bytes());
            wire.resize(wire.len() + (4 << 10), 2);
            send(&mut s, &wire).await;
        }
        Held::HalfCall => {
            let call = call(n, ADD, &(1i32, 2i32));
            send(&mut s, &call[..call.len() / 2]).await;
        }
        Held::Silent => {}
        Held::NoReader => {
            let data = vec![n as u8; 8 << 10];
            let mut sent = 0;
            loop {
                assert!(
                    sent < 20_000,
                    "the server read 20,000 calls whose replies were not read"
                );
                let call = call(sent, ECHO, data.as_slice());
                // A write that does not finish for 300 ms: the server has stopped reading.
                match timeout(Duration::from_millis(300), s.write_all(&call)).await {
                    Ok(r) => r.expect("sent"),
                    Err(_) => break,
                }
                sent += 1;
            }
        }
    }
    s
}

/// What the churning hostile clients did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Churned {
    /// Connections closed by the server at a 2 GiB fragment header.
    pub giant: u64,
    /// Junk records sent (each followed by a checked call on its connection).
    pub junk: u64,
    /// Connections that sent a truncated record, then closed.
    pub truncated: u64,
}

impl std::ops::AddAssign for Churned {
    fn add_assign(&mut self, o: Churned) {
        self.giant += o.giant;
        self.junk += o.junk;
        self.truncated += o.truncated;
    }
}

/// One churning client: until `done` (or 2,000 rounds), each round opens a connection and
/// sends it a 2 GiB fragment header, junk records or a truncated record, then checks what
/// the server did.
pub async fn churn(addr: SocketAddr, seed: u64, done: Arc<AtomicBool>) -> Churned {
    let mut rng = Rng::new(seed);
    let mut did = Churned::default();
    for round in 0..2000u32 {
        if done.load(Ordering::Relaxed) {
            break;
        }
        let xid = (seed as u32) << 16 | round;
        let mut s = connect(addr).await;
        match rng.below(3) {
            0 => {
                // A well-formed call, then a fragment header claiming 2 GiB - 1 (as the
                // last fragment or not): the call is answered, then the connection closed.
                let giant = if rng.below(2) == 0 {
                    0x7fff_ffffu32
                } else {
                    0xffff_ffff
                };
                let mut wire = call(xid, ADD, &(xid as i32, 7i32));
                wire.extend_from_slice(&giant.to_be_bytes());
                wire.resize(wire.len() + 64, 0x5a);
                send(&mut s, &wire).await;
                let sum = wire_xdr::to_vec(&(xid as i32).wrapping_add(7)).unwrap();
                expect_reply(&mut s, xid, Expected::Results(&sum)).await;
                assert!(
                    closed_within(&mut s, PATIENCE, 0).await,
                    "a 2 GiB fragment header ({giant:#x}) did not close the connection"
                );
                did.giant += 1;
            }
            1 => {
                // Junk records in good framing, each followed by a call answered in turn.
                for k in 0..8u32 {
                    let jx = xid.wrapping_add(k << 24);
                    junk(&mut s, &mut rng, jx).await;
                    add_round_trip(&mut s, jx ^ 0x0080_0000).await;
                    did.junk += 1;
                }
            }
            _ => {
                // Part of a record, then the connection closed.
                let claimed = 8 + rng.below(200_000) as usize;
                let sent = rng.below(claimed as u64) as usize;
                let mut wire = (LAST | claimed as u32).to_be_bytes().to_vec();
                wire.resize(4 + sent, 0xa5);
                send(&mut s, &wire).await;
                drop(s);
                did.truncated += 1;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    did
}

/// Sends one junk record: a message that is no call, a call cut short, a call with garbage
/// arguments or of another RPC version; checks the reply the last two get.
async fn junk(s: &mut TcpStream, rng: &mut Rng, xid: u32) {
    match rng.below(5) {
        0 => {
            // Random bytes whose message type is neither CALL nor REPLY: no answer.
            let mut body: Vec<u8> = (0..rng.below(120)).map(|_| rng.next() as u8).collect();
            if body.len() >= 8 {
                body[4..8].copy_from_slice(&(2 + rng.below(1000) as u32).to_be_bytes());
            }
            send(s, &record(&body)).await;
        }
        1 => {
            // A reply sent to the server: no answer.
            let reply = wire_xdr::to_vec(&wire_xdr::rpc::ReplyHeader::accepted(
                xid,
                AcceptStat::Success,
            ))
            .unwrap();
            send(s, &record(&reply)).await;
        }
        2 => {
            // A call header cut short: no answer.
            let msg = call_message(xid, ADD, &(1i32, 2i32));
            let cut = 1 + rng.below(39) as usize;
            send(s, &record(&msg[..cut])).await;
        }
        3 => {
            // ADD with 3 bytes for its two integers: GARBAGE_ARGS.
            let mut msg = call_message(xid, ADD, &());
            msg.extend_from_slice(&[1, 2, 3]);
            send(s, &record(&msg)).await;
            expect_reply(s, xid, Expected::Accepted(AcceptStat::GarbageArgs)).await;
        }
        _ => {
            // RPC version 3: RPC_MISMATCH.
            let h = CallHeader {
                rpcvers: 3,
                ..CallHeader::new(xid, PROG, VERS, ADD)
            };
            send(s, &record(&wire_xdr::to_vec(&(&h, &(1i32, 2i32))).unwrap())).await;
            let why = RejectedReply::RpcMismatch { low: 2, high: 2 };
            expect_reply(s, xid, Expected::Denied(why)).await;
        }
    }
}
