//! A Rust servant of the `Echo` interface generated from omniorb-idl's `echo.idl`, served by
//! `marshal::giop::Server`, called by omniORB: `cxx/echo_client.cpp` compiled against the
//! stubs `omniidl -bcxx` generates from the same file (built once per test run, in
//! `CARGO_TARGET_TMPDIR`). Its `_narrow` asks the servant `_is_a` when the reference does not
//! carry the type (a corbaloc URL). A missing omniidl, compiler or omniORB library fails the
//! test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use marshal::giop::{Call, Ior, Server, ServerHandle};
use marshal_build_tests::omniorb::cos_object_identity_idl::cos_object_identity::identifiable_object;
use marshal_build_tests::omniorb::echo_idl::echo;

const ECHO_IDL: &str = "/usr/share/idl/omniORB/echo.idl";

const REQUIREMENTS: &str = "omniORB 4.2's omniidl, C++ headers and libraries and a C++ \
     compiler: install omniidl, libomniorb4-dev, omniorb-idl and g++ (scripts/test.sh does)";

/// Runs `cmd`, failing the test with its output unless it succeeds.
fn run(mut cmd: Command, what: &str) {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {shown}: {e}\n{REQUIREMENTS}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {shown}\n{}{}\n{REQUIREMENTS}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `omniidl -bcxx echo.idl`, then `echo_client.cpp` and the stubs compiled and linked with
/// the flags of `pkg-config omniORB4` (Debian's when it is missing).
fn build_echo_client() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("echo-cxx");
    std::fs::create_dir_all(&dir).expect("create the C++ client's directory");
    assert!(Path::new(ECHO_IDL).is_file(), "{ECHO_IDL}: {REQUIREMENTS}");
    let mut omniidl = Command::new("omniidl");
    omniidl
        .arg("-bcxx")
        .arg(format!("-C{}", dir.display()))
        .arg(ECHO_IDL);
    run(omniidl, "omniidl -bcxx echo.idl");

    let pkg = |arg: &str| -> Option<Vec<String>> {
        let out = Command::new("pkg-config")
            .args([arg, "omniORB4"])
            .output()
            .ok()?;
        out.status.success().then(|| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
    };
    let cflags = pkg("--cflags").unwrap_or_default();
    let libs = pkg("--libs").unwrap_or_else(|| vec!["-lomniORB4".into(), "-lomnithread".into()]);
    let exe = dir.join("echo-client");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let mut words = cxx.split_whitespace();
    let mut cc = Command::new(words.next().expect("a C++ compiler"));
    cc.args(words)
        .args(["-O0", "-Wall"])
        .args(&cflags)
        .arg("-I")
        .arg(&dir)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("cxx/echo_client.cpp"))
        .arg(dir.join("echoSK.cc"))
        .arg("-o")
        .arg(&exe)
        .args(&libs)
        .arg("-lpthread");
    run(cc, "compiling echo-client");
    exe
}

fn echo_client() -> &'static Path {
    static CLIENT: OnceLock<PathBuf> = OnceLock::new();
    CLIENT.get_or_init(build_echo_client)
}

/// Runs the C++ client on `reference` with `messages`.
fn call(reference: &str, messages: &[&str]) -> Output {
    Command::new(echo_client())
        .arg(reference)
        .args(messages)
        // A call that gets no reply fails instead of hanging the test.
        .args(["-ORBclientCallTimeOutPeriod", "20000"])
        .output()
        .expect("run echo-client")
}

/// `Echo`: answers with the message, recording what it was sent.
#[derive(Default)]
struct Recorder {
    messages: Arc<Mutex<Vec<String>>>,
}

impl echo::Servant for Recorder {
    fn echo_string(&self, mesg: String) -> String {
        self.messages.lock().unwrap().push(mesg.clone());
        mesg
    }
}

/// Not an `Echo`: CosObjectIdentity's `IdentifiableObject`.
struct Other;

impl identifiable_object::Servant for Other {
    fn is_identical(&self, _other: Ior) -> bool {
        false
    }
    fn constant_random_id(&self) -> u32 {
        7
    }
}

/// A server of the recording `Echo` under key `echo` and of `Other` under key `other`; each
/// logs the operations it is asked.
struct Objects {
    server: ServerHandle,
    messages: Arc<Mutex<Vec<String>>>,
    ops: Arc<Mutex<Vec<String>>>,
}

fn serve() -> Objects {
    let recorder = Recorder::default();
    let messages = recorder.messages.clone();
    let ops = Arc::new(Mutex::new(Vec::new()));
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    let log = |key: &'static str, servant: Box<dyn marshal::giop::Servant>| {
        let ops = ops.clone();
        move |call: &mut Call<'_>| {
            let op = String::from_utf8_lossy(call.operation());
            ops.lock().unwrap().push(format!("{key} {op}"));
            servant.invoke(call)
        }
    };
    server.add("echo", log("echo", Box::new(echo::skeleton(recorder))));
    server.add(
        "other",
        log("other", Box::new(identifiable_object::skeleton(Other))),
    );
    Objects {
        server: server.spawn().unwrap(),
        messages,
        ops,
    }
}

const MESSAGES: [&str; 4] = ["hello", "", "two words", "from omniORB, 0123456789"];

/// Asserts that the client printed each message echoed and exited 0.
fn assert_echoed(out: &Output, what: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what}: echo-client exited with {}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: Vec<String> = MESSAGES.iter().map(|m| format!("echo: {m}")).collect();
    assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{what}");
}

#[test]
fn omniorb_client_calls_generated_servant_by_ior() {
    let objects = serve();
    let ior = objects.server.ior(echo::REPOSITORY_ID, b"echo");
    let out = call(&ior.to_string(), &MESSAGES);
    assert_echoed(&out, "by IOR");
    assert_eq!(*objects.messages.lock().unwrap(), MESSAGES);
    // The reference names the type: omniORB narrows without asking.
    let ops = objects.ops.lock().unwrap().clone();
    assert_eq!(ops, ["echo echoString"; MESSAGES.len()]);
    objects.server.shutdown();
}

#[test]
fn omniorb_narrow_asks_generated_servant_is_a() {
    let objects = serve();
    let port = objects.server.local_addr().port();
    // GIOP 1.0 (a corbaloc URL's default) and 1.2.
    for url in [
        format!("corbaloc::127.0.0.1:{port}/echo"),
        format!("corbaloc:iiop:1.2@127.0.0.1:{port}/echo"),
    ] {
        objects.messages.lock().unwrap().clear();
        objects.ops.lock().unwrap().clear();
        let out = call(&url, &MESSAGES);
        assert_echoed(&out, &url);
        assert_eq!(*objects.messages.lock().unwrap(), MESSAGES, "{url}");
        let ops = objects.ops.lock().unwrap().clone();
        assert_eq!(ops[0], "echo _is_a", "{url}: {ops:?}");
        assert_eq!(
            ops[1..],
            ["echo echoString"; MESSAGES.len()],
            "{url}: {ops:?}"
        );
    }

    // Another interface's skeleton answers `_is_a` false: the narrow gives nil.
    objects.ops.lock().unwrap().clear();
    let out = call(&format!("corbaloc::127.0.0.1:{port}/other"), &["x"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(stdout.trim(), "not an Echo");
    assert_eq!(*objects.ops.lock().unwrap(), ["other _is_a"]);
    objects.server.shutdown();
}
