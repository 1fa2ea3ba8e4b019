//! Generated ONC RPC code against live peers:
//!
//! - the client generated from libtirpc's `rpcb_prot.x` asks the system's rpcbind (versions 3
//!   and 4) for its registrations and addresses, and gets what libtirpc's `rpcinfo` and
//!   `marshal::rpc::rpcbind` (once hand-written, now generated from the same file inside
//!   `transports`) get;
//! - a server generated from `xdr/calc.x` registers with rpcbind, is listed by `rpcinfo`, and
//!   is called over TCP and UDP by a C client built during the test on the stubs that
//!   `rpcgen` generates from the same file.
//!
//! `scripts/test.sh` installs and starts rpcbind and installs rpcgen and libtirpc-dev; a
//! missing one fails these tests.

mod support;

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};
use std::process::Command;
use std::sync::Mutex;

use marshal::rpc::rpcbind::{self, Rpcbind};
use marshal::rpc::{Client, Server};
use marshal_build_tests::calc::{self, calc_prog::calc_vers};
use marshal_build_tests::rpcb_prot::{self, rpcbprog};
use support::{
    build_c_client, require_rpcbind, rpcinfo_has, rpcinfo_lists, run, CALC_CLIENT_OUTPUT,
};

/// rpcbind is one per machine: these tests take turns.
static RPCBIND: Mutex<()> = Mutex::new(());

const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// A registration as (program, version, netid, address, owner).
type Entry = (u32, u32, String, String, String);

/// The generated client's DUMP, as a set.
fn generated_dump(version: u32) -> BTreeSet<Entry> {
    let inner = Client::connect_tcp((LOCAL, rpcbind::PORT), rpcbind::PROGRAM, version).unwrap();
    let list = match version {
        3 => rpcbprog::rpcbvers::Client::new(inner).rpcbproc_dump(),
        4 => rpcbprog::rpcbvers4::Client::new(inner).rpcbproc_dump(),
        v => panic!("rpcbind version {v}"),
    }
    .unwrap();
    let mut out = BTreeSet::new();
    let mut next = list.as_deref();
    while let Some(node) = next {
        let r = &node.rpcb_map;
        out.insert((
            r.r_prog,
            r.r_vers,
            r.r_netid.clone(),
            r.r_addr.clone(),
            r.r_owner.clone(),
        ));
        next = node.rpcb_next.as_deref();
    }
    out
}

/// `marshal::rpc::rpcbind`'s DUMP, as a set.
fn transports_dump(version: u32) -> BTreeSet<Entry> {
    Rpcbind::connect(LOCAL, version)
        .unwrap()
        .dump()
        .unwrap()
        .into_iter()
        .map(|r| (r.r_prog, r.r_vers, r.r_netid, r.r_addr, r.r_owner))
        .collect()
}

/// What `rpcinfo 127.0.0.1` (rpcbind version 4 DUMP, through libtirpc) lists: program,
/// version, netid, address and owner (its `service` column is a local name lookup).
fn rpcinfo_dump() -> BTreeSet<Entry> {
    let out = Command::new("rpcinfo")
        .arg("127.0.0.1")
        .output()
        .unwrap_or_else(|e| panic!("rpcinfo is missing ({e}): apt-get install rpcbind"));
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 6, "unexpected rpcinfo line {l:?}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].to_string(),
                f[3].to_string(),
                f[5].to_string(),
            )
        })
        .collect()
}

#[test]
fn generated_rpcbind_client_answers_as_the_hand_written_one() {
    let _turn = RPCBIND.lock().unwrap_or_else(|e| e.into_inner());
    require_rpcbind();
    for version in [3, 4] {
        // Another process may register between two dumps: compare a generated dump with
        // others taken before and after it that agree.
        let mut agreed = false;
        for _ in 0..5 {
            let before = transports_dump(version);
            let generated = generated_dump(version);
            let c = (version == 4).then(rpcinfo_dump);
            let after = transports_dump(version);
            if before == after {
                assert_eq!(generated, before, "rpcbind version {version} DUMP");
                if let Some(c) = c {
                    assert_eq!(generated, c, "rpcbind version 4 DUMP against rpcinfo");
                }
                agreed = true;
                break;
            }
        }
        assert!(agreed, "rpcbind's registrations kept changing");
        // rpcbind lists itself.
        assert!(
            generated_dump(version)
                .iter()
                .any(|e| e.0 == rpcbind::PROGRAM && e.1 == version && e.2 == "tcp"),
            "rpcbind version {version} does not list itself"
        );

        // GETADDR of rpcbind itself, and of a program nobody serves.
        for (program, netid) in [
            (rpcbind::PROGRAM, "tcp"),
            (rpcbind::PROGRAM, "udp"),
            (0x3fff_fff1, "tcp"),
        ] {
            let ask = rpcb_prot::Rpcb {
                r_prog: program,
                r_vers: version,
                r_netid: netid.into(),
                r_addr: String::new(),
                r_owner: String::new(),
            };
            let inner =
                Client::connect_tcp((LOCAL, rpcbind::PORT), rpcbind::PROGRAM, version).unwrap();
            let generated = match version {
                3 => rpcbprog::rpcbvers::Client::new(inner).rpcbproc_getaddr(&ask),
                _ => rpcbprog::rpcbvers4::Client::new(inner).rpcbproc_getaddr(&ask),
            }
            .unwrap();
            let hand = Rpcbind::connect(LOCAL, version)
                .unwrap()
                .getaddr(program, version, netid)
                .unwrap();
            assert_eq!(
                hand.unwrap_or_default(),
                generated,
                "GETADDR {program} {version} {netid}"
            );
        }
    }
}

/// `CALC_PROG` served in Rust through the generated `Server` trait.
struct Calc;

impl calc_vers::Server for Calc {
    fn calcproc_null(&self) {}

    fn calcproc_add(&self, args: calc::Pair) -> i32 {
        args.a.wrapping_add(args.b)
    }

    fn calcproc_greet(&self, args: calc::Greeting) -> calc::Name {
        let hello = vec![format!("hello {}", args.who.0); args.times as usize].join(", ");
        let mut end = hello.len().min(calc::CALC_MAX as usize);
        while !hello.is_char_boundary(end) {
            end -= 1;
        }
        calc::Name(hello[..end].to_string())
    }

    fn calcproc_reduce(&self, args: calc::ReduceArgs) -> calc::ReduceRes {
        let v = args.values.0.iter().copied();
        match args.how {
            calc::Op::OpSum => Some(v.fold(0i32, i32::wrapping_add)),
            calc::Op::OpMax => v.max(),
            calc::Op::OpMin => v.min(),
        }
    }
}

#[test]
fn rpcgen_client_calls_generated_server_found_through_rpcbind() {
    let client = build_c_client("calc-c");
    let _turn = RPCBIND.lock().unwrap_or_else(|e| e.into_inner());
    require_rpcbind();

    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add(
        calc_vers::PROGRAM,
        calc_vers::VERSION,
        calc_vers::program(Calc),
    );
    server.register_with_rpcbind(true);
    let handle = server.spawn().unwrap();
    let port = handle.tcp_addr().unwrap().port();

    // rpcinfo lists it on both transports, at its port, and gets NULL replies.
    for proto in ["tcp", "udp"] {
        let (found, listed) = rpcinfo_lists(calc_vers::PROGRAM, calc_vers::VERSION, proto, port);
        assert!(found, "`rpcinfo -p` does not list it on {proto}:\n{listed}");
        let prog = calc_vers::PROGRAM.to_string();
        let ready = run(
            Command::new("rpcinfo").args(["-T", proto, "127.0.0.1", &prog, "1"]),
            "rpcinfo -T",
        );
        assert!(ready.contains("ready and waiting"), "{ready}");
    }

    // The C client finds the server through rpcbind and calls every procedure.
    for proto in ["tcp", "udp"] {
        let out = run(
            Command::new(&client).args(["127.0.0.1", proto]),
            "calc_client",
        );
        assert_eq!(
            out.lines().collect::<Vec<_>>(),
            CALC_CLIENT_OUTPUT,
            "over {proto}"
        );
    }

    // The generated Rust client agrees.
    let mut c = calc_vers::Client::new(
        Client::connect_tcp(
            handle.tcp_addr().unwrap(),
            calc_vers::PROGRAM,
            calc_vers::VERSION,
        )
        .unwrap(),
    );
    c.calcproc_null().unwrap();
    assert_eq!(c.calcproc_add(&calc::Pair { a: -1, b: 1 }).unwrap(), 0);
    let long = calc::Greeting {
        who: calc::Name("x".repeat(30)),
        times: 9,
    };
    assert_eq!(
        c.calcproc_greet(&long).unwrap().0.len(),
        calc::CALC_MAX as usize
    );

    handle.shutdown();
    let (still, after) = rpcinfo_has(calc_vers::PROGRAM);
    assert!(!still, "still registered after shutdown:\n{after}");
}
