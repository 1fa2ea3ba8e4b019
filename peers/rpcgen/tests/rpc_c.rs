//! The rpcgen-generated C RPC server and client against each other, the
//! in-process libtirpc client, and the stub-cost function.

use std::io::Write;
use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use rpcgen_peer::rpc::read_ports;
use rpcgen_peer::*;

/// Asserts that `flick_client` succeeded, showing its output otherwise.
fn assert_client_ok(out: &Output, proto: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "flick_client over {proto} failed with {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.starts_with("all ") && last.ends_with(" calls ok"),
        "unexpected last line {last:?}\nstdout:\n{stdout}"
    );
    assert!(stdout.lines().any(|l| l.starts_with("ok pfs_write ")));
}

#[test]
fn c_client_against_c_server_tcp() {
    let server = CServer::spawn();
    let out = run_c_client(server.tcp_port(), "tcp");
    assert_client_ok(&out, "tcp");
    // The TCP run includes the large (multi-fragment) ECHO_INTS.
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok echo_ints n=100000"));
}

#[test]
fn c_client_against_c_server_udp() {
    let server = CServer::spawn();
    let out = run_c_client(server.udp_port(), "udp");
    assert_client_ok(&out, "udp");
}

#[test]
fn c_client_reports_rpc_errors() {
    // A port nobody listens on (bound, then released).
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("ephemeral port")
        .port();
    let out = run_c_client(port, "tcp");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!out.stderr.is_empty());
}

#[test]
fn crpc_client_null_and_echoes() {
    let server = CServer::spawn();
    let mut client = CRpcClient::connect(server.tcp_port());
    client.null();

    // 4 MiB of ints: 16 record fragments of 256 KiB each way.
    let n: i32 = 1 << 20;
    let ints: Vec<i32> = (0..n).map(|i| i.wrapping_mul(-0x61c8_8647)).collect();
    let ints = CInts::new(&ints);
    assert_eq!(client.echo_ints(&ints), n as usize);
    assert_eq!(client.echo_ints(&CInts::new(&[])), 0);

    let rects: Vec<[i32; 4]> = (0..1000).map(|i| [i, -i, i * 3, i ^ 0x55]).collect();
    assert_eq!(client.echo_rects(&CRects::new(&rects)), 1000);

    let dirents: Vec<Dirent> = (0..300)
        .map(|i| Dirent {
            name: "n".repeat(i % 256),
            ints: [i as i32; 30],
            chars: [i as u8; 16],
        })
        .collect();
    assert_eq!(client.echo_dirents(&CDirents::new(&dirents)), 300);
    client.null();
}

#[test]
fn crpc_client_can_move_to_another_thread() {
    let server = CServer::spawn();
    let mut client = CRpcClient::connect(server.tcp_port());
    client.null();
    let client = std::thread::spawn(move || {
        client.null();
        client
    })
    .join()
    .expect("thread");
    drop(client);
}

#[test]
fn stub_pfs_write() {
    let data: Vec<i32> = (0..1024).map(|i| i * 7 - 3).collect();
    let last = *data.last().unwrap();
    let mut buf = vec![0u8; pfs_write_call_size(data.len())];
    assert_eq!(c_stub_pfs_write(&data, &mut buf), 100 + 4096 + last);
    // The buffer holds the call exactly: xid 1, CALL, RPC version 2,
    // FLICK_PROG, FLICK_VERS, PFS_WRITE, AUTH_NONE twice, then the arguments.
    let words: Vec<u32> = buf
        .chunks_exact(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(
        words[..14],
        [1, 0, 2, FLICK_PROG, FLICK_VERS, PFS_WRITE, 0, 0, 0, 0, 3, 100, 4096, 1024]
    );
    assert_eq!(*words.last().unwrap(), last as u32);

    // One byte short: the encoder fails.
    let short = buf.len() - 1;
    assert_eq!(c_stub_pfs_write(&data, &mut buf[..short]), -1);
    // Empty data: pos + len = 100.
    assert_eq!(c_stub_pfs_write(&[], &mut buf), 100);
}

#[test]
fn c_server_exits_when_stdin_closes() {
    let mut child = Command::new(C_SERVER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start flick_server");
    let ports = read_ports(child.stdout.take().expect("stdout"));
    let mut stdin = child.stdin.take().expect("stdin");
    // Input other than EOF does not stop it.
    stdin.write_all(b"ignored\n").expect("write to stdin");
    if let Err(e) = ports {
        let _ = child.kill();
        let _ = child.wait();
        panic!("flick_server did not report its ports: {e}");
    }
    let mut client = CRpcClient::connect(ports.unwrap().0);
    client.null();
    drop(client);

    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match child.try_wait().expect("try_wait") {
            Some(status) => {
                assert!(status.success(), "flick_server ended with {status}");
                return;
            }
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("flick_server still running 5 s after its stdin closed");
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
