//! Results that borrow from the reply, through the clients: `rpc::Client::call_ref` (TCP and
//! UDP) and `recv_reply_ref`, and `giop::Client::invoke_ref` (both byte orders). The `&[u8]`
//! and `&str` of a result point into the client's receive buffer (no copy), and a second
//! call after the first result is dropped reuses it. (That a result kept alive across a
//! second call does not compile is `ui/client_ref_kept_across_call.rs`.)

use std::ops::Range;

use marshal::cdr::ByteOrder;
use marshal::giop::{Call as GiopCall, CallError};
use marshal::rpc::{Call, Client, Server};
use marshal::Marshal;

const PROG: u32 = 0x2000_7022;

/// What the clients decode: it borrows.
#[derive(Marshal, Debug, PartialEq)]
struct ReadRes<'a> {
    eof: bool,
    name: &'a str,
    data: &'a [u8],
}

/// What the servers encode: the same wire form, owned.
#[derive(Marshal, Debug)]
struct ReadResOwned {
    eof: bool,
    name: String,
    data: Vec<u8>,
}

/// The reply to a read of `len` bytes from file `seed`.
fn file(seed: u32, len: u32) -> ReadResOwned {
    ReadResOwned {
        eof: seed % 2 == 1,
        name: format!("file-{seed}.txt"),
        data: (0..len)
            .map(|i| (i.wrapping_mul(31) ^ seed) as u8)
            .collect(),
    }
}

/// The borrowed view of `file(seed, len)`, to compare with.
fn expected(owned: &ReadResOwned) -> ReadRes<'_> {
    ReadRes {
        eof: owned.eof,
        name: &owned.name,
        data: &owned.data,
    }
}

/// Where `r`'s `name` and `data` lie.
fn spans(r: &ReadRes<'_>) -> [Range<*const u8>; 2] {
    [r.name.as_bytes().as_ptr_range(), r.data.as_ptr_range()]
}

/// Asserts that each span lies inside `buffer` (the client's copy of the reply).
fn inside(spans: &[Range<*const u8>; 2], buffer: &[u8]) {
    let b = buffer.as_ptr_range();
    assert!(!buffer.is_empty(), "no reply in the client's buffer");
    for s in spans {
        assert!(
            b.start <= s.start && s.end <= b.end,
            "{s:?} is not inside the receive buffer {b:?}: the result was copied"
        );
    }
}

fn rpc_server() -> marshal::rpc::ServerHandle {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add(PROG, 1, |call: &mut Call<'_>| match call.procedure() {
        0 => call.reply(&()),
        1 => {
            let (seed, len): (u32, u32) = call.args()?;
            call.reply(&file(seed, len))
        }
        _ => call.proc_unavail(),
    });
    server.spawn().unwrap()
}

/// Two calls in a row through `call_ref`, each result checked and dropped before the next.
fn rpc_calls(client: &mut Client, lens: &[u32]) {
    for (seed, &len) in lens.iter().enumerate() {
        let want = file(seed as u32, len);
        let r: ReadRes<'_> = client.call_ref(1, &(seed as u32, len)).unwrap();
        assert_eq!(r, expected(&want));
        let spans = spans(&r);
        // `r` is dead from here: the client may be used again.
        inside(&spans, client.last_reply());
    }
    // The owned call still works on the same client, and the next borrowed one after it.
    assert_eq!(client.call::<(), ()>(0, &()).unwrap(), ());
    let r: ReadRes<'_> = client.call_ref(1, &(7u32, 5u32)).unwrap();
    assert_eq!(r, expected(&file(7, 5)));
}

#[test]
fn call_ref_over_tcp_borrows_from_the_record() {
    let server = rpc_server();
    let mut client = Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1).unwrap();
    // Small, then large enough to take many reads, then small again in the grown buffer.
    rpc_calls(&mut client, &[10, 300_000, 0, 3]);
}

#[test]
fn call_ref_over_udp_borrows_from_the_datagram() {
    let server = rpc_server();
    let mut client = Client::connect_udp(server.udp_addr().unwrap(), PROG, 1).unwrap();
    rpc_calls(&mut client, &[10, 60_000, 0, 3]);
}

/// A reply that came before it was asked for is kept aside, and borrowed from there.
#[test]
fn recv_reply_ref_borrows_a_pipelined_reply_kept_aside() {
    let server = rpc_server();
    let mut client = Client::connect_tcp(server.tcp_addr().unwrap(), PROG, 1).unwrap();
    let a = client.send_call(1, &(1u32, 1000u32)).unwrap();
    let b = client.send_call(1, &(2u32, 2000u32)).unwrap();
    let r: ReadRes<'_> = client.recv_reply_ref(b).unwrap();
    assert_eq!(r, expected(&file(2, 2000)));
    let spans_b = spans(&r);
    inside(&spans_b, client.last_reply());
    let r: ReadRes<'_> = client.recv_reply_ref(a).unwrap();
    assert_eq!(r, expected(&file(1, 1000)));
    let spans_a = spans(&r);
    inside(&spans_a, client.last_reply());
}

fn giop_server() -> marshal::giop::ServerHandle {
    let mut server = marshal::giop::Server::bind("127.0.0.1:0").unwrap();
    server.add("Files", |call: &mut GiopCall<'_>| {
        let (seed, len): (u32, u32) = call.args()?;
        call.reply(&file(seed, len))
    });
    server.spawn().unwrap()
}

#[test]
fn invoke_ref_borrows_from_the_reply_in_both_byte_orders() {
    let server = giop_server();
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let mut client =
            marshal::giop::Client::connect(&server.ior("IDL:Files:1.0", b"Files")).unwrap();
        client.set_byte_order(order);
        // Large replies grow the buffer, after which a large reply is handed out while it
        // arrives: `invoke_ref` waits for the rest and still borrows in place.
        for (seed, len) in [
            (0u32, 10u32),
            (1, 1 << 20),
            (2, 1 << 20),
            (3, 0),
            (4, 1 << 20),
        ] {
            let want = file(seed, len);
            let r: ReadRes<'_> = client.invoke_ref("read", &(seed, len)).unwrap();
            assert_eq!(r, expected(&want));
            let spans = spans(&r);
            inside(&spans, client.last_reply());
            assert_eq!(
                client.reply_order(),
                order,
                "replies use the request's order"
            );
        }
        // Owned and borrowed calls mix on one connection.
        let owned: (bool, String, Vec<u8>) = client.invoke("read", &(5u32, 100u32)).unwrap();
        assert_eq!(owned.2, file(5, 100).data);
        let r: ReadRes<'_> = client.invoke_ref("read", &(6u32, 100u32)).unwrap();
        assert_eq!(r, expected(&file(6, 100)));
    }
}

/// A reply that does not decode as the result asked for is a marshal error, and the
/// connection stays in step for the next call.
#[test]
fn invoke_ref_reports_a_reply_that_does_not_decode() {
    let server = giop_server();
    let mut client =
        marshal::giop::Client::connect(&server.ior("IDL:Files:1.0", b"Files")).unwrap();
    let e = client
        .invoke_ref::<_, (bool, &str, &[u8], u32)>("read", &(1u32, 1u32 << 20))
        .unwrap_err();
    assert!(matches!(e, CallError::Marshal(_)), "{e}");
    let r: ReadRes<'_> = client.invoke_ref("read", &(2u32, 1u32 << 20)).unwrap();
    assert_eq!(r, expected(&file(2, 1 << 20)));
}
