//! omni-server, omni-client and the in-process OmniClient against each other.

use std::process::{Command, Output};
use std::time::Duration;

use omniorb_peer::{assert_omni_client_passes, client_path, OmniClient, OmniServer as Server};

fn run_client(target: &str, args: &[&str]) -> Output {
    Command::new(client_path())
        .arg(target)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", client_path().display()))
}

#[test]
fn client_against_server_by_ior() {
    let server = Server::start(&[]);
    assert_omni_client_passes(server.ior(), &[], "GIOP 1.2, IOR");
    server.stop();
}

#[test]
fn client_against_server_by_corbaloc() {
    // A corbaloc URL without a version means IIOP 1.0, hence GIOP 1.0.
    let server = Server::start(&[]);
    assert_omni_client_passes(server.corbaloc(), &[], "corbaloc");
    assert_omni_client_passes(
        &server.corbaloc().replace("corbaloc::", "corbaloc::1.2@"),
        &[],
        "corbaloc 1.2",
    );
    server.stop();
}

#[test]
fn client_against_server_older_giop() {
    let server = Server::start(&[]);
    for v in ["1.0", "1.1"] {
        assert_omni_client_passes(server.ior(), &["--giop", v], &format!("client --giop {v}"));
    }
    server.stop();
    // The server side capped too (its IOR then has an IIOP 1.0/1.1 profile).
    for v in ["1.0", "1.1"] {
        let server = Server::start(&["--giop", v]);
        assert_omni_client_passes(server.ior(), &[], &format!("server --giop {v}"));
        server.stop();
    }
}

#[test]
fn client_reports_failures() {
    // Nothing listens on a port taken from a stopped server: every check
    // must fail with a CORBA system exception and the exit status must say so.
    let server = Server::start(&[]);
    let target = server.corbaloc().to_owned();
    server.stop();
    let out = run_client(&target, &[]);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.lines().all(|l| l.starts_with("FAIL ")), "{stdout}");
    assert!(stdout.contains("CORBA::TRANSIENT"), "{stdout}");
    // And a usage error.
    let out = Command::new(client_path())
        .output()
        .expect("running omni-client");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn in_process_client_round_trips() {
    let server = Server::start(&[]);
    assert!(OmniClient::connect("IOR:nonsense").is_none());
    let err = OmniClient::try_connect("IOR:nonsense").expect_err("bad IOR");
    assert!(err.contains("MARSHAL"), "{err}");
    let err = OmniClient::try_connect("no such scheme").expect_err("bad string");
    assert!(err.contains("BAD_PARAM"), "{err}");

    let mut client = OmniClient::connect(server.ior()).expect("connects");
    for len in [0, 1, 1000, 100_000] {
        let t = client.echo_ints(len, 5);
        assert!(t > Duration::ZERO);
        let t = client.echo_octets(len, 5);
        assert!(t > Duration::ZERO);
    }
    assert!(client.echo_ints(10, 0) < Duration::from_millis(1));
    // By corbaloc too (narrowed with a remote _is_a).
    let mut by_url = OmniClient::connect(server.corbaloc()).expect("connects");
    by_url.echo_ints(16, 3);
    drop(client);
    drop(by_url);
    server.stop();
}

#[test]
#[should_panic(expected = "TRANSIENT")]
fn in_process_client_panics_when_the_server_is_gone() {
    let server = Server::start(&[]);
    let ior = server.ior().to_owned();
    server.stop();
    let mut client = OmniClient::connect(&ior).expect("connects without contacting");
    client.echo_ints(4, 1);
}
