//! `xdr_derived`: `marshal::xdr::from_slice` into derived types chosen by the first byte.
//!
//! Input: `[type selector][XDR bytes]`; the selector picks one of [`TYPES`] (modulo their
//! number). A decoded value must re-encode to exactly the input (XDR has one encoding per
//! value: zero padding, booleans 0 or 1, declared enum values, a default arm keeps its
//! discriminant), and its encoding must decode and re-encode to the same bytes.

use marshal::xdr::{from_slice, to_vec};

use crate::types::{Bounded, Expr, Lists, Nested, Node, Shape, Small, Tree, Zbs};

/// The types, by selector.
pub const TYPES: &[&str] = &[
    "Shape",
    "Small",
    "Node",
    "Bounded",
    "Nested",
    "Lists",
    "Zbs",
    "Expr",
    "Tree",
    "Vec<Shape>",
];

/// Panics naming the first byte where `a` and `b` differ.
pub(crate) fn same_bytes(what: &str, a: &[u8], b: &[u8]) {
    if a != b {
        let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        panic!(
            "{what}: {} bytes and {} bytes, first difference at offset {at}",
            a.len(),
            b.len()
        );
    }
}

macro_rules! check {
    ($t:ty, $input:expr) => {{
        let input: &[u8] = $input;
        if let Ok(v) = from_slice::<$t>(input) {
            let b1 = to_vec(&v).expect("a decoded value re-encodes");
            same_bytes("re-encoding of the input", &b1, input);
            let v2 = from_slice::<$t>(&b1).expect("an encoding decodes");
            let b2 = to_vec(&v2).expect("a decoded value re-encodes");
            same_bytes("second re-encoding", &b2, &b1);
        }
    }};
}

/// The target.
pub fn run(data: &[u8]) {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    match usize::from(sel) % TYPES.len() {
        0 => check!(Shape, input),
        1 => check!(Small, input),
        2 => check!(Node, input),
        3 => check!(Bounded<'_>, input),
        4 => check!(Nested, input),
        5 => check!(Lists, input),
        6 => check!(Zbs, input),
        7 => check!(Expr, input),
        8 => check!(Tree, input),
        _ => check!(Vec<Shape>, input),
    }
}
