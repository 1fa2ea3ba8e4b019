//! `deep_nesting`: long optional-data lists and deeply nested unions, decoded, encoded and
//! dropped on threads with small stacks: lists on a 256 KiB stack (neither coding nor
//! dropping may recurse per list node), and the self-nested union on 512 KiB (its recursion
//! stops at the depth limit of 128, which the README budgets at 512 KiB in unoptimised
//! builds: a chain of 128 unions overflows 256 KiB in a debug build, not in a release one).
//!
//! Input: `[flags][rest]`.
//! - Flags bit 0 clear: `rest` as it is, decoded in XDR and in CDR (both byte orders) as a
//!   list ([`Node`], [`Lists`]; 256 KiB stack) and as a self-nested union ([`Expr`]; 512 KiB),
//!   then dropped.
//! - Bit 0 set: a list is synthesised: its node count is the first 4 bytes of `rest`
//!   (big-endian, missing bytes 0) modulo 100,001 (at least 1), and bit 1 makes the last
//!   node's "next" flag invalid (9). Its XDR and CDR (both orders) encodings must decode to
//!   that many nodes with the right ids, or fail when the last node is bad, and re-encode to
//!   the same bytes; a list of as many nodes built in memory must encode to the same bytes.
//!   Everything is dropped on the small stack.
//!
//! The first run in a process also encodes and drops a 100,000-node list built in memory.

use std::sync::Once;

use marshal::cdr::ByteOrder;

use crate::types::{Expr, Lists, Node};
use crate::xdr_derived::same_bytes;

/// The stack of the thread lists are coded and dropped on.
pub const STACK: usize = 256 * 1024;
/// The stack of the thread the self-nested union is decoded on.
pub const UNION_STACK: usize = 512 * 1024;
/// The longest list synthesised.
pub const MAX_NODES: usize = 100_000;

static FIRST: Once = Once::new();

/// The target.
pub fn run(data: &[u8]) {
    on_stack(STACK, || {
        FIRST.call_once(|| drop(in_memory(MAX_NODES)));
        lists(data);
    });
    if data.first().is_some_and(|f| f & 1 == 0) {
        on_stack(UNION_STACK, || unions(&data[1..]));
    }
}

/// Runs `f` on a thread with a stack of `size` bytes; its panic is this thread's.
fn on_stack(size: usize, f: impl FnOnce() + Send) {
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("deep_nesting".into())
            .stack_size(size)
            .spawn_scoped(s, f)
            .expect("a thread with a small stack");
        if let Err(panic) = worker.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

fn unions(rest: &[u8]) {
    drop(marshal::xdr::from_slice::<Expr>(rest));
    for order in [ByteOrder::Big, ByteOrder::Little] {
        drop(marshal::cdr::from_slice::<Expr>(rest, order));
    }
}

fn lists(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    if flags & 1 == 0 {
        drop(marshal::xdr::from_slice::<Node>(rest));
        drop(marshal::xdr::from_slice::<Lists>(rest));
        for order in [ByteOrder::Big, ByteOrder::Little] {
            drop(marshal::cdr::from_slice::<Node>(rest, order));
            drop(marshal::cdr::from_slice::<Lists>(rest, order));
        }
        return;
    }
    let mut count = [0u8; 4];
    for (c, b) in count.iter_mut().zip(rest) {
        *c = *b;
    }
    let n = (u32::from_be_bytes(count) as usize % (MAX_NODES + 1)).max(1);
    let bad = flags & 2 != 0;

    let good_xdr = list_bytes(n, false, ByteOrder::Big);
    let xdr = list_bytes(n, bad, ByteOrder::Big);
    match (marshal::xdr::from_slice::<Node>(&xdr), bad) {
        (Ok(list), false) => {
            check_list(&list, n);
            let again = marshal::xdr::to_vec(&list).expect("a decoded list encodes");
            same_bytes("an XDR list re-encoded", &again, &xdr);
        }
        (Err(_), true) => {}
        (Ok(_), true) => panic!("an XDR list whose last node is bad decodes"),
        (Err(e), false) => panic!("an XDR list of {n} nodes fails to decode: {e}"),
    }
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let cdr = list_bytes(n, bad, order);
        match (marshal::cdr::from_slice::<Node>(&cdr, order), bad) {
            (Ok(list), false) => {
                check_list(&list, n);
                let again = marshal::cdr::to_vec(&list, order).expect("a decoded list encodes");
                same_bytes("a CDR list re-encoded", &again, &cdr);
            }
            (Err(_), true) => {}
            (Ok(_), true) => panic!("a CDR list whose last node is bad decodes"),
            (Err(e), false) => panic!("a CDR list of {n} nodes ({order:?}) fails to decode: {e}"),
        }
    }
    let built = in_memory(n);
    same_bytes("a list built in memory", &built, &good_xdr);
}

/// The encoding of a list of `n` nodes with ids 0, 1, …: each node its id, then 1 when
/// another node follows, else 0 (or 9, an invalid flag or sequence length, when `bad`). The
/// same words in XDR and in CDR (a `u32` id and an optional as a sequence of at most one).
fn list_bytes(n: usize, bad: bool, order: ByteOrder) -> Vec<u8> {
    let word = |v: u32| match order {
        ByteOrder::Big => v.to_be_bytes(),
        ByteOrder::Little => v.to_le_bytes(),
    };
    let mut out = Vec::with_capacity(8 * n);
    for i in 0..n {
        out.extend_from_slice(&word(i as u32));
        let next = match (i + 1 == n, bad) {
            (false, _) => 1,
            (true, false) => 0,
            (true, true) => 9,
        };
        out.extend_from_slice(&word(next));
    }
    out
}

/// `list` has `n` nodes with ids 0, 1, … (walked with a loop).
fn check_list(list: &Node, n: usize) {
    let mut node = list;
    let mut i = 0;
    loop {
        assert_eq!(node.id as usize, i, "node {i}'s id");
        i += 1;
        match &node.next {
            Some(next) => node = next,
            None => break,
        }
    }
    assert_eq!(i, n, "nodes in the decoded list");
}

/// Builds a list of `n` nodes in memory, encodes it in XDR and drops it.
fn in_memory(n: usize) -> Vec<u8> {
    let mut head: Option<Box<Node>> = None;
    for i in (0..n).rev() {
        head = Some(Box::new(Node {
            id: i as u32,
            next: head,
        }));
    }
    let list = head.expect("at least one node");
    marshal::xdr::to_vec(&*list).expect("a list encodes")
}
