//! What the derive gained for types generated from real IDL (issue 22): `#[marshal(crate =
//! "...")]`, unions switched on enums, `bool` and `u32` with several labels per arm, CORBA
//! unions without `default`, and encode-only types. Each round-trips through XDR and both CDR
//! byte orders where the format has the feature.

use marshal::cdr::ByteOrder;

/// Encodes `$v` with XDR and both CDR byte orders, and decodes each back to it (as `$t`).
macro_rules! round_trip {
    ($t:ty, $v:expr) => {{
        let v: $t = $v;
        let x = marshal::xdr::to_vec(&v).unwrap();
        assert_eq!(marshal::xdr::from_slice::<$t>(&x).unwrap(), v);
        for o in [ByteOrder::Big, ByteOrder::Little] {
            let c = marshal::cdr::to_vec(&v, o).unwrap();
            assert_eq!(marshal::cdr::from_slice::<$t>(&c, o).unwrap(), v);
        }
        x
    }};
}

mod crate_path {
    use marshal as m;

    /// The crate named by its own name.
    #[derive(m::Marshal, Debug, PartialEq)]
    #[marshal(crate = "marshal")]
    pub struct Plain {
        pub a: u32,
        #[marshal(max_len = 8)]
        pub s: String,
    }

    /// The crate renamed (here by `use ... as`; a renamed dependency is the same path).
    #[derive(m::Marshal, Debug, PartialEq)]
    #[marshal(crate = "m")]
    pub enum Renamed {
        #[marshal(tag = 1)]
        One(u32),
        #[marshal(tag = 2)]
        Two,
    }

    /// A C-like enum and a list under the renamed path.
    #[derive(m::Marshal, Debug, PartialEq)]
    #[marshal(crate = "m")]
    pub enum Colour {
        Red,
        Green,
    }

    #[derive(m::Marshal, Debug, PartialEq)]
    #[marshal(crate = "self::m")]
    pub struct Node {
        pub c: Colour,
        pub next: Option<Box<Node>>,
    }
}

#[test]
fn crate_path_round_trips() {
    use crate_path::*;
    let x = round_trip!(
        Plain,
        Plain {
            a: 7,
            s: "ab".into()
        }
    );
    assert_eq!(x, [0, 0, 0, 7, 0, 0, 0, 2, b'a', b'b', 0, 0]);
    round_trip!(Renamed, Renamed::One(3));
    round_trip!(Renamed, Renamed::Two);
    round_trip!(
        Node,
        Node {
            c: Colour::Green,
            next: Some(Box::new(Node {
                c: Colour::Red,
                next: None
            }))
        }
    );
}

/// `enum nfsstat3` (a few of its values), switched on by the result unions.
#[derive(marshal::Marshal, Debug, Clone, Copy, PartialEq)]
enum Nfsstat3 {
    Ok = 0,
    Perm = 1,
    Noent = 2,
    Io = 5,
    Acces = 13,
}

/// `union LOOKUP3res switch (nfsstat3 status) { case NFS3_OK: LOOKUP3resok resok;
/// default: LOOKUP3resfail resfail; }`: the failure arm holds the `nfsstat3`.
#[derive(marshal::Marshal, Debug, PartialEq)]
#[marshal(discriminant = Nfsstat3)]
enum Lookup3res {
    #[marshal(tag = Nfsstat3::Ok)]
    Ok(u64),
    #[marshal(default)]
    Fail(Nfsstat3, u32),
}

/// Several labels on arms switched on an enum: the arm holds the one decoded.
#[derive(marshal::Marshal, Debug, PartialEq)]
#[marshal(discriminant = Nfsstat3)]
enum Access {
    #[marshal(tag = Nfsstat3::Ok)]
    Granted,
    #[marshal(tag = Nfsstat3::Perm, tag = Nfsstat3::Acces)]
    Denied(Nfsstat3),
    #[marshal(tag = Nfsstat3::Noent, tag = Nfsstat3::Io)]
    Failed(Nfsstat3, String),
}

/// `union post_op_attr switch (bool attributes_follow) { case TRUE: fattr3 attributes;
/// case FALSE: void; }`.
#[derive(marshal::Marshal, Debug, PartialEq)]
#[marshal(discriminant = bool)]
enum PostOpAttr {
    #[marshal(tag = true)]
    Attributes(u32),
    #[marshal(tag = false)]
    None,
}

const PROC_SEVEN: u32 = 7;

/// A union switched on `unsigned`, with labels given as a constant, in hex, and several on
/// one (void) arm: `case 1: case 2: void;`.
#[derive(marshal::Marshal, Debug, PartialEq)]
#[marshal(discriminant = u32)]
enum Reply {
    #[marshal(tag = 0)]
    Ok(String),
    #[marshal(tag = 1, tag = 2)]
    Void(u32),
    #[marshal(tag = PROC_SEVEN, tag = 0x8000_0000)]
    Big(u32, u64),
    #[marshal(default)]
    Other(u32),
}

#[test]
fn unions_switch_on_enums() {
    let x = round_trip!(Lookup3res, Lookup3res::Ok(9));
    assert_eq!(x, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]);
    let x = round_trip!(Lookup3res, Lookup3res::Fail(Nfsstat3::Noent, 7));
    assert_eq!(x, [0, 0, 0, 2, 0, 0, 0, 7]);
    // CDR sends the enum's ordinal.
    let c = marshal::cdr::to_vec(&Lookup3res::Fail(Nfsstat3::Io, 7), ByteOrder::Little).unwrap();
    assert_eq!(c, [3, 0, 0, 0, 7, 0, 0, 0]);
    // The default arm cannot hold a listed discriminant.
    let e = marshal::xdr::to_vec(&Lookup3res::Fail(Nfsstat3::Ok, 1)).unwrap_err();
    assert!(matches!(
        e.kind(),
        marshal::ErrorKind::DiscriminantTaken { value: 0, .. }
    ));
    // A value the enum does not have is the enum's error.
    assert!(marshal::xdr::from_slice::<Lookup3res>(&[0, 0, 0, 3, 0, 0, 0, 7]).is_err());

    round_trip!(Access, Access::Granted);
    let x = round_trip!(Access, Access::Denied(Nfsstat3::Acces));
    assert_eq!(x, [0, 0, 0, 13]);
    let x = round_trip!(Access, Access::Failed(Nfsstat3::Io, "x".into()));
    assert_eq!(x[..4], [0, 0, 0, 5]);
    let e = marshal::cdr::to_vec(&Access::Denied(Nfsstat3::Io), ByteOrder::Big).unwrap_err();
    assert!(matches!(
        e.kind(),
        marshal::ErrorKind::NotALabel {
            value: 3,
            variant: "Denied"
        }
    ));
}

#[test]
fn unions_switch_on_bool() {
    let x = round_trip!(PostOpAttr, PostOpAttr::Attributes(5));
    assert_eq!(x, [0, 0, 0, 1, 0, 0, 0, 5]);
    let x = round_trip!(PostOpAttr, PostOpAttr::None);
    assert_eq!(x, [0, 0, 0, 0]);
    // A CDR boolean is one octet.
    let c = marshal::cdr::to_vec(&PostOpAttr::None, ByteOrder::Big).unwrap();
    assert_eq!(c, [0]);
    // XDR's bool rule applies to the discriminant.
    assert!(marshal::xdr::from_slice::<PostOpAttr>(&[0, 0, 0, 2]).is_err());
}

#[test]
fn unions_switch_on_unsigned_with_several_labels() {
    round_trip!(Reply, Reply::Ok("a".into()));
    for d in [1, 2] {
        let x = round_trip!(Reply, Reply::Void(d));
        // Re-encoding writes the label decoded.
        assert_eq!(x, d.to_be_bytes());
    }
    let x = round_trip!(Reply, Reply::Big(0x8000_0000, 3));
    assert_eq!(x[..4], [0x80, 0, 0, 0]);
    round_trip!(Reply, Reply::Big(7, 3));
    round_trip!(Reply, Reply::Other(0xffff_fff0));
    assert_eq!(
        marshal::xdr::from_slice::<Reply>(&[0, 0, 0, 2]).unwrap(),
        Reply::Void(2)
    );
    let e = marshal::xdr::to_vec(&Reply::Void(3)).unwrap_err();
    assert!(matches!(
        e.kind(),
        marshal::ErrorKind::NotALabel {
            value: 3,
            variant: "Void"
        }
    ));
    let e = marshal::xdr::to_vec(&Reply::Other(2)).unwrap_err();
    assert!(matches!(
        e.kind(),
        marshal::ErrorKind::DiscriminantTaken {
            value: 2,
            variant: "Void"
        }
    ));
}

/// A CORBA union without `default`: `union U switch (short) { case 1: long a; case 2: case 3:
/// void; };` — any other discriminant means "no member".
#[derive(marshal::Marshal, Debug, PartialEq)]
#[marshal(discriminant = i16)]
enum Corba {
    #[marshal(tag = 1)]
    A(i32),
    #[marshal(tag = 2, tag = 3)]
    Void(i16),
    #[marshal(no_member)]
    None(i16),
}

#[test]
fn corba_unions_without_default_keep_no_member() {
    for o in [ByteOrder::Big, ByteOrder::Little] {
        for v in [Corba::A(-4), Corba::Void(3), Corba::None(-9)] {
            let c = marshal::cdr::to_vec(&v, o).unwrap();
            assert_eq!(marshal::cdr::from_slice::<Corba>(&c, o).unwrap(), v);
        }
        // An unlisted discriminant from the wire: no member, re-encoded byte-identical.
        let wire = marshal::cdr::to_vec(&77i16, o).unwrap();
        let v = marshal::cdr::from_slice::<Corba>(&wire, o).unwrap();
        assert_eq!(v, Corba::None(77));
        assert_eq!(marshal::cdr::to_vec(&v, o).unwrap(), wire);
        // `no_member` cannot hold a listed label.
        let e = marshal::cdr::to_vec(&Corba::None(2), o).unwrap_err();
        assert!(matches!(
            e.kind(),
            marshal::ErrorKind::DiscriminantTaken {
                value: 2,
                variant: "Void"
            }
        ));
    }
    // XDR keeps rejecting an unlisted discriminant, and cannot encode "no member".
    round_trip!(Corba, Corba::Void(2));
    assert!(marshal::xdr::from_slice::<Corba>(&[0, 0, 0, 77]).is_err());
    assert!(marshal::xdr::to_vec(&Corba::None(77)).is_err());
}

/// `nfs_fh3`.
#[derive(marshal::Marshal, Debug, Clone, PartialEq)]
struct NfsFh3 {
    #[marshal(max_len = 64)]
    data: Vec<u8>,
}

/// An argument struct that borrows the file handle it sends: encoders only.
#[derive(marshal::Marshal)]
#[marshal(encode_only)]
struct Read3args<'a> {
    file: &'a NfsFh3,
    offset: u64,
    count: u32,
}

/// What the server decodes.
#[derive(marshal::Marshal, Debug, PartialEq)]
struct Read3argsOwned {
    file: NfsFh3,
    offset: u64,
    count: u32,
}

/// A union arm may borrow too.
#[derive(marshal::Marshal)]
#[marshal(encode_only)]
enum Which<'a> {
    #[marshal(tag = 1)]
    Handle(&'a NfsFh3),
    #[marshal(tag = 2)]
    Nothing,
}

#[test]
fn encode_only_types_borrow_what_they_send() {
    let fh = NfsFh3 {
        data: vec![1, 2, 3],
    };
    let args = Read3args {
        file: &fh,
        offset: 4096,
        count: 512,
    };
    let owned = Read3argsOwned {
        file: fh.clone(),
        offset: 4096,
        count: 512,
    };
    let x = marshal::xdr::to_vec(&args).unwrap();
    assert_eq!(x, marshal::xdr::to_vec(&owned).unwrap());
    assert_eq!(
        marshal::xdr::from_slice::<Read3argsOwned>(&x).unwrap(),
        owned
    );
    for o in [ByteOrder::Big, ByteOrder::Little] {
        let c = marshal::cdr::to_vec(&args, o).unwrap();
        assert_eq!(c, marshal::cdr::to_vec(&owned, o).unwrap());
        assert_eq!(
            marshal::cdr::from_slice::<Read3argsOwned>(&c, o).unwrap(),
            owned
        );
    }
    let x = marshal::xdr::to_vec(&Which::Handle(&fh)).unwrap();
    assert_eq!(x, [0, 0, 0, 1, 0, 0, 0, 3, 1, 2, 3, 0]);
    assert_eq!(marshal::xdr::to_vec(&Which::Nothing).unwrap(), [0, 0, 0, 2]);
}
