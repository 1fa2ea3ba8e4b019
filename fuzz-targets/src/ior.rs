//! `ior`: object references from CDR bytes, stringified `IOR:` hex, and `corbaloc:` URLs.
//!
//! Input: `[mode][bytes]`; `mode % 6` chooses
//! 0. `Ior::from_encapsulation(bytes)`;
//! 1. `Ior::parse(text)` of the bytes as text (invalid UTF-8 replaced);
//! 2. `Ior::parse("IOR:" + hex(bytes))`;
//! 3. `Ior::parse("corbaloc:" + text)`;
//! 4. an `Ior` as it appears in a message body (`cdr::from_slice`, big-endian, or
//!    little-endian when bit 7 of `mode` is set);
//! 5. `IiopProfile::from_encapsulation(bytes)` and `Profile::from_tagged` (tag 0, then the
//!    tag in the first 4 bytes).
//!
//! A parsed reference must keep its octets (`to_encapsulation` gives the bytes it was parsed
//! from), print as an `IOR:` string that parses back to it, do the same in the other byte
//! order, and, when it has a `corbaloc:` form, that URL must parse to the same IIOP
//! addresses and key.

use marshal::cdr::{from_slice, to_vec, ByteOrder};
use marshal::giop::{IiopProfile, Ior, Profile};

use crate::xdr_derived::same_bytes;

/// An IIOP address: version, host, port, object key.
type Address = ((u8, u8), String, u16, Vec<u8>);

fn other(order: ByteOrder) -> ByteOrder {
    match order {
        ByteOrder::Big => ByteOrder::Little,
        ByteOrder::Little => ByteOrder::Big,
    }
}

/// The target.
pub fn run(data: &[u8]) {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    match mode % 6 {
        0 => {
            if let Ok(ior) = Ior::from_encapsulation(bytes) {
                let again = ior.to_encapsulation().expect("a parsed reference encodes");
                same_bytes("the octets of a parsed reference", &again, bytes);
                check(&ior);
            }
        }
        1 => parse(&String::from_utf8_lossy(bytes)),
        2 => {
            let mut s = String::with_capacity(4 + 2 * bytes.len());
            s.push_str("IOR:");
            for b in bytes {
                s.push_str(&format!("{b:02x}"));
            }
            parse(&s);
        }
        3 => parse(&format!("corbaloc:{}", String::from_utf8_lossy(bytes))),
        4 => {
            let order = if mode & 0x80 != 0 {
                ByteOrder::Little
            } else {
                ByteOrder::Big
            };
            if let Ok(ior) = from_slice::<Ior>(bytes, order) {
                let b1 = to_vec(&ior, order).expect("a decoded reference encodes");
                let back = from_slice::<Ior>(&b1, order).expect("an encoded reference decodes");
                assert_eq!(back, ior, "a reference in a message body");
                let b2 = to_vec(&back, order).expect("a decoded reference encodes");
                same_bytes("a reference in a message body", &b2, &b1);
                check(&ior);
            }
        }
        _ => {
            if let Ok(body) = IiopProfile::from_encapsulation(bytes) {
                profile_round_trip(&body);
            }
            let _ = Profile::from_tagged(0, bytes);
            if let Some((tag, rest)) = bytes.split_first_chunk::<4>() {
                if let Ok(p) = Profile::from_tagged(u32::from_be_bytes(*tag), rest) {
                    assert_eq!(p.data(), rest, "a profile keeps its octets");
                    if let Some(body) = p.as_iiop() {
                        profile_round_trip(body);
                    }
                }
            }
        }
    }
}

fn profile_round_trip(body: &IiopProfile) {
    for order in [ByteOrder::Big, ByteOrder::Little] {
        // Bodies that have no encoding (an IIOP 1.0 profile with components cannot come from
        // a decode) fail here; those that encode must decode to themselves.
        if let Ok(enc) = body.to_encapsulation(order) {
            let back = IiopProfile::from_encapsulation(&enc).expect("an encoded profile decodes");
            assert_eq!(&back, body, "a profile body through an encapsulation");
        }
    }
}

fn parse(s: &str) {
    if let Ok(ior) = Ior::parse(s) {
        check(&ior);
    }
}

/// What every parsed reference must satisfy.
fn check(ior: &Ior) {
    let s = ior.to_string();
    let back = Ior::parse(&s).expect("a printed reference parses");
    assert_eq!(&back, ior, "a reference through its IOR: string");
    assert_eq!(back.to_string(), s, "printing a reparsed reference");

    let flipped = ior.clone().with_byte_order(other(ior.byte_order()));
    let back = Ior::parse(&flipped.to_string()).expect("a reference in the other order parses");
    assert_eq!(&back, ior, "a reference in the other byte order");

    let _ = (ior.type_id(), ior.is_nil(), ior.iiop());
    for p in ior.profiles() {
        let _ = (p.tag(), p.data().len());
        if let Some(body) = p.as_iiop() {
            for c in &body.components {
                let _ = body.component(c.tag);
            }
        }
    }

    if let Some(url) = ior.to_corbaloc() {
        let back = Ior::parse(&url).expect("a reference's corbaloc URL parses");
        let addrs = |i: &Ior| -> Vec<Address> {
            i.iiop_profiles()
                .map(|p| (p.version, p.host.clone(), p.port, p.object_key.clone()))
                .collect()
        };
        assert_eq!(addrs(&back), addrs(ior), "IIOP addresses through {url}");
    }
}
