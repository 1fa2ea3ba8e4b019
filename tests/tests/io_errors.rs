//! Clients whose connection fails report the `std::io::Error` behind it as their error's
//! source, with its kind: a peer that resets the connection (or closes it) is told from one
//! that stays silent past the timeout. For ONC RPC over TCP and for GIOP, both when the reply
//! has not begun and when it stops in the middle of a message decoded as it arrives.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, CallError, Client as GiopClient, Ior, Message, MessageHeader, MessageKind,
    ReplyHeader, ReplyStatus, HEADER_LEN,
};
use marshal::rpc::{Client as RpcClient, RpcError};

/// How the test peer ends a call.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// Closes the socket with unread data, so the kernel resets the connection.
    Reset,
    /// Holds the connection open and says nothing more.
    Silent,
}

/// The kind of the `io::Error` in the source chain of `e` (the first one).
fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<io::ErrorKind> {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            return Some(io.kind());
        }
        next = e.source();
    }
    None
}

/// The kind of the `io::Error` that `e`'s source is (the source itself, not deeper).
fn source_kind(e: &dyn std::error::Error) -> Option<io::ErrorKind> {
    e.source()
        .and_then(|s| s.downcast_ref::<io::Error>())
        .map(io::Error::kind)
}

fn assert_reset(kind: Option<io::ErrorKind>, what: &str) {
    assert!(
        matches!(
            kind,
            Some(io::ErrorKind::ConnectionReset | io::ErrorKind::UnexpectedEof)
        ),
        "{what}: {kind:?}"
    );
}

fn assert_timed_out(kind: Option<io::ErrorKind>, what: &str) {
    assert!(
        matches!(
            kind,
            Some(io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
        ),
        "{what}: {kind:?}"
    );
}

/// Ends the connection as `end` says, `s` having unread data for a reset. A silent peer
/// waits until the client has gone.
fn end_connection(mut s: TcpStream, end: End) {
    match end {
        End::Reset => drop(s),
        End::Silent => {
            let mut sink = Vec::new();
            let _ = s.read_to_end(&mut sink);
        }
    }
}

/// An ONC RPC peer that waits for a call and then ends the connection without a reply.
fn rpc_peer(end: End) -> (std::net::SocketAddr, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        // The call has arrived, unread.
        s.peek(&mut [0u8; 1]).unwrap();
        end_connection(s, end);
    });
    (addr, t)
}

#[test]
fn rpc_client_tells_a_reset_from_a_timeout() {
    let (addr, t) = rpc_peer(End::Reset);
    let mut c = RpcClient::connect_tcp(addr, 0x2000_0010, 1).unwrap();
    c.set_timeout(Duration::from_secs(10));
    let e = c.call::<Vec<u8>, ()>(1, &vec![0; 1000]).unwrap_err();
    assert!(matches!(e, RpcError::Io(_)), "{e}");
    assert_reset(source_kind(&e), "reset");
    t.join().unwrap();

    let (addr, t) = rpc_peer(End::Silent);
    let mut c = RpcClient::connect_tcp(addr, 0x2000_0010, 1).unwrap();
    c.set_timeout(Duration::from_millis(100));
    let e = c.call::<Vec<u8>, ()>(1, &vec![0; 1000]).unwrap_err();
    assert!(matches!(e, RpcError::Timeout), "{e}");
    assert_timed_out(source_kind(&e), "timeout");
    drop(c);
    t.join().unwrap();
}

/// Where the GIOP peer stops answering its second request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cut {
    /// Before any of the reply.
    BeforeReply,
    /// After the message header and 4 bytes of the reply header: the client, whose buffer
    /// the first reply grew, decodes the reply as it arrives.
    InReplyHeader,
    /// After the reply header and part of the body.
    InBody,
}

/// A GIOP peer: answers the first request with a large reply (so the client's buffer has
/// room for the next one), then reads only the header of the second request and cuts its
/// reply at `cut` before ending the connection as `end` says.
fn giop_peer(cut: Cut, end: End) -> (Ior, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ior = Ior::parse(&format!("corbaloc::1.2@127.0.0.1:{port}/Cut")).unwrap();
    let big = vec![7u8; 1 << 20];
    let t = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let msg = read_message(&mut s);
        let m = Message::parse(&msg).unwrap();
        let MessageKind::Request(h) = m.kind else {
            panic!("expected a request, got {:?}", m.kind)
        };
        let mut reply = Vec::new();
        let head = ReplyHeader {
            request_id: h.request_id,
            status: ReplyStatus::NoException,
            service_contexts: vec![],
        };
        encode_message(&mut reply, m.header.version, ByteOrder::Big, &head, &big).unwrap();
        s.write_all(&reply).unwrap();

        // The second request: its header only (its body stays unread).
        let mut head_bytes = [0u8; HEADER_LEN + 4];
        s.read_exact(&mut head_bytes).unwrap();
        let id = u32::from_be_bytes(head_bytes[HEADER_LEN..].try_into().unwrap());
        let mut reply = Vec::new();
        let head = ReplyHeader {
            request_id: id,
            ..head
        };
        encode_message(&mut reply, m.header.version, ByteOrder::Big, &head, &big).unwrap();
        let sent = match cut {
            Cut::BeforeReply => 0,
            Cut::InReplyHeader => HEADER_LEN + 4,
            Cut::InBody => HEADER_LEN + 64,
        };
        s.write_all(&reply[..sent]).unwrap();
        // Let the client take what was sent and wait for the rest.
        thread::sleep(Duration::from_millis(100));
        end_connection(s, end);
    });
    (ior, t)
}

/// Reads one whole message from a raw socket.
fn read_message(s: &mut TcpStream) -> Vec<u8> {
    let mut head = [0u8; HEADER_LEN];
    s.read_exact(&mut head).unwrap();
    let h = MessageHeader::parse(&head).unwrap();
    let mut m = head.to_vec();
    m.resize(HEADER_LEN + h.size as usize, 0);
    s.read_exact(&mut m[HEADER_LEN..]).unwrap();
    m
}

#[test]
fn giop_client_tells_a_reset_from_a_timeout() {
    for cut in [Cut::BeforeReply, Cut::InReplyHeader, Cut::InBody] {
        for end in [End::Reset, End::Silent] {
            let (ior, t) = giop_peer(cut, end);
            let mut c = GiopClient::connect(&ior).unwrap();
            c.set_byte_order(ByteOrder::Big);
            let timeout = match end {
                End::Reset => Duration::from_secs(10),
                End::Silent => Duration::from_millis(300),
            };
            c.set_timeout(Some(timeout)).unwrap();
            let back: Vec<u8> = c.invoke("first", &()).unwrap();
            assert_eq!(back.len(), 1 << 20);
            let e = c
                .invoke::<_, Vec<u8>>("second", &vec![0u8; 1000])
                .unwrap_err();
            let what = format!("{cut:?}, {end:?}: {e}");
            assert!(matches!(e, CallError::Transport(_)), "{what}");
            match end {
                End::Reset => assert_reset(source_kind(&e), &what),
                End::Silent => assert_timed_out(source_kind(&e), &what),
            }
            drop(c);
            t.join().unwrap();
        }
    }
}

/// A decoder's own error for a message that stopped arriving has the I/O error as its
/// source too, whatever wraps it.
#[test]
fn marshal_errors_of_a_message_that_stopped_arriving_carry_the_io_error() {
    use marshal::arriving::Arriving;
    use std::cell::Cell;

    struct Reset;
    impl Read for Reset {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::ErrorKind::ConnectionReset.into())
        }
    }
    let filled = Cell::new(HEADER_LEN);
    let reply = {
        let mut v = Vec::new();
        let head = ReplyHeader {
            request_id: 1,
            status: ReplyStatus::NoException,
            service_contexts: vec![],
        };
        encode_message(
            &mut v,
            marshal::giop::Version::V1_2,
            ByteOrder::Big,
            &head,
            &[0u8; 40][..],
        )
        .unwrap();
        v
    };
    let mut buf = vec![0u8; reply.len()];
    buf[..HEADER_LEN].copy_from_slice(&reply[..HEADER_LEN]);
    let arriving = Arriving::new(&mut buf, &filled, Reset);
    let e = Message::parse_arriving(&arriving).unwrap_err();
    assert_eq!(io_kind(&e), Some(io::ErrorKind::ConnectionReset), "{e}");
    assert_eq!(
        e.io_error().map(io::Error::kind),
        Some(io::ErrorKind::ConnectionReset)
    );
}
