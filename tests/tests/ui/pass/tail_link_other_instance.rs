//! BUG: the derive treats `next: Option<Box<List<u8>>>` inside `List<T>` as the
//! optional-data-list link `Option<Box<Self>>` (it compares only the type's name, not its
//! generic arguments), so this valid type fails to compile with type errors at
//! `#[derive(Marshal)]`. It should compile and encode `next` as an ordinary optional field.
use marshal::Marshal;

#[derive(Marshal, Debug, PartialEq)]
struct List<T> {
    v: T,
    next: Option<Box<List<u8>>>,
}

fn main() {
    let l = List {
        v: 7u32,
        next: Some(Box::new(List { v: 1u8, next: None })),
    };
    let bytes = marshal::xdr::to_vec(&l).unwrap();
    assert_eq!(bytes, [0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(marshal::xdr::from_slice::<List<u32>>(&bytes).unwrap(), l);
}
