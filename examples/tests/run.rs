//! Runs every example program as a user would: each server or receiver first (it prints
//! where it listens on its first line), then its client, checking exit codes and output.
//! The GIOP server is called by omniORB's C++ client (built by `omniorb-peer`; a missing
//! omniORB fails the build of that crate, and so these tests).

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running example; killed when dropped, so a failed assertion leaks no process.
struct Running {
    name: &'static str,
    child: Child,
    stdout: BufReader<ChildStdout>,
}

impl Running {
    fn start(name: &'static str, exe: &str, args: &[&str]) -> Running {
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name} ({exe}): {e}"));
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Running {
            name,
            child,
            stdout,
        }
    }

    /// The next line of output, without its newline.
    fn line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        assert!(
            line.ends_with('\n'),
            "{}: output ended: {line:?}",
            self.name
        );
        line.pop();
        line
    }

    /// Waits (at most 60 s) for the program to exit; returns its status and the rest of its
    /// output.
    fn finish(&mut self) -> (ExitStatus, Vec<String>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "{} did not exit", self.name);
            std::thread::sleep(Duration::from_millis(20));
        };
        let lines = (&mut self.stdout).lines().map(Result::unwrap).collect();
        (status, lines)
    }

    /// Checks that the server is still serving.
    fn assert_running(&mut self) {
        let status = self.child.try_wait().unwrap();
        assert!(status.is_none(), "{} exited: {status:?}", self.name);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Either fails only if the child already exited and was reaped.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a program to completion; panics unless it exits 0.
fn run(name: &'static str, exe: &str, args: &[&str]) -> Vec<String> {
    let (status, lines) = Running::start(name, exe, args).finish();
    assert!(
        status.success(),
        "{name} exited with {status}; printed {lines:#?}"
    );
    lines
}

/// The address in a first line `listening on <address>...`.
fn listening_address(line: &str) -> String {
    let rest = line
        .strip_prefix("listening on 127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    let port: u16 = rest.split(' ').next().unwrap().parse().unwrap();
    assert_ne!(port, 0);
    format!("127.0.0.1:{port}")
}

#[test]
fn rpc_client_calls_every_procedure_of_rpc_server() {
    let mut server = Running::start("rpc_server", env!("CARGO_BIN_EXE_rpc_server"), &[]);
    let first = server.line();
    assert!(
        first.ends_with("(TCP and UDP), program 0x20004b56 version 1"),
        "{first}"
    );
    let addr = listening_address(&first);
    let out = run("rpc_client", env!("CARGO_BIN_EXE_rpc_client"), &[&addr]);
    assert_eq!(
        out,
        [
            "null: ok",
            "put alpha=1: replaced=false count=1",
            "put beta=two: replaced=false count=2",
            "put alpha=one: replaced=true count=2",
            "get alpha: one",
            "get gamma: missing",
            "list: alpha=one beta=two",
            "udp get beta: two",
            "procedure 99: unavailable",
        ]
    );
    // A second client sees the first one's data: the state is the server's.
    let again = run("rpc_client", env!("CARGO_BIN_EXE_rpc_client"), &[&addr]);
    assert_eq!(again[1], "put alpha=1: replaced=true count=2");
    server.assert_running();
}

#[test]
fn calc_serves_and_calls_the_program_of_its_x_file() {
    let out = run("calc", env!("CARGO_BIN_EXE_calc"), &[]);
    assert_eq!(out[..2], ["40 + 2 = 42", "hello world"]);
    assert!(
        out[2].starts_with("65 bytes: ") && out[2].contains("exceeds max_len 64"),
        "{out:?}"
    );
}

#[test]
fn calc_async_serves_and_calls_the_program_on_tokio() {
    let out = run("calc_async", env!("CARGO_BIN_EXE_calc_async"), &[]);
    assert_eq!(
        out,
        [
            "100 calls in flight: sum of 2i for i < 100 = 9900",
            "hello tokio"
        ]
    );
}

#[test]
fn rpc_client_without_an_address_fails() {
    let (status, out) =
        Running::start("rpc_client", env!("CARGO_BIN_EXE_rpc_client"), &[]).finish();
    assert!(!status.success());
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn omniorb_client_calls_giop_server() {
    let mut server = Running::start("giop_server", env!("CARGO_BIN_EXE_giop_server"), &[]);
    let ior = server.line();
    assert!(ior.starts_with("IOR:"), "{ior}");
    let corbaloc = server.line();
    assert!(
        corbaloc.starts_with("corbaloc:iiop:1.2@127.0.0.1:") && corbaloc.ends_with("/Bench"),
        "{corbaloc}"
    );
    // omni-client calls every operation of Flick::Bench and checks each result.
    omniorb_peer::assert_omni_client_passes(&ior, &[], "giop_server, by IOR");
    omniorb_peer::assert_omni_client_passes(&ior, &["--giop", "1.0"], "giop_server, GIOP 1.0");
    omniorb_peer::assert_omni_client_passes(&corbaloc, &[], "giop_server, by corbaloc");
    server.assert_running();
}

#[test]
fn ndr_receiver_converts_what_ndr_sender_sends() {
    let mut receiver = Running::start("ndr_receiver", env!("CARGO_BIN_EXE_ndr_receiver"), &[]);
    let addr = listening_address(&receiver.line());
    let sent = run("ndr_sender", env!("CARGO_BIN_EXE_ndr_sender"), &[&addr]);
    assert!(sent[0].starts_with("format Reading ("), "{sent:#?}");
    assert_eq!(
        sent.iter()
            .filter(|l| l.starts_with("sent Reading"))
            .count(),
        3
    );

    let (status, got) = receiver.finish();
    assert!(
        status.success(),
        "ndr_receiver exited with {status}: {got:#?}"
    );
    assert!(got[0].starts_with("sender 127.0.0.1:"), "{got:#?}");
    assert_eq!(
        got[1..],
        [
            "got Reading { station: \"station-0\", seq: 0, temps: [20.0, 20.5, 21.0, 21.5], \
             position: Position { lat: 48.5, lon: -3.25 }, quality: 0 }",
            "got Reading { station: \"station-1\", seq: 1, temps: [20.0, 20.5, 21.0, 22.5], \
             position: Position { lat: 49.5, lon: -3.25 }, quality: 0 }",
            "got Reading { station: \"station-2\", seq: 2, temps: [20.0, 20.5, 21.0, 23.5], \
             position: Position { lat: 50.5, lon: -3.25 }, quality: 0 }",
            "3 records",
        ]
    );
}
