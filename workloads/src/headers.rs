//! Protocol headers as layout-annotated records (USC): Ethernet II, IPv4, UDP, TCP and ARP
//! (for Ethernet and IPv4), and USC's three header-marshaling workloads: a 4-byte long
//! ([`NetLong`]), the 8-byte UDP header ([`UdpHeader`]) and the 82-byte "big header"
//! ([`BigHeader`], all four concatenated). [`hand`] holds the hand-written conversions the
//! benchmarks compare against, and [`netlongs`], [`udp_headers`] and [`big_headers`] generate
//! deterministic batches of them.
//!
//! Every struct here also derives the wire formats (XDR, CDR, NDR) like any other type, which
//! is how the benchmarks send "the same record through XDR".

use marshal::Marshal;

use crate::Gen;

pub mod hand;

/// USC's first workload, "a 4 byte long": one big-endian `int32_t` in network order, as
/// `ntohl`/`htonl` convert it.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 4, align = 4))]
pub struct NetLong {
    #[marshal(at = 0, big)]
    pub value: i32,
}

/// Ethernet II: destination and source MAC addresses and the EtherType.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 14, align = 2))]
pub struct EthernetHeader {
    #[marshal(at = 0)]
    pub dst: [u8; 6],
    #[marshal(at = 6)]
    pub src: [u8; 6],
    #[marshal(at = 12, big)]
    pub ethertype: u16,
}

/// IPv4 (RFC 791), without options: version and IHL share the first byte, flags and
/// fragment offset the 16 bits at byte 6.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 20, align = 4))]
pub struct Ipv4Header {
    #[marshal(at = 0, unit = u8, bits = 4..8)]
    pub version: u8,
    /// Header length in 32-bit words.
    #[marshal(at = 0, unit = u8, bits = 0..4)]
    pub ihl: u8,
    #[marshal(at = 1)]
    pub tos: u8,
    #[marshal(at = 2, big)]
    pub total_len: u16,
    #[marshal(at = 4, big)]
    pub id: u16,
    /// Reserved, DF, MF (from the most significant bit).
    #[marshal(at = 6, big, unit = u16, bits = 13..16)]
    pub flags: u8,
    #[marshal(at = 6, big, unit = u16, bits = 0..13)]
    pub frag_offset: u16,
    #[marshal(at = 8)]
    pub ttl: u8,
    #[marshal(at = 9)]
    pub protocol: u8,
    #[marshal(at = 10, big)]
    pub checksum: u16,
    #[marshal(at = 12)]
    pub src: [u8; 4],
    #[marshal(at = 16)]
    pub dst: [u8; 4],
}

/// UDP (RFC 768). `#[repr(C)]` with its fields in layout order, so it also converts in place.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
#[marshal(layout(size = 8, align = 4, in_place))]
pub struct UdpHeader {
    #[marshal(at = 0, big)]
    pub src_port: u16,
    #[marshal(at = 2, big)]
    pub dst_port: u16,
    #[marshal(at = 4, big)]
    pub len: u16,
    #[marshal(at = 6, big)]
    pub checksum: u16,
}

/// TCP (RFC 9293), without options: data offset and the flag bits as bit-fields.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 20, align = 4))]
pub struct TcpHeader {
    #[marshal(at = 0, big)]
    pub src_port: u16,
    #[marshal(at = 2, big)]
    pub dst_port: u16,
    #[marshal(at = 4, big)]
    pub seq: u32,
    #[marshal(at = 8, big)]
    pub ack_seq: u32,
    /// Header length in 32-bit words.
    #[marshal(at = 12, unit = u8, bits = 4..8)]
    pub data_offset: u8,
    #[marshal(at = 12, unit = u8, bits = 0..4)]
    pub reserved: u8,
    #[marshal(at = 13, unit = u8, bits = 7..8)]
    pub cwr: bool,
    #[marshal(at = 13, unit = u8, bits = 6..7)]
    pub ece: bool,
    #[marshal(at = 13, unit = u8, bits = 5..6)]
    pub urg: bool,
    #[marshal(at = 13, unit = u8, bits = 4..5)]
    pub ack: bool,
    #[marshal(at = 13, unit = u8, bits = 3..4)]
    pub psh: bool,
    #[marshal(at = 13, unit = u8, bits = 2..3)]
    pub rst: bool,
    #[marshal(at = 13, unit = u8, bits = 1..2)]
    pub syn: bool,
    #[marshal(at = 13, unit = u8, bits = 0..1)]
    pub fin: bool,
    #[marshal(at = 14, big)]
    pub window: u16,
    #[marshal(at = 16, big)]
    pub checksum: u16,
    #[marshal(at = 18, big)]
    pub urgent_ptr: u16,
}

/// ARP (RFC 826) for Ethernet and IPv4.
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 28, align = 2))]
pub struct ArpHeader {
    #[marshal(at = 0, big)]
    pub htype: u16,
    #[marshal(at = 2, big)]
    pub ptype: u16,
    #[marshal(at = 4)]
    pub hlen: u8,
    #[marshal(at = 5)]
    pub plen: u8,
    #[marshal(at = 6, big)]
    pub oper: u16,
    #[marshal(at = 8)]
    pub sha: [u8; 6],
    #[marshal(at = 14)]
    pub spa: [u8; 4],
    #[marshal(at = 18)]
    pub tha: [u8; 6],
    #[marshal(at = 24)]
    pub tpa: [u8; 4],
}

/// USC's "big header": Ethernet, IPv4, TCP and ARP headers back to back, 82 bytes, in a
/// 4-aligned buffer. One flat record, as USC compiled it, so conversion groups fields across
/// the headers' boundaries (the IPv4 header starts at byte 14).
#[derive(Marshal, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[marshal(layout(size = 82, align = 4))]
pub struct BigHeader {
    #[marshal(at = 0)]
    pub eth_dst: [u8; 6],
    #[marshal(at = 6)]
    pub eth_src: [u8; 6],
    #[marshal(at = 12, big)]
    pub eth_type: u16,

    #[marshal(at = 14, unit = u8, bits = 4..8)]
    pub ip_version: u8,
    #[marshal(at = 14, unit = u8, bits = 0..4)]
    pub ip_ihl: u8,
    #[marshal(at = 15)]
    pub ip_tos: u8,
    #[marshal(at = 16, big)]
    pub ip_total_len: u16,
    #[marshal(at = 18, big)]
    pub ip_id: u16,
    #[marshal(at = 20, big, unit = u16, bits = 13..16)]
    pub ip_flags: u8,
    #[marshal(at = 20, big, unit = u16, bits = 0..13)]
    pub ip_frag_offset: u16,
    #[marshal(at = 22)]
    pub ip_ttl: u8,
    #[marshal(at = 23)]
    pub ip_protocol: u8,
    #[marshal(at = 24, big)]
    pub ip_checksum: u16,
    #[marshal(at = 26)]
    pub ip_src: [u8; 4],
    #[marshal(at = 30)]
    pub ip_dst: [u8; 4],

    #[marshal(at = 34, big)]
    pub tcp_src_port: u16,
    #[marshal(at = 36, big)]
    pub tcp_dst_port: u16,
    #[marshal(at = 38, big)]
    pub tcp_seq: u32,
    #[marshal(at = 42, big)]
    pub tcp_ack_seq: u32,
    #[marshal(at = 46, unit = u8, bits = 4..8)]
    pub tcp_data_offset: u8,
    #[marshal(at = 46, unit = u8, bits = 0..4)]
    pub tcp_reserved: u8,
    /// The eight flag bits (CWR … FIN), as one byte.
    #[marshal(at = 47)]
    pub tcp_flags: u8,
    #[marshal(at = 48, big)]
    pub tcp_window: u16,
    #[marshal(at = 50, big)]
    pub tcp_checksum: u16,
    #[marshal(at = 52, big)]
    pub tcp_urgent_ptr: u16,

    #[marshal(at = 54, big)]
    pub arp_htype: u16,
    #[marshal(at = 56, big)]
    pub arp_ptype: u16,
    #[marshal(at = 58)]
    pub arp_hlen: u8,
    #[marshal(at = 59)]
    pub arp_plen: u8,
    #[marshal(at = 60, big)]
    pub arp_oper: u16,
    #[marshal(at = 62)]
    pub arp_sha: [u8; 6],
    #[marshal(at = 68)]
    pub arp_spa: [u8; 4],
    #[marshal(at = 72)]
    pub arp_tha: [u8; 6],
    #[marshal(at = 78)]
    pub arp_tpa: [u8; 4],
}

/// A random long.
pub fn random_netlong(g: &mut Gen) -> NetLong {
    NetLong {
        value: g.next_i32(),
    }
}

/// A random UDP header.
pub fn random_udp(g: &mut Gen) -> UdpHeader {
    let v = g.next_u32();
    let w = g.next_u32();
    UdpHeader {
        src_port: (v >> 16) as u16,
        dst_port: v as u16,
        len: (w >> 16) as u16,
        checksum: w as u16,
    }
}

/// `N` random bytes.
pub(crate) fn random_bytes<const N: usize>(g: &mut Gen) -> [u8; N] {
    let mut b = [0u8; N];
    b.iter_mut().for_each(|x| *x = g.next_u32() as u8);
    b
}

/// A random big header: every field random, bit-fields within their bits.
pub fn random_big(g: &mut Gen) -> BigHeader {
    let mut half = || g.next_u32() as u16;
    let (eth_type, ip_total_len, ip_id, ip_flags_frag, ip_checksum) =
        (half(), half(), half(), half(), half());
    let (tcp_src_port, tcp_dst_port, tcp_window, tcp_checksum, tcp_urgent_ptr) =
        (half(), half(), half(), half(), half());
    let (arp_htype, arp_ptype, arp_oper) = (half(), half(), half());
    let bytes: [u8; 8] = random_bytes(g);
    BigHeader {
        eth_dst: random_bytes(g),
        eth_src: random_bytes(g),
        eth_type,
        ip_version: bytes[0] >> 4,
        ip_ihl: bytes[0] & 0xf,
        ip_tos: bytes[1],
        ip_total_len,
        ip_id,
        ip_flags: (ip_flags_frag >> 13) as u8,
        ip_frag_offset: ip_flags_frag & 0x1fff,
        ip_ttl: bytes[2],
        ip_protocol: bytes[3],
        ip_checksum,
        ip_src: random_bytes(g),
        ip_dst: random_bytes(g),
        tcp_src_port,
        tcp_dst_port,
        tcp_seq: g.next_u32(),
        tcp_ack_seq: g.next_u32(),
        tcp_data_offset: bytes[4] >> 4,
        tcp_reserved: bytes[4] & 0xf,
        tcp_flags: bytes[5],
        tcp_window,
        tcp_checksum,
        tcp_urgent_ptr,
        arp_htype,
        arp_ptype,
        arp_hlen: bytes[6],
        arp_plen: bytes[7],
        arp_oper,
        arp_sha: random_bytes(g),
        arp_spa: random_bytes(g),
        arp_tha: random_bytes(g),
        arp_tpa: random_bytes(g),
    }
}

/// `n` random longs, the same on every run.
pub fn netlongs(n: usize) -> Vec<NetLong> {
    let mut g = Gen::new(4);
    (0..n).map(|_| random_netlong(&mut g)).collect()
}

/// `n` random UDP headers, the same on every run.
pub fn udp_headers(n: usize) -> Vec<UdpHeader> {
    let mut g = Gen::new(5);
    (0..n).map(|_| random_udp(&mut g)).collect()
}

/// `n` random big headers, the same on every run.
pub fn big_headers(n: usize) -> Vec<BigHeader> {
    let mut g = Gen::new(6);
    (0..n).map(|_| random_big(&mut g)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The IPv4 header of Wikipedia's checksum example.
    const IP: [u8; 20] = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];

    #[test]
    fn ipv4_reads_writes_and_views() {
        let h = Ipv4Header::read_from(&IP).unwrap();
        assert_eq!(
            h,
            Ipv4Header {
                version: 4,
                ihl: 5,
                tos: 0,
                total_len: 0x73,
                id: 0,
                flags: 0b010,
                frag_offset: 0,
                ttl: 64,
                protocol: 17,
                checksum: 0xb861,
                src: [192, 168, 0, 1],
                dst: [192, 168, 0, 199],
            }
        );
        let mut out = [0xaa; 24];
        h.write_to(&mut out).unwrap();
        assert_eq!(out[..20], IP);
        assert_eq!(out[20..], [0xaa; 4]);

        let mut buf = IP;
        let mut v = Ipv4Header::view_mut(&mut buf).unwrap();
        assert_eq!((v.version(), v.ihl(), v.flags(), v.ttl()), (4, 5, 2, 64));
        v.set_ttl(v.ttl() - 1);
        v.set_flags(0b001);
        v.set_frag_offset(0x1abc);
        assert_eq!((v.version(), v.flags(), v.frag_offset()), (4, 1, 0x1abc));
        assert_eq!(buf[8], 63);
        assert_eq!(buf[6..8], [0x3a, 0xbc]);
        assert!(Ipv4Header::view(&IP[..19]).is_err());
    }

    #[test]
    fn bit_field_values_wider_than_their_bits_are_refused() {
        let h = Ipv4Header {
            flags: 8,
            ..Ipv4Header::default()
        };
        let mut out = [0x55; 20];
        let e = h.write_to(&mut out).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flags: value 8 does not fit 3 bits at offset 6"
        );
        assert_eq!(out, [0x55; 20], "nothing written");
    }

    #[test]
    fn udp_converts_in_place_both_ways() {
        #[repr(align(4))]
        struct Buf([u8; 12]);
        let mut b = Buf([0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0xbe, 0xef, 1, 2, 3, 4]);
        let h = UdpHeader::from_wire_in_place(&mut b.0).unwrap();
        assert_eq!(
            *h,
            UdpHeader {
                src_port: 12345,
                dst_port: 53,
                len: 12,
                checksum: 0xbeef
            }
        );
        h.len = 20;
        assert_eq!(
            h.to_wire_in_place(),
            &[0x30, 0x39, 0x00, 0x35, 0x00, 0x14, 0xbe, 0xef]
        );
        assert_eq!(b.0[8..], [1, 2, 3, 4]);
        assert!(UdpHeader::from_wire_in_place(&mut b.0[1..9]).is_err());
        assert_eq!(b.0[..8], [0x30, 0x39, 0x00, 0x35, 0x00, 0x14, 0xbe, 0xef]);
    }

    #[test]
    fn tcp_flags_are_bits() {
        let mut b = [0u8; 20];
        b[12] = 0x50;
        b[13] = 0x12; // SYN + ACK
        let t = TcpHeader::read_from(&b).unwrap();
        assert!(t.syn && t.ack && !t.fin && !t.rst);
        assert_eq!(t.data_offset, 5);
        let mut out = [0u8; 20];
        t.write_to(&mut out).unwrap();
        assert_eq!(out, b);
    }
}
