//! NDR receivers against senders that describe their records to make the receiver allocate:
//! the output of a conversion is bounded by the message, not by element sizes the sender
//! chooses, in every engine.

use marshal::ndr::{message_from_body, ByteOrder, Engine, Format, IOField, Receiver};
use marshal::{ErrorKind, Marshal};

/// A big local record, built from whatever the sender has of it.
#[derive(Marshal, Debug, Clone, PartialEq)]
#[marshal(default_missing)]
struct NBig {
    tag: u8,
    blob: [u64; 512],
}

impl Default for NBig {
    fn default() -> Self {
        NBig {
            tag: 0,
            blob: [7; 512],
        }
    }
}

#[derive(Marshal, Debug, PartialEq)]
struct NBigs {
    items: Vec<NBig>,
}

fn engines() -> Vec<Engine> {
    #[allow(unused_mut)]
    let mut e = vec![Engine::Interpreter];
    #[cfg(feature = "jit")]
    e.extend([
        Engine::Jit,
        Engine::Tiered {
            budget_bytes: 1 << 20,
        },
    ]);
    e
}

/// The sender's `NBigs` whose `NBig` is `elem` bytes (its `tag`, then `blob` when it has
/// room), and a message of `n` items with tags 1, 2, …
fn sender(elem: usize, n: usize) -> (Format, Vec<u8>) {
    let mut fields = vec![IOField::new("tag", "unsigned integer", 1, 0)];
    if elem > 1 {
        fields.push(IOField::new("blob", "unsigned integer[512]", 8, 8));
    }
    let nbig = Format::from_fields("NBig", ByteOrder::Little, elem, &fields, &[]).unwrap();
    let nbigs = Format::from_fields(
        "NBigs",
        ByteOrder::Little,
        8,
        &[IOField::new("items", "NBig[]", elem, 0)],
        &[nbig],
    )
    .unwrap();
    let mut body = Vec::new();
    body.extend_from_slice(&8u32.to_le_bytes());
    body.extend_from_slice(&(n as u32).to_le_bytes());
    for i in 0..n {
        let mut e = vec![0u8; elem];
        e[0] = (i + 1) as u8;
        body.extend_from_slice(&e);
    }
    let msg = message_from_body(nbigs.id(), &body).unwrap();
    (nbigs, msg)
}

/// 65,000 one-byte elements would be 65,000 local `NBig`s of 4,104 bytes (267 MB) from a
/// 65 KB message: refused, in the field that would grow, before the memory is taken.
#[test]
fn a_sender_cannot_choose_the_expansion() {
    let (format, msg) = sender(1, 65_000);
    for engine in engines() {
        let mut rx = Receiver::with_engine(engine);
        rx.register(format.clone());
        // Several times, so that the tiered engine compiles the plan between them.
        for _ in 0..20 {
            let e = rx.decode::<NBigs>(&msg).unwrap_err();
            let ErrorKind::TooMuchMemory { needed, limit } = *e.kind() else {
                panic!("{engine:?}: {e}");
            };
            assert_eq!(needed, 24 + 65_000 * 4_104, "{engine:?}: {e}");
            assert_eq!(limit, 24 + 16 * (8 + 65_000) + 4096, "{engine:?}: {e}");
            assert!(e.to_string().contains("items"), "{engine:?}: {e}");
        }
    }
}

/// Within the bound, the same sender's records convert (with `Default` for what it lacks),
/// and a full-size sender's many records too.
#[test]
fn conversions_within_the_bound_succeed() {
    for engine in engines() {
        let mut rx = Receiver::with_engine(engine);
        let (small, one) = sender(1, 1);
        rx.register(small);
        let (full, many) = sender(4104, 100);
        rx.register(full);
        for _ in 0..20 {
            let got = rx.decode::<NBigs>(&one).unwrap();
            assert_eq!(
                got.items,
                [NBig {
                    tag: 1,
                    ..NBig::default()
                }]
            );
            let got = rx.decode::<NBigs>(&many).unwrap();
            assert_eq!(got.items.len(), 100);
            assert_eq!(got.items[99].tag, 100);
            assert_eq!(got.items[99].blob, [0; 512]);
        }
    }
}

/// `set_max_output` lowers the bound for one receiver. (The local fixed part of `NBigs` is
/// its `Vec`, 24 bytes; the items follow it.)
#[test]
fn the_receiver_sets_a_lower_bound() {
    let (full, many) = sender(4104, 100);
    for engine in engines() {
        let mut rx = Receiver::with_engine(engine);
        rx.register(full.clone());
        rx.set_max_output(100 * 4104);
        for _ in 0..20 {
            let e = rx.decode::<NBigs>(&many).unwrap_err();
            assert_eq!(
                *e.kind(),
                ErrorKind::TooMuchMemory {
                    needed: 24 + 100 * 4104,
                    limit: 100 * 4104
                },
                "{engine:?}: {e}"
            );
        }
        rx.set_max_output(24 + 100 * 4104);
        assert_eq!(rx.decode::<NBigs>(&many).unwrap().items.len(), 100);
    }
}
