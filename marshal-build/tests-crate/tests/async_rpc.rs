//! The async stubs (`Config::async_client(true)` and `Config::async_server(true)`) on the
//! wire:
//!
//! - `xdr/calc.x`: an `AsyncServer` implemented with `async fn`s that await before they
//!   answer, served by `marshal::rpc::AsyncServer` and called by the generated
//!   `AsyncClient` over TCP and UDP (every procedure; calls in flight together), which
//!   refuses unknown procedures (`PROC_UNAVAIL`) and arguments that do not decode
//!   (`GARBAGE_ARGS`); and called by a C client built during the test on the stubs that
//!   `rpcgen` generates from the same file, which finds it through rpcbind;
//! - `xdr/kv.x` in borrowed mode: the server's arguments borrow from the request, and the
//!   client's closures get results borrowed from the reply.
//!
//! `scripts/test.sh` installs and starts rpcbind and installs rpcgen and libtirpc-dev; a
//! missing one fails these tests.

mod support;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use marshal::rpc::{AsyncServer, AsyncServerHandle, RpcError};
use marshal_build_tests::async_stubs::calc::{self, calc_prog::calc_vers};
use marshal_build_tests::async_stubs::kv::{self, kv_prog::kv_vers};
use support::{build_c_client, require_rpcbind, rpcinfo_has, rpcinfo_lists, run};

/// A multi-thread runtime of two workers, built by hand (no `macros` feature).
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// `CALC_PROG` served through the generated `AsyncServer` trait. Every method yields before
/// it answers, so that no call's future completes at its first poll.
struct Calc;

impl calc_vers::AsyncServer for Calc {
    async fn calcproc_null(&self) {
        tokio::task::yield_now().await;
    }

    async fn calcproc_add(&self, args: calc::Pair) -> i32 {
        tokio::task::yield_now().await;
        args.a.wrapping_add(args.b)
    }

    async fn calcproc_greet(&self, args: calc::Greeting) -> calc::Name {
        tokio::task::yield_now().await;
        let hello = vec![format!("hello {}", args.who.0); args.times as usize].join(", ");
        let mut end = hello.len().min(calc::CALC_MAX as usize);
        while !hello.is_char_boundary(end) {
            end -= 1;
        }
        calc::Name(hello[..end].to_string())
    }

    async fn calcproc_reduce(&self, args: calc::ReduceArgs) -> calc::ReduceRes {
        tokio::task::yield_now().await;
        let v = args.values.0.iter().copied();
        match args.how {
            calc::Op::OpSum => Some(v.fold(0i32, i32::wrapping_add)),
            calc::Op::OpMax => v.max(),
            calc::Op::OpMin => v.min(),
        }
    }
}

/// An async server of `CALC_PROG` at `program` on 127.0.0.1 (TCP and UDP, one port).
async fn serve_calc(program: u32) -> AsyncServerHandle {
    let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
    server.add_service(program, calc_vers::VERSION, calc_vers::service(Calc));
    server.spawn().unwrap()
}

/// Plain async RPC clients of `program` at `version` over TCP and UDP.
async fn raw_clients(
    server: &AsyncServerHandle,
    program: u32,
    version: u32,
) -> [marshal::rpc::AsyncClient; 2] {
    let (tcp, udp): (SocketAddr, SocketAddr) =
        (server.tcp_addr().unwrap(), server.udp_addr().unwrap());
    [
        marshal::rpc::AsyncClient::connect_tcp(tcp, program, version)
            .await
            .unwrap(),
        marshal::rpc::AsyncClient::connect_udp(udp, program, version)
            .await
            .unwrap(),
    ]
}

#[test]
fn generated_async_client_calls_generated_async_server_over_tcp_and_udp() {
    runtime().block_on(async {
        let server = serve_calc(calc_vers::PROGRAM).await;
        for raw in raw_clients(&server, calc_vers::PROGRAM, calc_vers::VERSION).await {
            let proto = raw.protocol();
            let c = calc_vers::AsyncClient::new(raw);
            c.calcproc_null().await.unwrap();
            assert_eq!(
                c.calcproc_add(&calc::Pair { a: 40, b: 2 }).await.unwrap(),
                42,
                "{proto:?}"
            );
            assert_eq!(
                c.calcproc_add(&calc::Pair { a: i32::MAX, b: 1 })
                    .await
                    .unwrap(),
                i32::MIN
            );
            let hello = c
                .calcproc_greet(&calc::Greeting {
                    who: calc::Name("world".into()),
                    times: 3,
                })
                .await
                .unwrap();
            assert_eq!(hello.0, "hello world, hello world, hello world");
            // An answer cut at the bound of `name`.
            let long = c
                .calcproc_greet(&calc::Greeting {
                    who: calc::Name("x".repeat(30)),
                    times: 9,
                })
                .await
                .unwrap();
            assert_eq!(long.0.len(), calc::CALC_MAX as usize);
            for (how, expected) in [
                (calc::Op::OpSum, Some(21)),
                (calc::Op::OpMax, Some(12)),
                (calc::Op::OpMin, Some(-3)),
            ] {
                let args = calc::ReduceArgs {
                    how,
                    values: calc::Numbers(vec![7, -3, 12, 5]),
                };
                assert_eq!(c.calcproc_reduce(&args).await.unwrap(), expected);
            }
            let empty = calc::ReduceArgs {
                how: calc::Op::OpMax,
                values: calc::Numbers(Vec::new()),
            };
            assert_eq!(c.calcproc_reduce(&empty).await.unwrap(), None);

            // Clones share the connection; their calls are in flight together.
            let calls: Vec<_> = (0..16)
                .map(|i| {
                    let c = c.clone();
                    tokio::spawn(async move { c.calcproc_add(&calc::Pair { a: i, b: i }).await })
                })
                .collect();
            for (i, call) in (0..).zip(calls) {
                assert_eq!(call.await.unwrap().unwrap(), 2 * i, "{proto:?}");
            }
            assert_eq!(c.get_ref().program(), calc_vers::PROGRAM);
            assert_eq!(c.into_inner().protocol(), proto);
        }
        server.shutdown().await;
    });
}

#[test]
fn unknown_procedures_and_bad_arguments_are_refused() {
    runtime().block_on(async {
        let server = serve_calc(calc_vers::PROGRAM).await;
        for raw in raw_clients(&server, calc_vers::PROGRAM, calc_vers::VERSION).await {
            let proto = raw.protocol();
            let unknown = raw.call::<(), ()>(99, &()).await;
            assert!(
                matches!(unknown, Err(RpcError::ProcUnavail)),
                "procedure 99 over {proto:?}: {unknown:?}"
            );
            // ADD takes two ints: one is too short.
            let short = raw.call::<u32, i32>(calc_vers::CALCPROC_ADD, &7).await;
            // NULL takes nothing: a word after the header is left over.
            let extra = raw.call::<u32, ()>(calc_vers::CALCPROC_NULL, &7).await;
            // REDUCE's `op` has no enumerator 9.
            let bad_enum = raw
                .call::<(u32, u32), calc::ReduceRes>(calc_vers::CALCPROC_REDUCE, &(9, 0))
                .await;
            // GREET's name is a `string<CALC_MAX>`.
            let too_long = raw
                .call::<(String, u32), calc::Name>(
                    calc_vers::CALCPROC_GREET,
                    &("x".repeat(calc::CALC_MAX as usize + 1), 1),
                )
                .await;
            for (what, outcome) in [
                ("a short ADD", short.map(drop)),
                ("a NULL with arguments", extra),
                ("an unknown op", bad_enum.map(drop)),
                ("a name over its bound", too_long.map(drop)),
            ] {
                assert!(
                    matches!(outcome, Err(RpcError::GarbageArgs)),
                    "{what} over {proto:?}: {outcome:?}"
                );
            }
            // The server still answers on the same connection or socket.
            let c = calc_vers::AsyncClient::new(raw);
            assert_eq!(c.calcproc_add(&calc::Pair { a: 1, b: 2 }).await.unwrap(), 3);
        }
        server.shutdown().await;
    });
}

/// Whether a `Cow` borrows (which needs the `Cow`, not what it derefs to).
#[allow(clippy::ptr_arg)]
fn borrowed<T: ?Sized + ToOwned>(c: &Cow<'_, T>) -> bool {
    matches!(c, Cow::Borrowed(_))
}

/// `KV_PROG` in borrowed mode: a map of names to values, and a message of the day it answers
/// borrowed from itself. Counts the strings and opaque arguments it receives, and those of
/// them that were copied rather than borrowed from the request.
struct Kv {
    map: Mutex<BTreeMap<String, Vec<u8>>>,
    motd: String,
    seen: Arc<Seen>,
}

/// What a [`Kv`] saw of its arguments.
#[derive(Default)]
struct Seen {
    received: AtomicUsize,
    copied: AtomicUsize,
}

impl Kv {
    fn saw<T: ?Sized + ToOwned>(&self, args: &[&Cow<'_, T>]) {
        for a in args {
            self.seen.received.fetch_add(1, Ordering::Relaxed);
            if !borrowed(a) {
                self.seen.copied.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl kv_vers::AsyncServer for Kv {
    async fn kvproc_null(&self) {
        tokio::task::yield_now().await;
    }

    async fn kvproc_put<'a>(&'a self, args: kv::Entry<'a>) -> u32 {
        self.saw(&[&args.name.0]);
        self.saw(&[&args.value]);
        tokio::task::yield_now().await;
        let len = args.value.len() as u32;
        self.map
            .lock()
            .unwrap()
            .insert(args.name.0.into_owned(), args.value.into_owned());
        len
    }

    async fn kvproc_get<'a>(&'a self, args: Cow<'a, str>) -> kv::LookupRes<'a> {
        self.saw(&[&args]);
        tokio::task::yield_now().await;
        let value = self.map.lock().unwrap().get(&*args).cloned();
        // The name answered is the request's own.
        value.map(|v| kv::Entry {
            name: kv::Key(args),
            value: Cow::Owned(v),
        })
    }

    async fn kvproc_echo<'a>(&'a self, args: kv::Entry<'a>) -> kv::Entry<'a> {
        self.saw(&[&args.name.0]);
        self.saw(&[&args.value]);
        tokio::task::yield_now().await;
        args
    }

    async fn kvproc_cat<'a>(&'a self, arg0: Cow<'a, [u8]>, arg1: Cow<'a, [u8]>) -> Cow<'a, [u8]> {
        self.saw(&[&arg0, &arg1]);
        tokio::task::yield_now().await;
        if arg1.is_empty() {
            arg0
        } else {
            Cow::Owned([&arg0[..], &arg1[..]].concat())
        }
    }

    async fn kvproc_repeat<'a>(&'a self, arg0: Cow<'a, str>, arg1: u32) -> Cow<'a, str> {
        self.saw(&[&arg0]);
        tokio::task::yield_now().await;
        match arg1 {
            1 => arg0,
            n => Cow::Owned(arg0.repeat(n as usize)),
        }
    }

    async fn kvproc_motd<'a>(&'a self) -> kv::Key<'a> {
        tokio::task::yield_now().await;
        kv::Key(Cow::Borrowed(&self.motd))
    }
}

#[test]
fn borrowed_async_stubs_pass_strings_and_opaque_data_without_copies() {
    let seen = Arc::new(Seen::default());
    runtime().block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service(
            kv_vers::PROGRAM,
            kv_vers::VERSION,
            kv_vers::service(Kv {
                map: Mutex::default(),
                motd: "be kind to your rpcbind".into(),
                seen: Arc::clone(&seen),
            }),
        );
        let server = server.spawn().unwrap();
        for raw in raw_clients(&server, kv_vers::PROGRAM, kv_vers::VERSION).await {
            let proto = raw.protocol();
            let c = kv_vers::AsyncClient::new(raw);
            c.kvproc_null().await.unwrap();
            let name = format!("key over {proto:?}");
            let entry = kv::Entry {
                name: kv::Key(Cow::Borrowed(&name)),
                value: Cow::Borrowed(b"value bytes"),
            };
            assert_eq!(c.kvproc_put(&entry).await.unwrap(), 11);

            // Results reach the closures borrowed from the reply.
            let got = c
                .kvproc_get(&name, |r| {
                    r.map(|e| {
                        (
                            borrowed(&e.name.0) && borrowed(&e.value),
                            e.name.0.into_owned(),
                            e.value.into_owned(),
                        )
                    })
                })
                .await
                .unwrap();
            assert_eq!(got, Some((true, name.clone(), b"value bytes".to_vec())));
            assert!(c.kvproc_get("absent", |r| r.is_none()).await.unwrap());

            let echoed = c
                .kvproc_echo(&entry, |e| {
                    (
                        borrowed(&e.name.0) && borrowed(&e.value),
                        e.name.0.into_owned(),
                        e.value.into_owned(),
                    )
                })
                .await
                .unwrap();
            assert_eq!(echoed, (true, name.clone(), b"value bytes".to_vec()));

            let cat = |v: Cow<'_, [u8]>| (borrowed(&v), v.into_owned());
            assert_eq!(
                c.kvproc_cat(b"ab", b"cd", cat).await.unwrap(),
                (true, b"abcd".to_vec())
            );
            assert_eq!(
                c.kvproc_cat(b"alone", b"", cat).await.unwrap(),
                (true, b"alone".to_vec())
            );

            let text = |s: Cow<'_, str>| (borrowed(&s), s.into_owned());
            assert_eq!(
                c.kvproc_repeat("ab", &3, text).await.unwrap(),
                (true, "ababab".to_owned())
            );
            assert_eq!(
                c.kvproc_repeat("once", &1, text).await.unwrap(),
                (true, "once".to_owned())
            );
            let motd = c
                .kvproc_motd(|k| (borrowed(&k.0), k.0.into_owned()))
                .await
                .unwrap();
            assert_eq!(motd, (true, "be kind to your rpcbind".to_owned()));
        }
        server.shutdown().await;
    });
    // PUT 2, GET 2, ECHO 2, CAT 4, REPEAT 2 per transport; none copied.
    assert_eq!(seen.received.load(Ordering::Relaxed), 2 * 12);
    assert_eq!(seen.copied.load(Ordering::Relaxed), 0);
}

#[test]
fn rpcgen_client_calls_async_server_found_through_rpcbind() {
    let client = build_c_client("calc-c-async");
    require_rpcbind();
    // A program number of this process's own, in the transient range (0x40000000 to
    // 0x5fffffff; process ids are below 2^22): neither `calc.x`'s, which
    // tests/live_rpc.rs registers, nor that of another run of this test at the same time.
    let program = 0x4000_0000 + std::process::id();

    let rt = runtime();
    let handle = rt.block_on(async {
        let mut server = AsyncServer::bind("127.0.0.1:0").await.unwrap();
        server.add_service(program, calc_vers::VERSION, calc_vers::service(Calc));
        server.register_with_rpcbind(true);
        server.spawn().unwrap()
    });
    let port = handle.tcp_addr().unwrap().port();
    for proto in ["tcp", "udp"] {
        let (found, listed) = rpcinfo_lists(program, calc_vers::VERSION, proto, port);
        assert!(
            found,
            "`rpcinfo -p` does not list {program} on {proto}:\n{listed}"
        );
    }

    // The C client finds the server through rpcbind and calls every procedure, while the
    // runtime's workers serve.
    for proto in ["tcp", "udp"] {
        let out = run(
            Command::new(&client).args(["127.0.0.1", proto, &format!("{program:#x}")]),
            "calc_client",
        );
        assert_eq!(
            out.lines().collect::<Vec<_>>(),
            support::CALC_CLIENT_OUTPUT,
            "over {proto}"
        );
    }

    rt.block_on(handle.shutdown());
    let (still, after) = rpcinfo_has(program);
    assert!(!still, "still registered after shutdown:\n{after}");
}
