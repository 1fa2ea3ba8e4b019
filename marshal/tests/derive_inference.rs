//! Derived code leaves nothing to type inference that another crate's impls could make
//! ambiguous: a crate with its own `From<_> for marshal::Error` still derives a union whose
//! every arm decodes, one with a default arm.

use marshal::Marshal;

/// An error of this crate that converts into marshal's: a second `From<_> for Error`.
#[derive(Debug)]
struct Mine(u32);

impl From<Mine> for marshal::Error {
    fn from(e: Mine) -> marshal::Error {
        marshal::Error::without_offset(marshal::ErrorKind::Custom(format!("mine {}", e.0)))
    }
}

/// A union with a default arm: no arm of its decoding fails by itself.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(discriminant = u32)]
enum Status {
    #[marshal(tag = 0)]
    Ok(i32),
    #[marshal(default)]
    Other(u32, String),
}

#[test]
fn a_union_with_a_default_arm_derives_beside_another_from_impl() {
    for v in [Status::Ok(-7), Status::Other(9, "nine".into())] {
        let bytes = marshal::xdr::to_vec(&v).unwrap();
        assert_eq!(marshal::xdr::from_slice::<Status>(&bytes).unwrap(), v);
    }
    assert_eq!(
        marshal::xdr::to_vec(&Status::Other(3, "c".into())).unwrap(),
        [0, 0, 0, 3, 0, 0, 0, 1, b'c', 0, 0, 0]
    );
    let e: marshal::Error = Mine(1).into();
    assert!(e.to_string().contains("mine 1"), "{e}");
}
