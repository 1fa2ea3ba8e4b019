//! Properties of layout-annotated records: whole-record conversion round-trips and agrees with
//! a field-by-field reference decoder written independently of the derive; every view setter
//! followed by its getter gives the value back and changes nothing else; views and conversions
//! never touch bytes outside their slice, and construction fails instead when the slice is
//! short; in-place conversion agrees with the copying one.

use marshal::layout::Layout;
use marshal::Marshal;
use proptest::prelude::*;
use workloads::headers::{ArpHeader, BigHeader, EthernetHeader, Ipv4Header, TcpHeader, UdpHeader};

macro_rules! mixed {
    ($name:ident, $align:literal) => {
        /// Everything the annotations allow, in one record: both byte orders, signed and float
        /// fields, bit-fields in a little-endian `u32` and a big-endian `u64` unit, a `u32` no
        /// aligned word can hold (offset 10), byte arrays, and gaps (bytes 8..10 and 37..40).
        #[derive(Marshal, Debug, Clone, Copy, Default)]
        #[marshal(layout(size = 40, align = $align))]
        struct $name {
            #[marshal(at = 0, little)]
            a: u16,
            #[marshal(at = 2, little)]
            b: i16,
            #[marshal(at = 4, little, unit = u32, bits = 0..5)]
            c: u8,
            #[marshal(at = 4, little, unit = u32, bits = 5..6)]
            d: bool,
            #[marshal(at = 4, little, unit = u32, bits = 6..32)]
            e: u32,
            #[marshal(at = 10, big)]
            f: u32,
            #[marshal(at = 14)]
            g: [u8; 2],
            #[marshal(at = 16, big)]
            h: f64,
            #[marshal(at = 24, big, unit = u64, bits = 0..40)]
            j: u64,
            #[marshal(at = 24, big, unit = u64, bits = 40..64)]
            k: u32,
            #[marshal(at = 32, little)]
            l: f32,
            #[marshal(at = 36)]
            m: i8,
        }
    };
}
mixed!(Mixed, 8);
// The same with 2-byte alignment: where unaligned access is slow, words are at most 2 bytes.
mixed!(Mixed2, 2);

type MixedKey = (
    u16,
    i16,
    u8,
    bool,
    u32,
    u32,
    [u8; 2],
    u64,
    u64,
    u32,
    u32,
    i8,
);

/// Floats compared by their bits (NaN payloads included).
fn key(v: &Mixed) -> MixedKey {
    (
        v.a,
        v.b,
        v.c,
        v.d,
        v.e,
        v.f,
        v.g,
        v.h.to_bits(),
        v.j,
        v.k,
        v.l.to_bits(),
        v.m,
    )
}

/// The reference: each field on its own, from the annotations, with plain slice reads.
fn reference(b: &[u8]) -> Mixed {
    let arr = |o: usize, n: usize| b[o..o + n].to_vec();
    let u32le = u32::from_le_bytes(arr(4, 4).try_into().unwrap());
    let u64be = u64::from_be_bytes(arr(24, 8).try_into().unwrap());
    Mixed {
        a: u16::from_le_bytes(arr(0, 2).try_into().unwrap()),
        b: i16::from_le_bytes(arr(2, 2).try_into().unwrap()),
        c: (u32le & 0x1f) as u8,
        d: (u32le >> 5) & 1 == 1,
        e: u32le >> 6,
        f: u32::from_be_bytes(arr(10, 4).try_into().unwrap()),
        g: arr(14, 2).try_into().unwrap(),
        h: f64::from_be_bytes(arr(16, 8).try_into().unwrap()),
        j: u64be & ((1 << 40) - 1),
        k: (u64be >> 40) as u32,
        l: f32::from_le_bytes(arr(32, 4).try_into().unwrap()),
        m: b[36] as i8,
    }
}

prop_compose! {
    fn mixed()(a in any::<u16>(), b in any::<i16>(), c in 0u8..32, d in any::<bool>(),
               e in 0u32..1 << 26, f in any::<u32>(), g in any::<[u8; 2]>(), h in any::<u64>(),
               j in 0u64..1 << 40, k in 0u32..1 << 24, l in any::<u32>(), m in any::<i8>())
        -> Mixed {
        Mixed { a, b, c, d, e, f, g, h: f64::from_bits(h), j, k, l: f32::from_bits(l), m }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn mixed_reads_as_the_reference_does(bytes in prop::collection::vec(any::<u8>(), 40..48)) {
        let v = Mixed::read_from(&bytes).unwrap();
        prop_assert_eq!(key(&v), key(&reference(&bytes)));
        prop_assert_eq!(key(&Mixed::view(&bytes).unwrap().read()), key(&v));
        // `read_into` overwrites every field of a record read from the complemented bytes.
        let not: Vec<u8> = bytes.iter().map(|b| !b).collect();
        let mut into = Mixed::read_from(&not).unwrap();
        into.read_into(&bytes).unwrap();
        prop_assert_eq!(key(&into), key(&v));
        // The 2-aligned twin, in both its word groupings, reads the same fields.
        let v2 = Mixed2::read_from(&bytes).unwrap();
        let v2a = Mixed2::__read_aligned(&bytes).unwrap();
        for w in [v2, v2a] {
            let w = Mixed { a: w.a, b: w.b, c: w.c, d: w.d, e: w.e, f: w.f, g: w.g, h: w.h,
                            j: w.j, k: w.k, l: w.l, m: w.m };
            prop_assert_eq!(key(&w), key(&v));
        }
        let mut out2 = vec![0xffu8; bytes.len()];
        v2a.__write_aligned(&mut out2).unwrap();
        let mut out2f = vec![0xffu8; bytes.len()];
        v2.write_to(&mut out2f).unwrap();
        prop_assert_eq!(&out2, &out2f);
        // Gaps are ignored on read and written as zeros.
        let mut out = vec![0xffu8; bytes.len()];
        v.write_to(&mut out).unwrap();
        let mut expect = bytes.clone();
        expect[8..10].fill(0);
        expect[37..40].fill(0);
        expect[40..].fill(0xff);
        prop_assert_eq!(out, expect);
    }

    #[test]
    fn mixed_round_trips(v in mixed()) {
        let mut out = [0u8; 40];
        v.write_to(&mut out).unwrap();
        prop_assert_eq!(key(&Mixed::read_from(&out).unwrap()), key(&v));
        prop_assert_eq!(key(&reference(&out)), key(&v));
    }

    #[test]
    fn mixed_setters_change_only_their_field(bytes in any::<[u8; 40]>(), v in mixed()) {
        // Each setter, applied to arbitrary bytes, reads back and leaves the rest as it was.
        macro_rules! check {
            ($($f:ident $set:ident),*) => { $({
                let mut buf = bytes;
                let mut expect = Mixed::read_from(&buf).unwrap();
                expect.$f = v.$f;
                let mut view = Mixed::view_mut(&mut buf).unwrap();
                view.$set(v.$f);
                prop_assert_eq!(key(&Mixed { $f: view.$f(), ..Mixed::default() }),
                                key(&Mixed { $f: v.$f, ..Mixed::default() }));
                prop_assert_eq!(key(&view.read()), key(&expect));
                // Gap bytes are untouched by setters.
                prop_assert_eq!(&buf[8..10], &bytes[8..10]);
                prop_assert_eq!(&buf[37..40], &bytes[37..40]);
            })* };
        }
        check!(a set_a, b set_b, c set_c, d set_d, e set_e, f set_f, g set_g, h set_h,
               j set_j, k set_k, l set_l, m set_m);
    }

    #[test]
    fn short_slices_are_refused_and_long_ones_are_not_overrun(len in 0usize..120) {
        fn check<T: Layout + Default>(len: usize) -> Result<(), TestCaseError> {
            let mut buf = vec![0xa5u8; len];
            let fits = len >= T::SIZE;
            prop_assert_eq!(T::read_from(&buf).is_ok(), fits);
            // A refused `read_into` leaves the record as it was.
            let mut into = T::default();
            prop_assert_eq!(into.read_into(&buf).is_ok(), fits);
            if !fits {
                let (mut a, mut b) = (vec![0u8; T::SIZE], vec![0u8; T::SIZE]);
                into.write_to(&mut a).unwrap();
                T::default().write_to(&mut b).unwrap();
                prop_assert_eq!(a, b);
            }
            prop_assert_eq!(T::view(&buf).is_ok(), fits);
            prop_assert_eq!(T::view_mut(&mut buf).is_ok(), fits);
            prop_assert_eq!(T::default().write_to(&mut buf).is_ok(), fits);
            let untouched = if fits { T::SIZE } else { 0 };
            prop_assert!(buf[untouched..].iter().all(|&b| b == 0xa5));
            Ok(())
        }
        check::<Mixed>(len)?;
        check::<EthernetHeader>(len)?;
        check::<Ipv4Header>(len)?;
        check::<UdpHeader>(len)?;
        check::<TcpHeader>(len)?;
        check::<ArpHeader>(len)?;
        check::<BigHeader>(len)?;
    }

    #[test]
    fn headers_round_trip_from_any_bytes(bytes in any::<[u8; 82]>()) {
        // Every bit of these headers belongs to a field, so any bytes round-trip exactly.
        fn check<T: Layout>(bytes: &[u8]) -> Result<(), TestCaseError> {
            let v = T::read_from(bytes).unwrap();
            let mut out = vec![0u8; T::SIZE];
            v.write_to(&mut out).unwrap();
            prop_assert_eq!(&out[..], &bytes[..T::SIZE]);
            // `read_into` a record read from the complemented bytes: every field replaced.
            let not: Vec<u8> = bytes.iter().map(|b| !b).collect();
            let mut into = T::read_from(&not).unwrap();
            into.read_into(bytes).unwrap();
            into.write_to(&mut out).unwrap();
            prop_assert_eq!(&out[..], &bytes[..T::SIZE]);
            // The grouping for targets where unaligned access is slow agrees.
            let a = T::__read_aligned(bytes).unwrap();
            let mut out = vec![0u8; T::SIZE];
            a.__write_aligned(&mut out).unwrap();
            prop_assert_eq!(&out[..], &bytes[..T::SIZE]);
            Ok(())
        }
        check::<EthernetHeader>(&bytes)?;
        check::<Ipv4Header>(&bytes)?;
        check::<UdpHeader>(&bytes)?;
        check::<TcpHeader>(&bytes)?;
        check::<ArpHeader>(&bytes)?;
        check::<BigHeader>(&bytes)?;
    }

    #[test]
    fn ipv4_setters_change_only_their_field(bytes in any::<[u8; 20]>(), ttl in any::<u8>(),
                                            flags in 0u8..8, frag in 0u16..1 << 13,
                                            ihl in 0u8..16, sum in any::<u16>()) {
        let mut buf = bytes;
        let mut expect = Ipv4Header::read_from(&buf).unwrap();
        let mut v = Ipv4Header::view_mut(&mut buf).unwrap();
        v.set_ttl(ttl);
        v.set_flags(flags);
        v.set_frag_offset(frag);
        v.set_ihl(ihl);
        v.set_checksum(sum);
        prop_assert_eq!((v.ttl(), v.flags(), v.frag_offset(), v.ihl(), v.checksum()),
                        (ttl, flags, frag, ihl, sum));
        expect.ttl = ttl;
        expect.flags = flags;
        expect.frag_offset = frag;
        expect.ihl = ihl;
        expect.checksum = sum;
        prop_assert_eq!(v.read(), expect);
    }

    #[test]
    fn tcp_flag_setters_touch_one_bit(bytes in any::<[u8; 20]>(), on in any::<bool>()) {
        let mut buf = bytes;
        let mut v = TcpHeader::view_mut(&mut buf).unwrap();
        v.set_syn(on);
        prop_assert_eq!(v.syn(), on);
        prop_assert_eq!(buf[13] & !0b10, bytes[13] & !0b10);
        prop_assert_eq!(&buf[..13], &bytes[..13]);
        prop_assert_eq!(&buf[14..], &bytes[14..]);
    }

    #[test]
    fn in_place_agrees_with_copying(bytes in any::<[u8; 32]>()) {
        #[repr(C, align(8))]
        struct Aligned([u8; 32]);
        let copied = Plain::read_from(&bytes).unwrap();
        prop_assert_eq!(plain_key(&copied), plain_reference(&bytes));
        let mut into = Plain::read_from(&bytes.map(|b| !b)).unwrap();
        into.read_into(&bytes).unwrap();
        prop_assert_eq!(plain_key(&into), plain_reference(&bytes));
        let mut buf = Aligned(bytes);
        let native = Plain::from_wire_in_place(&mut buf.0).unwrap();
        prop_assert_eq!(plain_key(native), plain_reference(&bytes));
        prop_assert_eq!(&native.to_wire_in_place()[..], &bytes[..]);
        prop_assert_eq!(buf.0, bytes);

        let mut out = [0u8; 32];
        copied.write_to(&mut out).unwrap();
        prop_assert_eq!(out, bytes);
    }

    #[test]
    fn in_place_refuses_misaligned_or_short_buffers(start in 1usize..8, len in 0usize..32) {
        #[repr(C, align(8))]
        struct Aligned([u8; 48]);
        let mut buf = Aligned([7; 48]);
        prop_assert!(Plain::from_wire_in_place(&mut buf.0[start..start + 32]).is_err());
        prop_assert!(Plain::from_wire_in_place(&mut buf.0[..len]).is_err());
        prop_assert_eq!(buf.0, [7; 48], "a refused buffer is not changed");
    }
}

/// An `in_place` record with both byte orders and every width.
#[derive(Marshal, Debug, Clone, Copy, Default)]
#[repr(C)]
#[marshal(layout(size = 32, align = 8, in_place))]
struct Plain {
    #[marshal(at = 0, big)]
    a: u64,
    #[marshal(at = 8, little)]
    b: u32,
    #[marshal(at = 12, big)]
    c: u16,
    #[marshal(at = 14)]
    d: u8,
    #[marshal(at = 15)]
    e: i8,
    #[marshal(at = 16, big)]
    f: i32,
    #[marshal(at = 20)]
    g: [u8; 4],
    #[marshal(at = 24, big)]
    h: f64,
}

type PlainKey = (u64, u32, u16, u8, i8, i32, [u8; 4], u64);

fn plain_key(p: &Plain) -> PlainKey {
    (p.a, p.b, p.c, p.d, p.e, p.f, p.g, p.h.to_bits())
}

/// `Plain`'s fields read one by one from the bytes, independently of the derive's swap.
fn plain_reference(b: &[u8; 32]) -> PlainKey {
    let a = |o: usize, n: usize| b[o..o + n].to_vec();
    (
        u64::from_be_bytes(a(0, 8).try_into().unwrap()),
        u32::from_le_bytes(a(8, 4).try_into().unwrap()),
        u16::from_be_bytes(a(12, 2).try_into().unwrap()),
        b[14],
        b[15] as i8,
        i32::from_be_bytes(a(16, 4).try_into().unwrap()),
        a(20, 4).try_into().unwrap(),
        u64::from_be_bytes(a(24, 8).try_into().unwrap()),
    )
}

#[test]
fn in_place_plain_is_its_fields() {
    #[repr(C, align(8))]
    struct Aligned([u8; 32]);
    let mut w = Aligned([0; 32]);
    w.0[..8].copy_from_slice(&0x0102_0304_0506_0708u64.to_be_bytes());
    w.0[8..12].copy_from_slice(&0xa1a2_a3a4u32.to_le_bytes());
    w.0[12..14].copy_from_slice(&0xb1b2u16.to_be_bytes());
    w.0[14] = 9;
    w.0[15] = 0xff;
    w.0[16..20].copy_from_slice(&(-5i32).to_be_bytes());
    w.0[20..24].copy_from_slice(b"abcd");
    w.0[24..].copy_from_slice(&1.5f64.to_be_bytes());
    let p = Plain::from_wire_in_place(&mut w.0).unwrap();
    assert_eq!(
        plain_key(p),
        (
            0x0102_0304_0506_0708,
            0xa1a2_a3a4,
            0xb1b2,
            9,
            -1,
            -5,
            *b"abcd",
            1.5f64.to_bits()
        )
    );
}
