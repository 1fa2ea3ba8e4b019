//! Protocol headers through layout views: reads a libpcap capture of Ethernet frames, prints
//! each frame's Ethernet, IPv4, UDP/TCP or ARP header through `view` (each getter reads its
//! field straight from the frame's bytes), then rewrites each IPv4 header in place through
//! `view_mut`, as a router would: TTL down by one and the header checksum recomputed.
//!
//! ```text
//! cargo run --example headers [CAPTURE.pcap [REWRITTEN.pcap]]
//! ```
//!
//! Without arguments it reads the bundled `examples/data/sample.pcap` (made by
//! `scripts/make_sample_pcap.py`). With a second path it also writes the rewritten frames
//! there.

use std::error::Error;
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use marshal::layout::Layout;
use workloads::headers::{ArpHeader, EthernetHeader, Ipv4Header, TcpHeader, UdpHeader};
use workloads::pcap::{
    internet_checksum, pseudo_header_checksum, Endian, PcapReader, PcapWriter, Precision,
    LINKTYPE_ETHERNET,
};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/sample.pcap");

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_ARP: u16 = 0x0806;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
/// IPv4 flags, from the most significant of the three bits: reserved, DF, MF.
const DF: u8 = 0b010;
const MF: u8 = 0b001;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("headers: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args_os().skip(1);
    let path = args
        .next()
        .map_or_else(|| PathBuf::from(SAMPLE), PathBuf::from);
    let out = args.next().map(PathBuf::from);
    let file = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = PcapReader::new(&file)?;
    let h = *reader.header();
    if h.linktype != LINKTYPE_ETHERNET {
        return Err(format!("link type {} is not Ethernet (1)", h.linktype).into());
    }
    let order = match h.endian {
        Endian::Little => "little-endian",
        Endian::Big => "big-endian",
    };
    let unit = match h.precision {
        Precision::Micros => "µs",
        Precision::Nanos => "ns",
    };
    println!(
        "{}: pcap {}.{} {order}, {unit} timestamps, snaplen {}",
        path.display(),
        h.version_major,
        h.version_minor,
        h.snaplen
    );

    let mut frames = Vec::new();
    let mut start = None;
    for (k, packet) in reader.enumerate() {
        let p = packet?;
        let t = u64::from(p.ts_sec) * 1_000_000_000 + p.ts_nanos;
        let t0 = *start.get_or_insert(t);
        let dt = t.saturating_sub(t0);
        println!(
            "#{} +{}.{:06}s {} bytes",
            k + 1,
            dt / 1_000_000_000,
            dt % 1_000_000_000 / 1000,
            p.data.len()
        );
        show_frame(p.data);
        frames.push(p);
    }

    println!("-- rewriting each IPv4 header in place: TTL - 1, checksum recomputed --");
    let mut rewritten = Vec::new();
    for (k, p) in frames.iter().enumerate() {
        let mut data = p.data.to_vec();
        if let Some(line) = rewrite_ipv4(&mut data)? {
            println!("#{} {line}", k + 1);
        }
        rewritten.push(data);
    }

    if let Some(out) = out {
        let mut w = PcapWriter::new(Vec::new(), h.linktype, h.snaplen, h.precision)?;
        for (p, data) in frames.iter().zip(&rewritten) {
            let frac = match h.precision {
                Precision::Micros => p.ts_nanos / 1000,
                Precision::Nanos => p.ts_nanos,
            };
            w.write_packet(p.ts_sec, u32::try_from(frac)?, data)?;
        }
        fs::write(&out, w.into_inner()).map_err(|e| format!("{}: {e}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}

fn mac(m: [u8; 6]) -> String {
    let [a, b, c, d, e, f] = m;
    format!("{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{f:02x}")
}

fn ip(a: [u8; 4]) -> String {
    let [a, b, c, d] = a;
    format!("{a}.{b}.{c}.{d}")
}

fn ok(verifies: bool) -> &'static str {
    if verifies {
        "ok"
    } else {
        "BAD"
    }
}

/// Prints the headers of one Ethernet frame, each through its view.
fn show_frame(frame: &[u8]) {
    let eth = match EthernetHeader::view(frame) {
        Ok(v) => v,
        Err(e) => return println!("   {e}"),
    };
    let name = match eth.ethertype() {
        ETHERTYPE_IPV4 => "IPv4",
        ETHERTYPE_ARP => "ARP",
        _ => "?",
    };
    println!(
        "   eth  {} > {} type {:#06x} ({name})",
        mac(eth.src()),
        mac(eth.dst()),
        eth.ethertype()
    );
    let rest = &frame[EthernetHeader::SIZE.min(frame.len())..];
    match eth.ethertype() {
        ETHERTYPE_IPV4 => show_ipv4(rest),
        ETHERTYPE_ARP => show_arp(rest),
        _ => {}
    }
}

fn show_ipv4(packet: &[u8]) {
    let v = match Ipv4Header::view(packet) {
        Ok(v) => v,
        Err(e) => return println!("   {e}"),
    };
    let header_len = usize::from(v.ihl()) * 4;
    let total = usize::from(v.total_len());
    let Some(header) = packet.get(..header_len).filter(|_| header_len >= 20) else {
        return println!("   ipv4 bad header length: ihl {}", v.ihl());
    };
    let proto = match v.protocol() {
        PROTO_TCP => "TCP",
        PROTO_UDP => "UDP",
        _ => "?",
    };
    let flags = v.flags();
    let flag_names: Vec<&str> = [(0b100, "RF"), (DF, "DF"), (MF, "MF")]
        .iter()
        .filter(|f| flags & f.0 != 0)
        .map(|f| f.1)
        .collect();
    println!(
        "   ipv4 {} > {} proto {} ({proto}) ttl {} cksum {:#06x} {}",
        ip(v.src()),
        ip(v.dst()),
        v.protocol(),
        v.ttl(),
        v.checksum(),
        ok(internet_checksum(header) == 0)
    );
    println!(
        "        v{} ihl {} tos {:#04x} len {} id {:#06x} flags [{}] frag_offset {}",
        v.version(),
        v.ihl(),
        v.tos(),
        total,
        v.id(),
        flag_names.join(" "),
        v.frag_offset()
    );
    let Some(payload) = packet.get(header_len..total.max(header_len)) else {
        return println!("   ipv4 payload truncated: {total} bytes claimed");
    };
    let fragment = flags & MF != 0 || v.frag_offset() != 0;
    if v.frag_offset() != 0 {
        return println!(
            "   fragment: {} bytes at offset {}",
            payload.len(),
            usize::from(v.frag_offset()) * 8
        );
    }
    // The segment's checksum covers the whole datagram: not checkable in a first fragment.
    let check = |c: u16| -> &'static str {
        if fragment {
            "(first fragment)"
        } else if v.protocol() == PROTO_UDP && c == 0 {
            "(none)"
        } else {
            ok(pseudo_header_checksum(v.src(), v.dst(), v.protocol(), payload) == 0)
        }
    };
    match v.protocol() {
        PROTO_UDP => match UdpHeader::view(payload) {
            Ok(u) => println!(
                "   udp  {} > {} len {} cksum {:#06x} {}",
                u.src_port(),
                u.dst_port(),
                u.len(),
                u.checksum(),
                check(u.checksum())
            ),
            Err(e) => println!("   {e}"),
        },
        PROTO_TCP => match TcpHeader::view(payload) {
            Ok(t) => {
                let letters = [
                    (t.syn(), 'S'),
                    (t.fin(), 'F'),
                    (t.rst(), 'R'),
                    (t.psh(), 'P'),
                    (t.ack(), 'A'),
                    (t.urg(), 'U'),
                    (t.ece(), 'E'),
                    (t.cwr(), 'C'),
                ];
                let f: String = letters.iter().filter(|l| l.0).map(|l| l.1).collect();
                println!(
                    "   tcp  {} > {} [{f}] seq {} ack {} doff {} win {} cksum {:#06x} {}",
                    t.src_port(),
                    t.dst_port(),
                    t.seq(),
                    t.ack_seq(),
                    t.data_offset(),
                    t.window(),
                    t.checksum(),
                    check(t.checksum())
                );
            }
            Err(e) => println!("   {e}"),
        },
        _ => {}
    }
}

fn show_arp(packet: &[u8]) {
    let a = match ArpHeader::view(packet) {
        Ok(a) => a,
        Err(e) => return println!("   {e}"),
    };
    let op = match a.oper() {
        1 => "request",
        2 => "reply",
        _ => "?",
    };
    println!(
        "   arp  op {} ({op}) sender {} {} target {} {}",
        a.oper(),
        mac(a.sha()),
        ip(a.spa()),
        mac(a.tha()),
        ip(a.tpa())
    );
}

/// Decrements the TTL of the frame's IPv4 header in place and recomputes its checksum, all
/// through `view_mut`; returns what changed, or `None` if the frame holds no IPv4 header.
fn rewrite_ipv4(frame: &mut [u8]) -> Result<Option<String>, Box<dyn Error>> {
    let is_ipv4 = EthernetHeader::view(frame).is_ok_and(|e| e.ethertype() == ETHERTYPE_IPV4);
    let Some(packet) = frame.get_mut(EthernetHeader::SIZE..).filter(|_| is_ipv4) else {
        return Ok(None);
    };
    let Ok(mut v) = Ipv4Header::view_mut(packet) else {
        return Ok(None);
    };
    let header_len = usize::from(v.ihl()) * 4;
    let (ttl, old) = (v.ttl(), v.checksum());
    if ttl <= 1 {
        return Ok(Some(format!("ttl {ttl}: would be dropped, unchanged")));
    }
    v.set_ttl(ttl - 1);
    v.set_checksum(0);
    // The checksum covers the header's options too, beyond the view's 20 bytes.
    let header = packet
        .get(..header_len)
        .filter(|_| header_len >= 20)
        .ok_or("bad IPv4 header length")?;
    let new = internet_checksum(header);
    let mut v = Ipv4Header::view_mut(packet)?;
    v.set_checksum(new);
    let verifies = internet_checksum(&packet[..header_len]) == 0;
    if !verifies {
        return Err("the recomputed checksum does not verify".into());
    }
    let v = Ipv4Header::view(packet)?;
    Ok(Some(format!(
        "ipv4 {} > {} ttl {ttl} -> {} cksum {old:#06x} -> {:#06x} {}",
        ip(v.src()),
        ip(v.dst()),
        v.ttl(),
        v.checksum(),
        ok(verifies)
    )))
}
