//! `pcap_layout`: the pcap reader of `workloads::pcap` over the input, and the
//! layout-annotated protocol headers of `workloads::headers` (USC records) over each captured
//! frame and over the raw input.
//!
//! Input: a capture file (any bytes). The reader must yield packets inside the file, which a
//! `PcapWriter` writes back and the reader reads again the same. On each packet's data (and on
//! the input itself) the Ethernet, IPv4, TCP, UDP, ARP and big headers are read where the
//! frame says they are; for each: `read_from`, `view` and `view_mut` agree field by field,
//! `write_to` gives back the bytes read, setters that store a field's own value change
//! nothing, the hand-written conversions agree with the derived ones, and the UDP header
//! converts in place and back. The Internet checksum of data followed by its checksum is 0.

use marshal::layout::Layout;
use workloads::headers::{
    hand, ArpHeader, BigHeader, EthernetHeader, Ipv4Header, NetLong, TcpHeader, UdpHeader,
};
use workloads::pcap::{
    internet_checksum, pseudo_header_checksum, PcapReader, PcapWriter, Precision,
};

/// At most this many packets per input.
const MAX_PACKETS: usize = 4096;

/// The target.
pub fn run(data: &[u8]) {
    frame(data);
    if let Ok(h) = NetLong::read_from(data) {
        check_netlong(data, &h);
    }
    checksums(data);

    let Ok(reader) = PcapReader::new(data) else {
        return;
    };
    let header = *reader.header();
    let mut packets = Vec::new();
    let range = data.as_ptr_range();
    for p in reader.take(MAX_PACKETS) {
        let Ok(p) = p else {
            break;
        };
        let r = p.data.as_ptr_range();
        assert!(
            range.start <= r.start && r.end <= range.end,
            "packet data outside the file"
        );
        frame(p.data);
        packets.push(p);
    }
    let total: usize = packets.iter().map(|p| p.data.len()).sum();
    assert!(total <= data.len(), "more packet data than file");

    // Written again in the file's precision, read back the same.
    let mut w = PcapWriter::new(
        Vec::new(),
        header.linktype,
        workloads::pcap::MAX_RECORD_LEN,
        header.precision,
    )
    .expect("a Vec takes every byte");
    for p in &packets {
        let frac = match header.precision {
            Precision::Micros => p.ts_nanos / 1000,
            Precision::Nanos => p.ts_nanos,
        };
        let frac = u32::try_from(frac).expect("a fraction read from 32 bits");
        w.write_packet(p.ts_sec, frac, p.data)
            .expect("a Vec takes every byte");
    }
    let file = w.into_inner();
    let again: Vec<_> = PcapReader::new(&file)
        .expect("a written file reads")
        .map(|p| p.expect("a written packet reads"))
        .collect();
    assert_eq!(again.len(), packets.len(), "packets written and read back");
    for (a, b) in again.iter().zip(&packets) {
        assert_eq!(
            (a.ts_sec, a.ts_nanos, a.data),
            (b.ts_sec, b.ts_nanos, b.data),
            "a packet written and read back"
        );
    }
}

/// The headers of one Ethernet frame, where it says they are.
fn frame(data: &[u8]) {
    if let Ok(big) = BigHeader::read_from(data) {
        check_big(data, &big);
    }
    let Ok(eth) = EthernetHeader::read_from(data) else {
        return;
    };
    check_eth(data, &eth);
    let l3 = &data[14..];
    match eth.ethertype {
        0x0806 => {
            if let Ok(arp) = ArpHeader::read_from(l3) {
                check_arp(l3, &arp);
            }
        }
        _ => {
            let Ok(ip) = Ipv4Header::read_from(l3) else {
                return;
            };
            check_ip(l3, &ip);
            let Some(l4) = l3.get(usize::from(ip.ihl) * 4..) else {
                return;
            };
            match ip.protocol {
                17 => {
                    if let Ok(udp) = UdpHeader::read_from(l4) {
                        check_udp(l4, &udp);
                    }
                }
                _ => {
                    if let Ok(tcp) = TcpHeader::read_from(l4) {
                        check_tcp(l4, &tcp);
                    }
                }
            }
            let _ = pseudo_header_checksum(ip.src, ip.dst, ip.protocol, l4);
        }
    }
}

/// `read_from`, `view`, `view_mut` and `write_to` agree on `bytes` for a header `h` read from
/// it; `$f / $set` are its fields and setters.
macro_rules! agree {
    ($t:ty, $bytes:expr, $h:expr, { $($f:ident / $set:ident),* $(,)? }) => {{
        let bytes: &[u8] = $bytes;
        let h: &$t = $h;
        let size = <$t as Layout>::SIZE;
        let own = &bytes[..size];
        let v = <$t>::view(bytes).expect("a view where read_from succeeds");
        assert_eq!(v.as_bytes()[..], own[..]);
        assert_eq!(&v.read(), h, "{}: view().read()", stringify!($t));
        $(assert_eq!(v.$f(), h.$f, "{}: view().{}()", stringify!($t), stringify!($f));)*

        let mut out = vec![0xa5u8; size + 3];
        h.write_to(&mut out).expect("a header read from bytes writes");
        assert_eq!(out[..size], own[..], "{}: write_to after read_from", stringify!($t));
        assert_eq!(out[size..], [0xa5; 3], "{}: write_to wrote past the record", stringify!($t));

        let mut copy = own.to_vec();
        {
            let mut m = <$t>::view_mut(&mut copy).expect("a mutable view");
            $(
                assert_eq!(m.$f(), h.$f, "{}: view_mut().{}()", stringify!($t), stringify!($f));
                m.$set(h.$f);
            )*
            m.write(h).expect("a header read from bytes writes");
            assert_eq!(&m.read(), h);
        }
        assert_eq!(copy[..], own[..], "{}: setters storing the same values", stringify!($t));

        let mut other = <$t>::default();
        other.read_into(bytes).expect("read_into where read_from succeeds");
        assert_eq!(&other, h, "{}: read_into", stringify!($t));
    }};
}

fn check_eth(b: &[u8], h: &EthernetHeader) {
    agree!(EthernetHeader, b, h, { dst / set_dst, src / set_src, ethertype / set_ethertype });
}

fn check_ip(b: &[u8], h: &Ipv4Header) {
    agree!(Ipv4Header, b, h, {
        version / set_version, ihl / set_ihl, tos / set_tos, total_len / set_total_len,
        id / set_id, flags / set_flags, frag_offset / set_frag_offset, ttl / set_ttl,
        protocol / set_protocol, checksum / set_checksum, src / set_src, dst / set_dst,
    });
}

fn check_udp(b: &[u8], h: &UdpHeader) {
    agree!(UdpHeader, b, h, {
        src_port / set_src_port, dst_port / set_dst_port, len / set_len, checksum / set_checksum,
    });
    let own: &[u8; 8] = b[..8].try_into().expect("8 bytes");
    assert_eq!(&hand::read_udp(own), h, "hand-written UDP read");
    let mut out = [0u8; 8];
    hand::write_udp(h, &mut out);
    assert_eq!(&out, own, "hand-written UDP write");

    // In place, in a buffer aligned for the struct.
    let mut buf = [0u8; 8 + 8];
    let at = buf
        .as_ptr()
        .align_offset(core::mem::align_of::<UdpHeader>());
    let slot = &mut buf[at..at + 8];
    slot.copy_from_slice(own);
    let in_place =
        UdpHeader::from_wire_in_place(slot).expect("an aligned buffer converts in place");
    assert_eq!(in_place, h, "UDP header converted in place");
    assert_eq!(
        &in_place.to_wire_in_place()[..],
        own,
        "UDP header back to the wire"
    );
}

fn check_tcp(b: &[u8], h: &TcpHeader) {
    agree!(TcpHeader, b, h, {
        src_port / set_src_port, dst_port / set_dst_port, seq / set_seq, ack_seq / set_ack_seq,
        data_offset / set_data_offset, reserved / set_reserved, cwr / set_cwr, ece / set_ece,
        urg / set_urg, ack / set_ack, psh / set_psh, rst / set_rst, syn / set_syn, fin / set_fin,
        window / set_window, checksum / set_checksum, urgent_ptr / set_urgent_ptr,
    });
}

fn check_arp(b: &[u8], h: &ArpHeader) {
    agree!(ArpHeader, b, h, {
        htype / set_htype, ptype / set_ptype, hlen / set_hlen, plen / set_plen, oper / set_oper,
        sha / set_sha, spa / set_spa, tha / set_tha, tpa / set_tpa,
    });
}

fn check_big(b: &[u8], h: &BigHeader) {
    agree!(BigHeader, b, h, {
        eth_dst / set_eth_dst, eth_src / set_eth_src, eth_type / set_eth_type,
        ip_version / set_ip_version, ip_ihl / set_ip_ihl, ip_tos / set_ip_tos,
        ip_total_len / set_ip_total_len, ip_id / set_ip_id, ip_flags / set_ip_flags,
        ip_frag_offset / set_ip_frag_offset, ip_ttl / set_ip_ttl, ip_protocol / set_ip_protocol,
        ip_checksum / set_ip_checksum, ip_src / set_ip_src, ip_dst / set_ip_dst,
        tcp_src_port / set_tcp_src_port, tcp_dst_port / set_tcp_dst_port, tcp_seq / set_tcp_seq,
        tcp_ack_seq / set_tcp_ack_seq, tcp_data_offset / set_tcp_data_offset,
        tcp_reserved / set_tcp_reserved, tcp_flags / set_tcp_flags, tcp_window / set_tcp_window,
        tcp_checksum / set_tcp_checksum, tcp_urgent_ptr / set_tcp_urgent_ptr,
        arp_htype / set_arp_htype, arp_ptype / set_arp_ptype, arp_hlen / set_arp_hlen,
        arp_plen / set_arp_plen, arp_oper / set_arp_oper, arp_sha / set_arp_sha,
        arp_spa / set_arp_spa, arp_tha / set_arp_tha, arp_tpa / set_arp_tpa,
    });
    let own: &[u8; 82] = b[..82].try_into().expect("82 bytes");
    assert_eq!(&hand::read_big(own), h, "hand-written big header read");
    let mut out = [0u8; 82];
    hand::write_big(h, &mut out);
    assert_eq!(&out, own, "hand-written big header write");
}

fn check_netlong(b: &[u8], h: &NetLong) {
    agree!(NetLong, b, h, { value / set_value });
    let own: &[u8; 4] = b[..4].try_into().expect("4 bytes");
    assert_eq!(&hand::read_netlong(own), h, "hand-written long read");
}

/// Data followed by its checksum (padded to an even length first) sums to zero.
fn checksums(data: &[u8]) {
    let mut d = data.to_vec();
    if d.len() % 2 == 1 {
        d.push(0);
    }
    let c = internet_checksum(&d);
    d.extend_from_slice(&c.to_be_bytes());
    assert_eq!(internet_checksum(&d), 0, "data followed by its checksum");
}
