//! Optional-data lists of any length on a small stack: a derived `struct Node { id, next:
//! Option<Box<Node>> }` with no `Drop` of its own decodes, fails to decode and drops a
//! million nodes on a 256 KiB stack, in XDR and in CDR (both byte orders), and encodes them.

use marshal::cdr::ByteOrder;
use marshal::{Error, Marshal};

#[derive(Marshal, Debug, PartialEq)]
struct Node {
    id: u32,
    next: Option<Box<Node>>,
}

const STACK: usize = 256 * 1024;
const NODES: usize = 1_000_000;

/// Runs `f` on a thread with a 256 KiB stack.
fn small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .unwrap()
        .join()
        .expect("the thread overflowed its stack or panicked");
}

/// `n` nodes (ids 0, 1, …) as XDR, which is also big-endian CDR: each node is its id, then
/// the link (XDR's optional-data flag, CDR's `sequence<Node, 1>` length, both `u32`). With
/// `bad`, the last link is 9.
fn wire(n: usize, bad: bool, order: ByteOrder) -> Vec<u8> {
    let put = |out: &mut Vec<u8>, v: u32| match order {
        ByteOrder::Big => out.extend_from_slice(&v.to_be_bytes()),
        ByteOrder::Little => out.extend_from_slice(&v.to_le_bytes()),
    };
    let mut out = Vec::with_capacity(8 * n);
    for i in 0..n {
        put(&mut out, i as u32);
        let link = if i + 1 < n {
            1
        } else if bad {
            9
        } else {
            0
        };
        put(&mut out, link);
    }
    out
}

fn build(n: usize) -> Node {
    let mut head = Node { id: 0, next: None };
    let mut tail = &mut head.next;
    for i in 1..n {
        tail = &mut tail
            .insert(Box::new(Node {
                id: i as u32,
                next: None,
            }))
            .next;
    }
    head
}

fn count(mut node: &Node) -> usize {
    let mut n = 1;
    while let Some(next) = &node.next {
        node = next;
        n += 1;
    }
    n
}

type Decode = fn(&[u8]) -> Result<Node, Error>;

fn xdr(b: &[u8]) -> Result<Node, Error> {
    marshal::xdr::from_slice(b)
}
fn cdr_big(b: &[u8]) -> Result<Node, Error> {
    marshal::cdr::from_slice(b, ByteOrder::Big)
}
fn cdr_little(b: &[u8]) -> Result<Node, Error> {
    marshal::cdr::from_slice(b, ByteOrder::Little)
}

const DECODERS: [(&str, Decode, ByteOrder); 3] = [
    ("xdr", xdr, ByteOrder::Big),
    ("cdr big-endian", cdr_big, ByteOrder::Big),
    ("cdr little-endian", cdr_little, ByteOrder::Little),
];

#[test]
fn a_million_nodes_decode_and_drop_on_a_small_stack() {
    for (name, decode, order) in DECODERS {
        let bytes = wire(NODES, false, order);
        small_stack(move || {
            let list = decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(count(&list), NODES, "{name}");
            drop(list);
        });
    }
}

/// A bad last link fails as it does in a three-node list: the same kind of error at the
/// link's offset, after the partial list was torn down without recursion.
#[test]
fn a_million_nodes_fail_to_decode_on_a_small_stack() {
    for (name, decode, order) in DECODERS {
        let short = decode(&wire(3, true, order)).unwrap_err();
        let at = short.offset().expect("an offset") + (NODES - 3) * 8;
        let bytes = wire(NODES, true, order);
        small_stack(move || {
            let e = decode(&bytes).unwrap_err();
            assert_eq!(e.kind(), short.kind(), "{name}: {e}");
            assert_eq!(e.offset(), Some(at), "{name}: {e}");
        });
    }
}

#[test]
fn a_million_nodes_encode_and_drop_on_a_small_stack() {
    small_stack(|| {
        let list = build(NODES);
        assert_eq!(
            marshal::xdr::to_vec(&list).unwrap(),
            wire(NODES, false, ByteOrder::Big)
        );
        for order in [ByteOrder::Big, ByteOrder::Little] {
            assert_eq!(
                marshal::cdr::to_vec(&list, order).unwrap(),
                wire(NODES, false, order)
            );
        }
    });
}

/// CDR lists were decoded recursively, one depth level a node: 129 nodes were refused.
#[test]
fn cdr_lists_are_not_depth_limited() {
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let list = marshal::cdr::from_slice::<Node>(&wire(200, false, order), order).unwrap();
        assert_eq!(count(&list), 200);
    }
}
