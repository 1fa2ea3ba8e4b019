//! A list type with a `Drop` of its own says `#[marshal(manual_drop)]`, and writes the
//! iterative loop the derive would have written (each node unlinked before it is dropped).

use marshal::Marshal;

#[derive(Marshal, Debug, PartialEq)]
#[marshal(manual_drop)]
struct Entry {
    name: String,
    next: Option<Box<Entry>>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(mut node) = next {
            next = node.next.take();
        }
    }
}

fn main() {
    let list = Entry {
        name: "a".into(),
        next: Some(Box::new(Entry {
            name: "b".into(),
            next: None,
        })),
    };
    let bytes = marshal::xdr::to_vec(&list).unwrap();
    assert_eq!(marshal::xdr::from_slice::<Entry>(&bytes).unwrap(), list);
}
