//! The `marshal-build` command's options reach the front ends: `--borrowed`,
//! `--async-client` and `--async-server` on `idl` and `xdr` change what is generated, as the
//! `Config` methods of the same names do.

use std::path::Path;
use std::process::Command;

/// What `marshal-build <args>` prints, which must succeed.
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_marshal-build"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "marshal-build {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Writes `text` to a file of the test's own in the temporary directory.
fn input(name: &str, text: &str) -> String {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn idl_takes_the_async_options() {
    let idl = input(
        "cli_async.idl",
        "interface Echo { string echo(in string s); };",
    );
    let plain = run(&["idl", &idl]);
    assert!(!plain.contains("Async"), "{plain}");
    let client = run(&["idl", "--async-client", &idl]);
    assert!(client.contains("pub struct AsyncClient"), "{client}");
    assert!(!client.contains("AsyncServant"), "{client}");
    let server = run(&["idl", "--async-server", &idl]);
    assert!(server.contains("pub trait AsyncServant"), "{server}");
    assert!(!server.contains("AsyncClient"), "{server}");
    let borrowed = run(&[
        "idl",
        "--borrowed",
        "--async-client",
        "--async-server",
        &idl,
    ]);
    assert!(
        borrowed.contains("with: impl ::core::ops::FnOnce(::std::borrow::Cow<'_, str>) -> T"),
        "{borrowed}"
    );
    assert!(borrowed.contains("pub trait AsyncServant"), "{borrowed}");
}

#[test]
fn xdr_takes_the_async_options() {
    let x = input(
        "cli_async.x",
        "program P { version V { int NEG(int) = 1; } = 1; } = 0x20000001;",
    );
    let plain = run(&["xdr", &x]);
    assert!(!plain.contains("Async"), "{plain}");
    let both = run(&["xdr", "--async-client", "--async-server", &x]);
    assert!(both.contains("pub struct AsyncClient"), "{both}");
    assert!(both.contains("pub trait AsyncServer"), "{both}");
}

#[test]
fn marshal_path_stays_an_xdr_option() {
    let idl = input("cli_path.idl", "interface E { void f(); };");
    let out = Command::new(env!("CARGO_BIN_EXE_marshal-build"))
        .args(["idl", "--marshal-path", "m", &idl])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`--marshal-path` is for `xdr`"), "{stderr}");
}
