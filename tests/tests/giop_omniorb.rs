//! GIOP interop with omniORB, both ways, over loopback TCP: the Rust client calls every
//! operation of omniORB's `Flick::Bench` server (GIOP 1.0, 1.1 and 1.2, requests in both byte
//! orders, by IOR and by corbaloc), and omniORB's checking client calls every operation of
//! the Rust server. The Rust side is what marshal-build generates from the same IDL
//! (`workloads::bench_object`): its typed client and its skeleton. The omniORB programs are built during the tests; a missing peer fails.

use std::borrow::Cow;

use marshal::cdr::ByteOrder;
use marshal::giop::{CallError, Client, Completion, Ior, Server, Version};
use omniorb_peer::{assert_omni_client_passes, OmniServer};
use workloads::bench_object::{
    self, bench, sample_prims, DirEntry, FailError, Oops, Point, Prims, Rect, Shape, Stat, BENCH_ID,
};
use workloads::{dirents, ints, rects};

fn prims() -> Vec<Prims<'static>> {
    let mut v = sample_prims();
    v.push(Prims {
        d: f64::MIN_POSITIVE,
        // omniORB's native code set is ISO 8859-1: it converts these from the negotiated
        // UTF-8 and back (a character outside Latin-1 would be DATA_CONVERSION).
        str: "é ü ß: UTF-8 both ways".into(),
        ..v[1].clone()
    });
    v
}

/// `n` rectangles of the workload, as the generated type.
fn idl_rects(n: usize) -> Vec<Rect> {
    rects(n)
        .iter()
        .map(|r| Rect {
            a: Point { x: r.a.x, y: r.a.y },
            b: Point { x: r.b.x, y: r.b.y },
        })
        .collect()
}

/// Every operation of `Flick::Bench` through the generated client `c`, checking results.
fn exercise(c: &mut bench::Client, what: &str) {
    for n in [0, 1, 5, 1000, 100_000] {
        let v = ints(n);
        let got = c
            .echo_ints(&v)
            .unwrap_or_else(|e| panic!("{what}: echo_ints {n}: {e}"));
        assert_eq!(got, v, "{what}: echo_ints {n}");
        assert_eq!(
            c.sum_ints(&v).unwrap(),
            v.iter().map(|&x| i64::from(x)).sum::<i64>(),
            "{what}: sum_ints {n}"
        );
    }
    assert_eq!(
        c.sum_ints(&vec![i32::MAX; 3]).unwrap(),
        3 * i64::from(i32::MAX)
    );
    for n in [0, 1, 3000] {
        let v = idl_rects(n);
        assert_eq!(c.echo_rects(&v).unwrap(), v, "{what}: echo_rects {n}");
    }
    for n in [0, 1, 300] {
        let mut v: Vec<DirEntry<'static>> = dirents(n)
            .into_iter()
            .enumerate()
            .map(|(i, d)| DirEntry {
                name: Cow::Owned(d.name[..i % 9].to_string()),
                st: Stat {
                    ints: d.st.ints,
                    chars: d.st.chars,
                },
            })
            .collect();
        if let Some(d) = v.first_mut() {
            d.name = Cow::Owned("n".repeat(255));
        }
        assert_eq!(c.echo_dirents(&v).unwrap(), v, "{what}: echo_dirents {n}");
    }
    for n in [0, 1, 3, 256, 100_000, 1 << 20] {
        let v: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
        let got = c.echo_octets(&Cow::Borrowed(&v[..])).unwrap();
        assert!(*got == v[..], "{what}: echo_octets {n}");
    }
    let r = idl_rects(1)[0].clone();
    for s in [
        Shape::V0(-7),
        Shape::V1(Cow::Borrowed("")),
        Shape::V1(Cow::Owned("q".repeat(1000))),
        Shape::Default(7, r.clone()),
        Shape::Default(i32::MIN, r),
    ] {
        assert_eq!(c.echo_shape(&s).unwrap(), s, "{what}: echo_shape");
    }
    let version = c.inner().version();
    for p in prims() {
        if !p.str.is_ascii() && version < Version::V1_1 {
            // GIOP 1.0 has no code set negotiation: chars are ISO 8859-1, where omniORB
            // (rightly) refuses the bytes of UTF-8's multi-byte characters.
            continue;
        }
        if !(p.c as u8).is_ascii() && version >= Version::V1_1 {
            // With UTF-8 negotiated, a `char` must be one UTF-8 code unit: ASCII.
            continue;
        }
        let got = c
            .echo_prims(&p)
            .unwrap_or_else(|e| panic!("{what}: echo_prims {:?}: {e}", p.str));
        assert_eq!(got, p, "{what}: echo_prims");
    }
    c.fail(&0).unwrap();
    for code in [42, -7, i32::MIN] {
        match c.fail(&code) {
            Err(FailError::Oops(oops)) => assert_eq!(
                oops,
                Oops {
                    code,
                    why: format!("failed {code}")
                },
                "{what}"
            ),
            other => panic!("{what}: fail({code}) gave {other:?}"),
        }
    }
    for (a, s) in [(5, "abc"), (0, ""), (-3, "x"), (1 << 29, "0123")] {
        let (r, b, s2) = c.mix(&a, s).unwrap();
        assert_eq!(
            (r, b, &*s2),
            (a + 1, 2 * a, format!("{s}!").as_str()),
            "{what}: mix"
        );
    }
    match c.inner().invoke::<(), ()>("no_such_operation", &()) {
        Err(CallError::SystemException {
            repository_id,
            completed,
            ..
        }) => {
            assert_eq!(
                repository_id, "IDL:omg.org/CORBA/BAD_OPERATION:1.0",
                "{what}"
            );
            assert_eq!(completed, Completion::No, "{what}");
        }
        other => panic!("{what}: unknown operation gave {other:?}"),
    }
}

#[test]
fn rust_client_calls_omniorb_server_in_every_version_and_byte_order() {
    for server_giop in ["1.0", "1.1", "1.2"] {
        let server = OmniServer::start(&["--giop", server_giop]);
        let ior = Ior::parse(server.ior()).expect("omniORB's IOR parses");
        assert_eq!(ior.type_id(), BENCH_ID);
        let (host, _, key) = ior.iiop().expect("an IIOP profile");
        assert_eq!((host, key), ("127.0.0.1", &b"Bench"[..]));
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let mut client = Client::connect(&ior).expect("connects");
            assert_eq!(client.version().to_string(), server_giop);
            client.set_byte_order(order);
            exercise(
                &mut bench::Client::new(client),
                &format!("omniORB GIOP {server_giop}, {order:?} requests"),
            );
        }
        server.stop();
    }
}

#[test]
fn rust_client_reaches_omniorb_by_corbaloc_and_older_versions() {
    let server = OmniServer::start(&[]);
    for url in [
        server.corbaloc().to_owned(),
        server
            .corbaloc()
            .replace("corbaloc::", "corbaloc:iiop:1.1@"),
        server.corbaloc().replace("corbaloc::", "corbaloc::1.2@"),
    ] {
        let ior = Ior::parse(&url).unwrap();
        let mut client = Client::connect(&ior).unwrap();
        client.set_byte_order(ByteOrder::Big);
        exercise(&mut bench::Client::new(client), &url);
    }
    let ior = Ior::parse(server.ior()).unwrap();
    let mut client = Client::connect(&ior).unwrap();
    client.set_version(Version::V1_0);
    exercise(
        &mut bench::Client::new(client),
        "GIOP 1.0 against a 1.2 IOR",
    );
    server.stop();
}

#[test]
fn omniorb_client_calls_rust_server() {
    let mut server = Server::bind("127.0.0.1:0").unwrap();
    server.add("Bench", bench_object::servant());
    let handle = server.spawn().unwrap();
    let ior = handle.ior(BENCH_ID, b"Bench");
    // By IOR (IIOP 1.2 profile) at each GIOP version omniORB may choose, and by corbaloc.
    let ior = ior.to_string();
    assert_omni_client_passes(&ior, &[], "Rust server, IOR");
    assert_omni_client_passes(&ior, &["--giop", "1.1"], "Rust server, GIOP 1.1");
    assert_omni_client_passes(&ior, &["--giop", "1.0"], "Rust server, GIOP 1.0");
    let url = format!("corbaloc::{}/Bench", handle.local_addr());
    assert_omni_client_passes(&url, &[], "Rust server, corbaloc");
    handle.shutdown();
}
