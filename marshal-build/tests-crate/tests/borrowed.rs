//! `Config::borrowed(true)`: strings and opaque data decode as `Cow::Borrowed` slices of the
//! message, encode as the owned types do, and a generated server and client pass them
//! through without allocating per string.

use std::borrow::Cow;

use marshal::rpc::{Client, Server};
use marshal::xdr::{from_slice, to_vec};
use marshal_build_tests::borrowed::flick as b;
use marshal_build_tests::borrowed::nfs_prot as bnfs;
use marshal_build_tests::flick as o;
use marshal_build_tests::nfs_prot as onfs;

fn stat(seed: i32) -> o::StatRec {
    o::StatRec {
        ints: std::array::from_fn(|i| seed.wrapping_mul(i as i32 + 1)),
        chars: std::array::from_fn(|i| (seed as u8).wrapping_add(i as u8)),
    }
}

#[test]
fn borrowed_types_decode_in_place_and_encode_the_same_bytes() {
    let owned: o::DirentArray = (0..5)
        .map(|i| o::Dirent {
            name: format!("entry-{i}"),
            st: stat(i),
        })
        .collect();
    let bytes = to_vec(&owned).unwrap();
    let borrowed: b::DirentArray<'_> = from_slice(&bytes).unwrap();
    for (d, o) in borrowed.iter().zip(&owned) {
        assert!(
            matches!(d.name, Cow::Borrowed(_)),
            "{:?} was copied",
            d.name
        );
        assert_eq!(d.name, o.name);
        assert_eq!(d.st.ints, o.st.ints);
        // The name points into the message.
        let at = d.name.as_ptr() as usize;
        assert!((bytes.as_ptr() as usize..bytes.as_ptr() as usize + bytes.len()).contains(&at));
    }
    assert_eq!(to_vec(&borrowed).unwrap(), bytes);

    // Owned values encode as well (`Cow::Owned`), and the bound still holds.
    let long = b::Dirent {
        name: Cow::Owned("x".repeat(256)),
        st: b::StatRec {
            ints: [0; 30],
            chars: [0; 16],
        },
    };
    assert!(to_vec(&long).is_err(), "string<255> took 256 bytes");

    // NFS: file names and data, through typedef chains and unions.
    let args = onfs::Writeargs {
        file: onfs::NfsFh {
            data: [7; onfs::NFS_FHSIZE as usize],
        },
        beginoffset: 1,
        offset: 2,
        totalcount: 3,
        data: vec![1, 2, 3, 4, 5],
    };
    let bytes = to_vec(&args).unwrap();
    let w: bnfs::Writeargs<'_> = from_slice(&bytes).unwrap();
    assert!(matches!(w.data, Cow::Borrowed([1, 2, 3, 4, 5])));
    assert_eq!(to_vec(&w).unwrap(), bytes);
}

/// `FLICK_PROG` with borrowed types: echoes hand back what they were given.
struct Echo;

impl b::flick_prog::flick_vers::Server for Echo {
    fn flick_null(&self) {}
    fn echo_ints(&self, args: b::IntArray) -> b::IntArray {
        args
    }
    fn echo_rects(&self, args: b::RectArray) -> b::RectArray {
        args
    }
    fn echo_dirents<'a>(&self, args: b::DirentArray<'a>) -> b::DirentArray<'a> {
        assert!(args.iter().all(|d| matches!(d.name, Cow::Borrowed(_))));
        args
    }
    fn echo_result<'a>(&self, args: b::Result<'a>) -> b::Result<'a> {
        match args {
            // An answer that owns new text.
            b::Result::V1(s) => b::Result::V1(Cow::Owned(format!("{s}!"))),
            other => other,
        }
    }
    fn echo_list<'a>(&self, args: b::EntryList<'a>) -> b::EntryList<'a> {
        args
    }
    fn pfs_write(&self, args: b::PfsWriteArgs) -> b::PfsWriteRes {
        b::PfsWriteRes {
            ret: args.data.len() as i32,
            pos: args.pos + args.len,
        }
    }
}

#[test]
fn borrowed_client_calls_borrowed_server() {
    use b::flick_prog::flick_vers::{program, Client as Flick, PROGRAM, VERSION};
    let mut server = Server::bind_tcp("127.0.0.1:0").unwrap();
    server.add(PROGRAM, VERSION, program(Echo));
    let server = server.spawn().unwrap();
    let mut c =
        Flick::new(Client::connect_tcp(server.tcp_addr().unwrap(), PROGRAM, VERSION).unwrap());

    let names: Vec<String> = (0..3).map(|i| format!("name {i}")).collect();
    let dirents: b::DirentArray<'_> = names
        .iter()
        .map(|n| b::Dirent {
            name: Cow::Borrowed(n),
            st: b::StatRec {
                ints: [1; 30],
                chars: [2; 16],
            },
        })
        .collect();
    let back = c.echo_dirents(&dirents).unwrap();
    assert_eq!(back, dirents);
    // The reply's names borrow from the client's receive buffer.
    assert!(back.iter().all(|d| matches!(d.name, Cow::Borrowed(_))));
    drop(back);

    let r = c.echo_result(&b::Result::V1("hi".into())).unwrap();
    assert_eq!(r, b::Result::V1("hi!".into()));
    drop(r);
    let list = b::EntryList {
        head: Some(Box::new(b::Entry {
            id: 1,
            name: "one".into(),
            next: Some(Box::new(b::Entry {
                id: 2,
                name: "two".into(),
                next: None,
            })),
        })),
    };
    assert_eq!(c.echo_list(&list).unwrap(), list);
    let res = c
        .pfs_write(&b::PfsWriteArgs {
            handle: 1,
            pos: 10,
            len: 8,
            data: vec![1, 2],
        })
        .unwrap();
    assert_eq!((res.ret, res.pos), (2, 18));
    server.shutdown();
}

mod idl {
    use std::borrow::Cow;

    use marshal_build_tests::borrowed_idl::flick_idl::flick::{self, bench};

    /// `Flick::Bench` with borrowed types: echoes hand back what they were given.
    struct Bench;

    impl bench::Servant for Bench {
        fn echo_ints(&self, v: flick::IntSeq) -> flick::IntSeq {
            v
        }
        fn echo_rects(&self, v: flick::RectSeq) -> flick::RectSeq {
            v
        }
        fn echo_dirents<'a>(&self, v: flick::DirEntrySeq<'a>) -> flick::DirEntrySeq<'a> {
            assert!(v.iter().all(|d| matches!(d.name, Cow::Borrowed(_))));
            v
        }
        fn echo_octets<'a>(&self, v: flick::OctetSeq<'a>) -> flick::OctetSeq<'a> {
            assert!(matches!(v, Cow::Borrowed(_)), "the octets were copied");
            v
        }
        fn echo_shape<'a>(&self, s: flick::Shape<'a>) -> flick::Shape<'a> {
            s
        }
        fn echo_prims<'a>(&self, p: flick::Prims<'a>) -> flick::Prims<'a> {
            p
        }
        fn sum_ints(&self, v: flick::IntSeq) -> i64 {
            v.iter().map(|&x| i64::from(x)).sum()
        }
        fn fail(&self, code: i32) -> Result<(), bench::FailError> {
            match code {
                0 => Ok(()),
                code => Err(bench::FailError::Oops(flick::Oops {
                    code,
                    why: format!("failed {code}"),
                })),
            }
        }
        fn mix<'a>(&self, a: i32, s: Cow<'a, str>) -> (i32, i32, Cow<'a, str>) {
            (a + 1, a * 2, Cow::Owned(format!("{s}!")))
        }
    }

    #[test]
    fn borrowed_idl_client_calls_borrowed_skeleton() {
        let mut server = marshal::giop::Server::bind("127.0.0.1:0").unwrap();
        server.add("Bench", bench::skeleton(Bench));
        let server = server.spawn().unwrap();
        let ior = server.ior(bench::REPOSITORY_ID, b"Bench");
        let mut c = bench::Client::new(marshal::giop::Client::connect(&ior).unwrap());

        let data = vec![7u8; 100_000];
        let back = c.echo_octets(&Cow::Borrowed(&data[..])).unwrap();
        // The reply's octets borrow from the client's receive buffer.
        assert!(matches!(back, Cow::Borrowed(b) if b == data.as_slice()));

        let names = ["a", "bb", "ccc"];
        let dirents: flick::DirEntrySeq<'_> = names
            .iter()
            .map(|n| flick::DirEntry {
                name: Cow::Borrowed(n),
                st: flick::Stat {
                    ints: [3; 30],
                    chars: [4; 16],
                },
            })
            .collect();
        assert_eq!(c.echo_dirents(&dirents).unwrap(), dirents);
        assert_eq!(c.sum_ints(&vec![1, 2, 3]).unwrap(), 6);
        let (r, b, s) = c.mix(&20, "hi").unwrap();
        assert_eq!((r, b, s.as_ref()), (21, 40, "hi!"));
        c.fail(&0).unwrap();
        match c.fail(&5) {
            Err(bench::FailError::Oops(o)) => assert_eq!((o.code, o.why.as_str()), (5, "failed 5")),
            other => panic!("{other:?}"),
        }
        // The client is usable after an exception.
        assert_eq!(c.echo_ints(&vec![9]).unwrap(), [9]);
        server.shutdown();
    }
}
