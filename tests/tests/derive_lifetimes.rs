//! The derive on borrowing types, whatever their lifetimes are called: a lifetime named `'de`
//! (the name decoders conventionally use) once collided with the derive's own (E0403), and
//! one or two lifetimes must each outlive the decoder's.

use marshal::cdr::ByteOrder;
use marshal::Marshal;

#[derive(Marshal, Debug, PartialEq)]
struct Borrowed<'de> {
    name: &'de str,
    data: &'de [u8],
}

#[derive(Marshal, Debug, PartialEq)]
struct One<'a> {
    id: u32,
    name: &'a str,
}

#[derive(Marshal, Debug, PartialEq)]
struct Two<'a, 'b> {
    x: &'a str,
    y: &'b [u8],
}

/// A union whose arm borrows, under the colliding name.
#[derive(Marshal, Debug, PartialEq)]
enum Arm<'de> {
    #[marshal(tag = 1)]
    Text(&'de str),
    #[marshal(tag = 2)]
    Empty,
}

/// Encodes `$v` with XDR and both CDR byte orders, and decodes each back to it (as `$t`),
/// borrowing from the encoded bytes.
macro_rules! round_trip {
    ($t:ty, $v:expr) => {{
        let v: $t = $v;
        let x = marshal::xdr::to_vec(&v).unwrap();
        assert_eq!(marshal::xdr::from_slice::<$t>(&x).unwrap(), v);
        for order in [ByteOrder::Big, ByteOrder::Little] {
            let c = marshal::cdr::to_vec(&v, order).unwrap();
            assert_eq!(marshal::cdr::from_slice::<$t>(&c, order).unwrap(), v);
        }
    }};
}

#[test]
fn a_lifetime_named_de_derives() {
    let v = Borrowed {
        name: "pfs",
        data: &[1, 2, 3, 4, 5],
    };
    round_trip!(
        Borrowed<'_>,
        Borrowed {
            name: "pfs",
            data: &[1, 2, 3, 4, 5]
        }
    );
    // XDR: length-prefixed, padded to 4.
    let x = marshal::xdr::to_vec(&v).unwrap();
    assert_eq!(
        x,
        [0, 0, 0, 3, b'p', b'f', b's', 0, 0, 0, 0, 5, 1, 2, 3, 4, 5, 0, 0, 0]
    );
    round_trip!(Arm<'_>, Arm::Text("t"));
    round_trip!(Arm<'_>, Arm::Empty);
}

#[test]
fn one_and_two_lifetimes_derive() {
    round_trip!(One<'_>, One { id: 9, name: "x" });
    let v = Two {
        x: "ab",
        y: &[7; 9],
    };
    round_trip!(
        Two<'_, '_>,
        Two {
            x: "ab",
            y: &[7; 9]
        }
    );
    // Decoded borrows point into the encoded bytes.
    let x = marshal::xdr::to_vec(&v).unwrap();
    let back = marshal::xdr::from_slice::<Two<'_, '_>>(&x).unwrap();
    assert!(x.as_ptr_range().contains(&back.x.as_ptr()));
    assert!(x.as_ptr_range().contains(&back.y.as_ptr()));
}
