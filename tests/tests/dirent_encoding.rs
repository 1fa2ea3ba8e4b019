//! The bytes marshal writes for directory entries (a bounded name, then a fixed tail of 30
//! `int`s and 16 opaque bytes), for strings and opaque data of every length around the
//! writer's short-padding store (8 bytes) and the NUL check's 16-byte words, and for values
//! at every alignment phase, against a reference built byte by byte from RFC 4506 and CORBA
//! CDR in both byte orders. Padding must be zero whatever the memory the encoder writes into
//! held before.

use marshal::cdr::{self, ByteOrder};
use marshal::xdr;
use proptest::collection::vec;
use proptest::prelude::*;
use workloads::{DirEntry, Stat};

/// XDR of one entry: length, name, zero padding to four, the ints big-endian, the opaque.
fn xdr_entry(e: &DirEntry, out: &mut Vec<u8>) {
    out.extend((e.name.len() as u32).to_be_bytes());
    out.extend(e.name.as_bytes());
    out.resize(out.len().next_multiple_of(4), 0);
    for i in e.st.ints {
        out.extend(i.to_be_bytes());
    }
    out.extend(e.st.chars);
}

/// `n` as a CDR `unsigned long` or `long` in `order`.
fn cdr_u32(n: u32, order: ByteOrder) -> [u8; 4] {
    match order {
        ByteOrder::Big => n.to_be_bytes(),
        ByteOrder::Little => n.to_le_bytes(),
    }
}

/// Zero padding that aligns `out` (whose start is the stream's origin) to `align`.
fn align(out: &mut Vec<u8>, align: usize) {
    out.resize(out.len().next_multiple_of(align), 0);
}

/// CDR of one entry: the string (aligned length counting the NUL, the bytes, the NUL), then
/// the ints aligned to four in `order`, then the octets.
fn cdr_entry(e: &DirEntry, order: ByteOrder, out: &mut Vec<u8>) {
    align(out, 4);
    out.extend(cdr_u32(e.name.len() as u32 + 1, order));
    out.extend(e.name.as_bytes());
    out.push(0);
    align(out, 4);
    for i in e.st.ints {
        out.extend(cdr_u32(i as u32, order));
    }
    out.extend(e.st.chars);
}

/// Encodes with `encode` into a vector whose spare capacity holds stale 0xAA bytes.
fn into_stale(encode: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = vec![0xaa_u8; 1 << 16];
    out.clear();
    encode(&mut out);
    out
}

/// Names of 0..=255 ASCII bytes, none NUL (what a CDR string can carry).
fn name() -> impl Strategy<Value = String> {
    vec(1u8..0x80, 0..=255).prop_map(|b| String::from_utf8(b).expect("ASCII"))
}

fn entry() -> impl Strategy<Value = DirEntry> {
    (name(), any::<[i32; 30]>(), any::<[u8; 16]>()).prop_map(|(name, ints, chars)| DirEntry {
        name,
        st: Stat { ints, chars },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn xdr_entries_are_the_reference_bytes(entries in vec(entry(), 0..12)) {
        let mut want = (entries.len() as u32).to_be_bytes().to_vec();
        for e in &entries {
            xdr_entry(e, &mut want);
        }
        let got = into_stale(|out| xdr::encode_into(&entries, out).unwrap());
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(xdr::to_vec(&entries).unwrap(), want);
    }

    /// Entries after `lead` octets (every alignment phase of the sequence's length and of the
    /// first entry), in both byte orders.
    #[test]
    fn cdr_entries_are_the_reference_bytes(
        entries in vec(entry(), 0..12),
        lead in vec(any::<u8>(), 0..8),
    ) {
        for order in [ByteOrder::Big, ByteOrder::Little] {
            // `Vec<u8>` is a sequence: the value starts with its length.
            let mut want = cdr_u32(lead.len() as u32, order).to_vec();
            want.extend(&lead);
            align(&mut want, 4);
            want.extend(cdr_u32(entries.len() as u32, order));
            for e in &entries {
                cdr_entry(e, order, &mut want);
            }
            let value = (lead.clone(), entries.clone());
            let got = into_stale(|out| cdr::encode_into(&value, order, out).unwrap());
            prop_assert_eq!(&got, &want, "{:?}", order);
        }
    }
}

/// Opaque data and strings of every length from 0 to 300 (the padding store, the copy over
/// it, the NUL check's whole and partial words), each after 0..8 bytes of something else.
#[test]
fn opaques_and_strings_of_every_length() {
    for len in 0..=300usize {
        let bytes: Vec<u8> = (0..len).map(|i| (i % 127) as u8 + 1).collect();
        let text = String::from_utf8(bytes.clone()).expect("ASCII");

        let mut want = (len as u32).to_be_bytes().to_vec();
        want.extend(&bytes);
        align(&mut want, 4);
        assert_eq!(
            into_stale(|o| xdr::encode_into(&bytes, o).unwrap()),
            want,
            "{len}"
        );
        assert_eq!(
            into_stale(|o| xdr::encode_into(&text, o).unwrap()),
            want,
            "{len}"
        );

        for order in [ByteOrder::Big, ByteOrder::Little] {
            for lead in 0..8usize {
                let value = (vec![0x55u8; lead], text.clone());
                let mut want = cdr_u32(lead as u32, order).to_vec();
                want.extend(vec![0x55; lead]);
                align(&mut want, 4);
                want.extend(cdr_u32(len as u32 + 1, order));
                want.extend(&bytes);
                want.push(0);
                let got = into_stale(|o| cdr::encode_into(&value, order, o).unwrap());
                assert_eq!(got, want, "{len} after {lead} in {order:?}");
            }
        }
    }
}

/// Arrays of words of a fixed size (each swapped by a kernel compiled for its size) after
/// 0..8 bytes of something else, against their words written one by one.
#[test]
fn fixed_arrays_of_words() {
    fn check<const N: usize>() {
        let words: [u32; N] = core::array::from_fn(|i| (i as u32 + 1).wrapping_mul(0x0102_0305));
        let longs: [i64; N] = core::array::from_fn(|i| -(i as i64) * 0x0102_0304_0506);
        let shorts: [u16; N] = core::array::from_fn(|i| i as u16 * 0x0103);
        let mut want = Vec::new();
        for w in words {
            want.extend(w.to_be_bytes());
        }
        for l in longs {
            want.extend(l.to_be_bytes());
        }
        assert_eq!(
            into_stale(|o| xdr::encode_into(&(words, longs), o).unwrap()),
            want
        );
        for order in [ByteOrder::Big, ByteOrder::Little] {
            for lead in 0..8usize {
                // The octet sequence first: its length, then the octets.
                let mut want = cdr_u32(lead as u32, order).to_vec();
                want.extend(vec![9u8; lead]);
                for w in words {
                    align(&mut want, 4);
                    want.extend(cdr_u32(w, order));
                }
                for s in shorts {
                    align(&mut want, 2);
                    want.extend(match order {
                        ByteOrder::Big => s.to_be_bytes(),
                        ByteOrder::Little => s.to_le_bytes(),
                    });
                }
                for l in longs {
                    align(&mut want, 8);
                    want.extend(match order {
                        ByteOrder::Big => l.to_be_bytes(),
                        ByteOrder::Little => l.to_le_bytes(),
                    });
                }
                // A sequence of octets then the arrays: the octets set the start phase.
                let value = (vec![9u8; lead], words, shorts, longs);
                let got = into_stale(|o| cdr::encode_into(&value, order, o).unwrap());
                assert_eq!(got, want, "N {N}, after {lead} in {order:?}");
            }
        }
    }
    check::<0>();
    check::<1>();
    check::<7>();
    check::<8>();
    check::<9>();
    check::<30>();
    check::<31>();
    check::<64>();
}

/// A NUL anywhere in a CDR string is refused, at every position in every word of the check
/// (strings checked while copied, and longer ones checked before), with the offset of the
/// string's start, whatever comes before it.
#[test]
fn cdr_refuses_a_nul_anywhere() {
    for len in (1..=70usize).chain([200, 255, 256, 257, 300]) {
        for at in 0..len {
            let mut s = vec![b'a'; len];
            s[at] = 0;
            let s = String::from_utf8(s).expect("ASCII");
            let e = cdr::to_vec(&s, ByteOrder::Big).unwrap_err();
            assert_eq!(
                e.kind(),
                &marshal::ErrorKind::InteriorNul,
                "{len}, NUL at {at}"
            );
            assert_eq!(e.offset(), Some(0), "{len}, NUL at {at}");
            let e = cdr::to_vec(&(7u8, &s), ByteOrder::Little).unwrap_err();
            assert_eq!(e.offset(), Some(1), "after a byte: {len}, NUL at {at}");
        }
    }
}
