//! The generated code works: types round-trip through XDR, and the generated `flick`
//! program's `Client` and `Server` talk over loopback TCP.

use marshal_build_tests::{flick, mount, nfs_prot, nis_object, unions};

fn xdr_round_trip<T>(v: &T) -> Vec<u8>
where
    T: marshal::xdr::Encode + for<'de> marshal::xdr::Decode<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = marshal::xdr::to_vec(v).unwrap();
    assert_eq!(&marshal::xdr::from_slice::<T>(&bytes).unwrap(), v);
    bytes
}

#[test]
fn unions_switch_on_their_type_with_several_labels_per_arm() {
    use unions::{ByBool, ByUnsigned, Res, Status};
    assert_eq!(
        xdr_round_trip(&Res::Ok(3)),
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]
    );
    // Several labels: one variant, holding the label it was decoded with.
    assert_eq!(xdr_round_trip(&Res::PermOrIo(Status::Io)), [0, 0, 0, 5]);
    xdr_round_trip(&Res::PermOrIo(Status::Perm));
    assert!(marshal::xdr::to_vec(&Res::PermOrIo(Status::Ok)).is_err());
    // The default arm holds the enum.
    assert_eq!(
        xdr_round_trip(&Res::Default(Status::Noent, -1)),
        [0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff]
    );
    // `unsigned`: labels above `i32::MAX`.
    let bytes = xdr_round_trip(&ByUnsigned::V1OrV2147483648(0x8000_0000, "s".into()));
    assert_eq!(bytes[..4], [0x80, 0, 0, 0]);
    xdr_round_trip(&ByUnsigned::V1OrV2147483648(1, "t".into()));
    xdr_round_trip(&ByUnsigned::V2);
    assert!(marshal::xdr::from_slice::<ByUnsigned>(&[0, 0, 0, 3]).is_err());
    // `bool`: `true` / `false` labels.
    assert_eq!(
        xdr_round_trip(&ByBool::True(-2)),
        [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]
    );
    xdr_round_trip(&ByBool::False("no".into()));
}

#[test]
fn generated_types_round_trip() {
    let list = flick::EntryList {
        head: Some(Box::new(flick::Entry {
            id: 1,
            name: "a".into(),
            next: Some(Box::new(flick::Entry {
                id: 2,
                name: "b".into(),
                next: None,
            })),
        })),
    };
    let bytes = marshal::xdr::to_vec(&list).unwrap();
    assert_eq!(
        marshal::xdr::from_slice::<flick::EntryList>(&bytes).unwrap(),
        list
    );

    for r in [
        flick::Result::V0(7),
        flick::Result::V1("s".into()),
        flick::Result::V2,
        flick::Result::Default(
            9,
            flick::Rect {
                a: flick::Point { x: 1, y: 2 },
                b: flick::Point { x: 3, y: 4 },
            },
        ),
    ] {
        let bytes = marshal::xdr::to_vec(&r).unwrap();
        assert_eq!(
            marshal::xdr::from_slice::<flick::Result>(&bytes).unwrap(),
            r
        );
    }

    // mount.x: a bounded typedef is a newtype that keeps its bound.
    let long = mount::Name("x".repeat(256));
    assert!(marshal::xdr::to_vec(&long).is_err());
    let export = mount::Exportnode {
        ex_dir: mount::Dirpath("/srv".into()),
        ex_groups: Some(Box::new(mount::Groupnode {
            gr_name: mount::Name("lan".into()),
            gr_next: None,
        })),
        ex_next: None,
    };
    let bytes = marshal::xdr::to_vec(&export).unwrap();
    assert_eq!(
        marshal::xdr::from_slice::<mount::Exportnode>(&bytes).unwrap(),
        export
    );

    // nfs_prot.x: an enum, and an alias as an associated const (nis_object.x).
    assert_eq!(
        marshal::xdr::to_vec(&nfs_prot::Nfsstat::NfserrNoent).unwrap(),
        [0, 0, 0, 2]
    );
    assert_eq!(
        nis_object::Zotypes::NisTableObj,
        nis_object::Zotypes::TableObj
    );
}

struct Flick;

impl flick::flick_prog::flick_vers::Server for Flick {
    fn flick_null(&self) {}
    fn echo_ints(&self, args: flick::IntArray) -> flick::IntArray {
        args
    }
    fn echo_rects(&self, args: flick::RectArray) -> flick::RectArray {
        args
    }
    fn echo_dirents(&self, args: flick::DirentArray) -> flick::DirentArray {
        args
    }
    fn echo_result(&self, args: flick::Result) -> flick::Result {
        args
    }
    fn echo_list(&self, args: flick::EntryList) -> flick::EntryList {
        args
    }
    fn pfs_write(&self, args: flick::PfsWriteArgs) -> flick::PfsWriteRes {
        flick::PfsWriteRes {
            ret: args.data.len() as i32,
            pos: args.pos + args.len,
        }
    }
}

#[test]
fn flick_client_calls_flick_server_over_tcp() {
    use flick::flick_prog::flick_vers::{self, Client};
    let mut server = marshal::rpc::Server::bind_tcp("127.0.0.1:0").unwrap();
    server.add(
        flick_vers::PROGRAM,
        flick_vers::VERSION,
        flick_vers::program(Flick),
    );
    let server = server.spawn().unwrap();
    let rpc = marshal::rpc::Client::connect_tcp(
        server.tcp_addr().unwrap(),
        flick_vers::PROGRAM,
        flick_vers::VERSION,
    )
    .unwrap();
    let mut c = Client::new(rpc);
    c.flick_null().unwrap();
    assert_eq!(c.echo_ints(&vec![1, 2, 3]).unwrap(), vec![1, 2, 3]);
    let d = vec![flick::Dirent {
        name: "n".into(),
        st: flick::StatRec {
            ints: [7; 30],
            chars: [1; 16],
        },
    }];
    assert_eq!(c.echo_dirents(&d).unwrap(), d);
    assert_eq!(
        c.echo_result(&flick::Result::V2).unwrap(),
        flick::Result::V2
    );
    let res = c
        .pfs_write(&flick::PfsWriteArgs {
            handle: 3,
            pos: 100,
            len: 8,
            data: vec![1, 2],
        })
        .unwrap();
    assert_eq!(res, flick::PfsWriteRes { ret: 2, pos: 108 });
    assert_eq!(flick_vers::PFS_WRITE, 6);
    assert_eq!(flick_vers::PROGRAM, 0x2046_4C4B);
}
