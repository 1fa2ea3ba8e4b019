//! The three USC workloads converted by hand, the way a careful Rust programmer writes them
//! without the framework: field by field, each integer with `from_be_bytes` / `to_be_bytes`
//! on its own bytes, bit-fields by shifting and masking their byte or halfword, and byte
//! arrays by `try_into` / `copy_from_slice`. Every function takes a fixed-size array, so the
//! constant indices need no bounds checks and the `try_into` cannot fail.
//!
//! These are the benchmarks' "hand" baseline for the derived `read_from` / `write_to`, and
//! the tests below check the two agree. One difference in behaviour: a bit-field value wider
//! than its bits is truncated here (as C's `(v << 4) | ihl` would), whereas the derived
//! `write_to` refuses it with an error; the benchmarks only use values that fit.

use super::{BigHeader, NetLong, UdpHeader};

/// A big-endian `u16` at `at`.
#[inline(always)]
fn be16<const N: usize>(b: &[u8; N], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// A big-endian `u32` at `at`.
#[inline(always)]
fn be32<const N: usize>(b: &[u8; N], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads a network-order long.
#[inline]
pub fn read_netlong(b: &[u8; 4]) -> NetLong {
    NetLong {
        value: i32::from_be_bytes(*b),
    }
}

/// Reads a network-order long into `h`.
#[inline]
pub fn read_netlong_into(b: &[u8; 4], h: &mut NetLong) {
    h.value = i32::from_be_bytes(*b);
}

/// Writes a network-order long.
#[inline]
pub fn write_netlong(h: &NetLong, b: &mut [u8; 4]) {
    *b = h.value.to_be_bytes();
}

/// Reads a UDP header.
#[inline]
pub fn read_udp(b: &[u8; 8]) -> UdpHeader {
    UdpHeader {
        src_port: be16(b, 0),
        dst_port: be16(b, 2),
        len: be16(b, 4),
        checksum: be16(b, 6),
    }
}

/// Reads a UDP header into `h`, field by field.
#[inline]
pub fn read_udp_into(b: &[u8; 8], h: &mut UdpHeader) {
    h.src_port = be16(b, 0);
    h.dst_port = be16(b, 2);
    h.len = be16(b, 4);
    h.checksum = be16(b, 6);
}

/// Writes a UDP header.
#[inline]
pub fn write_udp(h: &UdpHeader, b: &mut [u8; 8]) {
    b[0..2].copy_from_slice(&h.src_port.to_be_bytes());
    b[2..4].copy_from_slice(&h.dst_port.to_be_bytes());
    b[4..6].copy_from_slice(&h.len.to_be_bytes());
    b[6..8].copy_from_slice(&h.checksum.to_be_bytes());
}

/// Reads a big header (Ethernet at 0, IPv4 at 14, TCP at 34, ARP at 54).
#[inline]
pub fn read_big(b: &[u8; 82]) -> BigHeader {
    let ip_off = be16(b, 20);
    BigHeader {
        eth_dst: b[0..6].try_into().unwrap(),
        eth_src: b[6..12].try_into().unwrap(),
        eth_type: be16(b, 12),

        ip_version: b[14] >> 4,
        ip_ihl: b[14] & 0x0f,
        ip_tos: b[15],
        ip_total_len: be16(b, 16),
        ip_id: be16(b, 18),
        ip_flags: (ip_off >> 13) as u8,
        ip_frag_offset: ip_off & 0x1fff,
        ip_ttl: b[22],
        ip_protocol: b[23],
        ip_checksum: be16(b, 24),
        ip_src: b[26..30].try_into().unwrap(),
        ip_dst: b[30..34].try_into().unwrap(),

        tcp_src_port: be16(b, 34),
        tcp_dst_port: be16(b, 36),
        tcp_seq: be32(b, 38),
        tcp_ack_seq: be32(b, 42),
        tcp_data_offset: b[46] >> 4,
        tcp_reserved: b[46] & 0x0f,
        tcp_flags: b[47],
        tcp_window: be16(b, 48),
        tcp_checksum: be16(b, 50),
        tcp_urgent_ptr: be16(b, 52),

        arp_htype: be16(b, 54),
        arp_ptype: be16(b, 56),
        arp_hlen: b[58],
        arp_plen: b[59],
        arp_oper: be16(b, 60),
        arp_sha: b[62..68].try_into().unwrap(),
        arp_spa: b[68..72].try_into().unwrap(),
        arp_tha: b[72..78].try_into().unwrap(),
        arp_tpa: b[78..82].try_into().unwrap(),
    }
}

/// Reads a big header into `h`, field by field in wire order.
#[inline]
pub fn read_big_into(b: &[u8; 82], h: &mut BigHeader) {
    h.eth_dst = b[0..6].try_into().unwrap();
    h.eth_src = b[6..12].try_into().unwrap();
    h.eth_type = be16(b, 12);

    h.ip_version = b[14] >> 4;
    h.ip_ihl = b[14] & 0x0f;
    h.ip_tos = b[15];
    h.ip_total_len = be16(b, 16);
    h.ip_id = be16(b, 18);
    let ip_off = be16(b, 20);
    h.ip_flags = (ip_off >> 13) as u8;
    h.ip_frag_offset = ip_off & 0x1fff;
    h.ip_ttl = b[22];
    h.ip_protocol = b[23];
    h.ip_checksum = be16(b, 24);
    h.ip_src = b[26..30].try_into().unwrap();
    h.ip_dst = b[30..34].try_into().unwrap();

    h.tcp_src_port = be16(b, 34);
    h.tcp_dst_port = be16(b, 36);
    h.tcp_seq = be32(b, 38);
    h.tcp_ack_seq = be32(b, 42);
    h.tcp_data_offset = b[46] >> 4;
    h.tcp_reserved = b[46] & 0x0f;
    h.tcp_flags = b[47];
    h.tcp_window = be16(b, 48);
    h.tcp_checksum = be16(b, 50);
    h.tcp_urgent_ptr = be16(b, 52);

    h.arp_htype = be16(b, 54);
    h.arp_ptype = be16(b, 56);
    h.arp_hlen = b[58];
    h.arp_plen = b[59];
    h.arp_oper = be16(b, 60);
    h.arp_sha = b[62..68].try_into().unwrap();
    h.arp_spa = b[68..72].try_into().unwrap();
    h.arp_tha = b[72..78].try_into().unwrap();
    h.arp_tpa = b[78..82].try_into().unwrap();
}

/// Writes a big header. Bit-field values wider than their bits are truncated.
#[inline]
pub fn write_big(h: &BigHeader, b: &mut [u8; 82]) {
    b[0..6].copy_from_slice(&h.eth_dst);
    b[6..12].copy_from_slice(&h.eth_src);
    b[12..14].copy_from_slice(&h.eth_type.to_be_bytes());

    b[14] = (h.ip_version << 4) | (h.ip_ihl & 0x0f);
    b[15] = h.ip_tos;
    b[16..18].copy_from_slice(&h.ip_total_len.to_be_bytes());
    b[18..20].copy_from_slice(&h.ip_id.to_be_bytes());
    let ip_off = (u16::from(h.ip_flags) << 13) | (h.ip_frag_offset & 0x1fff);
    b[20..22].copy_from_slice(&ip_off.to_be_bytes());
    b[22] = h.ip_ttl;
    b[23] = h.ip_protocol;
    b[24..26].copy_from_slice(&h.ip_checksum.to_be_bytes());
    b[26..30].copy_from_slice(&h.ip_src);
    b[30..34].copy_from_slice(&h.ip_dst);

    b[34..36].copy_from_slice(&h.tcp_src_port.to_be_bytes());
    b[36..38].copy_from_slice(&h.tcp_dst_port.to_be_bytes());
    b[38..42].copy_from_slice(&h.tcp_seq.to_be_bytes());
    b[42..46].copy_from_slice(&h.tcp_ack_seq.to_be_bytes());
    b[46] = (h.tcp_data_offset << 4) | (h.tcp_reserved & 0x0f);
    b[47] = h.tcp_flags;
    b[48..50].copy_from_slice(&h.tcp_window.to_be_bytes());
    b[50..52].copy_from_slice(&h.tcp_checksum.to_be_bytes());
    b[52..54].copy_from_slice(&h.tcp_urgent_ptr.to_be_bytes());

    b[54..56].copy_from_slice(&h.arp_htype.to_be_bytes());
    b[56..58].copy_from_slice(&h.arp_ptype.to_be_bytes());
    b[58] = h.arp_hlen;
    b[59] = h.arp_plen;
    b[60..62].copy_from_slice(&h.arp_oper.to_be_bytes());
    b[62..68].copy_from_slice(&h.arp_sha);
    b[68..72].copy_from_slice(&h.arp_spa);
    b[72..78].copy_from_slice(&h.arp_tha);
    b[78..82].copy_from_slice(&h.arp_tpa);
}

#[cfg(test)]
mod tests {
    use super::super::{random_big, random_bytes, random_netlong, random_udp};
    use super::*;
    use crate::Gen;

    /// For 1000 random records and 1000 random byte strings: the derived conversion and the
    /// hand-written one give the same bytes and the same values, and each reads back what it
    /// wrote.
    fn agree<T, const N: usize>(
        seed: u64,
        random: fn(&mut Gen) -> T,
        read_hand: fn(&[u8; N]) -> T,
        read_hand_into: fn(&[u8; N], &mut T),
        write_hand: fn(&T, &mut [u8; N]),
    ) where
        T: marshal::layout::Layout + PartialEq + core::fmt::Debug,
    {
        // Each `_into` reader overwrites every field of a record that differs from the one read.
        let into = |r: &dyn Fn(&mut T), w: &[u8; N]| {
            let mut other = read_hand(&w.map(|b| !b));
            r(&mut other);
            other
        };
        let read_derived = T::read_from;
        let write_derived = T::write_to;
        let mut g = Gen::new(seed);
        for _ in 0..1000 {
            let v = random(&mut g);
            let (mut d, mut h) = ([0x55u8; N], [0xaau8; N]);
            write_derived(&v, &mut d).unwrap();
            write_hand(&v, &mut h);
            assert_eq!(d, h, "{v:?}");
            assert_eq!(read_hand(&h), v);
            assert_eq!(read_derived(&d).unwrap(), v);
            assert_eq!(into(&|o| o.read_into(&d).unwrap(), &d), v);
            assert_eq!(into(&|o| read_hand_into(&d, o), &d), v);

            // Every bit pattern is a valid record of these layouts.
            let w: [u8; N] = random_bytes(&mut g);
            let (vd, vh) = (read_derived(&w).unwrap(), read_hand(&w));
            assert_eq!(vd, vh, "{w:?}");
            assert_eq!(into(&|o| o.read_into(&w).unwrap(), &w), vh);
            assert_eq!(into(&|o| read_hand_into(&w, o), &w), vh);
            let mut back = [0u8; N];
            write_hand(&vh, &mut back);
            assert_eq!(back, w);
        }
    }

    #[test]
    fn netlong_hand_and_derived_agree() {
        agree(
            11,
            random_netlong,
            read_netlong,
            read_netlong_into,
            write_netlong,
        );
        let mut b = [0u8; 4];
        write_netlong(&NetLong { value: -2 }, &mut b);
        assert_eq!(b, [0xff, 0xff, 0xff, 0xfe]);
    }

    #[test]
    fn udp_hand_and_derived_agree() {
        agree(12, random_udp, read_udp, read_udp_into, write_udp);
    }

    #[test]
    fn big_hand_and_derived_agree() {
        agree(13, random_big, read_big, read_big_into, write_big);
    }

    #[test]
    fn big_fields_sit_where_the_headers_put_them() {
        let mut b = [0u8; 82];
        b[14] = 0x45; // IPv4, IHL 5
        b[20..22].copy_from_slice(&[0x40, 0x00]); // DF
        b[38..42].copy_from_slice(&[1, 2, 3, 4]);
        b[46] = 0x50;
        b[47] = 0x12; // SYN + ACK
        b[78..82].copy_from_slice(&[10, 0, 0, 1]);
        let h = read_big(&b);
        assert_eq!((h.ip_version, h.ip_ihl, h.ip_flags), (4, 5, 0b010));
        assert_eq!(
            (h.tcp_seq, h.tcp_data_offset, h.tcp_flags),
            (0x0102_0304, 5, 0x12)
        );
        assert_eq!(h.arp_tpa, [10, 0, 0, 1]);
        assert_eq!(BigHeader::read_from(&b).unwrap(), h);
    }
}
