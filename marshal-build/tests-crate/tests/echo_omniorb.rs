//! A Rust servant of the `Echo` interface generated from omniorb-idl's `echo.idl`, served by
//! `marshal::giop::Server` (the blocking `Servant`) and by `marshal::giop::AsyncServer` (the
//! `AsyncServant`, `Config::async_server(true)`), called by omniORB: `cxx/echo_client.cpp`
//! compiled against the stubs `omniidl -bcxx` generates from the same file (built once per
//! test run, in `CARGO_TARGET_TMPDIR`). Its `_narrow` asks the servant `_is_a` when the
//! reference does not carry the type (a corbaloc URL). A missing omniidl, compiler or omniORB
//! library fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use std::task::{Context, Poll};

use marshal::giop::{
    AsyncServer, AsyncServerHandle, Call, Ior, Request, Server, ServerHandle, Service,
};
use marshal_build_tests::async_idl::echo_idl::echo as async_echo;
use marshal_build_tests::async_idl::store_idl::store::nothing;
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

// ----- the async servant -----

/// `Echo`, asynchronously: answers with the message after a yield, recording what it was
/// sent.
#[derive(Default)]
struct AsyncRecorder {
    messages: Arc<Mutex<Vec<String>>>,
}

impl async_echo::AsyncServant for AsyncRecorder {
    async fn echo_string(&self, mesg: String) -> String {
        tokio::task::yield_now().await;
        self.messages.lock().unwrap().push(mesg.clone());
        mesg
    }
}

/// Not an `Echo`: store.idl's `Store::Nothing`.
struct AsyncOther;

impl nothing::AsyncServant for AsyncOther {}

/// A service that logs the operation of each request (as `<key> <operation>`) and passes it
/// on to `inner`.
#[derive(Clone)]
struct Logged<S> {
    key: &'static str,
    ops: Arc<Mutex<Vec<String>>>,
    inner: S,
}

impl<S: Service<Request>> Service<Request> for Logged<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> S::Future {
        let op = String::from_utf8_lossy(req.operation()).into_owned();
        self.ops.lock().unwrap().push(format!("{} {op}", self.key));
        self.inner.call(req)
    }
}

/// An async server, on `rt`, of the recording `Echo` under key `echo` and of `Nothing` under
/// key `other`; each logs the operations it is asked.
struct AsyncObjects {
    server: AsyncServerHandle,
    messages: Arc<Mutex<Vec<String>>>,
    ops: Arc<Mutex<Vec<String>>>,
}

fn serve_async(rt: &tokio::runtime::Runtime) -> AsyncObjects {
    let recorder = AsyncRecorder::default();
    let messages = recorder.messages.clone();
    let ops = Arc::new(Mutex::new(Vec::new()));
    let server = rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service(
            "echo",
            Logged {
                key: "echo",
                ops: ops.clone(),
                inner: async_echo::service(recorder),
            },
        );
        server.add_service(
            "other",
            Logged {
                key: "other",
                ops: ops.clone(),
                inner: nothing::service(AsyncOther),
            },
        );
        server.spawn().unwrap()
    });
    AsyncObjects {
        server,
        messages,
        ops,
    }
}

/// A runtime of two workers (built by hand: no `macros` feature), which serves while
/// omniORB's client runs on the test's thread.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

#[test]
fn omniorb_client_calls_generated_async_servant_by_ior() {
    let rt = runtime();
    let objects = serve_async(&rt);
    let ior = objects.server.ior(async_echo::REPOSITORY_ID, b"echo");
    let out = call(&ior.to_string(), &MESSAGES);
    assert_echoed(&out, "async, by IOR");
    assert_eq!(*objects.messages.lock().unwrap(), MESSAGES);
    let ops = objects.ops.lock().unwrap().clone();
    assert_eq!(ops, ["echo echoString"; MESSAGES.len()]);
    rt.block_on(objects.server.shutdown());
}

#[test]
fn omniorb_narrow_asks_generated_async_servant_is_a() {
    let rt = runtime();
    let objects = serve_async(&rt);
    let port = objects.server.local_addr().port();
    for url in [
        format!("corbaloc::127.0.0.1:{port}/echo"),
        format!("corbaloc:iiop:1.1@127.0.0.1:{port}/echo"),
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

    // Another interface's async skeleton answers `_is_a` false: the narrow gives nil.
    objects.ops.lock().unwrap().clear();
    let out = call(&format!("corbaloc::127.0.0.1:{port}/other"), &["x"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(stdout.trim(), "not an Echo");
    assert_eq!(*objects.ops.lock().unwrap(), ["other _is_a"]);
    rt.block_on(objects.server.shutdown());
}
