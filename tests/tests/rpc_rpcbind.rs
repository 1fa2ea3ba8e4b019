//! The Rust server registers with the system's rpcbind on start and unregisters on shutdown;
//! `rpcinfo` lists it and gets NULL replies from it over TCP and UDP; the Rust rpcbind
//! client's DUMP matches `rpcinfo -p`. `scripts/test.sh` installs and starts rpcbind; a
//! missing rpcbind or rpcinfo fails these tests.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};
use std::process::Command;
use std::sync::Mutex;

use marshal::rpc::rpcbind::{self, parse_universal_address, PortMapper, Rpcbind};
use marshal::rpc::{Call, Protocol, RpcError, Server};

/// rpcbind is one per machine: these tests take turns.
static RPCBIND: Mutex<()> = Mutex::new(());

const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn rpcinfo(args: &[&str]) -> String {
    let out = Command::new("rpcinfo")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("rpcinfo is missing ({e}): apt-get install rpcbind"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "rpcinfo {args:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// `rpcinfo -p` as (program, version, protocol number, port).
fn rpcinfo_p() -> BTreeSet<(u32, u32, u32, u32)> {
    rpcinfo(&["-p", "127.0.0.1"])
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let proto = match f[2] {
                "tcp" => 6,
                "udp" => 17,
                other => panic!("unexpected protocol {other} in {l:?}"),
            };
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                proto,
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

fn require_rpcbind() {
    if let Err(e) = rpcbind::getport(LOCAL, rpcbind::PROGRAM, 2, Protocol::Tcp) {
        panic!("rpcbind is not answering on 127.0.0.1:111 ({e}); scripts/test.sh installs and starts it");
    }
}

fn server(program: u32) -> Server {
    let mut s = Server::bind("0.0.0.0:0").unwrap();
    for version in [2, 3] {
        s.add(program, version, |call: &mut Call<'_>| {
            match call.procedure() {
                0 => call.reply(&()),
                _ => call.proc_unavail(),
            }
        });
    }
    s.register_with_rpcbind(true);
    s
}

#[test]
fn rpcinfo_sees_the_registered_server_and_dump_matches() {
    let _turn = RPCBIND.lock().unwrap_or_else(|p| p.into_inner());
    require_rpcbind();
    let program = 0x2004_d000 + std::process::id() % 0x1000;
    let handle = server(program).spawn().unwrap();
    let port = u32::from(handle.tcp_addr().unwrap().port());
    assert_eq!(port, u32::from(handle.udp_addr().unwrap().port()));

    let listed = rpcinfo_p();
    for version in [2, 3] {
        for proto in [6, 17] {
            assert!(
                listed.contains(&(program, version, proto, port)),
                "rpcinfo -p does not list {program} {version} {proto} {port}: {listed:?}"
            );
        }
    }
    // The Rust portmapper client's DUMP is what rpcinfo -p printed.
    let dumped: BTreeSet<_> = PortMapper::connect(LOCAL)
        .unwrap()
        .dump()
        .unwrap()
        .into_iter()
        .map(|m| (m.program, m.version, m.protocol, m.port))
        .collect();
    assert_eq!(dumped, listed);

    // rpcinfo's NULL calls over TCP and UDP.
    for flag in ["-t", "-u"] {
        for version in ["2", "3"] {
            let out = rpcinfo(&[flag, "127.0.0.1", &program.to_string(), version]);
            assert!(
                out.contains(&format!(
                    "program {program} version {version} ready and waiting"
                )),
                "rpcinfo {flag}: {out}"
            );
        }
    }

    // GETPORT (version 2) and GETADDR (versions 3 and 4).
    for proto in [Protocol::Tcp, Protocol::Udp] {
        assert_eq!(
            u32::from(rpcbind::getport(LOCAL, program, 3, proto).unwrap()),
            port
        );
    }
    for v in [3, 4] {
        let mut rb = Rpcbind::connect(LOCAL, v).unwrap();
        let addr = rb.getaddr(program, 2, "udp").unwrap().expect("registered");
        let addr = parse_universal_address(&addr).expect("a universal address");
        assert_eq!(u32::from(addr.port()), port);
        let dump = rb.dump().unwrap();
        assert!(
            dump.iter()
                .any(|r| r.r_prog == program && r.r_vers == 3 && r.r_netid == "tcp"),
            "{dump:?}"
        );
        // rpcbind answers GETADDR of another version with the program's address (so that
        // the client hears PROG_MISMATCH from the server); an unknown program has none.
        assert_eq!(rb.getaddr(program + 0x800, 2, "tcp").unwrap(), None);
    }

    handle.shutdown();
    let after = rpcinfo_p();
    assert!(
        after.iter().all(|m| m.0 != program),
        "still registered after shutdown: {after:?}"
    );
    assert!(matches!(
        rpcbind::getport(LOCAL, program, 2, Protocol::Tcp),
        Err(RpcError::NotRegistered { .. })
    ));
}

#[test]
fn portmapper_set_unset_by_hand() {
    let _turn = RPCBIND.lock().unwrap_or_else(|p| p.into_inner());
    require_rpcbind();
    assert_eq!(
        rpcbind::getport(LOCAL, rpcbind::PROGRAM, 2, Protocol::Udp).unwrap(),
        rpcbind::PORT
    );
    let program = 0x2004_e000 + std::process::id() % 0x1000;
    let m = rpcbind::Mapping {
        program,
        version: 1,
        protocol: 17,
        port: 4321,
    };
    let mut pm = PortMapper::connect(LOCAL).unwrap();
    let _ = pm.unset(&m); // left over from an interrupted run
    assert!(pm.set(&m).unwrap());
    assert_eq!(pm.getport(program, 1, Protocol::Udp).unwrap(), 4321);
    assert!(rpcinfo_p().contains(&(program, 1, 17, 4321)));
    assert!(pm.unset(&m).unwrap());
    assert!(matches!(
        pm.getport(program, 1, Protocol::Udp),
        Err(RpcError::NotRegistered { .. })
    ));
}
