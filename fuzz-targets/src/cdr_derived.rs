//! `cdr_derived`: `marshal::cdr::from_slice` (or `from_encapsulation`) into the derived types
//! of `xdr_derived`, in the byte order the first byte chooses.
//!
//! Input: `[selector][CDR bytes]`. Selector bit 7: little-endian (else big); bit 6: the bytes
//! are an encapsulation (their first octet gives the byte order); bits 0–5: one of
//! [`TYPES`] (modulo their number). CDR padding is not checked on
//! decode, so a decoded value need not re-encode to the input; its encoding must decode and
//! re-encode to the same bytes, and encoding it in the other byte order and decoding that
//! must give the same value back.

use marshal::cdr::{from_encapsulation, from_slice, to_encapsulation, to_vec, ByteOrder};

use crate::types::{Bounded, Expr, Lists, Nested, Node, Shape, Small, Tree, Zbs};
use crate::xdr_derived::{same_bytes, TYPES};

fn other(order: ByteOrder) -> ByteOrder {
    match order {
        ByteOrder::Big => ByteOrder::Little,
        ByteOrder::Little => ByteOrder::Big,
    }
}

macro_rules! check {
    ($t:ty, $input:expr, $order:expr, $encap:expr) => {{
        let input: &[u8] = $input;
        let order: ByteOrder = $order;
        let decoded = if $encap {
            from_encapsulation::<$t>(input)
        } else {
            from_slice::<$t>(input, order)
        };
        if let Ok(v) = decoded {
            if $encap {
                let order = if input[0] & 1 == 1 {
                    ByteOrder::Little
                } else {
                    ByteOrder::Big
                };
                let b1 = to_encapsulation(&v, order).expect("a decoded value re-encodes");
                let v2 = from_encapsulation::<$t>(&b1).expect("an encapsulation decodes");
                let b2 = to_encapsulation(&v2, order).expect("a decoded value re-encodes");
                same_bytes("second encapsulation", &b2, &b1);
            } else {
                let b1 = to_vec(&v, order).expect("a decoded value re-encodes");
                let v2 = from_slice::<$t>(&b1, order).expect("an encoding decodes");
                let b2 = to_vec(&v2, order).expect("a decoded value re-encodes");
                same_bytes("second re-encoding", &b2, &b1);
                let swapped = to_vec(&v2, other(order)).expect("encodes in either order");
                let v3 = from_slice::<$t>(&swapped, other(order)).expect("decodes in either order");
                let b3 = to_vec(&v3, order).expect("a decoded value re-encodes");
                same_bytes("re-encoding after the other byte order", &b3, &b1);
            }
        }
    }};
}

/// The target.
pub fn run(data: &[u8]) {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    let order = if sel & 0x80 != 0 {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    };
    let encap = sel & 0x40 != 0;
    match usize::from(sel & 0x3f) % TYPES.len() {
        0 => check!(Shape, input, order, encap),
        1 => check!(Small, input, order, encap),
        2 => check!(Node, input, order, encap),
        3 => check!(Bounded<'_>, input, order, encap),
        4 => check!(Nested, input, order, encap),
        5 => check!(Lists, input, order, encap),
        6 => check!(Zbs, input, order, encap),
        7 => check!(Expr, input, order, encap),
        8 => check!(Tree, input, order, encap),
        _ => check!(Vec<Shape>, input, order, encap),
    }
}
