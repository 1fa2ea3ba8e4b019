//! The IDL front end's async stubs (`Config::async_client(true)` and
//! `Config::async_server(true)`) on the wire:
//!
//! - `idl/all.idl`: an `AsyncServant` of `All::Derived` implemented with `async fn`s that
//!   await before they answer, served by `marshal::giop::AsyncServer`, called by the generated
//!   `AsyncClient` in GIOP 1.0, 1.1 and 1.2 and both byte orders (every operation and
//!   attribute; `inout`/`out` results; user exceptions decoded into the generated enum; `_is_a`
//!   and `_non_existent`; `BAD_OPERATION` and `MARSHAL`; calls in flight together) and by the
//!   generated blocking `Client`; a oneway request gets no reply;
//! - `idl/store.idl` in borrowed mode: arguments borrowed from the request, results borrowed
//!   from the reply through the client's closures, together with user exceptions; parameters
//!   named as the stubs' own locals; an interface without operations.
//!
//! omniORB's C++ client calling a generated async servant is in `tests/echo_omniorb.rs`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use marshal::cdr::ByteOrder;
use marshal::giop::{
    encode_message, AsyncServer, AsyncServerHandle, CallError, Ior, Message, MessageKind,
    RequestHeader, TargetAddress, Version, HEADER_LEN, RESPONSE_EXPECTED,
};
use marshal_build_tests::async_idl::all_idl::{all, inc};
use marshal_build_tests::async_idl::borrowed::store_idl::store::{self, nothing, sized};

const VERSIONS: [Version; 3] = [Version::V1_0, Version::V1_1, Version::V1_2];
const ORDERS: [ByteOrder; 2] = [ByteOrder::Big, ByteOrder::Little];

/// A multi-thread runtime of two workers, built by hand (no `macros` feature).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn system_exception(e: CallError) -> String {
    match e {
        CallError::SystemException { repository_id, .. } => repository_id,
        other => panic!("not a system exception: {other:?}"),
    }
}

// ----- all.idl -----

/// `All::Derived`, asynchronously: every method yields before it answers, so that no call's
/// future completes at its first poll.
#[derive(Default)]
struct Derived {
    counter: AtomicI32,
    pings: Arc<AtomicUsize>,
}

impl all::derived::AsyncServant for Derived {
    async fn fail(&self, code: i32) -> Result<(), all::derived::FailError> {
        tokio::task::yield_now().await;
        match code {
            0 => Ok(()),
            1 => Err(all::derived::FailError::Empty(all::Empty {})),
            _ => Err(all::derived::FailError::Oops(all::Oops {
                code,
                why: format!("failed {code}"),
            })),
        }
    }
    async fn mix(&self, a: i32, s: String) -> (i32, i32, String) {
        tokio::task::yield_now().await;
        (a + 1, a * 2, format!("{s}!"))
    }
    async fn ping(&self) {
        tokio::task::yield_now().await;
        self.pings.fetch_add(1, Ordering::SeqCst);
    }
    async fn echo_union(&self, u: all::ByLong) -> all::ByLong {
        tokio::task::yield_now().await;
        u
    }
    async fn echo_holder(&self, h: all::Holder) -> all::Holder {
        tokio::time::sleep(Duration::from_millis(1)).await;
        h
    }
    async fn self_ref(&self) -> Ior {
        tokio::task::yield_now().await;
        Ior::new(all::base::REPOSITORY_ID, "127.0.0.1", 1, b"k")
    }
    async fn r#in(&self, c: all::Color) -> all::Color {
        tokio::task::yield_now().await;
        c
    }
    async fn add(&self, a: i32, b: i32) -> i32 {
        tokio::task::yield_now().await;
        a.wrapping_add(b)
    }
    async fn counter(&self) -> i32 {
        tokio::task::yield_now().await;
        self.counter.load(Ordering::SeqCst)
    }
    async fn set_counter(&self, value: i32) {
        tokio::task::yield_now().await;
        self.counter.store(value, Ordering::SeqCst);
    }
    async fn name(&self) -> String {
        tokio::task::yield_now().await;
        "derived".into()
    }
}

fn holder() -> all::Holder {
    all::Holder {
        prims: vec![all::Prims {
            o: 1,
            b: true,
            c: -2,
            s: -3,
            us: 4,
            l: -5,
            ul: 6,
            ll: -7,
            ull: 8,
            f: 1.5,
            d: -2.5,
            str: "s".into(),
            col: all::Color::Blue,
        }],
        bounded: "b".into(),
        longs: vec![1, 2, 3],
        m: [[1, 2, 3], [4, 5, 6]],
        sh: all::Short("short".into()),
        tag: inc::Tag {
            level: inc::Level::High,
            label: "t".into(),
        },
        module: 9,
    }
}

/// An async server of `Derived` under the key `derived`.
async fn serve_derived(imp: Derived) -> AsyncServerHandle {
    let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    server.add_service("derived", all::derived::service(imp));
    server.spawn().unwrap()
}

/// Every operation and attribute of `All::Derived` through `c`.
async fn exercise_derived(c: &all::derived::AsyncClient, what: &str) {
    assert_eq!(c.add(&2, &3).await.unwrap(), 5, "{what}");
    assert_eq!(
        c.mix(&4, &"s".to_string()).await.unwrap(),
        (5, 8, "s!".to_string()),
        "{what}"
    );
    c.fail(&0).await.unwrap();
    match c.fail(&7).await {
        Err(all::derived::FailError::Oops(o)) => {
            assert_eq!((o.code, o.why.as_str()), (7, "failed 7"), "{what}")
        }
        other => panic!("{what}: {other:?}"),
    }
    assert!(
        matches!(
            c.fail(&1).await,
            Err(all::derived::FailError::Empty(all::Empty {}))
        ),
        "{what}"
    );
    c.ping().await.unwrap();
    let u = all::ByLong::Default(-9, holder());
    assert_eq!(c.echo_union(&u).await.unwrap(), u, "{what}");
    let u = all::ByLong::V1OrV2(2, "two".into());
    assert_eq!(c.echo_union(&u).await.unwrap(), u, "{what}");
    assert_eq!(c.echo_holder(&holder()).await.unwrap(), holder(), "{what}");
    assert_eq!(
        c.self_ref().await.unwrap().type_id(),
        all::base::REPOSITORY_ID,
        "{what}"
    );
    assert_eq!(c.r#in(&all::Color::Green).await.unwrap(), all::Color::Green);
    c.set_counter(&41).await.unwrap();
    assert_eq!(c.counter().await.unwrap(), 41, "{what}");
    c.set_counter(&-1).await.unwrap();
    assert_eq!(c.counter().await.unwrap(), -1, "{what}");
    assert_eq!(c.name().await.unwrap(), "derived", "{what}");

    // What the skeleton answers itself.
    assert!(c.is_a(all::derived::REPOSITORY_ID).await.unwrap(), "{what}");
    assert!(c.is_a(all::base::REPOSITORY_ID).await.unwrap(), "{what}");
    assert!(!c.is_a("IDL:Other:1.0").await.unwrap(), "{what}");
    let inner = c.get_ref();
    for ne in ["_non_existent", "_not_existent"] {
        assert!(!inner.invoke::<_, bool>(ne, &()).await.unwrap(), "{what}");
    }
    // Unknown operations, of a known operation's length and of another.
    for op in [
        "adx",
        "nope",
        "_get_nothing",
        "a_much_longer_operation_name",
    ] {
        let e = inner.invoke::<_, ()>(op, &()).await.unwrap_err();
        assert_eq!(
            system_exception(e),
            "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
            "{what}: {op}"
        );
    }
    // Arguments that do not decode.
    let e = inner.invoke::<_, i32>("add", &1i32).await.unwrap_err();
    assert_eq!(
        system_exception(e),
        "IDL:omg.org/CORBA/MARSHAL:1.0",
        "{what}"
    );
}

#[test]
fn generated_async_client_calls_generated_async_servant_in_every_version_and_byte_order() {
    runtime().block_on(async {
        let server = serve_derived(Derived::default()).await;
        let ior = server.ior(all::derived::REPOSITORY_ID, b"derived");
        for version in VERSIONS {
            for order in ORDERS {
                let inner = marshal::giop::AsyncClient::connect(&ior).await.unwrap();
                inner.set_version(version);
                inner.set_byte_order(order);
                let c = all::derived::AsyncClient::new(inner);
                exercise_derived(&c, &format!("GIOP {version}, {order:?}")).await;
                assert_eq!(c.into_inner().pending_calls(), 0);
            }
        }
        server.shutdown().await;
    });
}

#[test]
fn calls_from_clones_of_the_generated_async_client_are_in_flight_together() {
    runtime().block_on(async {
        let server = serve_derived(Derived::default()).await;
        let ior = server.ior(all::derived::REPOSITORY_ID, b"derived");
        let c = all::derived::AsyncClient::new(
            marshal::giop::AsyncClient::connect(&ior).await.unwrap(),
        );
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let c = c.clone();
                tokio::spawn(async move {
                    for j in 0..20 {
                        assert_eq!(c.add(&i, &j).await.unwrap(), i + j);
                        let (r, b, s) = c.mix(&i, &format!("{j}")).await.unwrap();
                        assert_eq!((r, b, s), (i + 1, i * 2, format!("{j}!")));
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("every call answered");
        }
        server.shutdown().await;
    });
}

#[test]
fn the_generated_blocking_client_calls_the_generated_async_servant() {
    let rt = runtime();
    let server = rt.block_on(serve_derived(Derived::default()));
    let ior = server.ior(all::derived::REPOSITORY_ID, b"derived");
    for version in VERSIONS {
        let mut inner = marshal::giop::Client::connect(&ior).unwrap();
        inner.set_version(version);
        let mut c = all::derived::Client::new(inner);
        assert_eq!(c.add(&40, &2).unwrap(), 42);
        assert_eq!(c.mix(&1, &"x".to_string()).unwrap(), (2, 2, "x!".into()));
        match c.fail(&3) {
            Err(all::derived::FailError::Oops(o)) => assert_eq!(o.why, "failed 3"),
            other => panic!("GIOP {version}: {other:?}"),
        }
        c.set_counter(&9).unwrap();
        assert_eq!(c.counter().unwrap(), 9);
        assert!(c.is_a(all::base::REPOSITORY_ID).unwrap());
    }
    rt.block_on(server.shutdown());
}

/// Reads one GIOP message from `s`.
fn read_message(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut msg = vec![0u8; HEADER_LEN];
    s.read_exact(&mut msg)?;
    let big = msg[6] & 1 == 0;
    let size: [u8; 4] = msg[8..12].try_into().unwrap();
    let size = if big {
        u32::from_be_bytes(size)
    } else {
        u32::from_le_bytes(size)
    };
    assert!(size < 1 << 20, "a reply of {size} bytes");
    msg.resize(HEADER_LEN + size as usize, 0);
    s.read_exact(&mut msg[HEADER_LEN..])?;
    Ok(msg)
}

/// Sends request `id` of `operation` with `args` on `s`, expecting a response or not.
fn send<A: marshal::cdr::Encode>(
    s: &mut TcpStream,
    id: u32,
    expected: bool,
    operation: &str,
    args: &A,
) {
    let head = RequestHeader {
        request_id: id,
        response_flags: if expected { RESPONSE_EXPECTED } else { 0 },
        target: TargetAddress::Key(b"derived"),
        operation: operation.as_bytes(),
        service_contexts: vec![],
        principal: b"",
    };
    let mut msg = Vec::new();
    encode_message(&mut msg, Version::V1_2, ByteOrder::Big, &head, args).unwrap();
    s.write_all(&msg).unwrap();
}

/// The request id and `i32` result of the reply `msg`.
fn reply_i32(msg: &[u8]) -> (u32, i32) {
    let m = Message::parse(msg).unwrap();
    let MessageKind::Reply(head) = &m.kind else {
        panic!("not a reply: {:?}", m.header.msg_type)
    };
    (head.request_id, m.body().decode().unwrap())
}

#[test]
fn a_oneway_request_is_served_and_gets_no_reply() {
    let rt = runtime();
    let imp = Derived::default();
    let pings = Arc::clone(&imp.pings);
    let server = rt.block_on(serve_derived(imp));
    let mut s = TcpStream::connect(server.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    send(&mut s, 1, false, "ping", &());
    send(&mut s, 2, true, "add", &(1i32, 2i32));
    assert_eq!(reply_i32(&read_message(&mut s).unwrap()), (2, 3));
    // The servant ran the oneway `ping`...
    let deadline = Instant::now() + Duration::from_secs(5);
    while pings.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the oneway ping was not served");
        std::thread::sleep(Duration::from_millis(5));
    }
    // ...and nothing was sent for it: the next message answers request 3, and no other
    // follows.
    send(&mut s, 3, true, "add", &(5i32, 6i32));
    assert_eq!(reply_i32(&read_message(&mut s).unwrap()), (3, 11));
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let e = read_message(&mut s).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{e}"
    );
    assert_eq!(pings.load(Ordering::SeqCst), 1);
    rt.block_on(server.shutdown());
}

// ----- store.idl, borrowed -----

/// `Store::Sized` (and the `Files` it inherits): named blobs under a quota. Every method
/// awaits before it answers; arguments that arrive as copies rather than borrowed from the
/// request are counted.
struct Store {
    data: Mutex<BTreeMap<String, Vec<u8>>>,
    quota: AtomicU32,
    touched: Arc<Mutex<Vec<String>>>,
    motd: String,
    copied: Arc<AtomicUsize>,
}

impl Store {
    fn new() -> Store {
        Store {
            data: Mutex::new(BTreeMap::new()),
            quota: AtomicU32::new(u32::MAX),
            touched: Arc::default(),
            motd: "welcome".into(),
            copied: Arc::default(),
        }
    }

    fn check_borrowed(&self, args: &[&Cow<'_, str>]) {
        for a in args {
            if matches!(a, Cow::Owned(_)) {
                self.copied.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    fn not_found(key: &str) -> store::NotFound {
        store::NotFound { key: key.into() }
    }
}

impl sized::AsyncServant for Store {
    async fn get<'a>(&'a self, key: Cow<'a, str>) -> Result<store::Blob<'a>, sized::GetError> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&key]);
        let data = self.data.lock().unwrap();
        match data.get(&*key) {
            Some(v) => Ok(Cow::Owned(v.clone())),
            None => Err(sized::GetError::NotFound(Store::not_found(&key))),
        }
    }

    async fn put<'a>(
        &'a self,
        key: Cow<'a, str>,
        value: store::Blob<'a>,
    ) -> Result<(), sized::PutError> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&key]);
        if matches!(value, Cow::Owned(_)) {
            self.copied.fetch_add(1, Ordering::SeqCst);
        }
        let mut data = self.data.lock().unwrap();
        let used: u64 = data.values().map(|v| v.len() as u64).sum();
        let quota = u64::from(self.quota.load(Ordering::SeqCst));
        if used + value.len() as u64 > quota {
            return Err(sized::PutError::Full(store::Full { used, quota }));
        }
        data.insert(key.into_owned(), value.into_owned());
        Ok(())
    }

    async fn rename<'a>(
        &'a self,
        key: Cow<'a, str>,
        to: Cow<'a, str>,
    ) -> Result<(i32, Cow<'a, str>, store::Blob<'a>), sized::RenameError> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&key, &to]);
        let mut data = self.data.lock().unwrap();
        let Some(v) = data.remove(&*key) else {
            return Err(sized::RenameError::NotFound(Store::not_found(&key)));
        };
        let n = v.len() as i32;
        let old = data.insert(to.to_string(), v).unwrap_or_default();
        // `key` becomes `to`, still borrowed from the request.
        Ok((n, to, Cow::Owned(old)))
    }

    async fn list<'a>(&'a self, prefix: Cow<'a, str>) -> store::Entries<'a> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&prefix]);
        let data = self.data.lock().unwrap();
        data.iter()
            .filter(|(k, _)| k.starts_with(&*prefix))
            .map(|(k, v)| store::Entry {
                key: Cow::Owned(k.clone()),
                value: Cow::Owned(v.clone()),
            })
            .collect()
    }

    async fn touch<'a>(&'a self, key: Cow<'a, str>) {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&key]);
        self.touched.lock().unwrap().push(key.into_owned());
    }

    async fn names<'a>(
        &'a self,
        req: Cow<'a, str>,
        imp: Cow<'a, str>,
        op: i32,
        args: Cow<'a, str>,
        with: Cow<'a, str>,
        reply: i32,
    ) -> Cow<'a, str> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&req, &imp, &args, &with]);
        Cow::Owned(format!("{req}/{imp}/{op}/{args}/{with}/{reply}"))
    }

    async fn motd<'a>(&'a self) -> Cow<'a, str> {
        tokio::task::yield_now().await;
        // Borrowed from the implementation.
        Cow::Borrowed(&self.motd)
    }

    async fn quota(&self) -> u32 {
        tokio::task::yield_now().await;
        self.quota.load(Ordering::SeqCst)
    }

    async fn set_quota(&self, value: u32) {
        tokio::task::yield_now().await;
        self.quota.store(value, Ordering::SeqCst);
    }

    async fn size<'a>(&'a self, key: Cow<'a, str>) -> Result<i64, sized::SizeError> {
        tokio::task::yield_now().await;
        self.check_borrowed(&[&key]);
        let data = self.data.lock().unwrap();
        match data.get(&*key) {
            Some(v) => Ok(v.len() as i64),
            None => Err(sized::SizeError::NotFound(Store::not_found(&key))),
        }
    }
}

/// `Store::Nothing`: no operations.
struct Nothing;

impl nothing::AsyncServant for Nothing {}

#[test]
fn borrowed_async_stubs_borrow_arguments_and_results_and_decode_user_exceptions() {
    runtime().block_on(async {
        for version in VERSIONS {
            for order in ORDERS {
                let what = format!("GIOP {version}, {order:?}");
                let imp = Store::new();
                let (touched, copied) = (Arc::clone(&imp.touched), Arc::clone(&imp.copied));
                let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
                server.add_service("store", sized::service(imp));
                server.add_service("nothing", nothing::service(Nothing));
                let server = server.spawn().unwrap();

                let inner = marshal::giop::AsyncClient::connect(
                    &server.ior(sized::REPOSITORY_ID, b"store"),
                )
                .await
                .unwrap();
                inner.set_version(version);
                inner.set_byte_order(order);
                let c = sized::AsyncClient::new(inner);

                // Attributes: one borrowed from the implementation, one plain.
                assert_eq!(c.motd(|m| m.into_owned()).await.unwrap(), "welcome");
                c.set_quota(&8).await.unwrap();
                assert_eq!(c.quota().await.unwrap(), 8, "{what}");

                // Raising operations, with results that do and do not borrow.
                c.put("a", &Cow::Borrowed(b"hello")).await.unwrap();
                match c.put("b", &Cow::Borrowed(b"world")).await {
                    Err(sized::PutError::Full(f)) => {
                        assert_eq!((f.used, f.quota), (5, 8), "{what}")
                    }
                    other => panic!("{what}: {other:?}"),
                }
                c.set_quota(&1000).await.unwrap();
                let (value, borrowed) = c
                    .get("a", |b| (b.to_vec(), matches!(b, Cow::Borrowed(_))))
                    .await
                    .unwrap();
                assert_eq!(value, b"hello", "{what}");
                assert!(borrowed, "{what}: the result was copied out of the reply");
                match c.get("zz", |b| b.len()).await {
                    Err(sized::GetError::NotFound(n)) => assert_eq!(n.key, "zz", "{what}"),
                    other => panic!("{what}: {other:?}"),
                }
                assert_eq!(c.size("a").await.unwrap(), 5, "{what}");
                assert!(
                    matches!(c.size("zz").await, Err(sized::SizeError::NotFound(_))),
                    "{what}"
                );

                // `inout` and `out` parameters that borrow, and an exception from the same
                // method.
                c.put("c", &Cow::Borrowed(b"old")).await.unwrap();
                let renamed = c
                    .rename("a", "c", |(n, key, old)| {
                        (n, key.into_owned(), old.to_vec())
                    })
                    .await
                    .unwrap();
                assert_eq!(renamed, (5, "c".to_string(), b"old".to_vec()), "{what}");
                match c.rename("a", "d", |_| ()).await {
                    Err(sized::RenameError::NotFound(n)) => assert_eq!(n.key, "a", "{what}"),
                    other => panic!("{what}: {other:?}"),
                }

                // Sequences of structs holding borrowed strings and octets.
                c.put("cat", &Cow::Borrowed(b"meow")).await.unwrap();
                let listed = c
                    .list("c", |entries| {
                        entries
                            .iter()
                            .map(|e| (e.key.to_string(), e.value.to_vec()))
                            .collect::<Vec<_>>()
                    })
                    .await
                    .unwrap();
                assert_eq!(
                    listed,
                    [
                        ("c".to_string(), b"hello".to_vec()),
                        ("cat".to_string(), b"meow".to_vec())
                    ],
                    "{what}"
                );

                c.touch("t").await.unwrap();
                assert_eq!(*touched.lock().unwrap(), ["t"], "{what}");
                // Parameters named as the stubs' locals (`req`, `imp`, `op`, `args`, `reply`)
                // and closure (`with`, which therefore is `with_results`).
                let joined = c
                    .names("1", "2", &3, "4", "5", &6, |s| s.into_owned())
                    .await
                    .unwrap();
                assert_eq!(joined, "1/2/3/4/5/6", "{what}");

                // Inherited and own repository ids; an interface without operations.
                assert!(c.is_a(store::files::REPOSITORY_ID).await.unwrap(), "{what}");
                let none = nothing::AsyncClient::new(
                    marshal::giop::AsyncClient::connect(
                        &server.ior(nothing::REPOSITORY_ID, b"nothing"),
                    )
                    .await
                    .unwrap(),
                );
                assert!(none.is_a(nothing::REPOSITORY_ID).await.unwrap(), "{what}");
                assert!(!none.is_a(sized::REPOSITORY_ID).await.unwrap(), "{what}");
                let e = none
                    .get_ref()
                    .invoke::<_, ()>("touch", "t")
                    .await
                    .unwrap_err();
                assert_eq!(
                    system_exception(e),
                    "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
                    "{what}"
                );
                assert_eq!(
                    copied.load(Ordering::SeqCst),
                    0,
                    "{what}: arguments were copied out of the request"
                );
                server.shutdown().await;
            }
        }
    });
}
