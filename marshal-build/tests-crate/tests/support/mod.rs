//! What `tests/live_rpc.rs` and `tests/async_rpc.rs` share: running programs, and the C
//! client of `xdr/calc.x` built on rpcgen's stubs.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::Command;

use marshal::rpc::{rpcbind, Protocol};

/// What `c/calc_client.c` prints when every call succeeds.
pub const CALC_CLIENT_OUTPUT: &[&str] = &[
    "null ok",
    "add 42",
    "greet hello world, hello world, hello world",
    "reduce 1 21",
    "reduce 2 12",
    "reduce 3 -3",
    "reduce empty none",
];

/// Panics unless the system's rpcbind answers on 127.0.0.1.
pub fn require_rpcbind() {
    let local = IpAddr::V4(Ipv4Addr::LOCALHOST);
    if let Err(e) = rpcbind::getport(local, rpcbind::PROGRAM, 2, Protocol::Tcp) {
        panic!(
            "rpcbind is not answering on 127.0.0.1:111 ({e}); scripts/test.sh installs and starts it"
        );
    }
}

/// Runs `cmd`, panicking with its output unless it succeeds.
pub fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?} ({e})"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {cmd:?} failed ({}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The C client of `calc.x`: `rpcgen -h/-l/-c` output and `c/calc_client.c`, compiled in
/// `$CARGO_TARGET_TMPDIR/<dir>` (a directory per test binary).
pub fn build_c_client(dir: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(here.join("xdr/calc.x"), dir.join("calc.x")).unwrap();
    let rpcgen = "rpcgen is missing: apt-get install rpcsvc-proto";
    for (flag, out) in [
        ("-h", "calc.h"),
        ("-l", "calc_clnt.c"),
        ("-c", "calc_xdr.c"),
    ] {
        run(
            Command::new("rpcgen")
                .current_dir(&dir)
                .args([flag, "-o", out, "calc.x"]),
            rpcgen,
        );
    }
    assert!(
        Path::new("/usr/include/tirpc/rpc/rpc.h").is_file(),
        "libtirpc's headers are missing: apt-get install libtirpc-dev"
    );
    let exe = dir.join("calc_client");
    run(
        Command::new("cc")
            .current_dir(&dir)
            .args(["-O1", "-I/usr/include/tirpc", "-I.", "-o"])
            .arg(&exe)
            .arg(here.join("c/calc_client.c"))
            .args(["calc_clnt.c", "calc_xdr.c", "-ltirpc"]),
        "a C compiler and libtirpc-dev are needed (apt-get install gcc libtirpc-dev)",
    );
    exe
}

/// Whether `rpcinfo -p 127.0.0.1` lists `program` at `version` on `proto` (`tcp`, `udp`) at
/// `port`, and its whole output.
pub fn rpcinfo_lists(program: u32, version: u32, proto: &str, port: u16) -> (bool, String) {
    let listed = run(
        Command::new("rpcinfo").args(["-p", "127.0.0.1"]),
        "rpcinfo is missing: apt-get install rpcbind",
    );
    let line = format!("{program} {version} {proto} {port}");
    let found = listed
        .lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == line);
    (found, listed)
}

/// Whether `rpcinfo -p 127.0.0.1` lists `program` at all, and its whole output.
pub fn rpcinfo_has(program: u32) -> (bool, String) {
    let listed = run(Command::new("rpcinfo").args(["-p", "127.0.0.1"]), "rpcinfo");
    let p = program.to_string();
    let found = listed
        .lines()
        .any(|l| l.split_whitespace().next() == Some(p.as_str()));
    (found, listed)
}
