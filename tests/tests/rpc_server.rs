//! The Rust ONC RPC client and server against each other on loopback: every rejection
//! status, credentials, timeouts, UDP retransmission, pipelining, large arguments, caps, and
//! a server that keeps serving well-behaved clients while others send garbage, truncated
//! records, or stall mid-record.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use marshal::rpc::{
    record_mark, Auth, AuthStat, Call, CallHeader, Client, Message, OpaqueAuth, RecordReader,
    RejectedReply, ReplyBody, ReplyHeader, RpcError, Server, ServerHandle, AUTH_SYS,
};

const PROG: u32 = 0x2000_7001;

/// Procedures: 0 NULL, 1 add (i32, i32), 2 echo opaque, 3 uid of the caller, 4 panic,
/// 5 never answers, 6 sleeps 300 ms, 7 demands AUTH_SYS.
fn program(call: &mut Call<'_>) -> Result<(), marshal::Error> {
    match call.procedure() {
        0 => call.reply(&()),
        1 => {
            let (a, b): (i32, i32) = call.args()?;
            call.reply(&a.wrapping_add(b))
        }
        2 => {
            let data: &[u8] = call.args()?;
            call.reply(data)
        }
        3 => match call.auth() {
            Auth::Sys { uid, gids, .. } => {
                let uid = *uid;
                let n = gids.len() as u32;
                call.reply(&(uid, n))
            }
            _ => call.reply(&(u32::MAX, 0u32)),
        },
        4 => panic!("procedure 4 always panics"),
        5 => Ok(()),
        6 => {
            std::thread::sleep(Duration::from_millis(300));
            call.reply(&6u32)
        }
        7 => match call.auth() {
            Auth::Sys { .. } => call.reply(&()),
            _ => call.auth_error(AuthStat::TooWeak),
        },
        _ => call.proc_unavail(),
    }
}

fn server() -> ServerHandle {
    let mut s = Server::bind("127.0.0.1:0").unwrap();
    s.add(PROG, 2, program);
    s.add(PROG, 4, program);
    s.spawn().unwrap()
}

fn clients(h: &ServerHandle) -> [Client; 2] {
    [
        Client::connect_tcp(h.tcp_addr().unwrap(), PROG, 2).unwrap(),
        Client::connect_udp(h.udp_addr().unwrap(), PROG, 2).unwrap(),
    ]
}

#[test]
fn every_accept_status_over_both_transports() {
    let h = server();
    for mut c in clients(&h) {
        assert_eq!(c.call::<_, i32>(1, &(40, 2)).unwrap(), 42);
        assert!(matches!(
            c.call::<(), ()>(99, &()),
            Err(RpcError::ProcUnavail)
        ));
        assert!(matches!(
            c.call::<_, i32>(1, &7u8),
            Err(RpcError::GarbageArgs)
        ));
        assert!(matches!(c.call::<(), ()>(4, &()), Err(RpcError::SystemErr)));
        assert!(matches!(c.call::<(), ()>(5, &()), Err(RpcError::SystemErr)));
        // The connection survived all of that.
        assert_eq!(c.call::<_, i32>(1, &(1, 2)).unwrap(), 3);
    }
    let tcp = h.tcp_addr().unwrap();
    let e = Client::connect_tcp(tcp, PROG, 3)
        .unwrap()
        .call::<(), ()>(0, &())
        .unwrap_err();
    assert!(
        matches!(e, RpcError::ProgMismatch { low: 2, high: 4 }),
        "{e}"
    );
    let e = Client::connect_tcp(tcp, PROG + 1, 2)
        .unwrap()
        .call::<(), ()>(0, &())
        .unwrap_err();
    assert!(matches!(e, RpcError::ProgUnavail), "{e}");
}

#[test]
fn credentials() {
    let h = server();
    for mut c in clients(&h) {
        assert_eq!(c.call::<(), (u32, u32)>(3, &()).unwrap(), (u32::MAX, 0));
        let e = c.call::<(), ()>(7, &()).unwrap_err();
        assert!(matches!(e, RpcError::AuthError(AuthStat::TooWeak)), "{e}");
        c.set_auth(Auth::Sys {
            stamp: 1,
            machine_name: "tester".into(),
            uid: 1234,
            gid: 100,
            gids: vec![100, 27, 4],
        });
        assert_eq!(c.call::<(), (u32, u32)>(3, &()).unwrap(), (1234, 3));
        c.call::<(), ()>(7, &()).unwrap();
        c.set_auth(Auth::Other {
            flavor: 99,
            body: vec![1, 2, 3, 4],
        });
        let e = c.call::<(), ()>(0, &()).unwrap_err();
        assert!(
            matches!(e, RpcError::AuthError(AuthStat::RejectedCred)),
            "{e}"
        );
    }
    // An AUTH_SYS body that does not decode: AUTH_BADCRED.
    let bad = [0u8; 5];
    let header = CallHeader {
        cred: OpaqueAuth {
            flavor: AUTH_SYS,
            body: &bad,
        },
        ..CallHeader::new(77, PROG, 2, 0)
    };
    let reply = raw_tcp_call(h.tcp_addr().unwrap(), &header);
    assert_eq!(
        reply,
        ReplyHeader::denied(77, RejectedReply::AuthError(AuthStat::BadCred))
    );
}

/// Sends one call with no arguments over a fresh connection and returns the reply header.
fn raw_tcp_call(addr: SocketAddr, header: &CallHeader<'_>) -> ReplyHeader<'static> {
    let mut s = TcpStream::connect(addr).unwrap();
    let body = marshal::xdr::to_vec(header).unwrap();
    s.write_all(&record_mark(body.len()).unwrap()).unwrap();
    s.write_all(&body).unwrap();
    let mut rr = RecordReader::new();
    let rec = rr.read_record(&mut s).unwrap().to_vec();
    match Message::parse(&rec).unwrap().0 {
        Message::Reply(ReplyHeader {
            xid,
            body: ReplyBody::Denied(why),
        }) => ReplyHeader::denied(xid, why),
        Message::Reply(ReplyHeader {
            xid,
            body: ReplyBody::Accepted { stat, .. },
        }) => ReplyHeader::accepted(xid, stat),
        m => panic!("not a reply: {m:?}"),
    }
}

#[test]
fn rpc_version_mismatch() {
    let h = server();
    let header = CallHeader {
        rpcvers: 3,
        ..CallHeader::new(5, PROG, 2, 0)
    };
    assert_eq!(
        raw_tcp_call(h.tcp_addr().unwrap(), &header),
        ReplyHeader::denied(5, RejectedReply::RpcMismatch { low: 2, high: 2 })
    );
}

#[test]
fn timeouts_then_late_replies_are_dropped() {
    let h = server();
    for mut c in clients(&h) {
        c.set_timeout(Duration::from_millis(100));
        c.set_retry(Duration::from_secs(5)); // no retransmission within the timeout
        let t = Instant::now();
        assert!(matches!(c.call::<(), u32>(6, &()), Err(RpcError::Timeout)));
        assert!(
            t.elapsed() < Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
        // The late reply (6) arrives while this call waits: it is not mistaken for ours.
        c.set_timeout(Duration::from_secs(5));
        assert_eq!(c.call::<_, i32>(1, &(2, 2)).unwrap(), 4);
    }
}

#[test]
fn udp_retransmits_until_answered() {
    // A server that ignores the first two datagrams of each call.
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = sock.local_addr().unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let t = std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        loop {
            let (n, peer) = sock.recv_from(&mut buf).unwrap();
            let k = counter.fetch_add(1, Ordering::SeqCst);
            if k % 3 < 2 {
                continue;
            }
            let Ok((Message::Call(h), _)) = Message::parse(&buf[..n]) else {
                return;
            };
            let reply = marshal::xdr::to_vec(&(
                &ReplyHeader::accepted(h.xid, marshal::rpc::AcceptStat::Success),
                &(h.procedure * 10),
            ))
            .unwrap();
            sock.send_to(&reply, peer).unwrap();
            if k > 6 {
                return;
            }
        }
    });
    let mut c = Client::connect_udp(addr, PROG, 1).unwrap();
    c.set_retry(Duration::from_millis(20));
    for p in 1..=3u32 {
        assert_eq!(c.call::<(), u32>(p, &()).unwrap(), p * 10);
    }
    t.join().unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 9);

    // Nobody answering: a timeout after the retransmissions.
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let mut c = Client::connect_udp(silent.local_addr().unwrap(), PROG, 1).unwrap();
    c.set_retry(Duration::from_millis(10));
    c.set_timeout(Duration::from_millis(100));
    assert!(matches!(c.call::<(), ()>(0, &()), Err(RpcError::Timeout)));
    let mut buf = [0u8; 512];
    silent.set_nonblocking(true).unwrap();
    let mut sent = 0;
    while silent.recv(&mut buf).is_ok() {
        sent += 1;
    }
    assert!((3..=6).contains(&sent), "{sent} datagrams");
}

#[test]
fn pipelined_calls_in_any_order() {
    let h = server();
    let mut c = Client::connect_tcp(h.tcp_addr().unwrap(), PROG, 2).unwrap();
    let xids: Vec<u32> = (0..16)
        .map(|i| c.send_call(1, &(i, 1000)).unwrap())
        .collect();
    // Take the replies backwards: the earlier ones are kept until asked for.
    for (i, xid) in xids.iter().enumerate().rev() {
        assert_eq!(c.recv_reply::<i32>(*xid).unwrap(), i as i32 + 1000);
    }
    assert!(
        c.recv_reply::<i32>(xids[0]).is_err(),
        "a reply is taken once"
    );
}

#[test]
fn large_opaque_arguments_and_caps() {
    let h = server();
    let mut c = Client::connect_tcp(h.tcp_addr().unwrap(), PROG, 2).unwrap();
    for n in [0, 1, 16 << 10, (1 << 20) + 3, 8 << 20] {
        let data: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
        let back: Vec<u8> = c.call(2, data.as_slice()).unwrap();
        assert_eq!(back, data, "{n} bytes");
    }
    // Over UDP the datagram limit holds, before anything is sent.
    let mut u = Client::connect_udp(h.udp_addr().unwrap(), PROG, 2).unwrap();
    let e = u.call::<_, Vec<u8>>(2, &vec![0u8; 70_000]).unwrap_err();
    assert!(matches!(e, RpcError::TooLarge { max: 65_507, .. }), "{e}");

    // A server with a 4 KiB cap drops a connection that sends more.
    let mut s = Server::bind_tcp("127.0.0.1:0").unwrap();
    s.add(PROG, 2, program);
    s.set_max_record(4096);
    let small = s.spawn().unwrap();
    let mut c = Client::connect_tcp(small.tcp_addr().unwrap(), PROG, 2).unwrap();
    assert_eq!(
        c.call::<_, Vec<u8>>(2, &vec![1u8; 1000]).unwrap().len(),
        1000
    );
    let e = c.call::<_, Vec<u8>>(2, &vec![1u8; 5000]).unwrap_err();
    assert!(matches!(e, RpcError::Io(_)), "{e}");
    // A client's own cap on what it sends.
    let mut c = Client::connect_tcp(small.tcp_addr().unwrap(), PROG, 2).unwrap();
    c.set_max_record(100);
    let e = c.call::<_, Vec<u8>>(2, &vec![1u8; 200]).unwrap_err();
    assert!(matches!(e, RpcError::TooLarge { max: 100, .. }), "{e}");
    assert!(
        c.call::<_, Vec<u8>>(2, &vec![1u8; 20]).is_ok(),
        "nothing was sent"
    );
}

/// Bad peers of every kind, in threads, while four clients make 10,000 calls each.
#[test]
fn serves_good_clients_while_others_misbehave() {
    let h = server();
    let tcp = h.tcp_addr().unwrap();
    let udp = h.udp_addr().unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));

    let mut bad = Vec::new();
    // Stalled mid-record: a header announcing 1000 bytes, then 10 of them, then nothing.
    let mut stalled = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(tcp).unwrap();
        s.write_all(&record_mark(1000).unwrap()).unwrap();
        s.write_all(&[0; 10]).unwrap();
        stalled.push(s);
    }
    // A 2 GiB fragment header: the connection is closed, nothing is allocated for it.
    {
        let mut s = TcpStream::connect(tcp).unwrap();
        s.write_all(&0xffff_ffffu32.to_be_bytes()).unwrap();
        let mut buf = [0u8; 16];
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        assert_eq!(s.read(&mut buf).unwrap(), 0, "closed by the server");
    }
    // Garbage records and truncated ones, over and over, on fresh connections.
    let s = Arc::clone(&stop);
    bad.push(std::thread::spawn(move || {
        let mut seed = 0x9e37_79b9u32;
        let mut rounds = 0;
        while !s.load(Ordering::Relaxed) {
            let Ok(mut c) = TcpStream::connect(tcp) else {
                continue;
            };
            let mut junk = Vec::new();
            for _ in 0..64 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                junk.extend(seed.to_be_bytes());
            }
            // A well-framed record of junk, then a truncated record, then close.
            let _ = c.write_all(&record_mark(junk.len()).unwrap());
            let _ = c.write_all(&junk);
            let _ = c.write_all(&record_mark(500).unwrap());
            let _ = c.write_all(&junk[..100]);
            rounds += 1;
        }
        rounds
    }));
    // Garbage datagrams.
    let s = Arc::clone(&stop);
    bad.push(std::thread::spawn(move || {
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut rounds = 0;
        while !s.load(Ordering::Relaxed) {
            let junk: Vec<u8> = (0..rounds % 300).map(|i| (i * 31 + rounds) as u8).collect();
            let _ = sock.send_to(&junk, udp);
            rounds += 1;
            std::thread::sleep(Duration::from_micros(200));
        }
        rounds
    }));

    let good: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || {
                let mut c = if k % 2 == 0 {
                    Client::connect_tcp(tcp, PROG, 2).unwrap()
                } else {
                    Client::connect_udp(udp, PROG, 2).unwrap()
                };
                for i in 0..10_000i32 {
                    let a = i.wrapping_mul(7919) ^ k;
                    assert_eq!(c.call::<_, i32>(1, &(a, i)).unwrap(), a.wrapping_add(i));
                }
            })
        })
        .collect();
    for g in good {
        g.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for b in bad {
        assert!(b.join().unwrap() > 0);
    }
    // The stalled clients still hold their connections; shutdown closes them promptly.
    let t = Instant::now();
    h.shutdown();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    for mut s in stalled {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 4];
        assert_eq!(s.read(&mut buf).unwrap(), 0);
    }
}

#[test]
fn shutdown_stops_serving() {
    let h = server();
    let tcp = h.tcp_addr().unwrap();
    let mut c = Client::connect_tcp(tcp, PROG, 2).unwrap();
    c.call::<(), ()>(0, &()).unwrap();
    h.shutdown();
    assert!(c.call::<(), ()>(0, &()).is_err());
    assert!(TcpStream::connect(tcp).is_err());
}
