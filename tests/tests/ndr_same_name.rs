//! A field whose type has the struct's own name but is another type (`other::Foo` inside
//! `Foo`) gets NDR impls like any field: the derive once compared bare names, took the
//! field for a self-reference and emitted no NDR impls, which showed only at the use.

use marshal::ndr::{to_message, Format, Kind, Receiver};
use marshal::Marshal;

mod other {
    #[derive(marshal::Marshal, Debug, PartialEq, Clone)]
    pub struct Foo {
        pub a: u32,
        pub b: i16,
    }
}

#[derive(Marshal, Debug, PartialEq)]
struct Foo {
    x: other::Foo,
    many: Vec<other::Foo>,
    pair: [other::Foo; 2],
}

/// Still no NDR format for a type that truly contains itself, spelled any of the ways that
/// surely mean it; XDR and CDR carry it.
#[derive(Marshal, Debug, PartialEq)]
struct Tree {
    v: u32,
    kids: Vec<Tree>,
    more: Vec<self::Tree>,
    rest: Vec<Self>,
}

#[test]
fn a_field_of_another_type_with_the_same_name_is_a_record() {
    let one = |a| other::Foo { a, b: -1 };
    let v = Foo {
        x: one(1),
        many: vec![one(2), one(3)],
        pair: [one(4), one(5)],
    };
    let f = Format::of::<Foo>();
    assert_eq!(f.field("x").unwrap().kind(), &Kind::Record("Foo".into()));
    assert_eq!(f.nested_format("Foo").unwrap(), &Format::of::<other::Foo>());
    let msg = to_message(&v).unwrap();
    let mut rx = Receiver::new();
    rx.register(f);
    assert_eq!(rx.decode::<Foo>(&msg).unwrap(), v);
}

#[test]
fn a_self_containing_type_still_derives_the_other_formats() {
    let t = Tree {
        v: 1,
        kids: vec![Tree {
            v: 2,
            kids: vec![],
            more: vec![],
            rest: vec![],
        }],
        more: vec![],
        rest: vec![],
    };
    let b = marshal::xdr::to_vec(&t).unwrap();
    assert_eq!(marshal::xdr::from_slice::<Tree>(&b).unwrap(), t);
}
