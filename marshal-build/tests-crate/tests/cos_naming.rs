//! The CosNaming client generated from omniorb-idl's `CosNaming.idl` against a real naming
//! service: omniORB's `omniNames` (package omniorb-nameserver), started on a free port with a
//! fresh data directory. It binds a context and a Rust servant's reference, resolves and lists
//! them back (through the generated `BindingIterator` too), decodes the service's user
//! exceptions into the generated error enums, and omniORB's `nameclt` (package omniorb) sees
//! what it bound. A missing program fails the test.

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use marshal::giop::{self, Ior, Server};
use marshal_build_tests::omniorb::cos_naming_idl::cos_naming::{
    binding_iterator, naming_context, naming_context_ext, BindingType, Name, NameComponent,
};
use marshal_build_tests::omniorb::echo_idl::echo;

const TIMEOUT: Duration = Duration::from_secs(20);

/// A running `omniNames`: killed, and its data directory removed, when dropped (after a
/// failed assertion too).
struct NameService {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl NameService {
    /// Starts `omniNames` on a free port of 127.0.0.1 and waits until it accepts connections.
    fn start() -> NameService {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("omninames-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create omniNames' data directory");
        let log = File::create(dir.join("log")).expect("create omniNames' log");
        let child = Command::new("omniNames")
            .arg("-start")
            .arg(port.to_string())
            .arg("-datadir")
            .arg(&dir)
            // Listen (and publish references) on the loopback address only.
            .arg("-ORBendPoint")
            .arg(format!("giop:tcp:127.0.0.1:{port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone the log's handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run omniNames ({e}): install omniorb-nameserver (scripts/test.sh does)"
                )
            });
        let mut ns = NameService { child, port, dir };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = ns.child.try_wait().expect("omniNames' status") {
                panic!("omniNames exited with {status}:\n{}", ns.log());
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "omniNames does not listen on port {port}:\n{}",
                ns.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        ns
    }

    /// The root context's `corbaloc:` URL.
    fn corbaloc(&self) -> String {
        format!("corbaloc::127.0.0.1:{}/NameService", self.port)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// Runs `nameclt <args>` on this naming service; its standard output.
    fn nameclt(&self, args: &[&str]) -> String {
        let out = Command::new("nameclt")
            .arg("-ORBInitRef")
            .arg(format!("NameService={}", self.corbaloc()))
            .args(args)
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run nameclt ({e}): install omniorb (scripts/test.sh does)")
            });
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "nameclt {args:?} exited with {}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

impl Drop for NameService {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `Echo`, to have an object of our own to bind.
struct EchoImpl;

impl echo::Servant for EchoImpl {
    fn echo_string(&self, mesg: String) -> String {
        mesg
    }
}

fn nc(id: &str, kind: &str) -> NameComponent {
    NameComponent {
        id: id.into(),
        kind: kind.into(),
    }
}

fn connect(ior: &Ior) -> giop::Client {
    let mut c = giop::Client::connect(ior).unwrap_or_else(|e| panic!("connect to {ior}: {e}"));
    c.set_timeout(Some(TIMEOUT)).unwrap();
    c
}

/// A binding as `nameclt list` shows it: `id.kind`, `id` when the kind is empty, and `/`
/// after a context.
fn shown(b: &marshal_build_tests::omniorb::cos_naming_idl::cos_naming::Binding) -> String {
    let [c] = b.binding_name.as_slice() else {
        panic!("a listed binding has a one-component name: {b:?}")
    };
    let mut s = c.id.clone();
    if !c.kind.is_empty() {
        s = format!("{s}.{}", c.kind);
    }
    if b.binding_type == BindingType::Ncontext {
        s.push('/');
    }
    s
}

#[test]
fn generated_client_binds_resolves_and_lists_on_omni_names() {
    let ns = NameService::start();
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("echo", echo::skeleton(EchoImpl));
    let server = server.spawn().unwrap();
    let echo_ref = server.ior(echo::REPOSITORY_ID, b"echo");

    // The root context, by its corbaloc URL (a reference without a type id).
    let root_ref = Ior::parse(&ns.corbaloc()).unwrap();
    let mut root = naming_context_ext::Client::new(connect(&root_ref));
    assert!(root.is_a(naming_context_ext::REPOSITORY_ID).unwrap());
    assert!(root.is_a(naming_context::REPOSITORY_ID).unwrap());
    assert!(!root.is_a(echo::REPOSITORY_ID).unwrap());

    // A new context, bound under the root, and our object in it.
    let ctx_name: Name = vec![nc("marshal", "test")];
    let ctx_ref = root.bind_new_context(&ctx_name).unwrap();
    assert!(!ctx_ref.is_nil());
    assert_eq!(root.resolve(&ctx_name).unwrap(), ctx_ref);
    let echo_name: Name = vec![nc("marshal", "test"), nc("echo", "rust")];
    root.bind(&echo_name, &echo_ref).unwrap();

    // The context's own client: more bindings.
    let mut ctx = naming_context::Client::new(connect(&ctx_ref));
    assert!(ctx.is_a(naming_context::REPOSITORY_ID).unwrap());
    ctx.bind(&vec![nc("plain", "")], &echo_ref).unwrap();
    let sub_ref = ctx.bind_new_context(&vec![nc("sub", "")]).unwrap();
    assert_ne!(sub_ref, ctx_ref);

    // Resolved back: the same reference, which reaches our servant.
    let resolved = root.resolve(&echo_name).unwrap();
    assert_eq!(resolved, echo_ref);
    assert_eq!(resolved.type_id(), echo::REPOSITORY_ID);
    let mut e = echo::Client::new(connect(&resolved));
    assert_eq!(
        e.echo_string(&"found by name".into()).unwrap(),
        "found by name"
    );
    assert_eq!(ctx.resolve(&vec![nc("plain", "")]).unwrap(), echo_ref);
    assert_eq!(
        root.resolve_str(&"marshal.test/echo.rust".into()).unwrap(),
        echo_ref
    );
    assert_eq!(
        root.to_string(&echo_name).unwrap(),
        "marshal.test/echo.rust"
    );
    assert_eq!(
        root.to_name(&"marshal.test/sub".into()).unwrap(),
        vec![nc("marshal", "test"), nc("sub", "")]
    );

    // Listed: at most one binding in the list, the rest through the iterator.
    let (first, iter) = ctx.list(&1).unwrap();
    assert_eq!(first.len(), 1);
    assert!(!iter.is_nil());
    let mut it = binding_iterator::Client::new(connect(&iter));
    let (more, rest) = it.next_n(&10).unwrap();
    assert!(more);
    assert_eq!(rest.len(), 2);
    let (more, none) = it.next_n(&10).unwrap();
    assert!(!more && none.is_empty());
    it.destroy().unwrap();
    let mut names: Vec<String> = first.iter().chain(&rest).map(shown).collect();
    names.sort();
    assert_eq!(names, ["echo.rust", "plain", "sub/"]);
    // All at once: no iterator.
    let (all, iter) = ctx.list(&100).unwrap();
    assert_eq!(all.len(), 3);
    assert!(iter.is_nil());

    // The service's user exceptions decode into the generated error enums.
    let missing: Name = vec![nc("marshal", "test"), nc("missing", "")];
    match root.resolve(&missing) {
        Err(naming_context_ext::ResolveError::NotFound(nf)) => {
            assert_eq!(nf.why, naming_context::NotFoundReason::MissingNode);
            assert_eq!(nf.rest_of_name, vec![nc("missing", "")]);
        }
        other => panic!("resolve of a missing name: {other:?}"),
    }
    match root.bind(&echo_name, &echo_ref) {
        Err(naming_context_ext::BindError::AlreadyBound(_)) => {}
        other => panic!("a second bind of a name: {other:?}"),
    }
    match ctx.resolve(&Vec::new()) {
        Err(naming_context::ResolveError::InvalidName(_)) => {}
        other => panic!("resolve of an empty name: {other:?}"),
    }
    match ctx.destroy() {
        Err(naming_context::DestroyError::NotEmpty(_)) => {}
        other => panic!("destroy of a context with bindings: {other:?}"),
    }

    // omniORB's own client sees what the generated one bound.
    let mut listed: Vec<String> = ns
        .nameclt(&["list", "marshal.test"])
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(listed, ["echo.rust", "plain", "sub/"]);
    let by_nameclt = ns.nameclt(&["resolve", "marshal.test/echo.rust"]);
    assert_eq!(Ior::parse(by_nameclt.trim()).unwrap(), echo_ref);
    // And the generated client sees what nameclt binds.
    ns.nameclt(&["bind", "marshal.test/by.nameclt", &echo_ref.to_string()]);
    assert_eq!(ctx.resolve(&vec![nc("by", "nameclt")]).unwrap(), echo_ref);
    ctx.unbind(&vec![nc("by", "nameclt")]).unwrap();
    let mut listed: Vec<String> = ns
        .nameclt(&["list", "marshal.test"])
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(listed, ["echo.rust", "plain", "sub/"]);

    server.shutdown();
}
